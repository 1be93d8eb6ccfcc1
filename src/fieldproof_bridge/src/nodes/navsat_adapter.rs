//! `navsat_adapter`: a real receiver's fix from the bridge's raw one: the frame (Gazebo
//! Harmonic's NavSat system sets none), DIAGONAL_KNOWN covariance from the noise figures,
//! STATUS_FIX / SERVICE_GPS; the faults `deny` (`gps.deny`), `offset_enu_m` (`gps.offset`),
//! `dropout`, `freeze`.

use crate::adapters::navsat::NavSatAdapter;
use crate::node::{follow_vector3, injector_builder, run_pipeline, vector3_param};
use fieldproof_runtime::container::Component;
use fieldproof_runtime::msgs::sensor_msgs::NavSatFix;
use fieldproof_runtime::{Param, ParamHandle};

/// The node: its parameters and body (its binary runs it alone, `bundle_container` among
/// the bundle's other nodes).
pub fn node() -> Component {
    let (mut builder, injector) = injector_builder("navsat_adapter");
    let ros_frame_id: ParamHandle<String> = builder.declare(
        Param::string("ros_frame_id", "gps_link")
            .read_only()
            .description("frame of the fixes (the receiver's antenna)"),
    );
    let horizontal_stddev: ParamHandle<f64> = builder.declare(
        Param::double("horizontal_stddev_m", 0.0)
            .range(0.0, 1000.0)
            .read_only()
            .description("noise.horizontal_stddev_m"),
    );
    let vertical_stddev: ParamHandle<f64> = builder.declare(
        Param::double("vertical_stddev_m", 0.0)
            .range(0.0, 1000.0)
            .read_only()
            .description("noise.vertical_stddev_m"),
    );
    let deny: ParamHandle<bool> =
        builder.declare(Param::bool("deny", false).description(
            "fault gps.deny: no fix (STATUS_NO_FIX, NaN position, unknown covariance)",
        ));
    let offset_param = builder.declare(vector3_param(
        "offset_enu_m",
        "fault gps.offset: metres east, north, up added to every fix",
    ));
    Component::new(builder, |node| async move {
        let offset = follow_vector3(&offset_param);
        let mut adapter = NavSatAdapter {
            frame_id: ros_frame_id.get(),
            horizontal_stddev_m: horizontal_stddev.get(),
            vertical_stddev_m: vertical_stddev.get(),
            ..Default::default()
        };
        let transform = move |fix: NavSatFix| {
            adapter.deny = deny.get();
            adapter.offset_enu_m = *offset.read().expect("not poisoned");
            Some(adapter.apply(fix))
        };
        run_pipeline(&node, &injector, transform, node.shutdown_requested()).await
    })
}
