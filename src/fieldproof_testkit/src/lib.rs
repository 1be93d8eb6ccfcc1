//! What fieldproof's tests share instead of copying it: keeping every DDS participant a test
//! opens inside a private network namespace ([`contain`]), the repository root
//! ([`repo_root`]), the peers' Python ([`python`]), a fake ament install prefix ([`FakeAmentPrefix`]), a guard that kills
//! a child's process group when the test ends ([`ChildGuard`]) and a node binary started
//! contained with its ROS arguments, parameters and domain ([`NodeProc`]), and a scenario file
//! run end to end by the suite's runner ([`ScenarioRun`]).
//!
//! Dev-only: crates name it under `[dev-dependencies]`, never as a normal dependency.

mod ament;
mod netns;
mod node;
mod process;
mod scenario;

pub use ament::FakeAmentPrefix;
pub use netns::{contain, contain_as, in_private_netns_or_rerun, is_contained, CONTAINED_ENV};
pub use node::{NodeCommand, NodeProc};
pub use process::{ChildGuard, Lines};
pub use scenario::{
    shipped_scenario, slower_real_time_factor, suite_binary, ScenarioRun, INCONCLUSIVE,
};

use std::path::PathBuf;

/// The repository root (the workspace directory holding `scripts/` and `src/`), absolute.
pub fn repo_root() -> PathBuf {
    let here = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    std::path::absolute(here.join("../..")).expect("absolute repository root")
}

/// Writes an executable file (mode 0755) holding `content` at `path` through a child `sh`, so
/// that this process never holds a write handle to it. A handle held here is inherited by any
/// child another test thread forks meanwhile, and exec'ing the file while that child lives
/// fails with ETXTBSY ("Text file busy": a fresh-clone run of the suite failed so).
pub fn write_executable(path: &std::path::Path, content: &str) {
    use std::io::Write;
    let mut writer = std::process::Command::new("sh")
        .args(["-c", "cat > \"$1\" && chmod 755 \"$1\"", "sh"])
        .arg(path)
        .stdin(std::process::Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("sh writing {}: {e}", path.display()));
    {
        let mut stdin = writer.stdin.take().expect("piped stdin");
        stdin
            .write_all(content.as_bytes())
            .unwrap_or_else(|e| panic!("writing {}: {e}", path.display()));
    }
    let status = writer.wait().expect("sh ends");
    assert!(
        status.success(),
        "writing {}: sh exited {status}",
        path.display()
    );
}

/// A fresh temporary directory that other accounts may pass through (0755), removed on drop
/// (`.keep()` keeps it): a run directory or an install prefix below it stays reachable by the
/// stack's unprivileged account (`fieldproof run --user`), which a default temporary
/// directory (0700) keeps out.
pub fn passable_tempdir() -> tempfile::TempDir {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().expect("a temporary directory");
    std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755))
        .expect("a temporary directory others may pass through");
    dir
}

/// The Python the peer tests use (with cyclonedds, mcap, rosbags): `FIELDPROOF_PYTHON`, else
/// the workspace's `.venv/bin/python` (made by `scripts/setup`); panics naming it when absent.
pub fn python() -> PathBuf {
    let python = std::env::var_os("FIELDPROOF_PYTHON")
        .map(PathBuf::from)
        .unwrap_or_else(|| repo_root().join(".venv/bin/python"));
    assert!(
        python.exists(),
        "{}: no Python with the peers' packages; run scripts/setup (or set FIELDPROOF_PYTHON)",
        python.display()
    );
    python
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn repo_root_holds_the_workspace() {
        let root = repo_root();
        assert!(root.is_absolute(), "{}", root.display());
        assert!(
            root.join("scripts/netns-run").exists(),
            "{}",
            root.display()
        );
        assert!(root.join("src/fieldproof_testkit").is_dir());
    }
}
