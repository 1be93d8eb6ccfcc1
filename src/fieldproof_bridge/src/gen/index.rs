//! Reading a written bundle's `bridge.yaml` back: how the scenario runner finds the node a
//! fault event sets (the bundle's injector of an interface).

use std::path::Path;

use serde::Deserialize;

/// What part of the manifest an injector serves, as bridge.yaml writes it.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ServesEntry {
    /// Sensor name (sensor outputs).
    #[serde(default)]
    pub sensor: Option<String>,
    /// Output name (sensor outputs).
    #[serde(default)]
    pub output: Option<String>,
    /// Drive interface (`command`, `odometry`, `joint_states`, ...).
    #[serde(default)]
    pub drive: Option<String>,
    /// The battery.
    #[serde(default)]
    pub battery: bool,
}

/// One injector of a bundle.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct InjectorEntry {
    /// Node name (`imu_adapter`).
    pub node: String,
    /// Fully qualified node name (`/ugv1/imu_adapter`), whose parameter services a fault sets.
    pub fqn: String,
    /// Node kind (`imu_adapter`, `relay`, `battery`, ...).
    pub kind: String,
    /// The contract topic it publishes (the command relay: subscribes).
    pub topic: String,
    /// The hidden topic on the simulator side.
    #[serde(default)]
    pub hidden_topic: Option<String>,
    /// What it serves.
    pub serves: ServesEntry,
    /// The fault parameters it takes.
    pub fault_parameters: Vec<String>,
}

/// One node the bundle's launch starts, as bridge.yaml lists it (what a container composes).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct NodeEntry {
    /// Node name (`imu_adapter`).
    pub name: String,
    /// Package of its executable (`fieldproof_bridge`, `ros_gz_bridge`).
    pub package: String,
    /// Its executable (`imu_adapter`, `relay`, `parameter_bridge`).
    pub executable: String,
    /// Started with `gz:=true` only (what the simulator stands in for).
    #[serde(default)]
    pub gz_only: bool,
    /// Its topic remaps, from → to.
    #[serde(default)]
    pub remap: std::collections::BTreeMap<String, String>,
}

#[derive(Debug, Deserialize)]
struct Doc {
    robot: String,
    namespace: String,
    #[serde(default)]
    nodes: Vec<NodeEntry>,
    injectors: Vec<InjectorEntry>,
}

/// The injectors of a written bundle.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BundleIndex {
    /// The robot.
    pub robot: String,
    /// The namespace (`/ugv1`, or empty).
    pub namespace: String,
    /// Every node the launch starts, launch order.
    pub nodes: Vec<NodeEntry>,
    /// Every injector, launch order.
    pub injectors: Vec<InjectorEntry>,
}

/// Why bridge.yaml could not be read.
#[derive(Debug, thiserror::Error)]
#[error("{path}: {reason}")]
pub struct IndexError {
    /// The file.
    pub path: String,
    /// What is wrong.
    pub reason: String,
}

impl BundleIndex {
    /// Reads `<bundle>/bridge.yaml`.
    pub fn load(bundle: &Path) -> Result<Self, IndexError> {
        let file = bundle.join("bridge.yaml");
        let path = file.display().to_string();
        let text = std::fs::read_to_string(&file).map_err(|e| IndexError {
            path: path.clone(),
            reason: e.to_string(),
        })?;
        Self::from_yaml(&path, &text)
    }

    /// Parses bridge.yaml text; `path` names it in errors.
    pub fn from_yaml(path: &str, text: &str) -> Result<Self, IndexError> {
        let d: Doc = serde_yaml::from_str(text).map_err(|e| IndexError {
            path: path.to_string(),
            reason: e.to_string(),
        })?;
        Ok(Self {
            robot: d.robot,
            namespace: d.namespace,
            nodes: d.nodes,
            injectors: d.injectors,
        })
    }

    /// The injector of a sensor (`imu`; with several outputs, `output` picks one, else the
    /// first).
    pub fn sensor(&self, sensor: &str, output: Option<&str>) -> Option<&InjectorEntry> {
        self.injectors.iter().find(|i| {
            i.serves.sensor.as_deref() == Some(sensor)
                && output.is_none_or(|o| i.serves.output.as_deref() == Some(o))
        })
    }

    /// The injector of a drive interface (`command` for `actuator.limit`, `odometry`, ...).
    pub fn drive(&self, interface: &str) -> Option<&InjectorEntry> {
        self.injectors
            .iter()
            .find(|i| i.serves.drive.as_deref() == Some(interface))
    }

    /// The battery node (`battery.drain`).
    pub fn battery(&self) -> Option<&InjectorEntry> {
        self.injectors.iter().find(|i| i.serves.battery)
    }

    /// The injector publishing a contract topic.
    pub fn by_topic(&self, topic: &str) -> Option<&InjectorEntry> {
        self.injectors.iter().find(|i| i.topic == topic)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gen::{generate, load_manifest, Options};

    #[test]
    fn a_generated_bundle_reads_back() {
        let path = std::path::absolute(
            Path::new(env!("CARGO_MANIFEST_DIR")).join("../../robots/ugv_ref/robot.yaml"),
        )
        .unwrap();
        let m = load_manifest(&path).unwrap();
        let o = Options {
            namespace: "ugv1".into(),
            ..Options::default()
        };
        let b = generate(&m, &o, Path::new("/tmp/x")).unwrap();
        let files = b.files();
        let text = &files.iter().find(|(f, _)| f == "bridge.yaml").unwrap().1;
        let idx = BundleIndex::from_yaml("bridge.yaml", text).unwrap();
        assert_eq!(idx.robot, "ugv_ref");
        assert_eq!(idx.namespace, "/ugv1");
        assert_eq!(idx.injectors.len(), 7);
        let imu_node = idx.nodes.iter().find(|n| n.name == "imu_adapter").unwrap();
        assert_eq!(
            (imu_node.package.as_str(), imu_node.executable.as_str()),
            ("fieldproof_bridge", "imu_adapter")
        );
        assert!(idx.nodes.iter().any(|n| n.gz_only));
        let imu = idx.sensor("imu", None).unwrap();
        assert_eq!(imu.fqn, "/ugv1/imu_adapter");
        assert_eq!(imu.hidden_topic.as_deref(), Some("/ugv1/_bridge/imu/data"));
        assert!(imu
            .fault_parameters
            .contains(&"gyro_bias_radps".to_string()));
        assert_eq!(idx.sensor("gnss", Some("fix")).unwrap().node, "gps_adapter");
        assert!(idx.sensor("gnss", Some("other")).is_none());
        assert!(
            idx.sensor("camera", None).is_none(),
            "the camera has no injector"
        );
        assert_eq!(idx.drive("command").unwrap().kind, "command_relay");
        assert_eq!(
            idx.drive("joint_states").unwrap().node,
            "joint_states_throttle"
        );
        assert_eq!(idx.battery().unwrap().fqn, "/ugv1/battery");
        assert_eq!(idx.by_topic("/ugv1/scan").unwrap().node, "scan_relay");
        let e = BundleIndex::from_yaml("b.yaml", "robot: x\n").unwrap_err();
        assert!(e.to_string().starts_with("b.yaml: "), "{e}");
    }
}
