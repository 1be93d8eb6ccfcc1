//! `link_monitor`: the vehicle's failsafe, last in its velocity chain (a thin shell over
//! [`fieldproof_link::monitor::LinkMonitor`]).
//!
//! Arms at the first heartbeat (`std_msgs/msg/Header` on `heartbeat_topic`, best effort);
//! after `timeout_s` of its clock (simulation time with `use_sim_time:=true`) without one
//! it publishes `link_state` false (`std_msgs/msg/Bool`, transient local, again once a
//! second) and zero velocity on `output` at 20 Hz, dropping the commands from `input`; at
//! the next heartbeat `link_state` true and the commands pass again.
//!
//! ```text
//! link_monitor --ros-args -r __ns:=/ugv1 -p timeout_s:=2.0 -p input:=cmd_vel_safe -p output:=cmd_vel
//! ```

use fieldproof_link::monitor::{LinkMonitor, Output, DEFAULT_TIMEOUT_S, ZERO_RATE_HZ};
use fieldproof_runtime::msgs::{geometry_msgs::Twist, std_msgs};
use fieldproof_runtime::{qos, tracing, NodeBuilder, Param};
use futures::FutureExt;

fn main() -> std::process::ExitCode {
    fieldproof_runtime::main(
        || {
            NodeBuilder::new("link_monitor")
                .param(
                    Param::double("timeout_s", DEFAULT_TIMEOUT_S)
                        .description("heartbeat timeout in the node's clock")
                        .range(0.1, 600.0)
                        .read_only(),
                )
                .param(
                    Param::string("heartbeat_topic", "gcs/heartbeat")
                        .description("std_msgs/msg/Header from the ground station")
                        .read_only(),
                )
                .param(
                    Param::string("input", "cmd_vel_safe")
                        .description("upstream velocity commands")
                        .read_only(),
                )
                .param(
                    Param::string("output", "cmd_vel")
                        .description("velocity commands to the base")
                        .read_only(),
                )
                .param(
                    Param::string("state_topic", "link_state")
                        .description("std_msgs/msg/Bool, transient local")
                        .read_only(),
                )
                .param(
                    Param::string("manifest", "")
                        .description(
                            "robot.yaml whose runtime.link sets timeout_s and heartbeat_topic",
                        )
                        .read_only(),
                )
        },
        |node| async move {
            let (mut timeout_s, mut hb_topic) = (
                node.param_f64("timeout_s"),
                node.param_str("heartbeat_topic"),
            );
            let manifest = node.param_str("manifest");
            if !manifest.is_empty() {
                let m = fieldproof_robots::Manifest::load(&manifest)
                    .map_err(|e| format!("manifest: {e}"))?;
                let link = m
                    .runtime
                    .and_then(|r| r.link)
                    .ok_or_else(|| format!("manifest: {manifest}: runtime.link: missing"))?;
                timeout_s = link.timeout_s;
                if let Some(h) = link.heartbeat {
                    hb_topic = h.topic;
                }
            }
            let hb =
                node.subscription::<std_msgs::Header>(&hb_topic, qos::sensor_data().keep_last(1))?;
            let input = node.subscription::<Twist>(&node.param_str("input"), qos::default())?;
            let output = node.publisher::<Twist>(&node.param_str("output"), qos::default())?;
            let state =
                node.publisher::<std_msgs::Bool>(&node.param_str("state_topic"), qos::latched())?;
            let clock = node.clock();
            let mut monitor = LinkMonitor::new(timeout_s);
            let mut timer = node.timer_hz(ZERO_RATE_HZ);
            tracing::info!(
                "watching {} (timeout {} s) between {} and {}",
                hb.topic(),
                timeout_s,
                input.topic(),
                output.topic()
            );
            let publish = |outs: Vec<Output>| -> Result<(), fieldproof_runtime::BoxError> {
                for o in outs {
                    match o {
                        Output::LinkState(v) => {
                            if v {
                                tracing::info!("link back: heartbeat received");
                            }
                            state.publish(std_msgs::Bool { data: v })?;
                        }
                        Output::Zero => output.publish(Twist::default())?,
                    }
                }
                Ok(())
            };
            loop {
                futures::select! {
                    m = hb.recv().fuse() => {
                        m?;
                        publish(monitor.heartbeat(clock.now_nanos()))?;
                    }
                    c = input.recv().fuse() => {
                        let cmd = c?;
                        let (pass, outs) = monitor.command(clock.now_nanos());
                        publish(outs)?;
                        if pass {
                            output.publish(cmd)?;
                        }
                    }
                    t = timer.tick().fuse() => {
                        let was_lost = monitor.lost();
                        let outs = monitor.tick(t);
                        if monitor.lost() && !was_lost {
                            tracing::warn!("link lost: no heartbeat for {} s; holding (zero velocity)", timeout_s);
                        }
                        publish(outs)?;
                    }
                }
            }
        },
    )
}
