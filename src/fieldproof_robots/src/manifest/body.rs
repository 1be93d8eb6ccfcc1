//! What the vehicle is and how it moves: kind, body, drive system and its limits.

use serde::{Deserialize, Serialize};

use super::Interface;

/// The kind of vehicle, which selects the simulator's motion model.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum VehicleKind {
    /// A wheeled ground vehicle.
    Ugv,
    /// A multirotor aircraft.
    Multirotor,
    /// A moving platform carrying landing pads.
    Carrier,
}

/// Mass and footprint.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Body {
    /// Empty mass.
    pub mass_kg: f64,
    /// Payload carried at spawn.
    #[serde(default)]
    pub payload_kg: f64,
    /// Largest payload the vehicle may carry.
    pub max_payload_kg: f64,
    /// Radius of the circular collision footprint.
    pub radius_m: f64,
    /// Height of the body (for the lidar plane and landing).
    #[serde(default = "default_height")]
    pub height_m: f64,
}

fn default_height() -> f64 {
    0.3
}

/// The drive system: one motion model and its interfaces.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Drive {
    /// The motion model.
    #[serde(rename = "type")]
    pub kind: DriveKind,
    /// Velocity command the vehicle subscribes to (`geometry_msgs/msg/Twist`).
    pub command: Interface,
    /// Wheel / platform odometry.
    pub odometry: Interface,
    /// Joint states (wheel joints), if the drive has joints.
    #[serde(default)]
    pub joint_states: Option<Interface>,
    /// The odom -> base_link transform as `tf2_msgs/msg/TFMessage`.
    #[serde(default)]
    pub tf: Option<Interface>,
    /// Landed/airborne state of a multirotor (`std_msgs/msg/Bool`, true when landed).
    #[serde(default)]
    pub landed: Option<Interface>,
    /// Landing pad poses of a carrier (`geometry_msgs/msg/PoseArray`, world frame).
    #[serde(default)]
    pub pads: Option<Interface>,
    /// Speed and acceleration limits.
    pub limits: Limits,
    /// Geometry of a differential drive (`type: diff_drive`).
    #[serde(default)]
    pub diff_drive: Option<DiffDrive>,
    /// Parameters of a multirotor (`type: multirotor`).
    #[serde(default)]
    pub multirotor: Option<Multirotor>,
    /// The deck of a carrier (`type: carrier`).
    #[serde(default)]
    pub carrier: Option<Carrier>,
}

/// The motion model of a drive.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DriveKind {
    /// Two driven wheel sets (Gazebo's DiffDrive system).
    DiffDrive,
    /// Velocity-controlled multirotor (Gazebo's MulticopterVelocityControl).
    Multirotor,
    /// Velocity-controlled platform with landing pads.
    Carrier,
}

/// Speed and acceleration limits of a drive.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Limits {
    /// Largest forward (horizontal) speed.
    pub max_linear_mps: f64,
    /// Largest reverse speed (default: `max_linear_mps`).
    #[serde(default)]
    pub max_reverse_mps: Option<f64>,
    /// Largest yaw rate.
    pub max_angular_radps: f64,
    /// Largest linear acceleration (unloaded).
    pub max_linear_accel_mps2: f64,
    /// Largest linear deceleration (braking, unloaded).
    pub max_linear_decel_mps2: f64,
    /// Largest yaw acceleration.
    pub max_angular_accel_radps2: f64,
    /// Largest climb / descent rate (multirotor).
    #[serde(default)]
    pub max_vertical_mps: Option<f64>,
}

/// Differential drive geometry.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DiffDrive {
    /// Distance between the left and right wheels.
    pub wheel_separation_m: f64,
    /// Wheel radius.
    pub wheel_radius_m: f64,
    /// Joints of the left wheels (joint_states names).
    pub left_joints: Vec<String>,
    /// Joints of the right wheels.
    pub right_joints: Vec<String>,
}

/// Multirotor parameters.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Multirotor {
    /// Highest altitude above the world's ground the vehicle may reach.
    pub max_altitude_m: f64,
    /// Height of the vehicle's base above the surface it stands on when landed.
    #[serde(default)]
    pub landed_height_m: f64,
}

/// A carrier's deck and landing pads.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Carrier {
    /// Height of the deck above the ground (vehicles landed on a pad stand on it).
    pub deck_height_m: f64,
    /// The landing pads.
    pub pads: Vec<Pad>,
}

/// A landing pad on a carrier's deck.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Pad {
    /// Pad name (`pad_0`), also its frame name.
    pub name: String,
    /// Centre in the carrier's base_link frame (x, y).
    pub xy: [f64; 2],
    /// Pad radius.
    pub radius_m: f64,
}
