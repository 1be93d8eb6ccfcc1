//! The processes phase: starting the run's processes (as supervised children of
//! `fieldproof_launch`), telling when each is ready, stopping them all by the one
//! [`StopPolicy`]. [`Processes`] owns them: dropped, it stops whatever still runs, so an
//! error in any phase ends in the same teardown.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use fieldproof_launch::StopPolicy;
use nix::sys::signal::Signal;

use super::privilege::StackUser;
use crate::evidence::ProcessRecord;
use crate::interrupt::Interrupt;
use crate::plan::{ProcSpec, Ready};
use crate::resources::Sampler;

/// How long a process still running after SIGTERM gets before SIGKILL, at the teardown (the
/// scenario's `timeouts.shutdown_s` is the wait after SIGINT).
const SIGKILL_AFTER_SIGTERM: Duration = Duration::from_secs(2);

/// The run's processes, in the order they were started.
pub(super) struct Processes {
    pub(super) procs: Vec<Proc>,
    /// SIGINT → SIGTERM → SIGKILL at the teardown.
    policy: StopPolicy,
}

/// Where the bring-up stands, from the processes' side.
pub(super) enum Readiness {
    /// One exited before the timeline: what to report.
    Died(String),
    /// The processes not ready yet (empty: all are), each with whether it waits on the
    /// ground (a JSON line a `link_shaper` / `ground_station` prints; `timeouts.ground_s`).
    Waiting(Vec<(String, bool)>),
}

impl Processes {
    /// None started yet; `shutdown_s` is how long they get after SIGINT at the teardown.
    pub(super) fn new(shutdown_s: f64) -> Processes {
        Processes {
            procs: Vec::new(),
            policy: StopPolicy {
                sigterm_after: Duration::from_secs_f64(shutdown_s),
                sigkill_after: SIGKILL_AFTER_SIGTERM,
            },
        }
    }

    /// Starts every process in order; the first that cannot start (or a signal) ends the
    /// bring-up with why. The ones started stay owned here, to be stopped.
    pub(super) fn start_all(
        &mut self,
        specs: &[ProcSpec],
        current_ns: Option<&str>,
        logs: &Path,
        user: Option<&StackUser>,
        interrupt: &Interrupt,
    ) -> Result<(), String> {
        for spec in specs {
            if let Some(sig) = interrupt.caught() {
                return Err(format!(
                    "interrupted by {sig} during the bring-up (starting the processes)"
                ));
            }
            self.procs.push(spawn(spec, current_ns, logs, user)?);
        }
        Ok(())
    }

    /// Makes the real-time threads of the ready processes SCHED_FIFO (the ground station's
    /// probe thread: an unprivileged process cannot; the runner, with CAP_SYS_NICE, can);
    /// what could not be done, as warnings.
    pub(super) fn raise_realtime_threads(&self) -> Vec<String> {
        let mut warnings = Vec::new();
        for p in &self.procs {
            let (Some((thread, priority)), Some(pid)) = (p.spec.realtime_thread, p.pid()) else {
                continue;
            };
            if let Err(e) =
                fieldproof_link::sys::make_threads_realtime(pid as u32, thread, priority)
            {
                warnings.push(format!(
                    "{}: {e}; its round trips carry the host's scheduling delays",
                    p.spec.name
                ));
            }
        }
        warnings
    }

    /// The one readiness check: which processes are not ready yet, given the nodes the
    /// runner's node sees (`Ready::Node`), the managed nodes it has seen ACTIVE
    /// (`Ready::Active`), or being started (`Ready::Started`); records when each became
    /// ready.
    pub(super) fn readiness(
        &mut self,
        running_nodes: &[String],
        active_nodes: &[String],
    ) -> Readiness {
        let mut waiting = Vec::new();
        for p in self.procs.iter_mut() {
            if let Some(st) = p.poll_exit() {
                return Readiness::Died(format!(
                    "{} exited during the bring-up ({st}); see {}",
                    p.spec.name,
                    p.log.display()
                ));
            }
            if p.ready_after.is_some() {
                continue;
            }
            let ok = match &p.spec.ready {
                Ready::Node(f) => running_nodes.iter().any(|n| n == f),
                Ready::Nodes(fs) => fs.iter().all(|f| running_nodes.contains(f)),
                Ready::Active(f) => active_nodes.iter().any(|n| n == f),
                Ready::Started => true,
            };
            if ok {
                p.ready_after = Some(p.started.elapsed().as_secs_f64());
            } else {
                // A managed node's ACTIVE state comes from the ground station: over the link.
                let behind_link = matches!(p.spec.ready, Ready::Active(_));
                waiting.push((p.spec.name.clone(), behind_link));
            }
        }
        Readiness::Waiting(waiting)
    }

    /// The managed nodes the run waits to see ACTIVE (fully qualified names).
    pub(super) fn managed_nodes(&self) -> Vec<String> {
        self.procs
            .iter()
            .filter_map(|p| match &p.spec.ready {
                Ready::Active(fqn) => Some(fqn.clone()),
                _ => None,
            })
            .collect()
    }

    /// Pids of the processes still running.
    pub(super) fn running_pids(&mut self) -> Vec<i32> {
        self.procs
            .iter_mut()
            .filter_map(|p| {
                if p.poll_exit().is_none() {
                    p.pid()
                } else {
                    None
                }
            })
            .collect()
    }

    /// Stops every process still running by the stop policy (SIGINT in the reverse order
    /// of the start, then SIGTERM, then SIGKILL), and collects every exit status.
    pub(super) fn stop_all(&mut self) {
        let procs = std::cell::RefCell::new(&mut self.procs);
        self.policy.stop(
            |signal| {
                for p in procs.borrow().iter().rev() {
                    p.signal(signal);
                }
            },
            || {
                procs
                    .borrow_mut()
                    .iter_mut()
                    .all(|p| p.poll_exit().is_some())
            },
        );
        for p in self.procs.iter_mut() {
            if p.poll_exit().is_none() {
                p.signal(Signal::SIGKILL);
                if let Some(c) = p.child.as_mut() {
                    p.exit = c.wait().ok();
                }
            }
        }
    }
}

impl Drop for Processes {
    /// Whatever the phase that failed, no process outlives the run.
    fn drop(&mut self) {
        self.stop_all();
    }
}

/// One process of the run, as started by [`spawn`].
pub(super) struct Proc {
    pub(super) spec: ProcSpec,
    pub(super) child: Option<Child>,
    pub(super) started: Instant,
    pub(super) ready_after: Option<f64>,
    pub(super) log: PathBuf,
    /// The account it runs as.
    pub(super) user: String,
    pub(super) exit: Option<std::process::ExitStatus>,
    /// When it exited, in seconds of the timeline (exits during the timeline only).
    pub(super) exited_at_s: Option<f64>,
    /// The `process.kill` entry that signalled it, and when (seconds of the timeline).
    pub(super) killed_by: Option<(String, f64)>,
}

impl Proc {
    /// Its exit status, once it has exited (collected here).
    pub(super) fn poll_exit(&mut self) -> Option<std::process::ExitStatus> {
        if self.exit.is_none() {
            if let Some(c) = self.child.as_mut() {
                if let Ok(Some(st)) = c.try_wait() {
                    self.exit = Some(st);
                }
            }
        }
        self.exit
    }

    /// Sends `sig` to it, unless it has exited.
    pub(super) fn signal(&self, sig: nix::sys::signal::Signal) {
        if self.exit.is_none() {
            if let Some(c) = &self.child {
                let _ = nix::sys::signal::kill(nix::unistd::Pid::from_raw(c.id() as i32), sig);
            }
        }
    }

    /// Its pid.
    pub(super) fn pid(&self) -> Option<i32> {
        self.child.as_ref().map(|c| c.id() as i32)
    }

    /// Why an exit during the timeline that no `process.kill` asked for matters: `Err` (the
    /// run fails) for a failure or a signal, `Ok` (a warning) for a clean exit.
    pub(super) fn unexpected_exit(&self) -> Option<Result<String, String>> {
        let (at, st) = (self.exited_at_s?, self.exit?);
        if self.killed_by.is_some() {
            return None;
        }
        let what = format!(
            "{} exited at {at:.2} s of the timeline ({st}), no process.kill asked for it; see {}",
            self.spec.name,
            self.log.display()
        );
        Some(if st.success() { Ok(what) } else { Err(what) })
    }

    /// Its entry in run.json.
    pub(super) fn record(&self, sampler: &Sampler) -> ProcessRecord {
        use std::os::unix::process::ExitStatusExt;
        let usage = self.pid().and_then(|p| sampler.usage(p));
        ProcessRecord {
            name: self.spec.name.clone(),
            netns: self.spec.netns.clone(),
            command: self.spec.argv.clone(),
            user: self.user.clone(),
            pid: self.child.as_ref().map(|c| c.id()),
            ready_after_s: self.ready_after,
            exit_code: self.exit.and_then(|e| e.code()),
            signal: self.exit.and_then(|e| e.signal()),
            exited_at_s: self.exited_at_s,
            killed_by: self
                .killed_by
                .as_ref()
                .map(|(entry, at)| format!("{entry} at {at:.2} s")),
            cpu_s: usage.map(|u| u.cpu_s),
            peak_rss_mib: usage.map(|u| u.peak_rss_mib),
            log: Some(self.log.clone()),
        }
    }
}

/// Starts one process as a supervised child (fieldproof_launch), in its network namespace
/// (`ip netns exec`) unless the runner is already there, as `user` when one is given (see
/// [`super::privilege`]), its output in `logs/<name>.log`.
pub(super) fn spawn(
    spec: &ProcSpec,
    current_ns: Option<&str>,
    logs: &Path,
    user: Option<&StackUser>,
) -> Result<Proc, String> {
    let mut argv = spec.argv.clone();
    let mut env = spec.env.clone();
    if let Some(user) = user {
        let mut dropped = user.drop_prefix();
        dropped.extend(argv);
        argv = dropped;
        // A vehicle's processes write in its evidence directory, which is the user's.
        if let Some((_, dir)) = env.iter().find(|(k, _)| k == crate::plan::EVIDENCE_DIR_ENV) {
            let home = PathBuf::from(dir);
            env.extend(user.environment(&home));
        }
    }
    if let Some(ns) = &spec.netns {
        if Some(ns.as_str()) != current_ns {
            let mut a = vec!["ip".to_string(), "netns".into(), "exec".into(), ns.clone()];
            a.extend(argv);
            argv = a;
        }
    }
    let log = logs.join(format!("{}.log", spec.name.replace('/', "_")));
    let file = std::fs::File::create(&log).map_err(|e| format!("{}: {e}", log.display()))?;
    let err_file = file.try_clone().map_err(|e| e.to_string())?;
    let mut cmd = Command::new(&argv[0]);
    cmd.args(&argv[1..])
        .stdin(Stdio::null())
        .stderr(Stdio::from(err_file))
        .env("RCUTILS_COLORIZED_OUTPUT", "0")
        .envs(env.iter().map(|(k, v)| (k, v)));
    fieldproof_launch::child::supervised(&mut cmd);
    cmd.stdout(Stdio::from(file));
    let child = cmd
        .spawn()
        .map_err(|e| format!("{}: cannot start {}: {e}", spec.name, argv[0]))?;
    Ok(Proc {
        spec: spec.clone(),
        child: Some(child),
        started: Instant::now(),
        ready_after: None,
        log,
        user: user.map_or_else(|| "root".to_string(), |u| u.name.clone()),
        exit: None,
        exited_at_s: None,
        killed_by: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn finished(script: &str, dir: &Path) -> Proc {
        finished_with(script, dir, Vec::new())
    }

    fn finished_with(script: &str, dir: &Path, env: Vec<(String, String)>) -> Proc {
        let spec = ProcSpec {
            name: "ugv1/imu_adapter".into(),
            vehicle: Some("ugv1".into()),
            node: Some("imu_adapter".into()),
            stack: false,
            netns: None,
            argv: vec!["sh".into(), "-c".into(), script.into()],
            env,
            ready: Ready::Started,
            realtime_thread: None,
        };
        let mut p = spawn(&spec, None, dir, None).unwrap();
        p.exit = p.child.as_mut().unwrap().wait().ok();
        p
    }

    #[test]
    fn a_process_gets_its_environment() {
        let logs = tempfile::tempdir().unwrap();
        let env = vec![(
            crate::plan::EVIDENCE_DIR_ENV.to_string(),
            "/runs/x/quad1".to_string(),
        )];
        let p = finished_with("printf %s \"$FIELDPROOF_EVIDENCE_DIR\"", logs.path(), env);
        assert!(p.exit.unwrap().success());
        assert_eq!(std::fs::read_to_string(&p.log).unwrap(), "/runs/x/quad1");
    }

    #[test]
    fn exits_during_the_timeline_fail_the_run_unless_asked_for() {
        let logs = tempfile::tempdir().unwrap();
        // Before the timeline (or still running): nothing to say here.
        let mut p = finished("exit 3", logs.path());
        assert_eq!(p.unexpected_exit(), None);
        // A failure nobody asked for fails the run, naming the process and the time.
        p.exited_at_s = Some(12.5);
        let why = p.unexpected_exit().unwrap().unwrap_err();
        assert!(
            why.starts_with("ugv1/imu_adapter exited at 12.50 s of the timeline (exit status: 3)"),
            "{why}"
        );
        // Asked for by process.kill: reported with the process, not a failure.
        p.killed_by = Some(("kill_imu".into(), 12.4));
        assert_eq!(p.unexpected_exit(), None);
        assert_eq!(
            p.record(&Sampler::new()).killed_by.as_deref(),
            Some("kill_imu at 12.40 s")
        );
        // A clean exit is a warning.
        let mut p = finished("exit 0", logs.path());
        p.exited_at_s = Some(3.0);
        assert!(p.unexpected_exit().unwrap().is_ok());
    }
}
