"""Independent ROS 2 peers for the tests: Cyclone DDS (PyPI `cyclonedds`) speaking ROS 2's naming."""
