//! The crate's error type.

/// Errors from encoding, decoding and type-name handling.
#[derive(Debug, thiserror::Error)]
pub enum MsgError {
    /// A ROS type name that is not in the registry.
    #[error("unknown message type `{0}` (known types: {known})", known = crate::registry::KNOWN_TYPES.join(", "))]
    UnknownType(String),
    /// A known type that carries no `std_msgs/Header` where one is required.
    #[error("message type `{0}` has no std_msgs/Header (stamped types: {known})", known = crate::registry::stamped_type_names().join(", "))]
    NotStamped(String),
    /// A string that is not a ROS type name of the form `pkg/msg/Name`.
    #[error("bad ROS type name `{name}`: {reason}")]
    BadTypeName {
        /// The offending name.
        name: String,
        /// What is wrong with it.
        reason: &'static str,
    },
    /// The payload is shorter than the 4-byte encapsulation header.
    #[error("CDR payload too short: {0} bytes, need at least the 4-byte encapsulation header")]
    TooShort(usize),
    /// The encapsulation header names a representation we do not decode.
    #[error("unsupported CDR encapsulation {0:02x?} (expected CDR_LE 00 01 or CDR_BE 00 00)")]
    Encapsulation([u8; 2]),
    /// Bytes left over after the message, more than the at most 3 bytes of end padding.
    #[error("{trailing} trailing bytes after a {consumed}-byte message body (wrong type?)")]
    TrailingBytes {
        /// Bytes of the body the decoder consumed.
        consumed: usize,
        /// Bytes left over.
        trailing: usize,
    },
    /// The CDR serializer or deserializer failed.
    #[error("CDR: {0}")]
    Cdr(#[from] cdr_encoding::Error),
}
