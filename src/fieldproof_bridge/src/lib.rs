//! Bridge bundles: the generator, the adapters (fault injectors) and the contract checker.
//!
//! - [`cli`]: what the command-line tools share (argument parsing, exit codes).
//! - [`faults`]: `dropout` and `freeze`, which every injector offers.
//! - [`adapters`]: each adapter's own transform (IMU covariance and bias, NavSat fix, stamp
//!   throttle, command clamp, battery model).
//! - [`nodes`]: the adapter nodes (declarations and body), each run alone by its binary in
//!   `src/bin/` or composed with the rest of a bundle by `bundle_container`.
//! - [`node`]: the parameters and the receive → transform → inject → publish loop the adapter
//!   nodes share.

pub mod adapters;
pub mod cli;
pub mod contract;
pub mod faults;
pub mod gen;
pub mod node;
pub mod nodes;
