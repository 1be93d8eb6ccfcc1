//! The arguments of the package's `bridge.launch.yaml`, resolved to the bundle it includes.
//!
//! The launch file takes either `bundle:=` (a bundle `bridge_gen` wrote) or `manifest:=`
//! (generate one now, into `bundle_out` or a new temporary directory, with the generator's
//! options `namespace`, `frame_prefix`, `clock`, `robot_state_publisher`, `without`). A YAML
//! launch file cannot run a program before it includes a file, so its include names the file
//! through `$(command '... bridge_bundle --bundle=... --manifest=...')`: [`resolve`] is what
//! that command does, and it prints the path of the bundle's launch file.

use std::path::{Path, PathBuf};

use super::{absolute, load_manifest, GenError, Options};

/// The launch file's arguments as `bridge_bundle` receives them (an empty value is unset).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LaunchArgs {
    /// `bundle:=`: the directory of a written bundle.
    pub bundle: Option<PathBuf>,
    /// `manifest:=`: the vehicle manifest to generate a bundle from.
    pub manifest: Option<PathBuf>,
    /// `bundle_out:=`: where a bundle generated from `manifest` is written.
    pub bundle_out: Option<PathBuf>,
    /// The generator's options (`namespace`, `frame_prefix`, `clock`,
    /// `robot_state_publisher`, `without`).
    pub options: Options,
}

/// The launch file a bundle directory holds.
pub const BUNDLE_LAUNCH_FILE: &str = "bridge.launch.yaml";

fn argument(option: &'static str, value: impl Into<String>, reason: &str) -> GenError {
    GenError::Option {
        option,
        value: value.into(),
        reason: reason.into(),
    }
}

/// Resolves the launch arguments to the launch file of a bundle: the given bundle's (checked
/// to be one), or that of a bundle generated now from the manifest. Exactly one of `bundle`
/// and `manifest` must be given; the generator's options and `bundle_out` go with `manifest`
/// only (a written bundle already has its namespace), and giving them with `bundle` is
/// refused rather than silently ignored.
pub fn resolve(args: &LaunchArgs) -> Result<PathBuf, GenError> {
    match (&args.bundle, &args.manifest) {
        (Some(bundle), Some(manifest)) => Err(argument(
            "bundle",
            bundle.display().to_string(),
            &format!(
                "given with manifest:={}; give one: bundle:= launches a written bundle, \
                 manifest:= generates one",
                manifest.display()
            ),
        )),
        (None, None) => Err(argument(
            "manifest",
            "",
            "and bundle:= are both unset; give bundle:=DIR (written by bridge_gen) or \
             manifest:=robot.yaml",
        )),
        (Some(bundle), None) => {
            refuse_generator_options(args)?;
            written_bundle(bundle)
        }
        (None, Some(manifest)) => generate_into(manifest, args),
    }
}

fn refuse_generator_options(args: &LaunchArgs) -> Result<(), GenError> {
    let defaults = Options::default();
    let o = &args.options;
    let given: [(&'static str, Option<String>); 6] = [
        (
            "bundle_out",
            args.bundle_out.as_ref().map(|p| p.display().to_string()),
        ),
        (
            "namespace",
            (o.namespace != defaults.namespace).then(|| o.namespace.clone()),
        ),
        (
            "frame_prefix",
            (o.frame_prefix != defaults.frame_prefix).then(|| o.frame_prefix.clone()),
        ),
        ("clock", o.no_clock.then(|| "false".to_string())),
        (
            "robot_state_publisher",
            o.no_robot_state_publisher.then(|| "false".to_string()),
        ),
        (
            "without",
            (!o.without.is_empty()).then(|| o.without.join(",")),
        ),
    ];
    match given.into_iter().find_map(|(name, v)| v.map(|v| (name, v))) {
        Some((name, value)) => Err(argument(
            name,
            value,
            "is a generator option for manifest:=; a bundle given with bundle:= was generated \
             with its own (regenerate it with bridge_gen, or launch with manifest:=)",
        )),
        None => Ok(()),
    }
}

fn written_bundle(bundle: &Path) -> Result<PathBuf, GenError> {
    let dir = absolute(bundle);
    if !dir.is_dir() {
        return Err(argument(
            "bundle",
            bundle.display().to_string(),
            "is not a directory (write one with bridge_gen robot.yaml -o DIR)",
        ));
    }
    let file = dir.join(BUNDLE_LAUNCH_FILE);
    if !file.is_file() {
        return Err(argument(
            "bundle",
            bundle.display().to_string(),
            &format!("has no {BUNDLE_LAUNCH_FILE}: it is not a bundle bridge_gen wrote"),
        ));
    }
    Ok(file)
}

fn generate_into(manifest: &Path, args: &LaunchArgs) -> Result<PathBuf, GenError> {
    let loaded = load_manifest(manifest)?;
    let out = match &args.bundle_out {
        Some(dir) => absolute(dir),
        None => {
            let parent = tempfile::Builder::new()
                .prefix("fieldproof_bridge_")
                .tempdir()
                .map_err(|source| GenError::Io {
                    path: std::env::temp_dir(),
                    source,
                })?
                // The launched nodes read the bundle's files: it must outlive this command.
                .keep();
            parent.join(format!("{}_bridge", loaded.name))
        }
    };
    let bundle = super::generate(&loaded, &args.options, &out)?;
    bundle.write()?;
    Ok(bundle.dir.join(BUNDLE_LAUNCH_FILE))
}

/// Reads a launch boolean (`true`, `false`, `1`, `0`, any case), naming the argument when it
/// is neither.
pub fn launch_bool(option: &'static str, value: &str) -> Result<bool, GenError> {
    match value.trim().to_ascii_lowercase().as_str() {
        "true" | "1" => Ok(true),
        "false" | "0" => Ok(false),
        _ => Err(argument(option, value, "is not true or false")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use fieldproof_testkit::repo_root;

    fn manifest() -> PathBuf {
        repo_root().join("robots/ugv_ref/robot.yaml")
    }

    #[test]
    fn a_written_bundle_resolves_to_its_launch_file() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("b");
        super::super::run(&manifest(), &Options::default(), &out).unwrap();
        let args = LaunchArgs {
            bundle: Some(out.clone()),
            ..LaunchArgs::default()
        };
        assert_eq!(resolve(&args).unwrap(), out.join(BUNDLE_LAUNCH_FILE));
    }

    #[test]
    fn a_manifest_generates_into_bundle_out_with_the_options() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("generated");
        let args = LaunchArgs {
            manifest: Some(manifest()),
            bundle_out: Some(out.clone()),
            options: Options {
                namespace: "rover7".into(),
                no_clock: true,
                ..Options::default()
            },
            ..LaunchArgs::default()
        };
        let file = resolve(&args).unwrap();
        assert_eq!(file, out.join(BUNDLE_LAUNCH_FILE));
        let launch = std::fs::read_to_string(&file).unwrap();
        assert!(launch.contains("rover7"), "{launch}");
        let bridge = std::fs::read_to_string(out.join("ros_gz_bridge.yaml")).unwrap();
        assert!(!bridge.contains("/clock"), "{bridge}");
    }

    #[test]
    fn a_manifest_without_bundle_out_goes_to_a_new_temporary_directory() {
        let args = LaunchArgs {
            manifest: Some(manifest()),
            ..LaunchArgs::default()
        };
        let first = resolve(&args).unwrap();
        let second = resolve(&args).unwrap();
        assert!(first.is_file() && second.is_file());
        assert_ne!(first, second, "each launch gets its own directory");
        assert!(
            first.starts_with(std::env::temp_dir()),
            "{}",
            first.display()
        );
        for file in [first, second] {
            let parent = file.parent().unwrap().parent().unwrap();
            std::fs::remove_dir_all(parent).unwrap();
        }
    }

    #[test]
    fn both_neither_and_generator_options_with_a_bundle_are_refused_by_name() {
        let both = LaunchArgs {
            bundle: Some("/tmp/b".into()),
            manifest: Some(manifest()),
            ..LaunchArgs::default()
        };
        let e = resolve(&both).unwrap_err().to_string();
        assert!(
            e.starts_with("bundle: \"/tmp/b\" given with manifest:="),
            "{e}"
        );
        let e = resolve(&LaunchArgs::default()).unwrap_err().to_string();
        assert!(e.contains("give bundle:=DIR"), "{e}");
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("b");
        super::super::run(&manifest(), &Options::default(), &out).unwrap();
        let with_namespace = LaunchArgs {
            bundle: Some(out.clone()),
            options: Options {
                namespace: "ugv9".into(),
                ..Options::default()
            },
            ..LaunchArgs::default()
        };
        let e = resolve(&with_namespace).unwrap_err().to_string();
        assert!(
            e.starts_with("namespace: \"ugv9\" is a generator option"),
            "{e}"
        );
        let with_without = LaunchArgs {
            bundle: Some(out),
            options: Options {
                without: vec!["front_camera".into()],
                ..Options::default()
            },
            ..LaunchArgs::default()
        };
        let e = resolve(&with_without).unwrap_err().to_string();
        assert!(e.starts_with("without: \"front_camera\""), "{e}");
    }

    #[test]
    fn a_directory_that_is_no_bundle_is_refused_and_a_bad_manifest_named() {
        let dir = tempfile::tempdir().unwrap();
        let args = LaunchArgs {
            bundle: Some(dir.path().to_path_buf()),
            ..LaunchArgs::default()
        };
        let e = resolve(&args).unwrap_err().to_string();
        assert!(e.contains("has no bridge.launch.yaml"), "{e}");
        let missing = LaunchArgs {
            bundle: Some(dir.path().join("nope")),
            ..LaunchArgs::default()
        };
        assert!(resolve(&missing)
            .unwrap_err()
            .to_string()
            .contains("is not a directory"));
        let bad = LaunchArgs {
            manifest: Some(dir.path().join("absent.yaml")),
            ..LaunchArgs::default()
        };
        let e = resolve(&bad).unwrap_err();
        assert_eq!(e.exit_code(), 2);
        assert!(e.to_string().contains("absent.yaml"), "{e}");
    }

    #[test]
    fn launch_booleans_read_as_ros_writes_them() {
        assert!(launch_bool("clock", "True").unwrap());
        assert!(!launch_bool("clock", "0").unwrap());
        let e = launch_bool("clock", "maybe").unwrap_err().to_string();
        assert_eq!(e, "clock: \"maybe\" is not true or false");
    }
}
