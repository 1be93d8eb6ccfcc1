//! `link_analysis <network.jsonl> --timeline <scenario.yaml>`: splits the ground station's
//! windows into periods, estimates latency/jitter/loss and judges each period.
//!
//! Prints the report as JSON on stdout; with `verify: warn` failed periods are warnings on
//! stderr, with `verify: fail` they make the exit code 1. Bad input exits 2.

use clap::Parser;
use fieldproof_link::analysis::{analyse, apply_verify, timeline_changes, Change, Window};
use fieldproof_link::profile::{parse_presets, presets, Network, Verify};
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Parser)]
#[command(about = "Judge a run's radio links from the ground station's network.jsonl")]
struct Args {
    /// The ground station's windows (one JSON object a line).
    network_jsonl: PathBuf,
    /// A scenario (YAML with `network` and `timeline`); its link actions with `at` become changes.
    #[arg(long)]
    timeline: PathBuf,
    /// The shaper's applied changes (JSON lines of {link, applying_s, applied_s, profile, cause}) instead of the timeline's plan.
    #[arg(long)]
    events: Option<PathBuf>,
    /// Wall-clock start of the timeline (Unix s); default: the first window's time.
    #[arg(long)]
    start: Option<f64>,
    /// Wall-clock time the events' seconds count from (the shaper's epoch, Unix s);
    /// default: the timeline's start.
    #[arg(long)]
    events_epoch: Option<f64>,
    /// End of the timeline (s from its start); windows after it count for no period.
    #[arg(long)]
    end: Option<f64>,
    /// Override `network.verify`.
    #[arg(long, value_enum)]
    verify: Option<Verify>,
    /// Preset file instead of the packaged one.
    #[arg(long)]
    presets: Option<PathBuf>,
}

fn run(args: Args) -> Result<ExitCode, String> {
    let read =
        |p: &PathBuf| std::fs::read_to_string(p).map_err(|e| format!("{}: {e}", p.display()));
    let presets = match &args.presets {
        Some(p) => parse_presets(&read(p)?, &p.display().to_string()).map_err(|e| e.to_string())?,
        None => presets(),
    };
    let scenario = fieldproof_link::scenario_file::read(&args.timeline)?;
    let net = Network::new(scenario.network, &presets, "network").map_err(|e| e.to_string())?;
    let mut windows = Vec::new();
    for (i, line) in read(&args.network_jsonl)?.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let w: Window = serde_json::from_str(line)
            .map_err(|e| format!("{}:{}: {e}", args.network_jsonl.display(), i + 1))?;
        windows.push(w);
    }
    let mut changes: Vec<Change> = match &args.events {
        Some(p) => read(p)?
            .lines()
            .filter(|l| !l.trim().is_empty())
            .enumerate()
            .map(|(i, l)| {
                serde_json::from_str(l).map_err(|e| format!("{}:{}: {e}", p.display(), i + 1))
            })
            .collect::<Result<_, _>>()?,
        None => match &scenario.timeline {
            Some(tl) => timeline_changes(&net, tl).map_err(|e| e.to_string())?,
            None => Vec::new(),
        },
    };
    let start = args
        .start
        .or_else(|| windows.first().map(|w| w.t))
        .unwrap_or(0.0);
    if let Some(e) = args.events_epoch {
        for c in &mut changes {
            c.applying_s += e - start;
            c.applied_s += e - start;
        }
    }
    let report = analyse(&net, &windows, &changes, start, args.end).map_err(|e| e.to_string())?;
    println!(
        "{}",
        serde_json::to_string_pretty(&report).map_err(|e| e.to_string())?
    );
    let (messages, fails) = apply_verify(&report, args.verify.unwrap_or(net.section.verify));
    for m in &messages {
        eprintln!("{m}");
    }
    Ok(if fails {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

fn main() -> ExitCode {
    match run(Args::parse()) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("link_analysis: {e}");
            ExitCode::from(2)
        }
    }
}
