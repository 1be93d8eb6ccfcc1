//! The bundle as a plan in memory: its nodes, bridge instances, injectors, TF topics and
//! description, before anything is rendered.

use std::collections::BTreeMap;
use std::path::PathBuf;

use fieldproof_robots::{Adapter, Naming, Qos};
use serde_yaml::Value;

use super::Options;
use crate::contract::Contract;

/// What a node is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NodeKind {
    /// `ros_gz_bridge parameter_bridge` (a gz machine only).
    ParameterBridge,
    /// `robot_state_publisher` (a gz machine only).
    RobotStatePublisher,
    /// One of the adapters between a hidden topic and a contract topic.
    Adapter(Adapter),
    /// The synthetic battery.
    Battery,
}

impl NodeKind {
    /// The package and executable `ros2 run` starts.
    pub fn package_and_executable(self) -> (&'static str, &'static str) {
        match self {
            NodeKind::ParameterBridge => ("ros_gz_bridge", "parameter_bridge"),
            NodeKind::RobotStatePublisher => ("robot_state_publisher", "robot_state_publisher"),
            NodeKind::Adapter(a) => ("fieldproof_bridge", a.executable()),
            NodeKind::Battery => ("fieldproof_bridge", "battery"),
        }
    }

    /// The kind as written in bridge.yaml.
    pub fn as_str(self) -> &'static str {
        match self {
            NodeKind::ParameterBridge => "parameter_bridge",
            NodeKind::RobotStatePublisher => "robot_state_publisher",
            NodeKind::Adapter(a) => a.executable(),
            NodeKind::Battery => "battery",
        }
    }

    /// True for the nodes the simulator stands in for (started with `gz:=true` only).
    pub fn gz_only(self) -> bool {
        matches!(
            self,
            NodeKind::ParameterBridge | NodeKind::RobotStatePublisher
        )
    }

    /// The fault parameters a scenario sets on this node (empty: not an injector).
    pub fn fault_parameters(self) -> &'static [&'static str] {
        match self {
            NodeKind::ParameterBridge | NodeKind::RobotStatePublisher => &[],
            NodeKind::Adapter(Adapter::ImuAdapter) => {
                &["dropout", "freeze", "gyro_bias_radps", "accel_bias_mps2"]
            }
            NodeKind::Adapter(Adapter::NavsatAdapter) => {
                &["dropout", "freeze", "deny", "offset_enu_m"]
            }
            NodeKind::Adapter(Adapter::CommandRelay) => {
                &["dropout", "freeze", "max_linear_mps", "max_angular_radps"]
            }
            NodeKind::Adapter(Adapter::Throttle | Adapter::Relay) => &["dropout", "freeze"],
            NodeKind::Battery => &[
                "dropout",
                "freeze",
                "percentage",
                "drain_to",
                "drain_duration_s",
            ],
        }
    }
}

/// What part of the manifest an injector serves (how a fault event finds its node).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Serves {
    /// `sensors[]` entry `sensor`, output `output`.
    Sensor {
        /// Sensor name (`imu`).
        sensor: String,
        /// Output name (`data`).
        output: String,
    },
    /// A drive interface (`command`, `odometry`, `joint_states`, ...).
    Drive(String),
    /// `power.battery`.
    Battery,
}

/// A node the launch starts.
#[derive(Debug, Clone, PartialEq)]
pub struct NodeSpec {
    /// Node name (`imu_adapter`).
    pub name: String,
    /// What it is.
    pub kind: NodeKind,
    /// Its parameters (params.yaml), sorted by name.
    pub params: BTreeMap<String, Value>,
    /// Topic remappings (`/tf` -> `/ugv1/tf`).
    pub remaps: Vec<(String, String)>,
    /// For an injector: the contract topic, the hidden input and what it serves.
    pub injector: Option<InjectorSpec>,
}

/// An injector's place in the bundle.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InjectorSpec {
    /// The contract topic it publishes (for the command relay: subscribes).
    pub topic: String,
    /// The hidden topic on the simulator side (none for the battery).
    pub hidden: Option<String>,
    /// The manifest part it serves.
    pub serves: Serves,
}

/// Data direction of a bridged topic.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Direction {
    /// Gazebo publishes, the bridge publishes on ROS.
    GzToRos,
    /// ROS publishes, the bridge forwards to Gazebo.
    RosToGz,
}

impl Direction {
    /// ros_gz_bridge's spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            Direction::GzToRos => "GZ_TO_ROS",
            Direction::RosToGz => "ROS_TO_GZ",
        }
    }
}

/// One entry of a parameter_bridge configuration.
#[derive(Debug, Clone, PartialEq)]
pub struct BridgeEntry {
    /// Fully qualified ROS topic (hidden when an adapter sits in between).
    pub ros_topic_name: String,
    /// Gazebo topic.
    pub gz_topic_name: String,
    /// ROS type.
    pub ros_type_name: String,
    /// Gazebo type.
    pub gz_type_name: String,
    /// Direction.
    pub direction: Direction,
    /// QoS of the ROS side.
    pub qos: Qos,
}

/// One parameter_bridge instance.
#[derive(Debug, Clone, PartialEq)]
pub struct BridgeInstance {
    /// Node name (`ros_gz_bridge`, `ros_gz_bridge_camera_optical_link`).
    pub name: String,
    /// Its configuration file in the bundle (`ros_gz_bridge.yaml`).
    pub file_name: String,
    /// The frame every message is relabelled to (per-frame instances).
    pub override_frame_id: Option<String>,
    /// The topics it bridges.
    pub entries: Vec<BridgeEntry>,
}

/// The description robot_state_publisher renders.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DescriptionSpec {
    /// Absolute path of the xacro.
    pub xacro: PathBuf,
    /// xacro arguments: the manifest's (`--without` sets a sensor's to false), `namespace`
    /// and `frame_prefix`.
    pub args: BTreeMap<String, String>,
}

/// The TF topics of the vehicle.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TfTopics {
    /// `/ugv1/tf` or `/tf`.
    pub tf: String,
    /// `/ugv1/tf_static` or `/tf_static`.
    pub tf_static: String,
}

/// A generated bundle, in memory.
#[derive(Debug, Clone, PartialEq)]
pub struct Bundle {
    /// Absolute output directory.
    pub dir: PathBuf,
    /// Absolute manifest path.
    pub manifest: PathBuf,
    /// The robot's name.
    pub robot: String,
    /// The options it was generated with.
    pub options: Options,
    /// Namespace and frame prefix.
    pub naming: Naming,
    /// The TF topics.
    pub tf: TfTopics,
    /// parameter_bridge instances, the main one first.
    pub bridges: Vec<BridgeInstance>,
    /// Every node, in launch order (bridges, robot_state_publisher, adapters, battery).
    pub nodes: Vec<NodeSpec>,
    /// The hidden `_bridge` topics.
    pub hidden_topics: Vec<String>,
    /// The description (with robot_state_publisher).
    pub description: Option<DescriptionSpec>,
    /// The contract.
    pub contract: Contract,
}

impl Bundle {
    /// The node of that name.
    pub fn node(&self, name: &str) -> Option<&NodeSpec> {
        self.nodes.iter().find(|n| n.name == name)
    }

    /// The bundle's namespace with a leading slash (`/ugv1`), or empty.
    pub fn namespace(&self) -> String {
        if self.naming.namespace.is_empty() {
            String::new()
        } else {
            format!("/{}", self.naming.namespace)
        }
    }

    /// A node's fully qualified name (`/ugv1/imu_adapter`; `imu_adapter` without namespace),
    /// as params.yaml keys it.
    pub fn node_key(&self, name: &str) -> String {
        if self.naming.namespace.is_empty() {
            name.to_string()
        } else {
            format!("/{}/{name}", self.naming.namespace)
        }
    }
}
