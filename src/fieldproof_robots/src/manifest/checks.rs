//! Checks of single blocks and fields used by the validation: a sensor and its outputs,
//! an interface, QoS, noise figures, names, topics, rates and numbers.

use std::collections::BTreeSet;

use crate::error::{FieldPath, Issues};

use super::{
    Interface, Noise, Qos, Sensor, SensorKind, MAX_CAMERA_HEIGHT, MAX_CAMERA_WIDTH,
    MAX_LIDAR_SAMPLES, MAX_NAME_LEN, MAX_QOS_DEPTH, MAX_RATE_HZ,
};

pub(super) fn validate_sensor(is: &mut Issues, p: &FieldPath, s: &Sensor) {
    non_empty(is, &p.key("name"), &s.name);
    non_empty(is, &p.key("frame_id"), &s.frame_id);
    if s.remove {
        is.push(
            &p.key("remove"),
            "remove: true only drops an inherited item under extends",
        );
    }
    rate(is, &p.key("rate_hz"), s.rate_hz);
    noise(is, &p.key("noise"), &s.noise, s.kind);
    let kind = s.kind.as_str();
    for (field, present, for_kind) in [
        ("lidar", s.lidar.is_some(), SensorKind::Lidar),
        ("camera", s.camera.is_some(), SensorKind::Camera),
    ] {
        if s.kind == for_kind && !present {
            is.missing(p, field);
        } else if s.kind != for_kind && present {
            is.push(
                &p.key(field),
                format!("a sensor of type {kind} has no {field} block"),
            );
        }
    }
    if let Some(l) = &s.lidar {
        let lp = p.key("lidar");
        if !(1..=MAX_LIDAR_SAMPLES).contains(&l.samples) {
            is.push(
                &lp.key("samples"),
                format!("{} is not in [1, {MAX_LIDAR_SAMPLES}]", l.samples),
            );
        }
        if !(l.fov_deg > 0.0 && l.fov_deg <= 360.0) {
            is.push(
                &lp.key("fov_deg"),
                format!("{} is not in (0, 360]", l.fov_deg),
            );
        }
        non_negative(is, &lp.key("range_min_m"), l.range_min_m);
        if l.range_max_m <= l.range_min_m {
            is.push(
                &lp.key("range_max_m"),
                format!(
                    "{} must be above range_min_m ({})",
                    l.range_max_m, l.range_min_m
                ),
            );
        }
    }
    if let Some(c) = &s.camera {
        let cp = p.key("camera");
        for (field, v, max) in [
            ("width", c.width, MAX_CAMERA_WIDTH),
            ("height", c.height, MAX_CAMERA_HEIGHT),
        ] {
            if !(1..=max).contains(&v) {
                is.push(&cp.key(field), format!("{v} is not in [1, {max}] pixels"));
            }
        }
        if !["rgb8", "bgr8", "mono8"].contains(&c.encoding.as_str()) {
            is.push(
                &cp.key("encoding"),
                format!("\"{}\" is not one of rgb8, bgr8, mono8", c.encoding),
            );
        }
        if !(c.hfov_deg > 0.0 && c.hfov_deg < 180.0) {
            is.push(
                &cp.key("hfov_deg"),
                format!("{} is not in (0, 180)", c.hfov_deg),
            );
        }
        positive(is, &cp.key("near_m"), c.near_m);
        if c.far_m <= c.near_m {
            is.push(
                &cp.key("far_m"),
                format!("{} must be above near_m ({})", c.far_m, c.near_m),
            );
        }
    }
    if s.outputs.is_empty() {
        is.push(&p.key("outputs"), "a sensor needs at least one output");
    }
    let allowed = s.kind.outputs();
    let mut seen = BTreeSet::new();
    for (i, o) in s.outputs.iter().enumerate() {
        let op = p.key("outputs").index(i);
        interface(is, &op, o);
        let Some(name) = &o.name else {
            is.missing(&op, "name");
            continue;
        };
        if !seen.insert(name.as_str()) {
            is.push(&op.key("name"), format!("duplicate output {name}"));
        }
        match allowed.iter().find(|(n, _)| n == name) {
            None => is.push(
                &op.key("name"),
                format!(
                    "\"{name}\" is not one of {} (outputs of a {kind} sensor)",
                    allowed
                        .iter()
                        .map(|(n, _)| *n)
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            ),
            Some((_, ty)) if *ty != o.ros_type => is.push(
                &op.key("ros_type"),
                format!(
                    "the {name} output of a {kind} sensor carries {ty}, not {}",
                    o.ros_type
                ),
            ),
            Some(_) => {}
        }
        if let Some(n) = &o.noise {
            noise(is, &op.key("noise"), n, s.kind);
        }
    }
}

/// Checks common to every interface.
pub(super) fn interface(is: &mut Issues, p: &FieldPath, i: &Interface) {
    topic_name(is, &p.key("ros_topic"), &i.ros_topic);
    let parts: Vec<&str> = i.ros_type.split('/').collect();
    if parts.len() != 3 || parts[1] != "msg" || parts.iter().any(|s| s.is_empty()) {
        is.push(
            &p.key("ros_type"),
            format!(
                "\"{}\" is not a ROS type name (package/msg/Type)",
                i.ros_type
            ),
        );
    }
    non_empty(is, &p.key("gz_topic"), &i.gz_topic);
    if !i.gz_type.starts_with("gz.msgs.") {
        is.push(
            &p.key("gz_type"),
            format!("\"{}\" is not a gz.msgs type", i.gz_type),
        );
    }
    for (field, v) in [
        ("frame_id", &i.frame_id),
        ("child_frame_id", &i.child_frame_id),
        ("ros_frame_id", &i.ros_frame_id),
    ] {
        if let Some(v) = v {
            non_empty(is, &p.key(field), v);
        }
    }
    if let Some(r) = i.rate_hz {
        rate(is, &p.key("rate_hz"), r);
    }
    if let Some(g) = i.gz_rate {
        rate(is, &p.key("gz_rate"), g);
        match i.rate_hz {
            None => is.push(
                &p.key("gz_rate"),
                "needs rate_hz (the rate the throttle passes)",
            ),
            Some(r) if g < r => is.push(
                &p.key("gz_rate"),
                format!("{g} is below rate_hz ({r}): the throttle can only slow a topic down"),
            ),
            Some(_) => {}
        }
    }
    qos(is, &p.key("qos"), &i.qos);
    match i.fault_injector {
        Some(true)
            if !crate::bridge::INJECTABLE_TYPES.contains(&i.ros_type.as_str())
                && !crate::bridge::CAMERA_TYPES.contains(&i.ros_type.as_str()) =>
        {
            is.push(
                &p.key("fault_injector"),
                format!("the relay cannot serve {}", i.ros_type),
            )
        }
        Some(false) if !crate::bridge::INJECTABLE_TYPES.contains(&i.ros_type.as_str()) => is.push(
            &p.key("fault_injector"),
            format!(
                "{} is not served by the relay: its adapter (or none) follows from the type",
                i.ros_type
            ),
        ),
        _ => {}
    }
    if i.remove {
        is.push(
            &p.key("remove"),
            "remove: true only drops an inherited item under extends",
        );
    }
}

pub(super) fn qos(is: &mut Issues, p: &FieldPath, q: &Qos) {
    if q.depth == 0 {
        is.push(&p.key("depth"), "must be at least 1");
    } else if q.depth > MAX_QOS_DEPTH {
        is.push(
            &p.key("depth"),
            format!("{} is above the limit of {MAX_QOS_DEPTH}", q.depth),
        );
    }
}

pub(super) fn noise(is: &mut Issues, p: &FieldPath, n: &Noise, kind: SensorKind) {
    for (field, v) in n.set_fields() {
        if !kind.noise_fields().contains(&field) {
            is.push(
                &p.key(field),
                format!(
                    "not a noise figure of a sensor of type {} (those are {})",
                    kind.as_str(),
                    kind.noise_fields().join(", ")
                ),
            );
        }
        non_negative(is, &p.key(field), v);
    }
}

pub(super) fn topic_name(is: &mut Issues, p: &FieldPath, t: &str) {
    let body = t.strip_prefix('/').unwrap_or(t);
    let ok = !body.is_empty()
        && !body.ends_with('/')
        && !body.contains("//")
        && body.split('/').all(|tok| {
            tok.chars()
                .next()
                .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
                && tok.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        });
    if !ok {
        is.push(p, format!("\"{t}\" is not a valid ROS topic name"));
    }
}

/// The manifest's `name`: a ROS name token (it is the Gazebo model name in topic names
/// and names the default bundle directory, so no `/`, `.` or spaces).
pub(super) fn model_name(is: &mut Issues, p: &FieldPath, name: &str) {
    let token = name
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    if name.is_empty() {
        is.push(p, "must not be empty");
    } else if !token {
        is.push(
            p,
            format!(
                "{name:?} is not a ROS name token (letters, digits and _, not starting with a digit)"
            ),
        );
    } else if name.len() > MAX_NAME_LEN {
        is.push(
            p,
            format!(
                "is {} characters long, more than {MAX_NAME_LEN}",
                name.len()
            ),
        );
    }
}

/// A rate: positive and at most [`MAX_RATE_HZ`].
pub(super) fn rate(is: &mut Issues, p: &FieldPath, v: f64) {
    if !(v.is_finite() && v > 0.0) {
        is.push(p, format!("{v} must be a positive number"));
    } else if v > MAX_RATE_HZ {
        is.push(p, format!("{v} Hz is above the limit of {MAX_RATE_HZ} Hz"));
    }
}

pub(super) fn non_empty(is: &mut Issues, p: &FieldPath, v: &str) {
    if v.trim().is_empty() {
        is.push(p, "must not be empty");
    }
}

pub(super) fn finite(is: &mut Issues, p: &FieldPath, v: f64) {
    if !v.is_finite() {
        is.push(p, format!("{v} is not a finite number"));
    }
}

pub(super) fn positive(is: &mut Issues, p: &FieldPath, v: f64) {
    if !(v.is_finite() && v > 0.0) {
        is.push(p, format!("{v} must be a positive number"));
    }
}

pub(super) fn non_negative(is: &mut Issues, p: &FieldPath, v: f64) {
    if !(v.is_finite() && v >= 0.0) {
        is.push(p, format!("{v} must be zero or positive"));
    }
}
