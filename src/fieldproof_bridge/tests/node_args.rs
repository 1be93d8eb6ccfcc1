//! Bad node arguments are refused before the node starts: exit 2 with a message naming the
//! parameter (or argument) and the value, quoted once, for every adapter binary.
//!
//! The binaries would open a DDS participant if they started, so this runs inside a private
//! network namespace: when started outside one, the test re-runs itself in a fresh one
//! (fieldproof_testkit).

use std::ffi::OsString;
use std::os::unix::ffi::OsStringExt;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The adapter binaries that share the injector parameters.
const ADAPTERS: [(&str, &str); 5] = [
    ("relay", env!("CARGO_BIN_EXE_relay")),
    ("throttle", env!("CARGO_BIN_EXE_throttle")),
    ("imu_adapter", env!("CARGO_BIN_EXE_imu_adapter")),
    ("navsat_adapter", env!("CARGO_BIN_EXE_navsat_adapter")),
    ("battery", env!("CARGO_BIN_EXE_battery")),
];

/// Runs `exe` with `args`; returns its exit code and stderr (killed after 20 s: a node that
/// accepted its arguments runs until stopped).
fn run(exe: &str, args: &[OsString]) -> (Option<i32>, String) {
    run_with_env(exe, args, &[])
}

/// [`run`] with more environment variables.
fn run_with_env(exe: &str, args: &[OsString], env: &[(&str, &str)]) -> (Option<i32>, String) {
    let mut child = Command::new(exe)
        .args(args)
        .env("ROS_DOMAIN_ID", "71")
        .envs(env.iter().copied())
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(20);
    while child.try_wait().unwrap().is_none() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    if child.try_wait().unwrap().is_none() {
        let _ = child.kill();
    }
    let out = child.wait_with_output().unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn os(args: &[&str]) -> Vec<OsString> {
    args.iter().map(OsString::from).collect()
}

#[test]
fn a_bad_reliability_exits_2_naming_it_quoted_once() {
    fieldproof_testkit::contain_or_return!();
    for (name, exe) in ADAPTERS {
        for param in ["input_qos_reliability", "qos_reliability"] {
            let arg = format!("{param}:=sometimes");
            let (code, err) = run(exe, &os(&["--ros-args", "-p", &arg]));
            assert_eq!(code, Some(2), "{name} {arg}: {err}");
            assert!(
                err.contains(&format!("'{param}'")) && err.contains("'sometimes'"),
                "{name} {arg}: {err}"
            );
            assert!(!err.contains("''sometimes''"), "{name} {arg}: {err}");
        }
    }
}

#[test]
fn an_interface_the_namespace_lacks_exits_2_naming_it() {
    fieldproof_testkit::contain_or_return!();
    for (name, exe) in ADAPTERS {
        for value in ["wlan9", "10.99.0.1"] {
            let (code, err) = run_with_env(exe, &[], &[("FIELDPROOF_DDS_INTERFACES", value)]);
            assert_eq!(code, Some(2), "{name} {value}: {err}");
            assert!(
                err.contains("FIELDPROOF_DDS_INTERFACES") && err.contains(value),
                "{name} {value}: {err}"
            );
        }
    }
}

#[test]
fn a_bad_topic_parameter_exits_2_naming_it() {
    fieldproof_testkit::contain_or_return!();
    let long = format!("input:={}", "t".repeat(300));
    for (name, exe) in ADAPTERS {
        for (arg, needle) in [
            (
                "input:=bad topic name",
                "parameter 'input': value 'bad topic name' from -p: not a valid ROS topic name",
            ),
            ("output:=1x", "parameter 'output': value '1x' from -p"),
            (long.as_str(), "longer than 247 characters"),
        ] {
            let (code, err) = run(exe, &os(&["--ros-args", "-p", arg]));
            assert_eq!(code, Some(2), "{name} {arg}: {err}");
            assert!(err.contains(needle), "{name} {arg}: {err}");
        }
    }
}

#[test]
fn a_long_namespace_or_a_non_utf8_argument_exits_2() {
    fieldproof_testkit::contain_or_return!();
    let long_ns = format!("__ns:=/{}", "a".repeat(300));
    for (name, exe) in ADAPTERS {
        let (code, err) = run(exe, &os(&["--ros-args", "-r", &long_ns]));
        assert_eq!(code, Some(2), "{name}: {err}");
        assert!(err.contains("longer than 245 characters"), "{name}: {err}");
        for args in [
            vec![OsString::from_vec(b"caf\xe9".to_vec())],
            vec![
                OsString::from("--ros-args"),
                OsString::from("-p"),
                OsString::from_vec(b"input:=sc\xffan".to_vec()),
            ],
        ] {
            let (code, err) = run(exe, &args);
            assert_eq!(code, Some(2), "{name} {args:?}: {err}");
            assert!(err.contains("is not valid UTF-8"), "{name} {args:?}: {err}");
        }
    }
}
