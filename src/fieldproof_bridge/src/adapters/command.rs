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

/// The vector's magnitude, without overflow for large finite components.
fn magnitude(v: &Vector3) -> f64 {
    let largest = v.x.abs().max(v.y.abs()).max(v.z.abs());
    if largest == 0.0 || !largest.is_finite() {
        return largest;
    }
    let (x, y, z) = (v.x / largest, v.y / largest, v.z / largest);
    largest * (x * x + y * y + z * z).sqrt()
}

fn cap(v: Vector3, max: f64) -> Vector3 {
    let norm = magnitude(&v);
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

/// What the relay does with a command: the capped command, or zero in place of one a base
/// must not execute.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Verdict {
    /// The command, speeds capped.
    Pass(Twist),
    /// A component was NaN or infinite (field, value): zero goes to the base instead.
    Zeroed(&'static str, f64),
}

impl Verdict {
    /// The command that goes to the base.
    pub fn command(&self) -> Twist {
        match self {
            Verdict::Pass(twist) => *twist,
            Verdict::Zeroed(..) => Twist::default(),
        }
    }
}

impl SpeedLimits {
    /// Validates then caps `twist`: a command with a NaN or infinite component becomes zero
    /// (Nav2's `validateTwist`), any other has its speeds capped.
    pub fn check(&self, twist: Twist) -> Verdict {
        match twist.non_finite_field() {
            Some((field, value)) => Verdict::Zeroed(field, value),
            None => Verdict::Pass(self.apply(twist)),
        }
    }

    /// The command with both speeds capped, direction kept (finite input).
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
    fn non_finite_commands_become_zero_whatever_the_limits() {
        for limits in [
            SpeedLimits::default(),
            SpeedLimits {
                max_linear_mps: 0.5,
                max_angular_radps: 0.2,
            },
        ] {
            for bad in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
                let verdict = limits.check(twist(bad, 0.1, 0.1));
                assert!(
                    matches!(verdict, Verdict::Zeroed("linear.x", _)),
                    "{verdict:?}"
                );
                assert_eq!(verdict.command(), Twist::default());
                let verdict = limits.check(twist(0.1, 0.1, bad));
                assert!(
                    matches!(verdict, Verdict::Zeroed("angular.z", _)),
                    "{verdict:?}"
                );
            }
            let ok = limits.check(twist(0.1, 0.0, 0.1)).command();
            assert_eq!((ok.linear.x, ok.angular.z), (0.1, 0.1));
        }
    }

    #[test]
    fn huge_finite_commands_are_capped_not_zeroed() {
        let limits = SpeedLimits {
            max_linear_mps: 0.5,
            max_angular_radps: 0.2,
        };
        let out = limits.check(twist(1e200, 1e200, -1e300)).command();
        assert!((out.linear.x - 0.5 / 2f64.sqrt()).abs() < 1e-12, "{out:?}");
        assert!((out.linear.y - 0.5 / 2f64.sqrt()).abs() < 1e-12, "{out:?}");
        assert_eq!(out.angular.z, -0.2);
    }

    #[test]
    fn zero_means_no_limit() {
        let out = SpeedLimits::default().apply(twist(9.0, 0.0, 5.0));
        assert_eq!((out.linear.x, out.angular.z), (9.0, 5.0));
    }
}
