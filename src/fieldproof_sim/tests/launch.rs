//! `ros2 launch fieldproof_sim sim.launch.yaml`, as fieldproof's launcher reads it, starts the
//! simulator with the world and vehicle given as launch arguments.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use fieldproof_launch as launch;

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// An install prefix holding the simulator as `ros2 run` finds it.
fn prefix() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let index = dir.path().join("share/ament_index/resource_index/packages");
    std::fs::create_dir_all(&index).unwrap();
    std::fs::write(index.join("fieldproof_sim"), "").unwrap();
    let lib = dir.path().join("lib/fieldproof_sim");
    std::fs::create_dir_all(&lib).unwrap();
    std::os::unix::fs::symlink(
        env!("CARGO_BIN_EXE_fieldproof_sim"),
        lib.join("fieldproof_sim"),
    )
    .unwrap();
    dir
}

#[test]
fn launch_file_starts_the_simulator_with_its_arguments() {
    if std::env::var("FIELDPROOF_IN_NETNS").as_deref() != Ok("1") {
        let st = Command::new(repo().join("scripts/netns-run"))
            .arg(std::env::current_exe().unwrap())
            .args([
                "launch_file_starts_the_simulator_with_its_arguments",
                "--exact",
                "--nocapture",
            ])
            .status()
            .expect("scripts/netns-run");
        assert!(st.success());
        return;
    }
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
        .current_dir(repo())
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
