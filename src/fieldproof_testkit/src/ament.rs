//! A fake ament install prefix: the package markers and `lib/<package>/<executable>` files
//! that `ros2 run`, `fieldproof exec` and launch files look up through `AMENT_PREFIX_PATH`.

use std::path::{Path, PathBuf};

/// An install prefix on disk (in its own temporary directory, or at a given path).
#[derive(Debug)]
pub struct FakeAmentPrefix {
    root: PathBuf,
    _temp: Option<tempfile::TempDir>,
}

impl FakeAmentPrefix {
    /// An empty prefix in a fresh temporary directory, removed on drop.
    pub fn new() -> FakeAmentPrefix {
        // Passable: the stack's unprivileged account runs what a scenario finds here.
        let temp = crate::passable_tempdir();
        FakeAmentPrefix {
            root: temp.path().to_path_buf(),
            _temp: Some(temp),
        }
    }

    /// An empty prefix at `root` (created; left on disk).
    pub fn at(root: &Path) -> FakeAmentPrefix {
        std::fs::create_dir_all(root)
            .unwrap_or_else(|e| panic!("ament prefix {}: {e}", root.display()));
        FakeAmentPrefix {
            root: root.to_path_buf(),
            _temp: None,
        }
    }

    /// The prefix directory (the value for `AMENT_PREFIX_PATH`).
    pub fn path(&self) -> &Path {
        &self.root
    }

    /// Registers `package` in the ament index (`share/ament_index/resource_index/packages`).
    pub fn package(&self, package: &str) -> &Self {
        let index = self.root.join("share/ament_index/resource_index/packages");
        std::fs::create_dir_all(&index).expect("ament index directory");
        std::fs::write(index.join(package), "").expect("ament index marker");
        self
    }

    /// Path of `package`'s executable `name` (`lib/<package>/<name>`), its directory created.
    fn executable_path(&self, package: &str, name: &str) -> PathBuf {
        let lib = self.root.join("lib").join(package);
        std::fs::create_dir_all(&lib).expect("lib/<package> directory");
        lib.join(name)
    }

    /// Registers `package` and gives it executable `name`, a symlink to `target` (a binary of
    /// this build).
    pub fn link(&self, package: &str, name: &str, target: &Path) -> &Self {
        self.package(package);
        let path = self.executable_path(package, name);
        std::os::unix::fs::symlink(target, &path)
            .unwrap_or_else(|e| panic!("{} -> {}: {e}", path.display(), target.display()));
        self
    }

    /// Registers `package` and gives it executable `name`, a `/bin/sh` script of `body`.
    pub fn script(&self, package: &str, name: &str, body: &str) -> &Self {
        self.package(package);
        let path = self.executable_path(package, name);
        crate::write_executable(&path, &format!("#!/bin/sh\n{body}"));
        self
    }

    /// Registers `package` and gives it executable `name`, a stub that exits 0.
    pub fn stub(&self, package: &str, name: &str) -> &Self {
        self.script(package, name, "exit 0\n")
    }
}

impl Default for FakeAmentPrefix {
    fn default() -> Self {
        FakeAmentPrefix::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn packages_and_executables_land_where_ament_looks() {
        let prefix = FakeAmentPrefix::new();
        prefix
            .stub("demo", "noop")
            .script("demo", "hello", "echo hi\n")
            .link("other", "sh", Path::new("/bin/sh"));
        let index = prefix
            .path()
            .join("share/ament_index/resource_index/packages");
        assert!(index.join("demo").is_file());
        assert!(index.join("other").is_file());
        let out = std::process::Command::new(prefix.path().join("lib/demo/hello"))
            .output()
            .unwrap();
        assert_eq!(String::from_utf8_lossy(&out.stdout), "hi\n");
        let noop = std::process::Command::new(prefix.path().join("lib/demo/noop"))
            .status()
            .unwrap();
        assert!(noop.success());
        assert_eq!(
            std::fs::read_link(prefix.path().join("lib/other/sh")).unwrap(),
            Path::new("/bin/sh")
        );
    }
}
