"""The failsafe and the command path against hostile input from an independent peer (Cyclone
DDS): malformed samples on every input of `link_monitor` and `command_relay`, and commands with
NaN or infinite components. The nodes survive, what reaches the base stays finite, and the
failsafe still trips and recovers afterwards; a late joiner of `link_state` gets exactly the
newest state.

Runs inside the private network namespace scripts/test creates (scripts/netns-run)."""

import math
import time

import pytest

from nodes import NodeProcess, wait_until
from peers.cyclone import Peer
from peers.ros_types import (Bool, Header, Odometry, Point, Pose, PoseWithCovariance, Time, Twist,
                             Vector3, malformed)
from test_relay_interop import CYCLONE_RMW

BAD_VALUES = [math.nan, math.inf, -math.inf]
# One byte under a ROS type's DDS name: a 5-byte sample (encapsulation + 1 byte).
NotAHeader = malformed("std_msgs::msg::dds_::Header_", "NotAHeader")
NotATwist = malformed("geometry_msgs::msg::dds_::Twist_", "NotATwist")
NotAnOdometry = malformed("nav_msgs::msg::dds_::Odometry_", "NotAnOdometry")
NotAScan = malformed("sensor_msgs::msg::dds_::LaserScan_", "NotAScan")
NotAPoseStamped = malformed("geometry_msgs::msg::dds_::PoseStamped_", "NotAPoseStamped")


@pytest.fixture(scope="module")
def peer():
    return Peer()


def twist(vx: float = 0.0, wz: float = 0.0) -> Twist:
    return Twist(Vector3(vx, 0.0, 0.0), Vector3(0.0, 0.0, wz))


def finite(cmd: Twist) -> bool:
    parts = (cmd.linear.x, cmd.linear.y, cmd.linear.z, cmd.angular.x, cmd.angular.y, cmd.angular.z)
    return all(math.isfinite(v) for v in parts)


def send_and_collect(writer, reader, commands, settle: float = 0.5) -> list[Twist]:
    """Write each command (paced), then collect what came out."""
    out = []
    for cmd in commands:
        writer.write(cmd)
        time.sleep(0.02)
        out += reader.take(100)
    deadline = time.monotonic() + settle
    while time.monotonic() < deadline:
        out += reader.take(100)
        time.sleep(0.02)
    return [c for c in out if hasattr(c, "linear")]


def test_link_monitor_survives_malformed_samples_and_never_passes_non_finite(peer):
    ns = "/badin_lm"
    with NodeProcess("fieldproof_link", "link_monitor", "-r", f"__ns:={ns}", "-p", "timeout_s:=1.0",
                     env=CYCLONE_RMW) as monitor:
        heartbeat = peer.writer(f"{ns}/gcs/heartbeat", Header, reliable=False, depth=1)
        bad_heartbeat = peer.writer(f"{ns}/gcs/heartbeat", NotAHeader, reliable=False, depth=1)
        commands = peer.writer(f"{ns}/cmd_vel_safe", Twist)
        bad_commands = peer.writer(f"{ns}/cmd_vel_safe", NotATwist)
        base = peer.reader(f"{ns}/cmd_vel", Twist)
        state = peer.reader(f"{ns}/link_state", Bool, transient_local=True)

        def beat():
            heartbeat.write(Header(Time(1, 0), "ground"))
            return [s.data for s in state.take(10) if hasattr(s, "data")]

        assert True in wait_until(beat, 30, "link_state true (armed by the heartbeat)", poll=0.1)
        # The command path is matched once a command comes through.
        wait_until(lambda: (beat(), send_and_collect(commands, base, [twist(0.3)], settle=0.1))[1],
                   20, "a command through link_monitor", poll=0.1)

        # Malformed samples on both inputs, heartbeats going on.
        for _ in range(20):
            bad_heartbeat.write(NotAHeader(garbage=1))
            bad_commands.write(NotATwist(garbage=1))
            beat()
            time.sleep(0.02)
        assert monitor.alive(), monitor.output()
        wait_until(lambda: "does not deserialize" in monitor.output(), 10, "the skipped samples reported")

        # Non-finite commands become zero; a good one still passes as it is.
        beat()
        sent = [twist(vx=bad) for bad in BAD_VALUES] + [twist(wz=bad) for bad in BAD_VALUES] + [twist(0.25, 0.1)]
        out = send_and_collect(commands, base, sent)
        assert len(out) == len(sent), out
        assert all(finite(c) for c in out), out
        assert all(c == twist() for c in out[:-1]), out
        assert out[-1] == twist(0.25, 0.1)
        assert "is not finite: zero sent instead" in monitor.output()

        # The failsafe still trips (zero at 20 Hz, commands dropped) and recovers.
        state.take(100)
        wait_until(lambda: False in [s.data for s in state.take(10)], 5,
                   "link_state false once the heartbeats stop", poll=0.05)
        base.take(1000)
        out = send_and_collect(commands, base, [twist(0.5)] * 10 + [twist(vx=math.nan)] * 5, settle=0.5)
        assert out and all(c == twist() for c in out), "only the failsafe's zeros while lost"
        assert True in wait_until(beat, 10, "link_state true once the heartbeats resume", poll=0.1)
        assert monitor.alive(), monitor.output()

        # A late joiner of the latched link_state gets exactly the newest state, though the
        # writer published true, false (repeated while lost) and true again.
        late = peer.reader(f"{ns}/link_state", Bool, transient_local=True, depth=100)
        deadline = time.monotonic() + 2.0
        while time.monotonic() < deadline:  # heartbeats go on: the state stays true
            beat()
            time.sleep(0.1)
        got = [s.data for s in late.take(100) if s.sample_info.valid_data]
        assert got == [True], f"a late joiner received {got}"
        assert monitor.stop() == 0


def test_command_relay_zeroes_non_finite_and_skips_malformed(peer):
    ns = "/badin_cr"
    with NodeProcess("fieldproof_bridge", "command_relay", "-r", f"__ns:={ns}", "-p", "input:=cmd_vel",
                     "-p", "output:=_bridge/cmd_vel", "-p", "max_linear_mps:=1.0", env=CYCLONE_RMW) as relay:
        commands = peer.writer(f"{ns}/cmd_vel", Twist)
        bad_commands = peer.writer(f"{ns}/cmd_vel", NotATwist)
        out_reader = peer.reader(f"{ns}/_bridge/cmd_vel", Twist)
        wait_until(lambda: send_and_collect(commands, out_reader, [twist(0.3)], settle=0.1), 20,
                   "a command through command_relay", poll=0.1)
        for _ in range(20):
            bad_commands.write(NotATwist(garbage=1))
            time.sleep(0.01)
        sent = [twist(vx=bad) for bad in BAD_VALUES] + [twist(wz=bad) for bad in BAD_VALUES] + [twist(5.0, 0.2)]
        out = send_and_collect(commands, out_reader, sent)
        assert len(out) == len(sent), out
        assert all(finite(c) for c in out), out
        assert all(c == twist() for c in out[:-1]), out
        assert out[-1].linear.x == pytest.approx(1.0) and out[-1].angular.z == pytest.approx(0.2), "capped"
        assert relay.alive(), relay.output()
        output = relay.output()
        assert "does not deserialize" in output and "is not finite: zero sent instead" in output
        assert relay.stop() == 0


def test_goal_driver_survives_malformed_inputs_and_ignores_a_non_finite_pose(peer):
    ns = "/badin_gd"
    with NodeProcess("fieldproof_stack", "goal_driver", "-r", f"__ns:={ns}", "-p", "goal:=[5.0, 0.0]",
                     env=CYCLONE_RMW) as driver:
        odom = peer.writer(f"{ns}/odom", Odometry)
        out = peer.reader(f"{ns}/cmd_vel_nav", Twist)
        good = Odometry(header=Header(Time(1, 0), "odom"), child_frame_id="base_link",
                        pose=PoseWithCovariance(pose=Pose(position=Point(0.0, 0.0, 0.0))))

        def drive():
            odom.write(good)
            return out.take(100)

        wait_until(drive, 20, "goal_driver commanding towards its goal", poll=0.1)
        for topic, bad_type in [("odom", NotAnOdometry), ("scan", NotAScan), ("goal_pose", NotAPoseStamped)]:
            writer = peer.writer(f"{ns}/{topic}", bad_type, transient_local=topic == "goal_pose",
                                 depth=1 if topic == "goal_pose" else 10)
            for _ in range(5):
                writer.write(bad_type(garbage=1))
                time.sleep(0.02)
        nan_pose = Odometry(header=Header(Time(2, 0), "odom"), child_frame_id="base_link",
                            pose=PoseWithCovariance(pose=Pose(position=Point(math.nan, 0.0, 0.0))))
        for _ in range(5):
            odom.write(nan_pose)
            time.sleep(0.02)
        time.sleep(0.5)
        assert driver.alive(), driver.output()
        output = driver.output()
        for topic in ["odom", "scan", "goal_pose"]:
            assert f"receiving on '{ns}/{topic}': skipped a sample that does not deserialize" in output, output
        assert "is not finite: ignored" in output
        out.take(1000)
        commands = wait_until(drive, 10, "commands after the bad input", poll=0.1)
        assert all(finite(c) for c in commands), commands
        assert driver.stop() == 0
