//! `sequence`: the successive values a topic's field held in the window.
//!
//! The rule, exactly:
//! 1. The observed sequence is the value the field held at the window's start (the newest
//!    sample at or before it, so a latched mode published during the bring-up counts), then
//!    the value of each sample in the window that differs from the value before it
//!    (repeats collapse into one value). Samples without a scalar at the field (a string, a
//!    number or a boolean) are skipped and counted.
//! 2. `transitions` must be a subsequence of the observed sequence: each required value
//!    appears in order, later than the one before it, with any other values allowed in
//!    between (`[INIT, ACTIVE, COMPLETE]` holds for INIT, HOLD, ACTIVE, COMPLETE).
//! 3. `terminal`, when given, must equal the last value of the observed sequence (the value
//!    the field held at the window's end).
//!
//! Values compare as `topic_value`'s `eq` does: a string with a string, a number with a
//! number, a boolean with a boolean or 0/1.

use super::{compare, no_samples, Found};
use crate::model::{Op, Value};
use crate::store::lookup;
use serde_json::{json, Value as Json};

/// The most changes listed in run.json and in a failure (a flapping topic stays readable).
const MAX_LISTED: usize = 200;

/// The most changes written out in a failure's sentence.
const MAX_IN_REASON: usize = 24;

/// What a `sequence` check found over `held` (the newest sample at or before the window's
/// start, if any) and `samples` (the window's, in order).
pub(super) fn evaluate(
    topic: &str,
    field: &str,
    transitions: &[Value],
    terminal: Option<&Value>,
    held: Option<&(f64, Json)>,
    samples: &[&(f64, Json)],
    (lo, hi): (f64, f64),
) -> Found {
    let mut changes: Vec<(f64, &Json)> = Vec::new();
    let mut unreadable = 0;
    for (t, m) in held.into_iter().chain(samples.iter().copied()) {
        match lookup(m, field).filter(|v| v.is_string() || v.is_number() || v.is_boolean()) {
            Some(v) => {
                if changes.last().is_none_or(|(_, last)| *last != v) {
                    changes.push((*t, v));
                }
            }
            None => unreadable += 1,
        }
    }
    // Greedy earliest matching: a subsequence exists exactly when this finds it.
    let mut matched_at: Vec<f64> = Vec::new();
    for (t, v) in &changes {
        if let Some(want) = transitions.get(matched_at.len()) {
            if compare(v, Op::Eq, want, false) {
                matched_at.push(*t);
            }
        }
    }
    let last = changes.last().map(|(_, v)| *v);
    let listed: Vec<Json> = changes
        .iter()
        .take(MAX_LISTED)
        .map(|(t, v)| json!({"t_s": t, "value": v}))
        .collect();
    let observed = json!({
        "field": field,
        "samples": samples.len() + usize::from(held.is_some()),
        "unreadable": unreadable,
        "sequence": changes.iter().take(MAX_LISTED).map(|(_, v)| *v).collect::<Vec<_>>(),
        "changes": listed,
        "changes_total": changes.len(),
        "required": transitions,
        "matched": matched_at.len(),
        "matched_at_s": matched_at,
        "terminal": terminal,
        "last": last,
    });
    let went = || {
        let mut s = changes
            .iter()
            .take(MAX_IN_REASON)
            .map(|(t, v)| format!("{} ({t:.2} s)", text(v)))
            .collect::<Vec<_>>()
            .join(" → ");
        if changes.len() > MAX_IN_REASON {
            s += &format!(" → … ({} values in all)", changes.len());
        }
        format!("{topic} {field} went {s}")
    };
    let failure = if held.is_none() && samples.is_empty() {
        Some(no_samples(topic, lo, hi))
    } else if changes.is_empty() {
        Some(format!(
            "none of the {} samples of {topic} between {lo:.2} s and {hi:.2} s has a string, number or boolean at {field}",
            unreadable
        ))
    } else if matched_at.len() < transitions.len() {
        let missing = value_text(&transitions[matched_at.len()]);
        let after = match matched_at.len() {
            0 => "at all".to_string(),
            n => format!("after {}", value_text(&transitions[n - 1])),
        };
        Some(format!(
            "{}: transition {} of {} ({missing}) never came {after} (required: {})",
            went(),
            matched_at.len() + 1,
            transitions.len(),
            transitions
                .iter()
                .map(value_text)
                .collect::<Vec<_>>()
                .join(" → ")
        ))
    } else {
        match (terminal, last) {
            (Some(want), Some(v)) if !compare(v, Op::Eq, want, false) => Some(format!(
                "{}: ends with {}, not {}",
                went(),
                text(v),
                value_text(want)
            )),
            _ => None,
        }
    };
    Found { observed, failure }
}

/// A recorded value as a sentence names it: a string bare (`HOLD`), anything else as JSON.
fn text(v: &Json) -> String {
    v.as_str()
        .map(str::to_string)
        .unwrap_or_else(|| v.to_string())
}

/// A required value as a sentence names it.
fn value_text(v: &Value) -> String {
    match v {
        Value::Number(n) => n.to_string(),
        Value::Bool(b) => b.to_string(),
        Value::Text(s) => s.clone(),
    }
}
