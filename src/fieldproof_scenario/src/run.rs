//! Executes a validated scenario: network namespaces and links, processes, readiness,
//! the timeline, the recording, the assertions, the evidence, the teardown.
//!
//! Containment: the runner first moves itself into a fresh network namespace (loopback
//! only), so nothing it or its children send leaves the machine. With a `network`
//! section it then creates the run's namespaces and links (`fieldproof_link`'s
//! [`LinkShaper`], labelled with the run id and removed at the end unless `--keep`), and
//! moves into the world namespace, where the simulator and the runner's own node
//! (recorder, parameter client, goal publisher) run, wired to every vehicle and the
//! ground without shaping; each vehicle's bridge adapters, failsafe and stack run in its
//! own namespace, the ground station in the radio namespace.

use crate::assertions::{self, holds_latest, Evidence};
use crate::evidence::recording::Recording;
use crate::evidence::{self, EntryRecord, PlotInput, ProcessRecord, RunRecord, RunResult};
use crate::interrupt::Interrupt;
use crate::model::{Action, ParamSetting, Scenario, Vehicle};
use crate::plan::{self, Executables, PlanInput, ProcSpec, Ready};
use crate::resources::Sampler;
use crate::store::Store;
use crate::timeline::{Event, Timeline};
use fieldproof_link::analysis::{self, Change, Window};
use fieldproof_link::emulator::EmulatorConfig;
use fieldproof_link::shaper::{unix_now, LinkShaper};
use fieldproof_runtime::msgs::geometry_msgs::{Point, Pose, PoseStamped, Quaternion};
use fieldproof_runtime::msgs::{cdr, std_msgs, RosMessage};
use fieldproof_runtime::{qos, Node, NodeBuilder};
use futures::FutureExt;
use indicatif::{ProgressBar, ProgressStyle};
use ros2_client::parameters::raw;
use ros2_client::rcl_interfaces::{SetParametersRequest, SetParametersResponse};
use serde_json::{json, Value as Json};
use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Write};
use std::os::fd::AsFd;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// The command line's settings.
#[derive(Debug, Clone, Default)]
pub struct RunOptions {
    /// Run directory (default `runs/<scenario>-<run id>`).
    pub out: Option<PathBuf>,
    /// Keep the network namespaces after the run.
    pub keep: bool,
    /// Seed (overrides the scenario's).
    pub seed: Option<u64>,
    /// Simulation speed (overrides the scenario's).
    pub real_time_factor: Option<f64>,
    /// Show the progress display.
    pub progress: bool,
}

/// How a run ended.
#[derive(Debug, Clone)]
pub struct RunSummary {
    /// 0 passed, 1 failed, 2 could not run.
    pub exit_code: u8,
    /// The run directory (if one was created).
    pub dir: Option<PathBuf>,
    /// Why it did not pass.
    pub reasons: Vec<String>,
}

/// Tells a phase of the run: above the progress display, or on stderr without one (a log,
/// CI, a test waiting for the timeline).
fn say(bar: &ProgressBar, msg: impl AsRef<str>) {
    if bar.is_hidden() {
        eprintln!("fieldproof run: {}", msg.as_ref());
    } else {
        bar.println(msg.as_ref());
    }
}

fn could_not_run(dir: Option<PathBuf>, why: String) -> RunSummary {
    RunSummary {
        exit_code: 2,
        dir,
        reasons: vec![why],
    }
}

/// A run id: 8 of [a-z0-9] from the pid and the clock.
pub fn new_run_id() -> String {
    let n = (std::process::id() as u64) << 32
        ^ std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos() as u64)
            .unwrap_or(0);
    let alphabet = b"0123456789abcdefghijklmnopqrstuvwxyz";
    let mut x = n;
    let mut s = String::from("r");
    for _ in 0..7 {
        s.push(alphabet[(x % 36) as usize] as char);
        x /= 36;
    }
    s
}

struct Proc {
    spec: ProcSpec,
    child: Option<Child>,
    started: Instant,
    ready_after: Option<f64>,
    line_seen: Arc<AtomicBool>,
    log: PathBuf,
    exit: Option<std::process::ExitStatus>,
    /// When it exited, in seconds of the timeline (exits during the timeline only).
    exited_at_s: Option<f64>,
    /// The `process.kill` entry that signalled it, and when (seconds of the timeline).
    killed_by: Option<(String, f64)>,
}

impl Proc {
    fn poll_exit(&mut self) -> Option<std::process::ExitStatus> {
        if self.exit.is_none() {
            if let Some(c) = self.child.as_mut() {
                if let Ok(Some(st)) = c.try_wait() {
                    self.exit = Some(st);
                }
            }
        }
        self.exit
    }

    fn signal(&self, sig: nix::sys::signal::Signal) {
        if self.exit.is_none() {
            if let Some(c) = &self.child {
                let _ = nix::sys::signal::kill(nix::unistd::Pid::from_raw(c.id() as i32), sig);
            }
        }
    }

    fn pid(&self) -> Option<i32> {
        self.child.as_ref().map(|c| c.id() as i32)
    }

    /// Why an exit during the timeline that no `process.kill` asked for matters: `Err` (the
    /// run fails) for a failure or a signal, `Ok` (a warning) for a clean exit.
    fn unexpected_exit(&self) -> Option<Result<String, String>> {
        let (at, st) = (self.exited_at_s?, self.exit?);
        if self.killed_by.is_some() {
            return None;
        }
        let what = format!(
            "{} exited at {at:.2} s of the timeline ({st}), no process.kill asked for it; see {}",
            self.spec.name,
            self.log.display()
        );
        Some(if st.success() { Ok(what) } else { Err(what) })
    }

    fn record(&self, sampler: &Sampler) -> ProcessRecord {
        use std::os::unix::process::ExitStatusExt;
        let usage = self.pid().and_then(|p| sampler.usage(p));
        ProcessRecord {
            name: self.spec.name.clone(),
            netns: self.spec.netns.clone(),
            command: self.spec.argv.clone(),
            pid: self.child.as_ref().map(|c| c.id()),
            ready_after_s: self.ready_after,
            exit_code: self.exit.and_then(|e| e.code()),
            signal: self.exit.and_then(|e| e.signal()),
            exited_at_s: self.exited_at_s,
            killed_by: self
                .killed_by
                .as_ref()
                .map(|(entry, at)| format!("{entry} at {at:.2} s")),
            cpu_s: usage.map(|u| u.cpu_s),
            peak_rss_mib: usage.map(|u| u.peak_rss_mib),
            log: Some(self.log.clone()),
        }
    }
}

fn spawn(spec: &ProcSpec, current_ns: Option<&str>, logs: &Path) -> Result<Proc, String> {
    let mut argv = spec.argv.clone();
    if let Some(ns) = &spec.netns {
        if Some(ns.as_str()) != current_ns {
            let mut a = vec!["ip".to_string(), "netns".into(), "exec".into(), ns.clone()];
            a.extend(argv);
            argv = a;
        }
    }
    let log = logs.join(format!("{}.log", spec.name.replace('/', "_")));
    let file = std::fs::File::create(&log).map_err(|e| format!("{}: {e}", log.display()))?;
    let err_file = file.try_clone().map_err(|e| e.to_string())?;
    let mut cmd = Command::new(&argv[0]);
    cmd.args(&argv[1..])
        .stdin(Stdio::null())
        .stderr(Stdio::from(err_file))
        .env("RCUTILS_COLORIZED_OUTPUT", "0");
    fieldproof_launch::child::supervised(&mut cmd);
    let line_seen = Arc::new(AtomicBool::new(false));
    let wants_line = matches!(spec.ready, Ready::Line(_));
    if wants_line {
        cmd.stdout(Stdio::piped());
    } else {
        cmd.stdout(Stdio::from(file.try_clone().map_err(|e| e.to_string())?));
    }
    let mut child = cmd
        .spawn()
        .map_err(|e| format!("{}: cannot start {}: {e}", spec.name, argv[0]))?;
    if let (Ready::Line(want), Some(out)) = (&spec.ready, child.stdout.take()) {
        let want = want.clone();
        let seen = line_seen.clone();
        let mut file = file;
        std::thread::spawn(move || {
            for line in BufReader::new(out).lines().map_while(Result::ok) {
                if line.contains(&want) {
                    seen.store(true, Ordering::Release);
                }
                let _ = writeln!(file, "{line}");
            }
        });
    }
    Ok(Proc {
        spec: spec.clone(),
        child: Some(child),
        started: Instant::now(),
        ready_after: None,
        line_seen,
        log,
        exit: None,
        exited_at_s: None,
        killed_by: None,
    })
}

fn setns_to(path: &Path) -> Result<(), String> {
    let f = std::fs::File::open(path).map_err(|e| format!("{}: {e}", path.display()))?;
    nix::sched::setns(f.as_fd(), nix::sched::CloneFlags::CLONE_NEWNET)
        .map_err(|e| format!("setns {}: {e}", path.display()))
}

/// Moves the calling thread (and so the children it starts) into a fresh network
/// namespace with only loopback up.
fn private_netns() -> Result<(), String> {
    nix::sched::unshare(nix::sched::CloneFlags::CLONE_NEWNET).map_err(|e| {
        format!("cannot create a private network namespace (needs root or CAP_SYS_ADMIN): {e}")
    })?;
    for args in [
        vec!["link", "set", "lo", "up"],
        vec!["link", "set", "lo", "multicast", "on"],
        vec!["route", "add", "224.0.0.0/4", "dev", "lo"],
    ] {
        let _ = Command::new("ip")
            .args(&args)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status();
    }
    Ok(())
}

/// What the DDS part of the run hands back.
#[derive(Default)]
struct DdsOutcome {
    error: Option<String>,
    samples: Vec<(String, i64, Json)>,
    t0_ns: Option<i64>,
    timeline_start_unix: Option<f64>,
    timeline_end_unix: Option<f64>,
    end_s: f64,
    changes: Vec<Change>,
    warnings: Vec<String>,
    recording_error: Option<String>,
}

fn raw_value(p: &ParamSetting) -> raw::ParameterValue {
    let mut v = raw::ParameterValue {
        ptype: 0,
        boolean_value: false,
        int_value: 0,
        double_value: 0.0,
        string_value: String::new(),
        byte_array: vec![],
        bool_array: vec![],
        int_array: vec![],
        double_array: vec![],
        string_array: vec![],
    };
    match p {
        ParamSetting::Bool(b) => {
            v.ptype = raw::ParameterType::BOOL;
            v.boolean_value = *b;
        }
        ParamSetting::Double(d) => {
            v.ptype = raw::ParameterType::DOUBLE;
            v.double_value = *d;
        }
        ParamSetting::Doubles(d) => {
            v.ptype = raw::ParameterType::DOUBLE_ARRAY;
            v.double_array = d.clone();
        }
    }
    v
}

fn describe_setting(p: &ParamSetting) -> String {
    match p {
        ParamSetting::Bool(b) => b.to_string(),
        ParamSetting::Double(d) => d.to_string(),
        ParamSetting::Doubles(d) => format!("{d:?}"),
    }
}

/// Sets parameters through the node's `~/set_parameters` service, as `ros2 param set` does.
type ParamClient = fieldproof_runtime::Client<SetParametersRequest, SetParametersResponse>;

/// The `~/set_parameters` client of a node (made during the bring-up, so it has matched
/// the service before the timeline needs it).
fn param_client(node: &Node, fqn: &str) -> Result<ParamClient, String> {
    node.client::<SetParametersRequest, SetParametersResponse>(
        &format!("{fqn}/set_parameters"),
        "rcl_interfaces/srv/SetParameters",
    )
    .map_err(|e| format!("{fqn}/set_parameters: {e}"))
}

async fn set_params(
    client: &ParamClient,
    fqn: &str,
    params: &[(String, ParamSetting)],
) -> Result<String, String> {
    let req = SetParametersRequest {
        parameter: params
            .iter()
            .map(|(n, v)| raw::Parameter {
                name: n.clone(),
                value: raw_value(v),
            })
            .collect(),
    };
    let resp = client
        .call_retry(req, Duration::from_millis(500), 6)
        .await
        .map_err(|e| format!("{fqn}/set_parameters: {e}"))?;
    let mut done = Vec::new();
    for ((n, v), r) in params.iter().zip(&resp.results) {
        if !r.successful {
            return Err(format!("{fqn}: {n} refused: {}", r.reason));
        }
        done.push(format!("{n}={}", describe_setting(v)));
    }
    if resp.results.len() != params.len() {
        return Err(format!(
            "{fqn}: {} results for {} parameters",
            resp.results.len(),
            params.len()
        ));
    }
    Ok(format!("set {fqn} {}", done.join(" ")))
}

struct Recorder {
    samples: Vec<(String, i64, Json)>,
    latest: BTreeMap<String, Json>,
    mcap: Option<Recording>,
    error: Option<String>,
}

fn start_recorder<T: RosMessage>(
    node: &Node,
    topic: &str,
    sink: Arc<Mutex<Recorder>>,
) -> Result<(), String> {
    let sub = node
        .subscription::<T>(topic, qos::default().best_effort().keep_last(200))
        .map_err(|e| e.to_string())?;
    let clock = node.clock();
    let topic = topic.to_string();
    node.spawn(async move {
        while let Ok(m) = sub.recv().await {
            let t = clock.now_nanos();
            let json = serde_json::to_value(&m).unwrap_or(Json::Null);
            let mut r = sink.lock().expect("recorder");
            match cdr::to_bytes(&m) {
                Ok(bytes) => {
                    if let Some(rec) = r.mcap.as_mut() {
                        if let Err(e) = rec.write(&topic, T::TYPE_NAME, t.max(0) as u64, &bytes) {
                            r.error.get_or_insert(e.to_string());
                        }
                    }
                }
                Err(e) => {
                    r.error.get_or_insert(format!("{topic}: {e}"));
                }
            }
            r.latest.insert(topic.clone(), json.clone());
            r.samples.push((topic.clone(), t, json));
        }
    })
    .detach();
    Ok(())
}

/// A goal in the vehicle's odom frame (its origin: the spawn pose).
fn goal_in_odom(spawn: &crate::model::PoseSpec, goal: &crate::model::PoseSpec) -> (f64, f64, f64) {
    let yaw = spawn.yaw_deg.to_radians();
    let (dx, dy) = (goal.xyz[0] - spawn.xyz[0], goal.xyz[1] - spawn.xyz[1]);
    let (s, c) = yaw.sin_cos();
    (
        c * dx + s * dy,
        -s * dx + c * dy,
        (goal.yaw_deg - spawn.yaw_deg).to_radians(),
    )
}

struct Shared {
    shaper: Option<LinkShaper>,
    procs: Vec<Proc>,
}

/// Starts `link_net cleanup --run-id <run> --after-stdin-closes` on a pipe whose writing
/// end only this process holds: however the runner ends, even by SIGKILL, the kernel
/// closes the pipe and the guard removes what is left of the run's network. Its own
/// process group and no death signal, so that it outlives the runner.
fn start_cleanup_guard(exes: &Executables, run_id: &str, logs: &Path) -> Result<Child, String> {
    let link_net = exes
        .find("fieldproof_link", "link_net")
        .map_err(|e| e.to_string())?;
    let log_path = logs.join("cleanup_guard.log");
    let log =
        std::fs::File::create(&log_path).map_err(|e| format!("{}: {e}", log_path.display()))?;
    let log_err = log.try_clone().map_err(|e| e.to_string())?;
    Command::new(&link_net)
        .args(["cleanup", "--run-id", run_id, "--after-stdin-closes"])
        .stdin(Stdio::piped())
        .stdout(Stdio::from(log))
        .stderr(Stdio::from(log_err))
        .process_group(0)
        .spawn()
        .map_err(|e| format!("{}: {e}", link_net.display()))
}

/// Closes the guard's pipe after the teardown (nothing is left for it to remove) and
/// waits a moment for it to end.
fn release_cleanup_guard(mut guard: Child) {
    drop(guard.stdin.take());
    let until = Instant::now() + Duration::from_secs(5);
    while Instant::now() < until {
        if !matches!(guard.try_wait(), Ok(None)) {
            return;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let _ = guard.kill();
    let _ = guard.wait();
}

/// Runs a validated scenario.
pub fn run(s: &Scenario, o: &RunOptions) -> RunSummary {
    let started_unix = unix_now();
    // From here on a SIGINT/SIGTERM/SIGHUP ends in the teardown, whatever the phase.
    let interrupt = match Interrupt::catch() {
        Ok(i) => i,
        Err(e) => return could_not_run(None, format!("catching SIGINT/SIGTERM: {e}")),
    };
    let seed = o.seed.or(s.raw.seed).unwrap_or(0);
    let rtf = o.real_time_factor.or(s.raw.real_time_factor).unwrap_or(1.0);
    let run_id = new_run_id();
    let dir = o
        .out
        .clone()
        .unwrap_or_else(|| PathBuf::from("runs").join(format!("{}-{run_id}", s.raw.name)));
    if dir.exists()
        && std::fs::read_dir(&dir)
            .map(|mut d| d.next().is_some())
            .unwrap_or(true)
    {
        return could_not_run(
            None,
            format!("--out {}: exists and is not empty", dir.display()),
        );
    }
    // Everything the plan needs must exist before anything is created.
    let exes = Executables::from_env();
    let vehicle_ns: Vec<Option<String>> = s
        .vehicles
        .iter()
        .map(|v| {
            s.network
                .as_ref()
                .map(|_| fieldproof_link::netns::vehicle_ns(&run_id, &v.name))
        })
        .collect();
    let radio = s.network.as_ref().map(|_| {
        (
            fieldproof_link::netns::radio_ns(&run_id),
            (1..=s.vehicles.len())
                .map(|i| fieldproof_link::netns::vehicle_addr(i).to_string())
                .collect::<Vec<_>>(),
        )
    });
    let world_ns = s
        .network
        .as_ref()
        .map(|_| fieldproof_link::netns::world_ns(&run_id));
    let abs_dir = std::env::current_dir()
        .map(|c| c.join(&dir))
        .unwrap_or(dir.clone());
    let specs = match plan::plan(
        s,
        &PlanInput {
            dir: &abs_dir,
            seed,
            real_time_factor: rtf,
            vehicle_netns: vehicle_ns.clone(),
            radio: radio.clone(),
            world_netns: world_ns.clone(),
        },
        &exes,
    ) {
        Ok(p) => p,
        Err(e) => return could_not_run(None, e.to_string()),
    };
    if let Err(e) = std::fs::create_dir_all(abs_dir.join("logs")) {
        return could_not_run(None, format!("{}: {e}", dir.display()));
    }
    let dir = abs_dir;
    // Bundles.
    for v in &s.vehicles {
        let opts = v.bundle.options.clone();
        if let Err(e) =
            fieldproof_bridge::gen::run(&v.manifest_path, &opts, &dir.join("bundles").join(&v.name))
        {
            return could_not_run(Some(dir), format!("vehicles {}: bridge_gen: {e}", v.name));
        }
    }
    // Containment.
    if let Err(e) = private_netns() {
        return could_not_run(Some(dir), e);
    }
    let home_ns = match std::fs::File::open("/proc/thread-self/ns/net") {
        Ok(f) => f,
        Err(e) => return could_not_run(Some(dir), format!("/proc/thread-self/ns/net: {e}")),
    };
    let bar = if o.progress {
        ProgressBar::new(s.duration_s.ceil() as u64)
    } else {
        ProgressBar::hidden()
    };
    bar.set_style(
        ProgressStyle::with_template(
            "{spinner} [{elapsed_precise}] {bar:30} {pos}/{len} s sim  {prefix}  {msg}",
        )
        .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    bar.set_message("creating the network");
    let mut shared = Shared {
        shaper: None,
        procs: Vec::new(),
    };
    let mut early_warnings = Vec::new();
    let mut guard = None;
    if let Some(net) = &s.network {
        // Namespaces a killed runner left behind (its label names a dead owner) go first.
        match fieldproof_link::netns::cleanup_stale() {
            Ok(gone) if !gone.is_empty() => early_warnings.push(format!(
                "removed namespaces left by a runner that is gone: {}",
                gone.join(", ")
            )),
            Ok(_) => {}
            Err(e) => early_warnings.push(format!("cleaning up stale namespaces: {e}")),
        }
        // Unless they are to be kept, a guard removes them should the runner die outright.
        if !o.keep {
            match start_cleanup_guard(&exes, &run_id, &dir.join("logs")) {
                Ok(g) => guard = Some(g),
                Err(e) => early_warnings.push(format!(
                    "no cleanup guard ({e}): a runner killed with SIGKILL would leave its namespaces until the next run"
                )),
            }
        }
        let backend = fieldproof_link::tc::select_backend(None);
        let names: Vec<String> = s.vehicles.iter().map(|v| v.name.clone()).collect();
        let cfg = EmulatorConfig {
            seed: Some(seed),
            ..EmulatorConfig::default()
        };
        match LinkShaper::start(&run_id, &names, net.clone(), backend, cfg, unix_now()) {
            Ok(mut sh) => {
                sh.keep(o.keep);
                shared.shaper = Some(sh);
            }
            Err(e) => return could_not_run(Some(dir), format!("network: {e}")),
        }
        // The runner observes from the world namespace, beside the simulator.
        let ns = world_ns.clone().expect("a network");
        if let Err(e) = setns_to(&PathBuf::from("/run/netns").join(&ns)) {
            return could_not_run(Some(dir), e);
        }
    }
    let current_ns = world_ns.clone();
    let recording = Recording::create(&dir.join("recording.mcap"));
    let recorder = Arc::new(Mutex::new(Recorder {
        samples: Vec::new(),
        latest: BTreeMap::new(),
        mcap: None,
        error: None,
    }));
    match recording {
        Ok(r) => recorder.lock().expect("recorder").mcap = Some(r),
        Err(e) => recorder.lock().expect("recorder").error = Some(e.to_string()),
    }
    say(&bar, format!("run {run_id}: evidence in {}", dir.display()));
    // Processes.
    bar.set_message("starting processes");
    let mut start_error = None;
    let mut sampler = Sampler::new();
    for spec in &specs {
        if let Some(sig) = interrupt.caught() {
            start_error = Some(format!(
                "interrupted by {sig} during the bring-up (starting the processes)"
            ));
            break;
        }
        match spawn(spec, current_ns.as_deref(), &dir.join("logs")) {
            Ok(p) => shared.procs.push(p),
            Err(e) => {
                start_error = Some(e);
                break;
            }
        }
    }
    let shared = Arc::new(Mutex::new(shared));
    let mut outcome = DdsOutcome::default();
    let mut timeline = Timeline::new(s.timeline.clone());
    if start_error.is_none() {
        let ctx = RunContext {
            scenario: s,
            shared: &shared,
            bar: &bar,
            interrupt: &interrupt,
        };
        let (o2, tl) = run_dds(&ctx, recorder.clone(), timeline, &mut sampler);
        outcome = o2;
        timeline = tl;
    } else {
        outcome.error = start_error;
    }
    bar.set_message("tearing down");
    say(&bar, "tearing down");
    // Teardown: SIGINT, then SIGKILL after the grace period.
    let mut sh = match Arc::try_unwrap(shared) {
        Ok(m) => m.into_inner().unwrap_or_else(|e| e.into_inner()),
        Err(_) => unreachable!("the DDS part has returned"),
    };
    let roots: Vec<i32> = sh
        .procs
        .iter_mut()
        .filter_map(|p| {
            if p.poll_exit().is_none() {
                p.pid()
            } else {
                None
            }
        })
        .collect();
    sampler.sample(&roots);
    for p in sh.procs.iter().rev() {
        p.signal(nix::sys::signal::Signal::SIGINT);
    }
    let grace = Instant::now() + Duration::from_secs_f64(s.raw.timeouts.shutdown_s.get());
    while Instant::now() < grace && sh.procs.iter_mut().any(|p| p.poll_exit().is_none()) {
        std::thread::sleep(Duration::from_millis(50));
    }
    for p in sh.procs.iter_mut() {
        if p.poll_exit().is_none() {
            p.signal(nix::sys::signal::Signal::SIGKILL);
            if let Some(c) = p.child.as_mut() {
                p.exit = c.wait().ok();
            }
        }
    }
    // Network evidence.
    let mut network_json = None;
    let mut link_report = None;
    let mut reasons: Vec<String> = Vec::new();
    let mut warnings = early_warnings;
    warnings.extend(outcome.warnings.iter().cloned());
    let resources = sampler.finish();
    if let (Some(net), Some(shaper)) = (&s.network, sh.shaper.as_ref()) {
        let windows: Vec<Window> = std::fs::read_to_string(dir.join("network.jsonl"))
            .unwrap_or_default()
            .lines()
            .filter_map(|l| serde_json::from_str(l).ok())
            .collect();
        let traffic: BTreeMap<String, Json> = s
            .vehicles
            .iter()
            .map(|v| {
                (
                    v.name.clone(),
                    shaper
                        .counters(&v.name)
                        .map(|c| serde_json::to_value(c).unwrap_or(Json::Null))
                        .unwrap_or_else(|e| json!({"error": e.to_string()})),
                )
            })
            .collect();
        let start = outcome.timeline_start_unix.unwrap_or(started_unix);
        let end_s = outcome.timeline_end_unix.map(|e| e - start);
        match analysis::analyse(net, &windows, &outcome.changes, start, end_s) {
            Ok(rep) => {
                let (w, fails) = analysis::apply_verify(&rep, net.section.verify);
                if fails {
                    reasons.extend(rep.failed.iter().cloned());
                } else {
                    warnings.extend(w);
                }
                network_json = Some(json!({
                    "verify": net.section.verify,
                    "topology": shaper.topology(),
                    "ground_station": {"netns": fieldproof_link::netns::radio_ns(&run_id), "address": fieldproof_link::netns::GROUND_ADDR.to_string()},
                    "windows": windows.len(),
                    "changes": outcome.changes,
                    "periods": rep,
                    "traffic": traffic,
                }));
                link_report = Some(rep);
            }
            Err(e) => warnings.push(format!("link analysis: {e}")),
        }
    }
    // Back home before the namespaces go.
    let _ = nix::sched::setns(home_ns.as_fd(), nix::sched::CloneFlags::CLONE_NEWNET);
    drop(sh.shaper.take());
    if let Some(g) = guard {
        release_cleanup_guard(g);
    }
    // Recording.
    let mut rec = recorder.lock().expect("recorder");
    if s.network.is_some() && s.recorded_topics.contains_key(crate::model::NETWORK_TOPIC) {
        if let (Some(t0), Some(start)) = (outcome.t0_ns, outcome.timeline_start_unix) {
            let wall = outcome.timeline_end_unix.map(|e| e - start).unwrap_or(0.0);
            let speed = if wall > 0.0 && outcome.end_s > 0.0 {
                outcome.end_s / wall
            } else {
                rtf
            };
            let text = std::fs::read_to_string(dir.join("network.jsonl")).unwrap_or_default();
            for line in text.lines() {
                let Some(t) = serde_json::from_str::<Window>(line).ok().map(|w| w.t) else {
                    continue;
                };
                // Wall clock to simulation time around the timeline's start, at the
                // speed the simulation ran.
                let ns = t0 + ((t - start) * speed * 1e9) as i64;
                let msg = std_msgs::String {
                    data: line.to_string(),
                };
                if let (Ok(bytes), Some(m)) = (cdr::to_bytes(&msg), rec.mcap.as_mut()) {
                    if let Err(e) = m.write(
                        crate::model::NETWORK_TOPIC,
                        std_msgs::String::TYPE_NAME,
                        ns.max(0) as u64,
                        &bytes,
                    ) {
                        warnings.push(format!("recording: {e}"));
                        break;
                    }
                }
                rec.samples.push((
                    crate::model::NETWORK_TOPIC.to_string(),
                    ns,
                    serde_json::to_value(&msg).unwrap_or(Json::Null),
                ));
            }
        }
    }
    let recording = rec.mcap.take().and_then(|r| match r.finish() {
        Ok(s) => Some(s),
        Err(e) => {
            warnings.push(format!("recording: {e}"));
            None
        }
    });
    if let Some(e) = rec.error.take().or(outcome.recording_error.take()) {
        warnings.push(format!("recording: {e}"));
    }
    let t0 = outcome.t0_ns.unwrap_or(0);
    let mut store = Store::new();
    for (topic, t, m) in std::mem::take(&mut outcome.samples)
        .into_iter()
        .chain(std::mem::take(&mut rec.samples))
    {
        store.push(&topic, (t - t0) as f64 / 1e9, m);
    }
    drop(rec);
    // Assertions.
    let truth: Vec<(String, String)> = s
        .vehicles
        .iter()
        .map(|v| {
            (
                v.name.clone(),
                crate::model::truth_topic(&crate::model::label(v)),
            )
        })
        .collect();
    let outcomes = if outcome.error.is_none() {
        assertions::evaluate(
            &s.assertions,
            &Evidence {
                store: &store,
                timeline: &timeline,
                end_s: outcome.end_s,
                links: link_report.as_ref(),
                truth_topics: &truth,
            },
        )
    } else {
        Vec::new()
    };
    for a in &outcomes {
        if !a.passed {
            reasons.push(
                a.reason
                    .clone()
                    .unwrap_or_else(|| format!("assertion {} failed", a.name)),
            );
        }
    }
    for (e, st) in timeline.entries().iter().zip(timeline.states()) {
        for f in &st.firings {
            if let Some(err) = &f.error {
                reasons.push(format!("timeline entry {}: {err}", e.name));
            }
        }
    }
    for p in &sh.procs {
        match p.unexpected_exit() {
            Some(Err(failure)) => reasons.push(failure),
            Some(Ok(clean)) => warnings.push(clean),
            None => {}
        }
    }
    let exit_code = if let Some(e) = &outcome.error {
        reasons.insert(0, e.clone());
        2
    } else if reasons.is_empty() {
        0
    } else {
        1
    };
    let record = RunRecord {
        scenario: s.raw.name.clone(),
        scenario_file: s.file.clone(),
        scenario_raw: serde_json::to_value(&s.raw).unwrap_or(Json::Null),
        run_id: run_id.clone(),
        versions: evidence::versions(),
        seed,
        real_time_factor: rtf,
        started_unix,
        timeline_started_unix: outcome.timeline_start_unix,
        ended_unix: unix_now(),
        timeline_duration_s: outcome.end_s,
        result: RunResult {
            exit_code,
            status: match exit_code {
                0 => "passed",
                1 => "failed",
                _ if interrupt.caught().is_some() => "interrupted",
                _ => "error",
            }
            .into(),
            reasons: reasons.clone(),
            warnings,
        },
        timeline: timeline
            .entries()
            .iter()
            .zip(timeline.states())
            .map(|(e, st)| EntryRecord {
                name: e.name.clone(),
                action: e.action_name.clone(),
                vehicle: e.vehicle.clone(),
                trigger: serde_json::to_value(&e.trigger).unwrap_or(Json::Null),
                state: st.clone(),
            })
            .collect(),
        assertions: outcomes,
        network: network_json,
        processes: sh.procs.iter().map(|p| p.record(&sampler)).collect(),
        resources: Some(resources),
        recording,
    };
    if let Err(e) = evidence::write_run_json(&dir, &record) {
        reasons.push(format!("run.json: {e}"));
    }
    let goals: Vec<(String, (f64, f64))> = s
        .timeline
        .iter()
        .filter_map(|e| match &e.action {
            Action::NavigateTo { goal, pose } => Some((
                goal.clone().unwrap_or_else(|| e.name.clone()),
                (pose.xyz[0], pose.xyz[1]),
            )),
            _ => None,
        })
        .collect();
    let input = PlotInput {
        store: &store,
        world: &s.world,
        vehicles: s
            .vehicles
            .iter()
            .map(|v| {
                let ns = v.topic_prefix();
                (
                    v.name.clone(),
                    format!("{ns}/{}", v.manifest.drive.odometry.ros_topic),
                    format!("{ns}/link_state"),
                    crate::model::truth_topic(&crate::model::label(v)),
                )
            })
            .collect(),
        goals,
    };
    if let Err(e) = evidence::write_reports(&dir, &record, &input) {
        reasons.push(format!("reports: {e}"));
    }
    bar.finish_and_clear();
    RunSummary {
        exit_code,
        dir: Some(dir),
        reasons,
    }
}

/// What the DDS part reads of the run.
struct RunContext<'a> {
    scenario: &'a Scenario,
    shared: &'a Arc<Mutex<Shared>>,
    bar: &'a ProgressBar,
    interrupt: &'a Interrupt,
}

/// The DDS part: readiness, the timeline, the recording. Runs on this thread (in the
/// vehicle's namespace) with the runner's own node, to completion even on a signal (its
/// state is the run's evidence).
fn run_dds(
    ctx: &RunContext,
    recorder: Arc<Mutex<Recorder>>,
    timeline: Timeline,
    sampler: &mut Sampler,
) -> (DdsOutcome, Timeline) {
    let cfg = match NodeBuilder::new("fieldproof_run").resolve(
        [
            "fieldproof_run",
            "--ros-args",
            "-p",
            "use_sim_time:=true",
            "--log-level",
            "warn",
        ],
        |k| std::env::var(k).ok(),
    ) {
        Ok(c) => c,
        Err(e) => {
            return (
                DdsOutcome {
                    error: Some(format!("runner node: {e}")),
                    ..Default::default()
                },
                timeline,
            )
        }
    };
    let result: Arc<Mutex<Option<(DdsOutcome, Timeline)>>> = Arc::new(Mutex::new(None));
    let slot = result.clone();
    let tl_fallback = timeline.clone();
    let r = fieldproof_runtime::run_to_completion(cfg, move |node| async move {
        let (out, tl) = dds_body(&node, ctx, recorder, timeline, sampler).await;
        *slot.lock().expect("slot") = Some((out, tl));
        Ok(())
    });
    let got = result.lock().expect("slot").take();
    match (got, r) {
        (Some(x), _) => x,
        (None, Err(e)) => (
            DdsOutcome {
                error: Some(format!("runner node: {e}")),
                ..Default::default()
            },
            tl_fallback,
        ),
        (None, Ok(())) => (
            DdsOutcome {
                error: Some(format!(
                    "interrupted by {}",
                    ctx.interrupt.caught().unwrap_or("a signal")
                )),
                ..Default::default()
            },
            tl_fallback,
        ),
    }
}

async fn dds_body(
    node: &Node,
    ctx: &RunContext<'_>,
    recorder: Arc<Mutex<Recorder>>,
    mut timeline: Timeline,
    sampler: &mut Sampler,
) -> (DdsOutcome, Timeline) {
    let (s, shared, bar, interrupt) = (ctx.scenario, ctx.shared, ctx.bar, ctx.interrupt);
    let mut out = DdsOutcome::default();
    let interrupted = |phase: &str| {
        format!(
            "interrupted by {} during {phase}",
            interrupt.caught().unwrap_or("a signal")
        )
    };
    let t_start = Instant::now();
    // Recorder subscriptions.
    for (topic, ty) in &s.recorded_topics {
        if s.network.is_some() && topic == crate::model::NETWORK_TOPIC {
            // Written from network.jsonl at the end: every window, not only those that
            // crossed the link to the vehicle's side.
            continue;
        }
        let r =
            fieldproof_msgs::dispatch!(ty, |T| start_recorder::<T>(node, topic, recorder.clone()));
        match r {
            Ok(Ok(())) => {}
            Ok(Err(e)) => out.warnings.push(format!("record {topic}: {e}")),
            Err(e) => out.warnings.push(format!("record {topic}: {e}")),
        }
    }
    // Goal publishers.
    let mut goal_pubs = BTreeMap::new();
    for v in &s.vehicles {
        let ns = v.topic_prefix();
        match node.publisher::<PoseStamped>(&format!("{ns}/goal_pose"), qos::latched()) {
            Ok(p) => {
                goal_pubs.insert(v.name.clone(), p);
            }
            Err(e) => {
                out.error = Some(format!("goal publisher of {}: {e}", v.name));
                return (out, timeline);
            }
        }
    }
    // Parameter clients of every node a fault event sets.
    let mut clients: BTreeMap<String, ParamClient> = BTreeMap::new();
    for e in &s.timeline {
        if let Action::Fault { fault, .. } = &e.action {
            let v = s
                .vehicles
                .iter()
                .find(|v| Some(&v.name) == e.vehicle.as_ref());
            let ns = v.map(Vehicle::topic_prefix).unwrap_or_default();
            let fqn = format!("{ns}/{}", fault.node);
            if let std::collections::btree_map::Entry::Vacant(slot) = clients.entry(fqn) {
                match param_client(node, slot.key()) {
                    Ok(c) => {
                        slot.insert(c);
                    }
                    Err(err) => {
                        out.error = Some(err);
                        return (out, timeline);
                    }
                }
            }
        }
    }
    // Readiness.
    bar.set_message("waiting for the processes to be ready");
    let ready_deadline = Instant::now() + Duration::from_secs_f64(s.raw.timeouts.ready_s.get());
    let ground_deadline = Instant::now() + Duration::from_secs_f64(s.raw.timeouts.ground_s.get());
    loop {
        let names: Vec<String> = node
            .nodes()
            .iter()
            .map(|n| n.fully_qualified_name())
            .collect();
        let clock_ok = node.clock().now_nanos() > 0;
        let mut waiting = Vec::new();
        let mut died = None;
        {
            let mut sh = shared.lock().expect("shared");
            for p in sh.procs.iter_mut() {
                if let Some(st) = p.poll_exit() {
                    died = Some(format!(
                        "{} exited during the bring-up ({st}); see {}",
                        p.spec.name,
                        p.log.display()
                    ));
                    break;
                }
                if p.ready_after.is_some() {
                    continue;
                }
                let ok = match &p.spec.ready {
                    Ready::Node(f) => names.iter().any(|n| n == f),
                    Ready::Line(_) => p.line_seen.load(Ordering::Acquire),
                    Ready::Started => true,
                };
                if ok {
                    p.ready_after = Some(p.started.elapsed().as_secs_f64());
                } else {
                    waiting.push((p.spec.name.clone(), matches!(p.spec.ready, Ready::Line(_))));
                }
            }
        }
        if interrupt.caught().is_some() || node.is_shutting_down() {
            // Checked before the deaths: a signal may have reached the processes too.
            out.error = Some(interrupted("the bring-up"));
            return (out, timeline);
        }
        if let Some(d) = died {
            out.error = Some(d);
            return (out, timeline);
        }
        for (fqn, c) in &clients {
            if !c.service_is_ready() {
                waiting.push((format!("{fqn}/set_parameters"), false));
            }
        }
        // Behind a link, the vehicle's failsafe must hear its ground station before the
        // timeline starts (discovery over a slow link takes a while; a failsafe that never
        // armed would never declare the link lost). The runner sits in the world namespace,
        // which hears the ground directly, so the proof is link_monitor's own latched
        // link_state true, which it publishes at its first heartbeat.
        if s.network.is_some() {
            let latest = &recorder.lock().expect("recorder").latest;
            for topic in s
                .vehicles
                .iter()
                .filter_map(crate::model::failsafe_state_topic)
            {
                let heard = latest
                    .get(&topic)
                    .and_then(|m| m.get("data"))
                    .and_then(Json::as_bool)
                    == Some(true);
                if !heard {
                    waiting.push((
                        format!("{topic} true (the ground heard over the link)"),
                        true,
                    ));
                }
            }
        }
        if waiting.is_empty() && clock_ok {
            break;
        }
        let now = Instant::now();
        let late: Vec<&str> = waiting
            .iter()
            .filter(|(_, ground)| {
                if *ground {
                    now > ground_deadline
                } else {
                    now > ready_deadline
                }
            })
            .map(|(n, _)| n.as_str())
            .collect();
        if !late.is_empty() || (!clock_ok && now > ready_deadline) {
            let mut who: Vec<String> = late.iter().map(|s| s.to_string()).collect();
            if !clock_ok {
                who.push("simulator (/clock)".into());
            }
            out.error = Some(format!("not ready in time: {}", who.join(", ")));
            return (out, timeline);
        }
        bar.set_message(format!(
            "waiting for {}",
            waiting
                .iter()
                .map(|w| w.0.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        ));
        futures::select! {
            _ = smol::Timer::after(Duration::from_millis(100)).fuse() => {}
            _ = node.shutdown_requested().fuse() => { out.error = Some(interrupted("the bring-up")); return (out, timeline); }
        }
    }
    // The timeline.
    say(
        bar,
        format!(
            "ready after {:.1} s; timeline started ({} s of simulation time)",
            t_start.elapsed().as_secs_f64(),
            s.duration_s
        ),
    );
    let clock = node.clock();
    let t0 = clock.now_nanos();
    out.t0_ns = Some(t0);
    let start_unix = unix_now();
    out.timeline_start_unix = Some(start_unix);
    let run_deadline = t_start + Duration::from_secs_f64(s.raw.timeouts.run_s.get());
    let topics_of = |v: &str| s.vehicles.iter().find(|x| x.name == v);
    let mut next_sample = Instant::now();
    loop {
        let now_s = (clock.now_nanos() - t0) as f64 / 1e9;
        if now_s >= s.duration_s {
            break;
        }
        if interrupt.caught().is_some() || node.is_shutting_down() {
            out.error = Some(interrupted(&format!(
                "the timeline, at {now_s:.1} of {} s",
                s.duration_s
            )));
            break;
        }
        if Instant::now() > run_deadline {
            out.error = Some(format!(
                "the run did not end within timeouts.run_s ({} s of wall clock): the timeline reached {now_s:.1} of {} s",
                s.raw.timeouts.run_s.get(),
                s.duration_s
            ));
            break;
        }
        bar.set_position(now_s.max(0.0) as u64);
        {
            let mut sh = shared.lock().expect("shared");
            let total = sh.procs.len();
            let mut running = Vec::new();
            for p in sh.procs.iter_mut() {
                let was_running = p.exit.is_none();
                match p.poll_exit() {
                    None => running.extend(p.pid()),
                    Some(st) if was_running => {
                        p.exited_at_s = Some(now_s);
                        say(
                            bar,
                            format!(
                                "{} exited at {now_s:.2} s of the timeline ({st}){}",
                                p.spec.name,
                                p.killed_by
                                    .as_ref()
                                    .map(|(e, _)| format!(", after {e}"))
                                    .unwrap_or_default()
                            ),
                        );
                    }
                    Some(_) => {}
                }
            }
            if Instant::now() >= next_sample {
                sampler.sample(&running);
                next_sample += Duration::from_secs(1);
            }
            bar.set_prefix(format!("{}/{total} processes", running.len()));
        }
        let events = {
            let mut latest = Store::new();
            for (topic, m) in &recorder.lock().expect("recorder").latest {
                latest.push(topic, 0.0, m.clone());
            }
            timeline.poll(now_s, &|c| holds_latest(&latest, c))
        };
        for ev in events {
            let (i, end) = match ev {
                Event::Start(i) => (i, false),
                Event::End(i) => (i, true),
            };
            let e = timeline.entries()[i].clone();
            bar.set_message(format!(
                "{} ({}) {} at {now_s:.1} s",
                e.name,
                e.action_name,
                if end { "ended" } else { "started" }
            ));
            let vname = e.vehicle.clone().unwrap_or_default();
            let veh = topics_of(&vname);
            let ns = veh.map(Vehicle::topic_prefix).unwrap_or_default();
            let result: Result<String, String> = match (&e.action, end) {
                (Action::LinkSet { profile }, false) => link(
                    shared,
                    &mut out,
                    &e.name,
                    &vname,
                    start_unix,
                    "link.set",
                    |sh| sh.set(&vname, profile),
                )
                .map(|_| format!("{profile} in force")),
                (Action::LinkDrop, false) => link(
                    shared,
                    &mut out,
                    &e.name,
                    &vname,
                    start_unix,
                    "link.drop",
                    |sh| sh.drop_link(&vname, None),
                )
                .map(|_| match e.duration_s {
                    Some(d) => format!("dropped for {d} s"),
                    None => "dropped".into(),
                }),
                (Action::LinkDrop, true) | (Action::LinkRestore, _) => {
                    let name = s
                        .network
                        .as_ref()
                        .map(|n| n.configured_name(&vname).to_string())
                        .unwrap_or_default();
                    let cause = match (end, e.duration_s) {
                        (true, Some(d)) => format!("restored after {d} s"),
                        _ => "link.restore".to_string(),
                    };
                    link(
                        shared,
                        &mut out,
                        &e.name,
                        &vname,
                        start_unix,
                        &cause,
                        |sh| sh.restore(&vname),
                    )
                    .map(|_| format!("{name} restored"))
                }
                (Action::LinkSet { .. }, true) => Ok(String::new()),
                (Action::Fault { fault, .. }, end) => {
                    let params = if end { &fault.clear } else { &fault.set };
                    if params.is_empty() {
                        Ok("nothing to clear".into())
                    } else {
                        let fqn = format!("{ns}/{}", fault.node);
                        match clients.get(&fqn) {
                            Some(c) => set_params(c, &fqn, params).await,
                            None => Err(format!("no parameter client for {fqn}")),
                        }
                    }
                }
                (Action::NavigateTo { goal, pose }, false) => {
                    let v = veh.expect("validated vehicle");
                    let (x, y, yaw) = goal_in_odom(&v.pose, pose);
                    let msg = PoseStamped {
                        header: std_msgs::Header {
                            stamp: node.now(),
                            frame_id: "odom".into(),
                        },
                        pose: Pose {
                            position: Point { x, y, z: 0.0 },
                            orientation: Quaternion {
                                x: 0.0,
                                y: 0.0,
                                z: (yaw / 2.0).sin(),
                                w: (yaw / 2.0).cos(),
                            },
                        },
                    };
                    match goal_pubs.get(&vname).map(|p| p.publish(msg)) {
                        Some(Ok(())) => Ok(format!(
                            "goal {} sent: ({x:.2}, {y:.2}) in {vname}'s odom frame",
                            goal.clone().unwrap_or_default()
                        )),
                        Some(Err(err)) => Err(err.to_string()),
                        None => Err(format!("no goal publisher for {vname}")),
                    }
                }
                (Action::ProcessKill { node: n, signal }, false) => {
                    let sig = match signal.as_str() {
                        "KILL" => nix::sys::signal::Signal::SIGKILL,
                        "INT" => nix::sys::signal::Signal::SIGINT,
                        _ => nix::sys::signal::Signal::SIGTERM,
                    };
                    let mut sh = shared.lock().expect("shared");
                    let target = sh.procs.iter_mut().find(|p| {
                        p.spec.vehicle.as_deref() == Some(vname.as_str())
                            && (p.spec.node.as_deref() == Some(n.as_str())
                                || (n == "stack" && p.spec.stack))
                    });
                    match target {
                        None => Err(format!("no process {n} of {vname}")),
                        Some(p) => match p.poll_exit() {
                            Some(st) => Err(format!("{} had already exited ({st})", p.spec.name)),
                            None => {
                                p.signal(sig);
                                p.killed_by = Some((e.name.clone(), now_s));
                                Ok(format!(
                                    "sent SIG{signal} to {} (pid {})",
                                    p.spec.name,
                                    p.pid().unwrap_or_default()
                                ))
                            }
                        },
                    }
                }
                (_, true) => Ok(String::new()),
            };
            timeline.record(i, end, result);
        }
        if let Some(sh) = shared.lock().expect("shared").shaper.as_mut() {
            if let Err(e) = sh.tick() {
                out.warnings.push(format!("link shaper: {e}"));
            }
        }
        futures::select! {
            _ = smol::Timer::after(Duration::from_millis(20)).fuse() => {}
            _ = node.shutdown_requested().fuse() => {}
        }
    }
    out.end_s = ((clock.now_nanos() - t0) as f64 / 1e9)
        .min(s.duration_s.max(0.0))
        .max(0.0);
    out.timeline_end_unix = Some(unix_now());
    (out, timeline)
}

fn link(
    shared: &Arc<Mutex<Shared>>,
    out: &mut DdsOutcome,
    entry: &str,
    vehicle: &str,
    start_unix: f64,
    cause: &str,
    f: impl FnOnce(&mut LinkShaper) -> Result<(), fieldproof_link::shaper::ShaperError>,
) -> Result<(), String> {
    let mut sh = shared.lock().expect("shared");
    let Some(shaper) = sh.shaper.as_mut() else {
        return Err("no network".into());
    };
    let before = unix_now();
    f(shaper).map_err(|e| e.to_string())?;
    let after = unix_now();
    let profile = shaper
        .in_force()
        .get(vehicle)
        .map(|f| f.profile.clone())
        .unwrap_or_default();
    out.changes.push(Change {
        link: vehicle.into(),
        applying_s: before - start_unix,
        applied_s: after - start_unix,
        profile,
        cause: format!("{entry} ({cause})"),
    });
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::PoseSpec;

    #[test]
    fn run_ids_are_valid_for_the_link_namespaces() {
        let id = new_run_id();
        assert_eq!(id.len(), 8);
        fieldproof_link::netns::validate_run_id(&id).unwrap();
    }

    #[test]
    fn goals_go_into_the_odom_frame_of_the_spawn_pose() {
        let spawn = PoseSpec {
            xyz: [-12.0, 0.0, 0.0],
            yaw_deg: 180.0,
        };
        let goal = PoseSpec {
            xyz: [-14.0, 1.0, 0.0],
            yaw_deg: 90.0,
        };
        let (x, y, yaw) = goal_in_odom(&spawn, &goal);
        assert!((x - 2.0).abs() < 1e-9 && (y + 1.0).abs() < 1e-9, "{x} {y}");
        assert!((yaw + std::f64::consts::FRAC_PI_2).abs() < 1e-9);
        let (x, y, _) = goal_in_odom(
            &PoseSpec {
                xyz: [0.0; 3],
                yaw_deg: 0.0,
            },
            &goal,
        );
        assert_eq!((x, y), (-14.0, 1.0));
    }

    fn finished(script: &str, dir: &Path) -> Proc {
        let spec = ProcSpec {
            name: "ugv1/imu_adapter".into(),
            vehicle: Some("ugv1".into()),
            node: Some("imu_adapter".into()),
            stack: false,
            netns: None,
            argv: vec!["sh".into(), "-c".into(), script.into()],
            ready: Ready::Started,
        };
        let mut p = spawn(&spec, None, dir).unwrap();
        p.exit = p.child.as_mut().unwrap().wait().ok();
        p
    }

    #[test]
    fn exits_during_the_timeline_fail_the_run_unless_asked_for() {
        let logs = tempfile::tempdir().unwrap();
        // Before the timeline (or still running): nothing to say here.
        let mut p = finished("exit 3", logs.path());
        assert_eq!(p.unexpected_exit(), None);
        // A failure nobody asked for fails the run, naming the process and the time.
        p.exited_at_s = Some(12.5);
        let why = p.unexpected_exit().unwrap().unwrap_err();
        assert!(
            why.starts_with("ugv1/imu_adapter exited at 12.50 s of the timeline (exit status: 3)"),
            "{why}"
        );
        // Asked for by process.kill: reported with the process, not a failure.
        p.killed_by = Some(("kill_imu".into(), 12.4));
        assert_eq!(p.unexpected_exit(), None);
        assert_eq!(
            p.record(&Sampler::new()).killed_by.as_deref(),
            Some("kill_imu at 12.40 s")
        );
        // A clean exit is a warning.
        let mut p = finished("exit 0", logs.path());
        p.exited_at_s = Some(3.0);
        assert!(p.unexpected_exit().unwrap().is_ok());
    }

    #[test]
    fn parameter_values_carry_their_type() {
        let v = raw_value(&ParamSetting::Bool(true));
        assert_eq!((v.ptype, v.boolean_value), (raw::ParameterType::BOOL, true));
        let v = raw_value(&ParamSetting::Doubles(vec![0.0, 0.0, 0.05]));
        assert_eq!(v.ptype, raw::ParameterType::DOUBLE_ARRAY);
        assert_eq!(v.double_array, vec![0.0, 0.0, 0.05]);
        let v = raw_value(&ParamSetting::Double(0.3));
        assert_eq!((v.ptype, v.double_value), (raw::ParameterType::DOUBLE, 0.3));
    }
}
