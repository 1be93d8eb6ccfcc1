//! `imu_adapter`'s transform: the covariance diagonals the bridge leaves at zero ("unknown"),
//! from the manifest's noise figures; the `imu.bias` fault (gyro/accel bias added to every
//! message); the frame, if relabelled.

use fieldproof_msgs::sensor_msgs::Imu;

/// What the adapter writes into every message, from the manifest and the fault parameters.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ImuAdapter {
    /// `noise.gyro_stddev_radps`: angular velocity stddev, rad/s.
    pub gyro_stddev_radps: f64,
    /// `noise.accel_stddev_mps2`: linear acceleration stddev, m/s².
    pub accel_stddev_mps2: f64,
    /// `noise.orientation_stddev_rad`: orientation stddev, rad; the covariance stays unknown
    /// (zeros) when absent.
    pub orientation_stddev_rad: Option<f64>,
    /// Frame to relabel to (empty: keep the input's).
    pub frame_id: String,
    /// Fault `gyro_bias_radps`: added to angular velocity (x, y, z).
    pub gyro_bias_radps: [f64; 3],
    /// Fault `accel_bias_mps2`: added to linear acceleration (x, y, z).
    pub accel_bias_mps2: [f64; 3],
}

/// A 3x3 row-major covariance with `stddev²` on the diagonal.
pub fn diagonal_covariance(stddev: f64) -> [f64; 9] {
    let v = stddev * stddev;
    [v, 0.0, 0.0, 0.0, v, 0.0, 0.0, 0.0, v]
}

impl ImuAdapter {
    /// The adapted message.
    pub fn apply(&self, mut imu: Imu) -> Imu {
        imu.angular_velocity_covariance = diagonal_covariance(self.gyro_stddev_radps);
        imu.linear_acceleration_covariance = diagonal_covariance(self.accel_stddev_mps2);
        if let Some(stddev) = self.orientation_stddev_rad {
            imu.orientation_covariance = diagonal_covariance(stddev);
        }
        let [gx, gy, gz] = self.gyro_bias_radps;
        imu.angular_velocity.x += gx;
        imu.angular_velocity.y += gy;
        imu.angular_velocity.z += gz;
        let [ax, ay, az] = self.accel_bias_mps2;
        imu.linear_acceleration.x += ax;
        imu.linear_acceleration.y += ay;
        imu.linear_acceleration.z += az;
        if !self.frame_id.is_empty() {
            imu.header.frame_id.clone_from(&self.frame_id);
        }
        imu
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fills_covariances_and_adds_bias() {
        let adapter = ImuAdapter {
            gyro_stddev_radps: 0.01,
            accel_stddev_mps2: 0.1,
            orientation_stddev_rad: None,
            frame_id: "ugv1/imu_link".into(),
            gyro_bias_radps: [0.0, 0.0, 0.05],
            accel_bias_mps2: [0.2, 0.0, 0.0],
        };
        let mut raw = Imu::default();
        raw.angular_velocity.z = 0.5;
        raw.linear_acceleration.z = 9.81;
        raw.header.frame_id = "imu_link".into();
        let out = adapter.apply(raw);
        assert!((out.angular_velocity_covariance[0] - 1e-4).abs() < 1e-15);
        assert_eq!(
            out.angular_velocity_covariance[4],
            out.angular_velocity_covariance[8]
        );
        assert_eq!(out.angular_velocity_covariance[1], 0.0);
        assert!((out.linear_acceleration_covariance[8] - 0.01).abs() < 1e-12);
        assert_eq!(
            out.orientation_covariance, [0.0; 9],
            "orientation stays unknown"
        );
        assert!((out.angular_velocity.z - 0.55).abs() < 1e-12);
        assert!((out.linear_acceleration.x - 0.2).abs() < 1e-12);
        assert_eq!(out.linear_acceleration.z, 9.81);
        assert_eq!(out.header.frame_id, "ugv1/imu_link");
    }

    #[test]
    fn orientation_covariance_when_given() {
        let adapter = ImuAdapter {
            orientation_stddev_rad: Some(0.1),
            ..Default::default()
        };
        let out = adapter.apply(Imu::default());
        assert!((out.orientation_covariance[0] - 0.01).abs() < 1e-12);
    }
}
