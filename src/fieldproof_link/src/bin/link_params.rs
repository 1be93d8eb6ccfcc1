//! `link_params`: what the bringup launch files (top-level `launch/`) run through
//! `$(command ...)` to give the failsafe and the ground station the settings the vehicles'
//! manifests ask for, as the scenario runner gives them (`fieldproof_link::bringup`).
//!
//! - `link_params failsafe --manifest robot.yaml [--input cmd_vel_nav] [--out FILE]`: writes
//!   `link_monitor`'s parameters file (timeout, heartbeat topic and QoS, loss action, its
//!   input, and the base's command topic as its output) and prints its path;
//! - `link_params command-topic --manifest robot.yaml`: prints the base's command topic (where
//!   a stack without a failsafe publishes);
//! - `link_params link-shaper --run-id R --vehicles ugv1=robot.yaml,... [--profile P]
//!   [--scenario S] [--backend B] [--out FILE]`: writes the link shaper's parameters file
//!   (the run, its vehicles' names in order, how the links are shaped) and prints its path;
//! - `link_params ground-station --vehicles ugv1=robot.yaml,ugv2=robot.yaml [--out FILE]
//!   [--network-jsonl FILE]`: writes the ground station's parameters file (each vehicle at
//!   its radio address, in order, as `link_net`/`link_shaper` number them; each heartbeat
//!   under the vehicle's namespace, its name) and prints its path.
//!
//! A path is printed with no newline (the launch reads the output as a path); without
//! `--out` the file goes to a new temporary file. Bad input exits 2, naming the argument.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use fieldproof_link::bringup::{self, Setting, Settings};
use fieldproof_link::netns;
use fieldproof_robots::manifest::Manifest;

#[derive(Parser)]
#[command(
    name = "link_params",
    about = "the failsafe's and the ground station's parameters from vehicle manifests"
)]
struct Cli {
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Subcommand)]
enum Cmd {
    /// Write link_monitor's parameters file; print its path.
    Failsafe {
        /// The vehicle's manifest.
        #[arg(long)]
        manifest: PathBuf,
        /// Where the vehicle's stack publishes its velocity commands.
        #[arg(long, default_value = "cmd_vel_nav")]
        input: String,
        /// The file to write (default: a new temporary file).
        #[arg(long)]
        out: Option<PathBuf>,
    },
    /// Print the topic the vehicle's base takes its commands on.
    CommandTopic {
        /// The vehicle's manifest.
        #[arg(long)]
        manifest: PathBuf,
    },
    /// Write the link shaper's parameters file; print its path.
    LinkShaper {
        /// The run (1 to 12 of [a-z0-9]).
        #[arg(long)]
        run_id: String,
        /// The vehicles in order, each NAME=MANIFEST, comma separated.
        #[arg(long)]
        vehicles: String,
        /// Every link's profile (a preset).
        #[arg(long, default_value = "wifi_good")]
        profile: String,
        /// A scenario whose network section configures the links (empty: none).
        #[arg(long, default_value = "")]
        scenario: String,
        /// auto, kernel or userspace.
        #[arg(long, default_value = "auto")]
        backend: String,
        /// The file to write (default: a new temporary file).
        #[arg(long)]
        out: Option<PathBuf>,
    },
    /// Write the ground station's parameters file; print its path.
    GroundStation {
        /// The vehicles in the link shaper's order, each NAME=MANIFEST, comma separated.
        #[arg(long)]
        vehicles: String,
        /// Where the ground station writes its measurement windows (default: nowhere).
        #[arg(long, default_value = "")]
        network_jsonl: String,
        /// The file to write (default: a new temporary file).
        #[arg(long)]
        out: Option<PathBuf>,
    },
}

fn load(field: &str, path: &Path) -> Result<Manifest, String> {
    Manifest::load(path).map_err(|e| format!("{field} {}: {e}", path.display()))
}

/// `NAME=MANIFEST,...` as (name, manifest path) pairs; names are checked as vehicle names.
fn parse_vehicles(list: &str) -> Result<Vec<(String, PathBuf)>, String> {
    let mut out: Vec<(String, PathBuf)> = Vec::new();
    for (index, item) in list.split(',').map(str::trim).enumerate() {
        let at = format!("--vehicles[{index}]");
        let Some((name, manifest)) = item.split_once('=') else {
            return Err(format!("{at}: '{item}' is not NAME=MANIFEST"));
        };
        let name = name.trim();
        netns::validate_vehicle(&at, name).map_err(|e| e.to_string())?;
        if out.iter().any(|(known, _)| known == name) {
            return Err(format!("{at}: vehicle '{name}' is listed twice"));
        }
        out.push((name.to_string(), PathBuf::from(manifest.trim())));
    }
    Ok(out)
}

fn failsafe(manifest_path: &Path, input: &str) -> Result<Settings, String> {
    let manifest = load("--manifest", manifest_path)?;
    let link = manifest
        .runtime
        .as_ref()
        .and_then(|runtime| runtime.link.as_ref())
        .ok_or_else(|| {
            format!(
                "--manifest {}: runtime.link: missing, so the vehicle has no failsafe \
                 (launch it with failsafe:=false)",
                manifest_path.display()
            )
        })?;
    Ok(bringup::failsafe_parameters(
        link,
        input,
        &manifest.drive.command.ros_topic,
    ))
}

fn link_shaper(
    run_id: &str,
    vehicles: &str,
    profile: &str,
    scenario: &str,
    backend: &str,
) -> Result<Settings, String> {
    netns::validate_run_id(run_id).map_err(|e| format!("--run-id: {e}"))?;
    let names = parse_vehicles(vehicles)?
        .into_iter()
        .map(|(name, _)| name)
        .collect();
    Ok(vec![
        ("run_id", Setting::Text(run_id.into())),
        ("vehicles", Setting::TextList(names)),
        ("profile", Setting::Text(profile.into())),
        ("scenario", Setting::Text(scenario.into())),
        ("backend", Setting::Text(backend.into())),
    ])
}

fn ground_station(vehicles: &str, network_jsonl: &str) -> Result<Settings, String> {
    let vehicles = parse_vehicles(vehicles)?;
    let mut names = Vec::new();
    let mut addresses = Vec::new();
    let mut heartbeats = Vec::new();
    for (index, (name, path)) in vehicles.iter().enumerate() {
        let manifest = load(&format!("--vehicles[{index}]"), path)?;
        let heartbeat = manifest
            .runtime
            .as_ref()
            .and_then(|runtime| runtime.link.as_ref())
            .and_then(|link| link.heartbeat.as_ref());
        if let Some(heartbeat) = heartbeat {
            heartbeats.push(bringup::heartbeat_spec(
                name,
                &format!("/{name}"),
                heartbeat,
            ));
        }
        names.push(name.clone());
        addresses.push(netns::vehicle_addr(index + 1).to_string());
    }
    Ok(bringup::ground_station_parameters(
        &names,
        &addresses,
        &heartbeats,
        network_jsonl,
    ))
}

/// Writes the parameters file to `out` or a new kept temporary file; returns its path.
fn write(settings: &Settings, out: Option<PathBuf>) -> Result<PathBuf, String> {
    let text = bringup::parameters_file(settings);
    let path = match out {
        Some(path) => path,
        None => tempfile::Builder::new()
            .prefix("link_params_")
            .suffix(".yaml")
            .tempfile()
            .and_then(|file| file.keep().map_err(|e| e.error))
            .map(|(_, path)| path)
            .map_err(|e| format!("a temporary file: {e}"))?,
    };
    std::fs::write(&path, text).map_err(|e| format!("--out {}: {e}", path.display()))?;
    Ok(path)
}

fn run(cli: Cli) -> Result<String, String> {
    match cli.cmd {
        Cmd::Failsafe {
            manifest,
            input,
            out,
        } => Ok(write(&failsafe(&manifest, &input)?, out)?
            .display()
            .to_string()),
        Cmd::CommandTopic { manifest } => {
            Ok(load("--manifest", &manifest)?.drive.command.ros_topic)
        }
        Cmd::LinkShaper {
            run_id,
            vehicles,
            profile,
            scenario,
            backend,
            out,
        } => Ok(write(
            &link_shaper(&run_id, &vehicles, &profile, &scenario, &backend)?,
            out,
        )?
        .display()
        .to_string()),
        Cmd::GroundStation {
            vehicles,
            network_jsonl,
            out,
        } => Ok(write(&ground_station(&vehicles, &network_jsonl)?, out)?
            .display()
            .to_string()),
    }
}

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(error) => {
            let _ = error.print();
            return ExitCode::from(if error.use_stderr() { 2 } else { 0 });
        }
    };
    match run(cli) {
        Ok(output) => {
            // No newline: `$(command ...)` substitutes the output as it is.
            print!("{output}");
            ExitCode::SUCCESS
        }
        Err(error) => {
            eprintln!("link_params: error: {error}");
            ExitCode::from(2)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn vehicles_are_name_equals_manifest_each_once() {
        let parsed = parse_vehicles("ugv1=a.yaml, ugv2=b.yaml").unwrap();
        assert_eq!(parsed[1], ("ugv2".to_string(), PathBuf::from("b.yaml")));
        let error = parse_vehicles("ugv1").unwrap_err();
        assert!(
            error.contains("--vehicles[0]: 'ugv1' is not NAME=MANIFEST"),
            "{error}"
        );
        let error = parse_vehicles("ugv1=a.yaml,ugv1=b.yaml").unwrap_err();
        assert!(error.contains("listed twice"), "{error}");
        assert!(parse_vehicles("bad name=a.yaml").is_err());
    }
}
