//! A child process that cannot outlive its test, and the lines it writes.

use std::io::{BufRead, BufReader, Read};
use std::ops::{Deref, DerefMut};
use std::os::unix::process::CommandExt;
use std::process::{Child, Command};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

/// The lines a child writes to one of its pipes, collected by a thread as they come.
#[derive(Debug, Clone, Default)]
pub struct Lines(Arc<(Mutex<Collected>, Condvar)>);

/// What the collecting thread has read so far, and whether the pipe has closed.
#[derive(Debug, Default)]
struct Collected {
    lines: Vec<String>,
    closed: bool,
}

impl Lines {
    /// Collects the lines of `pipe` (a child's stdout or stderr) until it closes.
    pub fn collect(pipe: impl Read + Send + 'static) -> Lines {
        Lines::collect_echoing(pipe, None)
    }

    /// [`Lines::collect`], also echoing each line to stderr after `prefix` when given.
    pub fn collect_echoing(
        pipe: impl Read + Send + 'static,
        prefix: Option<&'static str>,
    ) -> Lines {
        Lines::collect_prefixed(pipe, prefix.map(str::to_owned))
    }

    /// [`Lines::collect_echoing`] with a prefix made at run time (a binary's name).
    pub(crate) fn collect_prefixed(
        pipe: impl Read + Send + 'static,
        prefix: Option<String>,
    ) -> Lines {
        let lines = Lines::default();
        let sink = lines.0.clone();
        std::thread::spawn(move || {
            for line in BufReader::new(pipe).lines() {
                let Ok(line) = line else { break };
                if let Some(prefix) = &prefix {
                    eprintln!("{prefix}{line}");
                }
                sink.0.lock().unwrap().lines.push(line);
                sink.1.notify_all();
            }
            sink.0.lock().unwrap().closed = true;
            sink.1.notify_all();
        });
        lines
    }

    /// Every line so far.
    pub fn all(&self) -> Vec<String> {
        self.0 .0.lock().unwrap().lines.clone()
    }

    /// Waits until the pipe has closed (the child exited and every line it wrote is here), at
    /// most `timeout`; whether it closed. A child's exit does not mean its last lines have
    /// been read yet: read them after this.
    pub fn wait_closed(&self, timeout: Duration) -> bool {
        let end = Instant::now() + timeout;
        let (collected, changed) = &*self.0;
        let mut guard = collected.lock().unwrap();
        while !guard.closed {
            let left = end.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return false;
            }
            guard = changed.wait_timeout(guard, left).unwrap().0;
        }
        true
    }

    /// How many lines so far contain `needle`.
    pub fn count(&self, needle: &str) -> usize {
        self.0
             .0
            .lock()
            .unwrap()
            .lines
            .iter()
            .filter(|l| l.contains(needle))
            .count()
    }
}

/// Owns a child; on drop, when it still runs, kills it with SIGKILL (its whole process group
/// when started by [`ChildGuard::spawn_group`]) and reaps it. Derefs to the [`Child`].
#[derive(Debug)]
pub struct ChildGuard {
    child: Child,
    own_group: bool,
}

impl ChildGuard {
    /// Spawns `cmd` as the leader of a new process group, so the drop also kills whatever it
    /// started (a launcher's nodes, a shell's commands).
    pub fn spawn_group(cmd: &mut Command) -> std::io::Result<ChildGuard> {
        let child = cmd.process_group(0).spawn()?;
        Ok(ChildGuard {
            child,
            own_group: true,
        })
    }

    /// Guards an already spawned child (the drop kills the child only).
    pub fn new(child: Child) -> ChildGuard {
        ChildGuard {
            child,
            own_group: false,
        }
    }

    /// Sends `signal` (e.g. `libc::SIGINT`) to the child, or to its group when it leads one.
    pub fn signal(&self, signal: i32) -> std::io::Result<()> {
        let pid = self.child.id() as libc::pid_t;
        // SAFETY: kill(2)/killpg(2) on a process (group) this guard started and has not reaped.
        let rc = unsafe {
            if self.own_group {
                libc::killpg(pid, signal)
            } else {
                libc::kill(pid, signal)
            }
        };
        if rc == 0 {
            Ok(())
        } else {
            Err(std::io::Error::last_os_error())
        }
    }
}

impl Deref for ChildGuard {
    type Target = Child;
    fn deref(&self) -> &Child {
        &self.child
    }
}

impl DerefMut for ChildGuard {
    fn deref_mut(&mut self) -> &mut Child {
        &mut self.child
    }
}

impl Drop for ChildGuard {
    fn drop(&mut self) {
        if self.own_group {
            // The leader may have exited while its group lives on: kill the group regardless.
            let _ = self.signal(libc::SIGKILL);
        } else if let Ok(None) = self.child.try_wait() {
            let _ = self.child.kill();
        }
        let _ = self.child.wait();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::{Duration, Instant};

    fn alive(pid: i32) -> bool {
        // A zombie still answers kill(0): look at its state instead.
        match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
            Ok(stat) => !stat.contains(") Z "),
            Err(_) => false,
        }
    }

    #[test]
    fn drop_kills_the_whole_group() {
        let dir = tempfile::tempdir().unwrap();
        let pid_file = dir.path().join("grandchild.pid");
        let guard = ChildGuard::spawn_group(Command::new("sh").args([
            "-c",
            "sleep 300 & echo $! > \"$1\"; wait",
            "sh",
            pid_file.to_str().unwrap(),
        ]))
        .unwrap();
        let end = Instant::now() + Duration::from_secs(10);
        let grandchild: i32 = loop {
            if let Some(pid) = std::fs::read_to_string(&pid_file)
                .ok()
                .and_then(|s| s.trim().parse().ok())
            {
                break pid;
            }
            assert!(Instant::now() < end, "the shell never started its sleep");
            std::thread::sleep(Duration::from_millis(10));
        };
        let leader = guard.id() as i32;
        assert!(alive(grandchild));
        drop(guard);
        let end = Instant::now() + Duration::from_secs(5);
        while alive(grandchild) {
            assert!(
                Instant::now() < end,
                "grandchild {grandchild} survived the drop"
            );
            std::thread::sleep(Duration::from_millis(10));
        }
        assert!(!alive(leader), "leader {leader} survived the drop");
    }

    #[test]
    fn lines_are_collected_as_written() {
        let mut child = Command::new("sh")
            .args(["-c", "echo one; echo two; echo one more"])
            .stdout(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let lines = Lines::collect(child.stdout.take().unwrap());
        assert!(child.wait().unwrap().success());
        let end = Instant::now() + Duration::from_secs(5);
        while lines.all().len() < 3 {
            assert!(Instant::now() < end, "lines so far: {:?}", lines.all());
            std::thread::sleep(Duration::from_millis(5));
        }
        assert_eq!(lines.all(), ["one", "two", "one more"]);
        assert_eq!(lines.count("one"), 2);
    }

    #[test]
    fn drop_kills_a_plain_child() {
        let guard = ChildGuard::new(Command::new("sleep").arg("300").spawn().unwrap());
        let pid = guard.id() as i32;
        drop(guard);
        assert!(!alive(pid), "child {pid} survived the drop");
    }
}
