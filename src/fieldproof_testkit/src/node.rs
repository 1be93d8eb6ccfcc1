//! A node binary started the way every DDS test starts one: contained, with `--ros-args`, its
//! `-p` parameters and ROS domain, none of the user's discovery or RMW settings, stdout
//! silenced and stderr collected (and echoed, so a failing test shows the node's log).

use std::ffi::{OsStr, OsString};
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::{ChildGuard, Lines};

/// Environment variables removed from every node: they would change discovery or the RMW
/// the node believes it talks to.
const REMOVED_ENV: [&str; 2] = ["ROS_AUTOMATIC_DISCOVERY_RANGE", "RMW_IMPLEMENTATION"];

/// How long [`NodeProc::stop`] waits for the exit: a bound on a clean shutdown, never a verdict.
const STOP_PATIENCE: Duration = Duration::from_secs(20);

/// A node binary running as a child of the test, killed when this is dropped.
#[derive(Debug)]
pub struct NodeProc {
    /// The running binary.
    pub child: ChildGuard,
    /// Its stderr lines so far (the node's log).
    pub stderr: Lines,
}

/// How to start a node binary: made by [`NodeProc::command`], run by [`NodeCommand::start`].
#[derive(Debug, Clone)]
pub struct NodeCommand {
    exe: OsString,
    domain: Option<u16>,
    ros_args: Vec<String>,
    params: Vec<String>,
    env: Vec<(OsString, OsString)>,
    env_remove: Vec<OsString>,
    echo_prefix: Option<String>,
}

impl NodeProc {
    /// Starts describing how to run the node binary `exe` (e.g. `env!("CARGO_BIN_EXE_planner")`).
    ///
    /// ```no_run
    /// # use fieldproof_testkit::NodeProc;
    /// let mut node = NodeProc::command("path/to/planner")
    ///     .domain(71)
    ///     .ros_args(&["-r", "__ns:=/quad1"])
    ///     .params(&["use_sim_time:=true", "rate_hz:=20.0"])
    ///     .start();
    /// node.stop();
    /// assert_eq!(node.stderr.count("panicked"), 0);
    /// ```
    pub fn command(exe: impl AsRef<OsStr>) -> NodeCommand {
        NodeCommand {
            exe: exe.as_ref().to_owned(),
            domain: None,
            ros_args: Vec::new(),
            params: Vec::new(),
            env: Vec::new(),
            env_remove: Vec::new(),
            echo_prefix: None,
        }
    }

    /// Waits until a stderr line contains `needle`; panics with the lines so far after `timeout`.
    pub fn wait_for_log(&self, needle: &str, timeout: Duration) {
        let end = Instant::now() + timeout;
        while self.stderr.count(needle) == 0 {
            assert!(
                Instant::now() < end,
                "no log line with {needle:?} within {timeout:?}: {:?}",
                self.stderr.all()
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// SIGINT, then waits (at most 20 s) for the exit, so the node's files and its log
    /// ([`NodeProc::stderr`]) are complete.
    pub fn stop(&mut self) {
        self.child.signal(libc::SIGINT).expect("SIGINT");
        self.wait_exit(STOP_PATIENCE);
    }

    /// Waits for the node to exit on its own, then for the last of its log, at most
    /// `patience` in all (panics after it, with the log so far); the exit status.
    pub fn wait_exit(&mut self, patience: Duration) -> std::process::ExitStatus {
        let end = Instant::now() + patience;
        let status = loop {
            if let Some(status) = self.child.try_wait().expect("try_wait") {
                break status;
            }
            assert!(
                Instant::now() < end,
                "the node did not exit within {patience:?}: {:?}",
                self.stderr.all()
            );
            std::thread::sleep(Duration::from_millis(20));
        };
        let left = end.saturating_duration_since(Instant::now());
        assert!(
            self.stderr.wait_closed(left.max(Duration::from_secs(1))),
            "the node exited ({status}) but its stderr stayed open: {:?}",
            self.stderr.all()
        );
        status
    }
}

impl NodeCommand {
    /// The ROS domain (`ROS_DOMAIN_ID`) the node joins; required.
    pub fn domain(mut self, domain: u16) -> NodeCommand {
        self.domain = Some(domain);
        self
    }

    /// More ROS arguments after `--ros-args`, before the parameters (remappings:
    /// `["-r", "__ns:=/quad1"]`).
    pub fn ros_args<S: AsRef<str>>(mut self, args: &[S]) -> NodeCommand {
        self.ros_args
            .extend(args.iter().map(|a| a.as_ref().to_owned()));
        self
    }

    /// Parameters, each passed as `-p <name:=value>`.
    pub fn params<S: AsRef<str>>(mut self, params: &[S]) -> NodeCommand {
        self.params
            .extend(params.iter().map(|p| p.as_ref().to_owned()));
        self
    }

    /// Sets the environment variable `key` to `value` for the node.
    pub fn env(mut self, key: impl AsRef<OsStr>, value: impl AsRef<OsStr>) -> NodeCommand {
        self.env
            .push((key.as_ref().to_owned(), value.as_ref().to_owned()));
        self
    }

    /// Removes the environment variable `key` for the node (besides
    /// `ROS_AUTOMATIC_DISCOVERY_RANGE` and `RMW_IMPLEMENTATION`, always removed).
    pub fn env_remove(mut self, key: impl AsRef<OsStr>) -> NodeCommand {
        self.env_remove.push(key.as_ref().to_owned());
        self
    }

    /// What precedes each stderr line echoed to the test's stderr; the binary's file name and
    /// `": "` unless set.
    pub fn echo_prefix(mut self, prefix: impl Into<String>) -> NodeCommand {
        self.echo_prefix = Some(prefix.into());
        self
    }

    /// The arguments the binary gets: `--ros-args`, the ROS arguments, then `-p` and each
    /// parameter.
    fn args(&self) -> Vec<String> {
        let mut args = vec!["--ros-args".to_owned()];
        args.extend(self.ros_args.iter().cloned());
        for param in &self.params {
            args.push("-p".to_owned());
            args.push(param.clone());
        }
        args
    }

    /// Spawns the node. Panics when the test is not in a private network namespace (start it
    /// with [`contain_or_return!`](crate::contain_or_return)), when no domain was set, or
    /// when the binary cannot be started (naming it).
    pub fn start(self) -> NodeProc {
        assert!(
            crate::is_contained(),
            "DDS outside a private network namespace"
        );
        let exe = Path::new(&self.exe);
        let domain = self.domain.unwrap_or_else(|| {
            panic!(
                "{}: no ROS domain; call .domain(..) before .start()",
                exe.display()
            )
        });
        let mut command = Command::new(exe);
        command
            .args(self.args())
            .env("ROS_DOMAIN_ID", domain.to_string());
        for key in REMOVED_ENV
            .iter()
            .map(OsStr::new)
            .chain(self.env_remove.iter().map(|k| k.as_os_str()))
        {
            command.env_remove(key);
        }
        // SIGINT and SIGTERM at their default action in the child, whatever the test
        // inherited: a suite started in the background of a script ignores SIGINT, and a
        // process that starts with a signal ignored (a shell script) cannot catch it, so
        // `stop()` would not reach it.
        // SAFETY: `signal` is async-signal-safe; nothing else runs between fork and exec.
        unsafe {
            command.pre_exec(|| {
                libc::signal(libc::SIGINT, libc::SIG_DFL);
                libc::signal(libc::SIGTERM, libc::SIG_DFL);
                Ok(())
            });
        }
        let mut child = command
            .envs(self.env.iter().map(|(k, v)| (k, v)))
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap_or_else(|e| panic!("{}: {e}", exe.display()));
        let prefix = self.echo_prefix.clone().unwrap_or_else(|| {
            let name = exe.file_name().unwrap_or(exe.as_os_str());
            format!("{}: ", name.to_string_lossy())
        });
        let stderr =
            Lines::collect_prefixed(child.stderr.take().expect("piped stderr"), Some(prefix));
        NodeProc {
            child: ChildGuard::new(child),
            stderr,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A stand-in node: prints its arguments and environment to stderr, then waits for SIGINT.
    fn fake_node(dir: &Path) -> std::path::PathBuf {
        let path = dir.join("fake_node");
        crate::write_executable(
            &path,
            "#!/bin/sh\n\
             echo \"args: $*\" >&2\n\
             echo \"domain: $ROS_DOMAIN_ID\" >&2\n\
             echo \"range: ${ROS_AUTOMATIC_DISCOVERY_RANGE-unset}\" >&2\n\
             echo \"rmw: ${RMW_IMPLEMENTATION-unset}\" >&2\n\
             echo \"extra: ${FAKE_NODE_EXTRA-unset}\" >&2\n\
             echo \"gone: ${FIELDPROOF_IN_NETNS-unset}\" >&2\n\
             trap 'echo interrupted >&2; exit 0' INT\n\
             echo ready >&2\n\
             while :; do sleep 0.05; done\n",
        );
        path
    }

    #[test]
    fn the_arguments_are_ros_args_then_params() {
        let command = NodeProc::command("x")
            .ros_args(&["-r", "__ns:=/quad1"])
            .params(&["a:=1".to_string()])
            .params(&["b:=[1.0, 2.0]"]);
        assert_eq!(
            command.args(),
            [
                "--ros-args",
                "-r",
                "__ns:=/quad1",
                "-p",
                "a:=1",
                "-p",
                "b:=[1.0, 2.0]"
            ]
        );
        assert_eq!(NodeProc::command("x").args(), ["--ros-args"]);
    }

    #[test]
    fn a_node_gets_its_domain_arguments_and_environment_and_stops_on_sigint() {
        if !crate::contain() {
            return;
        }
        // CONTAINED_ENV is set in a contained run; the node must not see it once removed.
        let dir = tempfile::tempdir().unwrap();
        let mut node = NodeProc::command(fake_node(dir.path()))
            .domain(42)
            .ros_args(&["-r", "__ns:=/r1"])
            .params(&["rate_hz:=20.0"])
            .env("FAKE_NODE_EXTRA", "yes")
            .env_remove(crate::CONTAINED_ENV)
            .start();
        node.wait_for_log("ready", Duration::from_secs(10));
        assert_eq!(
            node.stderr.all()[..6],
            [
                "args: --ros-args -r __ns:=/r1 -p rate_hz:=20.0",
                "domain: 42",
                "range: unset",
                "rmw: unset",
                "extra: yes",
                "gone: unset",
            ]
        );
        node.stop();
        assert!(node.child.try_wait().unwrap().unwrap().success());
        node.wait_for_log("interrupted", Duration::from_secs(10));
    }
}
