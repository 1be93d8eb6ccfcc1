//! `battery`: a synthetic `sensor_msgs/BatteryState` from the manifest's `power.battery`,
//! published at `rate_hz` of the node's clock (simulation time): full until a drain
//! (`drain_to`, then `drain_duration_s`, which starts the ramp: `battery.drain`) makes it fall
//! linearly; `percentage` sets the state at once; `dropout`, `freeze`.

use fieldproof_runtime::container::Component;
use std::sync::{Arc, Mutex};

use crate::adapters::battery::{BatteryModel, BatterySpec};
use crate::faults::Injector;
use crate::node::{fault_switches, injector_builder};
use fieldproof_runtime::msgs::sensor_msgs::BatteryState;
use fieldproof_runtime::{tracing, Param, ParamHandle};

/// The node: its parameters and body (its binary runs it alone, `bundle_container` among
/// the bundle's other nodes).
pub fn node() -> Component {
    let (mut builder, injector) = injector_builder("battery");
    let rate_hz: ParamHandle<f64> = builder.declare(
        Param::double("rate_hz", 1.0)
            .range(0.01, 1000.0)
            .read_only()
            .description("publishing rate, Hz of the node's clock"),
    );
    let full_voltage_v: ParamHandle<f64> = builder.declare(
        Param::double("full_voltage_v", 25.2)
            .range(0.0, 1000.0)
            .read_only()
            .description("power.battery.full_voltage_v"),
    );
    let empty_voltage_v: ParamHandle<f64> = builder.declare(
        Param::double("empty_voltage_v", 19.8)
            .range(0.0, 1000.0)
            .read_only()
            .description("power.battery.empty_voltage_v"),
    );
    let capacity_ah: ParamHandle<f64> = builder.declare(
        Param::double("capacity_ah", 10.0)
            .range(0.0, 100_000.0)
            .read_only()
            .description("power.battery.capacity_ah"),
    );
    let frame_id: ParamHandle<String> = builder.declare(
        Param::string("frame_id", "base_link")
            .read_only()
            .description("power.battery.frame_id"),
    );
    let percentage: ParamHandle<f64> = builder.declare(
        Param::double("percentage", 1.0)
            .range(0.0, 1.0)
            .description("set the state of charge at once (0 to 1); cancels a drain"),
    );
    let drain_to: ParamHandle<f64> = builder.declare(
        Param::double("drain_to", 0.0)
            .range(0.0, 1.0)
            .description("battery.drain: target state of charge (0 to 1) of the next drain"),
    );
    let drain_duration_s: ParamHandle<f64> = builder.declare(
        Param::double("drain_duration_s", 0.0)
            .range(0.0, 1e6)
            .description(
            "battery.drain: setting it starts a linear drain to drain_to over this many seconds",
        ),
    );
    Component::new(builder, |node| async move {
        let spec = BatterySpec {
            full_voltage_v: full_voltage_v.get(),
            empty_voltage_v: empty_voltage_v.get(),
            capacity_ah: capacity_ah.get(),
            frame_id: frame_id.get(),
        };
        let model = Arc::new(Mutex::new(BatteryModel::new(spec)));
        let clock = node.clock();
        {
            let model = model.clone();
            percentage.follow(move |p| {
                model.lock().expect("not poisoned").set_percentage(*p);
            });
        }
        {
            let (model, clock) = (model.clone(), clock.clone());
            let initial_cell = std::sync::atomic::AtomicBool::new(true);
            drain_duration_s.follow(move |duration| {
                // Called once at startup with the configured value: a drain starts only when set.
                if initial_cell.swap(false, std::sync::atomic::Ordering::SeqCst) {
                    return;
                }
                let target = drain_to.get();
                tracing::info!("draining to {:.0} % over {duration} s", target * 100.0);
                model.lock().expect("not poisoned").start_drain(
                    clock.now_nanos(),
                    target,
                    *duration,
                );
            });
        }
        let out = node.publisher::<BatteryState>(&injector.output.get(), node.qos_from_params())?;
        let mut injector = Injector::new(fault_switches(&injector));
        let mut timer = node.timer_hz(rate_hz.get());
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
    })
}
