//! A child process that cannot outlive its test.

use std::ops::{Deref, DerefMut};
use std::os::unix::process::CommandExt;
use std::process::{Child, Command};

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
    fn drop_kills_a_plain_child() {
        let guard = ChildGuard::new(Command::new("sleep").arg("300").spawn().unwrap());
        let pid = guard.id() as i32;
        drop(guard);
        assert!(!alive(pid), "child {pid} survived the drop");
    }
}
