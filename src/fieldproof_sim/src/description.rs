//! What robot_state_publisher would publish from the manifest's description: the fixed
//! frames on tf_static and the URDF on robot_description (rendered from the manifest's
//! frames and joints, since there is no xacro here; the manifest's xacro describes the
//! same tree for machines that have ROS).

use fieldproof_msgs::geometry_msgs::TransformStamped;
use fieldproof_msgs::std_msgs::Header;
use fieldproof_msgs::tf2_msgs::TFMessage;
use fieldproof_robots::{Manifest, Naming};

use crate::math::{ros_time, transform};

/// The fixed frames as one `tf2_msgs/msg/TFMessage` stamped at `t_ns`.
pub fn static_transforms(m: &Manifest, naming: &Naming, t_ns: i64) -> TFMessage {
    let frames = m
        .description
        .as_ref()
        .map(|d| d.frames.as_slice())
        .unwrap_or(&[]);
    TFMessage {
        transforms: frames
            .iter()
            .map(|f| TransformStamped {
                header: Header {
                    stamp: ros_time(t_ns),
                    frame_id: naming.frame(&f.parent),
                },
                child_frame_id: naming.frame(&f.child),
                transform: transform(f.xyz, f.rpy),
            })
            .collect(),
    }
}

fn xml_escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// A URDF of the description: a link per frame, fixed joints for the frames, continuous
/// joints for the wheels.
pub fn urdf(m: &Manifest, naming: &Naming) -> String {
    let base = m
        .drive
        .odometry
        .child_frame_id
        .as_deref()
        .unwrap_or("base_link");
    let mut links = vec![base.to_string()];
    let mut joints = String::new();
    if let Some(d) = &m.description {
        for f in &d.frames {
            links.push(f.child.clone());
            joints.push_str(&format!(
                "  <joint name=\"{c}_joint\" type=\"fixed\">\n    <parent link=\"{p}\"/>\n    <child link=\"{c}\"/>\n    <origin xyz=\"{} {} {}\" rpy=\"{} {} {}\"/>\n  </joint>\n",
                f.xyz[0],
                f.xyz[1],
                f.xyz[2],
                f.rpy[0],
                f.rpy[1],
                f.rpy[2],
                p = xml_escape(&naming.frame(&f.parent)),
                c = xml_escape(&naming.frame(&f.child)),
            ));
        }
        for j in &d.joints {
            links.push(j.child.clone());
            joints.push_str(&format!(
                "  <joint name=\"{n}\" type=\"continuous\">\n    <parent link=\"{p}\"/>\n    <child link=\"{c}\"/>\n    <origin xyz=\"{} {} {}\" rpy=\"{} {} {}\"/>\n    <axis xyz=\"{} {} {}\"/>\n  </joint>\n",
                j.xyz[0],
                j.xyz[1],
                j.xyz[2],
                j.rpy[0],
                j.rpy[1],
                j.rpy[2],
                j.axis[0],
                j.axis[1],
                j.axis[2],
                n = xml_escape(&j.name),
                p = xml_escape(&naming.frame(&j.parent)),
                c = xml_escape(&naming.frame(&j.child)),
            ));
        }
    }
    let mut out = format!(
        "<?xml version=\"1.0\"?>\n<robot name=\"{}\">\n",
        xml_escape(&m.name)
    );
    for l in links {
        out.push_str(&format!(
            "  <link name=\"{}\"/>\n",
            xml_escape(&naming.frame(&l))
        ));
    }
    out.push_str(&joints);
    out.push_str("</robot>\n");
    out
}
