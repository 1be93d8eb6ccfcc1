"""The bridge contract test as a launch_testing test (real ROS 2 Jazzy: launch_ros, rclpy).

The launch starts our simulator with one UGV at the depot's dock (standing in for Gazebo and
ros_gz_bridge), the bundle bridge_gen writes from the installed UGV manifest (through
fieldproof_bridge's bridge.launch.yaml, gz:=false), and contract_check on that bundle. Then,
from an rclpy node in the test process:

1. contract_check exits 0: every contract topic has its type, QoS, frame and rate, and nothing
   else is visible under the namespace;
2. /ugv1/imu/data carries the covariance of the manifest's noise figures, /ugv1/gps/fix the
   frame, covariance, status and service of a real receiver;
3. a geometry_msgs/msg/Twist on /ugv1/cmd_vel drives the robot half a metre along +x as seen on
   /ugv1/odom;
4. after shutdown (launch_testing's SIGINT), every process exited 0.

`colcon test`, `cargo test -p fieldproof_bridge` and scripts/test run it through
tests/launch_testing.rs (the package README says why); by hand, with `launch_test` in the
environment of the rig and the install tree, inside a private network namespace:
    scripts/netns-run launch_test src/fieldproof_bridge/test/test_bridge_contract_launch.py
"""

import json
import os
import pathlib
import shutil
import subprocess
import tempfile
import time
import unittest

import launch
import launch.actions
import launch.launch_description_sources
import launch_ros.actions
import launch_testing
import launch_testing.actions
import launch_testing.asserts
import rclpy
import yaml
from ament_index_python.packages import get_package_prefix, get_package_share_directory
from geometry_msgs.msg import Twist
from nav_msgs.msg import Odometry
from rclpy.qos import QoSProfile, ReliabilityPolicy
from sensor_msgs.msg import Imu, NavSatFix, NavSatStatus

NAMESPACE = "ugv1"
ROBOTS = pathlib.Path(get_package_share_directory("fieldproof_robots"))
MANIFEST = ROBOTS / "robots/ugv_ref/robot.yaml"
WORLD = ROBOTS / "worlds/depot.yaml"
WORK = pathlib.Path(tempfile.mkdtemp(prefix="bridge_contract_launch_"))
BUNDLE = WORK / "bundle"
CONTRACT_RESULT = WORK / "contract.json"
# Seconds contract_check waits for its samples (simulation time runs at real time here).
CONTRACT_TIMEOUT_S = 90
# Rate tolerance of the rendering sensors (images, camera info, point clouds, scans): on a
# loaded machine (colcon test runs this beside the package's other tests) the simulator's
# rendering falls behind its physics even in simulation time (camera/points at 12.2 Hz of 15 in
# one colcon test run); FIELDPROOF_CONTRACT_RENDER_TOLERANCE overrides it, and every other
# topic keeps contract_check's 10 %.
RENDER_TOLERANCE = os.environ.get("FIELDPROOF_CONTRACT_RENDER_TOLERANCE", "0.5")


def write_bundle():
    """The bundle of the installed UGV manifest under NAMESPACE, as `ros2 run` would write it."""
    bridge_gen = pathlib.Path(get_package_prefix("fieldproof_bridge")) / "lib/fieldproof_bridge/bridge_gen"
    subprocess.run([str(bridge_gen), str(MANIFEST), "-o", str(BUNDLE), "-n", NAMESPACE],
                   check=True, capture_output=True, timeout=60)


def generate_test_description():
    write_bundle()
    simulator = launch_ros.actions.Node(
        package="fieldproof_sim", executable="fieldproof_sim", name="fieldproof_sim",
        arguments=["--world", str(WORLD), "--vehicle", f"ns={NAMESPACE},manifest={MANIFEST},spawn=spawn_dock"])
    bridge = launch.actions.IncludeLaunchDescription(
        launch.launch_description_sources.AnyLaunchDescriptionSource(
            str(pathlib.Path(get_package_share_directory("fieldproof_bridge")) / "launch/bridge.launch.yaml")),
        launch_arguments={"bundle": str(BUNDLE), "gz": "false"}.items())
    contract_check = launch_ros.actions.Node(
        package="fieldproof_bridge", executable="contract_check", name="contract_check",
        arguments=[str(BUNDLE), "--timeout", str(CONTRACT_TIMEOUT_S), "--samples", "10",
                   "--render-tolerance", RENDER_TOLERANCE, "--json", str(CONTRACT_RESULT)])
    return launch.LaunchDescription([
        simulator, bridge, contract_check, launch_testing.actions.ReadyToTest(),
    ]), {"simulator": simulator, "contract_check": contract_check}


def topic(name: str) -> str:
    return f"/{NAMESPACE}/{name}"


def seconds(stamp) -> float:
    return stamp.sec + stamp.nanosec * 1e-9


class TestBridgeContract(unittest.TestCase):
    """Runs while the launch is up; unittest's order (alphabetical) is the specification's."""

    @classmethod
    def setUpClass(cls):
        rclpy.init()

    @classmethod
    def tearDownClass(cls):
        rclpy.shutdown()

    def setUp(self):
        self.node = rclpy.create_node("bridge_contract_launch_test")

    def tearDown(self):
        self.node.destroy_node()

    def collect(self, msg_type, name: str, count: int, timeout_s: float, qos=10) -> list:
        """`count` messages from `name`, spinning the test node; fails naming the topic."""
        received = []
        subscription = self.node.create_subscription(msg_type, name, received.append, qos)
        deadline = time.monotonic() + timeout_s
        while len(received) < count and time.monotonic() < deadline:
            rclpy.spin_once(self.node, timeout_sec=0.1)
        self.node.destroy_subscription(subscription)
        self.assertGreaterEqual(len(received), count, f"{name}: {len(received)} of {count} messages")
        return received

    def test_1_contract_check_passes(self, proc_info, contract_check):
        proc_info.assertWaitForShutdown(process=contract_check, timeout=CONTRACT_TIMEOUT_S + 60)
        result = json.loads(CONTRACT_RESULT.read_text()) if CONTRACT_RESULT.exists() else None
        self.assertIsNotNone(result, "contract_check wrote no result")
        failures = [finding for finding in result["findings"] if finding["status"] == "fail"]
        self.assertEqual(failures, [])
        self.assertTrue(result["passed"])
        launch_testing.asserts.assertExitCodes(proc_info, process=contract_check)

    def test_2_sensors_carry_the_manifests_noise_and_a_receivers_fix(self):
        sensors = {s["name"]: s for s in yaml.safe_load(MANIFEST.read_text())["sensors"]}
        imu_noise, gps_noise = sensors["imu"]["noise"], sensors["gnss"]["noise"]
        imu = self.collect(Imu, topic("imu/data"), 5, 30)[-1]
        self.assertEqual(imu.header.frame_id, "imu_link")
        self.assertAlmostEqual(imu.angular_velocity_covariance[0], imu_noise["gyro_stddev_radps"] ** 2)
        self.assertAlmostEqual(imu.linear_acceleration_covariance[8], imu_noise["accel_stddev_mps2"] ** 2)
        fix = self.collect(NavSatFix, topic("gps/fix"), 5, 30)[-1]
        self.assertEqual(fix.header.frame_id, "gps_link")
        self.assertEqual((fix.status.status, fix.status.service, fix.position_covariance_type),
                         (NavSatStatus.STATUS_FIX, NavSatStatus.SERVICE_GPS,
                          NavSatFix.COVARIANCE_TYPE_DIAGONAL_KNOWN))
        self.assertAlmostEqual(fix.position_covariance[0], gps_noise["horizontal_stddev_m"] ** 2)
        self.assertAlmostEqual(fix.position_covariance[8], gps_noise["vertical_stddev_m"] ** 2)

    def test_3_cmd_vel_drives_half_a_metre_along_x(self):
        odometry = []
        self.node.create_subscription(Odometry, topic("odom"), odometry.append,
                                      QoSProfile(depth=10, reliability=ReliabilityPolicy.RELIABLE))
        command = self.node.create_publisher(Twist, topic("cmd_vel"), 10)
        deadline = time.monotonic() + 20
        while not odometry and time.monotonic() < deadline:
            rclpy.spin_once(self.node, timeout_sec=0.1)
        self.assertTrue(odometry, f"no odometry on {topic('odom')}")
        start = odometry[-1]
        x0 = start.pose.pose.position.x
        drive = Twist()
        drive.linear.x = 0.5
        deadline = time.monotonic() + 30
        while odometry[-1].pose.pose.position.x - x0 <= 0.5 and time.monotonic() < deadline:
            command.publish(drive)
            rclpy.spin_once(self.node, timeout_sec=0.05)
        for _ in range(20):
            command.publish(Twist())
            rclpy.spin_once(self.node, timeout_sec=0.05)
        end = odometry[-1]
        self.assertGreater(end.pose.pose.position.x - x0, 0.5, "the robot did not move 0.5 m along +x")
        self.assertLess(abs(end.pose.pose.position.y - start.pose.pose.position.y), 0.05, "not straight along +x")
        self.assertGreater(seconds(end.header.stamp), seconds(start.header.stamp))


@launch_testing.post_shutdown_test()
class TestShutdown(unittest.TestCase):
    """Runs after launch_testing ended the launch (SIGINT to every process)."""

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(WORK, ignore_errors=True)

    def test_every_process_exited_0(self, proc_info):
        launch_testing.asserts.assertExitCodes(proc_info)

    def test_the_simulator_and_the_bundles_nodes_all_ran(self, proc_info):
        names = sorted(os.path.basename(info.cmd[0]) for info in proc_info)
        self.assertEqual(names, sorted(["fieldproof_sim", "contract_check", "command_relay", "relay", "throttle",
                                        "imu_adapter", "navsat_adapter", "relay", "battery"]))
