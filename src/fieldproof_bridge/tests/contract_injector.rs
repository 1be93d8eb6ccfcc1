//! The bundle drives a real adapter: the imu_adapter process the generated launch file
//! starts (resolved by fieldproof's launch loader, params.yaml and all) turns the hidden
//! topic into the contract topic with the contract's frame and the covariance bridge.yaml
//! records, and the fault a scenario sets through the node bridge.yaml names
//! ([`BundleIndex`]) silences it.
//!
//! This opens DDS participants, so it runs inside a private network namespace: when started
//! outside one, the test re-runs itself in a fresh one (fieldproof_testkit).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use fieldproof_bridge::gen::index::BundleIndex;
use fieldproof_msgs::sensor_msgs::Imu;
use fieldproof_runtime::value::set_parameters_request;
use fieldproof_runtime::{qos, NodeBuilder, ParamValue};
use fieldproof_testkit::FakeAmentPrefix;
use ros2_client::rcl_interfaces::{SetParametersRequest, SetParametersResponse};

mod common;

const DOMAIN: &str = "62";

/// An install prefix whose fieldproof_bridge executables are this build's.
fn install(root: &Path) -> PathBuf {
    let prefix = FakeAmentPrefix::at(&root.join("install"));
    prefix.link(
        "fieldproof_bridge",
        "imu_adapter",
        Path::new(env!("CARGO_BIN_EXE_imu_adapter")),
    );
    for stub in [
        "relay",
        "navsat_adapter",
        "throttle",
        "command_relay",
        "battery",
    ] {
        prefix.stub("fieldproof_bridge", stub);
    }
    prefix.path().to_path_buf()
}

#[test]
fn the_bundle_configures_the_imu_adapter_and_its_fault() {
    fieldproof_testkit::contain_or_return!();
    let dir = tempfile::tempdir().unwrap();
    let bundle = common::ugv_ref_bundle(dir.path(), "b", &common::in_namespace("ugv1"));
    let idx = BundleIndex::load(&bundle).unwrap();
    let imu = idx.sensor("imu", None).unwrap().clone();
    // The launch loader gives the command line ros2 launch would run.
    let prefix = install(dir.path());
    let args = BTreeMap::from([
        ("gz".to_string(), "false".to_string()),
        ("use_sim_time".to_string(), "false".to_string()),
    ]);
    let specs = fieldproof_launch::load(
        &bundle.join("bridge.launch.yaml"),
        &args,
        std::slice::from_ref(&prefix),
    )
    .unwrap();
    let spec = specs
        .iter()
        .find(|s| s.cmd.contains(&format!("__node:={}", imu.node)))
        .unwrap();
    let mut child = Command::new(&spec.cmd[0])
        .args(&spec.cmd[1..])
        .env("ROS_DOMAIN_ID", DOMAIN)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::inherit())
        .spawn()
        .unwrap();
    let bridge: serde_yaml::Value =
        serde_yaml::from_str(&std::fs::read_to_string(bundle.join("bridge.yaml")).unwrap())
            .unwrap();
    let node_entry = bridge["nodes"]
        .as_sequence()
        .unwrap()
        .iter()
        .find(|n| n["name"] == imu.node.as_str())
        .unwrap()
        .clone();
    let gyro_var = node_entry["covariance"]["angular_velocity_covariance"][0]
        .as_f64()
        .unwrap();
    let accel_var = node_entry["covariance"]["linear_acceleration_covariance"][4]
        .as_f64()
        .unwrap();

    let cfg = NodeBuilder::new("scenario")
        .resolve(["scenario"], |k| {
            (k == "ROS_DOMAIN_ID").then(|| DOMAIN.into())
        })
        .unwrap();
    let hidden = imu.hidden_topic.clone().unwrap();
    let topic = imu.topic.clone();
    let fqn = imu.fqn.clone();
    let result = fieldproof_runtime::run(cfg, |node| async move {
        let raw = node.publisher::<Imu>(&hidden, qos::default())?;
        let out = node.subscription::<Imu>(&topic, qos::default().keep_last(100))?;
        let set = node.client::<SetParametersRequest, SetParametersResponse>(
            &format!("{fqn}/set_parameters"),
            "rcl_interfaces/srv/SetParameters",
        )?;
        let mut k = 0i64;
        let mut publish = |n: usize| -> Result<(), fieldproof_runtime::NodeError> {
            for _ in 0..n {
                let mut m = Imu::default();
                m.header.frame_id = "imu_link".into();
                m.header.stamp =
                    fieldproof_msgs::builtin_interfaces::Time::from_nanos(k * 10_000_000);
                k += 1;
                raw.publish(m)?;
            }
            Ok(())
        };
        // Until the adapter is up and matched, publish and wait for its output.
        let start = Instant::now();
        let first = loop {
            publish(1)?;
            smol::Timer::after(Duration::from_millis(10)).await;
            if let Some(m) = out.try_recv()? {
                break m;
            }
            assert!(
                start.elapsed() < Duration::from_secs(20),
                "no output from {fqn}"
            );
        };
        assert_eq!(first.header.frame_id, "imu_link");
        assert_eq!(first.angular_velocity_covariance[0], gyro_var);
        assert_eq!(first.angular_velocity_covariance[4], gyro_var);
        assert_eq!(first.linear_acceleration_covariance[4], accel_var);
        assert!((gyro_var - 0.0002f64 * 0.0002).abs() < 1e-18);
        // The scenario's sensor.dropout, through the node bridge.yaml names.
        let r = set
            .call_retry(
                set_parameters_request([("dropout", ParamValue::Bool(true))]),
                Duration::from_secs(1),
                20,
            )
            .await?;
        assert!(r.results[0].successful, "{:?}", r.results);
        smol::Timer::after(Duration::from_millis(200)).await;
        while out.try_recv()?.is_some() {}
        for _ in 0..50 {
            publish(1)?;
            smol::Timer::after(Duration::from_millis(10)).await;
        }
        assert!(out.try_recv()?.is_none(), "{fqn} published under dropout");
        // Lifted: the output comes back.
        let r = set
            .call_retry(
                set_parameters_request([("dropout", ParamValue::Bool(false))]),
                Duration::from_secs(1),
                20,
            )
            .await?;
        assert!(r.results[0].successful);
        let start = Instant::now();
        loop {
            publish(1)?;
            smol::Timer::after(Duration::from_millis(10)).await;
            if out.try_recv()?.is_some() {
                break;
            }
            assert!(
                start.elapsed() < Duration::from_secs(10),
                "no output after dropout"
            );
        }
        Ok(())
    });
    let _ = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status();
    let status = child.wait().unwrap();
    result.unwrap();
    assert!(status.success(), "imu_adapter exited with {status}");
}
