"""The bridge contract test, with our simulator standing in for
Gazebo + ros_gz_bridge: a bundle generated from robots/ugv_ref/robot.yaml, its adapters started
by the bundle's launch file through `fieldproof launch`, then
1. contract_check reports no failure (type, QoS, frame, rate, nothing extra);
2. /imu/data carries the manifest's covariance, /gps/fix a real receiver's frame, covariance,
   status and service;
3. a Twist on cmd_vel drives the robot half a metre along +x as seen on odometry;
and a deliberately broken bundle fails with the right finding for each fault."""

import json
import pathlib
import subprocess
import time

import pytest
import yaml

from nodes import INSTALL, ROOT, NodeProcess, ament_env, wait_until
from peers.cyclone import Peer
from peers.ros_types import Imu, NavSatFix, Odometry, Twist, Vector3

MANIFEST = ROOT / "robots/ugv_ref/robot.yaml"
FIELDPROOF = INSTALL / "fieldproof_tools/lib/fieldproof_tools/fieldproof"


def run(*args, check=True, timeout=120) -> subprocess.CompletedProcess:
    return subprocess.run([str(FIELDPROOF), *args], env=ament_env(), capture_output=True, text=True,
                          check=check, timeout=timeout)


class Vehicle:
    """Simulator + bundle launch for one UGV, under namespace `ns` ('' for none)."""

    def __init__(self, tmp: pathlib.Path, ns: str):
        self.ns = ns
        self.bundle = tmp / f"bundle{ns.replace('/', '_') or '_root'}"
        gen = ["exec", "fieldproof_bridge", "bridge_gen", str(MANIFEST), "-o", str(self.bundle)]
        run(*gen, *(["-n", ns] if ns else []))
        spawn = f"ns={ns},manifest={MANIFEST},spawn=spawn_dock" if ns else f"manifest={MANIFEST},spawn=spawn_dock"
        self.sim = NodeProcess("fieldproof_sim", "fieldproof_sim", cmd_args=["--world", str(ROOT / "worlds/depot.yaml"),
                               "--vehicle", spawn])
        self.launch = subprocess.Popen([str(FIELDPROOF), "launch", "fieldproof_bridge", "bridge.launch.yaml",
                                        f"bundle:={self.bundle}", "gz:=false"], env=ament_env(),
                                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)

    def topic(self, name: str) -> str:
        return f"/{self.ns}/{name}" if self.ns else f"/{name}"

    def stop(self):
        self.launch.send_signal(2)
        _, err = self.launch.communicate(timeout=30)
        self.sim.stop()
        assert "process has died" not in err, err


@pytest.fixture(scope="module")
def peer():
    return Peer()


@pytest.fixture(params=["", "ugv1"], ids=["no-namespace", "ugv1"])
def vehicle(request, tmp_path):
    v = Vehicle(tmp_path, request.param)
    yield v
    v.stop()


def contract_check(bundle: pathlib.Path, *extra: str, timeout_s: int = 90):
    out = bundle / "result.json"
    proc = run("exec", "fieldproof_bridge", "contract_check", str(bundle), "--timeout", str(timeout_s), "--samples", "10",
               "--json", str(out), *extra, check=False, timeout=180)
    return proc, json.loads(out.read_text()) if out.exists() else None


def test_contract_holds_and_sensors_look_real_and_cmd_vel_drives(vehicle, peer):
    proc, result = contract_check(vehicle.bundle)
    failures = [f for f in result["findings"] if f["status"] == "fail"]
    assert proc.returncode == 0 and not failures, (failures, proc.stdout[-3000:])
    assert result["passed"] and result["pass"] >= 30

    noise = yaml.safe_load(MANIFEST.read_text())["sensors"]
    imu_noise = next(s for s in noise if s["name"] == "imu")["noise"]
    gps_noise = next(s for s in noise if s["name"] == "gnss")["noise"]
    imu_reader = peer.reader(vehicle.topic("imu/data"), Imu)
    fix_reader = peer.reader(vehicle.topic("gps/fix"), NavSatFix)
    imu = wait_until(lambda: imu_reader.take(5), 20, "imu/data")[-1]
    assert imu.angular_velocity_covariance[0] == pytest.approx(imu_noise["gyro_stddev_radps"] ** 2)
    assert imu.linear_acceleration_covariance[8] == pytest.approx(imu_noise["accel_stddev_mps2"] ** 2)
    assert imu.header.frame_id == "imu_link"
    fix = wait_until(lambda: fix_reader.take(5), 20, "gps/fix")[-1]
    assert fix.header.frame_id == "gps_link"
    assert (fix.status.status, fix.status.service, fix.position_covariance_type) == (0, 1, 2)
    assert fix.position_covariance[0] == pytest.approx(gps_noise["horizontal_stddev_m"] ** 2)
    assert fix.position_covariance[8] == pytest.approx(gps_noise["vertical_stddev_m"] ** 2)

    odom = peer.reader(vehicle.topic("odom"), Odometry, depth=1)
    start = wait_until(lambda: odom.take(1), 20, "odometry")[-1]
    x0, t0 = start.pose.pose.position.x, start.header.stamp.sec + start.header.stamp.nanosec * 1e-9
    cmd = peer.writer(vehicle.topic("cmd_vel"), Twist)
    drive = Twist(linear=Vector3(0.5, 0.0, 0.0))

    def moved():
        cmd.write(drive)
        samples = odom.take(10)
        return samples and samples[-1].pose.pose.position.x - x0 > 0.5 and samples[-1]
    wait_until(moved, 30, "the robot moving 0.5 m along +x", poll=0.05)
    stop = Twist()
    for _ in range(20):
        cmd.write(stop)
        time.sleep(0.05)
    time.sleep(1.0)
    end = wait_until(lambda: odom.take(1), 10, "odometry after stopping")[-1]
    assert end.pose.pose.position.x - x0 > 0.5
    assert abs(end.pose.pose.position.y - start.pose.pose.position.y) < 0.05, "straight along +x"
    assert end.header.stamp.sec + end.header.stamp.nanosec * 1e-9 > t0


def test_a_broken_bundle_fails_with_the_right_finding_for_each_fault(tmp_path):
    v = Vehicle(tmp_path, "ugv1")
    try:
        contract = yaml.safe_load((v.bundle / "contract.yaml").read_text())
        by_topic = {t["topic"]: t for t in contract["topics"]}
        by_topic["/ugv1/scan"]["frame_id"] = "wrong_link"                       # wrong frame
        by_topic["/ugv1/odom"]["qos"]["reliability"] = "best_effort"           # wrong QoS
        by_topic["/ugv1/imu/data"]["rate_hz"] = 40.0                           # rate off
        contract["topics"].append({"topic": "/ugv1/sonar", "type": "sensor_msgs/msg/Range", "role": "publisher",
                                   "frame_id": "sonar_link", "rate_hz": 10.0, "provided_by": ["nobody"], "source": "sensors.sonar",
                                   "qos": {"reliability": "reliable", "durability": "volatile", "depth": 10}})
        (v.bundle / "contract.yaml").write_text(yaml.safe_dump(contract))
        proc, result = contract_check(v.bundle, timeout_s=30)
        assert proc.returncode == 1, proc.stdout[-2000:]
        failed = {(f["check"], f["topic"]) for f in result["findings"] if f["status"] == "fail"}
        # The missing topic fails its graph check, and its frame and rate checks for want of samples.
        assert failed == {("frame", "/ugv1/scan"), ("qos", "/ugv1/odom"), ("rate", "/ugv1/imu/data"),
                          ("graph", "/ugv1/sonar"), ("frame", "/ugv1/sonar"), ("rate", "/ugv1/sonar")}, \
            result["findings"]
    finally:
        v.stop()
