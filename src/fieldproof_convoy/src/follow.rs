//! The follower's formation controller: a goal point beside and behind the lead's reported pose,
//! pure-pursuit curvature from the follower's own pose, speed from the gap error, shaped by the
//! watchdog's state.
//!
//! **Goal point** (REP 103: x forward, y left, yaw counter-clockwise). With the lead at
//! (x, y) heading θ, `d = follow_dist_m` and `o = offset_m`:
//!
//! ```text
//! gx = x − d·cos θ − o·sin θ
//! gy = y − d·sin θ + o·cos θ
//! ```
//!
//! i.e. `d` behind the lead and `o` to the lead's **left** (a positive offset is left, a negative
//! one right). This is the spec's formula; its comment said "to the right", the formula wins.
//!
//! **Gap error**: the distance to the lead minus the formation distance `hypot(d, o)` (the
//! distance from the goal point to the lead), so a follower exactly on the goal point has zero
//! error. (The spec subtracts `d` alone, which with `o = 0.4` leaves 5 cm of error in perfect
//! formation.)
//!
//! **Speed**: `v = clamp(k_gap · gap_error, 0, v_max)` (the spec's law; optionally plus the lead's
//! reported speed as feed-forward, [`FollowConfig::lead_speed_feedforward`]); the follower never
//! reverses, so it can never drive up the lead's back on a hard brake. Without feed-forward a
//! lead driving at `v` is followed `v / k_gap` further back than the formation distance.
//!
//! **Curvature**: pure pursuit to the goal in the follower's frame, `κ = 2·y_local / L²`,
//! clamped to `±max_curvature_per_m`; `ω = v·κ`. A goal behind the follower (x_local ≤ 0) is
//! turned towards in place (`v = 0`, `ω` up to `max_yaw_rate_rps`) instead of driven away from,
//! while the speed law asks for motion; with zero speed the command is zero.
//!
//! **By watchdog state**: FOLLOW uses the newest pose extrapolated by its age along its heading at
//! its reported speed; HOLD tracks that extrapolated formation vector too but always decelerates
//! (at least `hold_decel_mps2` below the previous speed each cycle); SAFE_STOP ramps the
//! previous speed to zero at `stop_decel_mps2` on the previous curvature, then holds still;
//! REJOIN replans from the follower's own pose like FOLLOW, capped at `v_max / 2`.
//! Any non-finite input yields a finite command: a missing or non-finite lead report or own pose
//! ramps down as SAFE_STOP does; a non-finite or non-positive `dt_s` gives zero.

use crate::watchdog::{Watchdog, WatchdogState};
use serde::{Deserialize, Serialize};

/// A planar pose (REP 103: metres, yaw in radians counter-clockwise from +x).
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
pub struct Pose2D {
    /// x, metres.
    pub x_m: f64,
    /// y, metres.
    pub y_m: f64,
    /// Yaw, radians.
    pub yaw_rad: f64,
}

impl Pose2D {
    /// The planar pose of a position and an orientation quaternion (`x, y, z, w`): the yaw
    /// about +z (REP 103).
    pub fn from_position_quaternion(x_m: f64, y_m: f64, q: [f64; 4]) -> Pose2D {
        let [qx, qy, qz, qw] = q;
        Pose2D {
            x_m,
            y_m,
            yaw_rad: (2.0 * (qw * qz + qx * qy)).atan2(1.0 - 2.0 * (qy * qy + qz * qz)),
        }
    }

    /// Whether every field is a finite number.
    pub fn is_finite(&self) -> bool {
        self.x_m.is_finite() && self.y_m.is_finite() && self.yaw_rad.is_finite()
    }

    /// This pose (given in a frame whose origin lies at `origin`) in `origin`'s frame: rotated
    /// by `origin.yaw_rad`, then moved by `origin`'s position. Two vehicles whose odometry
    /// starts at their own spawn poses share a frame once each pose is placed in the world
    /// with its spawn pose as `origin`.
    pub fn placed_in(&self, origin: &Pose2D) -> Pose2D {
        let (sin, cos) = origin.yaw_rad.sin_cos();
        Pose2D {
            x_m: origin.x_m + cos * self.x_m - sin * self.y_m,
            y_m: origin.y_m + sin * self.x_m + cos * self.y_m,
            yaw_rad: origin.yaw_rad + self.yaw_rad,
        }
    }

    /// The origin `[x_m, y_m, yaw_deg]` of a node's `odom_origin` parameter; anything else is
    /// refused naming the value.
    pub fn from_origin_param(values: &[f64]) -> Result<Pose2D, String> {
        match values {
            [x_m, y_m, yaw_deg] if values.iter().all(|v| v.is_finite()) => Ok(Pose2D {
                x_m: *x_m,
                y_m: *y_m,
                yaw_rad: yaw_deg.to_radians(),
            }),
            other => Err(format!(
                "odom_origin: {other:?} is not [x_m, y_m, yaw_deg] (three finite numbers)"
            )),
        }
    }
}

/// The lead's reported state (from the newest accepted packet).
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
pub struct LeadReport {
    /// The lead's pose in the shared odometry frame.
    pub pose: Pose2D,
    /// The lead's forward speed, m/s.
    pub speed_mps: f64,
}

impl LeadReport {
    /// The report of a decoded packet (f32 fields widened).
    pub fn from_packet(packet: &crate::packet::ConvoyPacket) -> LeadReport {
        LeadReport {
            pose: Pose2D {
                x_m: f64::from(packet.x_m),
                y_m: f64::from(packet.y_m),
                yaw_rad: f64::from(packet.heading_rad),
            },
            speed_mps: f64::from(packet.speed_mps),
        }
    }

    fn is_finite(&self) -> bool {
        self.pose.is_finite() && self.speed_mps.is_finite()
    }

    /// The pose `age_s` later if the lead kept its heading and speed (age clamped to
    /// `0..=max_s`).
    pub fn extrapolated(&self, age_s: f64, max_s: f64) -> Pose2D {
        let age_s = if age_s.is_finite() {
            age_s.clamp(0.0, max_s)
        } else {
            0.0
        };
        let travelled = self.speed_mps * age_s;
        Pose2D {
            x_m: self.pose.x_m + travelled * self.pose.yaw_rad.cos(),
            y_m: self.pose.y_m + travelled * self.pose.yaw_rad.sin(),
            yaw_rad: self.pose.yaw_rad,
        }
    }
}

/// The controller's settings (defaults: the spec's 1.5 m, 0.4 m, 0.6 m/s, gain 0.8).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct FollowConfig {
    /// Distance behind the lead, metres.
    pub follow_dist_m: f64,
    /// Lateral offset from the lead's track, metres; positive is the lead's left (REP 103).
    pub offset_m: f64,
    /// Speed cap, m/s (REJOIN: half of it).
    pub v_max_mps: f64,
    /// Proportional gain from gap error (m) to speed (m/s), 1/s.
    pub k_gap: f64,
    /// Add the lead's reported speed to the gap term (removes the `v / k_gap` lag).
    pub lead_speed_feedforward: bool,
    /// HOLD decelerates at least this much, m/s².
    pub hold_decel_mps2: f64,
    /// SAFE_STOP ramps to zero at this rate, m/s².
    pub stop_decel_mps2: f64,
    /// Curvature limit, 1/m.
    pub max_curvature_per_m: f64,
    /// Turn-in-place rate limit (goal behind), rad/s.
    pub max_yaw_rate_rps: f64,
    /// The lead's pose is extrapolated by at most this age, seconds (the watchdog's grace).
    pub max_extrapolation_s: f64,
}

impl Default for FollowConfig {
    fn default() -> Self {
        FollowConfig {
            follow_dist_m: 1.5,
            offset_m: 0.4,
            v_max_mps: 0.6,
            k_gap: 0.8,
            lead_speed_feedforward: false,
            hold_decel_mps2: 0.2,
            stop_decel_mps2: 0.5,
            max_curvature_per_m: 4.0,
            max_yaw_rate_rps: 1.0,
            max_extrapolation_s: 4.0,
        }
    }
}

/// A controller setting out of range: the field and its value.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{field}: {value} {requirement}")]
pub struct FollowConfigError {
    /// The setting's name.
    pub field: &'static str,
    /// Its value.
    pub value: f64,
    /// What it must be.
    pub requirement: &'static str,
}

impl FollowConfig {
    /// Checks every setting, naming the first bad one.
    pub fn validate(&self) -> Result<(), FollowConfigError> {
        let positive = [
            ("follow_dist_m", self.follow_dist_m),
            ("v_max_mps", self.v_max_mps),
            ("k_gap", self.k_gap),
            ("hold_decel_mps2", self.hold_decel_mps2),
            ("stop_decel_mps2", self.stop_decel_mps2),
            ("max_curvature_per_m", self.max_curvature_per_m),
            ("max_yaw_rate_rps", self.max_yaw_rate_rps),
        ];
        for (field, value) in positive {
            if !(value.is_finite() && value > 0.0) {
                return Err(FollowConfigError {
                    field,
                    value,
                    requirement: "must be a finite number above 0",
                });
            }
        }
        if !self.offset_m.is_finite() {
            return Err(FollowConfigError {
                field: "offset_m",
                value: self.offset_m,
                requirement: "must be finite",
            });
        }
        if !(self.max_extrapolation_s.is_finite() && self.max_extrapolation_s >= 0.0) {
            return Err(FollowConfigError {
                field: "max_extrapolation_s",
                value: self.max_extrapolation_s,
                requirement: "must be a finite number at least 0",
            });
        }
        Ok(())
    }

    /// The distance from the goal point to the lead: `hypot(follow_dist_m, offset_m)`.
    pub fn formation_distance_m(&self) -> f64 {
        self.follow_dist_m.hypot(self.offset_m)
    }

    /// The goal point for a lead at `lead` (see the module's formula).
    pub fn goal_point(&self, lead: &Pose2D) -> (f64, f64) {
        let (sin, cos) = lead.yaw_rad.sin_cos();
        (
            lead.x_m - self.follow_dist_m * cos - self.offset_m * sin,
            lead.y_m - self.follow_dist_m * sin + self.offset_m * cos,
        )
    }

    /// Distance from `follower` to `lead` minus the formation distance (None if not finite).
    pub fn gap_error_m(&self, lead: &Pose2D, follower: &Pose2D) -> Option<f64> {
        let distance = (lead.x_m - follower.x_m).hypot(lead.y_m - follower.y_m);
        let error = distance - self.formation_distance_m();
        error.is_finite().then_some(error)
    }
}

/// One control cycle's input.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FollowInput {
    /// The watchdog's state for this cycle.
    pub state: WatchdogState,
    /// The newest accepted lead report (None before the first).
    pub lead: Option<LeadReport>,
    /// Its age, seconds.
    pub packet_age_s: Option<f64>,
    /// The follower's own pose (odometry).
    pub follower: Pose2D,
    /// Time since the previous cycle, seconds.
    pub dt_s: f64,
}

/// One control cycle's output: the velocity command and what it was computed from.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize)]
pub struct FollowCommand {
    /// Forward speed, m/s (never negative).
    pub linear_mps: f64,
    /// Yaw rate, rad/s.
    pub angular_rps: f64,
    /// The gap error against the (extrapolated) lead, when known.
    pub gap_error_m: Option<f64>,
    /// The goal point tracked this cycle, when any.
    pub goal: Option<(f64, f64)>,
    /// The curvature commanded, 1/m.
    pub curvature_per_m: f64,
}

/// One whole control cycle (see [`FollowController::cycle`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Cycle {
    /// The watchdog's state this cycle.
    pub state: WatchdogState,
    /// The newest packet's age, seconds (None before the first).
    pub packet_age_s: Option<f64>,
    /// The gap error the watchdog judged (None without a usable report or pose).
    pub gap_error_m: Option<f64>,
    /// The command for the cycle.
    pub command: FollowCommand,
}

/// The controller: stateless but for the previous command (for the ramps).
#[derive(Debug, Clone)]
pub struct FollowController {
    config: FollowConfig,
    previous: FollowCommand,
}

impl FollowController {
    /// A controller at rest, its settings checked.
    pub fn new(config: FollowConfig) -> Result<FollowController, FollowConfigError> {
        config.validate()?;
        Ok(FollowController {
            config,
            previous: FollowCommand::default(),
        })
    }

    /// The settings.
    pub fn config(&self) -> &FollowConfig {
        &self.config
    }

    /// The lead pose the goal is computed from: the report extrapolated by its age.
    pub fn lead_estimate(&self, lead: &LeadReport, packet_age_s: Option<f64>) -> Pose2D {
        lead.extrapolated(packet_age_s.unwrap_or(0.0), self.config.max_extrapolation_s)
    }

    /// The gap error the watchdog needs this cycle (None without a usable report or pose).
    pub fn gap_error_m(
        &self,
        lead: Option<&LeadReport>,
        packet_age_s: Option<f64>,
        follower: &Pose2D,
    ) -> Option<f64> {
        let lead = lead.filter(|lead| lead.is_finite())?;
        self.config
            .gap_error_m(&self.lead_estimate(lead, packet_age_s), follower)
    }

    /// One control cycle at `now_s`, as `convoy_follower` runs it: the newest packet's age,
    /// the gap error against the extrapolated `lead`, the watchdog's state from both, and the
    /// command for that state (see [`FollowController::step`]).
    pub fn cycle(
        &mut self,
        watchdog: &mut Watchdog,
        lead: Option<LeadReport>,
        follower: Pose2D,
        now_s: f64,
        dt_s: f64,
    ) -> Cycle {
        let packet_age_s = watchdog.packet_age_s(now_s);
        let gap_error_m = self.gap_error_m(lead.as_ref(), packet_age_s, &follower);
        let state = watchdog.update(now_s, gap_error_m);
        let command = self.step(&FollowInput {
            state,
            lead,
            packet_age_s,
            follower,
            dt_s,
        });
        Cycle {
            state,
            packet_age_s,
            gap_error_m,
            command,
        }
    }

    /// One cycle: the command for `input`. Always finite.
    pub fn step(&mut self, input: &FollowInput) -> FollowCommand {
        let mut command = self.command(input);
        if !(command.linear_mps.is_finite() && command.angular_rps.is_finite()) {
            // Not reachable by construction (the property test drives every input class); the
            // last line of defence still holds: never hand a non-finite command on.
            command = FollowCommand::default();
        }
        self.previous = command;
        command
    }

    fn command(&self, input: &FollowInput) -> FollowCommand {
        let config = &self.config;
        if !(input.dt_s.is_finite() && input.dt_s > 0.0) {
            return FollowCommand::default();
        }
        let lead = input
            .lead
            .filter(|lead| lead.is_finite() && input.follower.is_finite());
        let lead = match (input.state, lead) {
            (WatchdogState::SafeStop, _) | (_, None) => {
                return self.ramp_down(config.stop_decel_mps2, input.dt_s)
            }
            (_, Some(lead)) => lead,
        };
        let lead_pose = self.lead_estimate(&lead, input.packet_age_s);
        let goal = config.goal_point(&lead_pose);
        if !(goal.0.is_finite() && goal.1.is_finite()) {
            // A report so far out that extrapolating it overflows.
            return self.ramp_down(config.stop_decel_mps2, input.dt_s);
        }
        let gap_error_m = config.gap_error_m(&lead_pose, &input.follower);
        let gap_term = config.k_gap * gap_error_m.unwrap_or(0.0);
        let feedforward = if config.lead_speed_feedforward {
            lead.speed_mps.max(0.0)
        } else {
            0.0
        };
        let cap = match input.state {
            WatchdogState::Rejoin => config.v_max_mps / 2.0,
            _ => config.v_max_mps,
        };
        let mut speed = (gap_term + feedforward).clamp(0.0, cap);
        if input.state == WatchdogState::Hold {
            let slower = (self.previous_speed() - config.hold_decel_mps2 * input.dt_s).max(0.0);
            speed = speed.min(slower);
        }
        let (sin, cos) = input.follower.yaw_rad.sin_cos();
        let dx = goal.0 - input.follower.x_m;
        let dy = goal.1 - input.follower.y_m;
        let local_x = cos * dx + sin * dy;
        let local_y = -sin * dx + cos * dy;
        let lookahead_sq = local_x * local_x + local_y * local_y;
        let limit = config.max_curvature_per_m;
        if local_x <= 0.0 && lookahead_sq > 0.0 {
            // Goal behind: turn towards it in place rather than drive away from it, but only
            // while the speed law wants to move at all (not when too close to the lead).
            let bearing = local_y.atan2(local_x);
            return FollowCommand {
                linear_mps: 0.0,
                angular_rps: if speed > 0.0 {
                    (2.0 * bearing).clamp(-config.max_yaw_rate_rps, config.max_yaw_rate_rps)
                } else {
                    0.0
                },
                gap_error_m,
                goal: Some(goal),
                curvature_per_m: 0.0,
            };
        }
        let curvature = if lookahead_sq > 0.0 {
            (2.0 * local_y / lookahead_sq).clamp(-limit, limit)
        } else {
            0.0
        };
        let curvature = if curvature.is_finite() {
            curvature
        } else {
            0.0
        };
        FollowCommand {
            linear_mps: speed,
            angular_rps: speed * curvature,
            gap_error_m,
            goal: Some(goal),
            curvature_per_m: curvature,
        }
    }

    fn previous_speed(&self) -> f64 {
        let speed = self.previous.linear_mps;
        if speed.is_finite() {
            speed.max(0.0)
        } else {
            0.0
        }
    }

    /// SAFE_STOP (or no usable lead): the previous speed ramped down at `decel_mps2` on the
    /// previous curvature, then zero.
    fn ramp_down(&self, decel_mps2: f64, dt_s: f64) -> FollowCommand {
        let speed = (self.previous_speed() - decel_mps2 * dt_s).max(0.0);
        let curvature = self.previous.curvature_per_m;
        let curvature = if curvature.is_finite() {
            curvature
        } else {
            0.0
        };
        FollowCommand {
            linear_mps: speed,
            angular_rps: speed * curvature,
            gap_error_m: None,
            goal: None,
            curvature_per_m: curvature,
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn yaw_comes_from_the_quaternion() {
        let half = 0.7_f64 / 2.0;
        let pose =
            super::Pose2D::from_position_quaternion(1.0, 2.0, [0.0, 0.0, half.sin(), half.cos()]);
        assert!((pose.yaw_rad - 0.7).abs() < 1e-12);
        assert_eq!((pose.x_m, pose.y_m), (1.0, 2.0));
    }

    use super::*;
    use proptest::prelude::*;
    use std::f64::consts::FRAC_PI_2;
    use WatchdogState::*;

    fn pose(x_m: f64, y_m: f64, yaw_rad: f64) -> Pose2D {
        Pose2D { x_m, y_m, yaw_rad }
    }

    fn lead_at(x_m: f64, y_m: f64, yaw_rad: f64, speed_mps: f64) -> LeadReport {
        LeadReport {
            pose: pose(x_m, y_m, yaw_rad),
            speed_mps,
        }
    }

    fn controller() -> FollowController {
        FollowController::new(FollowConfig::default()).unwrap()
    }

    fn input(state: WatchdogState, lead: LeadReport, age_s: f64, follower: Pose2D) -> FollowInput {
        FollowInput {
            state,
            lead: Some(lead),
            packet_age_s: Some(age_s),
            follower,
            dt_s: 0.1,
        }
    }

    fn assert_close(actual: f64, expected: f64) {
        assert!((actual - expected).abs() < 1e-9, "{actual} != {expected}");
    }

    #[test]
    fn a_pose_placed_in_its_origin_frame_is_rotated_then_moved() {
        let origin = pose(2.0, 1.0, std::f64::consts::FRAC_PI_2);
        let placed = pose(1.0, 0.5, 0.25).placed_in(&origin);
        assert_close(placed.x_m, 2.0 - 0.5);
        assert_close(placed.y_m, 1.0 + 1.0);
        assert_close(placed.yaw_rad, std::f64::consts::FRAC_PI_2 + 0.25);
        assert_eq!(
            pose(1.0, 0.5, 0.25).placed_in(&Pose2D::default()),
            pose(1.0, 0.5, 0.25)
        );
    }

    #[test]
    fn the_origin_parameter_takes_three_finite_numbers_in_degrees() {
        let origin = Pose2D::from_origin_param(&[1.0, -2.0, 90.0]).unwrap();
        assert_close(origin.yaw_rad, std::f64::consts::FRAC_PI_2);
        for bad in [&[][..], &[1.0, 2.0][..], &[1.0, f64::NAN, 0.0][..]] {
            let err = Pose2D::from_origin_param(bad).unwrap_err();
            assert!(err.starts_with("odom_origin: "), "{err}");
        }
    }

    #[test]
    fn goal_is_behind_and_to_the_left_of_the_lead_heading() {
        let config = FollowConfig::default();
        // Heading +x: behind is -x, left is +y.
        let (gx, gy) = config.goal_point(&pose(10.0, 0.0, 0.0));
        assert_close(gx, 8.5);
        assert_close(gy, 0.4);
        // Heading +y: behind is -y, left is -x.
        let (gx, gy) = config.goal_point(&pose(0.0, 10.0, FRAC_PI_2));
        assert_close(gx, -0.4);
        assert_close(gy, 8.5);
        // A negative offset is the lead's right.
        let right = FollowConfig {
            offset_m: -0.4,
            ..config
        };
        assert_close(right.goal_point(&pose(10.0, 0.0, 0.0)).1, -0.4);
    }

    #[test]
    fn follower_on_the_goal_point_has_zero_gap_error_and_stays_still() {
        let mut control = controller();
        let lead = lead_at(10.0, 0.0, 0.0, 0.0);
        let command = control.step(&input(Follow, lead, 0.1, pose(8.5, 0.4, 0.0)));
        assert_close(command.gap_error_m.unwrap(), 0.0);
        assert_eq!(command.linear_mps, 0.0);
    }

    #[test]
    fn speed_is_gain_times_gap_error_capped_at_v_max() {
        let config = FollowConfig::default();
        let mut control = controller();
        let lead = lead_at(10.0, 0.0, 0.0, 0.0);
        // 0.5 m further back than formation along the lead->goal line: error 0.5, speed 0.4.
        let (gx, gy) = config.goal_point(&lead.pose);
        let back = 0.5 / config.formation_distance_m();
        let follower = pose(gx + (gx - 10.0) * back, gy + gy * back, 0.0);
        let command = control.step(&input(Follow, lead, 0.0, follower));
        assert_close(command.gap_error_m.unwrap(), 0.5);
        assert_close(command.linear_mps, 0.8 * 0.5);
        // Far behind: capped.
        let command = control.step(&input(Follow, lead, 0.0, pose(0.0, 0.0, 0.0)));
        assert_eq!(command.linear_mps, 0.6);
    }

    #[test]
    fn too_close_means_zero_speed_never_reverse() {
        let mut control = controller();
        let command = control.step(&input(
            Follow,
            lead_at(10.0, 0.0, 0.0, 0.5),
            0.0,
            pose(9.5, 0.0, 0.0),
        ));
        assert!(command.gap_error_m.unwrap() < 0.0);
        assert_eq!((command.linear_mps, command.angular_rps), (0.0, 0.0));
    }

    #[test]
    fn feedforward_adds_the_lead_speed_when_enabled() {
        let config = FollowConfig {
            lead_speed_feedforward: true,
            ..FollowConfig::default()
        };
        let mut control = FollowController::new(config).unwrap();
        let lead = lead_at(10.0, 0.0, 0.0, 0.3);
        let (gx, gy) = config.goal_point(&lead.pose);
        let command = control.step(&input(Follow, lead, 0.0, pose(gx, gy, 0.0)));
        assert_close(command.linear_mps, 0.3);
    }

    #[test]
    fn curvature_is_pure_pursuit_to_the_goal_in_the_follower_frame() {
        let mut control = controller();
        // Follower at the origin facing +x; goal at (8.5, 0.4): kappa = 2 * 0.4 / (8.5^2 + 0.4^2).
        let command = control.step(&input(
            Follow,
            lead_at(10.0, 0.0, 0.0, 0.0),
            0.0,
            pose(0.0, 0.0, 0.0),
        ));
        let kappa = 2.0 * 0.4 / (8.5 * 8.5 + 0.4 * 0.4);
        assert_close(command.curvature_per_m, kappa);
        assert_close(command.angular_rps, 0.6 * kappa);
        assert!(
            command.angular_rps > 0.0,
            "goal to the left: turn left (counter-clockwise)"
        );
        // The same geometry rotated: follower facing +y sees the goal to its right.
        let command = control.step(&input(
            Follow,
            lead_at(10.0, 0.0, 0.0, 0.0),
            0.0,
            pose(0.0, 0.0, FRAC_PI_2),
        ));
        assert!(
            command.curvature_per_m < 0.0,
            "goal to the right: turn right"
        );
    }

    #[test]
    fn curvature_is_clamped_near_the_goal() {
        let mut control = controller();
        let lead = lead_at(10.0, 0.0, 0.0, 0.0);
        // Goal 0.1 m to the side, 0.01 m ahead: raw curvature ~ 20 /m.
        let command = control.step(&input(Follow, lead, 0.0, pose(8.49, 0.3, 0.0)));
        assert_eq!(command.curvature_per_m, 4.0);
    }

    #[test]
    fn a_goal_behind_is_turned_towards_in_place() {
        let mut control = controller();
        // Follower past the goal, facing away from it, far from the lead (positive gap error).
        let command = control.step(&input(
            Follow,
            lead_at(0.0, 0.0, 0.0, 0.0),
            0.0,
            pose(-1.5, 5.0, FRAC_PI_2),
        ));
        assert!(command.gap_error_m.unwrap() > 0.0);
        assert_eq!(command.linear_mps, 0.0);
        assert!(command.angular_rps.abs() > 0.0 && command.angular_rps.abs() <= 1.0);
    }

    #[test]
    fn follow_extrapolates_the_lead_by_its_age() {
        let control = controller();
        let lead = lead_at(10.0, 0.0, 0.0, 0.5);
        let estimate = control.lead_estimate(&lead, Some(0.8));
        assert_close(estimate.x_m, 10.4);
        // Capped at max_extrapolation_s (4 s): 10 + 2 m.
        assert_close(control.lead_estimate(&lead, Some(60.0)).x_m, 12.0);
        assert_close(control.lead_estimate(&lead, Some(f64::NAN)).x_m, 10.0);
    }

    #[test]
    fn hold_always_decelerates() {
        let mut control = controller();
        let lead = lead_at(10.0, 0.0, 0.0, 0.5);
        let far = pose(0.0, 0.0, 0.0);
        assert_eq!(control.step(&input(Follow, lead, 0.2, far)).linear_mps, 0.6);
        let mut previous = 0.6;
        for cycle in 0..40 {
            let command = control.step(&input(Hold, lead, 1.0 + 0.1 * f64::from(cycle), far));
            assert!(command.linear_mps < previous || command.linear_mps == 0.0);
            assert!(
                command.goal.is_some(),
                "HOLD still tracks the formation vector"
            );
            previous = command.linear_mps;
        }
        // 0.6 m/s at 0.2 m/s^2 every 0.1 s: zero after 30 cycles.
        assert_eq!(previous, 0.0);
    }

    #[test]
    fn safe_stop_ramps_to_zero_on_the_previous_curvature_then_holds() {
        let mut control = controller();
        let lead = lead_at(10.0, 0.0, 0.0, 0.0);
        let moving = control.step(&input(Follow, lead, 0.0, pose(0.0, 0.0, 0.0)));
        let first = control.step(&input(SafeStop, lead, 5.0, pose(0.0, 0.0, 0.0)));
        assert_close(first.linear_mps, 0.6 - 0.5 * 0.1);
        assert_close(first.curvature_per_m, moving.curvature_per_m);
        assert_eq!(first.goal, None);
        let mut last = first;
        for _ in 0..20 {
            last = control.step(&input(SafeStop, lead, 5.0, pose(0.0, 0.0, 0.0)));
        }
        assert_eq!((last.linear_mps, last.angular_rps), (0.0, 0.0));
    }

    #[test]
    fn rejoin_is_capped_at_half_v_max() {
        let mut control = controller();
        let command = control.step(&input(
            Rejoin,
            lead_at(10.0, 0.0, 0.0, 0.0),
            0.0,
            pose(0.0, 0.0, 0.0),
        ));
        assert_eq!(command.linear_mps, 0.3);
    }

    #[test]
    fn no_lead_or_a_non_finite_one_ramps_down() {
        let mut control = controller();
        control.step(&input(
            Follow,
            lead_at(10.0, 0.0, 0.0, 0.0),
            0.0,
            pose(0.0, 0.0, 0.0),
        ));
        let no_lead = FollowInput {
            lead: None,
            ..input(
                Follow,
                lead_at(0.0, 0.0, 0.0, 0.0),
                0.0,
                pose(0.0, 0.0, 0.0),
            )
        };
        assert_close(control.step(&no_lead).linear_mps, 0.55);
        let nan_lead = input(
            Follow,
            lead_at(f64::NAN, 0.0, 0.0, 0.0),
            0.0,
            pose(0.0, 0.0, 0.0),
        );
        assert_close(control.step(&nan_lead).linear_mps, 0.5);
        let nan_pose = input(
            Follow,
            lead_at(10.0, 0.0, 0.0, 0.0),
            0.0,
            pose(0.0, f64::INFINITY, 0.0),
        );
        assert_close(control.step(&nan_pose).linear_mps, 0.45);
    }

    #[test]
    fn a_bad_dt_gives_zero() {
        let mut control = controller();
        for dt_s in [0.0, -0.1, f64::NAN] {
            let command = control.step(&FollowInput {
                dt_s,
                ..input(
                    Follow,
                    lead_at(10.0, 0.0, 0.0, 0.0),
                    0.0,
                    pose(0.0, 0.0, 0.0),
                )
            });
            assert_eq!((command.linear_mps, command.angular_rps), (0.0, 0.0));
        }
    }

    #[test]
    fn bad_settings_are_refused_naming_field_and_value() {
        let bad = |config: FollowConfig| FollowController::new(config).unwrap_err().to_string();
        let default = FollowConfig::default();
        assert_eq!(
            bad(FollowConfig {
                v_max_mps: 0.0,
                ..default
            }),
            "v_max_mps: 0 must be a finite number above 0"
        );
        assert_eq!(
            bad(FollowConfig {
                offset_m: f64::NAN,
                ..default
            }),
            "offset_m: NaN must be finite"
        );
        assert_eq!(
            bad(FollowConfig {
                max_extrapolation_s: -1.0,
                ..default
            }),
            "max_extrapolation_s: -1 must be a finite number at least 0"
        );
        assert!(FollowController::new(FollowConfig {
            offset_m: -0.4,
            ..default
        })
        .is_ok());
    }

    fn any_f64() -> impl Strategy<Value = f64> {
        prop_oneof![
            -1e3f64..1e3,
            Just(f64::NAN),
            Just(f64::INFINITY),
            Just(f64::NEG_INFINITY),
            Just(f64::MAX),
            Just(-f64::MAX),
        ]
    }

    fn any_state() -> impl Strategy<Value = WatchdogState> {
        prop::sample::select(WatchdogState::ALL.to_vec())
    }

    proptest! {
        #[test]
        fn commands_are_always_finite_and_within_limits(
            cycles in prop::collection::vec(
                (any_state(), prop::option::of((any_f64(), any_f64(), any_f64(), any_f64())),
                 prop::option::of(any_f64()), (any_f64(), any_f64(), any_f64()), any_f64()),
                1..30,
            )
        ) {
            let mut control = controller();
            for (state, lead, age, (fx, fy, fyaw), dt_s) in cycles {
                let command = control.step(&FollowInput {
                    state,
                    lead: lead.map(|(x, y, yaw, v)| lead_at(x, y, yaw, v)),
                    packet_age_s: age,
                    follower: pose(fx, fy, fyaw),
                    dt_s,
                });
                prop_assert!(command.linear_mps.is_finite() && command.angular_rps.is_finite());
                prop_assert!((0.0..=0.6).contains(&command.linear_mps));
                prop_assert!(command.angular_rps.abs() <= 0.6 * 4.0 + 1e-12);
                if state == Rejoin {
                    prop_assert!(command.linear_mps <= 0.3);
                }
            }
        }
    }
}
