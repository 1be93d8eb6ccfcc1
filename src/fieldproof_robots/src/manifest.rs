//! The vehicle manifest (`robots/<name>/robot.yaml`): drive, sensors, power, description,
//! runtime. Every ROS interface a vehicle has is an [`Interface`]; the bridge generator and
//! the simulator read the flattened, resolved list from [`Manifest::interfaces`].

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::error::{Error, FieldPath, Issues};
use crate::load;

/// Longest manifest `name`: it becomes a Gazebo model name inside topic names
/// (`/model/<name>/odom`) and a directory name (`<name>_bridge`), so it must leave room for
/// a namespace within ROS 2's 245-character limit.
pub const MAX_NAME_LEN: usize = 64;
/// Widest camera image, in pixels.
pub const MAX_CAMERA_WIDTH: u32 = 4096;
/// Tallest camera image, in pixels.
pub const MAX_CAMERA_HEIGHT: u32 = 4096;
/// Most rays in one lidar scan.
pub const MAX_LIDAR_SAMPLES: u32 = 16_384;
/// Fastest rate of any sensor, topic or Gazebo publisher (Gazebo's physics step, 1 kHz,
/// is the fastest a simulated source publishes: `gz_rate: 1000` for joint states).
pub const MAX_RATE_HZ: f64 = 1000.0;
/// Deepest QoS history: the range of the adapters' `qos_depth` parameter.
pub const MAX_QOS_DEPTH: u32 = 100_000;

/// A vehicle manifest, loaded and validated.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Manifest {
    /// The model's name (`ugv_ref`); also the Gazebo model name in `gz_topic`s.
    pub name: String,
    /// What kind of vehicle this is.
    pub kind: VehicleKind,
    /// One line saying what the vehicle is.
    #[serde(default)]
    pub summary: Option<String>,
    /// Mass, payload and collision footprint.
    pub body: Body,
    /// How the vehicle moves and what its drive system publishes.
    pub drive: Drive,
    /// The sensors, each with its ROS outputs.
    #[serde(default)]
    pub sensors: Vec<Sensor>,
    /// Power system (the synthetic battery).
    #[serde(default)]
    pub power: Option<Power>,
    /// Robot description: xacro and the frames robot_state_publisher publishes.
    #[serde(default)]
    pub description: Option<Description>,
    /// What the vehicle's software expects at run time (radio link heartbeat).
    #[serde(default)]
    pub runtime: Option<Runtime>,
    /// Where the manifest was loaded from (the leaf of its `extends` chain).
    #[serde(skip)]
    pub source: PathBuf,
    /// The `extends` chain, leaf first (just `source` without `extends`).
    #[serde(skip)]
    pub chain: Vec<PathBuf>,
}

/// The kind of vehicle, which selects the simulator's motion model.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum VehicleKind {
    /// A wheeled ground vehicle.
    Ugv,
    /// A multirotor aircraft.
    Multirotor,
    /// A moving platform carrying landing pads.
    Carrier,
}

/// Mass and footprint.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Body {
    /// Empty mass.
    pub mass_kg: f64,
    /// Payload carried at spawn.
    #[serde(default)]
    pub payload_kg: f64,
    /// Largest payload the vehicle may carry.
    pub max_payload_kg: f64,
    /// Radius of the circular collision footprint.
    pub radius_m: f64,
    /// Height of the body (for the lidar plane and landing).
    #[serde(default = "default_height")]
    pub height_m: f64,
}

fn default_height() -> f64 {
    0.3
}

/// The drive system: one motion model and its interfaces.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Drive {
    /// The motion model.
    #[serde(rename = "type")]
    pub kind: DriveKind,
    /// Velocity command the vehicle subscribes to (`geometry_msgs/msg/Twist`).
    pub command: Interface,
    /// Wheel / platform odometry.
    pub odometry: Interface,
    /// Joint states (wheel joints), if the drive has joints.
    #[serde(default)]
    pub joint_states: Option<Interface>,
    /// The odom -> base_link transform as `tf2_msgs/msg/TFMessage`.
    #[serde(default)]
    pub tf: Option<Interface>,
    /// Landed/airborne state of a multirotor (`std_msgs/msg/Bool`, true when landed).
    #[serde(default)]
    pub landed: Option<Interface>,
    /// Landing pad poses of a carrier (`geometry_msgs/msg/PoseArray`, world frame).
    #[serde(default)]
    pub pads: Option<Interface>,
    /// Speed and acceleration limits.
    pub limits: Limits,
    /// Geometry of a differential drive (`type: diff_drive`).
    #[serde(default)]
    pub diff_drive: Option<DiffDrive>,
    /// Parameters of a multirotor (`type: multirotor`).
    #[serde(default)]
    pub multirotor: Option<Multirotor>,
    /// The deck of a carrier (`type: carrier`).
    #[serde(default)]
    pub carrier: Option<Carrier>,
}

/// The motion model of a drive.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DriveKind {
    /// Two driven wheel sets (Gazebo's DiffDrive system).
    DiffDrive,
    /// Velocity-controlled multirotor (Gazebo's MulticopterVelocityControl).
    Multirotor,
    /// Velocity-controlled platform with landing pads.
    Carrier,
}

/// Speed and acceleration limits of a drive.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Limits {
    /// Largest forward (horizontal) speed.
    pub max_linear_mps: f64,
    /// Largest reverse speed (default: `max_linear_mps`).
    #[serde(default)]
    pub max_reverse_mps: Option<f64>,
    /// Largest yaw rate.
    pub max_angular_radps: f64,
    /// Largest linear acceleration (unloaded).
    pub max_linear_accel_mps2: f64,
    /// Largest linear deceleration (braking, unloaded).
    pub max_linear_decel_mps2: f64,
    /// Largest yaw acceleration.
    pub max_angular_accel_radps2: f64,
    /// Largest climb / descent rate (multirotor).
    #[serde(default)]
    pub max_vertical_mps: Option<f64>,
}

/// Differential drive geometry.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DiffDrive {
    /// Distance between the left and right wheels.
    pub wheel_separation_m: f64,
    /// Wheel radius.
    pub wheel_radius_m: f64,
    /// Joints of the left wheels (joint_states names).
    pub left_joints: Vec<String>,
    /// Joints of the right wheels.
    pub right_joints: Vec<String>,
}

/// Multirotor parameters.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Multirotor {
    /// Highest altitude above the world's ground the vehicle may reach.
    pub max_altitude_m: f64,
    /// Height of the vehicle's base above the surface it stands on when landed.
    #[serde(default)]
    pub landed_height_m: f64,
}

/// A carrier's deck and landing pads.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Carrier {
    /// Height of the deck above the ground (vehicles landed on a pad stand on it).
    pub deck_height_m: f64,
    /// The landing pads.
    pub pads: Vec<Pad>,
}

/// A landing pad on a carrier's deck.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Pad {
    /// Pad name (`pad_0`), also its frame name.
    pub name: String,
    /// Centre in the carrier's base_link frame (x, y).
    pub xy: [f64; 2],
    /// Pad radius.
    pub radius_m: f64,
}

/// A ROS interface: one topic with the Gazebo topic ros_gz_bridge maps it from.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Interface {
    /// The output's name within its sensor (`image`, `scan`); drive interfaces have none.
    #[serde(default)]
    pub name: Option<String>,
    /// ROS topic: relative (`odom`, namespaced) or global (`/clock`).
    pub ros_topic: String,
    /// ROS type (`nav_msgs/msg/Odometry`).
    pub ros_type: String,
    /// Gazebo topic ros_gz_bridge maps.
    pub gz_topic: String,
    /// Gazebo type (`gz.msgs.Odometry`).
    pub gz_type: String,
    /// Frame the simulator stamps (default: the sensor's).
    #[serde(default)]
    pub frame_id: Option<String>,
    /// Child frame (odometry, TF).
    #[serde(default)]
    pub child_frame_id: Option<String>,
    /// Frame on the ROS side when it differs from `frame_id` (relabelled by the bridge).
    #[serde(default)]
    pub ros_frame_id: Option<String>,
    /// Rate of the ROS topic (default: the sensor's).
    #[serde(default)]
    pub rate_hz: Option<f64>,
    /// Rate Gazebo publishes at when faster than `rate_hz` (gets the throttle).
    #[serde(default)]
    pub gz_rate: Option<f64>,
    /// QoS of the ROS topic.
    #[serde(default)]
    pub qos: Qos,
    /// Noise figures (default: the sensor's).
    #[serde(default)]
    pub noise: Option<Noise>,
    /// `true` puts a fault injector (the relay) in front of an output the bridge rule would
    /// bridge directly (camera images, camera info, point clouds); `false` bridges a
    /// relay-served output directly. Default: the rule ([`crate::bridge::adapter_for`]).
    #[serde(default)]
    pub fault_injector: Option<bool>,
    /// Used by `extends` to drop an inherited output; never true after loading.
    #[serde(default, skip_serializing)]
    pub remove: bool,
}

/// QoS of a ROS topic; the defaults are what ros_gz_bridge publishes with.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Qos {
    /// Reliability (default reliable).
    #[serde(default)]
    pub reliability: Reliability,
    /// Durability (default volatile).
    #[serde(default)]
    pub durability: Durability,
    /// History depth, keep-last (default 10).
    #[serde(default = "default_depth")]
    pub depth: u32,
}

fn default_depth() -> u32 {
    10
}

impl Default for Qos {
    fn default() -> Self {
        Self {
            reliability: Reliability::Reliable,
            durability: Durability::Volatile,
            depth: 10,
        }
    }
}

impl Qos {
    /// Reliable, transient local, depth 1: latched state (tf_static, robot_description).
    pub fn latched() -> Self {
        Self {
            reliability: Reliability::Reliable,
            durability: Durability::TransientLocal,
            depth: 1,
        }
    }
}

/// QoS reliability.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Reliability {
    /// Retransmitted until acknowledged.
    #[default]
    Reliable,
    /// Sent once.
    BestEffort,
}

impl Reliability {
    /// The name ROS 2 parameters and this file use (`reliable`, `best_effort`).
    pub fn name(&self) -> &'static str {
        match self {
            Reliability::Reliable => "reliable",
            Reliability::BestEffort => "best_effort",
        }
    }
}

/// QoS durability.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Durability {
    /// Only samples published after a reader joins.
    #[default]
    Volatile,
    /// The writer's history is replayed to late joiners.
    TransientLocal,
}

impl Durability {
    /// The name ROS 2 parameters and this file use (`volatile`, `transient_local`).
    pub fn name(&self) -> &'static str {
        match self {
            Durability::Volatile => "volatile",
            Durability::TransientLocal => "transient_local",
        }
    }
}

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

    fn as_str(self) -> &'static str {
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

/// Power system.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Power {
    /// The synthetic battery the battery node publishes.
    #[serde(default)]
    pub battery: Option<Battery>,
}

/// A battery (published by the battery node as `sensor_msgs/msg/BatteryState`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Battery {
    /// ROS topic (default `battery_state`).
    #[serde(default = "default_battery_topic")]
    pub ros_topic: String,
    /// Publication rate.
    pub rate_hz: f64,
    /// Voltage when full.
    pub full_voltage_v: f64,
    /// Voltage when empty.
    pub empty_voltage_v: f64,
    /// Capacity.
    pub capacity_ah: f64,
    /// Frame of the battery state.
    pub frame_id: String,
    /// QoS of the topic.
    #[serde(default)]
    pub qos: Qos,
}

fn default_battery_topic() -> String {
    "battery_state".into()
}

/// The robot description robot_state_publisher works from.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Description {
    /// The xacro file, relative to the manifest that declares it (after loading: the path
    /// resolved against that manifest's directory).
    pub xacro: String,
    /// Arguments the xacro is rendered with (besides namespace and frame prefix).
    #[serde(default)]
    pub xacro_args: BTreeMap<String, String>,
    /// The fixed frames (published once on tf_static).
    #[serde(default)]
    pub frames: Vec<StaticFrame>,
    /// The moving joints (wheels), whose transforms follow joint_states.
    #[serde(default)]
    pub joints: Vec<Joint>,
}

/// A fixed transform parent -> child.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StaticFrame {
    /// Parent frame.
    pub parent: String,
    /// Child frame.
    pub child: String,
    /// Translation.
    #[serde(default)]
    pub xyz: [f64; 3],
    /// Rotation (roll, pitch, yaw in radians).
    #[serde(default)]
    pub rpy: [f64; 3],
    /// The optional sensor this frame belongs to (dropped with it by `--without`).
    #[serde(default)]
    pub sensor: Option<String>,
    /// Used by `extends` to drop an inherited frame.
    #[serde(default, skip_serializing)]
    pub remove: bool,
}

/// A continuous (wheel) joint.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Joint {
    /// Joint name (as in joint_states).
    pub name: String,
    /// Parent frame.
    pub parent: String,
    /// Child frame.
    pub child: String,
    /// Translation of the joint origin.
    #[serde(default)]
    pub xyz: [f64; 3],
    /// Rotation of the joint origin.
    #[serde(default)]
    pub rpy: [f64; 3],
    /// Rotation axis.
    pub axis: [f64; 3],
    /// Used by `extends` to drop an inherited joint.
    #[serde(default, skip_serializing)]
    pub remove: bool,
}

/// Run-time expectations of the vehicle's software.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Runtime {
    /// The radio link to the ground station.
    #[serde(default)]
    pub link: Option<Link>,
}

/// What the vehicle expects from its ground station and does without it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Link {
    /// The heartbeat the ground station sends (`std_msgs/msg/Header`).
    #[serde(default)]
    pub heartbeat: Option<Heartbeat>,
    /// Time without a heartbeat after which the link counts as lost (simulation time).
    #[serde(default = "default_link_timeout")]
    pub timeout_s: f64,
    /// What the failsafe does once the link is lost.
    #[serde(default)]
    pub loss_action: LossAction,
    /// The documented loss-of-link behaviour, in words.
    #[serde(default)]
    pub loss_behaviour: Option<String>,
}

fn default_link_timeout() -> f64 {
    2.0
}

/// The ground station heartbeat.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Heartbeat {
    /// Topic, relative to the vehicle's namespace (`gcs/heartbeat`).
    pub topic: String,
    /// Heartbeat rate.
    pub rate_hz: f64,
    /// QoS (default best effort, volatile, depth 1).
    #[serde(default = "heartbeat_qos")]
    pub qos: Qos,
}

fn heartbeat_qos() -> Qos {
    Heartbeat::default_qos()
}

impl Heartbeat {
    /// The heartbeat's QoS when the manifest names none: best effort, volatile, depth 1.
    pub fn default_qos() -> Qos {
        Qos {
            reliability: Reliability::BestEffort,
            durability: Durability::Volatile,
            depth: 1,
        }
    }
}

/// The failsafe action on loss of link.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LossAction {
    /// Zero velocity until the link is back.
    #[default]
    Stop,
    /// Hold position (multirotor hover).
    Hold,
    /// Land where it is.
    Land,
    /// Return to the launch point.
    ReturnHome,
    /// Carry on.
    Continue,
}

impl LossAction {
    /// The name this file and link_monitor's `loss_action` parameter use.
    pub fn name(&self) -> &'static str {
        match self {
            LossAction::Stop => "stop",
            LossAction::Hold => "hold",
            LossAction::Land => "land",
            LossAction::ReturnHome => "return_home",
            LossAction::Continue => "continue",
        }
    }
}

/// Where an interface sits in the manifest.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InterfaceSource {
    /// `drive.command`.
    Command,
    /// `drive.odometry`.
    Odometry,
    /// `drive.joint_states`.
    JointStates,
    /// `drive.tf`.
    Tf,
    /// `drive.landed`.
    Landed,
    /// `drive.pads`.
    Pads,
    /// `sensors[sensor].outputs[output]`.
    Sensor {
        /// Index into `sensors`.
        sensor: usize,
        /// Index into that sensor's `outputs`.
        output: usize,
    },
}

/// Whether the vehicle publishes or subscribes the ROS topic.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// The simulated vehicle publishes it.
    Publisher,
    /// The simulated vehicle subscribes it (the drive command).
    Subscriber,
}

/// An interface with the sensor-level defaults applied: what the bridge generator and the
/// simulator work from.
#[derive(Debug, Clone, PartialEq)]
pub struct ResolvedInterface<'a> {
    /// Field path in the manifest (`drive.odometry`, `sensors[2].outputs[0]`).
    pub path: String,
    /// Where it sits.
    pub source: InterfaceSource,
    /// The raw interface.
    pub spec: &'a Interface,
    /// The sensor it belongs to.
    pub sensor: Option<&'a Sensor>,
    /// Publisher or subscriber.
    pub role: Role,
    /// The frame the simulator stamps.
    pub frame_id: Option<&'a str>,
    /// The frame on the ROS side (`ros_frame_id`, else `frame_id`).
    pub ros_frame_id: Option<&'a str>,
    /// ROS rate.
    pub rate_hz: Option<f64>,
    /// Noise, the output's figures over the sensor's.
    pub noise: Noise,
    /// True if it belongs to an optional sensor.
    pub optional: bool,
}

impl ResolvedInterface<'_> {
    /// True when the bridge relabels the frame (`ros_frame_id` differs from `frame_id`).
    pub fn relabelled(&self) -> bool {
        self.spec.ros_frame_id.is_some() && self.ros_frame_id != self.frame_id
    }

    /// The sensor type, for a sensor output.
    pub fn sensor_kind(&self) -> Option<SensorKind> {
        self.sensor.map(|s| s.kind)
    }
}

impl Manifest {
    /// Loads a manifest, resolving its `extends` chain, then validates it.
    pub fn load(path: impl AsRef<Path>) -> Result<Self, Error> {
        let path = path.as_ref();
        let (value, chain) = load::load_with_extends(path)?;
        let mut m: Manifest = load::typed(path, value)?;
        m.source = path.to_path_buf();
        m.chain = chain;
        m.validate()?;
        Ok(m)
    }

    /// Parses and validates a manifest from YAML text (no `extends`); `name` is used in
    /// errors and to resolve the description path.
    pub fn from_yaml(name: impl AsRef<Path>, text: &str) -> Result<Self, Error> {
        let name = name.as_ref();
        let mut value = load::parse_yaml(name, text)?;
        load::resolve_paths(&mut value, name.parent().unwrap_or(Path::new(".")));
        if let Some(m) = value.as_mapping_mut() {
            if m.contains_key("extends") {
                return Err(Error::Field {
                    file: name.to_path_buf(),
                    path: FieldPath::root().key("extends"),
                    message: "extends needs a manifest loaded from a file".into(),
                });
            }
        }
        let mut m: Manifest = load::typed(name, value)?;
        m.source = name.to_path_buf();
        m.chain = vec![name.to_path_buf()];
        m.validate()?;
        Ok(m)
    }

    /// The directory the manifest's relative paths are taken from.
    pub fn base_dir(&self) -> &Path {
        self.source.parent().unwrap_or(Path::new("."))
    }

    /// The path of the description's xacro (`description.xacro` is resolved at load time
    /// against the directory of the manifest that declares it).
    pub fn xacro_path(&self) -> Option<PathBuf> {
        self.description.as_ref().map(|d| PathBuf::from(&d.xacro))
    }

    /// The sensor of that name.
    pub fn sensor(&self, name: &str) -> Option<&Sensor> {
        self.sensors.iter().find(|s| s.name == name)
    }

    /// The optional sensors' names.
    pub fn optional_sensors(&self) -> Vec<&str> {
        self.sensors
            .iter()
            .filter(|s| s.optional)
            .map(|s| s.name.as_str())
            .collect()
    }

    /// A copy without the given optional sensors (`--without`): their outputs and frames
    /// go, and the xacro argument of the same name becomes `false`.
    pub fn without(&self, names: &[&str]) -> Result<Manifest, Error> {
        let mut m = self.clone();
        for name in names {
            let Some(i) = m.sensors.iter().position(|s| s.name == *name) else {
                return Err(Error::Field {
                    file: self.source.clone(),
                    path: FieldPath::root().key("sensors"),
                    message: format!(
                        "no sensor named {name} (optional sensors: {})",
                        self.optional_sensors().join(", ")
                    ),
                });
            };
            if !m.sensors[i].optional {
                return Err(Error::Field {
                    file: self.source.clone(),
                    path: FieldPath::root().key("sensors").index(i).key("optional"),
                    message: format!("sensor {name} is not optional, it cannot be left out"),
                });
            }
            m.sensors.remove(i);
            if let Some(d) = m.description.as_mut() {
                d.frames.retain(|f| f.sensor.as_deref() != Some(*name));
                d.xacro_args.insert(name.to_string(), "false".into());
            }
        }
        Ok(m)
    }

    /// Every interface, drive first then sensor outputs, with defaults applied.
    pub fn interfaces(&self) -> Vec<ResolvedInterface<'_>> {
        let mut out = Vec::new();
        let d = &self.drive;
        let drive_items: [(&str, InterfaceSource, Option<&Interface>); 6] = [
            ("command", InterfaceSource::Command, Some(&d.command)),
            ("odometry", InterfaceSource::Odometry, Some(&d.odometry)),
            (
                "joint_states",
                InterfaceSource::JointStates,
                d.joint_states.as_ref(),
            ),
            ("tf", InterfaceSource::Tf, d.tf.as_ref()),
            ("landed", InterfaceSource::Landed, d.landed.as_ref()),
            ("pads", InterfaceSource::Pads, d.pads.as_ref()),
        ];
        for (field, source, spec) in drive_items {
            let Some(spec) = spec else { continue };
            out.push(ResolvedInterface {
                path: format!("drive.{field}"),
                source,
                spec,
                sensor: None,
                role: if source == InterfaceSource::Command {
                    Role::Subscriber
                } else {
                    Role::Publisher
                },
                frame_id: spec.frame_id.as_deref(),
                ros_frame_id: spec.ros_frame_id.as_deref().or(spec.frame_id.as_deref()),
                rate_hz: spec.rate_hz,
                noise: spec.noise.unwrap_or_default(),
                optional: false,
            });
        }
        for (si, s) in self.sensors.iter().enumerate() {
            for (oi, o) in s.outputs.iter().enumerate() {
                let frame = o.frame_id.as_deref().unwrap_or(&s.frame_id);
                out.push(ResolvedInterface {
                    path: format!("sensors[{si}].outputs[{oi}]"),
                    source: InterfaceSource::Sensor {
                        sensor: si,
                        output: oi,
                    },
                    spec: o,
                    sensor: Some(s),
                    role: Role::Publisher,
                    frame_id: Some(frame),
                    ros_frame_id: Some(o.ros_frame_id.as_deref().unwrap_or(frame)),
                    rate_hz: o.rate_hz.or(Some(s.rate_hz)),
                    noise: o.noise.unwrap_or_default().or(&s.noise),
                    optional: s.optional,
                });
            }
        }
        out
    }

    fn validate(&self) -> Result<(), Error> {
        let mut is = Issues::new(&self.source);
        let root = FieldPath::root();
        model_name(&mut is, &root.key("name"), &self.name);
        self.validate_body(&mut is, &root.key("body"));
        self.validate_drive(&mut is, &root.key("drive"));
        let mut names = BTreeSet::new();
        for (i, s) in self.sensors.iter().enumerate() {
            let p = root.key("sensors").index(i);
            if !names.insert(s.name.as_str()) {
                is.push(&p.key("name"), format!("duplicate sensor name {}", s.name));
            }
            validate_sensor(&mut is, &p, s);
        }
        // Two interfaces may not publish the same ROS topic.
        let mut topics: BTreeMap<&str, String> = BTreeMap::new();
        for r in self.interfaces() {
            if let Some(prev) = topics.insert(r.spec.ros_topic.as_str(), r.path.clone()) {
                is.push(
                    &FieldPath::parse(&r.path).key("ros_topic"),
                    format!("{} is already the ros_topic of {prev}", r.spec.ros_topic),
                );
            }
        }
        if let Some(b) = self.power.as_ref().and_then(|p| p.battery.as_ref()) {
            let p = root.key("power").key("battery");
            rate(&mut is, &p.key("rate_hz"), b.rate_hz);
            positive(&mut is, &p.key("capacity_ah"), b.capacity_ah);
            positive(&mut is, &p.key("empty_voltage_v"), b.empty_voltage_v);
            if b.full_voltage_v <= b.empty_voltage_v {
                is.push(
                    &p.key("full_voltage_v"),
                    format!(
                        "{} must be above empty_voltage_v ({})",
                        b.full_voltage_v, b.empty_voltage_v
                    ),
                );
            }
            non_empty(&mut is, &p.key("frame_id"), &b.frame_id);
            topic_name(&mut is, &p.key("ros_topic"), &b.ros_topic);
            qos(&mut is, &p.key("qos"), &b.qos);
        }
        if let Some(d) = &self.description {
            self.validate_description(&mut is, &root.key("description"), d);
        }
        if let Some(link) = self.runtime.as_ref().and_then(|r| r.link.as_ref()) {
            let p = root.key("runtime").key("link");
            positive(&mut is, &p.key("timeout_s"), link.timeout_s);
            let can = match self.kind {
                VehicleKind::Multirotor => true,
                _ => !matches!(link.loss_action, LossAction::Land),
            };
            if !can {
                is.push(
                    &p.key("loss_action"),
                    format!(
                        "\"land\" is for a multirotor; a {} stops or holds (stop, hold, continue)",
                        kind_name(self.kind)
                    ),
                );
            }
            if let Some(h) = &link.heartbeat {
                topic_name(&mut is, &p.key("heartbeat").key("topic"), &h.topic);
                rate(&mut is, &p.key("heartbeat").key("rate_hz"), h.rate_hz);
                qos(&mut is, &p.key("heartbeat").key("qos"), &h.qos);
                if h.rate_hz > 0.0 && link.timeout_s > 0.0 && link.timeout_s * h.rate_hz < 1.0 {
                    is.push(
                        &p.key("timeout_s"),
                        format!(
                            "{} s is shorter than one heartbeat period ({} s)",
                            link.timeout_s,
                            1.0 / h.rate_hz
                        ),
                    );
                }
            }
        }
        is.into_result()
    }

    fn validate_body(&self, is: &mut Issues, p: &FieldPath) {
        let b = &self.body;
        positive(is, &p.key("mass_kg"), b.mass_kg);
        positive(is, &p.key("radius_m"), b.radius_m);
        positive(is, &p.key("height_m"), b.height_m);
        non_negative(is, &p.key("max_payload_kg"), b.max_payload_kg);
        non_negative(is, &p.key("payload_kg"), b.payload_kg);
        if b.payload_kg > b.max_payload_kg {
            is.push(
                &p.key("payload_kg"),
                format!(
                    "{} is above max_payload_kg ({})",
                    b.payload_kg, b.max_payload_kg
                ),
            );
        }
    }

    fn validate_drive(&self, is: &mut Issues, p: &FieldPath) {
        let d = &self.drive;
        let expected_kind = match self.kind {
            VehicleKind::Ugv => DriveKind::DiffDrive,
            VehicleKind::Multirotor => DriveKind::Multirotor,
            VehicleKind::Carrier => DriveKind::Carrier,
        };
        if d.kind != expected_kind {
            is.push(
                &p.key("type"),
                format!(
                    "a {} vehicle needs drive type {}",
                    kind_name(self.kind),
                    drive_name(expected_kind)
                ),
            );
        }
        let iface =
            |is: &mut Issues, field: &str, i: &Interface, ros_type: &str, needs_rate: bool| {
                let ip = p.key(field);
                interface(is, &ip, i);
                if i.ros_type != ros_type {
                    is.push(
                        &ip.key("ros_type"),
                        format!("drive.{field} carries {ros_type}, not {}", i.ros_type),
                    );
                }
                if needs_rate && i.rate_hz.is_none() {
                    is.missing(&ip, "rate_hz");
                }
            };
        iface(is, "command", &d.command, "geometry_msgs/msg/Twist", false);
        if d.command.frame_id.is_some()
            || d.command.rate_hz.is_some()
            || d.command.gz_rate.is_some()
        {
            is.push(
                &p.key("command"),
                "a command has no frame_id, rate_hz or gz_rate",
            );
        }
        iface(is, "odometry", &d.odometry, "nav_msgs/msg/Odometry", true);
        for (field, i) in [("odometry", Some(&d.odometry)), ("tf", d.tf.as_ref())] {
            let Some(i) = i else { continue };
            if i.frame_id.is_none() {
                is.missing(&p.key(field), "frame_id");
            }
            if i.child_frame_id.is_none() {
                is.missing(&p.key(field), "child_frame_id");
            }
        }
        if let Some(j) = &d.joint_states {
            iface(is, "joint_states", j, "sensor_msgs/msg/JointState", true);
            if d.kind != DriveKind::DiffDrive {
                is.push(&p.key("joint_states"), "only a diff_drive has wheel joints");
            }
        }
        if let Some(t) = &d.tf {
            iface(is, "tf", t, "tf2_msgs/msg/TFMessage", true);
            let name = t.ros_topic.trim_start_matches('/');
            if name != "tf" {
                is.push(
                    &p.key("tf").key("ros_topic"),
                    format!("must be tf or /tf, not {}", t.ros_topic),
                );
            }
        }
        if let Some(l) = &d.landed {
            iface(is, "landed", l, "std_msgs/msg/Bool", true);
            if d.kind != DriveKind::Multirotor {
                is.push(&p.key("landed"), "only a multirotor has a landed state");
            }
        }
        if let Some(pd) = &d.pads {
            iface(is, "pads", pd, "geometry_msgs/msg/PoseArray", true);
            if pd.frame_id.is_none() {
                is.missing(&p.key("pads"), "frame_id");
            }
            if d.kind != DriveKind::Carrier {
                is.push(&p.key("pads"), "only a carrier has landing pads");
            }
        }
        let l = &d.limits;
        let lp = p.key("limits");
        positive(is, &lp.key("max_linear_mps"), l.max_linear_mps);
        positive(is, &lp.key("max_angular_radps"), l.max_angular_radps);
        positive(
            is,
            &lp.key("max_linear_accel_mps2"),
            l.max_linear_accel_mps2,
        );
        positive(
            is,
            &lp.key("max_linear_decel_mps2"),
            l.max_linear_decel_mps2,
        );
        positive(
            is,
            &lp.key("max_angular_accel_radps2"),
            l.max_angular_accel_radps2,
        );
        if let Some(r) = l.max_reverse_mps {
            non_negative(is, &lp.key("max_reverse_mps"), r);
        }
        if let Some(v) = l.max_vertical_mps {
            positive(is, &lp.key("max_vertical_mps"), v);
        }
        // The block of the drive type must be there, and no other.
        let blocks = [
            (DriveKind::DiffDrive, "diff_drive", d.diff_drive.is_some()),
            (DriveKind::Multirotor, "multirotor", d.multirotor.is_some()),
            (DriveKind::Carrier, "carrier", d.carrier.is_some()),
        ];
        for (kind, field, present) in blocks {
            if kind == d.kind && !present {
                is.missing(p, field);
            } else if kind != d.kind && present {
                is.push(&p.key(field), format!("only for drive type {field}"));
            }
        }
        if let Some(dd) = &d.diff_drive {
            let dp = p.key("diff_drive");
            positive(is, &dp.key("wheel_separation_m"), dd.wheel_separation_m);
            positive(is, &dp.key("wheel_radius_m"), dd.wheel_radius_m);
            if dd.left_joints.is_empty() {
                is.push(&dp.key("left_joints"), "needs at least one joint");
            }
            if dd.right_joints.is_empty() {
                is.push(&dp.key("right_joints"), "needs at least one joint");
            }
        }
        if let Some(m) = &d.multirotor {
            let mp = p.key("multirotor");
            positive(is, &mp.key("max_altitude_m"), m.max_altitude_m);
            non_negative(is, &mp.key("landed_height_m"), m.landed_height_m);
            if l.max_vertical_mps.is_none() {
                is.missing(&lp, "max_vertical_mps");
            }
        }
        if let Some(c) = &d.carrier {
            let cp = p.key("carrier");
            non_negative(is, &cp.key("deck_height_m"), c.deck_height_m);
            if c.pads.is_empty() {
                is.push(&cp.key("pads"), "needs at least one pad");
            }
            let mut names = BTreeSet::new();
            for (i, pad) in c.pads.iter().enumerate() {
                let pp = cp.key("pads").index(i);
                non_empty(is, &pp.key("name"), &pad.name);
                if !names.insert(pad.name.as_str()) {
                    is.push(&pp.key("name"), format!("duplicate pad name {}", pad.name));
                }
                positive(is, &pp.key("radius_m"), pad.radius_m);
                for (k, v) in pad.xy.iter().enumerate() {
                    finite(is, &pp.key("xy").index(k), *v);
                }
            }
        }
    }

    fn validate_description(&self, is: &mut Issues, p: &FieldPath, d: &Description) {
        non_empty(is, &p.key("xacro"), &d.xacro);
        if !d.xacro.is_empty() && !Path::new(&d.xacro).is_file() {
            is.push(&p.key("xacro"), format!("{} not found", d.xacro));
        }
        let base = self
            .drive
            .odometry
            .child_frame_id
            .clone()
            .unwrap_or_else(|| "base_link".into());
        let mut known: BTreeSet<String> = BTreeSet::from([base]);
        let mut children = BTreeSet::new();
        for (i, f) in d.frames.iter().enumerate() {
            let fp = p.key("frames").index(i);
            non_empty(is, &fp.key("child"), &f.child);
            if !known.contains(&f.parent) {
                is.push(
                    &fp.key("parent"),
                    format!(
                        "{} is neither the base frame nor a frame listed before",
                        f.parent
                    ),
                );
            }
            if !children.insert(f.child.clone()) {
                is.push(&fp.key("child"), format!("duplicate frame {}", f.child));
            }
            for (k, v) in f.xyz.iter().chain(&f.rpy).enumerate() {
                finite(
                    is,
                    &fp.key(if k < 3 { "xyz" } else { "rpy" }).index(k % 3),
                    *v,
                );
            }
            if let Some(s) = &f.sensor {
                match self.sensor(s) {
                    None => is.push(&fp.key("sensor"), format!("no sensor named {s}")),
                    Some(s) if !s.optional => is.push(
                        &fp.key("sensor"),
                        format!(
                            "sensor {} is not optional (only optional sensors' frames are tagged)",
                            s.name
                        ),
                    ),
                    Some(_) => {}
                }
            }
            known.insert(f.child.clone());
        }
        for (i, j) in d.joints.iter().enumerate() {
            let jp = p.key("joints").index(i);
            if !known.contains(&j.parent) {
                is.push(
                    &jp.key("parent"),
                    format!("{} is not a known frame", j.parent),
                );
            }
            let n = j.axis.iter().map(|a| a * a).sum::<f64>().sqrt();
            if !(n.is_finite() && n > 0.0) {
                is.push(&jp.key("axis"), "must be a non-zero vector");
            }
            known.insert(j.child.clone());
        }
        // Every sensor's frame must be in the tree.
        for (i, s) in self.sensors.iter().enumerate() {
            for (k, frame) in std::iter::once(Some(&s.frame_id))
                .chain(s.outputs.iter().map(|o| o.ros_frame_id.as_ref()))
                .enumerate()
            {
                let Some(frame) = frame else { continue };
                if !known.contains(frame) {
                    let path = if k == 0 {
                        FieldPath::root().key("sensors").index(i).key("frame_id")
                    } else {
                        FieldPath::root()
                            .key("sensors")
                            .index(i)
                            .key("outputs")
                            .index(k - 1)
                            .key("ros_frame_id")
                    };
                    is.push(&path, format!("frame {frame} is not in description.frames"));
                }
            }
        }
        if let Some(dd) = &self.drive.diff_drive {
            if !d.joints.is_empty() {
                for (side, list) in [
                    ("left_joints", &dd.left_joints),
                    ("right_joints", &dd.right_joints),
                ] {
                    for (k, j) in list.iter().enumerate() {
                        if !d.joints.iter().any(|dj| &dj.name == j) {
                            is.push(
                                &FieldPath::root()
                                    .key("drive")
                                    .key("diff_drive")
                                    .key(side)
                                    .index(k),
                                format!("joint {j} is not in description.joints"),
                            );
                        }
                    }
                }
            }
        }
    }
}

fn kind_name(k: VehicleKind) -> &'static str {
    match k {
        VehicleKind::Ugv => "ugv",
        VehicleKind::Multirotor => "multirotor",
        VehicleKind::Carrier => "carrier",
    }
}

fn drive_name(k: DriveKind) -> &'static str {
    match k {
        DriveKind::DiffDrive => "diff_drive",
        DriveKind::Multirotor => "multirotor",
        DriveKind::Carrier => "carrier",
    }
}

fn validate_sensor(is: &mut Issues, p: &FieldPath, s: &Sensor) {
    non_empty(is, &p.key("name"), &s.name);
    non_empty(is, &p.key("frame_id"), &s.frame_id);
    if s.remove {
        is.push(
            &p.key("remove"),
            "remove: true only drops an inherited item under extends",
        );
    }
    rate(is, &p.key("rate_hz"), s.rate_hz);
    noise(is, &p.key("noise"), &s.noise, s.kind);
    let kind = s.kind.as_str();
    for (field, present, for_kind) in [
        ("lidar", s.lidar.is_some(), SensorKind::Lidar),
        ("camera", s.camera.is_some(), SensorKind::Camera),
    ] {
        if s.kind == for_kind && !present {
            is.missing(p, field);
        } else if s.kind != for_kind && present {
            is.push(
                &p.key(field),
                format!("a sensor of type {kind} has no {field} block"),
            );
        }
    }
    if let Some(l) = &s.lidar {
        let lp = p.key("lidar");
        if !(1..=MAX_LIDAR_SAMPLES).contains(&l.samples) {
            is.push(
                &lp.key("samples"),
                format!("{} is not in [1, {MAX_LIDAR_SAMPLES}]", l.samples),
            );
        }
        if !(l.fov_deg > 0.0 && l.fov_deg <= 360.0) {
            is.push(
                &lp.key("fov_deg"),
                format!("{} is not in (0, 360]", l.fov_deg),
            );
        }
        non_negative(is, &lp.key("range_min_m"), l.range_min_m);
        if l.range_max_m <= l.range_min_m {
            is.push(
                &lp.key("range_max_m"),
                format!(
                    "{} must be above range_min_m ({})",
                    l.range_max_m, l.range_min_m
                ),
            );
        }
    }
    if let Some(c) = &s.camera {
        let cp = p.key("camera");
        for (field, v, max) in [
            ("width", c.width, MAX_CAMERA_WIDTH),
            ("height", c.height, MAX_CAMERA_HEIGHT),
        ] {
            if !(1..=max).contains(&v) {
                is.push(&cp.key(field), format!("{v} is not in [1, {max}] pixels"));
            }
        }
        if !["rgb8", "bgr8", "mono8"].contains(&c.encoding.as_str()) {
            is.push(
                &cp.key("encoding"),
                format!("\"{}\" is not one of rgb8, bgr8, mono8", c.encoding),
            );
        }
        if !(c.hfov_deg > 0.0 && c.hfov_deg < 180.0) {
            is.push(
                &cp.key("hfov_deg"),
                format!("{} is not in (0, 180)", c.hfov_deg),
            );
        }
        positive(is, &cp.key("near_m"), c.near_m);
        if c.far_m <= c.near_m {
            is.push(
                &cp.key("far_m"),
                format!("{} must be above near_m ({})", c.far_m, c.near_m),
            );
        }
    }
    if s.outputs.is_empty() {
        is.push(&p.key("outputs"), "a sensor needs at least one output");
    }
    let allowed = s.kind.outputs();
    let mut seen = BTreeSet::new();
    for (i, o) in s.outputs.iter().enumerate() {
        let op = p.key("outputs").index(i);
        interface(is, &op, o);
        let Some(name) = &o.name else {
            is.missing(&op, "name");
            continue;
        };
        if !seen.insert(name.as_str()) {
            is.push(&op.key("name"), format!("duplicate output {name}"));
        }
        match allowed.iter().find(|(n, _)| n == name) {
            None => is.push(
                &op.key("name"),
                format!(
                    "\"{name}\" is not one of {} (outputs of a {kind} sensor)",
                    allowed
                        .iter()
                        .map(|(n, _)| *n)
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            ),
            Some((_, ty)) if *ty != o.ros_type => is.push(
                &op.key("ros_type"),
                format!(
                    "the {name} output of a {kind} sensor carries {ty}, not {}",
                    o.ros_type
                ),
            ),
            Some(_) => {}
        }
        if let Some(n) = &o.noise {
            noise(is, &op.key("noise"), n, s.kind);
        }
    }
}

/// Checks common to every interface.
fn interface(is: &mut Issues, p: &FieldPath, i: &Interface) {
    topic_name(is, &p.key("ros_topic"), &i.ros_topic);
    let parts: Vec<&str> = i.ros_type.split('/').collect();
    if parts.len() != 3 || parts[1] != "msg" || parts.iter().any(|s| s.is_empty()) {
        is.push(
            &p.key("ros_type"),
            format!(
                "\"{}\" is not a ROS type name (package/msg/Type)",
                i.ros_type
            ),
        );
    }
    non_empty(is, &p.key("gz_topic"), &i.gz_topic);
    if !i.gz_type.starts_with("gz.msgs.") {
        is.push(
            &p.key("gz_type"),
            format!("\"{}\" is not a gz.msgs type", i.gz_type),
        );
    }
    for (field, v) in [
        ("frame_id", &i.frame_id),
        ("child_frame_id", &i.child_frame_id),
        ("ros_frame_id", &i.ros_frame_id),
    ] {
        if let Some(v) = v {
            non_empty(is, &p.key(field), v);
        }
    }
    if let Some(r) = i.rate_hz {
        rate(is, &p.key("rate_hz"), r);
    }
    if let Some(g) = i.gz_rate {
        rate(is, &p.key("gz_rate"), g);
        match i.rate_hz {
            None => is.push(
                &p.key("gz_rate"),
                "needs rate_hz (the rate the throttle passes)",
            ),
            Some(r) if g < r => is.push(
                &p.key("gz_rate"),
                format!("{g} is below rate_hz ({r}): the throttle can only slow a topic down"),
            ),
            Some(_) => {}
        }
    }
    qos(is, &p.key("qos"), &i.qos);
    match i.fault_injector {
        Some(true)
            if !crate::bridge::INJECTABLE_TYPES.contains(&i.ros_type.as_str())
                && !crate::bridge::CAMERA_TYPES.contains(&i.ros_type.as_str()) =>
        {
            is.push(
                &p.key("fault_injector"),
                format!("the relay cannot serve {}", i.ros_type),
            )
        }
        Some(false) if !crate::bridge::INJECTABLE_TYPES.contains(&i.ros_type.as_str()) => is.push(
            &p.key("fault_injector"),
            format!(
                "{} is not served by the relay: its adapter (or none) follows from the type",
                i.ros_type
            ),
        ),
        _ => {}
    }
    if i.remove {
        is.push(
            &p.key("remove"),
            "remove: true only drops an inherited item under extends",
        );
    }
}

fn qos(is: &mut Issues, p: &FieldPath, q: &Qos) {
    if q.depth == 0 {
        is.push(&p.key("depth"), "must be at least 1");
    } else if q.depth > MAX_QOS_DEPTH {
        is.push(
            &p.key("depth"),
            format!("{} is above the limit of {MAX_QOS_DEPTH}", q.depth),
        );
    }
}

fn noise(is: &mut Issues, p: &FieldPath, n: &Noise, kind: SensorKind) {
    for (field, v) in n.set_fields() {
        if !kind.noise_fields().contains(&field) {
            is.push(
                &p.key(field),
                format!(
                    "not a noise figure of a sensor of type {} (those are {})",
                    kind.as_str(),
                    kind.noise_fields().join(", ")
                ),
            );
        }
        non_negative(is, &p.key(field), v);
    }
}

fn topic_name(is: &mut Issues, p: &FieldPath, t: &str) {
    let body = t.strip_prefix('/').unwrap_or(t);
    let ok = !body.is_empty()
        && !body.ends_with('/')
        && !body.contains("//")
        && body.split('/').all(|tok| {
            tok.chars()
                .next()
                .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
                && tok.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        });
    if !ok {
        is.push(p, format!("\"{t}\" is not a valid ROS topic name"));
    }
}

/// The manifest's `name`: a ROS name token (it is the Gazebo model name in topic names
/// and names the default bundle directory, so no `/`, `.` or spaces).
fn model_name(is: &mut Issues, p: &FieldPath, name: &str) {
    let token = name
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    if name.is_empty() {
        is.push(p, "must not be empty");
    } else if !token {
        is.push(
            p,
            format!(
                "{name:?} is not a ROS name token (letters, digits and _, not starting with a digit)"
            ),
        );
    } else if name.len() > MAX_NAME_LEN {
        is.push(
            p,
            format!(
                "is {} characters long, more than {MAX_NAME_LEN}",
                name.len()
            ),
        );
    }
}

/// A rate: positive and at most [`MAX_RATE_HZ`].
fn rate(is: &mut Issues, p: &FieldPath, v: f64) {
    if !(v.is_finite() && v > 0.0) {
        is.push(p, format!("{v} must be a positive number"));
    } else if v > MAX_RATE_HZ {
        is.push(p, format!("{v} Hz is above the limit of {MAX_RATE_HZ} Hz"));
    }
}

fn non_empty(is: &mut Issues, p: &FieldPath, v: &str) {
    if v.trim().is_empty() {
        is.push(p, "must not be empty");
    }
}

fn finite(is: &mut Issues, p: &FieldPath, v: f64) {
    if !v.is_finite() {
        is.push(p, format!("{v} is not a finite number"));
    }
}

fn positive(is: &mut Issues, p: &FieldPath, v: f64) {
    if !(v.is_finite() && v > 0.0) {
        is.push(p, format!("{v} must be a positive number"));
    }
}

fn non_negative(is: &mut Issues, p: &FieldPath, v: f64) {
    if !(v.is_finite() && v >= 0.0) {
        is.push(p, format!("{v} must be zero or positive"));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_yaml::Value;

    const MINIMAL: &str = r#"
name: mini
kind: ugv
body: { mass_kg: 10, max_payload_kg: 5, radius_m: 0.3 }
drive:
  type: diff_drive
  command: { ros_topic: cmd_vel, ros_type: geometry_msgs/msg/Twist, gz_topic: /m/cmd_vel, gz_type: gz.msgs.Twist }
  odometry: { ros_topic: odom, ros_type: nav_msgs/msg/Odometry, gz_topic: /m/odom, gz_type: gz.msgs.Odometry, frame_id: odom, child_frame_id: base_link, rate_hz: 50 }
  joint_states: { ros_topic: joint_states, ros_type: sensor_msgs/msg/JointState, gz_topic: /m/js, gz_type: gz.msgs.Model, rate_hz: 50, gz_rate: 1000 }
  limits: { max_linear_mps: 1, max_angular_radps: 1, max_linear_accel_mps2: 1, max_linear_decel_mps2: 1, max_angular_accel_radps2: 1 }
  diff_drive: { wheel_separation_m: 0.5, wheel_radius_m: 0.1, left_joints: [l], right_joints: [r] }
sensors:
  - name: imu
    type: imu
    frame_id: imu_link
    rate_hz: 100
    noise: { gyro_stddev_radps: 0.01 }
    outputs:
      - { name: data, ros_topic: imu/data, ros_type: sensor_msgs/msg/Imu, gz_topic: /imu, gz_type: gz.msgs.IMU }
  - name: lidar
    type: lidar
    optional: true
    frame_id: lidar_link
    rate_hz: 10
    lidar: { samples: 90, fov_deg: 360, range_min_m: 0.1, range_max_m: 10 }
    outputs:
      - { name: scan, ros_topic: scan, ros_type: sensor_msgs/msg/LaserScan, gz_topic: /scan, gz_type: gz.msgs.LaserScan }
  - name: camera
    type: camera
    optional: true
    frame_id: camera_link
    rate_hz: 15
    camera: { width: 64, height: 48, hfov_deg: 60 }
    outputs:
      - { name: image, ros_topic: camera/image, ros_type: sensor_msgs/msg/Image, gz_topic: /cam, gz_type: gz.msgs.Image, ros_frame_id: camera_optical_link, qos: { depth: 5 } }
"#;

    /// The minimal manifest with `path` (a.b[1].c) set to `value` (YAML), or removed if None.
    fn edited(path: &str, value: Option<&str>) -> String {
        let mut doc: Value = serde_yaml::from_str(MINIMAL).unwrap();
        let mut parts: Vec<&str> = path.split('.').collect();
        let last = parts.pop().unwrap();
        let mut cur = &mut doc;
        for p in parts {
            cur = step(cur, p);
        }
        match value {
            Some(v) => {
                let v: Value = serde_yaml::from_str(v).unwrap();
                match last.split_once('[') {
                    Some((k, i)) => {
                        let i: usize = i.trim_end_matches(']').parse().unwrap();
                        cur[k][i] = v;
                    }
                    None => {
                        cur.as_mapping_mut().unwrap().insert(last.into(), v);
                    }
                }
            }
            None => {
                cur.as_mapping_mut().unwrap().remove(last);
            }
        }
        serde_yaml::to_string(&doc).unwrap()
    }

    fn step<'a>(v: &'a mut Value, part: &str) -> &'a mut Value {
        match part.split_once('[') {
            Some((k, i)) => &mut v[k][i.trim_end_matches(']').parse::<usize>().unwrap()],
            None => &mut v[part],
        }
    }

    fn reason(text: &str) -> String {
        Manifest::from_yaml("mini.yaml", text).unwrap_err().reason()
    }

    #[test]
    fn minimal_manifest_is_valid() {
        let m = Manifest::from_yaml("mini.yaml", MINIMAL).unwrap();
        assert_eq!(m.name, "mini");
        assert_eq!(m.interfaces().len(), 6);
        assert_eq!(m.drive.command.qos, Qos::default());
    }

    #[test]
    fn fault_injector_overrides_the_bridge_rule() {
        use crate::bridge::{adapter_for, Adapter};
        let camera = |m: &Manifest| {
            m.interfaces()
                .into_iter()
                .find(|i| i.spec.ros_type == "sensor_msgs/msg/Image")
                .map(|i| adapter_for(&i))
                .unwrap()
        };
        let scan = |m: &Manifest| {
            m.interfaces()
                .into_iter()
                .find(|i| i.spec.ros_type == "sensor_msgs/msg/LaserScan")
                .map(|i| adapter_for(&i))
                .unwrap()
        };
        let plain = Manifest::from_yaml("mini.yaml", MINIMAL).unwrap();
        assert_eq!(
            camera(&plain),
            None,
            "cameras are bridged directly by default"
        );
        assert_eq!(scan(&plain), Some(Adapter::Relay));
        let injected = edited("sensors[2].outputs[0].fault_injector", Some("true"));
        let injected = Manifest::from_yaml("mini.yaml", &injected).unwrap();
        assert_eq!(camera(&injected), Some(Adapter::Relay));
        let direct = edited("sensors[1].outputs[0].fault_injector", Some("false"));
        let direct = Manifest::from_yaml("mini.yaml", &direct).unwrap();
        assert_eq!(scan(&direct), None);
        assert_eq!(
            reason(&edited("sensors[0].outputs[0].fault_injector", Some("false"))),
            "sensors[0].outputs[0].fault_injector: sensor_msgs/msg/Imu is not served by the relay: its adapter (or none) follows from the type"
        );
    }

    #[test]
    fn missing_field_names_its_path() {
        assert_eq!(
            reason(&edited("drive.odometry.rate_hz", None)),
            "drive.odometry: missing rate_hz"
        );
        assert_eq!(
            reason(&edited("drive.odometry.ros_type", None)),
            "drive.odometry: missing ros_type"
        );
        assert_eq!(
            reason(&edited("body.mass_kg", None)),
            "body: missing mass_kg"
        );
    }

    #[test]
    fn bad_enum_value_lists_the_choices() {
        let r = reason(&edited(
            "sensors[2].outputs[0].qos",
            Some("{reliability: sometimes}"),
        ));
        assert_eq!(
            r,
            "sensors[2].outputs[0].qos.reliability: \"sometimes\" is not one of reliable, best_effort"
        );
        let r = reason(&edited("sensors[0].type", Some("sonar")));
        assert_eq!(
            r,
            "sensors[0].type: \"sonar\" is not one of imu, gnss, lidar, camera"
        );
    }

    #[test]
    fn misspelt_key_suggests_the_right_one() {
        let text = MINIMAL.replace("rate_hz: 50, gz_rate", "rate_hz: 50, gz_rat");
        assert_eq!(
            reason(&text),
            "drive.joint_states.gz_rat: unknown field (did you mean gz_rate?)"
        );
        let text = MINIMAL.replace("name: mini", "name: mini\nsensorz: []");
        assert!(reason(&text).starts_with("sensorz: unknown field (did you mean sensors?)"));
    }

    #[test]
    fn wrong_type_is_reported_at_the_field() {
        let r = reason(&edited("drive.odometry.rate_hz", Some("fast")));
        assert!(r.starts_with("drive.odometry.rate_hz: invalid type"), "{r}");
    }

    #[test]
    fn out_of_range_numbers_are_refused() {
        assert_eq!(
            reason(&edited("drive.odometry.rate_hz", Some("0"))),
            "drive.odometry.rate_hz: 0 must be a positive number"
        );
        assert_eq!(
            reason(&edited("body.payload_kg", Some("8"))),
            "body.payload_kg: 8 is above max_payload_kg (5)"
        );
        assert_eq!(
            reason(&edited("drive.joint_states.gz_rate", Some("10"))),
            "drive.joint_states.gz_rate: 10 is below rate_hz (50): the throttle can only slow a topic down"
        );
        assert_eq!(
            reason(&edited("sensors[1].outputs[0].qos", Some("{depth: 0}"))),
            "sensors[1].outputs[0].qos.depth: must be at least 1"
        );
    }

    #[test]
    fn wrong_ros_types_and_names_are_refused() {
        assert_eq!(
            reason(&edited("drive.odometry.ros_type", Some("nav_msgs/msg/Path"))),
            "drive.odometry.ros_type: drive.odometry carries nav_msgs/msg/Odometry, not nav_msgs/msg/Path"
        );
        assert_eq!(
            reason(&edited("sensors[1].outputs[0].ros_type", Some("sensor_msgs/msg/PointCloud2"))),
            "sensors[1].outputs[0].ros_type: the scan output of a lidar sensor carries sensor_msgs/msg/LaserScan, not sensor_msgs/msg/PointCloud2"
        );
        assert_eq!(
            reason(&edited("sensors[2].outputs[0].name", Some("picture"))),
            "sensors[2].outputs[0].name: \"picture\" is not one of image, camera_info, depth_image, points (outputs of a camera sensor)"
        );
        assert_eq!(
            reason(&edited("drive.odometry.ros_topic", Some("odom//x"))),
            "drive.odometry.ros_topic: \"odom//x\" is not a valid ROS topic name"
        );
        assert_eq!(
            reason(&edited("sensors[0].outputs[0].ros_type", Some("Imu"))),
            "sensors[0].outputs[0].ros_type: \"Imu\" is not a ROS type name (package/msg/Type)"
        );
        assert_eq!(
            reason(&edited("sensors[1].outputs[0].ros_topic", Some("imu/data"))),
            "sensors[1].outputs[0].ros_topic: imu/data is already the ros_topic of sensors[0].outputs[0]"
        );
    }

    #[test]
    fn kind_specific_blocks_are_checked() {
        assert_eq!(
            reason(&edited("sensors[1].lidar", None)),
            "sensors[1]: missing lidar"
        );
        assert_eq!(
            reason(&edited(
                "sensors[0].lidar",
                Some("{samples: 1, fov_deg: 1, range_min_m: 0, range_max_m: 1}")
            )),
            "sensors[0].lidar: a sensor of type imu has no lidar block"
        );
        assert_eq!(
            reason(&edited("drive.diff_drive", None)),
            "drive: missing diff_drive"
        );
        assert_eq!(
            reason(&edited("drive.type", Some("multirotor"))),
            "drive.type: a ugv vehicle needs drive type diff_drive"
        );
        assert_eq!(
            reason(&edited("sensors[0].noise", Some("{horizontal_stddev_m: 1}"))),
            "sensors[0].noise.horizontal_stddev_m: not a noise figure of a sensor of type imu (those are gyro_stddev_radps, accel_stddev_mps2, orientation_stddev_rad)"
        );
        assert_eq!(
            reason(&edited("sensors[1].lidar.range_max_m", Some("0.05"))),
            "sensors[1].lidar.range_max_m: 0.05 must be above range_min_m (0.1)"
        );
    }

    #[test]
    fn hostile_names_and_sizes_are_refused_naming_the_bound() {
        let long_name = "a".repeat(MAX_NAME_LEN + 1);
        let table: &[(&str, &str, &str)] = &[
            (
                "name",
                "\"../evil; rm -rf /\"",
                "name: \"../evil; rm -rf /\" is not a ROS name token (letters, digits and _, not starting with a digit)",
            ),
            (
                "name",
                "a/b",
                "name: \"a/b\" is not a ROS name token (letters, digits and _, not starting with a digit)",
            ),
            (
                "name",
                "2fast",
                "name: \"2fast\" is not a ROS name token (letters, digits and _, not starting with a digit)",
            ),
            ("name", "\"\"", "name: must not be empty"),
            ("name", &long_name, "name: is 65 characters long, more than 64"),
            (
                "sensors[2].camera.width",
                "100000",
                "sensors[2].camera.width: 100000 is not in [1, 4096] pixels",
            ),
            (
                "sensors[2].camera.height",
                "100000",
                "sensors[2].camera.height: 100000 is not in [1, 4096] pixels",
            ),
            (
                "sensors[2].camera.width",
                "0",
                "sensors[2].camera.width: 0 is not in [1, 4096] pixels",
            ),
            (
                "sensors[1].lidar.samples",
                "1000000",
                "sensors[1].lidar.samples: 1000000 is not in [1, 16384]",
            ),
            (
                "sensors[0].rate_hz",
                "1e6",
                "sensors[0].rate_hz: 1000000 Hz is above the limit of 1000 Hz",
            ),
            (
                "drive.odometry.rate_hz",
                "5000",
                "drive.odometry.rate_hz: 5000 Hz is above the limit of 1000 Hz",
            ),
            (
                "drive.joint_states.gz_rate",
                "1e9",
                "drive.joint_states.gz_rate: 1000000000 Hz is above the limit of 1000 Hz",
            ),
            (
                "sensors[0].outputs[0].rate_hz",
                "2000",
                "sensors[0].outputs[0].rate_hz: 2000 Hz is above the limit of 1000 Hz",
            ),
            (
                "sensors[1].outputs[0].qos",
                "{depth: 4000000000}",
                "sensors[1].outputs[0].qos.depth: 4000000000 is above the limit of 100000",
            ),
        ];
        for (path, value, expected) in table {
            assert_eq!(
                &reason(&edited(path, Some(value))),
                expected,
                "{path}: {value}"
            );
        }
        // The limits themselves are accepted.
        for (path, value) in [
            ("sensors[2].camera.width", "4096"),
            ("sensors[2].camera.height", "4096"),
            ("sensors[0].rate_hz", "1000"),
            ("name", "_Ugv_2"),
        ] {
            Manifest::from_yaml("mini.yaml", &edited(path, Some(value)))
                .unwrap_or_else(|e| panic!("{path}: {value}: {e}"));
        }
        let text = format!(
            "{MINIMAL}runtime:\n  link:\n    heartbeat: {{ topic: gcs/heartbeat, rate_hz: 1e5 }}\n"
        );
        assert_eq!(
            reason(&text),
            "runtime.link.heartbeat.rate_hz: 100000 Hz is above the limit of 1000 Hz"
        );
    }

    #[test]
    fn duplicate_names_are_refused() {
        assert_eq!(
            reason(&edited("sensors[1].name", Some("imu"))),
            "sensors[1].name: duplicate sensor name imu"
        );
    }

    #[test]
    fn runtime_link_is_checked() {
        let text = format!(
            "{MINIMAL}runtime:\n  link:\n    heartbeat: {{ topic: gcs/heartbeat, rate_hz: 2 }}\n    timeout_s: 0.1\n"
        );
        assert_eq!(
            reason(&text),
            "runtime.link.timeout_s: 0.1 s is shorter than one heartbeat period (0.5 s)"
        );
        let text = format!("{MINIMAL}runtime:\n  link:\n    loss_action: panic\n");
        assert!(reason(&text)
            .starts_with("runtime.link.loss_action: \"panic\" is not one of stop, hold"));
        let text = format!("{MINIMAL}runtime:\n  link:\n    loss_action: land\n");
        assert_eq!(
            reason(&text),
            "runtime.link.loss_action: \"land\" is for a multirotor; a ugv stops or holds (stop, hold, continue)"
        );
    }

    #[test]
    fn sensor_defaults_reach_the_outputs() {
        let m = Manifest::from_yaml("mini.yaml", MINIMAL).unwrap();
        let ifs = m.interfaces();
        let imu = ifs.iter().find(|i| i.spec.ros_topic == "imu/data").unwrap();
        assert_eq!(imu.frame_id, Some("imu_link"));
        assert_eq!(imu.rate_hz, Some(100.0));
        assert_eq!(imu.noise.gyro_stddev_radps, Some(0.01));
        let image = ifs
            .iter()
            .find(|i| i.spec.ros_topic == "camera/image")
            .unwrap();
        assert!(image.relabelled());
        assert_eq!(image.ros_frame_id, Some("camera_optical_link"));
        assert!(image.optional);
        assert_eq!(image.spec.qos.depth, 5);
    }

    #[test]
    fn without_drops_optional_sensors_only() {
        let m = Manifest::from_yaml("mini.yaml", MINIMAL).unwrap();
        let w = m.without(&["lidar"]).unwrap();
        assert!(w.sensor("lidar").is_none());
        assert!(m
            .without(&["imu"])
            .unwrap_err()
            .reason()
            .contains("is not optional"));
        assert!(m
            .without(&["sonar"])
            .unwrap_err()
            .reason()
            .contains("no sensor named sonar"));
    }
}
