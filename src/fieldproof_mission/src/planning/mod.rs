//! `planner`: an occupancy grid from the planar lidar, inflated by the vehicle's radius plus a
//! margin, A* waypoints to the goal, replanned when a new scan closes the route, and the
//! current target for the supervisor.
//!
//! - [`grid`]: the grid, what a scan does to it (hits occupy, free cells are seen but never
//!   cleared), the inflation;
//! - [`search`]: A* (the `pathfinding` crate) over the cells that are not blocked,
//!   line-of-sight pruning, the check that a route was closed;
//! - [`mission`]: climb first, the waypoints in order, hover without a route, completion;
//! - [`poses`]: the recent estimated poses, to place each scan with the pose at its stamp;
//! - [`planner`]: the state between messages (estimate, scans, goal in; target, route out).
//!
//! The node (`src/bin/planner.rs`) wires them to its topics; the README's "planner" section
//! has its parameters.

pub mod grid;
pub mod mission;
pub mod planner;
pub mod poses;
pub mod search;

pub use grid::{Cell, GridGeometry, OccupancyMap, Pose2, ScanOutcome};
pub use mission::{Leg, Mission, MissionSettings, Target};
pub use planner::{goal_in_map, OdomOrigin, Planner, PlannerSettings, RouteEvent, ScanRefused};
pub use poses::PoseHistory;
pub use search::{line_of_sight, plan_route, prune, route_closed, NoRoute};
