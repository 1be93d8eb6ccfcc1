//! `fleet_adapter`: one per fleet quad, in its namespace (issue 19). The mission-level mux
//! between the vehicle's planner and its supervisor, running the sortie of
//! [`fieldproof_fleet::sortie`]: it waits on its pad for a launch lease, gives the planner the
//! inspection goal in its layer, brings the vehicle back above its moving pad, waits for a land
//! lease, and leads the supervisor down onto the pad.
//!
//! In the fleet's launch file the planner's `mission/target` and `mission/complete` are
//! remapped to `planner/target` and `planner/complete`; this node publishes the real ones,
//! which `mission_supervisor` reads unchanged.
//!
//! - in: `odometry/filtered` (nav_msgs/msg/Odometry), `planner/target`
//!   (geometry_msgs/msg/PoseStamped, latched), `planner/complete` (std_msgs/msg/Bool, latched),
//!   `landed` (std_msgs/msg/Bool), `supervisor/mode` (std_msgs/msg/String, latched), the
//!   carrier's pads (`pads_topic`, geometry_msgs/msg/PoseArray, world frame), `/fleet/clearance`
//!   (fieldproof_interfaces/msg/Clearance; the ones for this vehicle);
//! - out: `mission/target` (PoseStamped, latched), `mission/complete` (Bool, latched),
//!   `goal_pose` (PoseStamped, latched: the planner's goal), `fleet/phase` (std_msgs/msg/String,
//!   latched: the phase's name on each change, for a look or a scenario's trigger), `/fleet/status`
//!   (fieldproof_interfaces/msg/FleetStatus, `status_rate_hz` and on each phase change),
//!   `/fleet/clearance_request` (fieldproof_interfaces/msg/ClearanceRequest).
//!
//! ```text
//! fleet_adapter --ros-args -r __ns:=/quad1 -p use_sim_time:=true -p pad_index:=0 \
//!   -p layer_altitude_m:=8.0 -p inspection_goal:="[40.0, 10.0]"
//! ```

use fieldproof_fleet::lease::{Kind, Phase};
use fieldproof_fleet::sortie::{Answer, Observed, Sortie, SortieConfig, Target};
use fieldproof_runtime::clock::{nanos_from_time, time_from_nanos};
use fieldproof_runtime::logging::Throttle;
use fieldproof_runtime::msgs::fieldproof_interfaces::{Clearance, ClearanceRequest, FleetStatus};
use fieldproof_runtime::msgs::geometry_msgs::{Point, PoseArray, PoseStamped};
use fieldproof_runtime::msgs::nav_msgs::Odometry;
use fieldproof_runtime::msgs::std_msgs;
use fieldproof_runtime::{qos, tracing, NodeBuilder, Param, ParamHandle, MALFORMED_LOG_PERIOD};
use futures::FutureExt;

/// The handles of the adapter's parameters.
struct AdapterParams {
    vehicle: ParamHandle<String>,
    pads_topic: ParamHandle<String>,
    pad_index: ParamHandle<i64>,
    layer_altitude_m: ParamHandle<f64>,
    inspection_goal: ParamHandle<Vec<f64>>,
    arrive_radius_m: ParamHandle<f64>,
    approach_gain: ParamHandle<f64>,
    request_period_s: ParamHandle<f64>,
    touchdown_below_m: ParamHandle<f64>,
    align_radius_m: ParamHandle<f64>,
    settle_s: ParamHandle<f64>,
    status_rate_hz: ParamHandle<f64>,
    rate_hz: ParamHandle<f64>,
    frame_id: ParamHandle<String>,
}

fn declare(builder: &mut NodeBuilder) -> AdapterParams {
    AdapterParams {
        vehicle: builder.declare(
            Param::string("vehicle", "")
                .description("this vehicle's name in the fleet (empty: the namespace without its slash)")
                .read_only(),
        ),
        pads_topic: builder.declare(
            Param::string("pads_topic", "/carrier/pads")
                .topic()
                .description("the carrier's pads (geometry_msgs/msg/PoseArray, world frame)")
                .read_only(),
        ),
        pad_index: builder.declare(
            Param::int("pad_index", 0)
                .description("this vehicle's pad: its index in the pads message")
                .read_only(),
        ),
        layer_altitude_m: builder.declare(
            Param::double("layer_altitude_m", 8.0)
                .range(1.0, 100.0)
                .description("this vehicle's cruise layer, m (world z)")
                .read_only(),
        ),
        inspection_goal: builder.declare(
            Param::doubles("inspection_goal", &[])
                .description("the inspection goal [x, y] in the world frame, flown in the layer")
                .read_only(),
        ),
        arrive_radius_m: builder.declare(Param::double("arrive_radius_m", 2.0).range(0.1, 50.0)),
        approach_gain: builder.declare(
            Param::double("approach_gain", 1.0)
                .range(0.05, 20.0)
                .description("the supervisor's approach gain, 1/s: the target leads the moving pad by velocity / gain"),
        ),
        request_period_s: builder.declare(Param::double("request_period_s", 1.0).range(0.1, 30.0)),
        touchdown_below_m: builder.declare(
            Param::double("touchdown_below_m", 0.5)
                .range(0.0, 5.0)
                .description("the landing target's depth below the pad, m (the supervisor stops short of a target by its goal acceptance)")
                .read_only(),
        ),
        align_radius_m: builder.declare(
            Param::double("align_radius_m", 0.3)
                .range(0.05, 5.0)
                .description("a landing vehicle descends only within this horizontal distance of its pad, m; farther off it closes on the pad level")
                .read_only(),
        ),
        settle_s: builder.declare(
            Param::double("settle_s", 2.0)
                .range(0.0, 60.0)
                .description("how long a vehicle holds above its pad, once arrived, before it first asks to land, s")
                .read_only(),
        ),
        status_rate_hz: builder.declare(Param::double("status_rate_hz", 2.0).range(0.1, 50.0).read_only()),
        rate_hz: builder.declare(Param::double("rate_hz", 10.0).range(1.0, 100.0).read_only()),
        frame_id: builder.declare(Param::string("frame_id", "map").read_only()),
    }
}

fn pose_at(frame_id: &str, stamp_ns: i64, point: [f64; 3]) -> PoseStamped {
    let mut pose = PoseStamped::default();
    pose.header.frame_id = frame_id.to_string();
    pose.header.stamp = time_from_nanos(stamp_ns);
    pose.pose.position = Point {
        x: point[0],
        y: point[1],
        z: point[2],
    };
    pose
}

fn kind_of(wire: u8) -> Option<Kind> {
    match wire {
        ClearanceRequest::KIND_LAUNCH => Some(Kind::Launch),
        ClearanceRequest::KIND_LAND => Some(Kind::Land),
        _ => None,
    }
}

fn main() -> std::process::ExitCode {
    let mut builder = NodeBuilder::new("fleet_adapter");
    let params = declare(&mut builder);
    fieldproof_runtime::main(
        move || builder,
        |node| async move {
            let goal = params.inspection_goal.get();
            let [goal_x, goal_y] = goal[..] else {
                return Err(
                    format!("fleet_adapter.inspection_goal: {goal:?} is not [x, y]").into(),
                );
            };
            let pad_index = usize::try_from(params.pad_index.get()).map_err(|_| {
                format!(
                    "fleet_adapter.pad_index: {} is negative",
                    params.pad_index.get()
                )
            })?;
            let vehicle = match params.vehicle.get() {
                name if !name.is_empty() => name,
                _ => node.namespace().trim_start_matches('/').to_string(),
            };
            let frame_id = params.frame_id.get();
            let layer = params.layer_altitude_m.get();
            let mut sortie = Sortie::new(SortieConfig {
                layer_altitude_m: layer,
                inspection_xy: [goal_x, goal_y],
                arrive_radius_m: params.arrive_radius_m.get(),
                approach_gain: params.approach_gain.get(),
                request_period_s: params.request_period_s.get(),
                touchdown_below_m: params.touchdown_below_m.get(),
                align_radius_m: params.align_radius_m.get(),
                settle_s: params.settle_s.get(),
            });

            let odom_sub = node.subscription::<Odometry>("odometry/filtered", qos::default())?;
            let planner_target_sub =
                node.subscription::<PoseStamped>("planner/target", qos::latched())?;
            let planner_complete_sub =
                node.subscription::<std_msgs::Bool>("planner/complete", qos::latched())?;
            let landed_sub = node.subscription::<std_msgs::Bool>("landed", qos::default())?;
            let mode_sub =
                node.subscription::<std_msgs::String>("supervisor/mode", qos::latched())?;
            let pads_sub =
                node.subscription::<PoseArray>(&params.pads_topic.get(), qos::default())?;
            let clearance_sub =
                node.subscription::<Clearance>("/fleet/clearance", qos::default().keep_last(50))?;
            let target_pub = node.publisher::<PoseStamped>("mission/target", qos::latched())?;
            let complete_pub =
                node.publisher::<std_msgs::Bool>("mission/complete", qos::latched())?;
            let goal_pub = node.publisher::<PoseStamped>("goal_pose", qos::latched())?;
            let status_pub =
                node.publisher::<FleetStatus>("/fleet/status", qos::default().keep_last(50))?;
            let phase_pub = node.publisher::<std_msgs::String>("fleet/phase", qos::latched())?;
            let request_pub = node.publisher::<ClearanceRequest>(
                "/fleet/clearance_request",
                qos::default().keep_last(50),
            )?;
            complete_pub.publish(std_msgs::Bool { data: false })?;

            let mut position: Option<[f64; 3]> = None;
            let mut planner_target: Option<PoseStamped> = None;
            let mut planner_complete = false;
            let mut landed = false;
            let mut supervisor_ended = false;
            // The pad: its newest position and the time it was taken, and its velocity.
            let mut pad: Option<([f64; 3], i64)> = None;
            let mut pad_velocity = [0.0f64; 2];
            let mut last_phase: Option<Phase> = None;
            let mut status_due_ns = 0i64;
            let status_period_ns = (1e9 / params.status_rate_hz.get()) as i64;
            let mut complete_sent = false;
            let mut refused = Throttle::new(MALFORMED_LOG_PERIOD);
            let mut timer = node.timer_hz(params.rate_hz.get());
            loop {
                futures::select! {
                    m = odom_sub.recv().fuse() => {
                        let p = m?.pose.pose.position;
                        if [p.x, p.y, p.z].iter().all(|v| v.is_finite()) {
                            position = Some([p.x, p.y, p.z]);
                        } else if refused.hit().is_some() {
                            tracing::warn!("odometry/filtered: position {p:?} is not finite: ignored");
                        }
                    }
                    m = planner_target_sub.recv().fuse() => planner_target = Some(m?),
                    m = planner_complete_sub.recv().fuse() => planner_complete = m?.data,
                    m = landed_sub.recv().fuse() => landed = m?.data,
                    m = mode_sub.recv().fuse() => {
                        let mode = m?.data;
                        if mode == "LAND" {
                            supervisor_ended = true;
                        }
                    }
                    m = pads_sub.recv().fuse() => {
                        let m = m?;
                        let Some(p) = m.poses.get(pad_index).map(|pose| pose.position) else {
                            if refused.hit().is_some() {
                                tracing::warn!("{}: no pad {pad_index} ({} pads)", pads_sub.topic(), m.poses.len());
                            }
                            continue;
                        };
                        let at = nanos_from_time(m.header.stamp);
                        let here = [p.x, p.y, p.z];
                        if !here.iter().all(|v| v.is_finite()) {
                            continue;
                        }
                        if let Some((before, before_at)) = pad {
                            let dt = (at - before_at) as f64 / 1e9;
                            if dt > 1e-3 {
                                // A first-order filter over the differenced positions.
                                for axis in 0..2 {
                                    let v = (here[axis] - before[axis]) / dt;
                                    pad_velocity[axis] += 0.3 * (v - pad_velocity[axis]);
                                }
                            }
                        }
                        pad = Some((here, at));
                    }
                    m = clearance_sub.recv().fuse() => {
                        let m = m?;
                        if m.vehicle != vehicle {
                            continue;
                        }
                        let Some(kind) = kind_of(m.kind) else { continue };
                        sortie.on_answer(&Answer {
                            request_id: m.request_id,
                            kind,
                            granted: m.granted,
                            expires_ns: nanos_from_time(m.expires),
                        }, node.clock().now_nanos());
                        if !m.granted {
                            tracing::info!("{} request {} refused: {}", kind.name(), m.request_id, m.reason);
                        }
                    }
                    _ = timer.tick().fuse() => {
                        let Some(here) = position else { continue };
                        let now = node.clock().now_nanos();
                        let step = sortie.step(&Observed {
                            position: here,
                            pad: pad.map(|(p, _)| (p, pad_velocity)),
                            planner_complete,
                            landed,
                            supervisor_ended,
                        }, now);
                        if let Some(goal) = step.planner_goal {
                            goal_pub.publish(pose_at(&frame_id, now, goal))?;
                        }
                        let target = match step.target {
                            Target::Hold(point) | Target::Point(point) => Some(pose_at(&frame_id, now, point)),
                            Target::Planner => planner_target.clone(),
                        };
                        if let Some(target) = target {
                            target_pub.publish(target)?;
                        }
                        if let Some((kind, request_id)) = step.request {
                            let mut request = ClearanceRequest {
                                vehicle: vehicle.clone(),
                                kind: match kind {
                                    Kind::Launch => ClearanceRequest::KIND_LAUNCH,
                                    Kind::Land => ClearanceRequest::KIND_LAND,
                                },
                                request_id,
                                pad: format!("pad_{pad_index}"),
                                ..ClearanceRequest::default()
                            };
                            request.header.stamp = time_from_nanos(now);
                            request_pub.publish(request)?;
                        }
                        if step.complete && !complete_sent {
                            complete_pub.publish(std_msgs::Bool { data: true })?;
                            complete_sent = true;
                        }
                        if last_phase != Some(step.phase) || now >= status_due_ns {
                            if last_phase != Some(step.phase) {
                                tracing::info!("phase {}", step.phase.name());
                                phase_pub.publish(std_msgs::String { data: step.phase.name().into() })?;
                            }
                            last_phase = Some(step.phase);
                            status_due_ns = now + status_period_ns;
                            let mut status = FleetStatus {
                                vehicle: vehicle.clone(),
                                phase: step.phase.wire(),
                                position: Point { x: here[0], y: here[1], z: here[2] },
                                layer_altitude_m: layer,
                                pad_error_m: pad.map_or(f64::NAN, |(p, _)| (here[0] - p[0]).hypot(here[1] - p[1])),
                                ..FleetStatus::default()
                            };
                            status.header.stamp = time_from_nanos(now);
                            status.header.frame_id = frame_id.clone();
                            status_pub.publish(status)?;
                        }
                    }
                    _ = node.shutdown_requested().fuse() => break,
                }
            }
            Ok(())
        },
    )
}
