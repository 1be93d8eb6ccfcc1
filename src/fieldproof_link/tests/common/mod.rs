//! Helpers of the root integration tests: unique run ids, ping and iperf3 inside the run's
//! namespaces (only addresses inside them are targeted), and the accuracy test both backends
//! pass ([`accuracy`]).

#![allow(dead_code)]

pub mod accuracy;

use std::process::{Command, Stdio};
use std::time::Duration;

/// Whether we may create namespaces (root with `ip netns`); the tests need it.
pub fn require_root() {
    // SAFETY: geteuid has no preconditions.
    let uid = unsafe { libc::geteuid() };
    assert_eq!(
        uid, 0,
        "these tests create network namespaces and need root (CI runs as root)"
    );
}

/// A run id unique to this process and `tag` (≤ 12 of [a-z0-9]).
pub fn run_id(tag: &str) -> String {
    let id = format!("t{}{}", std::process::id() % 100_000, tag);
    assert!(id.len() <= 12, "{id}");
    id
}

/// Round trips (ms) and counts of a ping run.
#[derive(Debug)]
pub struct PingResult {
    /// Echo requests sent.
    pub sent: usize,
    /// Round trips of the replies.
    pub rtts: Vec<f64>,
}

impl PingResult {
    /// Mean round trip.
    pub fn mean(&self) -> f64 {
        self.rtts.iter().sum::<f64>() / self.rtts.len().max(1) as f64
    }

    /// Sample standard deviation of the round trips.
    pub fn sd(&self) -> f64 {
        let m = self.mean();
        let n = self.rtts.len() as f64;
        (self.rtts.iter().map(|r| (r - m).powi(2)).sum::<f64>() / (n - 1.0).max(1.0)).sqrt()
    }
}

/// `ping` from namespace `ns` to `addr`: `count` echoes of 16 bytes every `interval_s`.
pub fn ping(ns: &str, addr: &str, count: usize, interval_s: f64) -> PingResult {
    let out = Command::new("ip")
        .args(["netns", "exec", ns, "ping", "-n", "-s", "16", "-W", "2"])
        .args([
            "-c",
            &count.to_string(),
            "-i",
            &interval_s.to_string(),
            addr,
        ])
        .output()
        .expect("ping runs");
    let text = String::from_utf8_lossy(&out.stdout);
    let rtts = text
        .lines()
        .filter_map(|l| l.split("time=").nth(1))
        .filter_map(|t| t.trim_end_matches(" ms").trim().parse::<f64>().ok())
        .collect();
    PingResult { sent: count, rtts }
}

/// Datagrams the UDP sockets of namespace `ns` refused for a full receive buffer so far
/// (`RcvbufErrors` of `/proc/net/snmp`, counted per namespace).
pub fn udp_receive_buffer_errors(ns: &str) -> u64 {
    let out = Command::new("ip")
        .args(["netns", "exec", ns, "cat", "/proc/net/snmp"])
        .output()
        .expect("ip netns exec cat /proc/net/snmp runs");
    let text = String::from_utf8_lossy(&out.stdout);
    let mut udp = text.lines().filter(|l| l.starts_with("Udp:"));
    let (Some(names), Some(values)) = (udp.next(), udp.next()) else {
        panic!("{ns}: /proc/net/snmp has no Udp lines: {text}");
    };
    names
        .split_whitespace()
        .zip(values.split_whitespace())
        .find(|(name, _)| *name == "RcvbufErrors")
        .and_then(|(_, value)| value.parse().ok())
        .unwrap_or_else(|| panic!("{ns}: no RcvbufErrors in /proc/net/snmp: {values}"))
}

/// Receiver-side and sender-side UDP throughput (bit/s) of `iperf3 -u` from `client_ns` to the server in
/// `server_ns` at `server_addr`, offering `offered_bps` for `secs`; `reverse` sends the
/// other way (server to client).
pub fn iperf_udp(
    server_ns: &str,
    server_addr: &str,
    client_ns: &str,
    offered_bps: f64,
    secs: u32,
    reverse: bool,
) -> (f64, f64) {
    // A loaded machine can be slow to start the server, or the control connection can
    // wait behind a previous run's backlog: up to three tries, each reported.
    for attempt in 1..=3 {
        let mut server = Command::new("ip")
            .args([
                "netns", "exec", server_ns, "iperf3", "-s", "-1", "-p", "5201",
            ])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("iperf3 server starts");
        std::thread::sleep(Duration::from_millis(300 * attempt));
        let mut args: Vec<String> = [
            "netns",
            "exec",
            client_ns,
            "iperf3",
            "-c",
            server_addr,
            "-p",
            "5201",
            "-u",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        args.extend([
            "-l".into(),
            "1200".into(),
            "-b".into(),
            format!("{}", offered_bps as u64),
        ]);
        // Large socket buffers: a receiver descheduled for a moment must not drop.
        args.extend([
            "-t".into(),
            secs.to_string(),
            "-w".into(),
            "4M".into(),
            "-J".into(),
        ]);
        if reverse {
            args.push("-R".into());
        }
        let out = Command::new("ip")
            .args(&args)
            .output()
            .expect("iperf3 client runs");
        let _ = server.kill();
        let _ = server.wait();
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap_or_default();
        if let (Some(got), Some(sent)) = (
            v["end"]["sum_received"]["bits_per_second"].as_f64(),
            v["end"]["sum_sent"]["bits_per_second"].as_f64(),
        ) {
            return (got, sent);
        }
        eprintln!(
            "iperf3 attempt {attempt} failed: {}",
            v.get("error").unwrap_or(&v)
        );
        std::thread::sleep(Duration::from_secs(2));
    }
    panic!("iperf3 failed three times");
}
