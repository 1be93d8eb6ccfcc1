//! `relay`: republishes `input` on `output` with the declared QoS, for any injectable type
//! (`ros_type`), optionally relabelling `header.frame_id` (`ros_frame_id`); a fault injector
//! (`dropout`, `freeze`).
//!
//! `ros_type` may be changed at run time (the relay re-subscribes); an unknown type is logged
//! and the node keeps running, relaying nothing, until a known one is set.

use crate::node::{injector_builder, run_pipeline, InjectorParams};
use fieldproof_runtime::container::Component;
use fieldproof_runtime::msgs::{dispatch, MaybeStamped, MessageKind, RosMessage};
use fieldproof_runtime::{tracing, Node, NodeResult, Param, ParamHandle, ParamValue};
use futures::StreamExt;

/// The node: its parameters and body (its binary runs it alone, `bundle_container` among
/// the bundle's other nodes).
pub fn node() -> Component {
    let (mut builder, injector) = injector_builder("relay");
    // Checked at run time only (see `relay`): an unknown type at start-up is logged and the
    // relay waits for a known one.
    let ros_type = builder.declare(
        Param::string("ros_type", "")
            .description("ROS type of input and output, e.g. sensor_msgs/msg/LaserScan"),
    );
    let ros_frame_id = builder.declare(
        Param::string("ros_frame_id", "")
            .description("relabel header.frame_id to this (empty: keep the input's)")
            .read_only(),
    );
    Component::new(builder, |node| async move {
        relay(&node, &injector, &ros_type, &ros_frame_id).await
    })
}

async fn relay(
    node: &Node,
    injector: &InjectorParams,
    ros_type_param: &ParamHandle<String>,
    ros_frame_id: &ParamHandle<String>,
) -> NodeResult {
    node.on_set_parameter(|name, v| match (name, v) {
        ("ros_type", ParamValue::String(t)) => MessageKind::from_name(t)
            .map(|_| ())
            .map_err(|e| e.to_string()),
        ("ros_type", _) => Err("ros_type: not a string".into()),
        _ => Ok(()),
    });
    let (changed_tx, mut changed_rx) = futures::channel::mpsc::unbounded::<()>();
    ros_type_param.follow(move |_| {
        let _ = changed_tx.unbounded_send(());
    });
    let frame = ros_frame_id.get();
    loop {
        // Drain the notifications that led here, then run until the next change.
        while changed_rx.try_recv().is_ok() {}
        let ros_type = ros_type_param.get();
        let type_changed = async {
            changed_rx.next().await;
        };
        match dispatch!(ros_type, |T| run_pipeline::<T>(
            node,
            injector,
            relabel::<T>(&frame),
            type_changed
        )
        .await)
        {
            Ok(result) => result?,
            Err(e) => {
                tracing::error!(
                    "ros_type '{ros_type}': {e}; relaying nothing until a known type is set"
                );
                changed_rx.next().await;
            }
        }
        if node.is_shutting_down() {
            return Ok(());
        }
    }
}

/// The relay's transform: the frame relabelled if asked, the message otherwise as it came.
fn relabel<T: RosMessage + MaybeStamped>(frame: &str) -> impl FnMut(T) -> Option<T> + '_ {
    move |mut msg: T| {
        if !frame.is_empty() {
            if let Some(header) = msg.maybe_header_mut() {
                header.frame_id = frame.to_string();
            }
        }
        Some(msg)
    }
}
