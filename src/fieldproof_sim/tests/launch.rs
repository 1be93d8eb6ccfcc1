//! `ros2 launch fieldproof_sim sim.launch.yaml`, as fieldproof's launcher reads it, starts the
//! simulator with the world and vehicle given as launch arguments.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

use fieldproof_launch as launch;
use fieldproof_testkit::{repo_root, FakeAmentPrefix};

/// An install prefix holding the simulator as `ros2 run` finds it.
fn prefix() -> FakeAmentPrefix {
    let prefix = FakeAmentPrefix::new();
    prefix.link(
        "fieldproof_sim",
        "fieldproof_sim",
        Path::new(env!("CARGO_BIN_EXE_fieldproof_sim")),
    );
    prefix
}

#[test]
fn launch_file_starts_the_simulator_with_its_arguments() {
    fieldproof_testkit::contain_or_return!();
    let p = prefix();
    let args: BTreeMap<String, String> = [
        (
            "vehicle",
            "ns=ugv9,manifest=robots/ugv_ref/robot.yaml,spawn=spawn_dock,without=camera",
        ),
        ("real_time_factor", "0.0"),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v.to_string()))
    .collect();
    let file = Path::new(env!("CARGO_MANIFEST_DIR")).join("launch/sim.launch.yaml");
    let specs = launch::load(&file, &args, &[p.path().to_path_buf()]).expect("launch file loads");
    assert_eq!(specs.len(), 1);
    let mut cmd = specs[0].cmd.clone();
    let joined = cmd.join(" ");
    assert!(
        joined.contains(
            "--world worlds/depot.yaml --vehicle ns=ugv9,manifest=robots/ugv_ref/robot.yaml"
        ),
        "{joined}"
    );
    assert!(
        joined.contains("-p real_time_factor:=0.0") && joined.contains("-p seed:=0"),
        "{joined}"
    );
    // Run it for one simulated second (as fast as possible) and check it ends cleanly.
    let ros = cmd
        .iter()
        .position(|a| a == "--ros-args")
        .unwrap_or(cmd.len());
    cmd.splice(ros..ros, ["--duration".to_string(), "1".to_string()]);
    let out = Command::new(&cmd[0])
        .args(&cmd[1..])
        .current_dir(repo_root())
        .env("ROS_DOMAIN_ID", "64")
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(err.contains("simulated 1.000 s"), "{err}");
    assert!(
        err.contains("[fieldproof_sim]"),
        "node name from the launch file: {err}"
    );
}
