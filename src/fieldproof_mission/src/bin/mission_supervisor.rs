//! `mission_supervisor`: one per vehicle, in its namespace. Gathers the vehicle's health in
//! simulation time, writes one frame per control cycle to its `supervisor_core` child and
//! publishes the answer (a thin shell over [`fieldproof_mission::supervision`]).
//!
//! - in: `imu/data`, `gps/fix`, `camera/image` (`vision_source:=camera`) or
//!   `perception/health` (`vision_source:=perception`), the heartbeat
//!   (`heartbeat_topic`, `heartbeat_qos_*` as `link_monitor` takes them), `battery_state`,
//!   `odometry/filtered`, `mission/target`, `mission/complete`;
//! - out: `supervisor/mode`, `supervisor/reason` (std_msgs/msg/String, latched) on change,
//!   `supervisor/setpoint` (geometry_msgs/msg/TwistStamped, ENU m/s, frame `map`) each cycle;
//! - the first frame waits until every required source was heard once; `LAND` or `COMPLETE`
//!   hands over (the mode once, then no frame, no setpoint); a pipe failure, a bad answer or
//!   the child's exit aborts (reason `abort: <why>`, no more setpoints), never a default.
//!
//! ```text
//! mission_supervisor --ros-args -r __ns:=/quad1 -p use_sim_time:=true -p vision_source:=none
//! ```

use std::time::Duration;

use fieldproof_mission::supervision::core_link::{self, CoreCommand, CoreLink, Evidence};
use fieldproof_mission::supervision::inputs::{reported_inference_ms, PERCEPTION_HEALTH_TOPIC};
use fieldproof_mission::supervision::{Inputs, Publish, Session, Skip, State, VisionSource};
use fieldproof_runtime::clock::{nanos_from_time, Clock};
use fieldproof_runtime::logging::Throttle;
use fieldproof_runtime::msgs::diagnostic_msgs::DiagnosticArray;
use fieldproof_runtime::msgs::geometry_msgs::{PoseStamped, Twist, TwistStamped, Vector3};
use fieldproof_runtime::msgs::nav_msgs::Odometry;
use fieldproof_runtime::msgs::sensor_msgs::{BatteryState, Image, Imu, NavSatFix};
use fieldproof_runtime::msgs::std_msgs;
use fieldproof_runtime::msgs::RosMessage;
use fieldproof_runtime::qos::{self, QosSpec};
use fieldproof_runtime::{
    tracing, BoxError, Node, NodeBuilder, Param, ParamHandle, ParamValue, Publisher, Subscription,
    MALFORMED_LOG_PERIOD,
};
use futures::lock::Mutex;
use std::sync::Arc;

/// The handles of the supervisor's parameters.
struct SupervisorParams {
    rate_hz: ParamHandle<f64>,
    vision_source: ParamHandle<String>,
    core_executable: ParamHandle<String>,
    core_args: ParamHandle<Vec<String>>,
    response_timeout_s: ParamHandle<f64>,
    frames_dir: ParamHandle<String>,
    heartbeat_topic: ParamHandle<String>,
    heartbeat_qos_reliability: ParamHandle<String>,
    heartbeat_qos_durability: ParamHandle<String>,
    heartbeat_qos_depth: ParamHandle<i64>,
}

fn declare(builder: &mut NodeBuilder) -> SupervisorParams {
    SupervisorParams {
        rate_hz: builder.declare(
            Param::double("rate_hz", 20.0)
                .description(
                    "control cycles per second of the node's clock (the spec's 0.05 s step)",
                )
                .range(1.0, 200.0)
                .read_only(),
        ),
        vision_source: builder.declare(
            Param::string("vision_source", "camera")
                .description(
                    "vision freshness from: camera (camera/image capture stamps, inference 0), \
                     perception (perception/health: header stamp = capture, inference_ms = \
                     the reported duration), none (ignored: the core gets \
                     --vision-required=false)",
                )
                .one_of(&VisionSource::CHOICES)
                .read_only()
                .on_change(|value| match value {
                    ParamValue::String(s) => VisionSource::parse(s).map(|_| ()),
                    other => Err(format!("vision_source: {other} is not a string")),
                }),
        ),
        core_executable: builder.declare(
            Param::string("core_executable", "")
                .description(
                    "the supervisor_core program (empty: the one beside this node's executable)",
                )
                .read_only(),
        ),
        core_args: builder.declare(
            Param::strings("core_args", &[])
                .description(
                    "the core's arguments, its policy thresholds as flags (see supervisor_core \
                     --help); empty: the spec's values",
                )
                .read_only(),
        ),
        response_timeout_s: builder.declare(
            Param::double("response_timeout_s", 3.0)
                .description("wall-clock time the core has to answer a frame, s")
                .range(0.01, 60.0)
                .read_only(),
        ),
        frames_dir: builder.declare(
            Param::string("frames_dir", "")
                .description(
                    "directory of the evidence (frames.in, frames.out, core.args); empty: \
                     $FIELDPROOF_EVIDENCE_DIR/supervisor if set, else none",
                )
                .read_only(),
        ),
        heartbeat_topic: builder.declare(
            Param::string("heartbeat_topic", "gcs/heartbeat")
                .topic()
                .description("std_msgs/msg/Header from the ground station")
                .read_only(),
        ),
        heartbeat_qos_reliability: builder.declare(
            Param::string("heartbeat_qos_reliability", "best_effort")
                .one_of(&["best_effort", "reliable"])
                .description("reliability of the heartbeat subscription")
                .read_only(),
        ),
        heartbeat_qos_durability: builder.declare(
            Param::string("heartbeat_qos_durability", "volatile")
                .one_of(&["volatile", "transient_local"])
                .description("durability of the heartbeat subscription")
                .read_only(),
        ),
        heartbeat_qos_depth: builder.declare(
            Param::int("heartbeat_qos_depth", 1)
                .description("history depth (keep last) of the heartbeat subscription")
                .range(1.0, 1000.0)
                .read_only(),
        ),
    }
}

/// The inputs, shared by the receiving tasks and the control loop.
type SharedInputs = Arc<Mutex<Inputs>>;

/// One input topic: its subscription and how a sample goes into the inputs. Read by its
/// receiving task as samples arrive and drained by the control loop before each frame.
struct Source<M: RosMessage, F> {
    sub: Subscription<M>,
    take: F,
    clock: Clock,
    refused: std::sync::Mutex<Throttle>,
}

impl<M, F> Source<M, F>
where
    M: RosMessage,
    F: Fn(&mut Inputs, M, i64) -> Result<(), String>,
{
    /// Puts `m`, received at `receipt_ns`, into `inputs` (`Err` from `take`: a refused
    /// sample, logged at most once per [`MALFORMED_LOG_PERIOD`]).
    fn apply(&self, inputs: &mut Inputs, m: M, receipt_ns: i64) {
        if let Err(e) = (self.take)(inputs, m, receipt_ns) {
            let mut refused = self.refused.lock().unwrap_or_else(|e| e.into_inner());
            if let Some(n) = refused.hit() {
                tracing::warn!("{}: {e} ({n} since the last report)", self.sub.topic());
            }
        }
    }
}

/// An input the control loop can drain without waiting.
trait Drain: Send + Sync {
    /// Takes every sample already waiting on the subscription into `inputs`, without
    /// waiting for more (malformed samples are skipped by the runtime). A reader failure
    /// stops the drain quietly: the receiving task reports it.
    fn drain(&self, inputs: &mut Inputs);
}

impl<M, F> Drain for Source<M, F>
where
    M: RosMessage + Send + 'static,
    F: Fn(&mut Inputs, M, i64) -> Result<(), String> + Send + Sync + 'static,
{
    fn drain(&self, inputs: &mut Inputs) {
        while let Ok(Some(m)) = self.sub.try_recv() {
            self.apply(inputs, m, self.clock.now_nanos());
        }
    }
}

/// A fed input: the receiving task (stops when dropped) and the source to drain.
struct Feed {
    _task: smol::Task<()>,
    source: Arc<dyn Drain>,
}

/// Subscribes to `topic` and spawns a task that feeds every message into the inputs
/// through `take` (`Err`: a refused sample, logged at most once per
/// [`MALFORMED_LOG_PERIOD`]); the control loop drains the same subscription before each
/// frame (see [`drain_all`]).
fn feed<M, F>(
    node: &Node,
    topic: &str,
    qos: QosSpec,
    inputs: &SharedInputs,
    take: F,
) -> Result<Feed, BoxError>
where
    M: RosMessage + Send + 'static,
    F: Fn(&mut Inputs, M, i64) -> Result<(), String> + Send + Sync + 'static,
{
    let source = Arc::new(Source {
        sub: node.subscription::<M>(topic, qos)?,
        take,
        clock: node.clock(),
        refused: std::sync::Mutex::new(Throttle::new(MALFORMED_LOG_PERIOD)),
    });
    let inputs = inputs.clone();
    let receiving = source.clone();
    let task = node.spawn(async move {
        loop {
            match receiving.sub.recv().await {
                Ok(m) => {
                    let receipt_ns = receiving.clock.now_nanos();
                    receiving.apply(&mut *inputs.lock().await, m, receipt_ns);
                }
                Err(e) => {
                    tracing::error!("{e}: no more input from {}", receiving.sub.topic());
                    return;
                }
            }
        }
    });
    Ok(Feed {
        _task: task,
        source,
    })
}

/// Takes every sample already waiting on every input into `inputs`, before the cycle reads
/// its clock. After a scheduling stall of the process, the control cycle can wake before
/// the receiving tasks have taken the samples queued during the stall: a frame built then
/// shows every source stale by the stall's length at once (all ages jumping by the same
/// 0.3-0.7 s, the policy holding or landing on `imu_stale`) though nothing was lost.
/// Draining first makes the frame see what had already arrived.
fn drain_all(feeds: &[Feed], inputs: &mut Inputs) {
    for feed in feeds {
        feed.source.drain(inputs);
    }
}

/// The outputs.
struct Outputs {
    mode: Publisher<std_msgs::String>,
    reason: Publisher<std_msgs::String>,
    setpoint: Publisher<TwistStamped>,
}

impl Outputs {
    fn publish(&self, p: Publish, node: &Node) {
        let mut written = Vec::new();
        if let Some(mode) = p.mode {
            tracing::info!("mode {}", mode.as_str());
            written.push(self.mode.publish(std_msgs::String {
                data: mode.as_str().to_string(),
            }));
        }
        if let Some(reason) = p.reason {
            written.push(self.reason.publish(std_msgs::String { data: reason }));
        }
        if let Some([x, y, z]) = p.setpoint {
            written.push(self.setpoint.publish(TwistStamped {
                header: std_msgs::Header {
                    stamp: node.now(),
                    frame_id: "map".into(),
                },
                twist: Twist {
                    linear: Vector3 { x, y, z },
                    angular: Vector3::default(),
                },
            }));
        }
        for e in written.into_iter().filter_map(Result::err) {
            tracing::warn!("{e}");
        }
    }
}

/// The core's command line from the parameters.
fn core_command(params: &SupervisorParams, vision: VisionSource) -> Result<CoreCommand, String> {
    let program = match params.core_executable.get() {
        p if !p.is_empty() => p.into(),
        _ => std::env::current_exe()
            .map(|exe| core_link::core_beside(&exe))
            .map_err(|e| {
                format!("core_executable: empty, and this executable's path is unknown ({e})")
            })?,
    };
    let mut args = params.core_args.get();
    args.extend(vision.core_flags());
    Ok(CoreCommand { program, args })
}

fn main() -> std::process::ExitCode {
    let mut builder = NodeBuilder::new("mission_supervisor");
    let params = declare(&mut builder);
    fieldproof_runtime::main(
        move || builder,
        |node| async move {
            let vision = VisionSource::parse(&params.vision_source.get())?;
            let outputs = Outputs {
                mode: node.publisher("supervisor/mode", qos::latched())?,
                reason: node.publisher("supervisor/reason", qos::latched())?,
                setpoint: node.publisher("supervisor/setpoint", qos::default())?,
            };
            let inputs: SharedInputs = Arc::new(Mutex::new(Inputs::new()));
            let sensors = qos::sensor_data();
            let hb_qos = qos::sensor_data_named(
                &params.heartbeat_qos_reliability.get(),
                &params.heartbeat_qos_durability.get(),
                params.heartbeat_qos_depth.get(),
            );
            let mut feeds = vec![
                feed(&node, "imu/data", sensors, &inputs, |i, m: Imu, now| {
                    i.imu(nanos_from_time(m.header.stamp), now);
                    Ok(())
                })?,
                feed(
                    &node,
                    "gps/fix",
                    sensors,
                    &inputs,
                    |i, m: NavSatFix, now| {
                        i.gnss(nanos_from_time(m.header.stamp), now);
                        Ok(())
                    },
                )?,
                feed(
                    &node,
                    &params.heartbeat_topic.get(),
                    hb_qos,
                    &inputs,
                    |i, _: std_msgs::Header, now| {
                        i.heartbeat(now);
                        Ok(())
                    },
                )?,
                feed(
                    &node,
                    "battery_state",
                    sensors,
                    &inputs,
                    |i, m: BatteryState, _| {
                        i.battery(m.percentage as f64).map_err(|e| e.to_string())
                    },
                )?,
                feed(
                    &node,
                    "odometry/filtered",
                    sensors,
                    &inputs,
                    |i, m: Odometry, _| {
                        let p = m.pose.pose.position;
                        i.position([p.x, p.y, p.z]).map_err(|e| e.to_string())
                    },
                )?,
                feed(
                    &node,
                    "mission/target",
                    qos::latched(),
                    &inputs,
                    |i, m: PoseStamped, _| {
                        let p = m.pose.position;
                        i.target([p.x, p.y, p.z]).map_err(|e| e.to_string())
                    },
                )?,
                feed(
                    &node,
                    "mission/complete",
                    qos::latched(),
                    &inputs,
                    |i, m: std_msgs::Bool, _| {
                        i.complete(m.data);
                        Ok(())
                    },
                )?,
            ];
            match vision {
                VisionSource::Camera => feeds.push(feed(&node, "camera/image", sensors, &inputs, |i, m: Image, now| {
                    i.camera(nanos_from_time(m.header.stamp), now);
                    Ok(())
                })?),
                VisionSource::Perception => feeds.push(feed(
                    &node,
                    PERCEPTION_HEALTH_TOPIC,
                    sensors,
                    &inputs,
                    |i, m: DiagnosticArray, now| {
                        i.perception(
                            nanos_from_time(m.header.stamp),
                            reported_inference_ms(&m),
                            now,
                        )
                        .map_err(|e| e.to_string())
                    },
                )?),
                VisionSource::None => tracing::info!(
                    "vision_source none: vision freshness is ignored (supervisor_core gets --vision-required=false)"
                ),
            }

            let mut session = Session::new();
            let core = core_command(&params, vision)?;
            let dir = core_link::frames_dir(
                &params.frames_dir.get(),
                std::env::var_os(core_link::EVIDENCE_ENV).as_deref(),
            );
            let evidence = match &dir {
                Some(d) => match Evidence::open(d, &core) {
                    Ok(ev) => Some(ev),
                    Err(e) => {
                        let why = format!("evidence directory {}: {e}", d.display());
                        tracing::error!("abort: {why}");
                        outputs.publish(session.abort(&why), &node);
                        node.shutdown_requested().await;
                        return Ok(());
                    }
                },
                None => {
                    tracing::info!(
                        "no frames_dir and no ${}: frames are not recorded",
                        core_link::EVIDENCE_ENV
                    );
                    None
                }
            };
            let timeout = Duration::from_secs_f64(params.response_timeout_s.get());
            let mut link = match CoreLink::spawn(&core, evidence, timeout) {
                Ok(link) => {
                    tracing::info!(
                        "supervisor_core started (pid {}): {}; frames {}",
                        link.pid(),
                        core.display(),
                        dir.map_or("not recorded".into(), |d| format!("in {}", d.display()))
                    );
                    link
                }
                Err(e) => {
                    tracing::error!("abort: {e}");
                    outputs.publish(session.abort(&e.to_string()), &node);
                    node.shutdown_requested().await;
                    return Ok(());
                }
            };

            let clock = node.clock();
            let mut timer = node.timer_hz(params.rate_hz.get());
            let mut waiting = Throttle::new(Duration::from_secs(5));
            let mut skipped = Throttle::new(MALFORMED_LOG_PERIOD);
            let mut started = false;
            // The core's default age limits: the first frame waits until every source is
            // within them (a start-up backlog is not a fault episode).
            let start_limits = fieldproof_mission::supervisor::config::PolicyConfig::default();
            loop {
                futures::select! {
                    _ = futures::FutureExt::fuse(timer.tick()) => {}
                    _ = futures::FutureExt::fuse(node.shutdown_requested()) => break,
                }
                let frame = {
                    let mut inputs = inputs.lock().await;
                    drain_all(&feeds, &mut inputs);
                    let now = clock.now_nanos();
                    if !started {
                        let missing = inputs.missing(vision);
                        if !missing.is_empty() {
                            if waiting.hit().is_some() {
                                tracing::info!(
                                    "waiting for {} before the first frame",
                                    missing.join(", ")
                                );
                            }
                            continue;
                        }
                        let stale = inputs.stale(vision, now, &start_limits);
                        if !stale.is_empty() {
                            if waiting.hit().is_some() {
                                let ages: Vec<String> = stale
                                    .iter()
                                    .map(|(topic, age_s)| format!("{topic} ({age_s:.2} s old)"))
                                    .collect();
                                tracing::info!(
                                    "waiting for {} to be current before the first frame",
                                    ages.join(", ")
                                );
                            }
                            continue;
                        }
                        tracing::info!("every source heard and current: supervising");
                        started = true;
                    }
                    session.next_frame(&inputs, now)
                };
                let frame = match frame {
                    Ok(f) => f,
                    Err(Skip::Ended) => break,
                    Err(e @ Skip::ClockStill { .. }) => {
                        if let Some(n) = skipped.hit() {
                            tracing::warn!("{e}: cycle skipped ({n} since the last report)");
                        }
                        continue;
                    }
                };
                let answer = link.exchange(&frame).await;
                if let Some(e) = link.take_evidence_failure() {
                    tracing::error!("evidence incomplete from frame {}: {e}", frame.sequence);
                }
                match answer {
                    Ok(command) => {
                        outputs.publish(session.answer(&command), &node);
                        if let State::HandedOver(mode) = session.state() {
                            tracing::info!(
                                "{}: control handed over; no more frames",
                                mode.as_str()
                            );
                            break;
                        }
                    }
                    Err(e) => {
                        tracing::error!("abort: {e}; no more setpoints");
                        outputs.publish(session.abort(&e.to_string()), &node);
                        break;
                    }
                }
            }
            let ended = session.state().clone();
            let (refused_health, before_clock) = {
                let inputs = inputs.lock().await;
                (inputs.refused_health(), inputs.before_clock())
            };
            if before_clock > 0 {
                tracing::info!(
                    "{before_clock} stamped samples ignored: received before the first /clock"
                );
            }
            if refused_health > 0 {
                tracing::warn!(
                    "{refused_health} perception/health reports refused (no usable inference_ms)"
                );
            }
            let status = link.finish(Duration::from_secs(1)).await;
            tracing::info!("supervisor_core ended ({status}); session {ended:?}");
            drop(feeds);
            // The latched mode and reason stay readable until the node is stopped.
            node.shutdown_requested().await;
            Ok(())
        },
    )
}
