//! The robot description: xacro, static frames and joints.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// The robot description robot_state_publisher works from.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Description {
    /// The xacro file, relative to the manifest that declares it (after loading: the path
    /// resolved against that manifest's directory).
    pub xacro: String,
    /// Arguments the xacro is rendered with (besides namespace and frame prefix).
    #[serde(default)]
    pub xacro_args: BTreeMap<String, String>,
    /// The fixed frames (published once on tf_static).
    #[serde(default)]
    pub frames: Vec<StaticFrame>,
    /// The moving joints (wheels), whose transforms follow joint_states.
    #[serde(default)]
    pub joints: Vec<Joint>,
}

/// A fixed transform parent -> child.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StaticFrame {
    /// Parent frame.
    pub parent: String,
    /// Child frame.
    pub child: String,
    /// Translation.
    #[serde(default)]
    pub xyz: [f64; 3],
    /// Rotation (roll, pitch, yaw in radians).
    #[serde(default)]
    pub rpy: [f64; 3],
    /// The optional sensor this frame belongs to (dropped with it by `--without`).
    #[serde(default)]
    pub sensor: Option<String>,
    /// Used by `extends` to drop an inherited frame.
    #[serde(default, skip_serializing)]
    pub remove: bool,
}

/// A continuous (wheel) joint.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Joint {
    /// Joint name (as in joint_states).
    pub name: String,
    /// Parent frame.
    pub parent: String,
    /// Child frame.
    pub child: String,
    /// Translation of the joint origin.
    #[serde(default)]
    pub xyz: [f64; 3],
    /// Rotation of the joint origin.
    #[serde(default)]
    pub rpy: [f64; 3],
    /// Rotation axis.
    pub axis: [f64; 3],
    /// Used by `extends` to drop an inherited joint.
    #[serde(default, skip_serializing)]
    pub remove: bool,
}
