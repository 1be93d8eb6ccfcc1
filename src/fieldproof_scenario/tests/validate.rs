//! Scenario validation: the shipped scenarios load; broken ones fail with the field path
//! and the value.

use fieldproof_scenario::model::{self, Action, Check, Mode, ScenarioError, Trigger};
use fieldproof_testkit::repo_root as repo;
use std::path::PathBuf;

fn scenarios() -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(repo().join("config/scenarios"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "yaml"))
        .filter(|p| !p.file_name().unwrap().to_string_lossy().starts_with('.'))
        .collect();
    v.sort();
    v
}

/// Writes `text` as a scenario beside the shipped ones (so relative paths resolve) and
/// loads it.
fn load_text(text: &str) -> Result<model::Scenario, ScenarioError> {
    let dir = repo().join("config/scenarios");
    let f = tempfile::Builder::new()
        .prefix(".test_")
        .suffix(".yaml")
        .tempfile_in(&dir)
        .unwrap();
    std::fs::write(f.path(), text).unwrap();
    model::load(f.path())
}

const BASE: &str = "name: t\nworld: ../../worlds/depot.yaml\nvehicles:\n  - { name: ugv1, manifest: ../../robots/ugv_nav2/robot.yaml, spawn: spawn_dock }\nnetwork: { profile: lte_rural }\n";

fn err_of(extra: &str) -> (String, String) {
    let e = load_text(&format!("{BASE}{extra}")).expect_err("must not validate");
    (e.path().to_string(), e.to_string())
}

#[test]
fn every_shipped_scenario_validates() {
    let all = scenarios();
    assert!(all.len() >= 11, "{all:?}");
    for p in all {
        let s = model::load(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
        assert!(!s.vehicles.is_empty());
        assert!(s.recorded_topics.contains_key(model::COLLISIONS_TOPIC));
    }
}

#[test]
fn the_example_is_the_issues_scenario() {
    let s = model::load(&repo().join("config/scenarios/ugv_link_loss.yaml")).unwrap();
    assert_eq!(s.vehicles[0].manifest.name, "ugv_nav2");
    let net = s.network.as_ref().unwrap();
    assert_eq!(net.configured_name("ugv1"), "lte_rural");
    let drop = s.timeline.iter().find(|e| e.name == "link_outage").unwrap();
    assert_eq!(drop.action, Action::LinkDrop);
    assert_eq!(drop.duration_s, Some(30.0));
    assert!(matches!(drop.trigger, Trigger::At(t) if t == 8.0));
    let names: Vec<&str> = s.assertions.iter().map(|a| a.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "link_lost",
            "stopped",
            "cmd_vel_zero",
            "link_back",
            "goal_reached",
            "no_collision",
            "links_ok"
        ]
    );
    let stopped = &s.assertions[1];
    assert!(
        matches!(&stopped.check, Check::TopicValue { mode: Mode::Always, condition } if condition.abs)
    );
    assert_eq!(
        (stopped.window.after_s, stopped.window.within_s),
        (13.0, Some(29.5))
    );
    assert!(s.assertions[3].window.from_end);
    assert_eq!(s.recorded_topics["/ugv1/odom"], "nav_msgs/msg/Odometry");
    assert_eq!(s.recorded_topics["/ugv1/link_state"], "std_msgs/msg/Bool");
    assert_eq!(
        s.recorded_topics["/fieldproof/network"],
        "std_msgs/msg/String"
    );
}

#[test]
fn fault_events_find_their_injector_in_the_bundle() {
    let s = load_text(&format!(
        "{BASE}timeline:\n  - {{ at: 1s, action: sensor.dropout, sensor: lidar, duration_s: 2s }}\n  - {{ at: 1s, action: imu.bias, gyro_bias_radps: [0, 0, 0.1] }}\n  - {{ at: 1s, action: gps.deny }}\n  - {{ at: 1s, action: actuator.limit, max_linear_mps: 0.3 }}\n  - {{ at: 1s, action: battery.drain, to: 0.5, duration_s: 10s }}\n"
    ))
    .unwrap();
    let nodes: Vec<String> = s
        .timeline
        .iter()
        .map(|e| match &e.action {
            Action::Fault { fault, .. } => fault.node.clone(),
            other => panic!("{other:?}"),
        })
        .collect();
    let bundle_nodes: Vec<&str> = s.vehicles[0]
        .bundle
        .nodes
        .iter()
        .map(|n| n.name.as_str())
        .collect();
    for n in &nodes {
        assert!(
            bundle_nodes.contains(&n.as_str()),
            "{n} not in {bundle_nodes:?}"
        );
    }
    // A timed dropout clears itself; an untimed bias does not.
    let Action::Fault { fault, .. } = &s.timeline[0].action else {
        unreachable!()
    };
    assert_eq!(fault.clear.len(), 1);
    let Action::Fault { fault, .. } = &s.timeline[1].action else {
        unreachable!()
    };
    assert!(fault.clear.is_empty());
}

#[test]
fn bad_fields_name_their_path_and_value() {
    let cases: &[(&str, &str, &str)] = &[
        (
            "timeline:\n  - { at: 1s, action: link.explode }\n",
            "timeline[0].action",
            "\"link.explode\" is not one of link.set",
        ),
        (
            "timeline:\n  - { at: 1s, action: link.drop }\n  - { at: 2s, action: link.set, profile: lte_urban }\n",
            "timeline[1].profile",
            "unknown profile 'lte_urban'",
        ),
        (
            "timeline:\n  - { at: five, action: link.drop }\n",
            "timeline[0].at",
            "\"five\" is not a duration",
        ),
        (
            "timeline:\n  - { action: link.drop }\n",
            "timeline[0]",
            "needs a trigger",
        ),
        (
            "timeline:\n  - { at: 1s, every: 2s, action: link.drop }\n",
            "timeline[0]",
            "at and every",
        ),
        (
            "timeline:\n  - { name: a, after: b, action: link.drop }\n  - { name: b, after: a, action: link.restore }\n",
            "timeline[0].after",
            "cycle",
        ),
        (
            "timeline:\n  - { at: 1s, action: link.drop, profile: wifi_good }\n",
            "timeline[0].profile",
            "is not a field of link.drop",
        ),
        (
            "timeline:\n  - { at: 1s, action: sensor.dropout, sensor: sonar }\n",
            "timeline[0].action",
            "no injector for sensor sonar",
        ),
        (
            "timeline:\n  - { at: 1s, action: navigate_to, goal: moon }\n",
            "timeline[0].goal",
            "\"moon\" is not a goal of world depot",
        ),
        (
            "timeline:\n  - { at: 1s, action: process.kill, node: gazebo }\n",
            "timeline[0].node",
            "\"gazebo\" is not a node of vehicle ugv1",
        ),
        (
            "timeline:\n  - { at: 1s, action: link.drop, colour: red }\n",
            "timeline[0].colour",
            "unknown field `colour`",
        ),
        (
            "assertions:\n  - { type: topic_value, topic: /ugv1/odom, field: x, value: 1, mode: sometimes }\n",
            "assertions[0].mode",
            "\"sometimes\" is not one of always, eventually",
        ),
        (
            "assertions:\n  - { type: topic_value, topic: ugv1/odom, field: x, value: 1 }\n",
            "assertions[0].topic",
            "not a fully qualified topic",
        ),
        (
            "assertions:\n  - { type: topic_value, topic: /ugv1/odom, field: x, value: 1, entry: nothing }\n",
            "assertions[0].entry",
            "\"nothing\" is not an entry",
        ),
        (
            "assertions:\n  - { type: close_enough }\n",
            "assertions[0].type",
            "\"close_enough\" is not one of topic_value",
        ),
        (
            "assertions:\n  - { type: topic_value, topic: /ugv1/odom, field: x, op: lt, value: fast }\n",
            "assertions[0].op",
            "does not compare strings",
        ),
        (
            "record:\n  topics: [/ugv1/mystery]\n",
            "record.types",
            "the type of /ugv1/mystery is unknown",
        ),
        // Bounds: a minimum period, a maximum duration, positive timeouts.
        (
            "timeline:\n  - { at: 1s, action: link.drop }\n  - { at: 2s, action: link.restore }\n  - { at: 3s, action: link.drop }\n  - { every: 1e-12s, action: link.restore }\n",
            "timeline[3].every",
            "1e-12 s is below the minimum period of 0.01 s (10 ms)",
        ),
        (
            "timeline:\n  - { every: 0s, action: link.restore }\n",
            "timeline[0].every",
            "0 s is below the minimum period",
        ),
        (
            "duration_s: 1e300s\n",
            "duration_s",
            "\"1e300s\" is above the maximum duration of 604800 s (7 days)",
        ),
        (
            "timeline:\n  - { at: 604801, action: link.drop }\n",
            "timeline[0].at",
            "604801 is above the maximum duration of 604800 s",
        ),
        (
            "timeline:\n  - { at: 1s, action: link.drop, duration_s: 1e300 }\n",
            "timeline[0].duration_s",
            "1e300 is above the maximum duration",
        ),
        (
            "timeouts: { ready_s: 0s }\n",
            "timeouts.ready_s",
            "0 s must be above 0",
        ),
        (
            "timeouts: { shutdown_s: 0 }\n",
            "timeouts.shutdown_s",
            "0 s must be above 0",
        ),
        (
            "timeouts: { ground_s: 1e9 }\n",
            "timeouts.ground_s",
            "above the maximum duration",
        ),
        (
            "duration_s: 604800s\ntimeline:\n  - { every: 10ms, action: link.restore }\n",
            "timeline[0].every",
            "fires 60480001 times, more than 100000",
        ),
        // record.types: every entry a known type, for a recorded topic.
        (
            "record:\n  types: { /ugv1/elsewhere: my_msgs/msg/Odometry }\n",
            "record.types./ugv1/elsewhere",
            "\"my_msgs/msg/Odometry\" is not a message type fieldproof knows",
        ),
        (
            "record:\n  types: { /ugv1/elsewhere: std_msgs/msg/String }\n",
            "record.types./ugv1/elsewhere",
            "/ugv1/elsewhere is not recorded",
        ),
        (
            "record:\n  types: { not a topic: std_msgs/msg/String }\n",
            "record.types.not a topic",
            "\"not a topic\" is not a fully qualified topic name",
        ),
    ];
    for (extra, path, msg) in cases {
        let (p, text) = err_of(extra);
        assert_eq!(&p, path, "{extra}: {text}");
        assert!(text.contains(msg), "{extra}: {text}");
    }
}

#[test]
fn bounded_values_pass_at_their_bounds() {
    let s = load_text(&format!(
        "{BASE}duration_s: 604800s\ntimeline:\n  - {{ every: 10ms, until_s: 100s, action: link.restore }}\n  - {{ every: 10s, action: link.restore }}\ntimeouts: {{ ready_s: 1ms, run_s: 604800 }}\n"
    ))
    .unwrap();
    assert!(matches!(
        s.timeline[0].trigger,
        Trigger::Every { period_s, .. } if period_s == model::MIN_EVERY_PERIOD_S
    ));
    assert_eq!(s.duration_s, 604_800.0);
    let s = load_text(&format!(
        "{BASE}record:\n  topics: [/ugv1/mine]\n  types: {{ /ugv1/mine: std_msgs/String }}\n"
    ))
    .unwrap();
    assert_eq!(s.recorded_topics["/ugv1/mine"], "std_msgs/String");
}

#[test]
fn deeply_nested_or_huge_files_are_refused_before_parsing() {
    for nested in [
        "[".repeat(100_000) + &"]".repeat(100_000),
        "{a: ".repeat(50_000) + &"}".repeat(50_000),
        format!("{BASE}description: {}", "[".repeat(100_000)),
    ] {
        let e = load_text(&nested).unwrap_err();
        assert!(matches!(e, ScenarioError::Refused { .. }), "{e}");
        let text = e.to_string();
        assert!(text.contains(".test_"), "names the file: {text}");
        assert!(
            text.contains("nested deeper than the limit of 64 levels (line"),
            "{text}"
        );
    }
    let huge = format!("{BASE}description: \"{}\"\n", "x".repeat(2 << 20));
    let e = load_text(&huge).unwrap_err();
    let text = e.to_string();
    assert!(
        text.contains("more than the limit of 1048576 bytes for a YAML file"),
        "{text}"
    );
    // Brackets in text are no nesting.
    let s = load_text(&format!("{BASE}description: \"{}\"\n", "[".repeat(1000))).unwrap();
    assert_eq!(s.raw.description.len(), 1000);
}

#[test]
fn return_home_needs_a_stack_that_goes_home() {
    let dir = repo().join("config/scenarios");
    let manifest = tempfile::Builder::new()
        .prefix(".test_robot_")
        .suffix(".yaml")
        .tempfile_in(&dir)
        .unwrap();
    std::fs::write(
        manifest.path(),
        "extends: ../../robots/ugv_nav2/robot.yaml\nruntime:\n  link:\n    loss_action: return_home\n",
    )
    .unwrap();
    let name = manifest.path().file_name().unwrap().to_string_lossy();
    let scenario = |extra: &str| {
        format!("name: t\nworld: ../../worlds/depot.yaml\nvehicles:\n  - {{ name: ugv1, manifest: {name}, spawn: spawn_dock{extra} }}\n")
    };
    let e = load_text(&scenario("")).unwrap_err();
    assert_eq!(e.path(), "vehicles[0].manifest", "{e}");
    assert!(
        e.to_string().contains(
            "runtime.link.loss_action: return_home: the stack goal_driver has no return-home behaviour"
        ),
        "{e}"
    );
    let e = load_text(&scenario(", stack: none")).unwrap_err();
    assert!(
        e.to_string().contains("the stack none has no return-home"),
        "{e}"
    );
    // Without the failsafe nothing acts on the loss of the link.
    let s = load_text(&scenario(", failsafe: false")).unwrap();
    assert!(!s.vehicles[0].failsafe);
}

#[test]
fn bad_vehicles_and_network() {
    let e = load_text("name: t\nworld: ../../worlds/depot.yaml\nvehicles:\n  - { name: ugv1, manifest: ../../robots/ugv_nav2/robot.yaml, spawn: nowhere }\n").unwrap_err();
    assert_eq!(e.path(), "vehicles[0].spawn");
    assert!(e
        .to_string()
        .contains("\"nowhere\" is not a frame of world depot"));
    let e = load_text("name: t\nworld: ../../worlds/depot.yaml\nvehicles:\n  - { name: ugv1, manifest: ../../robots/none/robot.yaml, spawn: spawn_dock }\n").unwrap_err();
    assert_eq!(e.path(), "vehicles[0].manifest");
    let e = load_text(&BASE.replace(
        "profile: lte_rural }",
        "profile: lte_rural, links: { ugv9: wifi_good } }",
    ))
    .unwrap_err();
    assert_eq!(e.path(), "network.links.ugv9");
    let e = load_text(&BASE.replace(
        "profile: lte_rural }",
        "profile: lte_rural, profiles: { bad: { latency_ms: -3 } } }",
    ))
    .unwrap_err();
    assert_eq!(e.path(), "network.profiles.bad.latency_ms", "{e}");
    let e = load_text("name: t\nworld: ../../worlds/depot.yaml\nvehicles:\n  - { name: ugv1, manifest: ../../robots/ugv_nav2/robot.yaml, spawn: spawn_dock }\ntimeline:\n  - { at: 1s, action: link.drop }\n").unwrap_err();
    assert_eq!(e.path(), "timeline[0].action");
    assert!(e.to_string().contains("needs a network section"));
    let e = load_text("name: t\nworld: ../../worlds/depot.yaml\nvehicles:\n  - { name: ugv1, manifest: ../../robots/ugv_nav2/robot.yaml, spawn: spawn_dock, without: [sonar] }\n").unwrap_err();
    assert_eq!(e.path(), "vehicles[0].without", "{e}");
    let ok = load_text("name: t\nworld: ../../worlds/depot.yaml\nvehicles:\n  - { name: ugv1, manifest: ../../robots/ugv_nav2/robot.yaml, spawn: spawn_dock, without: [camera] }\n").unwrap();
    assert!(ok.vehicles[0]
        .bundle
        .nodes
        .iter()
        .all(|n| !n.name.starts_with("camera")));
    let e =
        load_text("name: Bad Name\nworld: ../../worlds/depot.yaml\nvehicles: []\n").unwrap_err();
    assert_eq!(e.path(), "name");
}

#[test]
fn the_failsafe_and_the_stacks_command_topic() {
    let veh = |extra: &str, manifest: &str| {
        format!("name: t\nworld: ../../worlds/depot.yaml\nvehicles:\n  - {{ name: ugv1, manifest: ../../robots/{manifest}/robot.yaml, spawn: spawn_dock{extra} }}\n")
    };
    // Default: the manifest's runtime.link decides; the stack publishes upstream of it.
    let s = load_text(&veh("", "ugv_nav2")).unwrap();
    assert!(s.vehicles[0].failsafe);
    assert_eq!(s.vehicles[0].stack_cmd_vel, "cmd_vel_nav");
    // The run waits for this topic to be true before its timeline.
    assert_eq!(
        model::failsafe_state_topic(&s.vehicles[0]).as_deref(),
        Some("/ugv1/link_state")
    );
    let s = load_text(&veh("", "ugv_ref")).unwrap();
    assert!(!s.vehicles[0].failsafe);
    assert_eq!(s.vehicles[0].stack_cmd_vel, "cmd_vel");
    assert_eq!(model::failsafe_state_topic(&s.vehicles[0]), None);
    // Disabled: the stack drives the base; link_monitor is no node to kill any more.
    let s = load_text(&veh(", failsafe: false", "ugv_nav2")).unwrap();
    assert!(!s.vehicles[0].failsafe);
    assert_eq!(s.vehicles[0].stack_cmd_vel, "cmd_vel");
    assert_eq!(model::failsafe_state_topic(&s.vehicles[0]), None);
    let e = load_text(&format!(
        "{}timeline:\n  - {{ at: 1s, action: process.kill, node: link_monitor }}\n",
        veh(", failsafe: false", "ugv_nav2")
    ))
    .unwrap_err();
    assert_eq!(e.path(), "timeline[0].node", "{e}");
    assert!(e
        .to_string()
        .contains("\"link_monitor\" is not a node of vehicle ugv1"));
    // Asked for where the manifest has none.
    let e = load_text(&veh(", failsafe: true", "ugv_ref")).unwrap_err();
    assert_eq!(e.path(), "vehicles[0].failsafe");
    assert!(e.to_string().contains("has no runtime.link"), "{e}");
    // A runtime.link without a heartbeat: the ground station sends it none, so there is no
    // failsafe by default (it would never arm), and asking for one is refused.
    let dir = repo().join("robots");
    let m = tempfile::Builder::new()
        .prefix(".test_")
        .suffix(".yaml")
        .tempfile_in(&dir)
        .unwrap();
    std::fs::write(
        m.path(),
        "extends: ugv_nav2/robot.yaml\nname: no_beat\nruntime: { link: { heartbeat: ~ } }\n",
    )
    .unwrap();
    let file = m.path().file_name().unwrap().to_str().unwrap();
    let veh_at = |extra: &str| {
        format!("name: t\nworld: ../../worlds/depot.yaml\nvehicles:\n  - {{ name: ugv1, manifest: ../../robots/{file}, spawn: spawn_dock{extra} }}\nnetwork: {{ profile: lte_rural }}\n")
    };
    let s = load_text(&veh_at("")).unwrap();
    assert!(s.vehicles[0]
        .manifest
        .runtime
        .as_ref()
        .unwrap()
        .link
        .is_some());
    assert!(!s.vehicles[0].failsafe);
    assert_eq!(s.vehicles[0].stack_cmd_vel, "cmd_vel");
    assert_eq!(model::failsafe_state_topic(&s.vehicles[0]), None);
    let e = load_text(&veh_at(", failsafe: true")).unwrap_err();
    assert_eq!(e.path(), "vehicles[0].failsafe");
    assert!(
        e.to_string().contains("has no runtime.link.heartbeat"),
        "{e}"
    );
    // An absolute heartbeat topic stays absolute: recorded there, with its type known.
    std::fs::write(
        m.path(),
        "extends: ugv_nav2/robot.yaml\nname: abs_beat\nruntime: { link: { heartbeat: { topic: /gcs/beat, rate_hz: 2 } } }\n",
    )
    .unwrap();
    let s = load_text(&veh_at("")).unwrap();
    assert!(s.vehicles[0].failsafe);
    assert_eq!(
        model::heartbeat_topic(&s.vehicles[0]).as_deref(),
        Some("/gcs/beat")
    );
    assert_eq!(
        s.recorded_topics.get("/gcs/beat").map(String::as_str),
        Some("std_msgs/msg/Header")
    );
    // A custom stack's topic: used, checked, never the failsafe's own output.
    let launch = ", stack: { launch: ../../src/fieldproof_stack/launch/goal_driver.launch.yaml, cmd_vel: nav/cmd_vel }";
    let s = load_text(&veh(launch, "ugv_nav2")).unwrap();
    assert_eq!(s.vehicles[0].stack_cmd_vel, "nav/cmd_vel");
    assert_eq!(
        model::known_types(&s.vehicles, false)["/ugv1/nav/cmd_vel"],
        "geometry_msgs/msg/Twist"
    );
    let e = load_text(&veh(&launch.replace("nav/cmd_vel", "cmd_vel"), "ugv_nav2")).unwrap_err();
    assert_eq!(e.path(), "vehicles[0].stack.cmd_vel");
    assert!(e.to_string().contains("link_monitor publishes"), "{e}");
    let e = load_text(&veh(&launch.replace("nav/cmd_vel", "9bad"), "ugv_nav2")).unwrap_err();
    assert_eq!(e.path(), "vehicles[0].stack.cmd_vel");
    let e = load_text(&veh(
        ", stack: { launch: ../../src/fieldproof_stack/launch/goal_driver.launch.yaml, args: { namespace: x } }",
        "ugv_nav2",
    ))
    .unwrap_err();
    assert_eq!(e.path(), "vehicles[0].stack.args.namespace", "{e}");
}
