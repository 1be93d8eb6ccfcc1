//! `nav_msgs`: Odometry, MapMetaData, OccupancyGrid, Path.

use serde::{Deserialize, Serialize};

use crate::{
    builtin_interfaces::Time,
    geometry_msgs::{Pose, PoseStamped, PoseWithCovariance, TwistWithCovariance},
    std_msgs::Header,
};

/// `nav_msgs/msg/Odometry`: pose in `header.frame_id`, twist in `child_frame_id`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Odometry {
    /// Stamp and pose frame.
    pub header: Header,
    /// Frame of the twist.
    pub child_frame_id: String,
    /// Estimated pose.
    pub pose: PoseWithCovariance,
    /// Estimated velocity.
    pub twist: TwistWithCovariance,
}

crate::ros_message!(Odometry, "nav_msgs/msg/Odometry", stamped);

/// `nav_msgs/msg/MapMetaData`: the geometry of an [`OccupancyGrid`].
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct MapMetaData {
    /// When the map was loaded.
    pub map_load_time: Time,
    /// Cell edge length, metres.
    pub resolution: f32,
    /// Cells along x.
    pub width: u32,
    /// Cells along y.
    pub height: u32,
    /// Pose of cell (0, 0)'s corner in the header's frame.
    pub origin: Pose,
}

crate::ros_message!(MapMetaData, "nav_msgs/msg/MapMetaData");

/// `nav_msgs/msg/OccupancyGrid`: row-major cells (row 0 first, x fastest), each a probability
/// of occupancy in percent (0..=100) or -1 for unknown.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct OccupancyGrid {
    /// Stamp and map frame.
    pub header: Header,
    /// The grid's geometry.
    pub info: MapMetaData,
    /// `width * height` cells.
    pub data: Vec<i8>,
}

impl OccupancyGrid {
    /// A cell's value: certainly free.
    pub const FREE: i8 = 0;
    /// A cell's value: certainly occupied.
    pub const OCCUPIED: i8 = 100;
    /// A cell's value: unknown.
    pub const UNKNOWN: i8 = -1;
}

crate::ros_message!(OccupancyGrid, "nav_msgs/msg/OccupancyGrid", stamped);

/// `nav_msgs/msg/Path`: poses for a robot to follow, in `header.frame_id`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Path {
    /// Stamp and frame.
    pub header: Header,
    /// The poses in order.
    pub poses: Vec<PoseStamped>,
}

crate::ros_message!(Path, "nav_msgs/msg/Path", stamped);
