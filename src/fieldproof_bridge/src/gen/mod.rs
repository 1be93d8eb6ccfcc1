//! The bundle generator: a vehicle manifest in, a bridge bundle out.
//!
//! [`generate`] applies the rules to every interface of the manifest
//! ([`fieldproof_robots::Manifest::interfaces`]) and yields a [`Bundle`], the complete plan in
//! memory; [`Bundle::files`] renders it (`ros_gz_bridge.yaml`, `ros_gz_bridge_<frame>.yaml`,
//! `params.yaml`, `bridge.yaml`, `contract.yaml`, `bridge.launch.yaml`) and [`Bundle::write`]
//! puts the files in place atomically. Everything is validated before a file is written, so a
//! bad manifest or option leaves the output directory as it was. [`index::BundleIndex`] reads
//! a written bundle's injectors back (how a fault event finds its node); [`launch_args`] resolves
//! the package launch file's `bundle:=` / `manifest:=` arguments to the bundle it includes.
//!
//! The rules:
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
//!
//! The module is split by concern: the options, errors and [`generate`] here; the plan's
//! types ([`Bundle`], [`NodeSpec`], ...) in `plan`; the naming, Gazebo-type and QoS rules in
//! `rules`; the per-interface builder in `builder`; rendering in `render`, writing in `write`.

mod builder;
pub mod index;
pub mod launch_args;
mod plan;
mod render;
mod rules;
mod write;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use fieldproof_robots::{Manifest, Naming, Qos};
use serde_yaml::Value;

use crate::contract::{Contract, Role, TfFrame, TopicContract};

pub use plan::*;
pub use render::BundleFiles;

use builder::Gen;
use rules::{absolute, check_frame_prefix, check_namespace, qos_overrides, qos_params};

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
/// manifest, the description's xacro) is absolute and the bundle works from any directory.
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
