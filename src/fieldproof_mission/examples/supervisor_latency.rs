//! Benchmark (not a test): `supervisor_core`'s decision latency per frame through its pipe.
//!
//! Spawns the binary, writes one frame, waits for the command answering it (same sequence)
//! and times that round trip on the wall clock, frame after frame, as `mission_supervisor`
//! does each control cycle. The frames are a closed-loop flight like the golden traces'
//! (`tests/golden/`): the vehicle follows each answer for one 0.05 s step, IMU every step,
//! GNSS and camera at 10 Hz, heartbeat at 5 Hz; it patrols a 40 m square at 10 m, with a
//! recoverable camera dropout and a recoverable inference overload every 40 s, and a
//! sustained GNSS loss 50 s before the end that lands it. Prints the latency table, overall
//! and per mode. Run it through `scripts/bench/supervisor_latency.sh` (release builds).
//!
//! ```text
//! cargo build --release -p fieldproof_mission --bin supervisor_core --example supervisor_latency
//! target/release/examples/supervisor_latency [--frames 20000] [--binary target/release/supervisor_core]
//! ```

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Write};
use std::path::PathBuf;
use std::process::{Child, Command as Process, ExitCode, Stdio};
use std::time::{Duration, Instant};

use clap::Parser;
use fieldproof_mission::supervisor::{Command, Frame, Mode};

/// The control period of `mission_supervisor` (the spec's 0.05 s step), ms.
const STEP_MS: u64 = 50;
/// The patrol's corners, ENU metres, flown in order, round and round.
const PATROL: [[f64; 3]; 4] = [
    [20.0, 0.0, 10.0],
    [20.0, 40.0, 10.0],
    [-20.0, 40.0, 10.0],
    [-20.0, 0.0, 10.0],
];
/// Distance to a corner at which the next one becomes the target, m.
const CORNER_REACHED_M: f64 = 0.5;
/// Period of the recoverable faults, ms.
const FAULT_PERIOD_MS: u64 = 40_000;
/// A camera dropout: 0.8 s without captures (stale 0.3 s past the 0.5 s limit), every period.
const CAMERA_DROPOUT_MS: (u64, u64) = (20_000, 20_800);
/// An inference overload: 120 ms reported for 0.3 s, every period, half a period after the camera's.
const OVERLOAD_MS: (u64, u64) = (40_000, 40_300);
/// The sustained GNSS loss starts this long before the last frame, ms.
const GNSS_LOSS_BEFORE_END_MS: u64 = 50_000;

/// Times `supervisor_core`'s answer to each frame of a closed-loop flight through its pipe.
#[derive(Debug, Parser)]
#[command(name = "supervisor_latency")]
struct Args {
    /// Frames to send (one per 0.05 s of simulated flight)
    #[arg(long, default_value_t = 20_000)]
    frames: u64,
    /// The supervisor_core binary (default: beside this example's directory, i.e. the same profile's)
    #[arg(long)]
    binary: Option<PathBuf>,
}

/// Kills the child if the driver stops early.
struct ChildGuard(Child);

impl Drop for ChildGuard {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// The default binary: target/<profile>/examples/supervisor_latency -> target/<profile>/supervisor_core.
fn default_binary() -> Result<PathBuf, String> {
    let exe = std::env::current_exe().map_err(|e| format!("this example's path: {e}"))?;
    exe.parent()
        .and_then(|examples| examples.parent())
        .map(|profile| profile.join("supervisor_core"))
        .ok_or_else(|| format!("{}: no target/<profile> above it", exe.display()))
}

/// The simulated vehicle and its sensors' newest stamps, in milliseconds of simulation time.
struct Flight {
    frames: u64,
    position: [f64; 3],
    corner: usize,
    gnss_stamp_ms: u64,
    vision_stamp_ms: u64,
}

impl Flight {
    fn new(frames: u64) -> Self {
        Flight {
            frames,
            position: [-16.0, 0.0, 10.0],
            corner: 0,
            gnss_stamp_ms: 0,
            vision_stamp_ms: 0,
        }
    }

    /// Whether `now_ms` falls in the periodic window `window` (offsets within each period).
    fn in_periodic(now_ms: u64, window: (u64, u64)) -> bool {
        let phase = now_ms % FAULT_PERIOD_MS;
        let (from, to) = (window.0 % FAULT_PERIOD_MS, window.1 % FAULT_PERIOD_MS);
        now_ms >= window.0 && (from..to).contains(&phase)
    }

    /// The frame for control step `step` (1-based).
    fn frame(&mut self, step: u64) -> Frame {
        let now_ms = step * STEP_MS;
        let seconds = |ms: u64| ms as f64 / 1000.0;
        let end_ms = self.frames * STEP_MS;
        let gnss_lost = now_ms + GNSS_LOSS_BEFORE_END_MS > end_ms;
        if now_ms % 100 == 0 && !gnss_lost {
            self.gnss_stamp_ms = now_ms;
        }
        if now_ms % 100 == 0 && !Self::in_periodic(now_ms, CAMERA_DROPOUT_MS) {
            self.vision_stamp_ms = now_ms;
        }
        let overloaded = Self::in_periodic(now_ms, OVERLOAD_MS);
        let target = PATROL[self.corner];
        Frame {
            sequence: step,
            now: seconds(now_ms),
            imu_stamp: seconds(now_ms),
            gnss_stamp: seconds(self.gnss_stamp_ms),
            vision_stamp: seconds(self.vision_stamp_ms),
            link_stamp: seconds(now_ms / 200 * 200),
            battery: 0.95 - seconds(now_ms) * 0.0005,
            position: self.position.map(|p| (p * 1000.0).round() / 1000.0),
            target,
            inference_ms: if overloaded {
                120.0
            } else {
                30.0 + (step % 4) as f64 * 2.5
            },
            complete: false,
        }
    }

    /// The vehicle follows `command` for one step (the ground stops it); a reached corner
    /// hands over to the next.
    fn follow(&mut self, command: &Command) {
        for (coordinate, speed) in self.position.iter_mut().zip(command.velocity) {
            *coordinate += speed * STEP_MS as f64 / 1000.0;
        }
        self.position[2] = self.position[2].max(0.0);
        let target = PATROL[self.corner];
        let distance = (self.position[0] - target[0])
            .hypot(self.position[1] - target[1])
            .hypot(self.position[2] - target[2]);
        if distance < CORNER_REACHED_M {
            self.corner = (self.corner + 1) % PATROL.len();
        }
    }
}

/// Round-trip times, in nanoseconds, sorted on demand.
#[derive(Default)]
struct Latencies(Vec<u64>);

impl Latencies {
    /// The nearest-rank percentile `p` (0..=100) of the sorted samples, µs.
    fn percentile_us(sorted: &[u64], p: f64) -> f64 {
        let rank = ((p / 100.0) * sorted.len() as f64).ceil().max(1.0) as usize;
        sorted[rank.min(sorted.len()) - 1] as f64 / 1000.0
    }

    /// One table row: count, p50, p90, p99, p99.9, max and mean, µs.
    fn row(&self, label: &str) -> String {
        let mut sorted = self.0.clone();
        sorted.sort_unstable();
        let mean_us = sorted.iter().sum::<u64>() as f64 / sorted.len() as f64 / 1000.0;
        format!(
            "{label:<10} {:>7} {:>9.1} {:>9.1} {:>9.1} {:>9.1} {:>9.1} {:>9.1}",
            sorted.len(),
            Self::percentile_us(&sorted, 50.0),
            Self::percentile_us(&sorted, 90.0),
            Self::percentile_us(&sorted, 99.0),
            Self::percentile_us(&sorted, 99.9),
            *sorted.last().expect("at least one sample") as f64 / 1000.0,
            mean_us,
        )
    }
}

/// What one drive measured.
struct Measured {
    /// Every round trip.
    all: Latencies,
    /// The round trips by the mode of their answer.
    per_mode: BTreeMap<&'static str, Latencies>,
    /// How often each mode change happened (`ACTIVE -> HOLD`), in order of first occurrence.
    transitions: Vec<(String, u64)>,
    /// Wall time of the whole drive.
    wall: Duration,
}

/// Drives the flight through the binary, timing each frame's round trip.
fn drive(binary: &PathBuf, frames: u64) -> Result<Measured, String> {
    let child = Process::new(binary)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .map_err(|e| format!("{}: {e}", binary.display()))?;
    let mut child = ChildGuard(child);
    let mut stdin = child
        .0
        .stdin
        .take()
        .ok_or("supervisor_core: no stdin pipe")?;
    let mut stdout = BufReader::new(
        child
            .0
            .stdout
            .take()
            .ok_or("supervisor_core: no stdout pipe")?,
    );
    let mut flight = Flight::new(frames);
    let mut all = Latencies::default();
    let mut per_mode: BTreeMap<&'static str, Latencies> = BTreeMap::new();
    let mut transitions: Vec<(String, u64)> = Vec::new();
    let mut mode: Option<Mode> = None;
    let mut line = String::with_capacity(256);
    let mut answer = String::with_capacity(128);
    let started = Instant::now();
    for step in 1..=frames {
        let frame = flight.frame(step);
        line.clear();
        line.push_str(&frame.to_line());
        line.push('\n');
        answer.clear();
        let sent = Instant::now();
        stdin
            .write_all(line.as_bytes())
            .map_err(|e| format!("frame {step}: writing to supervisor_core: {e}"))?;
        let read = stdout
            .read_line(&mut answer)
            .map_err(|e| format!("frame {step}: reading supervisor_core: {e}"))?;
        let round_trip = sent.elapsed();
        if read == 0 {
            return Err(format!(
                "frame {step}: supervisor_core closed its output (frame: {})",
                line.trim_end()
            ));
        }
        let command = Command::parse(&answer)
            .map_err(|e| format!("frame {step}: answer {:?}: {e}", answer.trim_end()))?;
        if command.sequence != step {
            return Err(format!(
                "frame {step}: answered with sequence {} ({})",
                command.sequence,
                answer.trim_end()
            ));
        }
        let nanos = u64::try_from(round_trip.as_nanos()).unwrap_or(u64::MAX);
        all.0.push(nanos);
        per_mode
            .entry(command.mode.as_str())
            .or_default()
            .0
            .push(nanos);
        if let Some(previous) = mode.filter(|previous| *previous != command.mode) {
            let change = format!("{previous} -> {}", command.mode);
            match transitions.iter_mut().find(|(seen, _)| *seen == change) {
                Some((_, count)) => *count += 1,
                None => transitions.push((change, 1)),
            }
        }
        mode = Some(command.mode);
        flight.follow(&command);
    }
    let wall = started.elapsed();
    drop(stdin);
    let status = child
        .0
        .wait()
        .map_err(|e| format!("waiting for supervisor_core: {e}"))?;
    if !status.success() {
        return Err(format!(
            "supervisor_core exited with {status} at the end of the input"
        ));
    }
    Ok(Measured {
        all,
        per_mode,
        transitions,
        wall,
    })
}

fn main() -> ExitCode {
    let args = Args::parse();
    if args.frames == 0 {
        eprintln!("supervisor_latency: --frames: 0 is not > 0");
        return ExitCode::from(2);
    }
    let binary = match args.binary.map(Ok).unwrap_or_else(default_binary) {
        Ok(binary) => binary,
        Err(error) => {
            eprintln!("supervisor_latency: {error}");
            return ExitCode::from(2);
        }
    };
    let measured = match drive(&binary, args.frames) {
        Ok(result) => result,
        Err(error) => {
            eprintln!("supervisor_latency: {error}");
            return ExitCode::FAILURE;
        }
    };
    println!("binary:   {}", binary.display());
    println!(
        "frames:   {} round trips in {:.3} s wall ({:.0} frames/s; simulated flight {:.0} s)",
        args.frames,
        measured.wall.as_secs_f64(),
        args.frames as f64 / measured.wall.as_secs_f64(),
        (args.frames * STEP_MS) as f64 / 1000.0
    );
    let changes: Vec<String> = measured
        .transitions
        .iter()
        .map(|(change, count)| format!("{change} x{count}"))
        .collect();
    println!("modes:    {}", changes.join(", "));
    println!("latency per frame, write -> answer read, microseconds (nearest rank):");
    println!(
        "{:<10} {:>7} {:>9} {:>9} {:>9} {:>9} {:>9} {:>9}",
        "mode", "frames", "p50", "p90", "p99", "p99.9", "max", "mean"
    );
    for mode in Mode::ALL {
        if let Some(latencies) = measured.per_mode.get(mode.as_str()) {
            println!("{}", latencies.row(mode.as_str()));
        }
    }
    println!("{}", measured.all.row("all"));
    ExitCode::SUCCESS
}
