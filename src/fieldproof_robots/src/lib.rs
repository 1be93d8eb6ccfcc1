//! Vehicle manifests (`robots/<name>/robot.yaml`) and worlds (`worlds/<name>.yaml`): the
//! typed, validated model every tool reads (the simulator, the bridge generator, the
//! scenario runner).
//!
//! - [`Manifest::load`] resolves the `extends` chain (deep merge, see [`merge`]), parses
//!   strictly (unknown keys are errors, with a suggestion) and validates; every error names
//!   the file and the field path: `drive.odometry: missing rate_hz`.
//! - [`Manifest::interfaces`] flattens the drive's interfaces and the sensors' outputs with
//!   the sensor defaults applied; [`bridge::adapter_for`] / [`bridge::is_hidden`] decide,
//!   once for every tool, which of them reach their contract topic through an adapter.
//! - [`World::load`] reads a world: obstacles, geodetic origin, spawn frames, goals.

pub mod bridge;
pub mod error;
mod load;
pub mod manifest;
pub mod world;

pub use bridge::{adapter_for, is_hidden, Adapter, Naming};
pub use error::{Error, FieldPath};
pub use load::merge;
pub use manifest::*;
pub use world::*;
