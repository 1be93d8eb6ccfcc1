//! What every adapter node shares: the parameters every injector takes (`input`, `output`,
//! `qos_reliability`, `qos_durability`, `qos_depth`, `input_qos_reliability`, `dropout`,
//! `freeze`), and the pipeline loop: receive on `input`, apply the adapter's transform, then
//! the fault [`Injector`], publish on `output`.

use std::sync::Arc;

use fieldproof_runtime::msgs::RosMessage;
use fieldproof_runtime::{qos, tracing, Node, NodeBuilder, NodeResult, Param, ParamValue};
use futures::StreamExt;

use crate::faults::{FaultSwitches, Injector};

/// A node builder with the parameters every injector declares, for an adapter whose
/// contract QoS defaults to ROS 2's default profile.
pub fn injector_builder(default_name: &str) -> NodeBuilder {
    NodeBuilder::new(default_name)
        .param(
            Param::string("input", "input")
                .description("topic the adapter reads (the bridge's hidden topic)")
                .topic()
                .read_only(),
        )
        .param(
            Param::string("output", "output")
                .description("topic the adapter publishes (the contract topic)")
                .topic()
                .read_only(),
        )
        .param(
            Param::string("input_qos_reliability", "reliable")
                .description("reliability of the input subscription: reliable | best_effort")
                .constraints("reliable | best_effort")
                .read_only()
                .on_change(|v| reliability_of(v).map(|_| ())),
        )
        .param(
            Param::bool("dropout", false)
                .description("fault: publish nothing while true (the sensor is silent)"),
        )
        .param(Param::bool("freeze", false).description(
            "fault: repeat the last message as it was, stamp included, at the input's rate (the sensor hangs)",
        ))
        .qos_params(qos::default())
}

fn reliability_of(v: &ParamValue) -> Result<bool, String> {
    match v {
        ParamValue::String(s) if s == "reliable" => Ok(true),
        ParamValue::String(s) if s == "best_effort" => Ok(false),
        // `other` displays quoted already ('sometimes').
        other => Err(format!(
            "input_qos_reliability: {other} is not one of reliable, best_effort"
        )),
    }
}

/// The fault switches of a node, kept in step with its `dropout` and `freeze` parameters.
pub fn fault_switches(node: &Node) -> Arc<FaultSwitches> {
    let switches = FaultSwitches::new(node.param_bool("dropout"), node.param_bool("freeze"));
    let s = switches.clone();
    node.on_parameter_changed("dropout", move |v| {
        if let ParamValue::Bool(on) = v {
            s.set_dropout(*on);
        }
    });
    let s = switches.clone();
    node.on_parameter_changed("freeze", move |v| {
        if let ParamValue::Bool(on) = v {
            s.set_freeze(*on);
        }
    });
    switches
}

/// Runs the adapter pipeline for message type `T` until `until` resolves: every message on
/// `input` goes through `transform` (which may drop it by returning `None`), then the fault
/// injector, then out on `output` with the QoS of the `qos_*` parameters. A sample that
/// cannot be read (malformed, wrong type) is logged and skipped.
pub async fn run_pipeline<T: RosMessage>(
    node: &Node,
    mut transform: impl FnMut(T) -> Option<T>,
    until: impl std::future::Future<Output = ()>,
) -> NodeResult {
    let input_qos =
        match reliability_of(&ParamValue::String(node.param_str("input_qos_reliability")))? {
            true => qos::default(),
            false => qos::default().best_effort(),
        }
        .keep_last(node.param_int("qos_depth").max(1) as usize);
    let sub = node.subscription::<T>(&node.param_str("input"), input_qos)?;
    let out = node.publisher::<T>(&node.param_str("output"), node.qos_from_params())?;
    tracing::info!(
        "{}: {} -> {} ({:?})",
        T::TYPE_NAME,
        sub.topic(),
        out.topic(),
        node.qos_from_params()
    );
    let mut injector = Injector::new(fault_switches(node));
    let mut messages = std::pin::pin!(sub.stream().fuse());
    let mut until = std::pin::pin!(futures::FutureExt::fuse(until));
    loop {
        futures::select! {
            msg = messages.next() => {
                let Some(msg) = msg else { return Ok(()) };
                if let Some(msg) = transform(msg).and_then(|m| injector.process(m)) {
                    if let Err(e) = out.publish(msg) {
                        tracing::warn!("publishing on '{}': {e}", out.topic());
                    }
                }
            }
            () = until => return Ok(()),
        }
    }
}

/// A 3-component parameter (`[x, y, z]`), validated to have three numbers.
pub fn vector3_param(name: &str, description: &str) -> Param {
    let field = name.to_string();
    Param::doubles(name, &[0.0, 0.0, 0.0])
        .description(description)
        .constraints("three numbers: [x, y, z]")
        .on_change(move |v| match v {
            ParamValue::DoubleArray(xs) if xs.len() == 3 && xs.iter().all(|x| x.is_finite()) => {
                Ok(())
            }
            other => Err(format!(
                "{field}: {other} is not three finite numbers [x, y, z]"
            )),
        })
}

/// The current value of a [`vector3_param`], kept in step with the parameter.
pub fn watch_vector3(node: &Node, name: &str) -> Arc<std::sync::RwLock<[f64; 3]>> {
    let cell = Arc::new(std::sync::RwLock::new([0.0; 3]));
    let c = cell.clone();
    node.on_parameter_changed(name, move |v| {
        if let ParamValue::DoubleArray(xs) = v {
            if let [x, y, z] = xs[..] {
                *c.write().expect("not poisoned") = [x, y, z];
            }
        }
    });
    cell
}
