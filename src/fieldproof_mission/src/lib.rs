//! The mission computer of a multirotor, one module per concern, one binary per node
//! (`src/bin/`):
//!
//! - [`supervisor`]: the health policy and its 15-field line protocol (`supervisor_core`, a
//!   process of its own, stdin to stdout);
//! - [`supervision`]: what `mission_supervisor` gathers each control cycle and how it talks to
//!   its `supervisor_core` child;
//! - [`autopilot`]: `autopilot_stub`, between the supervisor and the vehicle's `cmd_vel`, with
//!   its own command watchdog;
//! - [`localization`]: `localizer`, a Kalman filter fusing GNSS and IMU;
//! - [`planning`]: `planner`, an inflated occupancy grid from the lidar and A* waypoints.

pub mod autopilot;
pub mod localization;
pub mod planning;
pub mod supervision;
pub mod supervisor;
