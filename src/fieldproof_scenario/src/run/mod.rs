//! Executes a validated scenario: network namespaces and links, processes, readiness,
//! the timeline, the recording, the assertions, the evidence, the teardown.
//!
//! Containment: the runner first moves itself into a fresh network namespace (loopback
//! only), so nothing it or its children send leaves the machine. With a `network`
//! section it then creates the run's namespaces and links (`fieldproof_link`'s
//! [`LinkShaper`], labelled with the run id and removed at the end unless `--keep`), and
//! moves into the world namespace, where the simulator and the runner's own node
//! (recorder, parameter client, goal publisher) run, wired to every vehicle and the
//! ground without shaping; each vehicle's bridge adapters, failsafe and stack run in its
//! own namespace, the ground station in the radio namespace.
//!
//! The run is a sequence of phases, each in its module with an owner that cleans up when
//! dropped, so an error in any phase ends in the same teardown:
//! 1. preparation ([`prepare`]): the run directory, the plan, the bridge bundles;
//! 2. [`containment`]: private and per-vehicle network namespaces, links, cleanup guard;
//! 3. [`recorder`]: `recording.mcap` and the samples;
//! 4. [`processes`]: start, readiness, stop (by `fieldproof_launch`'s stop policy);
//! 5. [`timeline`]: the DDS part — readiness wait, the bundles' [`contracts`] (with
//!    `--check-contracts`), then the timeline's actions;
//! 6. teardown, then [`handoff`]: network evidence, assertions, run.json, reports.

mod containment;
pub mod contracts;
mod handoff;
mod params;
pub mod privilege;
mod processes;
mod recorder;
mod timeline;

use std::path::PathBuf;
use std::sync::Mutex;

use fieldproof_link::bringup;
use fieldproof_link::shaper::unix_now;
use indicatif::{ProgressBar, ProgressStyle};

use self::containment::Containment;
use self::handoff::Handoff;
use self::privilege::{Access, StackUser};
use self::processes::Processes;
use self::recorder::Recorder;
use self::timeline::{DdsOutcome, RunContext, Shared};
use crate::interrupt::Interrupt;
use crate::model::{Pace, Scenario};
use crate::plan::{self, Executables, PlanInput, ProcSpec};
use crate::resources::Sampler;
use crate::timeline::Timeline;

/// The command line's settings.
#[derive(Debug, Clone, Default)]
pub struct RunOptions {
    /// Run directory (default `runs/<scenario>-<run id>`).
    pub out: Option<PathBuf>,
    /// Keep the network namespaces after the run.
    pub keep: bool,
    /// Seed (overrides the scenario's).
    pub seed: Option<u64>,
    /// Simulation speed (overrides the scenario's); with `auto_real_time_factor`, the most
    /// the simulation runs at.
    pub real_time_factor: Option<f64>,
    /// `--real-time-factor auto`: the simulation's pace follows what the host sustains
    /// ([`crate::host::Governor`]), from the factor asked (1 by default) down to
    /// [`crate::host::AUTO_FLOOR`].
    pub auto_real_time_factor: bool,
    /// Show the progress display.
    pub progress: bool,
    /// Check every vehicle's bridge bundle against its contract after the bring-up, before
    /// the timeline (a failed finding fails the run).
    pub check_contracts: bool,
    /// The account every process of the run runs as (default
    /// [`privilege::DEFAULT_USER`]; `root` keeps the runner's privileges).
    pub user: Option<String>,
}

/// The exit code of a run that failed on a host that starved it ([`crate::host`]): its
/// verdict is `inconclusive`, not `failed`.
pub const INCONCLUSIVE: u8 = 3;

/// How a run ended.
#[derive(Debug, Clone)]
pub struct RunSummary {
    /// 0 passed, 1 failed, 2 could not run, [`INCONCLUSIVE`] failed on an overloaded host.
    pub exit_code: u8,
    /// The run directory (if one was created).
    pub dir: Option<PathBuf>,
    /// Why it did not pass.
    pub reasons: Vec<String>,
}

/// Tells a phase of the run: above the progress display, or on stderr without one (a log,
/// CI, a test waiting for the timeline).
fn say(bar: &ProgressBar, msg: impl AsRef<str>) {
    if bar.is_hidden() {
        eprintln!("fieldproof run: {}", msg.as_ref());
    } else {
        bar.println(msg.as_ref());
    }
}

fn could_not_run(dir: Option<PathBuf>, why: String) -> RunSummary {
    RunSummary {
        exit_code: 2,
        dir,
        reasons: vec![why],
    }
}

/// A run id: 8 of [a-z0-9] from the pid and the clock.
pub fn new_run_id() -> String {
    let n = (std::process::id() as u64) << 32
        ^ std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos() as u64)
            .unwrap_or(0);
    let alphabet = b"0123456789abcdefghijklmnopqrstuvwxyz";
    let mut x = n;
    let mut s = String::from("r");
    for _ in 0..7 {
        s.push(alphabet[(x % 36) as usize] as char);
        x /= 36;
    }
    s
}

/// What the preparation hands to the run: where its evidence goes, the processes to start,
/// the world namespace (with a network).
struct Prepared {
    dir: PathBuf,
    specs: Vec<ProcSpec>,
    world_ns: Option<String>,
    user: Option<StackUser>,
}

/// Preparation, before anything is created outside the run directory: the run directory
/// (empty), the plan (everything it needs must exist), the logs directory, each vehicle's
/// evidence directory and bridge bundle.
fn prepare(
    s: &Scenario,
    o: &RunOptions,
    exes: &Executables,
    run_id: &str,
    seed: u64,
    rtf: f64,
) -> Result<Prepared, RunSummary> {
    let user = StackUser::resolve(o.user.as_deref().unwrap_or(privilege::DEFAULT_USER))
        .map_err(|e| could_not_run(None, e))?;
    let dir = o
        .out
        .clone()
        .unwrap_or_else(|| PathBuf::from("runs").join(format!("{}-{run_id}", s.raw.name)));
    if dir.exists()
        && std::fs::read_dir(&dir)
            .map(|mut d| d.next().is_some())
            .unwrap_or(true)
    {
        return Err(could_not_run(
            None,
            format!("--out {}: exists and is not empty", dir.display()),
        ));
    }
    let vehicle_ns: Vec<Option<String>> = s
        .vehicles
        .iter()
        .map(|v| {
            s.network
                .as_ref()
                .map(|_| fieldproof_link::netns::vehicle_ns(run_id, &v.name))
        })
        .collect();
    let radio = s.network.as_ref().map(|_| {
        (
            fieldproof_link::netns::radio_ns(run_id),
            (1..=s.vehicles.len())
                .map(|i| fieldproof_link::netns::vehicle_addr(i).to_string())
                .collect::<Vec<_>>(),
        )
    });
    let world_ns = s
        .network
        .as_ref()
        .map(|_| fieldproof_link::netns::world_ns(run_id));
    let abs_dir = std::env::current_dir()
        .map(|c| c.join(&dir))
        .unwrap_or(dir.clone());
    let specs = plan::plan(
        s,
        &PlanInput {
            dir: &abs_dir,
            seed,
            real_time_factor: rtf,
            vehicle_netns: vehicle_ns,
            radio,
            world_netns: world_ns.clone(),
        },
        exes,
    )
    .map_err(|e| could_not_run(None, e.to_string()))?;
    // The logs, and each vehicle's evidence directory (its processes' EVIDENCE_DIR_ENV).
    for sub in std::iter::once(abs_dir.join("logs")).chain(
        s.vehicles
            .iter()
            .map(|v| plan::evidence_dir(&abs_dir, &v.name)),
    ) {
        if let Err(e) = std::fs::create_dir_all(&sub) {
            return Err(could_not_run(None, format!("{}: {e}", sub.display())));
        }
    }
    let dir = abs_dir;
    for v in &s.vehicles {
        let opts = v.bundle.options.clone();
        if let Err(e) =
            fieldproof_bridge::gen::run(&v.manifest_path, &opts, &dir.join("bundles").join(&v.name))
        {
            return Err(could_not_run(
                Some(dir),
                format!("vehicles {}: bridge_gen: {e}", v.name),
            ));
        }
        // A failsafe composed into the bridge's container reads its parameters from a file.
        if let Some(parameters) =
            plan::failsafe_parameters(v).filter(|_| plan::composes_failsafe(s, v))
        {
            let file = plan::failsafe_params_file(&dir, &v.name);
            if let Err(e) = std::fs::write(&file, bringup::parameters_file(&parameters)) {
                return Err(could_not_run(Some(dir), format!("{}: {e}", file.display())));
            }
        }
    }
    if let Some(user) = &user {
        hand_over_to(user, s, &specs, &dir).map_err(|e| could_not_run(Some(dir.clone()), e))?;
    }
    Ok(Prepared {
        dir,
        specs,
        world_ns,
        user,
    })
}

/// Gives the stack's user what its processes write (each vehicle's evidence directory, the
/// ground station's measurements) and checks that it can reach what they run and read; a
/// path it cannot reach is refused naming the directory that closes it.
fn hand_over_to(
    user: &StackUser,
    s: &Scenario,
    specs: &[ProcSpec],
    dir: &std::path::Path,
) -> Result<(), String> {
    for v in &s.vehicles {
        user.hand_over(&plan::evidence_dir(dir, &v.name))?;
    }
    if s.network.is_some() {
        let measurements = dir.join("network.jsonl");
        std::fs::File::create(&measurements)
            .map_err(|e| format!("{}: {e}", measurements.display()))?;
        user.hand_over(&measurements)?;
    }
    let mut paths: Vec<(PathBuf, Access)> = Vec::new();
    for spec in specs {
        // A bare command name (`sh` of a `command:` stack) is found on PATH when it runs.
        if spec.argv[0].contains('/') {
            paths.push((PathBuf::from(&spec.argv[0]), Access::Execute));
        }
        for (i, word) in spec.argv.iter().enumerate() {
            if i > 0 && spec.argv[i - 1] == "--params-file" {
                paths.push((PathBuf::from(word), Access::Read));
            }
        }
    }
    for v in &s.vehicles {
        paths.push((plan::evidence_dir(dir, &v.name), Access::Execute));
    }
    paths.sort_by(|a, b| a.0.cmp(&b.0));
    paths.dedup_by(|a, b| a.0 == b.0);
    let closed = user.unreachable(&paths)?;
    match closed.first() {
        None => Ok(()),
        Some(first) => Err(format!(
            "--user {}: the account cannot reach {}{} ({} path(s) in all); run scripts/setup \
             from this checkout (it lets the account through), put the checkout where others \
             may read, or pass --user root to run the stack with the runner's privileges",
            user.name,
            first.display(),
            privilege::closed_ancestor(first)
                .map(|d| format!(": {} is closed to others", d.display()))
                .unwrap_or_default(),
            closed.len()
        )),
    }
}

/// The progress display (hidden unless asked for).
fn progress_bar(s: &Scenario, o: &RunOptions) -> ProgressBar {
    let bar = if o.progress {
        ProgressBar::new(s.duration_s.ceil() as u64)
    } else {
        ProgressBar::hidden()
    };
    bar.set_style(
        ProgressStyle::with_template(
            "{spinner} [{elapsed_precise}] {bar:30} {pos}/{len} s sim  {prefix}  {msg}",
        )
        .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    bar
}

/// Whether the simulation's pace follows the host: `--real-time-factor auto`, or the
/// scenario's `pace: auto` unless the command line fixes a factor.
fn paces_automatically(options: &RunOptions, scenario_pace: Option<Pace>) -> bool {
    options.auto_real_time_factor
        || (options.real_time_factor.is_none() && scenario_pace == Some(Pace::Auto))
}

/// Runs a validated scenario.
pub fn run(s: &Scenario, o: &RunOptions) -> RunSummary {
    let started_unix = unix_now();
    // From here on a SIGINT/SIGTERM/SIGHUP ends in the teardown, whatever the phase.
    let interrupt = match Interrupt::catch() {
        Ok(i) => i,
        Err(e) => return could_not_run(None, format!("catching SIGINT/SIGTERM: {e}")),
    };
    let seed = o.seed.or(s.raw.seed).unwrap_or(0);
    let rtf = o.real_time_factor.or(s.raw.real_time_factor).unwrap_or(1.0);
    let auto_pace = paces_automatically(o, s.raw.pace);
    let run_id = new_run_id();
    let exes = Executables::from_env();
    let Prepared {
        dir,
        specs,
        world_ns,
        user,
    } = match prepare(s, o, &exes, &run_id, seed, rtf) {
        Ok(p) => p,
        Err(summary) => return summary,
    };

    // Containment (dropped: back home, the run's namespaces removed, the guard released).
    let bar = progress_bar(s, o);
    bar.set_message("creating the network");
    let (mut containment, early_warnings) =
        match Containment::enter(s, o, &exes, &run_id, seed, &dir, world_ns.as_deref()) {
            Ok(c) => c,
            Err(e) => {
                bar.finish_and_clear();
                return could_not_run(Some(dir), e);
            }
        };

    // Recorder.
    let recorder = Recorder::create(&dir);
    say(&bar, format!("run {run_id}: evidence in {}", dir.display()));

    // Processes (dropped: every one still running is stopped).
    bar.set_message("starting processes");
    let mut sampler = Sampler::new();
    let mut processes = Processes::new(s.raw.timeouts.shutdown_s.get());
    let started = processes.start_all(
        &specs,
        world_ns.as_deref(),
        &dir.join("logs"),
        user.as_ref(),
        &interrupt,
    );

    // Readiness and the timeline (the DDS part), with the links and processes lent to it.
    let mut timeline = Timeline::new(s.timeline.clone());
    let mut outcome = DdsOutcome::default();
    match started {
        Ok(()) => {
            let shared = Mutex::new(Shared {
                shaper: containment.shaper.as_mut(),
                processes: &mut processes,
            });
            let ctx = RunContext {
                scenario: s,
                shared: &shared,
                bar: &bar,
                interrupt: &interrupt,
                contract_bundles: o.check_contracts.then(|| {
                    s.vehicles
                        .iter()
                        .map(|v| (v.name.clone(), dir.join("bundles").join(&v.name)))
                        .collect()
                }),
                real_time_factor: rtf,
                auto_real_time_factor: auto_pace,
            };
            (outcome, timeline) = timeline::run_dds(&ctx, recorder.clone(), timeline, &mut sampler);
        }
        Err(e) => outcome.error = Some(e),
    }

    // Teardown: the processes, by the stop policy.
    bar.set_message("tearing down");
    say(&bar, "tearing down");
    sampler.sample(&processes.running_pids());
    processes.stop_all();

    // Evidence: the network's while it exists, then the network goes, then the rest.
    let network = handoff::network_evidence(
        s,
        &run_id,
        &dir,
        containment.shaper.as_ref(),
        &outcome,
        started_unix,
    );
    let reasons = network.reasons;
    let mut warnings = early_warnings;
    warnings.extend(outcome.warnings.iter().cloned());
    warnings.extend(network.warnings);
    let resources = sampler.finish();
    drop(containment);
    if o.keep && s.network.is_some() {
        let kept = fieldproof_link::netns::namespaces_of(&run_id);
        let line = format!(
            "--keep: the run's network namespaces stay until `link_net cleanup --run-id {run_id}`: {}",
            kept.join(", ")
        );
        say(&bar, &line);
        warnings.push(line);
    }
    let (recording, store) = recorder::finish(&recorder, s, &dir, &mut outcome, rtf, &mut warnings);
    handoff::hand_off(Handoff {
        scenario: s,
        run_id,
        seed,
        rtf,
        started_unix,
        dir,
        outcome,
        timeline,
        processes: &processes,
        sampler: &sampler,
        resources,
        network_json: network.json,
        link_report: network.report,
        recording,
        store,
        reasons,
        warnings,
        interrupt: &interrupt,
        bar: &bar,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_command_line_decides_the_pace_before_the_scenario() {
        let options = |real_time_factor, auto_real_time_factor| RunOptions {
            real_time_factor,
            auto_real_time_factor,
            ..RunOptions::default()
        };
        // Nothing on the command line: the scenario's `pace`.
        assert!(paces_automatically(&options(None, false), Some(Pace::Auto)));
        assert!(!paces_automatically(
            &options(None, false),
            Some(Pace::Fixed)
        ));
        assert!(!paces_automatically(&options(None, false), None));
        // `--real-time-factor auto` whatever the scenario says.
        assert!(paces_automatically(&options(None, true), Some(Pace::Fixed)));
        assert!(paces_automatically(&options(None, true), None));
        // `--real-time-factor 0.5` fixes the pace, even over `pace: auto`.
        assert!(!paces_automatically(
            &options(Some(0.5), false),
            Some(Pace::Auto)
        ));
    }

    #[test]
    fn run_ids_are_valid_for_the_link_namespaces() {
        let id = new_run_id();
        assert_eq!(id.len(), 8);
        fieldproof_link::netns::validate_run_id(&id).unwrap();
    }
}
