//! `convoy_analyze` end to end on the committed fixtures, whose answers are worked out by hand in
//! their header comments (tests/fixtures/*.csv).

use serde_json::Value;
use std::path::PathBuf;
use std::process::{Command, Output};

fn fixture(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name)
}

fn analyze(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_convoy_analyze"))
        .args(args)
        .output()
        .expect("convoy_analyze runs")
}

fn analyze_json(args: &[&str]) -> Value {
    let output = analyze(args);
    assert!(
        output.status.success(),
        "convoy_analyze {args:?}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_slice(&output.stdout).expect("JSON on stdout")
}

fn number(value: &Value, pointer: &str) -> f64 {
    value
        .pointer(pointer)
        .and_then(Value::as_f64)
        .unwrap_or_else(|| panic!("{pointer}: not a number in {value}"))
}

fn assert_near(value: &Value, pointer: &str, expected: f64) {
    let actual = number(value, pointer);
    assert!(
        (actual - expected).abs() < 1e-9,
        "{pointer}: {actual}, expected {expected}"
    );
}

fn assert_null(value: &Value, pointer: &str) {
    assert_eq!(
        value.pointer(pointer),
        Some(&Value::Null),
        "{pointer} in {value}"
    );
}

#[test]
fn blackout_once_matches_the_hand_worked_answers() {
    let path = fixture("blackout_once.csv");
    let json = analyze_json(&[path.to_str().unwrap()]);
    assert_eq!(json["rows"], 20);
    assert_near(&json, "/duration_s", 9.5);
    assert_near(&json, "/time_in_state_s/SAFE_STOP", 2.0);
    assert_near(&json, "/time_in_state_s/REJOIN", 2.0);
    assert_near(&json, "/time_in_state_s/FOLLOW", 2.5);
    assert_near(&json, "/time_in_state_s/HOLD", 3.0);
    assert_near(&json, "/initial_safe_stop_s", 0.5);
    assert_eq!(json["blackouts"].as_array().map(Vec::len), Some(1));
    assert_near(&json, "/blackouts/0/hold_start_t", 2.5);
    assert_near(&json, "/blackouts/0/stop_start_t", 5.5);
    assert_near(&json, "/blackouts/0/restored_t", 7.0);
    assert_near(&json, "/blackouts/0/first_packet_t", 6.7);
    assert_near(&json, "/blackouts/0/stopped_s", 1.5);
    assert_near(&json, "/blackouts/0/recovered_t", 8.5);
    assert_near(&json, "/blackouts/0/recovery_s", 1.5);
    assert_near(&json, "/worst_recovery_s", 1.5);
    assert_eq!(json["unrecovered_blackouts"], 0);
    assert_near(&json, "/worst_gap_err_m/value", 3.6);
    assert_near(&json, "/worst_gap_err_m/t", 7.0);
    assert_near(&json, "/worst_follow_gap_err_m/value", 0.25);
    assert_near(&json, "/worst_follow_gap_err_m/t", 8.5);
    assert_near(&json, "/min_lead_dist_m/value", 1.5);
    assert_near(&json, "/min_lead_dist_m/t", 2.0);
    assert_near(&json, "/max_pkt_age_s/value", 5.1);
    assert_near(&json, "/max_pkt_age_s/t", 6.5);
    assert_eq!(json["seq_gaps"], 28);
}

#[test]
fn a_tighter_tolerance_moves_the_recovery_to_the_next_cycle_inside_it() {
    let path = fixture("blackout_once.csv");
    let json = analyze_json(&[path.to_str().unwrap(), "--tolerance-m", "0.2"]);
    assert_near(&json, "/tolerance_m", 0.2);
    assert_near(&json, "/blackouts/0/recovered_t", 9.0);
    assert_near(&json, "/blackouts/0/recovery_s", 2.0);
}

#[test]
fn three_blackouts_match_the_hand_worked_answers() {
    let path = fixture("three_blackouts.csv");
    let json = analyze_json(&[path.to_str().unwrap()]);
    assert_eq!(json["rows"], 20);
    assert_near(&json, "/duration_s", 19.0);
    for (state, seconds) in [
        ("FOLLOW", 3.0),
        ("HOLD", 9.0),
        ("SAFE_STOP", 4.0),
        ("REJOIN", 3.0),
    ] {
        assert_near(&json, &format!("/time_in_state_s/{state}"), seconds);
    }
    assert_near(&json, "/initial_safe_stop_s", 0.0);
    assert_eq!(json["blackouts"].as_array().map(Vec::len), Some(3));
    // 1: recovered 2 s after the restore.
    assert_near(&json, "/blackouts/0/hold_start_t", 1.0);
    assert_near(&json, "/blackouts/0/stop_start_t", 4.0);
    assert_near(&json, "/blackouts/0/restored_t", 6.0);
    assert_near(&json, "/blackouts/0/first_packet_t", 5.6);
    assert_near(&json, "/blackouts/0/recovery_s", 2.0);
    // 2: restored, lost again before the gap closed.
    assert_near(&json, "/blackouts/1/restored_t", 14.0);
    assert_near(&json, "/blackouts/1/first_packet_t", 13.4);
    assert_null(&json, "/blackouts/1/recovered_t");
    assert_null(&json, "/blackouts/1/recovery_s");
    // 3: the log ends stopped.
    assert_near(&json, "/blackouts/2/hold_start_t", 15.0);
    assert_near(&json, "/blackouts/2/stop_start_t", 18.0);
    assert_null(&json, "/blackouts/2/restored_t");
    assert_null(&json, "/blackouts/2/stopped_s");
    assert_near(&json, "/worst_recovery_s", 2.0);
    assert_eq!(json["unrecovered_blackouts"], 2);
    assert_near(&json, "/worst_gap_err_m/value", 1.2);
    assert_near(&json, "/worst_follow_gap_err_m/value", -0.29);
    assert_null(&json, "/min_lead_dist_m");
    assert_near(&json, "/max_pkt_age_s/value", 5.6);
    assert_eq!(json["seq_gaps"], 40);
}

#[test]
fn out_writes_the_same_json_to_a_file() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("analysis.json");
    let path = fixture("blackout_once.csv");
    let output = analyze(&[path.to_str().unwrap(), "--out", out.to_str().unwrap()]);
    assert!(output.status.success());
    assert!(output.stdout.is_empty());
    let written: Value = serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    assert_eq!(written, analyze_json(&[path.to_str().unwrap()]));
}

fn assert_bad_input(args: &[&str], message: &str) {
    let output = analyze(args);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{args:?}: {stderr}");
    assert!(
        stderr.contains(message),
        "{args:?}: stderr {stderr:?} lacks {message:?}"
    );
    assert!(output.stdout.is_empty());
}

#[test]
fn bad_input_exits_2_naming_the_file_line_column_and_value() {
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.csv");
    std::fs::write(
        &bad,
        "# a comment line\nt,seq_gaps,rssi_dbm,pkt_age_s,gap_err_m,state\n0,0,,,,FOLLOW\n1,0,,,,LOST\n",
    )
    .unwrap();
    let bad = bad.to_str().unwrap();
    assert_bad_input(&[bad], &format!("{bad}: line 4: column state: \"LOST\""));
    let backwards = dir.path().join("backwards.csv");
    std::fs::write(
        &backwards,
        "t,seq_gaps,rssi_dbm,pkt_age_s,gap_err_m,state\n2,0,,,,FOLLOW\n1,0,,,,FOLLOW\n",
    )
    .unwrap();
    assert_bad_input(
        &[backwards.to_str().unwrap()],
        "row 2: t 1 is before the previous row's 2",
    );
    let empty = dir.path().join("empty.csv");
    std::fs::write(&empty, "t,seq_gaps,rssi_dbm,pkt_age_s,gap_err_m,state\n").unwrap();
    assert_bad_input(&[empty.to_str().unwrap()], "no rows to analyse");
    let missing = dir.path().join("missing.csv");
    assert_bad_input(&[missing.to_str().unwrap()], "missing.csv");
    let fixture = fixture("blackout_once.csv");
    assert_bad_input(
        &[fixture.to_str().unwrap(), "--tolerance-m=-1"],
        "--tolerance-m: -1 must be",
    );
}
