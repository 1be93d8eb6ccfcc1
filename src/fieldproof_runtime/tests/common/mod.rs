//! Helpers for the process-level tests: start example nodes, read their logs, and act as
//! a DDS peer (a fieldproof node in the test process) in a private ROS domain.
#![allow(dead_code)]

use std::future::Future;
use std::path::PathBuf;
use std::process::{Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

use fieldproof_testkit::{ChildGuard, Lines};
use futures::FutureExt;

/// Every DDS participant must live in a private network namespace: each test starts with
/// `fieldproof_testkit::contain_or_return!()`.
pub fn require_netns() {
    assert!(
        fieldproof_testkit::is_contained(),
        "these tests open DDS participants: begin the test with fieldproof_testkit::contain_or_return!()"
    );
}

/// Path of an example binary built next to this test (`target/<profile>/examples/<name>`).
pub fn example(name: &str) -> PathBuf {
    let exe = std::env::current_exe().expect("test executable path");
    let profile_dir = exe
        .parent()
        .and_then(|deps| deps.parent())
        .expect("target/<profile>/deps");
    let p = profile_dir.join("examples").join(name);
    assert!(
        p.exists(),
        "{} not built (cargo test builds examples)",
        p.display()
    );
    p
}

/// A node process with its stderr collected line by line.
pub struct Proc {
    child: ChildGuard,
    lines: Lines,
}

impl Proc {
    /// Starts `example` with `args` in ROS domain `domain`.
    pub fn start(example_name: &str, domain: u16, args: &[&str]) -> Proc {
        Proc::start_env(example_name, domain, args, &[])
    }

    /// [`Proc::start`] with extra environment variables.
    pub fn start_env(example_name: &str, domain: u16, args: &[&str], env: &[(&str, &str)]) -> Proc {
        require_netns();
        let mut child = Command::new(example(example_name))
            .args(args)
            .env("ROS_DOMAIN_ID", domain.to_string())
            .env_remove("ROS_AUTOMATIC_DISCOVERY_RANGE")
            .env_remove("RMW_IMPLEMENTATION")
            .envs(env.iter().copied())
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn example");
        let lines = Lines::collect_echoing(child.stderr.take().unwrap(), Some("  [child] "));
        Proc {
            child: ChildGuard::new(child),
            lines,
        }
    }

    /// All stderr lines so far.
    pub fn lines(&self) -> Vec<String> {
        self.lines.all()
    }

    /// Lines containing `needle`.
    pub fn count(&self, needle: &str) -> usize {
        self.lines.count(needle)
    }

    /// Waits (async, polling every 20 ms) for a line containing `needle`.
    pub async fn wait_line(&self, needle: &str, timeout: Duration) -> String {
        let end = Instant::now() + timeout;
        loop {
            if let Some(l) = self.lines().into_iter().find(|l| l.contains(needle)) {
                return l;
            }
            assert!(
                Instant::now() < end,
                "no line containing {needle:?} within {timeout:?}; got: {:#?}",
                self.lines()
            );
            async_io::Timer::after(Duration::from_millis(20)).await;
        }
    }

    /// Sends a signal by name (`TERM`, `INT`).
    pub fn signal(&self, sig: &str) {
        let st = Command::new("kill")
            .arg(format!("-{sig}"))
            .arg(self.child.id().to_string())
            .status()
            .expect("kill");
        assert!(st.success());
    }

    /// Waits for exit (blocking), up to `timeout`.
    pub fn wait_exit(&mut self, timeout: Duration) -> ExitStatus {
        let end = Instant::now() + timeout;
        loop {
            if let Some(st) = self.child.try_wait().expect("try_wait") {
                // the reader thread may still be reading the last lines
                self.lines.wait_closed(Duration::from_secs(5));
                return st;
            }
            assert!(
                Instant::now() < end,
                "process still running after {timeout:?}"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Async variant of [`Self::wait_exit`].
    pub async fn wait_exit_async(&mut self, timeout: Duration) -> ExitStatus {
        let end = Instant::now() + timeout;
        loop {
            if let Some(st) = self.child.try_wait().expect("try_wait") {
                // the reader thread may still be reading the last lines
                let end = Instant::now() + Duration::from_secs(5);
                while !self.lines.wait_closed(Duration::ZERO) && Instant::now() < end {
                    async_io::Timer::after(Duration::from_millis(10)).await;
                }
                return st;
            }
            assert!(
                Instant::now() < end,
                "process still running after {timeout:?}"
            );
            async_io::Timer::after(Duration::from_millis(20)).await;
        }
    }
}

/// `fut`, or `None` after `d`.
pub async fn timeout<T>(d: Duration, fut: impl Future<Output = T>) -> Option<T> {
    futures::select! {
        v = fut.fuse() => Some(v),
        _ = FutureExt::fuse(async_io::Timer::after(d)) => None,
    }
}

/// Calls a service, resending every `each` (see `Client::call_retry`), at most `tries` times.
pub async fn call<Req, Resp>(
    client: &fieldproof_runtime::Client<Req, Resp>,
    req: Req,
    each: Duration,
    tries: usize,
) -> Resp
where
    Req: serde::Serialize + serde::de::DeserializeOwned + Clone + Send + 'static,
    Resp: serde::Serialize + serde::de::DeserializeOwned + Send + 'static,
{
    client
        .call_retry(req, each, tries)
        .await
        .unwrap_or_else(|e| panic!("{e}"))
}
