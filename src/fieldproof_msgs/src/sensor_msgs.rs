//! `sensor_msgs`: IMU, GNSS, joints, laser, battery, camera, point cloud and scalar sensors.

use serde::{Deserialize, Serialize};

use crate::{
    geometry_msgs::{Quaternion, Vector3},
    std_msgs::Header,
};

/// `sensor_msgs/msg/Imu`. A covariance with element 0 = -1 means "no estimate".
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Imu {
    /// Stamp and sensor frame.
    pub header: Header,
    /// Orientation.
    pub orientation: Quaternion,
    /// Row-major 3x3 covariance of the orientation.
    pub orientation_covariance: [f64; 9],
    /// Angular velocity, rad/s.
    pub angular_velocity: Vector3,
    /// Row-major 3x3 covariance of the angular velocity.
    pub angular_velocity_covariance: [f64; 9],
    /// Linear acceleration, m/s^2.
    pub linear_acceleration: Vector3,
    /// Row-major 3x3 covariance of the linear acceleration.
    pub linear_acceleration_covariance: [f64; 9],
}

/// `sensor_msgs/msg/NavSatStatus`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct NavSatStatus {
    /// Fix status, one of `STATUS_*`.
    pub status: i8,
    /// Bit mask of `SERVICE_*`.
    pub service: u16,
}

impl NavSatStatus {
    /// Status unknown.
    pub const STATUS_UNKNOWN: i8 = -2;
    /// Unable to fix position.
    pub const STATUS_NO_FIX: i8 = -1;
    /// Unaugmented fix.
    pub const STATUS_FIX: i8 = 0;
    /// Satellite-based augmentation.
    pub const STATUS_SBAS_FIX: i8 = 1;
    /// Ground-based augmentation.
    pub const STATUS_GBAS_FIX: i8 = 2;
    /// Service unknown.
    pub const SERVICE_UNKNOWN: u16 = 0;
    /// GPS.
    pub const SERVICE_GPS: u16 = 1;
    /// GLONASS.
    pub const SERVICE_GLONASS: u16 = 2;
    /// COMPASS (BeiDou).
    pub const SERVICE_COMPASS: u16 = 4;
    /// Galileo.
    pub const SERVICE_GALILEO: u16 = 8;
}

/// `sensor_msgs/msg/NavSatFix`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct NavSatFix {
    /// Stamp and antenna frame.
    pub header: Header,
    /// Fix status.
    pub status: NavSatStatus,
    /// Latitude, degrees.
    pub latitude: f64,
    /// Longitude, degrees.
    pub longitude: f64,
    /// Altitude above the WGS 84 ellipsoid, m.
    pub altitude: f64,
    /// Row-major 3x3 ENU position covariance, m^2.
    pub position_covariance: [f64; 9],
    /// One of `COVARIANCE_TYPE_*`.
    pub position_covariance_type: u8,
}

impl NavSatFix {
    /// Covariance unknown.
    pub const COVARIANCE_TYPE_UNKNOWN: u8 = 0;
    /// Covariance approximated.
    pub const COVARIANCE_TYPE_APPROXIMATED: u8 = 1;
    /// Diagonal known.
    pub const COVARIANCE_TYPE_DIAGONAL_KNOWN: u8 = 2;
    /// Full covariance known.
    pub const COVARIANCE_TYPE_KNOWN: u8 = 3;
}

/// `sensor_msgs/msg/JointState`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct JointState {
    /// Stamp.
    pub header: Header,
    /// Joint names.
    pub name: Vec<String>,
    /// Positions, rad or m.
    pub position: Vec<f64>,
    /// Velocities.
    pub velocity: Vec<f64>,
    /// Efforts.
    pub effort: Vec<f64>,
}

/// `sensor_msgs/msg/LaserScan`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct LaserScan {
    /// Stamp (of the first ray) and scanner frame.
    pub header: Header,
    /// Start angle, rad.
    pub angle_min: f32,
    /// End angle, rad.
    pub angle_max: f32,
    /// Angle between rays, rad.
    pub angle_increment: f32,
    /// Time between rays, s.
    pub time_increment: f32,
    /// Time between scans, s.
    pub scan_time: f32,
    /// Minimum valid range, m.
    pub range_min: f32,
    /// Maximum valid range, m.
    pub range_max: f32,
    /// Ranges, m.
    pub ranges: Vec<f32>,
    /// Intensities (device units).
    pub intensities: Vec<f32>,
}

/// `sensor_msgs/msg/BatteryState`. Unmeasured float fields are NaN in ROS.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct BatteryState {
    /// Stamp.
    pub header: Header,
    /// Voltage, V.
    pub voltage: f32,
    /// Temperature, degC.
    pub temperature: f32,
    /// Current, A (negative when discharging).
    pub current: f32,
    /// Charge, Ah.
    pub charge: f32,
    /// Capacity, Ah.
    pub capacity: f32,
    /// Design capacity, Ah.
    pub design_capacity: f32,
    /// Charge percentage, 0..1.
    pub percentage: f32,
    /// One of `POWER_SUPPLY_STATUS_*`.
    pub power_supply_status: u8,
    /// One of `POWER_SUPPLY_HEALTH_*`.
    pub power_supply_health: u8,
    /// One of `POWER_SUPPLY_TECHNOLOGY_*`.
    pub power_supply_technology: u8,
    /// Whether the battery is present.
    pub present: bool,
    /// Cell voltages, V.
    pub cell_voltage: Vec<f32>,
    /// Cell temperatures, degC.
    pub cell_temperature: Vec<f32>,
    /// Location (slot) name.
    pub location: String,
    /// Serial number.
    pub serial_number: String,
}

impl BatteryState {
    /// Status unknown.
    pub const POWER_SUPPLY_STATUS_UNKNOWN: u8 = 0;
    /// Charging.
    pub const POWER_SUPPLY_STATUS_CHARGING: u8 = 1;
    /// Discharging.
    pub const POWER_SUPPLY_STATUS_DISCHARGING: u8 = 2;
    /// Not charging.
    pub const POWER_SUPPLY_STATUS_NOT_CHARGING: u8 = 3;
    /// Full.
    pub const POWER_SUPPLY_STATUS_FULL: u8 = 4;
    /// Health unknown.
    pub const POWER_SUPPLY_HEALTH_UNKNOWN: u8 = 0;
    /// Good.
    pub const POWER_SUPPLY_HEALTH_GOOD: u8 = 1;
    /// Overheat.
    pub const POWER_SUPPLY_HEALTH_OVERHEAT: u8 = 2;
    /// Dead.
    pub const POWER_SUPPLY_HEALTH_DEAD: u8 = 3;
    /// Overvoltage.
    pub const POWER_SUPPLY_HEALTH_OVERVOLTAGE: u8 = 4;
    /// Unspecified failure.
    pub const POWER_SUPPLY_HEALTH_UNSPEC_FAILURE: u8 = 5;
    /// Cold.
    pub const POWER_SUPPLY_HEALTH_COLD: u8 = 6;
    /// Watchdog timer expired.
    pub const POWER_SUPPLY_HEALTH_WATCHDOG_TIMER_EXPIRE: u8 = 7;
    /// Safety timer expired.
    pub const POWER_SUPPLY_HEALTH_SAFETY_TIMER_EXPIRE: u8 = 8;
    /// Technology unknown.
    pub const POWER_SUPPLY_TECHNOLOGY_UNKNOWN: u8 = 0;
    /// NiMH.
    pub const POWER_SUPPLY_TECHNOLOGY_NIMH: u8 = 1;
    /// Li-ion.
    pub const POWER_SUPPLY_TECHNOLOGY_LION: u8 = 2;
    /// LiPo.
    pub const POWER_SUPPLY_TECHNOLOGY_LIPO: u8 = 3;
    /// LiFePO4.
    pub const POWER_SUPPLY_TECHNOLOGY_LIFE: u8 = 4;
    /// NiCd.
    pub const POWER_SUPPLY_TECHNOLOGY_NICD: u8 = 5;
    /// LiMn.
    pub const POWER_SUPPLY_TECHNOLOGY_LIMN: u8 = 6;
    /// Ternary lithium.
    pub const POWER_SUPPLY_TECHNOLOGY_TERNARY: u8 = 7;
    /// Valve-regulated lead-acid.
    pub const POWER_SUPPLY_TECHNOLOGY_VRLA: u8 = 8;
}

/// `sensor_msgs/msg/Image`. `data` is `uint8[]`, (de)serialized in one copy.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Image {
    /// Stamp and optical frame.
    pub header: Header,
    /// Rows.
    pub height: u32,
    /// Columns.
    pub width: u32,
    /// Pixel encoding, e.g. `rgb8`, `mono8`, `bgr8`, `32FC1`.
    pub encoding: String,
    /// Whether multi-byte pixels are big-endian.
    pub is_bigendian: u8,
    /// Row length in bytes.
    pub step: u32,
    /// Pixels, `step * height` bytes.
    #[serde(with = "serde_bytes")]
    pub data: Vec<u8>,
}

/// `sensor_msgs/msg/RegionOfInterest`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct RegionOfInterest {
    /// Leftmost pixel column.
    pub x_offset: u32,
    /// Topmost pixel row.
    pub y_offset: u32,
    /// Height in pixels.
    pub height: u32,
    /// Width in pixels.
    pub width: u32,
    /// Whether to compute a rectified ROI.
    pub do_rectify: bool,
}

/// `sensor_msgs/msg/CameraInfo`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct CameraInfo {
    /// Stamp and optical frame.
    pub header: Header,
    /// Image rows at calibration.
    pub height: u32,
    /// Image columns at calibration.
    pub width: u32,
    /// Distortion model, e.g. `plumb_bob`.
    pub distortion_model: String,
    /// Distortion parameters.
    pub d: Vec<f64>,
    /// Row-major 3x3 intrinsic matrix.
    pub k: [f64; 9],
    /// Row-major 3x3 rectification matrix.
    pub r: [f64; 9],
    /// Row-major 3x4 projection matrix.
    #[serde(with = "crate::fixed_array")]
    pub p: [f64; 12],
    /// Horizontal binning.
    pub binning_x: u32,
    /// Vertical binning.
    pub binning_y: u32,
    /// Region of interest.
    pub roi: RegionOfInterest,
}

/// `sensor_msgs/msg/PointField`: one field of a PointCloud2 point.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct PointField {
    /// Field name, e.g. `x`.
    pub name: String,
    /// Byte offset within the point.
    pub offset: u32,
    /// One of the datatype constants (`FLOAT32`...).
    pub datatype: u8,
    /// Number of elements.
    pub count: u32,
}

impl PointField {
    /// int8.
    pub const INT8: u8 = 1;
    /// uint8.
    pub const UINT8: u8 = 2;
    /// int16.
    pub const INT16: u8 = 3;
    /// uint16.
    pub const UINT16: u8 = 4;
    /// int32.
    pub const INT32: u8 = 5;
    /// uint32.
    pub const UINT32: u8 = 6;
    /// float32.
    pub const FLOAT32: u8 = 7;
    /// float64.
    pub const FLOAT64: u8 = 8;
}

/// `sensor_msgs/msg/PointCloud2`. `data` is `uint8[]`, (de)serialized in one copy.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct PointCloud2 {
    /// Stamp and sensor frame.
    pub header: Header,
    /// Rows (1 for unordered clouds).
    pub height: u32,
    /// Points per row.
    pub width: u32,
    /// Point layout.
    pub fields: Vec<PointField>,
    /// Whether the data is big-endian.
    pub is_bigendian: bool,
    /// Bytes per point.
    pub point_step: u32,
    /// Bytes per row.
    pub row_step: u32,
    /// Points, `row_step * height` bytes.
    #[serde(with = "serde_bytes")]
    pub data: Vec<u8>,
    /// Whether there are no invalid points.
    pub is_dense: bool,
}

/// `sensor_msgs/msg/MagneticField`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct MagneticField {
    /// Stamp and sensor frame.
    pub header: Header,
    /// Field, tesla.
    pub magnetic_field: Vector3,
    /// Row-major 3x3 covariance.
    pub magnetic_field_covariance: [f64; 9],
}

/// `sensor_msgs/msg/FluidPressure`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct FluidPressure {
    /// Stamp and sensor frame.
    pub header: Header,
    /// Absolute pressure, Pa.
    pub fluid_pressure: f64,
    /// Variance, 0 if unknown.
    pub variance: f64,
}

/// `sensor_msgs/msg/Temperature`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Temperature {
    /// Stamp and sensor frame.
    pub header: Header,
    /// Temperature, degC.
    pub temperature: f64,
    /// Variance, 0 if unknown.
    pub variance: f64,
}

/// `sensor_msgs/msg/Range`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Range {
    /// Stamp and sensor frame.
    pub header: Header,
    /// `ULTRASOUND` or `INFRARED`.
    pub radiation_type: u8,
    /// Arc angle, rad.
    pub field_of_view: f32,
    /// Minimum range, m.
    pub min_range: f32,
    /// Maximum range, m.
    pub max_range: f32,
    /// Measured range, m (`-inf`/`+inf` for below/above limits).
    pub range: f32,
    /// Variance, m^2, 0 if unknown.
    pub variance: f32,
}

impl Range {
    /// Ultrasound sensor.
    pub const ULTRASOUND: u8 = 0;
    /// Infrared sensor.
    pub const INFRARED: u8 = 1;
}

crate::ros_message!(Imu, "sensor_msgs/msg/Imu", stamped);
crate::ros_message!(NavSatStatus, "sensor_msgs/msg/NavSatStatus");
crate::ros_message!(NavSatFix, "sensor_msgs/msg/NavSatFix", stamped);
crate::ros_message!(JointState, "sensor_msgs/msg/JointState", stamped);
crate::ros_message!(LaserScan, "sensor_msgs/msg/LaserScan", stamped);
crate::ros_message!(BatteryState, "sensor_msgs/msg/BatteryState", stamped);
crate::ros_message!(Image, "sensor_msgs/msg/Image", stamped);
crate::ros_message!(RegionOfInterest, "sensor_msgs/msg/RegionOfInterest");
crate::ros_message!(CameraInfo, "sensor_msgs/msg/CameraInfo", stamped);
crate::ros_message!(PointField, "sensor_msgs/msg/PointField");
crate::ros_message!(PointCloud2, "sensor_msgs/msg/PointCloud2", stamped);
crate::ros_message!(MagneticField, "sensor_msgs/msg/MagneticField", stamped);
crate::ros_message!(FluidPressure, "sensor_msgs/msg/FluidPressure", stamped);
crate::ros_message!(Temperature, "sensor_msgs/msg/Temperature", stamped);
crate::ros_message!(Range, "sensor_msgs/msg/Range", stamped);
