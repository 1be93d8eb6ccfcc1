//! The localizer without DDS: IMU samples drive the filter's predictions, GNSS fixes its
//! updates, and [`Localizer::odometry`] is what `odometry/filtered` carries. Every sample is
//! checked first ([`super::inputs`]); a refused one is counted ([`Counters`]) and leaves the
//! filter as it was.

use fieldproof_msgs::builtin_interfaces::Time;
use fieldproof_msgs::geometry_msgs::{Point, Quaternion, Vector3 as MsgVector3};
use fieldproof_msgs::nav_msgs::Odometry;
use fieldproof_msgs::sensor_msgs::{Imu, NavSatFix};
use fieldproof_msgs::std_msgs::Header;
use fieldproof_robots::GeoOrigin;
use nalgebra::{Matrix3, UnitQuaternion, Vector3};
use thiserror::Error;

use super::filter::{Filter, FilterConfig, Rejected};
use super::inputs::{GnssMeasurement, GnssNoise, ImuSample, Skip, STANDARD_GRAVITY_MPS2};

/// The variance written for what the localizer does not estimate (orientation without an
/// IMU orientation, angular velocity without its covariance): large, so a consumer does
/// not trust it (the convention of robot_localization's consumers).
pub const UNKNOWN_VARIANCE: f64 = 1e6;

/// A fix stamped this much before the filter's time means the clock went back (a new
/// simulation): the filter restarts from it.
pub const RESTART_BACKWARDS_NS: i64 = 1_000_000_000;

/// The localizer's settings.
#[derive(Debug, Clone, PartialEq)]
pub struct LocalizerConfig {
    /// The filter's noise figures.
    pub filter: FilterConfig,
    /// GNSS noise for fixes whose covariance is unknown.
    pub gnss_noise: GnssNoise,
    /// Gravity removed from the IMU's specific force, m/s².
    pub gravity_mps2: f64,
    /// An IMU sample older than this does not drive a prediction (constant velocity
    /// instead), ns.
    pub imu_timeout_ns: i64,
    /// The estimate's frame (`header.frame_id`).
    pub frame_id: String,
    /// The vehicle's frame (`child_frame_id`, the frame of the twist).
    pub child_frame_id: String,
    /// Fixes fused since the filter (re)started before the estimate is published: one fix
    /// alone carries the receiver's raw noise (quad_ref: 1 m vertical), the filter settles
    /// over a few (σz 0.71 m after two, 0.56 m after five). 1: from the first fix.
    pub settle_fixes: u32,
}

impl Default for LocalizerConfig {
    /// `robots/quad_ref`'s figures, frames `map` and `base_link`.
    fn default() -> Self {
        Self {
            filter: FilterConfig::default(),
            gnss_noise: GnssNoise::QUAD_REF,
            gravity_mps2: STANDARD_GRAVITY_MPS2,
            imu_timeout_ns: 100_000_000,
            frame_id: "map".into(),
            child_frame_id: "base_link".into(),
            settle_fixes: 5,
        }
    }
}

impl LocalizerConfig {
    /// Checks every figure, naming the first bad one.
    pub fn validate(&self) -> Result<(), String> {
        self.filter.validate()?;
        for (field, value) in [
            (
                "gnss_horizontal_stddev_m",
                self.gnss_noise.horizontal_stddev_m,
            ),
            ("gnss_vertical_stddev_m", self.gnss_noise.vertical_stddev_m),
            ("gravity_mps2", self.gravity_mps2),
        ] {
            if !(value.is_finite() && value > 0.0) {
                return Err(format!("{field}: {value} is not a positive number"));
            }
        }
        if self.settle_fixes == 0 {
            return Err("settle_fixes: 0 is not >= 1".into());
        }
        if self.imu_timeout_ns <= 0 {
            return Err(format!(
                "imu_timeout_s: {} is not > 0",
                self.imu_timeout_ns as f64 * 1e-9
            ));
        }
        Ok(())
    }
}

/// Why a sample changed nothing.
#[derive(Debug, Clone, PartialEq, Error)]
pub enum Refusal {
    /// The sample itself (non-finite, no fix).
    #[error("{0}")]
    Input(#[from] Skip),
    /// The filter refused it.
    #[error("{0}")]
    Filter(#[from] Rejected),
}

/// What the localizer has seen.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Counters {
    /// IMU samples used.
    pub imu_samples: u64,
    /// GNSS fixes used (the first one included).
    pub fixes: u64,
    /// Samples skipped for a NaN or infinite field.
    pub non_finite: u64,
    /// Fixes skipped for STATUS_NO_FIX.
    pub no_fix: u64,
    /// Samples the filter refused (covariance not positive definite, overflow).
    pub refused: u64,
    /// Restarts from a fix stamped before the filter's time (the clock went back).
    pub restarts: u64,
}

/// The localizer: its origin, its filter, the newest IMU sample and its counters.
#[derive(Debug, Clone)]
pub struct Localizer {
    origin: GeoOrigin,
    config: LocalizerConfig,
    filter: Filter,
    last_imu: Option<ImuSample>,
    counters: Counters,
    fixes_since_start: u32,
}

impl Localizer {
    /// A localizer about `origin` (the world's), the settings checked.
    pub fn new(origin: GeoOrigin, config: LocalizerConfig) -> Result<Localizer, String> {
        config.validate()?;
        Ok(Localizer {
            origin,
            filter: Filter::new(config.filter)?,
            config,
            last_imu: None,
            counters: Counters::default(),
            fixes_since_start: 0,
        })
    }

    /// What has been used and skipped so far.
    pub fn counters(&self) -> Counters {
        self.counters
    }

    /// The filter (its state, for tests and logs).
    pub fn filter(&self) -> &Filter {
        &self.filter
    }

    fn count(&mut self, refusal: Refusal) -> Refusal {
        match &refusal {
            Refusal::Input(Skip::NonFinite { .. })
            | Refusal::Filter(Rejected::NonFinite { .. }) => self.counters.non_finite += 1,
            Refusal::Input(Skip::NoFix) => self.counters.no_fix += 1,
            Refusal::Filter(_) => self.counters.refused += 1,
        }
        refusal
    }

    /// An IMU sample: predicts the filter (once it has started) to its stamp, with its ENU
    /// acceleration when it has an orientation and the previous state is within the IMU
    /// timeout, at constant velocity otherwise. A sample stamped before the filter's time
    /// only becomes the newest IMU sample.
    pub fn on_imu(&mut self, msg: &Imu) -> Result<(), Refusal> {
        let sample = ImuSample::from_msg(msg).map_err(|s| self.count(s.into()))?;
        if let Some(t_ns) = self.filter.time_ns() {
            if sample.t_ns > t_ns {
                let accel = if sample.t_ns - t_ns <= self.config.imu_timeout_ns {
                    sample.acceleration_enu(self.config.gravity_mps2)
                } else {
                    None
                };
                self.filter
                    .predict(sample.t_ns, accel)
                    .map_err(|r| self.count(r.into()))?;
            }
        }
        self.counters.imu_samples += 1;
        self.last_imu = Some(sample);
        Ok(())
    }

    /// A GNSS fix: starts the filter (the first, or one from before the filter's time by
    /// more than [`RESTART_BACKWARDS_NS`]), or predicts to its stamp (with the newest IMU
    /// acceleration when that sample is within the timeout) and updates.
    pub fn on_fix(&mut self, fix: &NavSatFix) -> Result<(), Refusal> {
        let m = GnssMeasurement::from_fix(fix, &self.origin, &self.config.gnss_noise)
            .map_err(|s| self.count(s.into()))?;
        let restart = match self.filter.time_ns() {
            None => true,
            Some(t_ns) => m.t_ns < t_ns.saturating_sub(RESTART_BACKWARDS_NS),
        };
        if restart {
            let started = self.filter.time_ns().is_some();
            self.filter
                .initialize(m.t_ns, m.position, m.covariance)
                .map_err(|r| self.count(r.into()))?;
            if started {
                self.counters.restarts += 1;
            }
            self.fixes_since_start = 0;
        } else {
            let accel = self
                .last_imu
                .filter(|imu| (m.t_ns - imu.t_ns).abs() <= self.config.imu_timeout_ns)
                .and_then(|imu| imu.acceleration_enu(self.config.gravity_mps2));
            // Predict on a copy: a refused update must not leave the prediction behind.
            let mut next = self.filter.clone();
            let step = next
                .predict(m.t_ns, accel)
                .and_then(|()| next.update_position(m.position, m.covariance));
            step.map_err(|r| self.count(r.into()))?;
            self.filter = next;
        }
        self.counters.fixes += 1;
        self.fixes_since_start = self.fixes_since_start.saturating_add(1);
        Ok(())
    }

    /// The estimate at `now_ns` (extrapolated at constant velocity from the filter's state
    /// when later, the state's own time otherwise) as `odometry/filtered` carries it: pose in
    /// `frame_id` with the position covariance from the filter, orientation from the newest
    /// IMU sample (identity with [`UNKNOWN_VARIANCE`] without one), twist in
    /// `child_frame_id`. `None` until `settle_fixes` fixes have been fused since the filter
    /// (re)started.
    pub fn odometry(&self, now_ns: i64) -> Option<Odometry> {
        if self.fixes_since_start < self.config.settle_fixes {
            return None;
        }
        let estimate = self.filter.extrapolated(now_ns)?;
        let imu = self.last_imu.as_ref();
        let orientation = imu
            .and_then(|s| s.orientation)
            .unwrap_or_else(UnitQuaternion::identity);
        let unknown = Matrix3::identity() * UNKNOWN_VARIANCE;
        let orientation_covariance = imu
            .filter(|s| s.orientation.is_some())
            .and_then(|s| s.orientation_covariance)
            .unwrap_or(unknown);
        // The twist is in the vehicle's frame: R⁻¹ v, covariance Rᵀ P_vv R.
        let to_body = orientation.inverse().to_rotation_matrix().into_inner();
        let velocity = to_body * estimate.velocity;
        let velocity_covariance = to_body * estimate.velocity_covariance() * to_body.transpose();
        let angular_velocity = imu.map_or_else(Vector3::zeros, |s| s.angular_velocity);
        let angular_covariance = imu
            .and_then(|s| s.angular_velocity_covariance)
            .unwrap_or(unknown);
        let mut odom = Odometry {
            header: Header {
                stamp: Time::from_nanos(estimate.t_ns),
                frame_id: self.config.frame_id.clone(),
            },
            child_frame_id: self.config.child_frame_id.clone(),
            ..Default::default()
        };
        let q = orientation.quaternion();
        odom.pose.pose.position = Point {
            x: estimate.position.x,
            y: estimate.position.y,
            z: estimate.position.z,
        };
        odom.pose.pose.orientation = Quaternion {
            x: q.i,
            y: q.j,
            z: q.k,
            w: q.w,
        };
        odom.pose.covariance =
            covariance6(&estimate.position_covariance(), &orientation_covariance);
        odom.twist.twist.linear = msg_vector(&velocity);
        odom.twist.twist.angular = msg_vector(&angular_velocity);
        odom.twist.covariance = covariance6(&velocity_covariance, &angular_covariance);
        Some(odom)
    }
}

fn msg_vector(v: &Vector3<f64>) -> MsgVector3 {
    MsgVector3 {
        x: v.x,
        y: v.y,
        z: v.z,
    }
}

/// The row-major 6x6 covariance of a message from its linear and angular 3x3 blocks.
fn covariance6(linear: &Matrix3<f64>, angular: &Matrix3<f64>) -> [f64; 36] {
    let mut out = [0.0; 36];
    for row in 0..3 {
        for col in 0..3 {
            out[row * 6 + col] = linear[(row, col)];
            out[(row + 3) * 6 + col + 3] = angular[(row, col)];
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use fieldproof_msgs::sensor_msgs::NavSatStatus;
    use fieldproof_robots::geo;
    use proptest::prelude::*;

    const ORIGIN: GeoOrigin = GeoOrigin {
        latitude_deg: 48.1351,
        longitude_deg: 11.5820,
        altitude_m: 520.0,
    };

    fn fix(t_ns: i64, enu: [f64; 3]) -> NavSatFix {
        let (latitude, longitude, altitude) = geo::enu_to_geodetic(&ORIGIN, enu);
        let mut fix = NavSatFix {
            latitude,
            longitude,
            altitude,
            ..Default::default()
        };
        fix.header.stamp = Time::from_nanos(t_ns);
        fix
    }

    /// A level IMU facing `yaw`, accelerating at `accel` (ENU), at rest otherwise.
    fn imu(t_ns: i64, yaw: f64, accel: [f64; 3]) -> Imu {
        let q = UnitQuaternion::from_euler_angles(0.0, 0.0, yaw);
        let body = q.inverse() * Vector3::from(accel);
        let mut imu = Imu::default();
        imu.header.stamp = Time::from_nanos(t_ns);
        imu.orientation = Quaternion {
            x: q.i,
            y: q.j,
            z: q.k,
            w: q.w,
        };
        imu.linear_acceleration =
            msg_vector(&(body + Vector3::new(0.0, 0.0, STANDARD_GRAVITY_MPS2)));
        imu.angular_velocity.z = 0.1;
        imu
    }

    /// A localizer that publishes from the first fix (these tests feed a fix at a time).
    fn localizer() -> Localizer {
        let config = LocalizerConfig {
            settle_fixes: 1,
            ..LocalizerConfig::default()
        };
        Localizer::new(ORIGIN, config).unwrap()
    }

    #[test]
    fn the_estimate_is_published_once_the_filter_has_settled_and_again_after_a_restart() {
        let mut l = Localizer::new(ORIGIN, LocalizerConfig::default()).unwrap();
        // Five fixes 0.2 s apart, the first 2.4 m low (a 2.4 sigma draw of 1 m noise).
        let heights = [-2.4, 0.3, -0.2, 0.1, 0.0];
        let t0 = 10_000_000_000;
        for (i, z) in heights.iter().enumerate() {
            let t = t0 + i as i64 * 200_000_000;
            assert_eq!(l.odometry(t), None, "published before fix {i}");
            l.on_fix(&fix(t, [0.0, 0.0, *z])).unwrap();
        }
        let odom = l
            .odometry(t0 + 800_000_000)
            .expect("settled after five fixes");
        assert!(odom.pose.pose.position.z.abs() < 1.0, "{odom:?}");
        assert!(odom.pose.covariance[14] < 0.4, "{odom:?}");
        // A clock that went back restarts the filter: settle again.
        l.on_fix(&fix(0, [0.0, 0.0, 0.0])).unwrap();
        assert_eq!(l.counters().restarts, 1);
        assert_eq!(l.odometry(0), None);
        assert!(LocalizerConfig {
            settle_fixes: 0,
            ..LocalizerConfig::default()
        }
        .validate()
        .unwrap_err()
        .contains("settle_fixes: 0"));
    }

    #[test]
    fn nothing_is_published_before_the_first_fix() {
        let mut l = localizer();
        l.on_imu(&imu(0, 0.0, [0.0; 3])).unwrap();
        assert_eq!(l.odometry(1_000_000_000), None);
        l.on_fix(&fix(100_000_000, [3.0, 4.0, 5.0])).unwrap();
        let odom = l.odometry(100_000_000).unwrap();
        assert_eq!(odom.header.frame_id, "map");
        assert_eq!(odom.child_frame_id, "base_link");
        let p = odom.pose.pose.position;
        assert!((p.x - 3.0).abs() < 1e-6 && (p.y - 4.0).abs() < 1e-6 && (p.z - 5.0).abs() < 1e-6);
        assert!((odom.pose.covariance[0] - 0.25).abs() < 1e-12);
        assert!((odom.pose.covariance[14] - 1.0).abs() < 1e-12);
        assert_eq!(odom.twist.twist.angular.z, 0.1);
    }

    /// Accelerating east at 1 m/s² from rest for 2 s with fixes on the truth: the estimate
    /// follows, and the twist, in the vehicle's frame, is forward for a vehicle facing east
    /// and sideways (to its right, -y) for one facing north.
    #[test]
    fn the_imu_drives_the_prediction_and_the_twist_is_in_the_vehicle_frame() {
        for (yaw, forward, left) in [(0.0, 2.0, 0.0), (std::f64::consts::FRAC_PI_2, 0.0, -2.0)] {
            let mut l = localizer();
            l.on_fix(&fix(0, [0.0; 3])).unwrap();
            for step in 1..=400 {
                let t_ns = step * 5_000_000;
                l.on_imu(&imu(t_ns, yaw, [1.0, 0.0, 0.0])).unwrap();
                if step % 20 == 0 {
                    let t = t_ns as f64 * 1e-9;
                    l.on_fix(&fix(t_ns, [0.5 * t * t, 0.0, 0.0])).unwrap();
                }
            }
            let odom = l.odometry(2_000_000_000).unwrap();
            assert!((odom.pose.pose.position.x - 2.0).abs() < 0.05, "{odom:?}");
            let v = odom.twist.twist.linear;
            assert!(
                (v.x - forward).abs() < 0.05 && (v.y - left).abs() < 0.05,
                "{v:?}"
            );
            assert_eq!(l.counters().fixes, 21);
            assert_eq!(l.counters().imu_samples, 400);
        }
    }

    #[test]
    fn stale_gnss_keeps_predicting_and_the_covariance_grows() {
        let mut l = localizer();
        l.on_fix(&fix(0, [0.0; 3])).unwrap();
        l.on_fix(&fix(100_000_000, [0.0; 3])).unwrap();
        let mut last = l.odometry(0).unwrap().pose.covariance[0];
        for second in 1..=5 {
            for step in 1..=200 {
                l.on_imu(&imu(
                    100_000_000 + (second - 1) * 1_000_000_000 + step * 5_000_000,
                    0.0,
                    [0.0; 3],
                ))
                .unwrap();
            }
            let variance = l.odometry(0).unwrap().pose.covariance[0];
            assert!(variance > last, "{second} s: {variance} <= {last}");
            last = variance;
        }
        // With neither GNSS nor IMU, the published estimate still ages.
        let later = l.odometry(20_000_000_000).unwrap();
        assert!(later.pose.covariance[0] > last);
        assert_eq!(later.header.stamp, Time::from_nanos(20_000_000_000));
    }

    #[test]
    fn non_finite_and_no_fix_samples_are_skipped_and_counted() {
        let mut l = localizer();
        l.on_fix(&fix(0, [1.0, 1.0, 1.0])).unwrap();
        let before = l.filter().estimate();
        let mut bad = fix(100_000_000, [0.0; 3]);
        bad.latitude = f64::NAN;
        assert!(matches!(
            l.on_fix(&bad),
            Err(Refusal::Input(Skip::NonFinite {
                field: "latitude",
                ..
            }))
        ));
        let mut denied = fix(100_000_000, [0.0; 3]);
        denied.status.status = NavSatStatus::STATUS_NO_FIX;
        assert_eq!(l.on_fix(&denied), Err(Refusal::Input(Skip::NoFix)));
        let mut bad_imu = imu(50_000_000, 0.0, [0.0; 3]);
        bad_imu.angular_velocity.x = f64::INFINITY;
        assert!(l.on_imu(&bad_imu).is_err());
        let mut bad_covariance = fix(200_000_000, [0.0; 3]);
        bad_covariance.position_covariance_type = NavSatFix::COVARIANCE_TYPE_KNOWN;
        bad_covariance.position_covariance = [-1.0; 9];
        assert!(matches!(
            l.on_fix(&bad_covariance),
            Err(Refusal::Filter(Rejected::NotPositiveDefinite(_)))
        ));
        assert_eq!(l.filter().estimate(), before, "nothing reached the filter");
        assert_eq!(
            l.counters(),
            Counters {
                fixes: 1,
                non_finite: 2,
                no_fix: 1,
                refused: 1,
                ..Counters::default()
            }
        );
    }

    #[test]
    fn a_fix_from_before_the_filter_restarts_it() {
        let mut l = localizer();
        l.on_fix(&fix(50_000_000_000, [10.0, 0.0, 0.0])).unwrap();
        l.on_fix(&fix(100_000_000, [-5.0, 0.0, 0.0])).unwrap();
        assert_eq!(l.counters().restarts, 1);
        let e = l.filter().estimate().unwrap();
        assert_eq!(e.t_ns, 100_000_000);
        assert!((e.position.x + 5.0).abs() < 1e-6);
        // A slightly late fix (within the restart margin) is an ordinary update.
        l.on_fix(&fix(50_000_000, [-5.0, 0.0, 0.0])).unwrap();
        assert_eq!(l.counters().restarts, 1);
    }

    #[test]
    fn bad_settings_name_their_field() {
        let config = LocalizerConfig {
            gravity_mps2: f64::NAN,
            ..LocalizerConfig::default()
        };
        assert_eq!(
            Localizer::new(ORIGIN, config).unwrap_err(),
            "gravity_mps2: NaN is not a positive number"
        );
    }

    fn any_number() -> impl Strategy<Value = f64> {
        prop_oneof![
            -1000.0f64..1000.0,
            Just(f64::NAN),
            Just(f64::INFINITY),
            Just(1e300),
            any::<f64>(),
        ]
    }

    proptest! {
        /// Arbitrary IMU samples and fixes (any numbers, any stamps, any status) never put a
        /// NaN into what the localizer publishes.
        #[test]
        fn the_estimate_never_holds_a_nan(
            samples in proptest::collection::vec(
                (any::<bool>(), -5_000_000_000i64..5_000_000_000, proptest::array::uniform3(any_number()), any::<i8>(), any::<u8>()),
                1..60,
            )
        ) {
            let mut l = localizer();
            l.on_fix(&fix(0, [0.0; 3])).unwrap();
            for (is_imu, t_ns, v, status, covariance_type) in samples {
                if is_imu {
                    let mut m = imu(t_ns, v[0], [v[1], v[2], v[0]]);
                    m.linear_acceleration.z = v[2];
                    let _ = l.on_imu(&m);
                } else {
                    let mut f = fix(t_ns, [0.0; 3]);
                    f.latitude = v[0];
                    f.longitude = v[1];
                    f.altitude = v[2];
                    f.status.status = status;
                    f.position_covariance_type = covariance_type;
                    f.position_covariance = [v[0], 0.0, 0.0, 0.0, v[1], 0.0, 0.0, 0.0, v[2]];
                    let _ = l.on_fix(&f);
                }
                for now in [i64::MIN, 0, t_ns, i64::MAX] {
                    let odom = l.odometry(now).unwrap();
                    let p = odom.pose.pose.position;
                    let v = odom.twist.twist.linear;
                    prop_assert!([p.x, p.y, p.z, v.x, v.y, v.z].iter().all(|x| x.is_finite()), "{odom:?}");
                    prop_assert!(odom.pose.covariance.iter().chain(odom.twist.covariance.iter()).all(|x| x.is_finite()));
                }
            }
        }
    }
}
