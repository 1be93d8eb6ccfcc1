//! `bridge_bundle --bundle=DIR | --manifest=robot.yaml [--bundle-out=DIR] [--namespace=NS]
//! [--frame-prefix=P] [--clock=BOOL] [--robot-state-publisher=BOOL] [--without=A,B]`: what the
//! package's `bridge.launch.yaml` runs (through `$(command ...)`) to find the bundle it
//! includes. It checks a given bundle, or generates one from the manifest, and prints the
//! bundle's launch file path with no newline (the launch reads its output as the path). An
//! empty value is an unset argument, as the launch file passes them all. Bad input exits 2 with
//! the argument named on stderr, which makes the launch fail with that message.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Parser;
use fieldproof_bridge::gen::launch_args::{launch_bool, resolve, LaunchArgs};
use fieldproof_bridge::gen::{GenError, Options};

/// Resolve bridge.launch.yaml's arguments to the launch file of a bundle.
#[derive(Debug, Parser)]
#[command(name = "bridge_bundle", version)]
struct Cli {
    /// A bundle written by bridge_gen.
    #[arg(long, default_value = "")]
    bundle: String,
    /// A vehicle manifest to generate the bundle from.
    #[arg(long, default_value = "")]
    manifest: String,
    /// Where the generated bundle goes (default: a new temporary directory).
    #[arg(long = "bundle-out", default_value = "")]
    bundle_out: String,
    /// ROS namespace of the vehicle (manifest:= only).
    #[arg(long, default_value = "")]
    namespace: String,
    /// Prefix of every frame (manifest:= only).
    #[arg(long = "frame-prefix", default_value = "")]
    frame_prefix: String,
    /// Bridge /clock (manifest:= only).
    #[arg(long, default_value = "true")]
    clock: String,
    /// Run robot_state_publisher (manifest:= only).
    #[arg(long = "robot-state-publisher", default_value = "true")]
    robot_state_publisher: String,
    /// Optional sensors to leave out, comma separated (manifest:= only).
    #[arg(long, default_value = "")]
    without: String,
}

fn path(value: &str) -> Option<PathBuf> {
    (!value.trim().is_empty()).then(|| PathBuf::from(value.trim()))
}

fn launch_args(cli: &Cli) -> Result<LaunchArgs, GenError> {
    Ok(LaunchArgs {
        bundle: path(&cli.bundle),
        manifest: path(&cli.manifest),
        bundle_out: path(&cli.bundle_out),
        options: Options {
            namespace: cli.namespace.trim().to_string(),
            frame_prefix: cli.frame_prefix.trim().to_string(),
            no_clock: !launch_bool("clock", &cli.clock)?,
            no_robot_state_publisher: !launch_bool(
                "robot_state_publisher",
                &cli.robot_state_publisher,
            )?,
            without: cli
                .without
                .split(',')
                .map(str::trim)
                .filter(|s| !s.is_empty())
                .map(str::to_string)
                .collect(),
        },
    })
}

fn main() -> ExitCode {
    let cli: Cli = match fieldproof_bridge::cli::parse() {
        Ok(c) => c,
        Err(code) => return code,
    };
    match launch_args(&cli).and_then(|args| resolve(&args)) {
        Ok(file) => {
            // No newline: `$(command ...)` returns the output as it is, and it names a file.
            print!("{}", file.display());
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("bridge_bundle: error: {e}");
            ExitCode::from(e.exit_code())
        }
    }
}
