//! Run-time expectations of the vehicle's software: the radio link and its heartbeat.

use serde::{Deserialize, Serialize};

use super::{Durability, Qos, Reliability};

/// Run-time expectations of the vehicle's software.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Runtime {
    /// The radio link to the ground station.
    #[serde(default)]
    pub link: Option<Link>,
}

/// What the vehicle expects from its ground station and does without it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Link {
    /// The heartbeat the ground station sends (`std_msgs/msg/Header`).
    #[serde(default)]
    pub heartbeat: Option<Heartbeat>,
    /// Time without a heartbeat after which the link counts as lost (simulation time).
    #[serde(default = "default_link_timeout")]
    pub timeout_s: f64,
    /// What the failsafe does once the link is lost.
    #[serde(default)]
    pub loss_action: LossAction,
    /// The documented loss-of-link behaviour, in words.
    #[serde(default)]
    pub loss_behaviour: Option<String>,
}

fn default_link_timeout() -> f64 {
    2.0
}

/// The ground station heartbeat.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Heartbeat {
    /// Topic, relative to the vehicle's namespace (`gcs/heartbeat`).
    pub topic: String,
    /// Heartbeat rate.
    pub rate_hz: f64,
    /// QoS (default best effort, volatile, depth 1).
    #[serde(default = "heartbeat_qos")]
    pub qos: Qos,
}

fn heartbeat_qos() -> Qos {
    Heartbeat::default_qos()
}

impl Heartbeat {
    /// The heartbeat's QoS when the manifest names none: best effort, volatile, depth 1.
    pub fn default_qos() -> Qos {
        Qos {
            reliability: Reliability::BestEffort,
            durability: Durability::Volatile,
            depth: 1,
        }
    }
}

/// The failsafe action on loss of link.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LossAction {
    /// Zero velocity until the link is back.
    #[default]
    Stop,
    /// Hold position (multirotor hover).
    Hold,
    /// Land where it is.
    Land,
    /// Return to the launch point.
    ReturnHome,
    /// Carry on.
    Continue,
}

impl LossAction {
    /// The name this file and link_monitor's `loss_action` parameter use.
    pub fn name(&self) -> &'static str {
        match self {
            LossAction::Stop => "stop",
            LossAction::Hold => "hold",
            LossAction::Land => "land",
            LossAction::ReturnHome => "return_home",
            LossAction::Continue => "continue",
        }
    }
}
