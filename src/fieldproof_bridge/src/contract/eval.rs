//! Evaluating what was observed against a contract: pure logic, no DDS.
//!
//! One [`Finding`] per check of a running stack:
//! - `graph`: a publisher (for the drive command: a subscription) of the contract's type exists;
//! - `qos`: every such endpoint has the contract's reliability and durability (discovery does
//!   not carry the depth);
//! - `frame`: every message carries the contract's `frame_id` (and `child_frame_id`); for a TF
//!   topic every listed transform arrives;
//! - `rate`: the rate over the header stamps, the first stamp discarded, is within the
//!   tolerance of `rate_hz` (per transform for TF; rendering sensors take the render
//!   tolerance when given). Messages the writer sent that never reached the checker (a gap
//!   in the writer's RTPS sequence numbers: a best-effort reader on a loaded machine, or the
//!   reader's history overwritten) count as sent: the check judges the publisher's rate, not
//!   the checker's share of it, and its detail says how many were counted so;
//! - `topics`: nothing but the contract's topics (and `/parameter_events`, `/rosout`) is
//!   visible under the namespace; hidden names (a token starting with `_`) are not visible,
//!   and the harness's own namespaces ([`HARNESS_PREFIXES`], plus `--allow`) pass.

use std::collections::{BTreeMap, BTreeSet};

use fieldproof_robots::{Durability, Reliability};
use serde::{Deserialize, Serialize};

use super::{Contract, Role, TfFrame, TopicContract};

/// One publisher or subscription seen by discovery.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Endpoint {
    /// ROS type (`sensor_msgs/msg/Imu`), from the DDS type name.
    pub ros_type: String,
    /// Its reliability.
    pub reliability: Reliability,
    /// Its durability.
    pub durability: Durability,
}

/// One transform of a TF message.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TransformSample {
    /// `header.frame_id`.
    pub parent: String,
    /// `child_frame_id`.
    pub child: String,
    /// `header.stamp` in nanoseconds.
    pub stamp_ns: i64,
}

/// What one received message says about frames and time.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Sample {
    /// `header.stamp` in nanoseconds (types with a header).
    pub stamp_ns: Option<i64>,
    /// `header.frame_id` (types with a header).
    pub frame_id: Option<String>,
    /// `child_frame_id` (odometry).
    pub child_frame_id: Option<String>,
    /// The transforms (TF messages).
    pub transforms: Vec<TransformSample>,
    /// Arrival time at the checker, nanoseconds of a monotonic clock.
    pub received_ns: i64,
    /// The writer that sent it and the sample's RTPS sequence number in that writer, when
    /// known: a gap in one writer's numbers is a message sent that never arrived.
    #[serde(default)]
    pub sent_as: Option<WriterSequence>,
}

/// Which writer sent a sample, and its sequence number there.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct WriterSequence {
    /// The writer's GID, as text.
    pub writer: String,
    /// The sample's sequence number in that writer (consecutive for consecutive writes).
    pub sequence: i64,
}

/// Everything observed about one topic.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct TopicObservation {
    /// Publishers seen by discovery (the checker's own excluded).
    pub publishers: Vec<Endpoint>,
    /// Subscriptions seen by discovery (the checker's own excluded).
    pub subscriptions: Vec<Endpoint>,
    /// Messages received, in arrival order.
    pub samples: Vec<Sample>,
    /// Why no messages could be taken, when the checker could not subscribe (unknown type).
    pub not_subscribed: Option<String>,
}

/// What the checker saw during its run.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Observations {
    /// Per contract topic (missing: nothing seen).
    pub topics: BTreeMap<String, TopicObservation>,
    /// Every topic name discovery showed (any endpoint, any participant but the checker's).
    pub visible_topics: BTreeSet<String>,
    /// How long the checker listened.
    pub duration_s: f64,
}

/// The checker's settings.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Settings {
    /// Samples wanted per topic (and per transform) for the frame and rate checks.
    pub samples: usize,
    /// Relative rate tolerance (0.1: within 10 %).
    pub tolerance: f64,
    /// Relative rate tolerance of the rendering sensors, when given.
    pub render_tolerance: Option<f64>,
    /// Name prefixes the `topics` check lets pass besides the contract's topics: the test
    /// harness's own (the simulator standing in for Gazebo, which is not on ROS).
    pub allowed_prefixes: Vec<String>,
}

/// The harness's namespaces, allowed by default: `fieldproof_sim`'s step service topic and
/// the `/fieldproof/truth` ground truth.
pub const HARNESS_PREFIXES: &[&str] = &["/fieldproof/", "/fieldproof_sim/"];

impl Default for Settings {
    fn default() -> Self {
        Self {
            samples: 10,
            tolerance: 0.1,
            render_tolerance: None,
            allowed_prefixes: HARNESS_PREFIXES.iter().map(|p| p.to_string()).collect(),
        }
    }
}

/// Which check a finding reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Check {
    /// An endpoint of the contract's type exists.
    Graph,
    /// The endpoints' reliability and durability.
    Qos,
    /// frame_id / child_frame_id / TF transforms.
    Frame,
    /// The rate over the header stamps.
    Rate,
    /// Nothing else visible under the namespace.
    Topics,
}

/// The outcome of a check.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    /// The contract holds.
    Pass,
    /// The contract is broken.
    Fail,
    /// The check could not be made (the reason says why); not a failure.
    Skip,
}

/// One check's result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Finding {
    /// The check.
    pub check: Check,
    /// The topic (for `topics`: the namespace).
    pub topic: String,
    /// Pass, fail or skip.
    pub status: Status,
    /// What was expected and what was seen.
    pub detail: String,
}

impl Finding {
    fn new(check: Check, topic: &str, status: Status, detail: impl Into<String>) -> Self {
        Self {
            check,
            topic: topic.to_string(),
            status,
            detail: detail.into(),
        }
    }
}

impl std::fmt::Display for Finding {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let status = match self.status {
            Status::Pass => "PASS",
            Status::Fail => "FAIL",
            Status::Skip => "SKIP",
        };
        let check = serde_json::to_value(self.check)
            .ok()
            .and_then(|v| v.as_str().map(str::to_string))
            .unwrap_or_default();
        write!(f, "{status} {check:<6} {}: {}", self.topic, self.detail)
    }
}

/// The checker's verdict: every finding, and the counts.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Report {
    /// The robot of the contract.
    pub robot: String,
    /// Its namespace.
    pub namespace: String,
    /// True when no finding failed.
    pub passed: bool,
    /// Passed findings.
    pub pass: usize,
    /// Failed findings.
    pub fail: usize,
    /// Skipped findings.
    pub skip: usize,
    /// The settings used.
    pub settings: Settings,
    /// How long the checker listened.
    pub duration_s: f64,
    /// Every finding, contract order, checks in order.
    pub findings: Vec<Finding>,
}

fn reliability(r: Reliability) -> &'static str {
    match r {
        Reliability::Reliable => "reliable",
        Reliability::BestEffort => "best_effort",
    }
}

fn durability(d: Durability) -> &'static str {
    match d {
        Durability::Volatile => "volatile",
        Durability::TransientLocal => "transient_local",
    }
}

/// True for a name `ros2 topic list` hides (a token starting with `_`).
pub fn is_hidden_name(topic: &str) -> bool {
    topic.split('/').any(|t| t.starts_with('_'))
}

/// Rate over stamps (nanoseconds, any order), the first (earliest) discarded, counting
/// `lost` more messages sent within their span that never arrived: `None` with fewer than
/// two stamps left or no time between them.
pub fn rate_over_stamps(stamps: &[i64], lost: usize) -> Option<f64> {
    let mut s: Vec<i64> = stamps.to_vec();
    s.sort_unstable();
    s.dedup();
    let s = s.get(1..)?;
    if s.len() < 2 {
        return None;
    }
    let span = (s[s.len() - 1] - s[0]) as f64 / 1e9;
    (span > 0.0).then(|| (s.len() - 1 + lost) as f64 / span)
}

/// Messages sent but never received between the samples stamped after `after_ns`: per
/// writer, the gaps in the sequence numbers of consecutive received samples. Samples with
/// no stamp or no sequence number count for nothing.
pub fn lost_in_transport(samples: &[Sample], after_ns: i64) -> usize {
    let mut by_writer: BTreeMap<&str, Vec<i64>> = BTreeMap::new();
    for sample in samples {
        if let (Some(stamp), Some(sent)) = (sample.stamp_ns, &sample.sent_as) {
            if stamp > after_ns {
                by_writer
                    .entry(sent.writer.as_str())
                    .or_default()
                    .push(sent.sequence);
            }
        }
    }
    by_writer
        .into_values()
        .map(|mut sequences| {
            sequences.sort_unstable();
            sequences.dedup();
            sequences
                .windows(2)
                .map(|pair| (pair[1] - pair[0] - 1).max(0) as usize)
                .sum::<usize>()
        })
        .sum()
}

fn rate_finding(
    topic: &str,
    what: &str,
    stamps: &[i64],
    lost: usize,
    expected: f64,
    tolerance: f64,
    samples_wanted: usize,
) -> Finding {
    match rate_over_stamps(stamps, lost) {
        None => Finding::new(
            Check::Rate,
            topic,
            Status::Fail,
            format!(
                "{what}expected {expected} Hz, too few distinct stamps to measure ({} of the {} wanted)",
                stamps.len(),
                samples_wanted + 1
            ),
        ),
        Some(rate) => {
            let off = (rate - expected).abs() / expected;
            let status = if off <= tolerance {
                Status::Pass
            } else {
                Status::Fail
            };
            let counted = if lost > 0 {
                format!(" (and {lost} sent that never reached the checker, by the writer's sequence numbers)")
            } else {
                String::new()
            };
            Finding::new(
                Check::Rate,
                topic,
                status,
                format!(
                    "{what}{rate:.2} Hz over {} stamps{counted}, expected {expected} Hz ± {:.0} %",
                    stamps.len().saturating_sub(1),
                    tolerance * 100.0
                ),
            )
        }
    }
}

fn check_topic(t: &TopicContract, o: Option<&TopicObservation>, s: &Settings) -> Vec<Finding> {
    let empty = TopicObservation::default();
    let o = o.unwrap_or(&empty);
    let name = t.topic.as_str();
    let mut out = Vec::new();
    let (side, endpoints) = match t.role {
        Role::Publisher => ("publisher", &o.publishers),
        Role::Subscriber => ("subscription", &o.subscriptions),
    };
    // graph
    let typed: Vec<&Endpoint> = endpoints
        .iter()
        .filter(|e| e.ros_type == t.ros_type)
        .collect();
    if typed.is_empty() {
        let others: BTreeSet<&str> = endpoints.iter().map(|e| e.ros_type.as_str()).collect();
        let detail = if others.is_empty() {
            format!("no {side} of {}", t.ros_type)
        } else {
            format!(
                "no {side} of {}; {side}s of {} instead",
                t.ros_type,
                others.into_iter().collect::<Vec<_>>().join(", ")
            )
        };
        out.push(Finding::new(Check::Graph, name, Status::Fail, detail));
        out.push(Finding::new(
            Check::Qos,
            name,
            Status::Skip,
            format!("no {side} to check"),
        ));
    } else {
        out.push(Finding::new(
            Check::Graph,
            name,
            Status::Pass,
            format!("{} {side}(s) of {}", typed.len(), t.ros_type),
        ));
        let want = (t.qos.reliability, t.qos.durability);
        let wrong: Vec<String> = typed
            .iter()
            .filter(|e| (e.reliability, e.durability) != want)
            .map(|e| {
                format!(
                    "{}, {}",
                    reliability(e.reliability),
                    durability(e.durability)
                )
            })
            .collect();
        let expected = format!(
            "{}, {}",
            reliability(t.qos.reliability),
            durability(t.qos.durability)
        );
        if wrong.is_empty() {
            out.push(Finding::new(
                Check::Qos,
                name,
                Status::Pass,
                format!("{expected} on every {side}"),
            ));
        } else {
            out.push(Finding::new(
                Check::Qos,
                name,
                Status::Fail,
                format!(
                    "expected {expected}; {} of {} {side}(s) have {}",
                    wrong.len(),
                    typed.len(),
                    wrong.join(" / ")
                ),
            ));
        }
    }
    if t.role == Role::Subscriber {
        return out;
    }
    let wants_frame = t.frame_id.is_some() || t.child_frame_id.is_some() || !t.frames.is_empty();
    let wants_rate = t.rate_hz.is_some();
    if !(wants_frame || wants_rate) {
        return out;
    }
    if let Some(why) = &o.not_subscribed {
        for (wanted, check) in [(wants_frame, Check::Frame), (wants_rate, Check::Rate)] {
            if wanted {
                out.push(Finding::new(check, name, Status::Skip, why.clone()));
            }
        }
        return out;
    }
    if o.samples.is_empty() {
        for (wanted, check) in [(wants_frame, Check::Frame), (wants_rate, Check::Rate)] {
            if wanted {
                out.push(Finding::new(
                    check,
                    name,
                    Status::Fail,
                    "no message arrived",
                ));
            }
        }
        return out;
    }
    let tolerance = if t.is_rendering() {
        s.render_tolerance.unwrap_or(s.tolerance)
    } else {
        s.tolerance
    };
    if t.is_tf() {
        // Per transform: the listed ones must arrive, and (with a rate) at it.
        let mut stamps: BTreeMap<(&str, &str), Vec<i64>> = BTreeMap::new();
        for tr in o.samples.iter().flat_map(|x| &x.transforms) {
            stamps
                .entry((tr.parent.as_str(), tr.child.as_str()))
                .or_default()
                .push(tr.stamp_ns);
        }
        let missing: Vec<&TfFrame> = t
            .frames
            .iter()
            .filter(|f| !stamps.contains_key(&(f.parent.as_str(), f.child.as_str())))
            .collect();
        if t.frames.is_empty() {
            // Nothing listed: nothing to check per transform.
        } else if missing.is_empty() {
            out.push(Finding::new(
                Check::Frame,
                name,
                Status::Pass,
                format!("all {} transform(s) arrive", t.frames.len()),
            ));
        } else {
            let list: Vec<String> = missing
                .iter()
                .map(|f| format!("{} -> {}", f.parent, f.child))
                .collect();
            out.push(Finding::new(
                Check::Frame,
                name,
                Status::Fail,
                format!("missing transform(s) {}", list.join(", ")),
            ));
        }
        if let Some(rate) = t.rate_hz {
            for f in &t.frames {
                let st = stamps
                    .get(&(f.parent.as_str(), f.child.as_str()))
                    .cloned()
                    .unwrap_or_default();
                // A TF message carries any subset of the transforms: a lost message says
                // nothing about which, so nothing is counted as lost here.
                out.push(rate_finding(
                    name,
                    &format!("{} -> {}: ", f.parent, f.child),
                    &st,
                    0,
                    rate,
                    tolerance,
                    s.samples,
                ));
            }
        }
        return out;
    }
    if wants_frame {
        let mut bad: BTreeMap<String, usize> = BTreeMap::new();
        for x in &o.samples {
            if t.frame_id.is_some() && x.frame_id != t.frame_id {
                *bad.entry(format!(
                    "frame_id {:?}",
                    x.frame_id.clone().unwrap_or_default()
                ))
                .or_default() += 1;
            }
            if t.child_frame_id.is_some() && x.child_frame_id != t.child_frame_id {
                *bad.entry(format!(
                    "child_frame_id {:?}",
                    x.child_frame_id.clone().unwrap_or_default()
                ))
                .or_default() += 1;
            }
        }
        let expected = match (&t.frame_id, &t.child_frame_id) {
            (Some(f), Some(c)) => format!("{f} -> {c}"),
            (Some(f), None) => f.clone(),
            (None, Some(c)) => format!("child {c}"),
            (None, None) => String::new(),
        };
        if bad.is_empty() {
            out.push(Finding::new(
                Check::Frame,
                name,
                Status::Pass,
                format!("{expected} in all {} message(s)", o.samples.len()),
            ));
        } else {
            let seen: Vec<String> = bad.iter().map(|(k, n)| format!("{k} in {n}")).collect();
            out.push(Finding::new(
                Check::Frame,
                name,
                Status::Fail,
                format!(
                    "expected {expected}; {} of {} message(s)",
                    seen.join(", "),
                    o.samples.len()
                ),
            ));
        }
    }
    if let Some(rate) = t.rate_hz {
        let stamped: Vec<i64> = o.samples.iter().filter_map(|x| x.stamp_ns).collect();
        if stamped.is_empty() {
            // No header: arrival times at the checker (wall clock) are all there is.
            let arrivals: Vec<i64> = o.samples.iter().map(|x| x.received_ns).collect();
            out.push(rate_finding(
                name,
                "(arrival times, no header) ",
                &arrivals,
                0,
                rate,
                tolerance,
                s.samples,
            ));
        } else {
            let first = stamped.iter().copied().min().unwrap_or_default();
            let lost = lost_in_transport(&o.samples, first);
            out.push(rate_finding(
                name, "", &stamped, lost, rate, tolerance, s.samples,
            ));
        }
    }
    out
}

fn check_topics(c: &Contract, o: &Observations, s: &Settings) -> Finding {
    let ns = c.namespace.trim_end_matches('/');
    let allowed: BTreeSet<&str> = c
        .topics
        .iter()
        .map(|t| t.topic.as_str())
        .chain(c.allowed_extra_topics.iter().map(String::as_str))
        .collect();
    let scope = if ns.is_empty() { "/" } else { ns };
    let extra: Vec<&str> = o
        .visible_topics
        .iter()
        .map(String::as_str)
        .filter(|t| ns.is_empty() || t.starts_with(&format!("{ns}/")))
        .filter(|t| !is_hidden_name(t))
        .filter(|t| !allowed.contains(t))
        .filter(|t| !s.allowed_prefixes.iter().any(|p| t.starts_with(p.as_str())))
        .collect();
    if extra.is_empty() {
        Finding::new(
            Check::Topics,
            scope,
            Status::Pass,
            "nothing visible but the contract's topics",
        )
    } else {
        Finding::new(
            Check::Topics,
            scope,
            Status::Fail,
            format!("not in the contract: {}", extra.join(", ")),
        )
    }
}

/// Every finding for `contract` given `obs`.
pub fn evaluate(contract: &Contract, obs: &Observations, settings: &Settings) -> Report {
    let mut findings = Vec::new();
    for t in &contract.topics {
        findings.extend(check_topic(t, obs.topics.get(&t.topic), settings));
    }
    findings.push(check_topics(contract, obs, settings));
    let count = |s: Status| findings.iter().filter(|f| f.status == s).count();
    let (pass, fail, skip) = (
        count(Status::Pass),
        count(Status::Fail),
        count(Status::Skip),
    );
    Report {
        robot: contract.robot.clone(),
        namespace: contract.namespace.clone(),
        passed: fail == 0,
        pass,
        fail,
        skip,
        settings: settings.clone(),
        duration_s: obs.duration_s,
        findings,
    }
}

/// True when a topic has what the frame and rate checks need: `samples` messages after the
/// first (per listed transform for TF). The collector stops listening once every topic is.
pub fn topic_satisfied(t: &TopicContract, o: &TopicObservation, samples: usize) -> bool {
    if t.role == Role::Subscriber || o.not_subscribed.is_some() {
        return true;
    }
    let wants_frame = t.frame_id.is_some() || t.child_frame_id.is_some() || !t.frames.is_empty();
    if !(wants_frame || t.rate_hz.is_some()) {
        return true;
    }
    if t.is_tf() {
        return t.frames.iter().all(|f| {
            let n = o
                .samples
                .iter()
                .flat_map(|x| &x.transforms)
                .filter(|tr| tr.parent == f.parent && tr.child == f.child)
                .count();
            n > if t.rate_hz.is_some() { samples } else { 0 }
        });
    }
    o.samples.len() > samples
}

#[cfg(test)]
mod tests;
