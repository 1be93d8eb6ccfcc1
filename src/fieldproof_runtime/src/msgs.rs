//! The few message types the runtime itself needs.
//!
//! Local stand-ins until `fieldproof_msgs` lands: the same names, fields and CDR layout
//! (`builtin_interfaces/msg/Time`, `rosgraph_msgs/msg/Clock`) and the same [`RosMessage`]
//! trait, so switching is a re-export.

use serde::{de::DeserializeOwned, Deserialize, Serialize};

/// A ROS 2 message type: serde (CDR) plus its ROS type name (`"sensor_msgs/msg/Imu"`).
pub trait RosMessage: Serialize + DeserializeOwned + Clone + Send + Sync + 'static {
    /// `package/msg/Name`.
    const TYPE_NAME: &'static str;
}

/// `builtin_interfaces` messages.
pub mod builtin_interfaces {
    use super::*;

    /// `builtin_interfaces/msg/Time`.
    #[derive(
        Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize,
    )]
    pub struct Time {
        /// Seconds.
        pub sec: i32,
        /// Nanoseconds within the second.
        pub nanosec: u32,
    }

    impl RosMessage for Time {
        const TYPE_NAME: &'static str = "builtin_interfaces/msg/Time";
    }
}

/// `rosgraph_msgs` messages.
pub mod rosgraph_msgs {
    use super::*;

    /// `rosgraph_msgs/msg/Clock`.
    #[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
    pub struct Clock {
        /// The current simulation time.
        pub clock: builtin_interfaces::Time,
    }

    impl RosMessage for Clock {
        const TYPE_NAME: &'static str = "rosgraph_msgs/msg/Clock";
    }
}

/// `std_msgs` messages used by the examples.
pub mod std_msgs {
    use super::*;

    /// `std_msgs/msg/String`.
    #[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
    pub struct String {
        /// The text.
        pub data: std::string::String,
    }

    impl RosMessage for String {
        const TYPE_NAME: &'static str = "std_msgs/msg/String";
    }
}
