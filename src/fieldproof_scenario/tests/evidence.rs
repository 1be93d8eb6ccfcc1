//! The evidence writers: the MCAP recording read back by the Python `mcap` +
//! `mcap-ros2-support` reader and by `rosbags` (as a rosbag2 bag, through metadata.yaml),
//! run.json and the reports.

use fieldproof_msgs::geometry_msgs::{Twist, Vector3};
use fieldproof_msgs::nav_msgs::Odometry;
use fieldproof_msgs::{cdr, std_msgs};
use fieldproof_scenario::evidence::recording::{Recording, RecordingSummary};
use fieldproof_scenario::evidence::{
    self, PlotInput, ProcessRecord, RunRecord, RunResult, VehiclePlot, VehicleRecord,
};
use fieldproof_scenario::host::{HostLoad, PaceChange};
use fieldproof_scenario::resources::RunResources;
use fieldproof_scenario::store::Store;
use std::path::{Path, PathBuf};
use std::process::Command;

use fieldproof_testkit::{python, repo_root};

fn write_sample(dir: &Path) -> PathBuf {
    let path = dir.join("recording.mcap");
    let mut rec = Recording::create(&path).unwrap();
    for i in 0..5u64 {
        let mut odom = Odometry::default();
        odom.header.frame_id = "odom".into();
        odom.child_frame_id = "base_link".into();
        odom.twist.twist.linear.x = 0.25 * i as f64;
        rec.write(
            "/ugv1/odom",
            "nav_msgs/msg/Odometry",
            1_000_000_000 + i * 100_000_000,
            &cdr::to_bytes(&odom).unwrap(),
        )
        .unwrap();
    }
    rec.write(
        "/ugv1/link_state",
        "std_msgs/msg/Bool",
        1_200_000_000,
        &cdr::to_bytes(&std_msgs::Bool { data: true }).unwrap(),
    )
    .unwrap();
    rec.write(
        "/ugv1/cmd_vel",
        "geometry_msgs/msg/Twist",
        1_300_000_000,
        &cdr::to_bytes(&Twist {
            linear: Vector3 {
                x: 0.5,
                y: 0.0,
                z: 0.0,
            },
            angular: Vector3 {
                x: 0.0,
                y: 0.0,
                z: -0.25,
            },
        })
        .unwrap(),
    )
    .unwrap();
    rec.write(
        "/fieldproof/network",
        "std_msgs/msg/String",
        1_400_000_000,
        &cdr::to_bytes(&std_msgs::String {
            data: "{\"link\":\"ugv1\"}".into(),
        })
        .unwrap(),
    )
    .unwrap();
    let s = rec.finish().unwrap();
    assert_eq!(s.message_count, 8);
    assert_eq!(
        s.topics["/ugv1/odom"],
        ("nav_msgs/msg/Odometry".to_string(), 5)
    );
    assert_eq!(s.duration_ns, 400_000_000);
    path
}

#[test]
fn mcap_reads_back_with_the_python_ros2_reader() {
    let dir = tempfile::tempdir().unwrap();
    let path = write_sample(dir.path());
    let script = r#"
import sys
from mcap_ros2.reader import read_ros2_messages
out = []
for m in read_ros2_messages(sys.argv[1]):
    t = m.channel.topic
    if t == "/ugv1/odom":
        out.append("odom %s %s %.2f" % (m.ros_msg.header.frame_id, m.ros_msg.child_frame_id, m.ros_msg.twist.twist.linear.x))
    elif t == "/ugv1/link_state":
        out.append("link %s" % m.ros_msg.data)
    elif t == "/ugv1/cmd_vel":
        out.append("cmd %.2f %.2f" % (m.ros_msg.linear.x, m.ros_msg.angular.z))
    else:
        out.append("%s %s %d" % (t, m.ros_msg.data, m.log_time_ns))
print("\n".join(out))
"#;
    let o = Command::new(python())
        .args(["-c", script, path.to_str().unwrap()])
        .output()
        .expect("the .venv python (scripts/setup) runs");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let text = String::from_utf8(o.stdout).unwrap();
    // In log-time order.
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(
        lines,
        [
            "odom odom base_link 0.00",
            "odom odom base_link 0.25",
            "odom odom base_link 0.50",
            "link True",
            "odom odom base_link 0.75",
            "cmd 0.50 -0.25",
            "odom odom base_link 1.00",
            "/fieldproof/network {\"link\":\"ugv1\"} 1400000000",
        ]
    );
}

#[test]
fn the_run_directory_opens_as_a_rosbag2_bag() {
    let dir = tempfile::tempdir().unwrap();
    write_sample(dir.path());
    let meta = std::fs::read_to_string(dir.path().join("metadata.yaml")).unwrap();
    assert!(meta.contains("storage_identifier: mcap"));
    let script = r#"
import sys
from pathlib import Path
from rosbags.rosbag2 import Reader
with Reader(Path(sys.argv[1])) as r:
    print(r.message_count, sorted((c.topic, c.msgtype) for c in r.connections)[0])
"#;
    let o = Command::new(python())
        .args(["-c", script, dir.path().to_str().unwrap()])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let text = String::from_utf8(o.stdout).unwrap();
    assert_eq!(
        text.trim(),
        "8 ('/fieldproof/network', 'std_msgs/msg/String')"
    );
}

#[test]
fn run_json_and_reports() {
    let dir = tempfile::tempdir().unwrap();
    let world = fieldproof_robots::World::load(repo_root().join("worlds/depot.yaml")).unwrap();
    let mut store = Store::new();
    for i in 0..100 {
        let t = i as f64 * 0.5;
        store.push(
            "/ugv1/odom",
            t,
            serde_json::json!({"twist": {"twist": {"linear": {"x": 0.6}}}}),
        );
        store.push(
            "/ugv1/link_state",
            t,
            serde_json::json!({"data": !(10.0..30.0).contains(&t)}),
        );
        store.push(
            "/fieldproof/truth/ugv1/pose",
            t,
            serde_json::json!({"pose": {"position": {"x": t * 0.3, "y": 0.0}}}),
        );
        store.push(
            "/fieldproof/truth/quad1/pose",
            t,
            serde_json::json!({"pose": {"position": {"x": 2.0, "y": t * 0.2, "z": t.min(5.0)}}}),
        );
        store.push(
            "/quad1/odom",
            t,
            serde_json::json!({"twist": {"twist": {"linear": {"x": 0.6, "y": 0.8, "z": 0.0}}}}),
        );
    }
    for (t, mode) in [
        (-1.5, "INIT"),
        (1.0, "ACTIVE"),
        (12.0, "HOLD"),
        (14.0, "ACTIVE"),
        (40.0, "COMPLETE"),
    ] {
        store.push(
            "/quad1/supervisor/mode",
            t,
            serde_json::json!({ "data": mode }),
        );
    }
    // A vehicle's evidence directory, as its processes leave it.
    let quad_dir = dir.path().join("quad1");
    std::fs::create_dir_all(quad_dir.join("supervisor")).unwrap();
    for f in ["frames.in", "frames.out"] {
        std::fs::write(quad_dir.join("supervisor").join(f), "1 0.05\n").unwrap();
    }
    let record = RunRecord {
        scenario: "demo".into(),
        scenario_file: "demo.yaml".into(),
        scenario_raw: serde_json::json!({}),
        run_id: "r1".into(),
        versions: evidence::versions(),
        seed: 7,
        real_time_factor: 1.0,
        started_unix: 0.0,
        timeline_started_unix: Some(1.0),
        ended_unix: 60.0,
        timeline_duration_s: 50.0,
        result: RunResult {
            exit_code: 1,
            status: "failed".into(),
            reasons: vec![
                "assertion goal_reached: ugv1 came no closer than 3.00 m to goal_east_gate".into(),
            ],
            warnings: vec![],
        },
        timeline: vec![],
        assertions: vec![],
        vehicles: vec![
            VehicleRecord {
                name: "ugv1".into(),
                stack: "goal_driver".into(),
                vision: None,
                vision_note: None,
                evidence_dir: dir.path().join("ugv1"),
                evidence: evidence::evidence_files(&dir.path().join("ugv1")),
            },
            VehicleRecord {
                name: "quad1".into(),
                stack: "/x/mission.launch.yaml".into(),
                vision: Some("none".into()),
                vision_note: Some(fieldproof_scenario::model::VisionSource::None.describe()),
                evidence_dir: quad_dir.clone(),
                evidence: evidence::evidence_files(&quad_dir),
            },
        ],
        network: Some(
            serde_json::json!({"periods": {"links": {"ugv1": {"periods": [
            {"profile": "lte_rural", "cause": "configured", "from_s": null, "to_s": 8.0,
             "measurement": {"latency_ms": 61.2, "replies": 70, "sent": 80}, "expected": {"latency_ms": 60.0},
             "verdict": "passed"},
            {"profile": "drop", "cause": "link_outage (link.drop)", "from_s": 8.0, "to_s": 38.0,
             "measurement": {"latency_ms": null, "replies": 0, "sent": 290}, "expected": {"latency_ms": 0.0, "loss_pct": 100.0},
             "verdict": "passed"}]}}},
             "topology": {"backend": "userspace"},
             "traffic": {"ugv1": {
                "up": {"traffic": {"rx_packets": 1885, "rx_bytes": 711230, "packets": 1672, "bytes": 632336,
                                   "drops_loss": 68, "drops_overflow": 0, "backlog_packets": 145, "backlog_bytes": 50874},
                       "probe": {"rx_packets": 813, "rx_bytes": 47154, "packets": 803, "bytes": 46574,
                                 "drops_loss": 9, "drops_overflow": 0, "backlog_packets": 1, "backlog_bytes": 58}},
                "down": {"traffic": {"rx_packets": 1310, "rx_bytes": 698784, "packets": 1214, "bytes": 680360,
                                     "drops_loss": 84, "drops_overflow": 0, "backlog_packets": 12, "backlog_bytes": 4088}}}}}),
        ),
        contracts: Some(serde_json::json!({
            "ugv1": {"robot": "ugv_ref", "namespace": "/ugv1", "passed": false,
                     "pass": 12, "fail": 1, "skip": 1, "duration_s": 4.2,
                     "findings": [
                        {"check": "rate", "topic": "/ugv1/odom", "status": "fail",
                         "detail": "41.0 Hz over the stamps, contract 50 Hz ± 10 %"},
                        {"check": "graph", "topic": "/ugv1/odom", "status": "pass",
                         "detail": "1 publisher"}]},
            "quad1": {"error": "bundles/quad1/contract.yaml: no such file"}
        })),
        processes: vec![
            ProcessRecord {
                name: "ugv1/link_monitor".into(),
                netns: Some("fp-r1-v-ugv1".into()),
                command: vec!["link_monitor".into()],
                user: "fieldproof".into(),
                pid: Some(41),
                ready_after_s: Some(1.25),
                exit_code: None,
                signal: Some(9),
                exited_at_s: Some(6.02),
                killed_by: Some("kill_failsafe at 6.01 s".into()),
                cpu_s: Some(0.5),
                peak_rss_mib: Some(14.25),
                log: None,
            },
            ProcessRecord {
                name: "ugv1/imu_adapter".into(),
                netns: Some("fp-r1-v-ugv1".into()),
                command: vec!["imu_adapter".into()],
                user: "fieldproof".into(),
                pid: Some(42),
                ready_after_s: Some(1.0),
                exit_code: Some(101),
                signal: None,
                exited_at_s: Some(12.5),
                killed_by: None,
                cpu_s: Some(1.5),
                peak_rss_mib: Some(16.0),
                log: None,
            },
        ],
        recording: Some(RecordingSummary {
            file: dir.path().join("recording.mcap"),
            topics: [
                ("/ugv1/odom", "nav_msgs/msg/Odometry", 100),
                ("/ugv1/link_state", "std_msgs/msg/Bool", 100),
                (
                    "/fieldproof/truth/ugv1/pose",
                    "geometry_msgs/msg/PoseStamped",
                    100,
                ),
                ("/quad1/odom", "nav_msgs/msg/Odometry", 100),
                ("/quad1/link_state", "std_msgs/msg/Bool", 0),
                ("/fieldproof/network", "std_msgs/msg/String", 60),
            ]
            .into_iter()
            .map(|(topic, kind, count)| (topic.to_string(), (kind.to_string(), count)))
            .collect(),
            message_count: 460,
            start_ns: 0,
            duration_ns: 50_000_000_000,
        }),
        resources: Some(RunResources {
            processes_cpu_s: 30.0,
            runner_cpu_s: 6.0,
            peak_rss_mib: 180.4,
            samples: 50,
        }),
        host: Some(HostLoad {
            timeline_wall_s: 50.5,
            achieved_real_time_factor: Some(0.99),
            cores: 2,
            cpu_busy_share: Some(0.97),
            cpu_pressure_share: Some(0.62),
            threads: 240,
            cpu_s: 80.0,
            waited_s: 40.0,
            wakeups: 10_000,
            mean_wakeup_delay_ms: Some(4.0),
            mean_wakeup_delay_sim_ms: Some(3.96),
            wakeup_delay_bound_ms: 2.0,
            overloaded: true,
            auto_pace: Some(vec![PaceChange {
                at_s: 12.0,
                real_time_factor: 0.5,
                window_wakeup_delay_ms: 6.5,
            }]),
        }),
    };
    let p = evidence::write_run_json(dir.path(), &record).unwrap();
    let back: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(p).unwrap()).unwrap();
    assert_eq!(back["result"]["exit_code"], 1);
    assert_eq!(back["seed"], 7);
    assert_eq!(back["host"]["overloaded"], true);
    assert_eq!(back["host"]["mean_wakeup_delay_ms"], 4.0);
    assert_eq!(back["host"]["auto_pace"][0]["real_time_factor"], 0.5);
    assert_eq!(
        back["vehicles"][1]["evidence"],
        serde_json::json!(["supervisor/frames.in", "supervisor/frames.out"])
    );
    assert_eq!(
        back["vehicles"][1]["vision_note"],
        "vision: none — the supervisor ignores vision freshness"
    );
    assert_eq!(back["vehicles"][0]["evidence"], serde_json::json!([]));
    let input = PlotInput {
        store: &store,
        world: &world,
        vehicles: vec![
            VehiclePlot {
                name: "ugv1".into(),
                odometry: "/ugv1/odom".into(),
                link_state: "/ugv1/link_state".into(),
                truth: "/fieldproof/truth/ugv1/pose".into(),
                mode: None,
            },
            VehiclePlot {
                name: "quad1".into(),
                odometry: "/quad1/odom".into(),
                link_state: "/quad1/link_state".into(),
                truth: "/fieldproof/truth/quad1/pose".into(),
                mode: Some("/quad1/supervisor/mode".into()),
            },
        ],
        goals: vec![("goal_east_gate".into(), (18.0, 0.0))],
    };
    let files = evidence::write_reports(dir.path(), &record, &input).unwrap();
    let names: Vec<String> = files
        .iter()
        .map(|f| f.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    assert_eq!(
        names,
        [
            "ugv1_speed_link.svg",
            "quad1_speed_link.svg",
            "quad1_modes.svg",
            "ugv1_latency.svg",
            "trajectory.svg",
            "report.md",
            "report.html",
            "foxglove_layout.json"
        ]
    );
    // The layout names only topics the recording holds (quad1's link_state: no messages).
    let layout: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(dir.path().join(evidence::foxglove::LAYOUT_FILE)).unwrap(),
    )
    .unwrap();
    let read = evidence::foxglove::topics(&layout);
    let recording = record.recording.as_ref().unwrap();
    for topic in &read {
        assert!(
            recording.topics.get(topic).is_some_and(|(_, n)| *n > 0),
            "{topic} is not in the recording"
        );
    }
    assert!(
        read.contains(&"/fieldproof/network".to_string()),
        "{read:?}"
    );
    // The latency over time: the drop's outage shaded, not a bar of a latency.
    let latency = std::fs::read_to_string(dir.path().join("plots/ugv1_latency.svg")).unwrap();
    assert!(latency.contains("outage (drop)"), "the drop period shaded");
    let md = std::fs::read_to_string(dir.path().join("report.md")).unwrap();
    assert!(md.starts_with("# Scenario demo: FAILED"));
    assert!(md.contains("came no closer than 3.00 m"));
    assert!(md.contains(
        "| ugv1 | drop | link_outage (link.drop) | 8.00 to 38.00 | no answers (0 of 290 answered) | passed |"
    ));
    assert!(md.contains("Every link shaped by the userspace emulator (backend userspace"));
    // The contract checks: counts per vehicle and every failed finding.
    assert!(md.contains("## Bridge contracts"), "{md}");
    assert!(md.contains(
        "| ugv1 | 12 | 1 | 1 | rate /ugv1/odom: 41.0 Hz over the stamps, contract 50 Hz ± 10 % |"
    ), "{md}");
    assert!(
        md.contains("| quad1 |  |  |  | not checked: bundles/quad1/contract.yaml: no such file |"),
        "{md}"
    );
    // Traffic per link as a table: what entered, what was delivered, what was dropped.
    assert!(md.contains("## Traffic per link"), "{md}");
    assert!(
        md.contains(
            "| ugv1 | vehicle → ground | traffic | 1885 / 711230 | 1672 / 632336 | 68 | 0 | 145 |"
        ),
        "{md}"
    );
    assert!(md.contains(
        "| ugv1 | ground → vehicle | traffic | 1310 / 698784 | 1214 / 680360 | 84 | 0 | 12 |"
    ));
    assert!(
        !md.contains("| ugv1 | ground → vehicle | probes"),
        "no probe counters: no row"
    );
    assert!(md.contains("![trajectory](plots/trajectory.svg)"));
    assert!(md.contains(
        "| ugv1/link_monitor | fp-r1-v-ugv1 | fieldproof | 1.2 | at 6.02 s, after kill_failsafe at 6.01 s | signal 9 | 0.50 | 14.2 |"
    ));
    assert!(md.contains(
        "| ugv1/imu_adapter | fp-r1-v-ugv1 | fieldproof | 1.0 | at 12.50 s, UNEXPECTED | 101 |"
    ));
    assert!(md.contains(
        "Whole run: 60.0 s of wall clock; CPU 30.0 s in the processes and 6.0 s in the runner (60 % of one core on average); peak memory 180 MiB"
    ));
    assert!(md.contains(
        "Host during the timeline (50.5 s of wall clock): the run's threads waited 4.00 ms for a CPU per wake-up, 3.96 ms of simulation time (bound 2.0 ms), 2 cores 97 % busy, some task waiting for a CPU 62 % of the time, simulation at 0.99x real time: **overloaded**, the stack was starved. Paced by `--real-time-factor auto`: 0.5 at 12.0 s (6.50 ms per wake-up)."
    ), "{md}");
    // The vehicles: their stacks, vision input and evidence files.
    assert!(md.contains(
        "| quad1 | /x/mission.launch.yaml | vision: none — the supervisor ignores vision freshness | quad1/supervisor/frames.in, quad1/supervisor/frames.out |"
    ), "{md}");
    assert!(md.contains("| ugv1 | goal_driver |  | none |"));
    assert!(md.contains("![quad1: supervisor mode, altitude and speed](plots/quad1_modes.svg)"));
    let modes = std::fs::read_to_string(dir.path().join("plots/quad1_modes.svg")).unwrap();
    for label in [
        "INIT",
        "ACTIVE",
        "HOLD",
        "COMPLETE",
        "altitude (m)",
        "speed (m/s)",
    ] {
        assert!(modes.contains(label), "{label}");
    }
    let html = std::fs::read_to_string(dir.path().join("report.html")).unwrap();
    assert_eq!(html.matches("<svg").count(), 5);
    assert!(html.contains("<td>vision: none — the supervisor ignores vision freshness</td>"));
    assert!(html.contains("<td>at 12.50 s, UNEXPECTED</td>"));
    // On the kernel backend tc counts what netem sent and dropped, not what entered it.
    let mut kernel = record.clone();
    let network = kernel.network.as_mut().unwrap();
    network["topology"]["backend"] = "kernel".into();
    let md = evidence::report::report_md(&kernel, &[]);
    assert!(md.contains("Every link shaped by kernel netem"), "{md}");
    assert!(
        md.contains(
            "| ugv1 | vehicle → ground | traffic | not counted | 1672 / 632336 | 68 | 0 | 145 |"
        ),
        "{md}"
    );
    assert!(
        md.contains("Counted by tc (netem's queue statistics)"),
        "{md}"
    );
}
