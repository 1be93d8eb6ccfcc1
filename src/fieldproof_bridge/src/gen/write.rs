//! Writing a bundle: into a sibling temporary directory first, then renamed into place, so a
//! reader never sees half a bundle and a failure leaves the old one.

use std::path::Path;

use super::{Bundle, GenError};

/// True for the names a bundle directory holds.
fn is_bundle_file(name: &str) -> bool {
    matches!(
        name,
        "bridge.yaml" | "params.yaml" | "contract.yaml" | "bridge.launch.yaml"
    ) || (name.starts_with("ros_gz_bridge") && name.ends_with(".yaml"))
}

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> GenError + '_ {
    move |source| GenError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// Checks that `dir` can take a bundle: absent, or a directory holding only bundle files
/// (a previous bundle, which is replaced).
pub(super) fn check_out_dir(dir: &Path) -> Result<(), GenError> {
    if !dir.exists() {
        return Ok(());
    }
    let bad = |reason: String| GenError::OutDir {
        dir: dir.to_path_buf(),
        reason,
    };
    if !dir.is_dir() {
        return Err(bad("exists and is not a directory".into()));
    }
    // Replacing the directory we run in (`-o .`) or one above it would pull the caller's
    // working directory out from under it.
    let canonical = std::fs::canonicalize(dir).map_err(io(dir))?;
    if let Ok(cwd) = std::env::current_dir().and_then(std::fs::canonicalize) {
        if cwd.starts_with(&canonical) {
            return Err(bad(format!(
                "is the working directory{}; refusing to replace it (name a new directory)",
                if cwd == canonical { "" } else { " or holds it" }
            )));
        }
    }
    let mut foreign: Vec<String> = std::fs::read_dir(dir)
        .map_err(io(dir))?
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| !is_bundle_file(n))
        .collect();
    foreign.sort();
    if !foreign.is_empty() {
        return Err(bad(format!(
            "holds files that are not a bundle's ({}); refusing to replace it",
            foreign.join(", ")
        )));
    }
    Ok(())
}

/// Writes `files` as the directory `dir`, replacing a previous bundle there.
pub(super) fn write_dir(dir: &Path, files: &[(String, String)]) -> Result<(), GenError> {
    check_out_dir(dir)?;
    let parent = dir.parent().unwrap_or(Path::new("/"));
    let name = dir
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "bundle".into());
    std::fs::create_dir_all(parent).map_err(io(parent))?;
    let pid = std::process::id();
    let tmp = parent.join(format!(".{name}.partial-{pid}"));
    if tmp.exists() {
        std::fs::remove_dir_all(&tmp).map_err(io(&tmp))?;
    }
    std::fs::create_dir(&tmp).map_err(io(&tmp))?;
    for (file, text) in files {
        let path = tmp.join(file);
        if let Err(e) = std::fs::write(&path, text) {
            let _ = std::fs::remove_dir_all(&tmp);
            return Err(io(&path)(e));
        }
    }
    if dir.exists() {
        let old = parent.join(format!(".{name}.old-{pid}"));
        std::fs::rename(dir, &old).map_err(io(dir))?;
        if let Err(e) = std::fs::rename(&tmp, dir) {
            let _ = std::fs::rename(&old, dir);
            return Err(io(dir)(e));
        }
        std::fs::remove_dir_all(&old).map_err(io(&old))?;
    } else {
        std::fs::rename(&tmp, dir).map_err(io(dir))?;
    }
    Ok(())
}

impl Bundle {
    /// Writes the bundle to [`Bundle::dir`] (replacing a previous bundle there; a directory
    /// with other files is refused before anything is written).
    pub fn write(&self) -> Result<(), GenError> {
        write_dir(&self.dir, &self.files())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replaces_a_bundle_and_refuses_a_foreign_directory() {
        let root = tempfile::tempdir().unwrap();
        let dir = root.path().join("b");
        let files = vec![
            ("bridge.yaml".to_string(), "a: 1\n".to_string()),
            ("ros_gz_bridge_x.yaml".to_string(), "[]\n".to_string()),
        ];
        write_dir(&dir, &files).unwrap();
        assert_eq!(
            std::fs::read_to_string(dir.join("bridge.yaml")).unwrap(),
            "a: 1\n"
        );
        // A second bundle replaces the first entirely (the stale per-frame file goes).
        write_dir(&dir, &[("bridge.yaml".to_string(), "a: 2\n".to_string())]).unwrap();
        assert!(!dir.join("ros_gz_bridge_x.yaml").exists());
        assert_eq!(
            std::fs::read_to_string(dir.join("bridge.yaml")).unwrap(),
            "a: 2\n"
        );
        // No temporary directory is left behind.
        let left: Vec<_> = std::fs::read_dir(root.path()).unwrap().flatten().collect();
        assert_eq!(left.len(), 1);
        // A directory with other files is not a bundle's.
        std::fs::write(dir.join("notes.txt"), "mine").unwrap();
        let e = write_dir(&dir, &files).unwrap_err();
        assert_eq!(e.exit_code(), 2);
        assert!(e.to_string().contains("notes.txt"), "{e}");
        assert_eq!(
            std::fs::read_to_string(dir.join("notes.txt")).unwrap(),
            "mine"
        );
        // A file is not a directory.
        let file = root.path().join("f");
        std::fs::write(&file, "").unwrap();
        assert!(write_dir(&file, &files)
            .unwrap_err()
            .to_string()
            .contains("not a directory"));
    }
}
