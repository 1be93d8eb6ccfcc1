//! Managed (lifecycle) nodes against independent peers: a Cyclone DDS peer (Python
//! `cyclonedds`, rmw_cyclonedds' request framing) drives `examples/managed_talker` through
//! `~/get_state`, `~/change_state`, `~/get_available_states`,
//! `~/get_available_transitions` and reads `~/transition_event`; our own client helpers
//! (`lifecycle::wait_for_state`, `change_state`, `get_state`) see an autostarted node reach
//! ACTIVE, a failing configure refused, and a plain node without lifecycle services.

mod common;

use std::path::PathBuf;
use std::process::Command;
use std::time::Duration;

use common::{require_netns, Proc};
use fieldproof_runtime::lifecycle::{
    self, PRIMARY_STATE_ACTIVE, PRIMARY_STATE_INACTIVE, PRIMARY_STATE_UNCONFIGURED,
    TRANSITION_ACTIVATE, TRANSITION_CONFIGURE, TRANSITION_DEACTIVATE,
};
use fieldproof_runtime::NodeBuilder;

#[test]
fn cyclone_peer_drives_the_lifecycle() {
    fieldproof_testkit::contain_or_return!();
    require_netns();
    let proc = Proc::start(
        "managed_talker",
        96,
        &["--ros-args", "-r", "__node:=lc", "-r", "__ns:=/cy"],
    );
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/lifecycle_peer.py");
    let out = Command::new(fieldproof_testkit::python())
        .arg(&script)
        .arg("/cy/lc")
        .env("ROS_DOMAIN_ID", "96")
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
    use serde_json::json;
    assert_eq!(v["initial"], json!([1, "unconfigured"]), "{v}");
    assert_eq!(
        v["available_unconfigured"],
        json!([
            [1, "configure", "configuring"],
            [5, "shutdown", "shuttingdown"]
        ]),
        "{v}"
    );
    assert_eq!(v["states"].as_array().unwrap().len(), 11, "{v}");
    assert_eq!(v["states"][3], json!([3, "active"]), "{v}");
    assert_eq!(v["activate_unconfigured"], json!(false), "{v}");
    assert_eq!(v["configure"], json!(true), "{v}");
    assert_eq!(v["after_configure"], json!([2, "inactive"]), "{v}");
    assert_eq!(
        v["available_inactive"],
        json!([
            [2, "cleanup", "cleaningup"],
            [3, "activate", "activating"],
            [6, "shutdown", "shuttingdown"]
        ]),
        "{v}"
    );
    assert_eq!(v["activate"], json!(true), "{v}");
    assert_eq!(v["after_activate"], json!([3, "active"]), "{v}");
    assert_eq!(
        v["available_active"],
        json!([
            [4, "deactivate", "deactivating"],
            [7, "shutdown", "shuttingdown"]
        ]),
        "{v}"
    );
    // configure and activate, each into its transition state and out of it.
    assert_eq!(
        v["events"],
        json!([
            [1, "unconfigured", "configuring", true],
            [10, "configuring", "inactive", true],
            [3, "inactive", "activating", true],
            [30, "activating", "active", true]
        ]),
        "{v}"
    );
    assert_eq!(proc.count("change_state refused"), 1, "{:#?}", proc.lines());
}

#[test]
fn our_client_sees_autostart_reach_active_and_drives_transitions() {
    fieldproof_testkit::contain_or_return!();
    require_netns();
    let auto = Proc::start(
        "managed_talker",
        97,
        &["--ros-args", "-r", "__node:=auto", "-p", "autostart:=true"],
    );
    let failing = Proc::start(
        "managed_talker",
        97,
        &[
            "--ros-args",
            "-r",
            "__node:=failing",
            "-p",
            "fail_configure:=true",
        ],
    );
    let plain = Proc::start("talker", 97, &["--ros-args", "-r", "__node:=plain"]);
    let cfg = NodeBuilder::new("lc_client")
        .resolve(["--ros-args", "-r", "__node:=lc_client"], |k| {
            (k == "ROS_DOMAIN_ID").then(|| "97".to_string())
        })
        .expect("client config");
    let wait = Duration::from_secs(20);
    fieldproof_runtime::run(cfg, |node| async move {
        lifecycle::wait_for_state(&node, "/auto", PRIMARY_STATE_ACTIVE, wait).await?;
        assert!(lifecycle::change_state(&node, "/auto", TRANSITION_DEACTIVATE, wait).await?);
        let s = lifecycle::get_state(&node, "/auto", wait).await?;
        assert_eq!(
            (s.id, s.label.as_str()),
            (PRIMARY_STATE_INACTIVE, "inactive")
        );
        // Not valid from inactive: refused, state unchanged.
        assert!(!lifecycle::change_state(&node, "/auto", TRANSITION_DEACTIVATE, wait).await?);
        assert!(lifecycle::change_state(&node, "/auto", TRANSITION_ACTIVATE, wait).await?);
        lifecycle::wait_for_state(&node, "/auto", PRIMARY_STATE_ACTIVE, wait).await?;

        // on_configure fails: the answer is false and the node stays unconfigured.
        assert!(!lifecycle::change_state(&node, "/failing", TRANSITION_CONFIGURE, wait).await?);
        let s = lifecycle::get_state(&node, "/failing", wait).await?;
        assert_eq!(s.id, PRIMARY_STATE_UNCONFIGURED);
        let err = lifecycle::wait_for_state(
            &node,
            "/failing",
            PRIMARY_STATE_ACTIVE,
            Duration::from_secs(2),
        )
        .await
        .unwrap_err()
        .to_string();
        assert!(err.contains("last seen: unconfigured (1)"), "{err}");

        // A plain node stays plain: it serves no lifecycle services.
        node.wait_for_node("/plain").await;
        let err = lifecycle::get_state(&node, "/plain", Duration::from_secs(3))
            .await
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("/plain/get_state") && err.contains("no answer"),
            "{err}"
        );
        Ok(())
    })
    .unwrap_or_else(|e| {
        panic!(
            "{e}\nauto: {:#?}\nfailing: {:#?}\nplain: {:#?}",
            auto.lines(),
            failing.lines(),
            plain.lines()
        )
    });
    assert!(
        auto.count("active -> deactivating") == 1,
        "{:#?}",
        auto.lines()
    );
}
