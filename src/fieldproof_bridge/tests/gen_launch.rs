//! The generated `bridge.launch.yaml` (and the package launch file including it) through
//! fieldproof's launcher, against a fake install tree: the node command lines `ros2 launch`
//! would run.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use fieldproof_bridge::gen::{self, Options};
use fieldproof_launch as launch;
use fieldproof_testkit::{repo_root, FakeAmentPrefix};

/// An install prefix with the packages the bundle's launch names, each executable a stub.
fn install(root: &Path) -> PathBuf {
    let fake = FakeAmentPrefix::at(&root.join("install"));
    let prefix = fake.path().to_path_buf();
    let pkgs: [(&str, &[&str]); 3] = [
        (
            "fieldproof_bridge",
            &[
                "imu_adapter",
                "navsat_adapter",
                "throttle",
                "relay",
                "command_relay",
                "battery",
                "bridge_gen",
            ],
        ),
        ("ros_gz_bridge", &["parameter_bridge"]),
        ("robot_state_publisher", &["robot_state_publisher"]),
    ];
    for (pkg, exes) in pkgs {
        for exe in exes {
            fake.stub(pkg, exe);
        }
    }
    let share = prefix.join("share/fieldproof_bridge/launch");
    std::fs::create_dir_all(&share).unwrap();
    std::fs::copy(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("launch/bridge.launch.yaml"),
        share.join("bridge.launch.yaml"),
    )
    .unwrap();
    prefix
}

fn args(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
    pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

fn generate(dir: &Path, options: &Options) -> PathBuf {
    let out = dir.join("ugv_ref_bridge");
    gen::run(
        &repo_root().join("robots/ugv_ref/robot.yaml"),
        options,
        &out,
    )
    .unwrap();
    out
}

#[test]
fn gz_false_starts_the_adapters_under_the_namespace() {
    let dir = tempfile::tempdir().unwrap();
    let prefix = install(dir.path());
    let bundle = generate(
        dir.path(),
        &Options {
            namespace: "ugv1".into(),
            ..Options::default()
        },
    );
    let specs = launch::load(
        &bundle.join("bridge.launch.yaml"),
        &args(&[("gz", "false")]),
        std::slice::from_ref(&prefix),
    )
    .unwrap();
    let params = bundle.join("params.yaml").display().to_string();
    let lib = prefix.join("lib/fieldproof_bridge");
    let expected: Vec<(String, Vec<String>)> = [
        ("command_relay", "command_relay"),
        ("relay", "odom_relay"),
        ("throttle", "joint_states_throttle"),
        ("imu_adapter", "imu_adapter"),
        ("navsat_adapter", "gps_adapter"),
        ("relay", "scan_relay"),
        ("battery", "battery"),
    ]
    .iter()
    .map(|(exe, name)| {
        (
            name.to_string(),
            vec![
                lib.join(exe).display().to_string(),
                "--ros-args".into(),
                "-r".into(),
                format!("__node:={name}"),
                "-r".into(),
                "__ns:=/ugv1".into(),
                "--params-file".into(),
                params.clone(),
                "-p".into(),
                "use_sim_time:=true".into(),
            ],
        )
    })
    .collect();
    let got: Vec<(String, Vec<String>)> = specs
        .iter()
        .map(|s| {
            let name = s.cmd[3].trim_start_matches("__node:=").to_string();
            (name, s.cmd.clone())
        })
        .collect();
    assert_eq!(got, expected);
}

#[test]
fn gz_true_adds_the_bridge_instances() {
    let dir = tempfile::tempdir().unwrap();
    let prefix = install(dir.path());
    // robot_state_publisher's description is `$(command 'xacro ...')`, which only ros2 launch
    // evaluates; without it the gz side is the two parameter_bridge instances.
    let bundle = generate(
        dir.path(),
        &Options {
            namespace: "ugv1".into(),
            no_robot_state_publisher: true,
            ..Options::default()
        },
    );
    let specs = launch::load(
        &bundle.join("bridge.launch.yaml"),
        &args(&[("use_sim_time", "false")]),
        std::slice::from_ref(&prefix),
    )
    .unwrap();
    let bridge_exe = prefix
        .join("lib/ros_gz_bridge/parameter_bridge")
        .display()
        .to_string();
    let bridges: Vec<&Vec<String>> = specs
        .iter()
        .map(|s| &s.cmd)
        .filter(|c| c[0] == bridge_exe)
        .collect();
    assert_eq!(bridges.len(), 2);
    assert_eq!(bridges[0][3], "__node:=ros_gz_bridge");
    assert_eq!(bridges[1][3], "__node:=ros_gz_bridge_camera_optical_link");
    assert!(bridges[0].ends_with(&["-p".to_string(), "use_sim_time:=false".to_string()]));
    assert_eq!(specs.len(), 2 + 7);
    // With robot_state_publisher the description substitution is ros2 launch's.
    let with_rsp = generate(
        &dir.path().join("b"),
        &Options {
            namespace: "ugv1".into(),
            ..Options::default()
        },
    );
    let e = launch::load(
        &with_rsp.join("bridge.launch.yaml"),
        &BTreeMap::new(),
        std::slice::from_ref(&prefix),
    )
    .unwrap_err();
    assert!(e.to_string().contains("$(command 'xacro "), "{e}");
}

#[test]
fn package_launch_file_includes_the_bundle() {
    let dir = tempfile::tempdir().unwrap();
    let prefix = install(dir.path());
    let bundle = generate(dir.path(), &Options::default());
    let file = prefix.join("share/fieldproof_bridge/launch/bridge.launch.yaml");
    let specs = launch::load(
        &file,
        &args(&[("bundle", &bundle.display().to_string()), ("gz", "false")]),
        std::slice::from_ref(&prefix),
    )
    .unwrap();
    assert_eq!(specs.len(), 7);
    // No namespace: no __ns remap.
    assert!(specs
        .iter()
        .all(|s| !s.cmd.iter().any(|a| a.starts_with("__ns:="))));
    let imu = specs
        .iter()
        .find(|s| s.cmd.contains(&"__node:=imu_adapter".to_string()))
        .unwrap();
    assert!(imu
        .cmd
        .contains(&bundle.join("params.yaml").display().to_string()));
    // bundle:= is required.
    let e = launch::load(
        &file,
        &args(&[("gz", "false")]),
        std::slice::from_ref(&prefix),
    )
    .unwrap_err();
    assert!(e.to_string().contains("required argument 'bundle'"), "{e}");
}
