//! What every adapter node shares: the parameters every injector takes (`input`, `output`,
//! `qos_reliability`, `qos_durability`, `qos_depth`, `input_qos_reliability`, `dropout`,
//! `freeze`), and the pipeline loop: receive on `input`, apply the adapter's transform, then
//! the fault [`Injector`], publish on `output`.

use std::sync::Arc;

use fieldproof_runtime::msgs::RosMessage;
use fieldproof_runtime::{
    qos, tracing, Node, NodeBuilder, NodeResult, Param, ParamHandle, ParamValue,
};
use futures::StreamExt;

use crate::faults::{FaultSwitches, Injector};

/// The handles of the parameters every injector declares ([`injector_builder`]).
#[derive(Clone)]
pub struct InjectorParams {
    /// `input`: the topic the adapter reads.
    pub input: ParamHandle<String>,
    /// `output`: the topic the adapter publishes.
    pub output: ParamHandle<String>,
    /// `input_qos_reliability`: `reliable` or `best_effort`.
    pub input_qos_reliability: ParamHandle<String>,
    /// `dropout`: publish nothing while true.
    pub dropout: ParamHandle<bool>,
    /// `freeze`: repeat the last message while true.
    pub freeze: ParamHandle<bool>,
}

/// A node builder with the parameters every injector declares, for an adapter whose
/// contract QoS defaults to ROS 2's default profile, and their handles.
pub fn injector_builder(default_name: &str) -> (NodeBuilder, InjectorParams) {
    let mut builder = NodeBuilder::new(default_name);
    let params = InjectorParams {
        input: builder.declare(
            Param::string("input", "input")
                .description("topic the adapter reads (the bridge's hidden topic)")
                .topic()
                .read_only(),
        ),
        output: builder.declare(
            Param::string("output", "output")
                .description("topic the adapter publishes (the contract topic)")
                .topic()
                .read_only(),
        ),
        input_qos_reliability: builder.declare(
            Param::string("input_qos_reliability", "reliable")
                .description("reliability of the input subscription: reliable | best_effort")
                .one_of(&["reliable", "best_effort"])
                .read_only(),
        ),
        dropout: builder.declare(
            Param::bool("dropout", false)
                .description("fault: publish nothing while true (the sensor is silent)"),
        ),
        freeze: builder.declare(Param::bool("freeze", false).description(
            "fault: repeat the last message as it was, stamp included, at the input's rate (the sensor hangs)",
        )),
    };
    (builder.qos_params(qos::default()), params)
}

/// The fault switches of a node, kept in step with its `dropout` and `freeze` parameters.
pub fn fault_switches(params: &InjectorParams) -> Arc<FaultSwitches> {
    let switches = FaultSwitches::new(params.dropout.get(), params.freeze.get());
    let s = switches.clone();
    params.dropout.follow(move |on| s.set_dropout(*on));
    let s = switches.clone();
    params.freeze.follow(move |on| s.set_freeze(*on));
    switches
}

/// Runs the adapter pipeline for message type `T` until `until` resolves: every message on
/// `input` goes through `transform` (which may drop it by returning `None`), then the fault
/// injector, then out on `output` with the QoS of the `qos_*` parameters. A sample that
/// cannot be read (malformed, wrong type) is logged and skipped.
pub async fn run_pipeline<T: RosMessage>(
    node: &Node,
    params: &InjectorParams,
    mut transform: impl FnMut(T) -> Option<T>,
    until: impl std::future::Future<Output = ()>,
) -> NodeResult {
    let input_qos = match params.input_qos_reliability.get().as_str() {
        "best_effort" => qos::default().best_effort(),
        _ => qos::default(),
    }
    .keep_last(node.param_as::<i64>("qos_depth")?.max(1) as usize);
    let sub = node.subscription::<T>(&params.input.get(), input_qos)?;
    let out = node.publisher::<T>(&params.output.get(), node.qos_from_params())?;
    tracing::info!(
        "{}: {} -> {} ({:?})",
        T::TYPE_NAME,
        sub.topic(),
        out.topic(),
        node.qos_from_params()
    );
    let mut injector = Injector::new(fault_switches(params));
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
pub fn follow_vector3(param: &ParamHandle<Vec<f64>>) -> Arc<std::sync::RwLock<[f64; 3]>> {
    let cell = Arc::new(std::sync::RwLock::new([0.0; 3]));
    let c = cell.clone();
    param.follow(move |xs| {
        if let [x, y, z] = xs[..] {
            *c.write().expect("not poisoned") = [x, y, z];
        }
    });
    cell
}
