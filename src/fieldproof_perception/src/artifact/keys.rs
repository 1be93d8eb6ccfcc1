//! Key files: `<name>.key` (the 32-byte Ed25519 secret seed) and `<name>.pub` (the 32-byte
//! public key), each as 64 lowercase hex digits and a newline.

use std::io::Write as _;
use std::path::{Path, PathBuf};

use ed25519_dalek::{SigningKey, VerifyingKey};

use super::error::GateError;

/// Where [`generate_key_pair`] wrote a key pair.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeyPairPaths {
    /// `<out_dir>/<name>.key`: the secret seed (mode 0600).
    pub signing_key: PathBuf,
    /// `<out_dir>/<name>.pub`: the public key.
    pub public_key: PathBuf,
}

/// Reads the 32 bytes a key file holds (64 hex digits; surrounding whitespace is ignored).
fn read_key_bytes(path: &Path) -> Result<[u8; 32], GateError> {
    let text = std::fs::read_to_string(path).map_err(|error| GateError::read(path, error))?;
    let digits = text.trim();
    let key_file_error = |reason: String| GateError::KeyFile {
        path: path.to_path_buf(),
        reason,
    };
    if digits.len() != 64 {
        return Err(key_file_error(format!(
            "holds {} characters, not the 64 hex digits of a 32-byte key",
            digits.len()
        )));
    }
    let mut bytes = [0u8; 32];
    hex::decode_to_slice(digits, &mut bytes)
        .map_err(|error| key_file_error(format!("is not hex ({error})")))?;
    Ok(bytes)
}

/// Reads a public key file (`<name>.pub`). Errors: the file cannot be read, is not 64 hex
/// digits, or is not a valid Ed25519 point (all checked `"read"`).
pub fn load_public_key(path: &Path) -> Result<VerifyingKey, GateError> {
    let bytes = read_key_bytes(path)?;
    VerifyingKey::from_bytes(&bytes).map_err(|error| GateError::KeyFile {
        path: path.to_path_buf(),
        reason: format!("is not an Ed25519 public key ({error})"),
    })
}

/// Reads a secret key file (`<name>.key`, the 32-byte seed).
pub fn load_signing_key(path: &Path) -> Result<SigningKey, GateError> {
    Ok(SigningKey::from_bytes(&read_key_bytes(path)?))
}

/// Makes a new key pair from the operating system's random source and writes
/// `<out_dir>/<name>.key` (mode 0600) and `<out_dir>/<name>.pub`. Refuses to overwrite an
/// existing file, and a name that is empty or holds a path separator.
pub fn generate_key_pair(out_dir: &Path, name: &str) -> Result<KeyPairPaths, GateError> {
    if name.is_empty() || name.contains(['/', '\\']) || name == "." || name == ".." {
        return Err(GateError::Write {
            path: out_dir.join(name),
            reason: format!("key name {name:?} must be a plain file name"),
        });
    }
    let paths = KeyPairPaths {
        signing_key: out_dir.join(format!("{name}.key")),
        public_key: out_dir.join(format!("{name}.pub")),
    };
    for path in [&paths.signing_key, &paths.public_key] {
        if path.exists() {
            return Err(GateError::Write {
                path: path.clone(),
                reason: "already exists (a key is never overwritten)".to_string(),
            });
        }
    }
    let signing_key = SigningKey::generate(&mut rand::rngs::OsRng);
    write_new_file(
        &paths.signing_key,
        &format!("{}\n", hex::encode(signing_key.to_bytes())),
        0o600,
    )?;
    write_new_file(
        &paths.public_key,
        &format!("{}\n", hex::encode(signing_key.verifying_key().to_bytes())),
        0o644,
    )?;
    Ok(paths)
}

/// Creates `path` (failing if it exists) with `mode` and writes `contents`.
fn write_new_file(path: &Path, contents: &str, mode: u32) -> Result<(), GateError> {
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, mode);
    #[cfg(not(unix))]
    let _ = mode;
    let mut file = options
        .open(path)
        .map_err(|error| GateError::write(path, error))?;
    file.write_all(contents.as_bytes())
        .map_err(|error| GateError::write(path, error))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generated_pair_reads_back_as_matching_keys() {
        let dir = tempfile::tempdir().unwrap();
        let paths = generate_key_pair(dir.path(), "lab").unwrap();
        assert_eq!(paths.signing_key, dir.path().join("lab.key"));
        assert_eq!(paths.public_key, dir.path().join("lab.pub"));
        let signing_key = load_signing_key(&paths.signing_key).unwrap();
        let public_key = load_public_key(&paths.public_key).unwrap();
        assert_eq!(signing_key.verifying_key(), public_key);
        let public_text = std::fs::read_to_string(&paths.public_key).unwrap();
        assert_eq!(public_text.len(), 65);
        assert!(public_text.ends_with('\n'));
        assert_eq!(public_text.trim(), public_text.trim().to_lowercase());
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(&paths.signing_key)
                .unwrap()
                .permissions()
                .mode();
            assert_eq!(mode & 0o777, 0o600);
        }
    }

    #[test]
    fn keygen_never_overwrites_and_refuses_path_names() {
        let dir = tempfile::tempdir().unwrap();
        generate_key_pair(dir.path(), "lab").unwrap();
        let first = std::fs::read(dir.path().join("lab.key")).unwrap();
        let error = generate_key_pair(dir.path(), "lab").unwrap_err();
        assert!(error.to_string().contains("already exists"), "{error}");
        assert_eq!(std::fs::read(dir.path().join("lab.key")).unwrap(), first);
        let error = generate_key_pair(dir.path(), "../lab").unwrap_err();
        assert!(error.to_string().contains("\"../lab\""), "{error}");
    }

    #[test]
    fn malformed_key_files_name_the_file_and_fault() {
        let dir = tempfile::tempdir().unwrap();
        let short = dir.path().join("short.pub");
        std::fs::write(&short, "abcd\n").unwrap();
        let error = load_public_key(&short).unwrap_err();
        assert_eq!(error.check(), "read");
        assert!(error.to_string().contains("short.pub"), "{error}");
        assert!(error.to_string().contains("4 characters"), "{error}");
        let not_hex = dir.path().join("not_hex.pub");
        std::fs::write(&not_hex, format!("{}\n", "z".repeat(64))).unwrap();
        let error = load_public_key(&not_hex).unwrap_err();
        assert!(error.to_string().contains("is not hex"), "{error}");
        let missing = load_public_key(&dir.path().join("missing.pub")).unwrap_err();
        assert_eq!(missing.check(), "read");
        assert!(missing.to_string().contains("missing.pub"), "{missing}");
    }
}
