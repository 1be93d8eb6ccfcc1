//! `rcl_interfaces`: Log (what every node publishes on `/rosout`).

use serde::{Deserialize, Serialize};

use crate::builtin_interfaces::Time;

/// `rcl_interfaces/msg/Log`: one log record on `/rosout`.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Log {
    /// When it was logged.
    pub stamp: Time,
    /// Severity: [`Log::DEBUG`] .. [`Log::FATAL`].
    pub level: u8,
    /// The logger's name (`ns.node`).
    pub name: String,
    /// The message.
    pub msg: String,
    /// Source file.
    pub file: String,
    /// Function.
    pub function: String,
    /// Source line.
    pub line: u32,
}

impl Log {
    /// Debug severity.
    pub const DEBUG: u8 = 10;
    /// Info severity.
    pub const INFO: u8 = 20;
    /// Warning severity.
    pub const WARN: u8 = 30;
    /// Error severity.
    pub const ERROR: u8 = 40;
    /// Fatal severity.
    pub const FATAL: u8 = 50;
}

crate::ros_message!(Log, "rcl_interfaces/msg/Log");
