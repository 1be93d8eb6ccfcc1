//! Runs a launch's processes the way `ros2 launch` does: output lines prefixed with the
//! process label, children that die reported with their exit code, Ctrl-C (SIGINT/SIGTERM to
//! the launcher) forwarded as SIGINT to every child, escalated to SIGTERM and then SIGKILL for
//! children that do not stop in time ([`StopPolicy`]).

use std::io::{BufRead, BufReader, Read, Write};
use std::os::unix::process::ExitStatusExt;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use nix::sys::signal::{kill, Signal};
use nix::unistd::Pid;

pub use crate::stop::StopPolicy;
use crate::ProcessSpec;

/// How one process ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Exit {
    /// Its label.
    pub label: String,
    /// Its pid.
    pub pid: u32,
    /// Exit code, or minus the signal number that ended it (as `ros2 launch` prints it).
    pub code: i32,
    /// Whether it ended after the launch asked it to stop.
    pub stopped_by_launch: bool,
}

/// What a launch run came to.
#[derive(Debug, Clone)]
pub struct Outcome {
    /// Every process's end, in the order they ended.
    pub exits: Vec<Exit>,
    /// Whether the launch was interrupted (signal) rather than ending on its own.
    pub interrupted: bool,
}

impl Outcome {
    /// Processes that failed on their own (non-zero exit before the launch stopped them).
    pub fn failures(&self) -> impl Iterator<Item = &Exit> {
        self.exits
            .iter()
            .filter(|e| !e.stopped_by_launch && e.code != 0)
    }
}

/// A running launch.
pub struct Launch {
    children: Vec<Running>,
    exits: Vec<Exit>,
    stop_requested: Arc<AtomicBool>,
    policy: StopPolicy,
}

struct Running {
    label: String,
    cmd: String,
    child: Child,
    shutdown_on_exit: bool,
    output: Vec<std::thread::JoinHandle<()>>,
}

impl Launch {
    /// Start every process. A process that cannot start stops the ones already started.
    pub fn start(specs: &[ProcessSpec], policy: StopPolicy) -> std::io::Result<Launch> {
        let mut launch = Launch {
            children: Vec::new(),
            exits: Vec::new(),
            stop_requested: Arc::new(AtomicBool::new(false)),
            policy,
        };
        for spec in specs {
            match spawn(spec) {
                Ok(running) => {
                    log_info(
                        &running.label,
                        &format!("process started with pid [{}]", running.child.id()),
                    );
                    launch.children.push(running);
                }
                Err(err) => {
                    eprintln!(
                        "[ERROR] [launch]: cannot start {} ('{}'): {err}",
                        spec.label,
                        spec.cmd.join(" ")
                    );
                    launch.stop();
                    return Err(err);
                }
            }
        }
        Ok(launch)
    }

    /// A flag that, once set (e.g. by a signal handler), makes [`Launch::wait`] stop everything.
    pub fn stop_flag(&self) -> Arc<AtomicBool> {
        self.stop_requested.clone()
    }

    /// Pids of the running processes, by label.
    pub fn pids(&self) -> Vec<(String, u32)> {
        self.children
            .iter()
            .map(|c| (c.label.clone(), c.child.id()))
            .collect()
    }

    /// Wait until every process has ended, or the stop flag is set (then stop them all), or a
    /// process marked `on_exit: shutdown` ends.
    pub fn wait(mut self) -> Outcome {
        let mut interrupted = false;
        loop {
            if self.stop_requested.load(Ordering::SeqCst) {
                interrupted = true;
                break;
            }
            let shutdown = self.reap(false);
            if shutdown || self.children.is_empty() {
                break;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        self.stop();
        Outcome {
            exits: std::mem::take(&mut self.exits),
            interrupted,
        }
    }

    /// Stop all processes by the [`StopPolicy`]: SIGINT, then SIGTERM, then SIGKILL.
    pub fn stop(&mut self) {
        let policy = self.policy;
        let launch = std::cell::RefCell::new(self);
        policy.stop(
            |signal| {
                for running in &launch.borrow().children {
                    if signal != Signal::SIGINT {
                        log_error(&running.label, &format!("failed to stop, sending {signal}"));
                    }
                    let _ = kill(Pid::from_raw(running.child.id() as i32), signal);
                }
            },
            || {
                let mut launch = launch.borrow_mut();
                launch.reap(true);
                launch.children.is_empty()
            },
        );
    }

    /// Collect ended children; true when one of them asks for the launch to shut down.
    fn reap(&mut self, stopping: bool) -> bool {
        let mut shutdown = false;
        let mut i = 0;
        while i < self.children.len() {
            match self.children[i].child.try_wait() {
                Ok(Some(status)) => {
                    let mut running = self.children.swap_remove(i);
                    for handle in running.output.drain(..) {
                        let _ = handle.join();
                    }
                    let exit = report(&running, status, stopping);
                    shutdown |= running.shutdown_on_exit;
                    self.exits.push(exit);
                }
                Ok(None) => i += 1,
                Err(err) => {
                    log_error(&self.children[i].label, &format!("cannot wait: {err}"));
                    i += 1;
                }
            }
        }
        shutdown
    }
}

fn spawn(spec: &ProcessSpec) -> std::io::Result<Running> {
    let mut command = Command::new(&spec.cmd[0]);
    command
        .args(&spec.cmd[1..])
        .envs(&spec.env)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    crate::child::supervised(&mut command);
    for var in &spec.unset_env {
        command.env_remove(var);
    }
    let mut child = command.spawn()?;
    let output = vec![
        prefix_lines(
            spec.label.clone(),
            child.stdout.take().expect("piped"),
            false,
        ),
        prefix_lines(
            spec.label.clone(),
            child.stderr.take().expect("piped"),
            true,
        ),
    ];
    Ok(Running {
        label: spec.label.clone(),
        cmd: spec.cmd.join(" "),
        child,
        shutdown_on_exit: spec.shutdown_on_exit,
        output,
    })
}

fn prefix_lines(
    label: String,
    stream: impl Read + Send + 'static,
    is_err: bool,
) -> std::thread::JoinHandle<()> {
    std::thread::spawn(move || {
        for line in BufReader::new(stream).lines().map_while(Result::ok) {
            if is_err {
                let _ = writeln!(std::io::stderr(), "[{label}] {line}");
            } else {
                let _ = writeln!(std::io::stdout(), "[{label}] {line}");
            }
        }
    })
}

fn report(running: &Running, status: ExitStatus, stopping: bool) -> Exit {
    let code = status
        .code()
        .unwrap_or_else(|| -status.signal().unwrap_or(0));
    let pid = running.child.id();
    if code == 0 {
        log_info(
            &running.label,
            &format!("process has finished cleanly [pid {pid}]"),
        );
    } else if stopping && code == -(Signal::SIGINT as i32) {
        log_info(
            &running.label,
            &format!("process has finished after SIGINT [pid {pid}]"),
        );
    } else {
        log_error(
            &running.label,
            &format!(
                "process has died [pid {pid}, exit code {code}, cmd '{}']",
                running.cmd
            ),
        );
    }
    Exit {
        label: running.label.clone(),
        pid,
        code,
        stopped_by_launch: stopping,
    }
}

fn log_info(label: &str, msg: &str) {
    eprintln!("[INFO] [{label}]: {msg}");
}

fn log_error(label: &str, msg: &str) {
    eprintln!("[ERROR] [{label}]: {msg}");
}
