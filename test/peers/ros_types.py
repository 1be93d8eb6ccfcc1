"""ROS 2 Jazzy message types as Cyclone DDS IDL structs, with ROS 2's DDS type names.

Written independently of our Rust types from the .msg definitions, so that a test through
them checks our wire format against a second implementation.
"""

import types
from dataclasses import dataclass, field

from cyclonedds.idl import IdlStruct
from cyclonedds.idl.types import array, float32, float64, int32, int8, sequence, uint8, uint16, uint32


@dataclass
class Time(IdlStruct, typename="builtin_interfaces::msg::dds_::Time_"):
    sec: int32 = 0
    nanosec: uint32 = 0


@dataclass
class Header(IdlStruct, typename="std_msgs::msg::dds_::Header_"):
    stamp: Time = field(default_factory=Time)
    frame_id: str = ""


@dataclass
class String(IdlStruct, typename="std_msgs::msg::dds_::String_"):
    data: str = ""


@dataclass
class Bool(IdlStruct, typename="std_msgs::msg::dds_::Bool_"):
    data: bool = False


@dataclass
class Vector3(IdlStruct, typename="geometry_msgs::msg::dds_::Vector3_"):
    x: float64 = 0.0
    y: float64 = 0.0
    z: float64 = 0.0


@dataclass
class Quaternion(IdlStruct, typename="geometry_msgs::msg::dds_::Quaternion_"):
    x: float64 = 0.0
    y: float64 = 0.0
    z: float64 = 0.0
    w: float64 = 1.0


@dataclass
class Twist(IdlStruct, typename="geometry_msgs::msg::dds_::Twist_"):
    linear: Vector3 = field(default_factory=Vector3)
    angular: Vector3 = field(default_factory=Vector3)


@dataclass
class Point(IdlStruct, typename="geometry_msgs::msg::dds_::Point_"):
    x: float64 = 0.0
    y: float64 = 0.0
    z: float64 = 0.0


@dataclass
class Pose(IdlStruct, typename="geometry_msgs::msg::dds_::Pose_"):
    position: Point = field(default_factory=Point)
    orientation: Quaternion = field(default_factory=Quaternion)


@dataclass
class PoseWithCovariance(IdlStruct, typename="geometry_msgs::msg::dds_::PoseWithCovariance_"):
    pose: Pose = field(default_factory=Pose)
    covariance: array[float64, 36] = field(default_factory=lambda: [0.0] * 36)


@dataclass
class TwistWithCovariance(IdlStruct, typename="geometry_msgs::msg::dds_::TwistWithCovariance_"):
    twist: Twist = field(default_factory=Twist)
    covariance: array[float64, 36] = field(default_factory=lambda: [0.0] * 36)


@dataclass
class Odometry(IdlStruct, typename="nav_msgs::msg::dds_::Odometry_"):
    header: Header = field(default_factory=Header)
    child_frame_id: str = ""
    pose: PoseWithCovariance = field(default_factory=PoseWithCovariance)
    twist: TwistWithCovariance = field(default_factory=TwistWithCovariance)


@dataclass
class Transform(IdlStruct, typename="geometry_msgs::msg::dds_::Transform_"):
    translation: Vector3 = field(default_factory=Vector3)
    rotation: Quaternion = field(default_factory=Quaternion)


@dataclass
class TransformStamped(IdlStruct, typename="geometry_msgs::msg::dds_::TransformStamped_"):
    header: Header = field(default_factory=Header)
    child_frame_id: str = ""
    transform: Transform = field(default_factory=Transform)


@dataclass
class TFMessage(IdlStruct, typename="tf2_msgs::msg::dds_::TFMessage_"):
    transforms: sequence[TransformStamped] = field(default_factory=list)


@dataclass
class Imu(IdlStruct, typename="sensor_msgs::msg::dds_::Imu_"):
    header: Header = field(default_factory=Header)
    orientation: Quaternion = field(default_factory=Quaternion)
    orientation_covariance: array[float64, 9] = field(default_factory=lambda: [0.0] * 9)
    angular_velocity: Vector3 = field(default_factory=Vector3)
    angular_velocity_covariance: array[float64, 9] = field(default_factory=lambda: [0.0] * 9)
    linear_acceleration: Vector3 = field(default_factory=Vector3)
    linear_acceleration_covariance: array[float64, 9] = field(default_factory=lambda: [0.0] * 9)


@dataclass
class LaserScan(IdlStruct, typename="sensor_msgs::msg::dds_::LaserScan_"):
    header: Header = field(default_factory=Header)
    angle_min: float32 = 0.0
    angle_max: float32 = 0.0
    angle_increment: float32 = 0.0
    time_increment: float32 = 0.0
    scan_time: float32 = 0.0
    range_min: float32 = 0.0
    range_max: float32 = 0.0
    ranges: sequence[float32] = field(default_factory=list)
    intensities: sequence[float32] = field(default_factory=list)


@dataclass
class Image(IdlStruct, typename="sensor_msgs::msg::dds_::Image_"):
    header: Header = field(default_factory=Header)
    height: uint32 = 0
    width: uint32 = 0
    encoding: str = ""
    is_bigendian: uint8 = 0
    step: uint32 = 0
    data: sequence[uint8] = field(default_factory=list)


@dataclass
class NavSatStatus(IdlStruct, typename="sensor_msgs::msg::dds_::NavSatStatus_"):
    status: int8 = 0
    service: uint16 = 0


@dataclass
class NavSatFix(IdlStruct, typename="sensor_msgs::msg::dds_::NavSatFix_"):
    header: Header = field(default_factory=Header)
    status: NavSatStatus = field(default_factory=NavSatStatus)
    latitude: float64 = 0.0
    longitude: float64 = 0.0
    altitude: float64 = 0.0
    position_covariance: array[float64, 9] = field(default_factory=lambda: [0.0] * 9)
    position_covariance_type: uint8 = 0


@dataclass
class JointState(IdlStruct, typename="sensor_msgs::msg::dds_::JointState_"):
    header: Header = field(default_factory=Header)
    name: sequence[str] = field(default_factory=list)
    position: sequence[float64] = field(default_factory=list)
    velocity: sequence[float64] = field(default_factory=list)
    effort: sequence[float64] = field(default_factory=list)


@dataclass
class BatteryState(IdlStruct, typename="sensor_msgs::msg::dds_::BatteryState_"):
    header: Header = field(default_factory=Header)
    voltage: float32 = 0.0
    temperature: float32 = 0.0
    current: float32 = 0.0
    charge: float32 = 0.0
    capacity: float32 = 0.0
    design_capacity: float32 = 0.0
    percentage: float32 = 0.0
    power_supply_status: uint8 = 0
    power_supply_health: uint8 = 0
    power_supply_technology: uint8 = 0
    present: bool = False
    cell_voltage: sequence[float32] = field(default_factory=list)
    cell_temperature: sequence[float32] = field(default_factory=list)
    location: str = ""
    serial_number: str = ""


@dataclass
class Clock(IdlStruct, typename="rosgraph_msgs::msg::dds_::Clock_"):
    clock: Time = field(default_factory=Time)


@dataclass
class Gid(IdlStruct, typename="rmw_dds_common::msg::dds_::Gid_"):
    data: array[uint8, 16] = field(default_factory=lambda: [0] * 16)


@dataclass
class NodeEntitiesInfo(IdlStruct, typename="rmw_dds_common::msg::dds_::NodeEntitiesInfo_"):
    node_namespace: str = ""
    node_name: str = ""
    reader_gid_seq: sequence[Gid] = field(default_factory=list)
    writer_gid_seq: sequence[Gid] = field(default_factory=list)


@dataclass
class ParticipantEntitiesInfo(
    IdlStruct, typename="rmw_dds_common::msg::dds_::ParticipantEntitiesInfo_"
):
    gid: Gid = field(default_factory=Gid)
    node_entities_info_seq: sequence[NodeEntitiesInfo] = field(default_factory=list)


# A deliberately wrong type on a ROS topic name, for the bad-input tests.
@dataclass
class NotAnImu(IdlStruct, typename="sensor_msgs::msg::dds_::Imu_"):
    garbage: int8 = 0


def malformed(typename: str, name: str):
    """A one-byte struct under a ROS type's DDS name: every sample of it is malformed there."""
    def body(namespace):
        namespace.update({"__annotations__": {"garbage": int8}, "garbage": 0})
    return dataclass(types.new_class(name, (IdlStruct,), {"typename": typename}, body))
