//! The run's evidence: `run.json` ([`RunRecord`]), the MCAP recording with its rosbag2
//! `metadata.yaml` ([`recording`]), each vehicle's evidence directory (what its processes
//! wrote under `FIELDPROOF_EVIDENCE_DIR`, listed by [`evidence_files`]), and `report.md` /
//! `report.html` with SVG plots ([`write_reports`]; a multirotor's mode timeline in
//! [`mode_plot`]).

pub mod mode_plot;
pub mod msgdefs;
pub mod plots;
pub mod recording;

use crate::assertions::Outcome;
use crate::store::Store;
use crate::timeline::EntryState;
use fieldproof_robots::World;
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
    /// not run.
    pub exit_code: u8,
    /// `passed`, `failed`, `interrupted` (a signal ended it early) or `error`.
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
    /// Every process and how it ended.
    pub processes: Vec<ProcessRecord>,
    /// CPU and memory of the whole run.
    pub resources: Option<crate::resources::RunResources>,
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

fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

fn md_cell(s: &str) -> String {
    s.replace('|', "\\|").replace('\n', " ")
}

/// Writes the plots (`plots/*.svg`), `report.md` and `report.html`; returns the files.
pub fn write_reports(
    dir: &Path,
    r: &RunRecord,
    input: &PlotInput,
) -> std::io::Result<Vec<PathBuf>> {
    let plots_dir = dir.join("plots");
    std::fs::create_dir_all(&plots_dir)?;
    let mut plots: Vec<(String, String, String)> = Vec::new(); // (title, file, svg)
    let events: Vec<(f64, String)> = r
        .timeline
        .iter()
        .flat_map(|e| {
            e.state
                .firings
                .iter()
                .map(move |f| (f.started_s, e.name.clone()))
        })
        .collect();
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
            &events,
        ) {
            plots.push((
                format!("{name}: speed and link state"),
                format!("{name}_speed_link.svg"),
                svg,
            ));
        }
    }
    for v in &input.vehicles {
        if let Some((title, file, svg)) = mode_timeline_of(v, input.store, r, &events) {
            plots.push((title, file, svg));
        }
    }
    if let Some(net) = &r.network {
        if let Some(links) = net
            .get("periods")
            .and_then(|p| p.get("links"))
            .and_then(Json::as_object)
        {
            for (link, lr) in links {
                let ps: Vec<(String, Option<f64>, f64)> = lr["periods"]
                    .as_array()
                    .map(|a| {
                        a.iter()
                            .map(|p| {
                                (
                                    p["profile"].as_str().unwrap_or("?").to_string(),
                                    p["measurement"]["latency_ms"].as_f64(),
                                    p["expected"]["latency_ms"].as_f64().unwrap_or(0.0),
                                )
                            })
                            .collect()
                    })
                    .unwrap_or_default();
                if let Ok(svg) =
                    plots::latency_per_period(&format!("link {link}: latency per period"), &ps)
                {
                    plots.push((
                        format!("link {link}: latency per period"),
                        format!("{link}_latency.svg"),
                        svg,
                    ));
                }
            }
        }
    }
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
    let md = report_md(r, &plots);
    let html = report_html(r, &plots);
    std::fs::write(dir.join("report.md"), md)?;
    std::fs::write(dir.join("report.html"), html)?;
    files.push(dir.join("report.md"));
    files.push(dir.join("report.html"));
    Ok(files)
}

/// A multirotor's mode timeline (title, file, SVG), when its mode topic has samples: its
/// supervisor's modes, its altitude (truth) and its speed (the odometry's linear velocity).
fn mode_timeline_of(
    v: &VehiclePlot,
    store: &Store,
    r: &RunRecord,
    events: &[(f64, String)],
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
        events,
    )
    .ok()?;
    Some((title, format!("{}_modes.svg", v.name), svg))
}

fn entry_rows(r: &RunRecord) -> Vec<[String; 6]> {
    let mut rows = Vec::new();
    for e in &r.timeline {
        if e.state.firings.is_empty() {
            rows.push([
                e.name.clone(),
                e.action.clone(),
                e.vehicle.clone().unwrap_or_default(),
                "never".into(),
                String::new(),
                "did not start".into(),
            ]);
        }
        for f in &e.state.firings {
            let mut what = f.outcome.clone().unwrap_or_default();
            if let Some(x) = &f.end_outcome {
                what = format!("{what}; {x}");
            }
            if let Some(x) = &f.error {
                what = format!("{what} ERROR: {x}");
            }
            rows.push([
                e.name.clone(),
                e.action.clone(),
                e.vehicle.clone().unwrap_or_default(),
                format!("{:.2}", f.started_s),
                f.ended_s.map(|t| format!("{t:.2}")).unwrap_or_default(),
                what,
            ]);
        }
    }
    rows
}

fn period_rows(r: &RunRecord) -> Vec<[String; 7]> {
    let mut rows = Vec::new();
    let Some(links) = r
        .network
        .as_ref()
        .and_then(|n| n.get("periods"))
        .and_then(|p| p.get("links"))
        .and_then(Json::as_object)
    else {
        return rows;
    };
    let f = |v: &Json| {
        v.as_f64()
            .map(|x| format!("{x:.2}"))
            .unwrap_or_else(|| "-".into())
    };
    for (link, lr) in links {
        for p in lr["periods"].as_array().into_iter().flatten() {
            rows.push([
                link.clone(),
                p["profile"].as_str().unwrap_or("").into(),
                p["cause"].as_str().unwrap_or("").into(),
                format!("{} to {}", f(&p["from_s"]), f(&p["to_s"])),
                format!(
                    "{} ms ({} of {} answered)",
                    f(&p["measurement"]["latency_ms"]),
                    p["measurement"]["replies"],
                    p["measurement"]["sent"]
                ),
                p["verdict"].as_str().unwrap_or("").into(),
                p["reason"].as_str().unwrap_or("").into(),
            ]);
        }
    }
    rows
}

const VEHICLE_HEAD: [&str; 4] = ["vehicle", "stack", "vision", "evidence files"];

fn vehicle_rows(r: &RunRecord) -> Vec<[String; 4]> {
    r.vehicles
        .iter()
        .map(|v| {
            [
                v.name.clone(),
                v.stack.clone(),
                v.vision_note.clone().unwrap_or_default(),
                if v.evidence.is_empty() {
                    "none".into()
                } else {
                    v.evidence
                        .iter()
                        .map(|f| format!("{}/{f}", v.name))
                        .collect::<Vec<_>>()
                        .join(", ")
                },
            ]
        })
        .collect()
}

const PROCESS_HEAD: [&str; 7] = [
    "process",
    "netns",
    "ready after (s)",
    "exited during the timeline",
    "exit",
    "CPU (s)",
    "peak RSS (MiB)",
];

fn process_rows(r: &RunRecord) -> Vec<[String; 7]> {
    let opt =
        |x: Option<f64>, digits: usize| x.map(|v| format!("{v:.digits$}")).unwrap_or_default();
    r.processes
        .iter()
        .map(|p| {
            let exit = match (p.exit_code, p.signal) {
                (Some(c), _) => c.to_string(),
                (None, Some(sig)) => format!("signal {sig}"),
                _ => "-".into(),
            };
            let during = match (p.exited_at_s, &p.killed_by) {
                (Some(at), Some(by)) => format!("at {at:.2} s, after {by}"),
                (Some(at), None) => format!("at {at:.2} s, UNEXPECTED"),
                (None, _) => String::new(),
            };
            [
                p.name.clone(),
                p.netns.clone().unwrap_or_default(),
                opt(p.ready_after_s, 1),
                during,
                exit,
                opt(p.cpu_s, 2),
                opt(p.peak_rss_mib, 1),
            ]
        })
        .collect()
}

fn resources_line(r: &RunRecord) -> Option<String> {
    let res = r.resources.as_ref()?;
    let wall = r.ended_unix - r.started_unix;
    Some(format!(
        "Whole run: {:.1} s of wall clock; CPU {:.1} s in the processes and {:.1} s in the runner ({:.0} % of one core on average); peak memory {:.0} MiB (sum of the resident sets, {} samples).",
        wall,
        res.processes_cpu_s,
        res.runner_cpu_s,
        if wall > 0.0 {
            100.0 * (res.processes_cpu_s + res.runner_cpu_s) / wall
        } else {
            0.0
        },
        res.peak_rss_mib,
        res.samples
    ))
}

/// report.md.
pub fn report_md(r: &RunRecord, plots: &[(String, String, String)]) -> String {
    let mut s = format!(
        "# Scenario {}: {}\n\n",
        r.scenario,
        r.result.status.to_uppercase()
    );
    s += &format!(
        "Run `{}`, seed {}, real-time factor {}, timeline {:.1} s (simulation time), exit code {}.\n\n",
        r.run_id, r.seed, r.real_time_factor, r.timeline_duration_s, r.result.exit_code
    );
    for reason in &r.result.reasons {
        s += &format!("- **{}**\n", md_cell(reason));
    }
    for w in &r.result.warnings {
        s += &format!("- warning: {}\n", md_cell(w));
    }
    s += "\n## Assertions\n\n| assertion | type | result | window (s) | observed / reason |\n|---|---|---|---|---|\n";
    for a in &r.assertions {
        let w = a
            .window_s
            .map(|w| format!("{:.2} to {:.2}", w[0], w[1]))
            .unwrap_or_default();
        let obs = a.reason.clone().unwrap_or_else(|| a.observed.to_string());
        s += &format!(
            "| {} | {} | {} | {} | {} |\n",
            a.name,
            a.kind,
            if a.passed { "passed" } else { "FAILED" },
            w,
            md_cell(&obs)
        );
    }
    if !r.vehicles.is_empty() {
        s += "\n## Vehicles\n\n";
        s += &format!("| {} |\n", VEHICLE_HEAD.join(" | "));
        s += &format!("|{}\n", "---|".repeat(VEHICLE_HEAD.len()));
        for row in vehicle_rows(r) {
            s += &format!("| {} |\n", row.map(|c| md_cell(&c)).join(" | "));
        }
    }
    s += "\n## Timeline\n\n| entry | action | vehicle | start (s) | end (s) | outcome |\n|---|---|---|---|---|---|\n";
    for row in entry_rows(r) {
        s += &format!("| {} |\n", row.map(|c| md_cell(&c)).join(" | "));
    }
    let periods = period_rows(r);
    if !periods.is_empty() {
        s += "\n## Radio links\n\n| link | profile | cause | period (s) | measured latency | verdict | reason |\n|---|---|---|---|---|---|---|\n";
        for row in periods {
            s += &format!("| {} |\n", row.map(|c| md_cell(&c)).join(" | "));
        }
        if let Some(t) = r.network.as_ref().and_then(|n| n.get("traffic")) {
            s += &format!("\nTraffic per link: `{t}`\n");
        }
    }
    s += "\n## Processes\n\n";
    s += &format!("| {} |\n", PROCESS_HEAD.join(" | "));
    s += &format!("|{}\n", "---|".repeat(PROCESS_HEAD.len()));
    for row in process_rows(r) {
        s += &format!("| {} |\n", row.map(|c| md_cell(&c)).join(" | "));
    }
    if let Some(line) = resources_line(r) {
        s += &format!("\n{line}\n");
    }
    if !plots.is_empty() {
        s += "\n## Plots\n\n";
        for (title, f, _) in plots {
            s += &format!("![{title}](plots/{f})\n\n");
        }
    }
    s
}

fn html_table(head: &[&str], rows: &[Vec<String>]) -> String {
    let mut s = String::from("<table><tr>");
    for h in head {
        s += &format!("<th>{}</th>", esc(h));
    }
    s += "</tr>";
    for r in rows {
        s += "<tr>";
        for c in r {
            s += &format!("<td>{}</td>", esc(c));
        }
        s += "</tr>";
    }
    s + "</table>\n"
}

/// report.html (plots inline).
pub fn report_html(r: &RunRecord, plots: &[(String, String, String)]) -> String {
    let mut s = format!(
        "<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>{0}</title><style>body{{font-family:sans-serif;margin:2em}}table{{border-collapse:collapse}}td,th{{border:1px solid #aaa;padding:3px 6px;font-size:13px}}.passed{{color:#080}}.failed{{color:#b00}}</style></head><body><h1>Scenario {0}: <span class=\"{1}\">{1}</span></h1>\n",
        esc(&r.scenario),
        esc(&r.result.status)
    );
    s += &format!(
        "<p>Run {}, seed {}, real-time factor {}, timeline {:.1} s, exit code {}.</p><ul>",
        esc(&r.run_id),
        r.seed,
        r.real_time_factor,
        r.timeline_duration_s,
        r.result.exit_code
    );
    for reason in &r.result.reasons {
        s += &format!("<li><b>{}</b></li>", esc(reason));
    }
    for w in &r.result.warnings {
        s += &format!("<li>warning: {}</li>", esc(w));
    }
    s += "</ul><h2>Assertions</h2>";
    let rows: Vec<Vec<String>> = r
        .assertions
        .iter()
        .map(|a| {
            vec![
                a.name.clone(),
                a.kind.clone(),
                if a.passed {
                    "passed".into()
                } else {
                    "FAILED".into()
                },
                a.window_s
                    .map(|w| format!("{:.2} to {:.2}", w[0], w[1]))
                    .unwrap_or_default(),
                a.reason.clone().unwrap_or_else(|| a.observed.to_string()),
            ]
        })
        .collect();
    s += &html_table(
        &[
            "assertion",
            "type",
            "result",
            "window (s)",
            "observed / reason",
        ],
        &rows,
    );
    if !r.vehicles.is_empty() {
        s += "<h2>Vehicles</h2>";
        let rows: Vec<Vec<String>> = vehicle_rows(r).into_iter().map(|r| r.to_vec()).collect();
        s += &html_table(&VEHICLE_HEAD, &rows);
    }
    s += "<h2>Timeline</h2>";
    let rows: Vec<Vec<String>> = entry_rows(r).into_iter().map(|r| r.to_vec()).collect();
    s += &html_table(
        &[
            "entry",
            "action",
            "vehicle",
            "start (s)",
            "end (s)",
            "outcome",
        ],
        &rows,
    );
    let periods: Vec<Vec<String>> = period_rows(r).into_iter().map(|r| r.to_vec()).collect();
    if !periods.is_empty() {
        s += "<h2>Radio links</h2>";
        s += &html_table(
            &[
                "link",
                "profile",
                "cause",
                "period (s)",
                "measured latency",
                "verdict",
                "reason",
            ],
            &periods,
        );
    }
    s += "<h2>Processes</h2>";
    let rows: Vec<Vec<String>> = process_rows(r).into_iter().map(|r| r.to_vec()).collect();
    s += &html_table(&PROCESS_HEAD, &rows);
    if let Some(line) = resources_line(r) {
        s += &format!("<p>{}</p>", esc(&line));
    }
    s += "<h2>Plots</h2>";
    for (title, _, svg) in plots {
        s += &format!("<h3>{}</h3><div>{svg}</div>\n", esc(title));
    }
    s + "</body></html>\n"
}
