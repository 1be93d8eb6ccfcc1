"""Every adapter and each of its fault parameters, against the Cyclone DDS peer: the raw
message goes in on the hidden topic, the contract message comes out; a fault set through the
parameter services changes the output as the bridge contract specifies."""

import math
import time

import pytest

from nodes import NodeProcess, wait_until
from peers.cyclone import Peer
from peers.ros_types import (BatteryState, Clock, Header, Imu, JointState, NavSatFix, Time, Twist,
                             Vector3)
from test_relay_interop import CYCLONE_RMW, prime, relay_samples


@pytest.fixture(scope="module")
def peer():
    return Peer()


def adapter(exe: str, name: str, *params: str) -> NodeProcess:
    args = ["-r", f"__node:={name}", "-r", "__ns:=/ugv1", "-p", f"input:=/ugv1/_bridge/{name}",
            "-p", f"output:=/ugv1/{name}"]
    for p in params:
        args += ["-p", p]
    return NodeProcess("fieldproof_bridge", exe, *args, env=CYCLONE_RMW)


def ok(results):
    assert all(r.successful for r in results), [r.reason for r in results]


def test_imu_adapter_covariance_from_noise_and_bias_fault(peer):
    with adapter("imu_adapter", "imu", "gyro_stddev_radps:=0.01", "accel_stddev_mps2:=0.2",
                 "ros_frame_id:=imu_link"):
        writer, reader = peer.writer("/ugv1/_bridge/imu", Imu), peer.reader("/ugv1/imu", Imu)
        raw = Imu(header=Header(Time(5, 0), ""), angular_velocity=Vector3(0.0, 0.0, 0.5),
                  linear_acceleration=Vector3(0.0, 0.0, 9.81))
        prime(writer, reader, raw, "imu_adapter")
        [out] = relay_samples(writer, reader, [raw])
        assert out.header.frame_id == "imu_link"
        assert out.angular_velocity_covariance == pytest.approx([1e-4, 0, 0, 0, 1e-4, 0, 0, 0, 1e-4])
        assert out.linear_acceleration_covariance == pytest.approx([0.04, 0, 0, 0, 0.04, 0, 0, 0, 0.04])
        assert out.orientation_covariance == [0.0] * 9, "orientation stays unknown"
        ok(peer.set_parameters("/ugv1/imu", {"gyro_bias_radps": [0.0, 0.0, 0.1],
                                             "accel_bias_mps2": [0.5, 0.0, 0.0]}))
        [out] = relay_samples(writer, reader, [raw])
        assert out.angular_velocity.z == pytest.approx(0.6)
        assert out.linear_acceleration.x == pytest.approx(0.5)
        [bad] = peer.set_parameters("/ugv1/imu", {"gyro_bias_radps": [1.0, 2.0]})
        assert not bad.successful and "three" in bad.reason


def test_navsat_adapter_real_receiver_deny_and_offset(peer):
    with adapter("navsat_adapter", "fix", "ros_frame_id:=gps_link", "horizontal_stddev_m:=0.5",
                 "vertical_stddev_m:=1.0"):
        writer, reader = peer.writer("/ugv1/_bridge/fix", NavSatFix), peer.reader("/ugv1/fix", NavSatFix)
        raw = NavSatFix(header=Header(Time(1, 0), ""), latitude=48.0, longitude=11.0, altitude=500.0)
        prime(writer, reader, raw, "navsat_adapter")
        [out] = relay_samples(writer, reader, [raw])
        assert out.header.frame_id == "gps_link"
        assert (out.status.status, out.status.service) == (0, 1), "STATUS_FIX, SERVICE_GPS"
        assert out.position_covariance_type == 2, "DIAGONAL_KNOWN"
        assert out.position_covariance == pytest.approx([0.25, 0, 0, 0, 0.25, 0, 0, 0, 1.0])

        ok(peer.set_parameters("/ugv1/fix", {"offset_enu_m": [100.0, 0.0, 2.0]}))
        [out] = relay_samples(writer, reader, [raw])
        east_m = (out.longitude - 11.0) * math.radians(1) * 6378137.0 * math.cos(math.radians(48.0)) \
            / math.sqrt(1 - 6.69438e-3 * math.sin(math.radians(48.0)) ** 2)
        assert east_m == pytest.approx(100.0, abs=0.05)
        assert out.latitude == pytest.approx(48.0, abs=1e-12)
        assert out.altitude == pytest.approx(502.0)

        ok(peer.set_parameters("/ugv1/fix", {"deny": True}))
        [out] = relay_samples(writer, reader, [raw])
        assert out.status.status == -1, "STATUS_NO_FIX"
        assert math.isnan(out.latitude) and math.isnan(out.longitude) and math.isnan(out.altitude)
        assert out.position_covariance_type == 0


def test_throttle_passes_one_joint_state_per_period_by_stamps(peer):
    with adapter("throttle", "joint_states", "ros_type:=sensor_msgs/msg/JointState", "rate_hz:=50.0",
                 "gz_rate:=1000.0"):
        writer = peer.writer("/ugv1/_bridge/joint_states", JointState, depth=1000)
        reader = peer.reader("/ugv1/joint_states", JointState, depth=1000)
        prime(writer, reader, JointState(header=Header(Time(0, 0), "")), "throttle")
        # 0.5 s of 1 kHz joint states stamped 1 ms apart (simulation time), sent quickly.
        got = []
        for i in range(500):
            ns = 10_000_000_000 + i * 1_000_000
            writer.write(JointState(header=Header(Time(ns // 10**9, ns % 10**9), ""), name=["left", "right"],
                                    position=[i * 0.001, -i * 0.001]))
            if i % 20 == 0:
                time.sleep(0.002)
                got += reader.take(1000)
        time.sleep(0.5)
        got += reader.take(1000)
        stamps = [g.header.stamp.sec * 10**9 + g.header.stamp.nanosec for g in got]
        assert len(stamps) == 25, stamps
        assert all(b - a == 20_000_000 for a, b in zip(stamps, stamps[1:]))


def test_command_relay_clamps_and_faults(peer):
    with adapter("command_relay", "cmd_vel"):
        writer, reader = peer.writer("/ugv1/_bridge/cmd_vel", Twist), peer.reader("/ugv1/cmd_vel", Twist)
        fast = Twist(linear=Vector3(2.0, 0.0, 0.0), angular=Vector3(0.0, 0.0, -3.0))
        prime(writer, reader, fast, "command_relay")
        got = []
        def send(t):
            writer.write(t)
            return wait_until(lambda: reader.take(10), 5, "a command through the relay")[-1]
        assert send(fast) == fast, "no limit by default"
        ok(peer.set_parameters("/ugv1/cmd_vel", {"max_linear_mps": 0.5, "max_angular_radps": 1.0}))
        out = send(fast)
        assert (out.linear.x, out.angular.z) == (0.5, -1.0)
        [bad] = peer.set_parameters("/ugv1/cmd_vel", {"max_linear_mps": -1.0})
        assert not bad.successful
        ok(peer.set_parameters("/ugv1/cmd_vel", {"dropout": True}))
        writer.write(fast)
        time.sleep(0.5)
        assert reader.take(10) == [], "dropout: the actuator hears nothing"
        ok(peer.set_parameters("/ugv1/cmd_vel", {"dropout": False, "freeze": True}))
        frozen = send(Twist(linear=Vector3(0.1, 0.0, 0.0)))
        assert frozen.linear.x == 0.5, "freeze: the last command again"
        del got


def test_battery_drains_linearly_in_simulation_time(peer):
    with NodeProcess("fieldproof_bridge", "battery", "-r", "__ns:=/ugv1", "-p", "output:=/ugv1/battery",
                     "-p", "use_sim_time:=true", "-p", "rate_hz:=10.0", "-p", "full_voltage_v:=25.2",
                     "-p", "empty_voltage_v:=19.8", "-p", "capacity_ah:=10.0", "-p", "frame_id:=base_link",
                     env=CYCLONE_RMW):
        clock = peer.writer("/clock", Clock, reliable=False, depth=1)
        reader = peer.reader("/ugv1/battery", BatteryState)
        sim_ns = [1_000_000_000]

        def advance(seconds: float):
            for _ in range(int(seconds * 100)):
                sim_ns[0] += 10_000_000
                clock.write(Clock(Time(sim_ns[0] // 10**9, sim_ns[0] % 10**9)))
                time.sleep(0.001)

        def latest():
            def got():
                advance(0.1)
                return reader.take(100)
            return wait_until(got, 10, "a battery state")[-1]

        first = latest()
        assert first.percentage == 1.0 and first.power_supply_status == 4, "FULL"
        assert first.voltage == pytest.approx(25.2) and first.header.frame_id == "base_link"
        ok(peer.set_parameters("/ugv1/battery", {"drain_to": 0.5}))
        ok(peer.set_parameters("/ugv1/battery", {"drain_duration_s": 10.0}))
        reader.take(100)
        advance(5.0)
        mid = latest()
        assert mid.power_supply_status == 2, "DISCHARGING"
        assert mid.percentage == pytest.approx(0.75, abs=0.03)
        assert mid.voltage == pytest.approx(19.8 + 5.4 * mid.percentage, abs=1e-3)
        advance(6.0)
        end = latest()
        assert end.percentage == pytest.approx(0.5, abs=1e-6)
        assert end.power_supply_status == 3, "NOT_CHARGING"
        ok(peer.set_parameters("/ugv1/battery", {"percentage": 0.2}))
        assert latest().percentage == pytest.approx(0.2)
