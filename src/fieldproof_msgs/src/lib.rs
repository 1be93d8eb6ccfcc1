//! ROS 2 message types (builtin_interfaces, std_msgs, geometry_msgs, sensor_msgs, nav_msgs, rosgraph_msgs, tf2_msgs) as serde types, CDR-exact with ROS 2 Jazzy.
