"""ROS 2's own command-line tools against our nodes, from the real Jazzy rig: `ros2 param
list/describe`, `ros2 lifecycle get/set/list` on a managed node, `ros2 topic hz` against the
ground station's heartbeat rate and against every rate of the reference UGV's bridge contract
(the simulator and the vehicle's bundle). Skipped where the rig is absent (test_real_ros says why); every test on its own
ROS_DOMAIN_ID inside the private network namespace scripts/test creates."""

import pathlib
import re
import signal
import subprocess
import time

from nodes import NodeProcess, wait_until
from test_real_ros import CYCLONE_RMW, RIG, our_node, on_domain, rig_env, ros2  # noqa: F401

import pytest
import yaml

pytestmark = pytest.mark.real_ros

# The heartbeat the ground station sends ugv1 in the lifecycle test, and the tolerance the
# radio-link specification allows a measured rate (10 %).
HEARTBEAT_HZ = 10.0
RATE_TOLERANCE = 0.10


def ground_station(domain_id: int) -> NodeProcess:
    """Our ground station, unconfigured (autostart:=false), heartbeat only (probe:=false)."""
    return NodeProcess("fieldproof_link", "ground_station",
                       "-p", "autostart:=false", "-p", "probe:=false",
                       "-p", "vehicles:=[ugv1]", "-p", "addresses:=[127.0.0.1]",
                       "-p", "heartbeat_topic:=gcs/heartbeat", "-p", f"heartbeat_rate_hz:={HEARTBEAT_HZ}",
                       env={"ROS_DOMAIN_ID": str(domain_id), "RMW_IMPLEMENTATION": CYCLONE_RMW})


def lifecycle_state(env: dict, node: str) -> str:
    got = ros2(env, "lifecycle", "get", "--no-daemon", node)
    assert got.returncode == 0, got.stdout + got.stderr
    return got.stdout.strip()


def measured_rate(env: dict, topic: str, seconds: float, *options: str) -> float:
    """The last average `ros2 topic hz` printed after `seconds` (then Ctrl-C)."""
    hz = subprocess.Popen(["ros2", "topic", "hz", *options, topic], env=env, stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, text=True)
    time.sleep(seconds)
    hz.send_signal(signal.SIGINT)
    output, _ = hz.communicate(timeout=15)
    rates = [float(rate) for rate in re.findall(r"average rate: ([0-9.]+)", output)]
    assert rates, f"ros2 topic hz {topic} printed no rate:\n{output}"
    return rates[-1]


def test_ros2_param_list_and_describe_on_our_node(rig_env):
    domain = 191
    env = on_domain(rig_env, domain)
    with our_node(domain, "-r", "__ns:=/ugv1", "-p", "ros_type:=sensor_msgs/msg/Imu",
                  "-p", "input:=imu_raw", "-p", "output:=imu") as relay:
        listed = wait_until(
            lambda: (out := ros2(env, "param", "list", "--no-daemon", "/ugv1/relay")).returncode == 0
            and "ros_type" in out.stdout.split() and out,
            30, "ros2 param list /ugv1/relay", poll=0.5)
        names = listed.stdout.split()
        for name in ("ros_type", "ros_frame_id", "dropout", "use_sim_time"):
            assert name in names, listed.stdout

        described = ros2(env, "param", "describe", "--no-daemon", "/ugv1/relay", "ros_type", "ros_frame_id")
        assert described.returncode == 0, described.stdout + described.stderr
        text = described.stdout
        assert "Parameter name: ros_type" in text and "Type: string" in text, text
        assert "Description: ROS type of input and output" in text, text
        # ros_frame_id is declared read-only: describe says so.
        frame_part = text.split("Parameter name: ros_frame_id", 1)[1]
        assert "Read only: true" in frame_part, text
        assert relay.alive(), relay.output()


def test_ros2_lifecycle_drives_the_ground_station_and_topic_hz_measures_its_heartbeat(rig_env):
    domain = 192
    env = on_domain(rig_env, domain)
    with ground_station(domain) as station:
        state = wait_until(
            lambda: (out := ros2(env, "lifecycle", "get", "--no-daemon", "/ground_station")).returncode == 0
            and out.stdout.strip(),
            30, "ros2 lifecycle get /ground_station", poll=0.5)
        assert state == "unconfigured [1]", state
        transitions = ros2(env, "lifecycle", "list", "--no-daemon", "/ground_station")
        assert "configure [1]" in transitions.stdout, transitions.stdout + transitions.stderr

        for transition, expected in (("configure", "inactive [2]"), ("activate", "active [3]")):
            result = ros2(env, "lifecycle", "set", "--no-daemon", "/ground_station", transition)
            assert result.stdout.strip() == "Transitioning successful", result.stdout + result.stderr
            assert lifecycle_state(env, "/ground_station") == expected

        rate = measured_rate(env, "/ugv1/gcs/heartbeat", seconds=6.0)
        assert abs(rate - HEARTBEAT_HZ) <= RATE_TOLERANCE * HEARTBEAT_HZ, \
            f"ros2 topic hz measured {rate:.2f} Hz of the contract's {HEARTBEAT_HZ}"

        # A transition the state does not offer is refused; deactivate then shutdown end it.
        refused = ros2(env, "lifecycle", "set", "--no-daemon", "/ground_station", "configure")
        assert "Transitioning successful" not in refused.stdout, refused.stdout
        assert lifecycle_state(env, "/ground_station") == "active [3]"
        for transition, expected in (("deactivate", "inactive [2]"),):
            result = ros2(env, "lifecycle", "set", "--no-daemon", "/ground_station", transition)
            assert result.stdout.strip() == "Transitioning successful", result.stdout + result.stderr
            assert lifecycle_state(env, "/ground_station") == expected
        result = ros2(env, "lifecycle", "set", "--no-daemon", "/ground_station", "shutdown")
        assert result.stdout.strip() == "Transitioning successful", result.stdout + result.stderr
        wait_until(lambda: not station.alive(), 15, "the ground station to end after shutdown")
        assert station.proc.returncode == 0, station.output()


def contract_rates(manifest: pathlib.Path) -> dict[str, float]:
    """Every topic of a robot manifest that has a rate, with the rate (Hz): the drive's
    odometry, joint states and TF, each output of a sensor at the sensor's rate, the battery."""
    robot = yaml.safe_load(manifest.read_text())
    rates = {}
    for entry in robot["drive"].values():
        if isinstance(entry, dict) and "ros_topic" in entry and "rate_hz" in entry:
            rates[entry["ros_topic"]] = float(entry["rate_hz"])
    for sensor in robot.get("sensors", []):
        for output in sensor.get("outputs", []):
            rates[output["ros_topic"]] = float(sensor["rate_hz"])
    battery = robot.get("power", {}).get("battery")
    if battery:
        rates[battery["ros_topic"]] = float(battery["rate_hz"])
    return rates


# The camera's images and point cloud are left to contract_check (test_bridge_contract):
# `ros2 topic hz` deserialises every message in Python, and a 640×480 frame at 15 Hz measures
# the tool, not the bridge. Their camera_info, on the same sensor clock, is measured here.
HEAVY = {"camera/image", "camera/depth/image", "camera/points"}


def unmeasurable_here() -> set[str]:
    """Contract topics whose message package the rig lacks, so `ros2 topic hz` cannot load the
    type: the minimal Jazzy in ../shared carries no tf2_msgs, so TF is left to contract_check."""
    return set() if (RIG / "share" / "tf2_msgs").is_dir() else {"tf"}


def test_ros2_topic_hz_agrees_with_the_bridge_contract_rates(rig_env, tmp_path, monkeypatch):
    from test_bridge_contract import MANIFEST, Vehicle  # the simulator and the bundle's launch

    domain = 193
    monkeypatch.setenv("ROS_DOMAIN_ID", str(domain))
    monkeypatch.setenv("RMW_IMPLEMENTATION", CYCLONE_RMW)
    env = on_domain(rig_env, domain)
    every_rate = contract_rates(MANIFEST)
    assert {"odom", "joint_states", "tf", "imu/data", "gps/fix", "scan", "camera/camera_info",
            "battery_state"} <= set(every_rate), every_rate
    left_out = HEAVY | unmeasurable_here()
    rates = {topic: hz for topic, hz in every_rate.items() if topic not in left_out}
    vehicle = Vehicle(tmp_path, "ugv1")
    measured = {}
    try:
        wait_until(lambda: "/ugv1/odom" in ros2(env, "topic", "list", "--no-daemon").stdout.split(),
                   60, "/ugv1/odom in ros2 topic list", poll=1.0)
        for topic, contract_hz in rates.items():
            # Simulation time (the contract's rates are the simulator's); at least five periods.
            measured[topic] = measured_rate(env, vehicle.topic(topic), max(4.0, 6.0 / contract_hz),
                                            "--use-sim-time")
    finally:
        vehicle.stop()
    print("ros2 topic hz --use-sim-time:", {topic: round(hz, 2) for topic, hz in measured.items()})
    off = {topic: f"{measured[topic]:.2f} Hz of {hz}" for topic, hz in rates.items()
           if abs(measured[topic] - hz) > RATE_TOLERANCE * hz}
    assert not off, f"ros2 topic hz disagrees with the contract: {off}"
