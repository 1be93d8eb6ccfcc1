//! Assertion evaluation over the recorded samples, the timeline's outcome and the link
//! report. Each result carries what was observed, so run.json and the report show why.
//! Every assertion is required: one that cannot be evaluated (no samples of its topic in
//! its window, no truth pose of its vehicle, an entry that never ran) fails, naming why
//! (`no samples of /quad1/supervisor/mode between 0.00 s and 60.00 s`).
//!
//! Each outcome carries its observation as a sentence too ([`summary`], the report's
//! column). The checks over a series of their own live in their modules: [`sequence`] (the rule of
//! `sequence`), [`estimate`] (`estimate_error`), [`convoy`] (`separation`, `seq_accounting`)
//! and [`fleet`] (`leases_exclusive`, `pad_error`).

mod convoy;
mod estimate;
mod fleet;
mod sequence;
mod summary;

pub use estimate::MAX_TRUTH_GAP_S;

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
    /// What was observed, as a sentence a person reads (the report's column; a failed
    /// assertion's reason without its name).
    pub summary: String,
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

/// What a check's evaluation found: what was observed (run.json's `observed`), and why it
/// failed (`None`: it passed).
struct Found {
    observed: Json,
    failure: Option<String>,
}

/// Why an assertion over `topic` cannot be evaluated in the window `lo..=hi`: the one
/// wording of every check.
fn no_samples(topic: &str, lo: f64, hi: f64) -> String {
    format!("no samples of {topic} between {lo:.2} s and {hi:.2} s")
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

impl Evidence<'_> {
    /// The truth pose topic of `vehicle` (empty for a vehicle without one: no samples).
    fn truth_topic(&self, vehicle: &str) -> &str {
        self.truth_topics
            .iter()
            .find(|(v, _)| v == vehicle)
            .map(|(_, t)| t.as_str())
            .unwrap_or("")
    }
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
        Check::Sequence { .. } => "sequence",
        Check::EstimateError { .. } => "estimate_error",
        Check::Separation { .. } => "separation",
        Check::SeqAccounting { .. } => "seq_accounting",
        Check::LeasesExclusive { .. } => "leases_exclusive",
        Check::PadError { .. } => "pad_error",
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
        summary: String::new(),
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
        out.summary = summary::sentence(a, &out, 0.0);
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
    // The fleet's checks read a window that starts with the timeline from the bring-up on.
    let fleet_span = fleet::Span {
        lo,
        hi,
        bring_up: a.window.entry.is_none() && a.window.after_s == 0.0,
    };
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
                _ if samples.is_empty() => fail(&mut out, no_samples(&condition.topic, lo, hi)),
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
            let topic = ev.truth_topic(vehicle);
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
                fail(
                    &mut out,
                    format!(
                        "{} (the truth pose of {vehicle})",
                        no_samples(topic, lo, hi)
                    ),
                );
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
            // The simulator's truth of the vehicle(s) in the window witnesses that it ran:
            // without it no collision would prove nothing.
            let witnesses: Vec<&str> = ev
                .truth_topics
                .iter()
                .filter(|(v, _)| vehicle.as_ref().is_none_or(|x| x == v))
                .map(|(_, t)| t.as_str())
                .collect();
            let witnessed = witnesses
                .iter()
                .any(|t| ev.store.window(t, lo, hi).next().is_some());
            out.observed = json!({ "collisions": hits, "truth_topics": witnesses });
            if hits.is_empty() && !witnessed {
                fail(
                    &mut out,
                    format!(
                        "{} (the simulator's truth: without it, no collision proves nothing)",
                        no_samples(&witnesses.join(", "), lo, hi)
                    ),
                );
            } else if hits.is_empty() {
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
                _ if values.is_empty() => fail(&mut out, no_samples(topic, lo, hi)),
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
        Check::Sequence {
            topic,
            field,
            transitions,
            terminal,
        } => {
            let held = ev.store.samples(topic).iter().rfind(|(t, _)| *t <= lo);
            let samples: Vec<&(f64, Json)> = ev
                .store
                .window(topic, lo, hi)
                .filter(|(t, _)| *t > lo)
                .collect();
            let found = sequence::evaluate(
                topic,
                field,
                transitions,
                terminal.as_ref(),
                held,
                &samples,
                (lo, hi),
            );
            conclude(&mut out, found, &fail);
        }
        Check::EstimateError {
            vehicle,
            topic,
            max_m,
        } => {
            let found = estimate::evaluate(
                ev.store,
                vehicle,
                topic,
                ev.truth_topic(vehicle),
                *max_m,
                (lo, hi),
            );
            conclude(&mut out, found, &fail);
        }
        Check::Separation {
            vehicle,
            other,
            min_m,
        } => {
            let found = convoy::separation(
                ev.store,
                (vehicle, ev.truth_topic(vehicle)),
                (other, ev.truth_topic(other)),
                *min_m,
                (lo, hi),
            );
            conclude(&mut out, found, &fail);
        }
        Check::SeqAccounting { topic, counted } => {
            let found = convoy::seq_accounting(ev.store, topic, counted, (lo, hi));
            conclude(&mut out, found, &fail);
        }
        Check::LeasesExclusive {
            vehicles,
            clearance_topic,
            status_topic,
            tolerance_s,
        } => {
            let found = fleet::leases_exclusive(
                ev.store,
                vehicles,
                (clearance_topic, status_topic),
                *tolerance_s,
                fleet_span,
            );
            conclude(&mut out, found, &fail);
        }
        Check::PadError {
            vehicle,
            status_topic,
            max_m,
            report_max_m,
            pad,
        } => {
            let found = fleet::pad_error(
                ev.store,
                (vehicle, ev.truth_topic(vehicle)),
                status_topic,
                (*max_m, *report_max_m),
                pad.as_ref(),
                fleet_span,
            );
            conclude(&mut out, found, &fail);
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
            } else if n == 0 {
                fail(
                    &mut out,
                    format!("{} (at least {hz} Hz required)", no_samples(topic, lo, hi)),
                );
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
    out.summary = summary::sentence(a, &out, base);
    out
}

/// Writes what a check found into its outcome.
fn conclude(out: &mut Outcome, found: Found, fail: &dyn Fn(&mut Outcome, String)) {
    out.observed = found.observed;
    match found.failure {
        None => out.passed = true,
        Some(why) => fail(out, why),
    }
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
mod tests;
