//! The power system (the synthetic battery).

use serde::{Deserialize, Serialize};

use super::Qos;

/// Power system.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Power {
    /// The synthetic battery the battery node publishes.
    #[serde(default)]
    pub battery: Option<Battery>,
}

/// A battery (published by the battery node as `sensor_msgs/msg/BatteryState`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Battery {
    /// ROS topic (default `battery_state`).
    #[serde(default = "default_battery_topic")]
    pub ros_topic: String,
    /// Publication rate.
    pub rate_hz: f64,
    /// Voltage when full.
    pub full_voltage_v: f64,
    /// Voltage when empty.
    pub empty_voltage_v: f64,
    /// Capacity.
    pub capacity_ah: f64,
    /// Frame of the battery state.
    pub frame_id: String,
    /// QoS of the topic.
    #[serde(default)]
    pub qos: Qos,
}

fn default_battery_topic() -> String {
    "battery_state".into()
}
