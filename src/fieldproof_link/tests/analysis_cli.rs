//! `link_analysis` as a command: exit codes and messages (no privileges needed).

use std::process::Command;

fn write(dir: &std::path::Path, name: &str, text: &str) -> std::path::PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p
}

fn window(t: f64, sent: u64, replies: u64, rtt: f64) -> String {
    let n = replies as f64;
    format!(
        "{{\"t\":{t},\"link\":\"ugv1\",\"sent\":{sent},\"replies\":{replies},\"sum_ms\":{},\"sumsq_ms2\":{},\"min_ms\":{},\"max_ms\":{}}}\n",
        rtt * n,
        rtt * rtt * n,
        if replies > 0 { rtt.to_string() } else { "null".into() },
        if replies > 0 { rtt.to_string() } else { "null".into() }
    )
}

fn analyse(args: &[&std::ffi::OsStr]) -> (Option<i32>, serde_json::Value, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_link_analysis"))
        .args(args)
        .output()
        .unwrap();
    let v = serde_json::from_slice(&out.stdout).unwrap_or(serde_json::Value::Null);
    (
        out.status.code(),
        v,
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn verdicts_exit_codes_and_bad_input() {
    let dir = tempfile_dir();
    // 10 s of lte_rural at 120 ms round trips, a drop from 10 s to 20 s, restored.
    let mut jsonl = String::new();
    for t in 0..10 {
        jsonl += &window(1000.0 + t as f64, 10, 10, 120.0);
    }
    for t in 10..20 {
        jsonl += &window(1000.0 + t as f64, 10, 0, 0.0);
    }
    for t in 20..25 {
        jsonl += &window(1000.0 + t as f64, 10, 10, 240.0);
    }
    let net = write(&dir, "network.jsonl", &jsonl);
    let scenario = write(
        &dir,
        "s.yaml",
        "network: { profile: lte_rural, verify: fail }\ntimeline:\n  - { at: 10s, vehicle: ugv1, action: link.drop, duration_s: 10s }\n",
    );
    let args = |extra: &[&str]| -> Vec<std::ffi::OsString> {
        let mut a = vec![
            net.clone().into_os_string(),
            "--timeline".into(),
            scenario.clone().into_os_string(),
            "--start".into(),
            "1000".into(),
        ];
        a.extend(extra.iter().map(|s| s.into()));
        a
    };
    let run = |extra: &[&str]| {
        let a = args(extra);
        analyse(&a.iter().map(|s| s.as_os_str()).collect::<Vec<_>>())
    };
    // The restored period (240 ms round trips: 120 ms one way) fails: verify fail exits 1
    // and names the link.
    let (code, report, stderr) = run(&[]);
    assert_eq!(code, Some(1), "{stderr}");
    let verdicts: Vec<&str> = report["links"]["ugv1"]["periods"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["verdict"].as_str().unwrap())
        .collect();
    assert_eq!(verdicts, vec!["passed", "passed", "failed"]);
    assert!(
        stderr.contains("link ugv1 does not match profile lte_rural: latency 120.00 ms"),
        "{stderr}"
    );
    // warn: a link.failed warning, exit 0; off: silent.
    let (code, _, stderr) = run(&["--verify", "warn"]);
    assert_eq!(code, Some(0));
    assert!(stderr.starts_with("link.failed: link ugv1"), "{stderr}");
    let (code, _, stderr) = run(&["--verify", "off"]);
    assert_eq!((code, stderr.as_str()), (Some(0), ""));
    // Bad input exits 2 naming the culprit.
    let bad = write(&dir, "bad.yaml", "network: { profile: nope }\n");
    let (code, _, stderr) = analyse(&[net.as_os_str(), "--timeline".as_ref(), bad.as_os_str()]);
    assert_eq!(code, Some(2));
    assert!(
        stderr.contains("network.profile: unknown profile 'nope'"),
        "{stderr}"
    );
    let broken = write(&dir, "broken.jsonl", "{\"t\": 1}\n");
    let (code, _, stderr) = analyse(&[
        broken.as_os_str(),
        "--timeline".as_ref(),
        scenario.as_os_str(),
    ]);
    assert_eq!(code, Some(2));
    assert!(stderr.contains("broken.jsonl:1:"), "{stderr}");
    let _ = std::fs::remove_dir_all(&dir);
}

fn tempfile_dir() -> std::path::PathBuf {
    let d = std::env::temp_dir().join(format!("fp-link-analysis-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}
