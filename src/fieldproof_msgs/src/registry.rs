//! The registry of message types by ROS name, for nodes whose message type is a runtime
//! parameter: [`MessageKind`], [`AnyMessage`], [`crate::dispatch!`], [`crate::dispatch_stamped!`].

use crate::{MaybeStamped, MsgError, RosMessage, Stamped};

/// The single list of types; calls `$crate::$callback!` with `{ args }`, then the types without a
/// header (`plain: [...]`) and those with one (`stamped: [...]`), each `Kind = "ros/msg/Name" =>
/// module::Type`.
#[doc(hidden)]
#[macro_export]
macro_rules! __message_table {
    ($callback:ident { $($args:tt)* }) => {
        $crate::$callback! {
            { $($args)* }
            plain: [
                Time = "builtin_interfaces/msg/Time" => builtin_interfaces::Time,
                Duration = "builtin_interfaces/msg/Duration" => builtin_interfaces::Duration,
                Header = "std_msgs/msg/Header" => std_msgs::Header,
                String = "std_msgs/msg/String" => std_msgs::String,
                Bool = "std_msgs/msg/Bool" => std_msgs::Bool,
                Float64 = "std_msgs/msg/Float64" => std_msgs::Float64,
                Empty = "std_msgs/msg/Empty" => std_msgs::Empty,
                Vector3 = "geometry_msgs/msg/Vector3" => geometry_msgs::Vector3,
                Quaternion = "geometry_msgs/msg/Quaternion" => geometry_msgs::Quaternion,
                Point = "geometry_msgs/msg/Point" => geometry_msgs::Point,
                Pose = "geometry_msgs/msg/Pose" => geometry_msgs::Pose,
                PoseWithCovariance = "geometry_msgs/msg/PoseWithCovariance" => geometry_msgs::PoseWithCovariance,
                Twist = "geometry_msgs/msg/Twist" => geometry_msgs::Twist,
                TwistWithCovariance = "geometry_msgs/msg/TwistWithCovariance" => geometry_msgs::TwistWithCovariance,
                Transform = "geometry_msgs/msg/Transform" => geometry_msgs::Transform,
                NavSatStatus = "sensor_msgs/msg/NavSatStatus" => sensor_msgs::NavSatStatus,
                RegionOfInterest = "sensor_msgs/msg/RegionOfInterest" => sensor_msgs::RegionOfInterest,
                PointField = "sensor_msgs/msg/PointField" => sensor_msgs::PointField,
                Clock = "rosgraph_msgs/msg/Clock" => rosgraph_msgs::Clock,
                TFMessage = "tf2_msgs/msg/TFMessage" => tf2_msgs::TFMessage,
                State = "lifecycle_msgs/msg/State" => lifecycle_msgs::State,
                Transition = "lifecycle_msgs/msg/Transition" => lifecycle_msgs::Transition,
                TransitionDescription = "lifecycle_msgs/msg/TransitionDescription" => lifecycle_msgs::TransitionDescription,
                TransitionEvent = "lifecycle_msgs/msg/TransitionEvent" => lifecycle_msgs::TransitionEvent,
                MapMetaData = "nav_msgs/msg/MapMetaData" => nav_msgs::MapMetaData,
                Point2D = "vision_msgs/msg/Point2D" => vision_msgs::Point2D,
                Pose2D = "vision_msgs/msg/Pose2D" => vision_msgs::Pose2D,
                BoundingBox2D = "vision_msgs/msg/BoundingBox2D" => vision_msgs::BoundingBox2D,
                ObjectHypothesis = "vision_msgs/msg/ObjectHypothesis" => vision_msgs::ObjectHypothesis,
                ObjectHypothesisWithPose = "vision_msgs/msg/ObjectHypothesisWithPose" => vision_msgs::ObjectHypothesisWithPose,
                KeyValue = "diagnostic_msgs/msg/KeyValue" => diagnostic_msgs::KeyValue,
                DiagnosticStatus = "diagnostic_msgs/msg/DiagnosticStatus" => diagnostic_msgs::DiagnosticStatus,
            ]
            stamped: [
                PoseStamped = "geometry_msgs/msg/PoseStamped" => geometry_msgs::PoseStamped,
                PoseArray = "geometry_msgs/msg/PoseArray" => geometry_msgs::PoseArray,
                TwistStamped = "geometry_msgs/msg/TwistStamped" => geometry_msgs::TwistStamped,
                TransformStamped = "geometry_msgs/msg/TransformStamped" => geometry_msgs::TransformStamped,
                Imu = "sensor_msgs/msg/Imu" => sensor_msgs::Imu,
                NavSatFix = "sensor_msgs/msg/NavSatFix" => sensor_msgs::NavSatFix,
                JointState = "sensor_msgs/msg/JointState" => sensor_msgs::JointState,
                LaserScan = "sensor_msgs/msg/LaserScan" => sensor_msgs::LaserScan,
                BatteryState = "sensor_msgs/msg/BatteryState" => sensor_msgs::BatteryState,
                Image = "sensor_msgs/msg/Image" => sensor_msgs::Image,
                CameraInfo = "sensor_msgs/msg/CameraInfo" => sensor_msgs::CameraInfo,
                PointCloud2 = "sensor_msgs/msg/PointCloud2" => sensor_msgs::PointCloud2,
                MagneticField = "sensor_msgs/msg/MagneticField" => sensor_msgs::MagneticField,
                FluidPressure = "sensor_msgs/msg/FluidPressure" => sensor_msgs::FluidPressure,
                Temperature = "sensor_msgs/msg/Temperature" => sensor_msgs::Temperature,
                Range = "sensor_msgs/msg/Range" => sensor_msgs::Range,
                Odometry = "nav_msgs/msg/Odometry" => nav_msgs::Odometry,
                OccupancyGrid = "nav_msgs/msg/OccupancyGrid" => nav_msgs::OccupancyGrid,
                Path = "nav_msgs/msg/Path" => nav_msgs::Path,
                Detection2D = "vision_msgs/msg/Detection2D" => vision_msgs::Detection2D,
                Detection2DArray = "vision_msgs/msg/Detection2DArray" => vision_msgs::Detection2DArray,
                DiagnosticArray = "diagnostic_msgs/msg/DiagnosticArray" => diagnostic_msgs::DiagnosticArray,
                FleetStatus = "fieldproof_interfaces/msg/FleetStatus" => fieldproof_interfaces::FleetStatus,
                ClearanceRequest = "fieldproof_interfaces/msg/ClearanceRequest" => fieldproof_interfaces::ClearanceRequest,
                Clearance = "fieldproof_interfaces/msg/Clearance" => fieldproof_interfaces::Clearance,
            ]
        }
    };
}

/// Runs `body` with the type alias `T` set to the message type named by `ros_type` (a `&str`,
/// `String` or [`MessageKind`]); evaluates to `Result<body's type, MsgError>`, the error being
/// [`MsgError::UnknownType`] (which lists the known types).
///
/// ```
/// # use fieldproof_msgs::{dispatch, RosMessage};
/// fn name_of<T: RosMessage>() -> &'static str { T::TYPE_NAME }
/// assert_eq!(dispatch!("nav_msgs/msg/Odometry", |T| name_of::<T>()).unwrap(), "nav_msgs/msg/Odometry");
/// ```
///
/// Inside `body`, `T` is one concrete type, so it may call a generic function with any bounds
/// that all message types satisfy (`RosMessage`, `MaybeStamped`, `Default`, `Debug`,
/// `PartialEq`); `.await` works in async code.
#[macro_export]
macro_rules! dispatch {
    ($ros_type:expr, |$T:ident| $body:expr) => {
        $crate::__message_table!(__dispatch_all {
            $ros_type,
            $T,
            $body
        })
    };
}

/// Like [`dispatch!`], for bodies that need `T: Stamped`: a known type without a header gives
/// [`MsgError::NotStamped`].
///
/// ```
/// # use fieldproof_msgs::{dispatch_stamped, Stamped, MsgError};
/// fn frame<T: Stamped + Default>() -> String { T::default().header().frame_id.clone() }
/// assert!(dispatch_stamped!("sensor_msgs/msg/Imu", |T| frame::<T>()).is_ok());
/// assert!(matches!(dispatch_stamped!("geometry_msgs/msg/Twist", |T| frame::<T>()), Err(MsgError::NotStamped(_))));
/// ```
#[macro_export]
macro_rules! dispatch_stamped {
    ($ros_type:expr, |$T:ident| $body:expr) => {
        $crate::__message_table!(__dispatch_stamped {
            $ros_type,
            $T,
            $body
        })
    };
}

#[doc(hidden)]
#[macro_export]
macro_rules! __dispatch_all {
    (
        { $ros_type:expr, $T:ident, $body:expr }
        plain: [ $( $pk:ident = $pn:literal => $pm:ident :: $pt:ident ),* $(,)? ]
        stamped: [ $( $sk:ident = $sn:literal => $sm:ident :: $st:ident ),* $(,)? ]
    ) => {
        match $crate::MessageKind::from_name(::core::convert::AsRef::<str>::as_ref(&$ros_type)) {
            ::core::result::Result::Ok(kind) => ::core::result::Result::Ok(match kind {
                $( $crate::MessageKind::$pk => {
                    #[allow(dead_code)]
                    type $T = $crate::$pm::$pt;
                    $body
                } )*
                $( $crate::MessageKind::$sk => {
                    #[allow(dead_code)]
                    type $T = $crate::$sm::$st;
                    $body
                } )*
            }),
            ::core::result::Result::Err(e) => ::core::result::Result::Err(e),
        }
    };
}

#[doc(hidden)]
#[macro_export]
macro_rules! __dispatch_stamped {
    (
        { $ros_type:expr, $T:ident, $body:expr }
        plain: [ $( $pk:ident = $pn:literal => $pm:ident :: $pt:ident ),* $(,)? ]
        stamped: [ $( $sk:ident = $sn:literal => $sm:ident :: $st:ident ),* $(,)? ]
    ) => {
        match $crate::MessageKind::from_name(::core::convert::AsRef::<str>::as_ref(&$ros_type)) {
            ::core::result::Result::Ok(kind) => match kind {
                $( $crate::MessageKind::$pk => ::core::result::Result::Err(
                    $crate::MsgError::NotStamped(::std::string::ToString::to_string($pn)),
                ), )*
                $( $crate::MessageKind::$sk => ::core::result::Result::Ok({
                    #[allow(dead_code)]
                    type $T = $crate::$sm::$st;
                    $body
                }), )*
            },
            ::core::result::Result::Err(e) => ::core::result::Result::Err(e),
        }
    };
}

/// A generic operation over message types, run by [`MessageKind::visit`] with the concrete type.
pub trait MessageVisitor {
    /// What the operation returns.
    type Output;
    /// Runs the operation for message type `T`.
    fn visit<T>(self) -> Self::Output
    where
        T: RosMessage + MaybeStamped + Default + std::fmt::Debug + PartialEq;
}

/// A generic operation over stamped message types, run by [`MessageKind::visit_stamped`].
pub trait StampedMessageVisitor {
    /// What the operation returns.
    type Output;
    /// Runs the operation for message type `T`.
    fn visit<T>(self) -> Self::Output
    where
        T: RosMessage + Stamped + MaybeStamped + Default + std::fmt::Debug + PartialEq;
}

#[doc(hidden)]
#[macro_export]
macro_rules! __define_registry {
    (
        {}
        plain: [ $( $pk:ident = $pn:literal => $pm:ident :: $pt:ident ),* $(,)? ]
        stamped: [ $( $sk:ident = $sn:literal => $sm:ident :: $st:ident ),* $(,)? ]
    ) => {
        /// Every message type of this crate, by kind (variant names are the ROS type names).
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum MessageKind {
            $( #[doc = concat!("`", $pn, "`")] $pk, )*
            $( #[doc = concat!("`", $sn, "` (stamped)")] $sk, )*
        }

        /// ROS names of all known types, e.g. `"sensor_msgs/msg/Imu"`.
        pub const KNOWN_TYPES: &[&str] = &[ $( $pn, )* $( $sn, )* ];

        impl MessageKind {
            /// All kinds.
            pub const ALL: &'static [MessageKind] = &[ $( MessageKind::$pk, )* $( MessageKind::$sk, )* ];

            /// The ROS type name, e.g. `"sensor_msgs/msg/Imu"`.
            pub const fn name(self) -> &'static str {
                match self {
                    $( MessageKind::$pk => $pn, )*
                    $( MessageKind::$sk => $sn, )*
                }
            }

            /// Whether the type has a `header: std_msgs/Header` (implements [`Stamped`]).
            pub const fn is_stamped(self) -> bool {
                match self {
                    $( MessageKind::$pk => false, )*
                    $( MessageKind::$sk => true, )*
                }
            }

            /// Runs `visitor` with this kind's type.
            pub fn visit<V: MessageVisitor>(self, visitor: V) -> V::Output {
                match self {
                    $( MessageKind::$pk => visitor.visit::<$crate::$pm::$pt>(), )*
                    $( MessageKind::$sk => visitor.visit::<$crate::$sm::$st>(), )*
                }
            }

            /// Runs `visitor` with this kind's type, [`MsgError::NotStamped`] for unstamped types.
            pub fn visit_stamped<V: StampedMessageVisitor>(self, visitor: V) -> Result<V::Output, MsgError> {
                match self {
                    $( MessageKind::$pk => Err(MsgError::NotStamped($pn.to_string())), )*
                    $( MessageKind::$sk => Ok(visitor.visit::<$crate::$sm::$st>()), )*
                }
            }

            fn from_exact_name(name: &str) -> Option<Self> {
                match name {
                    $( $pn => Some(MessageKind::$pk), )*
                    $( $sn => Some(MessageKind::$sk), )*
                    _ => None,
                }
            }
        }

        /// A decoded message of any known type.
        // Odometry is ~740 bytes inline; boxing every variant would cost an allocation per
        // message for the small ones, which are the common case.
        #[allow(clippy::large_enum_variant)]
        #[derive(Debug, Clone, PartialEq)]
        pub enum AnyMessage {
            $( #[doc = concat!("`", $pn, "`")] $pk($crate::$pm::$pt), )*
            $( #[doc = concat!("`", $sn, "`")] $sk($crate::$sm::$st), )*
        }

        impl AnyMessage {
            /// Decodes a CDR payload (with encapsulation header) of type `kind`.
            pub fn from_cdr(kind: MessageKind, bytes: &[u8]) -> Result<Self, MsgError> {
                Ok(match kind {
                    $( MessageKind::$pk => AnyMessage::$pk($crate::cdr::from_bytes(bytes)?), )*
                    $( MessageKind::$sk => AnyMessage::$sk($crate::cdr::from_bytes(bytes)?), )*
                })
            }

            /// Encodes as CDR with the encapsulation header.
            pub fn to_cdr(&self) -> Result<Vec<u8>, MsgError> {
                match self {
                    $( AnyMessage::$pk(m) => $crate::cdr::to_bytes(m), )*
                    $( AnyMessage::$sk(m) => $crate::cdr::to_bytes(m), )*
                }
            }

            /// The message's kind.
            pub fn kind(&self) -> MessageKind {
                match self {
                    $( AnyMessage::$pk(_) => MessageKind::$pk, )*
                    $( AnyMessage::$sk(_) => MessageKind::$sk, )*
                }
            }

            /// The default value of type `kind`.
            pub fn default_of(kind: MessageKind) -> Self {
                match kind {
                    $( MessageKind::$pk => AnyMessage::$pk(Default::default()), )*
                    $( MessageKind::$sk => AnyMessage::$sk(Default::default()), )*
                }
            }

            /// The header, for stamped types.
            pub fn header(&self) -> Option<&$crate::std_msgs::Header> {
                match self {
                    $( AnyMessage::$pk(_) => None, )*
                    $( AnyMessage::$sk(m) => Some(&m.header), )*
                }
            }

            /// The header mutably, for stamped types.
            pub fn header_mut(&mut self) -> Option<&mut $crate::std_msgs::Header> {
                match self {
                    $( AnyMessage::$pk(_) => None, )*
                    $( AnyMessage::$sk(m) => Some(&mut m.header), )*
                }
            }
        }

        $(
            impl From<$crate::$pm::$pt> for AnyMessage {
                fn from(m: $crate::$pm::$pt) -> Self { AnyMessage::$pk(m) }
            }
        )*
        $(
            impl From<$crate::$sm::$st> for AnyMessage {
                fn from(m: $crate::$sm::$st) -> Self { AnyMessage::$sk(m) }
            }
        )*
    };
}

crate::__message_table!(__define_registry {});

impl MessageKind {
    /// Looks up a ROS type name: `pkg/msg/Name`, or the short `pkg/Name` that the `ros2` CLI
    /// also accepts. Unknown names give [`MsgError::UnknownType`].
    pub fn from_name(name: &str) -> Result<Self, MsgError> {
        if let Some(kind) = Self::from_exact_name(name) {
            return Ok(kind);
        }
        if let Some((package, ty)) = name.split_once('/') {
            if !ty.contains('/') {
                if let Some(kind) = Self::from_exact_name(&format!("{package}/msg/{ty}")) {
                    return Ok(kind);
                }
            }
        }
        Err(MsgError::UnknownType(name.to_owned()))
    }

    /// The DDS type name, e.g. `"sensor_msgs::msg::dds_::Imu_"`.
    pub fn dds_type_name(self) -> String {
        crate::dds_type_name(self.name()).expect("registry names are well formed")
    }
}

impl std::str::FromStr for MessageKind {
    type Err = MsgError;
    fn from_str(s: &str) -> Result<Self, MsgError> {
        Self::from_name(s)
    }
}

impl std::fmt::Display for MessageKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl AsRef<str> for MessageKind {
    fn as_ref(&self) -> &str {
        self.name()
    }
}

/// Whether `name` (`pkg/msg/Name` or `pkg/Name`) is a type of this crate.
pub fn is_known_type(name: &str) -> bool {
    MessageKind::from_name(name).is_ok()
}

/// ROS names of the types that carry a `std_msgs/Header`.
pub fn stamped_type_names() -> Vec<&'static str> {
    MessageKind::ALL
        .iter()
        .filter(|k| k.is_stamped())
        .map(|k| k.name())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{cdr, sensor_msgs::Imu};

    #[test]
    fn names_round_trip_and_match_type_names() {
        struct Check;
        impl MessageVisitor for Check {
            type Output = (&'static str, bool);
            fn visit<T>(self) -> Self::Output
            where
                T: RosMessage + MaybeStamped + Default + std::fmt::Debug + PartialEq,
            {
                (T::TYPE_NAME, T::default().maybe_header().is_some())
            }
        }
        assert_eq!(MessageKind::ALL.len(), KNOWN_TYPES.len());
        assert_eq!(KNOWN_TYPES.len(), 57);
        for &kind in MessageKind::ALL {
            assert_eq!(MessageKind::from_name(kind.name()).unwrap(), kind);
            assert_eq!(kind.name().parse::<MessageKind>().unwrap(), kind);
            assert_eq!(kind.visit(Check), (kind.name(), kind.is_stamped()));
            assert_eq!(AnyMessage::default_of(kind).kind(), kind);
            assert_eq!(
                AnyMessage::default_of(kind).header().is_some(),
                kind.is_stamped()
            );
            let dispatched = crate::dispatch!(kind, |T| <T as RosMessage>::TYPE_NAME).unwrap();
            assert_eq!(dispatched, kind.name());
        }
    }

    #[test]
    fn short_names_and_unknown_names() {
        assert_eq!(
            MessageKind::from_name("sensor_msgs/Imu").unwrap(),
            MessageKind::Imu
        );
        assert!(is_known_type("std_msgs/msg/String"));
        assert!(is_known_type("tf2_msgs/TFMessage"));
        assert!(!is_known_type("sensor_msgs/msg/Imu2"));
        assert!(!is_known_type("sensor_msgs/srv/Imu"));
        assert!(!is_known_type("Imu"));
        let err = MessageKind::from_name("foo_msgs/msg/Bar").unwrap_err();
        assert!(matches!(&err, MsgError::UnknownType(n) if n == "foo_msgs/msg/Bar"));
        let text = err.to_string();
        assert!(
            text.contains("foo_msgs/msg/Bar") && text.contains("sensor_msgs/msg/Imu"),
            "{text}"
        );
    }

    #[test]
    fn dispatch_macros() {
        fn encoded_len<T: RosMessage + Default>() -> usize {
            cdr::to_bytes(&T::default()).unwrap().len()
        }
        fn relabel<T: RosMessage + Stamped + Default>(frame: &str) -> String {
            let mut m = T::default();
            m.header_mut().frame_id = frame.to_owned();
            m.header().frame_id.clone()
        }
        let name = String::from("std_msgs/msg/String");
        assert_eq!(
            crate::dispatch!(name, |T| encoded_len::<T>()).unwrap(),
            4 + 4 + 1
        );
        assert_eq!(crate::dispatch!(&name, |T| encoded_len::<T>()).unwrap(), 9);
        assert!(matches!(
            crate::dispatch!("x/msg/Y", |T| encoded_len::<T>()),
            Err(MsgError::UnknownType(_))
        ));
        assert_eq!(
            crate::dispatch_stamped!("sensor_msgs/msg/Range", |T| relabel::<T>("a")).unwrap(),
            "a"
        );
        let err =
            crate::dispatch_stamped!("std_msgs/msg/String", |T| relabel::<T>("a")).unwrap_err();
        assert!(matches!(&err, MsgError::NotStamped(n) if n == "std_msgs/msg/String"));
        assert!(err.to_string().contains("sensor_msgs/msg/Imu"));
    }

    #[test]
    fn any_message_round_trip() {
        let mut imu = Imu::default();
        imu.header.frame_id = "imu".into();
        imu.angular_velocity.z = 0.5;
        let any = AnyMessage::from(imu.clone());
        let bytes = any.to_cdr().unwrap();
        assert_eq!(bytes, cdr::to_bytes(&imu).unwrap());
        let back = AnyMessage::from_cdr(MessageKind::Imu, &bytes).unwrap();
        assert_eq!(back, AnyMessage::Imu(imu));
        assert_eq!(back.header().unwrap().frame_id, "imu");
        assert!(AnyMessage::from_cdr(MessageKind::Odometry, &bytes).is_err());
    }
}
