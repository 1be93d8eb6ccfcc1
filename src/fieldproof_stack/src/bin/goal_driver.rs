//! `goal_driver`: the example UGV stack. Drives to a goal in the odom frame, avoiding what
//! the lidar sees, and keeps its goal through a link outage (the failsafe after it holds
//! the vehicle; it carries on when commands pass again).
//!
//! - in: `odom` (nav_msgs/msg/Odometry), `scan` (sensor_msgs/msg/LaserScan),
//!   `goal_pose` (geometry_msgs/msg/PoseStamped, odom frame; reliable, transient local);
//! - parameter `goal` (`[x, y]` in the odom frame, empty: none) sets it too;
//! - out: `output` (default `cmd_vel_nav`, geometry_msgs/msg/Twist) at `rate_hz`, and
//!   `goal_reached` (std_msgs/msg/Bool, latched) on every change;
//! - once it has seen a scan, a scan older than 0.5 s (simulation time) stops it until
//!   scans return (a silent lidar is no view of the obstacles).
//!
//! ```text
//! goal_driver --ros-args -r __ns:=/ugv1 -p use_sim_time:=true -p goal:="[18.0, 0.0]"
//! ```

use fieldproof_runtime::logging::Throttle;
use fieldproof_runtime::msgs::geometry_msgs::{PoseStamped, Twist, Vector3};
use fieldproof_runtime::msgs::nav_msgs::Odometry;
use fieldproof_runtime::msgs::sensor_msgs::LaserScan;
use fieldproof_runtime::msgs::std_msgs;
use fieldproof_runtime::{
    qos, tracing, NodeBuilder, Param, ParamHandle, ParamValue, MALFORMED_LOG_PERIOD,
};
use fieldproof_stack::{step, Pose2, Scan, Settings};
use futures::FutureExt;
use std::sync::{Arc, Mutex};

/// The handles of the driver's parameters.
struct DriverParams {
    goal: ParamHandle<Vec<f64>>,
    output: ParamHandle<String>,
    rate_hz: ParamHandle<f64>,
    max_speed_mps: ParamHandle<f64>,
    max_turn_radps: ParamHandle<f64>,
    tolerance_m: ParamHandle<f64>,
    half_width_m: ParamHandle<f64>,
    look_ahead_m: ParamHandle<f64>,
}

fn declare(builder: &mut NodeBuilder) -> DriverParams {
    DriverParams {
        goal: builder.declare(
            Param::doubles("goal", &[])
                .description("goal [x, y] in the odom frame (empty: none)")
                .on_change(|v| match v {
                    ParamValue::DoubleArray(a)
                        if a.is_empty() || (a.len() == 2 && a.iter().all(|v| v.is_finite())) =>
                    {
                        Ok(())
                    }
                    other => Err(format!(
                        "goal: {other:?} is not [] or [x, y] (finite numbers)"
                    )),
                }),
        ),
        output: builder.declare(
            Param::string("output", "cmd_vel_nav")
                .topic()
                .description("velocity command topic")
                .read_only(),
        ),
        rate_hz: builder.declare(Param::double("rate_hz", 20.0).range(1.0, 200.0).read_only()),
        max_speed_mps: builder.declare(Param::double("max_speed_mps", 0.8).range(0.0, 20.0)),
        max_turn_radps: builder.declare(Param::double("max_turn_radps", 1.2).range(0.0, 20.0)),
        tolerance_m: builder.declare(Param::double("tolerance_m", 0.5).range(0.05, 100.0)),
        half_width_m: builder.declare(Param::double("half_width_m", 0.55).range(0.05, 10.0)),
        look_ahead_m: builder.declare(Param::double("look_ahead_m", 2.0).range(0.2, 50.0)),
    }
}

fn main() -> std::process::ExitCode {
    let mut builder = NodeBuilder::new("goal_driver");
    let params = declare(&mut builder);
    fieldproof_runtime::main(
        move || builder,
        |node| async move {
            let odom_sub = node.subscription::<Odometry>("odom", qos::default())?;
            let scan_sub = node.subscription::<LaserScan>("scan", qos::default())?;
            let goal_sub = node.subscription::<PoseStamped>("goal_pose", qos::latched())?;
            let out = node.publisher::<Twist>(&params.output.get(), qos::default())?;
            let reached_pub = node.publisher::<std_msgs::Bool>("goal_reached", qos::latched())?;
            let goal: Arc<Mutex<Option<(f64, f64)>>> = Arc::new(Mutex::new(None));
            {
                let goal = goal.clone();
                // Once now (the start-up goal) and on every change.
                params.goal.follow(move |a| {
                    let g = match a[..] {
                        [x, y] => Some((x, y)),
                        _ => None,
                    };
                    tracing::info!("goal set by parameter: {g:?}");
                    *goal.lock().expect("goal") = g;
                });
            }
            let mut pose: Option<Pose2> = None;
            let mut scan: Option<Scan> = None;
            // A scan older than this (simulation time) is no view of the obstacles: stop.
            const STALE_SCAN_NS: i64 = 500_000_000;
            let mut scan_at: i64 = 0;
            let mut stale_logged = false;
            let mut reached: Option<bool> = None;
            let mut timer = node.timer_hz(params.rate_hz.get());
            let mut non_finite = Throttle::new(MALFORMED_LOG_PERIOD);
            loop {
                futures::select! {
                    m = odom_sub.recv().fuse() => {
                        let m = m?;
                        let q = &m.pose.pose.orientation;
                        let p = Pose2 {
                            x: m.pose.pose.position.x,
                            y: m.pose.pose.position.y,
                            yaw: q.yaw(),
                        };
                        if [p.x, p.y, p.yaw].iter().all(|v| v.is_finite()) {
                            pose = Some(p);
                        } else if non_finite.hit().is_some() {
                            tracing::warn!(
                                "{}: pose ({}, {}, yaw {}) is not finite: ignored ({} in all)",
                                odom_sub.topic(), p.x, p.y, p.yaw, non_finite.total()
                            );
                        }
                    }
                    m = scan_sub.recv().fuse() => {
                        let m = m?;
                        scan = Some(Scan {
                            angle_min: m.angle_min as f64,
                            angle_increment: m.angle_increment as f64,
                            ranges: m.ranges.iter().map(|r| *r as f64).collect(),
                            range_max: m.range_max as f64,
                        });
                        scan_at = node.clock().now_nanos();
                        stale_logged = false;
                    }
                    m = goal_sub.recv().fuse() => {
                        let m = m?;
                        let g = (m.pose.position.x, m.pose.position.y);
                        if !(g.0.is_finite() && g.1.is_finite()) {
                            tracing::warn!("{}: goal ({}, {}) is not finite: ignored", goal_sub.topic(), g.0, g.1);
                            continue;
                        }
                        tracing::info!("new goal ({:.2}, {:.2}) in {}", g.0, g.1, m.header.frame_id);
                        *goal.lock().expect("goal") = Some(g);
                        reached = None;
                    }
                    _ = timer.tick().fuse() => {
                        let g = *goal.lock().expect("goal");
                        let (Some(p), Some(g)) = (pose, g) else { continue };
                        let s = Settings {
                            max_speed_mps: params.max_speed_mps.get(),
                            max_turn_radps: params.max_turn_radps.get(),
                            tolerance_m: params.tolerance_m.get(),
                            half_width_m: params.half_width_m.get(),
                            look_ahead_m: params.look_ahead_m.get(),
                            ..Settings::default()
                        };
                        let stale = scan.is_some()
                            && node.clock().now_nanos() - scan_at > STALE_SCAN_NS;
                        let c = if stale {
                            if !stale_logged {
                                tracing::warn!("no lidar scan for 0.5 s: holding until scans return");
                                stale_logged = true;
                            }
                            fieldproof_stack::Command::STOP
                        } else {
                            step(&s, p, g, scan.as_ref())
                        };
                        out.publish(Twist {
                            linear: Vector3 { x: c.linear, y: 0.0, z: 0.0 },
                            angular: Vector3 { x: 0.0, y: 0.0, z: c.angular },
                        })?;
                        if reached != Some(c.reached) {
                            if c.reached {
                                tracing::info!("goal reached at ({:.2}, {:.2})", p.x, p.y);
                            }
                            reached_pub.publish(std_msgs::Bool { data: c.reached })?;
                            reached = Some(c.reached);
                        }
                    }
                    _ = node.shutdown_requested().fuse() => break,
                }
            }
            Ok(())
        },
    )
}
