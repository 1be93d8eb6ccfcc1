//! Vehicle manifests (`robots/<name>/robot.yaml`) and worlds (`worlds/<name>.yaml`): the
//! typed, validated model every tool reads (the simulator, the bridge generator, the
//! scenario runner).
//!
//! - [`Manifest::load`] resolves the `extends` chain (deep merge, see [`merge`]), parses
//!   strictly (unknown keys are errors, with a suggestion) and validates; every error names
//!   the file and the field path: `drive.odometry: missing rate_hz`.
//! - [`Manifest::interfaces`] flattens the drive's interfaces and the sensors' outputs with
//!   the sensor defaults applied; [`bridge::adapter_for`] / [`bridge::is_hidden`] decide,
//!   once for every tool, which of them reach their contract topic through an adapter.
//! - [`World::load`] reads a world: obstacles, geodetic origin, spawn frames, goals;
//!   [`geo`] converts ENU metres about its origin to WGS 84 and back.
//! - [`yaml_guard::check`] refuses YAML text too large or nested too deep, before parsing.

pub mod bridge;
pub mod error;
pub mod geo;
mod load;
pub mod manifest;
pub mod world;
pub mod yaml_guard;

pub use bridge::{adapter_for, is_hidden, Adapter, Naming};
pub use error::{Error, FieldPath};
pub use load::merge;
pub use manifest::*;
pub use world::*;

use std::path::{Path, PathBuf};

/// Finds a manifest or world: `path` itself if it exists, else (for a relative path) the
/// installed copy under `<prefix>/share/fieldproof_robots/<path>` of the first prefix of
/// `ament_prefix_path` (`AMENT_PREFIX_PATH`) that has it, so `robots/ugv_ref/robot.yaml`
/// and `worlds/depot.yaml` work from any directory once the package is installed. Returns
/// `path` unchanged when nothing is found (loading then reports it).
pub fn find_data_file(path: &Path, ament_prefix_path: Option<&str>) -> PathBuf {
    if path.exists() || path.is_absolute() {
        return path.to_path_buf();
    }
    ament_prefix_path
        .unwrap_or("")
        .split(':')
        .filter(|p| !p.is_empty())
        .map(|p| Path::new(p).join("share/fieldproof_robots").join(path))
        .find(|p| p.exists())
        .unwrap_or_else(|| path.to_path_buf())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn installed_files_are_found_under_the_prefixes() {
        let dir = tempfile::tempdir().unwrap();
        let share = dir.path().join("share/fieldproof_robots/worlds");
        std::fs::create_dir_all(&share).unwrap();
        std::fs::write(share.join("w.yaml"), "x").unwrap();
        let prefixes = format!("/nonexistent:{}", dir.path().display());
        assert_eq!(
            find_data_file(Path::new("worlds/w.yaml"), Some(&prefixes)),
            share.join("w.yaml")
        );
        assert_eq!(
            find_data_file(Path::new("worlds/none.yaml"), Some(&prefixes)),
            PathBuf::from("worlds/none.yaml")
        );
        assert_eq!(
            find_data_file(Path::new("worlds/w.yaml"), None),
            PathBuf::from("worlds/w.yaml")
        );
    }
}
