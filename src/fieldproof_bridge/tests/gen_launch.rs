//! The generated `bridge.launch.yaml` (and the package launch file including it) through
//! fieldproof's launcher, against a fake install tree: the node command lines `ros2 launch`
//! would run.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use fieldproof_bridge::gen::Options;
use fieldproof_launch as launch;
use fieldproof_testkit::{repo_root, FakeAmentPrefix};

mod common;

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
                "bundle_container",
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
    // The package launch file runs bridge_bundle itself to find (or generate) the bundle.
    fake.link(
        "fieldproof_bridge",
        "bridge_bundle",
        Path::new(env!("CARGO_BIN_EXE_bridge_bundle")),
    );
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
    common::ugv_ref_bundle(dir, "ugv_ref_bridge", options)
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
    // robot_state_publisher's description is `$(command 'xacro ...')`, and xacro is ROS 2's;
    // without robot_state_publisher the gz side is the two parameter_bridge instances.
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
    // With robot_state_publisher the description needs xacro, which is not installed here:
    // the launch fails naming the substitution.
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
    // bundle:= or manifest:= is required.
    let e = launch::load(
        &file,
        &args(&[("gz", "false")]),
        std::slice::from_ref(&prefix),
    )
    .unwrap_err();
    assert!(e.to_string().contains("give bundle:=DIR"), "{e}");
}

#[test]
fn container_true_composes_the_adapters_in_one_process() {
    let dir = tempfile::tempdir().unwrap();
    let prefix = install(dir.path());
    let bundle = generate(
        dir.path(),
        &Options {
            namespace: "ugv1".into(),
            ..Options::default()
        },
    );
    let specs = package_launch(
        &prefix,
        &[
            ("bundle", &bundle.display().to_string()),
            ("container", "true"),
        ],
    )
    .unwrap();
    assert_eq!(specs.len(), 1, "{specs:#?}");
    let cmd = &specs[0].cmd;
    assert_eq!(
        cmd[..3],
        [
            prefix
                .join("lib/fieldproof_bridge/bundle_container")
                .display()
                .to_string(),
            "--bundle".into(),
            bundle.display().to_string()
        ]
    );
    // The launch gives it the namespace and the clock, and no node name of its own.
    let ros = cmd
        .iter()
        .skip_while(|a| *a != "--ros-args")
        .collect::<Vec<_>>();
    assert!(
        ros.windows(2).any(|w| w == ["-r", "__ns:=/ugv1"]),
        "{cmd:?}"
    );
    assert!(!cmd.iter().any(|a| a.starts_with("__node:=")), "{cmd:?}");
    // container:=false (the default): a process per adapter, no container.
    let apart = package_launch(&prefix, &[("bundle", &bundle.display().to_string())]).unwrap();
    assert_eq!(apart.len(), 7);
    assert!(!apart.iter().any(|s| s.cmd[0].ends_with("bundle_container")));
}

/// The package launch file loaded with `pairs` (and gz:=false) against the fake install.
fn package_launch(
    prefix: &Path,
    pairs: &[(&str, &str)],
) -> Result<Vec<launch::ProcessSpec>, launch::LaunchError> {
    let mut all = args(pairs);
    all.insert("gz".into(), "false".into());
    launch::load(
        &prefix.join("share/fieldproof_bridge/launch/bridge.launch.yaml"),
        &all,
        std::slice::from_ref(&prefix.to_path_buf()),
    )
}

fn node<'a>(specs: &'a [launch::ProcessSpec], name: &str) -> Option<&'a launch::ProcessSpec> {
    specs
        .iter()
        .find(|s| s.cmd.contains(&format!("__node:={name}")))
}

#[test]
fn manifest_generates_the_bundle_at_launch_into_bundle_out() {
    let dir = tempfile::tempdir().unwrap();
    let prefix = install(dir.path());
    let out = dir.path().join("out");
    let manifest = repo_root().join("robots/ugv_ref/robot.yaml");
    let specs = package_launch(
        &prefix,
        &[
            ("manifest", &manifest.display().to_string()),
            ("bundle_out", &out.display().to_string()),
            ("namespace", "rover3"),
            ("frame_prefix", "rover3/"),
        ],
    )
    .unwrap();
    assert_eq!(specs.len(), 7, "the adapters of ugv_ref");
    assert!(specs
        .iter()
        .all(|s| s.cmd.contains(&"__ns:=/rover3".to_string())));
    let imu = node(&specs, "imu_adapter").unwrap();
    assert!(imu
        .cmd
        .contains(&out.join("params.yaml").display().to_string()));
    let params = std::fs::read_to_string(out.join("params.yaml")).unwrap();
    assert!(params.contains("rover3/imu_link"), "{params}");
}

#[test]
fn manifest_without_bundle_out_uses_a_temporary_bundle_and_takes_the_generator_options() {
    let dir = tempfile::tempdir().unwrap();
    let prefix = install(dir.path());
    let manifest = repo_root().join("robots/ugv_ref/robot.yaml");
    let manifest = manifest.display().to_string();
    let specs = package_launch(&prefix, &[("manifest", &manifest), ("without", "lidar")]).unwrap();
    assert!(
        node(&specs, "scan_relay").is_none(),
        "without:=lidar drops its relay"
    );
    assert_eq!(specs.len(), 6);
    let imu = node(&specs, "imu_adapter").unwrap();
    let params = imu
        .cmd
        .iter()
        .find(|a| a.ends_with("params.yaml"))
        .map(std::path::PathBuf::from)
        .unwrap();
    assert!(
        params.starts_with(std::env::temp_dir()),
        "{}",
        params.display()
    );
    let bundle = params.parent().unwrap().to_path_buf();
    let bridge = std::fs::read_to_string(bundle.join("bridge.yaml")).unwrap();
    std::fs::remove_dir_all(bundle.parent().unwrap()).unwrap();
    assert!(bridge.contains("clock: true"), "{bridge}");
    // clock:=false and robot_state_publisher:=false reach the generator.
    let out = dir.path().join("quiet");
    package_launch(
        &prefix,
        &[
            ("manifest", &manifest),
            ("bundle_out", &out.display().to_string()),
            ("clock", "false"),
            ("robot_state_publisher", "False"),
        ],
    )
    .unwrap();
    let bridge = std::fs::read_to_string(out.join("bridge.yaml")).unwrap();
    assert!(bridge.contains("clock: false"), "{bridge}");
    assert!(bridge.contains("robot_state_publisher: false"), "{bridge}");
}

#[test]
fn conflicting_or_bad_launch_arguments_fail_naming_the_argument() {
    let dir = tempfile::tempdir().unwrap();
    let prefix = install(dir.path());
    let bundle = generate(dir.path(), &Options::default());
    let bundle = bundle.display().to_string();
    let manifest = repo_root().join("robots/ugv_ref/robot.yaml");
    let manifest = manifest.display().to_string();
    let cases: [(&[(&str, &str)], &str); 5] = [
        (
            &[("bundle", &bundle), ("manifest", &manifest)],
            "given with manifest:=",
        ),
        (
            &[("bundle", &bundle), ("namespace", "ugv2")],
            "namespace: \"ugv2\" is a generator option",
        ),
        (
            &[("manifest", &manifest), ("clock", "sometimes")],
            "clock: \"sometimes\" is not true or false",
        ),
        (
            &[("manifest", &manifest), ("namespace", "9lives")],
            "--namespace: \"9lives\"",
        ),
        (
            &[("manifest", &manifest), ("without", "warp_drive")],
            "warp_drive",
        ),
    ];
    for (pairs, expected) in cases {
        let e = package_launch(&prefix, pairs).unwrap_err().to_string();
        assert!(e.contains(expected), "{pairs:?}: {e}");
    }
}
