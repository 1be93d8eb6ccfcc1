//! The health policy: one [`Frame`] in, one [`Command`] out, the spec's state machine.
//!
//! ```text
//! INIT ── healthy dwell (1 s) ──► ACTIVE ── goal accepted ──► COMPLETE (latched within limits)
//!   │                               │
//!   └── unhealthy ──► HOLD ◄─ fault ┘
//!                      │  └── healthy recovery dwell ──► ACTIVE
//!                      └── fault episode >= 2 s ──► LAND (latched)
//! any state ── geofence / ceiling / battery below floor ──► LAND
//! ```
//!
//! A fault episode starts at the first unhealthy sample and ends only after `episode_s` of
//! continuous health, so a source that keeps dropping out escalates to LAND instead of
//! alternating between HOLD and brief ACTIVE commands. Each frame is evaluated in this order:
//! LAND stays LAND; a hard limit lands (also from COMPLETE); COMPLETE stays COMPLETE; then
//! health. A fault seen in ACTIVE when the open episode is already `episode_s` old passes
//! through HOLD to LAND in the same evaluation (no extra HOLD cycle). In ACTIVE, a fault takes
//! precedence over the goal flag (a goal judged on a stale estimate is not accepted).

use super::config::{ConfigError, PolicyConfig};
use super::protocol::{Command, Frame, FrameError, Mode};

/// Slack for comparing elapsed simulation time with a dwell, s: absorbs the rounding of
/// repeatedly added 0.05 s steps (20 x 0.05 may sum to 0.9999999999999999).
pub const TIME_EPSILON_S: f64 = 1e-9;

/// Why the policy chose its mode; written as the command's `reason` token.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Reason {
    /// INIT, healthy, still inside the initial dwell.
    InitDwell,
    /// Healthy (ACTIVE, or the transition into it).
    Healthy,
    /// HOLD, healthy again, inside the recovery dwell.
    Recovering,
    /// The IMU stamp is older than its limit.
    ImuStale,
    /// The GNSS stamp is older than its limit.
    GnssStale,
    /// The camera capture stamp is older than its limit (vision required only).
    VisionStale,
    /// The ground station's heartbeat is older than its limit.
    LinkStale,
    /// The reported inference took longer than its limit (vision required only).
    InferenceSlow,
    /// The fault episode reached its length while in HOLD.
    FaultEpisode,
    /// Battery below the floor.
    BatteryLow,
    /// Outside the horizontal geofence.
    Geofence,
    /// Above the altitude ceiling.
    Ceiling,
    /// The mission goal was accepted.
    GoalReached,
}

impl Reason {
    /// Every reason.
    pub const ALL: [Reason; 13] = [
        Reason::InitDwell,
        Reason::Healthy,
        Reason::Recovering,
        Reason::ImuStale,
        Reason::GnssStale,
        Reason::VisionStale,
        Reason::LinkStale,
        Reason::InferenceSlow,
        Reason::FaultEpisode,
        Reason::BatteryLow,
        Reason::Geofence,
        Reason::Ceiling,
        Reason::GoalReached,
    ];

    /// The wire token.
    pub fn as_str(self) -> &'static str {
        match self {
            Reason::InitDwell => "init_dwell",
            Reason::Healthy => "healthy",
            Reason::Recovering => "recovering",
            Reason::ImuStale => "imu_stale",
            Reason::GnssStale => "gnss_stale",
            Reason::VisionStale => "vision_stale",
            Reason::LinkStale => "link_stale",
            Reason::InferenceSlow => "inference_slow",
            Reason::FaultEpisode => "fault_episode",
            Reason::BatteryLow => "battery_low",
            Reason::Geofence => "geofence",
            Reason::Ceiling => "ceiling",
            Reason::GoalReached => "goal_reached",
        }
    }
}

/// The state machine with its thresholds; feed it frames in order with [`Policy::step`].
#[derive(Debug, Clone)]
pub struct Policy {
    config: PolicyConfig,
    mode: Mode,
    reason: Reason,
    /// Sequence and time of the last accepted frame.
    last: Option<(u64, f64)>,
    /// Time of the first sample of the current run of healthy samples.
    healthy_since: Option<f64>,
    /// Time of the first unhealthy sample of the open fault episode.
    episode_start: Option<f64>,
}

impl Policy {
    /// A policy in INIT, after checking the thresholds.
    pub fn new(config: PolicyConfig) -> Result<Policy, ConfigError> {
        config.validate()?;
        Ok(Policy {
            config,
            mode: Mode::Init,
            reason: Reason::InitDwell,
            last: None,
            healthy_since: None,
            episode_start: None,
        })
    }

    /// The thresholds.
    pub fn config(&self) -> &PolicyConfig {
        &self.config
    }

    /// The mode after the last accepted frame (INIT before any).
    pub fn mode(&self) -> Mode {
        self.mode
    }

    /// The reason after the last accepted frame.
    pub fn reason(&self) -> Reason {
        self.reason
    }

    /// When the open fault episode started, if one is open.
    pub fn episode_start(&self) -> Option<f64> {
        self.episode_start
    }

    /// Evaluates one frame. A frame that fails [`Frame::validate`], or whose sequence or time
    /// is not strictly greater than the last accepted frame's (a replay), is rejected and
    /// leaves the policy as it was.
    pub fn step(&mut self, frame: &Frame) -> Result<Command, FrameError> {
        frame.validate()?;
        if let Some((sequence, now)) = self.last {
            if frame.sequence <= sequence {
                return Err(FrameError::SequenceNotIncreasing {
                    sequence: frame.sequence,
                    previous: sequence,
                });
            }
            if frame.now <= now {
                return Err(FrameError::TimeNotIncreasing {
                    now: frame.now,
                    previous: now,
                });
            }
        }
        self.last = Some((frame.sequence, frame.now));
        let (mode, reason) = self.transition(frame);
        self.mode = mode;
        self.reason = reason;
        Ok(Command {
            sequence: frame.sequence,
            mode,
            reason: reason.as_str().to_string(),
            velocity: self.velocity(mode, frame),
        })
    }

    /// The next mode and its reason (updates the health bookkeeping).
    fn transition(&mut self, frame: &Frame) -> (Mode, Reason) {
        if self.mode == Mode::Land {
            return (Mode::Land, self.reason);
        }
        if let Some(limit) = self.hard_limit(frame) {
            return (Mode::Land, limit);
        }
        if self.mode == Mode::Complete {
            return (Mode::Complete, self.reason);
        }
        let now = frame.now;
        let fault = self.fault(frame);
        match fault {
            Some(_) => {
                self.healthy_since = None;
                self.episode_start.get_or_insert(now);
            }
            None => {
                let since = *self.healthy_since.get_or_insert(now);
                if self.episode_start.is_some() && reached(now - since, self.config.episode_s) {
                    self.episode_start = None;
                }
            }
        }
        let healthy_for = self.healthy_since.map_or(0.0, |since| now - since);
        match (self.mode, fault) {
            (_, Some(fault)) => self.hold(now, fault),
            (Mode::Init, None) if reached(healthy_for, self.config.init_dwell_s) => {
                (Mode::Active, Reason::Healthy)
            }
            (Mode::Init, None) => (Mode::Init, Reason::InitDwell),
            (Mode::Active, None) if frame.complete => (Mode::Complete, Reason::GoalReached),
            (Mode::Hold, None) if self.episode_expired(now) => (Mode::Land, Reason::FaultEpisode),
            (Mode::Hold, None) if !reached(healthy_for, self.config.recovery_dwell_s) => {
                (Mode::Hold, Reason::Recovering)
            }
            (_, None) => (Mode::Active, Reason::Healthy),
        }
    }

    /// HOLD for `fault`, or LAND when the open episode has reached its length.
    fn hold(&self, now: f64, fault: Reason) -> (Mode, Reason) {
        if self.episode_expired(now) {
            (Mode::Land, Reason::FaultEpisode)
        } else {
            (Mode::Hold, fault)
        }
    }

    /// True when an episode is open and at least `episode_s` old.
    fn episode_expired(&self, now: f64) -> bool {
        self.episode_start
            .is_some_and(|start| reached(now - start, self.config.episode_s))
    }

    /// The first hard limit the frame breaks: geofence, ceiling, then battery.
    fn hard_limit(&self, frame: &Frame) -> Option<Reason> {
        let [east, north, up] = frame.position;
        if east.hypot(north) > self.config.geofence_radius_m {
            Some(Reason::Geofence)
        } else if up > self.config.ceiling_m {
            Some(Reason::Ceiling)
        } else if frame.battery < self.config.battery_floor {
            Some(Reason::BatteryLow)
        } else {
            None
        }
    }

    /// The first sensor or latency fault: IMU, GNSS, vision, link, then inference.
    fn fault(&self, frame: &Frame) -> Option<Reason> {
        let config = &self.config;
        let vision = config.vision_required;
        let now = frame.now;
        [
            (
                now - frame.imu_stamp > config.imu_max_age_s,
                Reason::ImuStale,
            ),
            (
                now - frame.gnss_stamp > config.gnss_max_age_s,
                Reason::GnssStale,
            ),
            (
                vision && now - frame.vision_stamp > config.vision_max_age_s,
                Reason::VisionStale,
            ),
            (
                now - frame.link_stamp > config.link_max_age_s,
                Reason::LinkStale,
            ),
            (
                vision && frame.inference_ms > config.inference_max_ms,
                Reason::InferenceSlow,
            ),
        ]
        .into_iter()
        .find_map(|(faulty, reason)| faulty.then_some(reason))
    }

    /// The ENU setpoint of `mode`: zero except LAND (a constant descent, kept even when the
    /// estimate reads zero altitude: touchdown is the autopilot's) and ACTIVE (toward the target).
    fn velocity(&self, mode: Mode, frame: &Frame) -> [f64; 3] {
        match mode {
            Mode::Land => [0.0, 0.0, -self.config.descent_mps],
            Mode::Active => self.approach(frame.position, frame.target),
            Mode::Init | Mode::Hold | Mode::Complete => [0.0; 3],
        }
    }

    /// Toward `target` at min(max speed, gain x distance); zero inside the goal acceptance.
    /// The offset is computed from halves and scaled by its largest component, so any two
    /// finite positions give a finite setpoint in the right direction.
    fn approach(&self, position: [f64; 3], target: [f64; 3]) -> [f64; 3] {
        let half_offset: [f64; 3] =
            std::array::from_fn(|axis| target[axis] * 0.5 - position[axis] * 0.5);
        let largest = half_offset.iter().fold(0.0_f64, |max, c| max.max(c.abs()));
        if largest == 0.0 {
            return [0.0; 3];
        }
        let scaled = half_offset.map(|component| component / largest);
        let scaled_norm = scaled[0].hypot(scaled[1]).hypot(scaled[2]);
        let distance = 2.0 * largest * scaled_norm;
        if distance <= self.config.goal_acceptance_m {
            return [0.0; 3];
        }
        let speed = (self.config.approach_gain_per_s * distance).min(self.config.max_speed_mps);
        scaled.map(|component| component / scaled_norm * speed)
    }
}

/// True when `elapsed` has reached `dwell`, within [`TIME_EPSILON_S`].
fn reached(elapsed: f64, dwell: f64) -> bool {
    elapsed + TIME_EPSILON_S >= dwell
}

#[cfg(test)]
mod tests;
