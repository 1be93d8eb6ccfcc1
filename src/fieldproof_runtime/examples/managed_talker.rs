//! A managed (lifecycle) talker: publishes `std_msgs/String` "<message> <n>" on `chatter`
//! at 5 Hz, only while ACTIVE (as an rclcpp_lifecycle publisher does). Starts unconfigured
//! unless `autostart` is true; `fail_configure:=true` makes `on_configure` fail.
//!
//! ```text
//! managed_talker --ros-args -r __node:=lc
//! ros2 lifecycle set /lc configure && ros2 lifecycle set /lc activate
//! ros2 lifecycle get /lc      # active [3]
//! ```
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use fieldproof_runtime::lifecycle::{self, CallbackReturn, Callbacks};
use fieldproof_runtime::msgs::{lifecycle_msgs::State, std_msgs};
use fieldproof_runtime::{qos, tracing, NodeBuilder, Param, ParamHandle};
use futures::FutureExt;

/// Counts its configurations and fails them on request.
struct Talker {
    fail_configure: bool,
    configured: Arc<AtomicBool>,
}

impl Callbacks for Talker {
    fn on_configure(&mut self, _previous: &State) -> CallbackReturn {
        if self.fail_configure {
            tracing::warn!("on_configure: failing as asked (fail_configure)");
            return CallbackReturn::Failure;
        }
        self.configured.store(true, Ordering::Release);
        CallbackReturn::Success
    }
    fn on_cleanup(&mut self, _previous: &State) -> CallbackReturn {
        self.configured.store(false, Ordering::Release);
        CallbackReturn::Success
    }
}

fn main() -> std::process::ExitCode {
    let mut builder = NodeBuilder::new("managed_talker");
    let message: ParamHandle<String> =
        builder.declare(Param::string("message", "hello").description("text to publish"));
    let autostart: ParamHandle<bool> = builder.declare(
        Param::bool("autostart", false)
            .description("configure and activate at start")
            .read_only(),
    );
    let fail_configure: ParamHandle<bool> = builder.declare(
        Param::bool("fail_configure", false)
            .description("on_configure fails (for tests)")
            .read_only(),
    );
    fieldproof_runtime::main(
        move || builder,
        |node| async move {
            let managed = node.managed(Talker {
                fail_configure: fail_configure.get(),
                configured: Arc::new(AtomicBool::new(false)),
            })?;
            if autostart.get() {
                managed.autostart()?;
            }
            let publisher = node.publisher::<std_msgs::String>("chatter", qos::default())?;
            let mut timer = node.timer_hz(5.0);
            let mut count = 0u64;
            loop {
                futures::select! {
                    _ = timer.tick().fuse() => {
                        if managed.state().id == lifecycle::PRIMARY_STATE_ACTIVE {
                            count += 1;
                            publisher.publish(std_msgs::String { data: format!("{} {count}", message.get()) })?;
                        }
                    }
                    _ = managed.finalized().fuse() => {
                        tracing::info!("finalized, exiting");
                        return Ok(());
                    }
                }
            }
        },
    )
}
