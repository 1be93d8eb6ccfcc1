//! Multirotor (Gazebo's MulticopterVelocityControl): the command's linear x/y (body frame),
//! linear z (climb) and angular z, ramped by the limits; landed until it climbs, landed
//! again when it comes down on the ground or on a carrier's deck, which it then rides.

use super::{ramp, Vehicle, Velocity};
use crate::math::{wrap_angle, Pose};

/// Commanded climb rate above which a landed multirotor takes off.
pub const TAKEOFF_CLIMB_MPS: f64 = 0.05;

/// The surface under a point: its height and the carrier it belongs to, if any.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Surface {
    /// Height of the surface.
    pub height: f64,
    /// The carrier whose deck it is.
    pub carrier: Option<usize>,
}

/// Advances a multirotor by `dt`. `surface` is what lies under it.
pub fn step(v: &mut Vehicle, dt: f64, surface: Surface, carrier_pose: Option<Pose>) {
    let l = v.limits;
    let mr = v
        .manifest
        .drive
        .multirotor
        .clone()
        .expect("validated: a multirotor drive has its block");
    let cmd = v.command;
    let finite = |x: f64| if x.is_finite() { x } else { 0.0 };
    if v.landed {
        if finite(cmd.linear.z) > TAKEOFF_CLIMB_MPS {
            v.landed = false;
            v.riding = None;
        } else {
            let old = v.vel;
            v.vel = Default::default();
            v.accel = [-old.vx / dt, -old.vy / dt, -old.vz / dt];
            return;
        }
    }
    // Horizontal target in the body frame, its magnitude capped.
    let (mut tx, mut ty) = (finite(cmd.linear.x), finite(cmd.linear.y));
    let norm = (tx * tx + ty * ty).sqrt();
    if norm > l.max_forward {
        tx *= l.max_forward / norm;
        ty *= l.max_forward / norm;
    }
    let tz = finite(cmd.linear.z).clamp(-l.max_vertical, l.max_vertical);
    let tw = finite(cmd.angular.z).clamp(-l.max_yaw_rate, l.max_yaw_rate);
    let old = v.vel;
    v.vel.vx = ramp(old.vx, tx, l.accel, l.decel, dt);
    v.vel.vy = ramp(old.vy, ty, l.accel, l.decel, dt);
    v.vel.vz = ramp(old.vz, tz, l.accel, l.decel, dt);
    v.vel.wz = ramp(old.wz, tw, l.yaw_accel, l.yaw_accel, dt);
    let (s, c) = v.pose.yaw.sin_cos();
    v.pose.x += (c * v.vel.vx - s * v.vel.vy) * dt;
    v.pose.y += (s * v.vel.vx + c * v.vel.vy) * dt;
    v.pose.z += v.vel.vz * dt;
    v.pose.yaw = wrap_angle(v.pose.yaw + v.vel.wz * dt);
    if v.pose.z > mr.max_altitude_m {
        v.pose.z = mr.max_altitude_m;
        v.vel.vz = v.vel.vz.min(0.0);
    }
    let floor = surface.height + mr.landed_height_m;
    if v.pose.z <= floor {
        v.pose.z = floor;
        if tz <= 0.0 {
            v.landed = true;
            v.vel = Default::default();
            v.riding = surface
                .carrier
                .zip(carrier_pose)
                .map(|(id, cp)| (id, v.pose.relative_to(&cp)));
        } else {
            v.vel.vz = v.vel.vz.max(0.0);
        }
    }
    v.accel = body_accel(&old, &v.vel, dt);
}

/// What an accelerometer fixed to the body measures (gravity aside) when its body-frame
/// velocity goes from `old` to `new` in `dt` while it turns at `new.wz`: the change of the
/// body-frame velocity plus the turn's ω × v, which a body flying while it yaws feels even at
/// a constant body-frame velocity.
fn body_accel(old: &Velocity, new: &Velocity, dt: f64) -> [f64; 3] {
    [
        (new.vx - old.vx) / dt - new.wz * new.vy,
        (new.vy - old.vy) / dt + new.wz * new.vx,
        (new.vz - old.vz) / dt,
    ]
}

/// Keeps a multirotor landed on a carrier on its deck as the carrier moves.
pub fn ride(v: &mut Vehicle, carrier_pose: &Pose, carrier_vel: (f64, f64, f64), dt: f64) {
    let Some((_, rel)) = v.riding else { return };
    let p = carrier_pose.apply([rel.x, rel.y, rel.z]);
    let old = v.vel;
    v.pose = Pose {
        x: p[0],
        y: p[1],
        z: p[2],
        yaw: wrap_angle(carrier_pose.yaw + rel.yaw),
    };
    // The carrier's world velocity (vx, vy) at the pad, in this vehicle's body frame.
    let (vx_w, vy_w, wz) = carrier_vel;
    let (s, c) = v.pose.yaw.sin_cos();
    v.vel.vx = c * vx_w + s * vy_w;
    v.vel.vy = -s * vx_w + c * vy_w;
    v.vel.vz = 0.0;
    v.vel.wz = wz;
    v.accel = body_accel(&old, &v.vel, dt);
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Rotates a body-frame (x, y) by `yaw` into the world.
    fn to_world(yaw: f64, x: f64, y: f64) -> (f64, f64) {
        let (s, c) = yaw.sin_cos();
        (c * x - s * y, s * x + c * y)
    }

    #[test]
    fn a_body_turning_at_constant_body_velocity_feels_the_centripetal_acceleration() {
        let vel = Velocity {
            vx: 3.0,
            vy: 0.0,
            vz: 0.0,
            wz: 0.6,
        };
        let a = body_accel(&vel, &vel, 0.001);
        assert!(
            (a[0] - 0.0).abs() < 1e-12 && (a[1] - 1.8).abs() < 1e-12 && a[2] == 0.0,
            "{a:?}"
        );
    }

    #[test]
    fn the_measured_acceleration_in_the_world_is_the_change_of_the_world_velocity() {
        // A body speeding up sideways and forwards while it yaws: its IMU's reading, turned
        // into the world, is what differentiating its world velocity gives.
        let dt = 1e-4;
        let (mut yaw, mut vel) = (
            0.3,
            Velocity {
                vx: 1.0,
                vy: -0.5,
                vz: 0.2,
                wz: 0.8,
            },
        );
        for _ in 0..1000 {
            let old = vel;
            let world_before = to_world(yaw, old.vx, old.vy);
            vel.vx += 0.5 * dt;
            vel.vy += 0.25 * dt;
            yaw += vel.wz * dt;
            let world_after = to_world(yaw, vel.vx, vel.vy);
            let measured = body_accel(&old, &vel, dt);
            let (ax, ay) = to_world(yaw, measured[0], measured[1]);
            let (dx, dy) = (
                (world_after.0 - world_before.0) / dt,
                (world_after.1 - world_before.1) / dt,
            );
            assert!(
                (ax - dx).abs() < 1e-3 && (ay - dy).abs() < 1e-3,
                "{ax} {ay} vs {dx} {dy}"
            );
        }
    }
}
