//! Sensors and drive outputs: what each interface of a manifest publishes, when (on the
//! simulation-time grid of its rate) and with which seeded noise.

pub mod camera;
pub mod drive;
pub mod imu;
pub mod lidar;
pub mod navsat;

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use rand_distr::StandardNormal;

use fieldproof_robots::{Manifest, Noise};

use crate::math::{wrap_angle, Pose};

/// What an output produces.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OutputKind {
    /// `nav_msgs/msg/Odometry`.
    Odometry,
    /// odom -> base_link (and the wheels, when the sim plays robot_state_publisher).
    Tf,
    /// `sensor_msgs/msg/JointState`.
    JointStates,
    /// Multirotor landed state, `std_msgs/msg/Bool`.
    Landed,
    /// Carrier pads, `geometry_msgs/msg/PoseArray`.
    Pads,
    /// `sensor_msgs/msg/Imu`.
    Imu,
    /// `sensor_msgs/msg/NavSatFix`.
    NavSat,
    /// `sensor_msgs/msg/LaserScan`.
    Scan,
    /// Colour image.
    Image,
    /// Camera calibration.
    CameraInfo,
    /// Depth image (32FC1).
    DepthImage,
    /// Point cloud of the depth camera.
    Points,
}

/// Publication times on the simulation clock: `start + k / rate`, each taken at the first
/// physics step at or after it (the average rate is exact, the spacing is on the step grid).
#[derive(Debug, Clone, PartialEq)]
pub struct Schedule {
    period_ns: f64,
    start_ns: i64,
    k: u64,
}

impl Schedule {
    /// A schedule of `rate_hz` whose first publication is at `start_ns`.
    pub fn new(rate_hz: f64, start_ns: i64) -> Self {
        Self {
            period_ns: 1e9 / rate_hz,
            start_ns,
            k: 0,
        }
    }

    /// The next due time.
    pub fn next_ns(&self) -> i64 {
        self.start_ns + (self.k as f64 * self.period_ns).round() as i64
    }

    /// True (and advances) when a publication is due at `t_ns`; skips missed slots.
    pub fn due(&mut self, t_ns: i64) -> bool {
        if t_ns < self.next_ns() {
            return false;
        }
        while self.next_ns() <= t_ns {
            self.k += 1;
        }
        true
    }
}

/// A seeded Gaussian noise source.
#[derive(Debug, Clone)]
pub struct NoiseSource {
    rng: StdRng,
}

impl NoiseSource {
    /// A source seeded from the run's seed and a stable name (vehicle and interface), so
    /// adding a vehicle or a sensor does not change the others' noise.
    pub fn new(seed: u64, name: &str) -> Self {
        // FNV-1a: stable across Rust versions, unlike std's hasher.
        let mut h: u64 = 0xcbf2_9ce4_8422_2325;
        for b in name.bytes() {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
        Self {
            rng: StdRng::seed_from_u64(seed ^ h),
        }
    }

    /// A sample of N(0, stddev²) (0 without a figure).
    pub fn gauss(&mut self, stddev: Option<f64>) -> f64 {
        match stddev {
            Some(s) if s > 0.0 => {
                let z: f64 = self.rng.sample(StandardNormal);
                z * s
            }
            _ => 0.0,
        }
    }
}

/// The pose of `frame` relative to the base frame, from the description's fixed frames
/// (planar: translation and yaw; zero for a frame the description does not list).
pub fn frame_offset(m: &Manifest, frame: &str) -> Pose {
    let Some(d) = &m.description else {
        return Pose::default();
    };
    let mut chain = Vec::new();
    let mut cur = frame;
    while let Some(f) = d.frames.iter().find(|f| f.child == cur) {
        chain.push(f);
        cur = &f.parent;
        if chain.len() > d.frames.len() {
            break;
        }
    }
    let mut pose = Pose::default();
    for f in chain.iter().rev() {
        let p = pose.apply(f.xyz);
        pose = Pose {
            x: p[0],
            y: p[1],
            z: p[2],
            yaw: wrap_angle(pose.yaw + f.rpy[2]),
        };
    }
    pose
}

/// One output of one vehicle.
#[derive(Debug, Clone)]
pub struct Output {
    /// The vehicle.
    pub vehicle: usize,
    /// What it produces.
    pub kind: OutputKind,
    /// Topic index in the simulation's topic table.
    pub topic: usize,
    /// Frame stamped on the messages (prefixed).
    pub frame_id: String,
    /// Child frame (odometry, TF; prefixed).
    pub child_frame_id: String,
    /// When it publishes.
    pub schedule: Schedule,
    /// The sensor in the manifest.
    pub sensor: Option<usize>,
    /// Noise figures.
    pub noise: Noise,
    /// Its noise stream.
    pub rng: NoiseSource,
    /// Mounting of the sensor frame on the base.
    pub mount: Pose,
    /// Rate of the output.
    pub rate_hz: f64,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn schedule_keeps_the_average_rate_on_the_step_grid() {
        let mut s = Schedule::new(15.0, 0);
        let step = 1_000_000;
        let hits: Vec<i64> = (0..=1000).map(|i| i * step).filter(|t| s.due(*t)).collect();
        assert_eq!(hits.len(), 16); // t = 0 and 15 more in one second
        assert_eq!(hits[1], 67 * step);
        assert_eq!(hits[15], 1000 * step);
    }

    #[test]
    fn noise_is_reproducible_per_name() {
        let a: Vec<f64> = {
            let mut n = NoiseSource::new(7, "ugv1/imu");
            (0..5).map(|_| n.gauss(Some(1.0))).collect()
        };
        let b: Vec<f64> = {
            let mut n = NoiseSource::new(7, "ugv1/imu");
            (0..5).map(|_| n.gauss(Some(1.0))).collect()
        };
        let c = NoiseSource::new(7, "ugv2/imu").gauss(Some(1.0));
        assert_eq!(a, b);
        assert_ne!(a[0], c);
        assert_eq!(NoiseSource::new(7, "x").gauss(None), 0.0);
    }
}
