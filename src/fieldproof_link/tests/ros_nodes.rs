//! The three nodes end to end over DDS (root; each test re-runs itself inside a private
//! network namespace when started outside one).
//!
//! link_shaper (in the test's namespace) creates the run and shapes the link (lte_rural);
//! ground_station (radio namespace) sends the heartbeat at 5 Hz and probes; link_monitor
//! (vehicle namespace, timeout 1 s) sits between a peer's cmd_vel_safe (x = 1, 10 Hz) and
//! cmd_vel. A `drop ugv1 7` over `/link_shaper/command`: link_state false within the
//! timeout + one 20 Hz period + the link's latency (bounded here by 1.5 s after the drop,
//! wall clock), only zero commands while lost (≈ 20 Hz), then link_state true and the
//! commands pass again after the restore. The windows of network.jsonl during the drop are
//! unanswered. A command for a link not of this run is refused with a reason. SIGINT of
//! link_shaper removes the run.

mod common;

use common::{require_root, run_id};
use fieldproof_link::netns;
use fieldproof_testkit::Lines;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// A process whose stdout lines are collected.
struct Proc {
    child: Child,
    lines: Lines,
}

impl Proc {
    fn start(ns: Option<&str>, program: &str, args: &[&str], domain: &str) -> Proc {
        let mut cmd = match ns {
            Some(ns) => {
                let mut c = Command::new("ip");
                c.args(["netns", "exec", ns, program]);
                c
            }
            None => Command::new(program),
        };
        let mut child = cmd
            .args(args)
            .env("ROS_DOMAIN_ID", domain)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        let lines = Lines::collect(child.stdout.take().unwrap());
        Proc { child, lines }
    }

    fn json(&self) -> Vec<serde_json::Value> {
        self.lines
            .all()
            .iter()
            .filter_map(|l| serde_json::from_str(l).ok())
            .collect()
    }

    fn wait_for(
        &self,
        what: &str,
        timeout: Duration,
        f: impl Fn(&serde_json::Value) -> bool,
    ) -> serde_json::Value {
        let end = Instant::now() + timeout;
        loop {
            if let Some(v) = self.json().into_iter().find(&f) {
                return v;
            }
            assert!(Instant::now() < end, "{what}: not within {timeout:?}");
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    fn signal(&self, sig: i32) {
        // SAFETY: kill(2) on our own child.
        unsafe { libc::kill(self.child.id() as i32, sig) };
    }

    fn wait(&mut self, timeout: Duration) -> Option<std::process::ExitStatus> {
        let end = Instant::now() + timeout;
        while Instant::now() < end {
            if let Ok(Some(s)) = self.child.try_wait() {
                // Its last lines may still be on their way to the collector.
                self.lines.wait_closed(Duration::from_secs(5));
                return Some(s);
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        None
    }
}

impl Drop for Proc {
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            self.signal(libc::SIGINT);
            if self.wait(Duration::from_secs(5)).is_none() {
                let _ = self.child.kill();
                let _ = self.child.wait();
            }
        }
    }
}

fn command(text: &str, domain: &str) -> serde_json::Value {
    let mut p = Proc::start(
        None,
        env!("CARGO_BIN_EXE_link_peer"),
        &["command", text],
        domain,
    );
    let st = p
        .wait(Duration::from_secs(30))
        .expect("link_peer command ends");
    assert!(st.success(), "{text}: {st}");
    p.json().pop().expect("a reply")
}

#[test]
fn drop_and_restore_through_the_nodes() {
    require_root();
    fieldproof_testkit::contain_or_return!();
    let run = run_id("ros");
    let domain = (100 + std::process::id() % 100).to_string();
    let dir = std::env::temp_dir().join(format!("fp-link-{run}"));
    std::fs::create_dir_all(&dir).unwrap();
    let jsonl = dir.join("network.jsonl");
    let _ = std::fs::remove_file(&jsonl);

    let vehicles_param = "vehicles:=[ugv1]";
    let events = dir.join("events.jsonl");
    let events_param = format!("events_jsonl:={}", events.display());
    let run_param = format!("run_id:={run}");
    let mut shaper = Proc::start(
        None,
        env!("CARGO_BIN_EXE_link_shaper"),
        &[
            "--ros-args",
            "-p",
            &run_param,
            "-p",
            vehicles_param,
            "-p",
            "profile:=lte_rural",
            "-p",
            "backend:=userspace",
            "-p",
            &events_param,
        ],
        &domain,
    );
    let ready = shaper.wait_for("link_shaper ready", Duration::from_secs(30), |v| {
        v["ready"] == true
    });
    let epoch = ready["epoch"].as_f64().unwrap();
    assert_eq!(
        netns::namespaces_of(&run).len(),
        4,
        "radio, world, vehicle, link"
    );
    let radio = netns::radio_ns(&run);
    let vehicle = netns::vehicle_ns(&run, "ugv1");
    let jsonl_param = format!("network_jsonl:={}", jsonl.display());
    let ground = Proc::start(
        Some(&radio),
        env!("CARGO_BIN_EXE_ground_station"),
        &[
            "--ros-args",
            "-p",
            vehicles_param,
            "-p",
            "heartbeat_rate_hz:=5.0",
            "-p",
            &jsonl_param,
        ],
        &domain,
    );
    ground.wait_for("ground station ready", Duration::from_secs(20), |v| {
        v["ready"] == true
    });
    let _monitor = Proc::start(
        Some(&vehicle),
        env!("CARGO_BIN_EXE_link_monitor"),
        &["--ros-args", "-r", "__ns:=/ugv1", "-p", "timeout_s:=1.0"],
        &domain,
    );
    let watch = Proc::start(
        Some(&vehicle),
        env!("CARGO_BIN_EXE_link_peer"),
        &["watch", "/ugv1"],
        &domain,
    );

    // Armed by the heartbeat through the link; commands pass.
    watch.wait_for("link_state true", Duration::from_secs(40), |v| {
        v["link_state"] == true
    });
    watch.wait_for("a command passed", Duration::from_secs(20), |v| {
        v["cmd_x"] == 1.0
    });

    // A link not of this run is refused with a reason.
    let refused = command("set nope wifi_good", &domain);
    assert_eq!(refused["ok"], false);
    assert!(
        refused["error"]
            .as_str()
            .unwrap()
            .contains("'nope' has no link in this run"),
        "{refused}"
    );
    let refused = command("custom ugv1 bad {\"loss_pct\": 120}", &domain);
    assert!(
        refused["error"]
            .as_str()
            .unwrap()
            .contains("loss_pct: 120 is out of range"),
        "{refused}"
    );

    // The scenario's timeline starts once the vehicle hears its ground station (the
    // bring-up before it, ARP and discovery over the link, is left out of the verdict);
    // three seconds of it before the drop.
    let armed = watch.wait_for("armed", Duration::from_secs(1), |v| v["link_state"] == true);
    let timeline_start = armed["t"].as_f64().unwrap();
    std::thread::sleep(Duration::from_secs(3));
    // Long enough for a verdict: the drop's last DROP_END_HOLD_S are not judged.
    let drop_s = 4.0 + fieldproof_link::analysis::DROP_END_HOLD_S;
    let reply = command(&format!("drop ugv1 {drop_s}"), &domain);
    let dropped_at = fieldproof_link::shaper::unix_now();
    assert_eq!(reply["ok"], true, "{reply}");
    assert_eq!(reply["in_force"]["ugv1"]["profile"], "drop");
    let lost = watch.wait_for("link_state false", Duration::from_secs(10), |v| {
        v["link_state"] == false
    });
    let lost_t = lost["t"].as_f64().unwrap();
    eprintln!(
        "link_state false {:.3} s after the drop",
        lost_t - dropped_at
    );
    assert!(
        lost_t - dropped_at <= 1.5,
        "false after {} s",
        lost_t - dropped_at
    );
    let back = watch.wait_for("link_state true again", Duration::from_secs(20), |v| {
        v["link_state"] == true && v["t"].as_f64().unwrap() > lost_t
    });
    let back_t = back["t"].as_f64().unwrap();
    eprintln!(
        "link_state true {:.3} s after the drop",
        back_t - dropped_at
    );
    assert!(
        back_t - dropped_at >= drop_s - 0.1,
        "back too early: {}",
        back_t - dropped_at
    );
    // While lost: only zero commands, at about 20 Hz.
    let lines = watch.json();
    let cmds: Vec<(f64, f64)> = lines
        .iter()
        .filter_map(|v| Some((v["t"].as_f64()?, v["cmd_x"].as_f64()?)))
        .filter(|(t, _)| *t > lost_t + 0.2 && *t < back_t - 0.1)
        .collect();
    assert!(
        cmds.iter().all(|(_, x)| *x == 0.0),
        "a command passed while lost"
    );
    let rate = cmds.len() as f64 / (back_t - lost_t - 0.3);
    eprintln!("zero commands at {rate:.1} Hz while lost");
    assert!((15.0..=25.0).contains(&rate), "{rate} Hz");
    watch.wait_for("commands pass again", Duration::from_secs(10), |v| {
        v["cmd_x"] == 1.0 && v["t"].as_f64().unwrap() > back_t
    });

    // The ground station's windows: answered before, unanswered during the drop.
    std::thread::sleep(Duration::from_millis(2500));
    let windows: Vec<fieldproof_link::analysis::Window> = std::fs::read_to_string(&jsonl)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let during: Vec<_> = windows
        .iter()
        .filter(|w| {
            w.t >= dropped_at + 0.5
                && w.t + 1.0 <= dropped_at + drop_s - fieldproof_link::analysis::DROP_END_HOLD_S
        })
        .collect();
    assert!(
        !during.is_empty() && during.iter().all(|w| w.replies == 0),
        "{during:?}"
    );
    assert!(windows
        .iter()
        .any(|w| w.replies > 0 && w.t + 1.0 <= dropped_at));

    drop(watch);
    drop(_monitor);
    drop(ground);
    shaper.signal(libc::SIGINT);
    let st = shaper
        .wait(Duration::from_secs(10))
        .expect("link_shaper ends on SIGINT");
    assert!(st.success(), "{st}");
    assert!(
        netns::namespaces_of(&run).is_empty(),
        "{:?}",
        netns::namespaces_of(&run)
    );

    // link_analysis on what the run recorded (the shaper's events are relative to its
    // epoch, the verdicts to the timeline): the configured lte_rural period and the drop
    // pass; the restored period is too short for a verdict.
    let scenario = dir.join("scenario.yaml");
    std::fs::write(&scenario, "network: { profile: lte_rural, verify: fail }\n").unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_link_analysis"))
        .arg(&jsonl)
        .args([
            "--timeline",
            scenario.to_str().unwrap(),
            "--events",
            events.to_str().unwrap(),
        ])
        .args([
            "--start",
            &timeline_start.to_string(),
            "--events-epoch",
            &epoch.to_string(),
        ])
        .output()
        .unwrap();
    let report: serde_json::Value =
        serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {out:?}"));
    eprintln!("{}", report["links"]["ugv1"]["periods"]);
    assert!(out.status.success(), "{out:?}");
    let periods = report["links"]["ugv1"]["periods"].as_array().unwrap();
    let verdicts: Vec<&str> = periods
        .iter()
        .map(|p| p["verdict"].as_str().unwrap())
        .collect();
    let profiles: Vec<&str> = periods
        .iter()
        .map(|p| p["profile"].as_str().unwrap())
        .collect();
    assert_eq!(profiles.last(), Some(&"lte_rural"));
    let drop_idx = profiles
        .iter()
        .position(|p| *p == "drop")
        .expect("a drop period");
    assert_eq!(verdicts[drop_idx], "passed", "{report}");
    assert_eq!(
        verdicts[drop_idx - 1],
        "passed",
        "the configured period: {report}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// link_monitor in simulation time (`use_sim_time:=true`, /clock at half the wall clock's
/// speed, the example vehicle's timeout 2 s of simulation = 4 s of wall clock): link_state false between 2 s and
/// 2 s + one 20 Hz period + 0.15 s of delivery slack after the last heartbeat, in
/// simulation time; only zero commands while lost, at 20 Hz of simulation time (15 to 25);
/// link_state true at the next heartbeat and commands pass again.
#[test]
fn link_monitor_follows_simulation_time() {
    fieldproof_testkit::contain_or_return!();
    let domain = (200 + std::process::id() % 30).to_string();
    // The example vehicle's runtime.link (timeout 2 s, gcs/heartbeat), passed as the
    // scenario runner passes it: declared parameters, as `ros2 param get` reports them.
    let _monitor = Proc::start(
        None,
        env!("CARGO_BIN_EXE_link_monitor"),
        &[
            "--ros-args",
            "-r",
            "__ns:=/ugv1",
            "-p",
            "use_sim_time:=true",
            "-p",
            "timeout_s:=2.0",
            "-p",
            "heartbeat_topic:=gcs/heartbeat",
            "-p",
            "loss_action:=stop",
        ],
        &domain,
    );
    // Heartbeats for 6 s, then none for 7 s (3.5 s of simulation), then again.
    let mut sim = Proc::start(
        None,
        env!("CARGO_BIN_EXE_link_peer"),
        &["sim", "/ugv1", "6", "7", "0.5"],
        &domain,
    );
    let st = sim
        .wait(Duration::from_secs(60))
        .expect("link_peer sim ends");
    assert!(st.success(), "{st}");
    let lines = sim.json();
    let f = |v: &serde_json::Value, k: &str| v[k].as_f64();
    let armed = lines
        .iter()
        .find(|v| v["link_state"] == true)
        .expect("armed");
    let lost = lines
        .iter()
        .find(|v| v["link_state"] == false)
        .expect("link_state false");
    let lost_sim = f(lost, "sim").unwrap();
    let last_hb = lines
        .iter()
        .filter(|v| v["heartbeat"] == true && f(v, "sim").unwrap() < lost_sim)
        .filter_map(|v| f(v, "sim"))
        .fold(f64::MIN, f64::max);
    eprintln!(
        "armed at sim {:.3}; lost {:.3} s of simulation after the last heartbeat",
        f(armed, "sim").unwrap(),
        lost_sim - last_hb
    );
    assert!(lost_sim - last_hb >= 2.0 - 0.01, "{}", lost_sim - last_hb);
    assert!(
        lost_sim - last_hb <= 2.0 + 0.05 + 0.15,
        "{}",
        lost_sim - last_hb
    );
    let back = lines
        .iter()
        .find(|v| v["link_state"] == true && f(v, "sim").unwrap() > lost_sim)
        .expect("link_state true again");
    let back_sim = f(back, "sim").unwrap();
    let zeros: Vec<f64> = lines
        .iter()
        .filter(|v| {
            f(v, "cmd_x").is_some()
                && f(v, "sim").unwrap() > lost_sim + 0.1
                && f(v, "sim").unwrap() < back_sim - 0.05
        })
        .map(|v| f(v, "cmd_x").unwrap())
        .collect();
    assert!(
        zeros.iter().all(|x| *x == 0.0),
        "a command passed while lost"
    );
    let rate = zeros.len() as f64 / (back_sim - lost_sim - 0.15);
    eprintln!("zero commands at {rate:.1} Hz of simulation time");
    assert!((15.0..=25.0).contains(&rate), "{rate}");
    assert!(
        lines
            .iter()
            .any(|v| f(v, "cmd_x") == Some(1.0) && f(v, "sim").unwrap() > back_sim),
        "commands pass again"
    );
}
