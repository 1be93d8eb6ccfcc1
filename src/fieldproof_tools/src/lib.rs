//! The `fieldproof` command's building blocks.
//!
//! - [`launch`]: read ROS 2 YAML launch files and supervise the processes they start.
//! - [`ament`]: find installed packages and executables through `AMENT_PREFIX_PATH`, the way
//!   `ros2 run` and `ros2 pkg prefix` do.

pub mod ament;
pub mod launch;
