//! `imu_adapter`: the IMU's covariance diagonals from the manifest's noise figures (the bridge
//! leaves them at zero, "unknown"), the frame if relabelled, and the faults `gyro_bias_radps`
//! and `accel_bias_mps2` (`imu.bias`), `dropout`, `freeze`.

use fieldproof_bridge::adapters::imu::ImuAdapter;
use fieldproof_bridge::node::{injector_builder, run_pipeline, vector3_param, watch_vector3};
use fieldproof_runtime::msgs::sensor_msgs::Imu;
use fieldproof_runtime::Param;

fn main() -> std::process::ExitCode {
    fieldproof_runtime::main(
        || {
            injector_builder("imu_adapter")
                .param(
                    Param::double("gyro_stddev_radps", 0.0)
                        .range(0.0, 100.0)
                        .read_only()
                        .description("noise.gyro_stddev_radps: angular velocity stddev, rad/s"),
                )
                .param(
                    Param::double("accel_stddev_mps2", 0.0)
                        .range(0.0, 1000.0)
                        .read_only()
                        .description("noise.accel_stddev_mps2: linear acceleration stddev, m/s^2"),
                )
                .param(
                    Param::double("orientation_stddev_rad", 0.0)
                        .range(0.0, 10.0)
                        .read_only()
                        .description(
                            "noise.orientation_stddev_rad; 0: orientation covariance stays unknown",
                        ),
                )
                .param(
                    Param::string("ros_frame_id", "")
                        .read_only()
                        .description("relabel header.frame_id to this (empty: keep the input's)"),
                )
                .param(vector3_param(
                    "gyro_bias_radps",
                    "fault imu.bias: added to angular velocity, rad/s",
                ))
                .param(vector3_param(
                    "accel_bias_mps2",
                    "fault imu.bias: added to linear acceleration, m/s^2",
                ))
        },
        |node| async move {
            let gyro_bias = watch_vector3(&node, "gyro_bias_radps");
            let accel_bias = watch_vector3(&node, "accel_bias_mps2");
            let orientation = node.param_f64("orientation_stddev_rad");
            let mut adapter = ImuAdapter {
                gyro_stddev_radps: node.param_f64("gyro_stddev_radps"),
                accel_stddev_mps2: node.param_f64("accel_stddev_mps2"),
                orientation_stddev_rad: (orientation > 0.0).then_some(orientation),
                frame_id: node.param_str("ros_frame_id"),
                ..Default::default()
            };
            let transform = move |imu: Imu| {
                adapter.gyro_bias_radps = *gyro_bias.read().expect("not poisoned");
                adapter.accel_bias_mps2 = *accel_bias.read().expect("not poisoned");
                Some(adapter.apply(imu))
            };
            run_pipeline(&node, transform, node.shutdown_requested()).await
        },
    )
}
