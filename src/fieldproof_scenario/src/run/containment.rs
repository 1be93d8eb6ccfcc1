//! The containment phase: the runner's private network namespace, the run's vehicle, radio
//! and world namespaces with their links (`fieldproof_link`'s [`LinkShaper`]), and the
//! cleanup guard that removes them should the runner die outright. [`Containment`] owns
//! them: dropped, it goes back to the runner's own namespace, removes the run's namespaces
//! (unless `--keep`) and releases the guard, whatever phase ended the run.

use std::fs::File;
use std::os::fd::AsFd;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use fieldproof_link::emulator::EmulatorConfig;
use fieldproof_link::shaper::{unix_now, LinkShaper};

use super::RunOptions;
use crate::model::Scenario;
use crate::plan::Executables;

/// The run's network containment, entered by [`Containment::enter`].
pub(super) struct Containment {
    /// The runner's private namespace, to come back to before the run's namespaces go.
    home_ns: File,
    /// The links (with a `network` section); lent to the timeline while it runs.
    pub(super) shaper: Option<LinkShaper>,
    /// `link_net cleanup --after-stdin-closes` (with a network, unless `--keep`).
    guard: Option<Child>,
}

impl Containment {
    /// Moves the runner into a fresh private network namespace; with a `network` section,
    /// removes namespaces a killed runner left, starts the cleanup guard, creates the run's
    /// namespaces and links, and moves into the world namespace (where the simulator and the
    /// runner's own node run). Returns the warnings it has for run.json.
    pub(super) fn enter(
        s: &Scenario,
        o: &RunOptions,
        exes: &Executables,
        run_id: &str,
        seed: u64,
        dir: &Path,
        world_ns: Option<&str>,
    ) -> Result<(Containment, Vec<String>), String> {
        private_netns()?;
        let home_ns = File::open("/proc/thread-self/ns/net")
            .map_err(|e| format!("/proc/thread-self/ns/net: {e}"))?;
        let mut containment = Containment {
            home_ns,
            shaper: None,
            guard: None,
        };
        let mut warnings = Vec::new();
        let Some(net) = &s.network else {
            return Ok((containment, warnings));
        };
        // Namespaces a killed runner left behind (its label names a dead owner) go first.
        match fieldproof_link::netns::cleanup_stale() {
            Ok(gone) if !gone.is_empty() => warnings.push(format!(
                "removed namespaces left by a runner that is gone: {}",
                gone.join(", ")
            )),
            Ok(_) => {}
            Err(e) => warnings.push(format!("cleaning up stale namespaces: {e}")),
        }
        // Unless they are to be kept, a guard removes them should the runner die outright.
        if !o.keep {
            match start_cleanup_guard(exes, run_id, &dir.join("logs")) {
                Ok(g) => containment.guard = Some(g),
                Err(e) => warnings.push(format!(
                    "no cleanup guard ({e}): a runner killed with SIGKILL would leave its namespaces until the next run"
                )),
            }
        }
        let backend = fieldproof_link::tc::select_backend(net.section.backend.forced());
        let names: Vec<String> = s.vehicles.iter().map(|v| v.name.clone()).collect();
        let cfg = EmulatorConfig {
            seed: Some(seed),
            ..EmulatorConfig::default()
        };
        let mut shaper = LinkShaper::start(run_id, &names, net.clone(), backend, cfg, unix_now())
            .map_err(|e| format!("network: {e}"))?;
        shaper.keep(o.keep).map_err(|e| format!("--keep: {e}"))?;
        containment.shaper = Some(shaper);
        // The runner observes from the world namespace, beside the simulator.
        let ns = world_ns.expect("a network");
        setns_to(&PathBuf::from("/run/netns").join(ns))?;
        Ok((containment, warnings))
    }
}

impl Drop for Containment {
    /// Back home before the namespaces go; then the links and namespaces (unless kept), then
    /// the guard, which has nothing left to remove.
    fn drop(&mut self) {
        let _ = nix::sched::setns(self.home_ns.as_fd(), nix::sched::CloneFlags::CLONE_NEWNET);
        drop(self.shaper.take());
        if let Some(g) = self.guard.take() {
            release_cleanup_guard(g);
        }
    }
}

/// Moves the calling thread into the network namespace at `path`.
fn setns_to(path: &Path) -> Result<(), String> {
    let f = std::fs::File::open(path).map_err(|e| format!("{}: {e}", path.display()))?;
    nix::sched::setns(f.as_fd(), nix::sched::CloneFlags::CLONE_NEWNET)
        .map_err(|e| format!("setns {}: {e}", path.display()))
}

/// Moves the calling thread (and so the children it starts) into a fresh network
/// namespace with only loopback up.
pub(super) fn private_netns() -> Result<(), String> {
    nix::sched::unshare(nix::sched::CloneFlags::CLONE_NEWNET).map_err(|e| {
        format!("cannot create a private network namespace (needs root or CAP_SYS_ADMIN): {e}")
    })?;
    for args in [
        vec!["link", "set", "lo", "up"],
        vec!["link", "set", "lo", "multicast", "on"],
        vec!["route", "add", "224.0.0.0/4", "dev", "lo"],
    ] {
        let _ = Command::new("ip")
            .args(&args)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status();
    }
    Ok(())
}

/// Starts `link_net cleanup --run-id <run> --after-stdin-closes` on a pipe whose writing
/// end only this process holds: however the runner ends, even by SIGKILL, the kernel
/// closes the pipe and the guard removes what is left of the run's network. Its own
/// process group and no death signal, so that it outlives the runner.
fn start_cleanup_guard(exes: &Executables, run_id: &str, logs: &Path) -> Result<Child, String> {
    let link_net = exes
        .find("fieldproof_link", "link_net")
        .map_err(|e| e.to_string())?;
    let log_path = logs.join("cleanup_guard.log");
    let log =
        std::fs::File::create(&log_path).map_err(|e| format!("{}: {e}", log_path.display()))?;
    let log_err = log.try_clone().map_err(|e| e.to_string())?;
    Command::new(&link_net)
        .args(["cleanup", "--run-id", run_id, "--after-stdin-closes"])
        .stdin(Stdio::piped())
        .stdout(Stdio::from(log))
        .stderr(Stdio::from(log_err))
        .process_group(0)
        .spawn()
        .map_err(|e| format!("{}: {e}", link_net.display()))
}

/// Closes the guard's pipe after the teardown (nothing is left for it to remove) and
/// waits a moment for it to end.
fn release_cleanup_guard(mut guard: Child) {
    drop(guard.stdin.take());
    let until = Instant::now() + Duration::from_secs(5);
    while Instant::now() < until {
        if !matches!(guard.try_wait(), Ok(None)) {
            return;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let _ = guard.kill();
    let _ = guard.wait();
}
