//! Differential drive (Gazebo's DiffDrive system): linear.x and angular.z of the command,
//! clamped and ramped by the limits, integrated on the arc; wheel joints follow.

use super::{ramp, Vehicle};
use crate::math::{wrap_angle, Pose};

/// The velocity a diff drive reaches after one step of `dt` towards its command.
pub fn step_velocity(v: &mut Vehicle, dt: f64) {
    let l = v.limits;
    let target_v = v.command.linear.x.clamp(-l.max_reverse, l.max_forward);
    let target_w = v.command.angular.z.clamp(-l.max_yaw_rate, l.max_yaw_rate);
    let target_v = if target_v.is_finite() { target_v } else { 0.0 };
    let target_w = if target_w.is_finite() { target_w } else { 0.0 };
    let old = v.vel;
    v.vel.vx = ramp(old.vx, target_v, l.accel, l.decel, dt);
    v.vel.wz = ramp(old.wz, target_w, l.yaw_accel, l.yaw_accel, dt);
    v.vel.vy = 0.0;
    v.vel.vz = 0.0;
    // Body-frame acceleration: tangential and centripetal.
    v.accel = [(v.vel.vx - old.vx) / dt, v.vel.vx * v.vel.wz, 0.0];
}

/// The pose after moving for `dt` with forward speed `vx` and yaw rate `wz` (midpoint).
pub fn integrate(p: &Pose, vx: f64, wz: f64, dt: f64) -> Pose {
    let mid = p.yaw + 0.5 * wz * dt;
    Pose {
        x: p.x + vx * dt * mid.cos(),
        y: p.y + vx * dt * mid.sin(),
        z: p.z,
        yaw: wrap_angle(p.yaw + wz * dt),
    }
}

/// Advances the wheel joints for the body's actual motion.
pub fn step_joints(v: &mut Vehicle, dt: f64) {
    let Some(dd) = v.manifest.drive.diff_drive.clone() else {
        return;
    };
    let half = dd.wheel_separation_m / 2.0;
    let left = (v.vel.vx - v.vel.wz * half) / dd.wheel_radius_m;
    let right = (v.vel.vx + v.vel.wz * half) / dd.wheel_radius_m;
    let n_left = dd.left_joints.len();
    for (i, j) in v.joints.iter_mut().enumerate() {
        let w = if i < n_left { left } else { right };
        j.1 += w * dt;
        j.2 = w;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_quarter_turn_on_the_arc() {
        let mut p = Pose::default();
        let w = std::f64::consts::FRAC_PI_2;
        for _ in 0..1000 {
            p = integrate(&p, 1.0, w, 0.001);
        }
        // Radius 1/w: ends at (r, r).
        let r = 1.0 / w;
        assert!((p.x - r).abs() < 1e-6 && (p.y - r).abs() < 1e-6, "{p:?}");
        assert!((p.yaw - w).abs() < 1e-9);
    }
}
