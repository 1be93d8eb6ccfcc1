"""The relay adapter against an independent ROS 2 peer (Cyclone DDS, PyPI `cyclonedds`):
wire format, QoS, graph visibility, faults through the parameter services, bad input.

Runs inside the private network namespace scripts/test creates (scripts/netns-run)."""

import math
import random
import time

import pytest

from nodes import NodeProcess, wait_until
from peers.cyclone import Peer
from peers.ros_types import Header, Imu, LaserScan, NotAnImu, Quaternion, Time, Vector3

# The relay answers the parameter services with rmw_cyclonedds' request/reply mapping, as a
# node on a Cyclone-based ROS 2 would, so the Cyclone peer can call them.
CYCLONE_RMW = {"RMW_IMPLEMENTATION": "rmw_cyclonedds_cpp"}


@pytest.fixture(scope="module")
def peer():
    return Peer()


def random_imu(rng: random.Random, i: int) -> Imu:
    vec = lambda: Vector3(rng.uniform(-10, 10), rng.uniform(-10, 10), rng.uniform(-10, 10))
    return Imu(
        header=Header(Time(1000 + i, rng.randrange(1_000_000_000)), f"imu_link_{i % 3}"),
        orientation=Quaternion(rng.random(), rng.random(), rng.random(), rng.random()),
        orientation_covariance=[rng.uniform(-1, 1) for _ in range(9)],
        angular_velocity=vec(),
        angular_velocity_covariance=[rng.uniform(-1, 1) for _ in range(9)],
        linear_acceleration=vec(),
        linear_acceleration_covariance=[rng.uniform(-1, 1) for _ in range(9)],
    )


def random_scan(rng: random.Random, i: int) -> LaserScan:
    n = rng.randrange(0, 720)
    f32 = lambda x: float(__import__("numpy").float32(x))
    return LaserScan(
        header=Header(Time(2000 + i, rng.randrange(1_000_000_000)), "lidar_link"),
        angle_min=f32(-math.pi), angle_max=f32(math.pi), angle_increment=f32(2 * math.pi / max(n, 1)),
        time_increment=f32(1e-5), scan_time=f32(0.1), range_min=f32(0.1), range_max=f32(30.0),
        ranges=[f32(rng.uniform(0.1, 30)) for _ in range(n)],
        intensities=[f32(rng.uniform(0, 100)) for _ in range(n if i % 2 else 0)],
    )


def prime(writer, reader, sample, what: str):
    """Publish `sample` until the relay's output reaches `reader` (discovery done)."""
    def through():
        writer.write(sample)
        return reader.take(10)
    wait_until(through, 20, f"{what}: first sample through the relay", poll=0.1)
    time.sleep(0.2)
    reader.take(100)


def relay_samples(writer, reader, samples, expected_count=None, timeout=10.0):
    got = []
    for s in samples:
        writer.write(s)
        time.sleep(0.005)
        got += [s for s in reader.take(100) if hasattr(s, "header")]
    n = len(samples) if expected_count is None else expected_count
    deadline = time.monotonic() + timeout
    while len(got) < n and time.monotonic() < deadline:
        got += [s for s in reader.take(100) if hasattr(s, "header")]
        time.sleep(0.01)
    return got


def test_imu_every_field_equal_and_best_effort_output_seen_by_best_effort_reader(peer):
    with NodeProcess("fieldproof_bridge", "relay", "-r", "__node:=imu_relay", "-r", "__ns:=/ugv1",
                     "-p", "ros_type:=sensor_msgs/msg/Imu", "-p", "input:=/peer/imu_raw",
                     "-p", "output:=/peer/imu", "-p", "qos_reliability:=best_effort", env=CYCLONE_RMW) as relay:
        writer = peer.writer("/peer/imu_raw", Imu)
        reader = peer.reader("/peer/imu", Imu, reliable=False)
        rng = random.Random(7)
        prime(writer, reader, random_imu(rng, 0), "imu")
        sent = [random_imu(rng, i) for i in range(1, 51)]
        got = relay_samples(writer, reader, sent)
        assert got == sent, "every field equal, in order"
        assert relay.alive()
        # A reliable reader does not match a best-effort writer (QoS honoured, not upgraded).
        reliable_reader = peer.reader("/peer/imu", Imu, reliable=True)
        for s in sent[:10]:
            writer.write(s)
            time.sleep(0.01)
        time.sleep(0.5)
        assert reliable_reader.take(100) == []
        assert ("/ugv1", "imu_relay") in wait_until(lambda: peer.nodes() or None, 10, "ros_discovery_info")
    assert relay.proc.returncode == 0, relay.output()


def test_laserscan_every_field_equal_with_frame_relabelled(peer):
    with NodeProcess("fieldproof_bridge", "relay", "-r", "__node:=scan_relay",
                     "-p", "ros_type:=sensor_msgs/msg/LaserScan", "-p", "input:=/peer/scan_raw",
                     "-p", "output:=/peer/scan", "-p", "ros_frame_id:=ugv1/lidar_link", env=CYCLONE_RMW):
        writer = peer.writer("/peer/scan_raw", LaserScan)
        reader = peer.reader("/peer/scan", LaserScan)
        rng = random.Random(11)
        prime(writer, reader, random_scan(rng, 0), "scan")
        sent = [random_scan(rng, i) for i in range(1, 21)]
        got = relay_samples(writer, reader, sent)
        for s in sent:
            s.header.frame_id = "ugv1/lidar_link"
        assert got == sent


def test_node_name_and_namespace_in_ros_discovery_info(peer):
    with NodeProcess("fieldproof_bridge", "relay", "-r", "__node:=graph_relay", "-r", "__ns:=/fleet/ugv3",
                     "-p", "ros_type:=sensor_msgs/msg/Imu", env=CYCLONE_RMW):
        wait_until(lambda: ("/fleet/ugv3", "graph_relay") in peer.nodes(), 20, "node in ros_discovery_info")


def test_dropout_and_freeze_set_through_parameter_services_take_effect_on_next_message(peer):
    with NodeProcess("fieldproof_bridge", "relay", "-r", "__node:=fault_relay", "-r", "__ns:=/ugv1",
                     "-p", "ros_type:=sensor_msgs/msg/Imu", "-p", "input:=/peer/f_raw",
                     "-p", "output:=/peer/f", env=CYCLONE_RMW) as relay:
        writer = peer.writer("/peer/f_raw", Imu)
        reader = peer.reader("/peer/f", Imu)
        rng = random.Random(3)
        prime(writer, reader, random_imu(rng, 0), "faults")

        [result] = peer.set_parameters("/ugv1/fault_relay", {"dropout": True})
        assert result.successful, result.reason
        assert relay_samples(writer, reader, [random_imu(rng, i) for i in range(5)], expected_count=1,
                             timeout=1.0) == [], "dropout: nothing published"

        [result] = peer.set_parameters("/ugv1/fault_relay", {"dropout": False})
        assert result.successful
        live = [random_imu(rng, i) for i in range(10, 13)]
        assert relay_samples(writer, reader, live) == live

        [result] = peer.set_parameters("/ugv1/fault_relay", {"freeze": True})
        assert result.successful
        frozen = relay_samples(writer, reader, [random_imu(rng, i) for i in range(20, 25)])
        assert frozen == [live[-1]] * 5, "freeze: the last message as it was, stamp included, at the input's rate"

        # A bad value is refused with a reason and the old value stays.
        [result] = peer.set_parameters("/ugv1/fault_relay", {"freeze": "yes"})
        assert not result.successful
        assert "freeze" in result.reason and "type" in result.reason.lower(), result.reason
        assert relay_samples(writer, reader, [random_imu(rng, 30)]) == [live[-1]]

        [result] = peer.set_parameters("/ugv1/fault_relay", {"freeze": False})
        thawed = [random_imu(rng, 40)]
        assert relay_samples(writer, reader, thawed) == thawed


def test_bad_input_is_logged_and_the_node_keeps_running(peer):
    with NodeProcess("fieldproof_bridge", "relay", "-r", "__node:=bad_relay", "-p", "ros_type:=foo_msgs/msg/Bar",
                     "-p", "input:=/peer/bad_raw", "-p", "output:=/peer/bad", env=CYCLONE_RMW) as relay:
        wait_until(lambda: "foo_msgs/msg/Bar" in relay.output(), 10, "the unknown ros_type logged")
        time.sleep(0.5)
        assert relay.alive(), relay.output()
        # Unknown types are refused at run time with a reason; a known one starts the relay.
        [result] = peer.set_parameters("/bad_relay", {"ros_type": "nope/msg/Nothing"})
        assert not result.successful and "nope/msg/Nothing" in result.reason
        [result] = peer.set_parameters("/bad_relay", {"ros_type": "sensor_msgs/msg/Imu"})
        assert result.successful, result.reason

        writer = peer.writer("/peer/bad_raw", Imu)
        reader = peer.reader("/peer/bad", Imu)
        rng = random.Random(5)
        prime(writer, reader, random_imu(rng, 0), "retyped relay")
        # A malformed sample (same type name, truncated body) is dropped with a warning.
        bad_writer = peer.writer("/peer/bad_raw", NotAnImu)
        for _ in range(3):
            bad_writer.write(NotAnImu(garbage=1))
        time.sleep(0.5)
        good = [random_imu(rng, i) for i in range(1, 4)]
        assert relay_samples(writer, reader, good) == good
        assert relay.alive(), relay.output()
    assert relay.proc.returncode == 0
