//! The example vehicle stack: the control law of `goal_driver`, a reactive goal seeker for
//! a differential-drive UGV, as pure logic (the node in `src/bin/goal_driver.rs` feeds it
//! odometry and lidar scans and publishes what it returns).
//!
//! Each step it scores candidate headings (±90° around the goal's bearing, every 5°): a
//! heading whose lidar corridor (the robot's width plus a margin) is blocked within the
//! look-ahead is refused, the others cost their angle from the goal. It turns toward the
//! best heading and drives at a speed that falls with the clearance ahead and the heading
//! error. Within `tolerance_m` of the goal it stops and holds the goal (reached). It never
//! drops its goal: without motion (a failsafe holding the vehicle) it simply carries on
//! once commands pass again.

/// The driver's settings.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Settings {
    /// Top speed (m/s).
    pub max_speed_mps: f64,
    /// Top turn rate (rad/s).
    pub max_turn_radps: f64,
    /// Distance at which the goal counts as reached (m).
    pub tolerance_m: f64,
    /// Half the robot's width plus a margin: the corridor a heading needs (m).
    pub half_width_m: f64,
    /// How far ahead a heading must be clear (m).
    pub look_ahead_m: f64,
    /// Clearance ahead below which it stops driving forward (m).
    pub stop_m: f64,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            max_speed_mps: 0.8,
            max_turn_radps: 1.2,
            tolerance_m: 0.5,
            half_width_m: 0.55,
            look_ahead_m: 2.0,
            stop_m: 0.45,
        }
    }
}

/// A planar pose in the odom frame.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Pose2 {
    /// x (m).
    pub x: f64,
    /// y (m).
    pub y: f64,
    /// Heading (rad).
    pub yaw: f64,
}

/// A planar scan: beam angles relative to the robot's heading and their ranges.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Scan {
    /// First beam angle (rad).
    pub angle_min: f64,
    /// Angle between beams (rad).
    pub angle_increment: f64,
    /// Ranges (m); non-finite or out-of-range beams are free.
    pub ranges: Vec<f64>,
    /// Longest valid range (m).
    pub range_max: f64,
}

/// What the driver decides.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Command {
    /// Forward speed (m/s).
    pub linear: f64,
    /// Turn rate (rad/s).
    pub angular: f64,
    /// True once within the tolerance of the goal.
    pub reached: bool,
}

impl Command {
    /// Standing still.
    pub const STOP: Command = Command {
        linear: 0.0,
        angular: 0.0,
        reached: false,
    };
}

fn wrap(a: f64) -> f64 {
    let mut a = a % std::f64::consts::TAU;
    if a > std::f64::consts::PI {
        a -= std::f64::consts::TAU;
    } else if a < -std::f64::consts::PI {
        a += std::f64::consts::TAU;
    }
    a
}

/// Distance along `heading` (relative to the robot) before the corridor of half-width `hw`
/// hits a scan point (capped at `cap`).
pub fn corridor_clearance(scan: &Scan, heading: f64, hw: f64, cap: f64) -> f64 {
    let mut best = cap;
    for (i, &r) in scan.ranges.iter().enumerate() {
        if !r.is_finite() || r <= 0.0 || r >= scan.range_max {
            continue;
        }
        let a = scan.angle_min + scan.angle_increment * i as f64;
        let rel = wrap(a - heading);
        let along = r * rel.cos();
        let across = (r * rel.sin()).abs();
        if along > 0.0 && across < hw {
            best = best.min(along);
        }
    }
    best
}

/// One control step toward `goal` from `pose`, with the newest `scan` (if any).
pub fn step(s: &Settings, pose: Pose2, goal: (f64, f64), scan: Option<&Scan>) -> Command {
    let (dx, dy) = (goal.0 - pose.x, goal.1 - pose.y);
    let dist = dx.hypot(dy);
    if dist <= s.tolerance_m {
        return Command {
            reached: true,
            ..Command::STOP
        };
    }
    let bearing = wrap(dy.atan2(dx) - pose.yaw);
    let look = s.look_ahead_m.min(dist + s.half_width_m);
    let (heading, clearance) = match scan {
        None => (bearing, look),
        Some(scan) => {
            let mut best: Option<(f64, f64, f64)> = None; // (cost, heading, clearance)
            for k in -18i32..=18 {
                let h = wrap(bearing + k as f64 * 5f64.to_radians());
                let c = corridor_clearance(scan, h, s.half_width_m, look);
                if c < look - 1e-6 {
                    continue;
                }
                let cost = (h - bearing).abs() + 0.2 * h.abs();
                if best.is_none_or(|b| cost < b.0) {
                    best = Some((cost, h, c));
                }
            }
            match best {
                Some((_, h, _)) => (h, corridor_clearance(scan, 0.0, s.half_width_m, look)),
                // Boxed in: turn on the spot toward the goal's side.
                None => (bearing.signum() * std::f64::consts::FRAC_PI_2, 0.0),
            }
        }
    };
    let angular = (2.0 * heading).clamp(-s.max_turn_radps, s.max_turn_radps);
    let align = (1.0 - heading.abs() / std::f64::consts::FRAC_PI_2).clamp(0.0, 1.0);
    let room = ((clearance - s.stop_m) / (s.look_ahead_m - s.stop_m)).clamp(0.0, 1.0);
    let near = (dist / 1.5).clamp(0.25, 1.0);
    let linear = s.max_speed_mps * align * room.max(if scan.is_none() { 1.0 } else { 0.0 }) * near;
    Command {
        linear,
        angular,
        reached: false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn empty_scan() -> Scan {
        Scan {
            angle_min: -std::f64::consts::PI,
            angle_increment: std::f64::consts::TAU / 360.0,
            ranges: vec![f64::INFINITY; 360],
            range_max: 12.0,
        }
    }

    /// A scan with a round obstacle of radius `r` at (ox, oy) relative to the robot.
    fn scan_with(ox: f64, oy: f64, r: f64) -> Scan {
        let mut s = empty_scan();
        for i in 0..360 {
            let a = s.angle_min + s.angle_increment * i as f64;
            let (c, sn) = (a.cos(), a.sin());
            // Ray-circle intersection.
            let b = c * ox + sn * oy;
            let disc = b * b - (ox * ox + oy * oy - r * r);
            if disc >= 0.0 {
                let t = b - disc.sqrt();
                if t > 0.0 {
                    s.ranges[i] = t;
                }
            }
        }
        s
    }

    #[test]
    fn drives_straight_at_a_goal_ahead_and_stops_at_it() {
        let st = Settings::default();
        let c = step(&st, Pose2::default(), (10.0, 0.0), Some(&empty_scan()));
        assert!(c.linear > 0.7 && c.angular.abs() < 1e-9, "{c:?}");
        let c = step(
            &st,
            Pose2 {
                x: 9.7,
                ..Default::default()
            },
            (10.0, 0.0),
            None,
        );
        assert!(c.reached && c.linear == 0.0);
    }

    #[test]
    fn turns_toward_a_goal_behind() {
        let c = step(&Settings::default(), Pose2::default(), (-5.0, 0.1), None);
        assert!(c.angular.abs() > 1.0 && c.linear < 0.1, "{c:?}");
    }

    #[test]
    fn steers_around_an_obstacle_on_the_way() {
        let c = step(
            &Settings::default(),
            Pose2::default(),
            (10.0, 0.0),
            Some(&scan_with(1.5, 0.0, 0.25)),
        );
        assert!(c.angular.abs() > 0.2, "{c:?}");
    }

    #[test]
    fn reaches_the_goal_past_a_pillar_in_a_kinematic_loop() {
        // Unicycle integration at 20 Hz with the scan recomputed from the pillar's position.
        let st = Settings::default();
        let mut p = Pose2::default();
        let (px, py, pr) = (5.0, 0.0, 0.25);
        let mut min_gap = f64::INFINITY;
        let mut reached = false;
        for _ in 0..20 * 60 {
            let (dx, dy) = (px - p.x, py - p.y);
            let (s, c) = p.yaw.sin_cos();
            let scan = scan_with(c * dx + s * dy, -s * dx + c * dy, pr);
            let cmd = step(&st, p, (10.0, 0.0), Some(&scan));
            if cmd.reached {
                reached = true;
                break;
            }
            p.yaw = wrap(p.yaw + cmd.angular * 0.05);
            p.x += cmd.linear * p.yaw.cos() * 0.05;
            p.y += cmd.linear * p.yaw.sin() * 0.05;
            min_gap = min_gap.min(dx.hypot(dy) - pr);
        }
        assert!(reached, "ended at {p:?}");
        assert!(
            min_gap > 0.35,
            "came within {min_gap} m of the pillar (robot radius 0.35)"
        );
    }
}
