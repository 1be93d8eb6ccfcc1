//! `nav_msgs`: Odometry.

use serde::{Deserialize, Serialize};

use crate::{
    geometry_msgs::{PoseWithCovariance, TwistWithCovariance},
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
