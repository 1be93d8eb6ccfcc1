//! The timeline phase (the DDS part of a run), on the runner's own node: the recorder's
//! subscriptions, goal publishers and parameter clients, the readiness wait, then the
//! timeline itself — link changes, parameter faults, goals, process kills — until its end,
//! the run's time-out or a signal. Its state is the run's evidence, so it runs to
//! completion even on a signal.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use fieldproof_link::analysis::Change;
use fieldproof_link::shaper::{unix_now, LinkShaper};
use fieldproof_runtime::lifecycle::{self, PRIMARY_STATE_ACTIVE};
use fieldproof_runtime::msgs::geometry_msgs::{Point, Pose, PoseStamped, Quaternion};
use fieldproof_runtime::msgs::std_msgs;
use fieldproof_runtime::{qos, Node, NodeBuilder};
use futures::FutureExt;
use indicatif::ProgressBar;
use serde_json::Value as Json;

use super::params::{
    pace_simulator, param_client, release_simulator, set_params, ParamClient, SIMULATOR,
};
use super::processes::{Processes, Readiness};
use super::recorder::{start_recorder, Recorder};
use super::say;
use crate::assertions::holds_latest;
use crate::host::{Governor, AUTO_WINDOW_S};
use crate::interrupt::Interrupt;
use crate::model::{Action, Scenario, Vehicle};
use crate::resources::Sampler;
use crate::store::Store;
use crate::timeline::{Event, Timeline};

/// What the DDS part of the run hands back.
#[derive(Default)]
pub(super) struct DdsOutcome {
    /// Why the run could not go on (it ends with exit code 2).
    pub(super) error: Option<String>,
    /// Samples recorded by the DDS part itself (topic, simulation time in ns, message).
    pub(super) samples: Vec<(String, i64, Json)>,
    /// Simulation time at the timeline's start.
    pub(super) t0_ns: Option<i64>,
    /// Wall clock at the timeline's start.
    pub(super) timeline_start_unix: Option<f64>,
    /// Wall clock at the timeline's end.
    pub(super) timeline_end_unix: Option<f64>,
    /// How far the timeline got, in seconds of simulation time.
    pub(super) end_s: f64,
    /// The link changes the timeline made.
    pub(super) changes: Vec<Change>,
    /// Warnings for run.json.
    pub(super) warnings: Vec<String>,
    /// A recording problem met during the run.
    pub(super) recording_error: Option<String>,
    /// With `--check-contracts`: each vehicle's contract check.
    pub(super) contracts: Option<Vec<super::contracts::VehicleCheck>>,
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

/// What the DDS part reads of the run.
pub(super) struct RunContext<'a, 'b> {
    pub(super) scenario: &'a Scenario,
    pub(super) shared: &'a Mutex<Shared<'b>>,
    pub(super) bar: &'a ProgressBar,
    pub(super) interrupt: &'a Interrupt,
    /// With `--check-contracts`: each vehicle's bundle to check before the timeline.
    pub(super) contract_bundles: Option<Vec<(String, std::path::PathBuf)>>,
    /// The simulation's real-time factor (what the wall-clock limits scale by); under
    /// `--real-time-factor auto` the most it runs at.
    pub(super) real_time_factor: f64,
    /// `--real-time-factor auto` or the scenario's `pace: auto`: the pace follows what the
    /// host sustains ([`Governor`]).
    pub(super) auto_real_time_factor: bool,
}

/// The wall-clock limit of a run: `timeouts.run_s` holds at real time; a run slowed to a
/// real-time factor below 1 needs that much longer for the same timeline (under
/// `--real-time-factor auto`, the slowest it may be paced at: [`Governor::slowest`]).
pub(super) fn run_limit(run_s: f64, real_time_factor: f64) -> Duration {
    let slowdown = if real_time_factor > 0.0 && real_time_factor < 1.0 {
        1.0 / real_time_factor
    } else {
        1.0
    };
    Duration::from_secs_f64(run_s * slowdown)
}

/// What the timeline acts on while it runs: the links and the processes, lent by their
/// owners (the containment and the processes phases) for the DDS part.
pub(super) struct Shared<'b> {
    /// The link shaper (with a `network` section).
    pub(super) shaper: Option<&'b mut LinkShaper>,
    /// The run's processes.
    pub(super) processes: &'b mut Processes,
}

/// The DDS part: readiness, the timeline, the recording. Runs on this thread (in the
/// vehicle's namespace) with the runner's own node, to completion even on a signal (its
/// state is the run's evidence).
pub(super) fn run_dds(
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
    ctx: &RunContext<'_, '_>,
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
        let latched = crate::model::is_latched(&s.vehicles, topic);
        let r = fieldproof_msgs::dispatch!(ty, |T| start_recorder::<T>(
            node,
            topic,
            latched,
            recorder.clone()
        ));
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
    // The simulator's, to release it when the bring-up is over (the plan starts it paused).
    if !clients.contains_key(SIMULATOR) {
        match param_client(node, SIMULATOR) {
            Ok(c) => {
                clients.insert(SIMULATOR.to_string(), c);
            }
            Err(err) => {
                out.error = Some(err);
                return (out, timeline);
            }
        }
    }
    // Readiness.
    bar.set_message("waiting for the processes to be ready");
    let ready_deadline = Instant::now() + Duration::from_secs_f64(s.raw.timeouts.ready_s.get());
    let ground_deadline = Instant::now() + Duration::from_secs_f64(s.raw.timeouts.ground_s.get());
    // Each managed node (the ground station) is ready when its `~/get_state` answers ACTIVE.
    let managed = shared.lock().expect("shared").processes.managed_nodes();
    let mut active_nodes: Vec<String> = Vec::new();
    let mut activations: futures::stream::FuturesUnordered<_> = managed
        .iter()
        .cloned()
        .map(|fqn| {
            let node = &node;
            let limit = Duration::from_secs_f64(s.raw.timeouts.ground_s.get());
            async move {
                let reached =
                    lifecycle::wait_for_state(node, &fqn, PRIMARY_STATE_ACTIVE, limit).await;
                (fqn, reached)
            }
        })
        .collect();
    loop {
        let names: Vec<String> = node
            .nodes()
            .iter()
            .map(|n| n.fully_qualified_name())
            .collect();
        let (mut waiting, died) = match shared
            .lock()
            .expect("shared")
            .processes
            .readiness(&names, &active_nodes)
        {
            Readiness::Waiting(waiting) => (waiting, None),
            Readiness::Died(why) => (Vec::new(), Some(why)),
        };
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
        if waiting.is_empty() {
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
        if !late.is_empty() {
            if now > ground_deadline {
                // A managed node still waited for is past its own timeout too; its wait's
                // timer ends a moment after this deadline, so its result may not be in yet.
                for fqn in &managed {
                    let said = format!("{fqn} never reported ACTIVE");
                    if !active_nodes.contains(fqn)
                        && !out.warnings.iter().any(|w| w.starts_with(&said))
                    {
                        out.warnings.push(format!(
                            "{said} within timeouts.ground_s ({} s)",
                            s.raw.timeouts.ground_s.get()
                        ));
                    }
                }
            }
            out.error = Some(format!("not ready in time: {}", late.join(", ")));
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
            (fqn, reached) = futures::StreamExt::select_next_some(&mut activations) => match reached {
                Ok(()) => active_nodes.push(fqn),
                // Not ACTIVE within the ground timeout: the process stays waiting and the
                // deadline names it; the reason goes to the warnings.
                Err(e) => out.warnings.push(format!("{fqn} never reported ACTIVE: {e}")),
            },
            _ = node.shutdown_requested().fuse() => { out.error = Some(interrupted("the bring-up")); return (out, timeline); }
        }
    }
    drop(activations);
    // Simulation time starts now, with every process up and discovered.
    bar.set_message("starting the simulation");
    if let Err(err) = release_simulator(
        node,
        &clients[SIMULATOR],
        Instant::now() + Duration::from_secs_f64(s.raw.timeouts.clock_stall_s.get()),
    )
    .await
    {
        out.error = Some(err);
        return (out, timeline);
    }
    // The ground station's probe thread, real-time from here on (it cannot make itself so).
    out.warnings.extend(
        shared
            .lock()
            .expect("shared")
            .processes
            .raise_realtime_threads(),
    );
    // The bundles' contracts, before the timeline.
    if let Some(bundles) = &ctx.contract_bundles {
        bar.set_message("checking the bridge bundles' contracts");
        let checks = super::contracts::check(node, bundles).await;
        say(bar, super::contracts::summary_line(&checks));
        out.contracts = Some(checks);
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
    sampler.start_timeline(&shared.lock().expect("shared").processes.running_pids());
    let mut governor = ctx.auto_real_time_factor.then(|| {
        if let Some(meter) = sampler.host_meter() {
            meter.paced_automatically();
        }
        (
            Governor::new(ctx.real_time_factor),
            Instant::now() + Duration::from_secs_f64(AUTO_WINDOW_S),
        )
    });
    let slowest = governor
        .as_ref()
        .map_or(ctx.real_time_factor, |(governor, _)| governor.slowest());
    let run_limit = run_limit(s.raw.timeouts.run_s.get(), slowest);
    let run_deadline = t_start + run_limit;
    let mut clock_watch = ClockWatch::new(
        t0,
        Instant::now(),
        Duration::from_secs_f64(s.raw.timeouts.clock_stall_s.get()),
    );
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
        if let Some(stalled) = clock_watch.observe(clock.now_nanos(), Instant::now()) {
            out.error = Some(format!(
                "the simulation clock (/clock) did not advance for {:.0} s of wall clock (timeouts.clock_stall_s), at {now_s:.1} of {} s of the timeline: the simulator stalled or its /clock no longer reaches the runner",
                stalled.as_secs_f64(),
                s.duration_s
            ));
            break;
        }
        if Instant::now() > run_deadline {
            out.error = Some(format!(
                "the run did not end within timeouts.run_s ({} s of wall clock at real-time factor {}): the timeline reached {now_s:.1} of {} s",
                run_limit.as_secs_f64(),
                ctx.real_time_factor,
                s.duration_s
            ));
            break;
        }
        bar.set_position(now_s.max(0.0) as u64);
        {
            let mut sh = shared.lock().expect("shared");
            let total = sh.processes.procs.len();
            let mut running = Vec::new();
            for p in sh.processes.procs.iter_mut() {
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
        if let Some((governor, window_end)) = governor.as_mut() {
            if Instant::now() >= *window_end {
                *window_end += Duration::from_secs_f64(AUTO_WINDOW_S);
                pace_simulator(sampler, governor, &clients, now_s, bar, &mut out.warnings).await;
            }
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
                    let target = sh.processes.procs.iter_mut().find(|p| {
                        p.spec.vehicle.as_deref() == Some(vname.as_str())
                            && (p.spec.node.as_deref() == Some(n.as_str())
                                || (n == "stack" && p.spec.stack))
                    });
                    match target {
                        None => kill_launched_node(&mut sh.processes.procs, &vname, n, sig, signal),
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
        if let Some(sh) = shared.lock().expect("shared").shaper.as_deref_mut() {
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
    sampler.end_timeline(
        &shared.lock().expect("shared").processes.running_pids(),
        out.end_s,
    );
    (out, timeline)
}

/// Applies a link change through the shaper and records it (with when it was applying and
/// applied, in seconds of the timeline) for the link analysis.
fn link(
    shared: &Mutex<Shared>,
    out: &mut DdsOutcome,
    entry: &str,
    vehicle: &str,
    start_unix: f64,
    cause: &str,
    f: impl FnOnce(&mut LinkShaper) -> Result<(), fieldproof_link::shaper::ShaperError>,
) -> Result<(), String> {
    let mut sh = shared.lock().expect("shared");
    let Some(shaper) = sh.shaper.as_deref_mut() else {
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

/// `process.kill` of a node a launch-file stack started (no process of the run's own): the
/// launcher's descendant whose command line carries `__node:=<node>` gets the signal; the
/// launcher and its other nodes keep running.
fn kill_launched_node(
    procs: &mut [super::processes::Proc],
    vehicle: &str,
    node: &str,
    sig: nix::sys::signal::Signal,
    signal: &str,
) -> Result<String, String> {
    let Some(stack) = procs
        .iter_mut()
        .find(|p| p.spec.vehicle.as_deref() == Some(vehicle) && p.spec.stack)
    else {
        return Err(format!("no process {node} of {vehicle}"));
    };
    if let Some(st) = stack.poll_exit() {
        return Err(format!("{} had already exited ({st})", stack.spec.name));
    }
    let Some(root) = stack.pid() else {
        return Err(format!("no process {node} of {vehicle}"));
    };
    let remap = format!("__node:={node}");
    let parents: Vec<(i32, i32)> = procfs::process::all_processes()
        .map_err(|e| format!("listing processes: {e}"))?
        .flatten()
        .filter_map(|p| p.stat().ok())
        .filter(|st| st.state != 'Z')
        .map(|st| (st.pid, st.ppid))
        .collect();
    let mut todo = vec![root];
    while let Some(parent) = todo.pop() {
        for &(pid, _) in parents.iter().filter(|(_, pp)| *pp == parent) {
            let cmdline = procfs::process::Process::new(pid)
                .and_then(|p| p.cmdline())
                .unwrap_or_default();
            if cmdline.contains(&remap) {
                nix::sys::signal::kill(nix::unistd::Pid::from_raw(pid), sig)
                    .map_err(|e| format!("SIG{signal} to {node} (pid {pid}): {e}"))?;
                return Ok(format!(
                    "sent SIG{signal} to {node} (pid {pid}), started by {}",
                    stack.spec.name
                ));
            }
            todo.push(pid);
        }
    }
    Err(format!(
        "no process of {} runs node {node} (none has {remap})",
        stack.spec.name
    ))
}

/// Watches the simulation clock during the timeline (`timeouts.clock_stall_s`): a run
/// whose clock stops advancing (the simulator stalled, or its `/clock` no longer reaches
/// the runner) ends after the limit instead of waiting out `run_s`.
struct ClockWatch {
    /// The clock's last value and when (wall clock) it was first read.
    seen: (i64, Instant),
    limit: Duration,
}

impl ClockWatch {
    fn new(now_ns: i64, at: Instant, limit: Duration) -> ClockWatch {
        ClockWatch {
            seen: (now_ns, at),
            limit,
        }
    }

    /// Takes the clock's value read at `at`; how long it has not advanced, once that is
    /// beyond the limit.
    fn observe(&mut self, now_ns: i64, at: Instant) -> Option<Duration> {
        if now_ns != self.seen.0 {
            self.seen = (now_ns, at);
            return None;
        }
        let still = at.saturating_duration_since(self.seen.1);
        (still > self.limit).then_some(still)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::PoseSpec;

    #[test]
    fn a_slowed_run_gets_a_proportionally_longer_limit() {
        assert_eq!(run_limit(900.0, 1.0), Duration::from_secs(900));
        assert_eq!(run_limit(900.0, 4.0), Duration::from_secs(900));
        assert_eq!(run_limit(900.0, 0.1), Duration::from_secs(9000));
        // As fast as possible (0): the limit as given.
        assert_eq!(run_limit(900.0, 0.0), Duration::from_secs(900));
    }

    #[test]
    fn a_clock_that_stops_advancing_ends_the_run_after_the_limit() {
        let start = Instant::now();
        let at = |seconds: u64| start + Duration::from_secs(seconds);
        let mut watch = ClockWatch::new(5, start, Duration::from_secs(60));
        // Advancing, however slowly: never stalled.
        for (second, clock) in [(30, 6), (89, 7), (148, 8)] {
            assert_eq!(watch.observe(clock, at(second)), None);
        }
        // Stuck at 8 since 148 s: not beyond 60 s at 208 s, beyond it at 209 s.
        assert_eq!(watch.observe(8, at(208)), None);
        assert_eq!(watch.observe(8, at(209)), Some(Duration::from_secs(61)));
        // Moving again (a clock reset counts: it changed) starts the wait over.
        assert_eq!(watch.observe(2, at(300)), None);
        assert_eq!(watch.observe(2, at(359)), None);
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
}
