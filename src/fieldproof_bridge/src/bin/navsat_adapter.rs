//! `navsat_adapter`: a real receiver's fix from the bridge's raw one: the frame (Gazebo
//! Harmonic's NavSat system sets none), DIAGONAL_KNOWN covariance from the noise figures,
//! STATUS_FIX / SERVICE_GPS; the faults `deny` (`gps.deny`), `offset_enu_m` (`gps.offset`),
//! `dropout`, `freeze`.

use fieldproof_bridge::adapters::navsat::NavSatAdapter;
use fieldproof_bridge::node::{injector_builder, run_pipeline, vector3_param, watch_vector3};
use fieldproof_runtime::msgs::sensor_msgs::NavSatFix;
use fieldproof_runtime::Param;

fn main() -> std::process::ExitCode {
    fieldproof_runtime::main(
        || {
            injector_builder("navsat_adapter")
                .param(
                    Param::string("ros_frame_id", "gps_link")
                        .read_only()
                        .description("frame of the fixes (the receiver's antenna)"),
                )
                .param(
                    Param::double("horizontal_stddev_m", 0.0)
                        .range(0.0, 1000.0)
                        .read_only()
                        .description("noise.horizontal_stddev_m"),
                )
                .param(
                    Param::double("vertical_stddev_m", 0.0)
                        .range(0.0, 1000.0)
                        .read_only()
                        .description("noise.vertical_stddev_m"),
                )
                .param(Param::bool("deny", false).description(
                    "fault gps.deny: no fix (STATUS_NO_FIX, NaN position, unknown covariance)",
                ))
                .param(vector3_param(
                    "offset_enu_m",
                    "fault gps.offset: metres east, north, up added to every fix",
                ))
        },
        |node| async move {
            let deny = node.watch_bool("deny");
            let offset = watch_vector3(&node, "offset_enu_m");
            let mut adapter = NavSatAdapter {
                frame_id: node.param_str("ros_frame_id"),
                horizontal_stddev_m: node.param_f64("horizontal_stddev_m"),
                vertical_stddev_m: node.param_f64("vertical_stddev_m"),
                ..Default::default()
            };
            let transform = move |fix: NavSatFix| {
                adapter.deny = deny.get();
                adapter.offset_enu_m = *offset.read().expect("not poisoned");
                Some(adapter.apply(fix))
            };
            run_pipeline(&node, transform, node.shutdown_requested()).await
        },
    )
}
