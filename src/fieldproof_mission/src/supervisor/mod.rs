//! `supervisor_core`'s library: the health policy behind its 15-field line protocol.
//!
//! - [`protocol`]: the wire types ([`Frame`] in, [`Command`] out, [`Mode`]) and [`enu_to_ned`];
//! - [`config`]: every threshold of the policy ([`PolicyConfig`]) with its default and source;
//! - [`policy`]: the state machine ([`Policy::step`]: one frame in, one command out);
//! - [`serve`](mod@serve): the process boundary (stdin frames to stdout commands).

pub mod config;
pub mod policy;
pub mod protocol;
pub mod serve;

pub use config::{ConfigError, PolicyConfig};
pub use policy::{Policy, Reason};
pub use protocol::{enu_to_ned, Command, CommandError, Frame, FrameError, Mode};
pub use serve::{serve, ServeError};
