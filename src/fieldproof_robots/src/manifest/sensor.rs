//! Sensors: their kinds, noise figures and kind-specific specifications.

use serde::{Deserialize, Serialize};

use super::Interface;

/// Noise figures (standard deviations); which apply depends on the sensor type.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Noise {
    /// IMU angular velocity.
    #[serde(default)]
    pub gyro_stddev_radps: Option<f64>,
    /// IMU linear acceleration.
    #[serde(default)]
    pub accel_stddev_mps2: Option<f64>,
    /// IMU orientation (unknown covariance unless given).
    #[serde(default)]
    pub orientation_stddev_rad: Option<f64>,
    /// GNSS horizontal position.
    #[serde(default)]
    pub horizontal_stddev_m: Option<f64>,
    /// GNSS vertical position.
    #[serde(default)]
    pub vertical_stddev_m: Option<f64>,
    /// Range sensors (lidar, depth).
    #[serde(default)]
    pub range_stddev_m: Option<f64>,
    /// Odometry linear velocity.
    #[serde(default)]
    pub velocity_stddev_mps: Option<f64>,
    /// Odometry yaw rate.
    #[serde(default)]
    pub yaw_rate_stddev_radps: Option<f64>,
    /// Camera pixel intensity (0-255 scale).
    #[serde(default)]
    pub pixel_stddev: Option<f64>,
}

impl Noise {
    const FIELDS: [&'static str; 9] = [
        "gyro_stddev_radps",
        "accel_stddev_mps2",
        "orientation_stddev_rad",
        "horizontal_stddev_m",
        "vertical_stddev_m",
        "range_stddev_m",
        "velocity_stddev_mps",
        "yaw_rate_stddev_radps",
        "pixel_stddev",
    ];

    fn values(&self) -> [Option<f64>; 9] {
        [
            self.gyro_stddev_radps,
            self.accel_stddev_mps2,
            self.orientation_stddev_rad,
            self.horizontal_stddev_m,
            self.vertical_stddev_m,
            self.range_stddev_m,
            self.velocity_stddev_mps,
            self.yaw_rate_stddev_radps,
            self.pixel_stddev,
        ]
    }

    /// The figures that are set, by name.
    pub fn set_fields(&self) -> Vec<(&'static str, f64)> {
        Self::FIELDS
            .iter()
            .zip(self.values())
            .filter_map(|(n, v)| v.map(|v| (*n, v)))
            .collect()
    }

    /// `self`'s figures, each falling back to `base`'s.
    pub fn or(&self, base: &Noise) -> Noise {
        Noise {
            gyro_stddev_radps: self.gyro_stddev_radps.or(base.gyro_stddev_radps),
            accel_stddev_mps2: self.accel_stddev_mps2.or(base.accel_stddev_mps2),
            orientation_stddev_rad: self.orientation_stddev_rad.or(base.orientation_stddev_rad),
            horizontal_stddev_m: self.horizontal_stddev_m.or(base.horizontal_stddev_m),
            vertical_stddev_m: self.vertical_stddev_m.or(base.vertical_stddev_m),
            range_stddev_m: self.range_stddev_m.or(base.range_stddev_m),
            velocity_stddev_mps: self.velocity_stddev_mps.or(base.velocity_stddev_mps),
            yaw_rate_stddev_radps: self.yaw_rate_stddev_radps.or(base.yaw_rate_stddev_radps),
            pixel_stddev: self.pixel_stddev.or(base.pixel_stddev),
        }
    }
}

/// A sensor and its ROS outputs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Sensor {
    /// Name (`lidar`); for an optional sensor also the xacro argument `--without` sets false.
    pub name: String,
    /// What the sensor measures.
    #[serde(rename = "type")]
    pub kind: SensorKind,
    /// May be left out (`bridge_gen --without <name>`).
    #[serde(default)]
    pub optional: bool,
    /// The frame the sensor is mounted in.
    pub frame_id: String,
    /// Update rate.
    pub rate_hz: f64,
    /// Noise figures of every output.
    #[serde(default)]
    pub noise: Noise,
    /// Lidar geometry (`type: lidar`).
    #[serde(default)]
    pub lidar: Option<LidarSpec>,
    /// Camera geometry (`type: camera`).
    #[serde(default)]
    pub camera: Option<CameraSpec>,
    /// The ROS topics the sensor's data reaches.
    pub outputs: Vec<Interface>,
    /// Used by `extends` to drop an inherited sensor; never true after loading.
    #[serde(default, skip_serializing)]
    pub remove: bool,
}

/// Sensor types.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SensorKind {
    /// Inertial measurement unit.
    Imu,
    /// Satellite navigation receiver.
    Gnss,
    /// Planar laser scanner.
    Lidar,
    /// RGB-D camera.
    Camera,
}

impl SensorKind {
    /// The output names this sensor type has and the ROS type each must carry.
    pub fn outputs(self) -> &'static [(&'static str, &'static str)] {
        match self {
            SensorKind::Imu => &[("data", "sensor_msgs/msg/Imu")],
            SensorKind::Gnss => &[("fix", "sensor_msgs/msg/NavSatFix")],
            SensorKind::Lidar => &[("scan", "sensor_msgs/msg/LaserScan")],
            SensorKind::Camera => &[
                ("image", "sensor_msgs/msg/Image"),
                ("camera_info", "sensor_msgs/msg/CameraInfo"),
                ("depth_image", "sensor_msgs/msg/Image"),
                ("points", "sensor_msgs/msg/PointCloud2"),
            ],
        }
    }

    /// The noise figures that apply to this sensor type.
    pub fn noise_fields(self) -> &'static [&'static str] {
        match self {
            SensorKind::Imu => &[
                "gyro_stddev_radps",
                "accel_stddev_mps2",
                "orientation_stddev_rad",
            ],
            SensorKind::Gnss => &["horizontal_stddev_m", "vertical_stddev_m"],
            SensorKind::Lidar => &["range_stddev_m"],
            SensorKind::Camera => &["range_stddev_m", "pixel_stddev"],
        }
    }

    pub(super) fn as_str(self) -> &'static str {
        match self {
            SensorKind::Imu => "imu",
            SensorKind::Gnss => "gnss",
            SensorKind::Lidar => "lidar",
            SensorKind::Camera => "camera",
        }
    }
}

/// A planar lidar.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LidarSpec {
    /// Rays per scan.
    pub samples: u32,
    /// Horizontal field of view, centred on +x (360 for a full turn).
    pub fov_deg: f64,
    /// Shortest range reported.
    pub range_min_m: f64,
    /// Longest range reported (beyond: +inf).
    pub range_max_m: f64,
}

/// A camera.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CameraSpec {
    /// Image width in pixels.
    pub width: u32,
    /// Image height in pixels.
    pub height: u32,
    /// Colour encoding (`rgb8`).
    #[serde(default = "default_encoding")]
    pub encoding: String,
    /// Horizontal field of view.
    pub hfov_deg: f64,
    /// Nearest depth.
    #[serde(default = "default_near")]
    pub near_m: f64,
    /// Farthest depth.
    #[serde(default = "default_far")]
    pub far_m: f64,
}

fn default_encoding() -> String {
    "rgb8".into()
}
fn default_near() -> f64 {
    0.1
}
fn default_far() -> f64 {
    10.0
}
