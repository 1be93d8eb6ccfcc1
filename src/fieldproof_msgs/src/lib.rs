//! ROS 2 message types (builtin_interfaces, std_msgs, geometry_msgs, sensor_msgs, nav_msgs,
//! rosgraph_msgs, tf2_msgs, lifecycle_msgs, vision_msgs, diagnostic_msgs) as serde types,
//! CDR-exact with ROS 2 Jazzy.
//!
//! Struct and field names are the ROS names; constants are associated consts
//! (`NavSatStatus::STATUS_FIX`). Publishing a type with ros2-client (whose writers use rustdds'
//! `CDRSerializerAdapter`) or encoding it with [`cdr::to_bytes`] gives the bytes
//! `rmw_cyclonedds`/`rmw_fastrtps` put on the wire, checked against the `rosbags` Jazzy
//! typestore by `tests/rosbags.rs`.
//!
//! For nodes whose message type is a runtime parameter, [`MessageKind`] names every type and
//! [`dispatch!`] / [`dispatch_stamped!`] (or [`MessageKind::visit`]) call a generic function
//! with the concrete type:
//!
//! ```
//! use fieldproof_msgs::{dispatch, RosMessage, MsgError};
//!
//! fn type_and_size<T: RosMessage + Default>() -> (&'static str, usize) {
//!     (T::TYPE_NAME, fieldproof_msgs::cdr::to_bytes(&T::default()).unwrap().len())
//! }
//!
//! let ros_type = "sensor_msgs/msg/Imu".to_string();
//! let (name, len) = dispatch!(ros_type, |T| type_and_size::<T>())?;
//! assert_eq!((name, len), ("sensor_msgs/msg/Imu", 4 + 8 + 4 + 4 + 32 + 72 + 24 + 72 + 24 + 72));
//! assert!(matches!(dispatch!("foo_msgs/msg/Bar", |T| type_and_size::<T>()), Err(MsgError::UnknownType(_))));
//! # Ok::<(), MsgError>(())
//! ```

pub mod cdr;
mod error;
#[doc(hidden)]
pub mod fixed_array;
mod registry;
pub mod type_hash;

pub use error::MsgError;
pub use registry::{
    is_known_type, stamped_type_names, AnyMessage, MessageKind, MessageVisitor,
    StampedMessageVisitor, KNOWN_TYPES,
};

/// Implemented by every message type.
pub trait RosMessage:
    serde::Serialize + serde::de::DeserializeOwned + Clone + Send + Sync + 'static
{
    /// ROS 2 type name, e.g. "sensor_msgs/msg/Imu".
    const TYPE_NAME: &'static str;
}

/// Messages that carry a `std_msgs/Header` (for frame relabelling, stamp-based throttling).
pub trait Stamped {
    /// The header.
    fn header(&self) -> &std_msgs::Header;
    /// The header, mutably.
    fn header_mut(&mut self) -> &mut std_msgs::Header;
}

/// Implemented by every message type: the header if the type has one. Lets one generic
/// function handle stamped and unstamped types alike (relabel when there is a frame).
pub trait MaybeStamped {
    /// The header, `None` for types without one.
    fn maybe_header(&self) -> Option<&std_msgs::Header>;
    /// The header mutably, `None` for types without one.
    fn maybe_header_mut(&mut self) -> Option<&mut std_msgs::Header>;
}

/// "sensor_msgs/msg/Imu" -> "sensor_msgs::msg::dds_::Imu_" (DDS type name on the wire).
///
/// Works for any well-formed `pkg/msg|srv|action/Name`, not only the types of this crate.
pub fn dds_type_name(ros_type: &str) -> Result<String, MsgError> {
    let (package, kind, name) = parse_type_name(ros_type)?;
    Ok(format!("{package}::{kind}::dds_::{name}_"))
}

/// "sensor_msgs/msg/Imu" -> `("sensor_msgs", "Imu")`, the arguments of ros2-client's
/// `MessageTypeName::new(package, name)`. Only `msg` types (ros2-client's prefix).
pub fn split_type_name(ros_type: &str) -> Result<(&str, &str), MsgError> {
    match parse_type_name(ros_type)? {
        (package, "msg", name) => Ok((package, name)),
        _ => Err(MsgError::BadTypeName {
            name: ros_type.to_owned(),
            reason: "not a message type (`package/msg/Name`)",
        }),
    }
}

/// Splits and validates `package/msg|srv|action/Name`.
fn parse_type_name(ros_type: &str) -> Result<(&str, &str, &str), MsgError> {
    let bad = |reason| MsgError::BadTypeName {
        name: ros_type.to_owned(),
        reason,
    };
    let parts: Vec<&str> = ros_type.split('/').collect();
    let [package, kind, name] = parts[..] else {
        return Err(bad("expected `package/msg/Name`"));
    };
    if !matches!(kind, "msg" | "srv" | "action") {
        return Err(bad("the middle part must be `msg`, `srv` or `action`"));
    }
    let ident = |s: &str| {
        !s.is_empty()
            && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
            && !s.starts_with(|c: char| c.is_ascii_digit())
    };
    if !ident(package) || !ident(name) {
        return Err(bad(
            "package and name must be non-empty identifiers [A-Za-z0-9_]",
        ));
    }
    Ok((package, kind, name))
}

/// Implements [`RosMessage`] and [`MaybeStamped`] (and, with `stamped`, [`Stamped`] through the
/// `header` field).
macro_rules! ros_message {
    ($ty:ident, $name:literal) => {
        impl $crate::RosMessage for $ty {
            const TYPE_NAME: &'static str = $name;
        }
        impl $crate::MaybeStamped for $ty {
            fn maybe_header(&self) -> Option<&$crate::std_msgs::Header> {
                None
            }
            fn maybe_header_mut(&mut self) -> Option<&mut $crate::std_msgs::Header> {
                None
            }
        }
    };
    ($ty:ident, $name:literal, stamped) => {
        impl $crate::RosMessage for $ty {
            const TYPE_NAME: &'static str = $name;
        }
        impl $crate::Stamped for $ty {
            fn header(&self) -> &$crate::std_msgs::Header {
                &self.header
            }
            fn header_mut(&mut self) -> &mut $crate::std_msgs::Header {
                &mut self.header
            }
        }
        impl $crate::MaybeStamped for $ty {
            fn maybe_header(&self) -> Option<&$crate::std_msgs::Header> {
                Some(&self.header)
            }
            fn maybe_header_mut(&mut self) -> Option<&mut $crate::std_msgs::Header> {
                Some(&mut self.header)
            }
        }
    };
}
pub(crate) use ros_message;

pub mod builtin_interfaces;
pub mod diagnostic_msgs;
pub mod fieldproof_interfaces;
pub mod geometry_msgs;
pub mod lifecycle_msgs;
pub mod nav_msgs;
pub mod rcl_interfaces;
pub mod rosgraph_msgs;
pub mod sensor_msgs;
pub mod std_msgs;
pub mod tf2_msgs;
pub mod vision_msgs;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dds_names() {
        assert_eq!(
            dds_type_name("sensor_msgs/msg/Imu").unwrap(),
            "sensor_msgs::msg::dds_::Imu_"
        );
        assert_eq!(
            dds_type_name("rcl_interfaces/srv/GetParameters_Request").unwrap(),
            "rcl_interfaces::srv::dds_::GetParameters_Request_"
        );
        for bad in [
            "",
            "Imu",
            "sensor_msgs/Imu",
            "sensor_msgs/foo/Imu",
            "a/msg/",
            "/msg/X",
            "a b/msg/X",
            "a/msg/X/y",
        ] {
            assert!(
                matches!(dds_type_name(bad), Err(MsgError::BadTypeName { .. })),
                "{bad}"
            );
        }
    }

    #[test]
    fn split_names() {
        assert_eq!(
            split_type_name("nav_msgs/msg/Odometry").unwrap(),
            ("nav_msgs", "Odometry")
        );
        assert!(split_type_name("std_srvs/srv/Trigger").is_err());
        assert!(split_type_name("nav_msgs/Odometry").is_err());
    }

    #[test]
    fn every_type_name_maps_to_a_dds_name() {
        for kind in MessageKind::ALL {
            let dds = dds_type_name(kind.name()).unwrap();
            assert!(dds.ends_with(&format!(
                "::dds_::{}_",
                kind.name().rsplit('/').next().unwrap()
            )));
        }
    }

    #[test]
    fn stamped_access() {
        let mut imu = sensor_msgs::Imu::default();
        imu.header_mut().frame_id = "imu_link".into();
        assert_eq!(imu.header().frame_id, "imu_link");
        assert_eq!(
            imu.maybe_header().map(|h| h.frame_id.as_str()),
            Some("imu_link")
        );
        assert!(geometry_msgs::Twist::default().maybe_header().is_none());
    }

    #[test]
    fn ros_defaults() {
        assert_eq!(geometry_msgs::Quaternion::default().w, 1.0);
        assert_eq!(geometry_msgs::Pose::default().orientation.w, 1.0);
        assert_eq!(
            geometry_msgs::PoseWithCovariance::default().covariance,
            [0.0; 36]
        );
        assert_eq!(
            cdr::to_bytes(&std_msgs::Empty::default()).unwrap(),
            [0, 1, 0, 0, 0]
        );
    }
}
