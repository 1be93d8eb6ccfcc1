//! The per-interface builder: applies the rules to one interface at a time and collects the
//! bridge entries, adapter nodes, hidden topics and contract topics.

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;

use fieldproof_robots::{
    adapter_for, Adapter, Durability, InterfaceSource, Naming, Qos, Reliability, ResolvedInterface,
};
use serde_yaml::Value;

use super::render;
use super::rules::{adapter_node_name, frame_bridge_name, qos_params, GZ_TYPES};
use super::{
    BridgeEntry, BridgeInstance, Direction, GenError, InjectorSpec, NodeKind, NodeSpec, Serves,
    TfTopics,
};
use crate::contract::{Role, TfFrame, TopicContract};

pub(super) struct Gen {
    pub(super) naming: Naming,
    pub(super) file: PathBuf,
    pub(super) main: BridgeInstance,
    pub(super) frame_bridges: BTreeMap<String, BridgeInstance>,
    pub(super) adapters: Vec<NodeSpec>,
    pub(super) names: BTreeSet<String>,
    pub(super) hidden: Vec<String>,
    pub(super) topics: Vec<TopicContract>,
}

impl Gen {
    pub(super) fn rule(&self, path: &str, reason: impl Into<String>) -> GenError {
        GenError::Rule {
            file: self.file.clone(),
            path: path.to_string(),
            reason: reason.into(),
        }
    }

    /// The Gazebo topic under the namespace (`/ugv1/model/ugv_ref/imu`).
    pub(super) fn gz_topic(&self, gz: &str) -> String {
        let rel = gz.trim_start_matches('/');
        if self.naming.namespace.is_empty() {
            format!("/{rel}")
        } else {
            format!("/{}/{rel}", self.naming.namespace)
        }
    }

    pub(super) fn interface(
        &mut self,
        i: &ResolvedInterface<'_>,
        tf: &TfTopics,
    ) -> Result<(), GenError> {
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
