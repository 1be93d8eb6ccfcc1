//! `localizer` end to end (DDS in a private network namespace): a peer drives simulation time
//! on `/clock` and feeds `/quad1/imu/data` and `/quad1/gps/fix` generated from a known truth
//! (a 15 m circle at 2 m/s, 8 m up, climbing and sinking), with `robots/quad_ref`'s noise
//! (GNSS 0.5 m horizontal, 1.0 m vertical; accelerometer 0.02 m/s²) from a fixed seed, plus
//! fixes with a NaN latitude and NO_FIX fixes. The node's `odometry/filtered` stays within
//! 2 m of the truth at its stamps, finite, in `map`; the bad fixes are skipped and counted.
//! And without DDS: the simulator's own IMU and NavSat through the localizer, against the
//! simulator's truth.

use std::time::{Duration, Instant};

use fieldproof_robots::{geo, GeoOrigin};
use fieldproof_runtime::msgs::builtin_interfaces::Time;
use fieldproof_runtime::msgs::geometry_msgs::Quaternion;
use fieldproof_runtime::msgs::nav_msgs::Odometry;
use fieldproof_runtime::msgs::rosgraph_msgs::Clock;
use fieldproof_runtime::msgs::sensor_msgs::{Imu, NavSatFix, NavSatStatus};
use fieldproof_runtime::{qos, NodeBuilder};
use fieldproof_testkit::NodeProc;
use rand::rngs::StdRng;
use rand::SeedableRng;
use rand_distr::{Distribution, Normal};

const EXE: &str = env!("CARGO_BIN_EXE_localizer");
const DOMAIN: u16 = 17;
const SIGINT: i32 = 2;
/// `worlds/open_field.yaml`'s origin.
const ORIGIN: GeoOrigin = GeoOrigin {
    latitude_deg: 47.3977,
    longitude_deg: 8.5456,
    altitude_m: 488.0,
};
const GRAVITY: f64 = 9.80665;
/// Simulation step (IMU and /clock rate 100 Hz); a fix every 10 steps (10 Hz).
const STEP_NS: i64 = 10_000_000;
/// Simulated duration.
const DURATION_NS: i64 = 8_000_000_000;
/// Estimates stamped before this are the start-up (not judged).
const JUDGED_FROM_NS: i64 = 2_000_000_000;
/// The scenarios' bound.
const BOUND_M: f64 = 2.0;

/// The truth at `t` s: position, world acceleration and heading (along the circle).
fn truth(t: f64) -> ([f64; 3], [f64; 3], f64) {
    let (r, w) = (15.0, 2.0 / 15.0);
    let (s, c) = (w * t).sin_cos();
    let (sz, _) = (0.4 * t).sin_cos();
    (
        [r * c, r * s, 8.0 + 1.5 * sz],
        [-r * w * w * c, -r * w * w * s, -1.5 * 0.16 * sz],
        w * t + std::f64::consts::FRAC_PI_2,
    )
}

fn stamp(t_ns: i64) -> Time {
    Time::from_nanos(t_ns)
}

/// What the simulator's IMU gives: orientation (yaw only), the specific force in the body
/// frame (gravity included), noisy.
fn imu_at(t_ns: i64, noise: &mut impl FnMut() -> f64) -> Imu {
    let (_, a, yaw) = truth(t_ns as f64 * 1e-9);
    let (s, c) = yaw.sin_cos();
    let mut imu = Imu::default();
    imu.header.stamp = stamp(t_ns);
    imu.header.frame_id = "imu_link".into();
    imu.orientation = Quaternion {
        x: 0.0,
        y: 0.0,
        z: (yaw / 2.0).sin(),
        w: (yaw / 2.0).cos(),
    };
    imu.linear_acceleration.x = c * a[0] + s * a[1] + noise();
    imu.linear_acceleration.y = -s * a[0] + c * a[1] + noise();
    imu.linear_acceleration.z = a[2] + GRAVITY + noise();
    imu.angular_velocity.z = 2.0 / 15.0;
    imu
}

/// A raw fix of the truth, noisy (covariance unknown, as the simulator gives it).
fn fix_at(t_ns: i64, horizontal: f64, horizontal2: f64, vertical: f64) -> NavSatFix {
    let (p, _, _) = truth(t_ns as f64 * 1e-9);
    let (latitude, longitude, altitude) = geo::enu_to_geodetic(
        &ORIGIN,
        [p[0] + horizontal, p[1] + horizontal2, p[2] + vertical],
    );
    let mut fix = NavSatFix {
        latitude,
        longitude,
        altitude,
        ..Default::default()
    };
    fix.header.stamp = stamp(t_ns);
    fix
}

fn start_node() -> NodeProc {
    let origin = [
        ("origin_latitude_deg", ORIGIN.latitude_deg),
        ("origin_longitude_deg", ORIGIN.longitude_deg),
        ("origin_altitude_m", ORIGIN.altitude_m),
    ]
    .map(|(name, value)| format!("{name}:={value:?}"));
    NodeProc::command(EXE)
        .domain(DOMAIN)
        .ros_args(&["-r", "__ns:=/quad1"])
        .params(&["use_sim_time:=true"])
        .params(&origin)
        .start()
}

/// Waits for `future` at most `limit`.
async fn within<T>(limit: Duration, future: impl std::future::Future<Output = T>) -> Option<T> {
    smol::future::or(async { Some(future.await) }, async {
        smol::Timer::after(limit).await;
        None
    })
    .await
}

#[test]
fn estimates_within_2_m_of_the_truth_from_noisy_imu_and_gnss() {
    fieldproof_testkit::contain_or_return!();
    let NodeProc { mut child, stderr } = start_node();
    let mut estimates: Vec<Odometry> = Vec::new();
    let collected = &mut estimates;
    let cfg = NodeBuilder::new("localizer_peer")
        .resolve(["localizer_peer"], |k| {
            (k == "ROS_DOMAIN_ID").then(|| DOMAIN.to_string())
        })
        .expect("peer config");
    fieldproof_runtime::run(cfg, |node| async move {
        let clock = node.publisher::<Clock>("/clock", qos::clock())?;
        let imu_pub = node.publisher::<Imu>("/quad1/imu/data", qos::sensor_data())?;
        let fix_pub = node.publisher::<NavSatFix>("/quad1/gps/fix", qos::sensor_data())?;
        let odom_sub = node.subscription::<Odometry>("/quad1/odometry/filtered", qos::default())?;
        let long = Duration::from_secs(30);
        within(long, imu_pub.wait_for_subscriptions(1))
            .await
            .expect("the localizer never subscribed imu/data");
        within(long, fix_pub.wait_for_subscriptions(1))
            .await
            .expect("the localizer never subscribed gps/fix");
        within(long, clock.wait_for_subscriptions(1))
            .await
            .expect("the localizer never subscribed /clock");
        within(long, odom_sub.wait_for_publishers(1))
            .await
            .expect("the localizer never published odometry/filtered");
        let mut rng = StdRng::seed_from_u64(17);
        let horizontal = Normal::new(0.0, 0.5).unwrap();
        let vertical = Normal::new(0.0, 1.0).unwrap();
        let accel = Normal::new(0.0, 0.02).unwrap();
        let started = Instant::now();
        let mut t_ns = 0;
        while t_ns <= DURATION_NS {
            clock.publish(Clock { clock: stamp(t_ns) })?;
            imu_pub.publish(imu_at(t_ns, &mut || accel.sample(&mut rng)))?;
            if t_ns % (10 * STEP_NS) == 0 {
                let (h1, h2, v) = (
                    horizontal.sample(&mut rng),
                    horizontal.sample(&mut rng),
                    vertical.sample(&mut rng),
                );
                let mut fix = fix_at(t_ns, h1, h2, v);
                // Three of each bad kind (best effort: one could be lost), skipped and counted.
                if (3_000_000_000..3_300_000_000).contains(&t_ns) {
                    fix.latitude = f64::NAN;
                }
                if (4_000_000_000..4_300_000_000).contains(&t_ns) {
                    fix.status.status = NavSatStatus::STATUS_NO_FIX;
                    fix.latitude = 0.0;
                }
                fix_pub.publish(fix)?;
            }
            smol::Timer::after(Duration::from_millis(10)).await;
            while let Some(odom) = odom_sub.try_recv()? {
                collected.push(odom);
            }
            t_ns += STEP_NS;
        }
        // The last estimates in flight.
        let end = Instant::now() + Duration::from_millis(500);
        while Instant::now() < end {
            smol::Timer::after(Duration::from_millis(20)).await;
            while let Some(odom) = odom_sub.try_recv()? {
                collected.push(odom);
            }
        }
        eprintln!(
            "fed {} s of simulation in {:?}",
            DURATION_NS as f64 * 1e-9,
            started.elapsed()
        );
        Ok(())
    })
    .expect("peer run");
    child.signal(SIGINT).expect("SIGINT");
    let end = Instant::now() + Duration::from_secs(10);
    while child.try_wait().unwrap().is_none() {
        assert!(Instant::now() < end, "localizer did not exit after SIGINT");
        std::thread::sleep(Duration::from_millis(20));
    }
    stderr.wait_closed(Duration::from_secs(5));

    let judged: Vec<(f64, f64)> = estimates
        .iter()
        .filter(|o| o.header.stamp.to_nanos() >= JUDGED_FROM_NS)
        .map(|o| {
            let t = o.header.stamp.to_nanos() as f64 * 1e-9;
            let (truth, _, _) = truth(t);
            let p = o.pose.pose.position;
            let error =
                ((p.x - truth[0]).powi(2) + (p.y - truth[1]).powi(2) + (p.z - truth[2]).powi(2))
                    .sqrt();
            (t, error)
        })
        .collect();
    for o in &estimates {
        assert_eq!(o.header.frame_id, "map");
        assert_eq!(o.child_frame_id, "base_link");
        let p = o.pose.pose.position;
        assert!([p.x, p.y, p.z].iter().all(|v| v.is_finite()), "{o:?}");
        assert!(o.pose.covariance.iter().all(|v| v.is_finite()), "{o:?}");
        assert!(
            o.pose.covariance[0] > 0.0 && o.pose.covariance[14] > 0.0,
            "{o:?}"
        );
    }
    // 20 Hz over 6 judged seconds is 120; a loaded machine may lose a few.
    assert!(
        judged.len() >= 60,
        "{} judged estimates of {}: {:?}",
        judged.len(),
        estimates.len(),
        stderr.all()
    );
    let max = judged.iter().map(|(_, e)| *e).fold(0.0, f64::max);
    let mean = judged.iter().map(|(_, e)| e).sum::<f64>() / judged.len() as f64;
    eprintln!(
        "{} estimates judged: error max {max:.3} m, mean {mean:.3} m (bound {BOUND_M} m)",
        judged.len()
    );
    assert!(max < BOUND_M, "max error {max} m: {judged:?}");
    assert!(
        stderr.count("latitude is not finite") >= 1,
        "{:?}",
        stderr.all()
    );
    assert!(stderr.count("status NO_FIX") >= 1, "{:?}", stderr.all());
    let summary = stderr
        .all()
        .into_iter()
        .find(|l| l.contains("IMU samples and"))
        .unwrap_or_else(|| panic!("no summary line: {:?}", stderr.all()));
    assert!(summary.contains(", 0 refused by the filter"), "{summary}");
    assert!(!summary.contains("skipped 0 non-finite"), "{summary}");
    assert!(!summary.contains(", 0 NO_FIX"), "{summary}");
}

/// The simulator's own IMU and raw NavSat (the library, stepped in simulation time, no DDS)
/// on `worlds/inspection.yaml`: quad_ref takes off from its pad, flies east, yaws on the spot,
/// flies sideways (west) and climbs; the localizer, fed exactly what the simulator publishes and
/// given the world's origin, stays within 2 m of the simulator's truth. This holds the two
/// ends of `fieldproof_robots::geo` and the IMU convention (orientation in the world, specific
/// force with gravity in the sensor frame) together.
#[test]
fn tracks_the_simulators_truth_from_its_own_imu_and_navsat() {
    use fieldproof_mission::localization::{Localizer, LocalizerConfig};
    use fieldproof_runtime::msgs::geometry_msgs::{Twist, Vector3};
    use fieldproof_sim::{Msg, SimConfig, Simulation, Sink, Spawn, SpawnSpec};

    /// Keeps the IMU samples and fixes, skips everything else (the camera is expensive).
    struct Sensors {
        wanted: Vec<usize>,
        samples: Vec<Msg>,
    }
    impl Sink for Sensors {
        fn publish(&mut self, topic: usize, msg: Msg) {
            if self.wanted.contains(&topic) {
                self.samples.push(msg);
            }
        }
        fn wants(&self, topic: usize) -> bool {
            self.wanted.contains(&topic)
        }
    }

    let root = fieldproof_testkit::repo_root();
    let world = fieldproof_robots::World::load(root.join("worlds/inspection.yaml")).unwrap();
    let quad = root.join("robots/quad_ref/robot.yaml");
    let spec = SpawnSpec::parse(&format!(
        "ns=quad1,manifest={},spawn=spawn_pad",
        quad.display()
    ))
    .unwrap();
    let spawn = Spawn::resolve(&spec, 0, &world).unwrap();
    let config = SimConfig {
        seed: 17,
        ..SimConfig::default()
    };
    let mut sim = Simulation::new(&world, &[spawn], config);
    let wanted: Vec<usize> = sim
        .topics()
        .iter()
        .enumerate()
        .filter(|(_, t)| {
            t.ros_type == "sensor_msgs/msg/Imu" || t.ros_type == "sensor_msgs/msg/NavSatFix"
        })
        .map(|(i, _)| i)
        .collect();
    assert_eq!(wanted.len(), 2, "{:?}", sim.topics());
    let mut sensors = Sensors {
        wanted,
        samples: Vec::new(),
    };
    let mut localizer = Localizer::new(world.origin, LocalizerConfig::default()).unwrap();
    let command = |x: f64, y: f64, z: f64, yaw_rate: f64| Twist {
        linear: Vector3 { x, y, z },
        angular: Vector3 {
            x: 0.0,
            y: 0.0,
            z: yaw_rate,
        },
    };
    // (until s, command): take off, east (short of the wall at x = -4), stop, yaw a quarter
    // turn on the spot (facing north), then body-left (west) while climbing.
    let plan = [
        (4.0, command(0.0, 0.0, 1.5, 0.0)),
        (8.0, command(2.0, 0.0, 0.0, 0.0)),
        (10.0, command(0.0, 0.0, 0.0, 0.0)),
        (11.0, command(0.0, 0.0, 0.0, std::f64::consts::FRAC_PI_2)),
        (13.0, command(0.0, 0.0, 0.0, 0.0)),
        (21.0, command(0.0, 2.0, 0.5, 0.0)),
    ];
    let step_ns = sim.step_ns();
    let (mut max_error, mut error_sum, mut judged) = (0.0f64, 0.0, 0);
    let mut last_truth = None;
    sim.start(&mut sensors);
    while sim.time_ns() < 21_000_000_000 {
        let t = sim.time_ns() as f64 * 1e-9;
        let (_, cmd) = plan
            .iter()
            .find(|(until, _)| t < *until)
            .expect("within the plan");
        sim.set_command(0, *cmd);
        sim.step(&mut sensors);
        for msg in sensors.samples.drain(..) {
            match msg {
                Msg::Imu(imu) => localizer.on_imu(&imu).expect("a usable IMU sample"),
                Msg::NavSatFix(fix) => localizer.on_fix(&fix).expect("a usable fix"),
                _ => {}
            }
        }
        // Judge every 50 ms of simulation time from 1 s on.
        if sim.time_ns() >= 1_000_000_000 && sim.time_ns() % 50_000_000 < step_ns {
            let truth = sim.truth_pose(0).expect("the quad's truth");
            let odom = localizer.odometry(sim.time_ns()).expect("an estimate");
            let p = odom.pose.pose.position;
            // The estimate is the GNSS antenna's (gps_link, 8 cm above base_link).
            let error = ((p.x - truth.x).powi(2)
                + (p.y - truth.y).powi(2)
                + (p.z - 0.08 - truth.z).powi(2))
            .sqrt();
            max_error = max_error.max(error);
            error_sum += error;
            judged += 1;
            last_truth = Some(truth);
        }
    }
    let truth = last_truth.unwrap();
    // It did fly: east, up, and sideways after the turn.
    assert!(
        truth.x < -20.0 && truth.z > 8.0 && truth.yaw > 1.0 && sim.collision_events().is_empty(),
        "the quad did not fly the plan: {truth:?}, {:?}",
        sim.collision_events()
    );
    let c = localizer.counters();
    eprintln!(
        "simulator in the loop: {judged} estimates, error max {max_error:.3} m, mean {:.3} m; \
         {} IMU samples, {} fixes",
        error_sum / judged as f64,
        c.imu_samples,
        c.fixes
    );
    assert!(judged >= 380, "{judged}");
    assert!(max_error < BOUND_M, "max error {max_error} m");
    assert_eq!((c.non_finite, c.no_fix, c.refused), (0, 0, 0));
}
