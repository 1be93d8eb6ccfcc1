//! Benchmark driver (not a test) for `scripts/bench/convoy.sh`:
//!
//! 1. `cycle`: the follower's control cycle without I/O, what convoy_follower does each tick
//!    (`Watchdog::packet_age_s`, `FollowController::gap_error_m`, `Watchdog::update`,
//!    `FollowController::step`, plus `Watchdog::on_packet` on the cycles a packet arrives),
//!    timed cycle by cycle with the wall clock. The input is a scripted run at 10 Hz: the lead
//!    driving a slalom at about 0.2 m/s (slow enough for REJOIN's v_max / 2 to close), its packets at 5 Hz with one in five lost, and a 6 s
//!    blackout every 30 s, so every state (FOLLOW, HOLD, SAFE_STOP, REJOIN) is exercised.
//!    Prints p50/p90/p99/p99.9/max/mean in nanoseconds and the cycles spent per state.
//! 2. `lora`: the `lora_radio` binary given by `--lora-radio` between two pty pairs, fed one
//!    28-byte frame every 200 ms (5 Hz) for `--lora-seconds`; prints the frames delivered per
//!    second against the computed 1 / airtime. The radio opens a DDS participant (its stats):
//!    run this inside `scripts/netns-run` (the script does).

use std::fs::File;
use std::io::{Read, Write};
use std::os::fd::{AsRawFd, OwnedFd};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use clap::Parser;
use fieldproof_convoy::airtime::LoraSettings;
use fieldproof_convoy::follow::{Cycle, FollowConfig, FollowController, LeadReport, Pose2D};
use fieldproof_convoy::packet::{ConvoyPacket, PACKET_LEN};
use fieldproof_convoy::serial::{make_raw, Deframer};
use fieldproof_convoy::watchdog::{Watchdog, WatchdogConfig, WatchdogState};

/// The benchmark's options.
#[derive(Parser, Debug)]
struct Options {
    /// Control cycles to time (10 Hz simulated).
    #[arg(long, default_value_t = 200_000)]
    cycles: u64,
    /// The lora_radio binary; without it the LoRa part is skipped.
    #[arg(long)]
    lora_radio: Option<String>,
    /// Seconds of 5 Hz input to the radio.
    #[arg(long, default_value_t = 30.0)]
    lora_seconds: f64,
}

fn main() {
    let options = Options::parse();
    if options.cycles == 0 {
        eprintln!("convoy_bench: --cycles: 0 is not > 0");
        std::process::exit(2);
    }
    bench_cycle(options.cycles);
    if let Some(radio) = &options.lora_radio {
        if !(options.lora_seconds.is_finite() && options.lora_seconds >= 5.0) {
            eprintln!(
                "convoy_bench: --lora-seconds: {} is not >= 5",
                options.lora_seconds
            );
            std::process::exit(2);
        }
        bench_lora(radio, options.lora_seconds);
    }
}

/// The `p`-th percentile (0..=100) of sorted values, nearest rank.
fn percentile(sorted: &[u64], p: f64) -> u64 {
    let rank = ((p / 100.0) * sorted.len() as f64).ceil() as usize;
    sorted[rank.clamp(1, sorted.len()) - 1]
}

fn bench_cycle(cycles: u64) {
    let mut watchdog = Watchdog::new(WatchdogConfig::default()).expect("default watchdog");
    let mut controller = FollowController::new(FollowConfig::default()).expect("default follow");
    let dt_s = 0.1;
    let mut follower = Pose2D {
        x_m: -1.5,
        y_m: 0.4,
        yaw_rad: 0.0,
    };
    let mut newest: Option<LeadReport> = None;
    let mut seq = 0u32;
    let mut per_state = [0u64; 4];
    let mut durations = Vec::with_capacity(cycles as usize);
    for cycle in 0..cycles {
        let t_s = cycle as f64 * dt_s;
        let lead = Pose2D {
            x_m: 0.2 * t_s,
            y_m: (0.1 * t_s).sin(),
            yaw_rad: (0.1 * (0.1 * t_s).cos()).atan2(0.2),
        };
        let packet_due = cycle % 2 == 0;
        let in_blackout = t_s % 30.0 >= 20.0 && t_s % 30.0 < 26.0;
        let packet = (packet_due && !in_blackout).then(|| {
            seq += 1;
            ConvoyPacket {
                rover_id: 1,
                seq,
                t_ms: (t_s * 1000.0) as u32,
                x_m: lead.x_m as f32,
                y_m: lead.y_m as f32,
                heading_rad: lead.yaw_rad as f32,
                speed_mps: 0.2,
            }
        });
        // One packet in five lost on the way (its seq still used).
        let packet = packet.filter(|p| p.seq % 5 != 0);

        let started = Instant::now();
        if let Some(packet) = &packet {
            if watchdog.on_packet(packet.seq, t_s).accepted() {
                newest = Some(LeadReport::from_packet(packet));
            }
        }
        let Cycle { state, command, .. } =
            controller.cycle(&mut watchdog, newest, follower, t_s, dt_s);
        let elapsed = started.elapsed();
        durations.push(std::hint::black_box(elapsed).as_nanos() as u64);

        per_state[state as usize] += 1;
        // The follower moves as commanded (unicycle), so the loop closes.
        follower.yaw_rad += command.angular_rps * dt_s;
        follower.x_m += command.linear_mps * follower.yaw_rad.cos() * dt_s;
        follower.y_m += command.linear_mps * follower.yaw_rad.sin() * dt_s;
    }
    durations.sort_unstable();
    let mean = durations.iter().sum::<u64>() as f64 / durations.len() as f64;
    println!(
        "cycle (watchdog + controller), {} cycles: p50 {} ns, p90 {} ns, p99 {} ns, p99.9 {} ns, max {} ns, mean {:.0} ns",
        durations.len(),
        percentile(&durations, 50.0),
        percentile(&durations, 90.0),
        percentile(&durations, 99.0),
        percentile(&durations, 99.9),
        durations[durations.len() - 1],
        mean
    );
    let spent: Vec<String> = WatchdogState::ALL
        .iter()
        .map(|s| format!("{s} {}", per_state[*s as usize]))
        .collect();
    println!("cycles per state: {}", spent.join(", "));
}

/// A pty pair in raw mode: the radio opens `slave_path`, the bench uses `master`.
struct Pty {
    master: File,
    _slave: OwnedFd,
    slave_path: String,
}

impl Pty {
    fn open() -> Pty {
        let pair = nix::pty::openpty(None, None).expect("openpty");
        make_raw(&pair.slave).expect("raw slave");
        let slave_path = std::fs::read_link(format!("/proc/self/fd/{}", pair.slave.as_raw_fd()))
            .expect("slave path")
            .to_string_lossy()
            .into_owned();
        Pty {
            master: File::from(pair.master),
            _slave: pair.slave,
            slave_path,
        }
    }
}

fn bench_lora(radio_exe: &str, seconds: f64) {
    let airtime_s = LoraSettings::convoy_default()
        .time_on_air(PACKET_LEN)
        .expect("the spec's LoRa settings")
        .total_s;
    let input = Pty::open();
    let output = Pty::open();
    let delivered = Arc::new(AtomicUsize::new(0));
    let counter = delivered.clone();
    let mut reader = output.master.try_clone().expect("master clone");
    std::thread::spawn(move || {
        let mut deframer = Deframer::new();
        let mut buf = [0u8; 256];
        while let Ok(n) = reader.read(&mut buf) {
            if n == 0 {
                break;
            }
            counter.fetch_add(deframer.push(&buf[..n]).len(), Ordering::Relaxed);
        }
    });
    let mut node = fieldproof_testkit::NodeProc::command(radio_exe)
        .domain(62)
        .params(&[
            format!("input_port:={}", input.slave_path),
            format!("output_port:={}", output.slave_path),
        ])
        .start();
    node.wait_for_log("on air per frame", Duration::from_secs(30));

    let frames = (seconds * 5.0).round() as u32;
    let mut writer = &input.master;
    let start = Instant::now();
    for seq in 1..=frames {
        let frame = ConvoyPacket {
            rover_id: 1,
            seq,
            t_ms: seq * 200,
            x_m: 0.0,
            y_m: 0.0,
            heading_rad: 0.0,
            speed_mps: 0.0,
        }
        .encode();
        writer
            .write_all(&frame)
            .expect("write to the radio's input");
        let next = start + Duration::from_millis(200 * u64::from(seq));
        std::thread::sleep(next.saturating_duration_since(Instant::now()));
    }
    let fed_s = start.elapsed().as_secs_f64();
    // The frame on the air when the feed stops comes out one airtime later.
    std::thread::sleep(Duration::from_secs_f64(airtime_s * 2.0));
    let count = delivered.load(Ordering::Relaxed);
    node.stop();
    let rate = count as f64 / fed_s;
    println!(
        "lora: {frames} frames fed at 5 Hz over {fed_s:.1} s, {count} delivered: {rate:.2} /s against 1 / airtime(28 B) = 1 / {:.1} ms = {:.2} /s ({:.1} %)",
        airtime_s * 1000.0,
        1.0 / airtime_s,
        100.0 * rate * airtime_s
    );
}
