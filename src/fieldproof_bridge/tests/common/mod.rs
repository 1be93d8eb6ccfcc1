//! What the bridge's integration tests share (each test file is its own crate and uses part
//! of it).
#![allow(dead_code)]

use std::path::{Path, PathBuf};

use fieldproof_bridge::gen::{self, Options};
use fieldproof_testkit::repo_root;

/// The reference UGV's bridge bundle (`robots/ugv_ref`), written to `dir/name` with
/// `options`; its directory.
pub fn ugv_ref_bundle(dir: &Path, name: &str, options: &Options) -> PathBuf {
    let out = dir.join(name);
    gen::run(
        &repo_root().join("robots/ugv_ref/robot.yaml"),
        options,
        &out,
    )
    .unwrap_or_else(|e| panic!("bridge_gen robots/ugv_ref into {}: {e}", out.display()));
    out
}

/// The default options with the bundle's nodes under `namespace`.
pub fn in_namespace(namespace: &str) -> Options {
    Options {
        namespace: namespace.into(),
        ..Options::default()
    }
}
