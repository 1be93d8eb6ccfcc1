//! A talker: publishes `std_msgs/String` on `chatter` at `rate_hz` (in ROS time, so it
//! follows `/clock` with `use_sim_time:=true`).
//!
//! ```text
//! talker --ros-args -r __node:=my_talker -r __ns:=/robot -p rate_hz:=5.0 -p message:=hi
//! ros2 param set /robot/my_talker message bye      # takes effect on the next message
//! ros2 param set /robot/my_talker rate_hz 5000.0   # rejected: out of range
//! ros2 param set /robot/my_talker style plain      # the message without its count
//! ros2 param set /robot/my_talker style loud       # rejected: not one of counted, plain
//! ```
use fieldproof_runtime::msgs::std_msgs;
use fieldproof_runtime::{qos, tracing, NodeBuilder, Param, ParamHandle};
use futures::FutureExt;

fn main() -> std::process::ExitCode {
    let mut builder = NodeBuilder::new("talker");
    let topic: ParamHandle<String> = builder.declare(
        Param::string("topic", "chatter")
            .description("topic to publish on")
            .read_only(),
    );
    let message: ParamHandle<String> =
        builder.declare(Param::string("message", "hello").description("text to publish"));
    let rate_hz: ParamHandle<f64> = builder.declare(
        Param::double("rate_hz", 2.0)
            .description("publishing rate in ROS time")
            .range(0.1, 1000.0),
    );
    let style: ParamHandle<String> = builder.declare(
        Param::string("style", "counted")
            .description("counted: the message and a count; plain: the message alone")
            .one_of(&["counted", "plain"]),
    );
    let enabled: ParamHandle<bool> =
        builder.declare(Param::bool("enabled", true).description("publish nothing while false"));
    let builder = builder.qos_params(qos::default());
    fieldproof_runtime::main(
        move || builder,
        |node| async move {
            let publisher =
                node.publisher::<std_msgs::String>(&topic.get(), node.qos_from_params())?;
            let rate_changes = rate_hz.changes();
            let mut hz = rate_hz.get();
            let mut count = 0u64;
            loop {
                let mut timer = node.timer_hz(hz);
                tracing::info!("publishing on {} at {hz} Hz", publisher.topic());
                loop {
                    futures::select! {
                        _ = FutureExt::fuse(timer.tick()) => {
                            if !enabled.get() {
                                continue;
                            }
                            count += 1;
                            let data = match style.get().as_str() {
                                "plain" => message.get(),
                                _ => format!("{} {count}", message.get()),
                            };
                            tracing::info!("Publishing: '{data}'");
                            publisher.publish(std_msgs::String { data })?;
                        }
                        v = rate_changes.recv().fuse() => {
                            if let Ok(new) = v {
                                hz = new; // a new timer at the new rate
                                break;
                            }
                        }
                    }
                }
            }
        },
    )
}
