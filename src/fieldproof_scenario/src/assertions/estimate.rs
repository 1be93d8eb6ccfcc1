//! `estimate_error`: a vehicle's state estimate against its truth, sample by sample.
//!
//! Each estimate sample in the window (`nav_msgs/msg/Odometry`, `pose.pose.position`, in the
//! world's ENU frame: the mission stack's `map`) is compared with the simulator's truth pose
//! of the vehicle (`geometry_msgs/msg/PoseStamped`, frame `world`, `pose.position`) at the
//! same simulation time, linearly interpolated between the two truth samples around it; the
//! error is the 3-D distance. The time of a sample is its `header.stamp` when every estimate
//! sample carries one and the truth does ([`stamped`]: its samples from the simulation's
//! first instant, stamped zero, aside), the time the estimate is for; else the time the
//! recorder received it. An estimate sample outside the truth's samples, or between two truth
//! samples more than [`MAX_TRUTH_GAP_S`] apart, is not compared (counted as `unmatched`).

use super::{no_samples, Found};
use crate::store::{as_number, lookup, Store};
use serde_json::{json, Value as Json};

/// The widest gap between two truth samples an estimate sample is interpolated across (s;
/// the simulator publishes the truth at 50 Hz).
pub const MAX_TRUTH_GAP_S: f64 = 0.5;

/// A position at `prefix.{x,y,z}` (`pose.pose.position`).
pub(super) fn position(m: &Json, prefix: &str) -> Option<[f64; 3]> {
    let axis = |a: &str| lookup(m, &format!("{prefix}.{a}")).and_then(as_number);
    Some([axis("x")?, axis("y")?, axis("z")?])
}

/// A message's `header.stamp` in seconds, when it has a nonzero one.
pub(super) fn stamp(m: &Json) -> Option<f64> {
    let sec = lookup(m, "header.stamp.sec").and_then(as_number)?;
    let nanosec = lookup(m, "header.stamp.nanosec").and_then(as_number)?;
    let t = sec + nanosec * 1e-9;
    (t > 0.0).then_some(t)
}

/// Whether a topic's samples (in the order received) can be placed by their `header.stamp`:
/// one at least carries a nonzero stamp, and every one after the first that does. Samples
/// stamped zero may lead: the simulator's truth at its first instant (t = 0) reads as
/// unstamped, and whether the recorder caught it depends on when it subscribed, so it must
/// not turn a whole comparison to reception times; by stamp, such samples are left out.
pub(super) fn stamped<'a>(samples: impl IntoIterator<Item = &'a (f64, Json)>) -> bool {
    let mut has_stamp = samples
        .into_iter()
        .map(|(_, m)| stamp(m).is_some())
        .skip_while(|stamped| !stamped);
    has_stamp.next().is_some() && has_stamp.all(|stamped| stamped)
}

/// The truth at `t`, interpolated between the samples around it (`truth` sorted by time).
pub(super) fn truth_at(truth: &[(f64, [f64; 3])], t: f64) -> Option<[f64; 3]> {
    let i = truth.partition_point(|(tt, _)| *tt < t);
    let (t1, p1) = *truth.get(i)?;
    if t1 == t {
        return Some(p1);
    }
    let (t0, p0) = *truth.get(i.checked_sub(1)?)?;
    if t1 - t0 > MAX_TRUTH_GAP_S {
        return None;
    }
    let a = (t - t0) / (t1 - t0);
    Some([0, 1, 2].map(|k| p0[k] + a * (p1[k] - p0[k])))
}

/// What an `estimate_error` check found: the vehicle's estimate on `topic` in the window
/// `(lo, hi)` against its truth on `truth_topic`.
pub(super) fn evaluate(
    store: &Store,
    vehicle: &str,
    topic: &str,
    truth_topic: &str,
    max_m: f64,
    (lo, hi): (f64, f64),
) -> Found {
    let estimates: Vec<&(f64, Json)> = store.window(topic, lo, hi).collect();
    let truth_samples = store.samples(truth_topic);
    let by_stamp = !estimates.is_empty()
        && estimates.iter().all(|(_, m)| stamp(m).is_some())
        && stamped(truth_samples);
    let time_of = |t: f64, m: &Json| if by_stamp { stamp(m) } else { Some(t) };
    let mut truth: Vec<(f64, [f64; 3])> = truth_samples
        .iter()
        .filter_map(|(t, m)| Some((time_of(*t, m)?, position(m, "pose.position")?)))
        .filter(|(_, p)| p.iter().all(|x| x.is_finite()))
        .collect();
    truth.sort_by(|a, b| a.0.total_cmp(&b.0));
    let (mut compared, mut unmatched, mut over) = (0usize, 0usize, 0usize);
    let (mut sum, mut max, mut max_at) = (0.0, 0.0f64, None::<f64>);
    // Samples without a finite position (a NaN is recorded as null): the first one's time.
    let (mut non_finite, mut non_finite_at) = (0usize, None::<f64>);
    for (t, m) in &estimates {
        let Some(p) = position(m, "pose.pose.position").filter(|p| p.iter().all(|x| x.is_finite()))
        else {
            non_finite += 1;
            non_finite_at.get_or_insert(*t);
            continue;
        };
        let Some(q) = time_of(*t, m).and_then(|at| truth_at(&truth, at)) else {
            unmatched += 1;
            continue;
        };
        let e = ((p[0] - q[0]).powi(2) + (p[1] - q[1]).powi(2) + (p[2] - q[2]).powi(2)).sqrt();
        compared += 1;
        sum += e;
        if e > max_m {
            over += 1;
        }
        if max_at.is_none() || e > max {
            (max, max_at) = (e, Some(*t));
        }
    }
    let observed = json!({
        "vehicle": vehicle,
        "truth_topic": truth_topic,
        "max_m": max_m,
        "samples": compared,
        "max_error_m": max_at.map(|_| max),
        "max_error_at_s": max_at,
        "mean_error_m": (compared > 0).then(|| sum / compared as f64),
        "over_bound": over,
        "unmatched": unmatched,
        "non_finite": non_finite,
        "non_finite_at_s": non_finite_at,
        "time_base": if by_stamp { "header.stamp" } else { "received" },
    });
    let failure = if estimates.is_empty() {
        Some(no_samples(topic, lo, hi))
    } else if truth.is_empty() {
        Some(format!(
            "no samples of {truth_topic} (the truth pose of {vehicle}) to compare {topic} with"
        ))
    } else if let Some(t) = non_finite_at {
        Some(format!(
            "{vehicle}'s estimate on {topic} has no finite position at {t:.2} s ({non_finite} of {} samples)",
            estimates.len()
        ))
    } else if compared == 0 {
        Some(format!(
            "none of the {unmatched} samples of {topic} between {lo:.2} s and {hi:.2} s falls within the truth of {vehicle}"
        ))
    } else if max > max_m {
        Some(format!(
            "{vehicle}'s estimate on {topic} was {max:.2} m from its truth at {:.2} s, above {max_m} m ({over} of {compared} samples above)",
            max_at.unwrap_or(lo)
        ))
    } else {
        None
    };
    Found { observed, failure }
}
