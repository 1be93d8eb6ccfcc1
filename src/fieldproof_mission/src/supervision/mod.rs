//! `mission_supervisor`'s work, apart from DDS: what it gathers each control cycle and the
//! frame it makes of it ([`inputs`]), the pipe to its `supervisor_core` child with the
//! evidence files ([`core_link`]), and the session's decisions cycle by cycle ([`session`]).
//! The node (`src/bin/mission_supervisor.rs`) wires these to its topics.

pub mod core_link;
pub mod inputs;
pub mod session;

pub use core_link::{CoreCommand, CoreLink, Evidence, LinkError};
pub use inputs::{Inputs, Refused, VisionSource};
pub use session::{Publish, Session, Skip, State};
