//! `throttle`: passes one message per period judged by the header stamps (simulation time),
//! for interfaces Gazebo publishes faster than a real driver (joint states every physics step,
//! 1 kHz → the manifest's 50 Hz); `dropout`, `freeze`.

use crate::adapters::throttle::StampThrottle;
use crate::node::{injector_builder, run_pipeline, InjectorParams};
use fieldproof_runtime::container::Component;
use fieldproof_runtime::msgs::{dispatch_stamped, MessageKind, Stamped};
use fieldproof_runtime::{tracing, Node, NodeResult, Param, ParamHandle, ParamValue};

/// The node: its parameters and body (its binary runs it alone, `bundle_container` among
/// the bundle's other nodes).
pub fn node() -> Component {
    let (mut builder, injector) = injector_builder("throttle");
    let settings = ThrottleParams {
        ros_type: builder.declare(
            Param::string("ros_type", "sensor_msgs/msg/JointState")
                .read_only()
                .description("ROS type of input and output; must carry a header")
                .on_change(|v| match v {
                    ParamValue::String(t) => MessageKind::from_name(t)
                        .map(|_| ())
                        .map_err(|e| e.to_string()),
                    _ => Err("ros_type: not a string".into()),
                }),
        ),
        rate_hz: builder.declare(
            Param::double("rate_hz", 50.0)
                .range(0.001, 100_000.0)
                .read_only()
                .description("rate to pass, Hz (by header stamps)"),
        ),
        gz_rate: builder.declare(
            Param::double("gz_rate", 0.0)
                .range(0.0, 100_000.0)
                .read_only()
                .description("rate the input is published at, Hz (0: unknown)"),
        ),
    };
    Component::new(builder, |node| async move {
        throttle(&node, &injector, &settings).await
    })
}

/// The throttle's own parameters.
struct ThrottleParams {
    ros_type: ParamHandle<String>,
    rate_hz: ParamHandle<f64>,
    gz_rate: ParamHandle<f64>,
}

async fn throttle(node: &Node, injector: &InjectorParams, settings: &ThrottleParams) -> NodeResult {
    let ros_type = settings.ros_type.get();
    let mut rule = StampThrottle::new(settings.rate_hz.get(), settings.gz_rate.get());
    let result = dispatch_stamped!(ros_type, |T| {
        let transform = |msg: T| {
            let stamp = msg.header().stamp;
            rule.pass(stamp.to_nanos()).then_some(msg)
        };
        run_pipeline::<T>(node, injector, transform, node.shutdown_requested()).await
    });
    match result {
        Ok(r) => r,
        Err(e) => {
            tracing::error!("ros_type '{ros_type}': {e}; passing nothing");
            node.shutdown_requested().await;
            Ok(())
        }
    }
}
