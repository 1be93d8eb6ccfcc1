//! The messages the simulator publishes, as one enum the sinks (DDS publishers, test
//! recorders) dispatch on.

pub use fieldproof_msgs::geometry_msgs::PoseArray;
use fieldproof_msgs::geometry_msgs::{PoseStamped, TwistStamped};
use fieldproof_msgs::nav_msgs::Odometry;
use fieldproof_msgs::rosgraph_msgs::Clock;
use fieldproof_msgs::sensor_msgs::{
    CameraInfo, Image, Imu, JointState, LaserScan, NavSatFix, PointCloud2,
};
use fieldproof_msgs::std_msgs;
use fieldproof_msgs::tf2_msgs::TFMessage;
use fieldproof_msgs::RosMessage;

/// One message for one topic of the topic table (moved once, into a publisher: the size
/// difference between variants costs nothing worth a box).
#[derive(Debug, Clone, PartialEq)]
#[allow(clippy::large_enum_variant)]
pub enum Msg {
    /// `/clock`.
    Clock(Clock),
    /// Odometry.
    Odometry(Odometry),
    /// TF (dynamic or static).
    Tf(TFMessage),
    /// Joint states.
    JointState(JointState),
    /// IMU.
    Imu(Imu),
    /// GNSS fix.
    NavSatFix(NavSatFix),
    /// Laser scan.
    LaserScan(LaserScan),
    /// Colour or depth image.
    Image(Image),
    /// Camera calibration.
    CameraInfo(CameraInfo),
    /// Point cloud.
    PointCloud2(PointCloud2),
    /// Landed state.
    Bool(std_msgs::Bool),
    /// Pads.
    PoseArray(PoseArray),
    /// Truth pose.
    PoseStamped(PoseStamped),
    /// Truth velocity.
    TwistStamped(TwistStamped),
    /// robot_description, collision events (JSON).
    String(std_msgs::String),
}

impl Msg {
    /// The ROS type name.
    pub fn ros_type(&self) -> &'static str {
        match self {
            Msg::Clock(_) => Clock::TYPE_NAME,
            Msg::Odometry(_) => Odometry::TYPE_NAME,
            Msg::Tf(_) => TFMessage::TYPE_NAME,
            Msg::JointState(_) => JointState::TYPE_NAME,
            Msg::Imu(_) => Imu::TYPE_NAME,
            Msg::NavSatFix(_) => NavSatFix::TYPE_NAME,
            Msg::LaserScan(_) => LaserScan::TYPE_NAME,
            Msg::Image(_) => Image::TYPE_NAME,
            Msg::CameraInfo(_) => CameraInfo::TYPE_NAME,
            Msg::PointCloud2(_) => PointCloud2::TYPE_NAME,
            Msg::Bool(_) => std_msgs::Bool::TYPE_NAME,
            Msg::PoseArray(_) => PoseArray::TYPE_NAME,
            Msg::PoseStamped(_) => PoseStamped::TYPE_NAME,
            Msg::TwistStamped(_) => TwistStamped::TYPE_NAME,
            Msg::String(_) => std_msgs::String::TYPE_NAME,
        }
    }
}

/// Where the simulation's messages go.
pub trait Sink {
    /// Publishes `msg` on topic `topic` of the simulation's topic table.
    fn publish(&mut self, topic: usize, msg: Msg);

    /// False when nobody listens to `topic`, so an expensive output (camera) can be skipped.
    fn wants(&self, _topic: usize) -> bool {
        true
    }
}

/// A sink that drops everything (benchmarks without publishing).
#[derive(Debug, Default)]
pub struct NullSink {
    /// Messages received.
    pub count: u64,
}

impl Sink for NullSink {
    fn publish(&mut self, _topic: usize, _msg: Msg) {
        self.count += 1;
    }
}

/// A sink that keeps every message (tests).
#[derive(Debug, Default)]
pub struct Recorder {
    /// (topic index, message) in publication order.
    pub messages: Vec<(usize, Msg)>,
}

impl Sink for Recorder {
    fn publish(&mut self, topic: usize, msg: Msg) {
        self.messages.push((topic, msg));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pose_array_encodes_like_ros() {
        let p = PoseArray {
            header: std_msgs::Header::default(),
            poses: vec![fieldproof_msgs::geometry_msgs::Pose::default()],
        };
        let bytes = fieldproof_msgs::cdr::to_bytes(&p).unwrap();
        // encapsulation 4 + stamp 8 + frame_id (len 4 + NUL 1, padded to 8) + count 4
        // + pose 56 (aligned to 8 after the count)
        assert_eq!(bytes.len(), 4 + 8 + 5 + 3 + 4 + 4 + 56);
    }
}
