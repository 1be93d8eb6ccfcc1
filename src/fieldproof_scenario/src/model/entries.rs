//! Validation of a timeline entry's common part (its name, trigger and vehicle) and of the
//! timeline as a whole (`after` cycles, `every` firings); each action's own fields are
//! validated by its handler ([`super::actions`]).

use super::actions::ActionCx;
use super::raw::{FieldSpec, RawEntry};
use super::topics::topic_ok;
use super::types::{
    Condition, Entry, Op, Trigger, Value, Vehicle, MAX_EVERY_FIRINGS, MIN_EVERY_PERIOD_S,
};
use super::{Ctx, ScenarioError};
use crate::duration::{self, Secs};
use fieldproof_link::profile::Network;
use fieldproof_robots::World;
use std::collections::{BTreeMap, BTreeSet};

/// Validates `timeline[i]` (`names`: every entry's name and index).
pub(super) fn entry(
    ctx: &Ctx,
    i: usize,
    e: &RawEntry,
    names: &BTreeMap<String, usize>,
    vehicles: &[Vehicle],
    world: &World,
    network: Option<&Network>,
) -> Result<Entry, ScenarioError> {
    let p = format!("timeline[{i}]");
    let f = |k: &str| format!("{p}.{k}");
    let a = e.action.name();
    let name = e.name.clone().unwrap_or_else(|| format!("{a}#{i}"));

    // Trigger: exactly one.
    let mut triggers = Vec::new();
    if e.at.is_some() {
        triggers.push("at");
    }
    if e.after.is_some() {
        triggers.push("after");
    }
    if e.when.is_some() {
        triggers.push("when");
    }
    if e.every.is_some() {
        triggers.push("every");
    }
    if triggers.len() != 1 {
        return Err(ctx.err(
            p.clone(),
            if triggers.is_empty() {
                "needs a trigger: one of at, after, when, every".to_string()
            } else {
                format!("has {} triggers, give one", triggers.join(" and "))
            },
        ));
    }
    if e.delay_s.is_some() && e.after.is_none() {
        return Err(ctx.err(f("delay_s"), "only an after trigger takes delay_s"));
    }
    for (k, set) in [
        ("start_s", e.start_s.is_some()),
        ("until_s", e.until_s.is_some()),
        ("count", e.count.is_some()),
    ] {
        if set && e.every.is_none() {
            return Err(ctx.err(f(k), format!("only an every trigger takes {k}")));
        }
    }
    let trigger = if let Some(at) = e.at {
        Trigger::At(at.get())
    } else if let Some(other) = &e.after {
        let Some(&j) = names.get(other) else {
            return Err(ctx.err(
                f("after"),
                format!(
                    "\"{other}\" is not an entry of the timeline (entries: {})",
                    names.keys().cloned().collect::<Vec<_>>().join(", ")
                ),
            ));
        };
        if j == i {
            return Err(ctx.err(f("after"), format!("\"{other}\" is this entry")));
        }
        Trigger::After {
            entry: j,
            delay_s: e.delay_s.map(Secs::get).unwrap_or(0.0),
        }
    } else if let Some(c) = &e.when {
        Trigger::When(condition(
            ctx,
            &f("when"),
            &c.topic,
            &c.field,
            c.op.as_deref(),
            &c.value,
            c.abs,
        )?)
    } else {
        let period = e.every.expect("one trigger").get();
        if period < MIN_EVERY_PERIOD_S {
            return Err(ctx.err(
                f("every"),
                format!(
                    "{} s is below the minimum period of {MIN_EVERY_PERIOD_S} s (10 ms)",
                    duration::display(period)
                ),
            ));
        }
        if e.count == Some(0) {
            return Err(ctx.err(f("count"), "0 must be at least 1"));
        }
        Trigger::Every {
            period_s: period,
            start_s: e.start_s.map(Secs::get).unwrap_or(0.0),
            until_s: e.until_s.map(Secs::get),
            count: e.count,
        }
    };

    // Vehicle.
    let vehicle = match &e.vehicle {
        Some(v) => match vehicles.iter().find(|x| &x.name == v) {
            Some(x) => Some(x),
            None => {
                return Err(ctx.err(
                    f("vehicle"),
                    format!(
                        "\"{v}\" is not a vehicle of the scenario (vehicles: {})",
                        vehicles
                            .iter()
                            .map(|x| x.name.as_str())
                            .collect::<Vec<_>>()
                            .join(", ")
                    ),
                ))
            }
        },
        None if vehicles.len() == 1 => Some(&vehicles[0]),
        None => return Err(ctx.err(f("vehicle"), "missing (the scenario has several vehicles)")),
    };
    let veh = vehicle.expect("resolved");
    let duration_s = e.action.duration_s().map(Secs::get);
    let cx = ActionCx {
        ctx,
        path: p.clone(),
        action: a,
        vehicle: veh,
        world,
        network,
        duration_s,
    };
    let action = e.action.validate(&cx)?;
    Ok(Entry {
        name,
        action_name: a.to_string(),
        vehicle: Some(veh.name.clone()),
        trigger,
        action,
        duration_s,
    })
}

/// How many times an `every` entry can fire before the timeline ends, at most
/// [`MAX_EVERY_FIRINGS`].
pub(super) fn check_every_firings(
    ctx: &Ctx,
    timeline: &[Entry],
    duration_s: f64,
) -> Result<(), ScenarioError> {
    for (i, e) in timeline.iter().enumerate() {
        let Trigger::Every {
            period_s,
            start_s,
            until_s,
            count,
        } = e.trigger
        else {
            continue;
        };
        let last_s = until_s.map_or(duration_s, |u| u.min(duration_s));
        let by_time = if last_s < start_s {
            0.0
        } else {
            ((last_s - start_s) / period_s).floor() + 1.0
        };
        let firings = count.map_or(by_time, |c| by_time.min(f64::from(c)));
        if firings > MAX_EVERY_FIRINGS as f64 {
            return Err(ctx.err(
                format!("timeline[{i}].every"),
                format!(
                    "{} s from {} s to {} s fires {firings} times, more than {MAX_EVERY_FIRINGS}: give a count, an until_s or a longer period",
                    duration::display(period_s),
                    duration::display(start_s),
                    duration::display(last_s)
                ),
            ));
        }
    }
    Ok(())
}

pub(super) fn check_after_cycles(ctx: &Ctx, timeline: &[Entry]) -> Result<(), ScenarioError> {
    for (i, _) in timeline.iter().enumerate() {
        let mut seen = BTreeSet::new();
        let mut cur = i;
        while let Trigger::After { entry, .. } = timeline[cur].trigger {
            if !seen.insert(cur) {
                return Err(ctx.err(
                    format!("timeline[{i}].after"),
                    format!(
                        "\"{}\" waits for itself through a cycle of after triggers",
                        timeline[i].name
                    ),
                ));
            }
            cur = entry;
        }
    }
    Ok(())
}
/// A comparison value as written: a number, a boolean or a string.
/// A comparison value as written at `path`: a finite number, a boolean or a string.
pub(super) fn value_of(
    ctx: &Ctx,
    path: &str,
    v: &serde_yaml::Value,
) -> Result<Value, ScenarioError> {
    match v {
        serde_yaml::Value::Bool(b) => Ok(Value::Bool(*b)),
        serde_yaml::Value::Number(n) => n
            .as_f64()
            .filter(|x| x.is_finite())
            .map(Value::Number)
            .ok_or_else(|| ctx.err(path, format!("{n} is not a finite number"))),
        serde_yaml::Value::String(s) => Ok(Value::Text(s.clone())),
        other => Err(ctx.err(
            path,
            format!("{other:?} is not a number, a boolean or a string"),
        )),
    }
}

/// Validates a topic condition (a `when` trigger, a `topic_value` assertion) at `path`.
pub(super) fn condition(
    ctx: &Ctx,
    path: &str,
    topic: &str,
    fields: &FieldSpec,
    op: Option<&str>,
    value: &serde_yaml::Value,
    abs: bool,
) -> Result<Condition, ScenarioError> {
    if !topic_ok(topic) {
        return Err(ctx.err(
            format!("{path}.topic"),
            format!("\"{topic}\" is not a fully qualified topic name (/ns/name)"),
        ));
    }
    let list = fields.list();
    if list.is_empty() {
        return Err(ctx.err(format!("{path}.field"), "needs at least one field"));
    }
    for f in &list {
        if crate::store::parse_field(f).is_none() {
            return Err(ctx.err(
                format!("{path}.field"),
                format!("\"{f}\" is not a field path (a.b.c, ranges[0])"),
            ));
        }
    }
    let op = match op {
        None => Op::Eq,
        Some(s) => Op::parse(s).ok_or_else(|| {
            ctx.err(
                format!("{path}.op"),
                format!("\"{s}\" is not one of {}", Op::NAMES.join(", ")),
            )
        })?,
    };
    let value = value_of(ctx, &format!("{path}.value"), value)?;
    if matches!(value, Value::Text(_)) && !matches!(op, Op::Eq | Op::Ne) {
        return Err(ctx.err(
            format!("{path}.op"),
            format!("\"{}\" does not compare strings (eq, ne)", op.symbol()),
        ));
    }
    Ok(Condition {
        topic: topic.to_string(),
        fields: list,
        op,
        value,
        abs,
    })
}
