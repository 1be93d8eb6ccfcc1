//! The boot gate ([`open_verified`]) and the signer ([`sign_artifact`]).

use std::path::Path;

use ed25519_dalek::{Signature, Signer as _, VerifyingKey};

use super::error::GateError;
use super::keys::load_signing_key;
use super::manifest::{sha256_hex, Manifest};

/// The model file of an artifact directory.
pub const MODEL_FILE: &str = "model.onnx";
/// The manifest file of an artifact directory.
pub const MANIFEST_FILE: &str = "manifest.yaml";
/// The signature file of an artifact directory.
pub const SIGNATURE_FILE: &str = "manifest.sig";

/// What the node requires of an artifact before it runs the model.
#[derive(Debug, Clone)]
pub struct GateRequirements {
    /// The trusted key the manifest must be signed with.
    pub public_key: VerifyingKey,
    /// The lowest version accepted (a lower one is a rollback).
    pub min_version: semver::Version,
    /// The device this node runs the model on; the manifest's must equal it.
    pub device: String,
    /// The input shape the node feeds (NCHW); the manifest's must equal it.
    pub input_shape: Vec<usize>,
}

/// An artifact that passed every check: its manifest and the model's bytes (the very bytes
/// whose SHA-256 was checked, so the model is not read again after the gate).
#[derive(Debug, Clone)]
pub struct VerifiedArtifact {
    /// The signed manifest.
    pub manifest: Manifest,
    /// The bytes of `model.onnx`.
    pub model: Vec<u8>,
}

/// Reads a whole file, the error naming it.
fn read_file(path: &Path) -> Result<Vec<u8>, GateError> {
    std::fs::read(path).map_err(|error| GateError::read(path, error))
}

/// Parses `manifest.sig`: 128 hex digits (surrounding whitespace ignored).
fn parse_signature(path: &Path, bytes: &[u8]) -> Result<Signature, GateError> {
    let signature_error = |reason: String| GateError::SignatureFile {
        path: path.to_path_buf(),
        reason,
    };
    let text = std::str::from_utf8(bytes)
        .map_err(|_| signature_error("is not text".to_string()))?
        .trim();
    if text.len() != 128 {
        return Err(signature_error(format!(
            "holds {} characters, not the 128 hex digits of an Ed25519 signature",
            text.len()
        )));
    }
    let mut signature = [0u8; 64];
    hex::decode_to_slice(text, &mut signature)
        .map_err(|error| signature_error(format!("is not hex ({error})")))?;
    Ok(Signature::from_bytes(&signature))
}

/// The boot gate: opens the artifact in `dir` and checks it against `requirements`, in this
/// order, stopping at the first failure:
///
/// 1. `read`: `model.onnx`, `manifest.yaml` and `manifest.sig` are read;
/// 2. `signature`: `manifest.sig` is an Ed25519 signature of the exact bytes of
///    `manifest.yaml` by `requirements.public_key` (strict verification);
/// 3. `manifest`: the signed bytes are a valid [`Manifest`];
/// 4. `sha256`: the SHA-256 of `model.onnx` is the manifest's;
/// 5. `version`: the manifest's version is not below `requirements.min_version`;
/// 6. `device`: the manifest's device is `requirements.device`;
/// 7. `input_shape`: the manifest's input shape is `requirements.input_shape`.
///
/// The error names the check ([`GateError::check`]) and the values.
pub fn open_verified(
    dir: &Path,
    requirements: &GateRequirements,
) -> Result<VerifiedArtifact, GateError> {
    let model = read_file(&dir.join(MODEL_FILE))?;
    let manifest_bytes = read_file(&dir.join(MANIFEST_FILE))?;
    let signature_path = dir.join(SIGNATURE_FILE);
    let signature_bytes = read_file(&signature_path)?;

    let signature = parse_signature(&signature_path, &signature_bytes)?;
    requirements
        .public_key
        .verify_strict(&manifest_bytes, &signature)
        .map_err(|_| GateError::SignatureMismatch {
            public_key: hex::encode(requirements.public_key.as_bytes()),
        })?;

    let manifest = Manifest::from_yaml(&manifest_bytes)?;

    let model_sha256 = sha256_hex(&model);
    if model_sha256 != manifest.sha256 {
        return Err(GateError::Sha256Mismatch {
            manifest: manifest.sha256,
            model: model_sha256,
        });
    }
    if manifest.version < requirements.min_version {
        return Err(GateError::VersionBelowMinimum {
            version: manifest.version,
            min_version: requirements.min_version.clone(),
        });
    }
    if manifest.device != requirements.device {
        return Err(GateError::DeviceMismatch {
            manifest: manifest.device,
            required: requirements.device.clone(),
        });
    }
    if manifest.input_shape != requirements.input_shape {
        return Err(GateError::InputShapeMismatch {
            manifest: manifest.input_shape,
            required: requirements.input_shape.clone(),
        });
    }
    Ok(VerifiedArtifact { manifest, model })
}

/// Signs the artifact in `dir` with the secret key file at `signing_key_path`: writes
/// `manifest.sig`, the Ed25519 signature of the exact bytes of `manifest.yaml` (128 lowercase
/// hex digits and a newline). Refuses a manifest that does not parse, or whose SHA-256 is not
/// that of the `model.onnx` beside it (an artifact the gate would refuse is never signed).
pub fn sign_artifact(dir: &Path, signing_key_path: &Path) -> Result<(), GateError> {
    let signing_key = load_signing_key(signing_key_path)?;
    let manifest_bytes = read_file(&dir.join(MANIFEST_FILE))?;
    let manifest = Manifest::from_yaml(&manifest_bytes)?;
    let model_sha256 = sha256_hex(&read_file(&dir.join(MODEL_FILE))?);
    if model_sha256 != manifest.sha256 {
        return Err(GateError::Sha256Mismatch {
            manifest: manifest.sha256,
            model: model_sha256,
        });
    }
    let signature = signing_key.sign(&manifest_bytes);
    let signature_path = dir.join(SIGNATURE_FILE);
    std::fs::write(
        &signature_path,
        format!("{}\n", hex::encode(signature.to_bytes())),
    )
    .map_err(|error| GateError::write(&signature_path, error))
}

#[cfg(test)]
mod tests {
    use super::super::keys::{generate_key_pair, load_public_key};
    use super::super::manifest::write_manifest;
    use super::*;

    /// A signed artifact in a temporary directory, and requirements it meets.
    fn signed_artifact() -> (tempfile::TempDir, GateRequirements) {
        let dir = tempfile::tempdir().unwrap();
        let keys = generate_key_pair(dir.path(), "test").unwrap();
        std::fs::write(dir.path().join(MODEL_FILE), b"not really onnx").unwrap();
        write_manifest(
            dir.path(),
            "inspection_seg",
            &semver::Version::new(1, 0, 0),
            "cpu",
            &[1, 3, 48, 64],
        )
        .unwrap();
        sign_artifact(dir.path(), &keys.signing_key).unwrap();
        let requirements = GateRequirements {
            public_key: load_public_key(&keys.public_key).unwrap(),
            min_version: semver::Version::new(1, 0, 0),
            device: "cpu".into(),
            input_shape: vec![1, 3, 48, 64],
        };
        (dir, requirements)
    }

    #[test]
    fn signature_file_is_128_lowercase_hex_and_newline() {
        let (dir, requirements) = signed_artifact();
        let text = std::fs::read_to_string(dir.path().join(SIGNATURE_FILE)).unwrap();
        assert_eq!(text.len(), 129);
        assert!(text.ends_with('\n'));
        assert!(super::super::manifest::is_lowercase_hex(
            text.trim_end(),
            128
        ));
        let verified = open_verified(dir.path(), &requirements).unwrap();
        assert_eq!(verified.model, b"not really onnx");
    }

    #[test]
    fn malformed_or_missing_signature_file_is_a_signature_or_read_failure() {
        let (dir, requirements) = signed_artifact();
        std::fs::write(dir.path().join(SIGNATURE_FILE), "00ff\n").unwrap();
        let error = open_verified(dir.path(), &requirements).unwrap_err();
        assert_eq!(error.check(), "signature", "{error}");
        assert!(error.to_string().contains("4 characters"), "{error}");
        std::fs::remove_file(dir.path().join(SIGNATURE_FILE)).unwrap();
        let error = open_verified(dir.path(), &requirements).unwrap_err();
        assert_eq!(error.check(), "read", "{error}");
        assert!(error.to_string().contains(SIGNATURE_FILE), "{error}");
    }

    #[test]
    fn signed_but_invalid_manifest_fails_the_manifest_check() {
        let (dir, requirements) = signed_artifact();
        let keys_dir = tempfile::tempdir().unwrap();
        let keys = generate_key_pair(keys_dir.path(), "other").unwrap();
        let manifest = std::fs::read_to_string(dir.path().join(MANIFEST_FILE)).unwrap();
        std::fs::write(
            dir.path().join(MANIFEST_FILE),
            format!("{manifest}extra: 1\n"),
        )
        .unwrap();
        // sign_artifact refuses it, so sign the bytes directly, as a careless tool might.
        let signing_key = load_signing_key(&keys.signing_key).unwrap();
        let bytes = std::fs::read(dir.path().join(MANIFEST_FILE)).unwrap();
        let signature = signing_key.sign(&bytes);
        std::fs::write(
            dir.path().join(SIGNATURE_FILE),
            format!("{}\n", hex::encode(signature.to_bytes())),
        )
        .unwrap();
        let requirements = GateRequirements {
            public_key: signing_key.verifying_key(),
            ..requirements
        };
        let error = open_verified(dir.path(), &requirements).unwrap_err();
        assert_eq!(error.check(), "manifest", "{error}");
        assert!(error.to_string().contains("extra"), "{error}");
        let error = sign_artifact(dir.path(), &keys.signing_key).unwrap_err();
        assert_eq!(error.check(), "manifest", "{error}");
    }

    #[test]
    fn signing_refuses_a_manifest_that_does_not_match_its_model() {
        let (dir, _) = signed_artifact();
        let before = std::fs::read(dir.path().join(SIGNATURE_FILE)).unwrap();
        std::fs::write(dir.path().join(MODEL_FILE), b"another model").unwrap();
        let error = sign_artifact(dir.path(), &dir.path().join("test.key")).unwrap_err();
        assert_eq!(error.check(), "sha256", "{error}");
        assert!(
            error.to_string().contains(&sha256_hex(b"another model")),
            "{error}"
        );
        assert_eq!(
            std::fs::read(dir.path().join(SIGNATURE_FILE)).unwrap(),
            before
        );
    }
}
