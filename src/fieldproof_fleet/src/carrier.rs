//! The carrier as the fleet station sees it: the road it drives (a polyline followed at a
//! steady speed by pure pursuit) and the airspace over its deck (whether a vehicle is clear of
//! it, which frees a launch lease and an expired lease's reservation).
//!
//! Pure geometry in the world frame (ENU, metres, radians); no DDS.

/// A planar pose: position and heading (yaw, counter-clockwise from +x).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Pose2 {
    /// East, metres.
    pub x: f64,
    /// North, metres.
    pub y: f64,
    /// Heading, radians.
    pub yaw: f64,
}

/// A velocity command for the carrier's base: forward speed and turn rate.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Drive {
    /// Forward, m/s.
    pub linear_mps: f64,
    /// Counter-clockwise, rad/s.
    pub angular_radps: f64,
}

impl Drive {
    /// Standing still.
    pub const STOP: Drive = Drive {
        linear_mps: 0.0,
        angular_radps: 0.0,
    };
}

/// The road: waypoints driven in order at `speed_mps`, steering by pure pursuit toward the
/// point `lookahead_m` ahead along the road; at the last waypoint it stops (or starts over
/// from the first with `looped`).
#[derive(Debug, Clone, PartialEq)]
pub struct Road {
    waypoints: Vec<[f64; 2]>,
    /// Cruise speed, m/s.
    pub speed_mps: f64,
    /// Pure-pursuit lookahead, metres.
    pub lookahead_m: f64,
    /// Turn-rate limit, rad/s (the carrier's `max_angular_radps`).
    pub max_turn_radps: f64,
    /// Start over at the end.
    pub looped: bool,
    next: usize,
}

/// Distance within which a waypoint counts as reached, metres.
const REACHED_M: f64 = 1.0;

impl Road {
    /// A road through `waypoints` (at least one); `Err` names the offending field and value.
    pub fn new(
        waypoints: Vec<[f64; 2]>,
        speed_mps: f64,
        lookahead_m: f64,
        max_turn_radps: f64,
        looped: bool,
    ) -> Result<Road, String> {
        if waypoints.is_empty() {
            return Err("road.waypoints: empty (at least one point)".into());
        }
        if let Some(point) = waypoints.iter().find(|p| !p.iter().all(|v| v.is_finite())) {
            return Err(format!("road.waypoints: {point:?} is not finite"));
        }
        for (field, value, zero_ok) in [
            ("road.speed_mps", speed_mps, true),
            ("road.lookahead_m", lookahead_m, false),
            ("road.max_turn_radps", max_turn_radps, false),
        ] {
            let ok = value.is_finite() && (value > 0.0 || (zero_ok && value == 0.0));
            if !ok {
                let want = if zero_ok { ">= 0" } else { "> 0" };
                return Err(format!("{field}: {value} is not {want}"));
            }
        }
        Ok(Road {
            waypoints,
            speed_mps,
            lookahead_m,
            max_turn_radps,
            looped,
            next: 0,
        })
    }

    /// The waypoint driven to now (its index), `None` once a non-looped road is done.
    pub fn next_waypoint(&self) -> Option<usize> {
        (self.next < self.waypoints.len()).then_some(self.next)
    }

    /// The command for the carrier at `pose`: cruise toward the next waypoint, turning by pure
    /// pursuit (curvature 2·sin(α)/L to the lookahead point) within the turn limit; `STOP`
    /// at the end of a non-looped road or for a non-finite pose.
    pub fn command(&mut self, pose: Pose2) -> Drive {
        if ![pose.x, pose.y, pose.yaw].iter().all(|v| v.is_finite()) {
            return Drive::STOP;
        }
        loop {
            let Some(index) = self.next_waypoint() else {
                return Drive::STOP;
            };
            let [wx, wy] = self.waypoints[index];
            if (wx - pose.x).hypot(wy - pose.y) > REACHED_M {
                break;
            }
            self.next += 1;
            if self.looped && self.next == self.waypoints.len() {
                self.next = 0;
                if self.waypoints.len() == 1 {
                    return Drive::STOP;
                }
            }
        }
        let [wx, wy] = self.waypoints[self.next];
        let (dx, dy) = (wx - pose.x, wy - pose.y);
        let distance = dx.hypot(dy);
        let alpha = dy.atan2(dx) - pose.yaw;
        let alpha = alpha.sin().atan2(alpha.cos()); // wrapped to (-pi, pi]
        let lookahead = self.lookahead_m.min(distance).max(f64::EPSILON);
        let curvature = 2.0 * alpha.sin() / lookahead;
        // Slow down for a sharp turn (the turn limit would otherwise widen it).
        let linear = if alpha.abs() > std::f64::consts::FRAC_PI_2 {
            0.0
        } else {
            self.speed_mps * alpha.cos().max(0.2)
        };
        let angular = if linear > 0.0 {
            linear * curvature
        } else {
            alpha.signum() * self.max_turn_radps
        };
        Drive {
            linear_mps: linear,
            angular_radps: angular.clamp(-self.max_turn_radps, self.max_turn_radps),
        }
    }
}

/// The airspace over the deck that a launching or landing vehicle occupies.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DeckAirspace {
    /// The deck's radius (the carrier's `body.radius_m`) plus a margin, metres.
    pub radius_m: f64,
    /// Height above the deck up to which the airspace reaches, metres.
    pub height_m: f64,
}

impl DeckAirspace {
    /// Whether a vehicle at `position` (x, y, z in the world frame) is clear of the deck of a
    /// carrier at `carrier` whose deck top is at `deck_top_z`: outside the airspace's radius
    /// horizontally, or above its height. A non-finite position is not clear.
    pub fn is_clear(&self, carrier: Pose2, deck_top_z: f64, position: [f64; 3]) -> bool {
        if !position.iter().all(|v| v.is_finite()) {
            return false;
        }
        let horizontal = (position[0] - carrier.x).hypot(position[1] - carrier.y);
        horizontal > self.radius_m || position[2] - deck_top_z > self.height_m
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pose(x: f64, y: f64, yaw: f64) -> Pose2 {
        Pose2 { x, y, yaw }
    }

    #[test]
    fn drives_the_road_in_order_and_stops_at_its_end() {
        let mut road = Road::new(vec![[10.0, 0.0], [10.0, 10.0]], 2.0, 4.0, 0.3, false).unwrap();
        let ahead = road.command(pose(0.0, 0.0, 0.0));
        assert_eq!(ahead.linear_mps, 2.0);
        assert!(ahead.angular_radps.abs() < 1e-9, "{ahead:?}");
        // Past the first waypoint: the second is to the left, turn left (capped).
        let turn = road.command(pose(9.5, 0.0, 0.0));
        assert_eq!(road.next_waypoint(), Some(1));
        assert!(
            turn.angular_radps > 0.0 && turn.angular_radps <= 0.3,
            "{turn:?}"
        );
        assert_eq!(road.command(pose(10.0, 9.8, 1.57)), Drive::STOP);
        assert_eq!(road.next_waypoint(), None);
    }

    #[test]
    fn a_looped_road_starts_over_and_a_bad_pose_stops() {
        let mut road = Road::new(vec![[5.0, 0.0], [0.0, 0.0]], 1.0, 2.0, 0.3, true).unwrap();
        road.command(pose(5.0, 0.0, 0.0));
        road.command(pose(0.0, 0.0, 0.0));
        assert_eq!(road.next_waypoint(), Some(0));
        assert_eq!(road.command(pose(f64::NAN, 0.0, 0.0)), Drive::STOP);
        // A target behind: turn in place, never reverse.
        let behind = road.command(pose(2.0, 0.0, std::f64::consts::PI));
        assert_eq!(behind.linear_mps, 0.0);
        assert_eq!(behind.angular_radps.abs(), 0.3);
    }

    #[test]
    fn bad_roads_are_refused_naming_the_field() {
        assert_eq!(
            Road::new(vec![], 1.0, 1.0, 0.3, false).unwrap_err(),
            "road.waypoints: empty (at least one point)"
        );
        assert_eq!(
            Road::new(vec![[0.0, 1.0]], -1.0, 1.0, 0.3, false).unwrap_err(),
            "road.speed_mps: -1 is not >= 0"
        );
        assert_eq!(
            Road::new(vec![[0.0, 1.0]], 1.0, 0.0, 0.3, false).unwrap_err(),
            "road.lookahead_m: 0 is not > 0"
        );
        assert!(Road::new(vec![[f64::NAN, 1.0]], 1.0, 1.0, 0.3, false)
            .unwrap_err()
            .contains("not finite"));
    }

    #[test]
    fn clear_of_the_deck_horizontally_or_above() {
        let air = DeckAirspace {
            radius_m: 3.0,
            height_m: 2.0,
        };
        let carrier = pose(10.0, 5.0, 0.0);
        assert!(!air.is_clear(carrier, 1.2, [11.0, 5.0, 1.3]), "on the pad");
        assert!(
            !air.is_clear(carrier, 1.2, [11.0, 5.0, 3.1]),
            "climbing, 1.9 m up"
        );
        assert!(
            air.is_clear(carrier, 1.2, [11.0, 5.0, 3.3]),
            "above the airspace"
        );
        assert!(
            air.is_clear(carrier, 1.2, [13.5, 5.0, 1.3]),
            "beside the deck"
        );
        assert!(!air.is_clear(carrier, 1.2, [f64::NAN, 5.0, 9.0]));
    }
}
