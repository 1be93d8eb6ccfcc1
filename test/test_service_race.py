"""Service calls made right after the client is created are answered (issue 21).

A ROS 2 client calls as soon as it sees the service (its request writer and reply reader
matched ours); our reply writer may not have matched its reply reader yet, and a reply written
then is lost (volatile QoS). `ros2 param get/set`, `ros2 lifecycle` and rclpy clients did get no
answer now and then; our servers now wait (bounded) for the requester's reply reader.

Fresh clients, each a new process and participant, call `get_parameters` once, with no retry:
- a Cyclone DDS peer (PyPI `cyclonedds`, rmw_cyclonedds' request framing) that writes its
  request the moment its request writer is matched and only then creates its reply reader
  (before the fix about half of these went unanswered), or the moment both of its endpoints are
  matched, as rclpy does (before: 45 of 50 answered);
- `ros2 param get` from the real ROS 2 Jazzy rig (rclpy, rmw_cyclonedds_cpp), where installed
  (before: 48 of 50 answered, the others hung).

Runs inside the private network namespace scripts/test creates (conftest contains a bare run).
Run as a script (`test_service_race.py call DOMAIN NODE SEQ MODE`), the file is the Cyclone client:
it prints `answered` or `lost`."""

import os
import pathlib
import subprocess
import sys
import time

import pytest

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))

from nodes import NodeProcess, wait_until  # noqa: E402

CALLS = 20
# Endpoints of the client's own node (an rclpy node has about this many before its first client).
NODE_ENDPOINTS = 16
CLIENT_GUID = 0x0F1E_2D3C_4B5A_6978
# Answered within this after the request was written, or lost (a served reply takes milliseconds;
# the server waits at most 2 s for the client's reply reader).
REPLY_TIMEOUT_S = 10.0
RIG = pathlib.Path("/opt/ros/jazzy")
CYCLONE_RMW = "rmw_cyclonedds_cpp"
RELAY_ARGS = ("-r", "__ns:=/race", "-p", "ros_type:=sensor_msgs/msg/Imu",
              "-p", "input:=imu_raw", "-p", "output:=imu")
RELAY = "/race/relay"


def call_at_once(domain: int, node: str, seq: int, mode: str) -> bool:
    """One fresh Cyclone client of `node`'s get_parameters, in a participant that also holds
    the endpoints a ROS node has (as rclpy's does: its own parameter services, /rosout,
    /parameter_events; they make its discovery take longer). Mode `ready`: waits until its
    request writer and reply reader are matched (what `service_is_ready` checks) and writes one
    request at once. Mode `reader_after`: writes the request as soon as the request writer is
    matched and only then creates its reply reader (the race at its widest). Whether the reply
    came."""
    from cyclonedds.domain import DomainParticipant
    from cyclonedds.pub import DataWriter
    from cyclonedds.sub import DataReader
    from cyclonedds.topic import Topic

    from peers.cyclone import GetParametersRequest, GetParametersResponse, ros_qos

    dp = DomainParticipant(domain)
    base = node.lstrip("/")
    node_endpoints = [
        (DataReader if i % 2 else DataWriter)(
            dp, Topic(dp, f"r{'q' if i % 2 else 'r'}/race_client/s{i // 2}{'Request' if i % 2 else 'Reply'}",
                      GetParametersRequest if i % 2 else GetParametersResponse), ros_qos())
        for i in range(NODE_ENDPOINTS)]
    writer = DataWriter(dp, Topic(dp, f"rq/{base}/get_parametersRequest", GetParametersRequest), ros_qos())
    reply_topic = Topic(dp, f"rr/{base}/get_parametersReply", GetParametersResponse)
    if mode == "ready":
        reader = DataReader(dp, reply_topic, ros_qos())
        wait_until(lambda: writer.get_matched_subscriptions() and reader.get_matched_publications(),
                   30, f"{node}/get_parameters to be ready", poll=0.001)
        writer.write(GetParametersRequest(client_guid=CLIENT_GUID, seq=seq, names=["ros_type"]))
    elif mode == "reader_after":
        wait_until(writer.get_matched_subscriptions, 30, f"{node}/get_parameters request reader", poll=0.001)
        writer.write(GetParametersRequest(client_guid=CLIENT_GUID, seq=seq, names=["ros_type"]))
        reader = DataReader(dp, reply_topic, ros_qos())
    else:
        raise ValueError(f"mode: {mode!r} is not ready or reader_after")
    answered = False
    deadline = time.monotonic() + REPLY_TIMEOUT_S
    while not answered and time.monotonic() < deadline:
        for reply in reader.take(10):
            if getattr(reply, "client_guid", None) == CLIENT_GUID and reply.seq == seq:
                assert [v.string_value for v in reply.values] == ["sensor_msgs/msg/Imu"], reply
                answered = True
        time.sleep(0.002)
    assert len(node_endpoints) == NODE_ENDPOINTS  # the node's endpoints lived through the call
    return answered


def relay(domain: int) -> NodeProcess:
    return NodeProcess("fieldproof_bridge", "relay", *RELAY_ARGS,
                       env={"ROS_DOMAIN_ID": str(domain), "RMW_IMPLEMENTATION": CYCLONE_RMW})


def wait_for_node(domain: int, node: str):
    """Until one client has been answered (the node is up and serving)."""
    wait_until(lambda: call_at_once(domain, node, 0, "ready"), 60, f"{node} to answer get_parameters", poll=0.1)


@pytest.mark.skipif(os.environ.get("FIELDPROOF_IN_NETNS") != "1",
                    reason="opens DDS participants: run under scripts/netns-run or conftest's namespace")
@pytest.mark.parametrize("mode,domain", [("reader_after", 156), ("ready", 157)])
def test_fresh_cyclone_clients_calling_at_once_are_all_answered(mode, domain):
    with relay(domain) as node:
        wait_for_node(domain, RELAY)
        outcomes = []
        for seq in range(1, CALLS + 1):
            out = subprocess.run([sys.executable, __file__, "call", str(domain), RELAY, str(seq), mode],
                                 capture_output=True, text=True, timeout=120)
            assert out.returncode == 0, out.stderr
            outcomes.append(out.stdout.strip())
        assert node.alive(), node.output()
    answered = outcomes.count("answered")
    print(f"fresh Cyclone clients ({mode}) answered: {answered} of {CALLS}")
    assert answered == CALLS, f"{outcomes}\n{node.output()}"


def rig_env(domain: int) -> dict:
    dump = subprocess.run(["bash", "-c", f"source {RIG}/setup.bash && env -0"],
                          check=True, capture_output=True).stdout.decode()
    env = dict(entry.split("=", 1) for entry in dump.split("\0") if "=" in entry)
    env.update(RMW_IMPLEMENTATION=CYCLONE_RMW, ROS_DOMAIN_ID=str(domain), PYTHONUNBUFFERED="1")
    return env


@pytest.mark.skipif(not (RIG / "setup.bash").exists(),
                    reason=f"no ROS 2 Jazzy rig at {RIG} (scripts/setup installs it from ../shared/ros2-jazzy)")
@pytest.mark.skipif(os.environ.get("FIELDPROOF_IN_NETNS") != "1",
                    reason="opens DDS participants: run under scripts/netns-run or conftest's namespace")
def test_ros2_param_get_is_answered_every_time():
    domain = 158
    env = rig_env(domain)
    with relay(domain) as node:
        wait_for_node(domain, RELAY)
        outcomes = []
        for _ in range(CALLS):
            try:
                out = subprocess.run(["ros2", "param", "get", "--no-daemon", RELAY, "ros_type"],
                                     env=env, capture_output=True, text=True, timeout=30)
                outcomes.append(out.stdout.strip() if out.returncode == 0 else f"exit {out.returncode}: {out.stderr}")
            except subprocess.TimeoutExpired:
                outcomes.append("no answer within 30 s")
        assert node.alive(), node.output()
    answered = outcomes.count("String value is: sensor_msgs/msg/Imu")
    print(f"ros2 param get answered: {answered} of {CALLS}")
    assert answered == CALLS, f"{outcomes}\n{node.output()}"


if __name__ == "__main__":
    if len(sys.argv) != 6 or sys.argv[1] != "call":
        sys.exit("usage: test_service_race.py call DOMAIN NODE SEQ ready|reader_after")
    print("answered" if call_at_once(int(sys.argv[2]), sys.argv[3], int(sys.argv[4]), sys.argv[5]) else "lost")
