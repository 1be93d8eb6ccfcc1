//! The six `rcl_interfaces` parameter services and the `/clock` follower, served by the
//! runtime for every node.

use futures::FutureExt;
use ros2_client::parameters::raw;
use ros2_client::rcl_interfaces::{
    DescribeParametersRequest, DescribeParametersResponse, GetParameterTypesRequest,
    GetParameterTypesResponse, GetParametersRequest, GetParametersResponse, ListParametersRequest,
    ListParametersResponse, ListParametersResult, SetParametersAtomicallyResponse,
    SetParametersRequest, SetParametersResponse,
};

use crate::msgs::rosgraph_msgs::Clock as ClockMsg;
use crate::node::{Node, NodeError};
use crate::qos;
use crate::value::ParamValue;

fn result(r: Result<(), String>) -> raw::SetParametersResult {
    match r {
        Ok(()) => raw::SetParametersResult {
            successful: true,
            reason: String::new(),
        },
        Err(reason) => raw::SetParametersResult {
            successful: false,
            reason,
        },
    }
}

/// Creates the six servers (under `~/`, DDS names `rq/<fqn>/<service>Request`) and
/// returns a future serving them all.
pub(crate) fn parameter_services(
    node: &Node,
) -> Result<impl std::future::Future<Output = ()> + Send + 'static, NodeError> {
    let pq = qos::parameters();
    let get = node.server_qos::<GetParametersRequest, GetParametersResponse>(
        "~/get_parameters",
        "rcl_interfaces/srv/GetParameters",
        pq,
    )?;
    let types = node.server_qos::<GetParameterTypesRequest, GetParameterTypesResponse>(
        "~/get_parameter_types",
        "rcl_interfaces/srv/GetParameterTypes",
        pq,
    )?;
    let set = node.server_qos::<SetParametersRequest, SetParametersResponse>(
        "~/set_parameters",
        "rcl_interfaces/srv/SetParameters",
        pq,
    )?;
    let atomic = node.server_qos::<SetParametersRequest, SetParametersAtomicallyResponse>(
        "~/set_parameters_atomically",
        "rcl_interfaces/srv/SetParametersAtomically",
        pq,
    )?;
    let list = node.server_qos::<ListParametersRequest, ListParametersResponse>(
        "~/list_parameters",
        "rcl_interfaces/srv/ListParameters",
        pq,
    )?;
    let describe = node.server_qos::<DescribeParametersRequest, DescribeParametersResponse>(
        "~/describe_parameters",
        "rcl_interfaces/srv/DescribeParameters",
        pq,
    )?;
    let n = node.clone();
    Ok(async move {
        let store = &n.inner.params;
        // As rclcpp: a request naming any undeclared parameter gets an empty answer.
        let declared = |names: &[String]| names.iter().all(|n| store.decl(n).is_some());
        let get_f = get.serve(|req| GetParametersResponse {
            values: if declared(&req.names) {
                req.names
                    .iter()
                    .filter_map(|name| store.get(name).map(|v| v.to_raw()))
                    .collect()
            } else {
                vec![]
            },
        });
        let types_f = types.serve(|req| GetParameterTypesResponse {
            values: if declared(&req.names) {
                req.names
                    .iter()
                    .filter_map(|name| store.get(name).map(|v| v.ptype() as u8))
                    .collect()
            } else {
                vec![]
            },
        });
        let set_f = set.serve(|req| {
            let mut changes = Vec::new();
            let results = req
                .parameter
                .iter()
                .map(|p| {
                    let r = store.set(&p.name, ParamValue::from_raw(&p.value).as_ref());
                    if let Err(reason) = &r {
                        tracing::warn!("set_parameters: {} rejected: {reason}", p.name);
                    }
                    result(r.map(|c| changes.push(c)))
                })
                .collect();
            if !changes.is_empty() {
                n.publish_changes(&changes);
            }
            SetParametersResponse { results }
        });
        let atomic_f = atomic.serve(|req| {
            let params: Vec<(String, Option<ParamValue>)> = req
                .parameter
                .iter()
                .map(|p| (p.name.clone(), ParamValue::from_raw(&p.value)))
                .collect();
            let r = store.set_atomically(&params).map(|changes| {
                n.publish_changes(&changes);
            });
            if let Err(reason) = &r {
                tracing::warn!("set_parameters_atomically rejected: {reason}");
            }
            SetParametersAtomicallyResponse { result: result(r) }
        });
        let list_f = list.serve(|req| {
            let r = store.list(&req.prefixes, req.depth);
            ListParametersResponse {
                result: ListParametersResult {
                    names: r.names,
                    prefixes: r.prefixes,
                },
            }
        });
        let describe_f = describe.serve(|req| DescribeParametersResponse {
            values: if declared(&req.names) {
                req.names
                    .iter()
                    .filter_map(|name| store.decl(name).map(|d| d.descriptor()))
                    .collect()
            } else {
                vec![]
            },
        });
        futures::join!(get_f, types_f, set_f, atomic_f, list_f, describe_f);
    })
}

/// Follows `/clock` (rclcpp's clock QoS) while `use_sim_time` is true; the subscription
/// exists only then, as with rclcpp's TimeSource. The nodes of one participant share it:
/// the first of them to follow subscribes and feeds their shared simulation time
/// ([`crate::clock::SimTime`]); another takes over when it stops following.
pub(crate) async fn clock_follower(node: Node) {
    let clock = node.clock();
    let sim = clock.sim_time().clone();
    loop {
        clock.wait_sim(true).await;
        // One node of the participant subscribes `/clock` for all of them; the others wait
        // until it stops following (its use_sim_time off, or the node gone) or they stop.
        let Some(_feeder) = sim.feed() else {
            futures::select! {
                _ = sim.wait_unfed().fuse() => {},
                _ = clock.wait_sim(false).fuse() => {},
            }
            continue;
        };
        let sub = match node.subscription::<ClockMsg>("/clock", qos::clock()) {
            Ok(s) => {
                tracing::info!("use_sim_time: following {}", s.topic());
                s
            }
            Err(e) => {
                tracing::error!("use_sim_time: cannot subscribe /clock: {e}");
                clock.wait_sim(false).await;
                continue;
            }
        };
        loop {
            futures::select! {
                m = sub.recv().fuse() => match m {
                    Ok(m) => clock.set_sim_time(m.clock),
                    Err(e) => tracing::warn!("{e}"),
                },
                _ = clock.wait_sim(false).fuse() => break,
            }
        }
        tracing::info!("use_sim_time off: system clock");
    }
}
