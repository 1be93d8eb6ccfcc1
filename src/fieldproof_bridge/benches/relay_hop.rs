//! Benchmark (not a test): one relay hop against a direct publisher → subscriber, and against
//! the same relay written on the Cyclone DDS Python binding (the class of the earlier rclpy
//! adapters), side by side in one run: latency p50/p99, loss, relay CPU at 1 kHz, the fastest
//! rate without loss, and a 2 MB image at 30 Hz.
//!
//! Run inside a private network namespace (DDS multicasts on every interface):
//!     scripts/netns-run cargo bench -p fieldproof_bridge --bench relay_hop
//! The Python relay needs `FIELDPROOF_PYTHON` (default `<root>/.venv/bin/python`) with cyclonedds.

use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use fieldproof_runtime::msgs::builtin_interfaces::Time;
use fieldproof_runtime::msgs::sensor_msgs::{Image, Imu};
use fieldproof_runtime::msgs::{MaybeStamped, RosMessage};
use fieldproof_runtime::{qos, Node, NodeBuilder, NodeResult};
use futures::StreamExt;

fn wall_ns() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_nanos() as i64
}

/// Total CPU time (user + system) of a process, seconds.
fn cpu_seconds(pid: u32) -> f64 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    let after_comm = stat.rsplit_once(')').map(|(_, r)| r).unwrap_or("");
    let fields: Vec<&str> = after_comm.split_whitespace().collect();
    let ticks = |i: usize| {
        fields
            .get(i)
            .and_then(|f| f.parse::<f64>().ok())
            .unwrap_or(0.0)
    };
    // utime and stime are fields 14 and 15 of /proc/pid/stat (11 and 12 after "pid (comm)").
    (ticks(11) + ticks(12)) / 100.0
}

struct Stats {
    label: String,
    sent: usize,
    received: usize,
    p50_us: f64,
    p99_us: f64,
    cpu_pct: Option<f64>,
}

impl Stats {
    fn print(&self) {
        let cpu = self
            .cpu_pct
            .map(|c| format!("{c:6.1} %"))
            .unwrap_or_else(|| "     -  ".into());
        println!(
            "{:<44} sent {:>6}  lost {:>5}  p50 {:>8.1} us  p99 {:>8.1} us  relay CPU {cpu}",
            self.label,
            self.sent,
            self.sent - self.received,
            self.p50_us,
            self.p99_us
        );
    }
}

fn percentile(sorted: &[f64], p: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    sorted[((sorted.len() - 1) as f64 * p).round() as usize]
}

/// Publishes `count` messages at `rate_hz` on `input` and measures them arriving on `output`.
#[allow(clippy::too_many_arguments)] // a bench helper: every argument is one knob of the run
async fn measure<T: RosMessage + MaybeStamped>(
    node: &Node,
    label: &str,
    input: &str,
    output: &str,
    rate_hz: f64,
    count: usize,
    make: impl Fn() -> T + Send + 'static,
    relay_pid: Option<u32>,
) -> Result<Stats, fieldproof_runtime::BoxError> {
    let publisher = Arc::new(node.publisher::<T>(input, qos::default())?);
    let sub = node.subscription::<T>(output, qos::default())?;
    let stamp_of = |m: &T| m.maybe_header().map(|h| h.stamp.to_nanos()).unwrap_or(0);
    // Discovery: publish until one comes through.
    let deadline = Instant::now() + Duration::from_secs(20);
    let mut stream = std::pin::pin!(sub.stream());
    loop {
        let mut m = make();
        m.maybe_header_mut().unwrap().stamp = Time::from_nanos(wall_ns());
        publisher.publish(m)?;
        let got = smol::future::or(async { stream.next().await.is_some() }, async {
            smol::Timer::after(Duration::from_millis(100)).await;
            false
        })
        .await;
        if got {
            break;
        }
        if Instant::now() > deadline {
            return Err(format!("{label}: nothing came through {output} in 20 s").into());
        }
    }
    // Drain what is in flight.
    smol::Timer::after(Duration::from_millis(300)).await;
    while let Some(Some(_)) = smol::future::or(async { Some(stream.next().await) }, async {
        smol::Timer::after(Duration::from_millis(50)).await;
        None
    })
    .await
    {}

    let cpu_before = relay_pid.map(cpu_seconds);
    let started = Instant::now();
    let pacer = publisher.clone();
    let sender = std::thread::spawn(move || {
        let period = Duration::from_secs_f64(1.0 / rate_hz);
        let t0 = Instant::now();
        for i in 0..count {
            let due = t0 + period * i as u32;
            while Instant::now() < due {
                let left = due - Instant::now();
                if left > Duration::from_micros(200) {
                    std::thread::sleep(left - Duration::from_micros(150));
                } else {
                    std::hint::spin_loop();
                }
            }
            let mut m = make();
            m.maybe_header_mut().unwrap().stamp = Time::from_nanos(wall_ns());
            let _ = pacer.publish(m);
        }
    });
    let window = Duration::from_secs_f64(count as f64 / rate_hz) + Duration::from_secs(2);
    let mut latencies = Vec::with_capacity(count);
    let end = Instant::now() + window;
    while latencies.len() < count {
        let left = end.saturating_duration_since(Instant::now());
        if left.is_zero() {
            break;
        }
        let next = smol::future::or(async { stream.next().await }, async {
            smol::Timer::after(left).await;
            None
        })
        .await;
        match next {
            Some(m) => latencies.push((wall_ns() - stamp_of(&m)) as f64 / 1000.0),
            None => break,
        }
    }
    let _ = sender.join();
    let elapsed = started.elapsed().as_secs_f64();
    let cpu_pct = relay_pid
        .zip(cpu_before)
        .map(|(pid, before)| (cpu_seconds(pid) - before) / elapsed * 100.0);
    latencies.sort_by(|a, b| a.partial_cmp(b).unwrap());
    Ok(Stats {
        label: label.to_string(),
        sent: count,
        received: latencies.len(),
        p50_us: percentile(&latencies, 0.5),
        p99_us: percentile(&latencies, 0.99),
        cpu_pct,
    })
}

fn imu() -> Imu {
    let mut m = Imu::default();
    m.header.frame_id = "imu_link".into();
    m
}

fn image_2mb() -> Image {
    let (width, height) = (1024u32, 683u32); // 1024 x 683 rgb8 ≈ 2.1 MB
    let mut m = Image {
        width,
        height,
        encoding: "rgb8".into(),
        step: width * 3,
        data: vec![0x5a; (width * height * 3) as usize],
        ..Default::default()
    };
    m.header.frame_id = "camera_optical_link".into();
    m
}

fn rust_relay(ros_type: &str, input: &str, output: &str) -> Running {
    Running(
        Command::new(env!("CARGO_BIN_EXE_relay"))
            .args(["--ros-args", "--log-level", "warn", "-p"])
            .arg(format!("ros_type:={ros_type}"))
            .args([
                "-p",
                &format!("input:={input}"),
                "-p",
                &format!("output:={output}"),
            ])
            .stdout(Stdio::null())
            .spawn()
            .expect("start the relay"),
    )
}

fn python_relay(type_name: &str, input: &str, output: &str) -> Option<Running> {
    Command::new(fieldproof_testkit::python())
        .args(["-m", "peers.cyclone_relay", input, output, type_name])
        .current_dir(fieldproof_testkit::repo_root().join("test"))
        .stdout(Stdio::null())
        .spawn()
        .ok()
        .map(Running)
}

/// A relay process, stopped (SIGINT, then waited for) when dropped.
struct Running(Child);

impl Running {
    fn id(&self) -> u32 {
        self.0.id()
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        let pid = nix::unistd::Pid::from_raw(self.0.id() as i32);
        let _ = nix::sys::signal::kill(pid, nix::sys::signal::Signal::SIGINT);
        let _ = self.0.wait();
    }
}

fn stop(child: Running) {
    drop(child);
}

async fn bench(node: Node) -> NodeResult {
    let n = |rate: f64, secs: f64| (rate * secs) as usize;
    println!("== Imu, 1 kHz for 5 s (reliable, keep last 10: ROS 2 defaults)");
    measure(
        &node,
        "direct publisher -> subscriber",
        "/b/direct",
        "/b/direct",
        1000.0,
        n(1000.0, 5.0),
        imu,
        None,
    )
    .await?
    .print();
    let relay = rust_relay("sensor_msgs/msg/Imu", "/b/in", "/b/out");
    measure(
        &node,
        "one hop through the Rust relay",
        "/b/in",
        "/b/out",
        1000.0,
        n(1000.0, 5.0),
        imu,
        Some(relay.id()),
    )
    .await?
    .print();
    if let Some(py) = python_relay("Imu", "/b/py_in", "/b/py_out") {
        let pid = py.id();
        match measure(
            &node,
            "one hop through a Cyclone DDS Python relay",
            "/b/py_in",
            "/b/py_out",
            1000.0,
            n(1000.0, 5.0),
            imu,
            Some(pid),
        )
        .await
        {
            Ok(s) => s.print(),
            Err(e) => println!("python relay: {e}"),
        }
        stop(py);
    }

    println!("== fastest rate without loss (2 s per step)");
    for rate in [2000.0, 5000.0, 10000.0, 20000.0, 40000.0] {
        let direct = measure(
            &node,
            &format!("direct @ {rate} Hz"),
            "/b/direct",
            "/b/direct",
            rate,
            n(rate, 2.0),
            imu,
            None,
        )
        .await?;
        direct.print();
        let hop = measure(
            &node,
            &format!("relay  @ {rate} Hz"),
            "/b/in",
            "/b/out",
            rate,
            n(rate, 2.0),
            imu,
            Some(relay.id()),
        )
        .await?;
        hop.print();
        if hop.received < hop.sent && direct.received < direct.sent {
            break;
        }
    }
    stop(relay);

    println!("== sensor_msgs/Image 1024x683 rgb8 (2.1 MB) at 30 Hz for 5 s");
    let relay = rust_relay("sensor_msgs/msg/Image", "/b/img_in", "/b/img_out");
    measure(
        &node,
        "direct 2 MB image",
        "/b/img_direct",
        "/b/img_direct",
        30.0,
        150,
        image_2mb,
        None,
    )
    .await?
    .print();
    measure(
        &node,
        "2 MB image through the Rust relay",
        "/b/img_in",
        "/b/img_out",
        30.0,
        150,
        image_2mb,
        Some(relay.id()),
    )
    .await?
    .print();
    stop(relay);
    Ok(())
}

fn main() {
    if !fieldproof_testkit::is_contained() {
        eprintln!("relay_hop: run inside a private network namespace: scripts/netns-run cargo bench -p fieldproof_bridge --bench relay_hop");
        return;
    }
    let cfg = NodeBuilder::new("relay_bench")
        .resolve(["relay_bench"], |k| std::env::var(k).ok())
        .expect("node config");
    if let Err(e) = fieldproof_runtime::run(cfg, bench) {
        eprintln!("relay_hop: {e}");
    }
}
