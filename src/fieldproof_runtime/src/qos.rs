//! QoS profiles with ROS 2's own defaults (rmw `qos_profiles.h`, rclcpp `qos.hpp`).
//!
//! ros2-client's defaults differ from ROS 2's (its publishers keep last 1, its
//! subscriptions are best effort), so every profile here sets everything explicitly.

use std::time::Duration;

use ros2_client::qos::{self as rq, QosProfile, WhenFull};
use thiserror::Error;

use crate::value::ParamValue;

/// Reliability policy.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reliability {
    /// `reliable`
    Reliable,
    /// `best_effort`
    BestEffort,
}

/// Durability policy.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Durability {
    /// `volatile`
    Volatile,
    /// `transient_local` (latched)
    TransientLocal,
}

/// A QoS profile: reliability, durability, history depth (keep last N, or keep all),
/// and optional deadline/lifespan.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct QosSpec {
    /// Reliability.
    pub reliability: Reliability,
    /// Durability.
    pub durability: Durability,
    /// Keep-last depth; `None` = keep all.
    pub depth: Option<usize>,
    /// Deadline (`None` = infinite).
    pub deadline: Option<Duration>,
    /// Lifespan (`None` = infinite).
    pub lifespan: Option<Duration>,
}

impl QosSpec {
    /// Same profile with another reliability.
    pub fn reliability(mut self, r: Reliability) -> QosSpec {
        self.reliability = r;
        self
    }
    /// Same profile with best-effort reliability.
    pub fn best_effort(self) -> QosSpec {
        self.reliability(Reliability::BestEffort)
    }
    /// Same profile with reliable reliability.
    pub fn reliable(self) -> QosSpec {
        self.reliability(Reliability::Reliable)
    }
    /// Same profile with another durability.
    pub fn durability(mut self, d: Durability) -> QosSpec {
        self.durability = d;
        self
    }
    /// Same profile with transient-local durability.
    pub fn transient_local(self) -> QosSpec {
        self.durability(Durability::TransientLocal)
    }
    /// Same profile with keep-last `depth`.
    pub fn keep_last(mut self, depth: usize) -> QosSpec {
        self.depth = Some(depth);
        self
    }
    /// Same profile with keep-all history.
    pub fn keep_all(mut self) -> QosSpec {
        self.depth = None;
        self
    }
    /// Same profile with a lifespan.
    pub fn lifespan(mut self, d: Duration) -> QosSpec {
        self.lifespan = Some(d);
        self
    }
    /// Same profile with a deadline.
    pub fn deadline(mut self, d: Duration) -> QosSpec {
        self.deadline = Some(d);
        self
    }

    /// The ros2-client profile, every field set.
    pub fn to_profile(&self) -> QosProfile {
        QosProfile {
            reliability: match self.reliability {
                Reliability::Reliable => rq::Reliability::Reliable {
                    when_full: WhenFull::DEFAULT,
                },
                Reliability::BestEffort => rq::Reliability::BestEffort,
            },
            durability: match self.durability {
                Durability::Volatile => rq::Durability::Volatile,
                Durability::TransientLocal => rq::Durability::TransientLocal,
            },
            history: match self.depth {
                Some(depth) => rq::History::KeepLast { depth },
                None => rq::History::KeepAll,
            },
            deadline: self.deadline,
            lifespan: self.lifespan,
            liveliness: rq::Liveliness::Automatic,
            liveliness_lease: None,
        }
    }

    /// Builds the profile from the values of the `qos_reliability`, `qos_durability` and
    /// `qos_depth` parameters (see [`crate::NodeBuilder::qos_params`]).
    pub fn from_param_values(
        reliability: &ParamValue,
        durability: &ParamValue,
        depth: &ParamValue,
    ) -> Result<QosSpec, QosError> {
        let bad = |param: &'static str, v: &ParamValue| QosError {
            param,
            value: v.to_string(),
        };
        let r = match reliability {
            ParamValue::String(s) if s == "reliable" => Reliability::Reliable,
            ParamValue::String(s) if s == "best_effort" => Reliability::BestEffort,
            v => return Err(bad("qos_reliability", v)),
        };
        let d = match durability {
            ParamValue::String(s) if s == "volatile" => Durability::Volatile,
            ParamValue::String(s) if s == "transient_local" => Durability::TransientLocal,
            v => return Err(bad("qos_durability", v)),
        };
        let depth = match depth {
            ParamValue::Integer(n) if *n >= 1 => *n as usize,
            v => return Err(bad("qos_depth", v)),
        };
        Ok(default().reliability(r).durability(d).keep_last(depth))
    }

    /// Parameter-style names: (`reliable`|`best_effort`, `volatile`|`transient_local`, depth).
    pub fn param_strings(&self) -> (&'static str, &'static str, i64) {
        (
            match self.reliability {
                Reliability::Reliable => "reliable",
                Reliability::BestEffort => "best_effort",
            },
            match self.durability {
                Durability::Volatile => "volatile",
                Durability::TransientLocal => "transient_local",
            },
            self.depth.unwrap_or(1000) as i64,
        )
    }
}

/// A QoS parameter with a value that is not allowed.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("parameter '{param}': invalid value {value} (qos_reliability: reliable|best_effort, qos_durability: volatile|transient_local, qos_depth: integer >= 1)")]
pub struct QosError {
    /// The parameter.
    pub param: &'static str,
    /// Its value.
    pub value: String,
}

const fn spec(r: Reliability, d: Durability, depth: usize) -> QosSpec {
    QosSpec {
        reliability: r,
        durability: d,
        depth: Some(depth),
        deadline: None,
        lifespan: None,
    }
}

/// `rmw_qos_profile_default`: reliable, volatile, keep last 10.
pub const fn default() -> QosSpec {
    spec(Reliability::Reliable, Durability::Volatile, 10)
}
/// The sensor-data profile with parameter-style names (`reliable`, else best effort;
/// `transient_local`, else volatile; depth at least 1): a subscription whose QoS a node takes
/// from `*_qos_*` string parameters, such as a heartbeat reader's (`link_monitor`,
/// `mission_supervisor`), whose `one_of` choices keep other names out.
pub fn sensor_data_named(reliability: &str, durability: &str, depth: i64) -> QosSpec {
    let reliability = match reliability {
        "reliable" => Reliability::Reliable,
        _ => Reliability::BestEffort,
    };
    let durability = match durability {
        "transient_local" => Durability::TransientLocal,
        _ => Durability::Volatile,
    };
    sensor_data()
        .reliability(reliability)
        .durability(durability)
        .keep_last(depth.max(1) as usize)
}

/// `rmw_qos_profile_sensor_data`: best effort, volatile, keep last 5.
pub const fn sensor_data() -> QosSpec {
    spec(Reliability::BestEffort, Durability::Volatile, 5)
}
/// Latched (`transient_local`): reliable, transient local, keep last 1.
pub const fn latched() -> QosSpec {
    spec(Reliability::Reliable, Durability::TransientLocal, 1)
}
/// `rmw_qos_profile_services_default`: reliable, volatile, keep last 10.
pub const fn services() -> QosSpec {
    spec(Reliability::Reliable, Durability::Volatile, 10)
}
/// `rmw_qos_profile_parameters`: reliable, volatile, keep last 1000.
pub const fn parameters() -> QosSpec {
    spec(Reliability::Reliable, Durability::Volatile, 1000)
}
/// `rmw_qos_profile_parameter_events`: reliable, volatile, keep last 1000.
pub const fn parameter_events() -> QosSpec {
    spec(Reliability::Reliable, Durability::Volatile, 1000)
}
/// rclcpp `ClockQoS`: best effort, volatile, keep last 1 (sensor data with depth 1).
pub const fn clock() -> QosSpec {
    spec(Reliability::BestEffort, Durability::Volatile, 1)
}
/// `rcl_qos_profile_rosout_default`: reliable, transient local, keep last 1000, lifespan 10 s.
pub const fn rosout() -> QosSpec {
    QosSpec {
        lifespan: Some(Duration::from_secs(10)),
        ..spec(Reliability::Reliable, Durability::TransientLocal, 1000)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sensor_data_named_reads_parameter_names_and_keeps_depth_positive() {
        let q = sensor_data_named("reliable", "transient_local", 5);
        assert_eq!(q.param_strings(), ("reliable", "transient_local", 5));
        let q = sensor_data_named("best_effort", "volatile", 0);
        assert_eq!(q.param_strings(), ("best_effort", "volatile", 1));
    }

    #[test]
    fn ros2_defaults() {
        let p = default().to_profile();
        assert!(matches!(p.reliability, rq::Reliability::Reliable { .. }));
        assert_eq!(p.durability, rq::Durability::Volatile);
        assert_eq!(p.history, rq::History::KeepLast { depth: 10 });
        let s = sensor_data().to_profile();
        assert_eq!(s.reliability, rq::Reliability::BestEffort);
        assert_eq!(s.history, rq::History::KeepLast { depth: 5 });
        assert_eq!(
            latched().to_profile().durability,
            rq::Durability::TransientLocal
        );
        assert_eq!(parameters().depth, Some(1000));
        assert_eq!(
            clock().to_profile().history,
            rq::History::KeepLast { depth: 1 }
        );
        assert_eq!(clock().reliability, Reliability::BestEffort);
        assert_eq!(
            default().keep_all().to_profile().history,
            rq::History::KeepAll
        );
    }

    #[test]
    fn from_params() {
        let s = |x: &str| ParamValue::String(x.into());
        let q = QosSpec::from_param_values(
            &s("best_effort"),
            &s("transient_local"),
            &ParamValue::Integer(3),
        )
        .unwrap();
        assert_eq!(q, default().best_effort().transient_local().keep_last(3));
        assert_eq!(q.param_strings(), ("best_effort", "transient_local", 3));
        let e =
            QosSpec::from_param_values(&s("sometimes"), &s("volatile"), &ParamValue::Integer(3))
                .unwrap_err();
        assert_eq!(e.param, "qos_reliability");
        let e = QosSpec::from_param_values(&s("reliable"), &s("volatile"), &ParamValue::Integer(0))
            .unwrap_err();
        assert_eq!(e.param, "qos_depth");
    }
}
