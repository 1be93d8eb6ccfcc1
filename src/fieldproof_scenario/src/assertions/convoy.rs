//! Checks of two vehicles driving together and of a sequenced link between them:
//! `separation` (their truth positions never closer than a bound) and `seq_accounting` (the
//! receiver's sequence gaps against the drops counted where they happened).

use super::estimate::{position, stamp, stamped, truth_at};
use super::{no_samples, Found};
use crate::model::CountedDrops;
use crate::store::{as_number, lookup, Store};
use serde_json::{json, Value as Json};

/// What a `separation` check found: `vehicle`'s truth samples in the window `(lo, hi)`, each
/// against `other`'s truth at the same simulation time (interpolated), as planar distances.
pub(super) fn separation(
    store: &Store,
    (vehicle, vehicle_truth): (&str, &str),
    (other, other_truth): (&str, &str),
    min_m: f64,
    (lo, hi): (f64, f64),
) -> Found {
    let ours: Vec<&(f64, Json)> = store.window(vehicle_truth, lo, hi).collect();
    let theirs_samples = store.samples(other_truth);
    let by_stamp = stamped(ours.iter().copied()) && stamped(theirs_samples);
    let time_of = |t: f64, m: &Json| if by_stamp { stamp(m) } else { Some(t) };
    let mut theirs: Vec<(f64, [f64; 3])> = theirs_samples
        .iter()
        .filter_map(|(t, m)| Some((time_of(*t, m)?, position(m, "pose.position")?)))
        .collect();
    theirs.sort_by(|a, b| a.0.total_cmp(&b.0));
    let (mut compared, mut below) = (0usize, 0usize);
    let mut closest: Option<(f64, f64)> = None;
    for (t, m) in &ours {
        let Some(p) = position(m, "pose.position") else {
            continue;
        };
        let Some(q) = time_of(*t, m).and_then(|at| truth_at(&theirs, at)) else {
            continue;
        };
        let d = (p[0] - q[0]).hypot(p[1] - q[1]);
        compared += 1;
        if d < min_m {
            below += 1;
        }
        if closest.is_none_or(|(c, _)| d < c) {
            closest = Some((d, *t));
        }
    }
    let observed = json!({
        "vehicle": vehicle,
        "other": other,
        "min_m": min_m,
        "samples": compared,
        "closest_m": closest.map(|c| c.0),
        "closest_at_s": closest.map(|c| c.1),
        "below_bound": below,
    });
    let failure = if ours.is_empty() {
        Some(format!(
            "{} (the truth pose of {vehicle})",
            no_samples(vehicle_truth, lo, hi)
        ))
    } else if compared == 0 {
        Some(format!(
            "no truth of {other} on {other_truth} at the times of {vehicle}'s between {lo:.2} s and {hi:.2} s"
        ))
    } else {
        closest.filter(|(d, _)| *d < min_m).map(|(d, t)| {
            format!(
                "{vehicle} came {d:.2} m from {other} at {t:.2} s, closer than {min_m} m ({below} of {compared} samples)"
            )
        })
    };
    Found { observed, failure }
}

/// A `std_msgs/msg/String` sample's `data` parsed as a JSON object.
fn counters(m: &Json) -> Option<Json> {
    serde_json::from_str(lookup(m, "data")?.as_str()?)
        .ok()
        .filter(Json::is_object)
}

/// A whole number at `field` of a counters object.
fn whole(c: &Json, field: &str) -> Option<u64> {
    let v = as_number(c.get(field)?)?;
    (v >= 0.0 && v.fract() == 0.0).then_some(v as u64)
}

/// The drops one place had counted once it had seen seq `seq` (the first sample whose
/// `seq_field` reached `seq + settled_after`): the sum of its `fields`.
fn drops_at(samples: &[(f64, Json)], place: &CountedDrops, seq: u64) -> Result<u64, String> {
    let wanted = seq + u64::from(place.settled_after);
    let sample = samples
        .iter()
        .filter_map(|(_, m)| counters(m))
        .find(|c| whole(c, &place.seq_field).is_some_and(|s| s >= wanted))
        .ok_or_else(|| {
            format!(
                "no sample of {} with {} at or past {wanted}",
                place.topic, place.seq_field
            )
        })?;
    place.fields.iter().try_fold(0u64, |sum, f| {
        whole(&sample, f).map(|v| sum + v).ok_or_else(|| {
            format!(
                "{}: field {f} is not a whole number in {sample}",
                place.topic
            )
        })
    })
}

/// What a `seq_accounting` check found: the receiver's newest counters in the window (its
/// `seq_gaps`, `first_seq`, `newest_seq`) against each place's drops of the seqs after
/// `first_seq` up to `newest_seq` (its counters once it had seen `newest_seq`, less those
/// once it had seen `first_seq`).
pub(super) fn seq_accounting(
    store: &Store,
    topic: &str,
    counted: &[CountedDrops],
    (lo, hi): (f64, f64),
) -> Found {
    let newest = store
        .window(topic, lo, hi)
        .filter_map(|(_, m)| counters(m))
        .last();
    let Some(receiver) = newest else {
        return Found {
            observed: json!({ "topic": topic }),
            failure: Some(no_samples(topic, lo, hi)),
        };
    };
    let (gaps, first, last) = (
        whole(&receiver, "seq_gaps"),
        whole(&receiver, "first_seq"),
        whole(&receiver, "newest_seq"),
    );
    let (Some(gaps), Some(first), Some(last)) = (gaps, first, last) else {
        return Found {
            observed: json!({ "topic": topic, "receiver": receiver }),
            failure: Some(format!(
                "{topic}: no seq_gaps, first_seq and newest_seq (no packet accepted?) in {receiver}"
            )),
        };
    };
    let mut places = Vec::new();
    let mut total = 0u64;
    let mut failure = None;
    for place in counted {
        let samples = store.samples(&place.topic);
        let found = drops_at(samples, place, first)
            .and_then(|at_first| Ok((at_first, drops_at(samples, place, last)?)));
        match found {
            Ok((at_first, at_newest)) => {
                let drops = at_newest.saturating_sub(at_first);
                total += drops;
                places.push(json!({
                    "topic": place.topic,
                    "at_first_seq": at_first,
                    "at_newest_seq": at_newest,
                    "drops": drops,
                }));
            }
            Err(why) => {
                places.push(json!({ "topic": place.topic, "error": why }));
                failure.get_or_insert(why);
            }
        }
    }
    let failure = failure.or_else(|| {
        (total != gaps).then(|| {
            format!(
                "{topic}: {gaps} seq gaps between seq {first} and {last}, but {total} drops counted ({})",
                places
                    .iter()
                    .map(|p| format!("{} {}", p["topic"].as_str().unwrap_or(""), p["drops"]))
                    .collect::<Vec<_>>()
                    .join(" + ")
            )
        })
    });
    Found {
        observed: json!({
            "topic": topic,
            "seq_gaps": gaps,
            "first_seq": first,
            "newest_seq": last,
            "drops_counted": total,
            "counted": places,
        }),
        failure,
    }
}
