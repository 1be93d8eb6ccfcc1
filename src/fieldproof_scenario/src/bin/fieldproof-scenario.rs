//! `fieldproof-scenario`: the scenario commands of `fieldproof` (`fieldproof run`,
//! `fieldproof validate`), in their own binary so that the `fieldproof` command itself (and so
//! every `fieldproof exec`) links neither the recorder (mcap) nor the plots (plotters).
//! `fieldproof run ...` execs `fieldproof-scenario run ...`; the runner itself is the
//! `fieldproof_scenario` library.

use std::io::IsTerminal;
use std::path::Path;
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use fieldproof_scenario::{model, run};

/// Named `fieldproof` so usage lines and errors read as they did when `fieldproof` parsed them.
#[derive(Parser)]
#[command(
    name = "fieldproof",
    bin_name = "fieldproof",
    version,
    about = "Prove a vehicle's ROS 2 software against the field"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Run a scenario; exits 0 (passed), 1 (an assertion or a link verdict failed), 2 (bad
    /// input or could not run), 3 (inconclusive: it failed on a host that starved it).
    /// Evidence in the run directory.
    Run {
        /// The scenario file.
        scenario: std::path::PathBuf,
        /// Run directory (default runs/<scenario>-<run id>).
        #[arg(long)]
        out: Option<std::path::PathBuf>,
        /// Keep the network namespaces after the run.
        #[arg(long)]
        keep: bool,
        /// Seed of the simulation's noise (overrides the scenario's).
        #[arg(long)]
        seed: Option<u64>,
        /// Simulation speed (overrides the scenario's, and a factor its `pace: auto`), or
        /// `auto`: paced at what the host sustains (slower while the run's threads wait for
        /// a CPU beyond the bound, up to the scenario's factor again once they do not).
        #[arg(long, value_name = "F|auto", value_parser = pace)]
        real_time_factor: Option<Pace>,
        /// Check every vehicle's bridge bundle against its contract after the bring-up,
        /// before the timeline; a failed finding fails the run.
        #[arg(long)]
        check_contracts: bool,
        /// The account every process of the run (adapters, failsafes, stacks, ground
        /// station, simulator) runs as, with no capability; only the runner keeps root
        /// (`root` gives the stack the runner's privileges).
        #[arg(long, value_name = "NAME", default_value = run::privilege::DEFAULT_USER)]
        user: String,
    },
    /// Validate a scenario (and the manifests and world it names) without running it.
    Validate {
        /// The scenario file.
        scenario: std::path::PathBuf,
    },
}

/// `--real-time-factor`: a factor, or `auto`.
#[derive(Debug, Clone, Copy)]
enum Pace {
    Factor(f64),
    Auto,
}

fn pace(text: &str) -> Result<Pace, String> {
    if text == "auto" {
        return Ok(Pace::Auto);
    }
    text.parse()
        .map(Pace::Factor)
        .map_err(|_| format!("{text:?} is neither a number nor `auto`"))
}

fn main() -> ExitCode {
    match Cli::parse().command {
        Command::Run {
            scenario,
            out,
            keep,
            seed,
            real_time_factor,
            check_contracts,
            user,
        } => run(
            &scenario,
            &run::RunOptions {
                out,
                keep,
                seed,
                real_time_factor: match real_time_factor {
                    Some(Pace::Factor(factor)) => Some(factor),
                    _ => None,
                },
                auto_real_time_factor: matches!(real_time_factor, Some(Pace::Auto)),
                progress: std::io::stderr().is_terminal(),
                check_contracts,
                user: Some(user),
            },
        ),
        Command::Validate { scenario } => validate(&scenario),
    }
}

/// `fieldproof validate <scenario.yaml>`: 0 when valid, 2 with the bad field otherwise.
fn validate(file: &Path) -> ExitCode {
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

/// `fieldproof run <scenario.yaml> [--out DIR] [--keep] [--seed N] [--real-time-factor F]
/// [--check-contracts] [--user NAME]`.
fn run(file: &Path, options: &run::RunOptions) -> ExitCode {
    if let Some(f) = options.real_time_factor {
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
    let summary = run::run(&s, options);
    let verdict = match summary.exit_code {
        0 => "passed",
        1 => "FAILED",
        run::INCONCLUSIVE => "INCONCLUSIVE (host overloaded)",
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
