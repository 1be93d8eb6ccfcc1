//! Interop: a Cyclone DDS peer (Python `cyclonedds`, an independent DDS implementation)
//! calls the talker's parameter services exactly as `ros2 param get/set/describe` on a
//! Cyclone-based ROS 2 would (rmw_cyclonedds' request framing), and hears the effect on the
//! topic; a parameter with choices shows them and refuses a value outside them.
//! Run inside the project's network namespace; the Python comes from `FIELDPROOF_PYTHON`
//! or the workspace's `.venv` (made by `scripts/setup`).

mod common;

use std::path::PathBuf;
use std::process::Command;

use common::{require_netns, Proc};

#[test]
fn cyclone_peer_gets_and_sets_parameters() {
    fieldproof_testkit::contain_or_return!();
    require_netns();
    let proc = Proc::start(
        "talker",
        95,
        &[
            "--ros-args",
            "-r",
            "__node:=cytalker",
            "-r",
            "__ns:=/cy",
            "-p",
            "rate_hz:=10.0",
        ],
    );
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/cyclone_params.py");
    let out = Command::new(fieldproof_testkit::python())
        .arg(&script)
        .args(["/cy/cytalker", "/cy/chatter"])
        .env("ROS_DOMAIN_ID", "95")
        .output()
        .expect("run the Cyclone peer");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "Cyclone peer failed: {}\n{stdout}\n{}\nnode: {:#?}",
        out.status,
        String::from_utf8_lossy(&out.stderr),
        proc.lines()
    );
    let v: serde_json::Value = serde_json::from_str(stdout.trim()).expect("peer JSON");
    assert_eq!(v["before"], serde_json::json!(["hello", 10.0]), "{v}");
    assert_eq!(v["set"][0], serde_json::json!([true, ""]), "{v}");
    assert_eq!(v["set"][1][0], serde_json::json!(false), "{v}");
    assert!(v["set"][1][1].as_str().unwrap().contains("range"), "{v}");
    assert_eq!(v["after"], serde_json::json!(["from_cyclone", 10.0]), "{v}");
    // the one_of parameter: its choices in describe_parameters, an outside value refused
    assert_eq!(
        v["style_constraints"],
        serde_json::json!(["one of: counted, plain"]),
        "{v}"
    );
    assert_eq!(
        v["style_set"],
        serde_json::json!([[false, "style: \"loud\" is not one of counted, plain"]]),
        "{v}"
    );
    assert_eq!(v["style_after"], serde_json::json!(["counted"]), "{v}");
    assert!(
        v["heard"]
            .as_str()
            .is_some_and(|s| s.starts_with("from_cyclone ")),
        "{v}"
    );
}
