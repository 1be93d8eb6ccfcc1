//! `bundle_container --bundle DIR [--ros-args ...]`: every adapter of a bridge bundle as a node
//! of this one process on one DDS participant (as an rclcpp component container holds
//! components), instead of a process each. Each node keeps its name, namespace, parameters
//! and parameter services: `ros2 param set /ugv1/imu_adapter dropout true` works as with
//! the bundle's separate processes. With `--failsafe PARAMS` the vehicle's failsafe
//! (`fieldproof_link`'s `link_monitor`, named so, its parameters from PARAMS as `link_params
//! failsafe` writes them) is one more node of the process: one participant for the vehicle's
//! bridge and failsafe. The `--ros-args` apply to every node (`-r __ns:=/ugv1`,
//! `-p use_sim_time:=true`, `--log-level`); `-r __node:=` is refused. Exit codes: 0 after a
//! normal end or SIGINT/SIGTERM, 2 for bad input (the message names it), 1 otherwise.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Parser;
use fieldproof_bridge::gen::index::BundleIndex;
use fieldproof_bridge::nodes::{by_executable, compose, failsafe};
use fieldproof_runtime::container;

/// Run a bridge bundle's adapters in one process.
#[derive(Debug, Parser)]
#[command(
    name = "bundle_container",
    version,
    after_help = "Arguments after --ros-args apply to every node of the bundle."
)]
struct Cli {
    /// A bundle written by bridge_gen (or bridge_bundle): its bridge.yaml and params.yaml.
    #[arg(long)]
    bundle: PathBuf,
    /// Also run the vehicle's failsafe (link_monitor) here, with this ROS 2 parameters file
    /// (empty, as a launch file passes no file: none).
    #[arg(long, value_name = "PARAMS")]
    failsafe: Option<PathBuf>,
}

fn main() -> ExitCode {
    let args: Vec<String> = match fieldproof_runtime::args::utf8_args(std::env::args_os()) {
        Ok(a) => a,
        Err(e) => {
            eprintln!("bundle_container: error: {e}");
            return ExitCode::from(2);
        }
    };
    let split = args
        .iter()
        .position(|a| a == "--ros-args")
        .unwrap_or(args.len());
    let (own, ros_args) = args.split_at(split);
    let cli: Cli = match fieldproof_bridge::cli::parse_args(own.iter().cloned()) {
        Ok(c) => c,
        Err(code) => return code,
    };
    // The container's ROS arguments without their opening --ros-args (each node's command
    // line opens its own).
    let ros_args: Vec<String> = ros_args.iter().skip(1).cloned().collect();
    let index = match BundleIndex::load(&cli.bundle) {
        Ok(i) => i,
        Err(e) => {
            eprintln!("bundle_container: error: --bundle {e}");
            return ExitCode::from(2);
        }
    };
    let mut nodes = match compose(&index, &cli.bundle, &ros_args) {
        Ok(n) => n,
        Err(e) => {
            eprintln!("bundle_container: error: {}: {e}", cli.bundle.display());
            return ExitCode::from(2);
        }
    };
    if let Some(params) = cli.failsafe.as_ref().filter(|p| !p.as_os_str().is_empty()) {
        if !params.is_file() {
            eprintln!(
                "bundle_container: error: --failsafe {}: no such file",
                params.display()
            );
            return ExitCode::from(2);
        }
        match failsafe(&index, params, &ros_args) {
            Ok(node) => nodes.push(node),
            Err(e) => {
                eprintln!("bundle_container: error: --failsafe: {e}");
                return ExitCode::from(2);
            }
        }
    }
    let mut composables = Vec::with_capacity(nodes.len());
    for node in nodes {
        let Some(component) = by_executable(&node.package, &node.executable) else {
            eprintln!(
                "bundle_container: error: no component {}/{}",
                node.package, node.executable
            );
            return ExitCode::FAILURE;
        };
        match component.resolve(node.argv, |key| std::env::var(key).ok()) {
            Ok(c) => composables.push(c),
            Err(e) => {
                eprintln!("bundle_container: error: {}: {e}", node.executable);
                return ExitCode::from(2);
            }
        }
    }
    match container::run(composables) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("bundle_container: error: {e}");
            ExitCode::FAILURE
        }
    }
}
