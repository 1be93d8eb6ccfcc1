//! `contract_check` against a live graph: a peer node in this process plays the vehicle (the
//! reference UGV's contract, imu and the rest on their rates, stamps on a simulated clock),
//! with two deliberate breaks (the IMU in the wrong frame, one extra topic under the
//! namespace); the checker, a separate process, must find exactly those.
//!
//! This opens DDS participants, so it runs inside a private network namespace: when started
//! outside one, the test re-runs itself in a fresh one (fieldproof_testkit).

use std::process::{Child, Command, Stdio};
use std::time::Duration;

use fieldproof_bridge::gen::Options;
use fieldproof_msgs::builtin_interfaces::Time;
use fieldproof_msgs::{geometry_msgs, nav_msgs, rosgraph_msgs, sensor_msgs, std_msgs, tf2_msgs};
use fieldproof_runtime::{qos, NodeBuilder};

/// True inside the project's network namespace; otherwise re-runs `name` in one and
/// asserts it passed.
mod common;

const DOMAIN: &str = "61";

fn stamp(ms: i64) -> Time {
    Time::from_nanos(ms * 1_000_000)
}

fn header(ms: i64, frame: &str) -> std_msgs::Header {
    std_msgs::Header {
        stamp: stamp(ms),
        frame_id: frame.into(),
    }
}

#[test]
fn checker_finds_the_breaks_of_a_live_stack() {
    fieldproof_testkit::contain_or_return!();
    let dir = tempfile::tempdir().unwrap();
    let options = Options {
        without: vec!["camera".into(), "lidar".into()],
        no_robot_state_publisher: true,
        ..common::in_namespace("ugv1")
    };
    let bundle = common::ugv_ref_bundle(dir.path(), "b", &options);
    let json = dir.path().join("result.json");
    let mut checker: Child = Command::new(env!("CARGO_BIN_EXE_contract_check"))
        .arg(&bundle)
        .args(["--timeout", "40", "--samples", "5", "--json"])
        .arg(&json)
        .env("ROS_DOMAIN_ID", DOMAIN)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .unwrap();
    let cfg = NodeBuilder::new("vehicle")
        .resolve(["vehicle"], |k| {
            (k == "ROS_DOMAIN_ID").then(|| DOMAIN.into())
        })
        .unwrap();
    let status = std::sync::Arc::new(std::sync::Mutex::new(None));
    let st = status.clone();
    fieldproof_runtime::run(cfg, |node| async move {
        let q = qos::default();
        let imu = node.publisher::<sensor_msgs::Imu>("/ugv1/imu/data", q)?;
        let fix = node.publisher::<sensor_msgs::NavSatFix>("/ugv1/gps/fix", q)?;
        let odom = node.publisher::<nav_msgs::Odometry>("/ugv1/odom", q)?;
        let js = node.publisher::<sensor_msgs::JointState>("/ugv1/joint_states", q)?;
        let tf = node.publisher::<tf2_msgs::TFMessage>("/ugv1/tf", q.keep_last(100))?;
        let bat = node.publisher::<sensor_msgs::BatteryState>("/ugv1/battery_state", q)?;
        let clock = node.publisher::<rosgraph_msgs::Clock>("/clock", q)?;
        let extra = node.publisher::<std_msgs::String>("/ugv1/debug", q)?;
        let _cmd = node.subscription::<geometry_msgs::Twist>("/ugv1/cmd_vel", q)?;
        // 10 ms ticks of simulated time; stamps exactly on each topic's grid.
        for k in 0i64.. {
            let ms = k * 10;
            clock.publish(rosgraph_msgs::Clock { clock: stamp(ms) })?;
            imu.publish(sensor_msgs::Imu {
                header: header(ms, "base_link"), // break 1: not imu_link
                ..Default::default()
            })?;
            if k % 2 == 0 {
                odom.publish(nav_msgs::Odometry {
                    header: header(ms, "odom"),
                    child_frame_id: "base_link".into(),
                    ..Default::default()
                })?;
                js.publish(sensor_msgs::JointState {
                    header: header(ms, ""),
                    ..Default::default()
                })?;
                tf.publish(tf2_msgs::TFMessage {
                    transforms: vec![geometry_msgs::TransformStamped {
                        header: header(ms, "odom"),
                        child_frame_id: "base_link".into(),
                        ..Default::default()
                    }],
                })?;
            }
            if k % 20 == 0 {
                fix.publish(sensor_msgs::NavSatFix {
                    header: header(ms, "gps_link"),
                    ..Default::default()
                })?;
                extra.publish(std_msgs::String { data: "x".into() })?; // break 2
            }
            if k % 100 == 0 {
                bat.publish(sensor_msgs::BatteryState {
                    header: header(ms, "base_link"),
                    ..Default::default()
                })?;
            }
            if let Some(s) = checker.try_wait()? {
                *st.lock().unwrap() = Some((s, checker.stdout.take()));
                return Ok(());
            }
            assert!(k < 6000, "the checker did not finish within a minute");
            smol::Timer::after(Duration::from_millis(10)).await;
        }
        Ok(())
    })
    .unwrap();
    let (exit, stdout) = status.lock().unwrap().take().unwrap();
    let mut out = String::new();
    std::io::Read::read_to_string(&mut stdout.unwrap(), &mut out).unwrap();
    eprintln!("{out}");
    assert_eq!(exit.code(), Some(1), "{out}");
    let fails: Vec<&str> = out.lines().filter(|l| l.starts_with("FAIL")).collect();
    assert_eq!(fails.len(), 2, "{out}");
    assert!(
        fails[0].starts_with(
            "FAIL frame  /ugv1/imu/data: expected imu_link; frame_id \"base_link\" in "
        ),
        "{out}"
    );
    assert_eq!(
        fails[1], "FAIL topics /ugv1: not in the contract: /ugv1/debug",
        "{out}"
    );
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(report["passed"], false);
    assert_eq!(report["fail"], 2);
    assert_eq!(report["skip"], 0);
    assert_eq!(report["bundle"], bundle.display().to_string());
}
