//! The run's evidence: `run.json` ([`RunRecord`]), the MCAP recording with its rosbag2
//! `metadata.yaml` ([`recording`]), each vehicle's evidence directory (what its processes
//! wrote under `FIELDPROOF_EVIDENCE_DIR`, listed by [`evidence_files`]), and `report.md` /
//! `report.html` with SVG plots ([`write_reports`]; the report's sections in [`report`], a
//! multirotor's mode timeline in [`mode_plot`], a link's latency over time from its probe
//! windows in `link_latency`), and a Foxglove layout for the recording ([`foxglove`]).

pub mod foxglove;
mod link_latency;
pub mod mode_plot;
pub mod msgdefs;
pub mod plots;
pub mod recording;
pub mod report;

use crate::assertions::Outcome;
use crate::store::Store;
use crate::timeline::EntryState;
use fieldproof_robots::World;
use plots::EntryBand;
use serde::Serialize;
use serde_json::Value as Json;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// One timeline entry in the record.
#[derive(Debug, Clone, Serialize)]
pub struct EntryRecord {
    /// Name.
    pub name: String,
    /// Action (`link.drop`).
    pub action: String,
    /// Vehicle.
    pub vehicle: Option<String>,
    /// The trigger as validated.
    pub trigger: Json,
    /// Its firings with their outcomes.
    #[serde(flatten)]
    pub state: EntryState,
}

/// One process of the run.
#[derive(Debug, Clone, Serialize)]
pub struct ProcessRecord {
    /// Its role (`simulator`, `ugv1/imu_adapter`, `ground_station`).
    pub name: String,
    /// Network namespace it ran in (`None`: the runner's).
    pub netns: Option<String>,
    /// argv.
    pub command: Vec<String>,
    /// The account it ran as (`fieldproof`; `root` with `--user root`).
    pub user: String,
    /// pid.
    pub pid: Option<u32>,
    /// Wall-clock seconds from the run's start until it was ready.
    pub ready_after_s: Option<f64>,
    /// Exit code (`None`: killed by a signal or still running).
    pub exit_code: Option<i32>,
    /// The signal that ended it.
    pub signal: Option<i32>,
    /// When it exited, in seconds of the timeline (exits during the timeline only).
    pub exited_at_s: Option<f64>,
    /// The `process.kill` entry that signalled it, and when.
    pub killed_by: Option<String>,
    /// CPU time of it and its descendants, as last sampled (s).
    pub cpu_s: Option<f64>,
    /// Largest resident set of it and its descendants seen (MiB).
    pub peak_rss_mib: Option<f64>,
    /// Its log file.
    pub log: Option<PathBuf>,
}

/// One vehicle of the run: what it ran and what it left in its evidence directory.
#[derive(Debug, Clone, Serialize)]
pub struct VehicleRecord {
    /// Its name.
    pub name: String,
    /// Its stack (`goal_driver`, a launch file, a command).
    pub stack: String,
    /// Its vision input, when the scenario sets one (`none`, `camera`, `perception`).
    pub vision: Option<String>,
    /// What that means for its supervisor (`vision: none — the supervisor ignores vision
    /// freshness`).
    pub vision_note: Option<String>,
    /// Its evidence directory (`<run dir>/<name>`, its processes' `FIELDPROOF_EVIDENCE_DIR`).
    pub evidence_dir: PathBuf,
    /// The files found there after the run, relative to it (`supervisor/frames.in`).
    pub evidence: Vec<String>,
}

/// The most files [`evidence_files`] lists (a directory a node floods stays readable).
pub const MAX_EVIDENCE_FILES: usize = 1000;

/// The files under `dir`, as paths relative to it, sorted (at most
/// [`MAX_EVIDENCE_FILES`], 8 directories deep; symbolic links are not followed). A missing
/// directory has none.
pub fn evidence_files(dir: &Path) -> Vec<String> {
    fn walk(root: &Path, dir: &Path, depth: usize, out: &mut Vec<String>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for entry in entries.flatten() {
            if out.len() >= MAX_EVIDENCE_FILES {
                return;
            }
            let path = entry.path();
            match entry.file_type() {
                Ok(t) if t.is_dir() && depth < 8 => walk(root, &path, depth + 1, out),
                Ok(t) if t.is_file() => {
                    if let Ok(rel) = path.strip_prefix(root) {
                        out.push(rel.to_string_lossy().into_owned());
                    }
                }
                _ => {}
            }
        }
    }
    let mut out = Vec::new();
    walk(dir, dir, 0, &mut out);
    out.sort();
    out
}

/// The run's result.
#[derive(Debug, Clone, Serialize)]
pub struct RunResult {
    /// 0 passed, 1 failed (an assertion or a link verdict under verify: fail), 2 could
    /// not run, 3 inconclusive (it failed on a host that starved it: [`crate::host`]).
    pub exit_code: u8,
    /// `passed`, `failed`, `inconclusive`, `interrupted` (a signal ended it early) or
    /// `error`.
    pub status: String,
    /// Why it did not pass, one line each.
    pub reasons: Vec<String>,
    /// Warnings (`link.failed` under verify: warn).
    pub warnings: Vec<String>,
}

/// Everything `run.json` holds.
#[derive(Debug, Clone, Serialize)]
pub struct RunRecord {
    /// Scenario name.
    pub scenario: String,
    /// Scenario file.
    pub scenario_file: PathBuf,
    /// The scenario as written.
    pub scenario_raw: Json,
    /// Run id (names the namespaces).
    pub run_id: String,
    /// Versions of fieldproof and its pieces.
    pub versions: BTreeMap<String, String>,
    /// The simulator's seed.
    pub seed: u64,
    /// Simulation speed asked for.
    pub real_time_factor: f64,
    /// Wall clock (Unix s) of the run's start, the timeline's start and the end.
    pub started_unix: f64,
    /// Timeline start (Unix s), `None` if it never started.
    pub timeline_started_unix: Option<f64>,
    /// End (Unix s).
    pub ended_unix: f64,
    /// Simulation time the timeline ran (s).
    pub timeline_duration_s: f64,
    /// The result.
    pub result: RunResult,
    /// Every entry and its outcome.
    pub timeline: Vec<EntryRecord>,
    /// Every assertion with what was observed.
    pub assertions: Vec<Outcome>,
    /// Every vehicle: its stack, vision input and evidence files.
    pub vehicles: Vec<VehicleRecord>,
    /// Radio links: topology, periods, traffic (with a network section).
    pub network: Option<Json>,
    /// With `--check-contracts`: per vehicle, its bundle's contract check (the checker's
    /// report, or `{"error": why}`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub contracts: Option<Json>,
    /// Every process and how it ended.
    pub processes: Vec<ProcessRecord>,
    /// CPU and memory of the whole run.
    pub resources: Option<crate::resources::RunResources>,
    /// What the host delivered during the timeline (`None` if it never ran).
    pub host: Option<crate::host::HostLoad>,
    /// The recording.
    pub recording: Option<recording::RecordingSummary>,
}

/// The versions recorded in run.json.
pub fn versions() -> BTreeMap<String, String> {
    let mut v = BTreeMap::new();
    v.insert("fieldproof".into(), env!("CARGO_PKG_VERSION").into());
    v.insert("ros2-client".into(), "0.12.1".into());
    v.insert("rustdds".into(), "0.15.1".into());
    v.insert("ros_distro".into(), "jazzy".into());
    v
}

/// Writes `run.json`.
pub fn write_run_json(dir: &Path, r: &RunRecord) -> std::io::Result<PathBuf> {
    let p = dir.join("run.json");
    let text = serde_json::to_string_pretty(r).map_err(std::io::Error::other)?;
    std::fs::write(&p, text + "\n")?;
    Ok(p)
}

/// The topics a vehicle's plots are drawn from.
#[derive(Debug, Clone, PartialEq)]
pub struct VehiclePlot {
    /// The vehicle's name.
    pub name: String,
    /// Its odometry (`nav_msgs/msg/Odometry`: speed).
    pub odometry: String,
    /// Its failsafe's link state (`std_msgs/msg/Bool`).
    pub link_state: String,
    /// Its truth pose (trajectory, altitude).
    pub truth: String,
    /// Its supervisor's mode (`std_msgs/msg/String`), for a multirotor: with samples, the
    /// report draws its mode timeline.
    pub mode: Option<String>,
}

/// What the plots are drawn from.
pub struct PlotInput<'a> {
    /// The samples.
    pub store: &'a Store,
    /// The world.
    pub world: &'a World,
    /// Per vehicle: the topics of its plots.
    pub vehicles: Vec<VehiclePlot>,
    /// Goals to mark (name, x, y).
    pub goals: Vec<(String, (f64, f64))>,
}

/// The timeline's entries as bands on the time plots: each firing from its start to its end
/// (one still lasting when the run ended: to the timeline's end).
pub fn entry_bands(r: &RunRecord) -> Vec<EntryBand> {
    let end_s = r.timeline_duration_s;
    r.timeline
        .iter()
        .flat_map(|e| {
            e.state.firings.iter().map(move |f| EntryBand {
                from_s: f.started_s,
                to_s: f.ended_s.unwrap_or(end_s).max(f.started_s),
                name: e.name.clone(),
            })
        })
        .collect()
}

/// Writes the plots (`plots/*.svg`), `report.md`, `report.html` and, with a recording, the
/// Foxglove layout next to it ([`foxglove::LAYOUT_FILE`]); returns the files.
pub fn write_reports(
    dir: &Path,
    r: &RunRecord,
    input: &PlotInput,
) -> std::io::Result<Vec<PathBuf>> {
    let plots_dir = dir.join("plots");
    std::fs::create_dir_all(&plots_dir)?;
    let mut plots: Vec<(String, String, String)> = Vec::new(); // (title, file, svg)
    let entries = entry_bands(r);
    for VehiclePlot {
        name,
        odometry: odom,
        link_state: link,
        ..
    } in &input.vehicles
    {
        let speed = input.store.field_series(odom, "twist.twist.linear.x");
        let ls = input.store.field_series(link, "data");
        if let Ok(svg) = plots::speed_and_link(
            &format!("{name}: speed and link state"),
            &speed,
            &ls,
            &entries,
        ) {
            plots.push((
                format!("{name}: speed and link state"),
                format!("{name}_speed_link.svg"),
                svg,
            ));
        }
    }
    for v in &input.vehicles {
        if let Some((title, file, svg)) = mode_timeline_of(v, input.store, r, &entries) {
            plots.push((title, file, svg));
        }
    }
    plots.extend(link_latency::plots(r, input.store, &entries));
    let paths: Vec<(String, Vec<(f64, f64)>)> = input
        .vehicles
        .iter()
        .map(|VehiclePlot { name, truth, .. }| {
            let xs = input.store.field_series(truth, "pose.position.x");
            let ys = input.store.field_series(truth, "pose.position.y");
            // Keep a point every 5 cm of travel: the plot stays small.
            let mut path: Vec<(f64, f64)> = Vec::new();
            for (a, b) in xs.iter().zip(&ys) {
                let p = (a.1, b.1);
                if path
                    .last()
                    .is_none_or(|l| (l.0 - p.0).hypot(l.1 - p.1) >= 0.05)
                {
                    path.push(p);
                }
            }
            (name.clone(), path)
        })
        .collect();
    if let Ok(svg) = plots::trajectory(input.world, &paths, &input.goals) {
        plots.push(("trajectory".into(), "trajectory.svg".into(), svg));
    }
    let mut files = Vec::new();
    for (_, f, svg) in &plots {
        let p = plots_dir.join(f);
        std::fs::write(&p, svg)?;
        files.push(p);
    }
    std::fs::write(dir.join("report.md"), report::report_md(r, &plots))?;
    std::fs::write(dir.join("report.html"), report::report_html(r, &plots))?;
    files.push(dir.join("report.md"));
    files.push(dir.join("report.html"));
    if let Some(recording) = &r.recording {
        let recorded: Vec<&str> = recording
            .topics
            .iter()
            .filter(|(_, (_, count))| *count > 0)
            .map(|(topic, _)| topic.as_str())
            .collect();
        let layout = foxglove::layout(&input.vehicles, &recorded);
        let text = serde_json::to_string_pretty(&layout).map_err(std::io::Error::other)?;
        std::fs::write(dir.join(foxglove::LAYOUT_FILE), text + "\n")?;
        files.push(dir.join(foxglove::LAYOUT_FILE));
    }
    Ok(files)
}

/// A multirotor's mode timeline (title, file, SVG), when its mode topic has samples: its
/// supervisor's modes, its altitude (truth) and its speed (the odometry's linear velocity).
fn mode_timeline_of(
    v: &VehiclePlot,
    store: &Store,
    r: &RunRecord,
    entries: &[EntryBand],
) -> Option<(String, String, String)> {
    let modes: Vec<(f64, String)> = store
        .samples(v.mode.as_deref()?)
        .iter()
        .filter_map(|(t, m)| {
            let value = crate::store::lookup(m, "data")?;
            Some((
                *t,
                value
                    .as_str()
                    .map(str::to_string)
                    .unwrap_or_else(|| value.to_string()),
            ))
        })
        .collect();
    if modes.is_empty() {
        return None;
    }
    let altitude = store.field_series(&v.truth, "pose.position.z");
    let speed: Vec<(f64, f64)> = store
        .samples(&v.odometry)
        .iter()
        .filter_map(|(t, m)| {
            let axis = |a: &str| {
                crate::store::lookup(m, &format!("twist.twist.linear.{a}"))
                    .and_then(crate::store::as_number)
            };
            let (x, y, z) = (
                axis("x")?,
                axis("y").unwrap_or(0.0),
                axis("z").unwrap_or(0.0),
            );
            Some((*t, (x * x + y * y + z * z).sqrt()))
        })
        .collect();
    let title = format!("{}: supervisor mode, altitude and speed", v.name);
    let svg = mode_plot::mode_timeline(
        &title,
        &modes,
        &altitude,
        &speed,
        r.timeline_duration_s,
        entries,
    )
    .ok()?;
    Some((title, format!("{}_modes.svg", v.name), svg))
}
