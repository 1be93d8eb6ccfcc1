//! IMU, raw as Gazebo's IMU system gives it: orientation in the world (ENU), angular
//! velocity and linear acceleration (gravity included) in the sensor frame, noise from the
//! manifest, covariances zero ("unknown": the imu_adapter fills them).

use fieldproof_msgs::geometry_msgs::Vector3;
use fieldproof_msgs::sensor_msgs::Imu;
use fieldproof_msgs::std_msgs::Header;

use super::Output;
use crate::math::{quat_yaw, ros_time, wrap_angle};
use crate::msg::Msg;
use crate::vehicles::Vehicle;

/// Standard gravity.
pub const GRAVITY: f64 = 9.80665;

/// One IMU sample (the mount's yaw rotates the horizontal axes).
pub fn sample(out: &mut Output, v: &Vehicle, t_ns: i64) -> Msg {
    let n = out.noise;
    let (s, c) = out.mount.yaw.sin_cos();
    let [ax, ay, az] = v.accel;
    let g = |o: &mut Output, sd| o.rng.gauss(sd);
    let angular_velocity = Vector3 {
        x: g(out, n.gyro_stddev_radps),
        y: g(out, n.gyro_stddev_radps),
        z: v.vel.wz + g(out, n.gyro_stddev_radps),
    };
    let linear_acceleration = Vector3 {
        x: c * ax + s * ay + g(out, n.accel_stddev_mps2),
        y: -s * ax + c * ay + g(out, n.accel_stddev_mps2),
        z: az + GRAVITY + g(out, n.accel_stddev_mps2),
    };
    let yaw = wrap_angle(v.pose.yaw + out.mount.yaw + g(out, n.orientation_stddev_rad));
    Msg::Imu(Imu {
        header: Header {
            stamp: ros_time(t_ns),
            frame_id: out.frame_id.clone(),
        },
        orientation: quat_yaw(yaw),
        orientation_covariance: [0.0; 9],
        angular_velocity,
        angular_velocity_covariance: [0.0; 9],
        linear_acceleration,
        linear_acceleration_covariance: [0.0; 9],
    })
}
