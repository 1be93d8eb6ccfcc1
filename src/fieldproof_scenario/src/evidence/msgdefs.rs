//! The `.msg` definitions (ROS 2 Jazzy) of the types fieldproof_msgs knows, for the MCAP
//! `ros2msg` schemas: the type's own text, then each dependency after a line of `=` and
//! `MSG: pkg/Name`, as rosbag2 writes them.

/// The own definition of a type (fully qualified names for nested types).
pub fn own(ros_type: &str) -> Option<&'static str> {
    Some(match ros_type {
        "builtin_interfaces/msg/Time" | "builtin_interfaces/msg/Duration" => {
            "int32 sec\nuint32 nanosec\n"
        }
        "std_msgs/msg/Header" => "builtin_interfaces/msg/Time stamp\nstring frame_id\n",
        "std_msgs/msg/String" => "string data\n",
        "std_msgs/msg/Bool" => "bool data\n",
        "std_msgs/msg/Float64" => "float64 data\n",
        "std_msgs/msg/Empty" => "",
        "geometry_msgs/msg/Vector3" | "geometry_msgs/msg/Point" => {
            "float64 x\nfloat64 y\nfloat64 z\n"
        }
        "geometry_msgs/msg/Quaternion" => "float64 x 0\nfloat64 y 0\nfloat64 z 0\nfloat64 w 1\n",
        "geometry_msgs/msg/Pose" => {
            "geometry_msgs/msg/Point position\ngeometry_msgs/msg/Quaternion orientation\n"
        }
        "geometry_msgs/msg/PoseWithCovariance" => {
            "geometry_msgs/msg/Pose pose\nfloat64[36] covariance\n"
        }
        "geometry_msgs/msg/Twist" => {
            "geometry_msgs/msg/Vector3 linear\ngeometry_msgs/msg/Vector3 angular\n"
        }
        "geometry_msgs/msg/TwistWithCovariance" => {
            "geometry_msgs/msg/Twist twist\nfloat64[36] covariance\n"
        }
        "geometry_msgs/msg/Transform" => {
            "geometry_msgs/msg/Vector3 translation\ngeometry_msgs/msg/Quaternion rotation\n"
        }
        "geometry_msgs/msg/PoseStamped" => "std_msgs/msg/Header header\ngeometry_msgs/msg/Pose pose\n",
        "geometry_msgs/msg/TwistStamped" => {
            "std_msgs/msg/Header header\ngeometry_msgs/msg/Twist twist\n"
        }
        "geometry_msgs/msg/TransformStamped" => {
            "std_msgs/msg/Header header\nstring child_frame_id\ngeometry_msgs/msg/Transform transform\n"
        }
        "tf2_msgs/msg/TFMessage" => "geometry_msgs/msg/TransformStamped[] transforms\n",
        "rosgraph_msgs/msg/Clock" => "builtin_interfaces/msg/Time clock\n",
        "nav_msgs/msg/Odometry" => {
            "std_msgs/msg/Header header\nstring child_frame_id\ngeometry_msgs/msg/PoseWithCovariance pose\ngeometry_msgs/msg/TwistWithCovariance twist\n"
        }
        "sensor_msgs/msg/NavSatStatus" => "int8 status\nuint16 service\n",
        "sensor_msgs/msg/NavSatFix" => {
            "std_msgs/msg/Header header\nsensor_msgs/msg/NavSatStatus status\nfloat64 latitude\nfloat64 longitude\nfloat64 altitude\nfloat64[9] position_covariance\nuint8 position_covariance_type\n"
        }
        "sensor_msgs/msg/Imu" => {
            "std_msgs/msg/Header header\ngeometry_msgs/msg/Quaternion orientation\nfloat64[9] orientation_covariance\ngeometry_msgs/msg/Vector3 angular_velocity\nfloat64[9] angular_velocity_covariance\ngeometry_msgs/msg/Vector3 linear_acceleration\nfloat64[9] linear_acceleration_covariance\n"
        }
        "sensor_msgs/msg/JointState" => {
            "std_msgs/msg/Header header\nstring[] name\nfloat64[] position\nfloat64[] velocity\nfloat64[] effort\n"
        }
        "sensor_msgs/msg/LaserScan" => {
            "std_msgs/msg/Header header\nfloat32 angle_min\nfloat32 angle_max\nfloat32 angle_increment\nfloat32 time_increment\nfloat32 scan_time\nfloat32 range_min\nfloat32 range_max\nfloat32[] ranges\nfloat32[] intensities\n"
        }
        "sensor_msgs/msg/BatteryState" => {
            "std_msgs/msg/Header header\nfloat32 voltage\nfloat32 temperature\nfloat32 current\nfloat32 charge\nfloat32 capacity\nfloat32 design_capacity\nfloat32 percentage\nuint8 power_supply_status\nuint8 power_supply_health\nuint8 power_supply_technology\nbool present\nfloat32[] cell_voltage\nfloat32[] cell_temperature\nstring location\nstring serial_number\n"
        }
        "sensor_msgs/msg/Image" => {
            "std_msgs/msg/Header header\nuint32 height\nuint32 width\nstring encoding\nuint8 is_bigendian\nuint32 step\nuint8[] data\n"
        }
        "sensor_msgs/msg/RegionOfInterest" => {
            "uint32 x_offset\nuint32 y_offset\nuint32 height\nuint32 width\nbool do_rectify\n"
        }
        "sensor_msgs/msg/CameraInfo" => {
            "std_msgs/msg/Header header\nuint32 height\nuint32 width\nstring distortion_model\nfloat64[] d\nfloat64[9] k\nfloat64[9] r\nfloat64[12] p\nuint32 binning_x\nuint32 binning_y\nsensor_msgs/msg/RegionOfInterest roi\n"
        }
        "sensor_msgs/msg/PointField" => "string name\nuint32 offset\nuint8 datatype\nuint32 count\n",
        "sensor_msgs/msg/PointCloud2" => {
            "std_msgs/msg/Header header\nuint32 height\nuint32 width\nsensor_msgs/msg/PointField[] fields\nbool is_bigendian\nuint32 point_step\nuint32 row_step\nuint8[] data\nbool is_dense\n"
        }
        "sensor_msgs/msg/MagneticField" => {
            "std_msgs/msg/Header header\ngeometry_msgs/msg/Vector3 magnetic_field\nfloat64[9] magnetic_field_covariance\n"
        }
        "sensor_msgs/msg/FluidPressure" => {
            "std_msgs/msg/Header header\nfloat64 fluid_pressure\nfloat64 variance\n"
        }
        "sensor_msgs/msg/Temperature" => {
            "std_msgs/msg/Header header\nfloat64 temperature\nfloat64 variance\n"
        }
        "sensor_msgs/msg/Range" => {
            "std_msgs/msg/Header header\nuint8 radiation_type\nfloat32 field_of_view\nfloat32 min_range\nfloat32 max_range\nfloat32 range\nfloat32 variance\n"
        }
        _ => return None,
    })
}

fn deps_of(text: &str) -> Vec<String> {
    text.lines()
        .filter_map(|l| l.split_whitespace().next())
        .filter(|t| t.contains('/'))
        .map(|t| t.split('[').next().unwrap_or(t).to_string())
        .collect()
}

/// The full `ros2msg` schema text of a type (own text and every dependency once, depth
/// first), `None` for a type without a definition here.
pub fn schema(ros_type: &str) -> Option<String> {
    let mut out = own(ros_type)?.to_string();
    let mut seen = vec![ros_type.to_string()];
    let mut stack: Vec<String> = deps_of(own(ros_type)?).into_iter().rev().collect();
    while let Some(t) = stack.pop() {
        if seen.contains(&t) {
            continue;
        }
        let text = own(&t)?;
        out.push_str(&"=".repeat(80));
        out.push_str(&format!("\nMSG: {t}\n{text}"));
        seen.push(t);
        for d in deps_of(text).into_iter().rev() {
            stack.push(d);
        }
    }
    // As rosbag2 writes them (and the ROS 2 parsers read them): `pkg/Name`, no `msg/`.
    Some(out.replace("/msg/", "/"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_known_type_has_a_complete_schema() {
        for t in fieldproof_msgs::KNOWN_TYPES {
            let s = schema(t).unwrap_or_else(|| panic!("no definition of {t}"));
            for d in deps_of(&s) {
                assert!(s.contains(&format!("MSG: {d}\n")), "{t}: {d} missing");
                assert!(!d.contains("/msg/"), "{t}: {d}");
            }
        }
    }

    #[test]
    fn odometry_lists_its_dependencies_once() {
        let s = schema("nav_msgs/msg/Odometry").unwrap();
        assert_eq!(s.matches("MSG: geometry_msgs/Vector3\n").count(), 1);
        assert!(s.starts_with("std_msgs/Header header\n"));
        assert!(s.contains("MSG: builtin_interfaces/Time\nint32 sec"));
    }
}
