//! The one way fieldproof stops the processes it started (`fieldproof launch`, the scenario
//! runner): SIGINT, as Ctrl-C and `ros2 launch` do; SIGTERM for those still running after a
//! while; SIGKILL for those still running after that.

use std::time::{Duration, Instant};

use nix::sys::signal::Signal;

/// How often a stop in progress looks whether the processes have ended.
const POLL: Duration = Duration::from_millis(20);

/// How long a stop waits for the processes to be reaped after SIGKILL.
pub const REAP_AFTER_SIGKILL: Duration = Duration::from_secs(5);

/// The stop policy: SIGINT, wait [`StopPolicy::sigterm_after`], SIGTERM, wait
/// [`StopPolicy::sigkill_after`], SIGKILL, wait [`REAP_AFTER_SIGKILL`]. Each step signals only
/// the processes still running and ends early once none is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StopPolicy {
    /// SIGINT → SIGTERM (`ros2 launch`'s `sigterm_timeout`).
    pub sigterm_after: Duration,
    /// SIGTERM → SIGKILL (`ros2 launch`'s `sigkill_timeout`).
    pub sigkill_after: Duration,
}

impl Default for StopPolicy {
    /// `ros2 launch`'s defaults: 5 s, then 5 s.
    fn default() -> Self {
        Self {
            sigterm_after: Duration::from_secs(5),
            sigkill_after: Duration::from_secs(5),
        }
    }
}

impl StopPolicy {
    /// The signals in order, each with how long to wait for the processes after it.
    pub fn escalation(&self) -> [(Signal, Duration); 3] {
        [
            (Signal::SIGINT, self.sigterm_after),
            (Signal::SIGTERM, self.sigkill_after),
            (Signal::SIGKILL, REAP_AFTER_SIGKILL),
        ]
    }

    /// Stops a group of processes: `signal_running` sends a signal to every process of the
    /// group still running; `all_ended` collects the ones that ended and tells whether none
    /// is left. Returns once none is left, or after the wait that follows SIGKILL.
    pub fn stop(
        &self,
        mut signal_running: impl FnMut(Signal),
        mut all_ended: impl FnMut() -> bool,
    ) {
        for (signal, wait) in self.escalation() {
            if all_ended() {
                return;
            }
            signal_running(signal);
            let deadline = Instant::now() + wait;
            while !all_ended() && Instant::now() < deadline {
                std::thread::sleep(POLL);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::process::Command;

    #[test]
    fn escalates_in_order_with_its_timeouts() {
        let policy = StopPolicy {
            sigterm_after: Duration::from_millis(300),
            sigkill_after: Duration::from_millis(700),
        };
        assert_eq!(
            policy.escalation(),
            [
                (Signal::SIGINT, Duration::from_millis(300)),
                (Signal::SIGTERM, Duration::from_millis(700)),
                (Signal::SIGKILL, REAP_AFTER_SIGKILL),
            ]
        );
    }

    #[test]
    fn a_process_ignoring_sigint_and_sigterm_ends_by_sigkill_after_both_timeouts() {
        use std::os::unix::process::ExitStatusExt;
        let mut child = Command::new("sh")
            .args([
                "-c",
                "trap '' INT TERM; echo ready; while :; do sleep 0.05; done",
            ])
            .stdout(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let mut ready = String::new();
        std::io::BufRead::read_line(
            &mut std::io::BufReader::new(child.stdout.take().unwrap()),
            &mut ready,
        )
        .unwrap();
        let pid = nix::unistd::Pid::from_raw(child.id() as i32);
        let policy = StopPolicy {
            sigterm_after: Duration::from_millis(200),
            sigkill_after: Duration::from_millis(200),
        };
        let mut sent = Vec::new();
        let mut status = None;
        let started = Instant::now();
        policy.stop(
            |signal| {
                sent.push(signal);
                let _ = nix::sys::signal::kill(pid, signal);
            },
            || {
                status = status.or_else(|| child.try_wait().unwrap());
                status.is_some()
            },
        );
        assert_eq!(sent, [Signal::SIGINT, Signal::SIGTERM, Signal::SIGKILL]);
        assert_eq!(status.unwrap().signal(), Some(Signal::SIGKILL as i32));
        assert!(started.elapsed() >= Duration::from_millis(400));
    }

    #[test]
    fn a_process_that_honours_sigint_gets_nothing_else() {
        // Started as every child is (`supervised`: SIGINT at its default action), so the test
        // holds when it runs under `nohup` or from a script with SIGINT ignored.
        let mut child = crate::child::supervised(Command::new("sleep").arg("30"))
            .spawn()
            .unwrap();
        let pid = nix::unistd::Pid::from_raw(child.id() as i32);
        let mut sent = Vec::new();
        let mut ended = false;
        StopPolicy::default().stop(
            |signal| {
                sent.push(signal);
                let _ = nix::sys::signal::kill(pid, signal);
            },
            || {
                ended = ended || child.try_wait().unwrap().is_some();
                ended
            },
        );
        assert_eq!(sent, [Signal::SIGINT]);
        assert!(ended);
    }
}
