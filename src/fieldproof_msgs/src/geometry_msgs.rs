//! `geometry_msgs`: vectors, poses, twists, transforms.

use serde::{Deserialize, Serialize};

use crate::std_msgs::Header;

/// `geometry_msgs/msg/Vector3`.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
pub struct Vector3 {
    /// x component.
    pub x: f64,
    /// y component.
    pub y: f64,
    /// z component.
    pub z: f64,
}

/// `geometry_msgs/msg/Quaternion`; the default is the identity (`w = 1`), as in ROS.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Quaternion {
    /// x component.
    pub x: f64,
    /// y component.
    pub y: f64,
    /// z component.
    pub z: f64,
    /// w (scalar) component.
    pub w: f64,
}

impl Quaternion {
    /// The yaw (rotation about z, radians, counter-clockwise from +x) of this orientation.
    pub fn yaw(&self) -> f64 {
        let Quaternion { x, y, z, w } = *self;
        (2.0 * (w * z + x * y)).atan2(1.0 - 2.0 * (y * y + z * z))
    }
}

impl Default for Quaternion {
    fn default() -> Self {
        Self {
            x: 0.0,
            y: 0.0,
            z: 0.0,
            w: 1.0,
        }
    }
}

/// `geometry_msgs/msg/Point`.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
pub struct Point {
    /// x coordinate.
    pub x: f64,
    /// y coordinate.
    pub y: f64,
    /// z coordinate.
    pub z: f64,
}

/// `geometry_msgs/msg/Pose`.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
pub struct Pose {
    /// Position.
    pub position: Point,
    /// Orientation.
    pub orientation: Quaternion,
}

/// `geometry_msgs/msg/PoseArray`: poses sharing one stamp and frame (a carrier's pads).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct PoseArray {
    /// Stamp and frame of every pose.
    pub header: Header,
    /// The poses.
    pub poses: Vec<Pose>,
}

crate::ros_message!(PoseArray, "geometry_msgs/msg/PoseArray", stamped);

/// `geometry_msgs/msg/PoseStamped`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct PoseStamped {
    /// Stamp and frame.
    pub header: Header,
    /// The pose.
    pub pose: Pose,
}

/// `geometry_msgs/msg/PoseWithCovariance`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct PoseWithCovariance {
    /// The pose.
    pub pose: Pose,
    /// Row-major 6x6 covariance of (x, y, z, rot x, rot y, rot z).
    #[serde(with = "crate::fixed_array")]
    pub covariance: [f64; 36],
}

impl Default for PoseWithCovariance {
    fn default() -> Self {
        Self {
            pose: Pose::default(),
            covariance: [0.0; 36],
        }
    }
}

/// `geometry_msgs/msg/Twist`.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
pub struct Twist {
    /// Linear velocity.
    pub linear: Vector3,
    /// Angular velocity.
    pub angular: Vector3,
}

impl Twist {
    /// The first component that is not a finite number, as (`linear.x`-style field name,
    /// value); `None` for a command a base can execute. Nav2's `validateTwist` is the model:
    /// a command with a NaN or an infinity never reaches a base.
    pub fn non_finite_field(&self) -> Option<(&'static str, f64)> {
        let fields = [
            ("linear.x", self.linear.x),
            ("linear.y", self.linear.y),
            ("linear.z", self.linear.z),
            ("angular.x", self.angular.x),
            ("angular.y", self.angular.y),
            ("angular.z", self.angular.z),
        ];
        fields.into_iter().find(|(_, value)| !value.is_finite())
    }
}

/// `geometry_msgs/msg/TwistStamped`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct TwistStamped {
    /// Stamp and frame.
    pub header: Header,
    /// The twist.
    pub twist: Twist,
}

/// `geometry_msgs/msg/TwistWithCovariance`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct TwistWithCovariance {
    /// The twist.
    pub twist: Twist,
    /// Row-major 6x6 covariance of (x, y, z, rot x, rot y, rot z).
    #[serde(with = "crate::fixed_array")]
    pub covariance: [f64; 36],
}

impl Default for TwistWithCovariance {
    fn default() -> Self {
        Self {
            twist: Twist::default(),
            covariance: [0.0; 36],
        }
    }
}

/// `geometry_msgs/msg/Transform`.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
pub struct Transform {
    /// Translation.
    pub translation: Vector3,
    /// Rotation.
    pub rotation: Quaternion,
}

/// `geometry_msgs/msg/TransformStamped`: transform from `header.frame_id` to `child_frame_id`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct TransformStamped {
    /// Stamp and parent frame.
    pub header: Header,
    /// Child frame.
    pub child_frame_id: String,
    /// The transform.
    pub transform: Transform,
}

crate::ros_message!(Vector3, "geometry_msgs/msg/Vector3");
crate::ros_message!(Quaternion, "geometry_msgs/msg/Quaternion");
crate::ros_message!(Point, "geometry_msgs/msg/Point");
crate::ros_message!(Pose, "geometry_msgs/msg/Pose");
crate::ros_message!(PoseStamped, "geometry_msgs/msg/PoseStamped", stamped);
crate::ros_message!(PoseWithCovariance, "geometry_msgs/msg/PoseWithCovariance");
crate::ros_message!(Twist, "geometry_msgs/msg/Twist");
crate::ros_message!(TwistStamped, "geometry_msgs/msg/TwistStamped", stamped);
crate::ros_message!(TwistWithCovariance, "geometry_msgs/msg/TwistWithCovariance");
crate::ros_message!(Transform, "geometry_msgs/msg/Transform");
crate::ros_message!(
    TransformStamped,
    "geometry_msgs/msg/TransformStamped",
    stamped
);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn non_finite_field_names_the_first_bad_component() {
        let mut cmd = Twist::default();
        assert_eq!(cmd.non_finite_field(), None);
        cmd.angular.z = f64::INFINITY;
        assert_eq!(cmd.non_finite_field(), Some(("angular.z", f64::INFINITY)));
        cmd.linear.y = f64::NAN;
        let (field, value) = cmd.non_finite_field().unwrap();
        assert_eq!(field, "linear.y");
        assert!(value.is_nan());
        cmd.linear.x = f64::NEG_INFINITY;
        assert_eq!(cmd.non_finite_field().unwrap().0, "linear.x");
    }

    #[test]
    fn yaw_comes_from_the_quaternion() {
        for yaw in [0.0, 0.3, 0.6, -1.2, 3.0] {
            let (z, w) = (yaw / 2.0_f64).sin_cos();
            let q = Quaternion {
                x: 0.0,
                y: 0.0,
                z,
                w,
            };
            assert!((q.yaw() - yaw).abs() < 1e-12, "{yaw}");
        }
        assert_eq!(Quaternion::default().yaw(), 0.0);
    }
}
