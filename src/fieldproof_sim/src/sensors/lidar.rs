//! Planar lidar: rays cast at the sensor's height against the world's obstacles and the
//! other vehicles (REP 117: +inf when nothing is within range, -inf closer than range_min).

use fieldproof_msgs::sensor_msgs::LaserScan;
use fieldproof_msgs::std_msgs::Header;
use fieldproof_robots::LidarSpec;

use super::Output;
use crate::math::ros_time;
use crate::msg::Msg;
use crate::vehicles::Vehicle;
use crate::world::{Shape, SimWorld};

/// What a ray hit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Hit {
    /// A static obstacle (index in the world).
    Obstacle(usize),
    /// Another vehicle (index in the simulation).
    Vehicle(usize),
}

/// The nearest hit of a horizontal ray from (ox, oy) at height z along `yaw`, within `max`,
/// ignoring vehicle `own`.
pub fn cast(
    world: &SimWorld,
    vehicles: &[Vehicle],
    own: usize,
    (ox, oy, z): (f64, f64, f64),
    yaw: f64,
    max: f64,
) -> Option<(f64, Hit)> {
    let mut best = world
        .ray(ox, oy, z, yaw, max)
        .map(|(d, i)| (d, Hit::Obstacle(i)));
    let (dy, dx) = yaw.sin_cos();
    for other in vehicles {
        if other.id == own {
            continue;
        }
        let (z0, z1) = other.z_span();
        if z < z0 || z > z1 {
            continue;
        }
        let c = Shape::Circle {
            cx: other.pose.x,
            cy: other.pose.y,
            r: other.radius(),
        };
        if let Some(t) = c.ray(ox, oy, dx, dy) {
            if t <= max && best.is_none_or(|(b, _)| t < b) {
                best = Some((t, Hit::Vehicle(other.id)));
            }
        }
    }
    best
}

/// The scan's angles: Gazebo's convention, `samples` rays from -fov/2 to +fov/2 inclusive.
pub fn angles(spec: &LidarSpec) -> (f64, f64, f64) {
    let fov = spec.fov_deg.to_radians();
    let min = -fov / 2.0;
    let inc = if spec.samples > 1 {
        fov / f64::from(spec.samples - 1)
    } else {
        0.0
    };
    (
        min,
        min + inc * f64::from(spec.samples.saturating_sub(1)),
        inc,
    )
}

/// One scan.
pub fn scan(
    out: &mut Output,
    spec: &LidarSpec,
    world: &SimWorld,
    vehicles: &[Vehicle],
    t_ns: i64,
) -> Msg {
    let v = &vehicles[out.vehicle];
    let o = v.pose.apply([out.mount.x, out.mount.y, out.mount.z]);
    let yaw0 = v.pose.yaw + out.mount.yaw;
    let (min, max, inc) = angles(spec);
    let sd = out.noise.range_stddev_m;
    let mut ranges = Vec::with_capacity(spec.samples as usize);
    for i in 0..spec.samples {
        let a = yaw0 + min + inc * f64::from(i);
        let r = match cast(
            world,
            vehicles,
            v.id,
            (o[0], o[1], o[2]),
            a,
            spec.range_max_m,
        ) {
            None => f32::INFINITY,
            Some((d, _)) if d < spec.range_min_m => f32::NEG_INFINITY,
            Some((d, _)) => {
                (d + out.rng.gauss(sd)).clamp(spec.range_min_m, spec.range_max_m) as f32
            }
        };
        ranges.push(r);
    }
    Msg::LaserScan(LaserScan {
        header: Header {
            stamp: ros_time(t_ns),
            frame_id: out.frame_id.clone(),
        },
        angle_min: min as f32,
        angle_max: max as f32,
        angle_increment: inc as f32,
        time_increment: 0.0,
        scan_time: (1.0 / out.rate_hz) as f32,
        range_min: spec.range_min_m as f32,
        range_max: spec.range_max_m as f32,
        intensities: vec![0.0; ranges.len()],
        ranges,
    })
}
