//! End-to-end runs: the real simulator, bridge adapters, failsafe, stack and (with a
//! network) link shaper and ground station, started by the runner.
//!
//! They need the suite's binaries beside the test binary and a private network namespace:
//! ```text
//! CARGO_TARGET_DIR=... cargo build -p fieldproof_sim -p fieldproof_bridge -p fieldproof_link -p fieldproof_stack
//! scripts/netns-run cargo test -p fieldproof_scenario --test run_e2e -- --ignored --test-threads 1
//! ```

use fieldproof_scenario::{model, run};
use std::path::Path;

fn repo() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn in_private_netns() {
    assert_eq!(
        std::env::var("FIELDPROOF_IN_NETNS").as_deref(),
        Ok("1"),
        "run under scripts/netns-run (every DDS participant stays in a private namespace)"
    );
}

fn run_scenario(name: &str) -> (run::RunSummary, serde_json::Value) {
    in_private_netns();
    let s = model::load(&repo().join("config/scenarios").join(name)).unwrap();
    let out = tempfile::tempdir().unwrap().keep().join("run");
    let summary = run::run(
        &s,
        &run::RunOptions {
            out: Some(out.clone()),
            ..Default::default()
        },
    );
    let record: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("run.json")).unwrap()).unwrap();
    (summary, record)
}

#[test]
#[ignore = "needs the suite's binaries and scripts/netns-run"]
fn lidar_dropout_runs_end_to_end() {
    let (summary, record) = run_scenario("ugv_lidar_dropout.yaml");
    let dir = summary.dir.clone().unwrap();
    assert_eq!(summary.exit_code, 0, "{:?}\n{record:#}", summary.reasons);
    let names: Vec<&str> = record["assertions"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|a| a["passed"] == true)
        .map(|a| a["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["silent", "back", "before"]);
    let entry = &record["timeline"][0];
    assert_eq!(entry["name"], "lidar_out");
    assert!(entry["firings"][0]["outcome"]
        .as_str()
        .unwrap()
        .contains("dropout=true"));
    for f in [
        "recording.mcap",
        "metadata.yaml",
        "report.md",
        "report.html",
    ] {
        assert!(dir.join(f).is_file(), "{f}");
    }
}

#[test]
#[ignore = "needs the suite's binaries, root (network namespaces) and scripts/netns-run; ~2 min"]
fn ugv_link_loss_runs_end_to_end() {
    let (summary, record) = run_scenario("ugv_link_loss.yaml");
    assert_eq!(summary.exit_code, 0, "{:?}\n{record:#}", summary.reasons);
    assert_eq!(record["assertions"].as_array().unwrap().len(), 7);
    // Every measurement window of network.jsonl is in the MCAP.
    let dir = summary.dir.clone().unwrap();
    let windows = std::fs::read_to_string(dir.join("network.jsonl"))
        .unwrap()
        .lines()
        .count();
    assert!(windows > 50, "{windows} windows");
    assert_eq!(
        record["recording"]["topics"]["/fieldproof/network"][1],
        windows
    );
    let periods = &record["network"]["periods"]["links"]["ugv1"]["periods"];
    let profiles: Vec<&str> = periods
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["profile"].as_str().unwrap())
        .collect();
    assert_eq!(profiles, ["lte_rural", "drop", "lte_rural"]);
    assert!(fieldproof_link::netns::namespaces_of(record["run_id"].as_str().unwrap()).is_empty());
}

#[test]
#[ignore = "needs the suite's binaries and scripts/netns-run"]
fn a_stack_that_dies_during_the_bring_up_is_named() {
    in_private_netns();
    let dir = repo().join("config/scenarios");
    let f = tempfile::Builder::new()
        .prefix(".e2e_")
        .suffix(".yaml")
        .tempfile_in(&dir)
        .unwrap();
    std::fs::write(
        f.path(),
        "name: dies\nworld: ../../worlds/depot.yaml\nduration_s: 5s\nvehicles:\n  - { name: ugv1, manifest: ../../robots/ugv_ref/robot.yaml, spawn: spawn_dock, stack: { command: [/bin/false] } }\n",
    )
    .unwrap();
    let s = model::load(f.path()).unwrap();
    let out = tempfile::tempdir().unwrap();
    let summary = run::run(
        &s,
        &run::RunOptions {
            out: Some(out.path().join("run")),
            ..Default::default()
        },
    );
    assert_eq!(summary.exit_code, 2, "{:?}", summary.reasons);
    assert!(
        summary.reasons[0].starts_with("ugv1/stack exited during the bring-up"),
        "{:?}",
        summary.reasons
    );
    let record: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.path().join("run/run.json")).unwrap())
            .unwrap();
    assert_eq!(record["result"]["status"], "error");
    let stack = record["processes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["name"] == "ugv1/stack")
        .unwrap();
    assert_eq!(stack["exit_code"], 1);
}
