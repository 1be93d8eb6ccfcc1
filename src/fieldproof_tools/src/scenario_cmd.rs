//! `fieldproof run` and `fieldproof validate`: the scenario runner's command line (the
//! runner itself is the `fieldproof_scenario` library).

use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use fieldproof_scenario::{model, run};

/// `fieldproof validate <scenario.yaml>`: 0 when valid, 2 with the bad field otherwise.
pub fn validate(file: &Path) -> ExitCode {
    match model::load(file) {
        Ok(s) => {
            println!(
                "{}: valid ({} vehicle(s), {} timeline entries, {} assertions, {} recorded topics)",
                file.display(),
                s.vehicles.len(),
                s.timeline.len(),
                s.assertions.len(),
                s.recorded_topics.len()
            );
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("fieldproof validate: {e}");
            ExitCode::from(2)
        }
    }
}

/// `fieldproof run <scenario.yaml> [--out DIR] [--keep] [--seed N] [--real-time-factor F]`.
pub fn run(
    file: &Path,
    out: Option<PathBuf>,
    keep: bool,
    seed: Option<u64>,
    real_time_factor: Option<f64>,
) -> ExitCode {
    if let Some(f) = real_time_factor {
        if !(f.is_finite() && (0.0..=1000.0).contains(&f)) {
            eprintln!("fieldproof run: --real-time-factor: {f} is not in 0 to 1000");
            return ExitCode::from(2);
        }
    }
    let s = match model::load(file) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("fieldproof run: {e}");
            return ExitCode::from(2);
        }
    };
    let summary = run::run(
        &s,
        &run::RunOptions {
            out,
            keep,
            seed,
            real_time_factor,
            progress: std::io::stderr().is_terminal(),
        },
    );
    let verdict = match summary.exit_code {
        0 => "passed",
        1 => "FAILED",
        _ => "could not run",
    };
    eprintln!("fieldproof run: {}: {verdict}", s.raw.name);
    for r in &summary.reasons {
        eprintln!("  {r}");
    }
    if let Some(d) = &summary.dir {
        eprintln!("  evidence: {}", d.display());
    }
    ExitCode::from(summary.exit_code)
}
