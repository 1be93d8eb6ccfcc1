//! `localizer`: one per vehicle, in its namespace. An educational linear Kalman filter (ENU
//! position and velocity) fusing `imu/data` (sensor_msgs/msg/Imu: its acceleration, rotated
//! to ENU by its orientation with gravity removed, drives the prediction) and `gps/fix`
//! (sensor_msgs/msg/NavSatFix, converted to ENU about the world's origin, updates the
//! position) into `odometry/filtered` (nav_msgs/msg/Odometry, frame `map`, child
//! `base_link`, with covariance) at `publish_rate_hz` of ROS time (simulation time with
//! `use_sim_time`). Nothing is published before the first fix.
//!
//! A sample with a NaN or infinite field, and a fix with STATUS_NO_FIX, is skipped and
//! counted (a throttled warning says how many); without fixes the filter keeps predicting
//! and the published covariance grows.
//!
//! ```text
//! localizer --ros-args -r __ns:=/quad1 -p use_sim_time:=true -p world:=worlds/inspection.yaml
//! localizer --ros-args -r __ns:=/quad1 -p origin_latitude_deg:=47.3977 \
//!     -p origin_longitude_deg:=8.5456 -p origin_altitude_m:=488.0
//! ```

use fieldproof_mission::localization::{
    FilterConfig, GnssNoise, Localizer, LocalizerConfig, OriginSettings, Refusal, Skip,
};
use fieldproof_runtime::logging::Throttle;
use fieldproof_runtime::msgs::nav_msgs::Odometry;
use fieldproof_runtime::msgs::sensor_msgs::{Imu, NavSatFix};
use fieldproof_runtime::{qos, tracing, NodeBuilder, Param, ParamHandle, MALFORMED_LOG_PERIOD};
use futures::FutureExt;

/// The handles of the localizer's parameters.
struct LocalizerParams {
    world: ParamHandle<String>,
    origin_latitude_deg: ParamHandle<f64>,
    origin_longitude_deg: ParamHandle<f64>,
    origin_altitude_m: ParamHandle<f64>,
    gnss_horizontal_stddev_m: ParamHandle<f64>,
    gnss_vertical_stddev_m: ParamHandle<f64>,
    imu_accel_noise_mps2: ParamHandle<f64>,
    unknown_accel_noise_mps2: ParamHandle<f64>,
    initial_velocity_stddev_mps: ParamHandle<f64>,
    imu_timeout_s: ParamHandle<f64>,
    settle_fixes: ParamHandle<i64>,
    gravity_mps2: ParamHandle<f64>,
    publish_rate_hz: ParamHandle<f64>,
    frame_id: ParamHandle<String>,
    child_frame_id: ParamHandle<String>,
}

fn declare(builder: &mut NodeBuilder) -> LocalizerParams {
    let origin = |name: &str, what: &str| {
        Param::double(name, f64::NAN)
            .description(&format!(
                "{what} of the world's origin (NaN: not set; set all three, or world)"
            ))
            .read_only()
    };
    let figure = |name: &str, default: f64, what: &str| {
        Param::double(name, default)
            .range(1e-6, 1000.0)
            .description(what)
            .read_only()
    };
    LocalizerParams {
        world: builder.declare(
            Param::string("world", "")
                .description(
                    "world YAML whose origin to use (worlds/<name>.yaml, also found under the \
                     installed share/fieldproof_robots/); empty: the origin_* parameters",
                )
                .read_only(),
        ),
        origin_latitude_deg: builder.declare(origin("origin_latitude_deg", "latitude, deg,")),
        origin_longitude_deg: builder.declare(origin("origin_longitude_deg", "longitude, deg,")),
        origin_altitude_m: builder.declare(origin(
            "origin_altitude_m",
            "altitude above the WGS 84 ellipsoid, m,",
        )),
        gnss_horizontal_stddev_m: builder.declare(figure(
            "gnss_horizontal_stddev_m",
            GnssNoise::QUAD_REF.horizontal_stddev_m,
            "GNSS east/north noise, m, for fixes whose covariance is unknown (the manifest's)",
        )),
        gnss_vertical_stddev_m: builder.declare(figure(
            "gnss_vertical_stddev_m",
            GnssNoise::QUAD_REF.vertical_stddev_m,
            "GNSS up noise, m, for fixes whose covariance is unknown (the manifest's)",
        )),
        imu_accel_noise_mps2: builder.declare(figure(
            "imu_accel_noise_mps2",
            FilterConfig::default().imu_accel_noise_mps2,
            "process noise of the IMU-driven prediction, m/s^2",
        )),
        unknown_accel_noise_mps2: builder.declare(figure(
            "unknown_accel_noise_mps2",
            FilterConfig::default().unknown_accel_noise_mps2,
            "process noise of the constant-velocity prediction (no usable IMU), m/s^2",
        )),
        initial_velocity_stddev_mps: builder.declare(figure(
            "initial_velocity_stddev_mps",
            FilterConfig::default().initial_velocity_stddev_mps,
            "velocity uncertainty at the first fix, m/s",
        )),
        settle_fixes: builder.declare(
            Param::int("settle_fixes", i64::from(LocalizerConfig::default().settle_fixes))
                .range(1.0, 1000.0)
                .description("fixes fused after a (re)start before the estimate is published (1: from the first fix)")
                .read_only(),
        ),
        imu_timeout_s: builder.declare(
            Param::double("imu_timeout_s", 0.1)
                .range(0.001, 10.0)
                .description("an IMU sample older than this does not drive the prediction, s")
                .read_only(),
        ),
        gravity_mps2: builder.declare(
            Param::double(
                "gravity_mps2",
                fieldproof_mission::localization::STANDARD_GRAVITY_MPS2,
            )
            .range(1.0, 20.0)
            .description("gravity removed from the IMU's acceleration, m/s^2")
            .read_only(),
        ),
        publish_rate_hz: builder.declare(
            Param::double("publish_rate_hz", 20.0)
                .range(1.0, 200.0)
                .description("odometry/filtered rate, Hz of ROS time")
                .read_only(),
        ),
        frame_id: builder.declare(
            Param::string("frame_id", "map")
                .description("frame of the estimate (ENU about the world's origin)")
                .read_only(),
        ),
        child_frame_id: builder.declare(
            Param::string("child_frame_id", "base_link")
                .description("the vehicle's frame (of the twist)")
                .read_only(),
        ),
    }
}

impl LocalizerParams {
    fn origin(&self) -> OriginSettings {
        OriginSettings {
            world: self.world.get(),
            latitude_deg: self.origin_latitude_deg.get(),
            longitude_deg: self.origin_longitude_deg.get(),
            altitude_m: self.origin_altitude_m.get(),
        }
    }

    fn config(&self) -> LocalizerConfig {
        LocalizerConfig {
            filter: FilterConfig {
                imu_accel_noise_mps2: self.imu_accel_noise_mps2.get(),
                unknown_accel_noise_mps2: self.unknown_accel_noise_mps2.get(),
                initial_velocity_stddev_mps: self.initial_velocity_stddev_mps.get(),
            },
            gnss_noise: GnssNoise {
                horizontal_stddev_m: self.gnss_horizontal_stddev_m.get(),
                vertical_stddev_m: self.gnss_vertical_stddev_m.get(),
            },
            gravity_mps2: self.gravity_mps2.get(),
            imu_timeout_ns: (self.imu_timeout_s.get() * 1e9).round() as i64,
            frame_id: self.frame_id.get(),
            child_frame_id: self.child_frame_id.get(),
            // The declared range (1..=1000) holds it; 0 would make `validate` name it.
            settle_fixes: u32::try_from(self.settle_fixes.get()).unwrap_or(0),
        }
    }
}

/// One throttled warning per kind of refusal, with the running count.
struct Warnings {
    non_finite: Throttle,
    no_fix: Throttle,
    refused: Throttle,
}

impl Warnings {
    fn new() -> Warnings {
        Warnings {
            non_finite: Throttle::new(MALFORMED_LOG_PERIOD),
            no_fix: Throttle::new(MALFORMED_LOG_PERIOD),
            refused: Throttle::new(MALFORMED_LOG_PERIOD),
        }
    }

    fn warn(&mut self, topic: &str, refusal: &Refusal) {
        let throttle = match refusal {
            Refusal::Input(Skip::NoFix) => &mut self.no_fix,
            Refusal::Input(Skip::NonFinite { .. }) => &mut self.non_finite,
            Refusal::Filter(_) => &mut self.refused,
        };
        if throttle.hit().is_some() {
            tracing::warn!(
                "{topic}: sample skipped: {refusal} ({} such in all)",
                throttle.total()
            );
        }
    }
}

/// The localizer, its totals logged when the node ends (on SIGINT the runtime drops the
/// body, so the end of the loop is never reached).
struct TotalsAtExit(Localizer);

impl Drop for TotalsAtExit {
    fn drop(&mut self) {
        let c = self.0.counters();
        tracing::info!(
            "used {} IMU samples and {} fixes; skipped {} non-finite, {} NO_FIX, {} refused by the filter; {} restarts",
            c.imu_samples, c.fixes, c.non_finite, c.no_fix, c.refused, c.restarts
        );
    }
}

fn main() -> std::process::ExitCode {
    let mut builder = NodeBuilder::new("localizer");
    let params = declare(&mut builder);
    fieldproof_runtime::main(
        move || builder,
        |node| async move {
            let ament = std::env::var("AMENT_PREFIX_PATH").ok();
            let origin = params.origin().resolve(ament.as_deref())?;
            let mut localizer = TotalsAtExit(Localizer::new(origin, params.config())?);
            tracing::info!(
                "origin {:.7} deg N, {:.7} deg E, {:.2} m",
                origin.latitude_deg,
                origin.longitude_deg,
                origin.altitude_m
            );
            let imu_sub = node.subscription::<Imu>("imu/data", qos::sensor_data())?;
            let fix_sub = node.subscription::<NavSatFix>("gps/fix", qos::sensor_data())?;
            let out = node.publisher::<Odometry>("odometry/filtered", qos::default())?;
            let mut timer = node.timer_hz(params.publish_rate_hz.get());
            let mut warnings = Warnings::new();
            loop {
                futures::select! {
                    m = imu_sub.recv().fuse() => {
                        if let Err(refusal) = localizer.0.on_imu(&m?) {
                            warnings.warn(imu_sub.topic(), &refusal);
                        }
                    }
                    m = fix_sub.recv().fuse() => {
                        let (restarts, started) = (
                            localizer.0.counters().restarts,
                            localizer.0.filter().time_ns().is_some(),
                        );
                        match localizer.0.on_fix(&m?) {
                            Err(refusal) => warnings.warn(fix_sub.topic(), &refusal),
                            Ok(()) if !started || localizer.0.counters().restarts > restarts => {
                                let e = localizer.0.filter().estimate().expect("started");
                                tracing::info!(
                                    "{} at ({:.2}, {:.2}, {:.2}) m ENU",
                                    if started { "clock went back: restarted" } else { "first fix: started" },
                                    e.position.x, e.position.y, e.position.z
                                );
                            }
                            Ok(()) => {}
                        }
                    }
                    _ = timer.tick().fuse() => {
                        if let Some(odom) = localizer.0.odometry(node.clock().now_nanos()) {
                            out.publish(odom)?;
                        }
                    }
                    _ = node.shutdown_requested().fuse() => break,
                }
            }
            Ok(())
        },
    )
}
