//! The launcher against a fake install tree: what commands a YAML launch file turns into, and
//! how the supervisor reports and stops real child processes.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use fieldproof_testkit::FakeAmentPrefix;
use fieldproof_tools::launch::{self, supervisor};

fn script(path: &Path, body: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    fieldproof_testkit::write_executable(path, &format!("#!/bin/sh\n{body}\n"));
}

/// An install prefix holding package `demo` with executables `talker` and `listener`.
fn install(root: &Path) -> PathBuf {
    let prefix = FakeAmentPrefix::at(&root.join("install/demo"));
    prefix.stub("demo", "talker").stub("demo", "listener");
    prefix.path().to_path_buf()
}

/// [`install`], and `inner.launch.yaml` with `text` in package `demo`'s share.
fn install_with_inner(root: &Path, text: &str) -> PathBuf {
    let prefix = install(root);
    std::fs::create_dir_all(prefix.join("share/demo/launch")).unwrap();
    std::fs::write(prefix.join("share/demo/launch/inner.launch.yaml"), text).unwrap();
    prefix
}

#[test]
fn yaml_launch_becomes_ros_args_command_lines() {
    let dir = tempfile::tempdir().unwrap();
    let prefix = install_with_inner(
        dir.path(),
        r#"
launch:
- arg: {name: topic}
- node: {pkg: demo, exec: listener, remap: [{from: chatter, to: $(var topic)}]}
"#,
    );
    let file = dir.path().join("top.launch.yaml");
    std::fs::write(
        &file,
        r#"
launch:
- arg: {name: ns, default: ugv1}
- arg: {name: use_sim_time, default: "true"}
- arg: {name: with_listener, default: "true"}
- group:
  - push_ros_namespace: {namespace: $(var ns)}
  - node:
      pkg: demo
      exec: talker
      name: imu_adapter
      param:
      - {from: $(dirname)/params.yaml}
      - {name: use_sim_time, value: $(var use_sim_time)}
  - include:
      file: $(find-pkg-share demo)/launch/inner.launch.yaml
      if: $(var with_listener)
      arg: [{name: topic, value: /$(var ns)/chatter}]
- node: {pkg: demo, exec: talker, namespace: other}
"#,
    )
    .unwrap();
    let args = BTreeMap::from([("ns".to_string(), "ugv7".to_string())]);
    let specs = launch::load(&file, &args, std::slice::from_ref(&prefix)).unwrap();
    let talker = prefix.join("lib/demo/talker").display().to_string();
    let listener = prefix.join("lib/demo/listener").display().to_string();
    let params = dir.path().join("params.yaml").display().to_string();
    let cmds: Vec<(String, Vec<String>)> = specs
        .iter()
        .map(|s| (s.label.clone(), s.cmd.clone()))
        .collect();
    let expected: Vec<(String, Vec<String>)> = vec![
        (
            "talker-1".into(),
            vec![
                &talker,
                "--ros-args",
                "-r",
                "__node:=imu_adapter",
                "-r",
                "__ns:=/ugv7",
                "--params-file",
                &params,
                "-p",
                "use_sim_time:=true",
            ]
            .into_iter()
            .map(String::from)
            .collect(),
        ),
        (
            "listener-1".into(),
            vec![
                &listener,
                "--ros-args",
                "-r",
                "__ns:=/ugv7",
                "-r",
                "chatter:=/ugv7/chatter",
            ]
            .into_iter()
            .map(String::from)
            .collect(),
        ),
        (
            "talker-2".into(),
            vec![&talker, "--ros-args", "-r", "__ns:=/other"]
                .into_iter()
                .map(String::from)
                .collect(),
        ),
    ];
    assert_eq!(cmds, expected);

    // The include's condition is honoured.
    let args = BTreeMap::from([("with_listener".to_string(), "false".to_string())]);
    let specs = launch::load(&file, &args, std::slice::from_ref(&prefix)).unwrap();
    assert_eq!(
        specs.iter().map(|s| s.label.as_str()).collect::<Vec<_>>(),
        ["talker-1", "talker-2"]
    );
}

#[test]
fn a_launch_prefix_goes_before_the_command_as_in_ros_2_launch() {
    let dir = tempfile::tempdir().unwrap();
    let prefix = install_with_inner(dir.path(), "launch:\n- node: {pkg: demo, exec: listener}\n");
    let file = dir.path().join("top.launch.yaml");
    std::fs::write(
        &file,
        r#"
launch:
- arg: {name: place, default: ugv1}
- group:
  # A launch configuration prefixes every process of the scope, includes too ...
  - let: {name: launch-prefix, value: "wrap --in '$(var place)' --"}
  - include: {file: $(find-pkg-share demo)/launch/inner.launch.yaml}
  # ... and a process's own attribute wins over it.
  - node: {pkg: demo, exec: talker, launch-prefix: "gdb -ex run --args"}
# Outside the group, no prefix.
- node: {pkg: demo, exec: talker}
"#,
    )
    .unwrap();
    let specs = launch::load(&file, &BTreeMap::new(), std::slice::from_ref(&prefix)).unwrap();
    let talker = prefix.join("lib/demo/talker").display().to_string();
    let listener = prefix.join("lib/demo/listener").display().to_string();
    let cmds: Vec<Vec<String>> = specs.iter().map(|s| s.cmd.clone()).collect();
    let words = |list: &[&str]| list.iter().map(|w| w.to_string()).collect::<Vec<_>>();
    assert_eq!(
        cmds,
        vec![
            words(&["wrap", "--in", "ugv1", "--", &listener, "--ros-args"]),
            words(&["gdb", "-ex", "run", "--args", &talker, "--ros-args"]),
            words(&[&talker, "--ros-args"]),
        ]
    );
    // Unbalanced quotes are refused with the place.
    std::fs::write(
        &file,
        "launch:\n- node: {pkg: demo, exec: talker, launch-prefix: \"a 'b\"}\n",
    )
    .unwrap();
    let error = launch::load(&file, &BTreeMap::new(), std::slice::from_ref(&prefix))
        .unwrap_err()
        .to_string();
    assert!(error.contains("launch-prefix"), "{error}");
}

#[test]
fn bad_launch_files_are_refused_with_the_place() {
    let dir = tempfile::tempdir().unwrap();
    let prefix = install(dir.path());
    let file = dir.path().join("bad.launch.yaml");
    let cases = [
        (
            "launch:\n- node: {pkg: demo}\n",
            "launch[0].node: missing exec",
        ),
        (
            "launch:\n- node: {pkg: demo, exec: nope}\n",
            "No executable 'nope' found in package 'demo'",
        ),
        (
            "launch:\n- node: {pkg: ghost, exec: x}\n",
            "Package 'ghost' not found",
        ),
        (
            "launch:\n- rosbag: {}\n",
            "launch[0].rosbag: unsupported entity 'rosbag'",
        ),
        (
            "launch:\n- arg: {name: needed}\n",
            "required argument 'needed' not provided",
        ),
        (
            "launch:\n- arg: {name: b, default: a, description: one, two}\n",
            "launch[0].arg: unexpected key 'two' (an arg has name, default, description, choices)",
        ),
        ("nodes: []\n", "top level must be `launch:`"),
    ];
    for (text, expected) in cases {
        std::fs::write(&file, text).unwrap();
        let err = launch::load(&file, &BTreeMap::new(), std::slice::from_ref(&prefix))
            .unwrap_err()
            .to_string();
        assert!(err.contains(expected), "{text:?}: {err}");
    }
    std::fs::write(&file, "launch:\n- arg: {name: a, default: x}\n").unwrap();
    let args = BTreeMap::from([("b".to_string(), "1".to_string())]);
    let err = launch::load(&file, &args, &[prefix])
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("argument 'b' is not declared (declared: a)"),
        "{err}"
    );
}

fn spec(label: &str, body: &str, dir: &Path) -> launch::ProcessSpec {
    let path = dir.join(label);
    script(&path, body);
    launch::ProcessSpec {
        label: label.into(),
        cmd: vec![path.display().to_string()],
        env: BTreeMap::new(),
        unset_env: vec![],
        shutdown_on_exit: false,
    }
}

#[test]
fn children_that_die_are_reported_with_their_exit_code() {
    let dir = tempfile::tempdir().unwrap();
    let specs = [
        spec("ok-1", "exit 0", dir.path()),
        spec("crash-1", "exit 3", dir.path()),
    ];
    let outcome = supervisor::Launch::start(&specs, Default::default())
        .unwrap()
        .wait();
    assert!(!outcome.interrupted);
    let failures: Vec<(&str, i32)> = outcome
        .failures()
        .map(|e| (e.label.as_str(), e.code))
        .collect();
    assert_eq!(failures, [("crash-1", 3)]);
    assert_eq!(outcome.exits.len(), 2);
}

#[test]
fn stopping_sends_sigint_then_escalates() {
    let dir = tempfile::tempdir().unwrap();
    let ready = |label: &str| dir.path().join(format!("{label}.ready"));
    let specs = [
        // Leaves cleanly on SIGINT, as a node does.
        spec(
            "polite-1",
            &format!(
                "trap 'exit 0' INT\ntouch {}\nwhile true; do sleep 0.05; done",
                ready("polite-1").display()
            ),
            dir.path(),
        ),
        // Ignores SIGINT: needs SIGTERM.
        spec(
            "stubborn-1",
            &format!(
                "trap '' INT\ntrap 'exit 7' TERM\ntouch {}\nwhile true; do sleep 0.05; done",
                ready("stubborn-1").display()
            ),
            dir.path(),
        ),
    ];
    // Generous enough that a loaded host still lets the polite child run its trap in time.
    let timeouts = supervisor::StopPolicy {
        sigterm_after: Duration::from_secs(3),
        sigkill_after: Duration::from_secs(5),
    };
    let running = supervisor::Launch::start(&specs, timeouts).unwrap();
    // Stop only once both traps are installed: a signal before that is the default action.
    let deadline = Instant::now() + Duration::from_secs(10);
    while !(ready("polite-1").exists() && ready("stubborn-1").exists()) {
        assert!(Instant::now() < deadline, "children never became ready");
        std::thread::sleep(Duration::from_millis(20));
    }
    running.stop_flag().store(true, Ordering::SeqCst);
    let outcome = running.wait();
    assert!(outcome.interrupted);
    let mut ends: Vec<(String, i32)> = outcome
        .exits
        .iter()
        .map(|e| (e.label.clone(), e.code))
        .collect();
    ends.sort();
    assert_eq!(
        ends,
        [("polite-1".to_string(), 0), ("stubborn-1".to_string(), 7)]
    );
    assert!(outcome.exits.iter().all(|e| e.stopped_by_launch));
    assert_eq!(outcome.failures().count(), 0);
}

#[test]
fn the_command_exits_2_on_a_bad_launch_file_and_1_when_a_child_fails() {
    let dir = tempfile::tempdir().unwrap();
    let prefix = install(dir.path());
    script(&prefix.join("lib/demo/failing"), "echo boom >&2; exit 4");
    let run = |text: &str| {
        let file = dir.path().join("x.launch.yaml");
        std::fs::write(&file, text).unwrap();
        Command::new(env!("CARGO_BIN_EXE_fieldproof"))
            .arg("launch")
            .arg(&file)
            .env("AMENT_PREFIX_PATH", &prefix)
            .output()
            .unwrap()
    };
    let bad = run("launch:\n- node: {exec: x}\n");
    assert_eq!(bad.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&bad.stderr).contains("missing pkg"));
    let failing = run("launch:\n- node: {pkg: demo, exec: failing}\n");
    assert_eq!(failing.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&failing.stderr);
    assert!(stderr.contains("[failing-1] boom"), "{stderr}");
    assert!(
        stderr.contains("[ERROR] [failing-1]: process has died [pid"),
        "{stderr}"
    );
    assert!(stderr.contains("exit code 4"), "{stderr}");
}
