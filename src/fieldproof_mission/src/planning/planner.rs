//! The planner's state between messages, without DDS: the node feeds it the estimate, the
//! scans and the goal, asks it for the target each cycle, and publishes what it returns.

use fieldproof_msgs::sensor_msgs::LaserScan;

use super::grid::{GridGeometry, OccupancyMap, Pose2, ScanOutcome};
use super::mission::{Mission, MissionSettings, Target};
use super::poses::PoseHistory;
use super::search::{plan_route, route_closed, NoRoute};

/// A scan may be placed with the newest pose when its stamp is at most this much later.
const MAX_POSE_EXTRAPOLATION_NS: i64 = 250_000_000;
/// Without a pose at a scan's stamp, the newest pose still places it if it arrived at most
/// this long before the scan (the two stamped by different clocks).
const MAX_POSE_RECEIPT_AGE_NS: i64 = 500_000_000;
/// Without a route, planning is tried again at most this often (ns of the node's clock).
const RETRY_PERIOD_NS: i64 = 1_000_000_000;

/// Settings fixed at start-up.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PlannerSettings {
    /// The grid.
    pub geometry: GridGeometry,
    /// The vehicle's radius plus the margin, m.
    pub inflation_radius_m: f64,
    /// The distance routes keep from obstacles where there is room, m.
    pub preferred_clearance_m: f64,
    /// Hits that make a cell occupied.
    pub min_hits: u16,
}

/// What changed the route.
#[derive(Debug, Clone, PartialEq)]
pub enum RouteEvent {
    /// A new route (for a new goal, or the first one found); `replanned` when a scan closed
    /// the one before.
    Planned {
        /// The route's points, the vehicle's position first and the goal last.
        points: Vec<[f64; 2]>,
        /// Whether it replaces a route a scan closed.
        replanned: bool,
    },
    /// No route: the vehicle hovers.
    NoRoute(NoRoute),
}

/// Why a scan was not added.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum ScanRefused {
    /// No estimate yet, or none near the scan's stamp.
    #[error("no pose estimate at the scan's stamp")]
    NoPose,
}

/// Where the vehicle's `odom` frame lies in the map frame: its origin and heading.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct OdomOrigin {
    /// East, m.
    pub x: f64,
    /// North, m.
    pub y: f64,
    /// Heading of odom's x axis, rad.
    pub yaw: f64,
}

/// A goal stamped in `frame` as a map-frame position: `map_frame` (or no frame) as it is,
/// `odom` through `odom_origin` (the odom frame is where the vehicle started, which only the
/// one who spawned it knows: without it an odom goal is refused, not guessed).
pub fn goal_in_map(
    frame: &str,
    goal: [f64; 3],
    map_frame: &str,
    odom_origin: Option<OdomOrigin>,
) -> Result<[f64; 3], String> {
    if frame.is_empty() || frame == map_frame {
        return Ok(goal);
    }
    if frame != "odom" {
        return Err(format!(
            "goal_pose.header.frame_id: {frame:?} is neither {map_frame:?} nor \"odom\""
        ));
    }
    let Some(origin) = odom_origin else {
        return Err(
            "goal_pose.header.frame_id: \"odom\" needs odom_origin_m (where the vehicle \
             started in the map frame), which is not set"
                .into(),
        );
    };
    let (s, c) = origin.yaw.sin_cos();
    Ok([
        origin.x + c * goal[0] - s * goal[1],
        origin.y + s * goal[0] + c * goal[1],
        goal[2],
    ])
}

/// The planner (see the module documentation).
#[derive(Debug, Clone)]
pub struct Planner {
    map: OccupancyMap,
    poses: PoseHistory,
    mission: Mission,
    /// The newest estimated position (ENU) and when it was received.
    position: Option<([f64; 3], i64)>,
    /// A goal that came before the first estimate.
    pending_goal: Option<[f64; 3]>,
    /// The route's points as planned (for `plan`), empty without one.
    route: Vec<[f64; 2]>,
    /// The map revision the route was last checked against.
    checked_revision: u64,
    /// When planning last failed (node clock, ns).
    last_failure_ns: Option<i64>,
    /// The last failure's reason.
    last_failure: Option<NoRoute>,
}

impl Planner {
    /// An empty map and no goal.
    pub fn new(settings: PlannerSettings) -> Planner {
        Planner {
            map: OccupancyMap::new(
                settings.geometry,
                settings.inflation_radius_m,
                settings.preferred_clearance_m,
                settings.min_hits,
            ),
            poses: PoseHistory::new(),
            mission: Mission::new(),
            position: None,
            pending_goal: None,
            route: Vec::new(),
            checked_revision: 0,
            last_failure_ns: None,
            last_failure: None,
        }
    }

    /// The occupancy map.
    pub fn map(&self) -> &OccupancyMap {
        &self.map
    }

    /// The mission's state.
    pub fn mission(&self) -> &Mission {
        &self.mission
    }

    /// The current route's points (the position it was planned from first, the goal last),
    /// empty without one.
    pub fn route(&self) -> &[[f64; 2]] {
        &self.route
    }

    /// The newest estimated position.
    pub fn position(&self) -> Option<[f64; 3]> {
        self.position.map(|(p, _)| p)
    }

    /// A new estimate (stamped `stamp_ns`, received at `received_ns`); the caller has checked
    /// it is finite.
    pub fn on_estimate(&mut self, stamp_ns: i64, received_ns: i64, position: [f64; 3], yaw: f64) {
        self.poses.push(
            stamp_ns,
            Pose2 {
                x: position[0],
                y: position[1],
                yaw,
            },
        );
        self.position = Some((position, received_ns));
    }

    /// A new goal (ENU; `z > 0` is its altitude, otherwise cruise altitude): plans at once if
    /// the position is known (else at the first [`Planner::tick`] after it is).
    pub fn on_goal(
        &mut self,
        goal: [f64; 3],
        settings: &MissionSettings,
        now_ns: i64,
    ) -> Option<RouteEvent> {
        self.route.clear();
        self.last_failure_ns = None;
        self.last_failure = None;
        let Some(position) = self.position() else {
            self.pending_goal = Some(goal);
            return None;
        };
        self.pending_goal = None;
        self.mission.set_goal(goal, position, settings);
        Some(self.plan(now_ns, false))
    }

    /// Adds a scan (placed with the pose at its stamp, `stamp_ns`, received at
    /// `received_ns`); replans when it closed the route.
    pub fn on_scan(
        &mut self,
        scan: &LaserScan,
        stamp_ns: i64,
        received_ns: i64,
        now_ns: i64,
    ) -> Result<(ScanOutcome, Option<RouteEvent>), ScanRefused> {
        let pose = self
            .poses
            .at(stamp_ns, MAX_POSE_EXTRAPOLATION_NS)
            .or_else(|| {
                let (_, at) = self.position?;
                (received_ns - at <= MAX_POSE_RECEIPT_AGE_NS)
                    .then(|| self.poses.newest())
                    .flatten()
            })
            .ok_or(ScanRefused::NoPose)?;
        let outcome = self.map.add_scan(pose, scan);
        let mut event = None;
        if self.map.revision() != self.checked_revision {
            self.checked_revision = self.map.revision();
            if let Some(position) = self.position() {
                let closed = self.mission.has_route()
                    && route_closed(
                        &self.map,
                        [position[0], position[1]],
                        self.mission.remaining(),
                    );
                if closed {
                    event = Some(self.plan(now_ns, true));
                }
            }
        }
        Ok((outcome, event))
    }

    /// Advances the mission; retries planning (at most once a second) while a goal has no
    /// route. Gives the target (`None` before the first estimate) and a route event, if any.
    pub fn tick(
        &mut self,
        settings: &MissionSettings,
        now_ns: i64,
    ) -> (Option<Target>, Option<RouteEvent>) {
        let Some(position) = self.position() else {
            return (None, None);
        };
        if let Some(goal) = self.pending_goal.take() {
            self.mission.set_goal(goal, position, settings);
        }
        let mut event = None;
        let wants_route = self.mission.goal().is_some()
            && !self.mission.has_route()
            && !self.mission.is_complete();
        let retry_due = self
            .last_failure_ns
            .is_none_or(|at| now_ns - at >= RETRY_PERIOD_NS);
        if wants_route && retry_due {
            event = Some(self.plan(now_ns, false));
        }
        (Some(self.mission.update(position, settings)), event)
    }

    /// Plans from the newest position to the goal.
    fn plan(&mut self, now_ns: i64, replanned: bool) -> RouteEvent {
        let (Some(position), Some(goal)) = (self.position(), self.mission.goal()) else {
            return RouteEvent::NoRoute(NoRoute::StartOutside);
        };
        match plan_route(&self.map, [position[0], position[1]], [goal[0], goal[1]]) {
            Ok(points) => {
                self.mission.set_route(&points);
                self.route = points.clone();
                self.last_failure_ns = None;
                self.last_failure = None;
                RouteEvent::Planned { points, replanned }
            }
            Err(reason) => {
                self.mission.clear_route();
                self.route.clear();
                self.last_failure_ns = Some(now_ns);
                self.last_failure = Some(reason);
                RouteEvent::NoRoute(reason)
            }
        }
    }

    /// Why the goal has no route now, if it has none.
    pub fn no_route_reason(&self) -> Option<NoRoute> {
        self.last_failure
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::planning::mission::Leg;

    const MISSION: MissionSettings = MissionSettings {
        cruise_altitude_m: 5.0,
        waypoint_radius_m: 1.0,
        goal_radius_m: 0.5,
    };
    const S: i64 = 1_000_000_000;

    fn planner() -> Planner {
        Planner::new(PlannerSettings {
            geometry: GridGeometry::new([-10.0, -10.0], [10.0, 10.0], 0.25).unwrap(),
            inflation_radius_m: 0.6,
            preferred_clearance_m: 1.5,
            min_hits: 1,
        })
    }

    /// A 360-ray scan from `from` (yaw 0) of a wall x = `wall_x` between y = -`half` and
    /// `half`; no return elsewhere.
    fn wall_scan(from: [f64; 2], wall_x: f64, half: f64) -> LaserScan {
        let n = 360;
        let increment = std::f64::consts::TAU / f64::from(n);
        let ranges = (0..n)
            .map(|i| {
                let angle = -std::f64::consts::PI + f64::from(i) * increment;
                let (c, s) = (angle.cos(), angle.sin());
                if c <= 1e-9 {
                    return f32::INFINITY;
                }
                let r = (wall_x - from[0]) / c;
                let y = from[1] + r * s;
                if r > 0.0 && y.abs() <= half && r < 20.0 {
                    r as f32
                } else {
                    f32::INFINITY
                }
            })
            .collect();
        LaserScan {
            angle_min: -std::f32::consts::PI,
            angle_increment: increment as f32,
            range_min: 0.2,
            range_max: 20.0,
            ranges,
            ..LaserScan::default()
        }
    }

    #[test]
    fn a_scan_that_closes_the_route_replans_around_the_obstacle() {
        let mut p = planner();
        p.on_estimate(0, 0, [-6.0, 0.0, 5.0], 0.0);
        let event = p.on_goal([6.0, 0.0, 0.0], &MISSION, 0).unwrap();
        assert_eq!(
            event,
            RouteEvent::Planned {
                points: vec![[-6.0, 0.0], [6.0, 0.0]],
                replanned: false
            }
        );
        // The lidar sees a wall across the straight line.
        let (outcome, event) = p
            .on_scan(&wall_scan([-6.0, 0.0], 0.0, 4.0), 0, 0, 0)
            .unwrap();
        assert!(outcome.newly_occupied > 0);
        let Some(RouteEvent::Planned {
            points,
            replanned: true,
        }) = event
        else {
            panic!("{event:?}");
        };
        assert!(
            points.len() >= 3 && points.iter().any(|p| p[1].abs() > 4.0),
            "{points:?}"
        );
        assert_eq!(p.route(), points.as_slice());
        // The same scan again closes nothing.
        let (_, event) = p
            .on_scan(&wall_scan([-6.0, 0.0], 0.0, 4.0), 0, 0, 0)
            .unwrap();
        assert_eq!(event, None);
        let (target, _) = p.tick(&MISSION, 0);
        assert_eq!(target.unwrap().position[..2], points[1]);
    }

    #[test]
    fn an_unreachable_goal_hovers_and_retries_once_a_second() {
        let mut p = planner();
        p.on_estimate(0, 0, [-6.0, 0.0, 5.0], 0.0);
        // A wall across the whole map.
        let (_, _) = p
            .on_scan(&wall_scan([-6.0, 0.0], 0.0, 10.0), 0, 0, 0)
            .unwrap();
        let event = p.on_goal([6.0, 0.0, 5.0], &MISSION, 0);
        assert_eq!(event, Some(RouteEvent::NoRoute(NoRoute::Unreachable)));
        assert_eq!(p.no_route_reason(), Some(NoRoute::Unreachable));
        let (target, event) = p.tick(&MISSION, S / 2);
        assert_eq!(
            target.unwrap(),
            Target {
                position: [-6.0, 0.0, 5.0],
                leg: Leg::Hold
            }
        );
        assert_eq!(event, None, "not retried within a second");
        let (_, event) = p.tick(&MISSION, S);
        assert_eq!(event, Some(RouteEvent::NoRoute(NoRoute::Unreachable)));
    }

    #[test]
    fn scans_without_a_pose_are_refused_and_placed_with_the_pose_at_their_stamp() {
        let mut p = planner();
        // A wall 3.1 m ahead of the lidar.
        let scan = wall_scan([0.0, 0.0], 3.1, 1.0);
        assert_eq!(p.on_scan(&scan, 0, 0, 0).unwrap_err(), ScanRefused::NoPose);
        p.on_estimate(0, 0, [-4.0, 0.0, 5.0], 0.0);
        p.on_estimate(S, S, [0.0, 0.0, 5.0], 0.0);
        // Taken at 0.5 s, halfway between the two poses (x = -2): the wall lands at x = 1.1.
        p.on_scan(&scan, S / 2, S, S).unwrap();
        let g = *p.map().geometry();
        assert!(p.map().is_occupied(g.cell_of(1.1, 0.05).unwrap()));
        assert!(!p.map().is_occupied(g.cell_of(3.1, 0.05).unwrap()));
        // Stamped by a clock far from the estimate's, but received with it: newest pose.
        p.on_scan(&scan, 999 * S, S + 1, S).unwrap();
        assert!(p.map().is_occupied(g.cell_of(3.1, 0.05).unwrap()));
        // Neither: refused.
        assert!(p.on_scan(&scan, 999 * S, 3 * S, 3 * S).is_err());
    }

    #[test]
    fn goals_in_odom_are_placed_with_the_odom_origin_or_refused() {
        assert_eq!(
            goal_in_map("map", [1.0, 2.0, 3.0], "map", None),
            Ok([1.0, 2.0, 3.0])
        );
        assert_eq!(
            goal_in_map("", [1.0, 2.0, 3.0], "map", None),
            Ok([1.0, 2.0, 3.0])
        );
        let origin = OdomOrigin {
            x: -16.0,
            y: 0.0,
            yaw: std::f64::consts::FRAC_PI_2,
        };
        let goal = goal_in_map("odom", [30.0, 0.0, 0.0], "map", Some(origin)).unwrap();
        assert!(
            (goal[0] + 16.0).abs() < 1e-9 && (goal[1] - 30.0).abs() < 1e-9,
            "{goal:?}"
        );
        let e = goal_in_map("odom", [30.0, 0.0, 0.0], "map", None).unwrap_err();
        assert!(e.contains("odom_origin_m"), "{e}");
        let e = goal_in_map("base_link", [1.0, 0.0, 0.0], "map", None).unwrap_err();
        assert!(e.contains("base_link"), "{e}");
    }

    #[test]
    fn before_the_first_estimate_there_is_no_target_and_the_goal_waits() {
        let mut p = planner();
        assert_eq!(p.on_goal([6.0, 0.0, 0.0], &MISSION, 0), None);
        assert_eq!(p.tick(&MISSION, 0), (None, None));
        p.on_estimate(0, 0, [-6.0, 0.0, 0.0], 0.0);
        let (target, event) = p.tick(&MISSION, 0);
        assert!(
            matches!(event, Some(RouteEvent::Planned { .. })),
            "{event:?}"
        );
        // Landed: climb first, straight up.
        assert_eq!(
            target.unwrap(),
            Target {
                position: [-6.0, 0.0, 5.0],
                leg: Leg::Climb
            }
        );
    }
}
