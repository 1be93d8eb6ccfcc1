//! Process supervision for fieldproof, shared by `fieldproof launch` and the scenario runner:
//!
//! - [`child`]: how a supervised child is started (own process group, parent-death signal);
//! - [`stop`]: the one stop policy ([`StopPolicy`]: SIGINT, then SIGTERM, then SIGKILL);
//! - [`ament`]: finding installed packages and executables through `AMENT_PREFIX_PATH`;
//! - the launcher for ROS 2 YAML launch files (the `launch:` frontend format `ros2 launch`
//!   reads), below.
//!
//! [`load`] turns a launch file and its arguments into the processes it starts
//! ([`ProcessSpec`]), resolving substitutions, groups, namespaces, includes and node
//! executables (through the ament index, as `ros2 launch` does); [`supervisor`] runs them,
//! reports children that die with their exit code, and stops all of them on Ctrl-C.
//!
//! Supported entities: `arg`, `let`, `set_env`, `unset_env`, `group` (a list, or
//! `{scoped, children}`), `push_ros_namespace`/`push-ros-namespace`, `include` (with `arg`),
//! `node` (`pkg`, `exec`, `name`, `namespace`, `param` (`name`/`value` or `from`), `remap`,
//! `args`, `ros_args`, `env`, `on_exit: shutdown`), `executable` (`cmd`, `name`), and `if`/`unless`
//! on every entity. Python launch files are refused with a clear message.

pub mod ament;
pub mod child;
pub mod stop;
mod subst;
pub mod supervisor;
mod yaml;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

pub use stop::StopPolicy;
pub use subst::Scope;

/// Why a launch file could not be turned into processes.
#[derive(Debug, thiserror::Error)]
pub enum LaunchError {
    /// The file could not be read.
    #[error("{path}: {source}")]
    Read {
        /// File.
        path: PathBuf,
        /// Cause.
        source: std::io::Error,
    },
    /// Not YAML, or not the launch format.
    #[error("{path}: {reason}")]
    Format {
        /// File.
        path: PathBuf,
        /// What is wrong, with the entity path (`launch[2].node: missing exec`).
        reason: String,
    },
    /// A `$(...)` that cannot be evaluated.
    #[error("substitution in '{text}': {reason}")]
    Substitution {
        /// The text holding it.
        text: String,
        /// Why.
        reason: String,
    },
    /// A launch argument given that the file does not declare, or a required one missing.
    #[error("{path}: {reason}")]
    Argument {
        /// File.
        path: PathBuf,
        /// Why.
        reason: String,
    },
    /// A node's package or executable is not installed.
    #[error("{0}")]
    Ament(#[from] crate::ament::AmentError),
}

/// One process a launch file starts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProcessSpec {
    /// The label its output lines carry, unique in the launch (`relay-1`).
    pub label: String,
    /// Program and arguments.
    pub cmd: Vec<String>,
    /// Extra environment.
    pub env: BTreeMap<String, String>,
    /// Environment variables to remove.
    pub unset_env: Vec<String>,
    /// Stop the whole launch when this process exits (`on_exit: shutdown`).
    pub shutdown_on_exit: bool,
}

/// Read a launch file with `name:=value` arguments and list the processes it starts.
pub fn load(
    file: &Path,
    args: &BTreeMap<String, String>,
    prefixes: &[PathBuf],
) -> Result<Vec<ProcessSpec>, LaunchError> {
    // Absolute, as ROS 2 launch makes it: `$(dirname)` is then a path that holds from any
    // working directory (a relative include of `$(dirname)/x.launch.yaml` included again).
    let file = std::path::absolute(file).unwrap_or_else(|_| file.to_path_buf());
    let file = file.as_path();
    let scope = Scope {
        vars: BTreeMap::new(),
        file: file.to_path_buf(),
        prefixes: prefixes.to_vec(),
        namespace: String::new(),
        env: BTreeMap::new(),
    };
    let mut out = Vec::new();
    yaml::load_file(file, args, scope, &mut out, &mut BTreeMap::new())?;
    Ok(out)
}

/// Split `name:=value` launch arguments.
pub fn parse_launch_args(words: &[String]) -> Result<BTreeMap<String, String>, String> {
    words
        .iter()
        .map(|w| {
            w.split_once(":=")
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .ok_or_else(|| format!("launch argument '{w}' is not of the form name:=value"))
        })
        .collect()
}

/// Join a pushed namespace and a node's own one as launch_ros does: an absolute namespace
/// replaces the pushed one, a relative one is appended to it.
pub fn join_namespace(pushed: &str, own: &str) -> String {
    let joined = if own.starts_with('/') {
        own.to_string()
    } else if own.is_empty() {
        pushed.to_string()
    } else {
        format!("{}/{}", pushed.trim_end_matches('/'), own)
    };
    let trimmed = joined.trim_matches('/');
    if trimmed.is_empty() {
        String::new()
    } else {
        format!("/{trimmed}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn namespaces_join_like_launch_ros() {
        assert_eq!(join_namespace("", ""), "");
        assert_eq!(join_namespace("/ugv1", ""), "/ugv1");
        assert_eq!(join_namespace("/ugv1", "sensors"), "/ugv1/sensors");
        assert_eq!(join_namespace("/ugv1", "/abs"), "/abs");
        assert_eq!(join_namespace("", "ugv2"), "/ugv2");
    }

    #[test]
    fn launch_args_need_the_assignment() {
        let ok = parse_launch_args(&["a:=1".into(), "b:=x:=y".into()]).unwrap();
        assert_eq!(ok["a"], "1");
        assert_eq!(ok["b"], "x:=y");
        assert!(parse_launch_args(&["oops".into()])
            .unwrap_err()
            .contains("'oops'"));
    }
}
