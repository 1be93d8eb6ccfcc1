//! The bundle generator (spec 004): a vehicle manifest in, a bridge bundle out.
//!
//! [`generate`] applies the rules to every interface of the manifest
//! ([`fieldproof_robots::Manifest::interfaces`]) and yields a [`Bundle`], the complete plan in
//! memory; [`Bundle::files`] renders it (`ros_gz_bridge.yaml`, `ros_gz_bridge_<frame>.yaml`,
//! `params.yaml`, `bridge.yaml`, `contract.yaml`, `bridge.launch.yaml`) and [`Bundle::write`]
//! puts the files in place atomically. Everything is validated before a file is written, so a
//! bad manifest or option leaves the output directory as it was. [`index::BundleIndex`] reads
//! a written bundle's injectors back (how a fault event finds its node).
//!
//! The rules (spec 004, "The rules"):
//! - names are fully qualified with the namespace on both sides (the ROS topic and the Gazebo
//!   topic); a ROS topic written with a leading slash is global (`/clock`);
//! - which adapter serves an interface, and so whether the simulator side uses the hidden
//!   `<ns>/_bridge/<topic>`, is [`fieldproof_robots::adapter_for`] / [`fieldproof_robots::is_hidden`],
//!   the functions the simulator uses too;
//! - QoS: bridged topics through rclcpp's `qos_overrides.<topic>.publisher.*` (or
//!   `.subscription.*`) parameters, adapter outputs through their `qos_*` parameters;
//! - relabelling: a directly bridged output whose `ros_frame_id` differs gets one more
//!   parameter_bridge instance per frame, with `override_frame_id`; an adapter relabels itself;
//! - the drive command goes vehicle -> `command_relay` -> hidden topic -> bridge;
//! - `power.battery` gets the `battery` node; `/clock` is bridged unless `--no-clock`;
//! - TF: a relative `drive.tf` gives `/<ns>/tf` and `/<ns>/tf_static` (robot_state_publisher is
//!   remapped to them); a global `/tf` keeps the shared tree.

pub mod index;
mod render;
mod write;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use fieldproof_robots::{
    adapter_for, Adapter, Durability, InterfaceSource, Manifest, Naming, Qos, Reliability,
    ResolvedInterface,
};
use serde_yaml::Value;

use crate::contract::{Contract, Role, TfFrame, TopicContract};

pub use render::BundleFiles;

/// The generator's options (the command line of `bridge_gen`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Options {
    /// ROS namespace of the vehicle (empty: none).
    pub namespace: String,
    /// Prefix of every frame (empty: none).
    pub frame_prefix: String,
    /// Do not bridge `/clock`.
    pub no_clock: bool,
    /// Do not run robot_state_publisher.
    pub no_robot_state_publisher: bool,
    /// Optional sensors to leave out.
    pub without: Vec<String>,
}

/// Why a bundle could not be generated or written.
#[derive(Debug, thiserror::Error)]
pub enum GenError {
    /// The manifest does not load, or `--without` names a sensor that cannot go.
    #[error("{0}")]
    Manifest(#[from] fieldproof_robots::Error),
    /// A command-line option is unusable.
    #[error("{option}: {value:?} {reason}")]
    Option {
        /// The option (`--namespace`).
        option: &'static str,
        /// Its value.
        value: String,
        /// What is wrong with it.
        reason: String,
    },
    /// The manifest is valid but breaks a bridge rule.
    #[error("{}: {path}: {reason}", file.display())]
    Rule {
        /// The manifest.
        file: PathBuf,
        /// The field path (`sensors[0].outputs[0].gz_type`).
        path: String,
        /// What is wrong, with the value.
        reason: String,
    },
    /// The output directory cannot take the bundle.
    #[error("{}: {reason}", dir.display())]
    OutDir {
        /// The directory.
        dir: PathBuf,
        /// Why.
        reason: String,
    },
    /// Writing failed.
    #[error("writing {}: {source}", path.display())]
    Io {
        /// The file or directory.
        path: PathBuf,
        /// The OS error.
        source: std::io::Error,
    },
}

impl GenError {
    /// The exit code `bridge_gen` returns: 2 for bad input, 1 for a failed write.
    pub fn exit_code(&self) -> u8 {
        match self {
            GenError::Io { .. } => 1,
            _ => 2,
        }
    }
}

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

/// ros_gz_bridge's Gazebo type for each ROS type the manifests use.
const GZ_TYPES: &[(&str, &[&str])] = &[
    ("geometry_msgs/msg/Twist", &["gz.msgs.Twist"]),
    (
        "nav_msgs/msg/Odometry",
        &["gz.msgs.Odometry", "gz.msgs.OdometryWithCovariance"],
    ),
    ("sensor_msgs/msg/JointState", &["gz.msgs.Model"]),
    ("tf2_msgs/msg/TFMessage", &["gz.msgs.Pose_V"]),
    ("std_msgs/msg/Bool", &["gz.msgs.Boolean"]),
    ("geometry_msgs/msg/PoseArray", &["gz.msgs.Pose_V"]),
    ("sensor_msgs/msg/Imu", &["gz.msgs.IMU"]),
    ("sensor_msgs/msg/NavSatFix", &["gz.msgs.NavSat"]),
    ("sensor_msgs/msg/LaserScan", &["gz.msgs.LaserScan"]),
    ("sensor_msgs/msg/Image", &["gz.msgs.Image"]),
    ("sensor_msgs/msg/CameraInfo", &["gz.msgs.CameraInfo"]),
    ("sensor_msgs/msg/PointCloud2", &["gz.msgs.PointCloudPacked"]),
    ("rosgraph_msgs/msg/Clock", &["gz.msgs.Clock"]),
];

/// Checks a namespace option: empty, or `/`-separated ROS name tokens, at most
/// [`fieldproof_runtime::names::MAX_NAMESPACE_LEN`] characters with its leading `/` (the
/// runtime's rule, which every adapter of the bundle applies when it starts).
fn check_namespace(ns: &str) -> Result<String, GenError> {
    let trimmed = ns.trim_matches('/');
    let bad = |reason: String| GenError::Option {
        option: "--namespace",
        value: ns.to_string(),
        reason,
    };
    let token_ok = |tok: &str| {
        tok.chars()
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
            && tok.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
    };
    if !(trimmed.is_empty() || trimmed.split('/').all(token_ok)) {
        return Err(bad(
            "is not a valid ROS namespace (tokens of letters, digits and _ separated by /, \
             not starting with a digit)"
                .into(),
        ));
    }
    let max = fieldproof_runtime::names::MAX_NAMESPACE_LEN;
    if trimmed.len() + 1 > max {
        return Err(bad(format!(
            "is {} characters long with its leading /: ROS 2 refuses namespaces over {max} \
             (RMW_NAMESPACE_MAX_LENGTH)",
            trimmed.len() + 1
        )));
    }
    Ok(trimmed.to_string())
}

fn check_frame_prefix(p: &str) -> Result<(), GenError> {
    let bad = |reason: &str| GenError::Option {
        option: "--frame-prefix",
        value: p.to_string(),
        reason: reason.to_string(),
    };
    if p.starts_with('/') {
        return Err(bad("must not start with a slash (tf2 frame ids have none)"));
    }
    if p.chars().any(|c| c.is_whitespace() || c.is_control()) {
        return Err(bad("must not contain whitespace"));
    }
    Ok(())
}

/// Node names: first token of the topic plus the adapter's suffix (`imu_adapter`,
/// `gps_adapter`, `joint_states_throttle`, `scan_relay`), the whole topic on a clash.
fn adapter_node_name(topic: &str, adapter: Adapter, taken: &BTreeSet<String>) -> String {
    if adapter == Adapter::CommandRelay {
        return "command_relay".into();
    }
    let suffix = match adapter {
        Adapter::ImuAdapter | Adapter::NavsatAdapter => "adapter",
        Adapter::Throttle => "throttle",
        _ => "relay",
    };
    let rel = topic.trim_start_matches('/');
    let first = rel.split('/').next().unwrap_or(rel);
    let short = format!("{first}_{suffix}");
    if !taken.contains(&short) {
        return short;
    }
    format!("{}_{suffix}", rel.replace('/', "_"))
}

/// `camera_optical_link` -> `ros_gz_bridge_camera_optical_link` (characters a node name
/// cannot hold become `_`).
fn frame_bridge_name(frame: &str) -> String {
    let clean: String = frame
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect();
    format!("ros_gz_bridge_{clean}")
}

fn qos_params(params: &mut BTreeMap<String, Value>, qos: &Qos) {
    params.insert(
        "qos_reliability".into(),
        render::reliability(qos.reliability).into(),
    );
    params.insert(
        "qos_durability".into(),
        render::durability(qos.durability).into(),
    );
    params.insert("qos_depth".into(), Value::from(qos.depth));
}

fn qos_overrides(params: &mut BTreeMap<String, Value>, topic: &str, side: &str, qos: &Qos) {
    let key = |policy: &str| format!("qos_overrides.{topic}.{side}.{policy}");
    params.insert(
        key("reliability"),
        render::reliability(qos.reliability).into(),
    );
    params.insert(key("durability"), render::durability(qos.durability).into());
    params.insert(key("history"), "keep_last".into());
    params.insert(key("depth"), Value::from(qos.depth));
}

fn absolute(p: &Path) -> PathBuf {
    std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf())
}

struct Gen {
    naming: Naming,
    file: PathBuf,
    main: BridgeInstance,
    frame_bridges: BTreeMap<String, BridgeInstance>,
    adapters: Vec<NodeSpec>,
    names: BTreeSet<String>,
    hidden: Vec<String>,
    topics: Vec<TopicContract>,
}

impl Gen {
    fn rule(&self, path: &str, reason: impl Into<String>) -> GenError {
        GenError::Rule {
            file: self.file.clone(),
            path: path.to_string(),
            reason: reason.into(),
        }
    }

    /// The Gazebo topic under the namespace (`/ugv1/model/ugv_ref/imu`).
    fn gz_topic(&self, gz: &str) -> String {
        let rel = gz.trim_start_matches('/');
        if self.naming.namespace.is_empty() {
            format!("/{rel}")
        } else {
            format!("/{}/{rel}", self.naming.namespace)
        }
    }

    fn interface(&mut self, i: &ResolvedInterface<'_>, tf: &TfTopics) -> Result<(), GenError> {
        let spec = i.spec;
        let ros_type = spec.ros_type.as_str();
        match GZ_TYPES.iter().find(|(r, _)| *r == ros_type) {
            None => {
                return Err(self.rule(
                    &format!("{}.ros_type", i.path),
                    format!("{ros_type} has no ros_gz_bridge mapping"),
                ))
            }
            Some((_, gz)) if !gz.contains(&spec.gz_type.as_str()) => {
                return Err(self.rule(
                    &format!("{}.gz_type", i.path),
                    format!(
                        "{} cannot be bridged to {ros_type} (ros_gz_bridge maps it from {})",
                        spec.gz_type,
                        gz.join(" or ")
                    ),
                ))
            }
            Some(_) => {}
        }
        let adapter = adapter_for(i);
        let is_tf = i.source == InterfaceSource::Tf;
        let topic = if is_tf {
            tf.tf.clone()
        } else {
            self.naming.topic(&spec.ros_topic)
        };
        let frame = i.ros_frame_id.map(|f| self.naming.frame(f));
        let child = spec.child_frame_id.as_deref().map(|f| self.naming.frame(f));
        if is_tf && spec.ros_frame_id.is_some() {
            return Err(self.rule(
                &format!("{}.ros_frame_id", i.path),
                "a TF interface cannot be relabelled (its frames are the transforms')",
            ));
        }
        if let (Some(a), Some(g)) = (adapter, spec.gz_rate) {
            if a != Adapter::Throttle {
                return Err(self.rule(
                    &format!("{}.gz_rate", i.path),
                    format!(
                        "{g}: the {} serves this output and does not throttle",
                        a.executable()
                    ),
                ));
            }
        }
        if adapter == Some(Adapter::Throttle) && i.relabelled() {
            return Err(self.rule(
                &format!("{}.ros_frame_id", i.path),
                format!(
                    "{}: the throttle does not relabel frames",
                    i.ros_frame_id.unwrap_or_default()
                ),
            ));
        }
        if let Some(a) = adapter {
            if !fieldproof_msgs::is_known_type(ros_type) {
                return Err(self.rule(
                    &format!("{}.ros_type", i.path),
                    format!(
                        "{ros_type}: the {} cannot carry it (no such type in fieldproof_msgs)",
                        a.executable()
                    ),
                ));
            }
        }
        let sim_topic = match adapter {
            Some(_) => self.naming.hidden_topic(&spec.ros_topic),
            None => topic.clone(),
        };
        let direction = match i.role {
            fieldproof_robots::Role::Subscriber => Direction::RosToGz,
            fieldproof_robots::Role::Publisher => Direction::GzToRos,
        };
        // Hidden topics (bridge <-> adapter) are reliable and volatile, the convention the
        // simulator keeps too; the contract QoS is the adapter's side facing the vehicle.
        let hidden_qos = Qos {
            reliability: Reliability::Reliable,
            durability: Durability::Volatile,
            depth: spec.qos.depth,
        };
        let entry = BridgeEntry {
            ros_topic_name: sim_topic.clone(),
            gz_topic_name: self.gz_topic(&spec.gz_topic),
            ros_type_name: ros_type.to_string(),
            gz_type_name: spec.gz_type.clone(),
            direction,
            qos: if adapter.is_some() {
                hidden_qos
            } else {
                spec.qos
            },
        };
        let mut provided_by = Vec::new();
        match adapter {
            None if i.relabelled() => {
                let f = frame.clone().unwrap_or_default();
                let bare = i.ros_frame_id.unwrap_or_default().to_string();
                let name = frame_bridge_name(&bare);
                if let Some((other, _)) = self
                    .frame_bridges
                    .iter()
                    .find(|(f, b)| **f != bare && b.name == name)
                {
                    return Err(self.rule(
                        &format!("{}.ros_frame_id", i.path),
                        format!(
                            "{bare}: its relabelling instance would be named {name}, like the one of {other}"
                        ),
                    ));
                }
                let b = self
                    .frame_bridges
                    .entry(bare.clone())
                    .or_insert_with(|| BridgeInstance {
                        name: name.clone(),
                        file_name: format!("{name}.yaml"),
                        override_frame_id: Some(f),
                        entries: Vec::new(),
                    });
                b.entries.push(entry);
                provided_by.push(name);
            }
            None => {
                self.main.entries.push(entry);
                provided_by.push(self.main.name.clone());
            }
            Some(a) => {
                self.main.entries.push(entry);
                self.hidden.push(sim_topic.clone());
                let name = adapter_node_name(&spec.ros_topic, a, &self.names);
                if !self.names.insert(name.clone()) {
                    return Err(self.rule(
                        &format!("{}.ros_topic", i.path),
                        format!(
                            "{}: a second {} would be named {name}",
                            spec.ros_topic,
                            a.executable()
                        ),
                    ));
                }
                let (input, output) = match direction {
                    Direction::GzToRos => (sim_topic.clone(), topic.clone()),
                    Direction::RosToGz => (topic.clone(), sim_topic.clone()),
                };
                let mut params = BTreeMap::new();
                params.insert("input".to_string(), Value::from(input));
                params.insert("output".to_string(), Value::from(output));
                params.insert("use_sim_time".to_string(), Value::from(true));
                // qos_* is the output's QoS, input_qos_reliability the input's: for the
                // command relay the output is the hidden topic and the input the contract's.
                let (out_qos, in_reliability) = match direction {
                    Direction::GzToRos => (spec.qos, Reliability::Reliable),
                    Direction::RosToGz => (hidden_qos, spec.qos.reliability),
                };
                qos_params(&mut params, &out_qos);
                params.insert(
                    "input_qos_reliability".into(),
                    render::reliability(in_reliability).into(),
                );
                let noise = &i.noise;
                let frame_param = Value::from(frame.clone().unwrap_or_default());
                match a {
                    Adapter::ImuAdapter => {
                        params.insert("ros_frame_id".into(), frame_param);
                        for (k, v) in [
                            ("gyro_stddev_radps", noise.gyro_stddev_radps),
                            ("accel_stddev_mps2", noise.accel_stddev_mps2),
                            ("orientation_stddev_rad", noise.orientation_stddev_rad),
                        ] {
                            if let Some(v) = v {
                                params.insert(k.into(), Value::from(v));
                            }
                        }
                    }
                    Adapter::NavsatAdapter => {
                        params.insert("ros_frame_id".into(), frame_param);
                        for (k, v) in [
                            ("horizontal_stddev_m", noise.horizontal_stddev_m),
                            ("vertical_stddev_m", noise.vertical_stddev_m),
                        ] {
                            if let Some(v) = v {
                                params.insert(k.into(), Value::from(v));
                            }
                        }
                    }
                    Adapter::Throttle => {
                        params.insert("ros_type".into(), Value::from(ros_type));
                        params.insert("rate_hz".into(), Value::from(i.rate_hz.unwrap_or_default()));
                        params.insert(
                            "gz_rate".into(),
                            Value::from(spec.gz_rate.unwrap_or_default()),
                        );
                    }
                    Adapter::Relay => {
                        params.insert("ros_type".into(), Value::from(ros_type));
                        params.insert("ros_frame_id".into(), frame_param);
                    }
                    Adapter::CommandRelay => {}
                }
                let serves = match i.source {
                    InterfaceSource::Sensor { .. } => Serves::Sensor {
                        sensor: i.sensor.map(|s| s.name.clone()).unwrap_or_default(),
                        output: spec.name.clone().unwrap_or_default(),
                    },
                    _ => Serves::Drive(i.path.trim_start_matches("drive.").to_string()),
                };
                self.adapters.push(NodeSpec {
                    name: name.clone(),
                    kind: NodeKind::Adapter(a),
                    params,
                    remaps: Vec::new(),
                    injector: Some(InjectorSpec {
                        topic: topic.clone(),
                        hidden: Some(sim_topic),
                        serves,
                    }),
                });
                provided_by.push(name);
            }
        }
        let role = match i.role {
            fieldproof_robots::Role::Subscriber => Role::Subscriber,
            fieldproof_robots::Role::Publisher => Role::Publisher,
        };
        let (frame_id, child_frame_id, frames) = if is_tf {
            let frames = match (frame, child) {
                (Some(parent), Some(child)) => vec![TfFrame { parent, child }],
                _ => Vec::new(),
            };
            (None, None, frames)
        } else {
            (frame, child, Vec::new())
        };
        self.topics.push(TopicContract {
            topic,
            ros_type: ros_type.to_string(),
            role,
            frame_id,
            child_frame_id,
            frames,
            rate_hz: i.rate_hz,
            qos: spec.qos,
            provided_by,
            source: i.path.clone(),
        });
        Ok(())
    }
}

/// Generates the bundle for `manifest` with `options`, to be written to `out` (made absolute
/// against the working directory). Nothing is written.
pub fn generate(manifest: &Manifest, options: &Options, out: &Path) -> Result<Bundle, GenError> {
    let namespace = check_namespace(&options.namespace)?;
    check_frame_prefix(&options.frame_prefix)?;
    let mut without: Vec<&str> = Vec::new();
    for w in &options.without {
        for name in w.split(',').map(str::trim).filter(|s| !s.is_empty()) {
            if !without.contains(&name) {
                without.push(name);
            }
        }
    }
    let m = manifest.without(&without)?;
    let naming = Naming::new(&namespace, &options.frame_prefix);
    let tf_rel = m
        .drive
        .tf
        .as_ref()
        .map(|t| t.ros_topic.clone())
        .unwrap_or_else(|| "tf".into());
    let tf = TfTopics {
        tf: naming.topic(&tf_rel),
        tf_static: naming.tf_static_topic(&tf_rel),
    };
    let dir = absolute(out);
    let mut g = Gen {
        naming: naming.clone(),
        file: m.source.clone(),
        main: BridgeInstance {
            name: "ros_gz_bridge".into(),
            file_name: "ros_gz_bridge.yaml".into(),
            override_frame_id: None,
            entries: Vec::new(),
        },
        frame_bridges: BTreeMap::new(),
        adapters: Vec::new(),
        names: BTreeSet::from([
            "ros_gz_bridge".to_string(),
            "robot_state_publisher".to_string(),
            "battery".to_string(),
        ]),
        hidden: Vec::new(),
        topics: Vec::new(),
    };
    for i in m.interfaces() {
        g.interface(&i, &tf)?;
    }
    // The battery.
    let mut battery_node = None;
    if let Some(b) = m.power.as_ref().and_then(|p| p.battery.as_ref()) {
        let topic = naming.topic(&b.ros_topic);
        let frame = naming.frame(&b.frame_id);
        let mut params = BTreeMap::new();
        params.insert("output".to_string(), Value::from(topic.clone()));
        params.insert("use_sim_time".to_string(), Value::from(true));
        params.insert("rate_hz".to_string(), Value::from(b.rate_hz));
        params.insert("full_voltage_v".to_string(), Value::from(b.full_voltage_v));
        params.insert(
            "empty_voltage_v".to_string(),
            Value::from(b.empty_voltage_v),
        );
        params.insert("capacity_ah".to_string(), Value::from(b.capacity_ah));
        params.insert("frame_id".to_string(), Value::from(frame.clone()));
        qos_params(&mut params, &b.qos);
        battery_node = Some(NodeSpec {
            name: "battery".into(),
            kind: NodeKind::Battery,
            params,
            remaps: Vec::new(),
            injector: Some(InjectorSpec {
                topic: topic.clone(),
                hidden: None,
                serves: Serves::Battery,
            }),
        });
        g.topics.push(TopicContract {
            topic,
            ros_type: "sensor_msgs/msg/BatteryState".into(),
            role: Role::Publisher,
            frame_id: Some(frame),
            child_frame_id: None,
            frames: Vec::new(),
            rate_hz: Some(b.rate_hz),
            qos: b.qos,
            provided_by: vec!["battery".into()],
            source: "power.battery".into(),
        });
    }
    // The clock.
    if !options.no_clock {
        let qos = Qos::default();
        g.main.entries.push(BridgeEntry {
            ros_topic_name: "/clock".into(),
            gz_topic_name: "/clock".into(),
            ros_type_name: "rosgraph_msgs/msg/Clock".into(),
            gz_type_name: "gz.msgs.Clock".into(),
            direction: Direction::GzToRos,
            qos,
        });
        g.topics.push(TopicContract {
            topic: "/clock".into(),
            ros_type: "rosgraph_msgs/msg/Clock".into(),
            role: Role::Publisher,
            frame_id: None,
            child_frame_id: None,
            frames: Vec::new(),
            rate_hz: None,
            qos,
            provided_by: vec!["ros_gz_bridge".into()],
            source: "clock".into(),
        });
    }
    // robot_state_publisher.
    let mut description = None;
    let mut rsp = None;
    if let (false, Some(d), Some(xacro)) = (
        options.no_robot_state_publisher,
        m.description.as_ref(),
        m.xacro_path(),
    ) {
        let mut args = d.xacro_args.clone();
        args.insert("namespace".into(), namespace.clone());
        args.insert("frame_prefix".into(), options.frame_prefix.clone());
        description = Some(DescriptionSpec {
            xacro: absolute(&xacro),
            args,
        });
        let mut params = BTreeMap::new();
        params.insert("use_sim_time".to_string(), Value::from(true));
        params.insert(
            "frame_prefix".to_string(),
            Value::from(options.frame_prefix.clone()),
        );
        let mut remaps = Vec::new();
        if tf.tf != "/tf" {
            remaps.push(("/tf".to_string(), tf.tf.clone()));
            remaps.push(("/tf_static".to_string(), tf.tf_static.clone()));
        }
        rsp = Some(NodeSpec {
            name: "robot_state_publisher".into(),
            kind: NodeKind::RobotStatePublisher,
            params,
            remaps,
            injector: None,
        });
        if let Some(t) = g.topics.iter_mut().find(|t| t.topic == tf.tf) {
            t.provided_by.push("robot_state_publisher".into());
        }
        g.topics.push(TopicContract {
            topic: tf.tf_static.clone(),
            ros_type: "tf2_msgs/msg/TFMessage".into(),
            role: Role::Publisher,
            frame_id: None,
            child_frame_id: None,
            frames: d
                .frames
                .iter()
                .map(|f| TfFrame {
                    parent: naming.frame(&f.parent),
                    child: naming.frame(&f.child),
                })
                .collect(),
            rate_hz: None,
            qos: Qos::latched(),
            provided_by: vec!["robot_state_publisher".into()],
            source: "description.frames".into(),
        });
        g.topics.push(TopicContract {
            topic: naming.robot_description_topic(),
            ros_type: "std_msgs/msg/String".into(),
            role: Role::Publisher,
            frame_id: None,
            child_frame_id: None,
            frames: Vec::new(),
            rate_hz: None,
            qos: Qos::latched(),
            provided_by: vec!["robot_state_publisher".into()],
            source: "description".into(),
        });
    }
    // Bridge instances and their nodes.
    let mut bridges = vec![g.main.clone()];
    bridges.extend(g.frame_bridges.values().cloned());
    let mut nodes = Vec::new();
    for b in &bridges {
        let mut params = BTreeMap::new();
        params.insert(
            "config_file".to_string(),
            Value::from(dir.join(&b.file_name).display().to_string()),
        );
        params.insert("use_sim_time".to_string(), Value::from(true));
        params.insert("expand_gz_topic_names".to_string(), Value::from(false));
        if let Some(f) = &b.override_frame_id {
            params.insert("override_frame_id".to_string(), Value::from(f.clone()));
        }
        for e in &b.entries {
            let side = match e.direction {
                Direction::GzToRos => "publisher",
                Direction::RosToGz => "subscription",
            };
            qos_overrides(&mut params, &e.ros_topic_name, side, &e.qos);
        }
        nodes.push(NodeSpec {
            name: b.name.clone(),
            kind: NodeKind::ParameterBridge,
            params,
            remaps: Vec::new(),
            injector: None,
        });
    }
    nodes.extend(rsp);
    nodes.extend(g.adapters.iter().cloned());
    nodes.extend(battery_node);
    let contract = Contract {
        robot: m.name.clone(),
        namespace: if namespace.is_empty() {
            String::new()
        } else {
            format!("/{namespace}")
        },
        frame_prefix: options.frame_prefix.clone(),
        topics: g.topics.clone(),
        hidden_topics: g.hidden.clone(),
        allowed_extra_topics: vec!["/parameter_events".into(), "/rosout".into()],
    };
    Ok(Bundle {
        dir,
        manifest: absolute(&manifest.source),
        robot: m.name.clone(),
        options: Options {
            namespace,
            without: without.iter().map(|s| s.to_string()).collect(),
            ..options.clone()
        },
        naming,
        tf,
        bridges,
        nodes,
        hidden_topics: g.hidden,
        description,
        contract,
    })
}

/// Loads a manifest by its absolute path, so that every path the bundle records (the
/// manifest, the description's xacro) is absolute, as spec 004 asks.
pub fn load_manifest(path: &Path) -> Result<Manifest, GenError> {
    Ok(Manifest::load(absolute(path))?)
}

/// Loads the manifest, generates the bundle and writes it to `out` (see [`Bundle::write`]).
pub fn run(manifest: &Path, options: &Options, out: &Path) -> Result<Bundle, GenError> {
    let m = load_manifest(manifest)?;
    let bundle = generate(&m, options, out)?;
    bundle.write()?;
    Ok(bundle)
}

#[cfg(test)]
mod tests;
