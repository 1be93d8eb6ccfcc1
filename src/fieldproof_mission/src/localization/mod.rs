//! `localizer`: an educational linear Kalman filter (ENU position and velocity, six states)
//! fusing the IMU (its acceleration, rotated to ENU by its orientation, gravity removed,
//! drives the prediction) and GNSS (fixes converted to ENU about the world's origin through
//! `fieldproof_robots::geo`, the simulator's own conversion, update the position) into
//! `odometry/filtered`.
//!
//! - [`filter`]: the filter itself (predict, update, never a NaN in its state);
//! - [`inputs`]: IMU samples and GNSS fixes, checked and converted;
//! - [`localizer`]: the two put together, with the counters of what was skipped and the
//!   `nav_msgs/Odometry` it publishes;
//! - [`origin`]: the geodetic origin from a world file or parameters.

pub mod filter;
pub mod inputs;
pub mod localizer;
pub mod origin;

pub use filter::{Estimate, Filter, FilterConfig, Rejected};
pub use inputs::{GnssMeasurement, GnssNoise, ImuSample, Skip, STANDARD_GRAVITY_MPS2};
pub use localizer::{Counters, Localizer, LocalizerConfig, Refusal};
pub use origin::OriginSettings;
