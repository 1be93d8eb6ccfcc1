//! Parameters of the run's nodes, set as `ros2 param set` does: the timeline's
//! `param.set` and fault events, and the release of the simulator, which the runner starts
//! paused so that no simulation time passes (no mission starts, no freshness clock runs)
//! while some forty processes discover each other on a loaded host; under
//! `--real-time-factor auto`, the simulator's pace.

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use fieldproof_runtime::{Node, ParamValue};
use futures::FutureExt;
use indicatif::ProgressBar;
use ros2_client::parameters::raw;
use ros2_client::rcl_interfaces::{SetParametersRequest, SetParametersResponse};

use super::say;
use crate::host::{Governor, PaceChange};
use crate::model::ParamSetting;
use crate::resources::Sampler;

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

/// `--real-time-factor auto`, at the end of a window: the simulator's `real_time_factor` set
/// to what the [`Governor`] makes of the window's wait per wake-up, and the change recorded.
pub(super) async fn pace_simulator(
    sampler: &mut Sampler,
    governor: &mut Governor,
    clients: &BTreeMap<String, ParamClient>,
    now_s: f64,
    bar: &ProgressBar,
    warnings: &mut Vec<String>,
) {
    let Some(meter) = sampler.host_meter() else {
        return;
    };
    let Some(delay_ms) = meter.window_delay_ms() else {
        return;
    };
    let before = governor.factor();
    let Some(factor) = governor.next(delay_ms) else {
        return;
    };
    let Some(client) = clients.get(SIMULATOR) else {
        return;
    };
    let setting = [("real_time_factor".to_string(), ParamSetting::Double(factor))];
    match set_params(client, SIMULATOR, &setting).await {
        Ok(_) => {
            say(
                bar,
                format!(
                    "--real-time-factor auto: {factor} at {now_s:.1} s (the run's threads waited {delay_ms:.2} ms for a CPU per wake-up, {:.2} ms of simulation time at {before})",
                    delay_ms * before
                ),
            );
            if let Some(meter) = sampler.host_meter() {
                meter.record_pace(PaceChange {
                    at_s: now_s,
                    real_time_factor: factor,
                    window_wakeup_delay_ms: delay_ms,
                });
            }
        }
        Err(e) => warnings.push(format!("--real-time-factor auto: {factor}: {e}")),
    }
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
