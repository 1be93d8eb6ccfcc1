//! `command_relay`: the drive command on its way to the simulator (the vehicle publishes
//! `input`, the contract's `cmd_vel`; the relay republishes on the hidden topic the bridge
//! forwards), its speeds capped by `max_linear_mps` / `max_angular_radps` (0: no limit:
//! `actuator.limit`); `dropout`, `freeze`. A command with a NaN or infinite component is
//! replaced by zero and reported (Nav2's `validateTwist`): it never reaches the base.

use crate::adapters::command::{SpeedLimits, Verdict};
use crate::node::{injector_builder, run_pipeline};
use fieldproof_runtime::container::Component;
use fieldproof_runtime::logging::Throttle;
use fieldproof_runtime::msgs::geometry_msgs::Twist;
use fieldproof_runtime::{tracing, Param, ParamHandle, MALFORMED_LOG_PERIOD};

/// The node: its parameters and body (its binary runs it alone, `bundle_container` among
/// the bundle's other nodes).
pub fn node() -> Component {
    let (mut builder, injector) = injector_builder("command_relay");
    let max_linear: ParamHandle<f64> = builder.declare(
        Param::double("max_linear_mps", 0.0)
            .range(0.0, 1000.0)
            .description("fault actuator.limit: cap on the linear speed, m/s (0: no limit)"),
    );
    let max_angular: ParamHandle<f64> = builder.declare(
        Param::double("max_angular_radps", 0.0)
            .range(0.0, 1000.0)
            .description("fault actuator.limit: cap on the angular speed, rad/s (0: no limit)"),
    );
    Component::new(builder, |node| async move {
        let mut non_finite = Throttle::new(MALFORMED_LOG_PERIOD);
        let transform = move |twist: Twist| {
            let limits = SpeedLimits {
                max_linear_mps: max_linear.get(),
                max_angular_radps: max_angular.get(),
            };
            let verdict = limits.check(twist);
            if let Verdict::Zeroed(field, value) = verdict {
                if let Some(since) = non_finite.hit() {
                    tracing::warn!(
                        "command {field} = {value} is not finite: zero sent instead \
                             ({since} such commands since the last report, {} in all)",
                        non_finite.total()
                    );
                }
            }
            Some(verdict.command())
        };
        run_pipeline(&node, &injector, transform, node.shutdown_requested()).await
    })
}
