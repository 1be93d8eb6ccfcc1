//! Bridge bundles: the generator, the adapters (fault injectors) and the contract checker.
//!
//! - [`faults`]: `dropout` and `freeze`, which every injector offers.
//! - [`adapters`]: each adapter's own transform (IMU covariance and bias, NavSat fix, stamp
//!   throttle, command clamp, battery model); the nodes are the binaries in `src/bin/`.

pub mod adapters;
pub mod faults;
pub mod contract;
pub mod gen;
