//! The boot gate's cases, each on its own artifact made here in a temporary directory with a
//! key made here: valid; model bytes changed; manifest changed after signing; signed by another
//! key; version below the minimum; wrong device; input shape mismatch. Each failure asserts the
//! check's name and that the message names the values. Then `model_sign` end to end.
//!
//! A few bytes stand in for `model.onnx`: the gate checks bytes, it does not run the model.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use fieldproof_perception::artifact::{
    generate_key_pair, load_public_key, open_verified, sha256_hex, sign_artifact, write_manifest,
    GateError, GateRequirements, KeyPairPaths, VerifiedArtifact, MANIFEST_FILE, MODEL_FILE,
};
use semver::Version;
use tempfile::TempDir;

/// The bytes standing in for the model.
const MODEL_BYTES: &[u8] = b"\x08\x07stand-in for model.onnx";
/// The camera's input shape, NCHW.
const CAMERA_SHAPE: [usize; 4] = [1, 3, 48, 64];

/// An artifact directory and the key pair (in its own directory) that signed it.
struct TestArtifact {
    artifact: TempDir,
    _keys_dir: TempDir,
    keys: KeyPairPaths,
}

impl TestArtifact {
    /// Makes a key pair and an artifact of `version` for `device` and `input_shape`, signed.
    fn signed(version: &str, device: &str, input_shape: &[usize]) -> TestArtifact {
        let keys_dir = tempfile::tempdir().unwrap();
        let keys = generate_key_pair(keys_dir.path(), "test").unwrap();
        let artifact = tempfile::tempdir().unwrap();
        std::fs::write(artifact.path().join(MODEL_FILE), MODEL_BYTES).unwrap();
        write_manifest(
            artifact.path(),
            "inspection_seg",
            &Version::parse(version).unwrap(),
            device,
            input_shape,
        )
        .unwrap();
        sign_artifact(artifact.path(), &keys.signing_key).unwrap();
        TestArtifact {
            artifact,
            _keys_dir: keys_dir,
            keys,
        }
    }

    /// The usual artifact: 1.0.0, cpu, the camera's shape.
    fn nominal() -> TestArtifact {
        TestArtifact::signed("1.0.0", "cpu", &CAMERA_SHAPE)
    }

    fn dir(&self) -> &Path {
        self.artifact.path()
    }

    /// The node's requirements: this artifact's public key, minimum 1.0.0, cpu, the camera.
    fn requirements(&self) -> GateRequirements {
        GateRequirements {
            public_key: load_public_key(&self.keys.public_key).unwrap(),
            min_version: Version::new(1, 0, 0),
            device: "cpu".to_string(),
            input_shape: CAMERA_SHAPE.to_vec(),
        }
    }

    fn open(&self, requirements: &GateRequirements) -> Result<VerifiedArtifact, GateError> {
        open_verified(self.dir(), requirements)
    }
}

/// Asserts the gate refused with `check` and a message naming each of `values`; returns it.
fn assert_refused(result: Result<VerifiedArtifact, GateError>, check: &str, values: &[&str]) {
    let error = match result {
        Ok(verified) => panic!("the gate accepted {:?}", verified.manifest),
        Err(error) => error,
    };
    let message = error.to_string();
    assert_eq!(error.check(), check, "{message}");
    assert!(message.starts_with("artifact gate: "), "{message}");
    for value in values {
        assert!(
            message.contains(value),
            "{message:?} does not name {value:?}"
        );
    }
}

#[test]
fn valid_artifact_passes_with_its_manifest_and_model() {
    let artifact = TestArtifact::nominal();
    let verified = artifact.open(&artifact.requirements()).unwrap();
    assert_eq!(verified.model, MODEL_BYTES);
    assert_eq!(verified.manifest.name, "inspection_seg");
    assert_eq!(verified.manifest.version, Version::new(1, 0, 0));
    assert_eq!(verified.manifest.device, "cpu");
    assert_eq!(verified.manifest.input_shape, CAMERA_SHAPE.to_vec());
    assert_eq!(verified.manifest.sha256, sha256_hex(MODEL_BYTES));
}

#[test]
fn model_bytes_changed_fails_sha256_naming_both_digests() {
    let artifact = TestArtifact::nominal();
    let mut changed = MODEL_BYTES.to_vec();
    changed[0] ^= 0x01;
    std::fs::write(artifact.dir().join(MODEL_FILE), &changed).unwrap();
    assert_refused(
        artifact.open(&artifact.requirements()),
        "sha256",
        &[&sha256_hex(MODEL_BYTES), &sha256_hex(&changed)],
    );
}

#[test]
fn manifest_changed_after_signing_fails_signature_naming_the_key() {
    let artifact = TestArtifact::nominal();
    let manifest_path = artifact.dir().join(MANIFEST_FILE);
    let signed = std::fs::read_to_string(&manifest_path).unwrap();
    // A rollback-proofing edit an attacker would like: claim a newer version.
    let edited = signed.replace("version: 1.0.0", "version: 9.0.0");
    assert_ne!(edited, signed);
    std::fs::write(&manifest_path, edited).unwrap();
    let requirements = artifact.requirements();
    let trusted_key = hex::encode(requirements.public_key.as_bytes());
    assert_refused(artifact.open(&requirements), "signature", &[&trusted_key]);
}

#[test]
fn signed_by_another_key_fails_signature_naming_the_trusted_key() {
    let artifact = TestArtifact::nominal();
    let other_dir = tempfile::tempdir().unwrap();
    let other = generate_key_pair(other_dir.path(), "other").unwrap();
    sign_artifact(artifact.dir(), &other.signing_key).unwrap();
    let requirements = artifact.requirements();
    let trusted_key = hex::encode(requirements.public_key.as_bytes());
    assert_refused(artifact.open(&requirements), "signature", &[&trusted_key]);
    // The same artifact passes for a node that trusts the other key: only the key differs.
    let trusting_other = GateRequirements {
        public_key: load_public_key(&other.public_key).unwrap(),
        ..requirements
    };
    artifact.open(&trusting_other).unwrap();
}

#[test]
fn version_below_the_minimum_fails_version_naming_both() {
    let artifact = TestArtifact::signed("0.9.3", "cpu", &CAMERA_SHAPE);
    assert_refused(
        artifact.open(&artifact.requirements()),
        "version",
        &["0.9.3", "1.0.0"],
    );
    // A pre-release of the minimum is below it too (semver ordering).
    let artifact = TestArtifact::signed("1.0.0-rc.1", "cpu", &CAMERA_SHAPE);
    assert_refused(
        artifact.open(&artifact.requirements()),
        "version",
        &["1.0.0-rc.1", "1.0.0"],
    );
    // Equal to the minimum and above it pass.
    let artifact = TestArtifact::signed("1.2.0", "cpu", &CAMERA_SHAPE);
    artifact.open(&artifact.requirements()).unwrap();
}

#[test]
fn wrong_device_fails_device_naming_both() {
    let artifact = TestArtifact::signed("1.0.0", "npu", &CAMERA_SHAPE);
    assert_refused(
        artifact.open(&artifact.requirements()),
        "device",
        &["\"npu\"", "\"cpu\""],
    );
}

#[test]
fn input_shape_mismatch_fails_input_shape_naming_both() {
    let artifact = TestArtifact::signed("1.0.0", "cpu", &[1, 3, 32, 32]);
    assert_refused(
        artifact.open(&artifact.requirements()),
        "input_shape",
        &["[1, 3, 32, 32]", "[1, 3, 48, 64]"],
    );
}

#[test]
fn checks_run_in_the_contract_order() {
    // Wrong version, device and shape at once: the version check comes first.
    let artifact = TestArtifact::signed("0.1.0", "npu", &[1, 3, 32, 32]);
    assert_refused(
        artifact.open(&artifact.requirements()),
        "version",
        &["0.1.0"],
    );
    // And a changed model is found before any of them.
    std::fs::write(artifact.dir().join(MODEL_FILE), b"other bytes").unwrap();
    assert_refused(artifact.open(&artifact.requirements()), "sha256", &[]);
    // A missing file is found before anything else.
    std::fs::remove_file(artifact.dir().join(MODEL_FILE)).unwrap();
    assert_refused(
        artifact.open(&artifact.requirements()),
        "read",
        &[MODEL_FILE],
    );
}

/// Runs `model_sign` with `args`.
fn model_sign(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_model_sign"))
        .args(args)
        .output()
        .expect("model_sign runs")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn path_str(path: &Path) -> &str {
    path.to_str().expect("temporary paths are UTF-8")
}

#[test]
fn model_sign_keygen_manifest_sign_verify_then_tamper_exits_2() {
    let work = tempfile::tempdir().unwrap();
    let keys: PathBuf = work.path().join("keys");
    let artifact: PathBuf = work.path().join("inspection_seg");
    std::fs::create_dir(&keys).unwrap();
    std::fs::create_dir(&artifact).unwrap();
    std::fs::write(artifact.join(MODEL_FILE), MODEL_BYTES).unwrap();
    let signing_key = keys.join("lab.key");
    let public_key = keys.join("lab.pub");

    let steps: [Vec<&str>; 4] = [
        vec!["keygen", "--out-dir", path_str(&keys), "--name", "lab"],
        vec![
            "manifest",
            "--artifact",
            path_str(&artifact),
            "--name",
            "inspection_seg",
            "--version",
            "1.0.0",
            "--device",
            "cpu",
            "--input-shape",
            "1,3,48,64",
        ],
        vec![
            "sign",
            "--artifact",
            path_str(&artifact),
            "--key",
            path_str(&signing_key),
        ],
        vec![
            "verify",
            "--artifact",
            path_str(&artifact),
            "--pub",
            path_str(&public_key),
            "--min-version",
            "1.0.0",
            "--device",
            "cpu",
            "--input-shape",
            "1,3,48,64",
        ],
    ];
    for step in &steps {
        let output = model_sign(step);
        assert!(
            output.status.success(),
            "model_sign {step:?}: {:?}\n{}",
            output.status,
            text(&output.stderr)
        );
    }
    let verified = model_sign(&steps[3]);
    assert!(
        text(&verified.stdout).starts_with("ok: "),
        "{}",
        text(&verified.stdout)
    );

    // What the tool made is what the library's gate accepts.
    let requirements = GateRequirements {
        public_key: load_public_key(&public_key).unwrap(),
        min_version: Version::new(1, 0, 0),
        device: "cpu".to_string(),
        input_shape: CAMERA_SHAPE.to_vec(),
    };
    open_verified(&artifact, &requirements).unwrap();

    // A stricter node refuses it: exit 2, the reason naming the versions.
    let mut stricter = steps[3].clone();
    stricter[6] = "2.0.0";
    let refused = model_sign(&stricter);
    assert_eq!(refused.status.code(), Some(2));
    let reason = text(&refused.stderr);
    assert!(
        reason.contains("version 1.0.0 is below the minimum 2.0.0"),
        "{reason}"
    );

    // Tamper with the model: exit 2, the reason naming the check and both digests.
    std::fs::write(artifact.join(MODEL_FILE), b"tampered").unwrap();
    let tampered = model_sign(&steps[3]);
    assert_eq!(tampered.status.code(), Some(2));
    assert!(tampered.stdout.is_empty(), "{}", text(&tampered.stdout));
    let reason = text(&tampered.stderr);
    assert!(reason.contains("model sha256 mismatch"), "{reason}");
    assert!(reason.contains(&sha256_hex(MODEL_BYTES)), "{reason}");
    assert!(reason.contains(&sha256_hex(b"tampered")), "{reason}");

    // Keygen never overwrites the key: exit 2 with the reason.
    let again = model_sign(&steps[0]);
    assert_eq!(again.status.code(), Some(2));
    assert!(
        text(&again.stderr).contains("already exists"),
        "{}",
        text(&again.stderr)
    );
}

#[test]
fn model_sign_help_explains_each_subcommand_and_usage_errors_exit_2() {
    let help = model_sign(&["--help"]);
    assert!(help.status.success());
    let help = text(&help.stdout);
    for subcommand in ["keygen", "manifest", "sign", "verify"] {
        assert!(help.contains(subcommand), "{help}");
        let sub_help = model_sign(&[subcommand, "--help"]);
        assert!(sub_help.status.success(), "{subcommand} --help");
        assert!(
            text(&sub_help.stdout).contains("--"),
            "{}",
            text(&sub_help.stdout)
        );
    }
    let bad_shape = model_sign(&[
        "verify",
        "--artifact",
        "x",
        "--pub",
        "x.pub",
        "--input-shape",
        "1,3,x,64",
    ]);
    assert_eq!(bad_shape.status.code(), Some(2));
    assert!(
        text(&bad_shape.stderr).contains("\"x\""),
        "{}",
        text(&bad_shape.stderr)
    );
    let missing_key = model_sign(&["verify", "--artifact", "x", "--pub", "/nonexistent/k.pub"]);
    assert_eq!(missing_key.status.code(), Some(2));
    assert!(text(&missing_key.stderr).contains("/nonexistent/k.pub"));
}
