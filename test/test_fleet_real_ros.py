"""The fleet (issue 19) against real ROS 2 Jazzy (the rig at /opt/ros/jazzy; skipped without
it, like test_real_ros.py):

- `src/fieldproof_interfaces` is a real rosidl package: colcon builds it against the rig
  (C, C++ and Python generated from the .msg files), and the type hashes rosidl computes are
  the ones our nodes announce; `ros2 topic pub` (rclpy, rosidl's Python types) sends a
  ClearanceRequest to our fleet_station, and `ros2 topic echo` decodes its Clearance answer.
- The fleet station coordinates only: `ros2 node info` (rclpy's graph over
  rmw_cyclonedds_cpp, an implementation independent of ours) shows it publishing on no
  vehicle's topic, so it has no path to arm, change a mode or command motion."""

import json
import os
import pathlib
import subprocess
import time

import pytest

from nodes import ROOT, NodeProcess, colcon_build_against_rig, wait_until
from test_real_ros import CYCLONE_RMW, on_domain, ros2, rig_env  # noqa: F401 (fixture)

if not pathlib.Path("/opt/ros/jazzy/setup.bash").exists():
    pytest.skip("no ROS 2 Jazzy rig at /opt/ros/jazzy", allow_module_level=True)
if os.environ.get("FIELDPROOF_IN_NETNS") != "1":
    pytest.skip("opens DDS participants: run under scripts/netns-run", allow_module_level=True)

pytestmark = pytest.mark.real_ros

PACKAGE = ROOT / "src/fieldproof_interfaces"
BUILD = ROOT / "build/fieldproof_interfaces_rosidl"
MESSAGES = ("FleetStatus", "ClearanceRequest", "Clearance")


@pytest.fixture(scope="module")
def interfaces_env(rig_env) -> dict:
    """The rig's environment with fieldproof_interfaces built by colcon (rosidl) and sourced."""
    install = colcon_build_against_rig(PACKAGE, BUILD, rig_env, "-DBUILD_TESTING=OFF")
    setup = install / "local_setup.bash"
    dump = subprocess.run(["bash", "-c", f"source {setup} && env -0"], env=rig_env,
                          check=True, capture_output=True).stdout.decode()
    env = dict(entry.split("=", 1) for entry in dump.split("\0") if "=" in entry)
    env["RMW_IMPLEMENTATION"] = CYCLONE_RMW
    return env


def rosidl_hash(name: str) -> str:
    """The REP 2011 type hash rosidl generated for fieldproof_interfaces/msg/<name>."""
    generated = json.loads((BUILD / f"install/fieldproof_interfaces/share/fieldproof_interfaces/msg/{name}.json")
                           .read_text())
    return generated["type_hashes"][0]["hash_string"]


def announced_hashes(env: dict, topic: str) -> set[str]:
    """The type hashes `ros2 topic info --verbose` shows for the endpoints on `topic`."""
    out = ros2(env, "topic", "info", "--verbose", "--no-daemon", topic)
    return {line.split(":", 1)[1].strip() for line in out.stdout.splitlines()
            if line.strip().startswith("Topic type hash:")}


def our_fleet(domain: int):
    ours = {"ROS_DOMAIN_ID": str(domain), "RMW_IMPLEMENTATION": CYCLONE_RMW}
    station = NodeProcess("fieldproof_fleet", "fleet_station", "-r", "__ns:=/carrier",
                          "-p", "vehicles:=[quad1, quad2]", env=ours)
    adapter = NodeProcess("fieldproof_fleet", "fleet_adapter", "-r", "__ns:=/quad1",
                          "-p", "inspection_goal:=[10.0, 5.0]", env=ours)
    return station, adapter


def test_rosidl_builds_the_interfaces_and_ros2_cli_talks_to_the_station(interfaces_env):
    domain = 67
    env = on_domain(interfaces_env, domain)
    station, adapter = our_fleet(domain)
    with station, adapter:
        # Our endpoints announce the hashes rosidl computed from the same .msg files.
        for topic, name in (("/fleet/clearance", "Clearance"), ("/fleet/status", "FleetStatus"),
                            ("/fleet/clearance_request", "ClearanceRequest")):
            seen = wait_until(lambda: announced_hashes(env, topic) or None, 45,
                              f"ros2 topic info to show the type hash on {topic}", poll=1.0)
            assert seen == {rosidl_hash(name)}, (topic, seen, rosidl_hash(name))

        # rclpy (rosidl's Python types) asks; our station answers; rclpy decodes the answer.
        echo = subprocess.Popen(["ros2", "topic", "echo", "--once", "--no-daemon", "/fleet/clearance",
                                 "fieldproof_interfaces/msg/Clearance"],
                                env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            deadline = time.monotonic() + 60
            request_id = 0
            while echo.poll() is None and time.monotonic() < deadline:
                request_id += 1
                ros2(env, "topic", "pub", "--once", "-w", "1", "/fleet/clearance_request",
                     "fieldproof_interfaces/msg/ClearanceRequest",
                     f"{{vehicle: quad2, kind: 0, request_id: {request_id}, pad: pad_1}}", timeout=30)
                time.sleep(1.0)
            out, err = echo.communicate(timeout=10)
        finally:
            if echo.poll() is None:
                echo.kill()
        assert echo.returncode == 0, err
        answer = dict(line.split(": ", 1) for line in out.splitlines()
                      if ": " in line and not line.startswith(" "))
        assert answer["vehicle"] in ("quad2", "'quad2'"), out
        assert (answer["kind"], answer["granted"], answer["lease_id"]) == ("0", "true", "1"), out
        assert station.alive(), station.output()


def section(info: str, title: str) -> list[str]:
    """The names listed under `title` (`Publishers:`) in `ros2 node info`'s output."""
    names, inside = [], False
    for line in info.splitlines():
        if line.startswith("  ") and not line.startswith("    ") and line.strip().endswith(":"):
            inside = line.strip() == title
        elif inside and line.startswith("    ") and ":" in line:
            names.append(line.strip().split(":")[0])
    return names


def node_info(env: dict, fqn: str, wanted: str) -> str:
    return wait_until(
        lambda: (out := ros2(env, "node", "info", "--no-daemon", "--spin-time", "2", fqn)).returncode == 0
        and wanted in out.stdout and out.stdout,
        45, f"ros2 node info {fqn} to list {wanted}", poll=1.0)


def test_the_station_publishes_on_no_vehicle_topic(rig_env):
    domain = 66
    env = on_domain(rig_env, domain)
    station, adapter = our_fleet(domain)
    with station, adapter:
        station_info = node_info(env, "/carrier/fleet_station", "/fleet/clearance")
        adapter_info = node_info(env, "/quad1/fleet_adapter", "/quad1/mission/target")
        assert station.alive(), station.output()
        assert adapter.alive(), adapter.output()

    published = section(station_info, "Publishers:")
    assert sorted(published) == ["/carrier/cmd_vel", "/fleet/clearance", "/fleet/lease",
                                 "/parameter_events", "/rosout"], station_info
    # A vehicle's control lives on its own topics (the adapter's mission/target to its
    # supervisor, seen here); the station has none of them, and no client of a vehicle's service.
    assert "/quad1/mission/target" in section(adapter_info, "Publishers:"), adapter_info
    assert not [t for t in published if t.startswith("/quad")], station_info
    assert not [s for s in section(station_info, "Service Clients:") if s.startswith("/quad")], station_info
