//! The interface definitions type hashes are computed from: the `.msg` fields of every
//! registered message type and of every type one references (the builtin topics' types among
//! them), and the request and response of every service a node of ours offers or calls.

/// The `.msg` fields of every registered type (and of the types they reference): one
/// `type name` per line, nested types written `pkg/Name`. Constants, comments and default
/// values are left out (a type hash covers none of them). Checked field for field against the
/// rig's `share/<pkg>/msg/<Type>.json` by `tests/type_hash_rig.rs`.
pub(super) const DEFINITIONS: &[(&str, &str)] = &[
    ("builtin_interfaces/msg/Time", "int32 sec\nuint32 nanosec"),
    (
        "builtin_interfaces/msg/Duration",
        "int32 sec\nuint32 nanosec",
    ),
    (
        "std_msgs/msg/Header",
        "builtin_interfaces/Time stamp\nstring frame_id",
    ),
    ("std_msgs/msg/String", "string data"),
    ("std_msgs/msg/Bool", "bool data"),
    ("std_msgs/msg/Float64", "float64 data"),
    ("std_msgs/msg/Empty", ""),
    (
        "geometry_msgs/msg/Vector3",
        "float64 x\nfloat64 y\nfloat64 z",
    ),
    (
        "geometry_msgs/msg/Quaternion",
        "float64 x\nfloat64 y\nfloat64 z\nfloat64 w",
    ),
    ("geometry_msgs/msg/Point", "float64 x\nfloat64 y\nfloat64 z"),
    (
        "geometry_msgs/msg/Pose",
        "geometry_msgs/Point position\ngeometry_msgs/Quaternion orientation",
    ),
    (
        "geometry_msgs/msg/PoseWithCovariance",
        "geometry_msgs/Pose pose\nfloat64[36] covariance",
    ),
    (
        "geometry_msgs/msg/PoseStamped",
        "std_msgs/Header header\ngeometry_msgs/Pose pose",
    ),
    (
        "geometry_msgs/msg/PoseArray",
        "std_msgs/Header header\ngeometry_msgs/Pose[] poses",
    ),
    (
        "geometry_msgs/msg/Twist",
        "geometry_msgs/Vector3 linear\ngeometry_msgs/Vector3 angular",
    ),
    (
        "geometry_msgs/msg/TwistWithCovariance",
        "geometry_msgs/Twist twist\nfloat64[36] covariance",
    ),
    (
        "geometry_msgs/msg/TwistStamped",
        "std_msgs/Header header\ngeometry_msgs/Twist twist",
    ),
    (
        "geometry_msgs/msg/Transform",
        "geometry_msgs/Vector3 translation\ngeometry_msgs/Quaternion rotation",
    ),
    (
        "geometry_msgs/msg/TransformStamped",
        "std_msgs/Header header\nstring child_frame_id\ngeometry_msgs/Transform transform",
    ),
    (
        "sensor_msgs/msg/NavSatStatus",
        "int8 status\nuint16 service",
    ),
    (
        "sensor_msgs/msg/NavSatFix",
        "std_msgs/Header header\nsensor_msgs/NavSatStatus status\nfloat64 latitude\n\
         float64 longitude\nfloat64 altitude\nfloat64[9] position_covariance\n\
         uint8 position_covariance_type",
    ),
    (
        "sensor_msgs/msg/RegionOfInterest",
        "uint32 x_offset\nuint32 y_offset\nuint32 height\nuint32 width\nbool do_rectify",
    ),
    (
        "sensor_msgs/msg/PointField",
        "string name\nuint32 offset\nuint8 datatype\nuint32 count",
    ),
    (
        "sensor_msgs/msg/Imu",
        "std_msgs/Header header\ngeometry_msgs/Quaternion orientation\n\
         float64[9] orientation_covariance\ngeometry_msgs/Vector3 angular_velocity\n\
         float64[9] angular_velocity_covariance\ngeometry_msgs/Vector3 linear_acceleration\n\
         float64[9] linear_acceleration_covariance",
    ),
    (
        "sensor_msgs/msg/JointState",
        "std_msgs/Header header\nstring[] name\nfloat64[] position\nfloat64[] velocity\n\
         float64[] effort",
    ),
    (
        "sensor_msgs/msg/LaserScan",
        "std_msgs/Header header\nfloat32 angle_min\nfloat32 angle_max\nfloat32 angle_increment\n\
         float32 time_increment\nfloat32 scan_time\nfloat32 range_min\nfloat32 range_max\n\
         float32[] ranges\nfloat32[] intensities",
    ),
    (
        "sensor_msgs/msg/BatteryState",
        "std_msgs/Header header\nfloat32 voltage\nfloat32 temperature\nfloat32 current\n\
         float32 charge\nfloat32 capacity\nfloat32 design_capacity\nfloat32 percentage\n\
         uint8 power_supply_status\nuint8 power_supply_health\nuint8 power_supply_technology\n\
         bool present\nfloat32[] cell_voltage\nfloat32[] cell_temperature\nstring location\n\
         string serial_number",
    ),
    (
        "sensor_msgs/msg/Image",
        "std_msgs/Header header\nuint32 height\nuint32 width\nstring encoding\n\
         uint8 is_bigendian\nuint32 step\nuint8[] data",
    ),
    (
        "sensor_msgs/msg/CameraInfo",
        "std_msgs/Header header\nuint32 height\nuint32 width\nstring distortion_model\n\
         float64[] d\nfloat64[9] k\nfloat64[9] r\nfloat64[12] p\nuint32 binning_x\n\
         uint32 binning_y\nsensor_msgs/RegionOfInterest roi",
    ),
    (
        "sensor_msgs/msg/PointCloud2",
        "std_msgs/Header header\nuint32 height\nuint32 width\nsensor_msgs/PointField[] fields\n\
         bool is_bigendian\nuint32 point_step\nuint32 row_step\nuint8[] data\nbool is_dense",
    ),
    (
        "sensor_msgs/msg/MagneticField",
        "std_msgs/Header header\ngeometry_msgs/Vector3 magnetic_field\n\
         float64[9] magnetic_field_covariance",
    ),
    (
        "sensor_msgs/msg/FluidPressure",
        "std_msgs/Header header\nfloat64 fluid_pressure\nfloat64 variance",
    ),
    (
        "sensor_msgs/msg/Temperature",
        "std_msgs/Header header\nfloat64 temperature\nfloat64 variance",
    ),
    (
        "sensor_msgs/msg/Range",
        "std_msgs/Header header\nuint8 radiation_type\nfloat32 field_of_view\n\
         float32 min_range\nfloat32 max_range\nfloat32 range\nfloat32 variance",
    ),
    (
        "nav_msgs/msg/Odometry",
        "std_msgs/Header header\nstring child_frame_id\n\
         geometry_msgs/PoseWithCovariance pose\ngeometry_msgs/TwistWithCovariance twist",
    ),
    (
        "nav_msgs/msg/MapMetaData",
        "builtin_interfaces/Time map_load_time\nfloat32 resolution\nuint32 width\n\
         uint32 height\ngeometry_msgs/Pose origin",
    ),
    (
        "nav_msgs/msg/OccupancyGrid",
        "std_msgs/Header header\nnav_msgs/MapMetaData info\nint8[] data",
    ),
    (
        "nav_msgs/msg/Path",
        "std_msgs/Header header\ngeometry_msgs/PoseStamped[] poses",
    ),
    ("rosgraph_msgs/msg/Clock", "builtin_interfaces/Time clock"),
    (
        "tf2_msgs/msg/TFMessage",
        "geometry_msgs/TransformStamped[] transforms",
    ),
    ("lifecycle_msgs/msg/State", "uint8 id\nstring label"),
    ("lifecycle_msgs/msg/Transition", "uint8 id\nstring label"),
    (
        "lifecycle_msgs/msg/TransitionDescription",
        "lifecycle_msgs/Transition transition\nlifecycle_msgs/State start_state\n\
         lifecycle_msgs/State goal_state",
    ),
    (
        "lifecycle_msgs/msg/TransitionEvent",
        "uint64 timestamp\nlifecycle_msgs/Transition transition\n\
         lifecycle_msgs/State start_state\nlifecycle_msgs/State goal_state",
    ),
    ("vision_msgs/msg/Point2D", "float64 x\nfloat64 y"),
    (
        "vision_msgs/msg/Pose2D",
        "vision_msgs/Point2D position\nfloat64 theta",
    ),
    (
        "vision_msgs/msg/BoundingBox2D",
        "vision_msgs/Pose2D center\nfloat64 size_x\nfloat64 size_y",
    ),
    (
        "vision_msgs/msg/ObjectHypothesis",
        "string class_id\nfloat64 score",
    ),
    (
        "vision_msgs/msg/ObjectHypothesisWithPose",
        "vision_msgs/ObjectHypothesis hypothesis\ngeometry_msgs/PoseWithCovariance pose",
    ),
    (
        "vision_msgs/msg/Detection2D",
        "std_msgs/Header header\nvision_msgs/ObjectHypothesisWithPose[] results\n\
         vision_msgs/BoundingBox2D bbox\nstring id",
    ),
    (
        "vision_msgs/msg/Detection2DArray",
        "std_msgs/Header header\nvision_msgs/Detection2D[] detections",
    ),
    ("diagnostic_msgs/msg/KeyValue", "string key\nstring value"),
    (
        "diagnostic_msgs/msg/DiagnosticStatus",
        "byte level\nstring name\nstring message\nstring hardware_id\n\
         diagnostic_msgs/KeyValue[] values",
    ),
    (
        "diagnostic_msgs/msg/DiagnosticArray",
        "std_msgs/Header header\ndiagnostic_msgs/DiagnosticStatus[] status",
    ),
    // The fleet's own messages: the interface package's .msg files themselves (the single
    // source of truth; comments and constants are skipped when they are read).
    (
        "fieldproof_interfaces/msg/FleetStatus",
        include_str!("../../../fieldproof_interfaces/msg/FleetStatus.msg"),
    ),
    (
        "fieldproof_interfaces/msg/ClearanceRequest",
        include_str!("../../../fieldproof_interfaces/msg/ClearanceRequest.msg"),
    ),
    (
        "fieldproof_interfaces/msg/Clearance",
        include_str!("../../../fieldproof_interfaces/msg/Clearance.msg"),
    ),
    // The builtin topics' types: `/rosout`, `/parameter_events`, `ros_discovery_info`, and the
    // types the services below reference.
    (
        "rcl_interfaces/msg/Log",
        "builtin_interfaces/Time stamp\nuint8 level\nstring name\nstring msg\nstring file\n\
         string function\nuint32 line",
    ),
    (
        "rcl_interfaces/msg/ParameterEvent",
        "builtin_interfaces/Time stamp\nstring node\nrcl_interfaces/Parameter[] new_parameters\n\
         rcl_interfaces/Parameter[] changed_parameters\n\
         rcl_interfaces/Parameter[] deleted_parameters",
    ),
    (
        "rcl_interfaces/msg/Parameter",
        "string name\nrcl_interfaces/ParameterValue value",
    ),
    (
        "rcl_interfaces/msg/ParameterValue",
        "uint8 type\nbool bool_value\nint64 integer_value\nfloat64 double_value\n\
         string string_value\nbyte[] byte_array_value\nbool[] bool_array_value\n\
         int64[] integer_array_value\nfloat64[] double_array_value\nstring[] string_array_value",
    ),
    (
        "rcl_interfaces/msg/ParameterDescriptor",
        "string name\nuint8 type\nstring description\nstring additional_constraints\n\
         bool read_only\nbool dynamic_typing\n\
         rcl_interfaces/FloatingPointRange[<=1] floating_point_range\n\
         rcl_interfaces/IntegerRange[<=1] integer_range",
    ),
    (
        "rcl_interfaces/msg/FloatingPointRange",
        "float64 from_value\nfloat64 to_value\nfloat64 step",
    ),
    (
        "rcl_interfaces/msg/IntegerRange",
        "int64 from_value\nint64 to_value\nuint64 step",
    ),
    (
        "rcl_interfaces/msg/SetParametersResult",
        "bool successful\nstring reason",
    ),
    (
        "rcl_interfaces/msg/ListParametersResult",
        "string[] names\nstring[] prefixes",
    ),
    ("rmw_dds_common/msg/Gid", "char[16] data"),
    (
        "rmw_dds_common/msg/NodeEntitiesInfo",
        "string<=256 node_namespace\nstring<=256 node_name\n\
         rmw_dds_common/Gid[] reader_gid_seq\nrmw_dds_common/Gid[] writer_gid_seq",
    ),
    (
        "rmw_dds_common/msg/ParticipantEntitiesInfo",
        "rmw_dds_common/Gid gid\nrmw_dds_common/NodeEntitiesInfo[] node_entities_info_seq",
    ),
    (
        "service_msgs/msg/ServiceEventInfo",
        "uint8 event_type\nbuiltin_interfaces/Time stamp\nchar[16] client_gid\n\
         int64 sequence_number",
    ),
];

/// The `.srv` of every service type a node of ours offers or calls: `(pkg/srv/Name, request
/// fields, response fields)`, written as in [`DEFINITIONS`]. Checked against the rig's
/// `share/<pkg>/srv/<Name>.json` by `tests/type_hash_rig.rs`.
pub(super) const SERVICES: &[(&str, &str, &str)] = &[
    (
        "rcl_interfaces/srv/DescribeParameters",
        "string[] names",
        "rcl_interfaces/ParameterDescriptor[] descriptors",
    ),
    (
        "rcl_interfaces/srv/GetParameters",
        "string[] names",
        "rcl_interfaces/ParameterValue[] values",
    ),
    (
        "rcl_interfaces/srv/GetParameterTypes",
        "string[] names",
        "uint8[] types",
    ),
    (
        "rcl_interfaces/srv/ListParameters",
        "string[] prefixes\nuint64 depth",
        "rcl_interfaces/ListParametersResult result",
    ),
    (
        "rcl_interfaces/srv/SetParameters",
        "rcl_interfaces/Parameter[] parameters",
        "rcl_interfaces/SetParametersResult[] results",
    ),
    (
        "rcl_interfaces/srv/SetParametersAtomically",
        "rcl_interfaces/Parameter[] parameters",
        "rcl_interfaces/SetParametersResult result",
    ),
    (
        "lifecycle_msgs/srv/ChangeState",
        "lifecycle_msgs/Transition transition",
        "bool success",
    ),
    (
        "lifecycle_msgs/srv/GetState",
        "",
        "lifecycle_msgs/State current_state",
    ),
    (
        "lifecycle_msgs/srv/GetAvailableStates",
        "",
        "lifecycle_msgs/State[] available_states",
    ),
    (
        "lifecycle_msgs/srv/GetAvailableTransitions",
        "",
        "lifecycle_msgs/TransitionDescription[] available_transitions",
    ),
];
