//! Assertion evaluation over the recorded samples, the timeline's outcome and the link
//! report. Each result carries what was observed, so run.json and the report show why.

use crate::model::{Assertion, Check, Condition, Mode, Op, Value};
use crate::store::{as_number, lookup, Store};
use crate::timeline::Timeline;
use fieldproof_link::analysis::{Report, Verdict};
use serde::Serialize;
use serde_json::{json, Value as Json};

/// The outcome of one assertion.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Outcome {
    /// The assertion's name.
    pub name: String,
    /// Its type.
    #[serde(rename = "type")]
    pub kind: String,
    /// Passed?
    pub passed: bool,
    /// The window evaluated (s from the timeline's start), when there is one.
    pub window_s: Option<[f64; 2]>,
    /// What was observed (samples, extremes, distances, rates).
    pub observed: Json,
    /// Why it failed (names the assertion).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

/// Whether one message satisfies a condition (every field must).
pub fn holds(c: &Condition, msg: &Json) -> bool {
    c.fields.iter().all(|f| match lookup(msg, f) {
        Some(v) => compare(v, c.op, &c.value, c.abs),
        None => false,
    })
}

/// Whether the newest sample of the condition's topic satisfies it.
pub fn holds_latest(store: &Store, c: &Condition) -> bool {
    store.latest(&c.topic).is_some_and(|(_, m)| holds(c, m))
}

fn compare(v: &Json, op: Op, want: &Value, abs: bool) -> bool {
    match want {
        Value::Text(w) => {
            let Some(s) = v.as_str() else { return false };
            match op {
                Op::Eq => s == w,
                Op::Ne => s != w,
                _ => false,
            }
        }
        Value::Bool(b) => {
            let Some(x) = as_number(v) else { return false };
            let w = if *b { 1.0 } else { 0.0 };
            cmp(x, op, w)
        }
        Value::Number(w) => {
            let Some(mut x) = as_number(v) else {
                return false;
            };
            if abs {
                x = x.abs();
            }
            cmp(x, op, *w)
        }
    }
}

fn cmp(x: f64, op: Op, w: f64) -> bool {
    match op {
        Op::Eq => x == w,
        Op::Ne => x != w,
        Op::Lt => x < w,
        Op::Le => x <= w,
        Op::Gt => x > w,
        Op::Ge => x >= w,
    }
}

/// What the assertions are evaluated against.
pub struct Evidence<'a> {
    /// The samples.
    pub store: &'a Store,
    /// The timeline after the run.
    pub timeline: &'a Timeline,
    /// The simulation time the timeline ran (its end).
    pub end_s: f64,
    /// The link report (with a network section).
    pub links: Option<&'a Report>,
    /// Truth pose topic per vehicle name.
    pub truth_topics: &'a [(String, String)],
}

fn describe(c: &Condition) -> String {
    let v = match &c.value {
        Value::Number(n) => n.to_string(),
        Value::Bool(b) => b.to_string(),
        Value::Text(s) => format!("\"{s}\""),
    };
    let f = c
        .fields
        .iter()
        .map(|f| if c.abs { format!("|{f}|") } else { f.clone() })
        .collect::<Vec<_>>()
        .join(", ");
    format!("{} {f} {} {v}", c.topic, c.op.symbol())
}

/// Evaluates every assertion.
pub fn evaluate(assertions: &[Assertion], ev: &Evidence) -> Vec<Outcome> {
    assertions.iter().map(|a| evaluate_one(a, ev)).collect()
}

fn kind_name(c: &Check) -> &'static str {
    match c {
        Check::TopicValue { .. } => "topic_value",
        Check::Reached { .. } => "reached",
        Check::NoCollision { .. } => "no_collision",
        Check::LinkVerdicts => "link_verdicts",
        Check::MaxRate { .. } => "max_rate",
        Check::MinRate { .. } => "min_rate",
        Check::Unchanged { .. } => "unchanged",
    }
}

/// Evaluates one assertion.
pub fn evaluate_one(a: &Assertion, ev: &Evidence) -> Outcome {
    let mut out = Outcome {
        name: a.name.clone(),
        kind: kind_name(&a.check).into(),
        passed: false,
        window_s: None,
        observed: Json::Null,
        reason: None,
    };
    // The window.
    let base = match &a.window.entry {
        None => Some(0.0),
        Some((i, _)) if a.window.from_end => ev.timeline.ended_s(*i),
        Some((i, _)) => ev.timeline.started_s(*i),
    };
    let Some(base) = base else {
        let (_, n) = a.window.entry.as_ref().expect("an entry");
        out.reason = Some(format!(
            "assertion {}: entry {n} never {}",
            a.name,
            if a.window.from_end {
                "ended"
            } else {
                "started"
            }
        ));
        return out;
    };
    let lo = base + a.window.after_s;
    let hi = a
        .window
        .within_s
        .map(|w| base + w)
        .unwrap_or(ev.end_s)
        .min(ev.end_s.max(lo));
    let windowed = !matches!(a.check, Check::LinkVerdicts);
    if windowed {
        out.window_s = Some([lo, hi]);
    }
    let fail = |out: &mut Outcome, why: String| {
        out.passed = false;
        out.reason = Some(format!("assertion {}: {why}", a.name));
    };
    match &a.check {
        Check::TopicValue { condition, mode } => {
            let samples: Vec<&(f64, Json)> = ev.store.window(&condition.topic, lo, hi).collect();
            let matching = samples.iter().filter(|(_, m)| holds(condition, m)).count();
            let first_match = samples
                .iter()
                .find(|(_, m)| holds(condition, m))
                .map(|(t, _)| *t);
            let first_miss = samples
                .iter()
                .find(|(_, m)| !holds(condition, m))
                .map(|(t, m)| (*t, fields_of(condition, m)));
            let (mut mn, mut mx) = (f64::INFINITY, f64::NEG_INFINITY);
            for (_, m) in &samples {
                for f in &condition.fields {
                    if let Some(x) = lookup(m, f).and_then(as_number) {
                        let x = if condition.abs { x.abs() } else { x };
                        mn = mn.min(x);
                        mx = mx.max(x);
                    }
                }
            }
            out.observed = json!({
                "condition": describe(condition),
                "mode": mode,
                "samples": samples.len(),
                "matching": matching,
                "first_match_s": first_match,
                "first_miss": first_miss.as_ref().map(|(t, v)| json!({"t_s": t, "value": v})),
                "min": mn.is_finite().then_some(mn),
                "max": mx.is_finite().then_some(mx),
            });
            match mode {
                _ if samples.is_empty() => fail(
                    &mut out,
                    format!(
                        "no sample of {} between {lo:.2} s and {hi:.2} s",
                        condition.topic
                    ),
                ),
                Mode::Always => match &first_miss {
                    None => out.passed = true,
                    Some((t, v)) => fail(
                        &mut out,
                        format!("{} not always true: {v} at {t:.2} s", describe(condition)),
                    ),
                },
                Mode::Eventually => {
                    if matching > 0 {
                        out.passed = true;
                    } else {
                        fail(
                            &mut out,
                            format!(
                                "{} never true between {lo:.2} s and {hi:.2} s ({} samples)",
                                describe(condition),
                                samples.len()
                            ),
                        )
                    }
                }
            }
        }
        Check::Reached {
            vehicle,
            goal,
            pose,
            radius_m,
        } => {
            let topic = ev
                .truth_topics
                .iter()
                .find(|(v, _)| v == vehicle)
                .map(|(_, t)| t.as_str())
                .unwrap_or("");
            let dist = |m: &Json| -> Option<f64> {
                let x = lookup(m, "pose.position.x").and_then(as_number)?;
                let y = lookup(m, "pose.position.y").and_then(as_number)?;
                Some(((x - pose.xyz[0]).powi(2) + (y - pose.xyz[1]).powi(2)).sqrt())
            };
            let ds: Vec<(f64, f64)> = ev
                .store
                .window(topic, lo, hi)
                .filter_map(|(t, m)| dist(m).map(|d| (*t, d)))
                .collect();
            let min = ds.iter().map(|d| d.1).fold(f64::INFINITY, f64::min);
            let first = ds.iter().find(|d| d.1 <= *radius_m).map(|d| d.0);
            out.observed = json!({
                "goal": goal,
                "goal_xy": [pose.xyz[0], pose.xyz[1]],
                "radius_m": radius_m,
                "samples": ds.len(),
                "min_distance_m": min.is_finite().then_some(min),
                "final_distance_m": ds.last().map(|d| d.1),
                "reached_at_s": first,
            });
            if first.is_some() {
                out.passed = true;
            } else if ds.is_empty() {
                fail(&mut out, format!("no truth pose of {vehicle} ({topic})"));
            } else {
                fail(
                    &mut out,
                    format!(
                        "{vehicle} came no closer than {min:.2} m to {} (radius {radius_m} m)",
                        goal.clone().unwrap_or_else(|| format!("{:?}", pose.xyz))
                    ),
                );
            }
        }
        Check::NoCollision { vehicle } => {
            let hits: Vec<Json> = ev
                .store
                .window(crate::model::COLLISIONS_TOPIC, lo, hi)
                .filter_map(|(t, m)| {
                    let ev: Json = serde_json::from_str(m.get("data")?.as_str()?).ok()?;
                    let begins = ev.get("event")?.as_str()? == "begin";
                    let v = ev.get("vehicle")?.as_str()?.to_string();
                    let mine = vehicle.as_ref().is_none_or(|x| *x == v);
                    (begins && mine).then(|| json!({"t_s": t, "event": ev}))
                })
                .collect();
            out.observed = json!({ "collisions": hits });
            if hits.is_empty() {
                out.passed = true;
            } else {
                let first = &hits[0];
                fail(
                    &mut out,
                    format!(
                        "{} collision(s), the first with {} at {:.2} s",
                        hits.len(),
                        first["event"]["other"].as_str().unwrap_or("?"),
                        first["t_s"].as_f64().unwrap_or(0.0)
                    ),
                );
            }
        }
        Check::LinkVerdicts => match ev.links {
            None => fail(&mut out, "no link report".into()),
            Some(r) => {
                let mut periods = Vec::new();
                let mut failed = Vec::new();
                for (link, lr) in &r.links {
                    for p in &lr.periods {
                        periods.push(json!({
                            "link": link, "profile": p.profile, "cause": p.cause,
                            "verdict": p.verdict, "latency_ms": p.measurement.latency_ms,
                        }));
                        if p.verdict == Verdict::Failed {
                            failed.push(p.reason.clone().unwrap_or_else(|| {
                                format!("link {link} period {} failed", p.cause)
                            }));
                        }
                    }
                }
                out.observed = json!({ "periods": periods });
                if periods.is_empty() {
                    fail(&mut out, "no link period was measured".into());
                } else if failed.is_empty() {
                    out.passed = true;
                } else {
                    fail(&mut out, failed.join("; "));
                }
            }
        },
        Check::Unchanged { topic, fields } => {
            let values: Vec<(f64, Vec<Json>)> = ev
                .store
                .window(topic, lo, hi)
                .map(|(t, m)| {
                    (
                        *t,
                        fields
                            .iter()
                            .map(|f| lookup(m, f).cloned().unwrap_or(Json::Null))
                            .collect(),
                    )
                })
                .collect();
            let change = values.iter().find(|(_, v)| *v != values[0].1);
            out.observed = json!({
                "samples": values.len(),
                "first": values.first().map(|v| &v.1),
                "first_change": change.map(|(t, v)| json!({"t_s": t, "value": v})),
            });
            match change {
                _ if values.len() < 2 => fail(
                    &mut out,
                    format!(
                        "{} samples of {topic} between {lo:.2} s and {hi:.2} s, needs 2",
                        values.len()
                    ),
                ),
                None => out.passed = true,
                Some((t, v)) => fail(
                    &mut out,
                    format!(
                        "{topic} {} changed to {} at {t:.2} s",
                        fields.join(", "),
                        Json::from(v.clone())
                    ),
                ),
            }
        }
        Check::MaxRate { topic, hz } | Check::MinRate { topic, hz } => {
            let n = ev.store.window(topic, lo, hi).count();
            let span = hi - lo;
            let rate = if span > 0.0 { n as f64 / span } else { 0.0 };
            out.observed = json!({ "samples": n, "span_s": span, "rate_hz": rate });
            let is_max = matches!(a.check, Check::MaxRate { .. });
            let ok = if is_max { rate <= *hz } else { rate >= *hz };
            if span <= 0.0 {
                fail(&mut out, format!("empty window for {topic}"));
            } else if ok {
                out.passed = true;
            } else {
                fail(
                    &mut out,
                    format!(
                        "{topic} at {rate:.2} Hz, {} {hz} Hz",
                        if is_max { "above" } else { "below" }
                    ),
                );
            }
        }
    }
    out
}

fn fields_of(c: &Condition, m: &Json) -> Json {
    if c.fields.len() == 1 {
        lookup(m, &c.fields[0]).cloned().unwrap_or(Json::Null)
    } else {
        Json::Object(
            c.fields
                .iter()
                .map(|f| (f.clone(), lookup(m, f).cloned().unwrap_or(Json::Null)))
                .collect(),
        )
    }
}

#[cfg(test)]
mod tests {
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
        let lost = cond(
            "/ugv1/link_state",
            "data",
            Op::Eq,
            Value::Bool(false),
            false,
        );
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
        assert!(o.reason.unwrap().contains("no sample of /ugv1/none"));
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
}
