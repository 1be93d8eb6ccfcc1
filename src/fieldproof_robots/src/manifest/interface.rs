//! ROS interfaces: topics with their Gazebo counterparts, QoS, and the resolved list
//! [`Manifest::interfaces`](super::Manifest::interfaces) returns.

use serde::{Deserialize, Serialize};

use super::{Noise, Sensor, SensorKind};

/// A ROS interface: one topic with the Gazebo topic ros_gz_bridge maps it from.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Interface {
    /// The output's name within its sensor (`image`, `scan`); drive interfaces have none.
    #[serde(default)]
    pub name: Option<String>,
    /// ROS topic: relative (`odom`, namespaced) or global (`/clock`).
    pub ros_topic: String,
    /// ROS type (`nav_msgs/msg/Odometry`).
    pub ros_type: String,
    /// Gazebo topic ros_gz_bridge maps.
    pub gz_topic: String,
    /// Gazebo type (`gz.msgs.Odometry`).
    pub gz_type: String,
    /// Frame the simulator stamps (default: the sensor's).
    #[serde(default)]
    pub frame_id: Option<String>,
    /// Child frame (odometry, TF).
    #[serde(default)]
    pub child_frame_id: Option<String>,
    /// Frame on the ROS side when it differs from `frame_id` (relabelled by the bridge).
    #[serde(default)]
    pub ros_frame_id: Option<String>,
    /// Rate of the ROS topic (default: the sensor's).
    #[serde(default)]
    pub rate_hz: Option<f64>,
    /// Rate Gazebo publishes at when faster than `rate_hz` (gets the throttle).
    #[serde(default)]
    pub gz_rate: Option<f64>,
    /// QoS of the ROS topic.
    #[serde(default)]
    pub qos: Qos,
    /// Noise figures (default: the sensor's).
    #[serde(default)]
    pub noise: Option<Noise>,
    /// `true` puts a fault injector (the relay) in front of an output the bridge rule would
    /// bridge directly (camera images, camera info, point clouds); `false` bridges a
    /// relay-served output directly. Default: the rule ([`crate::bridge::adapter_for`]).
    #[serde(default)]
    pub fault_injector: Option<bool>,
    /// Used by `extends` to drop an inherited output; never true after loading.
    #[serde(default, skip_serializing)]
    pub remove: bool,
}

/// QoS of a ROS topic; the defaults are what ros_gz_bridge publishes with.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Qos {
    /// Reliability (default reliable).
    #[serde(default)]
    pub reliability: Reliability,
    /// Durability (default volatile).
    #[serde(default)]
    pub durability: Durability,
    /// History depth, keep-last (default 10).
    #[serde(default = "default_depth")]
    pub depth: u32,
}

fn default_depth() -> u32 {
    10
}

impl Default for Qos {
    fn default() -> Self {
        Self {
            reliability: Reliability::Reliable,
            durability: Durability::Volatile,
            depth: 10,
        }
    }
}

impl Qos {
    /// Reliable, transient local, depth 1: latched state (tf_static, robot_description).
    pub fn latched() -> Self {
        Self {
            reliability: Reliability::Reliable,
            durability: Durability::TransientLocal,
            depth: 1,
        }
    }
}

/// QoS reliability.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Reliability {
    /// Retransmitted until acknowledged.
    #[default]
    Reliable,
    /// Sent once.
    BestEffort,
}

impl Reliability {
    /// The name ROS 2 parameters and this file use (`reliable`, `best_effort`).
    pub fn name(&self) -> &'static str {
        match self {
            Reliability::Reliable => "reliable",
            Reliability::BestEffort => "best_effort",
        }
    }
}

/// QoS durability.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Durability {
    /// Only samples published after a reader joins.
    #[default]
    Volatile,
    /// The writer's history is replayed to late joiners.
    TransientLocal,
}

impl Durability {
    /// The name ROS 2 parameters and this file use (`volatile`, `transient_local`).
    pub fn name(&self) -> &'static str {
        match self {
            Durability::Volatile => "volatile",
            Durability::TransientLocal => "transient_local",
        }
    }
}

/// Where an interface sits in the manifest.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InterfaceSource {
    /// `drive.command`.
    Command,
    /// `drive.odometry`.
    Odometry,
    /// `drive.joint_states`.
    JointStates,
    /// `drive.tf`.
    Tf,
    /// `drive.landed`.
    Landed,
    /// `drive.pads`.
    Pads,
    /// `sensors[sensor].outputs[output]`.
    Sensor {
        /// Index into `sensors`.
        sensor: usize,
        /// Index into that sensor's `outputs`.
        output: usize,
    },
}

/// Whether the vehicle publishes or subscribes the ROS topic.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// The simulated vehicle publishes it.
    Publisher,
    /// The simulated vehicle subscribes it (the drive command).
    Subscriber,
}

/// An interface with the sensor-level defaults applied: what the bridge generator and the
/// simulator work from.
#[derive(Debug, Clone, PartialEq)]
pub struct ResolvedInterface<'a> {
    /// Field path in the manifest (`drive.odometry`, `sensors[2].outputs[0]`).
    pub path: String,
    /// Where it sits.
    pub source: InterfaceSource,
    /// The raw interface.
    pub spec: &'a Interface,
    /// The sensor it belongs to.
    pub sensor: Option<&'a Sensor>,
    /// Publisher or subscriber.
    pub role: Role,
    /// The frame the simulator stamps.
    pub frame_id: Option<&'a str>,
    /// The frame on the ROS side (`ros_frame_id`, else `frame_id`).
    pub ros_frame_id: Option<&'a str>,
    /// ROS rate.
    pub rate_hz: Option<f64>,
    /// Noise, the output's figures over the sensor's.
    pub noise: Noise,
    /// True if it belongs to an optional sensor.
    pub optional: bool,
}

impl ResolvedInterface<'_> {
    /// True when the bridge relabels the frame (`ros_frame_id` differs from `frame_id`).
    pub fn relabelled(&self) -> bool {
        self.spec.ros_frame_id.is_some() && self.ros_frame_id != self.frame_id
    }

    /// The sensor type, for a sensor output.
    pub fn sensor_kind(&self) -> Option<SensorKind> {
        self.sensor.map(|s| s.kind)
    }
}
