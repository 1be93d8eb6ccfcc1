//! `link_monitor`: the vehicle's failsafe, last in its velocity chain (the node over
//! [`crate::monitor::LinkMonitor`]; its binary runs it alone, `bundle_container --failsafe`
//! among the vehicle's bridge adapters).
//!
//! Arms at the first heartbeat (`std_msgs/msg/Header` on `heartbeat_topic`, with the
//! `heartbeat_qos_*` QoS: best effort, volatile, depth 1 by default); after `timeout_s` of
//! its clock (simulation time with `use_sim_time:=true`) without one it publishes
//! `link_state` false (`std_msgs/msg/Bool`, transient local, again once a second) and does
//! its `loss_action`: `stop` and `hold` send zero velocity on `output` at 20 Hz, `land` a
//! descent at `land_descent_mps`, dropping the commands from `input`; `continue` passes
//! them and only reports. At the next heartbeat `link_state` true and the commands pass
//! again. A command with a NaN or infinite component never reaches the base: zero goes
//! out in its place and it is reported (Nav2's `validateTwist`). A sample that does not
//! deserialize is skipped by the runtime; the failsafe keeps its state.
//!
//! Every setting is a declared parameter (what `ros2 param get` reports is what runs):
//!
//! ```text
//! link_monitor --ros-args -r __ns:=/ugv1 -p timeout_s:=2.0 -p loss_action:=stop -p input:=cmd_vel_safe -p output:=cmd_vel
//! ```

use crate::monitor::{
    LinkMonitor, LossAction, Output, DEFAULT_LAND_DESCENT_MPS, DEFAULT_TIMEOUT_S,
    MAX_LAND_DESCENT_MPS, ZERO_RATE_HZ,
};
use fieldproof_runtime::container::Component;
use fieldproof_runtime::logging::Throttle;
use fieldproof_runtime::msgs::{
    geometry_msgs::{Twist, Vector3},
    std_msgs,
};
use fieldproof_runtime::qos;
use fieldproof_runtime::{
    tracing, NodeBuilder, Param, ParamHandle, ParamValue, MALFORMED_LOG_PERIOD,
};
use futures::FutureExt;

/// The node: its declared parameters and body.
pub fn node() -> Component {
    let mut builder = NodeBuilder::new("link_monitor");
    let timeout_s: ParamHandle<f64> = builder.declare(
        Param::double("timeout_s", DEFAULT_TIMEOUT_S)
            .description("heartbeat timeout in the node's clock")
            .range(0.1, 600.0)
            .read_only(),
    );
    let heartbeat_topic: ParamHandle<String> = builder.declare(
        Param::string("heartbeat_topic", "gcs/heartbeat")
            .topic()
            .description("std_msgs/msg/Header from the ground station")
            .read_only(),
    );
    let heartbeat_qos_reliability: ParamHandle<String> = builder.declare(
        Param::string("heartbeat_qos_reliability", "best_effort")
            .one_of(&["best_effort", "reliable"])
            .description("reliability of the heartbeat subscription")
            .read_only(),
    );
    let heartbeat_qos_durability: ParamHandle<String> = builder.declare(
        Param::string("heartbeat_qos_durability", "volatile")
            .one_of(&["volatile", "transient_local"])
            .description("durability of the heartbeat subscription")
            .read_only(),
    );
    let heartbeat_qos_depth: ParamHandle<i64> = builder.declare(
        Param::int("heartbeat_qos_depth", 1)
            .description("history depth (keep last) of the heartbeat subscription")
            .range(1.0, 1000.0)
            .read_only(),
    );
    let loss_action: ParamHandle<String> = builder.declare(
        Param::string("loss_action", "stop")
            .description(
                "on loss of link: stop | hold (zero velocity), land (descent at \
                 land_descent_mps), continue (pass commands, only report)",
            )
            .one_of(&LossAction::CHOICES)
            .read_only()
            // Its refusals name the reason (return_home needs a stack), before the choices.
            .on_change(|value| match value {
                ParamValue::String(name) => {
                    LossAction::parse(name, DEFAULT_LAND_DESCENT_MPS).map(|_| ())
                }
                other => Err(format!("loss_action: {other} is not a string")),
            }),
    );
    let land_descent_mps: ParamHandle<f64> = builder.declare(
        Param::double("land_descent_mps", DEFAULT_LAND_DESCENT_MPS)
            .description("descent speed of loss_action land, m/s")
            .range(0.05, MAX_LAND_DESCENT_MPS)
            .read_only(),
    );
    let input: ParamHandle<String> = builder.declare(
        Param::string("input", "cmd_vel_safe")
            .topic()
            .description("upstream velocity commands")
            .read_only(),
    );
    let output: ParamHandle<String> = builder.declare(
        Param::string("output", "cmd_vel")
            .topic()
            .description("velocity commands to the base")
            .read_only(),
    );
    let state_topic: ParamHandle<String> = builder.declare(
        Param::string("state_topic", "link_state")
            .topic()
            .description("std_msgs/msg/Bool, transient local")
            .read_only(),
    );
    Component::new(builder, |node| async move {
        let timeout_s = timeout_s.get();
        let action = LossAction::parse(&loss_action.get(), land_descent_mps.get())?;
        let hb_qos = qos::sensor_data_named(
            &heartbeat_qos_reliability.get(),
            &heartbeat_qos_durability.get(),
            heartbeat_qos_depth.get(),
        );
        let hb = node.subscription::<std_msgs::Header>(&heartbeat_topic.get(), hb_qos)?;
        let input = node.subscription::<Twist>(&input.get(), qos::default())?;
        let output = node.publisher::<Twist>(&output.get(), qos::default())?;
        let state = node.publisher::<std_msgs::Bool>(&state_topic.get(), qos::latched())?;
        let clock = node.clock();
        let mut monitor = LinkMonitor::with_action(timeout_s, action);
        let mut timer = node.timer_hz(ZERO_RATE_HZ);
        let [x, y, z] = action.linear_velocity();
        let failsafe_command = Twist {
            linear: Vector3 { x, y, z },
            angular: Vector3::default(),
        };
        let mut non_finite = Throttle::new(MALFORMED_LOG_PERIOD);
        tracing::info!(
            "watching {} (timeout {} s, {:?}) between {} and {}; on loss: {:?}",
            hb.topic(),
            timeout_s,
            hb_qos.reliability,
            input.topic(),
            output.topic(),
            action
        );
        // A write that fails (a full window) is reported; the failsafe goes on.
        let publish = |outs: Vec<Output>| {
            for o in outs {
                let written = match o {
                    Output::LinkState(v) => {
                        if v {
                            tracing::info!("link back: heartbeat received");
                        }
                        state.publish(std_msgs::Bool { data: v })
                    }
                    Output::Failsafe => output.publish(failsafe_command),
                };
                if let Err(e) = written {
                    tracing::warn!("{e}");
                }
            }
        };
        loop {
            futures::select! {
                m = hb.recv().fuse() => {
                    m?;
                    publish(monitor.heartbeat(clock.now_nanos()));
                }
                c = input.recv().fuse() => {
                    let mut cmd = c?;
                    let (pass, outs) = monitor.command(clock.now_nanos());
                    publish(outs);
                    if let Some((field, value)) = cmd.non_finite_field() {
                        if let Some(since) = non_finite.hit() {
                            tracing::warn!(
                                "{}: {field} = {value} is not finite: zero sent instead \
                                 ({since} such commands since the last report, {} in all)",
                                input.topic(),
                                non_finite.total()
                            );
                        }
                        cmd = Twist::default();
                    }
                    if pass {
                        if let Err(e) = output.publish(cmd) {
                            tracing::warn!("{e}");
                        }
                    }
                }
                t = timer.tick().fuse() => {
                    let was_lost = monitor.lost();
                    let outs = monitor.tick(t);
                    if monitor.lost() && !was_lost {
                        tracing::warn!("link lost: no heartbeat for {} s; {:?}", timeout_s, action);
                    }
                    publish(outs);
                }
            }
        }
    })
}
