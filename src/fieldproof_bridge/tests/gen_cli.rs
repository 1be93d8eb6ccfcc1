//! `bridge_gen` as a command: the files it writes, its exit codes, and that bad input writes
//! nothing.

use std::path::{Path, PathBuf};
use std::process::Command;

fn repo() -> PathBuf {
    std::path::absolute(Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")).unwrap()
}

fn bridge_gen(args: &[&str], cwd: &Path) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_bridge_gen"))
        .args(args)
        .current_dir(cwd)
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn listing(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

#[test]
fn writes_the_bundle() {
    let dir = tempfile::tempdir().unwrap();
    let manifest = repo().join("robots/ugv_ref/robot.yaml");
    let (code, out, err) = bridge_gen(
        &[manifest.to_str().unwrap(), "-o", "b", "-n", "ugv1"],
        dir.path(),
    );
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("wrote"), "{out}");
    let b = dir.path().join("b");
    assert_eq!(
        listing(&b),
        [
            "bridge.launch.yaml",
            "bridge.yaml",
            "contract.yaml",
            "params.yaml",
            "ros_gz_bridge.yaml",
            "ros_gz_bridge_camera_optical_link.yaml"
        ]
    );
    // Paths are absolute even for a relative -o.
    let bridge = std::fs::read_to_string(b.join("bridge.yaml")).unwrap();
    let abs = std::fs::canonicalize(dir.path()).unwrap().join("b");
    assert!(
        bridge.contains(&format!("bundle: {}", abs.display()))
            || bridge.contains(&format!("bundle: {}", dir.path().join("b").display())),
        "{bridge}"
    );
    // Regenerating gives identical files.
    let before = std::fs::read_to_string(b.join("contract.yaml")).unwrap();
    let (code, _, _) = bridge_gen(
        &[manifest.to_str().unwrap(), "-o", "b", "-n", "ugv1"],
        dir.path(),
    );
    assert_eq!(code, 0);
    assert_eq!(
        std::fs::read_to_string(b.join("contract.yaml")).unwrap(),
        before
    );
}

#[test]
fn default_output_is_robot_bridge_and_without_applies() {
    let dir = tempfile::tempdir().unwrap();
    let manifest = repo().join("robots/ugv_ref/robot.yaml");
    let (code, _, err) = bridge_gen(
        &[
            manifest.to_str().unwrap(),
            "--without",
            "camera",
            "--no-clock",
        ],
        dir.path(),
    );
    assert_eq!(code, 0, "{err}");
    let b = dir.path().join("ugv_ref_bridge");
    assert_eq!(
        listing(&b),
        [
            "bridge.launch.yaml",
            "bridge.yaml",
            "contract.yaml",
            "params.yaml",
            "ros_gz_bridge.yaml"
        ]
    );
    let contract = std::fs::read_to_string(b.join("contract.yaml")).unwrap();
    assert!(!contract.contains("/camera/"));
    assert!(!contract.contains("/clock"));
}

#[test]
fn bad_manifest_exits_2_with_the_field_and_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let text = std::fs::read_to_string(repo().join("robots/ugv_ref/robot.yaml"))
        .unwrap()
        .replace("    rate_hz: 50\n    noise:", "    noise:");
    // The edited manifest sits next to the original so its description resolves.
    let bad = dir.path().join("robot.yaml");
    std::fs::write(&bad, text).unwrap();
    std::fs::create_dir_all(dir.path().join("urdf")).unwrap();
    std::fs::copy(
        repo().join("robots/ugv_ref/urdf/ugv_ref.urdf.xacro"),
        dir.path().join("urdf/ugv_ref.urdf.xacro"),
    )
    .unwrap();
    let (code, _, err) = bridge_gen(&[bad.to_str().unwrap(), "-o", "out"], dir.path());
    assert_eq!(code, 2);
    assert!(err.contains("drive.odometry: missing rate_hz"), "{err}");
    assert!(!dir.path().join("out").exists());
    // A rule of the bridge, not of the manifest model.
    let text = std::fs::read_to_string(repo().join("robots/ugv_ref/robot.yaml"))
        .unwrap()
        .replace("gz_type: gz.msgs.NavSat", "gz_type: gz.msgs.IMU");
    std::fs::write(&bad, text).unwrap();
    let (code, _, err) = bridge_gen(&[bad.to_str().unwrap(), "-o", "out"], dir.path());
    assert_eq!(code, 2);
    assert!(
        err.contains("sensors[1].outputs[0].gz_type: gz.msgs.IMU cannot be bridged"),
        "{err}"
    );
    assert!(!dir.path().join("out").exists());
}

#[test]
fn bad_options_exit_2_and_keep_the_old_bundle() {
    let dir = tempfile::tempdir().unwrap();
    let manifest = repo().join("robots/ugv_ref/robot.yaml");
    let m = manifest.to_str().unwrap();
    assert_eq!(bridge_gen(&[m, "-o", "b"], dir.path()).0, 0);
    let before = std::fs::read_to_string(dir.path().join("b/contract.yaml")).unwrap();
    for args in [
        vec![m, "-o", "b", "--without", "imu"],
        vec![m, "-o", "b", "--without", "sonar"],
        vec![m, "-o", "b", "-n", "bad name"],
        vec![m, "-o", "b", "--frame-prefix", "/x/"],
        vec![m, "-o", "b", "--bogus"],
        vec!["/nonexistent/robot.yaml", "-o", "b"],
    ] {
        let (code, _, err) = bridge_gen(&args, dir.path());
        assert_eq!(code, 2, "{args:?}: {err}");
        assert!(!err.is_empty());
    }
    assert_eq!(
        std::fs::read_to_string(dir.path().join("b/contract.yaml")).unwrap(),
        before
    );
    // A directory with other files is not replaced.
    std::fs::create_dir(dir.path().join("mine")).unwrap();
    std::fs::write(dir.path().join("mine/notes.txt"), "x").unwrap();
    let (code, _, err) = bridge_gen(&[m, "-o", "mine"], dir.path());
    assert_eq!(code, 2);
    assert!(err.contains("refusing to replace it"), "{err}");
    assert_eq!(listing(&dir.path().join("mine")), ["notes.txt"]);
}
