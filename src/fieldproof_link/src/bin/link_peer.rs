//! `link_peer`: a small DDS peer of the link nodes, for tests and for poking at a run
//! without ROS 2 installed (run it inside the run's namespaces). Prints JSON lines.
//!
//! - `link_peer command <text>`: publishes `<text>` on `/link_shaper/command` once the
//!   shaper subscribes, prints the reply from `/link_shaper/result` and ends.
//! - `link_peer watch <ns>`: subscribes `<ns>/link_state` and `<ns>/cmd_vel`, publishes
//!   `<ns>/cmd_vel_safe` (linear.x = 1) at 10 Hz; prints `{"t", "link_state"}` and
//!   `{"t", "cmd_x"}` lines (t: wall clock, s) until stopped.
//! - `link_peer sim <ns> <on_s> <off_s> <speed>`: a simulator and a ground station in one:
//!   publishes `/clock` (100 Hz, simulation time running at `speed` × the wall clock) and
//!   `<ns>/gcs/heartbeat` at 2 Hz except between `on_s` and `on_s + off_s` (wall seconds
//!   from its start), publishes `<ns>/cmd_vel_safe` (x = 1) at 10 Hz and prints what it
//!   sees with the simulation time (`sim`, s); ends 5 s after the pause.

use fieldproof_runtime::msgs::{
    builtin_interfaces::Time, geometry_msgs::Twist, rosgraph_msgs::Clock, std_msgs,
};
use fieldproof_runtime::{qos, NodeBuilder};
use futures::FutureExt;
use std::io::Write;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

fn now() -> f64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs_f64())
        .unwrap_or(0.0)
}

fn out(v: serde_json::Value) {
    let mut o = std::io::stdout().lock();
    let _ = writeln!(o, "{v}");
    let _ = o.flush();
}

fn main() -> std::process::ExitCode {
    fieldproof_runtime::main(
        || NodeBuilder::new("link_peer"),
        |node| async move {
            let args = node.args().to_vec();
            match args
                .iter()
                .map(String::as_str)
                .collect::<Vec<_>>()
                .as_slice()
            {
                [_, "command", text @ ..] => {
                    let text = text.join(" ");
                    let result = node
                        .subscription::<std_msgs::String>("/link_shaper/result", qos::default())?;
                    let p =
                        node.publisher::<std_msgs::String>("/link_shaper/command", qos::default())?;
                    p.wait_for_subscriptions(1).await;
                    result.wait_for_publishers(1).await;
                    smol::Timer::after(Duration::from_millis(300)).await;
                    p.publish(std_msgs::String { data: text })?;
                    let r = result.recv().await?;
                    out(serde_json::from_str(&r.data)?);
                    Ok(())
                }
                [_, "watch", ns] => {
                    let state = node.subscription::<std_msgs::Bool>(
                        &format!("{ns}/link_state"),
                        qos::latched(),
                    )?;
                    let cmd =
                        node.subscription::<Twist>(&format!("{ns}/cmd_vel"), qos::default())?;
                    let up =
                        node.publisher::<Twist>(&format!("{ns}/cmd_vel_safe"), qos::default())?;
                    let mut tick = smol::Timer::interval(Duration::from_millis(100));
                    let mut forward = Twist::default();
                    forward.linear.x = 1.0;
                    loop {
                        futures::select! {
                            s = state.recv().fuse() => out(serde_json::json!({"t": now(), "link_state": s?.data})),
                            c = cmd.recv().fuse() => out(serde_json::json!({"t": now(), "cmd_x": c?.linear.x})),
                            _ = futures::StreamExt::next(&mut tick).fuse() => up.publish(forward)?,
                        }
                    }
                }
                [_, "sim", ns, on, off, speed] => {
                    let (on, off, speed): (f64, f64, f64) = (on.parse()?, off.parse()?, speed.parse()?);
                    let clock = node.publisher::<Clock>("/clock", qos::clock())?;
                    let hb = node.publisher::<std_msgs::Header>(&format!("{ns}/gcs/heartbeat"), qos::sensor_data().keep_last(1))?;
                    let state = node.subscription::<std_msgs::Bool>(&format!("{ns}/link_state"), qos::latched())?;
                    let cmd = node.subscription::<Twist>(&format!("{ns}/cmd_vel"), qos::default())?;
                    let up = node.publisher::<Twist>(&format!("{ns}/cmd_vel_safe"), qos::default())?;
                    let start = std::time::Instant::now();
                    let sim0 = 1000.0;
                    let sim = move || sim0 + start.elapsed().as_secs_f64() * speed;
                    let mut clock_tick = smol::Timer::interval(Duration::from_millis(10));
                    let mut hb_tick = smol::Timer::interval(Duration::from_millis(500));
                    let mut cmd_tick = smol::Timer::interval(Duration::from_millis(100));
                    let mut forward = Twist::default();
                    forward.linear.x = 1.0;
                    loop {
                        let e = start.elapsed().as_secs_f64();
                        if e > on + off + 5.0 {
                            return Ok(());
                        }
                        futures::select! {
                            _ = futures::StreamExt::next(&mut clock_tick).fuse() => {
                                clock.publish(Clock { clock: Time::from_secs_f64(sim()) })?;
                            }
                            _ = futures::StreamExt::next(&mut hb_tick).fuse() => {
                                if e < on || e > on + off {
                                    hb.publish(std_msgs::Header { stamp: Time::from_secs_f64(now()), frame_id: "ground".into() })?;
                                    out(serde_json::json!({"sim": sim(), "heartbeat": true}));
                                }
                            }
                            _ = futures::StreamExt::next(&mut cmd_tick).fuse() => up.publish(forward)?,
                            s = state.recv().fuse() => out(serde_json::json!({"sim": sim(), "link_state": s?.data})),
                            c = cmd.recv().fuse() => out(serde_json::json!({"sim": sim(), "cmd_x": c?.linear.x})),
                        }
                    }
                }
                other => Err(format!(
                    "usage: link_peer command <text> | link_peer watch <ns> | link_peer sim <ns> <on_s> <off_s> <speed> (got {other:?})"
                )
                .into()),
            }
        },
    )
}
