//! `planner` end to end (DDS in a private network namespace): a peer plays the quad hovering
//! at cruise altitude west of a wall (its estimate on `odometry/filtered`, heading 0.3 rad),
//! the 72-ray lidar's scans of the wall (with a NaN and a `-inf` ray among them), and a goal
//! east of the wall on `goal_pose`. The planner's `plan` passes the wall beyond the last point
//! the lidar hit and never within the vehicle's radius of a hit, `mission/target` is the
//! plan's first waypoint at cruise altitude, `map` shows the hits occupied and nothing else;
//! an estimate at the goal makes `mission/complete` true.

use std::time::{Duration, Instant};

use fieldproof_runtime::msgs::geometry_msgs::{PoseStamped, Quaternion};
use fieldproof_runtime::msgs::nav_msgs::{OccupancyGrid, Odometry, Path};
use fieldproof_runtime::msgs::sensor_msgs::LaserScan;
use fieldproof_runtime::msgs::std_msgs;
use fieldproof_runtime::{qos, NodeBuilder};
use fieldproof_testkit::NodeProc;

const EXE: &str = env!("CARGO_BIN_EXE_planner");
const DOMAIN: u16 = 71;
const SIGINT: i32 = 2;
/// The vehicle, hovering at cruise altitude, and its heading.
const START: [f64; 3] = [-6.0, 0.0, 5.0];
const YAW: f64 = 0.3;
/// The goal, east of the wall.
const GOAL: [f64; 3] = [6.0, 0.0, 5.0];
/// The wall: x = 0, from y = -4 to 4.
const WALL_X: f64 = 0.0;
const WALL_HALF_LENGTH: f64 = 4.0;
const ROBOT_RADIUS_M: f64 = 0.3;

fn start_node() -> NodeProc {
    NodeProc::command(EXE)
        .domain(DOMAIN)
        .ros_args(&["-r", "__ns:=/quad1"])
        .params(&[
            "map_bounds_m:=[-10.0, -10.0, 10.0, 10.0]",
            "rate_hz:=20.0",
            "map_rate_hz:=2.0",
        ])
        .start()
}

/// The estimate at `position`, heading [`YAW`].
fn estimate(
    position: [f64; 3],
    stamp: fieldproof_runtime::msgs::builtin_interfaces::Time,
) -> Odometry {
    let mut odom = Odometry::default();
    odom.header.stamp = stamp;
    odom.header.frame_id = "map".into();
    odom.child_frame_id = "base_link".into();
    odom.pose.pose.position.x = position[0];
    odom.pose.pose.position.y = position[1];
    odom.pose.pose.position.z = position[2];
    odom.pose.pose.orientation = Quaternion {
        x: 0.0,
        y: 0.0,
        z: (YAW / 2.0).sin(),
        w: (YAW / 2.0).cos(),
    };
    odom
}

/// The body-frame angles of `robots/quad_ref`'s lidar: 72 rays 5 degrees apart from -177.5.
fn ray_angle(i: usize) -> f64 {
    (-177.5f64).to_radians() + i as f64 * 5f64.to_radians()
}

/// The range of ray `i` from [`START`] to the wall, `None` where it misses.
fn wall_range(i: usize) -> Option<f64> {
    let (s, c) = (YAW + ray_angle(i)).sin_cos();
    if c <= 1e-9 {
        return None;
    }
    let r = (WALL_X - START[0]) / c;
    let y = START[1] + r * s;
    (y.abs() <= WALL_HALF_LENGTH && r < 20.0).then_some(r)
}

/// Rays 0 and 1 carry a driver's bad values (NaN, `-inf`), to be skipped.
const BAD_RAYS: usize = 2;

/// Where the rays hit the wall (map frame).
fn wall_hits() -> Vec<[f64; 2]> {
    (BAD_RAYS..72)
        .filter_map(|i| {
            let r = wall_range(i)?;
            let (s, c) = (YAW + ray_angle(i)).sin_cos();
            Some([START[0] + r * c, START[1] + r * s])
        })
        .collect()
}

/// What the lidar sees of the wall from [`START`] (0.2 to 20 m, `+inf` where a ray misses).
fn wall_scan(stamp: fieldproof_runtime::msgs::builtin_interfaces::Time) -> LaserScan {
    let mut ranges: Vec<f32> = (0..72)
        .map(|i| wall_range(i).map_or(f32::INFINITY, |r| r as f32))
        .collect();
    ranges[0] = f32::NAN;
    ranges[1] = f32::NEG_INFINITY;
    let mut scan = LaserScan {
        angle_min: ray_angle(0) as f32,
        angle_max: ray_angle(71) as f32,
        angle_increment: 5f32.to_radians(),
        scan_time: 0.1,
        range_min: 0.2,
        range_max: 20.0,
        intensities: vec![0.0; ranges.len()],
        ranges,
        ..LaserScan::default()
    };
    scan.header.stamp = stamp;
    scan.header.frame_id = "lidar_link".into();
    scan
}

/// The distance from `p` to the nearest hit.
fn distance_to_hits(p: [f64; 2]) -> f64 {
    wall_hits()
        .iter()
        .map(|h| (p[0] - h[0]).hypot(p[1] - h[1]))
        .fold(f64::INFINITY, f64::min)
}

/// The plan's legs sampled every 2 cm.
fn samples(plan: &Path) -> Vec<[f64; 2]> {
    let points: Vec<[f64; 2]> = plan
        .poses
        .iter()
        .map(|p| [p.pose.position.x, p.pose.position.y])
        .collect();
    let mut out = Vec::new();
    for leg in points.windows(2) {
        let length = (leg[1][0] - leg[0][0]).hypot(leg[1][1] - leg[0][1]);
        let n = (length / 0.02).ceil().max(1.0) as usize;
        for i in 0..=n {
            let t = i as f64 / n as f64;
            out.push([
                leg[0][0] + t * (leg[1][0] - leg[0][0]),
                leg[0][1] + t * (leg[1][1] - leg[0][1]),
            ]);
        }
    }
    out
}

/// The smallest distance from the plan to a hit.
fn clearance(plan: &Path) -> f64 {
    samples(plan)
        .into_iter()
        .map(distance_to_hits)
        .fold(f64::INFINITY, f64::min)
}

/// Whether the plan crosses the wall's line beyond the outermost hit (around an end).
fn passes_beyond_the_hits(plan: &Path) -> bool {
    let outermost = wall_hits().iter().map(|h| h[1].abs()).fold(0.0, f64::max);
    let points = samples(plan);
    points
        .windows(2)
        .any(|w| (w[0][0] - WALL_X) * (w[1][0] - WALL_X) <= 0.0 && w[0][1].abs() > outermost)
}

/// What the peer saw.
#[derive(Debug, Default)]
struct Seen {
    plans: Vec<Path>,
    targets: Vec<PoseStamped>,
    map: Option<OccupancyGrid>,
    complete: Vec<bool>,
}

impl Seen {
    /// The newest plan with waypoints, if it goes around the wall.
    fn plan_around_the_wall(&self) -> Option<&Path> {
        self.plans.last().filter(|p| {
            p.poses.len() >= 3 && passes_beyond_the_hits(p) && clearance(p) > ROBOT_RADIUS_M
        })
    }

    /// The map has the wall's hits occupied (a cell per ray that meets it), nothing occupied
    /// elsewhere, and the vehicle's own cell (where every ray
    /// starts) seen and free.
    fn map_shows_the_wall(&self) -> bool {
        let Some(map) = &self.map else { return false };
        let resolution = f64::from(map.info.resolution);
        let width = map.info.width as usize;
        let center = |index: usize| {
            [
                map.info.origin.position.x + ((index % width) as f64 + 0.5) * resolution,
                map.info.origin.position.y + ((index / width) as f64 + 0.5) * resolution,
            ]
        };
        let occupied: Vec<[f64; 2]> = (0..map.data.len())
            .filter(|i| map.data[*i] == OccupancyGrid::OCCUPIED)
            .map(center)
            .collect();
        let on_the_wall = |p: &[f64; 2]| distance_to_hits(*p) <= resolution;
        let own = ((START[1] - map.info.origin.position.y) / resolution) as usize * width
            + ((START[0] - map.info.origin.position.x) / resolution) as usize;
        occupied.len() >= 8
            && occupied.iter().all(on_the_wall)
            && map.data[own] == OccupancyGrid::FREE
    }
}

#[test]
fn plans_around_a_wall_the_lidar_sees_and_completes_at_the_goal() {
    fieldproof_testkit::contain_or_return!();
    let NodeProc { mut child, stderr } = start_node();
    let mut seen = Seen::default();
    let seen_ref = &mut seen;
    let cfg = NodeBuilder::new("planner_peer")
        .resolve(["planner_peer"], |k| {
            (k == "ROS_DOMAIN_ID").then(|| DOMAIN.to_string())
        })
        .expect("peer config");
    fieldproof_runtime::run(cfg, |node| async move {
        let odom_pub = node.publisher::<Odometry>("/quad1/odometry/filtered", qos::default())?;
        let scan_pub = node.publisher::<LaserScan>("/quad1/scan", qos::sensor_data())?;
        let goal_pub = node.publisher::<PoseStamped>("/quad1/goal_pose", qos::latched())?;
        let plan_sub = node.subscription::<Path>("/quad1/plan", qos::latched())?;
        let target_sub =
            node.subscription::<PoseStamped>("/quad1/mission/target", qos::latched())?;
        let map_sub = node.subscription::<OccupancyGrid>("/quad1/map", qos::latched())?;
        let complete_sub = node.subscription::<std_msgs::Bool>(
            "/quad1/mission/complete",
            qos::latched().keep_last(10),
        )?;
        let mut goal = PoseStamped::default();
        goal.header.frame_id = "map".into();
        goal.pose.position.x = GOAL[0];
        goal.pose.position.y = GOAL[1];
        goal.pose.position.z = GOAL[2];
        let started = Instant::now();
        let mut goal_sent = false;
        let mut at_goal = false;
        loop {
            assert!(
                started.elapsed() < Duration::from_secs(60),
                "no plan around the wall, or no completion, within 60 s: {:?}\n{seen_ref:#?}",
                seen_ref.plans.last().map(clearance)
            );
            let position = if at_goal { GOAL } else { START };
            odom_pub.publish(estimate(position, node.now()))?;
            if !at_goal {
                scan_pub.publish(wall_scan(node.now()))?;
            }
            // The goal once the planner listens (latched: it gets it however late it comes).
            if !goal_sent && odom_pub.subscription_count() > 0 {
                goal.header.stamp = node.now();
                goal_pub.publish(goal.clone())?;
                goal_sent = true;
            }
            smol::Timer::after(Duration::from_millis(100)).await;
            while let Some(plan) = plan_sub.try_recv()? {
                seen_ref.plans.push(plan);
            }
            while let Some(target) = target_sub.try_recv()? {
                seen_ref.targets.push(target);
            }
            while let Some(map) = map_sub.try_recv()? {
                seen_ref.map = Some(map);
            }
            while let Some(complete) = complete_sub.try_recv()? {
                seen_ref.complete.push(complete.data);
            }
            if !at_goal
                && seen_ref.plan_around_the_wall().is_some()
                && seen_ref.map_shows_the_wall()
            {
                // The target is the plan's first waypoint; then fly there: the goal.
                let first = seen_ref.plan_around_the_wall().unwrap().poses[1]
                    .pose
                    .position;
                let target_is_first = seen_ref.targets.last().is_some_and(|t| {
                    let p = t.pose.position;
                    (p.x - first.x).abs() < 1e-9 && (p.y - first.y).abs() < 1e-9
                });
                if target_is_first {
                    at_goal = true;
                }
            }
            if at_goal && seen_ref.complete.last() == Some(&true) {
                break;
            }
        }
        Ok(())
    })
    .expect("peer run");

    let plan = seen.plan_around_the_wall().expect("a plan around the wall");
    assert_eq!(plan.header.frame_id, "map");
    let first = plan.poses.first().unwrap().pose.position;
    let last = plan.poses.last().unwrap().pose.position;
    assert!(
        (first.x - START[0]).abs() < 1e-9 && (first.y - START[1]).abs() < 1e-9,
        "{plan:?}"
    );
    assert_eq!((last.x, last.y, last.z), (GOAL[0], GOAL[1], GOAL[2]));
    // Around an end of the wall, at cruise altitude.
    assert!(passes_beyond_the_hits(plan), "{plan:?}");
    assert!(wall_hits().len() >= 8, "{:?}", wall_hits());
    for waypoint in &plan.poses[1..] {
        assert_eq!(waypoint.pose.position.z, 5.0);
    }
    let margin = clearance(plan);
    assert!(margin > ROBOT_RADIUS_M, "clearance {margin} m");
    // The first target the planner gave with a route was its first waypoint at 5 m.
    let target = seen
        .targets
        .iter()
        .find(|t| t.pose.position.z == 5.0 && t.pose.position.x != START[0])
        .expect("a target on the route");
    assert_eq!(target.header.frame_id, "map");
    // Complete: false first (latched at start-up), true at the goal.
    assert_eq!(seen.complete.first(), Some(&false));
    assert_eq!(seen.complete.last(), Some(&true));

    child.signal(SIGINT).expect("SIGINT");
    let end = Instant::now() + Duration::from_secs(10);
    while child.try_wait().unwrap().is_none() {
        assert!(Instant::now() < end, "planner did not stop after SIGINT");
        std::thread::sleep(Duration::from_millis(20));
    }
    stderr.wait_closed(Duration::from_secs(5));
    // The bad rays were skipped, not fatal; a route was logged.
    assert!(
        stderr.count("route:") + stderr.count("replanned") > 0,
        "{:?}",
        stderr.all()
    );
    assert_eq!(stderr.count("panicked"), 0, "{:?}", stderr.all());
}

/// The obstacles of `worlds/inspection.yaml` (all above cruise altitude): boxes as
/// (min, max) corners and circles as (centre, radius).
const WORLD_BOXES: [([f64; 2], [f64; 2]); 1] = [([-4.5, -7.0], [-3.5, 7.0])];
const WORLD_CIRCLES: [([f64; 2], f64); 3] =
    [([6.0, 10.0], 1.5), ([6.0, -9.0], 1.5), ([18.0, 0.0], 0.8)];

/// The distance along a ray from `o` in direction `d` (unit) to the first obstacle.
fn cast(o: [f64; 2], d: [f64; 2]) -> Option<f64> {
    let mut best: Option<f64> = None;
    let mut keep = |t: f64| {
        if t > 0.0 && best.is_none_or(|b| t < b) {
            best = Some(t);
        }
    };
    for (min, max) in WORLD_BOXES {
        let (mut t0, mut t1) = (f64::NEG_INFINITY, f64::INFINITY);
        for axis in 0..2 {
            if d[axis].abs() < 1e-12 {
                if o[axis] < min[axis] || o[axis] > max[axis] {
                    t0 = f64::INFINITY;
                }
            } else {
                let (a, b) = (
                    (min[axis] - o[axis]) / d[axis],
                    (max[axis] - o[axis]) / d[axis],
                );
                t0 = t0.max(a.min(b));
                t1 = t1.min(a.max(b));
            }
        }
        if t0 <= t1 {
            keep(t0);
        }
    }
    for (c, r) in WORLD_CIRCLES {
        let (fx, fy) = (o[0] - c[0], o[1] - c[1]);
        let b = fx * d[0] + fy * d[1];
        let disc = b * b - (fx * fx + fy * fy - r * r);
        if disc >= 0.0 {
            keep(-b - disc.sqrt());
        }
    }
    best
}

/// The distance from `p` to the nearest obstacle's surface.
fn world_clearance(p: [f64; 2]) -> f64 {
    let boxes = WORLD_BOXES.iter().map(|(min, max)| {
        let dx = (min[0] - p[0]).max(p[0] - max[0]).max(0.0);
        let dy = (min[1] - p[1]).max(p[1] - max[1]).max(0.0);
        dx.hypot(dy)
    });
    let circles = WORLD_CIRCLES
        .iter()
        .map(|(c, r)| (p[0] - c[0]).hypot(p[1] - c[1]) - r);
    boxes.chain(circles).fold(f64::INFINITY, f64::min)
}

/// `robots/quad_ref`'s lidar at `p`, heading 0, noiseless (the simulator's ideal geometry).
fn world_scan(p: [f64; 2]) -> LaserScan {
    let ranges = (0..72)
        .map(|i| {
            let a = ray_angle(i);
            match cast(p, [a.cos(), a.sin()]) {
                Some(r) if r < 20.0 => r.max(0.2) as f32,
                _ => f32::INFINITY,
            }
        })
        .collect();
    LaserScan {
        angle_min: ray_angle(0) as f32,
        angle_max: ray_angle(71) as f32,
        angle_increment: 5f32.to_radians(),
        range_min: 0.2,
        range_max: 20.0,
        ranges,
        ..LaserScan::default()
    }
}

/// The planner's library in a closed loop over `worlds/inspection.yaml`, without DDS: a quad
/// landed on `spawn_pad` that flies straight at each target (2 m/s across, 1 m/s up), the
/// lidar cast against the world's obstacles every 0.1 s. It climbs first, goes around the wall
/// (replanning as the lidar sees more of it), reaches `goal_inspection` and never comes within
/// its radius of an obstacle.
#[test]
fn the_inspection_flight_reaches_the_goal_around_the_wall_without_touching_it() {
    use fieldproof_mission::planning::{
        GridGeometry, Leg, MissionSettings, Planner, PlannerSettings, RouteEvent,
    };
    const STEP_NS: i64 = 100_000_000;
    let settings = MissionSettings::default();
    let mut planner = Planner::new(PlannerSettings {
        geometry: GridGeometry::new([-30.0, -20.0], [30.0, 20.0], 0.25).unwrap(),
        // The node's defaults: robot_radius_m 0.3 + inflation_margin_m 0.7.
        inflation_radius_m: 1.0,
        preferred_clearance_m: 1.5,
        min_hits: 2,
    });
    let mut position = [-16.0, 0.0, 0.0];
    let mut closest = f64::INFINITY;
    let mut replans = 0;
    let mut legs = Vec::new();
    let mut reached_at = None;
    for step in 0..1500i64 {
        let t = step * STEP_NS;
        planner.on_estimate(t, t, position, 0.0);
        if let Ok((
            _,
            Some(RouteEvent::Planned {
                replanned: true, ..
            }),
        )) = planner.on_scan(&world_scan([position[0], position[1]]), t, t, t)
        {
            replans += 1;
        }
        if step == 10 {
            planner.on_goal([14.0, 0.0, 5.0], &settings, t);
        }
        let (target, _) = planner.tick(&settings, t);
        let target = target.expect("a target once the estimate is known");
        if legs.last() != Some(&target.leg) {
            legs.push(target.leg);
        }
        if target.leg == Leg::Complete {
            reached_at = Some(t);
            break;
        }
        let dt = STEP_NS as f64 * 1e-9;
        let (dx, dy) = (
            target.position[0] - position[0],
            target.position[1] - position[1],
        );
        let distance = dx.hypot(dy);
        let step_m = (2.0 * dt).min(distance);
        if distance > 0.0 {
            position[0] += dx / distance * step_m;
            position[1] += dy / distance * step_m;
        }
        position[2] += (target.position[2] - position[2]).clamp(-dt, dt);
        closest = closest.min(world_clearance([position[0], position[1]]));
    }
    let reached_at =
        reached_at.unwrap_or_else(|| panic!("never completed; legs {legs:?}, at {position:?}"));
    assert_eq!(legs[..2], [Leg::Idle, Leg::Climb], "{legs:?}");
    assert!(
        legs.iter().any(|l| matches!(l, Leg::Waypoint { .. })),
        "{legs:?}"
    );
    assert!(!legs.contains(&Leg::Hold), "{legs:?}");
    assert!(
        closest > ROBOT_RADIUS_M,
        "came within {closest:.2} m of an obstacle"
    );
    eprintln!(
        "completed at {:.1} s, {replans} replans, closest approach {closest:.2} m, legs {legs:?}",
        reached_at as f64 * 1e-9
    );
}
