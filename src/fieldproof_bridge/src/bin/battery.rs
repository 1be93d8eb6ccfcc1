//! `battery`: a synthetic `sensor_msgs/BatteryState` from the manifest's `power.battery`,
//! published at `rate_hz` of the node's clock (simulation time): full until a drain
//! (`drain_to`, then `drain_duration_s`, which starts the ramp: `battery.drain`) makes it fall
//! linearly; `percentage` sets the state at once; `dropout`, `freeze`.

use std::sync::{Arc, Mutex};

use fieldproof_bridge::adapters::battery::{BatteryModel, BatterySpec};
use fieldproof_bridge::faults::Injector;
use fieldproof_bridge::node::{fault_switches, injector_builder};
use fieldproof_runtime::msgs::sensor_msgs::BatteryState;
use fieldproof_runtime::{tracing, Param, ParamValue};

fn main() -> std::process::ExitCode {
    fieldproof_runtime::main(
        || {
            injector_builder("battery")
                .param(Param::double("rate_hz", 1.0).range(0.01, 1000.0).read_only()
                    .description("publishing rate, Hz of the node's clock"))
                .param(Param::double("full_voltage_v", 25.2).range(0.0, 1000.0).read_only()
                    .description("power.battery.full_voltage_v"))
                .param(Param::double("empty_voltage_v", 19.8).range(0.0, 1000.0).read_only()
                    .description("power.battery.empty_voltage_v"))
                .param(Param::double("capacity_ah", 10.0).range(0.0, 100_000.0).read_only()
                    .description("power.battery.capacity_ah"))
                .param(Param::string("frame_id", "base_link").read_only()
                    .description("power.battery.frame_id"))
                .param(Param::double("percentage", 1.0).range(0.0, 1.0)
                    .description("set the state of charge at once (0 to 1); cancels a drain"))
                .param(Param::double("drain_to", 0.0).range(0.0, 1.0)
                    .description("battery.drain: target state of charge (0 to 1) of the next drain"))
                .param(Param::double("drain_duration_s", 0.0).range(0.0, 1e6)
                    .description("battery.drain: setting it starts a linear drain to drain_to over this many seconds"))
        },
        |node| async move {
            let spec = BatterySpec {
                full_voltage_v: node.param_f64("full_voltage_v"),
                empty_voltage_v: node.param_f64("empty_voltage_v"),
                capacity_ah: node.param_f64("capacity_ah"),
                frame_id: node.param_str("frame_id"),
            };
            let model = Arc::new(Mutex::new(BatteryModel::new(spec)));
            let clock = node.clock();
            {
                let model = model.clone();
                node.on_parameter_changed("percentage", move |v| {
                    if let ParamValue::Double(p) = v {
                        model.lock().expect("not poisoned").set_percentage(*p);
                    }
                });
            }
            {
                let (model, drain_to, clock) =
                    (model.clone(), node.watch_f64("drain_to"), clock.clone());
                let initial_cell = std::sync::atomic::AtomicBool::new(true);
                node.on_parameter_changed("drain_duration_s", move |v| {
                    // Called once at startup with the configured value: a drain starts only when set.
                    if initial_cell.swap(false, std::sync::atomic::Ordering::SeqCst) {
                        return;
                    }
                    if let ParamValue::Double(duration) = v {
                        let target = drain_to.get();
                        tracing::info!("draining to {:.0} % over {duration} s", target * 100.0);
                        model.lock().expect("not poisoned").start_drain(
                            clock.now_nanos(),
                            target,
                            *duration,
                        );
                    }
                });
            }
            let out =
                node.publisher::<BatteryState>(&node.param_str("output"), node.qos_from_params())?;
            let mut injector = Injector::new(fault_switches(&node));
            let mut timer = node.timer_hz(node.param_f64("rate_hz"));
            loop {
                futures::select! {
                    now = futures::FutureExt::fuse(timer.tick()) => {
                        let mut msg = model.lock().expect("not poisoned").state_at(now);
                        msg.header.stamp = node.now();
                        if let Some(msg) = injector.process(msg) {
                            if let Err(e) = out.publish(msg) {
                                tracing::warn!("publishing on '{}': {e}", out.topic());
                            }
                        }
                    }
                    () = futures::FutureExt::fuse(node.shutdown_requested()) => return Ok(()),
                }
            }
        },
    )
}
