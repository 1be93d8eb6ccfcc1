//! The evidence hand-off at the end of a run: the network's evidence (while its
//! namespaces exist), then the assertions, run.json and the reports.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use fieldproof_link::analysis::{self, Report, Window};
use fieldproof_link::shaper::{unix_now, LinkShaper};
use indicatif::ProgressBar;
use serde_json::{json, Value as Json};

use super::processes::Processes;
use super::timeline::DdsOutcome;
use super::{RunSummary, INCONCLUSIVE};
use crate::assertions::{self, Evidence};
use crate::evidence::recording::RecordingSummary;
use crate::evidence::{
    self, EntryRecord, PlotInput, RunRecord, RunResult, VehiclePlot, VehicleRecord,
};
use crate::host::HostLoad;
use crate::interrupt::Interrupt;
use crate::model::{Action, Scenario};
use crate::resources::{RunResources, Sampler};
use crate::store::Store;
use crate::timeline::Timeline;

/// The network's evidence, read while the run's namespaces still exist: the link windows
/// (`network.jsonl`), each vehicle's traffic counters, and the link analysis against the
/// timeline's changes, whose failures are the run's (or warnings, as `verify` says).
pub(super) fn network_evidence(
    s: &Scenario,
    run_id: &str,
    dir: &Path,
    shaper: Option<&LinkShaper>,
    outcome: &DdsOutcome,
    started_unix: f64,
) -> NetworkEvidence {
    let (mut network_json, mut link_report) = (None, None);
    let (mut reasons, mut warnings) = (Vec::new(), Vec::new());
    if let (Some(net), Some(shaper)) = (&s.network, shaper) {
        let windows: Vec<Window> = std::fs::read_to_string(dir.join("network.jsonl"))
            .unwrap_or_default()
            .lines()
            .filter_map(|l| serde_json::from_str(l).ok())
            .collect();
        let traffic: BTreeMap<String, Json> = s
            .vehicles
            .iter()
            .map(|v| {
                (
                    v.name.clone(),
                    shaper
                        .counters(&v.name)
                        .map(|c| serde_json::to_value(c).unwrap_or(Json::Null))
                        .unwrap_or_else(|e| json!({"error": e.to_string()})),
                )
            })
            .collect();
        let start = outcome.timeline_start_unix.unwrap_or(started_unix);
        let end_s = outcome.timeline_end_unix.map(|e| e - start);
        // The link analysis counts wall-clock seconds; the report's plots, simulation time.
        let sim_per_wall = end_s
            .filter(|wall| *wall > 0.0 && outcome.end_s > 0.0)
            .map(|wall| outcome.end_s / wall);
        match analysis::analyse(net, &windows, &outcome.changes, start, end_s) {
            Ok(rep) => {
                let (w, fails) = analysis::apply_verify(&rep, net.section.verify);
                if fails {
                    reasons.extend(rep.failed.iter().cloned());
                } else {
                    warnings.extend(w);
                }
                network_json = Some(json!({
                    "verify": net.section.verify,
                    "topology": shaper.topology(),
                    "ground_station": {"netns": fieldproof_link::netns::radio_ns(run_id), "address": fieldproof_link::netns::GROUND_ADDR.to_string()},
                    "windows": windows.len(),
                    "sim_s_per_wall_s": sim_per_wall,
                    "changes": outcome.changes,
                    "periods": rep,
                    "traffic": traffic,
                }));
                link_report = Some(rep);
            }
            Err(e) => warnings.push(format!("link analysis: {e}")),
        }
    }
    NetworkEvidence {
        json: network_json,
        report: link_report,
        reasons,
        warnings,
    }
}

/// What [`network_evidence`] found.
pub(super) struct NetworkEvidence {
    /// run.json's `network`.
    pub(super) json: Option<Json>,
    /// The link analysis (the assertions read it).
    pub(super) report: Option<Report>,
    /// Link verdicts that fail the run.
    pub(super) reasons: Vec<String>,
    /// Link verdicts that only warn, and analysis problems.
    pub(super) warnings: Vec<String>,
}

/// Everything the run hands to its evidence once the processes are stopped and the
/// network is gone.
pub(super) struct Handoff<'a> {
    pub(super) scenario: &'a Scenario,
    pub(super) run_id: String,
    pub(super) seed: u64,
    pub(super) rtf: f64,
    pub(super) started_unix: f64,
    pub(super) dir: PathBuf,
    pub(super) outcome: DdsOutcome,
    pub(super) timeline: Timeline,
    pub(super) processes: &'a Processes,
    pub(super) sampler: &'a Sampler,
    pub(super) resources: RunResources,
    pub(super) network_json: Option<Json>,
    pub(super) link_report: Option<Report>,
    pub(super) recording: Option<RecordingSummary>,
    pub(super) store: Store,
    pub(super) reasons: Vec<String>,
    pub(super) warnings: Vec<String>,
    pub(super) interrupt: &'a Interrupt,
    pub(super) bar: &'a ProgressBar,
}

/// The evidence hand-off: evaluates the assertions, gathers why the run failed (assertions,
/// timeline entries, processes that exited on their own), writes run.json and the reports,
/// and returns the run's summary.
pub(super) fn hand_off(h: Handoff) -> RunSummary {
    let Handoff {
        scenario: s,
        run_id,
        seed,
        rtf,
        started_unix,
        dir,
        outcome,
        timeline,
        processes,
        sampler,
        resources,
        network_json,
        link_report,
        recording,
        store,
        mut reasons,
        mut warnings,
        interrupt,
        bar,
    } = h;
    let truth: Vec<(String, String)> = s
        .vehicles
        .iter()
        .map(|v| {
            (
                v.name.clone(),
                crate::model::truth_topic(&crate::model::label(v)),
            )
        })
        .collect();
    let outcomes = if outcome.error.is_none() {
        assertions::evaluate(
            &s.assertions,
            &Evidence {
                store: &store,
                timeline: &timeline,
                end_s: outcome.end_s,
                links: link_report.as_ref(),
                truth_topics: &truth,
            },
        )
    } else {
        Vec::new()
    };
    for a in &outcomes {
        if !a.passed {
            reasons.push(
                a.reason
                    .clone()
                    .unwrap_or_else(|| format!("assertion {} failed", a.name)),
            );
        }
    }
    for (e, st) in timeline.entries().iter().zip(timeline.states()) {
        for f in &st.firings {
            if let Some(err) = &f.error {
                reasons.push(format!("timeline entry {}: {err}", e.name));
            }
        }
    }
    if let Some(checks) = &outcome.contracts {
        reasons.extend(super::contracts::reasons(checks));
    }
    for p in &processes.procs {
        match p.unexpected_exit() {
            Some(Err(failure)) => reasons.push(failure),
            Some(Ok(clean)) => warnings.push(clean),
            None => {}
        }
    }
    let host = sampler.host_load().cloned();
    let exit_code = verdict(
        outcome.error.as_deref(),
        host.as_ref(),
        &mut reasons,
        &mut warnings,
    );
    let record = RunRecord {
        scenario: s.raw.name.clone(),
        scenario_file: s.file.clone(),
        scenario_raw: serde_json::to_value(&s.raw).unwrap_or(Json::Null),
        run_id: run_id.clone(),
        versions: evidence::versions(),
        seed,
        real_time_factor: rtf,
        started_unix,
        timeline_started_unix: outcome.timeline_start_unix,
        ended_unix: unix_now(),
        timeline_duration_s: outcome.end_s,
        result: RunResult {
            exit_code,
            status: match exit_code {
                0 => "passed",
                1 => "failed",
                INCONCLUSIVE => "inconclusive",
                _ if interrupt.caught().is_some() => "interrupted",
                _ => "error",
            }
            .into(),
            reasons: reasons.clone(),
            warnings,
        },
        timeline: timeline
            .entries()
            .iter()
            .zip(timeline.states())
            .map(|(e, st)| EntryRecord {
                name: e.name.clone(),
                action: e.action_name.clone(),
                vehicle: e.vehicle.clone(),
                trigger: serde_json::to_value(&e.trigger).unwrap_or(Json::Null),
                state: st.clone(),
            })
            .collect(),
        assertions: outcomes,
        vehicles: s
            .vehicles
            .iter()
            .map(|v| {
                let evidence_dir = crate::plan::evidence_dir(&dir, &v.name);
                VehicleRecord {
                    name: v.name.clone(),
                    stack: v.stack.describe(),
                    vision: v.vision.map(|x| x.name().to_string()),
                    vision_note: v.vision.map(|x| x.describe()),
                    evidence: evidence::evidence_files(&evidence_dir),
                    evidence_dir,
                }
            })
            .collect(),
        network: network_json,
        contracts: outcome.contracts.as_ref().map(|checks| {
            Json::Object(
                checks
                    .iter()
                    .map(|(vehicle, check)| {
                        let value = match check {
                            Ok(report) => serde_json::to_value(report).unwrap_or(Json::Null),
                            Err(why) => json!({ "error": why }),
                        };
                        (vehicle.clone(), value)
                    })
                    .collect(),
            )
        }),
        processes: processes.procs.iter().map(|p| p.record(sampler)).collect(),
        resources: Some(resources),
        host,
        recording,
    };
    if let Err(e) = evidence::write_run_json(&dir, &record) {
        reasons.push(format!("run.json: {e}"));
    }
    let goals: Vec<(String, (f64, f64))> = s
        .timeline
        .iter()
        .filter_map(|e| match &e.action {
            Action::NavigateTo { goal, pose } => Some((
                goal.clone().unwrap_or_else(|| e.name.clone()),
                (pose.xyz[0], pose.xyz[1]),
            )),
            _ => None,
        })
        .collect();
    let input = PlotInput {
        store: &store,
        world: &s.world,
        vehicles: s
            .vehicles
            .iter()
            .map(|v| {
                let ns = v.topic_prefix();
                VehiclePlot {
                    name: v.name.clone(),
                    odometry: format!("{ns}/{}", v.manifest.drive.odometry.ros_topic),
                    link_state: format!("{ns}/link_state"),
                    truth: crate::model::truth_topic(&crate::model::label(v)),
                    mode: crate::model::mode_topic(v),
                }
            })
            .collect(),
        goals,
    };
    if let Err(e) = evidence::write_reports(&dir, &record, &input) {
        reasons.push(format!("reports: {e}"));
    }
    bar.finish_and_clear();
    RunSummary {
        exit_code,
        dir: Some(dir),
        reasons,
    }
}

/// The run's exit code from what went wrong: 2 could not run (`error`, put first among the
/// reasons), 0 no reason to fail, 1 failed, [`INCONCLUSIVE`] failed on a host that starved it
/// (a first reason says so, with the figures). A run that passed on such a host passes with
/// a warning.
fn verdict(
    error: Option<&str>,
    host: Option<&HostLoad>,
    reasons: &mut Vec<String>,
    warnings: &mut Vec<String>,
) -> u8 {
    let overloaded = host.filter(|load| load.overloaded);
    if let Some(e) = error {
        reasons.insert(0, e.to_string());
        2
    } else if reasons.is_empty() {
        if let Some(load) = overloaded {
            warnings.push(format!("passed on an overloaded host: {}", load.describe()));
        }
        0
    } else if let Some(load) = overloaded {
        reasons.insert(
            0,
            format!(
                "inconclusive: host overloaded: {}; the failures below may be the host's, not the vehicle's (run it on a quieter host or at a lower --real-time-factor)",
                load.describe()
            ),
        );
        INCONCLUSIVE
    } else {
        1
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn host(overloaded: bool) -> HostLoad {
        HostLoad {
            timeline_wall_s: 30.0,
            achieved_real_time_factor: Some(0.9),
            cores: 2,
            cpu_busy_share: Some(1.0),
            cpu_pressure_share: Some(1.0),
            threads: 33,
            cpu_s: 20.0,
            waited_s: 400.0,
            wakeups: 40_000,
            mean_wakeup_delay_ms: Some(if overloaded { 9.2 } else { 0.2 }),
            mean_wakeup_delay_sim_ms: Some(if overloaded { 8.28 } else { 0.18 }),
            wakeup_delay_bound_ms: 2.0,
            overloaded,
            auto_pace: None,
        }
    }

    fn judged(
        error: Option<&str>,
        load: Option<HostLoad>,
        failed: &[&str],
    ) -> (u8, Vec<String>, Vec<String>) {
        let mut reasons: Vec<String> = failed.iter().map(|r| r.to_string()).collect();
        let mut warnings = Vec::new();
        let code = verdict(error, load.as_ref(), &mut reasons, &mut warnings);
        (code, reasons, warnings)
    }

    #[test]
    fn a_failure_on_a_starved_host_is_inconclusive_and_says_why_first() {
        let (code, reasons, warnings) =
            judged(None, Some(host(true)), &["assertion reached failed"]);
        assert_eq!(code, INCONCLUSIVE);
        assert!(
            reasons[0]
                .starts_with("inconclusive: host overloaded: the run's threads waited 9.20 ms"),
            "{reasons:?}"
        );
        assert_eq!(
            reasons[1], "assertion reached failed",
            "the failures stay listed"
        );
        assert!(warnings.is_empty());
    }

    #[test]
    fn a_quiet_host_or_an_unmeasured_one_leaves_a_failure_a_failure() {
        assert_eq!(judged(None, Some(host(false)), &["x failed"]).0, 1);
        assert_eq!(judged(None, None, &["x failed"]).0, 1);
        assert_eq!(judged(None, None, &[]).0, 0);
    }

    #[test]
    fn a_pass_on_a_starved_host_passes_with_a_warning() {
        let (code, reasons, warnings) = judged(None, Some(host(true)), &[]);
        assert_eq!(code, 0);
        assert!(reasons.is_empty());
        assert!(
            warnings[0].starts_with("passed on an overloaded host: "),
            "{warnings:?}"
        );
    }

    #[test]
    fn a_run_that_could_not_run_stays_so_whatever_the_host() {
        let (code, reasons, _) = judged(
            Some("ugv1/bridge not ready"),
            Some(host(true)),
            &["x failed"],
        );
        assert_eq!(code, 2);
        assert_eq!(reasons[0], "ugv1/bridge not ready");
    }
}
