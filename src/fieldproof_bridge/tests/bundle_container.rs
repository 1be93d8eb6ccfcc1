//! A bundle's adapters composed in one process (`bundle_container`): one DDS participant
//! announces every adapter node, each under its own name with its own parameter services
//! (a fault set on `/ugv1/imu_adapter` silences that adapter), its own `/rosout` logger
//! name, and the data flows from the hidden topic to the contract topic as with separate
//! processes. SIGINT ends the container with exit code 0.
//!
//! This opens DDS participants, so it runs inside a private network namespace: when started
//! outside one, the test re-runs itself in a fresh one (fieldproof_testkit).

use std::collections::BTreeSet;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use fieldproof_bridge::gen::index::BundleIndex;
use fieldproof_bridge::gen::Options;
use fieldproof_msgs::rcl_interfaces::Log;
use fieldproof_msgs::rosgraph_msgs::Clock;
use fieldproof_msgs::sensor_msgs::{BatteryState, Imu};
use fieldproof_runtime::{qos, NodeBuilder, ParamValue};
use fieldproof_testkit::ChildGuard;

mod common;

const DOMAIN: &str = "64";
const PATIENCE: Duration = Duration::from_secs(20);

#[test]
fn a_bundle_runs_composed_on_one_participant_with_every_node_its_own() {
    fieldproof_testkit::contain_or_return!();
    let dir = tempfile::tempdir().unwrap();
    let bundle = common::ugv_ref_bundle(dir.path(), "b", &common::in_namespace("ugv1"));
    let index = BundleIndex::load(&bundle).unwrap();
    let adapters: BTreeSet<String> = index
        .nodes
        .iter()
        .filter(|n| !n.gz_only)
        .map(|n| format!("/ugv1/{}", n.name))
        .collect();
    assert_eq!(adapters.len(), 7, "{adapters:?}");
    let imu = index.sensor("imu", None).unwrap().clone();
    let battery = index.battery().unwrap().clone();
    let child = start_container(&bundle, DOMAIN, false);
    let result = fieldproof_runtime::run(peer(DOMAIN, "scenario"), |node| async move {
        let rosout = node.subscription::<Log>("/rosout", qos::rosout().keep_last(1000))?;
        // Every adapter in the graph, all announced by one participant.
        let start = Instant::now();
        loop {
            let composed = node.nodes_by_participant().into_iter().find(|group| {
                let names: BTreeSet<String> =
                    group.iter().map(|n| n.fully_qualified_name()).collect();
                names == adapters
            });
            if composed.is_some() {
                break;
            }
            assert!(
                start.elapsed() < PATIENCE,
                "the adapters are not one participant's nodes: {:?}",
                node.nodes_by_participant()
            );
            smol::Timer::after(Duration::from_millis(100)).await;
        }
        // Data flows through the composed IMU adapter, and its fault reaches it alone.
        let raw_imu =
            node.publisher::<Imu>(imu.hidden_topic.as_deref().unwrap(), qos::default())?;
        let out = node.subscription::<Imu>(&imu.topic, qos::default().keep_last(100))?;
        let publish_until_output = |what: &'static str| {
            let (raw_imu, out) = (&raw_imu, &out);
            async move {
                let start = Instant::now();
                loop {
                    raw_imu.publish(Imu::default())?;
                    smol::Timer::after(Duration::from_millis(10)).await;
                    if out.try_recv()?.is_some() {
                        return Ok::<(), fieldproof_runtime::NodeError>(());
                    }
                    assert!(start.elapsed() < PATIENCE, "no IMU output {what}");
                }
            }
        };
        publish_until_output("from the composed adapter").await?;
        let (taken, reason) =
            common::set_parameter(&node, &imu.fqn, "dropout", ParamValue::Bool(true)).await?;
        assert!(taken, "{reason}");
        smol::Timer::after(Duration::from_millis(200)).await;
        while out.try_recv()?.is_some() {}
        for _ in 0..50 {
            raw_imu.publish(Imu::default())?;
            smol::Timer::after(Duration::from_millis(10)).await;
        }
        assert!(
            out.try_recv()?.is_none(),
            "the IMU adapter published under dropout"
        );
        let (taken, reason) =
            common::set_parameter(&node, &imu.fqn, "dropout", ParamValue::Bool(false)).await?;
        assert!(taken, "{reason}");
        publish_until_output("after the dropout").await?;
        // Each node logs under its own name: a refused change makes the node warn.
        for fqn in [&imu.fqn, &battery.fqn] {
            let output = ParamValue::String("/elsewhere".into());
            let (taken, _) = common::set_parameter(&node, fqn, "output", output).await?;
            assert!(!taken, "output is read-only");
        }
        let mut warned = BTreeSet::new();
        let start = Instant::now();
        while warned.len() < 2 {
            assert!(
                start.elapsed() < PATIENCE,
                "no /rosout warning from both nodes: {warned:?}"
            );
            if let Some(log) = rosout.try_recv()? {
                if log.level == Log::WARN && log.msg.contains("read-only") {
                    warned.insert(log.name);
                }
            } else {
                smol::Timer::after(Duration::from_millis(20)).await;
            }
        }
        assert_eq!(
            warned,
            BTreeSet::from(["ugv1.imu_adapter".to_string(), "ugv1.battery".to_string()])
        );
        Ok(())
    });
    let status = stop_container(child);
    result.unwrap();
    assert!(status.success(), "bundle_container: {status:?}");
}

#[test]
fn a_bundle_that_is_not_there_or_a_rename_is_refused_with_exit_2() {
    let missing = Command::new(env!("CARGO_BIN_EXE_bundle_container"))
        .args(["--bundle", "/nonexistent/bundle"])
        .output()
        .unwrap();
    assert_eq!(missing.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&missing.stderr);
    assert!(
        stderr.contains("/nonexistent/bundle/bridge.yaml"),
        "{stderr}"
    );

    let dir = tempfile::tempdir().unwrap();
    let bundle = common::ugv_ref_bundle(dir.path(), "b", &Options::default());
    let rename = Command::new(env!("CARGO_BIN_EXE_bundle_container"))
        .arg("--bundle")
        .arg(&bundle)
        .args(["--ros-args", "-r", "__node:=one"])
        .output()
        .unwrap();
    assert_eq!(rename.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&rename.stderr);
    assert!(stderr.contains("__node:=one"), "{stderr}");
}

/// With `use_sim_time`, the composed nodes share one `/clock` subscription (one reader for
/// the process, not one per node) and every node reads the simulation time it feeds: the
/// battery node stamps its states with it, also once every other node stopped following
/// `/clock` (whichever node subscribed, the battery's clock goes on reading it).
#[test]
fn composed_nodes_share_one_clock_subscription() {
    fieldproof_testkit::contain_or_return!();
    const DOMAIN: &str = "65";
    let dir = tempfile::tempdir().unwrap();
    let bundle = common::ugv_ref_bundle(dir.path(), "b", &common::in_namespace("ugv1"));
    let index = BundleIndex::load(&bundle).unwrap();
    let battery = index.battery().unwrap().clone();
    let others: Vec<String> = index
        .nodes
        .iter()
        .filter(|n| !n.gz_only && n.name != battery.node)
        .map(|n| format!("/ugv1/{}", n.name))
        .collect();
    assert_eq!(others.len(), 6, "{others:?}");
    let child = start_container(&bundle, DOMAIN, true);
    let result = fieldproof_runtime::run(peer(DOMAIN, "clock_source"), |node| async move {
        let clock = node.publisher::<Clock>("/clock", qos::clock())?;
        let states =
            node.subscription::<BatteryState>(&battery.topic, qos::default().keep_last(100))?;
        // Simulation time from 1000 s.
        let mut sim_ns: i64 = 1_000_000_000_000;
        let first = next_sim_state(&clock, &states, &mut sim_ns, 0).await?;
        smol::Timer::after(Duration::from_millis(500)).await;
        assert_eq!(
            clock.subscription_count(),
            1,
            "the container's seven nodes follow /clock through one subscription"
        );
        // Every other node stops following /clock: the battery's clock still reads it.
        for fqn in &others {
            let (taken, reason) =
                common::set_parameter(&node, fqn, "use_sim_time", ParamValue::Bool(false)).await?;
            assert!(taken, "{fqn}: {reason}");
        }
        let later = next_sim_state(&clock, &states, &mut sim_ns, first + 1_000_000_000).await?;
        assert!(later > first, "{later} after {first}");
        smol::Timer::after(Duration::from_millis(500)).await;
        assert_eq!(clock.subscription_count(), 1, "the battery's, now");
        Ok(())
    });
    let status = stop_container(child);
    result.unwrap();
    assert!(status.success(), "bundle_container: {status:?}");
}

/// Steps the simulation time (10 ms of it every 2 ms of wall clock, from `sim_ns`) until a
/// battery state comes stamped in simulation time at or after `after_ns`; its stamp.
async fn next_sim_state(
    clock: &fieldproof_runtime::Publisher<Clock>,
    states: &fieldproof_runtime::Subscription<BatteryState>,
    sim_ns: &mut i64,
    after_ns: i64,
) -> Result<i64, fieldproof_runtime::NodeError> {
    let start = Instant::now();
    loop {
        *sim_ns += 10_000_000;
        clock.publish(Clock {
            clock: fieldproof_runtime::clock::time_from_nanos(*sim_ns),
        })?;
        smol::Timer::after(Duration::from_millis(2)).await;
        while let Some(state) = states.try_recv()? {
            let stamp = fieldproof_runtime::clock::nanos_from_time(state.header.stamp);
            // Simulation time here is 1000 s and on; the system clock's is far beyond 2000 s.
            if stamp >= after_ns && stamp < 2_000_000_000_000 {
                return Ok(stamp);
            }
        }
        assert!(
            start.elapsed() < PATIENCE,
            "no battery state stamped in simulation time after {after_ns} ns"
        );
    }
}

/// Starts `bundle_container` on `bundle` in `domain` (`use_sim_time` for all its nodes); killed
/// if the test fails before [`stop_container`].
fn start_container(bundle: &std::path::Path, domain: &str, use_sim_time: bool) -> ChildGuard {
    ChildGuard::new(
        Command::new(env!("CARGO_BIN_EXE_bundle_container"))
            .arg("--bundle")
            .arg(bundle)
            .args(["--ros-args", "-p"])
            .arg(format!("use_sim_time:={use_sim_time}"))
            .env("ROS_DOMAIN_ID", domain)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::inherit())
            .spawn()
            .unwrap(),
    )
}

/// Stops the container as a launcher does (SIGINT); how it exited.
fn stop_container(mut child: ChildGuard) -> std::process::ExitStatus {
    let _ = child.signal(nix::sys::signal::Signal::SIGINT as i32);
    child.wait().unwrap()
}

/// The test's own node, `name`, in `domain`.
fn peer(domain: &str, name: &str) -> fieldproof_runtime::NodeConfig {
    NodeBuilder::new(name)
        .resolve([name], |k| (k == "ROS_DOMAIN_ID").then(|| domain.into()))
        .unwrap()
}
