//! The simulator against an independent ROS 2 peer: a Cyclone DDS participant (PyPI
//! `cyclonedds`, types written from the .msg files) reads /clock, odometry, the scan, the
//! fix, tf_static and a camera image, and drives the vehicle. Runs inside a private network
//! namespace (re-executing itself in one when started outside one).

use std::path::Path;
use std::process::{Command, Stdio};

use fieldproof_testkit::repo_root;

#[test]
fn cyclone_peer_reads_the_simulator_and_drives_it() {
    fieldproof_testkit::contain_or_return!();
    let domain = "63";
    let mut sim = Command::new(env!("CARGO_BIN_EXE_fieldproof_sim"))
        .current_dir(repo_root())
        .args([
            "--world",
            "worlds/depot.yaml",
            "--vehicle",
            "ns=ugv1,manifest=robots/ugv_ref/robot.yaml,spawn=spawn_dock",
            "--duration",
            "300",
        ])
        .env("ROS_DOMAIN_ID", domain)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .spawn()
        .expect("start fieldproof_sim");
    let out = Command::new(fieldproof_testkit::python())
        .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/peers/sim_peer.py"))
        .arg("ugv1")
        .env("ROS_DOMAIN_ID", domain)
        .output()
        .expect("run the Cyclone peer");
    let _ = Command::new("kill")
        .arg("-TERM")
        .arg(sim.id().to_string())
        .status();
    let status = sim.wait().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "peer failed: {stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(status.success(), "simulator exit: {status:?}");
    let v: serde_json::Value = serde_json::from_str(stdout.trim()).expect("one JSON line");
    eprintln!("cyclone peer saw: {v}");
    assert!(v["clock_s"].as_f64().unwrap() > 0.0);
    assert_eq!(v["odom_frames"], serde_json::json!(["odom", "base_link"]));
    assert_eq!(v["scan_frame"], "lidar_link");
    assert_eq!(v["scan_samples"], 360);
    assert!(
        (v["scan_min"].as_f64().unwrap() - 4.63).abs() < 0.1,
        "pillar_a ahead: {v}"
    );
    assert!((v["fix"][0].as_f64().unwrap() - 48.1351).abs() < 1e-4);
    assert_eq!(v["fix"][3], "", "raw NavSat has no frame");
    assert_eq!(
        v["tf_static_children"],
        serde_json::json!([
            "base_footprint",
            "camera_link",
            "camera_optical_link",
            "gps_link",
            "imu_link",
            "lidar_link"
        ])
    );
    assert_eq!(
        v["image"],
        serde_json::json!([640, 480, "rgb8", "camera_optical_link", 921600])
    );
    assert!(v["driven_x"].as_f64().unwrap() >= 0.3);
}
