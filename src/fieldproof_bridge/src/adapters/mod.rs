//! The adapters' message transforms, as pure logic (the nodes in `src/bin/` are thin shells
//! around them): each adapter's own change, then the [`crate::faults::Injector`].

pub mod battery;
pub mod command;
pub mod imu;
pub mod navsat;
pub mod throttle;
