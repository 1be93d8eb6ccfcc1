//! Property tests over arbitrary input: the scenario parser and validator, the duration
//! parser and the YAML guard never panic, and the guard never measures less nesting than
//! the parsed document has.

use fieldproof_robots::yaml_guard;
use fieldproof_scenario::{duration, model};
use proptest::prelude::*;
use serde_yaml::Value;
use std::path::PathBuf;

/// A scenario file's path beside the shipped ones (relative paths resolve from there).
fn scenario_path() -> PathBuf {
    fieldproof_testkit::repo_root().join("config/scenarios/fuzz_case.yaml")
}

/// What `fieldproof validate` does with the text of a file (`model::load` after reading).
fn parse_and_validate(text: &str) -> Result<model::Scenario, model::ScenarioError> {
    let file = scenario_path();
    model::validate(&file, model::parse_raw(&file, text)?)
}

/// A scalar as a careless or hostile user writes one.
fn scalar() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("0".to_string()),
        Just("-1".to_string()),
        Just("1e-12s".to_string()),
        Just("1e300s".to_string()),
        Just(".inf".to_string()),
        Just(".nan".to_string()),
        Just("4294967296".to_string()),
        Just("~".to_string()),
        Just("[]".to_string()),
        Just("{}".to_string()),
        (0.0f64..1e6).prop_map(|x| format!("{x}s")),
        any::<i64>().prop_map(|x| x.to_string()),
        any::<f64>().prop_map(|x| format!("{x:e}")),
        "[a-z0-9_./]{0,12}",
    ]
}

/// A valid scenario with some of its values replaced (each one in five).
fn mutated_scenario() -> impl Strategy<Value = String> {
    const VALID: [&str; 12] = [
        "30s", "1", "1s", "0", "20s", "3", "0.5s", "1s", "0.5", "1", "5s", "10s",
    ];
    prop::collection::vec(prop::option::weighted(0.2, scalar()), 12).prop_map(|picked| {
        let v: Vec<String> = picked
            .into_iter()
            .zip(VALID)
            .map(|(p, valid)| p.unwrap_or_else(|| valid.to_string()))
            .collect();
        format!(
            "name: t\nworld: ../../worlds/depot.yaml\nduration_s: {}\nreal_time_factor: {}\nvehicles:\n  - {{ name: ugv1, manifest: ../../robots/ugv_nav2/robot.yaml, spawn: spawn_dock }}\nnetwork: {{ profile: lte_rural }}\ntimeline:\n  - {{ every: {}, start_s: {}, until_s: {}, count: {}, action: link.drop, duration_s: {} }}\n  - {{ at: {}, action: actuator.limit, max_linear_mps: {} }}\nassertions:\n  - {{ type: topic_value, topic: /ugv1/odom, field: x, value: {}, within_s: {} }}\ntimeouts: {{ ready_s: {} }}\n",
            v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7], v[8], v[9], v[10], v[11]
        )
    })
}

/// The nesting depth of a parsed document: a scalar 0, a collection one more than its
/// deepest child.
fn value_depth(v: &Value) -> usize {
    match v {
        Value::Sequence(s) => 1 + s.iter().map(value_depth).max().unwrap_or(0),
        Value::Mapping(m) => {
            1 + m
                .iter()
                .map(|(k, v)| value_depth(k).max(value_depth(v)))
                .max()
                .unwrap_or(0)
        }
        Value::Tagged(t) => value_depth(&t.value),
        _ => 0,
    }
}

/// Text built from YAML's structural characters, so most cases exercise the guard's
/// quoting, flow, block and comment rules (no anchors: an alias repeats a subtree).
fn yamlish() -> impl Strategy<Value = String> {
    let pieces = prop::sample::select(vec![
        "[", "]", "{", "}", ",", ":", ": ", " ", "  ", "\n", "- ", "-", "? ", "#", " #", "'", "\"",
        "\\", "|", ">", "|-", "|2", "!t ", "!!str ", "a", "b", "a'b", " 'x", "''", "\\\"", "\t",
        "\r\n", "\u{2028}", "x: ", "---\n", "\n  ", "\n- ", "\n  - ", "- [", "{a: ", "? [", "]: ",
        "', ", ", ",
    ]);
    prop::collection::vec(pieces, 0..60).prop_map(|v| v.concat())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn arbitrary_bytes_are_refused_or_validated_without_panic(
        bytes in prop::collection::vec(any::<u8>(), 0..512)
    ) {
        let text = String::from_utf8_lossy(&bytes);
        let _ = parse_and_validate(&text);
    }

    #[test]
    fn yaml_like_text_is_refused_or_validated_without_panic(text in yamlish()) {
        let _ = parse_and_validate(&format!("name: t\n{text}"));
    }

    #[test]
    fn a_scenario_with_bad_values_is_refused_naming_a_field(text in mutated_scenario()) {
        if let Err(e) = parse_and_validate(&text) {
            prop_assert!(!e.path().is_empty(), "no field named: {e}");
        }
    }

    #[test]
    fn the_duration_parser_accepts_only_bounded_durations(text in "\\PC{0,16}") {
        if let Some(secs) = duration::parse(&text) {
            prop_assert!(secs.is_finite() && (0.0..=duration::MAX_DURATION_S).contains(&secs), "{text:?}: {secs}");
        }
    }

    #[test]
    fn the_duration_parser_reads_every_unit(value in 0.0f64..1e6, unit in prop::sample::select(vec![("ms", 0.001), ("s", 1.0), ("", 1.0), ("m", 60.0), ("min", 60.0)])) {
        let secs = value * unit.1;
        let parsed = duration::parse(&format!("{value}{}", unit.0));
        if secs <= duration::MAX_DURATION_S {
            prop_assert_eq!(parsed, Some(secs));
        } else {
            prop_assert_eq!(parsed, None);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 3000, ..ProptestConfig::default() })]

    #[test]
    fn the_guard_never_measures_less_than_the_parser_nests(text in yamlish()) {
        let measured = yaml_guard::nesting_depth(&text);
        if let Ok(v) = serde_yaml::from_str::<Value>(&text) {
            prop_assert!(measured >= value_depth(&v), "{text:?}: {measured} < {}", value_depth(&v));
        }
    }
}
