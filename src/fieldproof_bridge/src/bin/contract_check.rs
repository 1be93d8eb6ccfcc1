//! `contract_check <bundle> [--timeout s] [--samples n] [--tolerance f] [--render-tolerance f]
//! [--json FILE] [--ros-args ...]`: subscribes to every published topic of the bundle's
//! contract.yaml, reads the graph from discovery, prints one finding per check and exits 1 on
//! a failure (0 when every check passes, 2 for bad arguments or an unreadable contract).

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use clap::Parser;
use fieldproof_bridge::contract::collect::{self, CollectOptions};
use fieldproof_bridge::contract::eval::{self, Report, Settings};
use fieldproof_bridge::contract::Contract;
use fieldproof_runtime::NodeBuilder;

/// Check a running stack against a bundle's contract.
#[derive(Debug, Parser)]
#[command(name = "contract_check", version)]
struct Cli {
    /// The bundle directory (or its contract.yaml).
    bundle: PathBuf,
    /// Seconds to wait for the samples before judging with what arrived.
    #[arg(long, default_value_t = 300.0)]
    timeout: f64,
    /// Messages wanted per topic (after the first), per transform for TF.
    #[arg(long, default_value_t = 10)]
    samples: usize,
    /// Relative rate tolerance.
    #[arg(long, default_value_t = 0.1)]
    tolerance: f64,
    /// Relative rate tolerance of images, camera info, point clouds and laser scans
    /// (default: $FIELDPROOF_CONTRACT_RENDER_TOLERANCE, else --tolerance).
    #[arg(long = "render-tolerance")]
    render_tolerance: Option<f64>,
    /// Let topics under this prefix pass the `topics` check too (repeatable; the harness's
    /// /fieldproof/ and /fieldproof_sim/ always pass).
    #[arg(long = "allow", value_name = "PREFIX")]
    allow: Vec<String>,
    /// Write the result as JSON to this file.
    #[arg(long)]
    json: Option<PathBuf>,
}

fn main() -> ExitCode {
    let argv = match fieldproof_runtime::args::utf8_args(std::env::args_os()) {
        Ok(argv) => argv,
        Err(e) => {
            eprintln!("contract_check: error: {e}");
            return ExitCode::from(2);
        }
    };
    // Our options come before `--ros-args`; the runtime reads what follows.
    let ours: Vec<&String> = argv.iter().take_while(|a| *a != "--ros-args").collect();
    let cli: Cli = match fieldproof_bridge::cli::parse_args(ours) {
        Ok(c) => c,
        Err(code) => return code,
    };
    let mut cli = cli;
    if cli.render_tolerance.is_none() {
        if let Ok(v) = std::env::var("FIELDPROOF_CONTRACT_RENDER_TOLERANCE") {
            match v.trim().parse::<f64>() {
                Ok(f) => cli.render_tolerance = Some(f),
                Err(_) => {
                    eprintln!(
                        "contract_check: error: FIELDPROOF_CONTRACT_RENDER_TOLERANCE: {v:?} is not a number"
                    );
                    return ExitCode::from(2);
                }
            }
        }
    }
    let bad = |what: &str, v: f64| !(v.is_finite() && v >= 0.0) || (what == "timeout" && v == 0.0);
    for (what, v) in [
        ("timeout", cli.timeout),
        ("tolerance", cli.tolerance),
        ("render-tolerance", cli.render_tolerance.unwrap_or(0.0)),
    ] {
        if bad(what, v) {
            eprintln!("contract_check: error: --{what}: {v} must be a positive number");
            return ExitCode::from(2);
        }
    }
    if cli.samples < 2 {
        eprintln!(
            "contract_check: error: --samples: {} is too few (a rate needs two intervals after the first stamp)",
            cli.samples
        );
        return ExitCode::from(2);
    }
    let contract = match Contract::load(&cli.bundle) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("contract_check: error: {e}");
            return ExitCode::from(2);
        }
    };
    let mut settings = Settings {
        samples: cli.samples,
        tolerance: cli.tolerance,
        render_tolerance: cli.render_tolerance,
        ..Settings::default()
    };
    settings.allowed_prefixes.extend(cli.allow.iter().cloned());
    let opts = CollectOptions {
        timeout: Duration::from_secs_f64(cli.timeout),
        samples: cli.samples,
        ..CollectOptions::default()
    };
    let cfg = match NodeBuilder::new("contract_check").resolve(argv, |k| std::env::var(k).ok()) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("contract_check: error: {e}");
            return ExitCode::from(2);
        }
    };
    let verdict: Arc<Mutex<Option<Report>>> = Arc::new(Mutex::new(None));
    let out = verdict.clone();
    let run = fieldproof_runtime::run(cfg, |node| async move {
        let obs = collect::collect(&node, &contract, &opts).await;
        *out.lock().unwrap() = Some(eval::evaluate(&contract, &obs, &settings));
        Ok(())
    });
    // The participant is closed here: printing and exiting cannot cut a peer off.
    if let Err(e) = run {
        eprintln!("contract_check: error: {e}");
        return ExitCode::FAILURE;
    }
    let Some(report) = verdict.lock().unwrap().take() else {
        eprintln!("contract_check: interrupted before the checks completed");
        return ExitCode::FAILURE;
    };
    for f in &report.findings {
        println!("{f}");
    }
    println!(
        "contract_check: {} passed, {} failed, {} skipped ({:.1} s)",
        report.pass, report.fail, report.skip, report.duration_s
    );
    if let Some(path) = &cli.json {
        let mut doc = serde_json::to_value(&report).expect("the report serializes");
        doc["bundle"] = serde_json::Value::from(cli.bundle.display().to_string());
        let text = serde_json::to_string_pretty(&doc).expect("JSON values serialize");
        if let Err(e) = std::fs::write(path, text + "\n") {
            eprintln!("contract_check: error: writing {}: {e}", path.display());
            return ExitCode::FAILURE;
        }
    }
    if report.passed {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}
