//! Each assertion's observation as one sentence for the report (`/ugv1/link_state data ==
//! false first true 1.97 s after link_outage started (window 15 s)`), written from what its
//! check observed; run.json keeps the JSON beside it. A failed assertion's sentence is its
//! reason.

use super::Outcome;
use crate::model::{Assertion, Check, Mode};
use serde_json::Value as Json;

/// A number of `observed` with two decimals (`?` when it is missing).
fn two(v: &Json) -> String {
    v.as_f64()
        .map(|x| format!("{x:.2}"))
        .unwrap_or_else(|| "?".into())
}

/// A value of `observed` as text (a string without its quotes).
fn text(v: &Json) -> String {
    v.as_str()
        .map(str::to_string)
        .unwrap_or_else(|| v.to_string())
}

/// What the window is measured from: `the timeline's start`, `link_outage started`,
/// `link_outage ended`.
fn reference(a: &Assertion) -> String {
    match &a.window.entry {
        None => "the timeline's start".into(),
        Some((_, name)) if a.window.from_end => format!("{name} ended"),
        Some((_, name)) => format!("{name} started"),
    }
}

/// The window in words: `window 15 s`, `window 2 s to 15 s`, `window to the end`.
fn window_words(a: &Assertion) -> String {
    let after = a.window.after_s;
    match a.window.within_s {
        Some(w) if after == 0.0 => format!("window {w} s"),
        Some(w) => format!("window {after} s to {w} s"),
        None if after == 0.0 => "window to the end".into(),
        None => format!("window {after} s to the end"),
    }
}

/// The sentence of one evaluated assertion. `base_s` is the time its window is measured
/// from (the timeline's start, or its entry's start or end).
pub(super) fn sentence(a: &Assertion, out: &Outcome, base_s: f64) -> String {
    if let Some(reason) = &out.reason {
        let prefix = format!("assertion {}: ", a.name);
        return reason.strip_prefix(&prefix).unwrap_or(reason).to_string();
    }
    let o = &out.observed;
    let after = |t: &Json| {
        t.as_f64()
            .map(|t| format!("{:.2} s after {}", t - base_s, reference(a)))
            .unwrap_or_else(|| "at an unknown time".into())
    };
    let span = out.window_s.map(|[lo, hi]| hi - lo).unwrap_or(0.0);
    match &a.check {
        Check::TopicValue { mode, .. } => match mode {
            Mode::Eventually => format!(
                "{} first true {} ({}; {} of {} samples)",
                text(&o["condition"]),
                after(&o["first_match_s"]),
                window_words(a),
                o["matching"],
                o["samples"]
            ),
            Mode::Always => format!(
                "{} in all {} samples over {span:.1} s from {} ({})",
                text(&o["condition"]),
                o["samples"],
                after(&Json::from(out.window_s.map(|w| w[0]).unwrap_or(base_s))),
                window_words(a)
            ),
        },
        Check::Reached {
            vehicle, radius_m, ..
        } => format!(
            "{vehicle} within {radius_m} m of {} {}; closest {} m, last {} m",
            text(&o["goal"]),
            after(&o["reached_at_s"]),
            two(&o["min_distance_m"]),
            two(&o["final_distance_m"])
        ),
        Check::NoCollision { vehicle } => format!(
            "no collision of {} in {span:.1} s of the simulator's truth",
            vehicle.as_deref().unwrap_or("any vehicle")
        ),
        Check::LinkVerdicts => {
            let periods = o["periods"].as_array().cloned().unwrap_or_default();
            let listed: Vec<String> = periods
                .iter()
                .map(|p| {
                    let latency = p["latency_ms"]
                        .as_f64()
                        .map(|l| format!("{l:.1} ms"))
                        .unwrap_or_else(|| "no answers".into());
                    format!(
                        "{} {} {} ({latency})",
                        text(&p["link"]),
                        text(&p["profile"]),
                        text(&p["verdict"])
                    )
                })
                .collect();
            format!(
                "{} link periods, none failed: {}",
                periods.len(),
                listed.join("; ")
            )
        }
        Check::MaxRate { topic, hz } | Check::MinRate { topic, hz } => format!(
            "{topic} at {} Hz over {span:.1} s ({} samples; {} {hz} Hz)",
            two(&o["rate_hz"]),
            o["samples"],
            if matches!(a.check, Check::MaxRate { .. }) {
                "at most"
            } else {
                "at least"
            }
        ),
        Check::Unchanged { topic, fields } => format!(
            "{topic} {} stayed {} in all {} samples over {span:.1} s",
            fields.join(", "),
            o["first"],
            o["samples"]
        ),
        Check::Sequence { field, .. } => {
            let went: Vec<String> = o["sequence"]
                .as_array()
                .map(|v| v.iter().map(text).collect())
                .unwrap_or_default();
            let at: Vec<String> = o["matched_at_s"]
                .as_array()
                .map(|v| v.iter().map(two).collect())
                .unwrap_or_default();
            format!(
                "{field} went {}; the required transitions at {} s; last {}",
                went.join(" → "),
                at.join(", "),
                text(&o["last"])
            )
        }
        Check::EstimateError {
            vehicle, max_m, ..
        } => format!(
            "{vehicle}'s estimate at most {} m from its truth (mean {} m, bound {max_m} m) over {} samples",
            two(&o["max_error_m"]),
            two(&o["mean_error_m"]),
            o["samples"]
        ),
        Check::Separation {
            vehicle,
            other,
            min_m,
        } => format!(
            "{vehicle} and {other} never closer than {} m (at {} s; bound {min_m} m) over {} samples",
            two(&o["closest_m"]),
            two(&o["closest_at_s"]),
            o["samples"]
        ),
        Check::SeqAccounting { .. } => {
            let places: Vec<String> = o["counted"]
                .as_array()
                .map(|v| {
                    v.iter()
                        .map(|p| format!("{} {}", text(&p["topic"]), p["drops"]))
                        .collect()
                })
                .unwrap_or_default();
            format!(
                "{} seq gaps between seq {} and {}, and {} drops counted where they happened ({})",
                o["seq_gaps"],
                o["first_seq"],
                o["newest_seq"],
                o["drops_counted"],
                places.join(" + ")
            )
        }
        Check::LeasesExclusive { .. } => {
            let c = &o["counts"];
            format!(
                "{} leases ({} launch, {} land), never two in force at once; {} grants and {} refusals, {} reports",
                c["leases"],
                c["launch_leases"],
                c["land_leases"],
                c["grants"],
                c["refusals"],
                c["reports"]
            )
        }
        Check::PadError { vehicle, .. } => {
            let truth = match o["truth"]["distance_m"].as_f64() {
                Some(d) => format!(
                    "{d:.2} m from pad {} by the truth, ",
                    o["truth"]["pad_index"]
                ),
                None => String::new(),
            };
            format!(
                "{vehicle} touched down at {} s, {truth}{} m by its own report (bounds {} m and {} m)",
                two(&o["touchdown_s"]),
                two(&o["reported_pad_error_m"]),
                o["max_m"],
                o["report_max_m"]
            )
        }
    }
}
