//! Evaluation over synthetic samples: each check passes on what it asks for and fails
//! naming why.

use super::*;
use crate::model::{Action, Entry, PoseSpec, Trigger, Window};

fn cond(topic: &str, field: &str, op: Op, value: Value, abs: bool) -> Condition {
    Condition {
        topic: topic.into(),
        fields: vec![field.into()],
        op,
        value,
        abs,
    }
}

fn timeline_drop_at_10_for_30() -> Timeline {
    let mut tl = Timeline::new(vec![Entry {
        name: "link_outage".into(),
        action_name: "link.drop".into(),
        vehicle: Some("ugv1".into()),
        trigger: Trigger::At(10.0),
        action: Action::LinkDrop,
        duration_s: Some(30.0),
    }]);
    tl.poll(10.0, &|_| false);
    tl.poll(40.0, &|_| false);
    tl
}

fn store() -> Store {
    let mut s = Store::new();
    // link_state false from 14 s to 42 s.
    for i in 0..600 {
        let t = i as f64 * 0.1;
        s.push(
            "/ugv1/link_state",
            t,
            json!({"data": !(14.0..42.0).contains(&t)}),
        );
        let v = if (16.0..42.0).contains(&t) { 0.01 } else { 0.8 };
        s.push(
            "/ugv1/odom",
            t,
            json!({"twist": {"twist": {"linear": {"x": -v}}}}),
        );
        let x = t * 0.5;
        s.push(
            "/fieldproof/truth/ugv1/pose",
            t,
            json!({"pose": {"position": {"x": x, "y": 0.0}}}),
        );
    }
    s
}

/// `/ugv1/link_state data == value`.
fn link_state_is(value: bool) -> Condition {
    cond(
        "/ugv1/link_state",
        "data",
        Op::Eq,
        Value::Bool(value),
        false,
    )
}

fn window(entry: bool, from_end: bool, after: f64, within: Option<f64>) -> Window {
    Window {
        entry: entry.then(|| (0, "link_outage".into())),
        from_end,
        after_s: after,
        within_s: within,
    }
}

fn eval(check: Check, w: Window, s: &Store, tl: &Timeline) -> Outcome {
    let truth = vec![(
        "ugv1".to_string(),
        "/fieldproof/truth/ugv1/pose".to_string(),
    )];
    let ev = Evidence {
        store: s,
        timeline: tl,
        end_s: 59.9,
        links: None,
        truth_topics: &truth,
    };
    evaluate_one(
        &Assertion {
            name: "a".into(),
            check,
            window: w,
        },
        &ev,
    )
}

#[test]
fn eventually_and_always_in_windows_relative_to_an_entry() {
    let (s, tl) = (store(), timeline_drop_at_10_for_30());
    let lost = link_state_is(false);
    let o = eval(
        Check::TopicValue {
            condition: lost.clone(),
            mode: Mode::Eventually,
        },
        window(true, false, 0.0, Some(15.0)),
        &s,
        &tl,
    );
    assert!(o.passed, "{o:?}");
    assert_eq!(o.window_s, Some([10.0, 25.0]));
    // Its observation as a sentence: link_state fell 14 s into the run, 4 s after the drop.
    assert!(
        o.summary.starts_with(
            "/ugv1/link_state data == false first true 4.00 s after link_outage started (window 15 s; "
        ),
        "{}",
        o.summary
    );
    // Too short a window: fails and says why.
    let o = eval(
        Check::TopicValue {
            condition: lost,
            mode: Mode::Eventually,
        },
        window(true, false, 0.0, Some(3.0)),
        &s,
        &tl,
    );
    assert!(!o.passed);
    // A failed assertion's sentence is its reason, without its name.
    assert!(
        o.summary
            .starts_with("/ugv1/link_state data == false never true between 10.00 s and 13.00 s"),
        "{}",
        o.summary
    );
    assert!(o.reason.unwrap().contains("never true"));
    // |speed| < 0.05 from 13 s after the drop to just before the restore.
    let slow = cond(
        "/ugv1/odom",
        "twist.twist.linear.x",
        Op::Lt,
        Value::Number(0.05),
        true,
    );
    let o = eval(
        Check::TopicValue {
            condition: slow.clone(),
            mode: Mode::Always,
        },
        window(true, false, 13.0, Some(29.5)),
        &s,
        &tl,
    );
    assert!(o.passed, "{o:?}");
    assert!(
        o.summary.starts_with("/ugv1/odom |twist.twist.linear.x| < 0.05 in all ")
            && o.summary.ends_with(
                " samples over 16.5 s from 13.00 s after link_outage started (window 13 s to 29.5 s)"
            ),
        "{}",
        o.summary
    );
    // From 5 s after the drop it was still moving: fails naming the sample.
    let o = eval(
        Check::TopicValue {
            condition: slow,
            mode: Mode::Always,
        },
        window(true, false, 5.0, Some(29.5)),
        &s,
        &tl,
    );
    assert!(!o.passed);
    assert!(
        o.reason.as_ref().unwrap().contains("not always true"),
        "{o:?}"
    );
    assert_eq!(o.observed["first_miss"]["value"], json!(-0.8));
    // link_state true within 25 s of the restore (the entry's end).
    let back = cond("/ugv1/link_state", "data", Op::Eq, Value::Bool(true), false);
    let o = eval(
        Check::TopicValue {
            condition: back,
            mode: Mode::Eventually,
        },
        window(true, true, 0.0, Some(25.0)),
        &s,
        &tl,
    );
    assert!(o.passed);
    assert_eq!(o.window_s, Some([40.0, 59.9]));
}

#[test]
fn each_outcome_says_what_was_observed_as_a_sentence() {
    let (s, tl) = (store(), timeline_drop_at_10_for_30());
    let o = eval(
        Check::Reached {
            vehicle: "ugv1".into(),
            goal: Some("g".into()),
            pose: PoseSpec {
                xyz: [18.0, 0.0, 0.0],
                yaw_deg: 0.0,
            },
            radius_m: 1.0,
        },
        window(false, false, 0.0, None),
        &s,
        &tl,
    );
    assert!(
        o.summary
            .starts_with("ugv1 within 1 m of g 34.00 s after the timeline's start; closest 0.00 m"),
        "{}",
        o.summary
    );
    let o = eval(
        Check::MinRate {
            topic: "/ugv1/odom".into(),
            hz: 9.0,
        },
        window(false, false, 0.0, Some(50.0)),
        &s,
        &tl,
    );
    assert!(
        o.summary.starts_with("/ugv1/odom at 10.")
            && o.summary.contains(" Hz over 50.0 s (")
            && o.summary.ends_with("samples; at least 9 Hz)"),
        "{}",
        o.summary
    );
    let o = eval(
        Check::NoCollision {
            vehicle: Some("ugv1".into()),
        },
        window(false, false, 0.0, None),
        &s,
        &tl,
    );
    assert_eq!(
        o.summary,
        "no collision of ugv1 in 59.9 s of the simulator's truth"
    );
}

#[test]
fn no_samples_fail() {
    let (s, tl) = (store(), timeline_drop_at_10_for_30());
    let c = cond("/ugv1/none", "data", Op::Eq, Value::Bool(true), false);
    let o = eval(
        Check::TopicValue {
            condition: c,
            mode: Mode::Always,
        },
        window(false, false, 0.0, None),
        &s,
        &tl,
    );
    assert!(!o.passed);
    assert!(o
        .reason
        .unwrap()
        .starts_with("assertion a: no samples of /ugv1/none between 0.00 s and 59.90 s"));
}

#[test]
fn reached_and_collisions_and_rates() {
    let (mut s, tl) = (store(), timeline_drop_at_10_for_30());
    let goal = |x| Check::Reached {
        vehicle: "ugv1".into(),
        goal: Some("g".into()),
        pose: PoseSpec {
            xyz: [x, 0.0, 0.0],
            yaw_deg: 0.0,
        },
        radius_m: 1.0,
    };
    let o = eval(goal(18.0), window(false, false, 0.0, None), &s, &tl);
    assert!(o.passed, "{o:?}");
    let o = eval(goal(100.0), window(false, false, 0.0, None), &s, &tl);
    assert!(!o.passed);
    assert!(o.reason.unwrap().contains("no closer than"));

    let nc = Check::NoCollision {
        vehicle: Some("ugv1".into()),
    };
    assert!(eval(nc.clone(), window(false, false, 0.0, None), &s, &tl).passed);
    s.push(
        crate::model::COLLISIONS_TOPIC,
        20.0,
        json!({"data": "{\"event\":\"begin\",\"vehicle\":\"ugv1\",\"other\":\"pillar_a\"}"}),
    );
    let o = eval(nc, window(false, false, 0.0, None), &s, &tl);
    assert!(!o.passed);
    assert!(o.reason.unwrap().contains("pillar_a"));

    let w = window(false, false, 0.0, Some(50.0));
    assert!(
        eval(
            Check::MinRate {
                topic: "/ugv1/odom".into(),
                hz: 9.0
            },
            w.clone(),
            &s,
            &tl
        )
        .passed
    );
    assert!(
        !eval(
            Check::MaxRate {
                topic: "/ugv1/odom".into(),
                hz: 5.0
            },
            w,
            &s,
            &tl
        )
        .passed
    );
}

#[test]
fn unchanged_fields() {
    let (mut s, tl) = (store(), timeline_drop_at_10_for_30());
    for i in 0..50 {
        let t = i as f64 * 0.2;
        let sec = if t < 5.0 { 3 } else { i };
        s.push(
            "/ugv1/imu/data",
            t,
            json!({"header": {"stamp": {"sec": sec, "nanosec": 0}}}),
        );
    }
    let check = Check::Unchanged {
        topic: "/ugv1/imu/data".into(),
        fields: vec!["header.stamp.sec".into(), "header.stamp.nanosec".into()],
    };
    assert!(eval(check.clone(), window(false, false, 0.0, Some(4.9)), &s, &tl).passed);
    let o = eval(check, window(false, false, 0.0, Some(8.0)), &s, &tl);
    assert!(!o.passed);
    assert!(o.reason.unwrap().contains("changed to [25,0] at 5.00 s"));
}

#[test]
fn an_entry_that_never_ran_fails_the_window() {
    let s = store();
    let tl = Timeline::new(vec![Entry {
        name: "link_outage".into(),
        action_name: "link.drop".into(),
        vehicle: None,
        trigger: Trigger::At(100.0),
        action: Action::LinkDrop,
        duration_s: None,
    }]);
    let c = cond("/ugv1/link_state", "data", Op::Eq, Value::Bool(true), false);
    let o = eval(
        Check::TopicValue {
            condition: c,
            mode: Mode::Eventually,
        },
        window(true, false, 0.0, None),
        &s,
        &tl,
    );
    assert!(!o.passed);
    assert!(o
        .reason
        .unwrap()
        .contains("entry link_outage never started"));
}

/// A supervisor's mode: `values` as (time, mode), latched (one sample per change), with the
/// first published during the bring-up (negative time).
fn modes(values: &[(f64, &str)]) -> Store {
    let mut s = Store::new();
    for (t, m) in values {
        s.push("/quad1/supervisor/mode", *t, json!({ "data": m }));
    }
    s
}

fn texts(values: &[&str]) -> Vec<Value> {
    values.iter().map(|v| Value::Text(v.to_string())).collect()
}

fn sequence(transitions: &[&str], terminal: Option<&str>) -> Check {
    Check::Sequence {
        topic: "/quad1/supervisor/mode".into(),
        field: "data".into(),
        transitions: texts(transitions),
        terminal: terminal.map(|t| Value::Text(t.into())),
    }
}

const RECOVERED: &[(f64, &str)] = &[
    (-2.0, "INIT"),
    (1.0, "ACTIVE"),
    (12.0, "HOLD"),
    (14.5, "ACTIVE"),
    (40.0, "COMPLETE"),
];

#[test]
fn sequence_holds_the_transitions_in_order_and_the_terminal_value() {
    let tl = timeline_drop_at_10_for_30();
    let s = modes(RECOVERED);
    let all = window(false, false, 0.0, None);
    let o = eval(
        sequence(
            &["INIT", "ACTIVE", "HOLD", "ACTIVE", "COMPLETE"],
            Some("COMPLETE"),
        ),
        all.clone(),
        &s,
        &tl,
    );
    assert!(o.passed, "{o:?}");
    // The value held at the window's start (published during the bring-up) comes first.
    assert_eq!(
        o.observed["sequence"],
        json!(["INIT", "ACTIVE", "HOLD", "ACTIVE", "COMPLETE"])
    );
    assert_eq!(
        o.observed["changes"][0],
        json!({"t_s": -2.0, "value": "INIT"})
    );
    assert_eq!(
        o.observed["matched_at_s"],
        json!([-2.0, 1.0, 12.0, 14.5, 40.0])
    );
    // A subsequence: values in between are allowed.
    assert!(eval(sequence(&["INIT", "COMPLETE"], None), all.clone(), &s, &tl).passed);
    assert!(eval(sequence(&[], Some("COMPLETE")), all.clone(), &s, &tl).passed);
    // Out of order: fails, naming the transition that never came and the sequence seen.
    let o = eval(sequence(&["HOLD", "INIT"], None), all.clone(), &s, &tl);
    assert!(!o.passed);
    assert_eq!(
        o.reason.unwrap(),
        "assertion a: /quad1/supervisor/mode data went INIT (-2.00 s) → ACTIVE (1.00 s) → HOLD (12.00 s) → ACTIVE (14.50 s) → COMPLETE (40.00 s): transition 2 of 2 (INIT) never came after HOLD (required: HOLD → INIT)"
    );
    assert_eq!(o.observed["matched"], 1);
    // The window starts after INIT and ACTIVE: ACTIVE is the value held at its start.
    let o = eval(
        sequence(&["ACTIVE", "HOLD", "ACTIVE"], Some("COMPLETE")),
        window(true, false, 0.0, None),
        &s,
        &tl,
    );
    assert!(o.passed, "{o:?}");
    assert_eq!(o.observed["sequence"][0], "ACTIVE");
}

#[test]
fn sequence_fails_on_another_terminal_value_and_on_a_flapping_mode() {
    let tl = timeline_drop_at_10_for_30();
    let all = window(false, false, 0.0, None);
    // Recovery, then LAND: the transitions hold, the terminal value does not.
    let s = modes(&[
        (-2.0, "INIT"),
        (1.0, "ACTIVE"),
        (12.0, "HOLD"),
        (14.0, "LAND"),
    ]);
    let o = eval(
        sequence(&["INIT", "ACTIVE", "HOLD"], Some("COMPLETE")),
        all.clone(),
        &s,
        &tl,
    );
    assert!(!o.passed);
    assert!(
        o.reason
            .as_ref()
            .unwrap()
            .ends_with("HOLD (12.00 s) → LAND (14.00 s): ends with LAND, not COMPLETE"),
        "{o:?}"
    );
    assert_eq!(o.observed["last"], "LAND");
    // Repeated samples of one value collapse into one.
    let s = modes(&[
        (0.0, "HOLD"),
        (0.5, "HOLD"),
        (1.0, "ACTIVE"),
        (1.5, "ACTIVE"),
    ]);
    let o = eval(
        sequence(&["HOLD", "ACTIVE"], Some("ACTIVE")),
        all.clone(),
        &s,
        &tl,
    );
    assert!(o.passed, "{o:?}");
    assert_eq!(o.observed["changes_total"], 2);
    // A flapping mode lists every change, and the reason stays one readable line.
    let flaps: Vec<(f64, &str)> = (0..100)
        .map(|i| (i as f64 * 0.5, if i % 2 == 0 { "HOLD" } else { "ACTIVE" }))
        .collect();
    let o = eval(sequence(&["HOLD", "LAND"], None), all, &modes(&flaps), &tl);
    assert!(!o.passed);
    assert_eq!(o.observed["changes_total"], 100);
    assert!(o.reason.unwrap().contains("→ … (100 values in all)"));
}

#[test]
fn sequence_of_numbers_and_booleans() {
    let tl = timeline_drop_at_10_for_30();
    let all = window(false, false, 0.0, None);
    let mut s = Store::new();
    for (t, level, ok) in [(0.0, 0, true), (5.0, 2, false), (9.0, 1, true)] {
        s.push("/quad1/status", t, json!({"level": level, "ok": ok}));
    }
    let check = |field: &str, transitions: Vec<Value>, terminal: Value| Check::Sequence {
        topic: "/quad1/status".into(),
        field: field.into(),
        transitions,
        terminal: Some(terminal),
    };
    let levels = check(
        "level",
        vec![Value::Number(0.0), Value::Number(2.0)],
        Value::Number(1.0),
    );
    assert!(eval(levels, all.clone(), &s, &tl).passed);
    let oks = check(
        "ok",
        vec![Value::Bool(true), Value::Bool(false)],
        Value::Bool(true),
    );
    let o = eval(oks, all.clone(), &s, &tl);
    assert!(o.passed, "{o:?}");
    assert_eq!(o.observed["sequence"], json!([true, false, true]));
    // A string never equals a number.
    let wrong = check("level", texts(&["0"]), Value::Number(1.0));
    assert!(!eval(wrong, all, &s, &tl).passed);
}

#[test]
fn a_sequence_that_cannot_be_evaluated_fails_naming_why() {
    let tl = timeline_drop_at_10_for_30();
    let all = window(false, false, 0.0, None);
    let o = eval(sequence(&["INIT"], None), all.clone(), &Store::new(), &tl);
    assert!(!o.passed);
    assert_eq!(
        o.reason.unwrap(),
        "assertion a: no samples of /quad1/supervisor/mode between 0.00 s and 59.90 s"
    );
    // Samples, none with a value at the field.
    let mut s = Store::new();
    s.push("/quad1/supervisor/mode", 1.0, json!({"mode": "INIT"}));
    let o = eval(sequence(&["INIT"], None), all, &s, &tl);
    assert!(!o.passed);
    assert!(o
        .reason
        .unwrap()
        .contains("none of the 1 samples of /quad1/supervisor/mode between 0.00 s and 59.90 s has a string, number or boolean at data"));
}

/// The truth of quad1 flying east at 1 m/s, 5 m up, at 50 Hz with stamps (the simulation
/// time is the timeline's + 100 s), and an estimate at 10 Hz `offset(t)` metres north of it,
/// received 0.3 s late.
fn flight(offset: impl Fn(f64) -> f64, stamped: bool) -> Store {
    let mut s = Store::new();
    let header = |t: f64| {
        let sim = t + 100.0;
        json!({"stamp": {"sec": sim.floor() as i64, "nanosec": ((sim - sim.floor()) * 1e9).round() as i64}})
    };
    for i in 0..3000 {
        let t = i as f64 * 0.02;
        s.push(
            "/fieldproof/truth/quad1/pose",
            t,
            json!({"header": header(t), "pose": {"position": {"x": t, "y": 0.0, "z": 5.0}}}),
        );
    }
    for i in 0..590 {
        let t = i as f64 * 0.1;
        let mut m = json!({"pose": {"pose": {"position": {"x": t, "y": offset(t), "z": 5.0}}}});
        if stamped {
            m["header"] = header(t);
        }
        s.push("/quad1/odometry/filtered", t + 0.3, m);
    }
    s
}

fn eval_estimate(max_m: f64, w: Window, s: &Store) -> Outcome {
    let tl = timeline_drop_at_10_for_30();
    let truth = vec![(
        "quad1".to_string(),
        "/fieldproof/truth/quad1/pose".to_string(),
    )];
    let ev = Evidence {
        store: s,
        timeline: &tl,
        end_s: 59.9,
        links: None,
        truth_topics: &truth,
    };
    evaluate_one(
        &Assertion {
            name: "estimate".into(),
            check: Check::EstimateError {
                vehicle: "quad1".into(),
                topic: "/quad1/odometry/filtered".into(),
                max_m,
            },
            window: w,
        },
        &ev,
    )
}

#[test]
fn estimate_error_compares_each_sample_with_the_truth_at_its_time() {
    let all = window(false, false, 0.0, None);
    // 0.5 m off, then 3 m off at 30 s and 2.5 m off until 32 s of the estimate's time.
    let s = flight(
        |t| match t {
            _ if (30.0..30.05).contains(&t) => 3.0,
            _ if (30.05..32.0).contains(&t) => 2.5,
            _ => 0.5,
        },
        true,
    );
    let o = eval_estimate(2.0, all.clone(), &s);
    assert!(!o.passed);
    assert_eq!(o.observed["time_base"], "header.stamp");
    assert_eq!(o.observed["over_bound"], 20);
    assert!((o.observed["max_error_m"].as_f64().unwrap() - 3.0).abs() < 1e-9);
    // The time of the maximum is when the sample was received, on the timeline.
    assert!((o.observed["max_error_at_s"].as_f64().unwrap() - 30.3).abs() < 1e-9);
    assert_eq!(
        o.reason.unwrap(),
        "assertion estimate: quad1's estimate on /quad1/odometry/filtered was 3.00 m from its truth at 30.30 s, above 2 m (20 of 590 samples above)"
    );
    // Within the bound; the 0.3 s delivery delay costs nothing (the stamps are compared).
    let o = eval_estimate(3.5, all.clone(), &s);
    assert!(o.passed, "{o:?}");
    assert_eq!(o.observed["samples"], 590);
    // A window after the excursion passes at 2 m.
    assert!(eval_estimate(2.0, window(false, false, 33.0, None), &s).passed);
    // Without stamps, the time of reception: the 0.3 s delay at 1 m/s shows.
    let s = flight(|_| 0.0, false);
    let o = eval_estimate(2.0, all, &s);
    assert!(o.passed, "{o:?}");
    assert_eq!(o.observed["time_base"], "received");
    assert!((o.observed["max_error_m"].as_f64().unwrap() - 0.3).abs() < 1e-6);
}

#[test]
fn a_truth_stamped_zero_at_the_simulations_start_leaves_the_stamps_in_use() {
    const TRUTH: &str = "/fieldproof/truth/quad1/pose";
    const ESTIMATE: &str = "/quad1/odometry/filtered";
    let at_zero = |x: f64| {
        json!({"header": {"stamp": {"sec": 0, "nanosec": 0}},
               "pose": {"position": {"x": x, "y": 0.0, "z": 0.0}}})
    };
    // The simulator's first truth (t = 0) caught by the recorder before the flight.
    let flown = flight(|_| 0.0, true);
    let mut s = Store::new();
    s.push(TRUTH, 0.0, at_zero(-50.0));
    for topic in [TRUTH, ESTIMATE] {
        for (t, m) in flown.samples(topic) {
            s.push(topic, *t, m.clone());
        }
    }
    let all = window(false, false, 0.0, None);
    let o = eval_estimate(2.0, all.clone(), &s);
    assert!(o.passed, "{o:?}");
    assert_eq!(o.observed["time_base"], "header.stamp");
    assert!(o.observed["max_error_m"].as_f64().unwrap() < 1e-6);
    // A zero stamp after stamped samples is not the simulation's start: reception times, and
    // the 0.3 s delivery delay at 1 m/s shows.
    s.push(TRUTH, 59.0, at_zero(59.0));
    let o = eval_estimate(2.0, all, &s);
    assert_eq!(o.observed["time_base"], "received");
    assert!((o.observed["max_error_m"].as_f64().unwrap() - 0.3).abs() < 1e-6);
}

#[test]
fn an_estimate_error_that_cannot_be_evaluated_fails_naming_why() {
    let all = window(false, false, 0.0, None);
    let o = eval_estimate(2.0, all.clone(), &Store::new());
    assert_eq!(
        o.reason.unwrap(),
        "assertion estimate: no samples of /quad1/odometry/filtered between 0.00 s and 59.90 s"
    );
    let mut s = Store::new();
    s.push(
        "/quad1/odometry/filtered",
        1.0,
        json!({"pose": {"pose": {"position": {"x": 0.0, "y": 0.0, "z": 0.0}}}}),
    );
    let o = eval_estimate(2.0, all.clone(), &s);
    assert!(o
        .reason
        .unwrap()
        .contains("no samples of /fieldproof/truth/quad1/pose (the truth pose of quad1)"));
    // Truth only before the estimate: nothing to compare with.
    s.push(
        "/fieldproof/truth/quad1/pose",
        0.0,
        json!({"pose": {"position": {"x": 0.0, "y": 0.0, "z": 0.0}}}),
    );
    let o = eval_estimate(2.0, all.clone(), &s);
    assert_eq!(
        o.reason.unwrap(),
        "assertion estimate: none of the 1 samples of /quad1/odometry/filtered between 0.00 s and 59.90 s falls within the truth of quad1"
    );
    // A non-finite estimate (recorded as null) fails.
    let mut s = flight(|_| 0.0, true);
    s.push(
        "/quad1/odometry/filtered",
        20.0,
        json!({"header": {"stamp": {"sec": 120, "nanosec": 0}}, "pose": {"pose": {"position": {"x": f64::NAN, "y": 0.0, "z": 0.0}}}}),
    );
    let o = eval_estimate(2.0, all, &s);
    assert_eq!(
        o.reason.unwrap(),
        "assertion estimate: quad1's estimate on /quad1/odometry/filtered has no finite position at 20.00 s (1 of 591 samples)"
    );
}

#[test]
fn every_check_without_samples_names_the_topic_the_same_way() {
    let (s, tl) = (store(), timeline_drop_at_10_for_30());
    let all = window(false, false, 0.0, None);
    for check in [
        Check::Unchanged {
            topic: "/ugv1/none".into(),
            fields: vec!["data".into()],
        },
        Check::MinRate {
            topic: "/ugv1/none".into(),
            hz: 1.0,
        },
        Check::Sequence {
            topic: "/ugv1/none".into(),
            field: "data".into(),
            transitions: vec![Value::Bool(true)],
            terminal: None,
        },
    ] {
        let o = eval(check, all.clone(), &s, &tl);
        assert!(!o.passed);
        assert!(
            o.reason
                .as_ref()
                .unwrap()
                .starts_with("assertion a: no samples of /ugv1/none between 0.00 s and 59.90 s"),
            "{o:?}"
        );
    }
    // No collision needs the simulator's truth in the window to say anything.
    let o = eval(
        Check::NoCollision {
            vehicle: Some("ugv1".into()),
        },
        window(false, false, 0.0, Some(10.0)),
        &Store::new(),
        &tl,
    );
    assert_eq!(
        o.reason.unwrap(),
        "assertion a: no samples of /fieldproof/truth/ugv1/pose between 0.00 s and 10.00 s (the simulator's truth: without it, no collision proves nothing)"
    );
    let o = eval(
        Check::Reached {
            vehicle: "ugv2".into(),
            goal: None,
            pose: PoseSpec {
                xyz: [0.0, 0.0, 0.0],
                yaw_deg: 0.0,
            },
            radius_m: 1.0,
        },
        all,
        &s,
        &tl,
    );
    assert!(!o.passed);
    assert!(o.reason.unwrap().contains("(the truth pose of ugv2)"));
}

/// Two vehicles' truth at 10 Hz for 60 s: ugv1 drives along x at 0.5 m/s from 2 m ahead,
/// ugv2 follows at 0.4 m/s until `stop_s`, then stops.
fn pair(stop_s: f64) -> Store {
    let mut s = Store::new();
    for i in 0..600 {
        let t = i as f64 * 0.1;
        s.push(
            "/fieldproof/truth/ugv1/pose",
            t,
            json!({"pose": {"position": {"x": 2.0 + 0.5 * t, "y": 0.0, "z": 0.0}}}),
        );
        let x2 = 0.4 * t.min(stop_s);
        s.push(
            "/fieldproof/truth/ugv2/pose",
            t,
            json!({"pose": {"position": {"x": x2, "y": 0.0, "z": 0.0}}}),
        );
    }
    s
}

fn eval_separation(min_m: f64, s: &Store) -> Outcome {
    let truth = vec![
        (
            "ugv1".to_string(),
            "/fieldproof/truth/ugv1/pose".to_string(),
        ),
        (
            "ugv2".to_string(),
            "/fieldproof/truth/ugv2/pose".to_string(),
        ),
    ];
    let tl = Timeline::new(Vec::new());
    let ev = Evidence {
        store: s,
        timeline: &tl,
        end_s: 60.0,
        links: None,
        truth_topics: &truth,
    };
    evaluate_one(
        &Assertion {
            name: "safety".into(),
            check: Check::Separation {
                vehicle: "ugv2".into(),
                other: "ugv1".into(),
                min_m,
            },
            window: window(false, false, 0.0, None),
        },
        &ev,
    )
}

#[test]
fn separation_is_the_closest_the_two_truths_came() {
    // ugv1 is the faster: the gap only grows from its 2 m at 0 s.
    let o = eval_separation(1.5, &pair(5.0));
    assert!(o.passed, "{o:?}");
    assert_eq!(o.observed["samples"], 600);
    assert!((o.observed["closest_m"].as_f64().unwrap() - 2.0).abs() < 1e-9);
    assert_eq!(o.observed["closest_at_s"], 0.0);
    let o = eval_separation(2.5, &pair(5.0));
    assert!(!o.passed);
    assert_eq!(
        o.reason.unwrap(),
        "assertion safety: ugv2 came 2.00 m from ugv1 at 0.00 s, closer than 2.5 m (50 of 600 samples)"
    );
    // Without the other's truth, nothing is compared: it fails naming why.
    let mut lone = Store::new();
    lone.push(
        "/fieldproof/truth/ugv2/pose",
        1.0,
        json!({"pose": {"position": {"x": 0.0, "y": 0.0, "z": 0.0}}}),
    );
    let o = eval_separation(1.0, &lone);
    assert!(o
        .reason
        .unwrap()
        .contains("no truth of ugv1 on /fieldproof/truth/ugv1/pose"));
    let o = eval_separation(1.0, &Store::new());
    assert!(o
        .reason
        .unwrap()
        .contains("no samples of /fieldproof/truth/ugv2/pose"));
}

/// A String sample carrying `counters` as JSON.
fn counters_msg(counters: serde_json::Value) -> serde_json::Value {
    json!({ "data": counters.to_string() })
}

/// The LoRa path in miniature: the source sends seqs 1..=20 and drops every 5th; the radio
/// (drop_oldest) drops seq 7, known when seq 8 arrives; the receiver starts listening at seq
/// 3 (seqs 1 and 2 are lost before it: counted at neither end) and accepts up to seq 18.
fn lora_store(receiver_gaps: u64) -> Store {
    let mut s = Store::new();
    let mut source_dropped = 0;
    let mut radio_dropped = 0;
    for seq in 1..=20u64 {
        let t = seq as f64 * 0.2;
        if seq % 5 == 0 {
            source_dropped += 1;
        }
        s.push(
            "/r1/source_stats",
            t,
            counters_msg(json!({ "seq": seq, "dropped": source_dropped })),
        );
        if seq % 5 != 0 {
            if seq == 8 {
                radio_dropped += 1;
            }
            s.push(
                "/r1/radio_stats",
                t + 0.01,
                counters_msg(
                    json!({ "last_received_seq": seq, "dropped_busy": radio_dropped, "dropped_loss": 0 }),
                ),
            );
        }
    }
    s.push(
        "/r2/link_stats",
        5.0,
        counters_msg(json!({ "seq_gaps": receiver_gaps, "first_seq": 3, "newest_seq": 18 })),
    );
    s
}

fn eval_accounting(s: &Store) -> Outcome {
    let tl = Timeline::new(Vec::new());
    let ev = Evidence {
        store: s,
        timeline: &tl,
        end_s: 59.9,
        links: None,
        truth_topics: &[],
    };
    evaluate_one(
        &Assertion {
            name: "gaps".into(),
            check: Check::SeqAccounting {
                topic: "/r2/link_stats".into(),
                counted: vec![
                    crate::model::CountedDrops {
                        topic: "/r1/source_stats".into(),
                        seq_field: "seq".into(),
                        fields: vec!["dropped".into()],
                        settled_after: 0,
                    },
                    crate::model::CountedDrops {
                        topic: "/r1/radio_stats".into(),
                        seq_field: "last_received_seq".into(),
                        fields: vec!["dropped_busy".into(), "dropped_loss".into()],
                        settled_after: 1,
                    },
                ],
            },
            window: window(false, false, 0.0, None),
        },
        &ev,
    )
}

#[test]
fn seq_accounting_counts_the_drops_between_the_first_and_newest_accepted_seq() {
    // Between seq 3 and 18: the source dropped 5, 10, 15 and the radio 7 -> 4 gaps.
    let o = eval_accounting(&lora_store(4));
    assert!(o.passed, "{o:?}");
    assert_eq!(o.observed["drops_counted"], 4);
    assert_eq!(o.observed["counted"][0]["drops"], 3);
    assert_eq!(o.observed["counted"][1]["drops"], 1);
    // One gap more than the drops counted: a loss nobody counted, named.
    let o = eval_accounting(&lora_store(5));
    assert!(!o.passed);
    assert_eq!(
        o.reason.unwrap(),
        "assertion gaps: /r2/link_stats: 5 seq gaps between seq 3 and 18, but 4 drops counted (/r1/source_stats 3 + /r1/radio_stats 1)"
    );
    // No receiver counters, or none with the seqs: fails naming why.
    let o = eval_accounting(&Store::new());
    assert!(o
        .reason
        .unwrap()
        .contains("no samples of /r2/link_stats between 0.00 s and 59.90 s"));
    let mut s = Store::new();
    s.push(
        "/r2/link_stats",
        1.0,
        counters_msg(json!({ "seq_gaps": 0, "first_seq": null, "newest_seq": null })),
    );
    let o = eval_accounting(&s);
    assert!(o.reason.unwrap().contains("no packet accepted"));
    // The radio never saw the seq after the newest: its count is not final.
    let mut s = lora_store(4);
    s.push(
        "/r2/link_stats",
        6.0,
        counters_msg(json!({ "seq_gaps": 4, "first_seq": 3, "newest_seq": 19 })),
    );
    let o = eval_accounting(&s);
    assert!(o
        .reason
        .unwrap()
        .contains("no sample of /r1/radio_stats with last_received_seq at or past 20"));
}

// The fleet (issue 19): `leases_exclusive` and `pad_error` over messages built as the fleet's
// nodes build them and recorded as the runner records them (serde_json of the message).

use crate::model::types::CarrierPad;
use fieldproof_msgs::builtin_interfaces::Time;
use fieldproof_msgs::fieldproof_interfaces::{Clearance, ClearanceRequest, FleetStatus};
use fieldproof_msgs::geometry_msgs::{Point, Pose, PoseArray, PoseStamped};
use fieldproof_msgs::std_msgs::Header;

const LAUNCH: u8 = ClearanceRequest::KIND_LAUNCH;
const LAND: u8 = ClearanceRequest::KIND_LAND;

/// The simulation time of `t` s of the timeline (the timeline starts at 100 s).
fn sim(t: f64) -> Time {
    Time::from_secs_f64(t + 100.0)
}

/// A header stamped at `t` s of the timeline, in the world frame.
fn header(t: f64) -> Header {
    Header {
        stamp: sim(t),
        frame_id: "world".into(),
    }
}

/// A vehicle's report at `t`, received at once.
fn report(s: &mut Store, t: f64, vehicle: &str, phase: u8, pad_error_m: f64) {
    let m = FleetStatus {
        header: header(t),
        vehicle: vehicle.into(),
        phase,
        pad_error_m,
        ..FleetStatus::default()
    };
    s.push("/fleet/status", t, serde_json::to_value(&m).unwrap());
}

/// A grant (or renewal) of lease `id` at `t`, expiring 2 s later.
fn grant(s: &mut Store, t: f64, vehicle: &str, kind: u8, id: u32) {
    let m = Clearance {
        header: header(t),
        vehicle: vehicle.into(),
        kind,
        request_id: id,
        granted: true,
        lease_id: id,
        expires: sim(t + 2.0),
        reason: "granted".into(),
    };
    s.push("/fleet/clearance", t, serde_json::to_value(&m).unwrap());
}

/// One climb or descent of a vehicle under a lease, from `from` to `to` (s of the timeline).
struct Manoeuvre<'a> {
    vehicle: &'a str,
    kind: u8,
    lease: u32,
    from: f64,
    to: f64,
    /// The vehicle renews its lease every second.
    renewed: bool,
    /// It ends with its MISSION (launch) or LANDED (land, 0.1 m from its pad) report at `to`.
    ended: bool,
}

impl<'a> Manoeuvre<'a> {
    fn new(vehicle: &'a str, kind: u8, lease: u32, (from, to): (f64, f64)) -> Self {
        Manoeuvre {
            vehicle,
            kind,
            lease,
            from,
            to,
            renewed: true,
            ended: true,
        }
    }

    fn unrenewed(self) -> Self {
        Manoeuvre {
            renewed: false,
            ..self
        }
    }

    fn unended(self) -> Self {
        Manoeuvre {
            ended: false,
            ..self
        }
    }

    /// Its messages: the vehicle waiting 0.5 s before, the grant at `from` (and its
    /// renewals), its CLIMBING or LANDING reports every 0.5 s from `from + 0.2` before `to`,
    /// its ending report.
    fn fly(&self, s: &mut Store) {
        let (waiting, flying, done) = if self.kind == LAUNCH {
            (
                FleetStatus::PHASE_WAITING_LAUNCH,
                FleetStatus::PHASE_CLIMBING,
                FleetStatus::PHASE_MISSION,
            )
        } else {
            (
                FleetStatus::PHASE_WAITING_LAND,
                FleetStatus::PHASE_LANDING,
                FleetStatus::PHASE_LANDED,
            )
        };
        report(s, self.from - 0.5, self.vehicle, waiting, f64::NAN);
        grant(s, self.from, self.vehicle, self.kind, self.lease);
        let mut renewal = self.from + 1.0;
        while self.renewed && renewal < self.to {
            grant(s, renewal, self.vehicle, self.kind, self.lease);
            renewal += 1.0;
        }
        let mut k = 0;
        while self.from + 0.2 + 0.5 * k as f64 <= self.to - 0.05 {
            let t = self.from + 0.2 + 0.5 * k as f64;
            report(s, t, self.vehicle, flying, f64::NAN);
            k += 1;
        }
        if self.ended {
            let pad_error_m = if done == FleetStatus::PHASE_LANDED {
                0.1
            } else {
                f64::NAN
            };
            report(s, self.to, self.vehicle, done, pad_error_m);
        }
    }
}

/// The three launches, one after the other.
fn launches(s: &mut Store) {
    Manoeuvre::new("quad1", LAUNCH, 1, (1.0, 5.0)).fly(s);
    Manoeuvre::new("quad2", LAUNCH, 2, (6.0, 10.0)).fly(s);
    Manoeuvre::new("quad3", LAUNCH, 3, (11.0, 15.0)).fly(s);
}

/// The fleet's sortie after quad1's launch (lease 1): quad2's and quad3's launches, then the
/// three landings, each under its lease in turn.
fn after_quad1_launched(s: &mut Store) {
    Manoeuvre::new("quad2", LAUNCH, 2, (6.0, 10.0)).fly(s);
    Manoeuvre::new("quad3", LAUNCH, 3, (11.0, 15.0)).fly(s);
    Manoeuvre::new("quad1", LAND, 4, (20.0, 24.0)).fly(s);
    Manoeuvre::new("quad2", LAND, 5, (25.0, 29.0)).fly(s);
    Manoeuvre::new("quad3", LAND, 6, (30.0, 34.0)).fly(s);
}

/// A fleet taking turns: the three launches, then the three landings.
fn fleet() -> Store {
    let mut s = Store::new();
    launches(&mut s);
    Manoeuvre::new("quad1", LAND, 4, (20.0, 24.0)).fly(&mut s);
    Manoeuvre::new("quad2", LAND, 5, (25.0, 29.0)).fly(&mut s);
    Manoeuvre::new("quad3", LAND, 6, (30.0, 34.0)).fly(&mut s);
    s
}

/// The store without the samples of `topic` that `drop` picks.
fn without(s: &Store, topic: &str, drop: impl Fn(&serde_json::Value) -> bool) -> Store {
    let mut out = Store::new();
    for t in s.topics() {
        for (at, m) in s.samples(t) {
            if !(t == topic && drop(m)) {
                out.push(t, *at, m.clone());
            }
        }
    }
    out
}

fn eval_fleet(name: &str, check: Check, s: &Store) -> Outcome {
    eval_fleet_in(name, check, s, window(false, false, 0.0, None))
}

fn eval_fleet_in(name: &str, check: Check, s: &Store, w: Window) -> Outcome {
    let tl = timeline_drop_at_10_for_30();
    let truth = vec![(
        "quad1".to_string(),
        "/fieldproof/truth/quad1/pose".to_string(),
    )];
    let ev = Evidence {
        store: s,
        timeline: &tl,
        end_s: 59.9,
        links: None,
        truth_topics: &truth,
    };
    evaluate_one(
        &Assertion {
            name: name.into(),
            check,
            window: w,
        },
        &ev,
    )
}

fn leases_check() -> Check {
    Check::LeasesExclusive {
        vehicles: vec!["quad1".into(), "quad2".into(), "quad3".into()],
        clearance_topic: "/fleet/clearance".into(),
        status_topic: "/fleet/status".into(),
        tolerance_s: 0.5,
    }
}

fn leases(s: &Store) -> Outcome {
    eval_fleet("leases", leases_check(), s)
}

#[test]
fn leases_taken_in_turn_pass() {
    let o = leases(&fleet());
    assert!(o.passed, "{o:?}");
    assert_eq!(o.kind, "leases_exclusive");
    let all = o.observed["leases"].as_array().unwrap();
    assert_eq!(all.len(), 6);
    // quad1's launch: granted at 1 s, renewed at 2, 3 and 4 s, ended by its MISSION report.
    assert_eq!(
        all[0],
        json!({"vehicle": "quad1", "kind": "launch", "id": 1, "from_s": 1.0, "to_s": 5.0,
               "ended_by": "MISSION report", "answers": 4})
    );
    assert_eq!(all[3]["kind"], "land");
    assert_eq!(all[3]["ended_by"], "LANDED report");
    assert_eq!(all[3]["to_s"], 24.0);
    assert_eq!(o.observed["counts"]["launch_leases"], 3);
    assert_eq!(o.observed["counts"]["land_leases"], 3);
    assert_eq!(o.observed["counts"]["climbing_reports"], 24);
    assert_eq!(o.observed["sim_time_at_start_s"], 100.0);
    assert_eq!(
        o.observed["per_vehicle"]["quad3"],
        json!({"climbed_under_lease": true, "landed_under_lease": true})
    );
}

#[test]
fn a_grant_to_another_vehicle_while_one_climbs_fails() {
    // A station granting without checking its book: quad2 at 3 s, while quad1 climbs.
    let mut s = fleet();
    grant(&mut s, 3.0, "quad2", LAUNCH, 7);
    let o = leases(&s);
    assert!(!o.passed);
    assert_eq!(
        o.reason.unwrap(),
        "assertion leases: quad2's launch lease 7 granted at 3.00 s while quad1's launch lease 1 was in force (1.00 s to 5.00 s): 2.00 s at once"
    );
    // Within the tolerance (a grant 0.3 s before the other's MISSION report), it passes.
    let mut s = fleet();
    grant(&mut s, 4.7, "quad2", LAUNCH, 7);
    assert!(leases(&s).passed);
}

#[test]
fn climbing_without_a_lease_fails() {
    // quad3 climbs though the station never granted it a launch lease.
    let s = without(&fleet(), "/fleet/clearance", |m| {
        m["vehicle"] == "quad3" && m["kind"] == LAUNCH
    });
    let o = leases(&s);
    assert!(!o.passed);
    assert_eq!(
        o.reason.unwrap(),
        "assertion leases: 2 violations: quad3 reported CLIMBING from 11.20 s to 14.70 s (8 reports) outside any launch lease of its own; quad3 never climbed (CLIMBING) under a launch lease"
    );
    assert_eq!(
        o.observed["per_vehicle"]["quad3"]["climbed_under_lease"],
        false
    );
    // A vehicle that never lands is named too.
    let s = without(&fleet(), "/fleet/status", |m| {
        m["vehicle"] == "quad2" && m["phase"] == FleetStatus::PHASE_LANDED
    });
    let o = leases(&s);
    assert!(o
        .reason
        .unwrap()
        .ends_with("quad2 never landed (LANDED) under a land lease"));
}

#[test]
fn renewals_extend_a_lease() {
    // Without its renewals quad1's launch lease ends at its expiry, 3 s: its climb goes on
    // outside it (beyond the 0.5 s tolerance).
    let mut s = Store::new();
    Manoeuvre::new("quad1", LAUNCH, 1, (1.0, 5.0))
        .unrenewed()
        .fly(&mut s);
    after_quad1_launched(&mut s);
    let o = leases(&s);
    assert!(!o.passed);
    assert_eq!(o.observed["leases"][0]["ended_by"], "expiry");
    assert_eq!(o.observed["leases"][0]["to_s"], 3.0);
    assert_eq!(
        o.reason.unwrap(),
        "assertion leases: quad1 reported CLIMBING from 3.70 s to 4.70 s (3 reports) outside any launch lease of its own"
    );
    // With them (the fleet above) it lasts to quad1's MISSION report at 5 s.
    assert_eq!(leases(&fleet()).observed["leases"][0]["to_s"], 5.0);
}

#[test]
fn a_lease_expired_or_given_up_frees_the_carrier_for_another_vehicle() {
    // quad1's land lease is not renewed (its link dropped): it expires at 22 s, quad1 climbs
    // back (WAITING_LAND at 22.2 s); quad2 is granted at 22.3 s; quad1 lands later.
    let mut s = Store::new();
    launches(&mut s);
    Manoeuvre::new("quad1", LAND, 4, (20.0, 22.0))
        .unrenewed()
        .unended()
        .fly(&mut s);
    report(&mut s, 22.2, "quad1", FleetStatus::PHASE_WAITING_LAND, 3.0);
    Manoeuvre::new("quad2", LAND, 5, (22.3, 26.3)).fly(&mut s);
    Manoeuvre::new("quad3", LAND, 6, (27.0, 31.0)).fly(&mut s);
    Manoeuvre::new("quad1", LAND, 7, (32.0, 36.0)).fly(&mut s);
    let o = leases(&s);
    assert!(o.passed, "{o:?}");
    let lease4 = &o.observed["leases"][3];
    assert_eq!(
        (lease4["id"].clone(), lease4["to_s"].clone()),
        (json!(4), json!(22.0))
    );
    assert_eq!(lease4["ended_by"], "expiry");
    // quad1 gives its lease up at 21 s (back to WAITING_LAND after LANDING): quad2 may be
    // granted at 21.2 s, before the expiry.
    let mut s = Store::new();
    launches(&mut s);
    Manoeuvre::new("quad1", LAND, 4, (20.0, 21.0))
        .unended()
        .fly(&mut s);
    report(&mut s, 21.0, "quad1", FleetStatus::PHASE_WAITING_LAND, 3.0);
    Manoeuvre::new("quad2", LAND, 5, (21.2, 25.2)).fly(&mut s);
    Manoeuvre::new("quad3", LAND, 6, (27.0, 31.0)).fly(&mut s);
    Manoeuvre::new("quad1", LAND, 7, (32.0, 36.0)).fly(&mut s);
    let o = leases(&s);
    assert!(o.passed, "{o:?}");
    assert_eq!(
        o.observed["leases"][3]["ended_by"],
        "WAITING_LAND report after LANDING (given up)"
    );
    // Without giving it up, quad1's lease is in force to its expiry at 22 s: the grant to
    // quad2 at 21.2 s fails.
    let s = without(&s, "/fleet/status", |m| {
        m["vehicle"] == "quad1" && m["phase"] == FleetStatus::PHASE_WAITING_LAND
    });
    let o = leases(&s);
    assert!(o
        .reason
        .unwrap()
        .contains("quad2's land lease 5 granted at 21.20 s while quad1's land lease 4 was in force (20.00 s to 22.00 s): 0.80 s at once"));
}

#[test]
fn leases_without_answers_or_reports_cannot_be_evaluated() {
    let o = leases(&Store::new());
    assert_eq!(
        o.reason.unwrap(),
        "assertion leases: no samples of /fleet/clearance between 0.00 s and 59.90 s"
    );
    let s = without(&fleet(), "/fleet/status", |_| true);
    assert_eq!(
        leases(&s).reason.unwrap(),
        "assertion leases: no samples of /fleet/status between 0.00 s and 59.90 s"
    );
    // Refusals only: no vehicle flew under a lease.
    let mut s = Store::new();
    report(&mut s, 1.0, "quad1", FleetStatus::PHASE_WAITING_LAUNCH, 0.0);
    let refusal = Clearance {
        header: header(1.0),
        vehicle: "quad1".into(),
        reason: "quad2 holds the launch lease".into(),
        ..Clearance::default()
    };
    s.push(
        "/fleet/clearance",
        1.0,
        serde_json::to_value(&refusal).unwrap(),
    );
    let o = leases(&s);
    assert_eq!(o.observed["counts"]["refusals"], 1);
    assert!(o
        .reason
        .unwrap()
        .starts_with("assertion leases: 6 violations: quad1 never climbed (CLIMBING) under a launch lease; quad1 never landed"));
}

/// The fleet, with the carrier driving east at 0.5 m/s (its pad 0 at x = 1 + 0.5 t, 10 Hz)
/// and quad1's truth (50 Hz) `off_m` north of its pad from 23 s on (it touches down at 24 s).
fn landing_on_the_carrier(off_m: f64) -> Store {
    let mut s = fleet();
    let pad0 = |t: f64| 1.0 + 0.5 * t;
    for i in 0..600 {
        let t = i as f64 * 0.1;
        let pads = PoseArray {
            header: header(t),
            poses: [(pad0(t), 0.0), (pad0(t) - 1.2, 0.8), (pad0(t) - 1.2, -0.8)]
                .into_iter()
                .map(|(x, y)| Pose {
                    position: Point { x, y, z: 1.2 },
                    ..Pose::default()
                })
                .collect(),
        };
        s.push("/carrier/pads", t, serde_json::to_value(&pads).unwrap());
    }
    for i in 0..3000 {
        let t = i as f64 * 0.02;
        let y = if t >= 23.0 { off_m } else { 3.0 };
        let truth = PoseStamped {
            header: header(t),
            pose: Pose {
                position: Point {
                    x: pad0(t),
                    y,
                    z: 1.3,
                },
                ..Pose::default()
            },
        };
        s.push(
            "/fieldproof/truth/quad1/pose",
            t,
            serde_json::to_value(&truth).unwrap(),
        );
    }
    s
}

fn pad(max_m: f64, with_pad: bool, s: &Store) -> Outcome {
    pad_bounds((max_m, max_m), with_pad, s)
}

/// `pad_error` with bounds (truth, report).
fn pad_bounds((max_m, report_max_m): (f64, f64), with_pad: bool, s: &Store) -> Outcome {
    let check = Check::PadError {
        vehicle: "quad1".into(),
        status_topic: "/fleet/status".into(),
        max_m,
        report_max_m,
        pad: with_pad.then(|| CarrierPad {
            topic: "/carrier/pads".into(),
            index: 0,
        }),
    };
    eval_fleet("pad", check, s)
}

#[test]
fn pad_error_at_touchdown_reported_and_true() {
    let s = landing_on_the_carrier(0.2);
    let o = pad(0.5, true, &s);
    assert!(o.passed, "{o:?}");
    assert_eq!(o.kind, "pad_error");
    assert_eq!(o.observed["touchdown_s"], 24.0);
    assert_eq!(o.observed["reported_pad_error_m"], 0.1);
    assert_eq!(o.observed["truth"]["distance_m"], 0.2);
    assert_eq!(o.observed["truth"]["time_base"], "header.stamp");
    // Its truth 0.2 m off is over a 0.15 m bound, though it reported 0.1 m.
    let o = pad(0.15, true, &s);
    assert_eq!(
        o.reason.unwrap(),
        "assertion pad: quad1's truth was 0.20 m from pad 0 of /carrier/pads at its touchdown (24.00 s), above 0.15 m"
    );
    // Both over a 0.05 m bound.
    let o = pad(0.05, true, &s);
    assert_eq!(
        o.reason.unwrap(),
        "assertion pad: quad1 touched down at 24.00 s 0.10 m from its pad by its own report (pad_error_m), above 0.05 m; quad1's truth was 0.20 m from pad 0 of /carrier/pads at its touchdown (24.00 s), above 0.05 m"
    );
    // Each against its own bound: the truth (0.2 m) within 0.25 m, the report (0.1 m) over
    // 0.05 m; then the other way round.
    let o = pad_bounds((0.25, 0.05), true, &s);
    assert_eq!(
        o.reason.unwrap(),
        "assertion pad: quad1 touched down at 24.00 s 0.10 m from its pad by its own report (pad_error_m), above 0.05 m"
    );
    assert_eq!(o.observed["report_max_m"], 0.05);
    let o = pad_bounds((0.15, 1.0), true, &s);
    assert_eq!(
        o.reason.unwrap(),
        "assertion pad: quad1's truth was 0.20 m from pad 0 of /carrier/pads at its touchdown (24.00 s), above 0.15 m"
    );
    assert!(pad_bounds((0.25, 0.15), true, &s).passed);
    // Without the pad's poses only the report counts.
    let o = pad(0.15, false, &fleet());
    assert!(o.passed, "{o:?}");
    assert_eq!(o.observed["truth"], Json::Null);
    // Given the pad but without its poses, or without the truth: cannot be evaluated.
    let o = pad(0.5, true, &without(&s, "/carrier/pads", |_| true));
    assert_eq!(
        o.reason.unwrap(),
        "assertion pad: no pose 0 on /carrier/pads (the pad of quad1) to compare its touchdown with"
    );
    let o = pad(0.5, true, &fleet());
    assert_eq!(
        o.reason.unwrap(),
        "assertion pad: no samples of /fieldproof/truth/quad1/pose (the truth pose of quad1) to compare its touchdown with"
    );
}

#[test]
fn pad_error_fails_without_a_report_or_a_touchdown() {
    // A NaN pad error (the vehicle did not know its pad) is recorded as null: no report.
    let s = without(&fleet(), "/fleet/status", |m| {
        m["vehicle"] == "quad1" && m["phase"] == FleetStatus::PHASE_LANDED
    });
    let mut with_nan = s.clone();
    report(
        &mut with_nan,
        24.0,
        "quad1",
        FleetStatus::PHASE_LANDED,
        f64::NAN,
    );
    let o = pad(0.5, false, &with_nan);
    assert_eq!(
        o.reason.unwrap(),
        "assertion pad: quad1 reported no pad error (NaN) at its touchdown (24.00 s)"
    );
    // Never LANDED after LANDING: never landed, named.
    let o = pad(0.5, false, &s);
    assert_eq!(
        o.reason.unwrap(),
        "assertion pad: quad1 never landed: no LANDED report after LANDING on /fleet/status between 0.00 s and 59.90 s (its last: LANDING at 23.70 s)"
    );
    // LANDED without LANDING first (on its pad from the start) is no touchdown.
    let mut s = Store::new();
    report(&mut s, 1.0, "quad1", FleetStatus::PHASE_LANDED, 0.0);
    assert!(pad(0.5, false, &s)
        .reason
        .unwrap()
        .contains("quad1 never landed"));
    let o = pad(0.5, false, &Store::new());
    assert_eq!(
        o.reason.unwrap(),
        "assertion pad: no samples of /fleet/status between 0.00 s and 59.90 s"
    );
}

#[test]
fn leases_from_the_bring_up_count() {
    // The station grants quad1's launch 3 s before the timeline starts (the fleet flies as
    // soon as its nodes are up); quad1 climbs into the timeline.
    let mut s = Store::new();
    Manoeuvre::new("quad1", LAUNCH, 1, (-3.0, 2.0)).fly(&mut s);
    after_quad1_launched(&mut s);
    let o = leases(&s);
    assert!(o.passed, "{o:?}");
    assert_eq!(o.observed["leases"][0]["from_s"], -3.0);
    // A second grant during the bring-up, to quad2, is caught by the window that starts with
    // the timeline...
    grant(&mut s, -2.0, "quad2", LAUNCH, 7);
    let o = leases(&s);
    assert!(o
        .reason
        .unwrap()
        .contains("quad2's launch lease 7 granted at -2.00 s while quad1's launch lease 1 was in force (-3.00 s to 2.00 s)"));
    // ...not by one from 1 s on, which still knows quad1's lease from before it: its climb
    // at 1.2 and 1.7 s is under it.
    let o = eval_fleet_in(
        "leases",
        leases_check(),
        &s,
        window(false, false, 1.0, None),
    );
    assert!(o.passed, "{o:?}");
}

#[test]
fn a_climb_begun_before_the_recorder_heard_the_station_is_not_judged() {
    // Run of stop 34: the station granted quad1's launch at 4.54 s of simulation; the recorder,
    // subscribing once the processes were up, heard its first answer (a refusal to quad2
    // naming quad1's lease) and quad1's first CLIMBING report at 4.625 s, and quad1's lease
    // first from its renewal at 5.605 s.
    let mut s = Store::new();
    report(&mut s, -0.4, "quad1", FleetStatus::PHASE_CLIMBING, f64::NAN);
    let refusal = Clearance {
        header: header(-0.4),
        vehicle: "quad2".into(),
        kind: LAUNCH,
        reason: "pad clearance held by quad1 (launch lease 1 until 4.92 s)".into(),
        ..Clearance::default()
    };
    s.push(
        "/fleet/clearance",
        -0.4,
        serde_json::to_value(&refusal).unwrap(),
    );
    report(&mut s, 0.2, "quad1", FleetStatus::PHASE_CLIMBING, f64::NAN);
    Manoeuvre::new("quad1", LAUNCH, 1, (0.6, 2.0)).fly(&mut s);
    after_quad1_launched(&mut s);
    let o = leases(&s);
    assert!(o.passed, "{o:?}");
    assert_eq!(
        o.observed["unjudged"],
        json!(["quad1 reported CLIMBING from -0.40 s to -0.40 s (1 reports) outside any launch lease of its own: begun before the recorder heard the station (its first answer at -0.40 s)"])
    );
    // A climb without a lease begun later than the tolerance after the first answer is
    // judged as before.
    let mut late = s.clone();
    report(
        &mut late,
        16.0,
        "quad2",
        FleetStatus::PHASE_CLIMBING,
        f64::NAN,
    );
    let o = leases(&late);
    assert!(
        o.reason
            .unwrap()
            .contains("quad2 reported CLIMBING from 16.00 s to 16.00 s (1 reports) outside any launch lease of its own"),
    );
}
