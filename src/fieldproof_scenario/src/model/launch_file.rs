//! What a YAML launch file declares, read before the runner starts it: its arguments (a
//! vehicle's `vision:` must be one of them) and its nodes' names (`entities` at its top
//! level and in groups; includes are not followed). `fieldproof launch` reads the file
//! again when it runs: a file that cannot be read here is left for it to name.

use serde_yaml::Value;
use std::path::Path;

/// The declarations of one launch file.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LaunchDecl {
    /// Every `arg` entity's name, in order.
    pub args: Vec<String>,
    /// Every `node` entity's `name`, in order.
    pub nodes: Vec<String>,
}

impl LaunchDecl {
    /// Reads `file` (through `yaml_guard`); `None` when it cannot be read or parsed as a
    /// YAML launch file (`launch:` and a list).
    pub fn read(file: &Path) -> Option<LaunchDecl> {
        let text = fieldproof_robots::yaml_guard::read_file(file).ok()?;
        Self::parse(&text)
    }

    /// Reads the text of a launch file; `None` when it is not one.
    pub fn parse(text: &str) -> Option<LaunchDecl> {
        let doc: Value = serde_yaml::from_str(text).ok()?;
        let mut decl = LaunchDecl::default();
        decl.walk(doc.get("launch")?.as_sequence()?);
        Some(decl)
    }

    fn walk(&mut self, entities: &[Value]) {
        let name = |entity: Option<&Value>| {
            entity
                .and_then(|e| e.get("name"))
                .and_then(Value::as_str)
                .map(str::to_string)
        };
        for entity in entities {
            self.args.extend(name(entity.get("arg")));
            self.nodes.extend(name(entity.get("node")));
            match entity.get("group") {
                Some(Value::Sequence(children)) => self.walk(children),
                Some(group) => {
                    if let Some(children) = group.get("children").and_then(Value::as_sequence) {
                        self.walk(children);
                    }
                }
                None => {}
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn args_and_nodes_at_the_top_and_in_groups() {
        let decl = LaunchDecl::parse(
            "launch:\n- arg: { name: namespace }\n- group:\n  - arg: { name: vision_source, default: camera }\n  - node: { pkg: p, exec: e, name: mission_supervisor }\n- group:\n    scoped: 'false'\n    children:\n    - node: { pkg: p, exec: f, name: planner }\n",
        )
        .unwrap();
        assert_eq!(decl.args, ["namespace", "vision_source"]);
        assert_eq!(decl.nodes, ["mission_supervisor", "planner"]);
        assert_eq!(LaunchDecl::parse("nodes: []\n"), None);
        assert_eq!(LaunchDecl::parse(": ["), None);
        let shipped = fieldproof_testkit::repo_root()
            .join("src/fieldproof_stack/launch/goal_driver.launch.yaml");
        let decl = LaunchDecl::read(&shipped).unwrap();
        assert!(decl.args.contains(&"cmd_vel".to_string()));
        assert_eq!(decl.nodes, ["goal_driver"]);
    }
}
