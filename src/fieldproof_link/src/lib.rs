//! Radio links: the link shaper (kernel netem or userspace emulator), the ground station,
//! link analysis and the link_monitor failsafe.
//!
//! The DDS-free core lives here; the binaries under `src/bin` are thin shells.

pub mod analysis;
pub mod profile;
