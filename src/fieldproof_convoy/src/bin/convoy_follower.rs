//! `convoy_follower` (R2): follows the lead from the packets it broadcasts. Reads 28-byte
//! packets from UDP (`udp_port`, one per datagram) and/or a serial device (`serial_port`,
//! framed, resynchronising on magic + CRC); a packet that does not decode, or carries a
//! non-finite field, is skipped and counted. Accepted packets feed the watchdog
//! (`fieldproof_convoy::watchdog`) and the formation controller (`fieldproof_convoy::follow`);
//! its own pose comes from `odom`.
//!
//! - out: `cmd_vel` (geometry_msgs/msg/Twist) at `control_rate_hz` once its odometry has
//!   arrived (a non-finite command is never sent: zero goes out in its place);
//!   `convoy/watchdog_state` (std_msgs/msg/String, latched: transient local, depth 1) at every
//!   change of state (`FOLLOW`, `HOLD`, `SAFE_STOP`, `REJOIN`); `convoy/link_stats`
//!   (std_msgs/msg/String, a JSON object: the watchdog's `LinkStats` fields plus `bad_packets`,
//!   `first_seq`, `newest_seq`, `state`, `pkt_age_s`, `rssi_dbm`, `gap_err_m`) every cycle;
//! - `odom_origin` (`[x_m, y_m, yaw_deg]`): its odometry placed in the frame the lead reports
//!   in (each vehicle's spawn pose in the world, when odometry starts at the spawn pose);
//! - a `serial_port` that does not exist yet is waited for (20 s: a pty link another process
//!   of the run makes);
//! - `csv_path` (empty: none): one row per control cycle, `t,seq_gaps,rssi_dbm,pkt_age_s,
//!   gap_err_m,state,lead_dist_m` (`fieldproof_convoy::csv_log`), flushed every row;
//! - `analysis_path` (empty: none): at exit, the analysis `convoy_analyze` makes of the same
//!   rows (recovery time per blackout, time per state, ...), as JSON;
//! - `rssi_topic` (std_msgs/msg/Float64, from `lora_radio`) feeds the CSV's `rssi_dbm`.
//!
//! ```text
//! convoy_follower --ros-args -r __ns:=/r2 -p udp_port:=5600 -p csv_path:=run/convoy.csv
//! ```

use std::io::Read;
use std::time::Duration;

use fieldproof_convoy::analysis::analyse;
use fieldproof_convoy::csv_log::{CsvLogWriter, CsvRow};
use fieldproof_convoy::follow::{Cycle, FollowConfig, FollowController, LeadReport, Pose2D};
use fieldproof_convoy::packet::{ConvoyPacket, PACKET_LEN};
use fieldproof_convoy::serial::{self, Deframer};
use fieldproof_convoy::watchdog::{LinkStats, Watchdog, WatchdogConfig, WatchdogState};
use fieldproof_runtime::logging::Throttle;
use fieldproof_runtime::msgs::geometry_msgs::{Twist, Vector3};
use fieldproof_runtime::msgs::nav_msgs::Odometry;
use fieldproof_runtime::msgs::std_msgs;
use fieldproof_runtime::{
    qos, tracing, NodeBuilder, Param, ParamHandle, ParamValue, MALFORMED_LOG_PERIOD,
};
use futures::FutureExt;
use serde::Serialize;

/// The handles of the follower's parameters.
struct FollowerParams {
    udp_port: ParamHandle<i64>,
    serial_port: ParamHandle<String>,
    control_rate_hz: ParamHandle<f64>,
    csv_path: ParamHandle<String>,
    analysis_path: ParamHandle<String>,
    rssi_topic: ParamHandle<String>,
    follow_dist: ParamHandle<f64>,
    offset: ParamHandle<f64>,
    v_max: ParamHandle<f64>,
    k_gap: ParamHandle<f64>,
    lead_speed_feedforward: ParamHandle<bool>,
    fresh_s: ParamHandle<f64>,
    grace_s: ParamHandle<f64>,
    gap_tolerance_m: ParamHandle<f64>,
    odom_origin: ParamHandle<Vec<f64>>,
}

fn declare(builder: &mut NodeBuilder) -> FollowerParams {
    let follow = FollowConfig::default();
    let watchdog = WatchdogConfig::default();
    FollowerParams {
        udp_port: builder.declare(
            Param::int("udp_port", 0)
                .range(0.0, 65_535.0)
                .description("UDP port the packets arrive on (0: none)")
                .read_only(),
        ),
        serial_port: builder.declare(
            Param::string("serial_port", "")
                .description("serial device the packets arrive on (empty: none)")
                .read_only(),
        ),
        control_rate_hz: builder.declare(
            Param::double("control_rate_hz", 10.0)
                .range(1.0, 100.0)
                .description("control cycles per second (and CSV rows)")
                .read_only(),
        ),
        analysis_path: builder.declare(
            Param::string("analysis_path", "")
                .description(
                    "at exit, convoy_analyze's analysis of this run's log as JSON (empty: none)",
                )
                .read_only(),
        ),
        csv_path: builder.declare(
            Param::string("csv_path", "")
                .description("CSV log, one row per control cycle (empty: none)")
                .read_only(),
        ),
        rssi_topic: builder.declare(
            Param::string("rssi_topic", "convoy/rssi_dbm")
                .topic()
                .description("std_msgs/msg/Float64 RSSI estimates for the log (from lora_radio)")
                .read_only(),
        ),
        follow_dist: builder.declare(
            Param::double("follow_dist", follow.follow_dist_m)
                .range(0.1, 100.0)
                .description("metres behind the lead")
                .read_only(),
        ),
        offset: builder.declare(
            Param::double("offset", follow.offset_m)
                .range(-100.0, 100.0)
                .description("metres beside the lead, positive to its left (REP 103)")
                .read_only(),
        ),
        v_max: builder.declare(
            Param::double("v_max", follow.v_max_mps)
                .range(0.01, 20.0)
                .description("speed cap, m/s (REJOIN: half)")
                .read_only(),
        ),
        k_gap: builder.declare(
            Param::double("k_gap", follow.k_gap)
                .range(0.01, 100.0)
                .description("gap error to speed gain, 1/s")
                .read_only(),
        ),
        lead_speed_feedforward: builder.declare(
            Param::bool("lead_speed_feedforward", follow.lead_speed_feedforward)
                .description("add the lead's reported speed to the gap term")
                .read_only(),
        ),
        fresh_s: builder.declare(
            Param::double("fresh_s", watchdog.fresh_s)
                .range(0.01, 600.0)
                .description("packet age beyond which FOLLOW turns HOLD, seconds")
                .read_only(),
        ),
        grace_s: builder.declare(
            Param::double("grace_s", watchdog.grace_s)
                .range(0.01, 600.0)
                .description("packet age beyond which it stops (SAFE_STOP), seconds; above fresh_s")
                .read_only(),
        ),
        gap_tolerance_m: builder.declare(
            Param::double("gap_tolerance_m", watchdog.gap_tolerance_m)
                .range(0.001, 100.0)
                .description("REJOIN ends in FOLLOW once |gap error| is below this, metres")
                .read_only(),
        ),
        odom_origin: builder.declare(origin_param()),
    }
}

impl FollowerParams {
    fn follow_config(&self) -> FollowConfig {
        FollowConfig {
            follow_dist_m: self.follow_dist.get(),
            offset_m: self.offset.get(),
            v_max_mps: self.v_max.get(),
            k_gap: self.k_gap.get(),
            lead_speed_feedforward: self.lead_speed_feedforward.get(),
            max_extrapolation_s: self.grace_s.get(),
            ..FollowConfig::default()
        }
    }

    fn watchdog_config(&self) -> WatchdogConfig {
        WatchdogConfig {
            fresh_s: self.fresh_s.get(),
            grace_s: self.grace_s.get(),
            gap_tolerance_m: self.gap_tolerance_m.get(),
        }
    }
}

/// The `odom_origin` parameter: where the follower's odom frame lies in the frame the lead
/// reports in (the lead_broadcaster's `odom_origin` names the same frame).
fn origin_param() -> Param {
    Param::doubles("odom_origin", &[0.0, 0.0, 0.0])
        .description(
            "where the odom frame lies in the convoy's shared frame, [x_m, y_m, yaw_deg] \
             (the spawn pose in the world when each vehicle's odometry starts at its spawn)",
        )
        .on_change(|v| match v {
            ParamValue::DoubleArray(a) => Pose2D::from_origin_param(a).map(|_| ()),
            other => Err(format!("odom_origin: {other:?} is not a list of numbers")),
        })
        .read_only()
}

/// How long a serial device may take to appear (a pty link made by another process of the run).
const SERIAL_WAIT: Duration = Duration::from_secs(20);

/// What `convoy/link_stats` carries.
#[derive(Serialize)]
struct LinkReport {
    #[serde(flatten)]
    link: LinkStats,
    /// The first accepted seq and the newest: the follower's `seq_gaps` count the numbers
    /// skipped between them (what a scenario's `seq_accounting` compares with the drops).
    first_seq: Option<u32>,
    newest_seq: Option<u32>,
    bad_packets: u64,
    state: &'static str,
    pkt_age_s: Option<f64>,
    rssi_dbm: Option<f64>,
    gap_err_m: Option<f64>,
}

/// Raw packets from every source, as they arrive.
type Packets = smol::channel::Receiver<Vec<u8>>;

/// The running readers: the UDP task, and the sender that keeps the channel open even with no
/// source (the serial reader is a thread that ends with the process).
struct Readers {
    _udp: Option<smol::Task<()>>,
    _open: smol::channel::Sender<Vec<u8>>,
}

/// Starts the readers of the configured sources.
fn spawn_sources(
    node: &fieldproof_runtime::Node,
    udp_port: u16,
    serial_path: &str,
) -> Result<(Packets, Readers), fieldproof_runtime::BoxError> {
    let (tx, rx) = smol::channel::unbounded::<Vec<u8>>();
    let mut udp = None;
    if udp_port != 0 {
        let socket = std::net::UdpSocket::bind(("0.0.0.0", udp_port))
            .map_err(|e| format!("udp_port {udp_port}: {e}"))?;
        let socket = smol::net::UdpSocket::try_from(socket)?;
        let tx = tx.clone();
        udp = Some(node.spawn(async move {
            // One datagram is one packet; a longer one is read whole and refused by decode.
            let mut buf = [0u8; 2048];
            while let Ok((n, _)) = socket.recv_from(&mut buf).await {
                if tx.send(buf[..n].to_vec()).await.is_err() {
                    return;
                }
            }
        }));
    }
    if !serial_path.is_empty() {
        let mut port = serial::open_raw_waiting(serial_path, false, SERIAL_WAIT)
            .map_err(|e| format!("serial_port: {e}"))?;
        let tx = tx.clone();
        let path = serial_path.to_string();
        std::thread::spawn(move || {
            let mut deframer = Deframer::new();
            let mut buf = [0u8; 4 * PACKET_LEN];
            loop {
                match port.read(&mut buf) {
                    Ok(0) => std::thread::sleep(Duration::from_millis(10)),
                    Ok(n) => {
                        for frame in deframer.push(&buf[..n]) {
                            if tx.send_blocking(frame.to_vec()).is_err() {
                                return;
                            }
                        }
                    }
                    Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                    Err(e) => {
                        tracing::debug!("{path}: {e}");
                        std::thread::sleep(Duration::from_millis(50));
                    }
                }
            }
        });
    }
    if udp_port == 0 && serial_path.is_empty() {
        tracing::warn!("neither udp_port nor serial_port set: no packets will arrive");
    }
    Ok((
        rx,
        Readers {
            _udp: udp,
            _open: tx,
        },
    ))
}

/// Writes convoy_analyze's analysis of `rows` to `path` (what a run's evidence reports: the
/// recovery time after each blackout); a failure is logged, never fatal at exit.
fn write_analysis(path: &str, rows: &[CsvRow], tolerance_m: f64) {
    let written = analyse(rows, tolerance_m)
        .map_err(|e| e.to_string())
        .and_then(|a| serde_json::to_string_pretty(&a).map_err(|e| e.to_string()))
        .and_then(|json| std::fs::write(path, json + "\n").map_err(|e| e.to_string()));
    match written {
        Ok(()) => tracing::info!(
            "analysis of {} control cycles written to {path}",
            rows.len()
        ),
        Err(e) => tracing::warn!("analysis_path {path:?}: {e}"),
    }
}

fn twist(linear_x: f64, angular_z: f64) -> Twist {
    Twist {
        linear: Vector3 {
            x: linear_x,
            y: 0.0,
            z: 0.0,
        },
        angular: Vector3 {
            x: 0.0,
            y: 0.0,
            z: angular_z,
        },
    }
}

fn main() -> std::process::ExitCode {
    let mut builder = NodeBuilder::new("convoy_follower");
    let params = declare(&mut builder);
    if fieldproof_runtime::wants_help(std::env::args_os().skip(1)) {
        print!("{}", builder.help("convoy_follower"));
        return std::process::ExitCode::SUCCESS;
    }
    let cfg = match builder.resolve_from_process() {
        Ok(cfg) => cfg,
        Err(e) => {
            eprintln!("convoy_follower: error: {e}");
            return std::process::ExitCode::from(2);
        }
    };
    // To completion: SIGINT/SIGTERM end the control loop, and the analysis is written after
    // it (fieldproof_runtime::main would drop the body at the signal).
    let result = fieldproof_runtime::run_to_completion(cfg, |node| async move {
        let origin = Pose2D::from_origin_param(&params.odom_origin.get())?;
        let mut watchdog = Watchdog::new(params.watchdog_config())?;
        let mut controller = FollowController::new(params.follow_config())?;
        let odom_sub = node.subscription::<Odometry>("odom", qos::default())?;
        let rssi_topic = params.rssi_topic.get();
        let rssi_sub = if rssi_topic.is_empty() {
            None
        } else {
            Some(node.subscription::<std_msgs::Float64>(&rssi_topic, qos::default())?)
        };
        let cmd_pub = node.publisher::<Twist>("cmd_vel", qos::default())?;
        let state_pub =
            node.publisher::<std_msgs::String>("convoy/watchdog_state", qos::latched())?;
        let stats_pub = node.publisher::<std_msgs::String>("convoy/link_stats", qos::default())?;
        let csv_path = params.csv_path.get();
        let mut csv = if csv_path.is_empty() {
            None
        } else {
            let file = std::fs::File::create(&csv_path)
                .map_err(|e| format!("csv_path {csv_path:?}: {e}"))?;
            Some(CsvLogWriter::new(std::io::BufWriter::new(file), true)?)
        };
        let (packets, _readers) = spawn_sources(
            &node,
            params.udp_port.get() as u16,
            &params.serial_port.get(),
        )?;
        let dt_s = 1.0 / params.control_rate_hz.get();
        let mut timer = node.timer_hz(params.control_rate_hz.get());
        let mut follower: Option<Pose2D> = None;
        let mut newest: Option<LeadReport> = None;
        let mut rssi_dbm: Option<f64> = None;
        let mut published_state: Option<WatchdogState> = None;
        let mut bad_packets = 0u64;
        let mut first_seq: Option<u32> = None;
        let analysis_path = params.analysis_path.get();
        let mut logged: Vec<CsvRow> = Vec::new();
        let mut bad_log = Throttle::new(MALFORMED_LOG_PERIOD);
        let mut bad_odom = Throttle::new(MALFORMED_LOG_PERIOD);
        let now_s = || node.clock().now_nanos() as f64 * 1e-9;
        let rssi_next = || async {
            match rssi_sub.as_ref() {
                Some(sub) => sub.recv().await,
                None => futures::future::pending().await,
            }
        };
        loop {
            futures::select! {
                bytes = packets.recv().fuse() => {
                    let Ok(bytes) = bytes else { continue };
                    let packet = ConvoyPacket::decode(&bytes).map_err(|e| e.to_string()).and_then(|p| {
                        match p.non_finite_field() {
                            Some(field) => Err(format!("{field} is not finite")),
                            None => Ok(p),
                        }
                    });
                    match packet {
                        Ok(packet) => {
                            if watchdog.on_packet(packet.seq, now_s()).accepted() {
                                newest = Some(LeadReport::from_packet(&packet));
                                first_seq.get_or_insert(packet.seq);
                            }
                        }
                        Err(reason) => {
                            bad_packets += 1;
                            if bad_log.hit().is_some() {
                                tracing::warn!("packet skipped: {reason} ({bad_packets} in all)");
                            }
                        }
                    }
                }
                m = odom_sub.recv().fuse() => {
                    let m = m?;
                    let p = &m.pose.pose;
                    let q = &p.orientation;
                    let pose = Pose2D::from_position_quaternion(p.position.x, p.position.y, [q.x, q.y, q.z, q.w])
                        .placed_in(&origin);
                    if pose.is_finite() {
                        follower = Some(pose);
                    } else if bad_odom.hit().is_some() {
                        tracing::warn!("{}: pose ({}, {}, yaw {}) is not finite: skipped ({} in all)",
                            odom_sub.topic(), pose.x_m, pose.y_m, pose.yaw_rad, bad_odom.total());
                    }
                }
                m = rssi_next().fuse() => {
                    let m = m?;
                    if m.data.is_finite() {
                        rssi_dbm = Some(m.data);
                    }
                }
                _ = timer.tick().fuse() => {
                    let Some(pose) = follower else { continue };
                    let t_s = now_s();
                    let Cycle { state, packet_age_s: age, gap_error_m, command } =
                        controller.cycle(&mut watchdog, newest, pose, t_s, dt_s);
                    let mut cmd = twist(command.linear_mps, command.angular_rps);
                    if let Some((field, value)) = cmd.non_finite_field() {
                        tracing::warn!("command {field} = {value} is not finite: zero sent");
                        cmd = twist(0.0, 0.0);
                    }
                    cmd_pub.publish(cmd)?;
                    if published_state != Some(state) {
                        tracing::info!("watchdog: {state}");
                        state_pub.publish(std_msgs::String { data: state.as_str().to_string() })?;
                        published_state = Some(state);
                    }
                    let lead_dist_m = newest.as_ref().map(|lead| {
                        let estimate = controller.lead_estimate(lead, age);
                        (estimate.x_m - pose.x_m).hypot(estimate.y_m - pose.y_m)
                    });
                    let stats = watchdog.stats();
                    stats_pub.publish(std_msgs::String {
                        data: serde_json::to_string(&LinkReport {
                            link: stats,
                            first_seq,
                            newest_seq: watchdog.newest_seq(),
                            bad_packets,
                            state: state.as_str(),
                            pkt_age_s: age,
                            rssi_dbm,
                            gap_err_m: gap_error_m,
                        })?,
                    })?;
                    let row = CsvRow {
                        t_s,
                        seq_gaps: stats.seq_gaps,
                        rssi_dbm,
                        pkt_age_s: age,
                        gap_err_m: gap_error_m,
                        state,
                        lead_dist_m,
                    };
                    if let Some(log) = csv.as_mut() {
                        log.write_row(&row)?;
                        log.flush()?;
                    }
                    if !analysis_path.is_empty() {
                        logged.push(row);
                    }
                }
                _ = node.shutdown_requested().fuse() => break,
            }
        }
        if !analysis_path.is_empty() {
            write_analysis(&analysis_path, &logged, params.gap_tolerance_m.get());
        }
        Ok(())
    });
    match result {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("convoy_follower: error: {e}");
            std::process::ExitCode::FAILURE
        }
    }
}
