//! What a vehicle's failsafe (`link_monitor`) and the ground station are given, derived from
//! vehicle manifests: the one mapping that the scenario runner's plan and the bringup launch
//! files (through `link_params`) share, so a launched vehicle runs what a scenario runs.

use std::fmt::Write as _;

use fieldproof_robots::manifest::{Durability, Heartbeat, Link, Reliability};

use crate::heartbeat::HeartbeatSpec;

/// The heartbeat topic `link_monitor` listens on when the manifest names none.
pub const DEFAULT_HEARTBEAT_TOPIC: &str = "gcs/heartbeat";

/// One parameter's value, typed as the node declares it.
#[derive(Debug, Clone, PartialEq)]
pub enum Setting {
    /// A double parameter.
    Double(f64),
    /// An integer parameter.
    Integer(i64),
    /// A string parameter.
    Text(String),
    /// A string-array parameter.
    TextList(Vec<String>),
}

impl Setting {
    /// The value as `-p name:=value` takes it (a double keeps its decimal point).
    pub fn to_cli(&self) -> String {
        match self {
            Setting::Double(value) => format!("{value:?}"),
            Setting::Integer(value) => value.to_string(),
            Setting::Text(value) => value.clone(),
            Setting::TextList(items) => format!(
                "[{}]",
                items
                    .iter()
                    .map(|item| format!("'{item}'"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        }
    }

    fn to_yaml(&self) -> serde_yaml::Value {
        match self {
            Setting::Double(value) => serde_yaml::Value::from(*value),
            Setting::Integer(value) => serde_yaml::Value::from(*value),
            Setting::Text(value) => serde_yaml::Value::from(value.as_str()),
            Setting::TextList(items) => items
                .iter()
                .map(|item| serde_yaml::Value::from(item.as_str()))
                .collect(),
        }
    }
}

/// A node's parameters, in the order the node declares them.
pub type Settings = Vec<(&'static str, Setting)>;

/// `link_monitor`'s parameters for a vehicle whose manifest has this `runtime.link`, its
/// stack publishing velocity commands on `input` and its base listening on `output` (both
/// as the vehicle's nodes resolve them).
pub fn failsafe_parameters(link: &Link, input: &str, output: &str) -> Settings {
    let (topic, qos) = match &link.heartbeat {
        Some(heartbeat) => (heartbeat.topic.clone(), heartbeat.qos),
        None => (
            DEFAULT_HEARTBEAT_TOPIC.to_string(),
            Heartbeat::default_qos(),
        ),
    };
    vec![
        ("timeout_s", Setting::Double(link.timeout_s)),
        ("heartbeat_topic", Setting::Text(topic)),
        (
            "heartbeat_qos_reliability",
            Setting::Text(qos.reliability.name().into()),
        ),
        (
            "heartbeat_qos_durability",
            Setting::Text(qos.durability.name().into()),
        ),
        ("heartbeat_qos_depth", Setting::Integer(qos.depth.into())),
        ("loss_action", Setting::Text(link.loss_action.name().into())),
        ("input", Setting::Text(input.into())),
        ("output", Setting::Text(output.into())),
    ]
}

/// `topic` as ROS resolves it for a node under `topic_prefix` (`/ugv1`, or empty at the
/// root): an absolute topic stays as it is, a relative one goes under the prefix.
pub fn resolve_topic(topic_prefix: &str, topic: &str) -> String {
    match topic.strip_prefix('/') {
        Some(absolute) => format!("/{absolute}"),
        None => format!("{}/{topic}", topic_prefix.trim_end_matches('/')),
    }
}

/// The ground station's heartbeat for `vehicle`, whose nodes live under `topic_prefix`: the
/// manifest's topic resolved there, at its rate, with its QoS.
pub fn heartbeat_spec(vehicle: &str, topic_prefix: &str, heartbeat: &Heartbeat) -> HeartbeatSpec {
    HeartbeatSpec {
        vehicle: vehicle.to_string(),
        topic: resolve_topic(topic_prefix, &heartbeat.topic),
        rate_hz: heartbeat.rate_hz,
        reliable: heartbeat.qos.reliability == Reliability::Reliable,
        transient_local: heartbeat.qos.durability == Durability::TransientLocal,
        depth: heartbeat.qos.depth,
    }
}

/// The ground station's parameters for `vehicles` reached at `addresses` (their radio
/// addresses, in the same order), sending these heartbeats and writing its measurement
/// windows to `network_jsonl` (empty: nowhere).
pub fn ground_station_parameters(
    vehicles: &[String],
    addresses: &[String],
    heartbeats: &[HeartbeatSpec],
    network_jsonl: &str,
) -> Settings {
    vec![
        ("vehicles", Setting::TextList(vehicles.to_vec())),
        ("addresses", Setting::TextList(addresses.to_vec())),
        // Without entries (no vehicle's manifest asks for a heartbeat) the ground station
        // would fall back to heartbeat_topic at heartbeat_rate_hz for every vehicle: rate 0
        // keeps it silent, as the manifests say.
        ("heartbeat_rate_hz", Setting::Double(0.0)),
        (
            "heartbeats",
            Setting::TextList(heartbeats.iter().map(ToString::to_string).collect()),
        ),
        ("network_jsonl", Setting::Text(network_jsonl.into())),
    ]
}

/// A ROS 2 parameters file giving `settings` to whichever node loads it (`/**`), as
/// `--params-file` and a launch file's `param: [{from: ...}]` read it.
pub fn parameters_file(settings: &[(&str, Setting)]) -> String {
    let mut parameters = serde_yaml::Mapping::new();
    for (name, value) in settings {
        parameters.insert((*name).into(), value.to_yaml());
    }
    let mut node = serde_yaml::Mapping::new();
    node.insert("ros__parameters".into(), parameters.into());
    let mut file = serde_yaml::Mapping::new();
    file.insert("/**".into(), node.into());
    let mut out = String::new();
    let _ = writeln!(out, "# written by link_params from a vehicle manifest");
    out.push_str(&serde_yaml::to_string(&file).unwrap_or_default());
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use fieldproof_robots::manifest::{LossAction, Qos};

    fn link(heartbeat: Option<Heartbeat>) -> Link {
        Link {
            heartbeat,
            timeout_s: 2.0,
            loss_action: LossAction::Stop,
            loss_behaviour: None,
        }
    }

    #[test]
    fn the_failsafe_takes_the_manifests_heartbeat_and_timeout() {
        let heartbeat = Heartbeat {
            topic: "radio/hb".into(),
            rate_hz: 5.0,
            qos: Qos {
                reliability: Reliability::Reliable,
                durability: Durability::TransientLocal,
                depth: 3,
            },
        };
        let settings = failsafe_parameters(&link(Some(heartbeat)), "cmd_vel_nav", "cmd_vel");
        let get = |name: &str| settings.iter().find(|(n, _)| *n == name).unwrap().1.clone();
        assert_eq!(get("timeout_s").to_cli(), "2.0");
        assert_eq!(get("heartbeat_topic"), Setting::Text("radio/hb".into()));
        assert_eq!(get("heartbeat_qos_reliability").to_cli(), "reliable");
        assert_eq!(get("heartbeat_qos_durability").to_cli(), "transient_local");
        assert_eq!(get("heartbeat_qos_depth"), Setting::Integer(3));
        assert_eq!(get("loss_action").to_cli(), "stop");
        assert_eq!(get("input").to_cli(), "cmd_vel_nav");
        // Without a heartbeat in the manifest the failsafe listens on the default topic.
        let settings = failsafe_parameters(&link(None), "a", "b");
        assert_eq!(settings[1].1, Setting::Text(DEFAULT_HEARTBEAT_TOPIC.into()));
    }

    #[test]
    fn topics_resolve_as_ros_resolves_them() {
        assert_eq!(
            resolve_topic("/ugv1", "gcs/heartbeat"),
            "/ugv1/gcs/heartbeat"
        );
        assert_eq!(resolve_topic("/ugv1", "/fleet/hb"), "/fleet/hb");
        assert_eq!(resolve_topic("", "gcs/heartbeat"), "/gcs/heartbeat");
    }

    #[test]
    fn a_parameters_file_keeps_each_type() {
        let text = parameters_file(&[
            ("timeout_s", Setting::Double(2.0)),
            ("heartbeat_qos_depth", Setting::Integer(1)),
            ("loss_action", Setting::Text("stop".into())),
            ("answer", Setting::Text("yes".into())),
            (
                "vehicles",
                Setting::TextList(vec!["ugv1".into(), "ugv2".into()]),
            ),
        ]);
        let parsed: serde_yaml::Value = serde_yaml::from_str(&text).unwrap();
        let params = &parsed["/**"]["ros__parameters"];
        assert!(params["timeout_s"].is_f64(), "{text}");
        assert!(params["heartbeat_qos_depth"].is_i64(), "{text}");
        assert_eq!(params["loss_action"].as_str(), Some("stop"));
        // A string YAML would read as a boolean stays a string.
        assert_eq!(params["answer"].as_str(), Some("yes"), "{text}");
        assert_eq!(params["vehicles"][1].as_str(), Some("ugv2"));
        assert_eq!(
            Setting::TextList(vec!["a b".into(), "c".into()]).to_cli(),
            "['a b', 'c']"
        );
    }
}
