//! Validation of a parsed manifest: the rules that span fields and blocks; every problem
//! is reported with the path of the field it concerns.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use crate::error::{Error, FieldPath, Issues};

use super::checks::{
    finite, interface, model_name, non_empty, non_negative, positive, qos, rate, topic_name,
    validate_sensor,
};
use super::{Description, DriveKind, Interface, LossAction, Manifest, VehicleKind};

impl Manifest {
    pub(super) fn validate(&self) -> Result<(), Error> {
        let mut is = Issues::new(&self.source);
        let root = FieldPath::root();
        model_name(&mut is, &root.key("name"), &self.name);
        self.validate_body(&mut is, &root.key("body"));
        self.validate_drive(&mut is, &root.key("drive"));
        let mut names = BTreeSet::new();
        for (i, s) in self.sensors.iter().enumerate() {
            let p = root.key("sensors").index(i);
            if !names.insert(s.name.as_str()) {
                is.push(&p.key("name"), format!("duplicate sensor name {}", s.name));
            }
            validate_sensor(&mut is, &p, s);
        }
        // Two interfaces may not publish the same ROS topic.
        let mut topics: BTreeMap<&str, String> = BTreeMap::new();
        for r in self.interfaces() {
            if let Some(prev) = topics.insert(r.spec.ros_topic.as_str(), r.path.clone()) {
                is.push(
                    &FieldPath::parse(&r.path).key("ros_topic"),
                    format!("{} is already the ros_topic of {prev}", r.spec.ros_topic),
                );
            }
        }
        if let Some(b) = self.power.as_ref().and_then(|p| p.battery.as_ref()) {
            let p = root.key("power").key("battery");
            rate(&mut is, &p.key("rate_hz"), b.rate_hz);
            positive(&mut is, &p.key("capacity_ah"), b.capacity_ah);
            positive(&mut is, &p.key("empty_voltage_v"), b.empty_voltage_v);
            if b.full_voltage_v <= b.empty_voltage_v {
                is.push(
                    &p.key("full_voltage_v"),
                    format!(
                        "{} must be above empty_voltage_v ({})",
                        b.full_voltage_v, b.empty_voltage_v
                    ),
                );
            }
            non_empty(&mut is, &p.key("frame_id"), &b.frame_id);
            topic_name(&mut is, &p.key("ros_topic"), &b.ros_topic);
            qos(&mut is, &p.key("qos"), &b.qos);
        }
        if let Some(d) = &self.description {
            self.validate_description(&mut is, &root.key("description"), d);
        }
        if let Some(link) = self.runtime.as_ref().and_then(|r| r.link.as_ref()) {
            let p = root.key("runtime").key("link");
            positive(&mut is, &p.key("timeout_s"), link.timeout_s);
            let can = match self.kind {
                VehicleKind::Multirotor => true,
                _ => !matches!(link.loss_action, LossAction::Land),
            };
            if !can {
                is.push(
                    &p.key("loss_action"),
                    format!(
                        "\"land\" is for a multirotor; a {} stops or holds (stop, hold, continue)",
                        kind_name(self.kind)
                    ),
                );
            }
            if let Some(h) = &link.heartbeat {
                topic_name(&mut is, &p.key("heartbeat").key("topic"), &h.topic);
                rate(&mut is, &p.key("heartbeat").key("rate_hz"), h.rate_hz);
                qos(&mut is, &p.key("heartbeat").key("qos"), &h.qos);
                if h.rate_hz > 0.0 && link.timeout_s > 0.0 && link.timeout_s * h.rate_hz < 1.0 {
                    is.push(
                        &p.key("timeout_s"),
                        format!(
                            "{} s is shorter than one heartbeat period ({} s)",
                            link.timeout_s,
                            1.0 / h.rate_hz
                        ),
                    );
                }
            }
        }
        is.into_result()
    }

    pub(super) fn validate_body(&self, is: &mut Issues, p: &FieldPath) {
        let b = &self.body;
        positive(is, &p.key("mass_kg"), b.mass_kg);
        positive(is, &p.key("radius_m"), b.radius_m);
        positive(is, &p.key("height_m"), b.height_m);
        non_negative(is, &p.key("max_payload_kg"), b.max_payload_kg);
        non_negative(is, &p.key("payload_kg"), b.payload_kg);
        if b.payload_kg > b.max_payload_kg {
            is.push(
                &p.key("payload_kg"),
                format!(
                    "{} is above max_payload_kg ({})",
                    b.payload_kg, b.max_payload_kg
                ),
            );
        }
    }

    pub(super) fn validate_drive(&self, is: &mut Issues, p: &FieldPath) {
        let d = &self.drive;
        let expected_kind = match self.kind {
            VehicleKind::Ugv => DriveKind::DiffDrive,
            VehicleKind::Multirotor => DriveKind::Multirotor,
            VehicleKind::Carrier => DriveKind::Carrier,
        };
        if d.kind != expected_kind {
            is.push(
                &p.key("type"),
                format!(
                    "a {} vehicle needs drive type {}",
                    kind_name(self.kind),
                    drive_name(expected_kind)
                ),
            );
        }
        let iface =
            |is: &mut Issues, field: &str, i: &Interface, ros_type: &str, needs_rate: bool| {
                let ip = p.key(field);
                interface(is, &ip, i);
                if i.ros_type != ros_type {
                    is.push(
                        &ip.key("ros_type"),
                        format!("drive.{field} carries {ros_type}, not {}", i.ros_type),
                    );
                }
                if needs_rate && i.rate_hz.is_none() {
                    is.missing(&ip, "rate_hz");
                }
            };
        iface(is, "command", &d.command, "geometry_msgs/msg/Twist", false);
        if d.command.frame_id.is_some()
            || d.command.rate_hz.is_some()
            || d.command.gz_rate.is_some()
        {
            is.push(
                &p.key("command"),
                "a command has no frame_id, rate_hz or gz_rate",
            );
        }
        iface(is, "odometry", &d.odometry, "nav_msgs/msg/Odometry", true);
        for (field, i) in [("odometry", Some(&d.odometry)), ("tf", d.tf.as_ref())] {
            let Some(i) = i else { continue };
            if i.frame_id.is_none() {
                is.missing(&p.key(field), "frame_id");
            }
            if i.child_frame_id.is_none() {
                is.missing(&p.key(field), "child_frame_id");
            }
        }
        if let Some(j) = &d.joint_states {
            iface(is, "joint_states", j, "sensor_msgs/msg/JointState", true);
            if d.kind != DriveKind::DiffDrive {
                is.push(&p.key("joint_states"), "only a diff_drive has wheel joints");
            }
        }
        if let Some(t) = &d.tf {
            iface(is, "tf", t, "tf2_msgs/msg/TFMessage", true);
            let name = t.ros_topic.trim_start_matches('/');
            if name != "tf" {
                is.push(
                    &p.key("tf").key("ros_topic"),
                    format!("must be tf or /tf, not {}", t.ros_topic),
                );
            }
        }
        if let Some(l) = &d.landed {
            iface(is, "landed", l, "std_msgs/msg/Bool", true);
            if d.kind != DriveKind::Multirotor {
                is.push(&p.key("landed"), "only a multirotor has a landed state");
            }
        }
        if let Some(pd) = &d.pads {
            iface(is, "pads", pd, "geometry_msgs/msg/PoseArray", true);
            if pd.frame_id.is_none() {
                is.missing(&p.key("pads"), "frame_id");
            }
            if d.kind != DriveKind::Carrier {
                is.push(&p.key("pads"), "only a carrier has landing pads");
            }
        }
        let l = &d.limits;
        let lp = p.key("limits");
        positive(is, &lp.key("max_linear_mps"), l.max_linear_mps);
        positive(is, &lp.key("max_angular_radps"), l.max_angular_radps);
        positive(
            is,
            &lp.key("max_linear_accel_mps2"),
            l.max_linear_accel_mps2,
        );
        positive(
            is,
            &lp.key("max_linear_decel_mps2"),
            l.max_linear_decel_mps2,
        );
        positive(
            is,
            &lp.key("max_angular_accel_radps2"),
            l.max_angular_accel_radps2,
        );
        if let Some(r) = l.max_reverse_mps {
            non_negative(is, &lp.key("max_reverse_mps"), r);
        }
        if let Some(v) = l.max_vertical_mps {
            positive(is, &lp.key("max_vertical_mps"), v);
        }
        // The block of the drive type must be there, and no other.
        let blocks = [
            (DriveKind::DiffDrive, "diff_drive", d.diff_drive.is_some()),
            (DriveKind::Multirotor, "multirotor", d.multirotor.is_some()),
            (DriveKind::Carrier, "carrier", d.carrier.is_some()),
        ];
        for (kind, field, present) in blocks {
            if kind == d.kind && !present {
                is.missing(p, field);
            } else if kind != d.kind && present {
                is.push(&p.key(field), format!("only for drive type {field}"));
            }
        }
        if let Some(dd) = &d.diff_drive {
            let dp = p.key("diff_drive");
            positive(is, &dp.key("wheel_separation_m"), dd.wheel_separation_m);
            positive(is, &dp.key("wheel_radius_m"), dd.wheel_radius_m);
            if dd.left_joints.is_empty() {
                is.push(&dp.key("left_joints"), "needs at least one joint");
            }
            if dd.right_joints.is_empty() {
                is.push(&dp.key("right_joints"), "needs at least one joint");
            }
        }
        if let Some(m) = &d.multirotor {
            let mp = p.key("multirotor");
            positive(is, &mp.key("max_altitude_m"), m.max_altitude_m);
            non_negative(is, &mp.key("landed_height_m"), m.landed_height_m);
            if l.max_vertical_mps.is_none() {
                is.missing(&lp, "max_vertical_mps");
            }
        }
        if let Some(c) = &d.carrier {
            let cp = p.key("carrier");
            non_negative(is, &cp.key("deck_height_m"), c.deck_height_m);
            if c.pads.is_empty() {
                is.push(&cp.key("pads"), "needs at least one pad");
            }
            let mut names = BTreeSet::new();
            for (i, pad) in c.pads.iter().enumerate() {
                let pp = cp.key("pads").index(i);
                non_empty(is, &pp.key("name"), &pad.name);
                if !names.insert(pad.name.as_str()) {
                    is.push(&pp.key("name"), format!("duplicate pad name {}", pad.name));
                }
                positive(is, &pp.key("radius_m"), pad.radius_m);
                for (k, v) in pad.xy.iter().enumerate() {
                    finite(is, &pp.key("xy").index(k), *v);
                }
            }
        }
    }

    pub(super) fn validate_description(&self, is: &mut Issues, p: &FieldPath, d: &Description) {
        non_empty(is, &p.key("xacro"), &d.xacro);
        if !d.xacro.is_empty() && !Path::new(&d.xacro).is_file() {
            is.push(&p.key("xacro"), format!("{} not found", d.xacro));
        }
        let base = self
            .drive
            .odometry
            .child_frame_id
            .clone()
            .unwrap_or_else(|| "base_link".into());
        let mut known: BTreeSet<String> = BTreeSet::from([base]);
        let mut children = BTreeSet::new();
        for (i, f) in d.frames.iter().enumerate() {
            let fp = p.key("frames").index(i);
            non_empty(is, &fp.key("child"), &f.child);
            if !known.contains(&f.parent) {
                is.push(
                    &fp.key("parent"),
                    format!(
                        "{} is neither the base frame nor a frame listed before",
                        f.parent
                    ),
                );
            }
            if !children.insert(f.child.clone()) {
                is.push(&fp.key("child"), format!("duplicate frame {}", f.child));
            }
            for (k, v) in f.xyz.iter().chain(&f.rpy).enumerate() {
                finite(
                    is,
                    &fp.key(if k < 3 { "xyz" } else { "rpy" }).index(k % 3),
                    *v,
                );
            }
            if let Some(s) = &f.sensor {
                match self.sensor(s) {
                    None => is.push(&fp.key("sensor"), format!("no sensor named {s}")),
                    Some(s) if !s.optional => is.push(
                        &fp.key("sensor"),
                        format!(
                            "sensor {} is not optional (only optional sensors' frames are tagged)",
                            s.name
                        ),
                    ),
                    Some(_) => {}
                }
            }
            known.insert(f.child.clone());
        }
        for (i, j) in d.joints.iter().enumerate() {
            let jp = p.key("joints").index(i);
            if !known.contains(&j.parent) {
                is.push(
                    &jp.key("parent"),
                    format!("{} is not a known frame", j.parent),
                );
            }
            let n = j.axis.iter().map(|a| a * a).sum::<f64>().sqrt();
            if !(n.is_finite() && n > 0.0) {
                is.push(&jp.key("axis"), "must be a non-zero vector");
            }
            known.insert(j.child.clone());
        }
        // Every sensor's frame must be in the tree.
        for (i, s) in self.sensors.iter().enumerate() {
            for (k, frame) in std::iter::once(Some(&s.frame_id))
                .chain(s.outputs.iter().map(|o| o.ros_frame_id.as_ref()))
                .enumerate()
            {
                let Some(frame) = frame else { continue };
                if !known.contains(frame) {
                    let path = if k == 0 {
                        FieldPath::root().key("sensors").index(i).key("frame_id")
                    } else {
                        FieldPath::root()
                            .key("sensors")
                            .index(i)
                            .key("outputs")
                            .index(k - 1)
                            .key("ros_frame_id")
                    };
                    is.push(&path, format!("frame {frame} is not in description.frames"));
                }
            }
        }
        if let Some(dd) = &self.drive.diff_drive {
            if !d.joints.is_empty() {
                for (side, list) in [
                    ("left_joints", &dd.left_joints),
                    ("right_joints", &dd.right_joints),
                ] {
                    for (k, j) in list.iter().enumerate() {
                        if !d.joints.iter().any(|dj| &dj.name == j) {
                            is.push(
                                &FieldPath::root()
                                    .key("drive")
                                    .key("diff_drive")
                                    .key(side)
                                    .index(k),
                                format!("joint {j} is not in description.joints"),
                            );
                        }
                    }
                }
            }
        }
    }
}

pub(super) fn kind_name(k: VehicleKind) -> &'static str {
    match k {
        VehicleKind::Ugv => "ugv",
        VehicleKind::Multirotor => "multirotor",
        VehicleKind::Carrier => "carrier",
    }
}

pub(super) fn drive_name(k: DriveKind) -> &'static str {
    match k {
        DriveKind::DiffDrive => "diff_drive",
        DriveKind::Multirotor => "multirotor",
        DriveKind::Carrier => "carrier",
    }
}
