//! The ament resource index: how ROS 2 tools find installed packages.
//!
//! A package is installed under a prefix when
//! `<prefix>/share/ament_index/resource_index/packages/<pkg>` exists; its executables live in
//! `<prefix>/lib/<pkg>/`. Prefixes come from `AMENT_PREFIX_PATH` (colon separated, first wins),
//! which `source install/setup.bash` sets.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

/// Why a package or executable could not be resolved.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum AmentError {
    /// `AMENT_PREFIX_PATH` is unset or empty.
    #[error("AMENT_PREFIX_PATH is not set: source install/setup.bash (after colcon build) first")]
    NoPrefixPath,
    /// No prefix has the package's marker.
    #[error("Package '{0}' not found (searched AMENT_PREFIX_PATH: {1})")]
    PackageNotFound(String, String),
    /// The package has no executable of that name.
    #[error("No executable '{exe}' found in package '{package}' (available: {available})")]
    ExecutableNotFound {
        /// Package searched.
        package: String,
        /// Executable asked for.
        exe: String,
        /// Executables the package does have, comma separated.
        available: String,
    },
}

/// The ordered list of install prefixes from an `AMENT_PREFIX_PATH` value.
pub fn prefixes(ament_prefix_path: Option<&str>) -> Result<Vec<PathBuf>, AmentError> {
    let value = ament_prefix_path.unwrap_or_default();
    let prefixes: Vec<PathBuf> = value
        .split(':')
        .filter(|p| !p.is_empty())
        .map(PathBuf::from)
        .collect();
    if prefixes.is_empty() {
        return Err(AmentError::NoPrefixPath);
    }
    Ok(prefixes)
}

/// The prefix a package is installed under (`ros2 pkg prefix <pkg>`).
pub fn package_prefix(prefixes: &[PathBuf], package: &str) -> Result<PathBuf, AmentError> {
    prefixes
        .iter()
        .find(|prefix| {
            prefix
                .join("share/ament_index/resource_index/packages")
                .join(package)
                .is_file()
        })
        .cloned()
        .ok_or_else(|| {
            let searched: Vec<String> = prefixes.iter().map(|p| p.display().to_string()).collect();
            AmentError::PackageNotFound(package.to_string(), searched.join(":"))
        })
}

/// Executables a package installs in `<prefix>/lib/<pkg>/` (`ros2 pkg executables <pkg>`), sorted.
pub fn executables(prefix: &Path, package: &str) -> Vec<String> {
    let dir = prefix.join("lib").join(package);
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .into_iter()
        .flatten()
        .flatten()
        .filter(|entry| is_executable(&entry.path()))
        .filter_map(|entry| entry.file_name().into_string().ok())
        .collect();
    names.sort();
    names
}

/// The path of an installed executable, as `ros2 run <pkg> <exe>` resolves it.
pub fn find_executable(
    prefixes: &[PathBuf],
    package: &str,
    exe: &str,
) -> Result<PathBuf, AmentError> {
    let prefix = package_prefix(prefixes, package)?;
    let path = prefix.join("lib").join(package).join(exe);
    if is_executable(&path) {
        return Ok(path);
    }
    Err(AmentError::ExecutableNotFound {
        package: package.to_string(),
        exe: exe.to_string(),
        available: executables(&prefix, package).join(", "),
    })
}

fn is_executable(path: &Path) -> bool {
    path.metadata()
        .map(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
        .unwrap_or(false)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn install_tree(root: &Path, package: &str, exes: &[&str]) {
        let marker = root.join("share/ament_index/resource_index/packages");
        std::fs::create_dir_all(&marker).unwrap();
        std::fs::write(marker.join(package), "").unwrap();
        let lib = root.join("lib").join(package);
        std::fs::create_dir_all(&lib).unwrap();
        for exe in exes {
            let path = lib.join(exe);
            std::fs::write(&path, "#!/bin/sh\n").unwrap();
            std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
        }
    }

    #[test]
    fn empty_prefix_path_is_refused() {
        assert_eq!(prefixes(None), Err(AmentError::NoPrefixPath));
        assert_eq!(prefixes(Some("::")), Err(AmentError::NoPrefixPath));
    }

    #[test]
    fn first_prefix_with_the_package_wins() {
        let a = tempfile::tempdir().unwrap();
        let b = tempfile::tempdir().unwrap();
        install_tree(b.path(), "pkg", &["node"]);
        install_tree(a.path(), "other", &["x"]);
        let list = prefixes(Some(&format!(
            "{}:{}",
            a.path().display(),
            b.path().display()
        )))
        .unwrap();
        assert_eq!(package_prefix(&list, "pkg").unwrap(), b.path());
        assert_eq!(
            find_executable(&list, "pkg", "node").unwrap(),
            b.path().join("lib/pkg/node")
        );
    }

    #[test]
    fn missing_package_and_executable_are_named() {
        let a = tempfile::tempdir().unwrap();
        install_tree(a.path(), "pkg", &["talker", "listener"]);
        let list = vec![a.path().to_path_buf()];
        let err = find_executable(&list, "nope", "x").unwrap_err();
        assert!(
            err.to_string().contains("Package 'nope' not found"),
            "{err}"
        );
        let err = find_executable(&list, "pkg", "relay").unwrap_err();
        assert_eq!(
            err.to_string(),
            "No executable 'relay' found in package 'pkg' (available: listener, talker)"
        );
    }
}
