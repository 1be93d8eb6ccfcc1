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
pub use scenario::{shipped_scenario, suite_binary, ScenarioRun};

use std::path::PathBuf;

/// The repository root (the workspace directory holding `scripts/` and `src/`), absolute.
pub fn repo_root() -> PathBuf {
    let here = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    std::path::absolute(here.join("../..")).expect("absolute repository root")
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
