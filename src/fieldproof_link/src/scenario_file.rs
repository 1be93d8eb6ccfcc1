//! What the link tools (`link_shaper`, `link_net`, `link_analysis`) read of a scenario file:
//! its `network` section and its `timeline`, read once through the YAML guard (bounded size
//! and nesting, checked before parsing, as every reader of a user's YAML file does).

use std::path::Path;

use crate::profile::NetworkSection;

/// The link-related parts of a scenario file.
#[derive(Debug)]
pub struct ScenarioLinks {
    /// The `network` section.
    pub network: NetworkSection,
    /// The `timeline`, as written (its link actions become link changes).
    pub timeline: Option<serde_yaml::Value>,
}

/// Reads `path`'s `network` section and `timeline`; errors name the file and the field.
pub fn read(path: &Path) -> Result<ScenarioLinks, String> {
    let shown = path.display();
    let text =
        fieldproof_robots::yaml_guard::read_file(path).map_err(|e| format!("{shown}: {e}"))?;
    let doc: serde_yaml::Value =
        serde_yaml::from_str(&text).map_err(|e| format!("{shown}: {e}"))?;
    let section = doc
        .get("network")
        .ok_or_else(|| format!("{shown}: network: missing"))?;
    let network: NetworkSection =
        serde_yaml::from_value(section.clone()).map_err(|e| format!("{shown}: network: {e}"))?;
    Ok(ScenarioLinks {
        network,
        timeline: doc.get("timeline").cloned(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_example_and_refuses_hostile_files_naming_them() {
        let example =
            Path::new(env!("CARGO_MANIFEST_DIR")).join("../../config/scenarios/ugv_link_loss.yaml");
        let links = read(&example).unwrap();
        assert!(links.timeline.is_some());
        let dir = tempfile::tempdir().unwrap();
        let nested = dir.path().join("nested.yaml");
        std::fs::write(&nested, "[".repeat(100_000)).unwrap();
        let e = read(&nested).unwrap_err();
        assert!(
            e.contains("nested.yaml") && e.contains("nested deeper than the limit"),
            "{e}"
        );
        let empty = dir.path().join("empty.yaml");
        std::fs::write(&empty, "name: x\n").unwrap();
        assert!(read(&empty).unwrap_err().ends_with("network: missing"));
    }
}
