//! `bridge_gen` as a command: the files it writes, its exit codes, and that bad input writes
//! nothing.

use fieldproof_testkit::repo_root;
use std::path::{Path, PathBuf};
use std::process::Command;

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
    let manifest = repo_root().join("robots/ugv_ref/robot.yaml");
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
    let manifest = repo_root().join("robots/ugv_ref/robot.yaml");
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
    let text = std::fs::read_to_string(repo_root().join("robots/ugv_ref/robot.yaml"))
        .unwrap()
        .replace("    rate_hz: 50\n    noise:", "    noise:");
    // The edited manifest sits next to the original so its description resolves.
    let bad = dir.path().join("robot.yaml");
    std::fs::write(&bad, text).unwrap();
    std::fs::create_dir_all(dir.path().join("urdf")).unwrap();
    std::fs::copy(
        repo_root().join("robots/ugv_ref/urdf/ugv_ref.urdf.xacro"),
        dir.path().join("urdf/ugv_ref.urdf.xacro"),
    )
    .unwrap();
    let (code, _, err) = bridge_gen(&[bad.to_str().unwrap(), "-o", "out"], dir.path());
    assert_eq!(code, 2);
    assert!(err.contains("drive.odometry: missing rate_hz"), "{err}");
    assert!(!dir.path().join("out").exists());
    // A rule of the bridge, not of the manifest model.
    let text = std::fs::read_to_string(repo_root().join("robots/ugv_ref/robot.yaml"))
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
    let manifest = repo_root().join("robots/ugv_ref/robot.yaml");
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

/// `robots/ugv_ref/robot.yaml` with `edit` applied, written with its xacro into `dir`.
fn edited_manifest(dir: &Path, edit: impl Fn(String) -> String) -> PathBuf {
    let text =
        edit(std::fs::read_to_string(repo_root().join("robots/ugv_ref/robot.yaml")).unwrap());
    let path = dir.join("robot.yaml");
    std::fs::write(&path, text).unwrap();
    std::fs::create_dir_all(dir.join("urdf")).unwrap();
    std::fs::copy(
        repo_root().join("robots/ugv_ref/urdf/ugv_ref.urdf.xacro"),
        dir.join("urdf/ugv_ref.urdf.xacro"),
    )
    .unwrap();
    path
}

#[test]
fn a_hostile_manifest_name_exits_2_and_writes_nothing_anywhere() {
    let root = tempfile::tempdir().unwrap();
    let cwd = root.path().join("work");
    std::fs::create_dir(&cwd).unwrap();
    let bad = edited_manifest(root.path(), |t| {
        t.replace("name: ugv_ref", "name: \"../evil; rm -rf /\"")
    });
    let before = listing(root.path());
    // No -o: the default output path is built from the name.
    let (code, _, err) = bridge_gen(&[bad.to_str().unwrap()], &cwd);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("name: \"../evil; rm -rf /\" is not a ROS name token"),
        "{err}"
    );
    assert_eq!(listing(root.path()), before);
    assert!(listing(&cwd).is_empty());
}

#[test]
fn an_oversized_camera_or_rate_exits_2_naming_the_field_and_the_bound() {
    let dir = tempfile::tempdir().unwrap();
    for (from, to, needle) in [
        (
            "camera: { width: 640, height: 480,",
            "camera: { width: 100000, height: 100000,",
            "sensors[3].camera.width: 100000 is not in [1, 4096] pixels",
        ),
        (
            "gz_rate: 1000 ",
            "gz_rate: 1e9 ",
            "drive.joint_states.gz_rate: 1000000000 Hz is above the limit of 1000 Hz",
        ),
    ] {
        let bad = edited_manifest(dir.path(), |t| {
            assert!(t.contains(from), "{from}");
            t.replace(from, to)
        });
        let (code, _, err) = bridge_gen(&[bad.to_str().unwrap(), "-o", "out"], dir.path());
        assert_eq!(code, 2, "{err}");
        assert!(err.contains(needle), "{err}");
        assert!(!dir.path().join("out").exists());
    }
}

#[test]
fn a_namespace_over_245_characters_exits_2() {
    let dir = tempfile::tempdir().unwrap();
    let manifest = repo_root().join("robots/ugv_ref/robot.yaml");
    let long = "a".repeat(300);
    let (code, _, err) = bridge_gen(
        &[manifest.to_str().unwrap(), "-o", "b", "-n", &long],
        dir.path(),
    );
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains(
            "is 301 characters long with its leading /: ROS 2 refuses namespaces over 245"
        ),
        "{err}"
    );
    assert!(!dir.path().join("b").exists());
    // The limit itself is fine.
    let at_limit = "a".repeat(244);
    let (code, _, err) = bridge_gen(
        &[manifest.to_str().unwrap(), "-o", "b", "-n", &at_limit],
        dir.path(),
    );
    assert_eq!(code, 0, "{err}");
}

#[test]
fn the_working_directory_or_an_ancestor_is_never_the_output() {
    use std::os::unix::fs::MetadataExt;
    let root = tempfile::tempdir().unwrap();
    let manifest = repo_root().join("robots/ugv_ref/robot.yaml");
    let m = manifest.to_str().unwrap();
    // A working directory holding only a bundle: it would pass the foreign-file check.
    let cwd = root.path().join("outer/bundle");
    assert_eq!(bridge_gen(&[m, "-o", "outer/bundle"], root.path()).0, 0);
    let inode = std::fs::metadata(&cwd).unwrap().ino();
    let files = listing(&cwd);
    for (out, needle) in [
        (".", "is the working directory; refusing to replace it"),
        ("./", "is the working directory; refusing to replace it"),
        (
            "..",
            "is the working directory or holds it; refusing to replace it",
        ),
        (
            cwd.to_str().unwrap(),
            "is the working directory; refusing to replace it",
        ),
    ] {
        let (code, _, err) = bridge_gen(&[m, "-o", out], &cwd);
        assert_eq!(code, 2, "-o {out}: {err}");
        assert!(err.contains(needle), "-o {out}: {err}");
        assert_eq!(std::fs::metadata(&cwd).unwrap().ino(), inode, "-o {out}");
        assert_eq!(listing(&cwd), files, "-o {out}");
    }
    assert_eq!(listing(&root.path().join("outer")), ["bundle"]);
}
