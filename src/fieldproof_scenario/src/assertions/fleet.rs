//! The fleet's checks (issue 19, `fieldproof_fleet`): `leases_exclusive` (the fleet station's
//! clearance leases never held by two vehicles at once, every climb from and descent onto
//! the carrier under one) and `pad_error` (a vehicle's distance from its pad at touchdown,
//! as it reported it and as the simulator's truth has it).
//!
//! The leases are rebuilt from what was recorded, independently of the station's own book,
//! so a station that grants without checking is caught. A lease is the granted answers
//! (`fieldproof_interfaces/msg/Clearance`) of one vehicle, kind and `lease_id`; it is in
//! force from its first grant's stamp to the earliest of the latest `expires` among its
//! answers (each renewal extends it) and the first report of its vehicle
//! (`fieldproof_interfaces/msg/FleetStatus`) from the grant on showing the manoeuvre done or
//! abandoned: for a launch lease MISSION or a later phase, or ABORTED; for a land lease
//! LANDED, ABORTED, or WAITING_LAND after LANDING (the vehicle gave the lease up).
//!
//! A manoeuvre's reports outside any lease that begin no later than `tolerance_s` after the
//! first answer the recorder heard are not judged: the recorder subscribes once the run's
//! processes are up, so a grant given before it heard the station (the fleet flies as soon as
//! its nodes are up) is not in the recording, and the lease shows only from its renewals.
//! They are listed in `observed` (`unjudged`).
//!
//! Both read the recording up to the window's end: the leases and the touchdown's LANDING
//! from before the window too, while what must hold (the violations, the reports required, the
//! touchdown) is taken in the window. A window that starts with the timeline (no `entry`, no
//! `after_s`) starts with the bring-up: the fleet flies as soon as its nodes are up, so a
//! launch may be granted before the timeline starts.
//!
//! Times are the messages' `header.stamp` (simulation time). They are shown as seconds of
//! the timeline: the stamps less the simulation time at the timeline's start, taken as the
//! largest stamp less reception time among the samples read (a message is received after it
//! is stamped; the recorder's reception times are seconds of the timeline).

use super::estimate::{position, stamp, stamped, truth_at};
use super::{no_samples, Found};
use crate::model::types::CarrierPad;
use crate::store::{as_number, lookup, Store};
use fieldproof_msgs::fieldproof_interfaces::{ClearanceRequest, FleetStatus};
use serde_json::{json, Value as Json};
use std::collections::{BTreeMap, BTreeSet};

/// How many violations a failure names (run.json's `observed` lists them all).
const NAMED_VIOLATIONS: usize = 3;

/// What of the recording a fleet check reads (see the module documentation).
#[derive(Debug, Clone, Copy)]
pub(super) struct Span {
    /// The window's start (s of the timeline).
    pub lo: f64,
    /// Its end.
    pub hi: f64,
    /// The window starts with the bring-up (it starts with the timeline).
    pub bring_up: bool,
}

impl Span {
    /// Where what must hold is taken from.
    fn holds_from(&self) -> f64 {
        if self.bring_up {
            f64::NEG_INFINITY
        } else {
            self.lo
        }
    }

    /// The samples of `topic` up to the window's end.
    fn until_end<'a>(&self, store: &'a Store, topic: &str) -> Vec<&'a (f64, Json)> {
        store
            .samples(topic)
            .iter()
            .filter(|(t, _)| *t <= self.hi)
            .collect()
    }

    /// Whether a sample received at `t` is in the window.
    fn holds_at(&self, t: f64) -> bool {
        t >= self.holds_from() && t <= self.hi
    }
}

/// A phase's name as the `.msg` file spells it (`CLIMBING`).
fn phase_name(phase: u8) -> String {
    match phase {
        FleetStatus::PHASE_ON_PAD => "ON_PAD".into(),
        FleetStatus::PHASE_WAITING_LAUNCH => "WAITING_LAUNCH".into(),
        FleetStatus::PHASE_CLIMBING => "CLIMBING".into(),
        FleetStatus::PHASE_MISSION => "MISSION".into(),
        FleetStatus::PHASE_RETURNING => "RETURNING".into(),
        FleetStatus::PHASE_WAITING_LAND => "WAITING_LAND".into(),
        FleetStatus::PHASE_LANDING => "LANDING".into(),
        FleetStatus::PHASE_LANDED => "LANDED".into(),
        FleetStatus::PHASE_ABORTED => "ABORTED".into(),
        other => format!("phase {other}"),
    }
}

/// A clearance's kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Kind {
    Launch,
    Land,
}

impl Kind {
    fn from_wire(kind: u8) -> Option<Kind> {
        match kind {
            ClearanceRequest::KIND_LAUNCH => Some(Kind::Launch),
            ClearanceRequest::KIND_LAND => Some(Kind::Land),
            _ => None,
        }
    }

    fn name(self) -> &'static str {
        match self {
            Kind::Launch => "launch",
            Kind::Land => "land",
        }
    }

    /// The kind of lease a vehicle needs to report `phase` (CLIMBING, LANDING).
    fn needed_for(phase: u8) -> Option<Kind> {
        match phase {
            FleetStatus::PHASE_CLIMBING => Some(Kind::Launch),
            FleetStatus::PHASE_LANDING => Some(Kind::Land),
            _ => None,
        }
    }
}

/// A vehicle's report, as recorded.
struct Report {
    /// Its `header.stamp` (s, simulation time), when it has one.
    at: Option<f64>,
    /// When the recorder received it (s of the timeline).
    received: f64,
    vehicle: String,
    phase: u8,
    /// `pad_error_m` (a NaN is recorded as null: `None`).
    pad_error_m: Option<f64>,
}

impl Report {
    fn read(received: f64, m: &Json) -> Option<Report> {
        Some(Report {
            at: stamp(m),
            received,
            vehicle: lookup(m, "vehicle")?.as_str()?.to_string(),
            phase: u8::try_from(lookup(m, "phase")?.as_u64()?).ok()?,
            pad_error_m: lookup(m, "pad_error_m").and_then(as_number),
        })
    }
}

/// A station's answer, as recorded.
enum Answer {
    /// A grant (or a renewal): its stamp, vehicle, kind, lease id and expiry (s).
    Granted {
        at: f64,
        received: f64,
        vehicle: String,
        kind: Kind,
        lease_id: u64,
        expires: f64,
    },
    /// A refusal.
    Refused,
}

impl Answer {
    fn read(received: f64, m: &Json) -> Option<Answer> {
        if !lookup(m, "granted")?.as_bool()? {
            return Some(Answer::Refused);
        }
        let sec = lookup(m, "expires.sec").and_then(as_number)?;
        let nanosec = lookup(m, "expires.nanosec").and_then(as_number)?;
        Some(Answer::Granted {
            at: stamp(m)?,
            received,
            vehicle: lookup(m, "vehicle")?.as_str()?.to_string(),
            kind: Kind::from_wire(u8::try_from(lookup(m, "kind")?.as_u64()?).ok()?)?,
            lease_id: lookup(m, "lease_id")?.as_u64()?,
            expires: sec + nanosec * 1e-9,
        })
    }
}

/// A lease as rebuilt (times in s of simulation time).
struct Lease {
    vehicle: String,
    kind: Kind,
    id: u64,
    from: f64,
    /// The latest expiry among its answers.
    expires: f64,
    /// Its end: the expiry, or the report that ended it before.
    to: f64,
    ended_by: String,
    answers: usize,
}

impl Lease {
    /// Whether `at` falls in the lease, `slack` allowed at both ends.
    fn covers(&self, at: f64, slack: f64) -> bool {
        at >= self.from - slack && at <= self.to + slack
    }

    /// `quad1's launch lease 3`.
    fn named(&self) -> String {
        format!("{}'s {} lease {}", self.vehicle, self.kind.name(), self.id)
    }
}

/// The first report of the lease's vehicle from its grant on that ends it (see the module
/// documentation): its stamp and what it was.
fn ending_report(lease: &Lease, reports: &[(f64, &Report)]) -> Option<(f64, String)> {
    let mut landing_seen = false;
    reports
        .iter()
        .filter(|(at, r)| r.vehicle == lease.vehicle && *at >= lease.from)
        .find_map(|(at, r)| {
            let phase = r.phase;
            let ends = match lease.kind {
                Kind::Launch => {
                    (FleetStatus::PHASE_MISSION..=FleetStatus::PHASE_ABORTED).contains(&phase)
                }
                Kind::Land if phase == FleetStatus::PHASE_LANDING => {
                    landing_seen = true;
                    false
                }
                Kind::Land if phase == FleetStatus::PHASE_WAITING_LAND && landing_seen => {
                    return Some((*at, "WAITING_LAND report after LANDING (given up)".into()));
                }
                Kind::Land => {
                    phase == FleetStatus::PHASE_LANDED || phase == FleetStatus::PHASE_ABORTED
                }
            };
            ends.then(|| (*at, format!("{} report", phase_name(phase))))
        })
}

/// Rounds seconds or metres to the millisecond / millimetre (run.json).
fn milli(x: f64) -> f64 {
    (x * 1000.0).round() / 1000.0
}

/// The failure naming the first few of `violations` (sorted by time).
fn violations_failure(violations: &[(f64, String)]) -> Option<String> {
    let named: Vec<&str> = violations
        .iter()
        .take(NAMED_VIOLATIONS)
        .map(|(_, v)| v.as_str())
        .collect();
    match violations.len() {
        0 => None,
        1 => Some(named[0].to_string()),
        n if n <= NAMED_VIOLATIONS => Some(format!("{n} violations: {}", named.join("; "))),
        n => Some(format!(
            "{n} violations: {}; and {} more",
            named.join("; "),
            n - NAMED_VIOLATIONS
        )),
    }
}

/// What a `leases_exclusive` check found: the station's answers on `clearance_topic` and
/// the vehicles' reports on `status_topic` in `span`; `vehicles` must each have climbed and
/// landed under a lease.
pub(super) fn leases_exclusive(
    store: &Store,
    vehicles: &[String],
    (clearance_topic, status_topic): (&str, &str),
    tolerance_s: f64,
    span: Span,
) -> Found {
    let (lo, hi) = (span.lo, span.hi);
    let answer_samples = span.until_end(store, clearance_topic);
    let report_samples = span.until_end(store, status_topic);
    let answers: Vec<Answer> = answer_samples
        .iter()
        .filter_map(|(t, m)| Answer::read(*t, m))
        .collect();
    let read_reports: Vec<Report> = report_samples
        .iter()
        .filter_map(|(t, m)| Report::read(*t, m))
        .collect();
    let mut reports: Vec<(f64, &Report)> = read_reports
        .iter()
        .filter_map(|r| Some((r.at?, r)))
        .collect();
    reports.sort_by(|a, b| a.0.total_cmp(&b.0));
    let topics = json!({
        "clearance_topic": clearance_topic,
        "status_topic": status_topic,
        "vehicles": vehicles,
        "tolerance_s": tolerance_s,
    });
    let unreadable = |topic: &str, n: usize, what: &str| {
        format!("none of the {n} samples of {topic} between {lo:.2} s and {hi:.2} s is {what} with a header.stamp")
    };
    let in_window = |r: &Report| span.holds_at(r.received);
    let cannot = if answer_samples.is_empty() {
        Some(no_samples(clearance_topic, lo, hi))
    } else if !report_samples.iter().any(|(t, _)| span.holds_at(*t)) {
        Some(no_samples(status_topic, lo, hi))
    } else if answers.is_empty() {
        Some(unreadable(
            clearance_topic,
            answer_samples.len(),
            "a clearance",
        ))
    } else if !reports.iter().any(|(_, r)| in_window(r)) {
        Some(unreadable(
            status_topic,
            report_samples.len(),
            "a vehicle's report",
        ))
    } else {
        None
    };
    if let Some(why) = cannot {
        return Found {
            observed: topics,
            failure: Some(why),
        };
    }
    // The simulation time at the timeline's start (see the module documentation).
    let start = answers
        .iter()
        .filter_map(|a| match a {
            Answer::Granted { at, received, .. } => Some(at - received),
            Answer::Refused => None,
        })
        .chain(reports.iter().map(|(at, r)| at - r.received))
        .fold(f64::NEG_INFINITY, f64::max);
    let shown = |at: f64| at - start;

    // The leases, by vehicle, kind and id.
    let mut by_id: BTreeMap<(String, Kind, u64), Lease> = BTreeMap::new();
    let mut grants = 0usize;
    for a in &answers {
        let Answer::Granted {
            at,
            vehicle,
            kind,
            lease_id,
            expires,
            ..
        } = a
        else {
            continue;
        };
        grants += 1;
        let lease = by_id
            .entry((vehicle.clone(), *kind, *lease_id))
            .or_insert_with(|| Lease {
                vehicle: vehicle.clone(),
                kind: *kind,
                id: *lease_id,
                from: *at,
                expires: *expires,
                to: *expires,
                ended_by: String::new(),
                answers: 0,
            });
        lease.from = lease.from.min(*at);
        lease.expires = lease.expires.max(*expires);
        lease.answers += 1;
    }
    let mut leases: Vec<Lease> = by_id.into_values().collect();
    for lease in &mut leases {
        (lease.to, lease.ended_by) = match ending_report(lease, &reports) {
            Some((at, by)) if at <= lease.expires => (at, by),
            _ => (lease.expires, "expiry".into()),
        };
        lease.to = lease.to.max(lease.from);
    }
    leases.sort_by(|a, b| a.from.total_cmp(&b.from));

    let mut violations: Vec<(f64, String)> = Vec::new();
    // No two vehicles' leases at once.
    for (i, a) in leases.iter().enumerate() {
        for b in leases.iter().skip(i + 1).filter(|b| b.vehicle != a.vehicle) {
            let overlap = a.to.min(b.to) - a.from.max(b.from);
            if overlap > tolerance_s && span.holds_at(shown(a.to.min(b.to)).min(hi)) {
                violations.push((
                    b.from,
                    format!(
                        "{} granted at {:.2} s while {} was in force ({:.2} s to {:.2} s): {overlap:.2} s at once",
                        b.named(),
                        shown(b.from),
                        a.named(),
                        shown(a.from),
                        shown(a.to)
                    ),
                ));
            }
        }
    }
    // Every CLIMBING and LANDING report inside a lease of its vehicle: each run of
    // consecutive reports outside one, once.
    let covered = |at: f64, r: &Report, kind: Kind| {
        leases
            .iter()
            .any(|l| l.vehicle == r.vehicle && l.kind == kind && l.covers(at, tolerance_s))
    };
    // The recorder heard the station from its first answer on (see the module documentation).
    let heard_station_from = answer_samples
        .iter()
        .map(|(t, _)| *t)
        .fold(f64::INFINITY, f64::min);
    let mut unjudged: Vec<String> = Vec::new();
    let seen: BTreeSet<&str> = reports.iter().map(|(_, r)| r.vehicle.as_str()).collect();
    for vehicle in &seen {
        // (phase, first, last, reports, first received) of the current run outside a lease.
        let mut run: Option<(u8, f64, f64, usize, f64)> = None;
        let mut close = |run: &mut Option<(u8, f64, f64, usize, f64)>| {
            if let Some((phase, first, last, n, first_received)) = run.take() {
                let kind = Kind::needed_for(phase).expect("a manoeuvre").name();
                let what = format!(
                    "{vehicle} reported {} from {:.2} s to {:.2} s ({n} reports) outside any {kind} lease of its own",
                    phase_name(phase),
                    shown(first),
                    shown(last)
                );
                if first_received <= heard_station_from + tolerance_s {
                    unjudged.push(format!(
                        "{what}: begun before the recorder heard the station (its first answer at {heard_station_from:.2} s)"
                    ));
                } else {
                    violations.push((first, what));
                }
            }
        };
        for (at, r) in reports
            .iter()
            .filter(|(_, r)| r.vehicle == *vehicle && in_window(r))
        {
            let outside = Kind::needed_for(r.phase).is_some_and(|kind| !covered(*at, r, kind));
            let continues = matches!(run, Some((phase, ..)) if phase == r.phase);
            if !outside {
                close(&mut run);
            } else if continues {
                if let Some((_, _, last, n, _)) = run.as_mut() {
                    *last = *at;
                    *n += 1;
                }
            } else {
                close(&mut run);
                run = Some((r.phase, *at, *at, 1, r.received));
            }
        }
        close(&mut run);
    }
    // Every listed vehicle launched and landed under a lease.
    let mut per_vehicle = serde_json::Map::new();
    for vehicle in vehicles {
        let under = |phase: u8, kind: Kind| {
            reports.iter().any(|(at, r)| {
                r.vehicle == *vehicle && r.phase == phase && in_window(r) && covered(*at, r, kind)
            })
        };
        let climbed = under(FleetStatus::PHASE_CLIMBING, Kind::Launch);
        let landed = under(FleetStatus::PHASE_LANDED, Kind::Land);
        if !climbed {
            violations.push((
                f64::INFINITY,
                format!("{vehicle} never climbed (CLIMBING) under a launch lease"),
            ));
        }
        if !landed {
            violations.push((
                f64::INFINITY,
                format!("{vehicle} never landed (LANDED) under a land lease"),
            ));
        }
        per_vehicle.insert(
            vehicle.clone(),
            json!({ "climbed_under_lease": climbed, "landed_under_lease": landed }),
        );
    }
    violations.sort_by(|a, b| a.0.total_cmp(&b.0));

    let count = |kind: Kind| leases.iter().filter(|l| l.kind == kind).count();
    let manoeuvres = |phase: u8| reports.iter().filter(|(_, r)| r.phase == phase).count();
    let mut observed = topics;
    observed["leases"] = leases
        .iter()
        .map(|l| {
            json!({
                "vehicle": l.vehicle,
                "kind": l.kind.name(),
                "id": l.id,
                "from_s": milli(shown(l.from)),
                "to_s": milli(shown(l.to)),
                "ended_by": l.ended_by,
                "answers": l.answers,
            })
        })
        .collect();
    observed["counts"] = json!({
        "answers": answers.len(),
        "grants": grants,
        "refusals": answers.len() - grants,
        "leases": leases.len(),
        "launch_leases": count(Kind::Launch),
        "land_leases": count(Kind::Land),
        "reports": reports.len(),
        "climbing_reports": manoeuvres(FleetStatus::PHASE_CLIMBING),
        "landing_reports": manoeuvres(FleetStatus::PHASE_LANDING),
        "unreadable_samples": answer_samples.len() - answers.len() + report_samples.len() - reports.len(),
    });
    observed["per_vehicle"] = Json::Object(per_vehicle);
    observed["violations"] = violations.iter().map(|(_, v)| v.clone()).collect();
    observed["unjudged"] = json!(unjudged);
    observed["sim_time_at_start_s"] = json!(milli(start));
    Found {
        observed,
        failure: violations_failure(&violations),
    }
}

/// The horizontal distance of `vehicle`'s truth from its pad at `touchdown` (its report),
/// with what was compared; or why it cannot be told.
fn truth_from_pad(
    store: &Store,
    (vehicle, truth_topic): (&str, &str),
    pad: &CarrierPad,
    touchdown: &Report,
) -> Result<(f64, Json), String> {
    let truth_samples = store.samples(truth_topic);
    let pad_samples = store.samples(&pad.topic);
    let by_stamp = touchdown.at.is_some() && stamped(truth_samples) && stamped(pad_samples);
    let series = |samples: &[(f64, Json)], at: &str| {
        let mut s: Vec<(f64, [f64; 3])> = samples
            .iter()
            .filter_map(|(t, m)| {
                let when = if by_stamp { stamp(m)? } else { *t };
                Some((when, position(m, at)?))
            })
            .filter(|(_, p)| p.iter().all(|x| x.is_finite()))
            .collect();
        s.sort_by(|a, b| a.0.total_cmp(&b.0));
        s
    };
    let truth = series(truth_samples, "pose.position");
    let pads = series(pad_samples, &format!("poses[{}].position", pad.index));
    let when = match touchdown.at {
        Some(at) if by_stamp => at,
        _ => touchdown.received,
    };
    let t = touchdown.received;
    let q = truth_at(&truth, when).ok_or_else(|| {
        if truth.is_empty() {
            format!("no samples of {truth_topic} (the truth pose of {vehicle}) to compare its touchdown with")
        } else {
            format!("no truth of {vehicle} on {truth_topic} at its touchdown ({t:.2} s)")
        }
    })?;
    let p = truth_at(&pads, when).ok_or_else(|| {
        if pads.is_empty() {
            format!(
                "no pose {} on {} (the pad of {vehicle}) to compare its touchdown with",
                pad.index, pad.topic
            )
        } else {
            format!(
                "no pose {} on {} at the touchdown of {vehicle} ({t:.2} s)",
                pad.index, pad.topic
            )
        }
    })?;
    let d = (q[0] - p[0]).hypot(q[1] - p[1]);
    Ok((
        d,
        json!({
            "pads_topic": pad.topic,
            "pad_index": pad.index,
            "truth_topic": truth_topic,
            "distance_m": milli(d),
            "vehicle_xy": [milli(q[0]), milli(q[1])],
            "pad_xy": [milli(p[0]), milli(p[1])],
            "time_base": if by_stamp { "header.stamp" } else { "received" },
        }),
    ))
}

/// What a `pad_error` check found: `vehicle`'s reports on `status_topic`, its touchdown in
/// `span` (its first LANDED report there after a LANDING one) and there its reported
/// `pad_error_m`, and, given its pad, its truth (on `truth_topic`) against the pad's pose at
/// the same simulation time.
pub(super) fn pad_error(
    store: &Store,
    (vehicle, truth_topic): (&str, &str),
    status_topic: &str,
    (max_m, report_max_m): (f64, f64),
    pad: Option<&CarrierPad>,
    span: Span,
) -> Found {
    let (lo, hi) = (span.lo, span.hi);
    let all = span.until_end(store, status_topic);
    let in_window = all.iter().filter(|(t, _)| span.holds_at(*t)).count();
    let mine: Vec<Report> = all
        .iter()
        .filter_map(|(t, m)| Report::read(*t, m))
        .filter(|r| r.vehicle == vehicle)
        .collect();
    let mut landing_seen = false;
    let touchdown = mine.iter().find(|r| {
        landing_seen |= r.phase == FleetStatus::PHASE_LANDING;
        r.phase == FleetStatus::PHASE_LANDED && landing_seen && span.holds_at(r.received)
    });
    let mut observed = json!({
        "vehicle": vehicle,
        "status_topic": status_topic,
        "max_m": max_m,
        "report_max_m": report_max_m,
        "reports": mine.len(),
        "last_phase": mine.last().map(|r| phase_name(r.phase)),
        "touchdown_s": touchdown.map(|r| milli(r.received)),
        "reported_pad_error_m": touchdown.and_then(|r| r.pad_error_m).map(milli),
        "truth": Json::Null,
    });
    let Some(touchdown) = touchdown else {
        let failure = if in_window == 0 {
            no_samples(status_topic, lo, hi)
        } else if let Some(last) = mine.last() {
            format!(
                "{vehicle} never landed: no LANDED report after LANDING on {status_topic} between {lo:.2} s and {hi:.2} s (its last: {} at {:.2} s)",
                phase_name(last.phase),
                last.received
            )
        } else {
            format!(
                "{vehicle} never landed: none of the {in_window} samples of {status_topic} between {lo:.2} s and {hi:.2} s is a report of it"
            )
        };
        return Found {
            observed,
            failure: Some(failure),
        };
    };
    let t = touchdown.received;
    let mut failures = Vec::new();
    match touchdown.pad_error_m.filter(|e| e.is_finite()) {
        None => failures.push(format!(
            "{vehicle} reported no pad error (NaN) at its touchdown ({t:.2} s)"
        )),
        Some(e) if e > report_max_m => failures.push(format!(
            "{vehicle} touched down at {t:.2} s {e:.2} m from its pad by its own report (pad_error_m), above {report_max_m} m"
        )),
        Some(_) => {}
    }
    if let Some(pad) = pad {
        match truth_from_pad(store, (vehicle, truth_topic), pad, touchdown) {
            Ok((d, truth)) => {
                observed["truth"] = truth;
                if d > max_m {
                    failures.push(format!(
                        "{vehicle}'s truth was {d:.2} m from pad {} of {} at its touchdown ({t:.2} s), above {max_m} m",
                        pad.index, pad.topic
                    ));
                }
            }
            Err(why) => failures.push(why),
        }
    }
    Found {
        observed,
        failure: (!failures.is_empty()).then(|| failures.join("; ")),
    }
}
