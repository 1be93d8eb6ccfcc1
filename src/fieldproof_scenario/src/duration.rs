//! Durations as scenarios write them (`5s`, `1.5s`, `250ms`, `2m`, `2min`, or a bare number
//! of seconds): the one grammar every reader of a scenario file shares, defined and
//! documented in [`fieldproof_link::duration`] and re-exported here.

pub use fieldproof_link::duration::*;
