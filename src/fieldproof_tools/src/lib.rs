//! The fieldproof command: run installed executables as ros2 run does, launch files, and (later) scenarios.
