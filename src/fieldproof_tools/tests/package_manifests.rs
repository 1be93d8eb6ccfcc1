//! Every package's `package.xml` declares the workspace packages its `Cargo.toml` depends on,
//! so `colcon build` on a ROS machine orders the packages as cargo does:
//! - a normal (or build) dependency is a `<depend>` (or both `<build_depend>` and
//!   `<exec_depend>`);
//! - a dev-dependency is a `<test_depend>` (unless it is already a normal one);
//! - nothing more, except `<exec_depend>` alone: a package whose executables this one starts
//!   at run time (the runner starts the simulator's), which cargo does not see.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The workspace's packages: every directory of `src/` with both manifests, by name.
fn packages() -> BTreeMap<String, PathBuf> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
    let mut out = BTreeMap::new();
    for entry in std::fs::read_dir(src).unwrap() {
        let dir = entry.unwrap().path();
        if dir.join("Cargo.toml").is_file() && dir.join("package.xml").is_file() {
            out.insert(dir.file_name().unwrap().to_string_lossy().into_owned(), dir);
        }
    }
    out
}

/// The workspace crates named in one dependency table of a Cargo.toml.
fn cargo_deps(
    manifest: &toml::Table,
    table: &str,
    workspace: &BTreeSet<String>,
) -> BTreeSet<String> {
    manifest
        .get(table)
        .and_then(toml::Value::as_table)
        .map(|deps| {
            deps.iter()
                .map(|(key, spec)| {
                    // `alias = { package = "real_name", ... }` depends on real_name.
                    spec.get("package")
                        .and_then(toml::Value::as_str)
                        .unwrap_or(key)
                        .to_string()
                })
                .filter(|name| workspace.contains(name))
                .collect()
        })
        .unwrap_or_default()
}

/// The workspace packages a package.xml names in `<kind>` elements.
fn xml_deps(
    doc: &roxmltree::Document,
    kind: &str,
    workspace: &BTreeSet<String>,
) -> BTreeSet<String> {
    doc.root_element()
        .children()
        .filter(|n| n.has_tag_name(kind))
        .filter_map(|n| n.text())
        .map(|t| t.trim().to_string())
        .filter(|name| workspace.contains(name))
        .collect()
}

/// What is wrong with one package's pair of manifests, one line each.
fn differences(name: &str, dir: &Path, workspace: &BTreeSet<String>) -> Vec<String> {
    let cargo_text = std::fs::read_to_string(dir.join("Cargo.toml")).unwrap();
    let cargo: toml::Table = toml::from_str(&cargo_text)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.join("Cargo.toml").display()));
    let xml_text = std::fs::read_to_string(dir.join("package.xml")).unwrap();
    let xml = roxmltree::Document::parse(&xml_text)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.join("package.xml").display()));

    let mut normal = cargo_deps(&cargo, "dependencies", workspace);
    normal.extend(cargo_deps(&cargo, "build-dependencies", workspace));
    let dev: BTreeSet<String> = cargo_deps(&cargo, "dev-dependencies", workspace)
        .difference(&normal)
        .cloned()
        .collect();
    let depend = xml_deps(&xml, "depend", workspace);
    let build = xml_deps(&xml, "build_depend", workspace);
    let exec = xml_deps(&xml, "exec_depend", workspace);
    let test = xml_deps(&xml, "test_depend", workspace);

    let mut out = Vec::new();
    for dep in &normal {
        let declared = depend.contains(dep) || (build.contains(dep) && exec.contains(dep));
        if !declared {
            out.push(format!(
                "{name}: Cargo.toml [dependencies] has {dep}; package.xml needs <depend>{dep}</depend>"
            ));
        }
    }
    for dep in depend.union(&build) {
        if !normal.contains(dep) {
            out.push(format!(
                "{name}: package.xml builds against {dep}; Cargo.toml [dependencies] has no {dep}"
            ));
        }
    }
    for dep in &dev {
        if !test.contains(dep) {
            out.push(format!(
                "{name}: Cargo.toml [dev-dependencies] has {dep}; package.xml needs <test_depend>{dep}</test_depend>"
            ));
        }
    }
    for dep in &test {
        if !dev.contains(dep) {
            out.push(format!(
                "{name}: package.xml <test_depend>{dep}</test_depend>; Cargo.toml [dev-dependencies] has no {dep}"
            ));
        }
    }
    out
}

#[test]
fn package_xml_dependencies_match_cargo_toml() {
    let packages = packages();
    assert!(packages.len() >= 10, "found only {packages:?}");
    let workspace: BTreeSet<String> = packages.keys().cloned().collect();
    let wrong: Vec<String> = packages
        .iter()
        .flat_map(|(name, dir)| differences(name, dir, &workspace))
        .collect();
    assert!(wrong.is_empty(), "\n{}", wrong.join("\n"));
}

#[test]
fn a_missing_or_extra_dependency_is_reported() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("Cargo.toml"),
        "[package]\nname = \"p\"\n[dependencies]\na = { path = \"../a\" }\n\
         [dev-dependencies]\nb = { path = \"../b\" }\n",
    )
    .unwrap();
    std::fs::write(
        dir.path().join("package.xml"),
        "<package format=\"3\"><name>p</name><depend>c</depend>\
         <exec_depend>d</exec_depend><test_depend>a</test_depend></package>",
    )
    .unwrap();
    let workspace: BTreeSet<String> = ["a", "b", "c", "d"].map(String::from).into();
    let wrong = differences("p", dir.path(), &workspace);
    assert_eq!(
        wrong,
        [
            "p: Cargo.toml [dependencies] has a; package.xml needs <depend>a</depend>",
            "p: package.xml builds against c; Cargo.toml [dependencies] has no c",
            "p: Cargo.toml [dev-dependencies] has b; package.xml needs <test_depend>b</test_depend>",
            "p: package.xml <test_depend>a</test_depend>; Cargo.toml [dev-dependencies] has no a",
        ]
    );
}
