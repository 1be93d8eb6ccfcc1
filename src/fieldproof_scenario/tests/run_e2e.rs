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
    in_private_netns();
    let s = model::load(file).unwrap();
    let out = tempfile::tempdir().unwrap().keep().join("run");
    let summary = run::run(
        &s,
        &run::RunOptions {
            out: Some(out.clone()),
            ..Default::default()
        },
    );
    (summary, read_json(&out.join("run.json")))
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
        in_private_netns();
        // target/<profile>/deps/run_e2e-* -> target/<profile>/fieldproof
        let exe = std::env::current_exe().unwrap();
        let fieldproof = exe.parent().unwrap().parent().unwrap().join("fieldproof");
        assert!(
            fieldproof.is_file(),
            "{} (cargo build --workspace)",
            fieldproof.display()
        );
        let out = tempfile::tempdir().unwrap().keep().join("run");
        let mut child = Command::new(&fieldproof)
            .arg("run")
            .arg(scenario)
            .arg("--out")
            .arg(&out)
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
        assert_eq!(
            process(&record, &format!("{v}/link_monitor"))["netns"],
            fieldproof_link::netns::vehicle_ns(id, v)
        );
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
    let out = tempfile::tempdir().unwrap();
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
    // No failsafe ran: the stack drove the base directly.
    assert!(record["processes"]
        .as_array()
        .unwrap()
        .iter()
        .all(|p| p["name"] != "ugv1/link_monitor"));
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
    let out = tempfile::tempdir().unwrap().keep().join("run");
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
    let procs = descendants(r.pid());
    assert!(procs.len() >= 8, "{procs:?}");
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
        let argv = strings(&process(&record, &format!("{v}/link_monitor"))["command"]);
        for arg in [
            format!("__ns:=/{ns}"),
            format!("heartbeat_topic:={topic}"),
            format!("heartbeat_qos_reliability:={reliability}"),
            format!("heartbeat_qos_depth:={depth}"),
            format!("timeout_s:={timeout}"),
        ] {
            assert!(argv.contains(&arg.as_str()), "{v}: {arg} not in {argv:?}");
        }
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
    assert!(
        ["ugv1", "ugv2", "ugv3"]
            .iter()
            .all(|v| per_vehicle.get(v).is_some_and(|&n| n >= 3)),
        "{per_vehicle:?}"
    );
    assert!(record["processes"]
        .as_array()
        .unwrap()
        .iter()
        .all(|p| p["name"] != "ugv3/link_monitor"));

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
