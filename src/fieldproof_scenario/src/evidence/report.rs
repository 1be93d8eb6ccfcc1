//! `report.md` and `report.html`: the same sections, tables and sentences in both — the
//! verdict and its reasons, each assertion's observation as a sentence, the vehicles, the
//! bridge contracts (with `--check-contracts`), the timeline, the radio links' periods and
//! traffic, the processes, then the plots.

use super::RunRecord;
use serde_json::Value as Json;

fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

fn md_cell(s: &str) -> String {
    s.replace('|', "\\|").replace('\n', " ")
}

/// A table of the report, written as Markdown and as HTML.
struct Table {
    head: &'static [&'static str],
    rows: Vec<Vec<String>>,
}

impl Table {
    fn new<const N: usize>(head: &'static [&'static str], rows: Vec<[String; N]>) -> Table {
        Table {
            head,
            rows: rows.into_iter().map(|r| r.to_vec()).collect(),
        }
    }

    fn markdown(&self) -> String {
        let mut s = format!("| {} |\n", self.head.join(" | "));
        s += &format!("|{}\n", "---|".repeat(self.head.len()));
        for row in &self.rows {
            let cells: Vec<String> = row.iter().map(|c| md_cell(c)).collect();
            s += &format!("| {} |\n", cells.join(" | "));
        }
        s
    }

    fn html(&self) -> String {
        let mut s = String::from("<table><tr>");
        for h in self.head {
            s += &format!("<th>{}</th>", esc(h));
        }
        s += "</tr>";
        for row in &self.rows {
            s += "<tr>";
            for c in row {
                s += &format!("<td>{}</td>", esc(c));
            }
            s += "</tr>";
        }
        s + "</table>\n"
    }
}

/// One section: its heading, its table and the lines under it.
struct Section {
    heading: &'static str,
    table: Table,
    lines: Vec<String>,
}

const ASSERTION_HEAD: &[&str] = &["assertion", "type", "result", "window (s)", "observed"];

fn assertion_rows(r: &RunRecord) -> Vec<[String; 5]> {
    r.assertions
        .iter()
        .map(|a| {
            [
                a.name.clone(),
                a.kind.clone(),
                if a.passed { "passed" } else { "FAILED" }.into(),
                a.window_s
                    .map(|w| format!("{:.2} to {:.2}", w[0], w[1]))
                    .unwrap_or_default(),
                if a.summary.is_empty() {
                    a.reason.clone().unwrap_or_else(|| a.observed.to_string())
                } else {
                    a.summary.clone()
                },
            ]
        })
        .collect()
}

const ENTRY_HEAD: &[&str] = &[
    "entry",
    "action",
    "vehicle",
    "start (s)",
    "end (s)",
    "outcome",
];

const PERIOD_HEAD: &[&str] = &[
    "link",
    "profile",
    "cause",
    "period (s)",
    "measured latency",
    "verdict",
    "reason",
];

/// What shaped the links (run.json's `network.topology.backend`).
/// The backend that shaped the run's links (`kernel`, `userspace`), if it had links.
fn backend(r: &RunRecord) -> Option<&str> {
    r.network
        .as_ref()?
        .get("topology")?
        .get("backend")?
        .as_str()
}

fn backend_line(r: &RunRecord) -> Option<String> {
    let backend = backend(r)?;
    Some(match backend {
        "kernel" => "Every link shaped by kernel netem (backend kernel: tc in each vehicle's namespace).".into(),
        "userspace" => "Every link shaped by the userspace emulator (backend userspace: a link namespace between each vehicle and the radio).".into(),
        other => format!("Every link on backend {other}."),
    })
}

const CONTRACT_HEAD: &[&str] = &["vehicle", "passed", "failed", "skipped", "failed findings"];

/// One row per vehicle of the contract checks (`--check-contracts`).
fn contract_rows(r: &RunRecord) -> Vec<[String; 5]> {
    let Some(checks) = r.contracts.as_ref().and_then(Json::as_object) else {
        return Vec::new();
    };
    checks
        .iter()
        .map(|(vehicle, check)| {
            if let Some(error) = check.get("error").and_then(Json::as_str) {
                return [
                    vehicle.clone(),
                    String::new(),
                    String::new(),
                    String::new(),
                    format!("not checked: {error}"),
                ];
            }
            let failed: Vec<String> = check["findings"]
                .as_array()
                .into_iter()
                .flatten()
                .filter(|f| f["status"] == "fail")
                .map(|f| {
                    format!(
                        "{} {}: {}",
                        f["check"].as_str().unwrap_or_default(),
                        f["topic"].as_str().unwrap_or_default(),
                        f["detail"].as_str().unwrap_or_default()
                    )
                })
                .collect();
            [
                vehicle.clone(),
                check["pass"].to_string(),
                check["fail"].to_string(),
                check["skip"].to_string(),
                failed.join("; "),
            ]
        })
        .collect()
}

const TRAFFIC_HEAD: &[&str] = &[
    "link",
    "direction",
    "class",
    "entered (frames / bytes)",
    "delivered (frames / bytes)",
    "lost to the profile",
    "dropped on a full queue",
    "queued at the end (frames)",
];

/// One row per link, direction and class (traffic, probes) of the emulator's counters.
fn traffic_rows(r: &RunRecord) -> Vec<[String; 8]> {
    let mut rows = Vec::new();
    let Some(links) = r
        .network
        .as_ref()
        .and_then(|n| n.get("traffic"))
        .and_then(Json::as_object)
    else {
        return rows;
    };
    let kernel = backend(r) == Some("kernel");
    for (link, counters) in links {
        if let Some(error) = counters.get("error") {
            let mut row: [String; 8] = Default::default();
            row[0] = link.clone();
            row[1] = format!("not read: {}", error.as_str().unwrap_or_default());
            rows.push(row);
            continue;
        }
        for (direction, way) in [("up", "vehicle → ground"), ("down", "ground → vehicle")] {
            for (class, label) in [("traffic", "traffic"), ("probe", "probes (ICMP)")] {
                let c = &counters[direction][class];
                if c.is_null() {
                    continue;
                }
                // Kernel netem reports what it sent and dropped, not what entered it.
                let entered = if kernel {
                    "not counted".to_string()
                } else {
                    format!("{} / {}", c["rx_packets"], c["rx_bytes"])
                };
                rows.push([
                    link.clone(),
                    way.into(),
                    label.into(),
                    entered,
                    format!("{} / {}", c["packets"], c["bytes"]),
                    c["drops_loss"].to_string(),
                    c["drops_overflow"].to_string(),
                    c["backlog_packets"].to_string(),
                ]);
            }
        }
    }
    rows
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
                match p["measurement"]["latency_ms"].as_f64() {
                    Some(latency) => format!(
                        "{latency:.2} ms ({} of {} answered)",
                        p["measurement"]["replies"], p["measurement"]["sent"]
                    ),
                    None => format!(
                        "no answers ({} of {} answered)",
                        p["measurement"]["replies"], p["measurement"]["sent"]
                    ),
                },
                p["verdict"].as_str().unwrap_or("").into(),
                p["reason"].as_str().unwrap_or("").into(),
            ]);
        }
    }
    rows
}

const VEHICLE_HEAD: &[&str] = &["vehicle", "stack", "vision", "evidence files"];

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

const PROCESS_HEAD: &[&str] = &[
    "process",
    "netns",
    "user",
    "ready after (s)",
    "exited during the timeline",
    "exit",
    "CPU (s)",
    "peak RSS (MiB)",
];

fn process_rows(r: &RunRecord) -> Vec<[String; 8]> {
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
                p.user.clone(),
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

fn host_line(r: &RunRecord) -> Option<String> {
    let host = r.host.as_ref()?;
    let pace = match &host.auto_pace {
        None => String::new(),
        Some(changes) if changes.is_empty() => {
            " Paced by `--real-time-factor auto`: it held the factor asked.".to_string()
        }
        Some(changes) => format!(
            " Paced by `--real-time-factor auto`: {}.",
            changes
                .iter()
                .map(|c| format!(
                    "{} at {:.1} s ({:.2} ms per wake-up)",
                    c.real_time_factor, c.at_s, c.window_wakeup_delay_ms
                ))
                .collect::<Vec<_>>()
                .join(", ")
        ),
    };
    Some(format!(
        "Host during the timeline ({:.1} s of wall clock): {}{}.{pace}",
        host.timeline_wall_s,
        host.describe(),
        if host.overloaded {
            ": **overloaded**, the stack was starved"
        } else {
            ""
        }
    ))
}

/// The report's sections in order.
fn sections(r: &RunRecord) -> Vec<Section> {
    let mut out = vec![Section {
        heading: "Assertions",
        table: Table::new(ASSERTION_HEAD, assertion_rows(r)),
        lines: Vec::new(),
    }];
    if !r.vehicles.is_empty() {
        out.push(Section {
            heading: "Vehicles",
            table: Table::new(VEHICLE_HEAD, vehicle_rows(r)),
            lines: Vec::new(),
        });
    }
    let contracts = contract_rows(r);
    if !contracts.is_empty() {
        out.push(Section {
            heading: "Bridge contracts",
            table: Table::new(CONTRACT_HEAD, contracts),
            lines: vec![
                "Checked after the bring-up, before the timeline (`--check-contracts`): graph, QoS, frames and rates over the header stamps; every finding is in run.json (`contracts`)."
                    .into(),
            ],
        });
    }
    out.push(Section {
        heading: "Timeline",
        table: Table::new(ENTRY_HEAD, entry_rows(r)),
        lines: Vec::new(),
    });
    let periods = period_rows(r);
    if !periods.is_empty() {
        out.push(Section {
            heading: "Radio links",
            table: Table::new(PERIOD_HEAD, periods),
            lines: backend_line(r).into_iter().collect(),
        });
    }
    let traffic = traffic_rows(r);
    if !traffic.is_empty() {
        out.push(Section {
            heading: "Traffic per link",
            table: Table::new(TRAFFIC_HEAD, traffic),
            lines: vec![if backend(r) == Some("kernel") {
                "Counted by tc (netem's queue statistics): what each direction delivered and what it dropped; netem counts the profile's loss and a full queue as one figure, shown as lost to the profile."
            } else {
                "Counted by the link emulator: what entered each direction, what it delivered, and what it dropped by the profile's loss or because its queue was full."
            }
            .into()],
        });
    }
    out.push(Section {
        heading: "Processes",
        table: Table::new(PROCESS_HEAD, process_rows(r)),
        lines: resources_line(r).into_iter().chain(host_line(r)).collect(),
    });
    out
}

/// The verdict line and the run's facts.
fn run_line(r: &RunRecord) -> String {
    format!(
        "Run `{}`, seed {}, real-time factor {}, timeline {:.1} s (simulation time), exit code {}.",
        r.run_id, r.seed, r.real_time_factor, r.timeline_duration_s, r.result.exit_code
    )
}

/// report.md; `plots` are (title, file under `plots/`, SVG).
pub fn report_md(r: &RunRecord, plots: &[(String, String, String)]) -> String {
    let mut s = format!(
        "# Scenario {}: {}\n\n{}\n\n",
        r.scenario,
        r.result.status.to_uppercase(),
        run_line(r)
    );
    for reason in &r.result.reasons {
        s += &format!("- **{}**\n", md_cell(reason));
    }
    for w in &r.result.warnings {
        s += &format!("- warning: {}\n", md_cell(w));
    }
    for section in sections(r) {
        s += &format!("\n## {}\n\n", section.heading);
        s += &section.table.markdown();
        for line in &section.lines {
            s += &format!("\n{line}\n");
        }
    }
    if !plots.is_empty() {
        s += "\n## Plots\n\n";
        for (title, f, _) in plots {
            s += &format!("![{title}](plots/{f})\n\n");
        }
    }
    s
}

/// report.html, with the plots inline.
pub fn report_html(r: &RunRecord, plots: &[(String, String, String)]) -> String {
    let mut s = format!(
        "<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>{0}</title><style>body{{font-family:sans-serif;margin:2em}}table{{border-collapse:collapse}}td,th{{border:1px solid #aaa;padding:3px 6px;font-size:13px}}.passed{{color:#080}}.failed{{color:#b00}}</style></head><body><h1>Scenario {0}: <span class=\"{1}\">{1}</span></h1>\n<p>{2}</p><ul>",
        esc(&r.scenario),
        esc(&r.result.status),
        esc(&run_line(r))
    );
    for reason in &r.result.reasons {
        s += &format!("<li><b>{}</b></li>", esc(reason));
    }
    for w in &r.result.warnings {
        s += &format!("<li>warning: {}</li>", esc(w));
    }
    s += "</ul>";
    for section in sections(r) {
        s += &format!("<h2>{}</h2>", esc(section.heading));
        s += &section.table.html();
        for line in &section.lines {
            s += &format!("<p>{}</p>", esc(line));
        }
    }
    s += "<h2>Plots</h2>";
    for (title, _, svg) in plots {
        s += &format!("<h3>{}</h3><div>{svg}</div>\n", esc(title));
    }
    s + "</body></html>\n"
}
