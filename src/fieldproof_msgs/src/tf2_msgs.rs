//! `tf2_msgs`: TFMessage.

use serde::{Deserialize, Serialize};

use crate::geometry_msgs::TransformStamped;

/// `tf2_msgs/msg/TFMessage`: what `/tf` and `/tf_static` carry.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct TFMessage {
    /// The transforms.
    pub transforms: Vec<TransformStamped>,
}

crate::ros_message!(TFMessage, "tf2_msgs/msg/TFMessage");
