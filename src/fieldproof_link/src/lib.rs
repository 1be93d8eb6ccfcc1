//! Radio links: the link shaper (kernel netem or userspace emulator), the ground station,
//! link analysis and the link_monitor failsafe.
//!
//! The DDS-free core lives here; the binaries under `src/bin` are thin shells.

pub mod analysis;
pub mod bringup;
pub mod delay;
pub mod duration;
pub mod emulator;
pub mod heartbeat;
pub mod monitor;
pub mod netns;
#[cfg(feature = "ros")]
pub mod nodes;
pub mod probe;
pub mod profile;
pub mod rng;
pub mod scenario_file;
pub mod shaper;
pub mod sys;
pub mod tc;
