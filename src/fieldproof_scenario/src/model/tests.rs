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
    assert_eq!(ACTIONS.len(), 14);
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
fn perception_overload() {
    let launch = launch_file(true);
    let name = launch.path().file_name().unwrap().to_string_lossy();
    let quad = |vision: &str, entry: &str| {
        let f = tempfile::Builder::new()
            .prefix(".test_model_")
            .suffix(".yaml")
            .tempfile_in(scenarios_dir())
            .unwrap();
        std::fs::write(
            f.path(),
            format!("name: t\nworld: ../../worlds/depot.yaml\nvehicles:\n  - {{ {QUAD}, stack: {{ launch: {name} }}{vision} }}\ntimeline:\n  - {{ at: 1s, {entry} }}\n"),
        )
        .unwrap();
        load(f.path())
    };
    let s = quad(
        ", vision: perception",
        "action: perception.overload, duration_s: 0.6s",
    )
    .unwrap();
    let fault = fault_of(&s.timeline[0]);
    assert_eq!(fault.node, "perception");
    assert_eq!(
        fault.set,
        [(
            "reported_inference_ms".to_string(),
            ParamSetting::Double(120.0)
        )]
    );
    assert_eq!(
        fault.clear,
        [(
            "reported_inference_ms".to_string(),
            ParamSetting::Double(0.0)
        )]
    );
    assert_eq!(s.timeline[0].duration_s, Some(0.6));
    let s = quad(
        ", vision: perception",
        "action: perception.overload, reported_inference_ms: 250",
    )
    .unwrap();
    let fault = fault_of(&s.timeline[0]);
    assert_eq!(
        fault.set,
        [(
            "reported_inference_ms".to_string(),
            ParamSetting::Double(250.0)
        )]
    );
    assert!(fault.clear.is_empty(), "no duration: nothing set back");
    let refusal = |vision: &str, entry: &str| {
        let e = quad(vision, entry).expect_err(entry).to_string();
        e.split_once(": ")
            .map(|(_, rest)| rest.to_string())
            .unwrap()
    };
    assert_eq!(
        refusal(", vision: camera", "action: perception.overload"),
        "timeline[0].action: perception.overload needs the perception node, which vehicle quad1 runs only with vision: perception (its vision: camera)"
    );
    assert!(refusal("", "action: perception.overload").ends_with("(its vision: not set)"));
    assert!(refused("action: perception.overload")
        .ends_with("vehicle ugv1 runs only with vision: perception (its vision: not set)"));
    for bad in ["0", "-5", "1e9", ".nan"] {
        assert_eq!(
            refusal(
                ", vision: perception",
                &format!("action: perception.overload, reported_inference_ms: {bad}")
            ),
            format!(
                "timeline[0].reported_inference_ms: {} is not in (0, 60000] ms",
                bad.replace(".nan", "NaN").replace("1e9", "1000000000")
            )
        );
    }
    assert!(refusal(
        ", vision: perception",
        "action: perception.overload, sensor: camera"
    )
    .starts_with("timeline[0].sensor: is not a field of perception.overload"));
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
    assert_eq!(ASSERTION_TYPES.len(), 13);
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
fn sequence() {
    let text =
        |v: &[&str]| -> Vec<Value> { v.iter().map(|x| Value::Text(x.to_string())).collect() };
    assert_eq!(
        check("type: sequence, topic: /ugv1/supervisor/mode, transitions: [INIT, ACTIVE, HOLD, ACTIVE, COMPLETE], terminal: COMPLETE"),
        Check::Sequence {
            topic: "/ugv1/supervisor/mode".into(),
            field: "data".into(),
            transitions: text(&["INIT", "ACTIVE", "HOLD", "ACTIVE", "COMPLETE"]),
            terminal: Some(Value::Text("COMPLETE".into())),
        }
    );
    // Numbers and booleans, another field, a terminal value alone.
    assert_eq!(
        check("type: sequence, topic: /ugv1/odom, field: pose.pose.position.z, transitions: [0, 2.5], terminal: 0"),
        Check::Sequence {
            topic: "/ugv1/odom".into(),
            field: "pose.pose.position.z".into(),
            transitions: vec![Value::Number(0.0), Value::Number(2.5)],
            terminal: Some(Value::Number(0.0)),
        }
    );
    assert!(matches!(
        check("type: sequence, topic: /ugv1/link_state, terminal: true"),
        Check::Sequence { transitions, terminal: Some(Value::Bool(true)), .. } if transitions.is_empty()
    ));
    // A sequence is recorded and typed like any assertion's topic.
    let s = load_text(
        "assertions:\n  - { type: sequence, topic: /ugv1/supervisor/mode, terminal: LAND }\n",
    )
    .unwrap();
    assert_eq!(
        s.recorded_topics["/ugv1/supervisor/mode"],
        "std_msgs/msg/String"
    );
    for (written, refusal) in [
        ("transitions: [INIT, INIT]", "assertions[0].transitions[1]: \"INIT\" repeats transitions[0]: the values compared are the successive distinct ones"),
        ("terminal: [LAND]", "assertions[0].terminal: "),
        ("transitions: [INIT, { a: 1 }]", "assertions[0].transitions[1]: "),
        ("field: data..x, terminal: LAND", "assertions[0].field: \"data..x\" is not a field path"),
        ("field: data", "assertions[0].transitions: missing (sequence needs transitions, a terminal value, or both)"),
        ("terminal: LAND, op: eq", "assertions[0].op: is not a field of sequence"),
    ] {
        let e = refused_assertion(&format!("type: sequence, topic: /ugv1/supervisor/mode, {written}"));
        assert!(e.starts_with(refusal), "{written}: {e}");
    }
    assert!(
        refused_assertion("type: sequence, topic: /ugv1/supervisor/mode, terminal: [LAND]")
            .ends_with("is not a number, a boolean or a string")
    );
    assert!(refused_assertion("type: sequence, terminal: LAND")
        .starts_with("assertions[0].topic: missing (required by sequence)"));
}

#[test]
fn estimate_error() {
    assert_eq!(
        check("type: estimate_error, max_m: 2.0"),
        Check::EstimateError {
            vehicle: "ugv1".into(),
            topic: "/ugv1/odometry/filtered".into(),
            max_m: 2.0,
        }
    );
    assert_eq!(
        check("type: estimate_error, vehicle: ugv1, topic: /ugv1/odom, max_m: 0.5"),
        Check::EstimateError {
            vehicle: "ugv1".into(),
            topic: "/ugv1/odom".into(),
            max_m: 0.5,
        }
    );
    let s =
        load_text("assertions:\n  - { type: estimate_error, max_m: 2, after_s: 5s }\n").unwrap();
    assert_eq!(s.assertions[0].window.after_s, 5.0);
    assert_eq!(
        s.recorded_topics["/ugv1/odometry/filtered"],
        "nav_msgs/msg/Odometry"
    );
    for (written, refusal) in [
        ("max_m: 0", "assertions[0].max_m: 0 must be above 0"),
        ("max_m: .nan", "assertions[0].max_m: NaN must be above 0"),
        (
            "vehicle: ugv1",
            "assertions[0].max_m: missing (required by estimate_error)",
        ),
        (
            "vehicle: quad9, max_m: 1",
            "assertions[0].vehicle: \"quad9\" is not a vehicle of the scenario",
        ),
        (
            "topic: odometry/filtered, max_m: 1",
            "assertions[0].topic: \"odometry/filtered\" is not a fully qualified topic name",
        ),
        (
            "max_m: 1, field: x",
            "assertions[0].field: is not a field of estimate_error",
        ),
    ] {
        let e = refused_assertion(&format!("type: estimate_error, {written}"));
        assert!(e.starts_with(refusal), "{written}: {e}");
    }
}

/// A scenario of one vehicle (written as a flow map's fields) on the depot world.
fn load_vehicle(fields: &str) -> Result<Scenario, ScenarioError> {
    let f = tempfile::Builder::new()
        .prefix(".test_model_")
        .suffix(".yaml")
        .tempfile_in(scenarios_dir())
        .unwrap();
    std::fs::write(
        f.path(),
        format!("name: t\nworld: ../../worlds/depot.yaml\nvehicles:\n  - {{ {fields} }}\n"),
    )
    .unwrap();
    load(f.path())
}

/// A launch file beside the scenarios declaring `vision_source` (or not); its file name.
fn launch_file(declares_vision: bool) -> tempfile::NamedTempFile {
    let f = tempfile::Builder::new()
        .prefix(".test_launch_")
        .suffix(".launch.yaml")
        .tempfile_in(scenarios_dir())
        .unwrap();
    let vision = if declares_vision {
        "- group:\n  - arg: { name: vision_source, default: camera }\n"
    } else {
        ""
    };
    std::fs::write(
        f.path(),
        format!("launch:\n- arg: {{ name: namespace }}\n- arg: {{ name: cmd_vel, default: cmd_vel }}\n{vision}"),
    )
    .unwrap();
    f
}

const QUAD: &str =
    "name: quad1, manifest: ../../robots/quad_ref/robot.yaml, pose: { xyz: [0, 0, 0] }";

#[test]
fn vision() {
    let launch = launch_file(true);
    let name = launch.path().file_name().unwrap().to_string_lossy();
    for (written, source) in [
        ("none", VisionSource::None),
        ("camera", VisionSource::Camera),
        ("perception", VisionSource::Perception),
    ] {
        let s = load_vehicle(&format!(
            "{QUAD}, stack: {{ launch: {name} }}, vision: {written}"
        ))
        .unwrap();
        assert_eq!(s.vehicles[0].vision, Some(source));
        assert_eq!(source.name(), written);
    }
    assert_eq!(
        VisionSource::None.describe(),
        "vision: none — the supervisor ignores vision freshness"
    );
    assert_eq!(
        load_vehicle(&format!("{QUAD}, stack: {{ launch: {name} }}"))
            .unwrap()
            .vehicles[0]
            .vision,
        None
    );
    let refused = |fields: &str| {
        let e = load_vehicle(fields).expect_err(fields).to_string();
        e.split_once(": ")
            .map(|(_, rest)| rest.to_string())
            .unwrap()
    };
    let e = refused(&format!("{QUAD}, vision: none"));
    assert_eq!(
        e,
        "vehicles[0].vision: none is passed to the stack as the launch argument vision_source, but the stack goal_driver is not a launch file ({launch: file})"
    );
    let e = refused(&format!(
        "{QUAD}, stack: {{ command: [sleep, \"1\"] }}, vision: camera"
    ));
    assert!(e.starts_with("vehicles[0].vision: camera is passed to the stack as the launch argument vision_source, but the stack sleep is not a launch file"), "{e}");
    let silent = launch_file(false);
    let e = refused(&format!(
        "{QUAD}, stack: {{ launch: {} }}, vision: none",
        silent.path().file_name().unwrap().to_string_lossy()
    ));
    assert!(e.starts_with("vehicles[0].vision: none is passed to the stack as the launch argument vision_source, which /"), "{e}");
    assert!(e.ends_with(".launch.yaml does not declare"), "{e}");
    let e = refused(&format!(
        "{QUAD}, stack: {{ launch: {name} }}, vision: lidar"
    ));
    assert!(e.starts_with("vehicles[0].vision: unknown variant `lidar`, expected one of `none`, `camera`, `perception`"), "{e}");
    let e = refused(&format!(
        "{QUAD}, stack: {{ launch: {name}, args: {{ vision_source: none }} }}"
    ));
    assert!(
        e.starts_with("vehicles[0].stack.args.vision_source: is set by the runner"),
        "{e}"
    );
}

#[test]
fn a_vehicle_is_not_named_after_a_directory_of_the_run() {
    for dir in RUN_SUBDIRS {
        let e = load_vehicle(&format!(
            "name: {dir}, manifest: ../../robots/quad_ref/robot.yaml, pose: {{ xyz: [0, 0, 0] }}"
        ))
        .expect_err(dir)
        .to_string();
        assert!(
            e.contains(&format!(
                "vehicles[0].name: \"{dir}\" names a directory of the run (bundles, logs, plots)"
            )),
            "{e}"
        );
    }
}

#[test]
fn a_multirotor_records_its_mode_and_estimate() {
    let s = load_vehicle(QUAD).unwrap();
    assert_eq!(
        s.recorded_topics["/quad1/supervisor/mode"],
        "std_msgs/msg/String"
    );
    assert_eq!(
        s.recorded_topics["/quad1/odometry/filtered"],
        "nav_msgs/msg/Odometry"
    );
    assert_eq!(
        mode_topic(&s.vehicles[0]).as_deref(),
        Some("/quad1/supervisor/mode")
    );
    assert!(is_latched(&s.vehicles, "/quad1/supervisor/mode"));
    assert!(!is_latched(&s.vehicles, "/quad1/odometry/filtered"));
    // A ground vehicle records neither unless an assertion or record.topics asks.
    let s = load_text("").unwrap();
    assert!(!s.recorded_topics.contains_key("/ugv1/supervisor/mode"));
    assert!(!s.recorded_topics.contains_key("/ugv1/odometry/filtered"));
    assert_eq!(mode_topic(&s.vehicles[0]), None);
    // The mission stack's other topics are typed too, and the latched ones read so.
    let s = load_text("record: { topics: [/ugv1/supervisor/mode, /ugv1/supervisor/reason, /ugv1/supervisor/setpoint, /ugv1/mission/target] }\n").unwrap();
    assert_eq!(
        s.recorded_topics["/ugv1/supervisor/mode"],
        "std_msgs/msg/String"
    );
    assert_eq!(
        s.recorded_topics["/ugv1/supervisor/setpoint"],
        "geometry_msgs/msg/TwistStamped"
    );
    assert_eq!(
        s.recorded_topics["/ugv1/mission/target"],
        "geometry_msgs/msg/PoseStamped"
    );
    assert!(is_latched(&s.vehicles, "/ugv1/supervisor/reason"));
    assert!(!is_latched(&s.vehicles, "/ugv1/supervisor/setpoint"));
    // The failsafe's link_state is latched by link_monitor: read so behind a link.
    let s = crate::model::load(&scenarios_dir().join("ugv_link_loss.yaml")).unwrap();
    assert!(is_latched(&s.vehicles, "/ugv1/link_state"));
    assert!(!is_latched(&s.vehicles, "/ugv1/gcs/heartbeat"));
    // A convoy follower's watchdog state is latched, published at each change only: its
    // first FOLLOW came 0.5 s before a run's timeline, before the recorder had joined.
    let s = crate::model::load(&scenarios_dir().join("convoy_blackout.yaml")).unwrap();
    assert!(is_latched(&s.vehicles, "/ugv2/convoy/watchdog_state"));
    assert!(!is_latched(&s.vehicles, "/ugv2/convoy/link_stats"));
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

#[test]
fn param_set() {
    let e = action(
        "action: param.set, node: goal_driver, set: { max_speed_mps: 0.2 }, clear: { max_speed_mps: 0.8 }, duration_s: 5s",
    );
    assert_eq!(e.duration_s, Some(5.0));
    assert_eq!(
        fault_of(&e),
        &ParamFault {
            node: "goal_driver".into(),
            set: vec![("max_speed_mps".into(), ParamSetting::Double(0.2))],
            clear: vec![("max_speed_mps".into(), ParamSetting::Double(0.8))],
        }
    );
    let e = action("action: param.set, node: goal_driver, set: { paused: true }");
    assert_eq!(
        fault_of(&e).set,
        vec![("paused".to_string(), ParamSetting::Bool(true))]
    );
    assert!(fault_of(&e).clear.is_empty());
    for (written, refusal) in [
        (
            "node: lead_broadcaster, set: { blackout: true }",
            "timeline[0].node: \"lead_broadcaster\" is not a node of vehicle ugv1's stack (nodes: goal_driver)",
        ),
        (
            "node: goal_driver",
            "timeline[0].set: missing (required by param.set)",
        ),
        (
            "node: goal_driver, set: { goal: [1, 2] }",
            "timeline[0].set.goal: Sequence",
        ),
        (
            "node: goal_driver, set: { max_speed_mps: 0.2 }, duration_s: 2s",
            "timeline[0].clear: must set the same parameters as set (max_speed_mps)",
        ),
        (
            "node: goal_driver, set: { max_speed_mps: 0.2 }, clear: { max_speed_mps: 0.8 }",
            "timeline[0].clear: only with duration_s",
        ),
    ] {
        let got = refused(&format!("action: param.set, {written}"));
        assert!(got.starts_with(refusal), "{written}: {got}");
    }
}

/// A scenario of two vehicles with `assertion`.
fn pair_with(assertion: &str) -> Result<Scenario, ScenarioError> {
    pair_with_extra(assertion, "")
}

/// A scenario of two vehicles with `assertion`, then `extra` (a section).
fn pair_with_extra(assertion: &str, extra: &str) -> Result<Scenario, ScenarioError> {
    let f = tempfile::Builder::new()
        .prefix(".test_model_")
        .suffix(".yaml")
        .tempfile_in(scenarios_dir())
        .unwrap();
    std::fs::write(
        f.path(),
        format!(
            "name: t\nworld: ../../worlds/depot.yaml\nvehicles:\n  - {{ name: ugv1, manifest: ../../robots/ugv_ref/robot.yaml, spawn: spawn_dock }}\n  - {{ name: ugv2, manifest: ../../robots/ugv_ref/robot.yaml, spawn: spawn_dock_3, payload_kg: 15 }}\nassertions:\n  - {{ {assertion} }}\n{extra}"
        ),
    )
    .unwrap();
    load(f.path())
}

#[test]
fn separation() {
    let s = pair_with("type: separation, vehicle: ugv2, other: ugv1, min_m: 1.0").unwrap();
    assert_eq!(
        s.assertions[0].check,
        Check::Separation {
            vehicle: "ugv2".into(),
            other: "ugv1".into(),
            min_m: 1.0,
        }
    );
    for (written, refusal) in [
        (
            "other: ugv1, min_m: 1",
            "assertions[0].vehicle: missing (required by separation)",
        ),
        (
            "vehicle: ugv2, min_m: 1",
            "assertions[0].other: missing (required by separation)",
        ),
        (
            "vehicle: ugv2, other: ugv2, min_m: 1",
            "assertions[0].other: \"ugv2\" is the vehicle itself",
        ),
        (
            "vehicle: ugv2, other: ugv9, min_m: 1",
            "assertions[0].other: \"ugv9\" is not a vehicle of the scenario",
        ),
        (
            "vehicle: ugv2, other: ugv1, min_m: 0",
            "assertions[0].min_m: 0 must be above 0",
        ),
    ] {
        let got = pair_with(&format!("type: separation, {written}"))
            .expect_err(written)
            .to_string();
        assert!(got.contains(refusal), "{written}: {got}");
    }
}

#[test]
fn seq_accounting() {
    let s = pair_with_extra(
        "type: seq_accounting, topic: /ugv2/convoy/link_stats, counted: [ { topic: /ugv1/convoy/source_stats, seq_field: seq, fields: [dropped] }, { topic: /ugv1/convoy/radio_stats, seq_field: last_received_seq, fields: [dropped_busy, dropped_loss], settled_after: 1 } ]",
        "record: { types: { /ugv2/convoy/link_stats: std_msgs/msg/String, /ugv1/convoy/source_stats: std_msgs/msg/String, /ugv1/convoy/radio_stats: std_msgs/msg/String } }\n",
    )
    .unwrap();
    assert_eq!(
        s.assertions[0].check,
        Check::SeqAccounting {
            topic: "/ugv2/convoy/link_stats".into(),
            counted: vec![
                CountedDrops {
                    topic: "/ugv1/convoy/source_stats".into(),
                    seq_field: "seq".into(),
                    fields: vec!["dropped".into()],
                    settled_after: 0,
                },
                CountedDrops {
                    topic: "/ugv1/convoy/radio_stats".into(),
                    seq_field: "last_received_seq".into(),
                    fields: vec!["dropped_busy".into(), "dropped_loss".into()],
                    settled_after: 1,
                },
            ],
        }
    );
    // Every place it reads is recorded.
    for t in [
        "/ugv2/convoy/link_stats",
        "/ugv1/convoy/source_stats",
        "/ugv1/convoy/radio_stats",
    ] {
        assert!(s.recorded_topics.contains_key(t), "{t} not recorded");
    }
    for (written, refusal) in [
        (
            "counted: [ { topic: /a/b, seq_field: seq, fields: [d] } ]",
            "assertions[0].topic: missing (required by seq_accounting)",
        ),
        (
            "topic: /ugv2/s",
            "assertions[0].counted: empty (name where the drops are counted)",
        ),
        (
            "topic: /ugv2/s, counted: [ { topic: a, seq_field: seq, fields: [d] } ]",
            "assertions[0].counted[0].topic: \"a\" is not a fully qualified topic name",
        ),
        (
            "topic: /ugv2/s, counted: [ { topic: /a/b, fields: [d] } ]",
            "assertions[0].counted[0].seq_field: missing",
        ),
        (
            "topic: /ugv2/s, counted: [ { topic: /a/b, seq_field: seq } ]",
            "assertions[0].counted[0].fields: empty (name the drop counters)",
        ),
    ] {
        let got = pair_with(&format!("type: seq_accounting, {written}"))
            .expect_err(written)
            .to_string();
        assert!(got.contains(refusal), "{written}: {got}");
    }
}

#[test]
fn payload_goes_to_the_simulator_within_the_manifests_bound() {
    let s = pair_with("type: no_collision").unwrap();
    assert_eq!(s.vehicles[0].payload_kg, None);
    assert_eq!(s.vehicles[1].payload_kg, Some(15.0));
    let refused = pair_with("type: no_collision")
        .map(|_| ())
        .and_then(|()| {
            let f = tempfile::Builder::new()
                .prefix(".test_model_")
                .suffix(".yaml")
                .tempfile_in(scenarios_dir())
                .unwrap();
            std::fs::write(
                f.path(),
                "name: t\nworld: ../../worlds/depot.yaml\nvehicles:\n  - { name: ugv1, manifest: ../../robots/ugv_ref/robot.yaml, spawn: spawn_dock, payload_kg: 21 }\n",
            )
            .unwrap();
            load(f.path()).map(|_| ())
        })
        .expect_err("above max_payload_kg")
        .to_string();
    assert!(
        refused.contains(
            "vehicles[0].payload_kg: 21 is not within 0..20 (the manifest's body.max_payload_kg)"
        ),
        "{refused}"
    );
}

/// A scenario of three quads (a fleet) with `assertion`, then `extra` (a section).
fn fleet_with(assertion: &str, extra: &str) -> Result<Scenario, ScenarioError> {
    let f = tempfile::Builder::new()
        .prefix(".test_model_")
        .suffix(".yaml")
        .tempfile_in(scenarios_dir())
        .unwrap();
    let quad = |name: &str, y: i32| {
        format!("  - {{ name: {name}, manifest: ../../robots/quad_ref/robot.yaml, pose: {{ xyz: [0, {y}, 0] }} }}\n")
    };
    std::fs::write(
        f.path(),
        format!(
            "name: t\nworld: ../../worlds/depot.yaml\nvehicles:\n{}{}{}assertions:\n  - {{ {assertion} }}\n{extra}",
            quad("quad1", 0),
            quad("quad2", 2),
            quad("quad3", -2)
        ),
    )
    .unwrap();
    load(f.path())
}

/// The refusal of a fleet scenario with `assertion`, from the field's path on.
fn fleet_refusal(assertion: &str) -> String {
    let e = fleet_with(assertion, "").expect_err(assertion).to_string();
    e.split_once(": ")
        .map(|(_, rest)| rest.to_string())
        .unwrap()
}

#[test]
fn leases_exclusive() {
    let s = fleet_with(
        "name: leases, type: leases_exclusive, vehicles: [quad1, quad2, quad3]",
        "",
    )
    .unwrap();
    assert_eq!(
        s.assertions[0].check,
        Check::LeasesExclusive {
            vehicles: vec!["quad1".into(), "quad2".into(), "quad3".into()],
            clearance_topic: "/fleet/clearance".into(),
            status_topic: "/fleet/status".into(),
            tolerance_s: 0.5,
        }
    );
    // Both topics are recorded, typed without record.types.
    assert_eq!(
        s.recorded_topics["/fleet/clearance"],
        "fieldproof_interfaces/msg/Clearance"
    );
    assert_eq!(
        s.recorded_topics["/fleet/status"],
        "fieldproof_interfaces/msg/FleetStatus"
    );
    let s = fleet_with(
        "type: leases_exclusive, vehicles: [quad2], clearance_topic: /station/answers, status_topic: /station/reports, tolerance_s: 250ms",
        "record: { types: { /station/answers: fieldproof_interfaces/msg/Clearance, /station/reports: fieldproof_interfaces/msg/FleetStatus } }\n",
    )
    .unwrap();
    assert_eq!(
        s.assertions[0].check,
        Check::LeasesExclusive {
            vehicles: vec!["quad2".into()],
            clearance_topic: "/station/answers".into(),
            status_topic: "/station/reports".into(),
            tolerance_s: 0.25,
        }
    );
    assert!(s.recorded_topics.contains_key("/station/answers"));
    for (written, refusal) in [
        (
            "",
            "assertions[0].vehicles: empty (name the fleet's vehicles)",
        ),
        (
            "vehicles: [quad1, quad9]",
            "assertions[0].vehicles: \"quad9\" is not a vehicle of the scenario",
        ),
        (
            "vehicles: [quad1, quad1]",
            "assertions[0].vehicles: \"quad1\" is listed twice",
        ),
        (
            "vehicles: [quad1], status_topic: fleet/status",
            "assertions[0].status_topic: \"fleet/status\" is not a fully qualified topic name",
        ),
        (
            "vehicles: [quad1], clearance_topic: /fleet/status",
            "assertions[0].clearance_topic: \"/fleet/status\" is the status_topic too",
        ),
        (
            "vehicles: [quad1], tolerance_s: -1s",
            "assertions[0].tolerance_s",
        ),
        (
            "vehicles: [quad1], max_m: 1",
            "assertions[0].max_m: is not a field of leases_exclusive",
        ),
    ] {
        let e = fleet_refusal(&format!("type: leases_exclusive, {written}"));
        assert!(e.starts_with(refusal), "{written}: {e}");
    }
}

#[test]
fn pad_error() {
    let s = fleet_with(
        "name: pad_quad1, type: pad_error, vehicle: quad1, max_m: 0.5",
        "",
    )
    .unwrap();
    assert_eq!(
        s.assertions[0].check,
        Check::PadError {
            vehicle: "quad1".into(),
            status_topic: "/fleet/status".into(),
            max_m: 0.5,
            report_max_m: 0.5,
            pad: None,
        }
    );
    assert!(s.recorded_topics.contains_key("/fleet/status"));
    // With the carrier's pad poses (typed by record.types here: no carrier in this
    // scenario), recorded too.
    let s = fleet_with(
        "type: pad_error, vehicle: quad3, max_m: 0.4, report_max_m: 1.0, pads_topic: /carrier/pads, pad_index: 2",
        "record: { types: { /carrier/pads: geometry_msgs/msg/PoseArray } }\n",
    )
    .unwrap();
    assert_eq!(
        s.assertions[0].check,
        Check::PadError {
            vehicle: "quad3".into(),
            status_topic: "/fleet/status".into(),
            max_m: 0.4,
            report_max_m: 1.0,
            pad: Some(types::CarrierPad {
                topic: "/carrier/pads".into(),
                index: 2,
            }),
        }
    );
    assert_eq!(
        s.recorded_topics["/carrier/pads"],
        "geometry_msgs/msg/PoseArray"
    );
    for (written, refusal) in [
        (
            "vehicle: quad1",
            "assertions[0].max_m: missing (required by pad_error)",
        ),
        (
            "max_m: 0.5",
            "assertions[0].vehicle: missing (required by pad_error)",
        ),
        (
            "vehicle: quad9, max_m: 0.5",
            "assertions[0].vehicle: \"quad9\" is not a vehicle of the scenario",
        ),
        (
            "vehicle: quad1, max_m: 0",
            "assertions[0].max_m: 0 must be above 0",
        ),
        (
            "vehicle: quad1, max_m: 0.5, report_max_m: .nan",
            "assertions[0].report_max_m: NaN must be above 0",
        ),
        (
            "vehicle: quad1, max_m: 0.5, pads_topic: /carrier/pads",
            "assertions[0].pad_index: missing (pads_topic needs it)",
        ),
        (
            "vehicle: quad1, max_m: 0.5, pad_index: 0",
            "assertions[0].pads_topic: missing (pad_index needs it)",
        ),
        (
            "vehicle: quad1, max_m: 0.5, pads_topic: pads, pad_index: 0",
            "assertions[0].pads_topic: \"pads\" is not a fully qualified topic name",
        ),
        (
            "vehicle: quad1, max_m: 0.5, pads_topic: /carrier/pads, pad_index: -1",
            "assertions[0].pad_index",
        ),
        (
            "vehicle: quad1, max_m: 0.5, vehicles: [quad1]",
            "assertions[0].vehicles: is not a field of pad_error",
        ),
    ] {
        let e = fleet_refusal(&format!("type: pad_error, {written}"));
        assert!(e.starts_with(refusal), "{written}: {e}");
    }
}

#[test]
fn pad_error_knows_the_pads_of_the_scenarios_carrier() {
    let with_index = |index: usize| {
        let f = tempfile::Builder::new()
            .prefix(".test_model_")
            .suffix(".yaml")
            .tempfile_in(scenarios_dir())
            .unwrap();
        std::fs::write(
            f.path(),
            format!(
                "name: t\nworld: ../../worlds/depot.yaml\nvehicles:\n  - {{ name: carrier, manifest: ../../robots/carrier_ref/robot.yaml, pose: {{ xyz: [0, 10, 0] }}, stack: none }}\n  - {{ name: quad1, manifest: ../../robots/quad_ref/robot.yaml, spawn: {{ pad: carrier/pad_2 }} }}\nassertions:\n  - {{ type: pad_error, max_m: 0.4, vehicle: quad1, pads_topic: /carrier/pads, pad_index: {index} }}\n"
            ),
        )
        .unwrap();
        load(f.path())
    };
    // The carrier's pads are typed by its contract: no record.types.
    let s = with_index(2).unwrap();
    assert_eq!(
        s.recorded_topics["/carrier/pads"],
        "geometry_msgs/msg/PoseArray"
    );
    let e = with_index(3).unwrap_err().to_string();
    assert!(
        e.ends_with(
            "assertions[0].pad_index: 3 is not a pad of /carrier/pads (pads: 0 pad_0, 1 pad_1, 2 pad_2)"
        ),
        "{e}"
    );
}

#[test]
fn bundles_are_composed_unless_the_scenario_says_no() {
    assert_eq!(load_text("").unwrap().raw.compose_bundles, None);
    let s = load_text("compose_bundles: false\n").unwrap();
    assert_eq!(s.raw.compose_bundles, Some(false));
    let e = load_text("compose_bundles: sometimes\n")
        .unwrap_err()
        .to_string();
    assert!(e.contains("compose_bundles"), "{e}");
    assert_eq!(load_text("").unwrap().raw.compose_failsafe, None);
    let s = load_text("compose_failsafe: false\n").unwrap();
    assert_eq!(s.raw.compose_failsafe, Some(false));
}

#[test]
fn the_clock_rate_is_between_one_hertz_and_the_step_rate() {
    let s = load_text("clock_rate_hz: 200\n").unwrap();
    assert_eq!(s.raw.clock_rate_hz, Some(200.0));
    for bad in ["0.5", "2000", ".nan"] {
        let e = load_text(&format!("clock_rate_hz: {bad}\n"))
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("clock_rate_hz: ") && e.contains("is not in 1 to 1000"),
            "{bad}: {e}"
        );
    }
}

#[test]
fn the_pace_is_fixed_or_auto() {
    assert_eq!(load_text("").unwrap().raw.pace, None);
    assert_eq!(
        load_text("pace: auto\n").unwrap().raw.pace,
        Some(Pace::Auto)
    );
    assert_eq!(
        load_text("pace: fixed\n").unwrap().raw.pace,
        Some(Pace::Fixed)
    );
    let e = load_text("pace: sometimes\n").unwrap_err().to_string();
    assert!(
        e.contains("pace") && e.contains("unknown variant `sometimes`, expected `fixed` or `auto`"),
        "{e}"
    );
}

/// A scenario on the open field: the carrier first, then `quad` (its fields after the name
/// and manifest).
fn load_fleet(quad: &str) -> Result<Scenario, ScenarioError> {
    let f = tempfile::Builder::new()
        .prefix(".test_model_")
        .suffix(".yaml")
        .tempfile_in(scenarios_dir())
        .unwrap();
    std::fs::write(
        f.path(),
        format!(
            "name: t\nworld: ../../worlds/open_field.yaml\nvehicles:\n  \
             - {{ name: carrier, manifest: ../../robots/carrier_ref/robot.yaml, spawn: spawn_carrier, stack: none }}\n  \
             - {{ name: quad1, {quad}, stack: none }}\n"
        ),
    )
    .unwrap();
    load(f.path())
}

#[test]
fn a_multirotor_starts_on_a_pad_of_a_carrier_listed_before_it() {
    let quad = "manifest: ../../robots/quad_ref/robot.yaml";
    let s = load_fleet(&format!("{quad}, spawn: {{ pad: carrier/pad_1 }}")).unwrap();
    let on_pad = &s.vehicles[1];
    assert_eq!(
        (on_pad.pad.as_deref(), on_pad.spawn.as_deref()),
        (Some("carrier/pad_1"), None)
    );
    // The carrier stands at the origin heading east: pad_1 is at (-0.2, 0.8) on its 1.2 m deck.
    assert_eq!(on_pad.pose.xyz, [-0.2, 0.8, 1.2]);
    assert_eq!(on_pad.pose.yaw_deg, 0.0);

    let e = load_fleet(&format!("{quad}, spawn: {{ pad: carrier/pad_7 }}"))
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("vehicles[1].spawn.pad")
            && e.contains("\"carrier/pad_7\" is not a pad")
            && e.contains("carrier/pad_0, carrier/pad_1, carrier/pad_2"),
        "{e}"
    );
    let e = load_fleet("manifest: ../../robots/ugv_ref/robot.yaml, spawn: { pad: carrier/pad_0 }")
        .unwrap_err()
        .to_string();
    assert!(e.contains("only a multirotor starts on a pad"), "{e}");
}
