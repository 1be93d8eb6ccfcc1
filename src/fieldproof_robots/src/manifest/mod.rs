//! The vehicle manifest (`robots/<name>/robot.yaml`): drive, sensors, power, description,
//! runtime. Every ROS interface a vehicle has is an [`Interface`]; the bridge generator and
//! the simulator read the flattened, resolved list from [`Manifest::interfaces`].
//!
//! The module is split by concern: [`Manifest`] and its loading here, the vehicle's body and
//! drive (`body`), ROS interfaces and their QoS (`interface`), sensors (`sensor`), power
//! (`power`), robot description (`description`), run-time expectations (`runtime`), and
//! validation (`validate`, with the per-field checks in `checks`).

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::error::{Error, FieldPath};
use crate::load;

mod body;
mod checks;
mod description;
mod interface;
mod power;
mod runtime;
mod sensor;
mod validate;

pub use body::*;
pub use description::*;
pub use interface::*;
pub use power::*;
pub use runtime::*;
pub use sensor::*;

/// Longest manifest `name`: it becomes a Gazebo model name inside topic names
/// (`/model/<name>/odom`) and a directory name (`<name>_bridge`), so it must leave room for
/// a namespace within ROS 2's 245-character limit.
pub const MAX_NAME_LEN: usize = 64;
/// Widest camera image, in pixels.
pub const MAX_CAMERA_WIDTH: u32 = 4096;
/// Tallest camera image, in pixels.
pub const MAX_CAMERA_HEIGHT: u32 = 4096;
/// Most rays in one lidar scan.
pub const MAX_LIDAR_SAMPLES: u32 = 16_384;
/// Fastest rate of any sensor, topic or Gazebo publisher (Gazebo's physics step, 1 kHz,
/// is the fastest a simulated source publishes: `gz_rate: 1000` for joint states).
pub const MAX_RATE_HZ: f64 = 1000.0;
/// Deepest QoS history: the range of the adapters' `qos_depth` parameter.
pub const MAX_QOS_DEPTH: u32 = 100_000;

/// A vehicle manifest, loaded and validated.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Manifest {
    /// The model's name (`ugv_ref`); also the Gazebo model name in `gz_topic`s.
    pub name: String,
    /// What kind of vehicle this is.
    pub kind: VehicleKind,
    /// One line saying what the vehicle is.
    #[serde(default)]
    pub summary: Option<String>,
    /// Mass, payload and collision footprint.
    pub body: Body,
    /// How the vehicle moves and what its drive system publishes.
    pub drive: Drive,
    /// The sensors, each with its ROS outputs.
    #[serde(default)]
    pub sensors: Vec<Sensor>,
    /// Power system (the synthetic battery).
    #[serde(default)]
    pub power: Option<Power>,
    /// Robot description: xacro and the frames robot_state_publisher publishes.
    #[serde(default)]
    pub description: Option<Description>,
    /// What the vehicle's software expects at run time (radio link heartbeat).
    #[serde(default)]
    pub runtime: Option<Runtime>,
    /// Where the manifest was loaded from (the leaf of its `extends` chain).
    #[serde(skip)]
    pub source: PathBuf,
    /// The `extends` chain, leaf first (just `source` without `extends`).
    #[serde(skip)]
    pub chain: Vec<PathBuf>,
}

impl Manifest {
    /// Loads a manifest, resolving its `extends` chain, then validates it.
    pub fn load(path: impl AsRef<Path>) -> Result<Self, Error> {
        let path = path.as_ref();
        let (value, chain) = load::load_with_extends(path)?;
        let mut m: Manifest = load::typed(path, value)?;
        m.source = path.to_path_buf();
        m.chain = chain;
        m.validate()?;
        Ok(m)
    }

    /// Parses and validates a manifest from YAML text (no `extends`); `name` is used in
    /// errors and to resolve the description path.
    pub fn from_yaml(name: impl AsRef<Path>, text: &str) -> Result<Self, Error> {
        let name = name.as_ref();
        let mut value = load::parse_yaml(name, text)?;
        load::resolve_paths(&mut value, name.parent().unwrap_or(Path::new(".")));
        if let Some(m) = value.as_mapping_mut() {
            if m.contains_key("extends") {
                return Err(Error::Field {
                    file: name.to_path_buf(),
                    path: FieldPath::root().key("extends"),
                    message: "extends needs a manifest loaded from a file".into(),
                });
            }
        }
        let mut m: Manifest = load::typed(name, value)?;
        m.source = name.to_path_buf();
        m.chain = vec![name.to_path_buf()];
        m.validate()?;
        Ok(m)
    }

    /// The directory the manifest's relative paths are taken from.
    pub fn base_dir(&self) -> &Path {
        self.source.parent().unwrap_or(Path::new("."))
    }

    /// The path of the description's xacro (`description.xacro` is resolved at load time
    /// against the directory of the manifest that declares it).
    pub fn xacro_path(&self) -> Option<PathBuf> {
        self.description.as_ref().map(|d| PathBuf::from(&d.xacro))
    }

    /// The sensor of that name.
    pub fn sensor(&self, name: &str) -> Option<&Sensor> {
        self.sensors.iter().find(|s| s.name == name)
    }

    /// The optional sensors' names.
    pub fn optional_sensors(&self) -> Vec<&str> {
        self.sensors
            .iter()
            .filter(|s| s.optional)
            .map(|s| s.name.as_str())
            .collect()
    }

    /// A copy without the given optional sensors (`--without`): their outputs and frames
    /// go, and the xacro argument of the same name becomes `false`.
    pub fn without(&self, names: &[&str]) -> Result<Manifest, Error> {
        let mut m = self.clone();
        for name in names {
            let Some(i) = m.sensors.iter().position(|s| s.name == *name) else {
                return Err(Error::Field {
                    file: self.source.clone(),
                    path: FieldPath::root().key("sensors"),
                    message: format!(
                        "no sensor named {name} (optional sensors: {})",
                        self.optional_sensors().join(", ")
                    ),
                });
            };
            if !m.sensors[i].optional {
                return Err(Error::Field {
                    file: self.source.clone(),
                    path: FieldPath::root().key("sensors").index(i).key("optional"),
                    message: format!("sensor {name} is not optional, it cannot be left out"),
                });
            }
            m.sensors.remove(i);
            if let Some(d) = m.description.as_mut() {
                d.frames.retain(|f| f.sensor.as_deref() != Some(*name));
                d.xacro_args.insert(name.to_string(), "false".into());
            }
        }
        Ok(m)
    }

    /// Every interface, drive first then sensor outputs, with defaults applied.
    pub fn interfaces(&self) -> Vec<ResolvedInterface<'_>> {
        let mut out = Vec::new();
        let d = &self.drive;
        let drive_items: [(&str, InterfaceSource, Option<&Interface>); 6] = [
            ("command", InterfaceSource::Command, Some(&d.command)),
            ("odometry", InterfaceSource::Odometry, Some(&d.odometry)),
            (
                "joint_states",
                InterfaceSource::JointStates,
                d.joint_states.as_ref(),
            ),
            ("tf", InterfaceSource::Tf, d.tf.as_ref()),
            ("landed", InterfaceSource::Landed, d.landed.as_ref()),
            ("pads", InterfaceSource::Pads, d.pads.as_ref()),
        ];
        for (field, source, spec) in drive_items {
            let Some(spec) = spec else { continue };
            out.push(ResolvedInterface {
                path: format!("drive.{field}"),
                source,
                spec,
                sensor: None,
                role: if source == InterfaceSource::Command {
                    Role::Subscriber
                } else {
                    Role::Publisher
                },
                frame_id: spec.frame_id.as_deref(),
                ros_frame_id: spec.ros_frame_id.as_deref().or(spec.frame_id.as_deref()),
                rate_hz: spec.rate_hz,
                noise: spec.noise.unwrap_or_default(),
                optional: false,
            });
        }
        for (si, s) in self.sensors.iter().enumerate() {
            for (oi, o) in s.outputs.iter().enumerate() {
                let frame = o.frame_id.as_deref().unwrap_or(&s.frame_id);
                out.push(ResolvedInterface {
                    path: format!("sensors[{si}].outputs[{oi}]"),
                    source: InterfaceSource::Sensor {
                        sensor: si,
                        output: oi,
                    },
                    spec: o,
                    sensor: Some(s),
                    role: Role::Publisher,
                    frame_id: Some(frame),
                    ros_frame_id: Some(o.ros_frame_id.as_deref().unwrap_or(frame)),
                    rate_hz: o.rate_hz.or(Some(s.rate_hz)),
                    noise: o.noise.unwrap_or_default().or(&s.noise),
                    optional: s.optional,
                });
            }
        }
        out
    }
}

#[cfg(test)]
mod tests;
