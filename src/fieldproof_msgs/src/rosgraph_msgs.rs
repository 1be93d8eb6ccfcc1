//! `rosgraph_msgs`: Clock.

use serde::{Deserialize, Serialize};

use crate::builtin_interfaces::Time;

/// `rosgraph_msgs/msg/Clock`: the sim time published on `/clock`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Clock {
    /// Current simulation time.
    pub clock: Time,
}

crate::ros_message!(Clock, "rosgraph_msgs/msg/Clock");
