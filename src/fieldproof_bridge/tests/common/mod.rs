//! What the bridge's integration tests share (each test file is its own crate and uses part
//! of it).
#![allow(dead_code)]

use std::path::{Path, PathBuf};

use std::time::Duration;

use fieldproof_bridge::gen::{self, Options};
use fieldproof_runtime::value::set_parameters_request;
use fieldproof_runtime::{Node, NodeError, ParamValue};
use fieldproof_testkit::repo_root;
use ros2_client::rcl_interfaces::{SetParametersRequest, SetParametersResponse};

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

/// Sets `name` to `value` on the node `fqn` through its `set_parameters` service (the call
/// retried, 1 s each, while the service is discovered); the node's answer: whether it took
/// the value, and why not.
pub async fn set_parameter(
    node: &Node,
    fqn: &str,
    name: &str,
    value: ParamValue,
) -> Result<(bool, String), NodeError> {
    let client = node.client::<SetParametersRequest, SetParametersResponse>(
        &format!("{fqn}/set_parameters"),
        "rcl_interfaces/srv/SetParameters",
    )?;
    let response = client
        .call_retry(
            set_parameters_request([(name, value)]),
            Duration::from_secs(1),
            20,
        )
        .await?;
    let result = response
        .results
        .into_iter()
        .next()
        .ok_or_else(|| NodeError::Read {
            topic: format!("{fqn}/set_parameters"),
            reason: "an answer without a result".into(),
        })?;
    Ok((result.successful, result.reason))
}
