//! `fieldproof`: the suite's command line.
//!
//! `fieldproof exec <package> <executable> [args...]` runs an installed node exactly as
//! `ros2 run <package> <executable> [args...]` does on a ROS 2 machine: it resolves the
//! executable through `AMENT_PREFIX_PATH` and replaces itself with it, passing every argument
//! (including `--ros-args ...`) unchanged.

use std::os::unix::process::CommandExt;
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use fieldproof_tools::ament;

#[derive(Parser)]
#[command(
    name = "fieldproof",
    version,
    about = "Prove a vehicle's ROS 2 software against the field"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Run an installed executable, as `ros2 run <package> <executable> [args...]` does.
    Exec {
        /// Package name (as in package.xml).
        package: String,
        /// Executable name, installed in `<prefix>/lib/<package>/`.
        executable: String,
        /// Arguments passed unchanged, e.g. `--ros-args -r __ns:=/ugv1 -p dropout:=true`.
        #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
        args: Vec<String>,
        /// Prefix the command with another one (e.g. 'gdb -ex run --args'), as `ros2 run --prefix`.
        #[arg(long)]
        prefix: Option<String>,
    },
    /// List the executables of an installed package, as `ros2 pkg executables <package>`.
    Executables {
        /// Package name.
        package: String,
    },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let prefixes = match ament::prefixes(std::env::var("AMENT_PREFIX_PATH").ok().as_deref()) {
        Ok(p) => p,
        Err(err) => return fail(err),
    };
    match cli.command {
        Command::Exec {
            package,
            executable,
            args,
            prefix,
        } => {
            let path = match ament::find_executable(&prefixes, &package, &executable) {
                Ok(path) => path,
                Err(err) => return fail(err),
            };
            let mut words: Vec<String> = prefix
                .map(|p| p.split_whitespace().map(str::to_string).collect())
                .unwrap_or_default();
            words.push(path.display().to_string());
            words.extend(args);
            let err = std::process::Command::new(&words[0])
                .args(&words[1..])
                .exec();
            eprintln!("fieldproof exec: cannot run {}: {err}", words[0]);
            ExitCode::from(1)
        }
        Command::Executables { package } => match ament::package_prefix(&prefixes, &package) {
            Ok(prefix) => {
                for exe in ament::executables(&prefix, &package) {
                    println!("{package} {exe}");
                }
                ExitCode::SUCCESS
            }
            Err(err) => fail(err),
        },
    }
}

fn fail(err: ament::AmentError) -> ExitCode {
    eprintln!("fieldproof: {err}");
    ExitCode::from(1)
}
