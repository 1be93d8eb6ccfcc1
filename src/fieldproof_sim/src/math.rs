//! Small geometry: planar poses, rotations from roll/pitch/yaw (ENU to geodetic is
//! `fieldproof_robots::geo`, shared with the localizer).

use fieldproof_msgs::builtin_interfaces::Time;
use fieldproof_msgs::geometry_msgs::{Quaternion, Transform, Vector3};

/// A 3D vector.
pub type V3 = [f64; 3];

/// The quaternion of a roll/pitch/yaw rotation (ROS convention: yaw * pitch * roll).
pub fn quat_rpy(roll: f64, pitch: f64, yaw: f64) -> Quaternion {
    let (sr, cr) = (roll * 0.5).sin_cos();
    let (sp, cp) = (pitch * 0.5).sin_cos();
    let (sy, cy) = (yaw * 0.5).sin_cos();
    Quaternion {
        w: cr * cp * cy + sr * sp * sy,
        x: sr * cp * cy - cr * sp * sy,
        y: cr * sp * cy + sr * cp * sy,
        z: cr * cp * sy - sr * sp * cy,
    }
}

/// The quaternion of a rotation about z.
pub fn quat_yaw(yaw: f64) -> Quaternion {
    let (s, c) = (yaw * 0.5).sin_cos();
    Quaternion {
        x: 0.0,
        y: 0.0,
        z: s,
        w: c,
    }
}

/// The quaternion of a rotation by `angle` about the (normalised) `axis`.
pub fn quat_axis_angle(axis: V3, angle: f64) -> Quaternion {
    let n = (axis[0] * axis[0] + axis[1] * axis[1] + axis[2] * axis[2]).sqrt();
    let (s, c) = (angle * 0.5).sin_cos();
    Quaternion {
        x: axis[0] / n * s,
        y: axis[1] / n * s,
        z: axis[2] / n * s,
        w: c,
    }
}

/// Hamilton product `a * b`.
pub fn quat_mul(a: Quaternion, b: Quaternion) -> Quaternion {
    Quaternion {
        w: a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z,
        x: a.w * b.x + a.x * b.w + a.y * b.z - a.z * b.y,
        y: a.w * b.y - a.x * b.z + a.y * b.w + a.z * b.x,
        z: a.w * b.z + a.x * b.y - a.y * b.x + a.z * b.w,
    }
}

/// A transform from a translation and roll/pitch/yaw.
pub fn transform(xyz: V3, rpy: V3) -> Transform {
    Transform {
        translation: Vector3 {
            x: xyz[0],
            y: xyz[1],
            z: xyz[2],
        },
        rotation: quat_rpy(rpy[0], rpy[1], rpy[2]),
    }
}

/// Wraps an angle to (-pi, pi].
pub fn wrap_angle(a: f64) -> f64 {
    let mut a = a % std::f64::consts::TAU;
    if a > std::f64::consts::PI {
        a -= std::f64::consts::TAU;
    } else if a <= -std::f64::consts::PI {
        a += std::f64::consts::TAU;
    }
    a
}

/// A pose on the plane with a height: what every vehicle's truth is.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Pose {
    /// East.
    pub x: f64,
    /// North.
    pub y: f64,
    /// Up.
    pub z: f64,
    /// Heading (counter-clockwise from +x).
    pub yaw: f64,
}

impl Pose {
    /// A point given in this pose's frame, in the parent frame.
    pub fn apply(&self, p: V3) -> V3 {
        let (s, c) = self.yaw.sin_cos();
        [
            self.x + c * p[0] - s * p[1],
            self.y + s * p[0] + c * p[1],
            self.z + p[2],
        ]
    }

    /// This pose expressed relative to `origin` (`origin^-1 * self`).
    pub fn relative_to(&self, origin: &Pose) -> Pose {
        let (s, c) = origin.yaw.sin_cos();
        let dx = self.x - origin.x;
        let dy = self.y - origin.y;
        Pose {
            x: c * dx + s * dy,
            y: -s * dx + c * dy,
            z: self.z - origin.z,
            yaw: wrap_angle(self.yaw - origin.yaw),
        }
    }
}

/// Simulation time in nanoseconds as a ROS time.
pub fn ros_time(t_ns: i64) -> Time {
    Time::from_nanos(t_ns)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn yaw_quaternion_matches_rpy() {
        let a = quat_yaw(0.7);
        let b = quat_rpy(0.0, 0.0, 0.7);
        assert!((a.z - b.z).abs() < 1e-12 && (a.w - b.w).abs() < 1e-12);
        let q = quat_mul(quat_yaw(0.3), quat_yaw(0.4));
        assert!((q.z - quat_yaw(0.7).z).abs() < 1e-12);
    }

    #[test]
    fn poses_compose() {
        let origin = Pose {
            x: 1.0,
            y: 2.0,
            z: 0.0,
            yaw: std::f64::consts::FRAC_PI_2,
        };
        let p = origin.apply([1.0, 0.0, 0.5]);
        assert!((p[0] - 1.0).abs() < 1e-12 && (p[1] - 3.0).abs() < 1e-12);
        let q = Pose {
            x: p[0],
            y: p[1],
            z: 0.5,
            yaw: std::f64::consts::PI,
        };
        let r = q.relative_to(&origin);
        assert!((r.x - 1.0).abs() < 1e-12 && r.y.abs() < 1e-12);
        assert!((r.yaw - std::f64::consts::FRAC_PI_2).abs() < 1e-12);
    }

    #[test]
    fn angles_wrap() {
        assert!((wrap_angle(3.0 * std::f64::consts::PI) - std::f64::consts::PI).abs() < 1e-12);
        assert!((wrap_angle(-0.5) + 0.5).abs() < 1e-12);
    }
}
