//! The generator's small rules: Gazebo types per ROS type, namespace and frame-prefix checks,
//! node names, and QoS as node parameters.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use fieldproof_robots::{Adapter, Qos};
use serde_yaml::Value;

use super::{render, GenError};

/// ros_gz_bridge's Gazebo type for each ROS type the manifests use.
pub(super) const GZ_TYPES: &[(&str, &[&str])] = &[
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
pub(super) fn check_namespace(ns: &str) -> Result<String, GenError> {
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

pub(super) fn check_frame_prefix(p: &str) -> Result<(), GenError> {
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
pub(super) fn adapter_node_name(topic: &str, adapter: Adapter, taken: &BTreeSet<String>) -> String {
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
pub(super) fn frame_bridge_name(frame: &str) -> String {
    let clean: String = frame
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect();
    format!("ros_gz_bridge_{clean}")
}

pub(super) fn qos_params(params: &mut BTreeMap<String, Value>, qos: &Qos) {
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

pub(super) fn qos_overrides(
    params: &mut BTreeMap<String, Value>,
    topic: &str,
    side: &str,
    qos: &Qos,
) {
    let key = |policy: &str| format!("qos_overrides.{topic}.{side}.{policy}");
    params.insert(
        key("reliability"),
        render::reliability(qos.reliability).into(),
    );
    params.insert(key("durability"), render::durability(qos.durability).into());
    params.insert(key("history"), "keep_last".into());
    params.insert(key("depth"), Value::from(qos.depth));
}

pub(super) fn absolute(p: &Path) -> PathBuf {
    std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf())
}
