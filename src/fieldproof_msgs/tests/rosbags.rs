//! Byte-exactness with ROS 2 Jazzy, checked against the `rosbags` Jazzy typestore both ways:
//! seeded random samples of every type are encoded here, decoded by rosbags and compared field
//! by field (tests/rosbags_check.py); rosbags encodes the same values, and those bytes are
//! decoded here, compared with the values, re-encoded, and compared with our own encoding.
//!
//! Python: `$FIELDPROOF_PYTHON`, else `<workspace>/.venv/bin/python`, else `python3`; it must
//! have `rosbags` (test/requirements.txt). A missing interpreter or rosbags fails the test.

mod support;

use std::{path::PathBuf, process::Command};

use fieldproof_msgs::MessageKind;
use support::{all_samples, hex, unhex, SAMPLES_PER_TYPE};

const SEED: u64 = 0x00f1_e1d9_2026;

fn workspace_root() -> PathBuf {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..");
    root.canonicalize().unwrap_or(root)
}

fn python() -> PathBuf {
    if let Some(p) = std::env::var_os("FIELDPROOF_PYTHON") {
        return PathBuf::from(p);
    }
    let venv = workspace_root().join(".venv/bin/python");
    if venv.exists() {
        venv
    } else {
        PathBuf::from("python3")
    }
}

#[test]
fn every_type_is_byte_exact_with_rosbags_both_ways() {
    let samples = all_samples(SEED);
    assert_eq!(samples.len(), MessageKind::ALL.len() * SAMPLES_PER_TYPE);

    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"));
    let vectors = dir.join("fieldproof_msgs_rosbags_vectors.json");
    let out = dir.join("fieldproof_msgs_rosbags_results.json");
    let _ = std::fs::remove_file(&out);
    let entries: Vec<String> = samples
        .iter()
        .map(|s| {
            format!(
                "{{\"type\":{},\"cdr\":\"{}\",\"value\":{}}}",
                serde_json::to_string(s.kind.name()).unwrap(),
                hex(&s.cdr),
                s.json
            )
        })
        .collect();
    std::fs::write(
        &vectors,
        format!("{{\"samples\":[\n{}\n]}}\n", entries.join(",\n")),
    )
    .unwrap();

    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/rosbags_check.py");
    let py = python();
    let run = Command::new(&py)
        .arg(&script)
        .arg(&vectors)
        .arg(&out)
        .output()
        .unwrap_or_else(|e| {
            panic!(
                "cannot run the Python interpreter {} ({e}); set FIELDPROOF_PYTHON or create \
             <workspace>/.venv with `pip install -r test/requirements.txt`",
                py.display()
            )
        });
    let stdout = String::from_utf8_lossy(&run.stdout);
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(
        run.status.success(),
        "{} {} failed ({}):\n{stdout}\n{stderr}",
        py.display(),
        script.display(),
        run.status
    );
    print!("{stdout}");

    // rosbags -> Rust.
    let results: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&out).expect("rosbags_check.py wrote no results"))
            .unwrap();
    let results = results["results"].as_array().expect("results array");
    assert_eq!(results.len(), samples.len());
    let mut failures = Vec::new();
    for (i, (sample, result)) in samples.iter().zip(results).enumerate() {
        assert_eq!(result["type"], sample.kind.name());
        let theirs = unhex(result["cdr"].as_str().unwrap()).unwrap();
        let label = format!("sample {i} {}", sample.kind);
        if theirs != sample.cdr {
            failures.push(format!(
                "{label}: rosbags {}\n  ours    {}",
                hex(&theirs),
                hex(&sample.cdr)
            ));
        }
        if let Err(e) = (sample.check)(&theirs) {
            failures.push(format!("{label}: rosbags bytes: {e}"));
        }
    }
    assert!(
        failures.is_empty(),
        "{} mismatches:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn samples_cover_empty_and_non_empty_sequences_and_odd_strings() {
    let samples = all_samples(SEED);
    let image_lens: Vec<usize> = samples
        .iter()
        .filter(|s| s.kind == MessageKind::Image)
        .map(|s| {
            let v: serde_json::Value = serde_json::from_str(&s.json).unwrap();
            v["data"].as_array().unwrap().len()
        })
        .collect();
    assert!(
        image_lens.contains(&0) && image_lens.iter().any(|&n| n > 0),
        "{image_lens:?}"
    );
    let odd_frame = samples.iter().any(|s| {
        let v: serde_json::Value = serde_json::from_str(&s.json).unwrap();
        v.get("header")
            .is_some_and(|h| h["frame_id"].as_str().unwrap().len() % 2 == 1)
    });
    assert!(odd_frame, "no odd-length frame_id among the samples");
    // Deterministic: the same seed gives the same bytes.
    let again = all_samples(SEED);
    assert!(samples
        .iter()
        .zip(&again)
        .all(|(a, b)| a.cdr == b.cdr && a.json == b.json));
}
