"""The colcon install tree is what ROS 2 tools (ros2 run, ros2 launch, ros2 pkg) expect."""

import os
import pathlib
import subprocess
import tomllib
import xml.etree.ElementTree as ET

ROOT = pathlib.Path(__file__).resolve().parents[1]
# The interface package (.msg files, ament_cmake + rosidl) is built by colcon on a machine
# with rosidl (test_fleet_real_ros.py builds it against the rig); scripts/build leaves it out.
INTERFACE_PACKAGES = ["fieldproof_interfaces"]
PACKAGES = sorted(p.parent.name for p in (ROOT / "src").glob("*/package.xml")
                  if p.parent.name not in INTERFACE_PACKAGES)


def declared_binaries(pkg: str) -> list[str]:
    """The executables a package's Cargo.toml builds ([[bin]] or the default src/main.rs)."""
    manifest = tomllib.loads((ROOT / "src" / pkg / "Cargo.toml").read_text())
    bins = [b["name"] for b in manifest.get("bin", [])]
    if not bins and (ROOT / "src" / pkg / "src" / "main.rs").exists():
        bins = [manifest["package"]["name"]]
    bins += [p.stem for p in (ROOT / "src" / pkg / "src" / "bin").glob("*.rs")]
    return sorted(set(bins))


def sourced_env(install_dir: pathlib.Path) -> dict:
    """The environment after `source install/setup.bash`."""
    out = subprocess.run(
        ["bash", "-c", f"source {install_dir}/setup.bash && env -0"],
        check=True, capture_output=True,
    ).stdout
    return dict(kv.split("=", 1) for kv in out.decode().split("\0") if "=" in kv)


def test_every_package_is_a_format3_ament_cargo_package():
    assert PACKAGES, "no package.xml under src/"
    for pkg in PACKAGES:
        tree = ET.parse(ROOT / "src" / pkg / "package.xml").getroot()
        assert tree.get("format") == "3", pkg
        assert tree.findtext("name") == pkg
        assert tree.findtext("export/build_type") == "ament_cargo", pkg


def test_the_interface_package_is_a_rosidl_package():
    for pkg in INTERFACE_PACKAGES:
        tree = ET.parse(ROOT / "src" / pkg / "package.xml").getroot()
        assert tree.get("format") == "3", pkg
        assert tree.findtext("export/build_type") == "ament_cmake", pkg
        assert tree.findtext("member_of_group") == "rosidl_interface_packages", pkg
        assert list((ROOT / "src" / pkg / "msg").glob("*.msg")), pkg


def test_install_tree_has_markers_manifests_and_executables(install_dir):
    for pkg in PACKAGES:
        prefix = install_dir / pkg
        assert (prefix / "share/ament_index/resource_index/packages" / pkg).is_file(), pkg
        assert (prefix / "share" / pkg / "package.xml").is_file(), pkg
        for exe in declared_binaries(pkg):
            path = prefix / "lib" / pkg / exe
            assert path.is_file() and os.access(path, os.X_OK), f"{path} missing"
        launch = ROOT / "src" / pkg / "launch"
        for f in launch.glob("*") if launch.is_dir() else []:
            assert (prefix / "share" / pkg / "launch" / f.name).is_file(), f"{pkg}: launch/{f.name}"


def test_setup_bash_puts_every_package_on_ament_prefix_path(install_dir):
    env = sourced_env(install_dir)
    prefixes = env["AMENT_PREFIX_PATH"].split(":")
    for pkg in PACKAGES:
        assert str(install_dir / pkg) in prefixes, pkg


def test_setup_bash_puts_the_fieldproof_command_on_path(install_dir):
    # The README's commands (scripts/demo) run `fieldproof` after sourcing the tree.
    found = subprocess.run(
        ["bash", "-c", f"source {install_dir}/setup.bash && command -v fieldproof"],
        check=True, capture_output=True, text=True,
    ).stdout.strip()
    assert found == str(install_dir / "fieldproof_tools/lib/fieldproof_tools/fieldproof")


def test_fieldproof_exec_resolves_like_ros2_run(install_dir):
    env = sourced_env(install_dir)
    fieldproof = install_dir / "fieldproof_tools/lib/fieldproof_tools/fieldproof"
    listed = subprocess.run([fieldproof, "executables", "fieldproof_tools"], env=env,
                            check=True, capture_output=True, text=True).stdout
    assert "fieldproof_tools fieldproof" in listed.splitlines()
    # exec replaces itself with the installed executable, passing the arguments through.
    version = subprocess.run([fieldproof, "exec", "fieldproof_tools", "fieldproof", "--version"],
                             env=env, check=True, capture_output=True, text=True).stdout
    assert version.startswith("fieldproof ")
    missing = subprocess.run([fieldproof, "exec", "fieldproof_tools", "no_such_node"], env=env,
                             capture_output=True, text=True)
    assert missing.returncode == 1
    assert "No executable 'no_such_node' found in package 'fieldproof_tools'" in missing.stderr


# Every node built on the runtime: (package, executable, a parameter its help must list).
NODES = [
    ("fieldproof_bridge", "relay", "ros_type"), ("fieldproof_bridge", "command_relay", "max_linear_mps"),
    ("fieldproof_bridge", "imu_adapter", "gyro_bias_radps"), ("fieldproof_bridge", "navsat_adapter", "deny"),
    ("fieldproof_bridge", "battery", "dropout"), ("fieldproof_bridge", "throttle", "rate_hz"),
    ("fieldproof_link", "link_monitor", "loss_action"), ("fieldproof_link", "ground_station", "heartbeats"),
    ("fieldproof_link", "link_shaper", "scenario"), ("fieldproof_stack", "goal_driver", "max_speed_mps"),
    ("fieldproof_sim", "fieldproof_sim", "step_hz"),
]


def test_every_node_answers_help_with_its_parameters_without_starting(install_dir):
    env = sourced_env(install_dir)
    fieldproof = install_dir / "fieldproof_tools/lib/fieldproof_tools/fieldproof"
    for pkg, exe, param in NODES:
        out = subprocess.run([fieldproof, "exec", pkg, exe, "--help"], env=env, capture_output=True, text=True,
                             timeout=20)
        assert out.returncode == 0, (exe, out.stderr)
        assert f"\n  {param} (" in out.stdout, (exe, out.stdout)
        assert "[INFO]" not in out.stderr, f"{exe} started instead of printing its help: {out.stderr}"
