//! A listener: logs every `std_msgs/String` received on `chatter` (remap it with
//! `-r chatter:=/other`).
use fieldproof_runtime::msgs::std_msgs;
use fieldproof_runtime::{qos, tracing, NodeBuilder};

fn main() -> std::process::ExitCode {
    fieldproof_runtime::main(
        || NodeBuilder::new("listener").qos_params(qos::default()),
        |node| async move {
            let sub = node.subscription::<std_msgs::String>("chatter", node.qos_from_params())?;
            tracing::info!("listening on {}", sub.topic());
            loop {
                let msg = sub.recv().await?;
                tracing::info!("I heard: '{}'", msg.data);
            }
        },
    )
}
