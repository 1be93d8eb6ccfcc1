//! `fieldproof`: the suite's command line.
//!
//! `fieldproof exec <package> <executable> [args...]` runs an installed node exactly as
//! `ros2 run <package> <executable> [args...]` does on a ROS 2 machine: it resolves the
//! executable through `AMENT_PREFIX_PATH` and replaces itself with it, passing every argument
//! (including `--ros-args ...`) unchanged. `fieldproof launch` starts a YAML launch file as
//! `ros2 launch` does. `fieldproof run` and `fieldproof validate` exec the `fieldproof-scenario`
//! binary (git style), so this one stays small and quick to start: it links neither DDS, nor
//! the recorder, nor the plots.

use std::ffi::OsString;
use std::os::unix::process::CommandExt;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use fieldproof_tools::{ament, launch};

/// The binary holding the scenario commands (`fieldproof_scenario`'s).
const SCENARIO_BINARY: &str = "fieldproof-scenario";
/// The package that installs it.
const SCENARIO_PACKAGE: &str = "fieldproof_scenario";

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
        /// Arguments passed unchanged, byte for byte (UTF-8 or not), e.g.
        /// `--ros-args -r __ns:=/ugv1 -p dropout:=true`.
        #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
        args: Vec<OsString>,
        /// Prefix the command with another one (e.g. 'gdb -ex run --args'), as `ros2 run --prefix`.
        #[arg(long)]
        prefix: Option<String>,
    },
    /// Start a YAML launch file, as `ros2 launch [<package>] <file> [name:=value...]`.
    ///
    /// Children that die are reported with their exit code; Ctrl-C stops all of them
    /// (SIGINT, then SIGTERM, then SIGKILL). Exits 1 if a child failed on its own, 2 if the
    /// launch file is bad.
    Launch {
        /// Print each process the launch file starts (its label, environment and command
        /// line, one line each, shell-quoted) and exit without starting any.
        #[arg(long)]
        print: bool,
        /// A launch file path, or a package name followed by a file in its share/<pkg>/launch.
        #[arg(required = true, num_args = 1..)]
        words: Vec<String>,
    },
    /// List the executables of an installed package, as `ros2 pkg executables <package>`.
    Executables {
        /// Package name.
        package: String,
    },
    /// Run a scenario; exits 0 (passed), 1 (an assertion or a link verdict failed), 2 (bad
    /// input or could not run), 3 (inconclusive: it failed on a host that starved it).
    /// Evidence in the run directory.
    #[command(disable_help_flag = true)]
    Run {
        /// `<SCENARIO> [--out DIR] [--keep] [--seed N] [--real-time-factor F|auto]
        /// [--check-contracts] [--user NAME]`, parsed by `fieldproof-scenario`.
        #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
        args: Vec<OsString>,
    },
    /// Validate a scenario (and the manifests and world it names) without running it.
    #[command(disable_help_flag = true)]
    Validate {
        /// `<SCENARIO>`, parsed by `fieldproof-scenario`.
        #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
        args: Vec<OsString>,
    },
}

/// Splits `fieldproof exec [--prefix P] <package> <executable> [args...]` before clap sees
/// it: everything after the executable belongs to the executable, byte for byte, `--help`,
/// `-h` and `--prefix` included (as `ros2 run` passes them on). Returns the words for clap
/// and, for `exec`, the executable's arguments.
fn split_exec_args(argv: Vec<OsString>) -> (Vec<OsString>, Option<Vec<OsString>>) {
    if argv.get(1).is_none_or(|a| a != "exec") {
        return (argv, None);
    }
    let mut positionals = 0;
    let mut i = 2;
    while i < argv.len() && positionals < 2 {
        let arg = argv[i].to_string_lossy();
        if arg == "--prefix" {
            i += 1; // its value
        } else if !arg.starts_with('-') {
            positionals += 1;
        }
        i += 1;
    }
    if positionals < 2 {
        return (argv, None); // clap reports what is missing (or prints exec's help)
    }
    let mut words = argv;
    let passthrough = words.split_off(i);
    (words, Some(passthrough))
}

fn main() -> ExitCode {
    let argv: Vec<OsString> = std::env::args_os().collect();
    if is_scenario_command(&argv) {
        return exec_scenario_binary(&argv[1..]);
    }
    let (words, passthrough) = split_exec_args(argv);
    let mut cli = Cli::parse_from(words);
    if let (Command::Exec { args, .. }, Some(passed)) = (&mut cli.command, passthrough) {
        *args = passed;
    }
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
            let mut words: Vec<OsString> = prefix
                .map(|p| p.split_whitespace().map(OsString::from).collect())
                .unwrap_or_default();
            words.push(path.into_os_string());
            words.extend(args);
            let err = std::process::Command::new(&words[0])
                .args(&words[1..])
                .exec();
            eprintln!(
                "fieldproof exec: cannot run {}: {err}",
                words[0].to_string_lossy()
            );
            ExitCode::from(1)
        }
        Command::Launch { print, words } => run_launch(&prefixes, &words, print),
        Command::Run { .. } | Command::Validate { .. } => {
            unreachable!("is_scenario_command handled it")
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

/// `fieldproof launch`: resolve the file (path, or package + file), load it, supervise it
/// (or, with `--print`, list what it would start).
fn run_launch(prefixes: &[std::path::PathBuf], words: &[String], print: bool) -> ExitCode {
    let (file, arg_words) = match words {
        [first, second, rest @ ..] if !first.contains(":=") && !second.contains(":=") => {
            match ament::package_prefix(prefixes, first) {
                Ok(prefix) => (
                    prefix.join("share").join(first).join("launch").join(second),
                    rest,
                ),
                Err(err) => return fail(err),
            }
        }
        [first, rest @ ..] => (std::path::PathBuf::from(first), rest),
        [] => unreachable!("clap requires one word"),
    };
    let args = match launch::parse_launch_args(arg_words) {
        Ok(args) => args,
        Err(msg) => {
            eprintln!("fieldproof launch: {msg}");
            return ExitCode::from(2);
        }
    };
    let specs = match launch::load(&file, &args, prefixes) {
        Ok(specs) => specs,
        Err(err) => {
            eprintln!("fieldproof launch: {err}");
            return ExitCode::from(2);
        }
    };
    if print {
        for spec in &specs {
            let env = spec
                .env
                .iter()
                .map(|(name, value)| format!("{name}={value}"));
            let words: Vec<String> = env.chain(spec.cmd.iter().cloned()).collect();
            let line = shlex::try_join(words.iter().map(String::as_str))
                .unwrap_or_else(|_| words.join(" "));
            println!("{}: {line}", spec.label);
        }
        return ExitCode::SUCCESS;
    }
    let running = match launch::supervisor::Launch::start(&specs, Default::default()) {
        Ok(running) => running,
        Err(_) => return ExitCode::from(1),
    };
    let stop = running.stop_flag();
    for signal in [signal_hook::consts::SIGINT, signal_hook::consts::SIGTERM] {
        if let Err(err) = signal_hook::flag::register(signal, stop.clone()) {
            eprintln!("fieldproof launch: cannot handle signal {signal}: {err}");
        }
    }
    let outcome = running.wait();
    if outcome.failures().next().is_some() {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}

/// Whether the words are a scenario command (`run`, `validate`, or `help` of one), which
/// `fieldproof-scenario` parses and runs.
fn is_scenario_command(argv: &[OsString]) -> bool {
    let is_scenario = |w: Option<&OsString>| w.is_some_and(|w| w == "run" || w == "validate");
    is_scenario(argv.get(1))
        || (argv.get(1).is_some_and(|w| w == "help") && is_scenario(argv.get(2)))
}

/// Replaces this process with `fieldproof-scenario <words>`: same pid, stdio, signals and
/// exit code, as if `fieldproof` ran the scenario command itself.
fn exec_scenario_binary(words: &[OsString]) -> ExitCode {
    let Some(binary) = find_scenario_binary() else {
        eprintln!(
            "fieldproof: the scenario commands need {SCENARIO_BINARY} (package {SCENARIO_PACKAGE}): \
             not found next to {} nor in AMENT_PREFIX_PATH; build it (cargo build -p \
             {SCENARIO_PACKAGE}, or scripts/build) or source install/setup.bash",
            std::env::current_exe()
                .map(|p| p.display().to_string())
                .unwrap_or_else(|_| "fieldproof".into())
        );
        return ExitCode::from(2);
    };
    let err = std::process::Command::new(&binary).args(words).exec();
    eprintln!("fieldproof: cannot run {}: {err}", binary.display());
    ExitCode::from(2)
}

/// Where `fieldproof-scenario` is: next to this binary (a cargo target directory, a merged
/// install), in the sibling package of an isolated colcon install tree
/// (`<install>/fieldproof_tools/lib/fieldproof_tools/fieldproof` →
/// `<install>/fieldproof_scenario/lib/fieldproof_scenario/`), or through `AMENT_PREFIX_PATH`.
fn find_scenario_binary() -> Option<PathBuf> {
    let own_dir = std::env::current_exe()
        .ok()
        .and_then(|p| p.canonicalize().ok())
        .and_then(|p| p.parent().map(PathBuf::from));
    let mut candidates = Vec::new();
    if let Some(dir) = &own_dir {
        candidates.push(dir.join(SCENARIO_BINARY));
        candidates.push(dir.join("..").join(SCENARIO_PACKAGE).join(SCENARIO_BINARY));
        candidates.push(
            dir.join("../../..")
                .join(SCENARIO_PACKAGE)
                .join("lib")
                .join(SCENARIO_PACKAGE)
                .join(SCENARIO_BINARY),
        );
    }
    if let Ok(prefixes) = ament::prefixes(std::env::var("AMENT_PREFIX_PATH").ok().as_deref()) {
        if let Ok(path) = ament::find_executable(&prefixes, SCENARIO_PACKAGE, SCENARIO_BINARY) {
            candidates.push(path);
        }
    }
    candidates.into_iter().find(|p| p.is_file())
}

fn fail(err: ament::AmentError) -> ExitCode {
    eprintln!("fieldproof: {err}");
    ExitCode::from(1)
}
