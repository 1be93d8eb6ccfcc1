"""Every adapter of the bridge, and link_monitor, between real ROS 2 Jazzy peers, both ways: an
rclpy node and an rclcpp node publish into our node and subscribe to what it publishes; and the
simulator with a vehicle's bundle, driven on cmd_vel and watched on odometry by each peer. The
rclcpp peer (rclcpp's generic publisher and subscription) is test/rclcpp_peer, a small
ament_cmake package built against the rig with colcon into build/rclcpp_peer/. Each case
checks what the node must do to the messages (passed field-equal, the adapter's transform, a
cap, a throttle, a watchdog), that the peer read the type hash the rig's rosidl generated on
each endpoint of ours, and that rmw_cyclonedds_cpp warned of no endpoint of ours without one
(services, /rosout, /parameter_events and ros_discovery_info included).

The messages are written as field dicts; test/peers/rclpy_generic.py turns them into messages
(rclpy) or CDR (for rclcpp) and the rclcpp peer's CDR back into dicts. The rig's environment
and its skip are test_real_ros.py's; every test on its own ROS_DOMAIN_ID inside the private
network namespace scripts/test creates."""

import json
import math
import pathlib
import random
import subprocess
from dataclasses import dataclass
from typing import Callable

import pytest

from nodes import ROOT, NodeProcess, colcon_build_against_rig
from test_real_ros import CYCLONE_RMW, PEERS, RIG, SYSTEM_PYTHON, TYPE_HASH_WARNING, rig_env  # noqa: F401

pytestmark = pytest.mark.real_ros

GENERIC = PEERS / "rclpy_generic.py"
NAMESPACE = "/ugv1"
# The first domain of this module; each (case, peer) pair takes the next one.
FIRST_DOMAIN = 200
PACKAGE = ROOT / "test/rclcpp_peer"
BUILD = ROOT / "build/rclcpp_peer"


@pytest.fixture(scope="module")
def generic_roundtrip(rig_env) -> pathlib.Path:
    """The rclcpp peer's executable, built (incrementally) with colcon in the rig's environment."""
    install = colcon_build_against_rig(PACKAGE, BUILD, rig_env, "-DCMAKE_BUILD_TYPE=Release", timeout=600)
    exe = install / "fieldproof_rclcpp_peer/lib/fieldproof_rclcpp_peer/generic_roundtrip"
    assert exe.is_file(), f"colcon built no {exe}"
    return exe


@dataclass
class Case:
    """One node of ours between a peer's publisher (`input`, `-`: none) and subscription."""
    name: str
    package: str
    executable: str
    parameters: list[str]
    ros_type: str
    input: str
    output: str
    messages: list[dict]  # the primers first
    listen_s: float
    check: Callable[[list[dict], list[dict]], None]  # (messages sent after the primers, received)
    output_type: str = ""  # when the output's type differs from the input's (ros_type)
    # How many of the messages are primers, published in turn until something comes out.
    primers: int = 1

    def received_type(self) -> str:
        return self.output_type or self.ros_type

    def sent(self) -> list[dict]:
        """The messages sent after priming, what `check` judges."""
        return self.messages[self.primers:]


def stamped(sec: int, nanosec: int, frame: str) -> dict:
    return {"header": {"stamp": {"sec": sec, "nanosec": nanosec}, "frame_id": frame}}


def imu(index: int) -> dict:
    message = stamped(100 + index, 1000 * index, f"imu_{index}")
    message["orientation"] = {"x": 0.1 * index, "y": -0.2, "z": 0.3, "w": 0.9}
    message["angular_velocity"] = {"x": 0.01 * index, "y": 0.02, "z": -0.03}
    message["linear_acceleration"] = {"x": 0.5, "y": -0.25 * index, "z": 9.81}
    return message


def random_imu(rng: random.Random, index: int) -> dict:
    """A whole Imu, every field set, for a field-for-field comparison."""
    message = stamped(1000 + index, rng.randrange(1_000_000_000), f"imu_link_{index % 3}")
    message["orientation"] = dict(zip("xyzw", (rng.uniform(-1, 1) for _ in range(4))))
    for vector in ("angular_velocity", "linear_acceleration"):
        message[vector] = dict(zip("xyz", (rng.uniform(-10, 10) for _ in range(3))))
    for covariance in ("orientation_covariance", "angular_velocity_covariance", "linear_acceleration_covariance"):
        message[covariance] = [rng.uniform(-1, 1) for _ in range(9)]
    return message


def check_field_equal(sent: list[dict], received: list[dict]) -> None:
    assert len(received) == len(sent), f"{len(received)} of {len(sent)} came out"
    assert received == sent, "messages differ after our node"


def diagonal(variance: float) -> list:
    return [variance, 0.0, 0.0, 0.0, variance, 0.0, 0.0, 0.0, variance]


def check_imu(sent: list[dict], received: list[dict]) -> None:
    assert len(received) == len(sent), f"{len(received)} of {len(sent)} came out"
    for before, after in zip(sent, received):
        assert after["header"] == before["header"]
        for key in ("orientation", "angular_velocity", "linear_acceleration"):
            assert after[key] == pytest.approx(before[key]), key
        assert after["angular_velocity_covariance"] == pytest.approx(diagonal(0.02 ** 2))
        assert after["linear_acceleration_covariance"] == pytest.approx(diagonal(0.1 ** 2))
        assert after["orientation_covariance"] == pytest.approx(diagonal(0.01 ** 2))


def navsat(index: int) -> dict:
    message = stamped(200 + index, 0, "")
    message.update({"latitude": 48.1 + 1e-5 * index, "longitude": 11.5 - 1e-5 * index, "altitude": 520.0 + index})
    return message


def check_navsat(sent: list[dict], received: list[dict]) -> None:
    assert len(received) == len(sent), f"{len(received)} of {len(sent)} came out"
    for before, after in zip(sent, received):
        assert after["header"]["frame_id"] == "gps_link"
        assert after["header"]["stamp"] == before["header"]["stamp"]
        assert (after["latitude"], after["longitude"], after["altitude"]) == \
            (before["latitude"], before["longitude"], before["altitude"])
        assert (after["status"]["status"], after["status"]["service"]) == (0, 1)  # STATUS_FIX, SERVICE_GPS
        assert after["position_covariance"] == pytest.approx([4.0, 0, 0, 0, 4.0, 0, 0, 0, 9.0])
        assert after["position_covariance_type"] == 2  # COVARIANCE_TYPE_DIAGONAL_KNOWN


def twist(linear_x: float, angular_z: float = 0.0) -> dict:
    return {"linear": {"x": linear_x, "y": 0.0, "z": 0.0}, "angular": {"x": 0.0, "y": 0.0, "z": angular_z}}


def check_command(sent: list[dict], received: list[dict]) -> None:
    # Within the cap as sent; over the cap capped at 1.0 m/s; NaN or infinity: zero, never passed on.
    assert [after["linear"]["x"] for after in received] == [0.5, 1.0, 0.0, 0.0, -1.0], received
    assert [after["angular"]["z"] for after in received] == [0.2, 0.0, 0.0, 0.0, 0.0], received


def joint_state(millisecond: int) -> dict:
    message = stamped(10, millisecond * 1_000_000, "")
    message.update({"name": ["left_wheel", "right_wheel"], "position": [0.001 * millisecond, 0.0],
                    "velocity": [1.0, 1.0], "effort": []})
    return message


def check_throttle(sent: list[dict], received: list[dict]) -> None:
    # 1 kHz stamps throttled to 50 Hz: exactly every 20th message, the first one included.
    assert [after["header"]["stamp"] for after in received] == \
        [before["header"]["stamp"] for before in sent[::20]], received
    assert received == [before for before in sent[::20]]


def check_battery(sent: list[dict], received: list[dict]) -> None:
    # 5 Hz for 3 s after the primer: the count is the node's timer, not asserted to the sample.
    assert len(received) >= 5, f"only {len(received)} battery states in 3 s at 5 Hz"
    for state in received:
        assert state["header"]["frame_id"] == "base_link"
        assert state["percentage"] == pytest.approx(1.0)
        assert state["voltage"] == pytest.approx(25.2)
        assert state["present"] is True


def check_link_monitor(sent: list[dict], received: list[dict]) -> None:
    # Lost during the settling pause after the primer (timeout_s 0.3 s), the link comes back
    # with the next heartbeats (link_state true); with none after them it is lost again and
    # link_state stays false: true..., then false...
    states = [state["data"] for state in received]
    assert True in states and states[-1] is False, states
    first_false = states.index(False)
    assert all(states[:first_false]) and not any(states[first_false:]), states


IMU_RNG = random.Random(21)
CASES = [
    Case("relay", "fieldproof_bridge", "relay",
         ["ros_type:=sensor_msgs/msg/Imu", "input:=imu_raw", "output:=imu"],
         "sensor_msgs/msg/Imu", "imu_raw", "imu", [stamped(1, 0, "primer")]
         + [random_imu(IMU_RNG, index) for index in range(50)], 1.5, check_field_equal),
    Case("imu_adapter", "fieldproof_bridge", "imu_adapter",
         ["gyro_stddev_radps:=0.02", "accel_stddev_mps2:=0.1", "orientation_stddev_rad:=0.01",
          "input:=imu_raw", "output:=imu"],
         "sensor_msgs/msg/Imu", "imu_raw", "imu", [stamped(1, 0, "primer")] + [imu(i) for i in range(20)],
         1.5, check_imu),
    Case("navsat_adapter", "fieldproof_bridge", "navsat_adapter",
         ["horizontal_stddev_m:=2.0", "vertical_stddev_m:=3.0", "input:=gps_raw", "output:=gps/fix"],
         "sensor_msgs/msg/NavSatFix", "gps_raw", "gps/fix", [navsat(-1)] + [navsat(i) for i in range(20)],
         1.5, check_navsat),
    Case("command_relay", "fieldproof_bridge", "command_relay",
         ["max_linear_mps:=1.0", "input:=cmd_vel", "output:=cmd_vel_base"],
         "geometry_msgs/msg/Twist", "cmd_vel", "cmd_vel_base",
         [twist(0.0)] + [twist(0.5, 0.2), twist(2.0), twist(math.nan), twist(0.3, math.inf), twist(-3.0)],
         1.5, check_command),
    # The throttle passes a stamp once: a primer repeated with one stamp is passed the first
    # time only, lost if the peer's subscription had not matched yet. Two primers in turn, the
    # second stamped earlier (a reset clock restarts the throttle), pass every time.
    Case("throttle", "fieldproof_bridge", "throttle",
         ["ros_type:=sensor_msgs/msg/JointState", "rate_hz:=50.0", "gz_rate:=1000.0",
          "input:=joint_states_raw", "output:=joint_states"],
         "sensor_msgs/msg/JointState", "joint_states_raw", "joint_states",
         [{**joint_state(0), "header": {"stamp": {"sec": sec, "nanosec": 0}, "frame_id": ""}} for sec in (2, 1)]
         + [joint_state(ms) for ms in range(100)],
         1.5, check_throttle, primers=2),
    Case("battery", "fieldproof_bridge", "battery", ["rate_hz:=5.0", "output:=battery_state"],
         "sensor_msgs/msg/BatteryState", "-", "battery_state", [], 3.0, check_battery),
    Case("link_monitor", "fieldproof_link", "link_monitor",
         ["timeout_s:=0.3", "heartbeat_topic:=gcs/heartbeat", "state_topic:=link_state"],
         "std_msgs/msg/Header", "gcs/heartbeat", "link_state",
         [{"stamp": {"sec": 0, "nanosec": 0}, "frame_id": "ground"}] * 51, 3.0, check_link_monitor,
         output_type="std_msgs/msg/Bool"),
]


def rig_type_hash(type_name: str) -> str:
    """The type hash the rig's rosidl generated (share/<pkg>/msg/<Type>.json)."""
    package, _, name = type_name.split("/")
    description = json.loads((RIG / "share" / package / "msg" / f"{name}.json").read_text())
    return description["type_hashes"][0]["hash_string"]


def generic(rig_env: dict, *args: str, stdin: str) -> str:
    done = subprocess.run([SYSTEM_PYTHON, str(GENERIC), *args], input=stdin, env=rig_env,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return done.stdout


def through_rclpy(case: Case, env: dict) -> tuple[dict, str]:
    peer = subprocess.run(
        [SYSTEM_PYTHON, str(GENERIC), "roundtrip", case.ros_type, qualified(case.input),
         qualified(case.output), str(case.listen_s), case.received_type(), str(case.primers)],
        input=json.dumps(case.messages), env=env, capture_output=True, text=True, timeout=120)
    assert peer.returncode == 0, peer.stderr
    return json.loads(peer.stdout.strip().splitlines()[-1]), peer.stderr


def through_rclcpp(rig_env: dict, case: Case, env: dict, executable: pathlib.Path) -> tuple[dict, str]:
    cdr = generic(rig_env, "serialize", case.ros_type, stdin=json.dumps(case.messages))
    peer = subprocess.run(
        [str(executable), case.ros_type, qualified(case.input), qualified(case.output),
         str(int(case.listen_s * 1000)), case.received_type(), str(case.primers)],
        input=cdr, env=env, capture_output=True, text=True, timeout=120)
    assert peer.returncode == 0, peer.stderr
    result = json.loads(peer.stdout.strip().splitlines()[-1])
    result["received"] = json.loads(generic(rig_env, "deserialize", case.received_type(),
                                            stdin="\n".join(result["received"]) + "\n"))
    return result, peer.stderr


def qualified(topic: str) -> str:
    return topic if topic == "-" else f"{NAMESPACE}/{topic}"


@pytest.mark.parametrize("peer", ["rclpy", "rclcpp"])
@pytest.mark.parametrize("case", CASES, ids=[case.name for case in CASES])
def test_a_real_ros_peer_exchanges_messages_with_our_node(rig_env, request, case, peer):
    domain = FIRST_DOMAIN + 2 * CASES.index(case) + (peer == "rclcpp")
    env = {**rig_env, "ROS_DOMAIN_ID": str(domain)}
    parameters = [argument for value in case.parameters for argument in ("-p", value)]
    with NodeProcess(case.package, case.executable, "-r", f"__ns:={NAMESPACE}", *parameters,
                     env={"ROS_DOMAIN_ID": str(domain), "RMW_IMPLEMENTATION": CYCLONE_RMW}) as ours:
        if peer == "rclpy":
            result, stderr = through_rclpy(case, env)
        else:
            executable = request.getfixturevalue("generic_roundtrip")  # built only for rclcpp
            result, stderr = through_rclcpp(rig_env, case, env, executable)
        assert ours.alive(), ours.output()
    assert result["primed"], f"nothing came out of {case.executable}\n{stderr}\n{ours.output()}"
    case.check(case.sent(), result["received"])

    # The peer read the rig's type hash on each endpoint of ours it saw, and warned of none.
    expected = {f"publisher {NAMESPACE}/{case.executable} {qualified(case.output)}":
                rig_type_hash(case.received_type())}
    if case.input != "-":
        expected[f"subscription {NAMESPACE}/{case.executable} {qualified(case.input)}"] = rig_type_hash(case.ros_type)
    assert result["peer_type_hashes"] == expected
    untyped = [line for line in stderr.splitlines() if TYPE_HASH_WARNING in line]
    assert not untyped, "\n".join(untyped)


def moved_along_x(sent: list[dict], received: list[dict]) -> None:
    """2 s of 0.5 m/s forward, then stop: odometry shows the vehicle went straight along +x."""
    assert len(received) >= 10, f"only {len(received)} odometry messages"
    first, last = received[0]["pose"]["pose"]["position"], received[-1]["pose"]["pose"]["position"]
    assert last["x"] - first["x"] > 0.5, f"moved {last['x'] - first['x']:.2f} m along x"
    assert abs(last["y"] - first["y"]) < 0.05, "straight along +x"


SIM_DRIVE = Case("simulator", "fieldproof_sim", "fieldproof_sim", [], "geometry_msgs/msg/Twist",
                 "cmd_vel", "odom", [twist(0.0)] + [twist(0.5)] * 100 + [twist(0.0)] * 25, 1.5,
                 moved_along_x, output_type="nav_msgs/msg/Odometry")


@pytest.mark.parametrize("peer", ["rclpy", "rclcpp"])
def test_a_real_ros_peer_drives_the_simulated_vehicle_through_its_bundle(rig_env, request, tmp_path,
                                                                         monkeypatch, peer):
    from test_bridge_contract import Vehicle  # the simulator and the bundle's launch, as there

    domain = FIRST_DOMAIN + 2 * len(CASES) + (peer == "rclcpp")
    monkeypatch.setenv("ROS_DOMAIN_ID", str(domain))
    monkeypatch.setenv("RMW_IMPLEMENTATION", CYCLONE_RMW)
    env = {**rig_env, "ROS_DOMAIN_ID": str(domain)}
    vehicle = Vehicle(tmp_path, NAMESPACE.strip("/"))
    try:
        if peer == "rclpy":
            result, stderr = through_rclpy(SIM_DRIVE, env)
        else:
            result, stderr = through_rclcpp(rig_env, SIM_DRIVE, env, request.getfixturevalue("generic_roundtrip"))
    finally:
        vehicle.stop()
    assert result["primed"], f"no odometry reached the {peer} peer\n{stderr}"
    SIM_DRIVE.check(SIM_DRIVE.sent(), result["received"])
    hashes = result["peer_type_hashes"]
    assert {key.split()[0] for key in hashes} == {"publisher", "subscription"}, hashes
    for key, value in hashes.items():
        wanted = SIM_DRIVE.received_type() if key.startswith("publisher") else SIM_DRIVE.ros_type
        assert value == rig_type_hash(wanted), key
    untyped = [line for line in stderr.splitlines() if TYPE_HASH_WARNING in line]
    assert not untyped, "\n".join(untyped)
