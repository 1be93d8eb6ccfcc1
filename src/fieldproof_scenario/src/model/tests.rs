//! One test per action and per assertion type: a minimal valid entry gives the expected
//! validated value; a field of another kind is refused naming its path.

use super::*;

fn scenarios_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../config/scenarios")
}

const BASE: &str = "name: t\nworld: ../../worlds/depot.yaml\nvehicles:\n  - { name: ugv1, manifest: ../../robots/ugv_nav2/robot.yaml, spawn: spawn_dock }\nnetwork: { profile: lte_rural }\n";

fn load_text(extra: &str) -> Result<Scenario, ScenarioError> {
    let f = tempfile::Builder::new()
        .prefix(".test_model_")
        .suffix(".yaml")
        .tempfile_in(scenarios_dir())
        .unwrap();
    std::fs::write(f.path(), format!("{BASE}{extra}")).unwrap();
    load(f.path())
}

/// The validated action of a one-entry timeline.
fn action(entry: &str) -> Entry {
    let s = load_text(&format!("timeline:\n  - {{ at: 1s, {entry} }}\n"))
        .unwrap_or_else(|e| panic!("{entry}: {e}"));
    s.timeline[0].clone()
}

/// The path of the refusal of a one-entry timeline.
fn refused(entry: &str) -> String {
    let e = load_text(&format!("timeline:\n  - {{ at: 1s, {entry} }}\n"))
        .expect_err(entry)
        .to_string();
    e.split_once(": ")
        .map(|(_, rest)| rest.to_string())
        .unwrap()
}

fn fault_of(e: &Entry) -> &ParamFault {
    match &e.action {
        Action::Fault { fault, .. } => fault,
        other => panic!("{other:?}"),
    }
}

#[test]
fn every_action_is_in_the_list_and_reads_its_own_fields() {
    assert_eq!(ACTIONS.len(), 12);
    for name in ACTIONS {
        assert!(!<RawAction as raw::Tagged>::fields_of(name).contains(&"action"));
    }
}

#[test]
fn link_set() {
    let e = action("action: link.set, profile: wifi_good");
    assert_eq!(
        e.action,
        Action::LinkSet {
            profile: "wifi_good".into()
        }
    );
    assert!(
        refused("action: link.set, profile: wifi_good, duration_s: 1s")
            .starts_with("timeline[0].duration_s: is not a field of link.set")
    );
}

#[test]
fn link_drop() {
    let e = action("action: link.drop, duration_s: 2min");
    assert_eq!((e.action, e.duration_s), (Action::LinkDrop, Some(120.0)));
    assert!(refused("action: link.drop, profile: wifi_good")
        .starts_with("timeline[0].profile: is not a field of link.drop"));
}

#[test]
fn link_restore() {
    assert_eq!(action("action: link.restore").action, Action::LinkRestore);
    assert!(refused("action: link.restore, duration_s: 1s")
        .starts_with("timeline[0].duration_s: is not a field of link.restore"));
}

#[test]
fn sensor_dropout_and_freeze() {
    let e = action("action: sensor.dropout, sensor: lidar, duration_s: 2s");
    let fault = fault_of(&e);
    assert_eq!(
        fault.set,
        [("dropout".to_string(), ParamSetting::Bool(true))]
    );
    assert_eq!(
        fault.clear,
        [("dropout".to_string(), ParamSetting::Bool(false))]
    );
    let e = action("action: sensor.freeze, sensor: lidar");
    let fault = fault_of(&e);
    assert_eq!(
        fault.set,
        [("freeze".to_string(), ParamSetting::Bool(true))]
    );
    assert!(fault.clear.is_empty());
    assert!(refused("action: sensor.freeze, sensor: lidar, to: 0.5")
        .starts_with("timeline[0].to: is not a field of sensor.freeze"));
}

#[test]
fn imu_bias() {
    let e = action("action: imu.bias, gyro_bias_radps: [0, 0, 0.1]");
    assert_eq!(
        fault_of(&e).set[0],
        (
            "gyro_bias_radps".to_string(),
            ParamSetting::Doubles(vec![0.0, 0.0, 0.1])
        )
    );
    assert!(
        refused("action: imu.bias, gyro_bias_radps: [0, 0, 1], goal: g")
            .starts_with("timeline[0].goal: is not a field of imu.bias")
    );
    assert!(refused("action: imu.bias, gyro_bias_radps: [0, 0]")
        .starts_with("timeline[0].gyro_bias_radps: invalid length 2"));
}

#[test]
fn gps_deny() {
    let e = action("action: gps.deny");
    assert_eq!(
        fault_of(&e).set,
        [("deny".to_string(), ParamSetting::Bool(true))]
    );
    assert!(refused("action: gps.deny, offset_enu_m: [1, 2, 3]")
        .starts_with("timeline[0].offset_enu_m: is not a field of gps.deny"));
}

#[test]
fn gps_offset() {
    let e = action("action: gps.offset, offset_enu_m: [1, 2, 3]");
    assert_eq!(
        fault_of(&e).set,
        [(
            "offset_enu_m".to_string(),
            ParamSetting::Doubles(vec![1.0, 2.0, 3.0])
        )]
    );
    assert!(refused("action: gps.offset")
        .starts_with("timeline[0].offset_enu_m: missing (required by gps.offset)"));
}

#[test]
fn actuator_limit() {
    let e = action("action: actuator.limit, max_linear_mps: 0.3, duration_s: 5s");
    let fault = fault_of(&e);
    assert_eq!(
        fault.set,
        [("max_linear_mps".to_string(), ParamSetting::Double(0.3))]
    );
    assert_eq!(
        fault.clear,
        [("max_linear_mps".to_string(), ParamSetting::Double(0.0))]
    );
    assert!(refused("action: actuator.limit, max_linear_mps: 300")
        .starts_with("timeline[0].max_linear_mps: 300 is not in 0 to 100"));
}

#[test]
fn battery_drain() {
    let e = action("action: battery.drain, to: 0.5, duration_s: 10s");
    let fault = fault_of(&e);
    assert_eq!(
        fault.set,
        [
            ("drain_to".to_string(), ParamSetting::Double(0.5)),
            ("drain_duration_s".to_string(), ParamSetting::Double(10.0))
        ]
    );
    assert!(fault.clear.is_empty());
    assert!(refused("action: battery.drain, to: 0.5, signal: KILL")
        .starts_with("timeline[0].signal: is not a field of battery.drain"));
}

#[test]
fn navigate_to() {
    let e = action("action: navigate_to, pose: { xyz: [1, 2, 0], yaw_deg: 90 }");
    assert_eq!(
        e.action,
        Action::NavigateTo {
            goal: None,
            pose: PoseSpec {
                xyz: [1.0, 2.0, 0.0],
                yaw_deg: 90.0
            }
        }
    );
    assert!(
        refused("action: navigate_to, pose: { xyz: [1, 2, 0], yaw: 90 }")
            .starts_with("timeline[0].pose.yaw: unknown field `yaw`")
    );
}

#[test]
fn process_kill() {
    let e = action("action: process.kill, node: goal_driver, signal: KILL");
    assert_eq!(
        e.action,
        Action::ProcessKill {
            node: "goal_driver".into(),
            signal: "KILL".into()
        }
    );
    assert!(
        refused("action: process.kill, node: goal_driver, sensor: lidar")
            .starts_with("timeline[0].sensor: is not a field of process.kill")
    );
}

#[test]
fn unknown_actions_and_fields_are_named_with_a_suggestion() {
    assert!(refused("action: link.dorp").starts_with(
        "timeline[0].action: \"link.dorp\" is not one of link.set, link.drop, link.restore"
    ));
    assert!(refused("action: link.dorp").ends_with("(did you mean link.drop?)"));
    let e = refused("action: link.drop, duraton_s: 1s");
    assert!(
        e.starts_with("timeline[0].duraton_s: unknown field `duraton_s`"),
        "{e}"
    );
    assert!(e.ends_with("(did you mean duration_s?)"), "{e}");
}

/// The validated check of a one-assertion scenario.
fn check(assertion: &str) -> Check {
    let s = load_text(&format!("assertions:\n  - {{ {assertion} }}\n"))
        .unwrap_or_else(|e| panic!("{assertion}: {e}"));
    s.assertions[0].check.clone()
}

fn refused_assertion(assertion: &str) -> String {
    let e = load_text(&format!("assertions:\n  - {{ {assertion} }}\n"))
        .expect_err(assertion)
        .to_string();
    e.split_once(": ")
        .map(|(_, rest)| rest.to_string())
        .unwrap()
}

#[test]
fn every_assertion_type_is_in_the_list() {
    assert_eq!(ASSERTION_TYPES.len(), 7);
}

#[test]
fn topic_value() {
    let c = check("type: topic_value, topic: /ugv1/odom, field: x, op: lt, value: 1, abs: true");
    let Check::TopicValue { condition, mode } = c else {
        panic!("{c:?}")
    };
    assert_eq!(
        (condition.op, condition.value, condition.abs, mode),
        (Op::Lt, Value::Number(1.0), true, Mode::Eventually)
    );
    assert!(
        refused_assertion("type: topic_value, topic: /ugv1/odom, field: x, value: 1, hz: 2")
            .starts_with("assertions[0].hz: is not a field of topic_value")
    );
}

#[test]
fn reached() {
    let c = check("type: reached, pose: { xyz: [1, 0, 0] }, radius_m: 2");
    assert_eq!(
        c,
        Check::Reached {
            vehicle: "ugv1".into(),
            goal: None,
            pose: PoseSpec {
                xyz: [1.0, 0.0, 0.0],
                yaw_deg: 0.0
            },
            radius_m: 2.0
        }
    );
    assert!(refused_assertion("type: reached, goal: moon")
        .starts_with("assertions[0].goal: \"moon\" is not a goal of world depot"));
}

#[test]
fn no_collision() {
    assert_eq!(
        check("type: no_collision"),
        Check::NoCollision { vehicle: None }
    );
    assert!(refused_assertion("type: no_collision, topic: /x")
        .starts_with("assertions[0].topic: is not a field of no_collision"));
}

#[test]
fn link_verdicts() {
    assert_eq!(check("type: link_verdicts"), Check::LinkVerdicts);
    assert!(refused_assertion("type: link_verdicts, vehicle: ugv1")
        .starts_with("assertions[0].vehicle: is not a field of link_verdicts"));
}

#[test]
fn max_and_min_rate() {
    assert_eq!(
        check("type: max_rate, topic: /ugv1/odom, hz: 60"),
        Check::MaxRate {
            topic: "/ugv1/odom".into(),
            hz: 60.0
        }
    );
    assert_eq!(
        check("type: min_rate, topic: /ugv1/odom, hz: 5"),
        Check::MinRate {
            topic: "/ugv1/odom".into(),
            hz: 5.0
        }
    );
    assert!(
        refused_assertion("type: min_rate, topic: /ugv1/odom, hz: -1")
            .starts_with("assertions[0].hz: -1 must be a number, not negative")
    );
    assert!(
        refused_assertion("type: max_rate, topic: /ugv1/odom, hz: fast")
            .starts_with("assertions[0].hz: invalid type")
    );
}

#[test]
fn unchanged() {
    assert_eq!(
        check("type: unchanged, topic: /ugv1/odom, field: [a.b, c]"),
        Check::Unchanged {
            topic: "/ugv1/odom".into(),
            fields: vec!["a.b".into(), "c".into()]
        }
    );
    assert!(
        refused_assertion("type: unchanged, topic: /ugv1/odom, field: x, mode: always")
            .starts_with("assertions[0].mode: is not a field of unchanged")
    );
}

#[test]
fn unknown_assertion_types_are_named_with_a_suggestion() {
    let e = refused_assertion("type: max_rat, topic: /ugv1/odom, hz: 1");
    assert!(
        e.starts_with("assertions[0].type: \"max_rat\" is not one of topic_value"),
        "{e}"
    );
    assert!(e.ends_with("(did you mean max_rate?)"), "{e}");
}

#[test]
fn the_raw_model_serializes_flat() {
    let s = load_text("timeline:\n  - { name: out, at: 1s, action: link.drop, duration_s: 3s }\n")
        .unwrap();
    let json = serde_json::to_value(&s.raw.timeline[0]).unwrap();
    assert_eq!(json["action"], "link.drop");
    assert_eq!(json["duration_s"], 3.0);
    assert_eq!(json["name"], "out");
}
