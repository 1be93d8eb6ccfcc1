//! Carrier: a velocity-controlled platform (unicycle, like a diff drive without wheel
//! joints) whose deck carries landing pads.

use super::Vehicle;
use crate::math::Pose;

/// Advances the carrier's velocity towards its command (same law as a diff drive).
pub fn step_velocity(v: &mut Vehicle, dt: f64) {
    super::diff_drive::step_velocity(v, dt);
}

/// The world poses of the carrier's pads (on the deck).
pub fn pad_poses(v: &Vehicle) -> Vec<(String, Pose)> {
    let Some(c) = &v.manifest.drive.carrier else {
        return Vec::new();
    };
    c.pads
        .iter()
        .map(|pad| {
            let p = v.pose.apply([pad.xy[0], pad.xy[1], c.deck_height_m]);
            (
                pad.name.clone(),
                Pose {
                    x: p[0],
                    y: p[1],
                    z: p[2],
                    yaw: v.pose.yaw,
                },
            )
        })
        .collect()
}

/// The carrier's world velocity (vx, vy, yaw rate).
pub fn world_velocity(v: &Vehicle) -> (f64, f64, f64) {
    let (s, c) = v.pose.yaw.sin_cos();
    (c * v.vel.vx, s * v.vel.vx, v.vel.wz)
}
