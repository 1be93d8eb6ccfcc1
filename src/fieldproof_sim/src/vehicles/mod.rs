//! Vehicles: their truth state and the motion models (differential drive, multirotor,
//! carrier) that integrate velocity commands under the manifest's limits.

pub mod carrier;
pub mod diff_drive;
pub mod multirotor;

use std::sync::Arc;

use fieldproof_msgs::geometry_msgs::Twist;
use fieldproof_robots::{Manifest, Naming, VehicleKind};

use crate::math::Pose;

/// A vehicle's velocity state (body frame for the horizontal part).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Velocity {
    /// Forward speed.
    pub vx: f64,
    /// Leftward speed (multirotor only).
    pub vy: f64,
    /// Climb rate.
    pub vz: f64,
    /// Yaw rate.
    pub wz: f64,
}

/// Limits already scaled by the payload.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct EffectiveLimits {
    /// Largest forward speed.
    pub max_forward: f64,
    /// Largest reverse speed.
    pub max_reverse: f64,
    /// Largest yaw rate.
    pub max_yaw_rate: f64,
    /// Largest vertical speed.
    pub max_vertical: f64,
    /// Linear acceleration.
    pub accel: f64,
    /// Linear deceleration (braking).
    pub decel: f64,
    /// Yaw acceleration.
    pub yaw_accel: f64,
}

impl EffectiveLimits {
    /// The manifest's limits for its mass and `payload_kg`: a heavier vehicle accelerates
    /// and brakes less (same drive force, F = m a).
    pub fn new(m: &Manifest, payload_kg: f64) -> Self {
        let l = &m.drive.limits;
        let ratio = m.body.mass_kg / (m.body.mass_kg + payload_kg.max(0.0));
        Self {
            max_forward: l.max_linear_mps,
            max_reverse: l.max_reverse_mps.unwrap_or(l.max_linear_mps),
            max_yaw_rate: l.max_angular_radps,
            max_vertical: l.max_vertical_mps.unwrap_or(0.0),
            accel: l.max_linear_accel_mps2 * ratio,
            decel: l.max_linear_decel_mps2 * ratio,
            yaw_accel: l.max_angular_accel_radps2 * ratio,
        }
    }
}

/// Moves `v` towards `target` by at most one step of acceleration (when the speed grows)
/// or deceleration (when it shrinks); never overshoots zero in one step when braking.
pub fn ramp(v: f64, target: f64, accel: f64, decel: f64, dt: f64) -> f64 {
    let dv = target - v;
    if dv == 0.0 {
        return v;
    }
    let speeding_up = v == 0.0 || v.signum() == dv.signum();
    if speeding_up {
        v + dv.clamp(-accel * dt, accel * dt)
    } else {
        let next = v + dv.clamp(-decel * dt, decel * dt);
        if next.signum() != v.signum() && next != 0.0 {
            // Crossing zero: stop here, speed up the other way from the next step.
            if target.signum() == next.signum() {
                0.0
            } else {
                next
            }
        } else {
            next
        }
    }
}

/// One simulated vehicle.
#[derive(Debug, Clone)]
pub struct Vehicle {
    /// Index in the simulation.
    pub id: usize,
    /// Namespace and frame prefix.
    pub naming: Naming,
    /// Its manifest (optional sensors already left out).
    pub manifest: Arc<Manifest>,
    /// True pose in the world.
    pub pose: Pose,
    /// Where it was spawned: the origin of its odom frame.
    pub spawn: Pose,
    /// Velocity.
    pub vel: Velocity,
    /// Body-frame acceleration of the last step (x, y, z), for the IMU.
    pub accel: [f64; 3],
    /// The last velocity command (kept until the next, as Gazebo's controllers do).
    pub command: Twist,
    /// Limits for the current payload.
    pub limits: EffectiveLimits,
    /// Payload carried.
    pub payload_kg: f64,
    /// Wheel joint positions (left joints then right joints) and velocities.
    pub joints: Vec<(String, f64, f64)>,
    /// Multirotor: standing on the ground or a deck.
    pub landed: bool,
    /// Multirotor landed on a carrier: (carrier vehicle id, pose relative to it).
    pub riding: Option<(usize, Pose)>,
    /// Odometry's own pose estimate in the odom frame (integrates the noisy velocities).
    pub odom: Pose,
    /// Velocities odometry reports (with noise).
    pub odom_vel: Velocity,
}

impl Vehicle {
    /// A vehicle at rest at `spawn`.
    pub fn new(id: usize, naming: Naming, manifest: Arc<Manifest>, spawn: Pose) -> Self {
        let payload = manifest.body.payload_kg;
        let limits = EffectiveLimits::new(&manifest, payload);
        let joints = manifest
            .drive
            .diff_drive
            .as_ref()
            .map(|d| {
                d.left_joints
                    .iter()
                    .chain(&d.right_joints)
                    .map(|j| (j.clone(), 0.0, 0.0))
                    .collect()
            })
            .unwrap_or_default();
        let landed = manifest.kind == VehicleKind::Multirotor;
        Self {
            id,
            naming,
            manifest,
            pose: spawn,
            spawn,
            vel: Velocity::default(),
            accel: [0.0; 3],
            command: Twist::default(),
            limits,
            payload_kg: payload,
            joints,
            landed,
            riding: None,
            odom: Pose::default(),
            odom_vel: Velocity::default(),
        }
    }

    /// Changes the payload (and so the acceleration and braking limits).
    pub fn set_payload(&mut self, kg: f64) {
        self.payload_kg = kg.max(0.0);
        self.limits = EffectiveLimits::new(&self.manifest, self.payload_kg);
    }

    /// Collision radius.
    pub fn radius(&self) -> f64 {
        self.manifest.body.radius_m
    }

    /// Vertical extent (bottom, top) in the world.
    pub fn z_span(&self) -> (f64, f64) {
        (self.pose.z, self.pose.z + self.manifest.body.height_m)
    }

    /// The vehicle's kind.
    pub fn kind(&self) -> VehicleKind {
        self.manifest.kind
    }
}
