//! The mission's progress along a route: which target the supervisor gets, when a waypoint
//! counts as reached, when the goal does.
//!
//! - No goal yet: hold where the vehicle is (on the ground before a `navigate_to`).
//! - A goal while the vehicle is below cruise altitude (less `waypoint_radius_m`): climb
//!   first, straight above where it was when the goal came, to cruise altitude.
//! - Then the route's waypoints in order at cruise altitude, the next one once the vehicle is
//!   within `waypoint_radius_m` of the current one horizontally; the last waypoint is the goal
//!   at its own altitude.
//! - No route (none planned yet, or none exists): hold where the vehicle was when the route
//!   went (hover), not where it drifts to.
//! - Complete once within `goal_radius_m` of the goal horizontally and vertically; it stays
//!   complete (the target stays the goal) until a new goal comes.

/// The distances and altitude the mission works with.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MissionSettings {
    /// Altitude of the route's waypoints (and of a goal without one), m.
    pub cruise_altitude_m: f64,
    /// Horizontal distance at which a waypoint counts as reached, m; also the altitude
    /// tolerance of the climb.
    pub waypoint_radius_m: f64,
    /// Horizontal and vertical distance at which the goal counts as reached, m.
    pub goal_radius_m: f64,
}

impl Default for MissionSettings {
    fn default() -> Self {
        MissionSettings {
            cruise_altitude_m: 5.0,
            waypoint_radius_m: 1.0,
            goal_radius_m: 0.5,
        }
    }
}

/// What the current target is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Leg {
    /// No goal: stay.
    Idle,
    /// Climbing to cruise altitude before going.
    Climb,
    /// Flying to waypoint `index` of the route (0 = the first after the start).
    Waypoint {
        /// The waypoint's index.
        index: usize,
        /// How many waypoints the route has.
        of: usize,
    },
    /// A goal but no route: hover.
    Hold,
    /// At the goal.
    Complete,
}

/// The target for the supervisor and why.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Target {
    /// ENU position, m.
    pub position: [f64; 3],
    /// What it is for.
    pub leg: Leg,
}

/// The mission state (see the module documentation).
#[derive(Debug, Clone, Default)]
pub struct Mission {
    goal: Option<[f64; 3]>,
    /// Where to climb to (x, y at cruise altitude), while climbing.
    climb_to: Option<[f64; 3]>,
    /// The waypoints after the start, the goal's horizontal position last.
    route: Vec<[f64; 2]>,
    next: usize,
    /// Where to hover while there is no route.
    hold: Option<[f64; 3]>,
    complete: bool,
}

impl Mission {
    /// A mission without a goal.
    pub fn new() -> Mission {
        Mission::default()
    }

    /// The goal (ENU, m) with its altitude resolved.
    pub fn goal(&self) -> Option<[f64; 3]> {
        self.goal
    }

    /// Takes a new goal: `goal[2] > 0` is its altitude, otherwise cruise altitude. Drops the
    /// route and the completion; climbs first if `position` is below cruise altitude.
    pub fn set_goal(&mut self, goal: [f64; 3], position: [f64; 3], settings: &MissionSettings) {
        let altitude = if goal[2] > 0.0 {
            goal[2]
        } else {
            settings.cruise_altitude_m
        };
        self.goal = Some([goal[0], goal[1], altitude]);
        self.route.clear();
        self.next = 0;
        self.hold = None;
        self.complete = false;
        self.climb_to = (position[2] < settings.cruise_altitude_m - settings.waypoint_radius_m)
            .then_some([position[0], position[1], settings.cruise_altitude_m]);
    }

    /// A new route: `points` from the planner (the start first, the goal last); the start is
    /// dropped, the vehicle being there.
    pub fn set_route(&mut self, points: &[[f64; 2]]) {
        self.route = points.iter().skip(1).copied().collect();
        self.next = 0;
        self.hold = None;
    }

    /// Drops the route (none exists now): the vehicle hovers.
    pub fn clear_route(&mut self) {
        self.route.clear();
        self.next = 0;
    }

    /// Whether a route is being followed.
    pub fn has_route(&self) -> bool {
        !self.route.is_empty()
    }

    /// The waypoints still ahead (the current one first).
    pub fn remaining(&self) -> &[[f64; 2]] {
        &self.route[self.next.min(self.route.len())..]
    }

    /// Whether the goal has been reached.
    pub fn is_complete(&self) -> bool {
        self.complete
    }

    /// Whether the vehicle must still climb before it goes.
    pub fn is_climbing(&self) -> bool {
        self.climb_to.is_some()
    }

    /// Advances with the vehicle at `position` and gives the target.
    pub fn update(&mut self, position: [f64; 3], settings: &MissionSettings) -> Target {
        let Some(goal) = self.goal else {
            return Target {
                position: *self.hold.get_or_insert(position),
                leg: Leg::Idle,
            };
        };
        let horizontal = |a: [f64; 3], b: [f64; 2]| (a[0] - b[0]).hypot(a[1] - b[1]);
        if !self.complete
            && horizontal(position, [goal[0], goal[1]]) <= settings.goal_radius_m
            && (position[2] - goal[2]).abs() <= settings.goal_radius_m
        {
            self.complete = true;
        }
        if self.complete {
            return Target {
                position: goal,
                leg: Leg::Complete,
            };
        }
        if let Some(climb_to) = self.climb_to {
            if position[2] >= climb_to[2] - settings.waypoint_radius_m {
                self.climb_to = None;
            } else {
                return Target {
                    position: climb_to,
                    leg: Leg::Climb,
                };
            }
        }
        if self.route.is_empty() {
            return Target {
                position: *self.hold.get_or_insert(position),
                leg: Leg::Hold,
            };
        }
        let last = self.route.len() - 1;
        while self.next < last
            && horizontal(position, self.route[self.next]) <= settings.waypoint_radius_m
        {
            self.next += 1;
        }
        let waypoint = self.route[self.next];
        let altitude = if self.next == last {
            goal[2]
        } else {
            settings.cruise_altitude_m
        };
        Target {
            position: [waypoint[0], waypoint[1], altitude],
            leg: Leg::Waypoint {
                index: self.next,
                of: self.route.len(),
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SETTINGS: MissionSettings = MissionSettings {
        cruise_altitude_m: 5.0,
        waypoint_radius_m: 1.0,
        goal_radius_m: 0.5,
    };

    #[test]
    fn without_a_goal_the_target_is_where_the_vehicle_was() {
        let mut mission = Mission::new();
        let t = mission.update([1.0, 2.0, 0.0], &SETTINGS);
        assert_eq!(
            t,
            Target {
                position: [1.0, 2.0, 0.0],
                leg: Leg::Idle
            }
        );
        // It does not follow a drift.
        assert_eq!(
            mission.update([1.3, 2.0, 0.1], &SETTINGS).position,
            [1.0, 2.0, 0.0]
        );
    }

    #[test]
    fn a_landed_vehicle_climbs_straight_up_first_then_goes() {
        let mut mission = Mission::new();
        mission.set_goal([10.0, 0.0, 0.0], [-16.0, 0.0, 0.05], &SETTINGS);
        assert_eq!(
            mission.goal(),
            Some([10.0, 0.0, 5.0]),
            "cruise altitude for z = 0"
        );
        mission.set_route(&[[-16.0, 0.0], [-4.0, 8.0], [10.0, 0.0]]);
        let t = mission.update([-16.0, 0.0, 0.05], &SETTINGS);
        assert_eq!(
            t,
            Target {
                position: [-16.0, 0.0, 5.0],
                leg: Leg::Climb
            }
        );
        // Halfway up, still climbing, however the vehicle drifted.
        assert_eq!(mission.update([-15.5, 0.2, 2.5], &SETTINGS).leg, Leg::Climb);
        // Within the waypoint radius of cruise altitude: the route's first waypoint.
        let t = mission.update([-15.9, 0.0, 4.2], &SETTINGS);
        assert_eq!(
            t,
            Target {
                position: [-4.0, 8.0, 5.0],
                leg: Leg::Waypoint { index: 0, of: 2 }
            }
        );
        assert!(!mission.is_climbing());
        // Sinking again does not bring the climb back.
        assert_eq!(
            mission.update([-15.0, 0.0, 3.0], &SETTINGS).leg,
            Leg::Waypoint { index: 0, of: 2 }
        );
    }

    #[test]
    fn an_airborne_vehicle_goes_at_once_and_a_goal_altitude_is_kept() {
        let mut mission = Mission::new();
        mission.set_goal([10.0, 0.0, 3.0], [0.0, 0.0, 4.5], &SETTINGS);
        assert_eq!(mission.goal(), Some([10.0, 0.0, 3.0]));
        assert!(!mission.is_climbing());
        mission.set_route(&[[0.0, 0.0], [10.0, 0.0]]);
        let t = mission.update([0.0, 0.0, 4.5], &SETTINGS);
        // The last waypoint is the goal at its own altitude.
        assert_eq!(
            t,
            Target {
                position: [10.0, 0.0, 3.0],
                leg: Leg::Waypoint { index: 0, of: 1 }
            }
        );
    }

    #[test]
    fn waypoints_advance_within_the_radius_and_the_goal_completes() {
        let mut mission = Mission::new();
        mission.set_goal([10.0, 0.0, 5.0], [0.0, 0.0, 5.0], &SETTINGS);
        mission.set_route(&[[0.0, 0.0], [3.0, 3.0], [6.0, 3.0], [10.0, 0.0]]);
        assert_eq!(
            mission.update([0.0, 0.0, 5.0], &SETTINGS).position,
            [3.0, 3.0, 5.0]
        );
        // 1.1 m away: not yet.
        assert_eq!(
            mission.update([1.9, 3.0, 5.0], &SETTINGS).position,
            [3.0, 3.0, 5.0]
        );
        // 0.9 m away: the next one.
        let t = mission.update([2.1, 3.0, 5.0], &SETTINGS);
        assert_eq!(
            t,
            Target {
                position: [6.0, 3.0, 5.0],
                leg: Leg::Waypoint { index: 1, of: 3 }
            }
        );
        assert_eq!(mission.remaining(), &[[6.0, 3.0], [10.0, 0.0]]);
        // The last waypoint is the goal: reached only within the goal radius, vertically too.
        let t = mission.update([6.5, 3.0, 5.0], &SETTINGS);
        assert_eq!(t.leg, Leg::Waypoint { index: 2, of: 3 });
        let t = mission.update([9.9, 0.0, 6.0], &SETTINGS);
        assert_eq!(t.leg, Leg::Waypoint { index: 2, of: 3 });
        assert!(!mission.is_complete(), "1 m above the goal");
        let t = mission.update([9.8, 0.2, 5.3], &SETTINGS);
        assert_eq!(
            t,
            Target {
                position: [10.0, 0.0, 5.0],
                leg: Leg::Complete
            }
        );
        assert!(mission.is_complete());
        // Complete stays complete wherever the vehicle drifts, until a new goal.
        assert_eq!(
            mission.update([12.0, 0.0, 5.0], &SETTINGS).leg,
            Leg::Complete
        );
        mission.set_goal([0.0, 0.0, 0.0], [12.0, 0.0, 5.0], &SETTINGS);
        assert!(!mission.is_complete());
        assert_eq!(mission.update([12.0, 0.0, 5.0], &SETTINGS).leg, Leg::Hold);
    }

    #[test]
    fn without_a_route_the_vehicle_hovers_where_the_route_went() {
        let mut mission = Mission::new();
        mission.set_goal([10.0, 0.0, 5.0], [0.0, 0.0, 5.0], &SETTINGS);
        mission.set_route(&[[0.0, 0.0], [10.0, 0.0]]);
        mission.update([2.0, 0.0, 5.0], &SETTINGS);
        mission.clear_route();
        assert!(!mission.has_route());
        let t = mission.update([2.5, 0.1, 5.0], &SETTINGS);
        assert_eq!(
            t,
            Target {
                position: [2.5, 0.1, 5.0],
                leg: Leg::Hold
            }
        );
        assert_eq!(
            mission.update([2.9, 0.3, 5.2], &SETTINGS).position,
            [2.5, 0.1, 5.0]
        );
        // A route again: it is followed.
        mission.set_route(&[[2.9, 0.3], [2.9, 6.0], [10.0, 0.0]]);
        assert_eq!(
            mission.update([2.9, 0.3, 5.0], &SETTINGS).position,
            [2.9, 6.0, 5.0]
        );
    }
}
