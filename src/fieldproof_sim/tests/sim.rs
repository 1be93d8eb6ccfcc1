//! Library-level tests of the simulator in simulation time (no DDS).

use std::time::Instant;

use fieldproof_msgs::geometry_msgs::{Twist, Vector3};
use fieldproof_robots::{Durability, World};
use fieldproof_sim::pacing::Pacer;
use fieldproof_sim::sim::COLLISIONS_TOPIC;
use fieldproof_sim::{Msg, NullSink, Recorder, SimConfig, Simulation, Sink, Spawn, SpawnSpec};
use fieldproof_testkit::repo_root;

fn depot() -> World {
    World::load(repo_root().join("worlds/depot.yaml")).unwrap()
}

fn spawn(world: &World, arg: &str) -> Spawn {
    let arg = arg.replace(
        "MANIFEST",
        &repo_root()
            .join("robots/ugv_ref/robot.yaml")
            .display()
            .to_string(),
    );
    let arg = arg.replace(
        "QUAD",
        &repo_root()
            .join("robots/quad_ref/robot.yaml")
            .display()
            .to_string(),
    );
    let arg = arg.replace(
        "CARRIER",
        &repo_root()
            .join("robots/carrier_ref/robot.yaml")
            .display()
            .to_string(),
    );
    Spawn::resolve(&SpawnSpec::parse(&arg).unwrap(), 0, world).unwrap()
}

fn sim(spawns: &[&str]) -> Simulation {
    let w = depot();
    let s: Vec<Spawn> = spawns.iter().map(|a| spawn(&w, a)).collect();
    Simulation::new(&w, &s, SimConfig::default())
}

fn topic(sim: &Simulation, name: &str) -> usize {
    sim.topics()
        .iter()
        .position(|t| t.name == name)
        .unwrap_or_else(|| {
            panic!(
                "no topic {name}: {:?}",
                sim.topics().iter().map(|t| &t.name).collect::<Vec<_>>()
            )
        })
}

fn twist(vx: f64, wz: f64) -> Twist {
    Twist {
        linear: Vector3 {
            x: vx,
            y: 0.0,
            z: 0.0,
        },
        angular: Vector3 {
            x: 0.0,
            y: 0.0,
            z: wz,
        },
    }
}

/// Records everything but the camera's images and cloud (expensive in debug builds).
#[derive(Default)]
struct NoCamera {
    rec: Recorder,
    skip: Vec<usize>,
}

impl Sink for NoCamera {
    fn publish(&mut self, topic: usize, msg: Msg) {
        self.rec.publish(topic, msg);
    }
    fn wants(&self, topic: usize) -> bool {
        !self.skip.contains(&topic)
    }
}

fn no_camera(sim: &Simulation) -> NoCamera {
    NoCamera {
        rec: Recorder::default(),
        skip: sim
            .topics()
            .iter()
            .enumerate()
            .filter(|(_, t)| {
                t.ros_type == "sensor_msgs/msg/Image" || t.ros_type == "sensor_msgs/msg/PointCloud2"
            })
            .map(|(i, _)| i)
            .collect(),
    }
}

fn last_odom(rec: &Recorder, topic: usize) -> fieldproof_msgs::nav_msgs::Odometry {
    rec.messages
        .iter()
        .rev()
        .find_map(|(t, m)| match m {
            Msg::Odometry(o) if *t == topic => Some(o.clone()),
            _ => None,
        })
        .expect("an odometry message")
}

#[test]
fn a_non_finite_command_stops_the_vehicle_and_is_named() {
    let mut sim = sim(&["ns=ugv1,manifest=MANIFEST,spawn=spawn_dock"]);
    let odom = topic(&sim, "/ugv1/_bridge/odom");
    let mut sink = no_camera(&sim);
    assert_eq!(sim.set_command(0, twist(0.5, 0.0)), None);
    sim.run_steps(1000, &mut sink);
    let moving = last_odom(&sink.rec, odom).twist.twist.linear.x;
    assert!(moving > 0.4, "{moving}");
    for bad in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
        let refused = sim.set_command(0, twist(0.5, bad));
        assert_eq!(refused.map(|(field, _)| field), Some("angular.z"));
    }
    sim.run_steps(2000, &mut sink);
    let o = last_odom(&sink.rec, odom);
    assert_eq!(o.twist.twist.linear.x, 0.0, "stopped, not driven by a NaN");
    let p = o.pose.pose.position;
    assert!(p.x.is_finite() && p.y.is_finite(), "{p:?}");
}

#[test]
fn half_a_metre_along_x_on_odometry() {
    let mut sim = sim(&["ns=ugv1,manifest=MANIFEST,spawn=spawn_dock"]);
    let odom = topic(&sim, "/ugv1/_bridge/odom");
    let mut sink = no_camera(&sim);
    sim.set_command(0, twist(0.5, 0.0));
    sim.run_steps(1000, &mut sink);
    let at_1s = last_odom(&sink.rec, odom);
    sim.set_command(0, twist(0.0, 0.0));
    sim.run_steps(1000, &mut sink);
    let o = last_odom(&sink.rec, odom);
    let p = o.pose.pose.position;
    // Symmetric acceleration and braking: the ramps cancel, 0.5 m/s for 1 s is 0.5 m.
    assert!((p.x - 0.5).abs() < 0.02, "x = {}", p.x);
    assert!(p.y.abs() < 1e-9 && o.twist.twist.linear.x.abs() < 1e-12);
    assert_eq!(o.header.frame_id, "odom");
    assert_eq!(o.child_frame_id, "base_link");
    // At t = 1 s the vehicle has lost the acceleration ramp: 0.5 - 0.5^2 / (2 * 1.5).
    let x1 = at_1s.pose.pose.position.x;
    assert!((x1 - (0.5 - 0.25 / 3.0)).abs() < 0.005, "x(1 s) = {x1}");
    assert_eq!(at_1s.header.stamp.sec, 1);
}

#[test]
fn heavier_payload_brakes_longer() {
    let stop_distance = |payload: f64| {
        let mut sim = sim(&[&format!(
            "ns=u,manifest=MANIFEST,spawn=spawn_dock,payload_kg={payload}"
        )]);
        let mut sink = NullSink::default();
        sim.set_command(0, twist(1.0, 0.0));
        sim.run_steps(2000, &mut sink);
        let x0 = sim.truth_pose(0).unwrap().x;
        sim.set_command(0, twist(0.0, 0.0));
        sim.run_steps(3000, &mut sink);
        sim.truth_pose(0).unwrap().x - x0
    };
    let empty = stop_distance(0.0);
    let loaded = stop_distance(20.0);
    // v^2 / 2a: a = 1.5 m/s^2 empty, 1.5 * 25 / 45 loaded.
    assert!((empty - 1.0 / 3.0).abs() < 0.01, "{empty}");
    assert!(
        (loaded - 1.0 / (2.0 * 1.5 * 25.0 / 45.0)).abs() < 0.01,
        "{loaded}"
    );
}

#[test]
fn lidar_sees_the_pillar_where_the_world_puts_it() {
    let mut sim = sim(&["ns=ugv1,manifest=MANIFEST,spawn=spawn_dock"]);
    let scan_topic = topic(&sim, "/ugv1/_bridge/scan");
    let mut sink = no_camera(&sim);
    sim.run_steps(100, &mut sink);
    let scans: Vec<_> = sink
        .rec
        .messages
        .iter()
        .filter_map(|(t, m)| match m {
            Msg::LaserScan(s) if *t == scan_topic => Some(s.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(scans.len(), 2, "t = 0 and t = 0.1 s at 10 Hz");
    let s = &scans[1];
    assert_eq!(s.header.frame_id, "lidar_link");
    assert_eq!(s.ranges.len(), 360);
    // The ray nearest to straight ahead: pillar_a at (5, 0), r = 0.25; lidar 0.12 m forward.
    let i = ((0.0 - s.angle_min) / s.angle_increment).round() as usize;
    let expected = 5.0 - 0.25 - 0.12;
    assert!(
        (s.ranges[i] - expected).abs() < 0.05,
        "range {} vs {expected}",
        s.ranges[i]
    );
    // Straight behind: the dock wall at x = -16 + 0.2 is beyond range_max (12 m).
    let back = 0;
    assert_eq!(s.ranges[back], f32::INFINITY);
}

#[test]
fn collision_with_an_obstacle_is_reported_and_stops_the_vehicle() {
    let mut sim = sim(&["ns=ugv1,manifest=MANIFEST,x=3.0,y=0.0"]);
    let collisions = topic(&sim, COLLISIONS_TOPIC);
    let mut sink = no_camera(&sim);
    sim.set_command(0, twist(1.0, 0.0));
    sim.run_steps(4000, &mut sink);
    let events = sim.collision_events();
    assert_eq!(events.len(), 1, "{events:?}");
    let e = &events[0];
    assert_eq!(
        (e.event, e.vehicle.as_str(), e.other.as_str(), e.other_kind),
        ("begin", "ugv1", "pillar_a", "obstacle")
    );
    assert!(e.speed_mps > 0.5);
    let x = sim.truth_pose(0).unwrap().x;
    assert!((x - (5.0 - 0.25 - 0.35)).abs() < 0.01, "stopped at {x}");
    let published: Vec<&str> = sink
        .rec
        .messages
        .iter()
        .filter_map(|(t, m)| match m {
            Msg::String(s) if *t == collisions => Some(s.data.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(published.len(), 1);
    let json: serde_json::Value = serde_json::from_str(published[0]).unwrap();
    assert_eq!(json["other"], "pillar_a");
    // Backing off ends the contact.
    sim.set_command(0, twist(-0.5, 0.0));
    sim.run_steps(500, &mut sink);
    assert_eq!(sim.collision_events().last().unwrap().event, "end");
}

#[test]
fn vehicles_collide_with_each_other_once() {
    let mut sim = sim(&[
        "ns=a,manifest=MANIFEST,x=-2.0,y=3.0,without=camera",
        "ns=b,manifest=MANIFEST,x=2.0,y=3.0,yaw_deg=180,without=camera",
    ]);
    let mut sink = NullSink::default();
    sim.set_command(0, twist(1.0, 0.0));
    sim.set_command(1, twist(1.0, 0.0));
    sim.run_steps(3000, &mut sink);
    let begins: Vec<_> = sim
        .collision_events()
        .iter()
        .filter(|e| e.event == "begin")
        .collect();
    assert_eq!(begins.len(), 1, "{begins:?}");
    assert_eq!(
        (
            begins[0].vehicle.as_str(),
            begins[0].other.as_str(),
            begins[0].other_kind
        ),
        ("a", "b", "vehicle")
    );
    let gap = sim.truth_pose(1).unwrap().x - sim.truth_pose(0).unwrap().x;
    assert!((gap - 0.7).abs() < 0.02, "gap {gap}");
}

#[test]
fn joint_states_arrive_at_1_khz_of_simulation_time() {
    let mut sim = sim(&["ns=ugv1,manifest=MANIFEST,spawn=spawn_dock"]);
    let js = topic(&sim, "/ugv1/_bridge/joint_states");
    let mut sink = no_camera(&sim);
    sim.set_command(0, twist(0.5, 0.0));
    sim.run_steps(1000, &mut sink);
    let stamps: Vec<i64> = sink
        .rec
        .messages
        .iter()
        .filter_map(|(t, m)| match m {
            Msg::JointState(j) if *t == js => Some(j.header.stamp.to_nanos()),
            _ => None,
        })
        .collect();
    assert_eq!(stamps.len(), 1001, "t = 0 and every 1 ms step for 1 s");
    assert!(stamps.windows(2).all(|w| w[1] - w[0] == 1_000_000));
    let Some((_, Msg::JointState(last))) = sink.rec.messages.iter().rev().find(|(t, _)| *t == js)
    else {
        panic!()
    };
    assert_eq!(last.name.len(), 4);
    // Wheels turn at v / r once up to speed.
    assert!((last.velocity[0] - 0.5 / 0.11).abs() < 1e-6);
}

#[test]
fn rates_of_every_output_in_one_second() {
    let mut sim = sim(&["ns=ugv1,manifest=MANIFEST,spawn=spawn_dock"]);
    let mut sink = no_camera(&sim);
    sim.run_steps(1000, &mut sink);
    let count = |name: &str| {
        let t = topic(&sim, name);
        sink.rec.messages.iter().filter(|(i, _)| *i == t).count()
    };
    // One at t = 0, then rate_hz per second.
    assert_eq!(count("/ugv1/_bridge/odom"), 51);
    assert_eq!(count("/ugv1/tf"), 51);
    assert_eq!(count("/ugv1/_bridge/imu/data"), 101);
    assert_eq!(count("/ugv1/_bridge/gps/fix"), 6);
    assert_eq!(count("/ugv1/_bridge/scan"), 11);
    assert_eq!(count("/ugv1/camera/camera_info"), 16);
    assert_eq!(count("/clock"), 1001);
    assert_eq!(count("/ugv1/tf_static"), 1);
    assert_eq!(count("/ugv1/robot_description"), 1);
    assert_eq!(count("/fieldproof/truth/ugv1/pose"), 51);
    assert_eq!(count("/fieldproof/truth/ugv1/twist"), 51);
}

#[test]
fn topic_table_follows_the_bridge_rules() {
    let sim = sim(&["ns=ugv1,manifest=MANIFEST,spawn=spawn_dock"]);
    let names: Vec<&str> = sim.topics().iter().map(|t| t.name.as_str()).collect();
    for hidden in [
        "/ugv1/_bridge/odom",
        "/ugv1/_bridge/joint_states",
        "/ugv1/_bridge/imu/data",
        "/ugv1/_bridge/gps/fix",
        "/ugv1/_bridge/scan",
    ] {
        assert!(names.contains(&hidden), "{hidden}");
    }
    for direct in [
        "/ugv1/tf",
        "/ugv1/camera/image",
        "/ugv1/camera/camera_info",
        "/ugv1/camera/depth/image",
        "/ugv1/camera/points",
    ] {
        assert!(names.contains(&direct), "{direct}");
    }
    assert!(!names.contains(&"/ugv1/odom") && !names.contains(&"/ugv1/imu/data"));
    assert_eq!(sim.command_topics()[0].name, "/ugv1/_bridge/cmd_vel");
    let ts = &sim.topics()[topic(&sim, "/ugv1/tf_static")];
    assert_eq!(
        (ts.qos.durability, ts.qos.depth),
        (Durability::TransientLocal, 1)
    );
    assert_eq!(sim.topics()[topic(&sim, "/ugv1/camera/image")].qos.depth, 5);
    assert_eq!(sim.topics()[topic(&sim, "/ugv1/tf")].qos.depth, 100);
}

#[test]
fn camera_images_are_full_size_relabelled_and_change_with_pose() {
    let mut sim = sim(&["ns=ugv1,manifest=MANIFEST,spawn=spawn_dock"]);
    let image = topic(&sim, "/ugv1/camera/image");
    let depth = topic(&sim, "/ugv1/camera/depth/image");
    let points = topic(&sim, "/ugv1/camera/points");
    let mut rec = Recorder::default();
    sim.step(&mut rec);
    sim.set_command(0, twist(0.0, 2.0));
    sim.run_steps(67, &mut rec);
    let imgs: Vec<_> = rec
        .messages
        .iter()
        .filter_map(|(t, m)| match m {
            Msg::Image(i) if *t == image => Some(i),
            _ => None,
        })
        .collect();
    assert_eq!(imgs.len(), 2);
    let i = imgs[0];
    assert_eq!(
        (i.width, i.height, i.encoding.as_str(), i.step),
        (640, 480, "rgb8", 1920)
    );
    assert_eq!(i.data.len(), 640 * 480 * 3);
    assert_eq!(i.header.frame_id, "camera_optical_link");
    assert_ne!(imgs[0].data, imgs[1].data, "turning changes the view");
    let Some((_, Msg::Image(d))) = rec.messages.iter().find(|(t, _)| *t == depth) else {
        panic!()
    };
    assert_eq!(
        (d.encoding.as_str(), d.data.len()),
        ("32FC1", 640 * 480 * 4)
    );
    let Some((_, Msg::PointCloud2(p))) = rec.messages.iter().find(|(t, _)| *t == points) else {
        panic!()
    };
    assert_eq!(p.header.frame_id, "camera_link");
    assert_eq!(p.data.len(), 640 * 480 * 16);
    // The centre pixel looks at pillar_a, 5 - 0.25 - 0.30 m ahead of the camera.
    let c = (240 * 640 + 320) * 4;
    let z = f32::from_le_bytes(d.data[c..c + 4].try_into().unwrap());
    assert!((z - 4.45).abs() < 0.05, "depth {z}");
}

#[test]
fn noise_is_seeded_and_reproducible() {
    let imu_samples = |seed: u64| {
        let w = depot();
        let s = vec![spawn(
            &w,
            "ns=ugv1,manifest=MANIFEST,spawn=spawn_dock,without=camera+lidar",
        )];
        let mut sim = Simulation::new(
            &w,
            &s,
            SimConfig {
                seed,
                ..SimConfig::default()
            },
        );
        let imu = topic(&sim, "/ugv1/_bridge/imu/data");
        let mut rec = Recorder::default();
        sim.run_steps(100, &mut rec);
        rec.messages
            .into_iter()
            .filter_map(|(t, m)| match m {
                Msg::Imu(i) if t == imu => Some(i.linear_acceleration.z),
                _ => None,
            })
            .collect::<Vec<f64>>()
    };
    let a = imu_samples(42);
    assert_eq!(a, imu_samples(42));
    assert_ne!(a, imu_samples(43));
    let mean = a.iter().sum::<f64>() / a.len() as f64;
    assert!((mean - 9.80665).abs() < 0.02, "{mean}");
    let var = a.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / a.len() as f64;
    assert!((var.sqrt() - 0.017).abs() < 0.006, "stddev {}", var.sqrt());
}

#[test]
fn navsat_is_raw_and_starts_at_the_world_origin() {
    let mut sim = sim(&["ns=ugv1,manifest=MANIFEST,spawn=spawn_dock,without=camera"]);
    let fix = topic(&sim, "/ugv1/_bridge/gps/fix");
    let mut rec = Recorder::default();
    sim.step(&mut rec);
    let Some((_, Msg::NavSatFix(f))) = rec.messages.iter().find(|(t, _)| *t == fix) else {
        panic!()
    };
    assert_eq!(f.header.frame_id, "", "Gazebo Harmonic sets no frame");
    assert_eq!(f.position_covariance, [0.0; 9]);
    // Within 5 sigma (0.8 m horizontal) of the origin: 1e-5 deg is about 1.1 m.
    assert!((f.latitude - 48.1351).abs() < 4e-5, "{}", f.latitude);
    assert!((f.longitude - 11.5820).abs() < 6e-5, "{}", f.longitude);
    assert!((f.altitude - 520.3).abs() < 7.5, "{}", f.altitude);
}

#[test]
fn static_frames_and_description_are_latched_once() {
    let mut sim = sim(&["ns=ugv1,manifest=MANIFEST,spawn=spawn_dock,without=camera"]);
    let ts = topic(&sim, "/ugv1/tf_static");
    let rd = topic(&sim, "/ugv1/robot_description");
    let mut rec = Recorder::default();
    sim.run_steps(10, &mut rec);
    let Some((_, Msg::Tf(tf))) = rec.messages.iter().find(|(t, _)| *t == ts) else {
        panic!()
    };
    let children: Vec<&str> = tf
        .transforms
        .iter()
        .map(|t| t.child_frame_id.as_str())
        .collect();
    // Without the camera its frames go too.
    assert_eq!(
        children,
        ["base_footprint", "imu_link", "gps_link", "lidar_link"]
    );
    let Some((_, Msg::String(urdf))) = rec.messages.iter().find(|(t, _)| *t == rd) else {
        panic!()
    };
    assert!(urdf
        .data
        .contains("<joint name=\"front_left_wheel_joint\" type=\"continuous\">"));
    assert_eq!(rec.messages.iter().filter(|(t, _)| *t == ts).count(), 1);
}

#[test]
fn multirotor_takes_off_flies_and_lands_on_the_moving_carrier() {
    let w = World::load(repo_root().join("worlds/open_field.yaml")).unwrap();
    let s = vec![
        spawn(&w, "ns=carrier,manifest=CARRIER,spawn=spawn_carrier"),
        spawn(&w, "ns=quad1,manifest=QUAD,x=0.0,y=-10.0"),
    ];
    let mut sim = Simulation::new(&w, &s, SimConfig::default());
    let landed = topic(&sim, "/quad1/landed");
    let pads = topic(&sim, "/carrier/pads");
    let mut rec = Recorder::default();
    sim.step(&mut rec);
    assert!(sim.vehicles()[1].landed);
    // Climb to 3 m.
    sim.set_command(
        1,
        Twist {
            linear: Vector3 {
                x: 0.0,
                y: 0.0,
                z: 1.0,
            },
            ..Twist::default()
        },
    );
    sim.run_steps(3500, &mut rec);
    assert!(!sim.vehicles()[1].landed);
    let z = sim.truth_pose(1).unwrap().z;
    assert!(z > 2.5 && z < 3.5, "z {z}");
    // Fly north 10 m (body x is east at yaw 0: use linear.y) over the carrier, hover.
    sim.set_command(
        1,
        Twist {
            linear: Vector3 {
                x: 0.0,
                y: 2.0,
                z: 0.0,
            },
            ..Twist::default()
        },
    );
    sim.run_steps(5000, &mut rec);
    sim.set_command(1, Twist::default());
    sim.run_steps(2000, &mut rec);
    let p = sim.truth_pose(1).unwrap();
    assert!(p.y.abs() < 0.6, "over the carrier: {p:?}");
    // Descend onto the deck, then the carrier drives off with the quad on it.
    sim.set_command(
        1,
        Twist {
            linear: Vector3 {
                x: 0.0,
                y: 0.0,
                z: -1.0,
            },
            ..Twist::default()
        },
    );
    sim.run_steps(4000, &mut rec);
    assert!(sim.vehicles()[1].landed);
    let on_deck = sim.truth_pose(1).unwrap();
    assert!(
        (on_deck.z - 1.3).abs() < 1e-9,
        "deck 1.2 + landed height 0.1: {}",
        on_deck.z
    );
    sim.set_command(1, Twist::default());
    sim.set_command(0, twist(2.0, 0.0));
    sim.run_steps(5000, &mut rec);
    let carrier = sim.truth_pose(0).unwrap();
    let quad = sim.truth_pose(1).unwrap();
    assert!(carrier.x > 5.0, "carrier moved: {carrier:?}");
    assert!(
        (quad.x - carrier.x - (on_deck.x - 0.0)).abs() < 1e-6,
        "rode along: {quad:?} {carrier:?}"
    );
    assert!(
        sim.collision_events().is_empty(),
        "{:?}",
        sim.collision_events()
    );
    let landed_msgs: Vec<bool> = rec
        .messages
        .iter()
        .filter_map(|(t, m)| match m {
            Msg::Bool(b) if *t == landed => Some(b.data),
            _ => None,
        })
        .collect();
    assert!(
        landed_msgs.first() == Some(&true)
            && landed_msgs.contains(&false)
            && landed_msgs.last() == Some(&true)
    );
    let Some((_, Msg::PoseArray(pa))) = rec.messages.iter().rev().find(|(t, _)| *t == pads) else {
        panic!()
    };
    assert_eq!(pa.poses.len(), 3);
    assert_eq!(pa.header.frame_id, "world");
    assert!((pa.poses[0].position.x - carrier.x - 1.0).abs() < 0.05);
}

#[test]
fn real_time_factor_4_runs_10_s_in_about_2_5_s() {
    let w = depot();
    let s = vec![spawn(
        &w,
        "ns=ugv1,manifest=MANIFEST,spawn=spawn_dock,without=camera",
    )];
    let mut sim = Simulation::new(&w, &s, SimConfig::default());
    let mut sink = NullSink::default();
    let start = Instant::now();
    let mut pacer = Pacer::new(4.0, start, 0);
    while sim.time_ns() < 10_000_000_000 {
        let (n, wait) = pacer.allowance(Instant::now(), sim.time_ns(), sim.step_ns(), 100);
        let left = ((10_000_000_000 - sim.time_ns()) / sim.step_ns()) as u64;
        sim.run_steps(n.min(left), &mut sink);
        if n == 0 {
            std::thread::sleep(wait);
        }
    }
    let wall = start.elapsed().as_secs_f64();
    assert!(
        (2.0..=4.0).contains(&wall),
        "10 s of simulation at rtf 4 took {wall} s"
    );
}

#[test]
fn bad_spawns_name_the_problem() {
    let w = depot();
    let spec = SpawnSpec::parse(&format!(
        "ns=u,manifest={},spawn=nowhere",
        repo_root().join("robots/ugv_ref/robot.yaml").display()
    ))
    .unwrap();
    let e = Spawn::resolve(&spec, 0, &w).unwrap_err().to_string();
    assert!(
        e.contains("vehicles[0].spawn: no frame nowhere in world depot"),
        "{e}"
    );
    let spec = SpawnSpec::parse(&format!(
        "ns=u,manifest={},without=imu",
        repo_root().join("robots/ugv_ref/robot.yaml").display()
    ))
    .unwrap();
    let e = Spawn::resolve(&spec, 0, &w).unwrap_err().to_string();
    assert!(e.contains("sensor imu is not optional"), "{e}");
    let a = SpawnSpec::parse(&format!(
        "ns=u,manifest={}",
        repo_root().join("robots/ugv_ref/robot.yaml").display()
    ))
    .unwrap();
    let e = Spawn::resolve_all(&[a.clone(), a], &w)
        .unwrap_err()
        .to_string();
    assert!(e.contains("already used"), "{e}");
}

#[test]
fn frame_prefix_applies_to_every_frame() {
    let mut sim =
        sim(&["ns=ugv1,manifest=MANIFEST,spawn=spawn_dock,frame_prefix=ugv1/,without=camera"]);
    let odom = topic(&sim, "/ugv1/_bridge/odom");
    let scan = topic(&sim, "/ugv1/_bridge/scan");
    let tf = topic(&sim, "/ugv1/tf");
    let ts = topic(&sim, "/ugv1/tf_static");
    let mut rec = Recorder::default();
    sim.step(&mut rec);
    let find = |t: usize| {
        rec.messages
            .iter()
            .find(|(i, _)| *i == t)
            .map(|(_, m)| m.clone())
            .unwrap()
    };
    let Msg::Odometry(o) = find(odom) else {
        panic!()
    };
    assert_eq!(
        (o.header.frame_id.as_str(), o.child_frame_id.as_str()),
        ("ugv1/odom", "ugv1/base_link")
    );
    let Msg::LaserScan(s) = find(scan) else {
        panic!()
    };
    assert_eq!(s.header.frame_id, "ugv1/lidar_link");
    let Msg::Tf(t) = find(tf) else { panic!() };
    // odom -> base_link, then the four wheels (the sim plays robot_state_publisher).
    assert_eq!(t.transforms.len(), 5);
    assert_eq!(t.transforms[1].header.frame_id, "ugv1/base_link");
    assert_eq!(t.transforms[1].child_frame_id, "ugv1/front_left_wheel_link");
    let Msg::Tf(st) = find(ts) else { panic!() };
    assert!(st
        .transforms
        .iter()
        .all(|x| x.header.frame_id.starts_with("ugv1/") && x.child_frame_id.starts_with("ugv1/")));
}

#[test]
fn without_robot_state_publisher_only_odom_to_base_link() {
    let mut sim = sim(&[
        "ns=ugv1,manifest=MANIFEST,spawn=spawn_dock,robot_state_publisher=false,without=camera",
    ]);
    assert!(!sim
        .topics()
        .iter()
        .any(|t| t.name == "/ugv1/tf_static" || t.name == "/ugv1/robot_description"));
    let tf = topic(&sim, "/ugv1/tf");
    let mut rec = Recorder::default();
    sim.step(&mut rec);
    let Some((_, Msg::Tf(t))) = rec.messages.iter().find(|(i, _)| *i == tf) else {
        panic!()
    };
    assert_eq!(t.transforms.len(), 1);
    assert_eq!(
        (
            t.transforms[0].header.frame_id.as_str(),
            t.transforms[0].child_frame_id.as_str()
        ),
        ("odom", "base_link")
    );
}

#[test]
fn multirotors_start_on_the_carrier_pads_and_ride_it() {
    let w = World::load(repo_root().join("worlds/open_field.yaml")).unwrap();
    let specs: Vec<SpawnSpec> = [
        "ns=carrier,manifest=CARRIER,spawn=spawn_carrier,yaw_deg=90".to_string(),
        "ns=px4_0,manifest=QUAD,pad=carrier/pad_0".to_string(),
        "ns=px4_1,manifest=QUAD,pad=carrier/pad_1".to_string(),
        "ns=px4_2,manifest=QUAD,pad=carrier/pad_2".to_string(),
    ]
    .iter()
    .map(|a| {
        let a = a.replace(
            "CARRIER",
            &repo_root()
                .join("robots/carrier_ref/robot.yaml")
                .display()
                .to_string(),
        );
        SpawnSpec::parse(
            &a.replace(
                "QUAD",
                &repo_root()
                    .join("robots/quad_ref/robot.yaml")
                    .display()
                    .to_string(),
            ),
        )
        .unwrap()
    })
    .collect();
    let spawns = Spawn::resolve_all(&specs, &w).unwrap();
    let mut sim = Simulation::new(&w, &spawns, SimConfig::default());
    let mut sink = NullSink::default();
    sim.step(&mut sink);
    // pad_0 is 1 m ahead of the carrier's centre; the carrier faces north.
    let q = sim.truth_pose(1).unwrap();
    assert!(
        q.x.abs() < 1e-9 && (q.y - 1.0).abs() < 1e-9 && (q.z - 1.3).abs() < 1e-9,
        "{q:?}"
    );
    sim.set_command(0, twist(1.0, 0.1));
    sim.run_steps(5000, &mut sink);
    let c = sim.truth_pose(0).unwrap();
    for (i, pad) in [(1, [1.0, 0.0]), (2, [-0.2, 0.8]), (3, [-0.2, -0.8])] {
        let q = sim.truth_pose(i).unwrap();
        let rel = fieldproof_sim::math::Pose { z: q.z, ..q }
            .relative_to(&fieldproof_sim::math::Pose { z: q.z, ..c });
        assert!(
            (rel.x - pad[0]).abs() < 1e-6 && (rel.y - pad[1]).abs() < 1e-6,
            "quad {i} off its pad: {rel:?}"
        );
        assert!(sim.vehicles()[i].landed);
    }
    assert!(
        sim.collision_events().is_empty(),
        "{:?}",
        sim.collision_events()
    );
    let bad = SpawnSpec::parse(&format!(
        "ns=q,manifest={},pad=carrier/pad_9",
        repo_root().join("robots/quad_ref/robot.yaml").display()
    ))
    .unwrap();
    let e = Spawn::resolve_all(&[specs[0].clone(), bad], &w)
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("pad: carrier has no pad pad_9 (pads: pad_0, pad_1, pad_2)"),
        "{e}"
    );
}

/// An obstacle's `color_rgb` is the colour the camera draws it in (darkened with distance as
/// every obstacle is): from the inspection goal the quad's camera sees the magenta
/// `inspection_target` mast in the middle of its image.
#[test]
fn the_camera_draws_an_obstacle_in_its_color_rgb() {
    use fieldproof_sim::sensors::{camera, frame_offset};
    use fieldproof_sim::world::SimWorld;

    let world = World::load(repo_root().join("worlds/inspection.yaml")).unwrap();
    let mast = world
        .obstacles
        .iter()
        .find(|o| o.name == "inspection_target")
        .unwrap();
    assert_eq!(mast.color_rgb, Some([230, 30, 210]));
    let sim = Simulation::new(
        &world,
        &[spawn(
            &world,
            "ns=quad1,manifest=QUAD,x=14.0,y=0.0,z=5.0,yaw_deg=0.0",
        )],
        SimConfig::default(),
    );
    let quad = &sim.vehicles()[0];
    let spec = quad
        .manifest
        .sensors
        .iter()
        .find_map(|s| s.camera.as_ref())
        .unwrap();
    let frame = camera::render(
        spec,
        &frame_offset(&quad.manifest, "camera_link"),
        &SimWorld::new(&world),
        sim.vehicles(),
        0,
    );
    let image = frame.image("rgb8", 0, "camera_optical_link");
    let depth = frame.depth(0, "camera_optical_link");
    let (row, col) = (24usize, 32usize);
    let i = row * image.width as usize + col;
    let metres = f64::from(f32::from_le_bytes(
        depth.data[i * 4..i * 4 + 4].try_into().unwrap(),
    ));
    assert!((metres - 3.02).abs() < 0.05, "the mast's face: {metres} m");
    let shade = (1.0 - 0.6 * metres / spec.far_m).clamp(0.3, 1.0);
    let drawn = &image.data[i * 3..i * 3 + 3];
    for (channel, (got, colour)) in drawn.iter().zip([230u8, 30, 210]).enumerate() {
        let want = f64::from(colour) * shade;
        assert!(
            (f64::from(*got) - want).abs() <= 1.0,
            "channel {channel}: {got}, want {want:.1} (pixel {drawn:?})"
        );
    }
}
