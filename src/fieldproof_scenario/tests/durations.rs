//! One duration grammar: `fieldproof validate` (the scenario model) and `link_analysis`
//! (the link tools' reading of the same file) accept and refuse the same durations, and read
//! the same seconds from them.

use fieldproof_link::analysis::timeline_changes;
use fieldproof_link::profile::{presets, Network};
use fieldproof_link::scenario_file;
use fieldproof_scenario::model::{self, Trigger};
use std::path::Path;

/// Every form of the grammar, and forms it refuses.
const FORMS: &[&str] = &[
    "5s", "1.5s", "250ms", "2m", "2min", "1.5", "3", "0", "1e-3s", ".5s", " 30 s ", "604800s",
    "10080min", "+3s", "+3", "-1s", "-1", "1h", "7d", "s", "inf", "NaN", ".inf", "604801s",
    "1e300s", "10081min", "five", "1.5.2s", "3 h",
];

/// What `fieldproof validate` reads: the entry's start (`at`) and end (`at + duration_s`), or
/// `None` if refused.
fn validate_reading(file: &Path) -> Option<(f64, Option<f64>)> {
    let s = model::load(file).ok()?;
    let e = &s.timeline[0];
    match e.trigger {
        Trigger::At(at) => Some((at, e.duration_s.map(|d| at + d))),
        ref other => panic!("{other:?}"),
    }
}

/// What `link_analysis` reads of the same file (its `--timeline`): the drop and the restore,
/// or `None` if refused.
fn link_analysis_reading(file: &Path) -> Option<(f64, Option<f64>)> {
    let links = scenario_file::read(file).unwrap();
    let net = Network::new(links.network, &presets(), "network").unwrap();
    let changes = timeline_changes(&net, links.timeline.as_ref().unwrap()).ok()?;
    let at = changes[0].applying_s;
    Some((at, changes.get(1).map(|restored| restored.applying_s)))
}

#[test]
fn validate_and_link_analysis_agree_on_every_duration_form() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../config/scenarios");
    let mut accepted = 0;
    for form in FORMS {
        for written in [form.to_string(), format!("\"{form}\"")] {
            // The same value as the entry's trigger, and as its duration.
            for (at, duration) in [(written.as_str(), "1s"), ("1s", written.as_str())] {
                let f = tempfile::Builder::new()
                    .prefix(".test_durations_")
                    .suffix(".yaml")
                    .tempfile_in(&dir)
                    .unwrap();
                std::fs::write(
                    f.path(),
                    format!("name: t\nworld: ../../worlds/depot.yaml\nvehicles:\n  - {{ name: ugv1, manifest: ../../robots/ugv_nav2/robot.yaml, spawn: spawn_dock }}\nnetwork: {{ profile: lte_rural }}\ntimeline:\n  - {{ at: {at}, vehicle: ugv1, action: link.drop, duration_s: {duration} }}\n"),
                )
                .unwrap();
                let validated = validate_reading(f.path());
                let analysed = link_analysis_reading(f.path());
                assert_eq!(validated, analysed, "at: {at}, duration_s: {duration}");
                accepted += usize::from(validated.is_some());
            }
        }
    }
    // Both sides accept something (the grammar's forms), not only refuse.
    assert!(accepted >= 40, "{accepted}");
}
