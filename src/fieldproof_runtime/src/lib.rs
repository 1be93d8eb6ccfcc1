//! The node runtime every fieldproof node uses: ROS 2 context from the environment, --ros-args, declared parameters and their services, clock, QoS, logging, shutdown.
