//! The `fieldproof` command's building blocks, from [`fieldproof_launch`] (kept under these
//! names for the command's users).
//!
//! - [`launch`]: read ROS 2 YAML launch files and supervise the processes they start.
//! - [`ament`]: find installed packages and executables through `AMENT_PREFIX_PATH`, the way
//!   `ros2 run` and `ros2 pkg prefix` do.

pub use fieldproof_launch as launch;
pub use fieldproof_launch::ament;
