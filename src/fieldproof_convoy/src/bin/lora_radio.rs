//! `lora_radio`: the LoRa path between the lead's serial port and the follower's. Reads framed
//! packets (28 bytes, resynchronising on magic + CRC) from `input_port`, transmits one at a
//! time, each occupying its time on air (`fieldproof_convoy::airtime`, the Semtech formula with
//! the modem settings below: the spec's SF9, 125 kHz, CR 4/5, 8-symbol preamble, explicit
//! header, CRC on, 226.3 ms for 28 bytes), and writes it to `output_port` when its airtime ends.
//!
//! - queue policy for a frame arriving while one is on the air (`queue_policy`, `queue_depth`):
//!   `drop_newest` drops it; `drop_oldest` (default, depth 1) keeps the newest `queue_depth`
//!   waiting, dropping the oldest; `queue` keeps `queue_depth` in arrival order and drops the
//!   arrival when full. Drops are counted (`dropped_busy`);
//! - optional loss (`loss_model:=log_distance`): log-distance path loss with log-normal
//!   shadowing at `distance_m` (settable at run time), `RSSI = tx_power_dbm − (ref_loss_db +
//!   10·path_loss_exponent·log10(d / 1 m)) + N(0, shadowing_sigma_db²)`; a frame under
//!   `sensitivity_dbm` is lost (`dropped_loss`). Each frame's RSSI goes out on
//!   `convoy/rssi_dbm` (std_msgs/msg/Float64) for the follower's log;
//! - out: `convoy/radio_stats` (std_msgs/msg/String, latched, JSON `{received, sent,
//!   dropped_busy, dropped_loss, in_flight, last_rssi_dbm, airtime_s, skipped_bytes,
//!   write_failures, last_received_seq}`) after every event. Time is the wall clock (a radio is physical).
//!
//! ```text
//! lora_radio --ros-args -p input_port:=/dev/pts/4 -p output_port:=/dev/pts/6
//! ```

use std::io::{Read, Write};
use std::time::{Duration, Instant};

use fieldproof_convoy::airtime::{LoraSettings, LowDataRateOptimize};
use fieldproof_convoy::packet::PACKET_LEN;
use fieldproof_convoy::radio::{PathLossModel, QueuePolicy, RadioChannel};
use fieldproof_convoy::serial::{self, Deframer, Frame};
use fieldproof_runtime::logging::Throttle;
use fieldproof_runtime::msgs::std_msgs;
use fieldproof_runtime::{qos, tracing, NodeBuilder, Param, ParamHandle, MALFORMED_LOG_PERIOD};
use futures::FutureExt;
use rand::SeedableRng;
use serde::Serialize;

/// The handles of the radio's parameters.
struct RadioParams {
    input_port: ParamHandle<String>,
    output_port: ParamHandle<String>,
    spreading_factor: ParamHandle<i64>,
    bandwidth_hz: ParamHandle<f64>,
    coding_rate_denominator: ParamHandle<i64>,
    preamble_symbols: ParamHandle<i64>,
    explicit_header: ParamHandle<bool>,
    crc_on: ParamHandle<bool>,
    queue_policy: ParamHandle<String>,
    queue_depth: ParamHandle<i64>,
    loss_model: ParamHandle<String>,
    distance_m: ParamHandle<f64>,
    tx_power_dbm: ParamHandle<f64>,
    ref_loss_db: ParamHandle<f64>,
    path_loss_exponent: ParamHandle<f64>,
    shadowing_sigma_db: ParamHandle<f64>,
    sensitivity_dbm: ParamHandle<f64>,
    seed: ParamHandle<i64>,
}

fn declare(builder: &mut NodeBuilder) -> RadioParams {
    let lora = LoraSettings::convoy_default();
    let loss = PathLossModel::default();
    RadioParams {
        input_port: builder.declare(
            Param::string("input_port", "")
                .description("serial device the frames come from")
                .read_only(),
        ),
        output_port: builder.declare(
            Param::string("output_port", "")
                .description("serial device the frames go to after their airtime")
                .read_only(),
        ),
        spreading_factor: builder.declare(
            Param::int("spreading_factor", i64::from(lora.spreading_factor))
                .range(6.0, 12.0)
                .description("LoRa spreading factor (SF)")
                .read_only(),
        ),
        bandwidth_hz: builder.declare(
            Param::double("bandwidth_hz", lora.bandwidth_hz)
                .range(7_800.0, 500_000.0)
                .description("LoRa bandwidth, Hz")
                .read_only(),
        ),
        coding_rate_denominator: builder.declare(
            Param::int(
                "coding_rate_denominator",
                i64::from(lora.coding_rate_denominator),
            )
            .range(5.0, 8.0)
            .description("coding rate 4/n")
            .read_only(),
        ),
        preamble_symbols: builder.declare(
            Param::int("preamble_symbols", i64::from(lora.preamble_symbols))
                .range(6.0, 65_535.0)
                .description("programmed preamble length, symbols")
                .read_only(),
        ),
        explicit_header: builder.declare(
            Param::bool("explicit_header", lora.explicit_header)
                .description("explicit (true) or implicit header")
                .read_only(),
        ),
        crc_on: builder.declare(
            Param::bool("crc_on", lora.crc_on)
                .description("payload CRC on")
                .read_only(),
        ),
        queue_policy: builder.declare(
            Param::string("queue_policy", "drop_oldest")
                .one_of(&QueuePolicy::NAMES)
                .description("frames arriving while one is on the air (see the README)")
                .read_only(),
        ),
        queue_depth: builder.declare(
            Param::int("queue_depth", 1)
                .range(1.0, 1000.0)
                .description("frames that may wait (drop_oldest, queue)")
                .read_only(),
        ),
        loss_model: builder.declare(
            Param::string("loss_model", "none")
                .one_of(&["none", "log_distance"])
                .description("loss on the air: none, or log-distance path loss")
                .read_only(),
        ),
        distance_m: builder.declare(
            Param::double("distance_m", 10.0)
                .range(0.0, 1e6)
                .description("distance between the radios, metres (log_distance)"),
        ),
        tx_power_dbm: builder.declare(
            Param::double("tx_power_dbm", loss.tx_power_dbm)
                .range(-10.0, 30.0)
                .description("transmit power, dBm (log_distance)"),
        ),
        ref_loss_db: builder.declare(
            Param::double("ref_loss_db", loss.ref_loss_db)
                .range(0.0, 100.0)
                .description("path loss at 1 m, dB"),
        ),
        path_loss_exponent: builder.declare(
            Param::double("path_loss_exponent", loss.exponent)
                .range(1.0, 6.0)
                .description("log-distance exponent n (2: free space)"),
        ),
        shadowing_sigma_db: builder.declare(
            Param::double("shadowing_sigma_db", loss.shadowing_sigma_db)
                .range(0.0, 20.0)
                .description("log-normal shadowing standard deviation, dB (0: none)"),
        ),
        sensitivity_dbm: builder.declare(
            Param::double("sensitivity_dbm", loss.sensitivity_dbm)
                .range(-150.0, -50.0)
                .description("receiver sensitivity, dBm: weaker frames are lost"),
        ),
        seed: builder.declare(
            Param::int("seed", 1)
                .description("seed of the shadowing draws")
                .read_only(),
        ),
    }
}

impl RadioParams {
    fn lora(&self) -> LoraSettings {
        LoraSettings {
            spreading_factor: self.spreading_factor.get() as u8,
            bandwidth_hz: self.bandwidth_hz.get(),
            coding_rate_denominator: self.coding_rate_denominator.get() as u8,
            preamble_symbols: self.preamble_symbols.get() as u16,
            explicit_header: self.explicit_header.get(),
            crc_on: self.crc_on.get(),
            low_data_rate_optimize: LowDataRateOptimize::Auto,
        }
    }

    fn path_loss(&self) -> PathLossModel {
        PathLossModel {
            tx_power_dbm: self.tx_power_dbm.get(),
            ref_loss_db: self.ref_loss_db.get(),
            exponent: self.path_loss_exponent.get(),
            shadowing_sigma_db: self.shadowing_sigma_db.get(),
            sensitivity_dbm: self.sensitivity_dbm.get(),
        }
    }
}

/// What `convoy/radio_stats` carries.
#[derive(Serialize)]
struct RadioStats {
    received: u64,
    sent: u64,
    dropped_busy: u64,
    dropped_loss: u64,
    in_flight: usize,
    last_rssi_dbm: Option<f64>,
    airtime_s: f64,
    skipped_bytes: u64,
    write_failures: u64,
    /// The seq of the newest frame read from the input (a radio dropping its oldest waiting
    /// frame has decided the fate of every frame before it once the next one arrives).
    last_received_seq: Option<u32>,
}

/// How long a serial device may take to appear (a pty link made by another process of the run).
const SERIAL_WAIT: Duration = Duration::from_secs(20);

/// Reads `port` on a thread, sending each valid frame with its arrival time; returns the
/// channel and the shared count of skipped bytes.
fn spawn_reader(
    path: &str,
    mut port: std::fs::File,
) -> (
    smol::channel::Receiver<(Frame, Instant)>,
    std::sync::Arc<std::sync::atomic::AtomicU64>,
) {
    let (tx, rx) = smol::channel::unbounded();
    let skipped = std::sync::Arc::new(std::sync::atomic::AtomicU64::new(0));
    let skipped_out = skipped.clone();
    let path = path.to_string();
    std::thread::spawn(move || {
        let mut deframer = Deframer::new();
        let mut buf = [0u8; 4 * PACKET_LEN];
        loop {
            match port.read(&mut buf) {
                Ok(0) => std::thread::sleep(Duration::from_millis(10)),
                Ok(n) => {
                    let now = Instant::now();
                    for frame in deframer.push(&buf[..n]) {
                        if tx.send_blocking((frame, now)).is_err() {
                            return;
                        }
                    }
                    skipped.store(
                        deframer.skipped_bytes(),
                        std::sync::atomic::Ordering::Relaxed,
                    );
                }
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => {
                    // A pty whose other end is closed reads EIO until it reopens.
                    tracing::debug!("{path}: {e}");
                    std::thread::sleep(Duration::from_millis(50));
                }
            }
        }
    });
    (rx, skipped_out)
}

fn main() -> std::process::ExitCode {
    let mut builder = NodeBuilder::new("lora_radio");
    let params = declare(&mut builder);
    fieldproof_runtime::main(
        move || builder,
        |node| async move {
            let lora = params.lora();
            let airtime_s = lora
                .time_on_air(PACKET_LEN)
                .map_err(|e| format!("modem settings: {e}"))?
                .total_s;
            let policy_name = params.queue_policy.get();
            let policy = QueuePolicy::parse(&policy_name).ok_or_else(|| {
                format!(
                    "queue_policy: {policy_name:?} is none of {:?}",
                    QueuePolicy::NAMES
                )
            })?;
            let loss_on = params.loss_model.get() == "log_distance";
            if loss_on {
                params
                    .path_loss()
                    .validate()
                    .map_err(|e| format!("path loss: {e}"))?;
            }
            let input_path = params.input_port.get();
            let output_path = params.output_port.get();
            if input_path.is_empty() || output_path.is_empty() {
                return Err(format!(
                    "input_port {input_path:?} and output_port {output_path:?}: both are needed"
                )
                .into());
            }
            let input = serial::open_raw_waiting(&input_path, false, SERIAL_WAIT)
                .map_err(|e| format!("input_port: {e}"))?;
            let mut output = serial::open_raw_waiting(&output_path, true, SERIAL_WAIT)
                .map_err(|e| format!("output_port: {e}"))?;
            let stats_pub =
                node.publisher::<std_msgs::String>("convoy/radio_stats", qos::latched())?;
            let rssi_pub =
                node.publisher::<std_msgs::Float64>("convoy/rssi_dbm", qos::default())?;
            let (frames, skipped) = spawn_reader(&input_path, input);
            let mut rng = rand::rngs::StdRng::seed_from_u64(params.seed.get() as u64);
            let mut radio = RadioChannel::<Frame>::new(policy, params.queue_depth.get() as usize);
            let mut last_rssi_dbm = None;
            let mut last_received_seq: Option<u32> = None;
            let mut write_failures = 0u64;
            let mut write_failure = Throttle::new(MALFORMED_LOG_PERIOD);
            let start = Instant::now();
            let since_start = |t: Instant| t.duration_since(start).as_secs_f64();
            tracing::info!(
                "{input_path} -> {output_path}: {:.1} ms on air per frame ({:.2} frames/s at most), {policy_name} (depth {}), loss {}",
                airtime_s * 1e3,
                1.0 / airtime_s,
                params.queue_depth.get(),
                params.loss_model.get()
            );
            loop {
                let tx_end = async {
                    match radio.busy_until_s() {
                        Some(end_s) => {
                            smol::Timer::at(start + Duration::from_secs_f64(end_s)).await;
                        }
                        None => futures::future::pending::<()>().await,
                    }
                };
                futures::select! {
                    f = frames.recv().fuse() => {
                        let (frame, at) = f?;
                        last_received_seq = Some(u32::from_le_bytes([frame[2], frame[3], frame[4], frame[5]]));
                        radio.arrive(frame, since_start(at), airtime_s);
                    }
                    _ = tx_end.fuse() => {
                        let now_s = since_start(Instant::now());
                        while let Some(frame) = radio.finish(now_s, airtime_s) {
                            let delivered = if loss_on {
                                let reception = params.path_loss().receive(params.distance_m.get(), &mut rng);
                                last_rssi_dbm = Some(reception.rssi_dbm);
                                rssi_pub.publish(std_msgs::Float64 { data: reception.rssi_dbm })?;
                                reception.delivered
                            } else {
                                true
                            };
                            if !delivered {
                                radio.lost();
                                continue;
                            }
                            radio.delivered();
                            if let Err(e) = output.write_all(&frame) {
                                write_failures += 1;
                                if write_failure.hit().is_some() {
                                    tracing::warn!("{output_path}: frame not written: {e} ({write_failures} in all)");
                                }
                            }
                        }
                    }
                    _ = node.shutdown_requested().fuse() => break,
                }
                let counters = radio.counters();
                let stats = RadioStats {
                    received: counters.received,
                    sent: counters.sent,
                    dropped_busy: counters.dropped_busy,
                    dropped_loss: counters.dropped_loss,
                    in_flight: radio.in_flight(),
                    last_rssi_dbm,
                    airtime_s,
                    skipped_bytes: skipped.load(std::sync::atomic::Ordering::Relaxed),
                    write_failures,
                    last_received_seq,
                };
                stats_pub.publish(std_msgs::String {
                    data: serde_json::to_string(&stats)?,
                })?;
            }
            Ok(())
        },
    )
}
