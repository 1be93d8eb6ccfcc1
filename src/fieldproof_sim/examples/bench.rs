//! Benchmark: wall-clock cost of simulated seconds for N reference UGVs.
//!
//! ```text
//! bench --vehicles N --mode MODE [--seconds S] [--without camera]
//! ```
//! Modes: `null` (messages built, then dropped; the camera is rendered), `nocam` (messages
//! built, camera images and clouds skipped), `dds` (every topic published on DDS; cameras
//! render only for subscribers, so with none they are skipped: run inside
//! `scripts/netns-run`). Prints one JSON line: wall time per simulated second, speed-up
//! (simulated / wall time at real_time_factor 0), CPU % and peak RSS.

use std::time::Instant;

use fieldproof_robots::World;
use fieldproof_sim::ros::{self, RunOptions};
use fieldproof_sim::{Msg, NullSink, SimConfig, Simulation, Sink, Spawn, SpawnSpec};
use fieldproof_testkit::repo_root;

struct NoCamera(NullSink, Vec<bool>);

impl Sink for NoCamera {
    fn publish(&mut self, topic: usize, msg: Msg) {
        self.0.publish(topic, msg);
    }
    fn wants(&self, topic: usize) -> bool {
        !self.1[topic]
    }
}

fn cpu_seconds() -> f64 {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    let after = stat.rsplit(')').next().unwrap_or("");
    let f: Vec<&str> = after.split_whitespace().collect();
    let ticks: f64 = f.get(11).and_then(|u| u.parse().ok()).unwrap_or(0.0)
        + f.get(12).and_then(|s| s.parse::<f64>().ok()).unwrap_or(0.0);
    ticks / 100.0
}

fn peak_rss_mb() -> f64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find(|l| l.starts_with("VmHWM:"))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|kb| kb.parse::<f64>().ok())
        .map_or(0.0, |kb| kb / 1024.0)
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let get = |k: &str| {
        args.iter()
            .position(|a| a == k)
            .and_then(|i| args.get(i + 1))
            .cloned()
    };
    let n: usize = get("--vehicles").and_then(|v| v.parse().ok()).unwrap_or(1);
    let mode = get("--mode").unwrap_or_else(|| "nocam".into());
    let seconds: f64 = get("--seconds").and_then(|v| v.parse().ok()).unwrap_or(5.0);
    let without = get("--without").unwrap_or_default();
    let world = World::load(repo_root().join("worlds/depot.yaml")).expect("world");
    let manifest = repo_root().join("robots/ugv_ref/robot.yaml");
    let specs: Vec<SpawnSpec> = (0..n)
        .map(|i| {
            // A 4 x 4 grid in the open middle of the depot.
            let (x, y) = (-3.0 + 2.0 * (i % 4) as f64, -4.5 + 2.0 * (i / 4) as f64);
            let w = if without.is_empty() {
                String::new()
            } else {
                format!(",without={without}")
            };
            SpawnSpec::parse(&format!(
                "ns=ugv{i},manifest={},x={x},y={y}{w}",
                manifest.display()
            ))
            .unwrap()
        })
        .collect();
    let spawns = Spawn::resolve_all(&specs, &world).expect("spawns");
    let mut sim = Simulation::new(&world, &spawns, SimConfig::default());
    for i in 0..n {
        sim.set_command(
            i,
            fieldproof_msgs::geometry_msgs::Twist {
                linear: fieldproof_msgs::geometry_msgs::Vector3 {
                    x: 0.3,
                    y: 0.0,
                    z: 0.0,
                },
                angular: fieldproof_msgs::geometry_msgs::Vector3 {
                    x: 0.0,
                    y: 0.0,
                    z: 0.3,
                },
            },
        );
    }
    let steps = (seconds * 1000.0) as u64;
    let cpu0 = cpu_seconds();
    let start = Instant::now();
    let messages = match mode.as_str() {
        "null" => {
            let mut sink = NullSink::default();
            sim.run_steps(steps, &mut sink);
            sink.count
        }
        "nocam" => {
            let skip = sim
                .topics()
                .iter()
                .map(|t| {
                    t.ros_type == "sensor_msgs/msg/Image"
                        || t.ros_type == "sensor_msgs/msg/PointCloud2"
                })
                .collect();
            let mut sink = NoCamera(NullSink::default(), skip);
            sim.run_steps(steps, &mut sink);
            sink.0.count
        }
        "dds" => {
            assert!(
                fieldproof_testkit::is_contained(),
                "dds mode opens a participant: run it under scripts/netns-run"
            );
            let (builder, params) = ros::node_builder();
            let cfg = builder
                .resolve(
                    ["bench", "--ros-args", "-p", "real_time_factor:=0.0"],
                    |k| (k == "ROS_DOMAIN_ID").then(|| "77".to_string()),
                )
                .expect("node config");
            let opts = RunOptions {
                duration_ns: Some((seconds * 1e9) as i64),
                real_time_factor: params.real_time_factor,
                paused: params.paused,
            };
            fieldproof_runtime::run(cfg, move |node| ros::run(node, sim, opts)).expect("run");
            0
        }
        other => panic!("unknown mode {other}"),
    };
    let wall = start.elapsed().as_secs_f64();
    let cpu = cpu_seconds() - cpu0;
    println!(
        "{{\"vehicles\": {n}, \"mode\": \"{mode}\", \"without\": \"{without}\", \"sim_s\": {seconds}, \"wall_s\": {wall:.3}, \"wall_per_sim_s\": {:.4}, \"speedup\": {:.2}, \"cpu_pct\": {:.0}, \"cpu_s_per_sim_s\": {:.4}, \"peak_rss_mb\": {:.1}, \"messages\": {messages}}}",
        wall / seconds,
        seconds / wall,
        100.0 * cpu / wall,
        cpu / seconds,
        peak_rss_mb()
    );
}
