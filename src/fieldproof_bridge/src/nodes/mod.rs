//! The bridge's nodes, each a [`Component`]: declarations and body, run alone by its binary
//! (`src/bin/<executable>.rs`) or composed with the rest of a bundle in one process
//! (`bundle_container`), where the vehicle's failsafe (`fieldproof_link`'s `link_monitor`)
//! may join them.

use std::collections::BTreeMap;
use std::path::Path;

use fieldproof_runtime::container::Component;

use crate::gen::index::BundleIndex;

pub mod battery;
pub mod command_relay;
pub mod imu_adapter;
pub mod navsat_adapter;
pub mod relay;
pub mod throttle;

pub use fieldproof_runtime::container::ComponentFactory;

/// Every node of the package by executable name: the table `bundle_container` composes from.
pub const COMPONENTS: [(&str, ComponentFactory); 6] = [
    ("battery", battery::node),
    ("command_relay", command_relay::node),
    ("imu_adapter", imu_adapter::node),
    ("navsat_adapter", navsat_adapter::node),
    ("relay", relay::node),
    ("throttle", throttle::node),
];

/// The package of the vehicle's failsafe, which a container may hold beside the adapters.
pub const FAILSAFE_PACKAGE: &str = "fieldproof_link";

/// The failsafe's executable and node name.
pub const FAILSAFE_NODE: &str = "link_monitor";

/// The node of executable `executable` of package `package` (`fieldproof_bridge`,
/// `imu_adapter`), if a container can hold it: this package's nodes and the failsafe.
pub fn by_executable(package: &str, executable: &str) -> Option<Component> {
    let table: &[(&str, ComponentFactory)] = match package {
        "fieldproof_bridge" => &COMPONENTS,
        FAILSAFE_PACKAGE => &fieldproof_link::nodes::COMPONENTS,
        _ => &[],
    };
    table
        .iter()
        .find(|(name, _)| *name == executable)
        .map(|(_, node)| node())
}

/// Why a bundle cannot be composed.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum ComposeError {
    /// A node of the bundle no component of this package runs.
    #[error("node '{node}': executable {package}/{executable} cannot be composed (the container holds fieldproof_bridge's nodes: {known})")]
    NotComposable {
        /// The node's name.
        node: String,
        /// Its package.
        package: String,
        /// Its executable.
        executable: String,
        /// The executables the container holds.
        known: String,
    },
    /// `-r __node:=` among the container's arguments would give every node one name.
    #[error("--ros-args: '{0}' would give every node of the bundle one name; each keeps its own (drop it, or use -r __ns:= for the namespace)")]
    NodeRename(String),
}

/// One node of a composed bundle: its executable and the command line it resolves against
/// (`argv[0]`, then its ROS arguments), as the bundle's launch file would start it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ComposedNode {
    /// Its package (`fieldproof_bridge`, or [`FAILSAFE_PACKAGE`]).
    pub package: String,
    /// Executable (`imu_adapter`): which component runs it ([`by_executable`]).
    pub executable: String,
    /// Its command line.
    pub argv: Vec<String>,
}

/// The nodes of the bundle in `bundle_dir` (its `bridge.yaml` read as `index`) that a
/// container runs, in launch order, each with the command line its own process would get:
/// its name, the bundle's namespace, the bundle's `params.yaml`, its remaps, then
/// `ros_args` (the container's `--ros-args`, applied to every node: `-r __ns:=`,
/// `-p use_sim_time:=true`, `--log-level`). The simulator's stand-ins (`gz_only`) are left
/// out, as the launch file leaves them with `gz:=false`.
pub fn compose(
    index: &BundleIndex,
    bundle_dir: &Path,
    ros_args: &[String],
) -> Result<Vec<ComposedNode>, ComposeError> {
    if let Some(rename) = ros_args.iter().find(|a| a.starts_with("__node:=")) {
        return Err(ComposeError::NodeRename(rename.clone()));
    }
    let params = bundle_dir.join("params.yaml");
    index
        .nodes
        .iter()
        .filter(|n| !n.gz_only)
        .map(|n| {
            let known = COMPONENTS.iter().any(|(name, _)| *name == n.executable);
            if n.package != "fieldproof_bridge" || !known {
                return Err(ComposeError::NotComposable {
                    node: n.name.clone(),
                    package: n.package.clone(),
                    executable: n.executable.clone(),
                    known: COMPONENTS.map(|(name, _)| name).join(", "),
                });
            }
            Ok(ComposedNode {
                package: n.package.clone(),
                executable: n.executable.clone(),
                argv: node_argv(index, &n.executable, &n.name, &params, &n.remap, ros_args),
            })
        })
        .collect()
}

/// The vehicle's failsafe (`link_monitor`, named so, in the bundle's namespace) as a node of
/// the bundle's container, with the parameters file `params_file` (what `link_params
/// failsafe` writes and a scenario run writes beside the bundle) and `ros_args` as in
/// [`compose`].
pub fn failsafe(
    index: &BundleIndex,
    params_file: &Path,
    ros_args: &[String],
) -> Result<ComposedNode, ComposeError> {
    if let Some(rename) = ros_args.iter().find(|a| a.starts_with("__node:=")) {
        return Err(ComposeError::NodeRename(rename.clone()));
    }
    Ok(ComposedNode {
        package: FAILSAFE_PACKAGE.into(),
        executable: FAILSAFE_NODE.into(),
        argv: node_argv(
            index,
            FAILSAFE_NODE,
            FAILSAFE_NODE,
            params_file,
            &BTreeMap::new(),
            ros_args,
        ),
    })
}

/// The command line one node of a bundle's container resolves against: its name, the
/// bundle's namespace (unless `ros_args` give one), its parameters file, its remaps, then
/// `ros_args`.
fn node_argv(
    index: &BundleIndex,
    executable: &str,
    name: &str,
    params_file: &Path,
    remaps: &BTreeMap<String, String>,
    ros_args: &[String],
) -> Vec<String> {
    let namespace_given = ros_args.iter().any(|a| a.starts_with("__ns:="));
    let mut argv = vec![
        executable.to_string(),
        "--ros-args".into(),
        "-r".into(),
        format!("__node:={name}"),
    ];
    if !namespace_given && !index.namespace.is_empty() {
        argv.extend(["-r".into(), format!("__ns:={}", index.namespace)]);
    }
    argv.extend(["--params-file".into(), params_file.display().to_string()]);
    for (from, to) in remaps {
        argv.extend(["-r".into(), format!("{from}:={to}")]);
    }
    argv.extend(ros_args.iter().cloned());
    argv
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gen::Options;

    /// The ugv_ref bundle (namespace ugv1) written to a new directory, its index and the
    /// names of its adapters.
    fn ugv_bundle() -> (tempfile::TempDir, BundleIndex, Vec<String>) {
        let manifest = std::path::absolute(
            Path::new(env!("CARGO_MANIFEST_DIR")).join("../../robots/ugv_ref/robot.yaml"),
        )
        .unwrap();
        let options = Options {
            namespace: "ugv1".into(),
            ..Options::default()
        };
        let dir = tempfile::tempdir().unwrap();
        crate::gen::run(&manifest, &options, dir.path()).unwrap();
        let index = BundleIndex::load(dir.path()).unwrap();
        let adapters = index
            .nodes
            .iter()
            .filter(|n| !n.gz_only)
            .map(|n| n.name.clone())
            .collect();
        (dir, index, adapters)
    }

    #[test]
    fn every_adapter_of_a_bundle_is_composed_with_the_command_line_of_its_own_process() {
        let (dir, index, adapters) = ugv_bundle();
        let args: Vec<String> = ["-p", "use_sim_time:=true"].map(String::from).to_vec();
        let nodes = compose(&index, dir.path(), &args).unwrap();
        let params = dir.path().join("params.yaml").display().to_string();
        let names: Vec<String> = nodes
            .iter()
            .map(|n| n.argv[3].trim_start_matches("__node:=").to_string())
            .collect();
        assert_eq!(
            names, adapters,
            "every adapter, launch order, no gz stand-in"
        );
        let imu = nodes
            .iter()
            .find(|n| n.executable == "imu_adapter")
            .unwrap();
        assert_eq!(
            imu.argv,
            [
                "imu_adapter",
                "--ros-args",
                "-r",
                "__node:=imu_adapter",
                "-r",
                "__ns:=/ugv1",
                "--params-file",
                params.as_str(),
                "-p",
                "use_sim_time:=true"
            ]
        );
        for node in &nodes {
            let component = by_executable(&node.package, &node.executable).expect("a component");
            let composable = component
                .resolve(node.argv.clone(), |_| None)
                .unwrap_or_else(|e| panic!("{:?}: {e}", node.argv));
            assert!(composable
                .config()
                .fully_qualified_name()
                .starts_with("/ugv1/"));
        }
    }

    #[test]
    fn a_given_namespace_wins_and_a_rename_is_refused() {
        let (_dir, index, _) = ugv_bundle();
        let args: Vec<String> = ["-r", "__ns:=/other"].map(String::from).to_vec();
        let nodes = compose(&index, Path::new("/b"), &args).unwrap();
        assert!(nodes
            .iter()
            .all(|n| n.argv.iter().filter(|a| a.starts_with("__ns:=")).count() == 1));
        let rename: Vec<String> = ["-r", "__node:=x"].map(String::from).to_vec();
        assert_eq!(
            compose(&index, Path::new("/b"), &rename).unwrap_err(),
            ComposeError::NodeRename("__node:=x".into())
        );
        let mut foreign = index.clone();
        foreign.nodes[0].gz_only = false;
        foreign.nodes[0].package = "ros_gz_bridge".into();
        let e = compose(&foreign, Path::new("/b"), &[]).unwrap_err();
        assert!(e.to_string().contains("cannot be composed"), "{e}");
    }

    #[test]
    fn the_failsafe_joins_the_bundle_with_its_own_parameters_file() {
        let (dir, index, _) = ugv_bundle();
        let params = dir.path().join("failsafe.yaml");
        let args: Vec<String> = ["-p", "use_sim_time:=true"].map(String::from).to_vec();
        let write = |timeout_s: &str| {
            let text = format!(
                "/**:\n  ros__parameters:\n    timeout_s: {timeout_s}\n    loss_action: hold\n"
            );
            std::fs::write(&params, text).unwrap();
        };
        write("1.5");
        let node = failsafe(&index, &params, &args).unwrap();
        assert_eq!(
            (node.package.as_str(), node.executable.as_str()),
            (FAILSAFE_PACKAGE, FAILSAFE_NODE)
        );
        let composable = by_executable(&node.package, &node.executable)
            .expect("the failsafe composes")
            .resolve(node.argv.clone(), |_| None)
            .unwrap();
        assert_eq!(
            composable.config().fully_qualified_name(),
            "/ugv1/link_monitor"
        );
        // The file is the failsafe's: a value out of its declared range is refused by name.
        write("0.01");
        let e = by_executable(&node.package, &node.executable)
            .unwrap()
            .resolve(node.argv.clone(), |_| None)
            .unwrap_err();
        assert!(e.to_string().contains("timeout_s"), "{e}");
        let rename: Vec<String> = ["-r", "__node:=x"].map(String::from).to_vec();
        assert!(failsafe(&index, &params, &rename).is_err());
        assert!(by_executable("fieldproof_link", "link_shaper").is_none());
    }
}
