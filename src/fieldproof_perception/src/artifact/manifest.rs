//! `manifest.yaml`: what the artifact claims about its model, signed.

use std::fmt::Write as _;
use std::path::Path;

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use super::error::GateError;
use super::gate::{MANIFEST_FILE, MODEL_FILE};

/// The signed description of a model: `manifest.yaml`.
///
/// ```yaml
/// name: inspection_seg
/// version: 1.0.0
/// device: cpu
/// input_shape: [1, 3, 48, 64]
/// sha256: <64 lowercase hex digits: the SHA-256 of model.onnx>
/// ```
///
/// Every field is required and no other is accepted. Parse with [`Manifest::from_yaml`] (its
/// errors name the field and the value); write with [`Manifest::to_yaml`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "ManifestFields", into = "ManifestFields")]
pub struct Manifest {
    /// The model's name, e.g. `inspection_seg`.
    pub name: String,
    /// The model's version; the gate refuses one below its minimum.
    pub version: semver::Version,
    /// The device the model was built for, e.g. `cpu`.
    pub device: String,
    /// The model's input shape, NCHW, e.g. `[1, 3, 48, 64]`.
    pub input_shape: Vec<usize>,
    /// The SHA-256 of `model.onnx`, 64 lowercase hex digits.
    pub sha256: String,
}

/// The manifest as written in YAML, before its values are checked.
#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct ManifestFields {
    name: String,
    version: String,
    device: String,
    input_shape: Vec<usize>,
    sha256: String,
}

impl TryFrom<ManifestFields> for Manifest {
    type Error = String;

    fn try_from(fields: ManifestFields) -> Result<Manifest, String> {
        if fields.name.trim().is_empty() {
            return Err(format!("manifest.name: {:?} is empty", fields.name));
        }
        let version = semver::Version::parse(&fields.version).map_err(|error| {
            format!(
                "manifest.version: {:?} is not a semantic version ({error})",
                fields.version
            )
        })?;
        if fields.device.trim().is_empty() {
            return Err(format!("manifest.device: {:?} is empty", fields.device));
        }
        check_input_shape(&fields.input_shape)
            .map_err(|reason| format!("manifest.input_shape: {reason}"))?;
        if !is_lowercase_hex(&fields.sha256, 64) {
            return Err(format!(
                "manifest.sha256: {:?} is not 64 lowercase hex digits",
                fields.sha256
            ));
        }
        Ok(Manifest {
            name: fields.name,
            version,
            device: fields.device,
            input_shape: fields.input_shape,
            sha256: fields.sha256,
        })
    }
}

impl From<Manifest> for ManifestFields {
    fn from(manifest: Manifest) -> ManifestFields {
        ManifestFields {
            name: manifest.name,
            version: manifest.version.to_string(),
            device: manifest.device,
            input_shape: manifest.input_shape,
            sha256: manifest.sha256,
        }
    }
}

impl Manifest {
    /// Parses `manifest.yaml`'s bytes. Errors ([`GateError::Manifest`]) name the field and
    /// the value at fault: a missing or unknown field, a version that is not semver, an empty
    /// or zero-dimension input shape, a digest that is not 64 lowercase hex digits.
    pub fn from_yaml(bytes: &[u8]) -> Result<Manifest, GateError> {
        let text = std::str::from_utf8(bytes).map_err(|error| GateError::Manifest {
            reason: format!("{MANIFEST_FILE} is not UTF-8 ({error})"),
        })?;
        let fields: ManifestFields =
            serde_yaml::from_str(text).map_err(|error| GateError::Manifest {
                reason: error.to_string(),
            })?;
        Manifest::try_from(fields).map_err(|reason| GateError::Manifest { reason })
    }

    /// The manifest as `manifest.yaml` holds it: one `key: value` line per field, the input
    /// shape in flow style. [`Manifest::from_yaml`] reads it back to an equal manifest.
    pub fn to_yaml(&self) -> String {
        let shape: Vec<String> = self.input_shape.iter().map(usize::to_string).collect();
        let mut yaml = String::new();
        // Writing to a String cannot fail.
        let _ = writeln!(yaml, "name: {}", yaml_scalar(&self.name));
        let _ = writeln!(yaml, "version: {}", yaml_scalar(&self.version.to_string()));
        let _ = writeln!(yaml, "device: {}", yaml_scalar(&self.device));
        let _ = writeln!(yaml, "input_shape: [{}]", shape.join(", "));
        let _ = writeln!(yaml, "sha256: {}", self.sha256);
        yaml
    }
}

/// A string as a YAML scalar: plain when that reads back as the same string, quoted otherwise
/// (serde_yaml decides).
fn yaml_scalar(value: &str) -> String {
    serde_yaml::to_string(value)
        .map(|text| text.trim_end().to_string())
        .unwrap_or_else(|_| format!("{value:?}"))
}

/// The SHA-256 of `bytes` as 64 lowercase hex digits.
pub fn sha256_hex(bytes: &[u8]) -> String {
    hex::encode(Sha256::digest(bytes))
}

/// Whether `text` is exactly `digits` lowercase hex digits.
pub(crate) fn is_lowercase_hex(text: &str, digits: usize) -> bool {
    text.len() == digits
        && text
            .bytes()
            .all(|byte| byte.is_ascii_digit() || (b'a'..=b'f').contains(&byte))
}

/// Checks an input shape: at least one dimension, none zero.
fn check_input_shape(shape: &[usize]) -> Result<(), String> {
    if shape.is_empty() {
        return Err("[] has no dimension".to_string());
    }
    if shape.contains(&0) {
        return Err(format!("{shape:?} has a zero dimension"));
    }
    Ok(())
}

/// Parses an input shape written as comma-separated dimensions, `1,3,48,64` (brackets and
/// spaces allowed: `[1, 3, 48, 64]`). The error names the text and the bad dimension.
pub fn parse_input_shape(text: &str) -> Result<Vec<usize>, String> {
    let inner = text.trim();
    let inner = inner
        .strip_prefix('[')
        .and_then(|rest| rest.strip_suffix(']'))
        .unwrap_or(inner);
    let shape = inner
        .split(',')
        .map(|dimension| {
            let dimension = dimension.trim();
            dimension.parse::<usize>().map_err(|_| {
                format!("input shape {text:?}: dimension {dimension:?} is not a whole number")
            })
        })
        .collect::<Result<Vec<usize>, String>>()?;
    check_input_shape(&shape).map_err(|reason| format!("input shape {text:?}: {reason}"))?;
    Ok(shape)
}

/// Writes `dir/manifest.yaml` for the `dir/model.onnx` already there (its SHA-256 is taken
/// now) and returns the manifest. The artifact still needs signing ([`super::sign_artifact`]).
pub fn write_manifest(
    dir: &Path,
    name: &str,
    version: &semver::Version,
    device: &str,
    input_shape: &[usize],
) -> Result<Manifest, GateError> {
    let model_path = dir.join(MODEL_FILE);
    let model = std::fs::read(&model_path).map_err(|error| GateError::read(&model_path, error))?;
    let manifest = Manifest::try_from(ManifestFields {
        name: name.to_string(),
        version: version.to_string(),
        device: device.to_string(),
        input_shape: input_shape.to_vec(),
        sha256: sha256_hex(&model),
    })
    .map_err(|reason| GateError::Manifest { reason })?;
    let manifest_path = dir.join(MANIFEST_FILE);
    std::fs::write(&manifest_path, manifest.to_yaml())
        .map_err(|error| GateError::write(&manifest_path, error))?;
    Ok(manifest)
}

#[cfg(test)]
mod tests {
    use super::*;

    const DIGEST: &str = "3f0e2a6c9b1d4e5f60718293a4b5c6d7e8f9012345678901234567890abcdef0";

    fn manifest_text(version: &str, extra: &str) -> String {
        format!(
            "name: inspection_seg\nversion: {version}\ndevice: cpu\n\
             input_shape: [1, 3, 48, 64]\nsha256: {DIGEST}\n{extra}"
        )
    }

    fn manifest_error(text: &str) -> String {
        match Manifest::from_yaml(text.as_bytes()) {
            Ok(manifest) => panic!("{text:?} parsed as {manifest:?}"),
            Err(error) => {
                assert_eq!(error.check(), "manifest", "{error}");
                error.to_string()
            }
        }
    }

    #[test]
    fn the_contract_example_parses_and_round_trips() {
        let manifest = Manifest::from_yaml(manifest_text("1.0.0", "").as_bytes()).unwrap();
        assert_eq!(manifest.name, "inspection_seg");
        assert_eq!(manifest.version, semver::Version::new(1, 0, 0));
        assert_eq!(manifest.device, "cpu");
        assert_eq!(manifest.input_shape, vec![1, 3, 48, 64]);
        assert_eq!(manifest.sha256, DIGEST);
        assert_eq!(manifest.to_yaml(), manifest_text("1.0.0", ""));
        assert_eq!(
            Manifest::from_yaml(manifest.to_yaml().as_bytes()).unwrap(),
            manifest
        );
    }

    #[test]
    fn awkward_strings_are_quoted_and_read_back() {
        let manifest = Manifest {
            name: "seg: v2 # test".into(),
            version: semver::Version::parse("2.1.0-rc.1+build.5").unwrap(),
            device: "yes".into(),
            input_shape: vec![1, 3, 48, 64],
            sha256: DIGEST.into(),
        };
        assert_eq!(
            Manifest::from_yaml(manifest.to_yaml().as_bytes()).unwrap(),
            manifest
        );
    }

    #[test]
    fn unknown_field_is_refused_by_name() {
        let message = manifest_error(&manifest_text("1.0.0", "owner: eve\n"));
        assert!(message.contains("owner"), "{message}");
    }

    #[test]
    fn missing_field_is_named() {
        let text = manifest_text("1.0.0", "").replace("device: cpu\n", "");
        let message = manifest_error(&text);
        assert!(message.contains("device"), "{message}");
    }

    #[test]
    fn bad_values_name_the_field_and_value() {
        let message = manifest_error(&manifest_text("1.x", ""));
        assert!(message.contains("manifest.version: \"1.x\""), "{message}");
        let message = manifest_error(&manifest_text("1.0.0", "").replace(DIGEST, "ABCD"));
        assert!(message.contains("manifest.sha256: \"ABCD\""), "{message}");
        let message = manifest_error(&manifest_text("1.0.0", "").replace("48", "0"));
        assert!(
            message.contains("manifest.input_shape: [1, 3, 0, 64]"),
            "{message}"
        );
        let message = manifest_error(&manifest_text("1.0.0", "").replace("[1, 3, 48, 64]", "[]"));
        assert!(message.contains("manifest.input_shape: []"), "{message}");
        let message =
            manifest_error(&manifest_text("1.0.0", "").replace("name: inspection_seg", "name: ''"));
        assert!(message.contains("manifest.name: \"\""), "{message}");
    }

    #[test]
    fn digest_is_the_known_sha256() {
        assert_eq!(
            sha256_hex(b"abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }

    #[test]
    fn input_shape_text_parses_or_names_the_dimension() {
        assert_eq!(parse_input_shape("1,3,48,64").unwrap(), vec![1, 3, 48, 64]);
        assert_eq!(
            parse_input_shape("[1, 3, 48, 64]").unwrap(),
            vec![1, 3, 48, 64]
        );
        let error = parse_input_shape("1,3,x,64").unwrap_err();
        assert!(error.contains("\"x\""), "{error}");
        let error = parse_input_shape("1,0").unwrap_err();
        assert!(error.contains("zero"), "{error}");
    }
}
