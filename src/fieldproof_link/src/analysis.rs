//! Link analysis: the ground station's per-second windows split into periods (one per
//! profile in force), the estimates of each period and its verdict.
//!
//! Rules (spec: Radio links / Measurement):
//! - a window covers the probes sent in one second `[t, t+1)`; it counts for a period only
//!   when it lies wholly inside it: a window straddling a change, or sent while a profile
//!   was being applied, counts for none;
//! - the initial period is judged from the start of the timeline (`judged_from_s = 0`):
//!   the bring-up windows stay in the record, not in the verdict;
//! - one-way latency = mean RTT / 2, jitter = RTT standard deviation / √2,
//!   one-way loss = 1 − √(replies / probes);
//! - passed: latency within the tolerance of the profile over ≥ 20 replies; a dropped
//!   link passes when ≥ 10 probes were sent and at most 3 answered (those in flight when
//!   the drop began); failed otherwise; insufficient with fewer replies (or probes);
//! - the tolerance is max(10 %, 0.5 ms, 3 standard errors of the estimate): a link that
//!   matches a profile with jitter σ one way gives round trips of standard deviation σ√2,
//!   so the latency estimate over n replies has a standard error of σ / √(2n). With
//!   `lte_rural` (60 ± 20 ms) and 30 replies that is 2.6 ms, and 10 % alone (6 ms, 2.3
//!   standard errors) failed a matching link about one period in fifty (a CI run: 66.18 ms
//!   over 30 replies).

use crate::duration::Secs;
use crate::profile::{Network, Profile, ProfileError, Verify, DROP};
use crate::scenario_file::{link_entries, FieldError, LinkAction, LinkDrop, LinkSet};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use thiserror::Error;

/// Replies a period needs for a latency verdict.
pub const MIN_REPLIES: u64 = 20;
/// Probes a dropped period needs for a verdict.
pub const MIN_DROP_PROBES: u64 = 10;
/// Answered probes a dropped period tolerates (in flight when the drop began).
pub const DROP_TOLERATED_REPLIES: u64 = 3;
/// How long before a drop's end its windows are left unjudged, s. A sender whose neighbour
/// entry expired during the drop holds its packets in the kernel while ARP resolves (up to
/// `mcast_solicit` 3 requests `retrans_time` 1 s apart) and sends them when the link returns:
/// probes sent in the drop's last seconds are answered after the restore without having
/// crossed the dropped link (a fresh-clone run: 6 replies in the drop's last window, the
/// slowest 983 ms).
pub const DROP_END_HOLD_S: f64 = 3.0;
/// Relative latency tolerance.
pub const LATENCY_TOLERANCE: f64 = 0.10;
/// Absolute latency tolerance floor (ms): the host's scheduling noise.
pub const LATENCY_FLOOR_MS: f64 = 0.5;
/// Standard errors of the latency estimate the tolerance always allows (a matching link
/// fails about one period in 370).
pub const LATENCY_STANDARD_ERRORS: f64 = 3.0;

/// How far (ms) a latency estimate over `replies` replies may lie from a profile's
/// `latency_ms` and still match it: max(10 %, 0.5 ms, 3 standard errors of the estimate
/// under the profile's one-way jitter `jitter_ms`, σ / √(2n)).
pub fn latency_tolerance_ms(latency_ms: f64, jitter_ms: f64, replies: u64) -> f64 {
    let relative = (latency_ms * LATENCY_TOLERANCE).max(LATENCY_FLOOR_MS);
    if replies == 0 {
        return relative;
    }
    let standard_error = jitter_ms / (2.0 * replies as f64).sqrt();
    relative.max(LATENCY_STANDARD_ERRORS * standard_error)
}
/// Cause of the initial period (and of the shaper's first application of it).
pub const INITIAL_CAUSE: &str = "configured";
/// Slack for comparing window and change times (s).
const EPS: f64 = 1e-6;

/// One line of `network.jsonl`: the probes one link sent in one second and their replies.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Window {
    /// Wall-clock time the window's first probe was due (Unix seconds).
    pub t: f64,
    /// The link (vehicle name).
    pub link: String,
    /// Probes sent.
    pub sent: u64,
    /// Replies received within the timeout.
    pub replies: u64,
    /// Sum of the round trips (ms).
    pub sum_ms: f64,
    /// Sum of the squared round trips (ms²).
    pub sumsq_ms2: f64,
    /// Shortest round trip (ms), `None` without replies.
    pub min_ms: Option<f64>,
    /// Longest round trip (ms), `None` without replies.
    pub max_ms: Option<f64>,
    /// Replies that came after the timeout (not counted in `replies`).
    #[serde(default)]
    pub late: u64,
    /// Replies matching no probe of this link (not counted).
    #[serde(default)]
    pub unknown: u64,
}

/// A profile change on one link, in seconds from the start of the timeline.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Change {
    /// The link (vehicle name).
    pub link: String,
    /// When the shaper started applying the profile.
    pub applying_s: f64,
    /// When it had applied it.
    pub applied_s: f64,
    /// The profile's name.
    pub profile: String,
    /// What caused it (the timeline entry's name and action).
    pub cause: String,
}

/// Verdict of a period.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Verdict {
    /// The measurement matches the profile.
    Passed,
    /// It does not.
    Failed,
    /// Too few replies (or probes) to judge.
    Insufficient,
}

/// What the windows of a period measured.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub struct Measurement {
    /// Windows counted.
    pub windows: u64,
    /// Probes sent.
    pub sent: u64,
    /// Replies.
    pub replies: u64,
    /// One-way latency estimate (ms): mean RTT / 2.
    pub latency_ms: Option<f64>,
    /// Jitter estimate (ms): RTT standard deviation / √2.
    pub jitter_ms: Option<f64>,
    /// One-way loss estimate (%): 1 − √(replies / probes).
    pub loss_pct: Option<f64>,
    /// Shortest and longest round trip (ms).
    pub min_rtt_ms: Option<f64>,
    /// Longest round trip (ms).
    pub max_rtt_ms: Option<f64>,
}

impl Measurement {
    /// Sums windows and derives the estimates.
    pub fn from_windows<'a>(windows: impl IntoIterator<Item = &'a Window>) -> Self {
        let (mut n, mut sent, mut replies, mut sum, mut sumsq) = (0u64, 0u64, 0u64, 0.0f64, 0.0f64);
        let (mut min, mut max): (Option<f64>, Option<f64>) = (None, None);
        for w in windows {
            n += 1;
            sent += w.sent;
            replies += w.replies;
            sum += w.sum_ms;
            sumsq += w.sumsq_ms2;
            if let Some(m) = w.min_ms {
                min = Some(min.map_or(m, |x: f64| x.min(m)));
            }
            if let Some(m) = w.max_ms {
                max = Some(max.map_or(m, |x: f64| x.max(m)));
            }
        }
        let mut m = Measurement {
            windows: n,
            sent,
            replies,
            min_rtt_ms: min,
            max_rtt_ms: max,
            ..Default::default()
        };
        if replies > 0 {
            let k = replies as f64;
            let mean = sum / k;
            m.latency_ms = Some(mean / 2.0);
            let var = if replies > 1 {
                ((sumsq - k * mean * mean) / (k - 1.0)).max(0.0)
            } else {
                0.0
            };
            m.jitter_ms = Some(var.sqrt() / std::f64::consts::SQRT_2);
        }
        if sent > 0 {
            let ratio = (replies as f64 / sent as f64).min(1.0);
            m.loss_pct = Some((1.0 - ratio.sqrt()) * 100.0);
        }
        m
    }
}

/// Judges a measurement against the expected profile; returns the verdict and, unless it
/// passed, why.
pub fn judge(
    link: &str,
    profile_name: &str,
    expected: &Profile,
    m: &Measurement,
) -> (Verdict, Option<String>) {
    if expected.is_drop() {
        if m.sent < MIN_DROP_PROBES {
            return (
                Verdict::Insufficient,
                Some(format!("{} probes, a drop needs {MIN_DROP_PROBES}", m.sent)),
            );
        }
        if m.replies <= DROP_TOLERATED_REPLIES {
            return (Verdict::Passed, None);
        }
        return (
            Verdict::Failed,
            Some(format!(
                "link {link} does not match profile {profile_name}: {} of {} probes answered (at most {DROP_TOLERATED_REPLIES})",
                m.replies, m.sent
            )),
        );
    }
    let Some(lat) = m.latency_ms.filter(|_| m.replies >= MIN_REPLIES) else {
        return (
            Verdict::Insufficient,
            Some(format!(
                "{} replies, a verdict needs {MIN_REPLIES}",
                m.replies
            )),
        );
    };
    let tol = latency_tolerance_ms(expected.latency_ms, expected.jitter_ms, m.replies);
    if (lat - expected.latency_ms).abs() <= tol {
        (Verdict::Passed, None)
    } else {
        (
            Verdict::Failed,
            Some(format!(
                "link {link} does not match profile {profile_name}: latency {lat:.2} ms (expected {} ms ± {tol:.2} ms)",
                expected.latency_ms
            )),
        )
    }
}

/// One profile in force on one link, with its measurement and verdict.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Period {
    /// What put the profile in force.
    pub cause: String,
    /// The profile's name.
    pub profile: String,
    /// Start (s from the start of the timeline); `None` for the bring-up before it.
    pub from_s: Option<f64>,
    /// End; `None` while it lasts.
    pub to_s: Option<f64>,
    /// Where the verdict's windows start (the initial period: 0, the timeline's start).
    pub judged_from_s: Option<f64>,
    /// The expected profile.
    pub expected: Profile,
    /// What the windows measured.
    pub measurement: Measurement,
    /// The verdict.
    pub verdict: Verdict,
    /// Why it did not pass.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

/// A link's periods.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LinkReport {
    /// The profile the scenario configures.
    pub configured: String,
    /// The profile in force at the end.
    pub current: String,
    /// Every period in order.
    pub periods: Vec<Period>,
}

/// Per-link periods and the reasons of the failed ones.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Report {
    /// Wall-clock start of the timeline (Unix s) the period times refer to.
    pub timeline_start: f64,
    /// Per link.
    pub links: BTreeMap<String, LinkReport>,
    /// One reason per failed period.
    pub failed: Vec<String>,
}

/// (cause, profile, from, to, judged_from) of a period before it is measured.
type Span = (String, String, Option<f64>, Option<f64>, Option<f64>);

/// Splits one link's windows into periods and judges them.
///
/// `windows` of that link, `changes` of that link sorted by time, `start` the timeline's
/// wall-clock start, `end_s` its end (s from the start) if known.
pub fn link_periods(
    net: &Network,
    link: &str,
    windows: &[&Window],
    changes: &[Change],
    start: f64,
    end_s: Option<f64>,
) -> Result<LinkReport, ProfileError> {
    let configured = net.configured_name(link).to_string();
    // (cause, profile, from, to, judged_from)
    // The shaper records the configured profile's first application (cause `configured…`):
    // it starts the initial period, which is still judged from the timeline's start.
    let (initial_from, changes) = match changes.first() {
        Some(c) if c.cause.starts_with(INITIAL_CAUSE) && c.profile == configured => {
            (Some(c.applied_s), &changes[1..])
        }
        _ => (None, changes),
    };
    let mut spans: Vec<Span> = vec![(
        INITIAL_CAUSE.into(),
        configured.clone(),
        initial_from,
        None,
        Some(0.0),
    )];
    for c in changes {
        let last = spans.last_mut().expect("non-empty");
        last.3 = Some(c.applying_s);
        spans.push((
            c.cause.clone(),
            c.profile.clone(),
            Some(c.applied_s),
            None,
            None,
        ));
    }
    if let Some(e) = end_s {
        let last = spans.last_mut().expect("non-empty");
        last.3 = Some(last.3.map_or(e, |t| t.min(e)));
    }
    let mut periods = Vec::new();
    for (i, (cause, profile, from, to, judged)) in spans.into_iter().enumerate() {
        let expected = net
            .lookup(&profile, &format!("periods.{link}[{i}].profile"))?
            .clone();
        let lo = match (judged, from) {
            (Some(j), Some(f)) => j.max(f),
            (j, f) => j.or(f).unwrap_or(f64::NEG_INFINITY),
        };
        let hi = to.unwrap_or(f64::INFINITY)
            - if expected.is_drop() && to.is_some() {
                DROP_END_HOLD_S
            } else {
                0.0
            };
        let inside = windows.iter().copied().filter(|w| {
            let rel = w.t - start;
            rel >= lo - EPS && rel + 1.0 <= hi + EPS
        });
        let measurement = Measurement::from_windows(inside);
        let (verdict, reason) = judge(link, &profile, &expected, &measurement);
        periods.push(Period {
            cause,
            profile,
            from_s: from,
            to_s: to,
            judged_from_s: judged,
            expected,
            measurement,
            verdict,
            reason,
        });
    }
    let current = periods
        .last()
        .map(|p| p.profile.clone())
        .unwrap_or_else(|| configured.clone());
    Ok(LinkReport {
        configured,
        current,
        periods,
    })
}

/// Analyses every link that has windows or changes.
pub fn analyse(
    net: &Network,
    windows: &[Window],
    changes: &[Change],
    start: f64,
    end_s: Option<f64>,
) -> Result<Report, ProfileError> {
    let mut names: Vec<&str> = windows
        .iter()
        .map(|w| w.link.as_str())
        .chain(changes.iter().map(|c| c.link.as_str()))
        .collect();
    names.sort();
    names.dedup();
    let mut links = BTreeMap::new();
    let mut failed = Vec::new();
    for name in names {
        let ws: Vec<&Window> = windows.iter().filter(|w| w.link == name).collect();
        let mut cs: Vec<Change> = changes.iter().filter(|c| c.link == name).cloned().collect();
        cs.sort_by(|a, b| a.applying_s.total_cmp(&b.applying_s));
        let r = link_periods(net, name, &ws, &cs, start, end_s)?;
        failed.extend(
            r.periods
                .iter()
                .filter(|p| p.verdict == Verdict::Failed)
                .filter_map(|p| p.reason.clone()),
        );
        links.insert(name.to_string(), r);
    }
    Ok(Report {
        timeline_start: start,
        links,
        failed,
    })
}

/// A timeline that cannot be turned into changes.
#[derive(Debug, Error, PartialEq)]
pub enum TimelineError {
    /// A field with a bad value.
    #[error("{path}: {message}")]
    Field {
        /// Field path, e.g. `timeline[2].duration_s`.
        path: String,
        /// What is wrong.
        message: String,
    },
    /// A profile problem.
    #[error(transparent)]
    Profile(#[from] ProfileError),
}

impl From<FieldError> for TimelineError {
    fn from(e: FieldError) -> Self {
        TimelineError::Field {
            path: e.path,
            message: e.message,
        }
    }
}

/// Turns the link actions of a scenario timeline (entries with `at`) into profile changes,
/// applied at the planned time (`applying_s == applied_s`). The entries are read through
/// [`link_entries`]: the same link action types and duration grammar as `fieldproof validate`.
pub fn timeline_changes(
    net: &Network,
    timeline: &serde_yaml::Value,
) -> Result<Vec<Change>, TimelineError> {
    let mut out = Vec::new();
    for entry in link_entries(timeline)? {
        let path = format!("timeline[{}]", entry.index);
        let f = |k: &str, message: String| TimelineError::Field {
            path: format!("{path}.{k}"),
            message,
        };
        let vehicle = entry
            .vehicle
            .clone()
            .ok_or_else(|| f("vehicle", "missing".into()))?;
        let Some(at) = entry.at else {
            return Err(f("at", "a link action without `at` can only be analysed from the shaper's events (--events)".into()));
        };
        let action = entry.action_name.as_str();
        let name = entry.name.as_deref().unwrap_or(action);
        let cause = format!("{name} ({action})");
        match &entry.action {
            LinkAction::Set(LinkSet { profile }) => {
                let p = profile
                    .as_deref()
                    .ok_or_else(|| f("profile", "missing".into()))?;
                net.lookup(p, &format!("{path}.profile"))?;
                out.push(Change {
                    link: vehicle,
                    applying_s: at,
                    applied_s: at,
                    profile: p.to_string(),
                    cause,
                });
            }
            LinkAction::Drop(LinkDrop { duration_s }) => {
                out.push(Change {
                    link: vehicle.clone(),
                    applying_s: at,
                    applied_s: at,
                    profile: DROP.into(),
                    cause: cause.clone(),
                });
                if let Some(d) = duration_s.map(Secs::get) {
                    let profile = net.configured_name(&vehicle).to_string();
                    out.push(Change {
                        link: vehicle,
                        applying_s: at + d,
                        applied_s: at + d,
                        profile,
                        cause: format!("{name} (restored after {d} s)"),
                    });
                }
            }
            LinkAction::Restore(_) => {
                let profile = net.configured_name(&vehicle).to_string();
                out.push(Change {
                    link: vehicle,
                    applying_s: at,
                    applied_s: at,
                    profile,
                    cause,
                });
            }
        }
    }
    out.sort_by(|a, b| a.applying_s.total_cmp(&b.applying_s));
    Ok(out)
}

/// What a report means for the run under `verify`: the warnings to print and whether the
/// run fails.
pub fn apply_verify(report: &Report, verify: Verify) -> (Vec<String>, bool) {
    match verify {
        Verify::Off => (Vec::new(), false),
        Verify::Warn => (
            report
                .failed
                .iter()
                .map(|r| format!("link.failed: {r}"))
                .collect(),
            false,
        ),
        Verify::Fail => (report.failed.clone(), !report.failed.is_empty()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::profile::presets;

    fn net() -> Network {
        Network::from_yaml(
            "profile: lte_rural\nlinks: { ugv2: wifi_good }\n",
            &presets(),
        )
        .unwrap()
    }

    /// A window of `sent` probes with `replies` replies all at `rtt` ms, starting `t` s after 1000.
    fn win(link: &str, t: f64, sent: u64, replies: u64, rtt: f64) -> Window {
        Window {
            t: 1000.0 + t,
            link: link.into(),
            sent,
            replies,
            sum_ms: rtt * replies as f64,
            sumsq_ms2: rtt * rtt * replies as f64,
            min_ms: (replies > 0).then_some(rtt),
            max_ms: (replies > 0).then_some(rtt),
            late: 0,
            unknown: 0,
        }
    }

    #[test]
    fn estimates_follow_the_formulas() {
        // Round trips 100 and 140 ms: mean 120 → latency 60; sample sd 28.28 → jitter 20.
        let w = Window {
            sum_ms: 240.0,
            sumsq_ms2: 100.0f64.powi(2) + 140.0f64.powi(2),
            min_ms: Some(100.0),
            max_ms: Some(140.0),
            ..win("a", 0.0, 2, 2, 0.0)
        };
        let m = Measurement::from_windows([&w]);
        assert!((m.latency_ms.unwrap() - 60.0).abs() < 1e-9);
        assert!((m.jitter_ms.unwrap() - 20.0).abs() < 1e-9);
        assert_eq!(m.loss_pct, Some(0.0));
        // 81 of 100 answered: one-way loss 1 - sqrt(0.81) = 10 %.
        let m = Measurement::from_windows([&win("a", 0.0, 100, 81, 10.0)]);
        assert!((m.loss_pct.unwrap() - 10.0).abs() < 1e-9);
        assert_eq!(m.min_rtt_ms, Some(10.0));
        let none = Measurement::from_windows([&win("a", 0.0, 10, 0, 0.0)]);
        assert_eq!((none.latency_ms, none.loss_pct), (None, Some(100.0)));
    }

    /// A period whose every probe was answered, with this latency estimate.
    fn answered(latency_ms: f64, replies: u64) -> Measurement {
        Measurement {
            replies,
            sent: replies,
            latency_ms: Some(latency_ms),
            ..Default::default()
        }
    }

    #[test]
    fn latency_verdict_uses_ten_percent_or_half_a_millisecond() {
        let p = Profile {
            latency_ms: 60.0,
            ..Default::default()
        };
        assert_eq!(judge("a", "x", &p, &answered(65.9, 20)).0, Verdict::Passed);
        assert_eq!(judge("a", "x", &p, &answered(54.1, 20)).0, Verdict::Passed);
        let (v, r) = judge("ugv1", "lte_rural", &p, &answered(118.78, 40));
        assert_eq!(v, Verdict::Failed);
        assert_eq!(r.unwrap(), "link ugv1 does not match profile lte_rural: latency 118.78 ms (expected 60 ms ± 6.00 ms)");
        assert_eq!(
            judge("a", "x", &p, &answered(60.0, 19)).0,
            Verdict::Insufficient
        );
        // Below 5 ms the floor of 0.5 ms decides.
        let small = Profile {
            latency_ms: 1.0,
            ..Default::default()
        };
        assert_eq!(
            judge("a", "x", &small, &answered(1.45, 20)).0,
            Verdict::Passed
        );
        assert_eq!(
            judge("a", "x", &small, &answered(1.55, 20)).0,
            Verdict::Failed
        );
    }

    #[test]
    fn latency_tolerance_allows_three_standard_errors_of_a_jittery_estimate() {
        let lte_rural = Profile {
            latency_ms: 60.0,
            jitter_ms: 20.0,
            ..Default::default()
        };
        // 30 replies: 3 × 20 / √60 = 7.75 ms > 6 ms. The CI run's matching link passes.
        assert!((latency_tolerance_ms(60.0, 20.0, 30) - 7.746).abs() < 1e-3);
        assert_eq!(
            judge("a", "x", &lte_rural, &answered(66.18, 30)).0,
            Verdict::Passed
        );
        // 100 replies: 4.24 ms, below 10 %: the spec's 6 ms decides again.
        assert_eq!(latency_tolerance_ms(60.0, 20.0, 100), 6.0);
        let (v, r) = judge("ugv1", "lte_rural", &lte_rural, &answered(66.18, 100));
        assert_eq!(v, Verdict::Failed);
        assert_eq!(
            r.unwrap(),
            "link ugv1 does not match profile lte_rural: latency 66.18 ms (expected 60 ms ± 6.00 ms)"
        );
        // Without jitter nothing changes.
        assert_eq!(latency_tolerance_ms(60.0, 0.0, 20), 6.0);
        assert_eq!(latency_tolerance_ms(1.0, 0.0, 20), LATENCY_FLOOR_MS);
    }

    #[test]
    fn a_matching_jittery_link_fails_rarely() {
        // 20 000 periods of 30 round trips on a link that matches lte_rural exactly (one-way
        // delay 60 ms + N(0, 20 ms) each way; a fixed-seed generator): 10 % alone fails
        // about 2 % of them, the tolerance about 0.3 %.
        let mut state: u64 = 0x2545_f491_4f6c_dd1d;
        let mut uniform = || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state >> 11) as f64 / (1u64 << 53) as f64
        };
        let mut normal = || {
            let (u1, u2) = (uniform().max(1e-300), uniform());
            (-2.0 * u1.ln()).sqrt() * (2.0 * std::f64::consts::PI * u2).cos()
        };
        let lte_rural = Profile {
            latency_ms: 60.0,
            jitter_ms: 20.0,
            ..Default::default()
        };
        let (periods, replies) = (20_000, 30);
        let (mut failed, mut failed_by_ten_percent) = (0, 0);
        for _ in 0..periods {
            let sum: f64 = (0..replies)
                .map(|_| 120.0 + 20.0 * normal() + 20.0 * normal())
                .sum();
            let measurement = answered(sum / replies as f64 / 2.0, replies);
            if judge("a", "x", &lte_rural, &measurement).0 == Verdict::Failed {
                failed += 1;
            }
            if (measurement.latency_ms.unwrap() - 60.0).abs() > 6.0 {
                failed_by_ten_percent += 1;
            }
        }
        let rate = |n: i32| n as f64 / periods as f64;
        assert!(rate(failed) < 0.006, "{failed} of {periods}");
        assert!(
            rate(failed_by_ten_percent) > 0.01,
            "{failed_by_ten_percent}"
        );
    }

    #[test]
    fn drop_verdict_tolerates_three_replies() {
        let d = Profile::drop_profile();
        let m = |sent, replies| Measurement {
            sent,
            replies,
            ..Default::default()
        };
        assert_eq!(judge("a", "drop", &d, &m(10, 0)).0, Verdict::Passed);
        assert_eq!(judge("a", "drop", &d, &m(300, 3)).0, Verdict::Passed);
        assert_eq!(judge("a", "drop", &d, &m(300, 4)).0, Verdict::Failed);
        assert_eq!(judge("a", "drop", &d, &m(9, 0)).0, Verdict::Insufficient);
    }

    #[test]
    fn periods_cut_at_changes_and_skip_straddling_and_bring_up_windows() {
        let net = net();
        let mut ws = Vec::new();
        // bring-up (-5..0): congested, 500 ms round trips; must not count.
        for t in -5..0 {
            ws.push(win("ugv1", t as f64, 10, 10, 500.0));
        }
        // 0..10 s: lte_rural idle, 120 ms RTT.
        for t in 0..10 {
            ws.push(win("ugv1", t as f64, 10, 10, 120.0));
        }
        // drop applied at 10.5 → the window [10, 11) straddles; [11, 30) dropped.
        ws.push(win("ugv1", 10.0, 10, 5, 120.0));
        for t in 11..30 {
            ws.push(win("ugv1", t as f64, 10, 0, 0.0));
        }
        // restored at 30.0 exactly: [30, 31) is the restored period's.
        for t in 30..33 {
            ws.push(win("ugv1", t as f64, 10, 10, 121.0));
        }
        let tl: serde_yaml::Value = serde_yaml::from_str(
            "- { at: 10.5s, name: outage, vehicle: ugv1, action: link.drop, duration_s: 19.5s }\n",
        )
        .unwrap();
        let changes = timeline_changes(&net, &tl).unwrap();
        assert_eq!(changes.len(), 2);
        assert_eq!(
            (changes[1].applying_s, changes[1].profile.as_str()),
            (30.0, "lte_rural")
        );
        let refs: Vec<&Window> = ws.iter().collect();
        let r = link_periods(&net, "ugv1", &refs, &changes, 1000.0, None).unwrap();
        assert_eq!(r.periods.len(), 3);
        let p0 = &r.periods[0];
        assert_eq!(
            (p0.measurement.windows, p0.judged_from_s, p0.to_s),
            (10, Some(0.0), Some(10.5))
        );
        assert_eq!(p0.measurement.latency_ms, Some(60.0));
        assert_eq!(p0.verdict, Verdict::Passed);
        let p1 = &r.periods[1];
        // [11, 27): the drop's last DROP_END_HOLD_S are not judged.
        assert_eq!(
            (p1.profile.as_str(), p1.measurement.windows, p1.verdict),
            ("drop", 16, Verdict::Passed)
        );
        let p2 = &r.periods[2];
        assert_eq!((p2.measurement.windows, p2.verdict), (3, Verdict::Passed));
        assert_eq!(r.current, "lte_rural");
    }

    #[test]
    fn probes_held_by_the_sender_until_the_restore_do_not_fail_the_drop() {
        // Run 7 (fresh clone) of ugv_link_loss: a 30 s drop from 8 s; the window [37, 38)
        // had 6 replies, the slowest 983 ms: held in the ground's kernel while ARP resolved,
        // sent when the link came back at 38 s.
        let net = net();
        let mut ws: Vec<Window> = (8..38).map(|t| win("ugv1", t as f64, 10, 0, 0.0)).collect();
        ws[29] = win("ugv1", 37.0, 10, 6, 983.0);
        let tl: serde_yaml::Value = serde_yaml::from_str(
            "- { at: 8s, vehicle: ugv1, action: link.drop, duration_s: 30s }\n",
        )
        .unwrap();
        let changes = timeline_changes(&net, &tl).unwrap();
        let refs: Vec<&Window> = ws.iter().collect();
        let r = link_periods(&net, "ugv1", &refs, &changes, 1000.0, None).unwrap();
        let drop = &r.periods[1];
        assert_eq!(
            (
                drop.profile.as_str(),
                drop.measurement.windows,
                drop.verdict
            ),
            ("drop", 27, Verdict::Passed)
        );
        // Replies earlier in the drop still fail it.
        ws[20] = win("ugv1", 28.0, 10, 6, 80.0);
        let refs: Vec<&Window> = ws.iter().collect();
        let r = link_periods(&net, "ugv1", &refs, &changes, 1000.0, None).unwrap();
        assert_eq!(r.periods[1].verdict, Verdict::Failed);
    }

    #[test]
    fn the_shapers_first_application_starts_the_initial_period() {
        let net = net();
        let ws: Vec<Window> = (-3..6)
            .map(|t| win("ugv1", t as f64, 10, 10, if t < 0 { 900.0 } else { 120.0 }))
            .collect();
        let first = Change {
            link: "ugv1".into(),
            applying_s: -4.2,
            applied_s: -4.0,
            profile: "lte_rural".into(),
            cause: "configured (link.applied)".into(),
        };
        let r = analyse(&net, &ws, &[first], 1000.0, None).unwrap();
        let p = &r.links["ugv1"].periods;
        assert_eq!(p.len(), 1);
        assert_eq!(
            (p[0].from_s, p[0].judged_from_s, p[0].measurement.windows),
            (Some(-4.0), Some(0.0), 6)
        );
        assert_eq!(p[0].verdict, Verdict::Passed);
    }

    #[test]
    fn a_mismatching_link_fails_the_run_only_under_fail() {
        let net = net();
        let ws: Vec<Window> = (0..5)
            .map(|t| win("ugv1", t as f64, 10, 10, 237.56))
            .collect();
        let r = analyse(&net, &ws, &[], 1000.0, None).unwrap();
        assert_eq!(r.failed.len(), 1);
        assert!(
            r.failed[0]
                .starts_with("link ugv1 does not match profile lte_rural: latency 118.78 ms"),
            "{}",
            r.failed[0]
        );
        assert_eq!(apply_verify(&r, Verify::Off), (vec![], false));
        let (warn, fails) = apply_verify(&r, Verify::Warn);
        assert!(!fails && warn[0].starts_with("link.failed: link ugv1"));
        assert!(apply_verify(&r, Verify::Fail).1);
    }

    #[test]
    fn short_periods_are_insufficient_and_the_end_cuts() {
        let net = net();
        let ws: Vec<Window> = (0..10)
            .map(|t| win("ugv2", t as f64, 10, 10, 10.0))
            .collect();
        let r = analyse(&net, &ws, &[], 1000.0, Some(1.5)).unwrap();
        let p = &r.links["ugv2"].periods[0];
        assert_eq!(
            (p.measurement.windows, p.verdict),
            (1, Verdict::Insufficient)
        );
        let r = analyse(&net, &ws, &[], 1000.0, None).unwrap();
        assert_eq!(r.links["ugv2"].periods[0].verdict, Verdict::Passed);
    }

    #[test]
    fn timeline_actions_and_errors() {
        let net = net();
        let tl: serde_yaml::Value = serde_yaml::from_str(
            "- { at: 40s, vehicle: ugv2, action: link.set, profile: rf_900mhz_5km }\n- { at: 60s, vehicle: ugv2, action: link.restore }\n- { at: 1s, action: navigate_to_pose }\n- { at: 70s, vehicle: ugv1, action: link.drop }\n",
        )
        .unwrap();
        let c = timeline_changes(&net, &tl).unwrap();
        let got: Vec<(&str, f64, &str)> = c
            .iter()
            .map(|c| (c.link.as_str(), c.applying_s, c.profile.as_str()))
            .collect();
        assert_eq!(
            got,
            vec![
                ("ugv2", 40.0, "rf_900mhz_5km"),
                ("ugv2", 60.0, "wifi_good"),
                ("ugv1", 70.0, "drop")
            ]
        );
        let bad: serde_yaml::Value =
            serde_yaml::from_str("- { at: 1s, vehicle: ugv2, action: link.set, profile: nope }")
                .unwrap();
        assert!(matches!(
            timeline_changes(&net, &bad),
            Err(TimelineError::Profile(ProfileError::Unknown { .. }))
        ));
        let when: serde_yaml::Value =
            serde_yaml::from_str("- { when: x, vehicle: ugv2, action: link.restore }").unwrap();
        assert!(timeline_changes(&net, &when)
            .unwrap_err()
            .to_string()
            .starts_with("timeline[0].at:"));
        assert_eq!(crate::duration::parse("250ms"), Some(0.25));
        assert_eq!(crate::duration::parse("2m"), Some(120.0));
        assert_eq!(crate::duration::parse("-1s"), None);
    }
}
