//! The educational linear Kalman filter: six states, ENU position and velocity.
//!
//! - Prediction: `x' = F x + B a`, `P' = F P Fᵀ + Q` with `F = [I dt·I; 0 I]`,
//!   `B = [dt²/2·I; dt·I]` and `Q = σ² B Bᵀ` (discrete white-noise acceleration). `a` is the
//!   IMU's acceleration in ENU (gravity removed) when there is one, with σ =
//!   [`FilterConfig::imu_accel_noise_mps2`]; without it `a = 0` (constant velocity) and σ =
//!   [`FilterConfig::unknown_accel_noise_mps2`], the accelerations the model does not know.
//! - Update with a position measurement `z` (ENU, covariance `R`): `H = [I 0]`,
//!   `K = P Hᵀ (H P Hᵀ + R)⁻¹` (a Cholesky solve), `x += K (z − H x)`, and the Joseph form
//!   `P = (I − K H) P (I − K H)ᵀ + K R Kᵀ`, which keeps `P` symmetric and positive.
//!
//! Every input is checked before it touches the state, and every result after: a non-finite
//! input, a covariance that is not positive definite or a result that overflowed is
//! refused ([`Rejected`]) and leaves the filter as it was, so the state never holds a NaN.

use nalgebra::{Matrix3, Matrix3x6, Matrix6, Matrix6x3, Vector3, Vector6};
use thiserror::Error;

/// Noise figures of the filter's model.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FilterConfig {
    /// Standard deviation, m/s², of the acceleration the IMU-driven prediction misses (sensor
    /// noise, orientation error, vibration, the IMU's rate): white over each step.
    pub imu_accel_noise_mps2: f64,
    /// Standard deviation, m/s², of the acceleration a constant-velocity prediction (no usable
    /// IMU) does not know: about the vehicle's acceleration limit.
    pub unknown_accel_noise_mps2: f64,
    /// Standard deviation, m/s, of each velocity state when the filter starts from a fix.
    pub initial_velocity_stddev_mps: f64,
}

impl Default for FilterConfig {
    /// Figures for `robots/quad_ref` (0.02 m/s² accelerometer noise, 3 m/s² acceleration
    /// limit), with margin for the model's errors.
    fn default() -> Self {
        Self {
            imu_accel_noise_mps2: 0.5,
            unknown_accel_noise_mps2: 3.0,
            initial_velocity_stddev_mps: 1.0,
        }
    }
}

impl FilterConfig {
    /// Checks every figure is a positive finite number, naming the first that is not.
    pub fn validate(&self) -> Result<(), String> {
        for (field, value) in [
            ("imu_accel_noise_mps2", self.imu_accel_noise_mps2),
            ("unknown_accel_noise_mps2", self.unknown_accel_noise_mps2),
            (
                "initial_velocity_stddev_mps",
                self.initial_velocity_stddev_mps,
            ),
        ] {
            if !(value.is_finite() && value > 0.0) {
                return Err(format!("{field}: {value} is not a positive number"));
            }
        }
        Ok(())
    }
}

/// Why the filter refused an input (its state is unchanged).
#[derive(Debug, Clone, PartialEq, Error)]
pub enum Rejected {
    /// An input component is NaN or infinite.
    #[error("{field} is not finite ({value})")]
    NonFinite {
        /// The component, e.g. `position.x`, `covariance[4]`, `acceleration.z`.
        field: &'static str,
        /// Its value.
        value: f64,
    },
    /// A measurement covariance (or the innovation's) is not symmetric positive definite.
    #[error("{0} is not positive definite")]
    NotPositiveDefinite(&'static str),
    /// The result would not be finite (inputs too large): the step is dropped.
    #[error("the {0} would leave non-finite numbers in the state: dropped")]
    Overflow(&'static str),
    /// The filter has no state yet (no first fix).
    #[error("no state yet: waiting for the first fix")]
    NotInitialized,
}

/// The filter's state at one time.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Estimate {
    /// Time of the state, ns (the stamps' clock).
    pub t_ns: i64,
    /// ENU position, m.
    pub position: Vector3<f64>,
    /// ENU velocity, m/s.
    pub velocity: Vector3<f64>,
    /// Covariance of (position, velocity), row-major 6x6.
    pub covariance: Matrix6<f64>,
}

impl Estimate {
    /// The 3x3 position block of the covariance.
    pub fn position_covariance(&self) -> Matrix3<f64> {
        self.covariance.fixed_view::<3, 3>(0, 0).into_owned()
    }

    /// The 3x3 velocity block of the covariance.
    pub fn velocity_covariance(&self) -> Matrix3<f64> {
        self.covariance.fixed_view::<3, 3>(3, 3).into_owned()
    }
}

/// The filter: no state until [`Filter::initialize`], then predictions and updates.
#[derive(Debug, Clone)]
pub struct Filter {
    config: FilterConfig,
    state: Option<State>,
}

#[derive(Debug, Clone, Copy)]
struct State {
    t_ns: i64,
    x: Vector6<f64>,
    p: Matrix6<f64>,
}

impl State {
    fn is_finite(&self) -> bool {
        self.x.iter().chain(self.p.iter()).all(|v| v.is_finite())
    }

    fn estimate(&self) -> Estimate {
        Estimate {
            t_ns: self.t_ns,
            position: self.x.fixed_rows::<3>(0).into_owned(),
            velocity: self.x.fixed_rows::<3>(3).into_owned(),
            covariance: self.p,
        }
    }

    /// The state predicted to `to_ns` (unchanged when `to_ns` is not later).
    fn predicted(&self, config: &FilterConfig, to_ns: i64, accel: Option<Vector3<f64>>) -> State {
        if to_ns <= self.t_ns {
            return *self;
        }
        let dt = to_ns.saturating_sub(self.t_ns) as f64 * 1e-9;
        let (a, sigma) = match accel {
            Some(a) => (a, config.imu_accel_noise_mps2),
            None => (Vector3::zeros(), config.unknown_accel_noise_mps2),
        };
        let mut f = Matrix6::identity();
        f.fixed_view_mut::<3, 3>(0, 3)
            .copy_from(&(Matrix3::identity() * dt));
        let mut b = Matrix6x3::zeros();
        b.fixed_view_mut::<3, 3>(0, 0)
            .copy_from(&(Matrix3::identity() * (0.5 * dt * dt)));
        b.fixed_view_mut::<3, 3>(3, 0)
            .copy_from(&(Matrix3::identity() * dt));
        let q = b * b.transpose() * (sigma * sigma);
        let p = f * self.p * f.transpose() + q;
        State {
            t_ns: to_ns,
            x: f * self.x + b * a,
            p: symmetric(p),
        }
    }
}

/// `(m + mᵀ) / 2`: removes the rounding asymmetry products leave.
fn symmetric<const N: usize>(m: nalgebra::SMatrix<f64, N, N>) -> nalgebra::SMatrix<f64, N, N> {
    (m + m.transpose()) * 0.5
}

/// The first non-finite component of `v`, named `names[i]`.
fn non_finite(names: [&'static str; 3], v: &Vector3<f64>) -> Result<(), Rejected> {
    match names
        .into_iter()
        .zip(v.iter())
        .find(|(_, x)| !x.is_finite())
    {
        Some((field, value)) => Err(Rejected::NonFinite {
            field,
            value: *value,
        }),
        None => Ok(()),
    }
}

/// Checks a measurement covariance: finite and symmetric positive definite.
fn check_covariance(covariance: &Matrix3<f64>) -> Result<(), Rejected> {
    const NAMES: [&str; 9] = [
        "covariance[0]",
        "covariance[1]",
        "covariance[2]",
        "covariance[3]",
        "covariance[4]",
        "covariance[5]",
        "covariance[6]",
        "covariance[7]",
        "covariance[8]",
    ];
    // Row-major order, as in the messages.
    for (i, field) in NAMES.into_iter().enumerate() {
        let value = covariance[(i / 3, i % 3)];
        if !value.is_finite() {
            return Err(Rejected::NonFinite { field, value });
        }
    }
    if symmetric(*covariance).cholesky().is_none() {
        return Err(Rejected::NotPositiveDefinite("the measurement covariance"));
    }
    Ok(())
}

impl Filter {
    /// A filter without state; the figures are checked ([`FilterConfig::validate`]).
    pub fn new(config: FilterConfig) -> Result<Filter, String> {
        config.validate()?;
        Ok(Filter {
            config,
            state: None,
        })
    }

    /// The model's noise figures.
    pub fn config(&self) -> &FilterConfig {
        &self.config
    }

    /// The time of the state, once there is one.
    pub fn time_ns(&self) -> Option<i64> {
        self.state.map(|s| s.t_ns)
    }

    /// The current state, once there is one.
    pub fn estimate(&self) -> Option<Estimate> {
        self.state.map(|s| s.estimate())
    }

    /// The state as it would be predicted at `to_ns` with no acceleration known (the state
    /// itself when `to_ns` is not later), leaving the filter unchanged: what to publish
    /// between measurements.
    pub fn extrapolated(&self, to_ns: i64) -> Option<Estimate> {
        let state = self.state?;
        let predicted = state.predicted(&self.config, to_ns, None);
        Some(if predicted.is_finite() {
            predicted.estimate()
        } else {
            state.estimate()
        })
    }

    /// (Re)starts the filter at `t_ns` from a position fix: velocity zero with
    /// [`FilterConfig::initial_velocity_stddev_mps`], position covariance the fix's.
    pub fn initialize(
        &mut self,
        t_ns: i64,
        position: Vector3<f64>,
        covariance: Matrix3<f64>,
    ) -> Result<(), Rejected> {
        non_finite(["position.x", "position.y", "position.z"], &position)?;
        check_covariance(&covariance)?;
        let mut x = Vector6::zeros();
        x.fixed_rows_mut::<3>(0).copy_from(&position);
        let mut p = Matrix6::zeros();
        p.fixed_view_mut::<3, 3>(0, 0)
            .copy_from(&symmetric(covariance));
        let v = self.config.initial_velocity_stddev_mps.powi(2);
        p.fixed_view_mut::<3, 3>(3, 3)
            .copy_from(&(Matrix3::identity() * v));
        self.state = Some(State { t_ns, x, p });
        Ok(())
    }

    /// Predicts the state forward to `to_ns` with the ENU acceleration `accel` (gravity
    /// removed; `None`: constant velocity). A `to_ns` not after the state's time changes
    /// nothing (a late sample is not predicted backwards).
    pub fn predict(&mut self, to_ns: i64, accel: Option<Vector3<f64>>) -> Result<(), Rejected> {
        let state = self.state.ok_or(Rejected::NotInitialized)?;
        if let Some(a) = &accel {
            non_finite(["acceleration.x", "acceleration.y", "acceleration.z"], a)?;
        }
        let predicted = state.predicted(&self.config, to_ns, accel);
        if !predicted.is_finite() {
            return Err(Rejected::Overflow("prediction"));
        }
        self.state = Some(predicted);
        Ok(())
    }

    /// Corrects the state with a measured ENU position and its covariance (at the state's
    /// time: predict to the measurement's time first).
    pub fn update_position(
        &mut self,
        position: Vector3<f64>,
        covariance: Matrix3<f64>,
    ) -> Result<(), Rejected> {
        let state = self.state.ok_or(Rejected::NotInitialized)?;
        non_finite(["position.x", "position.y", "position.z"], &position)?;
        check_covariance(&covariance)?;
        let r = symmetric(covariance);
        let p = state.p;
        let innovation = position - state.x.fixed_rows::<3>(0);
        let s = symmetric(p.fixed_view::<3, 3>(0, 0).into_owned() + r);
        let chol = s
            .cholesky()
            .ok_or(Rejected::NotPositiveDefinite("the innovation covariance"))?;
        // K = P Hᵀ S⁻¹, i.e. Kᵀ = S⁻¹ H P (S symmetric): one Cholesky solve.
        let p_ht: Matrix6x3<f64> = p.fixed_view::<6, 3>(0, 0).into_owned();
        let k: Matrix6x3<f64> = chol.solve(&p_ht.transpose()).transpose();
        let x = state.x + k * innovation;
        let mut h = Matrix3x6::zeros();
        h.fixed_view_mut::<3, 3>(0, 0).fill_with_identity();
        let i_kh = Matrix6::identity() - k * h;
        let p = symmetric(i_kh * p * i_kh.transpose() + k * r * k.transpose());
        let updated = State {
            t_ns: state.t_ns,
            x,
            p,
        };
        if !updated.is_finite() {
            return Err(Rejected::Overflow("update"));
        }
        self.state = Some(updated);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use rand::rngs::StdRng;
    use rand::SeedableRng;
    use rand_distr::{Distribution, Normal};

    /// `robots/quad_ref`'s GNSS noise: 0.5 m horizontal, 1.0 m vertical (standard deviations).
    fn quad_ref_gnss_covariance() -> Matrix3<f64> {
        Matrix3::from_diagonal(&Vector3::new(0.25, 0.25, 1.0))
    }

    /// A truth trajectory: a 20 m circle at 2 m/s, 10 m up, climbing and sinking by 2 m.
    fn truth(t: f64) -> (Vector3<f64>, Vector3<f64>) {
        let w = 0.1;
        let position = Vector3::new(
            20.0 * (w * t).cos(),
            20.0 * (w * t).sin(),
            10.0 + 2.0 * (0.3 * t).sin(),
        );
        let acceleration = Vector3::new(
            -20.0 * w * w * (w * t).cos(),
            -20.0 * w * w * (w * t).sin(),
            -2.0 * 0.09 * (0.3 * t).sin(),
        );
        (position, acceleration)
    }

    /// Runs the filter over 60 s of the truth: IMU acceleration (0.02 m/s² noise, quad_ref's)
    /// at 200 Hz when `with_imu`, GNSS fixes (quad_ref's noise) at 10 Hz; returns the
    /// largest and the mean position error after the first 5 s, and the mean fix error.
    fn run(seed: u64, with_imu: bool) -> (f64, f64, f64) {
        let mut rng = StdRng::seed_from_u64(seed);
        let horizontal = Normal::new(0.0, 0.5).unwrap();
        let vertical = Normal::new(0.0, 1.0).unwrap();
        let accel_noise = Normal::new(0.0, 0.02).unwrap();
        let mut filter = Filter::new(FilterConfig::default()).unwrap();
        let (mut max_error, mut error_sum, mut fix_error_sum, mut n) = (0.0f64, 0.0, 0.0, 0);
        for step in 0..=12_000 {
            let t_ns = step * 5_000_000; // 200 Hz
            let t = t_ns as f64 * 1e-9;
            let (p, a) = truth(t);
            if with_imu && filter.time_ns().is_some() {
                let measured = a + Vector3::from_fn(|_, _| accel_noise.sample(&mut rng));
                filter.predict(t_ns, Some(measured)).unwrap();
            }
            if step % 20 == 0 {
                let fix = p + Vector3::new(
                    horizontal.sample(&mut rng),
                    horizontal.sample(&mut rng),
                    vertical.sample(&mut rng),
                );
                if filter.time_ns().is_none() {
                    filter
                        .initialize(t_ns, fix, quad_ref_gnss_covariance())
                        .unwrap();
                } else {
                    filter.predict(t_ns, None).unwrap();
                    filter
                        .update_position(fix, quad_ref_gnss_covariance())
                        .unwrap();
                }
                if t >= 5.0 {
                    let error = (filter.estimate().unwrap().position - p).norm();
                    max_error = max_error.max(error);
                    error_sum += error;
                    fix_error_sum += (fix - p).norm();
                    n += 1;
                }
            }
        }
        (max_error, error_sum / n as f64, fix_error_sum / n as f64)
    }

    #[test]
    fn converges_within_2_m_of_the_truth_with_imu_and_gnss() {
        for seed in [1, 2, 3] {
            let (max_error, mean_error, mean_fix_error) = run(seed, true);
            eprintln!("IMU + GNSS, seed {seed}: error max {max_error:.3} m, mean {mean_error:.3} m; fixes mean {mean_fix_error:.3} m");
            assert!(max_error < 2.0, "seed {seed}: max error {max_error} m");
            // The filter is better than the fixes it is fed.
            assert!(
                mean_error < 0.6 * mean_fix_error,
                "seed {seed}: mean error {mean_error} m, fixes {mean_fix_error} m"
            );
        }
    }

    #[test]
    fn converges_within_2_m_of_the_truth_with_gnss_only() {
        for seed in [4, 5, 6] {
            let (max_error, mean_error, mean_fix_error) = run(seed, false);
            eprintln!("GNSS only, seed {seed}: error max {max_error:.3} m, mean {mean_error:.3} m; fixes mean {mean_fix_error:.3} m");
            assert!(max_error < 2.0, "seed {seed}: max error {max_error} m");
            assert!(
                mean_error < mean_fix_error,
                "seed {seed}: mean error {mean_error} m, fixes {mean_fix_error} m"
            );
        }
    }

    fn started() -> Filter {
        let mut filter = Filter::new(FilterConfig::default()).unwrap();
        filter
            .initialize(0, Vector3::new(1.0, 2.0, 3.0), quad_ref_gnss_covariance())
            .unwrap();
        filter
    }

    #[test]
    fn covariance_grows_without_gnss() {
        let mut filter = started();
        let mut last = filter.estimate().unwrap().position_covariance().trace();
        for second in 1..=10 {
            for step in 1..=200 {
                let t_ns = (second - 1) * 1_000_000_000 + step * 5_000_000;
                filter.predict(t_ns, Some(Vector3::zeros())).unwrap();
            }
            let trace = filter.estimate().unwrap().position_covariance().trace();
            assert!(trace > last, "{second} s: {trace} <= {last}");
            last = trace;
        }
        // Without the IMU it grows faster: the model knows less.
        let mut blind = started();
        blind.predict(10_000_000_000, None).unwrap();
        assert!(blind.estimate().unwrap().position_covariance().trace() > last);
        // And the extrapolation to publish grows it without touching the state.
        let before = filter.estimate().unwrap();
        let ahead = filter.extrapolated(11_000_000_000).unwrap();
        assert!(ahead.position_covariance().trace() > last);
        assert_eq!(filter.estimate().unwrap(), before);
    }

    #[test]
    fn a_fix_shrinks_the_covariance_and_pulls_the_state() {
        let mut filter = started();
        filter.predict(1_000_000_000, None).unwrap();
        let before = filter.estimate().unwrap();
        filter
            .update_position(Vector3::new(2.0, 2.0, 3.0), quad_ref_gnss_covariance())
            .unwrap();
        let after = filter.estimate().unwrap();
        assert!(after.position_covariance().trace() < before.position_covariance().trace());
        assert!(
            after.position.x > 1.0 && after.position.x < 2.0,
            "{after:?}"
        );
        // Symmetric and positive definite.
        assert_eq!(after.covariance, after.covariance.transpose());
        assert!(after.covariance.cholesky().is_some());
    }

    #[test]
    fn rejects_non_finite_input_and_keeps_its_state() {
        let mut filter = started();
        let before = filter.estimate().unwrap();
        assert!(matches!(
            filter.update_position(Vector3::new(f64::NAN, 0.0, 0.0), quad_ref_gnss_covariance()),
            Err(Rejected::NonFinite {
                field: "position.x",
                ..
            })
        ));
        let mut covariance = quad_ref_gnss_covariance();
        covariance[(2, 2)] = f64::INFINITY;
        assert!(matches!(
            filter.update_position(Vector3::zeros(), covariance),
            Err(Rejected::NonFinite {
                field: "covariance[8]",
                ..
            })
        ));
        assert!(matches!(
            filter.update_position(Vector3::zeros(), -quad_ref_gnss_covariance()),
            Err(Rejected::NotPositiveDefinite(_))
        ));
        assert!(matches!(
            filter.predict(1_000_000, Some(Vector3::new(0.0, f64::NEG_INFINITY, 0.0))),
            Err(Rejected::NonFinite {
                field: "acceleration.y",
                ..
            })
        ));
        assert!(matches!(
            filter.predict(
                1_000_000_000_000_000_000,
                Some(Vector3::new(1e300, 0.0, 0.0))
            ),
            Err(Rejected::Overflow(_))
        ));
        assert_eq!(filter.estimate().unwrap(), before);
        let mut fresh = Filter::new(FilterConfig::default()).unwrap();
        assert!(matches!(
            fresh.initialize(
                0,
                Vector3::new(0.0, 0.0, f64::NAN),
                quad_ref_gnss_covariance()
            ),
            Err(Rejected::NonFinite {
                field: "position.z",
                ..
            })
        ));
        assert_eq!(fresh.estimate(), None);
        assert_eq!(fresh.predict(1, None), Err(Rejected::NotInitialized));
    }

    #[test]
    fn a_bad_configuration_names_its_field() {
        let config = FilterConfig {
            unknown_accel_noise_mps2: 0.0,
            ..FilterConfig::default()
        };
        assert_eq!(
            Filter::new(config).unwrap_err(),
            "unknown_accel_noise_mps2: 0 is not a positive number"
        );
    }

    /// Any number, NaN and infinities included, with a bias towards the awkward ones.
    fn any_number() -> impl Strategy<Value = f64> {
        prop_oneof![
            -100.0f64..100.0,
            Just(f64::NAN),
            Just(f64::INFINITY),
            Just(f64::NEG_INFINITY),
            Just(1e300),
            Just(-1e300),
            Just(0.0),
            any::<f64>(),
        ]
    }

    #[derive(Debug, Clone)]
    enum Step {
        Predict(i64, Option<[f64; 3]>),
        Update([f64; 3], [f64; 9]),
        Initialize(i64, [f64; 3], [f64; 3]),
    }

    fn any_step() -> impl Strategy<Value = Step> {
        let v3 = || [any_number(), any_number(), any_number()];
        prop_oneof![
            (
                -1_000_000_000_000i64..1_000_000_000_000,
                proptest::option::of(v3())
            )
                .prop_map(|(t, a)| Step::Predict(t, a)),
            (v3(), proptest::array::uniform9(any_number())).prop_map(|(z, r)| Step::Update(z, r)),
            (
                -1_000_000_000_000i64..1_000_000_000_000,
                v3(),
                [0.0f64..1e6, 0.0f64..1e6, 0.0f64..1e6]
            )
                .prop_map(|(t, z, d)| Step::Initialize(t, z, d)),
        ]
    }

    proptest! {
        /// Whatever the inputs, the state and its covariance stay finite and the covariance
        /// symmetric.
        #[test]
        fn the_state_never_holds_a_nan(steps in proptest::collection::vec(any_step(), 1..40)) {
            let mut filter = started();
            for step in steps {
                let _ = match step {
                    Step::Predict(t, a) => filter.predict(t, a.map(Vector3::from)),
                    Step::Update(z, r) => {
                        filter.update_position(Vector3::from(z), Matrix3::from_row_slice(&r))
                    }
                    Step::Initialize(t, z, d) => filter.initialize(
                        t,
                        Vector3::from(z),
                        Matrix3::from_diagonal(&Vector3::from(d)),
                    ),
                };
                let e = filter.estimate().unwrap();
                prop_assert!(e.position.iter().chain(e.velocity.iter()).all(|v| v.is_finite()));
                prop_assert!(e.covariance.iter().all(|v| v.is_finite()));
                prop_assert_eq!(e.covariance, e.covariance.transpose());
                let ahead = filter.extrapolated(i64::MAX).unwrap();
                prop_assert!(ahead.covariance.iter().all(|v| v.is_finite()));
            }
        }
    }
}
