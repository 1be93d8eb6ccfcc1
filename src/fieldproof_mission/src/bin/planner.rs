//! `planner`: the quad's occupancy grid from its planar lidar, A* waypoints to the goal, and
//! the current target for the supervisor (one per vehicle, in its namespace).
//!
//! - in: `scan` (sensor_msgs/msg/LaserScan), `odometry/filtered` (nav_msgs/msg/Odometry, the
//!   estimate, ENU frame `map`), `goal_pose` (geometry_msgs/msg/PoseStamped, latched; `z > 0`
//!   is the goal's altitude, otherwise `cruise_altitude_m`);
//! - out: `map` (nav_msgs/msg/OccupancyGrid, latched, at `map_rate_hz`), `plan`
//!   (nav_msgs/msg/Path, latched, on every route), `mission/target`
//!   (geometry_msgs/msg/PoseStamped, latched, at `rate_hz`), `mission/complete`
//!   (std_msgs/msg/Bool, latched, on every change).
//!
//! Every scan is added to the grid with the estimate at its stamp; a scan that closes the
//! route makes a new one from where the vehicle is. Without a route the target is where the
//! vehicle was when it went (hover), and the reason is logged (throttled).
//!
//! ```text
//! planner --ros-args -r __ns:=/quad1 -p use_sim_time:=true
//! ```

use std::time::Duration;

use fieldproof_mission::planning::{
    goal_in_map, GridGeometry, Leg, MissionSettings, OdomOrigin, Planner, PlannerSettings,
    RouteEvent, Target,
};
use fieldproof_runtime::clock::nanos_from_time;
use fieldproof_runtime::logging::Throttle;
use fieldproof_runtime::msgs::builtin_interfaces::Time;
use fieldproof_runtime::msgs::geometry_msgs::{Point, Pose, PoseStamped};
use fieldproof_runtime::msgs::nav_msgs::{MapMetaData, OccupancyGrid, Odometry, Path};
use fieldproof_runtime::msgs::sensor_msgs::LaserScan;
use fieldproof_runtime::msgs::std_msgs::{self, Header};
use fieldproof_runtime::{
    qos, tracing, NodeBuilder, Param, ParamHandle, ParamValue, MALFORMED_LOG_PERIOD,
};
use futures::FutureExt;

/// At most one "no route" line per this period.
const NO_ROUTE_LOG_PERIOD: Duration = Duration::from_secs(5);

/// The handles of the planner's parameters.
struct PlannerParams {
    resolution_m: ParamHandle<f64>,
    map_bounds_m: ParamHandle<Vec<f64>>,
    robot_radius_m: ParamHandle<f64>,
    inflation_margin_m: ParamHandle<f64>,
    preferred_clearance_m: ParamHandle<f64>,
    min_hits: ParamHandle<i64>,
    cruise_altitude_m: ParamHandle<f64>,
    waypoint_radius_m: ParamHandle<f64>,
    goal_radius_m: ParamHandle<f64>,
    rate_hz: ParamHandle<f64>,
    map_rate_hz: ParamHandle<f64>,
    frame_id: ParamHandle<String>,
    odom_origin_m: ParamHandle<Vec<f64>>,
}

fn declare(builder: &mut NodeBuilder) -> PlannerParams {
    PlannerParams {
        resolution_m: builder.declare(
            Param::double("resolution_m", 0.25)
                .description("edge of a grid cell, m")
                .range(0.05, 5.0)
                .read_only(),
        ),
        map_bounds_m: builder.declare(
            Param::doubles("map_bounds_m", &[-30.0, -20.0, 30.0, 20.0])
                .description(
                    "the grid's extent [min_x, min_y, max_x, max_y] in the map frame, m \
                     (default: worlds/inspection.yaml's bounds)",
                )
                .read_only()
                .on_change(|v| match v {
                    ParamValue::DoubleArray(b)
                        if b.len() == 4
                            && b.iter().all(|v| v.is_finite())
                            && b[0] < b[2]
                            && b[1] < b[3] =>
                    {
                        Ok(())
                    }
                    other => Err(format!(
                        "map_bounds_m: {other:?} is not [min_x, min_y, max_x, max_y] \
                         (finite, min < max)"
                    )),
                }),
        ),
        robot_radius_m: builder.declare(
            Param::double("robot_radius_m", 0.3)
                .description("the vehicle's radius, m (obstacles are inflated by it)")
                .range(0.0, 10.0)
                .read_only(),
        ),
        inflation_margin_m: builder.declare(
            // 0.7: room for the localizer's horizontal error (quad_camera_loss, 6 runs: p99
            // 0.52 m, worst 0.90 m) and a cell's half diagonal (0.18 m at 0.25 m). At 0.3 the
            // quad passed 0.48-0.67 m from the wall's surface (0.18-0.37 m of air beside its
            // body) and one CI run flew into the corner; at 0.7, 0.95-1.11 m.
            Param::double("inflation_margin_m", 0.7)
                .description(
                    "clearance added to the vehicle's radius, m (covers the estimate's error \
                     and the grid's cells)",
                )
                .range(0.0, 10.0)
                .read_only(),
        ),
        preferred_clearance_m: builder.declare(
            Param::double("preferred_clearance_m", 1.5)
                .description(
                    "distance routes keep from obstacles where there is room, m (steps nearer \
                     cost more; no effect below robot_radius_m + inflation_margin_m)",
                )
                .range(0.0, 20.0)
                .read_only(),
        ),
        min_hits: builder.declare(
            Param::int("min_hits", 2)
                .description(
                    "lidar hits that make a cell occupied (a single stray return does not)",
                )
                .range(1.0, 1000.0)
                .read_only(),
        ),
        cruise_altitude_m: builder.declare(
            Param::double("cruise_altitude_m", 5.0)
                .description("altitude of the waypoints (and of a goal with z <= 0), m")
                .range(0.5, 500.0),
        ),
        waypoint_radius_m: builder.declare(
            Param::double("waypoint_radius_m", 1.0)
                .description("horizontal distance at which a waypoint is reached, m")
                .range(0.1, 50.0),
        ),
        goal_radius_m: builder.declare(
            Param::double("goal_radius_m", 0.5)
                .description("horizontal and vertical distance at which the goal is reached, m")
                .range(0.05, 50.0),
        ),
        rate_hz: builder.declare(
            Param::double("rate_hz", 10.0)
                .description("how often mission/target is published")
                .range(1.0, 100.0)
                .read_only(),
        ),
        map_rate_hz: builder.declare(
            Param::double("map_rate_hz", 1.0)
                .description("how often the map is published")
                .range(0.05, 10.0)
                .read_only(),
        ),
        frame_id: builder.declare(
            Param::string("frame_id", "map")
                .description("frame of the estimate, the goal and everything published")
                .read_only(),
        ),
        odom_origin_m: builder.declare(
            Param::doubles("odom_origin_m", &[])
                .description(
                    "where the vehicle's odom frame lies in the map frame, [x, y, yaw_deg] \
                     (its spawn pose), for goals stamped in odom; empty: such goals are refused",
                )
                .on_change(|v| match v {
                    ParamValue::DoubleArray(a)
                        if a.is_empty() || (a.len() == 3 && a.iter().all(|v| v.is_finite())) =>
                    {
                        Ok(())
                    }
                    other => Err(format!(
                        "odom_origin_m: {other:?} is not [] or [x, y, yaw_deg] (finite numbers)"
                    )),
                }),
        ),
    }
}

impl PlannerParams {
    fn planner_settings(&self) -> Result<PlannerSettings, String> {
        let b = self.map_bounds_m.get();
        let [min_x, min_y, max_x, max_y] = b[..] else {
            return Err(format!("map_bounds_m: {b:?} does not have 4 numbers"));
        };
        Ok(PlannerSettings {
            geometry: GridGeometry::new([min_x, min_y], [max_x, max_y], self.resolution_m.get())?,
            inflation_radius_m: self.robot_radius_m.get() + self.inflation_margin_m.get(),
            preferred_clearance_m: self.preferred_clearance_m.get(),
            min_hits: self.min_hits.get().clamp(1, i64::from(u16::MAX)) as u16,
        })
    }

    fn odom_origin(&self) -> Option<OdomOrigin> {
        match self.odom_origin_m.get()[..] {
            [x, y, yaw_deg] => Some(OdomOrigin {
                x,
                y,
                yaw: yaw_deg.to_radians(),
            }),
            _ => None,
        }
    }

    fn mission_settings(&self) -> MissionSettings {
        MissionSettings {
            cruise_altitude_m: self.cruise_altitude_m.get(),
            waypoint_radius_m: self.waypoint_radius_m.get(),
            goal_radius_m: self.goal_radius_m.get(),
        }
    }
}

fn header(stamp: Time, frame_id: &str) -> Header {
    Header {
        stamp,
        frame_id: frame_id.to_string(),
    }
}

fn pose_at(position: [f64; 3]) -> Pose {
    Pose {
        position: Point {
            x: position[0],
            y: position[1],
            z: position[2],
        },
        ..Pose::default()
    }
}

/// The route as a Path: the start at the altitude the vehicle had, the waypoints at cruise
/// altitude, the goal at its own.
fn path_message(
    points: &[[f64; 2]],
    start_altitude: f64,
    goal_altitude: f64,
    cruise_altitude: f64,
    header: Header,
) -> Path {
    let last = points.len().saturating_sub(1);
    let poses = points
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let z = match i {
                0 => start_altitude,
                i if i == last => goal_altitude,
                _ => cruise_altitude,
            };
            PoseStamped {
                header: header.clone(),
                pose: pose_at([p[0], p[1], z]),
            }
        })
        .collect();
    Path { header, poses }
}

fn map_message(planner: &Planner, header: Header) -> OccupancyGrid {
    let g = planner.map().geometry();
    OccupancyGrid {
        info: MapMetaData {
            map_load_time: header.stamp,
            resolution: g.resolution as f32,
            width: g.width as u32,
            height: g.height as u32,
            origin: pose_at([g.origin_x, g.origin_y, 0.0]),
        },
        header,
        data: planner.map().cell_values(),
    }
}

fn route_length(points: &[[f64; 2]]) -> f64 {
    points
        .windows(2)
        .map(|w| (w[1][0] - w[0][0]).hypot(w[1][1] - w[0][1]))
        .sum()
}

fn main() -> std::process::ExitCode {
    let mut builder = NodeBuilder::new("planner");
    let params = declare(&mut builder);
    fieldproof_runtime::main(
        move || builder,
        |node| async move {
            let mut planner = Planner::new(params.planner_settings()?);
            let frame_id = params.frame_id.get();
            let scan_sub = node.subscription::<LaserScan>("scan", qos::sensor_data())?;
            let odom_sub =
                node.subscription::<Odometry>("odometry/filtered", qos::sensor_data())?;
            let goal_sub = node.subscription::<PoseStamped>("goal_pose", qos::latched())?;
            let map_pub = node.publisher::<OccupancyGrid>("map", qos::latched())?;
            let plan_pub = node.publisher::<Path>("plan", qos::latched())?;
            let target_pub = node.publisher::<PoseStamped>("mission/target", qos::latched())?;
            let complete_pub =
                node.publisher::<std_msgs::Bool>("mission/complete", qos::latched())?;
            complete_pub.publish(std_msgs::Bool { data: false })?;
            let mut complete = false;
            let mut timer = node.timer_hz(params.rate_hz.get());
            let mut map_timer = node.timer_hz(params.map_rate_hz.get());
            let mut bad_estimate = Throttle::new(MALFORMED_LOG_PERIOD);
            let mut unplaced_scan = Throttle::new(MALFORMED_LOG_PERIOD);
            let mut no_route_log = Throttle::new(NO_ROUTE_LOG_PERIOD);
            let mut last_leg: Option<Leg> = None;
            {
                let g = planner.map().geometry();
                tracing::info!(
                    "grid {} x {} cells of {} m from ({}, {}), inflation {} m",
                    g.width,
                    g.height,
                    g.resolution,
                    g.origin_x,
                    g.origin_y,
                    params.robot_radius_m.get() + params.inflation_margin_m.get()
                );
            }
            let mut plan_shown = false;
            let now_ns = || node.clock().now_nanos();
            loop {
                let mut event = None;
                futures::select! {
                    m = odom_sub.recv().fuse() => {
                        let m = m?;
                        let p = &m.pose.pose.position;
                        let q = &m.pose.pose.orientation;
                        let position = [p.x, p.y, p.z];
                        let yaw = q.yaw();
                        if position.iter().all(|v| v.is_finite()) && yaw.is_finite() {
                            planner.on_estimate(nanos_from_time(m.header.stamp), now_ns(), position, yaw);
                        } else if let Some(n) = bad_estimate.hit() {
                            tracing::warn!(
                                "{}: position {position:?} yaw {yaw} is not finite: ignored ({n} since the last report)",
                                odom_sub.topic()
                            );
                        }
                    }
                    m = scan_sub.recv().fuse() => {
                        let m = m?;
                        let now = now_ns();
                        match planner.on_scan(&m, nanos_from_time(m.header.stamp), now, now) {
                            Ok((_, e)) => event = e,
                            Err(reason) => {
                                if let Some(n) = unplaced_scan.hit() {
                                    tracing::warn!("{}: {reason}: scan not added ({n} since the last report)", scan_sub.topic());
                                }
                            }
                        }
                    }
                    m = goal_sub.recv().fuse() => {
                        let m = m?;
                        let p = &m.pose.position;
                        let goal = [p.x, p.y, p.z];
                        if !goal.iter().all(|v| v.is_finite()) {
                            tracing::warn!("{}: goal {goal:?} is not finite: ignored", goal_sub.topic());
                            continue;
                        }
                        let goal = match goal_in_map(&m.header.frame_id, goal, &frame_id, params.odom_origin()) {
                            Ok(goal) => goal,
                            Err(reason) => {
                                tracing::error!("{}: {reason}: goal ignored", goal_sub.topic());
                                continue;
                            }
                        };
                        tracing::info!("new goal ({:.2}, {:.2}, {:.2})", goal[0], goal[1], goal[2]);
                        event = planner.on_goal(goal, &params.mission_settings(), now_ns());
                        if complete {
                            complete = false;
                            complete_pub.publish(std_msgs::Bool { data: false })?;
                        }
                    }
                    _ = timer.tick().fuse() => {
                        let (target, e) = planner.tick(&params.mission_settings(), now_ns());
                        event = e;
                        if let Some(Target { position, leg }) = target {
                            if last_leg != Some(leg) {
                                tracing::info!("target ({:.2}, {:.2}, {:.2}): {leg:?}", position[0], position[1], position[2]);
                                last_leg = Some(leg);
                            }
                            target_pub.publish(PoseStamped {
                                header: header(node.now(), &frame_id),
                                pose: pose_at(position),
                            })?;
                        }
                        if planner.mission().is_complete() != complete {
                            complete = planner.mission().is_complete();
                            tracing::info!("mission complete: {complete}");
                            complete_pub.publish(std_msgs::Bool { data: complete })?;
                        }
                    }
                    _ = map_timer.tick().fuse() => {
                        map_pub.publish(map_message(&planner, header(node.now(), &frame_id)))?;
                    }
                    _ = node.shutdown_requested().fuse() => break,
                }
                let Some(event) = event else { continue };
                match event {
                    RouteEvent::Planned { points, replanned } => {
                        let (start_z, goal_z) = (
                            planner.position().map_or(0.0, |p| p[2]),
                            planner.mission().goal().map_or(0.0, |g| g[2]),
                        );
                        if replanned {
                            tracing::warn!(
                                "a scan closed the route: replanned, {} waypoints, {:.1} m",
                                points.len() - 1,
                                route_length(&points)
                            );
                        } else {
                            tracing::info!(
                                "route: {} waypoints, {:.1} m",
                                points.len() - 1,
                                route_length(&points)
                            );
                        }
                        no_route_log = Throttle::new(NO_ROUTE_LOG_PERIOD);
                        plan_shown = true;
                        plan_pub.publish(path_message(
                            &points,
                            start_z,
                            goal_z,
                            params.cruise_altitude_m.get(),
                            header(node.now(), &frame_id),
                        ))?;
                    }
                    RouteEvent::NoRoute(reason) => {
                        if let Some(n) = no_route_log.hit() {
                            tracing::warn!(
                                "{reason}: hovering ({n} attempts since the last report)"
                            );
                        }
                        if plan_shown {
                            // The route is gone: so is the plan a viewer shows.
                            plan_shown = false;
                            plan_pub.publish(Path {
                                header: header(node.now(), &frame_id),
                                poses: Vec::new(),
                            })?;
                        }
                    }
                }
            }
            Ok(())
        },
    )
}
