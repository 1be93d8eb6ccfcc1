//! `bridge_gen <robot.yaml> -o <dir> [-n ns] [--frame-prefix p] [--no-clock]
//! [--no-robot-state-publisher] [--without SENSOR]...`: writes the bridge bundle of a vehicle
//! manifest. A bad manifest or option exits 2 with the reason and writes nothing.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Parser;
use fieldproof_bridge::gen::{self, Options};

/// Generate a bridge bundle from a vehicle manifest.
#[derive(Debug, Parser)]
#[command(name = "bridge_gen", version)]
struct Cli {
    /// The vehicle manifest (robots/NAME/robot.yaml).
    manifest: PathBuf,
    /// Directory the bundle is written to (default: ./ROBOT_bridge).
    #[arg(short = 'o', long = "out")]
    out: Option<PathBuf>,
    /// ROS namespace of the vehicle; prefixes every topic on both sides (/ugv1/scan).
    #[arg(short = 'n', long = "namespace", default_value = "")]
    namespace: String,
    /// Prefix of every frame in the contract and the adapters.
    #[arg(long = "frame-prefix", default_value = "")]
    frame_prefix: String,
    /// Do not bridge the simulation clock.
    #[arg(long = "no-clock")]
    no_clock: bool,
    /// Do not run robot_state_publisher from the manifest's description.
    #[arg(long = "no-robot-state-publisher")]
    no_robot_state_publisher: bool,
    /// Leave an optional sensor out (repeatable, or comma separated).
    #[arg(long = "without", value_name = "SENSOR")]
    without: Vec<String>,
}

fn main() -> ExitCode {
    let cli: Cli = match fieldproof_bridge::cli::parse() {
        Ok(c) => c,
        Err(code) => return code,
    };
    let options = Options {
        namespace: cli.namespace,
        frame_prefix: cli.frame_prefix,
        no_clock: cli.no_clock,
        no_robot_state_publisher: cli.no_robot_state_publisher,
        without: cli.without,
    };
    let manifest = match gen::load_manifest(&cli.manifest) {
        Ok(m) => m,
        Err(e) => {
            eprintln!("bridge_gen: error: {e}");
            return ExitCode::from(2);
        }
    };
    let out = cli
        .out
        .unwrap_or_else(|| PathBuf::from(format!("{}_bridge", manifest.name)));
    let result = gen::generate(&manifest, &options, &out).and_then(|b| b.write().map(|()| b));
    match result {
        Ok(b) => {
            println!(
                "bridge_gen: wrote {} ({} nodes, {} contract topics)",
                b.dir.display(),
                b.nodes.len(),
                b.contract.topics.len()
            );
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("bridge_gen: error: {e}");
            ExitCode::from(e.exit_code())
        }
    }
}
