//! Runs `test/test_bridge_contract_launch.py` (the bridge contract test as a launch_testing
//! test) with real ROS 2 Jazzy's `launch_test`, so `colcon test` runs it: colcon-ros-cargo's
//! test task for an `ament_cargo` package runs only `cargo test` (and `cargo fmt --check`), with
//! no CTest or pytest step where a launch test could be registered.
//!
//! It needs the rig (`/opt/ros/jazzy`, installed by scripts/setup) and the colcon install tree
//! (`install/`, or `FIELDPROOF_INSTALL`; colcon build or scripts/build makes it), and says so
//! and returns where either is absent. The launch opens DDS participants, so the test contains
//! itself in a private network namespace first. The JUnit report goes to
//! `build/launch-test/test_bridge_contract_launch.xml` (scripts/test counts its tests).

use std::path::PathBuf;
use std::process::Command;

use fieldproof_testkit::repo_root;

/// Where `scripts/setup` installs the ROS 2 Jazzy rig.
const RIG: &str = "/opt/ros/jazzy";
/// The launch's domain (inside the test's own network namespace).
const DOMAIN: &str = "193";

fn install_dir() -> PathBuf {
    std::env::var_os("FIELDPROOF_INSTALL")
        .map(PathBuf::from)
        .unwrap_or_else(|| repo_root().join("install"))
}

#[test]
fn bridge_contract_launch_test_passes_under_launch_testing() {
    let rig_setup = PathBuf::from(RIG).join("setup.bash");
    let install_setup = install_dir().join("setup.bash");
    if !rig_setup.exists() {
        eprintln!("skipped: no ROS 2 Jazzy rig at {RIG} (scripts/setup installs it)");
        return;
    }
    if !install_dir().join("fieldproof_bridge").is_dir() || !install_setup.exists() {
        eprintln!(
            "skipped: no colcon install tree with fieldproof_bridge at {} (run scripts/build)",
            install_dir().display()
        );
        return;
    }
    fieldproof_testkit::contain_or_return!();
    let root = repo_root();
    let report_dir = root.join("build/launch-test");
    std::fs::create_dir_all(&report_dir).expect("build/launch-test");
    let report = report_dir.join("test_bridge_contract_launch.xml");
    let _ = std::fs::remove_file(&report);
    let test_file = root.join("src/fieldproof_bridge/test/test_bridge_contract_launch.py");
    let output = Command::new("bash")
        .arg("-c")
        .arg(r#"source "$1" && source "$2" && exec launch_test "$3" --junit-xml "$4""#)
        .arg("launch-test")
        .args([&rig_setup, &install_setup, &test_file, &report])
        .env("RMW_IMPLEMENTATION", "rmw_cyclonedds_cpp")
        .env("ROS_DOMAIN_ID", DOMAIN)
        .env("ROS_LOG_DIR", root.join("build/ros-log"))
        .env_remove("ROS_LOCALHOST_ONLY")
        .env_remove("ROS_AUTOMATIC_DISCOVERY_RANGE")
        .env_remove("CYCLONEDDS_URI")
        .output()
        .expect("bash runs launch_test");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success(),
        "launch_test {}: {}\n{stdout}\n{stderr}",
        test_file.display(),
        output.status
    );
    let junit = std::fs::read_to_string(&report).expect("launch_test wrote its JUnit report");
    assert!(
        junit.contains("failures=\"0\" errors=\"0\"")
            && junit.contains("test_1_contract_check_passes"),
        "{junit}"
    );
}
