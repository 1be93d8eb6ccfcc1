//! What the localizer takes from its messages: an IMU sample (its orientation, when it gives
//! one, turns the specific force into an ENU acceleration) and a GNSS fix (converted to ENU
//! about the world's origin, with the fix's covariance or the configured noise). A sample
//! with a NaN or infinite field is refused here, naming the field, so it never reaches the
//! filter.

use fieldproof_msgs::geometry_msgs::{Quaternion, Vector3 as MsgVector3};
use fieldproof_msgs::sensor_msgs::{Imu, NavSatFix, NavSatStatus};
use fieldproof_robots::{geo, GeoOrigin};
use nalgebra::{Matrix3, Quaternion as NaQuaternion, UnitQuaternion, Vector3};
use thiserror::Error;

/// Standard gravity, m/s² (what the simulator's IMU adds).
pub const STANDARD_GRAVITY_MPS2: f64 = 9.80665;

/// Why a sample was skipped.
#[derive(Debug, Clone, PartialEq, Error)]
pub enum Skip {
    /// A field is NaN or infinite.
    #[error("{field} is not finite ({value})")]
    NonFinite {
        /// The field, e.g. `latitude`, `linear_acceleration.z`.
        field: &'static str,
        /// Its value.
        value: f64,
    },
    /// The receiver reports no fix (`status.status` = STATUS_NO_FIX).
    #[error("status NO_FIX")]
    NoFix,
}

/// The first non-finite `(name, value)` of `fields`, as a [`Skip`].
fn first_non_finite(fields: impl IntoIterator<Item = (&'static str, f64)>) -> Result<(), Skip> {
    match fields.into_iter().find(|(_, v)| !v.is_finite()) {
        Some((field, value)) => Err(Skip::NonFinite { field, value }),
        None => Ok(()),
    }
}

fn vector(v: &MsgVector3) -> Vector3<f64> {
    Vector3::new(v.x, v.y, v.z)
}

/// A 3x3 covariance from a row-major message array, or `None` when the message says it is
/// unknown (all zeros, REP 145).
fn known_covariance(values: &[f64; 9]) -> Option<Matrix3<f64>> {
    values
        .iter()
        .any(|v| *v != 0.0)
        .then(|| Matrix3::from_row_slice(values))
}

/// One IMU sample, checked.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ImuSample {
    /// Stamp, ns.
    pub t_ns: i64,
    /// Orientation of the sensor in the world (ENU), when the IMU gives one (not when its
    /// `orientation_covariance[0]` is -1, REP 145, nor when the quaternion is zero).
    pub orientation: Option<UnitQuaternion<f64>>,
    /// Its covariance (roll, pitch, yaw), when known.
    pub orientation_covariance: Option<Matrix3<f64>>,
    /// Angular velocity in the sensor frame, rad/s.
    pub angular_velocity: Vector3<f64>,
    /// Its covariance, when known.
    pub angular_velocity_covariance: Option<Matrix3<f64>>,
    /// Specific force in the sensor frame (gravity included: +g up at rest), m/s².
    pub specific_force: Vector3<f64>,
}

impl ImuSample {
    /// The checked sample of `msg`: every field finite.
    pub fn from_msg(msg: &Imu) -> Result<ImuSample, Skip> {
        let q = &msg.orientation;
        let w = &msg.angular_velocity;
        let a = &msg.linear_acceleration;
        first_non_finite([
            ("orientation.x", q.x),
            ("orientation.y", q.y),
            ("orientation.z", q.z),
            ("orientation.w", q.w),
            ("angular_velocity.x", w.x),
            ("angular_velocity.y", w.y),
            ("angular_velocity.z", w.z),
            ("linear_acceleration.x", a.x),
            ("linear_acceleration.y", a.y),
            ("linear_acceleration.z", a.z),
        ])?;
        first_non_finite(
            msg.orientation_covariance
                .iter()
                .map(|v| ("orientation_covariance", *v))
                .chain(
                    msg.angular_velocity_covariance
                        .iter()
                        .map(|v| ("angular_velocity_covariance", *v)),
                )
                .chain(
                    msg.linear_acceleration_covariance
                        .iter()
                        .map(|v| ("linear_acceleration_covariance", *v)),
                ),
        )?;
        // REP 145: orientation_covariance[0] = -1 says the IMU gives no orientation.
        let orientation = if msg.orientation_covariance[0] == -1.0 {
            None
        } else {
            unit(q)
        };
        Ok(ImuSample {
            t_ns: msg.header.stamp.to_nanos(),
            orientation,
            orientation_covariance: orientation
                .and_then(|_| known_covariance(&msg.orientation_covariance)),
            angular_velocity: vector(w),
            angular_velocity_covariance: known_covariance(&msg.angular_velocity_covariance),
            specific_force: vector(a),
        })
    }

    /// The acceleration in ENU (the specific force rotated to the world, gravity removed),
    /// when the sample has an orientation.
    pub fn acceleration_enu(&self, gravity_mps2: f64) -> Option<Vector3<f64>> {
        self.orientation
            .map(|q| q * self.specific_force - Vector3::new(0.0, 0.0, gravity_mps2))
    }
}

/// The normalised quaternion, or `None` for a (near) zero one (no orientation) or one whose
/// norm overflows.
fn unit(q: &Quaternion) -> Option<UnitQuaternion<f64>> {
    let q = NaQuaternion::new(q.w, q.x, q.y, q.z);
    let norm = q.norm();
    (norm.is_finite() && norm > 1e-6).then(|| UnitQuaternion::from_quaternion(q))
}

/// The GNSS noise to use when a fix does not say (covariance type UNKNOWN): the manifest's
/// standard deviations.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GnssNoise {
    /// East and north, m.
    pub horizontal_stddev_m: f64,
    /// Up, m.
    pub vertical_stddev_m: f64,
}

impl GnssNoise {
    /// `robots/quad_ref`'s figures (0.5 m, 1.0 m).
    pub const QUAD_REF: GnssNoise = GnssNoise {
        horizontal_stddev_m: 0.5,
        vertical_stddev_m: 1.0,
    };

    /// The diagonal covariance of these figures.
    pub fn covariance(&self) -> Matrix3<f64> {
        Matrix3::from_diagonal(&Vector3::new(
            self.horizontal_stddev_m.powi(2),
            self.horizontal_stddev_m.powi(2),
            self.vertical_stddev_m.powi(2),
        ))
    }
}

/// One GNSS fix, checked and in ENU.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GnssMeasurement {
    /// Stamp, ns.
    pub t_ns: i64,
    /// ENU position about the origin, m.
    pub position: Vector3<f64>,
    /// Its covariance (ENU, m²): the fix's when its type is not UNKNOWN, else the fallback's.
    pub covariance: Matrix3<f64>,
}

impl GnssMeasurement {
    /// The measurement of `fix` about `origin`; `fallback` when the fix's covariance is
    /// unknown. A NO_FIX fix or a non-finite field is a [`Skip`].
    pub fn from_fix(
        fix: &NavSatFix,
        origin: &GeoOrigin,
        fallback: &GnssNoise,
    ) -> Result<GnssMeasurement, Skip> {
        if fix.status.status == NavSatStatus::STATUS_NO_FIX {
            return Err(Skip::NoFix);
        }
        first_non_finite([
            ("latitude", fix.latitude),
            ("longitude", fix.longitude),
            ("altitude", fix.altitude),
        ])?;
        first_non_finite(
            fix.position_covariance
                .iter()
                .map(|v| ("position_covariance", *v)),
        )?;
        let covariance = if fix.position_covariance_type == NavSatFix::COVARIANCE_TYPE_UNKNOWN {
            fallback.covariance()
        } else {
            Matrix3::from_row_slice(&fix.position_covariance)
        };
        let enu = geo::geodetic_to_enu(origin, fix.latitude, fix.longitude, fix.altitude);
        Ok(GnssMeasurement {
            t_ns: fix.header.stamp.to_nanos(),
            position: Vector3::from(enu),
            covariance,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use fieldproof_msgs::builtin_interfaces::Time;

    const ORIGIN: GeoOrigin = GeoOrigin {
        latitude_deg: 47.3977,
        longitude_deg: 8.5456,
        altitude_m: 488.0,
    };

    fn level_imu(yaw: f64, body_accel: [f64; 3]) -> Imu {
        let mut imu = Imu::default();
        imu.header.stamp = Time::from_nanos(1_500_000_000);
        imu.orientation.z = (yaw / 2.0).sin();
        imu.orientation.w = (yaw / 2.0).cos();
        imu.linear_acceleration.x = body_accel[0];
        imu.linear_acceleration.y = body_accel[1];
        imu.linear_acceleration.z = body_accel[2] + STANDARD_GRAVITY_MPS2;
        imu
    }

    #[test]
    fn the_imu_acceleration_is_rotated_to_enu_without_gravity() {
        // Facing north (yaw 90 deg), accelerating forward at 1 m/s²: north in ENU.
        let sample =
            ImuSample::from_msg(&level_imu(std::f64::consts::FRAC_PI_2, [1.0, 0.0, 0.5])).unwrap();
        assert_eq!(sample.t_ns, 1_500_000_000);
        let a = sample.acceleration_enu(STANDARD_GRAVITY_MPS2).unwrap();
        assert!((a - Vector3::new(0.0, 1.0, 0.5)).norm() < 1e-12, "{a}");
    }

    #[test]
    fn an_imu_without_orientation_gives_no_acceleration() {
        let mut imu = level_imu(0.0, [1.0, 0.0, 0.0]);
        imu.orientation_covariance[0] = -1.0;
        let sample = ImuSample::from_msg(&imu).unwrap();
        assert_eq!(sample.acceleration_enu(STANDARD_GRAVITY_MPS2), None);
        let mut zero = Imu::default();
        zero.orientation.w = 0.0; // the zero quaternion: no orientation either
        assert_eq!(
            ImuSample::from_msg(&zero)
                .unwrap()
                .acceleration_enu(STANDARD_GRAVITY_MPS2),
            None
        );
    }

    #[test]
    fn a_non_finite_imu_sample_is_skipped_naming_the_field() {
        let mut imu = level_imu(0.0, [0.0; 3]);
        imu.linear_acceleration.y = f64::NAN;
        assert!(matches!(
            ImuSample::from_msg(&imu),
            Err(Skip::NonFinite {
                field: "linear_acceleration.y",
                ..
            })
        ));
        let mut imu = level_imu(0.0, [0.0; 3]);
        imu.orientation_covariance[4] = f64::INFINITY;
        assert_eq!(
            ImuSample::from_msg(&imu).unwrap_err().to_string(),
            "orientation_covariance is not finite (inf)"
        );
    }

    fn fix_at(enu: [f64; 3]) -> NavSatFix {
        let (latitude, longitude, altitude) = geo::enu_to_geodetic(&ORIGIN, enu);
        NavSatFix {
            latitude,
            longitude,
            altitude,
            ..Default::default()
        }
    }

    #[test]
    fn a_fix_converts_to_enu_about_the_origin() {
        let m =
            GnssMeasurement::from_fix(&fix_at([12.5, -30.0, 4.0]), &ORIGIN, &GnssNoise::QUAD_REF)
                .unwrap();
        assert!((m.position - Vector3::new(12.5, -30.0, 4.0)).norm() < 1e-6);
        // Unknown covariance: the fallback's.
        assert_eq!(m.covariance, GnssNoise::QUAD_REF.covariance());
        let mut fix = fix_at([0.0; 3]);
        fix.position_covariance = [4.0, 0.0, 0.0, 0.0, 4.0, 0.0, 0.0, 0.0, 9.0];
        fix.position_covariance_type = NavSatFix::COVARIANCE_TYPE_DIAGONAL_KNOWN;
        let m = GnssMeasurement::from_fix(&fix, &ORIGIN, &GnssNoise::QUAD_REF).unwrap();
        assert_eq!(m.covariance[(2, 2)], 9.0);
    }

    #[test]
    fn no_fix_and_non_finite_fixes_are_skipped() {
        let mut fix = fix_at([0.0; 3]);
        fix.status.status = NavSatStatus::STATUS_NO_FIX;
        assert_eq!(
            GnssMeasurement::from_fix(&fix, &ORIGIN, &GnssNoise::QUAD_REF),
            Err(Skip::NoFix)
        );
        let mut fix = fix_at([0.0; 3]);
        fix.longitude = f64::INFINITY;
        assert_eq!(
            GnssMeasurement::from_fix(&fix, &ORIGIN, &GnssNoise::QUAD_REF),
            Err(Skip::NonFinite {
                field: "longitude",
                value: f64::INFINITY
            })
        );
    }
}
