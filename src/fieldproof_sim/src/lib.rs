//! Kinematic simulator standing in for Gazebo and ros_gz_bridge: worlds, vehicles, /clock, sensors.
