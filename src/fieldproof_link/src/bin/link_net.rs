//! `link_net`: a run's radio links without ROS.
//!
//! - `link_net up --run-id R --vehicle ugv1 [--vehicle ugv2] [--profile P | --scenario S]`
//!   creates the namespaces and links, shapes them and prints one JSON line (`ready`, the
//!   topology); then takes commands on stdin, one JSON reply a line:
//!   `set <vehicle> <profile>`, `custom <vehicle> <name> <json>`, `drop <vehicle> [seconds]`,
//!   `restore <vehicle>`, `counters <vehicle>`, `status`, `quit`. Ends on `quit`, the end
//!   of stdin (unless `--ignore-eof`), SIGINT/SIGTERM/SIGHUP or `--duration-s`, and removes
//!   everything it made.
//! - `link_net cleanup --run-id R` / `link_net cleanup --stale`: removes a run's leftovers
//!   (namespaces, links, the processes inside them) / those of every run whose owner died.
//!   With `--after-stdin-closes` it first waits for the end of its standard input: the
//!   scenario runner starts it as a guard on a pipe, so a runner killed with SIGKILL still
//!   leaves nothing behind (the kernel closes the pipe as the runner dies).
//! - `link_net list`: the runs with namespaces, and whether their owner lives.
//! - `link_net exec --run-id R --in PLACE -- CMD...`: waits until run R's links are up, then
//!   runs CMD inside the namespace of PLACE (`radio`, `world` or a vehicle): the
//!   `launch-prefix` of the bringup launch files.

use clap::{Parser, Subcommand};
use fieldproof_link::emulator::EmulatorConfig;
use fieldproof_link::netns::{self, Backend};
use fieldproof_link::profile::{presets, Network, NetworkSection};
use fieldproof_link::shaper::{unix_now, LinkShaper};
use fieldproof_link::{sys, tc};
use serde_json::json;
use std::io::BufRead;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};

#[derive(Parser)]
#[command(about = "fieldproof radio links without ROS: create, shape, clean up")]
struct Cli {
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Subcommand)]
enum Cmd {
    /// Create a run's links, shape them, take commands on stdin.
    Up {
        /// The run id (1 to 12 of [a-z0-9]).
        #[arg(long)]
        run_id: String,
        /// A vehicle (repeat for a fleet).
        #[arg(long = "vehicle", required = true)]
        vehicles: Vec<String>,
        /// Every link's profile (a preset) when no scenario is given.
        #[arg(long, default_value = "wifi_good")]
        profile: String,
        /// A scenario whose `network` section configures the links.
        #[arg(long)]
        scenario: Option<PathBuf>,
        /// Force a backend (default: kernel when sch_netem works, else userspace).
        #[arg(long, value_enum)]
        backend: Option<Backend>,
        /// End after this long.
        #[arg(long)]
        duration_s: Option<f64>,
        /// Keep the namespaces after the end.
        #[arg(long)]
        keep: bool,
        /// Write the applied profile changes here (JSON lines, s from the start).
        #[arg(long)]
        events_out: Option<PathBuf>,
        /// Emulator: spin this long before a release (µs).
        #[arg(long, default_value_t = 50)]
        spin_us: u64,
        /// Emulator: RNG seed.
        #[arg(long)]
        seed: Option<u64>,
        /// Emulator: ordinary (not SCHED_FIFO) forwarding threads.
        #[arg(long)]
        no_realtime: bool,
        /// Keep running at the end of stdin (default: the end of stdin ends the run).
        #[arg(long)]
        ignore_eof: bool,
    },
    /// Remove a run's leftovers, or those of every run whose owner is gone.
    Cleanup {
        /// The run.
        #[arg(long, conflicts_with = "stale")]
        run_id: Option<String>,
        /// Every run whose owner died.
        #[arg(long)]
        stale: bool,
        /// Wait until stdin closes (its writer ended, however it ended), then clean up
        /// the run; SIGINT and SIGHUP are ignored meanwhile.
        #[arg(long, requires = "run_id")]
        after_stdin_closes: bool,
    },
    /// List the runs that have namespaces.
    List,
    /// Run a command inside one of a run's namespaces once its links are up (what a
    /// bringup launch file's `launch-prefix` is): `link_net exec --run-id R --in ugv1 --
    /// CMD...` becomes `ip netns exec fp-R-v-ugv1 CMD...`, the same process.
    Exec {
        /// The run (the link shaper's `run_id`); empty: run the command where it is.
        #[arg(long, default_value = "")]
        run_id: String,
        /// `radio` (the ground station's), `world` (the simulator's) or a vehicle's name.
        #[arg(long = "in", value_name = "PLACE", default_value = "")]
        place: String,
        /// How long to wait for the run's links (s).
        #[arg(long, default_value_t = 60.0)]
        wait_s: f64,
        /// The command and its arguments.
        #[arg(required = true, trailing_var_arg = true, allow_hyphen_values = true)]
        command: Vec<String>,
    },
}

static STOP: AtomicBool = AtomicBool::new(false);

extern "C" fn on_signal(_: libc::c_int) {
    STOP.store(true, Ordering::SeqCst);
}

fn install_signals() {
    for s in [libc::SIGINT, libc::SIGTERM, libc::SIGHUP] {
        // SAFETY: the handler only stores to an atomic (async-signal-safe).
        unsafe { libc::signal(s, on_signal as *const () as libc::sighandler_t) };
    }
}

fn network(profile: &str, scenario: &Option<PathBuf>) -> Result<Network, String> {
    let presets = presets();
    match scenario {
        Some(p) => {
            let links = fieldproof_link::scenario_file::read(p)?;
            Network::new(links.network, &presets, "network").map_err(|e| e.to_string())
        }
        None => {
            let sec = NetworkSection::with_profile(profile);
            Network::new(sec, &presets, "--profile").map_err(|e| e.to_string())
        }
    }
}

#[allow(clippy::too_many_arguments)]
fn up(
    run_id: String,
    vehicles: Vec<String>,
    profile: String,
    scenario: Option<PathBuf>,
    backend: Option<Backend>,
    duration_s: Option<f64>,
    keep: bool,
    events_out: Option<PathBuf>,
    spin_us: u64,
    seed: Option<u64>,
    realtime: bool,
    ignore_eof: bool,
) -> Result<ExitCode, String> {
    install_signals();
    let net = network(&profile, &scenario)?;
    let backend = tc::select_backend(backend);
    let epoch = unix_now();
    let cfg = EmulatorConfig {
        spin_ns: spin_us * 1000,
        seed,
        realtime,
    };
    let mut shaper = LinkShaper::start(&run_id, &vehicles, net, backend, cfg, epoch)
        .map_err(|e| e.to_string())?;
    shaper.keep(keep).map_err(|e| format!("--keep: {e}"))?;
    println!(
        "{}",
        json!({"ready": true, "epoch": epoch, "topology": shaper.topology(), "in_force": shaper.in_force()})
    );
    let (tx, rx) = mpsc::channel::<String>();
    std::thread::spawn(move || {
        for line in std::io::stdin().lock().lines() {
            let Ok(l) = line else { break };
            if tx.send(l).is_err() {
                return;
            }
        }
        // The end of stdin (the controlling parent is gone) ends the run, unless told not to.
        if !ignore_eof {
            let _ = tx.send("quit".into());
        }
    });
    let started = Instant::now();
    loop {
        if STOP.load(Ordering::SeqCst)
            || duration_s.is_some_and(|d| started.elapsed().as_secs_f64() >= d)
        {
            break;
        }
        if let Ok(line) = rx.recv_timeout(Duration::from_millis(50)) {
            if line.trim().is_empty() {
                continue;
            }
            let (reply, quit) = shaper.command(line.trim());
            println!("{reply}");
            if quit {
                break;
            }
        }
        if let Err(e) = shaper.tick() {
            eprintln!("link_net: restoring a timed drop: {e}");
        }
    }
    if let Some(p) = events_out {
        let text: String = shaper
            .events()
            .iter()
            .map(|c| serde_json::to_string(c).expect("serializes") + "\n")
            .collect();
        std::fs::write(&p, text).map_err(|e| format!("{}: {e}", p.display()))?;
    }
    drop(shaper);
    Ok(ExitCode::SUCCESS)
}

fn run(cli: Cli) -> Result<ExitCode, String> {
    match cli.cmd {
        Cmd::Up {
            run_id,
            vehicles,
            profile,
            scenario,
            backend,
            duration_s,
            keep,
            events_out,
            spin_us,
            seed,
            no_realtime,
            ignore_eof,
        } => up(
            run_id,
            vehicles,
            profile,
            scenario,
            backend,
            duration_s,
            keep,
            events_out,
            spin_us,
            seed,
            !no_realtime,
            ignore_eof,
        ),
        Cmd::Cleanup {
            run_id: Some(r),
            after_stdin_closes,
            ..
        } => {
            if after_stdin_closes {
                wait_for_stdin_to_close();
            }
            let removed = netns::cleanup_run(&r).map_err(|e| e.to_string())?;
            println!("{}", json!({"removed": removed}));
            Ok(ExitCode::SUCCESS)
        }
        Cmd::Cleanup {
            run_id: None,
            stale: true,
            ..
        } => {
            let removed = netns::cleanup_stale().map_err(|e| e.to_string())?;
            println!("{}", json!({"removed": removed}));
            Ok(ExitCode::SUCCESS)
        }
        Cmd::Cleanup { .. } => Err("cleanup: give --run-id RUN or --stale".into()),
        Cmd::Exec {
            run_id,
            place,
            wait_s,
            command,
        } => exec_in(&run_id, &place, wait_s, &command),
        Cmd::List => {
            let mut runs: Vec<String> = netns::list_namespaces()
                .iter()
                .filter_map(|n| netns::run_of(n).map(String::from))
                .collect();
            runs.dedup();
            for r in runs {
                let owner = netns::read_label(&r);
                let alive = owner
                    .as_ref()
                    .is_some_and(|l| sys::process_alive(l.owner_pid, l.owner_start));
                println!(
                    "{}",
                    json!({"run_id": r, "namespaces": netns::namespaces_of(&r), "owner": owner.map(|l| l.owner_pid), "owner_alive": alive})
                );
            }
            Ok(ExitCode::SUCCESS)
        }
    }
}

/// `link_net exec`: waits for the run's links, then becomes `ip netns exec` of `command` in
/// the namespace `place` names; returns only on an error.
fn exec_in(run_id: &str, place: &str, wait_s: f64, command: &[String]) -> Result<ExitCode, String> {
    use std::os::unix::process::CommandExt;
    if !(wait_s.is_finite() && wait_s >= 0.0) {
        return Err(format!(
            "exec: --wait-s {wait_s} is not a number of seconds ≥ 0"
        ));
    }
    if run_id.is_empty() {
        // No run: the command runs where it is (a bringup launch file's default).
        let error = std::process::Command::new(&command[0])
            .args(&command[1..])
            .exec();
        return Err(format!("exec: {}: {error}", command[0]));
    }
    let ns = netns::namespace_of_place(run_id, place).map_err(|e| format!("exec: {e}"))?;
    netns::wait_shaped(run_id, &ns, Duration::from_secs_f64(wait_s))
        .map_err(|e| format!("exec: {e}"))?;
    let error = std::process::Command::new("ip")
        .args(["netns", "exec", &ns])
        .args(command)
        .exec();
    Err(format!("exec: ip netns exec {ns} {}: {error}", command[0]))
}

/// Blocks until stdin reaches its end, ignoring what it carries and the terminal's
/// SIGINT/SIGHUP (the guard outlives an interrupted owner to clean up after it).
fn wait_for_stdin_to_close() {
    for sig in [libc::SIGINT, libc::SIGHUP] {
        // SAFETY: SIG_IGN installs no handler code.
        unsafe { libc::signal(sig, libc::SIG_IGN) };
    }
    let _ = std::io::copy(&mut std::io::stdin().lock(), &mut std::io::sink());
}

fn main() -> ExitCode {
    match run(Cli::parse()) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("link_net: {e}");
            ExitCode::from(2)
        }
    }
}
