//! The contract of a bundle (`contract.yaml`) and the checker that holds a running stack to it.
//!
//! - [`Contract`]: for every topic its type, role, frame (or TF frames), rate, QoS and the
//!   nodes that provide it; written by [`crate::gen`], read by `contract_check`.
//! - [`eval`]: pure evaluation, [`eval::Observations`] (what discovery and the subscriptions
//!   saw) in, one [`eval::Finding`] per check out.
//! - [`collect`]: the DDS side, which fills the observations from a live graph.

pub mod collect;
pub mod eval;

use std::path::Path;

use fieldproof_robots::Qos;
use serde::{Deserialize, Serialize};

/// Whether the vehicle publishes or subscribes a contract topic.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    /// The vehicle (bridge, adapter, robot_state_publisher) publishes it.
    Publisher,
    /// The vehicle subscribes it (the drive command).
    Subscriber,
}

/// One transform a TF topic must carry.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub struct TfFrame {
    /// Parent frame (`header.frame_id` of the transform).
    pub parent: String,
    /// Child frame.
    pub child: String,
}

/// The contract of one topic.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TopicContract {
    /// Fully qualified topic name (`/ugv1/imu/data`).
    pub topic: String,
    /// ROS type (`sensor_msgs/msg/Imu`).
    #[serde(rename = "type")]
    pub ros_type: String,
    /// Publisher or subscriber.
    pub role: Role,
    /// The `header.frame_id` every message carries.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub frame_id: Option<String>,
    /// The `child_frame_id` every message carries (odometry).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub child_frame_id: Option<String>,
    /// For a TF topic: every transform that must arrive.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub frames: Vec<TfFrame>,
    /// Rate over the header stamps (per transform for TF).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rate_hz: Option<f64>,
    /// Reliability, durability and depth.
    pub qos: Qos,
    /// The bundle's nodes that provide it (publish it, or for the command subscribe it).
    pub provided_by: Vec<String>,
    /// Where it comes from in the manifest (`sensors[0].outputs[0]`, `power.battery`, ...).
    pub source: String,
}

impl TopicContract {
    /// True for the TF topics (checked per transform).
    pub fn is_tf(&self) -> bool {
        self.ros_type == "tf2_msgs/msg/TFMessage"
    }

    /// True for the rendering sensors' types, which take `--render-tolerance`.
    pub fn is_rendering(&self) -> bool {
        matches!(
            self.ros_type.as_str(),
            "sensor_msgs/msg/Image"
                | "sensor_msgs/msg/CameraInfo"
                | "sensor_msgs/msg/PointCloud2"
                | "sensor_msgs/msg/LaserScan"
        )
    }
}

/// A bundle's contract: the ROS interface the vehicle must show.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Contract {
    /// The robot (manifest `name`).
    pub robot: String,
    /// The vehicle's namespace (`/ugv1`, or empty).
    pub namespace: String,
    /// The frame prefix (empty: none).
    pub frame_prefix: String,
    /// Every topic, in manifest order.
    pub topics: Vec<TopicContract>,
    /// The hidden `_bridge` topics between the bridge and the adapters.
    pub hidden_topics: Vec<String>,
    /// Topics allowed besides the contract's (`/parameter_events`, `/rosout`).
    pub allowed_extra_topics: Vec<String>,
}

/// Why a contract could not be read.
#[derive(Debug, thiserror::Error)]
pub enum ContractError {
    /// The file could not be read.
    #[error("{path}: cannot read: {source}")]
    Read {
        /// The file.
        path: String,
        /// The OS error.
        source: std::io::Error,
    },
    /// Not a contract.
    #[error("{path}: {reason}")]
    Format {
        /// The file.
        path: String,
        /// The parser's message.
        reason: String,
    },
}

impl Contract {
    /// Reads `contract.yaml` from a bundle directory (or the file itself).
    pub fn load(bundle: &Path) -> Result<Self, ContractError> {
        let file = if bundle.is_dir() {
            bundle.join("contract.yaml")
        } else {
            bundle.to_path_buf()
        };
        let path = file.display().to_string();
        let text = std::fs::read_to_string(&file).map_err(|source| ContractError::Read {
            path: path.clone(),
            source,
        })?;
        Self::from_yaml(&path, &text)
    }

    /// Parses contract YAML; `path` names it in errors.
    pub fn from_yaml(path: &str, text: &str) -> Result<Self, ContractError> {
        serde_yaml::from_str(text).map_err(|e| ContractError::Format {
            path: path.to_string(),
            reason: e.to_string(),
        })
    }

    /// The topic of that name.
    pub fn topic(&self, name: &str) -> Option<&TopicContract> {
        self.topics.iter().find(|t| t.topic == name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rendering_and_tf_types_are_recognised() {
        let mut t = TopicContract {
            topic: "/scan".into(),
            ros_type: "sensor_msgs/msg/LaserScan".into(),
            role: Role::Publisher,
            frame_id: Some("lidar_link".into()),
            child_frame_id: None,
            frames: vec![],
            rate_hz: Some(10.0),
            qos: Qos::default(),
            provided_by: vec!["scan_relay".into()],
            source: "sensors[2].outputs[0]".into(),
        };
        assert!(t.is_rendering());
        assert!(!t.is_tf());
        t.ros_type = "tf2_msgs/msg/TFMessage".into();
        assert!(t.is_tf());
        assert!(!t.is_rendering());
    }

    #[test]
    fn a_broken_contract_file_names_itself() {
        let e = Contract::from_yaml("x/contract.yaml", "robot: [").unwrap_err();
        assert!(e.to_string().starts_with("x/contract.yaml: "), "{e}");
        let e = Contract::from_yaml("c.yaml", "robot: r\n").unwrap_err();
        assert!(e.to_string().contains("missing field"), "{e}");
    }
}
