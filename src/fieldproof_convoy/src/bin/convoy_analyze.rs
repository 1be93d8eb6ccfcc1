//! `convoy_analyze <csv>`: the recovery analysis of a follower's per-cycle CSV log, as JSON.
//!
//! Prints (or writes with `--out`) the time per watchdog state, every blackout with its restore
//! and recovery time (first good packet after the outage -> |gap error| below `--tolerance-m`),
//! the worst gap error, the minimum distance to the lead (when the log has `lead_dist_m`), the
//! oldest packet age and the sequence gaps. Exit 0 on success, 2 on bad input (the message names
//! the file, line, column and value).

use clap::Parser;
use fieldproof_convoy::{analysis, csv_log};
use std::path::PathBuf;
use std::process::ExitCode;

/// Recovery analysis of a convoy follower's CSV log.
#[derive(Parser, Debug)]
#[command(version, about)]
struct Args {
    /// The follower's CSV log (t, seq_gaps, rssi_dbm, pkt_age_s, gap_err_m, state[, lead_dist_m]).
    csv: PathBuf,
    /// Formation tolerance: recovered once |gap_err_m| is below this, metres.
    #[arg(long, default_value_t = 0.3)]
    tolerance_m: f64,
    /// Write the JSON here instead of stdout.
    #[arg(long)]
    out: Option<PathBuf>,
}

fn run(args: &Args) -> Result<(), String> {
    let file =
        std::fs::File::open(&args.csv).map_err(|e| format!("{}: {e}", args.csv.display()))?;
    let rows = csv_log::read_log(std::io::BufReader::new(file))
        .map_err(|e| format!("{}: {e}", args.csv.display()))?;
    let result = analysis::analyse(&rows, args.tolerance_m).map_err(|e| match e {
        analysis::AnalysisError::Tolerance(_) => {
            format!("--{e}").replacen("tolerance_m", "tolerance-m", 1)
        }
        other => format!("{}: {other}", args.csv.display()),
    })?;
    let json = serde_json::to_string_pretty(&result).map_err(|e| format!("json: {e}"))? + "\n";
    match &args.out {
        Some(path) => {
            std::fs::write(path, json).map_err(|e| format!("--out {}: {e}", path.display()))
        }
        None => {
            print!("{json}");
            Ok(())
        }
    }
}

fn main() -> ExitCode {
    let args = Args::parse();
    match run(&args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("convoy_analyze: {message}");
            ExitCode::from(2)
        }
    }
}
