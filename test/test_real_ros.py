"""Our nodes beside real ROS 2 Jazzy (rclpy, rmw_cyclonedds_cpp, ros2cli) from the rig that
scripts/setup installs to /opt/ros/jazzy from ../shared/ros2-jazzy; skipped where it is absent.

Every test runs inside the private network namespace scripts/test creates (scripts/netns-run),
each on its own ROS_DOMAIN_ID. Real ROS Python runs with /usr/bin/python3 (the rig is built for
it) in the environment of `source /opt/ros/jazzy/setup.bash`."""

import os
import pathlib
import subprocess

import pytest

from nodes import NodeProcess, wait_until

RIG = pathlib.Path("/opt/ros/jazzy")
if not (RIG / "setup.bash").exists():
    pytest.skip(f"no ROS 2 Jazzy rig at {RIG} (scripts/setup installs it when "
                "../shared/ros2-jazzy/jazzy-min.tar.zst is there)", allow_module_level=True)
if os.environ.get("FIELDPROOF_IN_NETNS") != "1":
    pytest.skip("real-ROS tests open DDS participants: run them under scripts/netns-run",
                allow_module_level=True)

pytestmark = pytest.mark.real_ros

PEERS = pathlib.Path(__file__).resolve().parent / "peers"
SYSTEM_PYTHON = "/usr/bin/python3"
CYCLONE_RMW = "rmw_cyclonedds_cpp"
# What rmw_cyclonedds_cpp prints for a remote endpoint whose USER_DATA carries no type hash.
TYPE_HASH_WARNING = "Failed to parse type hash"


@pytest.fixture(scope="module")
def rig_env() -> dict:
    """The environment of `source /opt/ros/jazzy/setup.bash`, with Cyclone DDS as the RMW."""
    dump = subprocess.run(["bash", "-c", f"source {RIG}/setup.bash && env -0"],
                          check=True, capture_output=True).stdout.decode()
    env = dict(entry.split("=", 1) for entry in dump.split("\0") if "=" in entry)
    env["RMW_IMPLEMENTATION"] = CYCLONE_RMW
    env["PYTHONUNBUFFERED"] = "1"
    return env


def on_domain(env: dict, domain_id: int) -> dict:
    return {**env, "ROS_DOMAIN_ID": str(domain_id)}


def our_node(domain_id: int, *ros_args: str) -> NodeProcess:
    """Our relay, started as `ros2 run` would (NodeProcess), on `domain_id`."""
    return NodeProcess("fieldproof_bridge", "relay", *ros_args,
                       env={"ROS_DOMAIN_ID": str(domain_id), "RMW_IMPLEMENTATION": CYCLONE_RMW})


def ros2(env: dict, *args: str, timeout: float = 30) -> subprocess.CompletedProcess:
    """A `ros2` CLI command without the daemon (no process outlives the test)."""
    return subprocess.run(["ros2", *args], env=env, capture_output=True, text=True, timeout=timeout)


def test_ros2_node_list_shows_our_node(rig_env):
    domain = 62
    env = on_domain(rig_env, domain)
    with our_node(domain, "-r", "__ns:=/ugv1", "-r", "__node:=imu_relay",
                  "-p", "ros_type:=sensor_msgs/msg/Imu", "-p", "input:=imu_raw", "-p", "output:=imu"):
        listed = wait_until(
            lambda: (out := ros2(env, "node", "list", "--no-daemon", "--spin-time", "2")).returncode == 0
            and "/ugv1/imu_relay" in out.stdout.split() and out,
            30, "ros2 node list to show /ugv1/imu_relay", poll=0.5)
    assert listed.stdout.split().count("/ugv1/imu_relay") == 1, listed.stdout


def test_ros2_param_get_and_set_on_our_node(rig_env):
    domain = 63
    env = on_domain(rig_env, domain)
    with our_node(domain, "-r", "__ns:=/ugv1", "-p", "ros_type:=sensor_msgs/msg/Imu",
                  "-p", "input:=imu_raw", "-p", "output:=imu") as relay:
        got = wait_until(
            lambda: (out := ros2(env, "param", "get", "--no-daemon", "/ugv1/relay", "ros_type")).returncode == 0
            and out,
            30, "ros2 param get /ugv1/relay ros_type", poll=0.5)
        assert got.stdout.strip() == "String value is: sensor_msgs/msg/Imu", got.stdout + got.stderr

        before = ros2(env, "param", "get", "--no-daemon", "/ugv1/relay", "dropout")
        assert before.stdout.strip() == "Boolean value is: False", before.stdout + before.stderr
        set_result = ros2(env, "param", "set", "--no-daemon", "/ugv1/relay", "dropout", "true")
        assert set_result.stdout.strip() == "Set parameter successful", set_result.stdout + set_result.stderr
        after = ros2(env, "param", "get", "--no-daemon", "/ugv1/relay", "dropout")
        assert after.stdout.strip() == "Boolean value is: True", after.stdout + after.stderr

        # The relay's validation hook refuses a type it does not know, naming it.
        refused = ros2(env, "param", "set", "--no-daemon", "/ugv1/relay", "ros_type", "foo_msgs/msg/Bar")
        refusal = [line for line in (refused.stdout + refused.stderr).splitlines()
                   if line.startswith("Setting parameter failed")]
        assert len(refusal) == 1 and "foo_msgs/msg/Bar" in refusal[0], refused.stdout + refused.stderr
        assert ros2(env, "param", "get", "--no-daemon", "/ugv1/relay", "ros_type").stdout.strip() \
            == "String value is: sensor_msgs/msg/Imu"
        assert relay.alive(), relay.output()
