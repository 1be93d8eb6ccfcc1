//! The policy's thresholds, each with its default and where that default comes from.
//!
//! The spec (the mission computer lab) fixes four: the 1 s healthy dwell of INIT, the 2 s
//! fault episode, the LAND descent in [0.3, 0.7] m/s and the node's 3 s response timeout
//! (not here: the policy has no wall clock). The rest are this lab's design choices, sized for
//! `robots/quad_ref` (IMU 200 Hz, GNSS 10 Hz, camera 10 Hz, ground-station heartbeat 5 Hz,
//! airframe ceiling 60 m) and the simulator's 0.05 s step; they are not safety-qualified
//! flight limits.

/// The default of [`PolicyConfig::init_dwell_s`] (spec: "INIT -> ACTIVE: healthy for 1 second").
pub const DEFAULT_INIT_DWELL_S: f64 = 1.0;
/// The default of [`PolicyConfig::episode_s`] (spec: "fault episode reaches 2 seconds").
pub const DEFAULT_EPISODE_S: f64 = 2.0;
/// The default of [`PolicyConfig::descent_mps`] (spec: a descent between 0.3 and 0.7 m/s).
pub const DEFAULT_DESCENT_MPS: f64 = 0.5;
/// The spec's bounds of [`PolicyConfig::descent_mps`], m/s.
pub const DESCENT_RANGE_MPS: (f64, f64) = (0.3, 0.7);

/// Every threshold of the health policy. Times in simulation seconds, except
/// `inference_max_ms` (the reported wall-clock duration of one inference).
#[derive(Debug, Clone, PartialEq)]
pub struct PolicyConfig {
    /// Continuous health needed in INIT before ACTIVE, s. Spec: 1 s.
    pub init_dwell_s: f64,
    /// A fault episode ends only after this much continuous health, and HOLD lands once the
    /// open episode is this old, s. Spec: 2 s.
    pub episode_s: f64,
    /// Continuous health needed in HOLD before ACTIVE again, s; must be below `episode_s`
    /// (otherwise every HOLD would land). Lab choice: 1 s, half the episode, so a dropout of
    /// up to 1 s recovers and a longer one lands.
    pub recovery_dwell_s: f64,
    /// Oldest acceptable IMU stamp, s. Lab choice: 0.25 s, five simulator steps (the 200 Hz
    /// IMU reaches the node once per step at worst).
    pub imu_max_age_s: f64,
    /// Oldest acceptable GNSS fix, s. Lab choice: 0.5 s, five periods of the 10 Hz receiver.
    pub gnss_max_age_s: f64,
    /// Oldest acceptable camera capture, s (ignored when `vision_required` is false). Lab
    /// choice: 0.5 s, five frames of the 10 Hz camera.
    pub vision_max_age_s: f64,
    /// Oldest acceptable ground-station heartbeat, s. Lab choice: 1.0 s, five periods of the
    /// 5 Hz heartbeat (`link_monitor`'s own 2 s timeout reports later; the supervisor acts first).
    pub link_max_age_s: f64,
    /// Longest acceptable reported inference, ms (ignored when `vision_required` is false). Lab
    /// choice: 100 ms, the camera's 10 Hz period, so the spec's injected 120 ms trips it.
    pub inference_max_ms: f64,
    /// Battery fraction below which the vehicle lands (a hard limit). Lab choice: 0.2.
    pub battery_floor: f64,
    /// Horizontal radius about the world's origin beyond which the vehicle lands, m. Lab
    /// choice: 150 m, well outside the inspection world.
    pub geofence_radius_m: f64,
    /// Altitude (ENU up) above which the vehicle lands, m. Lab choice: 50 m, below
    /// `quad_ref`'s 60 m airframe ceiling so the limit can trip before the airframe's.
    pub ceiling_m: f64,
    /// Bound on the ACTIVE setpoint's speed, m/s. Lab choice: 2 m/s (`quad_ref`'s vertical
    /// limit, well under its 5 m/s horizontal limit).
    pub max_speed_mps: f64,
    /// ACTIVE speed per metre of distance to the target, 1/s (speed = min(max, gain x
    /// distance), so the vehicle slows into the target). Lab choice: 1 /s.
    pub approach_gain_per_s: f64,
    /// Distance to the target inside which ACTIVE commands zero velocity (the vehicle waits
    /// there for the planner's next waypoint or goal acceptance), m. Lab choice: 0.3 m, the
    /// vehicle's radius.
    pub goal_acceptance_m: f64,
    /// LAND's descent speed, m/s, in [0.3, 0.7]. Spec: 0.3 to 0.7; default 0.5, the middle.
    pub descent_mps: f64,
    /// Whether vision freshness and inference duration count toward health. False for a
    /// scenario with `vision: none` (no perception payload yet). Default: true.
    pub vision_required: bool,
}

impl Default for PolicyConfig {
    fn default() -> Self {
        PolicyConfig {
            init_dwell_s: DEFAULT_INIT_DWELL_S,
            episode_s: DEFAULT_EPISODE_S,
            recovery_dwell_s: 1.0,
            imu_max_age_s: 0.25,
            gnss_max_age_s: 0.5,
            vision_max_age_s: 0.5,
            link_max_age_s: 1.0,
            inference_max_ms: 100.0,
            battery_floor: 0.2,
            geofence_radius_m: 150.0,
            ceiling_m: 50.0,
            max_speed_mps: 2.0,
            approach_gain_per_s: 1.0,
            goal_acceptance_m: 0.3,
            descent_mps: DEFAULT_DESCENT_MPS,
            vision_required: true,
        }
    }
}

/// A threshold that cannot work, named with its value (`supervisor.descent_mps: 0.9 is not in [0.3, 0.7]`).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("supervisor.{field}: {value} is not {requirement}")]
pub struct ConfigError {
    /// The threshold's field name.
    pub field: &'static str,
    /// Its value.
    pub value: f64,
    /// What it must be.
    pub requirement: String,
}

impl PolicyConfig {
    /// Checks every threshold: finite and positive (the battery floor in [0, 1), the goal
    /// acceptance nonnegative), the recovery dwell below the episode, the descent in [0.3, 0.7].
    pub fn validate(&self) -> Result<(), ConfigError> {
        let positive = [
            ("init_dwell_s", self.init_dwell_s),
            ("episode_s", self.episode_s),
            ("recovery_dwell_s", self.recovery_dwell_s),
            ("imu_max_age_s", self.imu_max_age_s),
            ("gnss_max_age_s", self.gnss_max_age_s),
            ("vision_max_age_s", self.vision_max_age_s),
            ("link_max_age_s", self.link_max_age_s),
            ("inference_max_ms", self.inference_max_ms),
            ("geofence_radius_m", self.geofence_radius_m),
            ("ceiling_m", self.ceiling_m),
            ("max_speed_mps", self.max_speed_mps),
            ("approach_gain_per_s", self.approach_gain_per_s),
        ];
        for (field, value) in positive {
            require(
                field,
                value,
                value.is_finite() && value > 0.0,
                "finite and > 0",
            )?;
        }
        require(
            "battery_floor",
            self.battery_floor,
            (0.0..1.0).contains(&self.battery_floor),
            "in [0, 1)",
        )?;
        require(
            "goal_acceptance_m",
            self.goal_acceptance_m,
            self.goal_acceptance_m.is_finite() && self.goal_acceptance_m >= 0.0,
            "finite and >= 0",
        )?;
        let (low, high) = DESCENT_RANGE_MPS;
        require(
            "descent_mps",
            self.descent_mps,
            (low..=high).contains(&self.descent_mps),
            &format!("in [{low}, {high}]"),
        )?;
        require(
            "recovery_dwell_s",
            self.recovery_dwell_s,
            self.recovery_dwell_s < self.episode_s,
            &format!("< episode_s ({})", self.episode_s),
        )?;
        Ok(())
    }
}

/// `Ok` when `holds`, else the error naming `field`, `value` and `requirement`.
fn require(
    field: &'static str,
    value: f64,
    holds: bool,
    requirement: &str,
) -> Result<(), ConfigError> {
    if holds {
        Ok(())
    } else {
        Err(ConfigError {
            field,
            value,
            requirement: requirement.to_string(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_are_valid_and_follow_the_spec() {
        let config = PolicyConfig::default();
        assert_eq!(config.validate(), Ok(()));
        assert_eq!(config.init_dwell_s, 1.0);
        assert_eq!(config.episode_s, 2.0);
        assert!((0.3..=0.7).contains(&config.descent_mps));
        assert!(config.recovery_dwell_s < config.episode_s);
        // The spec's injected 120 ms inference trips the limit.
        assert!(120.0 > config.inference_max_ms);
    }

    #[test]
    fn descent_outside_the_spec_range_is_rejected() {
        for bad in [0.29, 0.71, f64::NAN] {
            let config = PolicyConfig {
                descent_mps: bad,
                ..PolicyConfig::default()
            };
            let error = config.validate().unwrap_err();
            assert_eq!(error.field, "descent_mps");
            assert!(
                error.to_string().contains("is not in [0.3, 0.7]"),
                "{error}"
            );
        }
        let error = PolicyConfig {
            descent_mps: 0.9,
            ..PolicyConfig::default()
        }
        .validate()
        .unwrap_err();
        assert_eq!(
            error.to_string(),
            "supervisor.descent_mps: 0.9 is not in [0.3, 0.7]"
        );
    }

    #[test]
    fn recovery_dwell_must_be_shorter_than_the_episode() {
        let config = PolicyConfig {
            recovery_dwell_s: 2.0,
            ..PolicyConfig::default()
        };
        assert_eq!(
            config.validate().unwrap_err().to_string(),
            "supervisor.recovery_dwell_s: 2 is not < episode_s (2)"
        );
        // Disabling the episode rule (a mutation test's setting) stays valid.
        let config = PolicyConfig {
            episode_s: 1e9,
            ..PolicyConfig::default()
        };
        assert_eq!(config.validate(), Ok(()));
    }

    #[test]
    fn nonpositive_or_nonfinite_thresholds_are_rejected() {
        let error = PolicyConfig {
            gnss_max_age_s: 0.0,
            ..PolicyConfig::default()
        }
        .validate()
        .unwrap_err();
        assert_eq!(
            error.to_string(),
            "supervisor.gnss_max_age_s: 0 is not finite and > 0"
        );
        let error = PolicyConfig {
            max_speed_mps: f64::INFINITY,
            ..PolicyConfig::default()
        }
        .validate()
        .unwrap_err();
        assert_eq!(error.field, "max_speed_mps");
        let error = PolicyConfig {
            battery_floor: 1.0,
            ..PolicyConfig::default()
        }
        .validate()
        .unwrap_err();
        assert_eq!(error.field, "battery_floor");
        // No battery floor at all (a mutation test's setting) is valid.
        let config = PolicyConfig {
            battery_floor: 0.0,
            ..PolicyConfig::default()
        };
        assert_eq!(config.validate(), Ok(()));
    }
}
