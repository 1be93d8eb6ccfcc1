//! A scenario file run end to end by the suite's runner (`fieldproof-scenario run`), as the
//! packages' `tests/*_scenarios.rs` do: one run at a time in the process, the runner's own
//! verdicts read back from its `run.json`.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Mutex;
use std::time::Instant;

use serde_json::Value as Json;

use crate::{is_contained, repo_root, FakeAmentPrefix};

/// One run at a time, whatever the test harness's thread count: each is a whole simulated
/// world with its stacks.
static ONE_RUN_AT_A_TIME: Mutex<()> = Mutex::new(());

/// The runner's exit code for a run that failed on a host that starved it
/// (`fieldproof_scenario::run::INCONCLUSIVE`: its verdict is `inconclusive`, not `failed`).
pub const INCONCLUSIVE: i32 = 3;

/// The real-time factor a run the host starved is run again at, given the one it ran at:
/// half of it. A scenario's assertions are in simulation time, so a slower simulation asks
/// the same of the vehicle and less of the host.
pub fn slower_real_time_factor(ran_at: f64) -> f64 {
    ran_at / 2.0
}

/// A binary of the suite built beside the calling test (`target/<profile>/<name>`; the test
/// binary is `target/<profile>/deps/<test>-<hash>`); panics naming it when it is not built.
pub fn suite_binary(name: &str) -> PathBuf {
    let exe = std::env::current_exe().expect("the test binary's path");
    let path = exe
        .parent()
        .and_then(Path::parent)
        .expect("target/<profile>/deps")
        .join(name);
    assert!(
        path.is_file(),
        "{} missing: cargo build --workspace",
        path.display()
    );
    path
}

/// `config/scenarios/<name>` in the repository.
pub fn shipped_scenario(name: &str) -> PathBuf {
    repo_root().join("config/scenarios").join(name)
}

/// What a run came to: the runner's exit code, its record (`run.json`), its output directory
/// (kept for a look after a failure) and its wall time.
pub struct ScenarioRun {
    /// The runner's exit code (`None`: killed by a signal).
    pub code: Option<i32>,
    /// The run's `run.json`.
    pub record: Json,
    /// The run's output directory (evidence, recording, report).
    pub dir: PathBuf,
    /// Wall-clock seconds the runner took.
    pub wall_s: f64,
}

impl ScenarioRun {
    /// Runs `scenario` (a file) with the executables of `prefix` (what `fieldproof launch`
    /// resolves a stack's `pkg:` through), inside the calling test's private namespace. A run
    /// the host starved (exit [`INCONCLUSIVE`]) is run once more, slower
    /// ([`slower_real_time_factor`]), and that run is the one returned.
    pub fn of_file(scenario: &Path, prefix: &FakeAmentPrefix) -> ScenarioRun {
        assert!(
            is_contained(),
            "begin the test with fieldproof_testkit::contain_or_return!()"
        );
        let _one = ONE_RUN_AT_A_TIME.lock().unwrap_or_else(|p| p.into_inner());
        let first = Self::once(scenario, prefix, None);
        if first.code != Some(INCONCLUSIVE) {
            return first;
        }
        let slower =
            slower_real_time_factor(first.record["real_time_factor"].as_f64().unwrap_or(1.0));
        eprintln!(
            "{}: INCONCLUSIVE: {}; running it again at real-time factor {slower}",
            scenario.display(),
            first.record["result"]["reasons"][0]
                .as_str()
                .unwrap_or("the host starved it")
        );
        Self::once(scenario, prefix, Some(slower))
    }

    fn once(
        scenario: &Path,
        prefix: &FakeAmentPrefix,
        real_time_factor: Option<f64>,
    ) -> ScenarioRun {
        let dir = crate::passable_tempdir().keep().join("run");
        let started = Instant::now();
        let mut command = Command::new(suite_binary("fieldproof-scenario"));
        command.arg("run").arg(scenario).arg("--out").arg(&dir);
        if let Some(factor) = real_time_factor {
            command.arg("--real-time-factor").arg(factor.to_string());
        }
        let status = command
            .env("AMENT_PREFIX_PATH", prefix.path())
            .stdin(Stdio::null())
            .status()
            .expect("the runner starts");
        let wall_s = started.elapsed().as_secs_f64();
        let record_path = dir.join("run.json");
        let text = std::fs::read_to_string(&record_path)
            .unwrap_or_else(|e| panic!("{}: {e}", record_path.display()));
        let record: Json = serde_json::from_str(&text)
            .unwrap_or_else(|e| panic!("{}: {e}", record_path.display()));
        eprintln!(
            "{}: exit {:?} after {wall_s:.1} s wall, evidence in {}",
            scenario.display(),
            status.code(),
            dir.display()
        );
        ScenarioRun {
            code: status.code(),
            record,
            dir,
            wall_s,
        }
    }

    /// The names of the assertions that passed (`true`) or failed (`false`), in the
    /// scenario's order.
    pub fn assertions_with(&self, passed: bool) -> Vec<String> {
        self.assertions()
            .filter(|a| a["passed"] == passed)
            .map(|a| a["name"].as_str().expect("an assertion's name").to_string())
            .collect()
    }

    /// One assertion's record (`name`, `passed`, `observed`, ...); panics naming it when absent.
    pub fn assertion(&self, name: &str) -> &Json {
        self.assertions()
            .find(|a| a["name"] == name)
            .unwrap_or_else(|| panic!("no assertion {name} in run.json"))
    }

    /// One assertion's observation.
    pub fn observed(&self, name: &str) -> &Json {
        &self.assertion(name)["observed"]
    }

    /// Asserts the run passed (exit 0) with exactly the assertions `passed`, in the
    /// scenario's order, and none failed; the record is printed on failure.
    pub fn assert_passed(&self, passed: &[&str]) {
        assert_eq!(self.code, Some(0), "{:#}", self.record);
        assert_eq!(self.assertions_with(true), passed, "{:#}", self.record);
        assert!(self.assertions_with(false).is_empty(), "{:#}", self.record);
    }

    fn assertions(&self) -> impl Iterator<Item = &Json> {
        self.record["assertions"]
            .as_array()
            .expect("run.json: assertions")
            .iter()
    }
}
