//! The model artifact and its boot gate.
//!
//! An artifact is a directory holding three files:
//!
//! - `model.onnx`: the model's bytes;
//! - `manifest.yaml`: its name, version (semver), target device, input shape (NCHW) and the
//!   SHA-256 of `model.onnx` ([`Manifest`]);
//! - `manifest.sig`: the Ed25519 signature over the exact bytes of `manifest.yaml`, as 128
//!   lowercase hex digits and a newline.
//!
//! [`open_verified`] is the boot gate: it reads the three files, then checks, in this order,
//! the signature against the trusted public key, the manifest's fields, the model's SHA-256,
//! the version against the minimum (no rollback), the device and the input shape. The first
//! failure is returned as a [`GateError`] whose message names the check and the values;
//! [`GateError::check`] gives the check's name. [`sign_artifact`], [`write_manifest`] and
//! [`generate_key_pair`] make artifacts (the `model_sign` tool wraps them).
//!
//! Key files hold hex and a newline: `<name>.key` the 32-byte Ed25519 secret seed,
//! `<name>.pub` the 32-byte public key. The crypto is `ed25519-dalek` and `sha2`.

mod error;
mod gate;
mod keys;
mod manifest;

pub use ed25519_dalek::{SigningKey, VerifyingKey};
pub use error::GateError;
pub use gate::{
    open_verified, sign_artifact, GateRequirements, VerifiedArtifact, MANIFEST_FILE, MODEL_FILE,
    SIGNATURE_FILE,
};
pub use keys::{generate_key_pair, load_public_key, load_signing_key, KeyPairPaths};
pub use manifest::{parse_input_shape, sha256_hex, write_manifest, Manifest};
