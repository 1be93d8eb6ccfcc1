//! The gate's error: which check failed, with the values that failed it.

use std::path::PathBuf;

/// Why an artifact was refused (or could not be made). Its `Display` names the check and the
/// values, e.g. `artifact gate: model sha256 mismatch: manifest says 3f…, model.onnx is 9a…`.
#[derive(Debug, thiserror::Error)]
pub enum GateError {
    /// A file of the artifact, or a key file, could not be read.
    #[error("artifact gate: cannot read {}: {reason}", path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// The operating system's reason.
        reason: String,
    },
    /// A key file was read but does not hold a key.
    #[error("artifact gate: key file {}: {reason}", path.display())]
    KeyFile {
        /// The key file.
        path: PathBuf,
        /// What is wrong with its contents.
        reason: String,
    },
    /// A file could not be written (only when making an artifact or a key pair).
    #[error("artifact gate: cannot write {}: {reason}", path.display())]
    Write {
        /// The file.
        path: PathBuf,
        /// The operating system's reason.
        reason: String,
    },
    /// `manifest.sig` does not hold a signature (not 128 hex digits).
    #[error("artifact gate: signature file {}: {reason}", path.display())]
    SignatureFile {
        /// The signature file.
        path: PathBuf,
        /// What is wrong with its contents.
        reason: String,
    },
    /// The signature does not verify over the manifest's bytes with the trusted key: the
    /// manifest changed after signing, or another key signed it.
    #[error(
        "artifact gate: manifest signature does not verify with public key {public_key} \
         (manifest.yaml changed after signing, or signed by another key)"
    )]
    SignatureMismatch {
        /// The trusted public key, hex.
        public_key: String,
    },
    /// `manifest.yaml` is signed but not a valid manifest.
    #[error("artifact gate: manifest: {reason}")]
    Manifest {
        /// The field and value at fault.
        reason: String,
    },
    /// The model's SHA-256 is not the one the manifest states.
    #[error(
        "artifact gate: model sha256 mismatch: manifest says {manifest}, model.onnx is {model}"
    )]
    Sha256Mismatch {
        /// The digest in the manifest.
        manifest: String,
        /// The digest of `model.onnx`.
        model: String,
    },
    /// The artifact's version is below the minimum accepted (rollback).
    #[error(
        "artifact gate: version {version} is below the minimum {min_version} (rollback refused)"
    )]
    VersionBelowMinimum {
        /// The manifest's version.
        version: semver::Version,
        /// The minimum the node accepts.
        min_version: semver::Version,
    },
    /// The artifact targets another device.
    #[error("artifact gate: device mismatch: manifest says {manifest:?}, this node runs on {required:?}")]
    DeviceMismatch {
        /// The manifest's device.
        manifest: String,
        /// The node's device.
        required: String,
    },
    /// The model's input shape is not the camera's.
    #[error("artifact gate: input shape mismatch: manifest says {manifest:?}, the camera gives {required:?}")]
    InputShapeMismatch {
        /// The manifest's input shape.
        manifest: Vec<usize>,
        /// The shape the node feeds.
        required: Vec<usize>,
    },
}

impl GateError {
    /// The failed check's name: `"read"` (a file or key file), `"signature"`, `"manifest"`,
    /// `"sha256"`, `"version"`, `"device"`, `"input_shape"`, or `"write"` (only when making
    /// an artifact).
    pub fn check(&self) -> &'static str {
        match self {
            GateError::Read { .. } | GateError::KeyFile { .. } => "read",
            GateError::Write { .. } => "write",
            GateError::SignatureFile { .. } | GateError::SignatureMismatch { .. } => "signature",
            GateError::Manifest { .. } => "manifest",
            GateError::Sha256Mismatch { .. } => "sha256",
            GateError::VersionBelowMinimum { .. } => "version",
            GateError::DeviceMismatch { .. } => "device",
            GateError::InputShapeMismatch { .. } => "input_shape",
        }
    }

    /// A [`GateError::Read`] for `path` from an I/O error.
    pub(crate) fn read(path: &std::path::Path, error: std::io::Error) -> GateError {
        GateError::Read {
            path: path.to_path_buf(),
            reason: error.to_string(),
        }
    }

    /// A [`GateError::Write`] for `path` from an I/O error.
    pub(crate) fn write(path: &std::path::Path, error: std::io::Error) -> GateError {
        GateError::Write {
            path: path.to_path_buf(),
            reason: error.to_string(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_variant_names_its_check_and_values() {
        let cases = [
            (
                GateError::Sha256Mismatch {
                    manifest: "3f".into(),
                    model: "9a".into(),
                },
                "sha256",
                vec!["3f", "9a"],
            ),
            (
                GateError::VersionBelowMinimum {
                    version: semver::Version::new(0, 9, 0),
                    min_version: semver::Version::new(1, 0, 0),
                },
                "version",
                vec!["0.9.0", "1.0.0"],
            ),
            (
                GateError::DeviceMismatch {
                    manifest: "npu".into(),
                    required: "cpu".into(),
                },
                "device",
                vec!["\"npu\"", "\"cpu\""],
            ),
            (
                GateError::InputShapeMismatch {
                    manifest: vec![1, 3, 32, 32],
                    required: vec![1, 3, 48, 64],
                },
                "input_shape",
                vec!["[1, 3, 32, 32]", "[1, 3, 48, 64]"],
            ),
            (
                GateError::Read {
                    path: "/a/model.onnx".into(),
                    reason: "No such file".into(),
                },
                "read",
                vec!["/a/model.onnx", "No such file"],
            ),
        ];
        for (error, check, values) in cases {
            let message = error.to_string();
            assert_eq!(error.check(), check, "{message}");
            assert!(message.starts_with("artifact gate: "), "{message}");
            for value in values {
                assert!(message.contains(value), "{message:?} lacks {value:?}");
            }
        }
    }
}
