//! The stack's user. Every process a run starts (each vehicle's adapters, failsafe and stack,
//! launch-file stacks and their children, the ground station, the simulator) runs as an
//! unprivileged account with no capability, as a robot's software runs on the robot: it
//! cannot reshape or take down the link it is being tested behind. Only the runner keeps root:
//! it owns the namespaces and shapes the links.
//!
//! The drop happens in the child, after `ip netns exec` (which needs root to enter the
//! namespace): `setpriv` (util-linux) sets the user's uid, gid and groups, empties the
//! inheritable and bounding capability sets (the permitted and effective sets empty
//! themselves when a root process becomes another user), forbids new privileges, and restores
//! the parent-death signal the credential change clears, so a killed runner still takes its
//! processes along.

use std::path::{Path, PathBuf};
use std::process::Command;

/// The account the stack runs as unless `--user` says otherwise (`scripts/setup` creates it).
pub const DEFAULT_USER: &str = "fieldproof";

/// An unprivileged account the stack runs as.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StackUser {
    /// The account's name.
    pub name: String,
    /// Its uid (never 0).
    pub uid: u32,
    /// Its primary gid.
    pub gid: u32,
}

impl StackUser {
    /// The account named `name` (`--user`), or `None` for `root`: the stack then keeps the
    /// runner's privileges, as the user asked. An unknown name is refused with the way to
    /// create it.
    pub fn resolve(name: &str) -> Result<Option<StackUser>, String> {
        let user = nix::unistd::User::from_name(name)
            .map_err(|e| format!("--user {name}: cannot read the user database: {e}"))?
            .ok_or_else(|| {
                format!(
                    "--user {name}: no such account (scripts/setup creates '{DEFAULT_USER}'; \
                     or `useradd --system --user-group --no-create-home {name}`; \
                     --user root runs the stack with the runner's privileges)"
                )
            })?;
        if user.uid.is_root() {
            return Ok(None);
        }
        Ok(Some(StackUser {
            name: name.to_string(),
            uid: user.uid.as_raw(),
            gid: user.gid.as_raw(),
        }))
    }

    /// The words put before a command (after `ip netns exec`) so it runs as this user with
    /// no capability.
    pub fn drop_prefix(&self) -> Vec<String> {
        vec![
            "setpriv".into(),
            format!("--reuid={}", self.uid),
            format!("--regid={}", self.gid),
            "--init-groups".into(),
            "--inh-caps=-all".into(),
            "--bounding-set=-all".into(),
            "--no-new-privs".into(),
            "--pdeathsig=keep".into(),
            "--".into(),
        ]
    }

    /// The environment a process gets as this user: its name, and a home and ROS log
    /// directory it can write (`home`, the vehicle's evidence directory or the run's).
    pub fn environment(&self, home: &Path) -> Vec<(String, String)> {
        let home = home.display().to_string();
        vec![
            ("USER".into(), self.name.clone()),
            ("LOGNAME".into(), self.name.clone()),
            ("HOME".into(), home.clone()),
            ("ROS_HOME".into(), format!("{home}/.ros")),
            ("ROS_LOG_DIR".into(), format!("{home}/ros_log")),
        ]
    }

    /// Gives `path` (a directory or file the processes write: an evidence directory, the
    /// ground station's measurements) to this user.
    pub fn hand_over(&self, path: &Path) -> Result<(), String> {
        nix::unistd::chown(
            path,
            Some(nix::unistd::Uid::from_raw(self.uid)),
            Some(nix::unistd::Gid::from_raw(self.gid)),
        )
        .map_err(|e| format!("giving {} to user {}: {e}", path.display(), self.name))
    }

    /// Of `paths` (executables and files the processes read), those this user cannot reach,
    /// asked of the kernel as the user (a directory on the way closed to it, such as a
    /// checkout under /root, which is 0700). Executables must be executable, other files
    /// readable.
    pub fn unreachable(&self, paths: &[(PathBuf, Access)]) -> Result<Vec<PathBuf>, String> {
        if paths.is_empty() {
            return Ok(Vec::new());
        }
        // One child as the user tests every path; prints the ones it cannot reach.
        let script = "for p; do case $p in x:*) test -x \"${p#x:}\" || echo \"${p#x:}\";; \
                      *) test -r \"${p#r:}\" || echo \"${p#r:}\";; esac; done";
        let mut cmd = Command::new("setpriv");
        cmd.args(&self.drop_prefix()[1..])
            .args(["sh", "-c", script, "sh"]);
        for (path, access) in paths {
            let tag = match access {
                Access::Execute => "x",
                Access::Read => "r",
            };
            cmd.arg(format!("{tag}:{}", path.display()));
        }
        let out = cmd
            .output()
            .map_err(|e| format!("setpriv (util-linux) did not start: {e}"))?;
        if !out.status.success() {
            return Err(format!(
                "checking what user {} can reach: setpriv failed ({}): {}",
                self.name,
                out.status,
                String::from_utf8_lossy(&out.stderr).trim()
            ));
        }
        Ok(String::from_utf8_lossy(&out.stdout)
            .lines()
            .filter(|l| !l.is_empty())
            .map(PathBuf::from)
            .collect())
    }
}

/// What a process does with a path.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Access {
    /// Runs it.
    Execute,
    /// Reads it.
    Read,
}

/// The first directory on the way to `path` that others may not pass (no `x` for others):
/// what keeps an unprivileged account out, named in the refusal.
pub fn closed_ancestor(path: &Path) -> Option<PathBuf> {
    use std::os::unix::fs::PermissionsExt;
    path.ancestors()
        .skip(1)
        .collect::<Vec<_>>()
        .into_iter()
        .rev()
        .find(|dir| {
            std::fs::metadata(dir).is_ok_and(|m| m.is_dir() && m.permissions().mode() & 0o001 == 0)
        })
        .map(Path::to_path_buf)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn nobody() -> StackUser {
        StackUser::resolve("nobody")
            .unwrap()
            .expect("nobody is not root")
    }

    #[test]
    fn root_keeps_the_privileges_and_an_unknown_account_is_refused_with_the_remedy() {
        assert_eq!(StackUser::resolve("root").unwrap(), None);
        let e = StackUser::resolve("fieldproof-no-such-user").unwrap_err();
        assert!(
            e.starts_with("--user fieldproof-no-such-user: no such account (scripts/setup"),
            "{e}"
        );
        let n = nobody();
        assert_ne!(n.uid, 0);
    }

    #[test]
    fn the_prefix_drops_to_the_user_with_no_capability() {
        if !nix::unistd::geteuid().is_root() {
            eprintln!("skipped: needs root to change user");
            return;
        }
        let n = nobody();
        let out = Command::new(&n.drop_prefix()[0])
            .args(&n.drop_prefix()[1..])
            .args(["cat", "/proc/self/status"])
            .output()
            .unwrap();
        assert!(out.status.success(), "{out:?}");
        let status = String::from_utf8(out.stdout).unwrap();
        let field = |name: &str| {
            status
                .lines()
                .find_map(|l| l.strip_prefix(name))
                .unwrap()
                .split_whitespace()
                .collect::<Vec<_>>()
        };
        assert!(field("Uid:").iter().all(|u| *u == n.uid.to_string()));
        assert!(field("Gid:").iter().all(|g| *g == n.gid.to_string()));
        for caps in ["CapInh:", "CapPrm:", "CapEff:", "CapBnd:", "CapAmb:"] {
            assert_eq!(field(caps), ["0000000000000000"], "{caps}");
        }
        assert_eq!(field("NoNewPrivs:"), ["1"]);
    }

    #[test]
    fn what_the_user_cannot_reach_is_listed() {
        if !nix::unistd::geteuid().is_root() {
            eprintln!("skipped: needs root to change user");
            return;
        }
        let n = nobody();
        let dir = tempfile::tempdir().unwrap();
        let closed = dir.path().join("closed");
        std::fs::create_dir(&closed).unwrap();
        let secret = closed.join("node");
        std::fs::write(&secret, "#!/bin/sh\n").unwrap();
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&secret, std::fs::Permissions::from_mode(0o755)).unwrap();
        std::fs::set_permissions(&closed, std::fs::Permissions::from_mode(0o700)).unwrap();
        std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
        let open = dir.path().join("params.yaml");
        std::fs::write(&open, "{}\n").unwrap();
        let got = n
            .unreachable(&[
                (PathBuf::from("/bin/sh"), Access::Execute),
                (secret.clone(), Access::Execute),
                (open.clone(), Access::Read),
            ])
            .unwrap();
        assert_eq!(got, std::slice::from_ref(&secret));
        assert_eq!(closed_ancestor(&secret), Some(closed.clone()));
        // Handed over, the directory is the user's.
        n.hand_over(&closed).unwrap();
        assert!(n
            .unreachable(&[(secret, Access::Execute)])
            .unwrap()
            .is_empty());
    }
}
