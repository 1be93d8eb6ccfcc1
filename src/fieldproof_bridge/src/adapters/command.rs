//! `command_relay`'s clamp: the drive command on its way to the simulator, its linear and
//! angular speeds capped (`max_linear_mps`, `max_angular_radps`; 0 = no limit: `actuator.limit`).

use fieldproof_msgs::geometry_msgs::{Twist, Vector3};

/// The limits in force.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct SpeedLimits {
    /// Cap on the linear speed (the vector's magnitude), m/s; 0: none.
    pub max_linear_mps: f64,
    /// Cap on the angular speed (the vector's magnitude), rad/s; 0: none.
    pub max_angular_radps: f64,
}

fn cap(v: Vector3, max: f64) -> Vector3 {
    let norm = (v.x * v.x + v.y * v.y + v.z * v.z).sqrt();
    if max <= 0.0 || norm <= max {
        return v;
    }
    let k = max / norm;
    Vector3 {
        x: v.x * k,
        y: v.y * k,
        z: v.z * k,
    }
}

impl SpeedLimits {
    /// The command with both speeds capped, direction kept.
    pub fn apply(&self, twist: Twist) -> Twist {
        Twist {
            linear: cap(twist.linear, self.max_linear_mps),
            angular: cap(twist.angular, self.max_angular_radps),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn twist(vx: f64, vy: f64, wz: f64) -> Twist {
        Twist {
            linear: Vector3 {
                x: vx,
                y: vy,
                z: 0.0,
            },
            angular: Vector3 {
                x: 0.0,
                y: 0.0,
                z: wz,
            },
        }
    }

    #[test]
    fn caps_speed_keeps_direction() {
        let limits = SpeedLimits {
            max_linear_mps: 0.5,
            max_angular_radps: 0.2,
        };
        let out = limits.apply(twist(-2.0, 0.0, 1.0));
        assert_eq!(out.linear.x, -0.5);
        assert!((out.angular.z - 0.2).abs() < 1e-12);
        let out = limits.apply(twist(0.3, 0.4, -0.1));
        assert_eq!(
            (out.linear.x, out.linear.y, out.angular.z),
            (0.3, 0.4, -0.1),
            "within limits"
        );
        let out = limits.apply(twist(0.6, 0.8, 0.0));
        assert!((out.linear.x - 0.3).abs() < 1e-12 && (out.linear.y - 0.4).abs() < 1e-12);
    }

    #[test]
    fn zero_means_no_limit() {
        let out = SpeedLimits::default().apply(twist(9.0, 0.0, 5.0));
        assert_eq!((out.linear.x, out.angular.z), (9.0, 5.0));
    }
}
