"""An rclcpp peer (real ROS 2 Jazzy: rclcpp, rmw_cyclonedds_cpp) exchanging messages with our
relay: test/rclcpp_peer, a small ament_cmake package, is built against the rig with colcon (into
build/rclcpp_peer/), then its node publishes sensor_msgs/Imu into the relay and subscribes to
what comes out.

The rig's environment, `on_domain` and `our_node` are test_real_ros.py's (its module-level skip
applies here too: no rig, or not inside a private network namespace)."""

import json
import pathlib
import shutil
import subprocess
import sys

import pytest

from nodes import ROOT
from test_real_ros import IMU_TYPE_HASH, TYPE_HASH_WARNING, on_domain, our_node, rig_env  # noqa: F401

pytestmark = pytest.mark.real_ros

PACKAGE = ROOT / "test/rclcpp_peer"
BUILD = ROOT / "build/rclcpp_peer"
COLCON = pathlib.Path(sys.executable).parent / "colcon"


@pytest.fixture(scope="module")
def imu_roundtrip(rig_env) -> pathlib.Path:
    """The peer's executable, built (incrementally) with colcon in the rig's environment."""
    missing = [tool for tool in ("cmake", "g++") if shutil.which(tool, path=rig_env["PATH"]) is None]
    if missing:
        pytest.skip(f"building the rclcpp peer needs {', '.join(missing)} (scripts/setup installs them "
                    "beside the rig)")
    build = subprocess.run(
        [str(COLCON), "--log-base", str(BUILD / "log"), "build", "--base-paths", str(PACKAGE),
         "--build-base", str(BUILD / "build"), "--install-base", str(BUILD / "install"),
         "--event-handlers", "console_cohesion-", "status-", "summary-",
         "--cmake-args", "-DPython3_EXECUTABLE=/usr/bin/python3", "-DCMAKE_BUILD_TYPE=Release"],
        env=rig_env, capture_output=True, text=True, timeout=600)
    log = BUILD / "log/latest_build/fieldproof_rclcpp_peer/stdout_stderr.log"
    assert build.returncode == 0, f"{build.stdout}{build.stderr}\n{log.read_text() if log.exists() else ''}"
    exe = BUILD / "install/fieldproof_rclcpp_peer/lib/fieldproof_rclcpp_peer/imu_roundtrip"
    assert exe.is_file(), f"colcon built no {exe}"
    return exe


@pytest.fixture(scope="module")
def generic_roundtrip(imu_roundtrip) -> pathlib.Path:
    """The package's generic peer (any type, as serialized CDR), built with imu_roundtrip."""
    exe = imu_roundtrip.parent / "generic_roundtrip"
    assert exe.is_file(), f"colcon built no {exe}"
    return exe


def test_rclcpp_imu_through_relay_field_equal_and_type_hash_announced(rig_env, imu_roundtrip):
    domain = 64
    with our_node(domain, "-r", "__ns:=/ugv1", "-p", "ros_type:=sensor_msgs/msg/Imu",
                  "-p", "input:=/rclcpp/imu_raw", "-p", "output:=/rclcpp/imu") as relay:
        peer = subprocess.run([str(imu_roundtrip), "/rclcpp/imu_raw", "/rclcpp/imu", "50"],
                              env=on_domain(rig_env, domain), capture_output=True, text=True, timeout=90)
        assert relay.alive(), relay.output()
    assert peer.returncode == 0, peer.stderr
    result = json.loads(peer.stdout.strip().splitlines()[-1])
    assert result["primed"], f"no Imu came back through the relay\n{peer.stderr}\n{relay.output()}"
    assert (result["sent"], result["received"], result["field_equal"]) == (50, 50, 50), result
    # rclcpp reads the relay's type hash from the USER_DATA of both of its endpoints.
    assert result["peer_type_hashes"] == {
        "subscription /ugv1/relay /rclcpp/imu_raw": IMU_TYPE_HASH,
        "publisher /ugv1/relay /rclcpp/imu": IMU_TYPE_HASH,
    }
    # rclcpp reads a type hash on every endpoint of ours: topics, services, builtin topics.
    untyped = [line for line in peer.stderr.splitlines() if TYPE_HASH_WARNING in line]
    assert not untyped, "rmw_cyclonedds_cpp could not read our type hash:\n" + "\n".join(untyped)
