//! `lead_broadcaster` (R1): packs the lead's newest odometry into a 28-byte `ConvoyPacket` at
//! `rate_hz` and writes it to a serial device (the LoRa path) and, byte for byte the same, as
//! one UDP datagram to `udp_target` (the Wi-Fi fallback path).
//!
//! - in: `odom` (nav_msgs/msg/Odometry); a pose or speed that is not finite is skipped;
//! - out: the frames on `serial_port` and `udp_target` (either empty: off); `convoy/source_stats`
//!   (std_msgs/msg/String, latched: a JSON object `{seq, sent, dropped_every_n,
//!   dropped_blackout, dropped, serial_write_failures, udp_send_failures}`) after every packet;
//! - no packet (and no seq used) before the first odometry; the pose is sent in the convoy's
//!   shared frame: the odometry placed by `odom_origin` (`[x_m, y_m, yaw_deg]`, default the
//!   odom frame itself); a `serial_port` that does not exist yet is waited for (20 s);
//! - source-side degradation, settable at run time (`ros2 param set`): `drop_every_n` drops the
//!   packets whose seq is a multiple of n; `blackout` drops all while true; `blackout_start_s`
//!   / `blackout_duration_s` a window measured from the node's start. A dropped packet uses its
//!   seq, so the follower sees the gap; the drops are counted in `convoy/source_stats`.
//!
//! ```text
//! lead_broadcaster --ros-args -r __ns:=/r1 -p serial_port:=/dev/pts/3 -p udp_target:=10.0.0.2:5600
//! ```

use std::io::Write;
use std::net::{SocketAddr, ToSocketAddrs, UdpSocket};

use fieldproof_convoy::follow::Pose2D;
use fieldproof_convoy::packet::ConvoyPacket;
use fieldproof_convoy::serial;
use fieldproof_convoy::source::{SourceDegradation, SourceStats, SourceVerdict};
use fieldproof_runtime::logging::Throttle;
use fieldproof_runtime::msgs::nav_msgs::Odometry;
use fieldproof_runtime::msgs::std_msgs;
use fieldproof_runtime::{
    qos, tracing, NodeBuilder, Param, ParamHandle, ParamValue, MALFORMED_LOG_PERIOD,
};
use futures::FutureExt;

/// The handles of the broadcaster's parameters.
struct BroadcasterParams {
    rover_id: ParamHandle<i64>,
    rate_hz: ParamHandle<f64>,
    serial_port: ParamHandle<String>,
    udp_target: ParamHandle<String>,
    drop_every_n: ParamHandle<i64>,
    blackout: ParamHandle<bool>,
    blackout_start_s: ParamHandle<f64>,
    blackout_duration_s: ParamHandle<f64>,
    odom_origin: ParamHandle<Vec<f64>>,
}

/// How long the serial device may take to appear (a pty link made by another process of the run).
const SERIAL_WAIT: std::time::Duration = std::time::Duration::from_secs(20);

impl BroadcasterParams {
    fn degradation(&self) -> SourceDegradation {
        SourceDegradation {
            drop_every_n: self.drop_every_n.get().max(0) as u64,
            blackout: self.blackout.get(),
            blackout_start_s: self.blackout_start_s.get(),
            blackout_duration_s: self.blackout_duration_s.get(),
        }
    }
}

/// `udp_target` must be empty or `host:port`.
fn check_udp_target(value: &ParamValue) -> Result<(), String> {
    match value {
        ParamValue::String(s) if s.is_empty() || resolve(s).is_ok() => Ok(()),
        ParamValue::String(s) => Err(format!("udp_target: {s:?}: {}", resolve(s).unwrap_err())),
        other => Err(format!("udp_target: {other:?} is not a string")),
    }
}

fn resolve(target: &str) -> Result<SocketAddr, String> {
    target
        .to_socket_addrs()
        .map_err(|e| format!("not host:port ({e})"))?
        .next()
        .ok_or_else(|| "resolves to no address".to_string())
}

fn declare(builder: &mut NodeBuilder) -> BroadcasterParams {
    BroadcasterParams {
        rover_id: builder.declare(
            Param::int("rover_id", 1)
                .range(0.0, 255.0)
                .description("rover id carried in every packet")
                .read_only(),
        ),
        rate_hz: builder.declare(
            Param::double("rate_hz", 5.0)
                .range(0.1, 100.0)
                .description("packets per second")
                .read_only(),
        ),
        serial_port: builder.declare(
            Param::string("serial_port", "")
                .description("serial device the frames are written to (empty: none)")
                .read_only(),
        ),
        udp_target: builder.declare(
            Param::string("udp_target", "")
                .description("host:port the same frames go to as UDP datagrams (empty: none)")
                .on_change(check_udp_target)
                .read_only(),
        ),
        drop_every_n: builder.declare(
            Param::int("drop_every_n", 0)
                .range(0.0, 1e6)
                .description("drop the packets whose seq is a multiple of n (0: off)"),
        ),
        blackout: builder
            .declare(Param::bool("blackout", false).description("drop every packet while true")),
        blackout_start_s: builder.declare(
            Param::double("blackout_start_s", 0.0)
                .range(0.0, 1e6)
                .description("blackout window start, seconds since the node started"),
        ),
        blackout_duration_s: builder.declare(
            Param::double("blackout_duration_s", 0.0)
                .range(0.0, 1e6)
                .description("blackout window length, seconds (0: no window)"),
        ),
        odom_origin: builder.declare(
            Param::doubles("odom_origin", &[0.0, 0.0, 0.0])
                .description(
                    "where the odom frame lies in the convoy's shared frame, [x_m, y_m, yaw_deg] \
                     (the spawn pose in the world when each vehicle's odometry starts at its spawn)",
                )
                .on_change(|v| match v {
                    ParamValue::DoubleArray(a) => Pose2D::from_origin_param(a).map(|_| ()),
                    other => Err(format!("odom_origin: {other:?} is not a list of numbers")),
                })
                .read_only(),
        ),
    }
}

fn main() -> std::process::ExitCode {
    let mut builder = NodeBuilder::new("lead_broadcaster");
    let params = declare(&mut builder);
    fieldproof_runtime::main(
        move || builder,
        |node| async move {
            let odom_sub = node.subscription::<Odometry>("odom", qos::default())?;
            let stats_pub =
                node.publisher::<std_msgs::String>("convoy/source_stats", qos::latched())?;
            let serial_path = params.serial_port.get();
            let mut serial_out = if serial_path.is_empty() {
                None
            } else {
                Some(
                    serial::open_raw_waiting(&serial_path, true, SERIAL_WAIT)
                        .map_err(|e| format!("serial_port: {e}"))?,
                )
            };
            let udp_target = params.udp_target.get();
            let udp = if udp_target.is_empty() {
                None
            } else {
                let target =
                    resolve(&udp_target).map_err(|e| format!("udp_target: {udp_target:?}: {e}"))?;
                let bind: SocketAddr = if target.is_ipv4() {
                    "0.0.0.0:0".parse()?
                } else {
                    "[::]:0".parse()?
                };
                let socket = UdpSocket::bind(bind)?;
                socket.set_nonblocking(true)?;
                Some((socket, target))
            };
            // Once now and on every run-time change.
            params
                .drop_every_n
                .follow(|n| tracing::info!("drop_every_n: {n}"));
            params
                .blackout
                .follow(|on| tracing::info!("blackout: {on}"));
            tracing::info!(
                "broadcasting at {} Hz to serial {:?} and udp {:?}",
                params.rate_hz.get(),
                serial_path,
                udp_target
            );
            let origin = Pose2D::from_origin_param(&params.odom_origin.get())?;
            let start_ns = node.clock().now_nanos();
            let rover_id = params.rover_id.get() as u8;
            let mut newest: Option<(Pose2D, f64)> = None;
            let mut seq: u32 = 0;
            let mut stats = SourceStats::default();
            let mut timer = node.timer_hz(params.rate_hz.get());
            let mut bad_odom = Throttle::new(MALFORMED_LOG_PERIOD);
            let mut write_failure = Throttle::new(MALFORMED_LOG_PERIOD);
            loop {
                futures::select! {
                    m = odom_sub.recv().fuse() => {
                        let m = m?;
                        let p = &m.pose.pose;
                        let q = &p.orientation;
                        let pose = Pose2D::from_position_quaternion(p.position.x, p.position.y, [q.x, q.y, q.z, q.w])
                            .placed_in(&origin);
                        let speed = m.twist.twist.linear.x;
                        if pose.is_finite() && speed.is_finite() {
                            newest = Some((pose, speed));
                        } else if bad_odom.hit().is_some() {
                            tracing::warn!(
                                "{}: pose ({}, {}, yaw {}) speed {} is not finite: skipped ({} in all)",
                                odom_sub.topic(), pose.x_m, pose.y_m, pose.yaw_rad, speed, bad_odom.total()
                            );
                        }
                    }
                    _ = timer.tick().fuse() => {
                        let Some((pose, speed)) = newest else { continue };
                        let now_ns = node.clock().now_nanos();
                        seq = seq.wrapping_add(1);
                        let elapsed_s = (now_ns - start_ns) as f64 * 1e-9;
                        let verdict = params.degradation().judge(seq, elapsed_s);
                        stats.count(seq, verdict);
                        if verdict == SourceVerdict::Send {
                            let frame = ConvoyPacket {
                                rover_id,
                                seq,
                                // Sender milliseconds: the node clock, wrapping like the u32 field.
                                t_ms: (now_ns.div_euclid(1_000_000) as u64) as u32,
                                x_m: pose.x_m as f32,
                                y_m: pose.y_m as f32,
                                heading_rad: pose.yaw_rad as f32,
                                speed_mps: speed as f32,
                            }
                            .encode();
                            if let Some(port) = serial_out.as_mut() {
                                if let Err(e) = port.write_all(&frame) {
                                    stats.serial_write_failures += 1;
                                    if write_failure.hit().is_some() {
                                        tracing::warn!("{serial_path}: seq {seq} not written: {e} ({} write failures)", stats.serial_write_failures);
                                    }
                                }
                            }
                            if let Some((socket, target)) = udp.as_ref() {
                                if let Err(e) = socket.send_to(&frame, target) {
                                    stats.udp_send_failures += 1;
                                    if write_failure.hit().is_some() {
                                        tracing::warn!("{target}: seq {seq} not sent: {e} ({} send failures)", stats.udp_send_failures);
                                    }
                                }
                            }
                        }
                        stats_pub.publish(std_msgs::String { data: serde_json::to_string(&stats)? })?;
                    }
                    _ = node.shutdown_requested().fuse() => break,
                }
            }
            tracing::info!("source stats at exit: {}", serde_json::to_string(&stats)?);
            Ok(())
        },
    )
}
