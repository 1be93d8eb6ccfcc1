//! The model artifact and its boot gate (being built).
