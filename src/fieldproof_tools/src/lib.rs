//! The `fieldproof` command's building blocks.
//!
//! - [`ament`]: find installed packages and executables through `AMENT_PREFIX_PATH`, the way
//!   `ros2 run` and `ros2 pkg prefix` do.

pub mod ament;
