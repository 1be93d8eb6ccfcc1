//! Over DDS: the simulator binary publishes /clock and odometry with the right types, and
//! drives from the hidden command topic. Every participant lives in a private network
//! namespace: outside one, each test re-runs itself in a fresh one (fieldproof_testkit).

use std::process::{Command, Stdio};
use std::time::Duration;

use futures::FutureExt;

use fieldproof_runtime::msgs::geometry_msgs::{Twist, Vector3};
use fieldproof_runtime::msgs::nav_msgs::Odometry;
use fieldproof_runtime::msgs::rosgraph_msgs::Clock;
use fieldproof_runtime::msgs::tf2_msgs::TFMessage;
use fieldproof_runtime::qos;
use fieldproof_testkit::{repo_root, ChildGuard};

fn start_sim(domain: u16, args: &[&str]) -> ChildGuard {
    ChildGuard::new(
        Command::new(env!("CARGO_BIN_EXE_fieldproof_sim"))
            .current_dir(repo_root())
            .args(args)
            .env("ROS_DOMAIN_ID", domain.to_string())
            .env_remove("ROS_AUTOMATIC_DISCOVERY_RANGE")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .spawn()
            .expect("start fieldproof_sim"),
    )
}

async fn within<T>(d: Duration, fut: impl std::future::Future<Output = T>) -> T {
    futures::select! {
        v = fut.fuse() => v,
        _ = FutureExt::fuse(async_io::Timer::after(d)) => panic!("timed out after {d:?}"),
    }
}

#[test]
fn clock_and_odometry_arrive_and_cmd_vel_drives() {
    fieldproof_testkit::contain_or_return!();
    let domain = 61;
    let mut sim = start_sim(
        domain,
        &[
            "--world",
            "worlds/depot.yaml",
            "--vehicle",
            "ns=ugv1,manifest=robots/ugv_ref/robot.yaml,spawn=spawn_dock",
            "--duration",
            "120",
        ],
    );
    fieldproof_runtime::run_on_domain("sim_test_peer", domain, |node| async move {
        let clock = node.subscription::<Clock>("/clock", qos::clock())?;
        let odom = node.subscription::<Odometry>("/ugv1/_bridge/odom", qos::default())?;
        let tf_static = node.subscription::<TFMessage>("/ugv1/tf_static", qos::latched())?;
        let cmd = node.publisher::<Twist>("/ugv1/_bridge/cmd_vel", qos::default())?;
        let t0 = within(Duration::from_secs(30), clock.recv()).await?;
        let t1 = within(Duration::from_secs(10), clock.recv()).await?;
        assert!(t1.clock > t0.clock, "/clock advances: {t0:?} {t1:?}");
        let o = within(Duration::from_secs(10), odom.recv()).await?;
        assert_eq!(
            (o.header.frame_id.as_str(), o.child_frame_id.as_str()),
            ("odom", "base_link")
        );
        // Late joiner on a transient-local topic still gets the static frames.
        let ts = within(Duration::from_secs(10), tf_static.recv()).await?;
        assert_eq!(ts.transforms.len(), 6);
        within(Duration::from_secs(10), cmd.wait_for_subscriptions(1)).await;
        let go = Twist {
            linear: Vector3 {
                x: 0.5,
                y: 0.0,
                z: 0.0,
            },
            ..Twist::default()
        };
        let moved = within(Duration::from_secs(30), async {
            loop {
                cmd.publish(go)?;
                let o = odom.recv().await?;
                if o.pose.pose.position.x > 0.2 {
                    return Ok::<_, fieldproof_runtime::NodeError>(o);
                }
            }
        })
        .await?;
        assert!(moved.twist.twist.linear.x > 0.0);
        assert!(moved.pose.pose.position.y.abs() < 1e-6);
        Ok(())
    })
    .expect("peer run");
    // SIGTERM: the simulator leaves the graph and exits 0.
    let st = Command::new("kill")
        .arg("-TERM")
        .arg(sim.id().to_string())
        .status()
        .unwrap();
    assert!(st.success());
    let status = sim.wait().unwrap();
    assert!(status.success(), "{status:?}");
}

#[test]
fn bad_manifest_exits_2_with_the_field() {
    fieldproof_testkit::contain_or_return!();
    let dir = tempfile::tempdir().unwrap();
    let base = std::fs::read_to_string(repo_root().join("robots/ugv_ref/robot.yaml")).unwrap();
    let bad = base.replace(
        "reliability: reliable, durability: volatile",
        "reliability: sometimes, durability: volatile",
    );
    std::fs::create_dir_all(dir.path().join("urdf")).unwrap();
    std::fs::copy(
        repo_root().join("robots/ugv_ref/urdf/ugv_ref.urdf.xacro"),
        dir.path().join("urdf/ugv_ref.urdf.xacro"),
    )
    .unwrap();
    let manifest = dir.path().join("robot.yaml");
    std::fs::write(&manifest, bad).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_fieldproof_sim"))
        .current_dir(repo_root())
        .args(["--world", "worlds/depot.yaml", "--vehicle"])
        .arg(format!("ns=ugv1,manifest={}", manifest.display()))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains(
            "drive.command.qos.reliability: \"sometimes\" is not one of reliable, best_effort"
        ),
        "{err}"
    );
    let out = Command::new(env!("CARGO_BIN_EXE_fieldproof_sim"))
        .current_dir(repo_root())
        .args(["--world", "worlds/nope.yaml"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn paused_simulation_advances_only_on_step_requests() {
    fieldproof_testkit::contain_or_return!();
    let domain = 62;
    let _sim = start_sim(
        domain,
        &[
            "--world",
            "worlds/depot.yaml",
            "--vehicle",
            "ns=ugv1,manifest=robots/ugv_ref/robot.yaml,spawn=spawn_dock,without=camera",
            "--paused",
            "--duration",
            "120",
        ],
    );
    fieldproof_runtime::run_on_domain("sim_test_peer", domain, |node| async move {
        use fieldproof_runtime::msgs::std_msgs::Float64;
        let clock = node.subscription::<Clock>("/clock", qos::default())?;
        let step = node.publisher::<Float64>("/fieldproof_sim/step", qos::default())?;
        // Paused: the latched frames are there, but no clock ticks.
        let tf_static = node.subscription::<TFMessage>("/ugv1/tf_static", qos::latched())?;
        within(Duration::from_secs(30), tf_static.recv()).await?;
        within(Duration::from_secs(10), step.wait_for_subscriptions(1)).await;
        within(Duration::from_secs(10), clock.wait_for_publishers(1)).await;
        step.publish(Float64 { data: 0.25 })?;
        let last = within(Duration::from_secs(20), async {
            loop {
                let c = clock.recv().await?;
                if c.clock.sec == 0 && c.clock.nanosec >= 250_000_000 {
                    return Ok::<_, fieldproof_runtime::NodeError>(c);
                }
            }
        })
        .await?;
        assert_eq!(last.clock.nanosec, 250_000_000, "exactly 250 steps");
        // Nothing more arrives while paused.
        async_io::Timer::after(Duration::from_millis(500)).await;
        assert!(clock.try_recv()?.is_none());
        Ok(())
    })
    .expect("peer run");
}

#[test]
fn spawn_lists_from_parameters() {
    fieldproof_testkit::contain_or_return!();
    let run = |args: &[&str]| {
        let out = Command::new(env!("CARGO_BIN_EXE_fieldproof_sim"))
            .current_dir(repo_root())
            .arg("--print-topics")
            .args(args)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let yaml = run(&[
        "--ros-args",
        "-p",
        "world:=worlds/open_field.yaml",
        "-p",
        "vehicles:=\"[{ns: carrier, manifest: robots/carrier_ref/robot.yaml, spawn: spawn_carrier}, {ns: quad1, manifest: robots/quad_ref/robot.yaml, spawn: spawn_quad_1}]\"",
    ]);
    assert!(
        yaml.contains("/carrier/pads geometry_msgs/msg/PoseArray"),
        "{yaml}"
    );
    assert!(yaml.contains("/quad1/landed std_msgs/msg/Bool"), "{yaml}");
    let specs = run(&[
        "--ros-args",
        "-p",
        "world:=worlds/depot.yaml",
        "-p",
        "vehicle_specs:=['ns=ugv7,manifest=robots/ugv_ref/robot.yaml,spawn=spawn_dock,without=camera']",
    ]);
    assert!(
        specs.contains("/ugv7/_bridge/scan sensor_msgs/msg/LaserScan"),
        "{specs}"
    );
    assert!(!specs.contains("/ugv7/camera"), "{specs}");
    assert!(
        specs.contains("/ugv7/_bridge/cmd_vel geometry_msgs/msg/Twist (subscribed)"),
        "{specs}"
    );
}
