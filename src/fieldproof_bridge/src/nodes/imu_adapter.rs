//! `imu_adapter`: the IMU's covariance diagonals from the manifest's noise figures (the bridge
//! leaves them at zero, "unknown"), the frame if relabelled, and the faults `gyro_bias_radps`
//! and `accel_bias_mps2` (`imu.bias`), `dropout`, `freeze`.

use crate::adapters::imu::ImuAdapter;
use crate::node::{follow_vector3, injector_builder, run_pipeline, vector3_param};
use fieldproof_runtime::container::Component;
use fieldproof_runtime::msgs::sensor_msgs::Imu;
use fieldproof_runtime::{Param, ParamHandle};

/// The node: its parameters and body (its binary runs it alone, `bundle_container` among
/// the bundle's other nodes).
pub fn node() -> Component {
    let (mut builder, injector) = injector_builder("imu_adapter");
    let gyro_stddev: ParamHandle<f64> = builder.declare(
        Param::double("gyro_stddev_radps", 0.0)
            .range(0.0, 100.0)
            .read_only()
            .description("noise.gyro_stddev_radps: angular velocity stddev, rad/s"),
    );
    let accel_stddev: ParamHandle<f64> = builder.declare(
        Param::double("accel_stddev_mps2", 0.0)
            .range(0.0, 1000.0)
            .read_only()
            .description("noise.accel_stddev_mps2: linear acceleration stddev, m/s^2"),
    );
    let orientation_stddev: ParamHandle<f64> = builder.declare(
        Param::double("orientation_stddev_rad", 0.0)
            .range(0.0, 10.0)
            .read_only()
            .description("noise.orientation_stddev_rad; 0: orientation covariance stays unknown"),
    );
    let ros_frame_id: ParamHandle<String> = builder.declare(
        Param::string("ros_frame_id", "")
            .read_only()
            .description("relabel header.frame_id to this (empty: keep the input's)"),
    );
    let gyro_bias_param = builder.declare(vector3_param(
        "gyro_bias_radps",
        "fault imu.bias: added to angular velocity, rad/s",
    ));
    let accel_bias_param = builder.declare(vector3_param(
        "accel_bias_mps2",
        "fault imu.bias: added to linear acceleration, m/s^2",
    ));
    Component::new(builder, |node| async move {
        let gyro_bias = follow_vector3(&gyro_bias_param);
        let accel_bias = follow_vector3(&accel_bias_param);
        let orientation = orientation_stddev.get();
        let mut adapter = ImuAdapter {
            gyro_stddev_radps: gyro_stddev.get(),
            accel_stddev_mps2: accel_stddev.get(),
            orientation_stddev_rad: (orientation > 0.0).then_some(orientation),
            frame_id: ros_frame_id.get(),
            ..Default::default()
        };
        let transform = move |imu: Imu| {
            adapter.gyro_bias_radps = *gyro_bias.read().expect("not poisoned");
            adapter.accel_bias_mps2 = *accel_bias.read().expect("not poisoned");
            Some(adapter.apply(imu))
        };
        run_pipeline(&node, &injector, transform, node.shutdown_requested()).await
    })
}
