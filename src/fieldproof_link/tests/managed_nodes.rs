//! ground_station is a managed (lifecycle) node (unprivileged, no links: probing off):
//! with `autostart` (the default, what the runner relies on) a peer sees it reach ACTIVE
//! through `~/get_state` and it prints its readiness line; with `autostart:=false` it waits
//! unconfigured, silent, until a peer configures and activates it; a configuration it
//! refuses fails `configure` (state unchanged) and, with autostart, ends the process with
//! the reason as before. Each test re-runs itself inside a private network namespace.

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use fieldproof_runtime::lifecycle::{
    self, PRIMARY_STATE_ACTIVE, PRIMARY_STATE_INACTIVE, PRIMARY_STATE_UNCONFIGURED,
    TRANSITION_ACTIVATE, TRANSITION_CONFIGURE,
};
use fieldproof_runtime::NodeBuilder;
use fieldproof_testkit::{ChildGuard, Lines};

const DOMAIN: &str = "93";

/// ground_station as `name`, its stdout lines collected.
struct Station {
    _child: ChildGuard,
    stdout: Lines,
}

impl Station {
    fn start(name: &str, params: &[&str]) -> Station {
        let mut args = vec![
            "--ros-args".to_string(),
            "-r".into(),
            format!("__node:={name}"),
        ];
        for p in ["probe:=false", "heartbeat_rate_hz:=0.0"]
            .iter()
            .chain(params)
        {
            args.extend(["-p".to_string(), p.to_string()]);
        }
        let mut child = Command::new(env!("CARGO_BIN_EXE_ground_station"))
            .args(&args)
            .env("ROS_DOMAIN_ID", DOMAIN)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .spawn()
            .expect("start ground_station");
        let stdout = Lines::collect(child.stdout.take().unwrap());
        Station {
            _child: ChildGuard::new(child),
            stdout,
        }
    }

    fn ready_lines(&self) -> usize {
        self.stdout.count("\"ready\":true")
    }

    async fn wait_ready(&self, timeout: Duration) {
        let end = Instant::now() + timeout;
        while self.ready_lines() == 0 {
            assert!(Instant::now() < end, "no readiness line within {timeout:?}");
            smol::Timer::after(Duration::from_millis(20)).await;
        }
    }
}

#[test]
fn peers_see_ground_station_reach_active_by_itself_or_when_driven() {
    fieldproof_testkit::contain_or_return!();
    let auto = Station::start("gs_auto", &[]);
    let manual = Station::start("gs_manual", &["autostart:=false"]);
    let refused = Station::start(
        "gs_refused",
        &[
            "autostart:=false",
            "vehicles:=[ugv1]",
            "addresses:=[203.0.113.7]",
        ],
    );
    let cfg = NodeBuilder::new("lc_peer")
        .resolve(["--ros-args"], |k| {
            (k == "ROS_DOMAIN_ID").then(|| DOMAIN.to_string())
        })
        .expect("peer config");
    let wait = Duration::from_secs(20);
    fieldproof_runtime::run(cfg, |node| async move {
        lifecycle::wait_for_state(&node, "/gs_auto", PRIMARY_STATE_ACTIVE, wait).await?;
        auto.wait_ready(wait).await;

        let s = lifecycle::get_state(&node, "/gs_manual", wait).await?;
        assert_eq!(s.id, PRIMARY_STATE_UNCONFIGURED);
        assert!(lifecycle::change_state(&node, "/gs_manual", TRANSITION_CONFIGURE, wait).await?);
        let s = lifecycle::get_state(&node, "/gs_manual", wait).await?;
        assert_eq!(s.id, PRIMARY_STATE_INACTIVE);
        assert_eq!(manual.ready_lines(), 0, "ready before activation");
        assert!(lifecycle::change_state(&node, "/gs_manual", TRANSITION_ACTIVATE, wait).await?);
        lifecycle::wait_for_state(&node, "/gs_manual", PRIMARY_STATE_ACTIVE, wait).await?;
        manual.wait_ready(wait).await;

        assert!(!lifecycle::change_state(&node, "/gs_refused", TRANSITION_CONFIGURE, wait).await?);
        let s = lifecycle::get_state(&node, "/gs_refused", wait).await?;
        assert_eq!(s.id, PRIMARY_STATE_UNCONFIGURED);
        assert_eq!(refused.ready_lines(), 0);
        Ok(())
    })
    .expect("lifecycle peer");
}

#[test]
fn with_autostart_a_refused_configuration_ends_the_process_with_its_reason() {
    fieldproof_testkit::contain_or_return!();
    let out = Command::new(env!("CARGO_BIN_EXE_ground_station"))
        .args([
            "--ros-args",
            "-p",
            "probe:=false",
            "-p",
            "vehicles:=[ugv1]",
            "-p",
            "addresses:=[203.0.113.7]",
        ])
        .env("ROS_DOMAIN_ID", DOMAIN)
        .stdin(Stdio::null())
        .output()
        .expect("run ground_station");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("ground_station: error: addresses: 203.0.113.7 (ugv1) is outside the run's radio network"),
        "{stderr}"
    );
    assert!(!String::from_utf8_lossy(&out.stdout).contains("ready"));
}
