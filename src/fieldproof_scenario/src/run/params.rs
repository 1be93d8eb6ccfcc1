//! Parameters of the run's nodes, set as `ros2 param set` does: the timeline's
//! `param.set` and fault events, and the release of the simulator, which the runner starts
//! paused so that no simulation time passes (no mission starts, no freshness clock runs)
//! while some forty processes discover each other on a loaded host.

use std::time::{Duration, Instant};

use fieldproof_runtime::{Node, ParamValue};
use futures::FutureExt;
use ros2_client::parameters::raw;
use ros2_client::rcl_interfaces::{SetParametersRequest, SetParametersResponse};

use crate::model::ParamSetting;

/// A parameter setting as `rcl_interfaces` carries it (through the runtime's
/// [`ParamValue::to_raw`], so the wire value is built in one place).
pub(super) fn raw_value(p: &ParamSetting) -> raw::ParameterValue {
    let value = match p {
        ParamSetting::Bool(b) => ParamValue::Bool(*b),
        ParamSetting::Double(d) => ParamValue::Double(*d),
        ParamSetting::Doubles(d) => ParamValue::DoubleArray(d.clone()),
    };
    value.to_raw()
}

/// A parameter setting as the timeline reports it.
fn describe_setting(p: &ParamSetting) -> String {
    match p {
        ParamSetting::Bool(b) => b.to_string(),
        ParamSetting::Double(d) => d.to_string(),
        ParamSetting::Doubles(d) => format!("{d:?}"),
    }
}

/// Sets parameters through the node's `~/set_parameters` service, as `ros2 param set` does.
pub(super) type ParamClient =
    fieldproof_runtime::Client<SetParametersRequest, SetParametersResponse>;

/// The `~/set_parameters` client of a node (made during the bring-up, so it has matched
/// the service before the timeline needs it).
pub(super) fn param_client(node: &Node, fqn: &str) -> Result<ParamClient, String> {
    node.client::<SetParametersRequest, SetParametersResponse>(
        &format!("{fqn}/set_parameters"),
        "rcl_interfaces/srv/SetParameters",
    )
    .map_err(|e| format!("{fqn}/set_parameters: {e}"))
}

/// Sets `params` on the node `fqn`; what was set, or the first refusal.
pub(super) async fn set_params(
    client: &ParamClient,
    fqn: &str,
    params: &[(String, ParamSetting)],
) -> Result<String, String> {
    let req = SetParametersRequest {
        parameter: params
            .iter()
            .map(|(n, v)| raw::Parameter {
                name: n.clone(),
                value: raw_value(v),
            })
            .collect(),
    };
    let resp = client
        .call_retry(req, Duration::from_millis(500), 6)
        .await
        .map_err(|e| format!("{fqn}/set_parameters: {e}"))?;
    let mut done = Vec::new();
    for ((n, v), r) in params.iter().zip(&resp.results) {
        if !r.successful {
            return Err(format!("{fqn}: {n} refused: {}", r.reason));
        }
        done.push(format!("{n}={}", describe_setting(v)));
    }
    if resp.results.len() != params.len() {
        return Err(format!(
            "{fqn}: {} results for {} parameters",
            resp.results.len(),
            params.len()
        ));
    }
    Ok(format!("set {fqn} {}", done.join(" ")))
}

/// The simulator's fully qualified node name.
pub(super) const SIMULATOR: &str = "/fieldproof_sim";

/// Releases the simulator the plan started paused (`paused:=false`), then waits until
/// the runner's clock has moved past zero, up to `deadline`. The error names what failed.
pub(super) async fn release_simulator(
    node: &Node,
    client: &ParamClient,
    deadline: Instant,
) -> Result<(), String> {
    set_params(
        client,
        SIMULATOR,
        &[("paused".into(), ParamSetting::Bool(false))],
    )
    .await?;
    // The first `/clock` sample past zero ends the wait (no polling).
    let clock = node.clock();
    let started = clock.sleep_until_nanos(1).fuse();
    let late = FutureExt::fuse(smol::Timer::at(deadline));
    futures::pin_mut!(started, late);
    futures::select! {
        _ = started => {}
        _ = late => {
            return Err(format!(
                "not ready in time: simulator (/clock did not start after {SIMULATOR} was \
                 released)"
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parameter_values_carry_their_type() {
        let v = raw_value(&ParamSetting::Bool(true));
        assert_eq!((v.ptype, v.boolean_value), (raw::ParameterType::BOOL, true));
        let v = raw_value(&ParamSetting::Doubles(vec![0.0, 0.0, 0.05]));
        assert_eq!(v.ptype, raw::ParameterType::DOUBLE_ARRAY);
        assert_eq!(v.double_array, vec![0.0, 0.0, 0.05]);
        let v = raw_value(&ParamSetting::Double(0.3));
        assert_eq!((v.ptype, v.double_value), (raw::ParameterType::DOUBLE, 0.3));
    }
}
