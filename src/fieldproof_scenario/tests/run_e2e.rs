//! End-to-end runs: the real simulator, bridge adapters, failsafe, stack and (with a
//! network) link shaper and ground station, started by the runner.
//!
//! They need the suite's binaries beside the test binary (the launch-file stack: the colcon
//! install tree too); each test re-runs itself inside a private network namespace when
//! started outside one (fieldproof_testkit), so the wrapper below is optional:
//! ```text
//! scripts/build
//! scripts/netns-run cargo test -p fieldproof_scenario --test run_e2e -- --ignored --test-threads 1
//! ```

use fieldproof_scenario::{model, run};
use serde_json::Value as Json;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use fieldproof_testkit::repo_root;

/// A scenario of the tests (`tests/scenarios/`), not one of the examples.
fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/scenarios")
        .join(name)
}

fn in_private_netns() {
    assert!(
        fieldproof_testkit::is_contained(),
        "every DDS participant stays in a private namespace: begin the test with fieldproof_testkit::contain_or_return!()"
    );
}

fn read_json(path: &Path) -> Json {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

fn run_file(file: &Path) -> (run::RunSummary, Json) {
    let (summary, out) = run_with(file, run::RunOptions::default());
    (summary, read_json(&out.join("run.json")))
}

/// Runs `file` with `options` into a fresh run directory; returns the summary and the
/// directory (a run that could not start may have no run.json). A run the host starved
/// (`inconclusive`) is run once more at half its real-time factor, and that one is returned.
fn run_with(file: &Path, options: run::RunOptions) -> (run::RunSummary, PathBuf) {
    in_private_netns();
    let s = model::load(file).unwrap();
    let once = |options: run::RunOptions| {
        let out = fieldproof_testkit::passable_tempdir().keep().join("run");
        let summary = run::run(
            &s,
            &run::RunOptions {
                out: Some(out.clone()),
                ..options
            },
        );
        (summary, out)
    };
    let (summary, out) = once(options.clone());
    if summary.exit_code != run::INCONCLUSIVE {
        return (summary, out);
    }
    let ran_at = read_json(&out.join("run.json"))["real_time_factor"]
        .as_f64()
        .unwrap_or(1.0);
    let slower = fieldproof_testkit::slower_real_time_factor(ran_at);
    eprintln!(
        "{}: INCONCLUSIVE: {}; running it again at real-time factor {slower}",
        file.display(),
        summary.reasons.first().map_or("", String::as_str)
    );
    once(run::RunOptions {
        real_time_factor: Some(slower),
        ..options
    })
}

fn run_scenario(name: &str) -> (run::RunSummary, Json) {
    run_file(&repo_root().join("config/scenarios").join(name))
}

/// A copy of a scenario beside it (its relative paths still hold), edited by `edit`.
fn variant(file: &Path, edit: impl Fn(String) -> String) -> tempfile::NamedTempFile {
    let f = tempfile::Builder::new()
        .prefix(".e2e_")
        .suffix(".yaml")
        .tempfile_in(file.parent().unwrap())
        .unwrap();
    std::fs::write(f.path(), edit(std::fs::read_to_string(file).unwrap())).unwrap();
    f
}

/// The names of the assertions that passed (`true`) or failed (`false`).
fn assertions_with(record: &Json, passed: bool) -> Vec<String> {
    record["assertions"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|a| a["passed"] == passed)
        .map(|a| a["name"].as_str().unwrap().to_string())
        .collect()
}

/// A JSON array of strings.
fn strings(array: &Json) -> Vec<&str> {
    array
        .as_array()
        .expect("an array")
        .iter()
        .map(|v| v.as_str().expect("a string"))
        .collect()
}

fn process<'a>(record: &'a Json, name: &str) -> &'a Json {
    record["processes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["name"] == name)
        .unwrap_or_else(|| panic!("no process {name} in run.json"))
}

fn alive(pid: i32) -> bool {
    // A zombie is gone for our purpose (its parent, a killed runner, never reaped it).
    procfs::process::Process::new(pid)
        .and_then(|p| p.stat())
        .is_ok_and(|st| st.state != 'Z')
}

/// Every descendant of `pid` (children, their children, ...).
fn descendants(pid: i32) -> Vec<i32> {
    let parent_of: Vec<(i32, i32)> = procfs::process::all_processes()
        .unwrap()
        .flatten()
        .filter_map(|p| p.stat().ok())
        .map(|st| (st.pid, st.ppid))
        .collect();
    let mut out = Vec::new();
    let mut todo = vec![pid];
    while let Some(p) = todo.pop() {
        for &(child, parent) in &parent_of {
            if parent == p {
                out.push(child);
                todo.push(child);
            }
        }
    }
    out
}

/// `fieldproof run` as a user starts it, in the background, with its stderr read line by
/// line.
struct Runner {
    child: std::process::Child,
    lines: std::sync::mpsc::Receiver<String>,
    out: PathBuf,
}

impl Runner {
    fn start(scenario: &Path) -> Runner {
        Runner::start_with_env(scenario, &[])
    }

    /// As [`Runner::start`], with `env` added to the runner's environment.
    fn start_with_env(scenario: &Path, env: &[(&str, String)]) -> Runner {
        in_private_netns();
        // target/<profile>/deps/run_e2e-* -> target/<profile>/fieldproof
        let exe = std::env::current_exe().unwrap();
        let fieldproof = exe.parent().unwrap().parent().unwrap().join("fieldproof");
        assert!(
            fieldproof.is_file(),
            "{} (cargo build --workspace)",
            fieldproof.display()
        );
        let out = fieldproof_testkit::passable_tempdir().keep().join("run");
        let mut child = Command::new(&fieldproof)
            .arg("run")
            .arg(scenario)
            .arg("--out")
            .arg(&out)
            .envs(env.iter().map(|(k, v)| (*k, v.as_str())))
            .stdin(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let (tx, lines) = std::sync::mpsc::channel();
        let err = child.stderr.take().unwrap();
        std::thread::spawn(move || {
            for l in BufReader::new(err).lines().map_while(Result::ok) {
                eprintln!("  | {l}");
                let _ = tx.send(l);
            }
        });
        Runner { child, lines, out }
    }

    fn pid(&self) -> i32 {
        self.child.id() as i32
    }

    /// Waits for a stderr line containing `text`.
    fn wait_for(&self, text: &str, within: Duration) {
        let end = Instant::now() + within;
        while let Some(left) = end.checked_duration_since(Instant::now()) {
            match self.lines.recv_timeout(left) {
                Ok(l) if l.contains(text) => return,
                Ok(_) => {}
                Err(_) => break,
            }
        }
        panic!("fieldproof run never said {text:?} within {within:?}");
    }

    fn signal(&self, sig: nix::sys::signal::Signal) {
        nix::sys::signal::kill(nix::unistd::Pid::from_raw(self.pid()), sig).unwrap();
    }

    /// Waits for the exit (at most `within`); its exit code.
    fn wait(&mut self, within: Duration) -> Option<i32> {
        let end = Instant::now() + within;
        loop {
            if let Some(st) = self.child.try_wait().unwrap() {
                return st.code();
            }
            assert!(
                Instant::now() < end,
                "fieldproof run still running after {within:?}"
            );
            std::thread::sleep(Duration::from_millis(100));
        }
    }
}

/// The run id, from the label of the namespaces its runner owns.
fn run_id_of_owner(pid: i32) -> Option<String> {
    let dir = std::fs::read_dir("/run/fieldproof-link").ok()?;
    for e in dir.flatten() {
        let id = e.path().file_stem()?.to_string_lossy().into_owned();
        if fieldproof_link::netns::read_label(&id).is_some_and(|l| l.owner_pid as i32 == pid) {
            return Some(id);
        }
    }
    None
}

/// After an interrupted run: exit 2, status interrupted naming the signal and the phase,
/// every process it started gone, no namespace of the run left, the evidence written.
fn assert_interrupted_cleanly(r: &mut Runner, signal: &str, phase: &str) {
    let code = r.wait(Duration::from_secs(60));
    assert_eq!(code, Some(2));
    let record = read_json(&r.out.join("run.json"));
    assert_eq!(record["result"]["status"], "interrupted", "{record:#}");
    let reason = record["result"]["reasons"][0].as_str().unwrap();
    assert!(
        reason.starts_with(&format!("interrupted by {signal} during {phase}")),
        "{reason}"
    );
    for p in record["processes"].as_array().unwrap() {
        let pid = p["pid"].as_i64().unwrap() as i32;
        assert!(!alive(pid), "{} (pid {pid}) still runs", p["name"]);
        assert!(!p["exit_code"].is_null() || !p["signal"].is_null(), "{p:#}");
    }
    let id = record["run_id"].as_str().unwrap();
    assert_eq!(
        fieldproof_link::netns::namespaces_of(id),
        Vec::<String>::new()
    );
    assert!(
        fieldproof_link::netns::read_label(id).is_none(),
        "label of {id} left"
    );
    assert!(r.out.join("report.md").is_file());
}

#[test]
#[ignore = "needs the suite's binaries and scripts/netns-run"]
fn lidar_dropout_runs_end_to_end() {
    fieldproof_testkit::contain_or_return!();
    let (summary, record) = run_scenario("ugv_lidar_dropout.yaml");
    let dir = summary.dir.clone().unwrap();
    assert_eq!(summary.exit_code, 0, "{:?}\n{record:#}", summary.reasons);
    assert_eq!(assertions_with(&record, true), ["silent", "back", "before"]);
    let entry = &record["timeline"][0];
    assert_eq!(entry["name"], "lidar_out");
    assert!(entry["firings"][0]["outcome"]
        .as_str()
        .unwrap()
        .contains("dropout=true"));
    for f in [
        "recording.mcap",
        "metadata.yaml",
        "report.md",
        "report.html",
    ] {
        assert!(dir.join(f).is_file(), "{f}");
    }
}

#[test]
#[ignore = "needs the suite's binaries, root (network namespaces) and scripts/netns-run; ~2 min"]
fn a_link_back_after_a_drop_longer_than_the_dds_lease_is_heard_again() {
    // 75 s without a word: the vehicle's and the ground's DDS participants forget each other
    // (lease 60 s). Once the link is back the failsafe must hear the heartbeat again
    // (rediscovery: third_party/rustdds-rediscovery.patch) and the vehicle drive on.
    fieldproof_testkit::contain_or_return!();
    let (summary, record) = run_scenario("ugv_long_link_loss.yaml");
    assert_eq!(summary.exit_code, 0, "{:?}\n{record:#}", summary.reasons);
    let back = record["assertions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["name"] == "link_back")
        .unwrap();
    assert_eq!(back["passed"], true, "{back:#}");
}

#[test]
#[ignore = "needs the suite's binaries, root (network namespaces) and scripts/netns-run; ~2 min"]
fn ugv_link_loss_runs_end_to_end() {
    fieldproof_testkit::contain_or_return!();
    let (summary, record) = run_scenario("ugv_link_loss.yaml");
    assert_eq!(summary.exit_code, 0, "{:?}\n{record:#}", summary.reasons);
    assert_eq!(record["assertions"].as_array().unwrap().len(), 7);
    // Every measurement window of network.jsonl is in the MCAP.
    let dir = summary.dir.clone().unwrap();
    let windows = std::fs::read_to_string(dir.join("network.jsonl"))
        .unwrap()
        .lines()
        .count();
    assert!(windows > 50, "{windows} windows");
    assert_eq!(
        record["recording"]["topics"]["/fieldproof/network"][1],
        windows
    );
    let periods = &record["network"]["periods"]["links"]["ugv1"]["periods"];
    let profiles: Vec<&str> = periods
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["profile"].as_str().unwrap())
        .collect();
    assert_eq!(profiles, ["lte_rural", "drop", "lte_rural"]);
    assert!(fieldproof_link::netns::namespaces_of(record["run_id"].as_str().unwrap()).is_empty());
    // The independent reader (Python mcap + mcap-ros2-support) decodes the run's MCAP:
    // link_state both ways, every network window as JSON of link ugv1.
    let script = r#"
import collections, json, sys
from mcap_ros2.reader import read_ros2_messages
n = collections.Counter()
states = set()
for m in read_ros2_messages(sys.argv[1]):
    n[m.channel.topic] += 1
    if m.channel.topic == "/ugv1/link_state":
        states.add(m.ros_msg.data)
    if m.channel.topic == "/fieldproof/network":
        assert json.loads(m.ros_msg.data)["link"] == "ugv1"
print(n["/ugv1/link_state"], n["/fieldproof/network"], sorted(states))
"#;
    let o = Command::new(fieldproof_testkit::python())
        .args(["-c", script])
        .arg(dir.join("recording.mcap"))
        .output()
        .expect("the .venv python (scripts/setup) runs");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let topics = &record["recording"]["topics"];
    assert_eq!(
        String::from_utf8(o.stdout).unwrap().trim(),
        format!(
            "{} {} [False, True]",
            topics["/ugv1/link_state"][1], topics["/fieldproof/network"][1]
        )
    );
    // The whole run's resources are in the record.
    let res = &record["resources"];
    assert!(res["processes_cpu_s"].as_f64().unwrap() > 1.0, "{res}");
    assert!(res["peak_rss_mib"].as_f64().unwrap() > 50.0, "{res}");
    assert!(process(&record, "simulator")["cpu_s"].as_f64().unwrap() > 0.0);
    // The backend every link used, in run.json and the report.
    let backend = if fieldproof_link::tc::kernel_netem_available() {
        "kernel"
    } else {
        "userspace"
    };
    assert_eq!(record["network"]["topology"]["backend"], backend);
    // The report reads as sentences and tables.
    let link_lost = &record["assertions"][0];
    assert_eq!(link_lost["name"], "link_lost");
    let sentence = link_lost["summary"].as_str().unwrap();
    assert!(
        sentence.starts_with("/ugv1/link_state data == false first true ")
            && sentence.contains(" s after link_outage started (window 15 s; "),
        "{sentence}"
    );
    let md = std::fs::read_to_string(dir.join("report.md")).unwrap();
    assert!(md.contains(sentence), "the sentence in the report");
    assert!(
        md.contains("| ugv1 | vehicle → ground | traffic | "),
        "{md}"
    );
    assert!(
        md.contains(&format!("(backend {backend}")),
        "the report names the backend: {md}"
    );
    // The Foxglove layout next to the recording names only topics the recording holds,
    // as the independent reader counts them.
    let layout: Json =
        serde_json::from_str(&std::fs::read_to_string(dir.join("foxglove_layout.json")).unwrap())
            .unwrap();
    let named = fieldproof_scenario::evidence::foxglove::topics(&layout);
    assert!(
        named.contains(&"/fieldproof/network".to_string()) && named.len() >= 4,
        "{named:?}"
    );
    let count = r#"
import collections, json, sys
from mcap_ros2.reader import read_ros2_messages
print(json.dumps(collections.Counter(m.channel.topic for m in read_ros2_messages(sys.argv[1]))))
"#;
    let o = Command::new(fieldproof_testkit::python())
        .args(["-c", count])
        .arg(dir.join("recording.mcap"))
        .output()
        .expect("the .venv python (scripts/setup) runs");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let counted: Json = serde_json::from_slice(&o.stdout).unwrap();
    for topic in &named {
        assert!(
            counted[topic.as_str()].as_u64().unwrap_or(0) > 0,
            "{topic} named by the layout has no message in the recording: {counted}"
        );
    }
}

#[test]
#[ignore = "needs the suite's binaries, root (network namespaces) and scripts/netns-run; ~2 min"]
fn two_vehicles_behind_their_own_links() {
    fieldproof_testkit::contain_or_return!();
    let (summary, record) = run_scenario("ugv_pair_link_loss.yaml");
    assert_eq!(summary.exit_code, 0, "{:?}\n{record:#}", summary.reasons);
    assert_eq!(
        assertions_with(&record, true),
        [
            "ugv1_link_lost",
            "ugv1_stopped",
            "ugv2_link_kept",
            "ugv2_drives_on",
            "ugv1_link_back",
            "ugv1_reached",
            "ugv2_reached",
            "no_collision",
            "links_ok"
        ]
    );
    let links = &record["network"]["periods"]["links"];
    let profiles = |v: &str| -> Vec<String> {
        links[v]["periods"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| {
                format!(
                    "{} {}",
                    p["profile"].as_str().unwrap(),
                    p["verdict"].as_str().unwrap()
                )
            })
            .collect()
    };
    assert_eq!(
        profiles("ugv1"),
        ["lte_rural passed", "drop passed", "lte_rural passed"]
    );
    assert_eq!(profiles("ugv2"), ["wifi_mesh passed"]);
    // The simulator in the world namespace, each vehicle's nodes in its own.
    let id = record["run_id"].as_str().unwrap();
    assert_eq!(
        process(&record, "simulator")["netns"],
        fieldproof_link::netns::world_ns(id)
    );
    for v in ["ugv1", "ugv2"] {
        // The bridge adapters and the failsafe, one process.
        let bridge = process(&record, &format!("{v}/bridge"));
        assert_eq!(bridge["netns"], fieldproof_link::netns::vehicle_ns(id, v));
        assert!(strings(&bridge["command"]).contains(&"--failsafe"));
        // The runner, in the world namespace, hears the ground station's heartbeats too.
        let topic = format!("/{v}/gcs/heartbeat");
        assert!(
            record["recording"]["topics"][&topic][1].as_u64().unwrap() > 50,
            "{topic}: {}",
            record["recording"]["topics"]
        );
    }
    assert!(fieldproof_link::netns::namespaces_of(id).is_empty());
}

#[test]
#[ignore = "needs the suite's binaries and scripts/netns-run"]
fn a_stack_that_dies_during_the_bring_up_is_named() {
    fieldproof_testkit::contain_or_return!();
    in_private_netns();
    let dir = repo_root().join("config/scenarios");
    let f = tempfile::Builder::new()
        .prefix(".e2e_")
        .suffix(".yaml")
        .tempfile_in(&dir)
        .unwrap();
    std::fs::write(
        f.path(),
        "name: dies\nworld: ../../worlds/depot.yaml\nduration_s: 5s\nvehicles:\n  - { name: ugv1, manifest: ../../robots/ugv_ref/robot.yaml, spawn: spawn_dock, stack: { command: [/bin/false] } }\n",
    )
    .unwrap();
    let s = model::load(f.path()).unwrap();
    let out = fieldproof_testkit::passable_tempdir();
    let summary = run::run(
        &s,
        &run::RunOptions {
            out: Some(out.path().join("run")),
            ..Default::default()
        },
    );
    assert_eq!(summary.exit_code, 2, "{:?}", summary.reasons);
    assert!(
        summary.reasons[0].starts_with("ugv1/stack exited during the bring-up"),
        "{:?}",
        summary.reasons
    );
    let record: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.path().join("run/run.json")).unwrap())
            .unwrap();
    assert_eq!(record["result"]["status"], "error");
    let stack = record["processes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["name"] == "ugv1/stack")
        .unwrap();
    assert_eq!(stack["exit_code"], 1);
}

#[test]
#[ignore = "needs the suite's binaries and scripts/netns-run; ~15 s"]
fn a_vehicles_evidence_directory_is_named_to_its_processes_and_listed() {
    fieldproof_testkit::contain_or_return!();
    let (summary, record) = run_file(&fixture("quad_evidence.yaml"));
    // The stack wrote where FIELDPROOF_EVIDENCE_DIR said; run.json lists it.
    let quad = &record["vehicles"][0];
    assert_eq!(quad["name"], "quad1");
    assert_eq!(
        strings(&quad["evidence"]),
        ["supervisor/frames.in"],
        "{quad:#}"
    );
    let dir = PathBuf::from(quad["evidence_dir"].as_str().unwrap());
    assert!(dir.ends_with("run/quad1"), "{}", dir.display());
    assert_eq!(
        std::fs::read_to_string(dir.join("supervisor/frames.in")).unwrap(),
        "1 0.05\n"
    );
    // The quad's mode was recorded by default and never published: the sequence cannot be
    // evaluated, and fails saying so.
    assert_eq!(summary.exit_code, 1, "{:?}", summary.reasons);
    assert_eq!(assertions_with(&record, false), ["modes"]);
    assert!(
        summary.reasons[0].starts_with(
            "assertion modes: no samples of /quad1/supervisor/mode between 0.00 s and "
        ),
        "{:?}",
        summary.reasons
    );
    let report = std::fs::read_to_string(dir.parent().unwrap().join("report.md")).unwrap();
    assert!(
        report.contains("| quad1 | sh |  | quad1/supervisor/frames.in |"),
        "{report}"
    );
}

#[test]
#[ignore = "needs the suite's binaries, root (network namespaces) and scripts/netns-run; ~40 s"]
fn a_vehicle_without_its_failsafe_fails_naming_the_assertions() {
    fieldproof_testkit::contain_or_return!();
    let (summary, record) = run_file(&fixture("ugv_link_loss_no_failsafe.yaml"));
    assert_eq!(summary.exit_code, 1, "{:?}\n{record:#}", summary.reasons);
    assert_eq!(assertions_with(&record, false), ["link_lost", "stopped"]);
    assert_eq!(assertions_with(&record, true), ["no_collision"]);
    for name in ["link_lost", "stopped"] {
        assert!(
            summary
                .reasons
                .iter()
                .any(|r| r.starts_with(&format!("assertion {name}:"))),
            "{:?}",
            summary.reasons
        );
    }
    // No failsafe ran, alone or composed: the stack drove the base directly.
    assert!(record["processes"]
        .as_array()
        .unwrap()
        .iter()
        .all(|p| p["name"] != "ugv1/link_monitor"));
    assert!(!strings(&process(&record, "ugv1/bridge")["command"]).contains(&"--failsafe"));
    let driver = &process(&record, "ugv1/goal_driver")["command"];
    assert!(driver
        .as_array()
        .unwrap()
        .iter()
        .any(|a| a == "output:=cmd_vel"));
}

#[test]
#[ignore = "needs the suite's binaries, root (network namespaces) and scripts/netns-run; ~70 s"]
fn a_link_that_cannot_match_its_profile_fails_under_fail_and_warns_under_warn() {
    fieldproof_testkit::contain_or_return!();
    let file = fixture("link_mismatch.yaml");
    let (summary, record) = run_file(&file);
    assert_eq!(summary.exit_code, 1, "{:?}\n{record:#}", summary.reasons);
    assert_eq!(
        summary
            .reasons
            .iter()
            .filter(|r| r.starts_with("link ugv1 does not match profile jittery: latency"))
            .count(),
        1,
        "{:?}",
        summary.reasons
    );
    assert_eq!(assertions_with(&record, true), ["odom_rate"]);
    let period = &record["network"]["periods"]["links"]["ugv1"]["periods"][0];
    assert_eq!(period["profile"], "jittery");
    assert_eq!(period["verdict"], "failed", "{period:#}");
    // The clamped normal's mean: 9.0 ms, its standard error over ~200 probes about 0.6 ms.
    let latency = period["measurement"]["latency_ms"].as_f64().unwrap();
    assert!((6.0..12.0).contains(&latency), "{latency}");

    let warn = variant(&file, |t| t.replace("verify: fail", "verify: warn"));
    let (summary, record) = run_file(warn.path());
    assert_eq!(summary.exit_code, 0, "{:?}\n{record:#}", summary.reasons);
    let warnings = strings(&record["result"]["warnings"]);
    assert!(
        warnings
            .iter()
            .any(|w| w.starts_with("link.failed: link ugv1 does not match profile jittery")),
        "{warnings:?}"
    );
    // verify: off — measured and recorded, judged in run.json, but neither a failure nor a
    // warning.
    let off = variant(&file, |t| t.replace("verify: fail", "verify: off"));
    let (summary, record) = run_file(off.path());
    assert_eq!(summary.exit_code, 0, "{:?}\n{record:#}", summary.reasons);
    let warnings = strings(&record["result"]["warnings"]);
    assert!(
        !warnings.iter().any(|w| w.starts_with("link.failed")),
        "{warnings:?}"
    );
    let period = &record["network"]["periods"]["links"]["ugv1"]["periods"][0];
    assert_eq!(period["verdict"], "failed", "{period:#}");
}

/// Each period of ugv1's link: (profile, cause, verdict).
fn periods_of_ugv1(record: &Json) -> Vec<(String, String, String)> {
    record["network"]["periods"]["links"]["ugv1"]["periods"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            let text = |k: &str| p[k].as_str().unwrap_or_default().to_string();
            (text("profile"), text("cause"), text("verdict"))
        })
        .collect()
}

#[test]
#[ignore = "needs the suite's binaries, root (network namespaces) and scripts/netns-run; ~90 s"]
fn link_set_restore_and_a_drop_that_lasts_to_the_end_or_beyond_it() {
    fieldproof_testkit::contain_or_return!();
    let file = fixture("link_actions.yaml");
    let (summary, record) = run_file(&file);
    assert_eq!(summary.exit_code, 0, "{:?}\n{record:#}", summary.reasons);
    let periods = periods_of_ugv1(&record);
    let profiles: Vec<&str> = periods.iter().map(|p| p.0.as_str()).collect();
    assert_eq!(
        profiles,
        ["lte_rural", "rf_900mhz_5km", "lte_rural", "drop"]
    );
    let causes: Vec<&str> = periods.iter().map(|p| p.1.as_str()).collect();
    assert_eq!(
        &causes[1..],
        [
            "to_radio (link.set)",
            "back (link.restore)",
            "cut (link.drop)"
        ]
    );
    assert!(periods.iter().all(|p| p.2 == "passed"), "{periods:?}");
    // The drop without a duration lasts to the end of the timeline.
    let drop = &record["network"]["periods"]["links"]["ugv1"]["periods"][3];
    let to = drop["to_s"].as_f64().unwrap();
    assert!((33.0..36.0).contains(&to), "{drop:#}");
    assert_eq!(assertions_with(&record, true), ["links_ok", "link_lost"]);

    // A drop longer than the run: the same periods, and the entry never ends.
    let longer = variant(&file, |t| {
        t.replace(
            "action: link.drop }",
            "action: link.drop, duration_s: 60s }",
        )
    });
    let (summary, record) = run_file(longer.path());
    assert_eq!(summary.exit_code, 0, "{:?}\n{record:#}", summary.reasons);
    let profiles: Vec<String> = periods_of_ugv1(&record).into_iter().map(|p| p.0).collect();
    assert_eq!(
        profiles,
        ["lte_rural", "rf_900mhz_5km", "lte_rural", "drop"]
    );
    let cut = record["timeline"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["name"] == "cut")
        .unwrap();
    assert!(cut["firings"][0]["ended_s"].is_null(), "{cut:#}");
    assert_eq!(
        cut["firings"][0]["outcome"].as_str().unwrap(),
        "dropped for 60 s"
    );
}

#[test]
#[ignore = "needs the suite's binaries, root (network namespaces) and scripts/netns-run; ~40 s"]
fn check_contracts_checks_each_bundle_before_the_timeline() {
    fieldproof_testkit::contain_or_return!();
    let file = variant(&fixture("link_mismatch.yaml"), |t| {
        t.replace("verify: fail", "verify: warn")
            .replace("without: [camera]", "without: [camera, lidar]")
    });
    let (summary, out) = run_with(
        file.path(),
        run::RunOptions {
            check_contracts: true,
            ..Default::default()
        },
    );
    let record = read_json(&out.join("run.json"));
    assert_eq!(summary.exit_code, 0, "{:?}\n{record:#}", summary.reasons);
    let check = &record["contracts"]["ugv1"];
    assert_eq!(check["passed"], true, "{check:#}");
    assert_eq!(check["fail"], 0, "{check:#}");
    assert!(check["pass"].as_u64().unwrap() >= 10, "{check:#}");
    // The odometry's rate was judged over its stamps, and the topics check skipped.
    let findings = check["findings"].as_array().unwrap();
    assert!(findings
        .iter()
        .any(|f| f["check"] == "rate" && f["topic"] == "/ugv1/odom" && f["status"] == "pass"));
    let topics = findings.iter().find(|f| f["check"] == "topics").unwrap();
    assert_eq!(topics["status"], "skip");
    let md = std::fs::read_to_string(out.join("report.md")).unwrap();
    assert!(md.contains("## Bridge contracts"), "{md}");
}

#[test]
#[ignore = "needs the suite's binaries, root (network namespaces) and scripts/netns-run; ~35 s"]
fn keep_leaves_the_namespaces_listed_until_cleanup_by_the_run_id() {
    fieldproof_testkit::contain_or_return!();
    let file = variant(&fixture("link_mismatch.yaml"), |t| {
        t.replace("verify: fail", "verify: warn")
    });
    let (summary, out) = run_with(
        file.path(),
        run::RunOptions {
            keep: true,
            ..Default::default()
        },
    );
    let record = read_json(&out.join("run.json"));
    let run_id = record["run_id"].as_str().unwrap().to_string();
    let kept = fieldproof_link::netns::namespaces_of(&run_id);
    // Removed (what `link_net cleanup --run-id` does) before the assertions, whatever they
    // say.
    let removed = fieldproof_link::netns::cleanup_run(&run_id);
    assert_eq!(summary.exit_code, 0, "{:?}\n{record:#}", summary.reasons);
    assert_eq!(
        kept.len(),
        4,
        "radio, world, the vehicle's and its link's: {kept:?}"
    );
    let warnings = strings(&record["result"]["warnings"]);
    let listed = warnings
        .iter()
        .find(|w| w.starts_with("--keep: "))
        .unwrap_or_else(|| panic!("no --keep line in {warnings:?}"));
    assert!(
        listed.contains(&format!("link_net cleanup --run-id {run_id}")),
        "{listed}"
    );
    for ns in &kept {
        assert!(listed.contains(ns.as_str()), "{ns} not in {listed}");
    }
    assert_eq!(removed.unwrap().len(), 4);
}

#[test]
#[ignore = "needs the suite's binaries, root (network namespaces) and scripts/netns-run; ~5 s here (no netem), ~35 s with netem"]
fn a_scenario_asking_for_the_kernel_backend_needs_netem_and_says_so() {
    fieldproof_testkit::contain_or_return!();
    let file = variant(&fixture("link_mismatch.yaml"), |t| {
        t.replace("  verify: fail\n", "  verify: fail\n  backend: kernel\n")
    });
    let (summary, out) = run_with(file.path(), run::RunOptions::default());
    if fieldproof_link::tc::kernel_netem_available() {
        // The run starts on netem (and fails its jittery link under verify: fail).
        let record = read_json(&out.join("run.json"));
        assert_ne!(summary.exit_code, 2, "{:?}", summary.reasons);
        assert_eq!(record["network"]["topology"]["backend"], "kernel");
    } else {
        // It cannot start: the link, tc's refusal and the hint.
        assert_eq!(summary.exit_code, 2, "{:?}", summary.reasons);
        let why = summary.reasons.join("; ");
        assert!(why.starts_with("network: link ugv1: "), "{why}");
        assert!(why.contains("modprobe sch_netem ifb"), "{why}");
    }
}

#[test]
#[ignore = "needs the suite's binaries, root (network namespaces) and scripts/netns-run; ~20 s"]
fn a_ground_station_that_never_gets_ready_is_named_when_its_timeout_ends() {
    fieldproof_testkit::contain_or_return!();
    // The real ground station, kept from activating (autostart:=false): the runner finds it
    // first on AMENT_PREFIX_PATH, as a user's own install would be found.
    let fake = fieldproof_testkit::FakeAmentPrefix::new();
    let exe = std::env::current_exe().unwrap();
    let real = exe
        .parent()
        .unwrap()
        .parent()
        .unwrap()
        .join("ground_station");
    assert!(
        real.is_file(),
        "{} (cargo build --workspace)",
        real.display()
    );
    fake.script(
        "fieldproof_link",
        "ground_station",
        &format!("exec '{}' \"$@\" -p autostart:=false", real.display()),
    );
    let prefixes = std::env::join_paths(std::iter::once(fake.path().to_path_buf()).chain(
        std::env::split_paths(&std::env::var_os("AMENT_PREFIX_PATH").unwrap_or_default()),
    ))
    .unwrap();
    let file = variant(&fixture("link_actions.yaml"), |t| {
        t.replace("ground_s: 60s", "ground_s: 6s")
    });
    let started = Instant::now();
    let mut r = Runner::start_with_env(
        file.path(),
        &[("AMENT_PREFIX_PATH", prefixes.to_string_lossy().into_owned())],
    );
    let code = r.wait(Duration::from_secs(120));
    let waited = started.elapsed();
    assert_eq!(code, Some(2));
    let record = read_json(&r.out.join("run.json"));
    assert_eq!(record["result"]["status"], "error", "{record:#}");
    let reason = record["result"]["reasons"][0].as_str().unwrap();
    // Named by its process name first; the failsafe, which never heard a heartbeat, after it.
    assert!(
        reason.starts_with("not ready in time: ground_station, "),
        "{reason}"
    );
    let warnings: Vec<&str> = strings(&record["result"]["warnings"]);
    assert!(
        warnings
            .iter()
            .any(|w| w.starts_with("/ground_station never reported ACTIVE")),
        "{warnings:?}"
    );
    // Named once its own timeout (6 s) ended, not the ready timeout's 60 s.
    assert!(waited < Duration::from_secs(55), "{waited:?}");
    let ground = process(&record, "ground_station");
    assert!(
        ground["command"].as_array().unwrap().iter().any(|a| a
            .as_str()
            .is_some_and(|a| a.starts_with(&fake.path().display().to_string()))),
        "the wrapper ran: {ground:#}"
    );
    for p in record["processes"].as_array().unwrap() {
        let pid = p["pid"].as_i64().unwrap() as i32;
        assert!(!alive(pid), "{} (pid {pid}) still runs", p["name"]);
    }
    let id = record["run_id"].as_str().unwrap();
    assert_eq!(
        fieldproof_link::netns::namespaces_of(id),
        Vec::<String>::new()
    );
    assert!(r.out.join("report.md").is_file());
}

#[test]
#[ignore = "needs the suite's binaries, root (network namespaces) and scripts/netns-run; ~25 s"]
fn killing_the_failsafe_is_detected_and_reported() {
    fieldproof_testkit::contain_or_return!();
    let (summary, record) = run_file(&fixture("failsafe_kill.yaml"));
    assert_eq!(summary.exit_code, 0, "{:?}\n{record:#}", summary.reasons);
    let entry = &record["timeline"][1];
    assert_eq!(entry["name"], "kill_failsafe");
    let fired = &entry["firings"][0];
    assert!(fired["outcome"]
        .as_str()
        .unwrap()
        .starts_with("sent SIGKILL to ugv1/link_monitor (pid "));
    let killed_at = fired["started_s"].as_f64().unwrap();
    assert!((6.0..6.5).contains(&killed_at), "{killed_at}");
    let monitor = process(&record, "ugv1/link_monitor");
    assert_eq!(monitor["signal"], 9, "{monitor:#}");
    assert_eq!(
        monitor["killed_by"],
        format!("kill_failsafe at {killed_at:.2} s"),
        "{monitor:#}"
    );
    let at = monitor["exited_at_s"].as_f64().unwrap();
    assert!(
        (killed_at..killed_at + 0.5).contains(&at),
        "exit detected at {at} s"
    );
    // Every other process lived until the teardown.
    for p in record["processes"].as_array().unwrap() {
        if p["name"] != "ugv1/link_monitor" {
            assert!(p["exited_at_s"].is_null(), "{p:#}");
        }
    }
    let md = std::fs::read_to_string(summary.dir.unwrap().join("report.md")).unwrap();
    let row = md
        .lines()
        .find(|l| l.starts_with("| ugv1/link_monitor |"))
        .unwrap();
    assert!(
        row.contains(&format!("after kill_failsafe at {killed_at:.2} s")),
        "{row}"
    );
}

#[test]
#[ignore = "needs the colcon install tree (scripts/build), root and scripts/netns-run; ~35 s"]
fn a_launch_file_stack_runs_from_the_install_tree() {
    fieldproof_testkit::contain_or_return!();
    in_private_netns();
    let setup = repo_root().join("install/setup.bash");
    assert!(
        setup.is_file(),
        "{}: build it with scripts/build",
        setup.display()
    );
    let scenario = repo_root().join("config/scenarios/ugv_launch_stack.yaml");
    let out = fieldproof_testkit::passable_tempdir().keep().join("run");
    // As a user runs it: the install tree sourced, `fieldproof` from it.
    let status = Command::new("bash")
        .args([
            "-c",
            r#"source "$1" && fieldproof run "$2" --out "$3""#,
            "bash",
        ])
        .arg(&setup)
        .arg(&scenario)
        .arg(&out)
        .status()
        .unwrap();
    let record = read_json(&out.join("run.json"));
    assert_eq!(status.code(), Some(0), "{record:#}");
    assert_eq!(
        assertions_with(&record, true),
        ["aisle_reached", "speed_limit", "no_collision"]
    );
    let stack = process(&record, "ugv1/stack");
    let argv = strings(&stack["command"]);
    assert!(
        argv[0].ends_with("/fieldproof") && argv[1] == "launch",
        "{argv:?}"
    );
    assert!(argv[2].ends_with("goal_driver.launch.yaml"), "{argv:?}");
    for arg in ["namespace:=ugv1", "cmd_vel:=cmd_vel", "max_speed_mps:=0.6"] {
        assert!(argv.contains(&arg), "{arg} not in {argv:?}");
    }
    // The launcher started the driver (its log carries the launcher's lines).
    let log = std::fs::read_to_string(stack["log"].as_str().unwrap()).unwrap();
    assert!(log.contains("goal_driver"), "{log}");
}

#[test]
#[ignore = "needs the suite's binaries, root (network namespaces) and scripts/netns-run; ~20 s"]
fn a_signal_during_the_bring_up_leaves_nothing_behind() {
    fieldproof_testkit::contain_or_return!();
    let mut r = Runner::start(&repo_root().join("config/scenarios/ugv_link_loss.yaml"));
    // Said once the network is up, right before the processes start.
    r.wait_for("evidence in", Duration::from_secs(60));
    assert!(
        run_id_of_owner(r.pid()).is_some(),
        "the run's namespaces exist"
    );
    r.signal(nix::sys::signal::Signal::SIGINT);
    assert_interrupted_cleanly(&mut r, "SIGINT", "the bring-up");
}

#[test]
#[ignore = "needs the suite's binaries, root (network namespaces) and scripts/netns-run; ~25 s"]
fn a_signal_during_the_timeline_leaves_nothing_behind() {
    fieldproof_testkit::contain_or_return!();
    let mut r = Runner::start(&repo_root().join("config/scenarios/ugv_link_loss.yaml"));
    r.wait_for("timeline started", Duration::from_secs(90));
    std::thread::sleep(Duration::from_secs(3));
    r.signal(nix::sys::signal::Signal::SIGTERM);
    assert_interrupted_cleanly(&mut r, "SIGTERM", "the timeline");
    // What was recorded until then is kept.
    let record = read_json(&r.out.join("run.json"));
    assert!(record["recording"]["message_count"].as_u64().unwrap() > 100);
    assert!(record["timeline"][0]["firings"][0]["outcome"]
        .as_str()
        .unwrap()
        .starts_with("goal goal_east_gate sent"));
}

#[test]
#[ignore = "needs the suite's binaries, root (network namespaces) and scripts/netns-run; ~20 s"]
fn a_killed_runner_takes_its_processes_along_and_its_guard_removes_the_namespaces() {
    fieldproof_testkit::contain_or_return!();
    let mut r = Runner::start(&repo_root().join("config/scenarios/ugv_link_loss.yaml"));
    r.wait_for("timeline started", Duration::from_secs(90));
    // The simulator, the vehicle's bridge adapters and failsafe (one container), its stack,
    // the ground station, the cleanup guard.
    let procs = descendants(r.pid());
    assert!(procs.len() >= 5, "{procs:?}");
    let id = run_id_of_owner(r.pid()).unwrap();
    r.signal(nix::sys::signal::Signal::SIGKILL);
    assert_eq!(r.wait(Duration::from_secs(10)), None, "killed by a signal");
    // Every process dies with it (their parent-death signal).
    let end = Instant::now() + Duration::from_secs(10);
    while procs.iter().any(|&p| alive(p)) && Instant::now() < end {
        std::thread::sleep(Duration::from_millis(100));
    }
    let left: Vec<i32> = procs.iter().copied().filter(|&p| alive(p)).collect();
    assert!(left.is_empty(), "still running: {left:?}");
    // Its cleanup guard (one of the descendants, ended too) saw its pipe close and
    // removed the namespaces (bind mounts, which would outlive every process) and label.
    assert!(
        fieldproof_link::netns::namespaces_of(&id).is_empty(),
        "{:?}",
        fieldproof_link::netns::namespaces_of(&id)
    );
    assert!(fieldproof_link::netns::read_label(&id).is_none());
    assert!(!fieldproof_link::netns::stale_runs().contains(&id));
    let guard_log = std::fs::read_to_string(r.out.join("logs/cleanup_guard.log")).unwrap();
    assert!(guard_log.contains("\"removed\""), "{guard_log}");
}

/// A process's user ids and its capability sets by name.
type Credentials = (Vec<u32>, Vec<(String, u64)>);

/// A process's user ids (real, effective, saved, filesystem) and capability sets, from
/// /proc/<pid>/status; `None` once it is gone.
fn credentials(pid: i32) -> Option<Credentials> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let field = |name: &str| status.lines().find_map(|l| l.strip_prefix(name));
    let uids = field("Uid:")?
        .split_whitespace()
        .map(|u| u.parse().unwrap())
        .collect();
    let caps = ["CapInh:", "CapPrm:", "CapEff:", "CapBnd:", "CapAmb:"]
        .into_iter()
        .map(|c| {
            let hex = field(c).unwrap().trim();
            (c.to_string(), u64::from_str_radix(hex, 16).unwrap())
        })
        .collect();
    Some((uids, caps))
}

fn cmdline(pid: i32) -> String {
    std::fs::read(format!("/proc/{pid}/cmdline"))
        .map(|b| String::from_utf8_lossy(&b).replace('\0', " "))
        .unwrap_or_default()
}

#[test]
#[ignore = "needs the suite's binaries, root (network namespaces), the fieldproof account (scripts/setup) and scripts/netns-run; ~60 s"]
fn the_stack_runs_unprivileged_and_cannot_change_its_link() {
    fieldproof_testkit::contain_or_return!();
    let user = run::privilege::StackUser::resolve(run::privilege::DEFAULT_USER)
        .unwrap()
        .expect("the stack's account is not root");
    let mut r = Runner::start(&repo_root().join("config/scenarios/ugv_link_loss.yaml"));
    r.wait_for("timeline started", Duration::from_secs(90));
    // Every process of the run, read from /proc: only the runner and its cleanup guard (which
    // removes the namespaces) keep root; everything else is the stack's user with no
    // capability at all (CAP_NET_ADMIN included).
    let mut seen = Vec::new();
    for pid in descendants(r.pid()) {
        let Some((uids, caps)) = credentials(pid) else {
            continue;
        };
        let line = cmdline(pid);
        if line.contains("link_net cleanup") {
            continue;
        }
        assert!(
            uids.iter().all(|u| *u == user.uid),
            "{line} (pid {pid}) runs as uids {uids:?}"
        );
        for (set, bits) in &caps {
            assert_eq!(*bits, 0, "{line} (pid {pid}) has {set} {bits:#x}");
        }
        seen.push(line);
    }
    // The scheduling policy (field 41 of a thread's stat; 1 is SCHED_FIFO) of the ground
    // station's probe thread.
    let probe_policy = descendants(r.pid())
        .into_iter()
        .filter(|pid| cmdline(*pid).contains("ground_station"))
        .flat_map(|pid| {
            std::fs::read_dir(format!("/proc/{pid}/task"))
                .into_iter()
                .flatten()
                .flatten()
        })
        .find(|task| {
            std::fs::read_to_string(task.path().join("comm"))
                .unwrap_or_default()
                .trim_end()
                == fieldproof_link::probe::PROBE_THREAD
        })
        .and_then(|task| {
            let stat = std::fs::read_to_string(task.path().join("stat")).ok()?;
            stat.rsplit_once(')')?
                .1
                .split_whitespace()
                .nth(38)?
                .parse::<u32>()
                .ok()
        });
    for node in [
        "fieldproof_sim",
        // the vehicle's bridge adapters and its failsafe, composed
        "bundle_container",
        "--failsafe",
        "goal_driver",
        "ground_station",
    ] {
        assert!(
            seen.iter().any(|l| l.contains(node)),
            "{node} not among {seen:#?}"
        );
    }
    // From inside the vehicle's namespace, as the stack's user: the link cannot be changed.
    let id = run_id_of_owner(r.pid()).unwrap();
    let ns = fieldproof_link::netns::vehicle_ns(&id, "ugv1");
    let dev = fieldproof_link::netns::VEHICLE_IF;
    for attempt in [
        vec!["tc", "qdisc", "del", "dev", dev, "root"],
        vec!["ip", "link", "set", dev, "down"],
    ] {
        let out = Command::new("ip")
            .args(["netns", "exec", ns.as_str()])
            .args(user.drop_prefix())
            .args(&attempt)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{attempt:?} succeeded");
        assert!(
            err.contains("Operation not permitted"),
            "{attempt:?}: {err}"
        );
    }
    // The run goes on untouched and passes; run.json says who ran what.
    assert_eq!(r.wait(Duration::from_secs(240)), Some(0));
    let record = read_json(&r.out.join("run.json"));
    for p in record["processes"].as_array().unwrap() {
        assert_eq!(p["user"], user.name, "{p:#}");
    }
    // The ground station's probe thread was made real-time by the runner (the ground
    // station, unprivileged, cannot), so its round trips do not carry the host's delays.
    assert!(
        strings(&record["result"]["warnings"])
            .iter()
            .all(|w| !w.contains("SCHED_FIFO")),
        "{:#}",
        record["result"]["warnings"]
    );
    assert_eq!(probe_policy, Some(1), "the probe thread is SCHED_FIFO");
}

#[test]
#[ignore = "needs the suite's binaries, root (network namespaces) and scripts/netns-run; ~40 s"]
fn each_vehicle_gets_its_own_heartbeat_under_its_namespace() {
    fieldproof_testkit::contain_or_return!();
    let (summary, record) = run_file(&fixture("heartbeat_per_vehicle.yaml"));
    assert_eq!(summary.exit_code, 0, "{:?}\n{record:#}", summary.reasons);
    // fieldproof run's own checks: each rate, each failsafe lost and re-armed with its own
    // link while the other stays quiet, nothing for the third vehicle nor on the names.
    assert_eq!(
        assertions_with(&record, true),
        [
            "alpha_hb_min",
            "alpha_hb_max",
            "bravo_hb_min",
            "bravo_hb_max",
            "alpha_lost",
            "alpha_rearmed",
            "bravo_quiet",
            "bravo_lost",
            "bravo_rearmed",
            "alpha_quiet",
            "charlie_no_gcs_hb",
            "charlie_no_radio_hb",
            "charlie_no_failsafe",
            "names_no_hb",
            "names_no_radio_hb",
            "name3_no_hb",
            "links_ok"
        ]
    );
    let dir = summary.dir.clone().unwrap();
    let id = record["run_id"].as_str().unwrap();

    // The ground station got one entry per vehicle with a heartbeat: its topic resolved in
    // the vehicle's namespace, its rate and QoS; none for ugv3.
    let gs = process(&record, "ground_station");
    assert_eq!(gs["netns"], fieldproof_link::netns::radio_ns(id));
    let argv = strings(&gs["command"]);
    assert!(
        argv.contains(
            &"heartbeats:=['ugv1 /alpha/gcs/heartbeat 2.0 best_effort volatile 1', \
              'ugv2 /bravo/radio/beat 5.0 reliable volatile 5']"
        ),
        "{argv:?}"
    );
    let gs_log = std::fs::read_to_string(gs["log"].as_str().unwrap()).unwrap();
    assert!(
        gs_log.contains("ground station: 3 links, 2 heartbeats"),
        "{gs_log}"
    );
    // Each failsafe in its vehicle's network namespace, under its ROS namespace, told the
    // manifest's topic, QoS and timeout; ugv3 has none. Every node of a vehicle runs in
    // its vehicle's network namespace.
    for (v, ns, topic, reliability, depth, timeout) in [
        ("ugv1", "alpha", "gcs/heartbeat", "best_effort", "1", "2.0"),
        ("ugv2", "bravo", "radio/beat", "reliable", "5", "2.5"),
    ] {
        // Composed with the vehicle's bridge adapters: its parameters in the file the
        // container is given.
        let argv = strings(&process(&record, &format!("{v}/bridge"))["command"]);
        assert!(argv.contains(&format!("__ns:=/{ns}").as_str()), "{argv:?}");
        let file = argv
            .iter()
            .position(|a| *a == "--failsafe")
            .map(|i| argv[i + 1])
            .unwrap_or_else(|| panic!("{v}: no --failsafe in {argv:?}"));
        let params: serde_yaml::Value =
            serde_yaml::from_str(&std::fs::read_to_string(file).unwrap()).unwrap();
        let params = &params["/**"]["ros__parameters"];
        let text = |key: &str| match &params[key] {
            serde_yaml::Value::String(text) => text.clone(),
            serde_yaml::Value::Number(n) => format!("{:?}", n.as_f64().unwrap()),
            other => panic!("{v}: {key} = {other:?}"),
        };
        assert_eq!(text("heartbeat_topic"), topic, "{v}");
        assert_eq!(text("heartbeat_qos_reliability"), reliability, "{v}");
        assert_eq!(text("heartbeat_qos_depth"), format!("{depth}.0"), "{v}");
        assert_eq!(text("timeout_s"), timeout, "{v}");
    }
    let mut per_vehicle = std::collections::BTreeMap::<&str, usize>::new();
    for p in record["processes"].as_array().unwrap() {
        let name = p["name"].as_str().unwrap();
        if let Some((v, _)) = name.split_once('/') {
            assert_eq!(
                p["netns"],
                fieldproof_link::netns::vehicle_ns(id, v),
                "{name}"
            );
            *per_vehicle.entry(v).or_default() += 1;
        }
    }
    // Each vehicle's bridge adapters and failsafe (where it has one): one container.
    assert_eq!(
        per_vehicle,
        [("ugv1", 1), ("ugv2", 1), ("ugv3", 1)].into(),
        "{:#?}",
        record["processes"]
    );
    for v in ["ugv1", "ugv2", "ugv3"] {
        process(&record, &format!("{v}/bridge"));
    }
    assert!(!strings(&process(&record, "ugv3/bridge")["command"]).contains(&"--failsafe"));

    // Every link shaped and measured, the third's too (its own profile); each drop as a
    // period of its own.
    let links = &record["network"]["periods"]["links"];
    let periods = |v: &str| -> Vec<String> {
        links[v]["periods"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| {
                format!(
                    "{} {}",
                    p["profile"].as_str().unwrap(),
                    p["verdict"].as_str().unwrap()
                )
            })
            .collect()
    };
    for v in ["ugv1", "ugv2"] {
        assert_eq!(
            periods(v),
            ["lte_rural passed", "drop passed", "lte_rural passed"],
            "{v}"
        );
    }
    assert_eq!(periods("ugv3"), ["wifi_mesh passed"]);
    let latency = links["ugv3"]["periods"][0]["measurement"]["latency_ms"]
        .as_f64()
        .unwrap();
    assert!((30.0..50.0).contains(&latency), "ugv3 latency {latency} ms");

    // The recording, read by the independent reader: every heartbeat's send stamps (the
    // ground station's wall clock) and arrival times (simulation time), each link_state.
    let script = r#"
import collections, json, sys
from mcap_ros2.reader import read_ros2_messages
out = collections.defaultdict(lambda: {"log_ns": [], "stamp_s": [], "data": []})
for m in read_ros2_messages(sys.argv[1]):
    t = out[m.channel.topic]
    t["log_ns"].append(m.log_time_ns)
    if m.channel.topic.endswith("/link_state"):
        t["data"].append(m.ros_msg.data)
    elif hasattr(m.ros_msg, "frame_id"):
        t["stamp_s"].append(m.ros_msg.stamp.sec + m.ros_msg.stamp.nanosec * 1e-9)
print(json.dumps(out))
"#;
    let o = Command::new(fieldproof_testkit::python())
        .args(["-c", script])
        .arg(dir.join("recording.mcap"))
        .output()
        .expect("the .venv python (scripts/setup) runs");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let mcap: Json = serde_json::from_slice(&o.stdout).unwrap();
    // Each heartbeat's rate over the timeline, from the recorded timestamps: by the ground
    // station's send stamps (its wall clock, which it sends on) within 10 % of the
    // manifest's; by the arrival times (simulation time, which runs a few % behind the wall
    // clock on a loaded host, so a rate looks faster) 10 % below to 20 % above.
    let start = record["timeline_started_unix"].as_f64().unwrap();
    let end = start + record["timeline_duration_s"].as_f64().unwrap();
    for (topic, hz) in [("/alpha/gcs/heartbeat", 2.0), ("/bravo/radio/beat", 5.0)] {
        let t = &mcap[topic];
        let numbers = |key: &str, scale: f64| -> Vec<f64> {
            t[key]
                .as_array()
                .unwrap()
                .iter()
                .map(|s| s.as_f64().unwrap() * scale)
                .collect()
        };
        let (stamps, logs) = (numbers("stamp_s", 1.0), numbers("log_ns", 1e-9));
        let inside: Vec<usize> = (0..stamps.len())
            .filter(|&i| (start..=end).contains(&stamps[i]))
            .collect();
        assert!(
            inside.len() as f64 >= 0.9 * hz * (end - start),
            "{topic}: {} heartbeats in the timeline",
            inside.len()
        );
        let (first, last) = (inside[0], *inside.last().unwrap());
        let n = (inside.len() - 1) as f64;
        let sent = n / (stamps[last] - stamps[first]);
        let arrived = n / (logs[last] - logs[first]);
        eprintln!(
            "{topic}: {} in the timeline, sent at {sent:.3} Hz, arrived at {arrived:.3} Hz \
             (simulation time)",
            inside.len()
        );
        assert!(
            (sent - hz).abs() <= 0.1 * hz,
            "{topic}: sent at {sent:.3} Hz, expected {hz} Hz ± 10 %"
        );
        assert!(
            (0.9 * hz..=1.2 * hz).contains(&arrived),
            "{topic}: arrived at {arrived:.3} Hz of simulation time, expected {hz} Hz"
        );
    }
    // Each failsafe armed (link_state true), lost its link at its drop and armed again.
    // Before its first heartbeat a failsafe says false once a second, by design; whether
    // the recorder hears one of those depends on discovery order, so they are skipped.
    for ns in ["alpha", "bravo"] {
        let recorded = bools(&mcap[format!("/{ns}/link_state")]["data"]);
        let armed = recorded.iter().position(|&v| v).unwrap_or(recorded.len());
        let data = &recorded[armed..];
        assert_eq!(data.first(), Some(&true), "/{ns}/link_state {recorded:?}");
        assert_eq!(data.last(), Some(&true), "/{ns}/link_state {data:?}");
        assert!(data.contains(&false), "/{ns}/link_state {data:?}");
    }
    // Nothing at all for ugv3 (nor on any vehicle's name).
    for topic in [
        "/charlie/gcs/heartbeat",
        "/charlie/radio/beat",
        "/charlie/link_state",
        "/ugv1/gcs/heartbeat",
        "/ugv2/radio/beat",
        "/ugv3/gcs/heartbeat",
    ] {
        assert!(
            mcap.get(topic).is_none(),
            "{topic} recorded: {}",
            mcap[topic]
        );
        let count = &record["recording"]["topics"][topic][1];
        assert!(count.is_null() || count == 0, "{topic}: {count}");
    }
    assert!(fieldproof_link::netns::namespaces_of(id).is_empty());
}

/// A JSON array of booleans.
fn bools(array: &Json) -> Vec<bool> {
    array
        .as_array()
        .expect("an array")
        .iter()
        .map(|v| v.as_bool().expect("a boolean"))
        .collect()
}
