//! `lead_broadcaster` end to end (DDS in a private network namespace): odometry from a test
//! publisher comes out as 28-byte frames on a pty at 5 Hz carrying its fields, the same bytes
//! as UDP datagrams; with `drop_every_n:=3` every third seq is missing at the source and the
//! gaps equal the drops it reports on `convoy/source_stats`; a blackout switched on and off at
//! run time (`set_parameters`) leaves one run of missing seqs, as many as it counts.

mod common;

use std::collections::BTreeMap;
use std::net::UdpSocket;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use common::{NodeProc, Pty};
use fieldproof_convoy::packet::ConvoyPacket;
use fieldproof_runtime::msgs::geometry_msgs::{Point, Pose, PoseWithCovariance, Quaternion};
use fieldproof_runtime::msgs::nav_msgs::Odometry;
use fieldproof_runtime::msgs::std_msgs;
use fieldproof_runtime::value::set_parameters_request;
use fieldproof_runtime::{qos, ParamValue};
use futures::FutureExt;
use ros2_client::rcl_interfaces::{SetParametersRequest, SetParametersResponse};

const EXE: &str = env!("CARGO_BIN_EXE_lead_broadcaster");
const LEAD_X: f64 = 1.25;
const LEAD_Y: f64 = -2.5;
const LEAD_YAW: f64 = 0.5;
const LEAD_SPEED: f64 = 0.3;

fn odometry() -> Odometry {
    let mut odom = Odometry {
        pose: PoseWithCovariance {
            pose: Pose {
                position: Point {
                    x: LEAD_X,
                    y: LEAD_Y,
                    z: 0.0,
                },
                orientation: Quaternion {
                    x: 0.0,
                    y: 0.0,
                    z: (LEAD_YAW / 2.0).sin(),
                    w: (LEAD_YAW / 2.0).cos(),
                },
            },
            ..Default::default()
        },
        ..Default::default()
    };
    odom.twist.twist.linear.x = LEAD_SPEED;
    odom
}

/// Publishes the lead's odometry at 20 Hz until `done` (at most `limit`); returns the last
/// `convoy/source_stats` seen.
fn publish_odometry_until(
    domain: u16,
    limit: Duration,
    done: impl Fn(Option<&serde_json::Value>) -> bool,
) -> Option<serde_json::Value> {
    let last_stats = Arc::new(Mutex::new(None::<serde_json::Value>));
    let out = last_stats.clone();
    fieldproof_runtime::run_on_domain("odom_source", domain, |node| async move {
        let odom_pub = node.publisher::<Odometry>("odom", qos::default())?;
        let stats_sub =
            node.subscription::<std_msgs::String>("convoy/source_stats", qos::latched())?;
        let start = Instant::now();
        loop {
            odom_pub.publish(odometry())?;
            let tick = smol::Timer::after(Duration::from_millis(50));
            futures::select! {
                _ = FutureExt::fuse(tick) => {}
                m = stats_sub.recv().fuse() => {
                    *out.lock().unwrap() = Some(serde_json::from_str(&m?.data)?);
                }
            }
            if done(out.lock().unwrap().as_ref()) {
                return Ok(());
            }
            assert!(start.elapsed() < limit, "not done within {limit:?}");
        }
    })
    .expect("peer run");
    let stats = last_stats.lock().unwrap().clone();
    stats
}

#[test]
fn frames_on_the_pty_and_over_udp_carry_the_odometry_at_the_rate_byte_for_byte() {
    fieldproof_testkit::contain_or_return!();
    let pty = Pty::open();
    let frames = pty.collect_frames();
    let udp = UdpSocket::bind("127.0.0.1:0").unwrap();
    let port = udp.local_addr().unwrap().port();
    udp.set_read_timeout(Some(Duration::from_millis(200)))
        .unwrap();
    let datagrams: Arc<Mutex<Vec<Vec<u8>>>> = Arc::default();
    {
        let datagrams = datagrams.clone();
        std::thread::spawn(move || {
            let mut buf = [0u8; 2048];
            loop {
                if let Ok(n) = udp.recv(&mut buf) {
                    datagrams.lock().unwrap().push(buf[..n].to_vec());
                }
            }
        });
    }
    let domain = 61;
    let _node = NodeProc::start(
        EXE,
        domain,
        &[
            format!("serial_port:={}", pty.slave_path),
            format!("udp_target:=127.0.0.1:{port}"),
            "rover_id:=7".into(),
        ],
    );
    let wanted = 16;
    let counted = frames.clone();
    publish_odometry_until(domain, Duration::from_secs(30), move |_| {
        counted.len() >= wanted
    });
    std::thread::sleep(Duration::from_millis(300)); // the last datagrams

    let frames = frames.all();
    let packets: Vec<ConvoyPacket> = frames
        .iter()
        .map(|(_, f)| ConvoyPacket::decode(f).unwrap())
        .collect();
    assert!(packets.len() >= wanted);
    // Fields: the odometry, the rover id, seq counting up from 1, the sender's milliseconds.
    for (i, p) in packets.iter().enumerate() {
        assert_eq!(p.seq, i as u32 + 1, "{packets:?}");
        assert_eq!(p.rover_id, 7);
        assert_eq!(p.x_m, LEAD_X as f32);
        assert_eq!(p.y_m, LEAD_Y as f32);
        assert!((f64::from(p.heading_rad) - LEAD_YAW).abs() < 1e-6, "{p:?}");
        assert_eq!(p.speed_mps, LEAD_SPEED as f32);
    }
    let sender_span_ms = packets.last().unwrap().t_ms.wrapping_sub(packets[0].t_ms);
    let sender_rate_hz = (packets.len() - 1) as f64 / (f64::from(sender_span_ms) * 1e-3);
    // Rate at the reader: 5 Hz, generous bounds.
    let span_s = frames
        .last()
        .unwrap()
        .0
        .duration_since(frames[0].0)
        .as_secs_f64();
    let rate_hz = (frames.len() - 1) as f64 / span_s;
    eprintln!("serial rate {rate_hz:.3} Hz, sender clock rate {sender_rate_hz:.3} Hz");
    assert!((4.0..6.0).contains(&rate_hz), "{rate_hz} Hz");
    assert!(
        (4.5..5.5).contains(&sender_rate_hz),
        "{sender_rate_hz} Hz by t_ms"
    );
    // UDP: the same bytes for every seq.
    let by_seq: BTreeMap<u32, Vec<u8>> = datagrams
        .lock()
        .unwrap()
        .iter()
        .map(|d| (ConvoyPacket::decode(d).unwrap().seq, d.clone()))
        .collect();
    for (_, frame) in &frames {
        let seq = ConvoyPacket::decode(frame).unwrap().seq;
        assert_eq!(
            by_seq.get(&seq).map(Vec::as_slice),
            Some(&frame[..]),
            "datagram of seq {seq}"
        );
    }
}

#[test]
fn drop_every_third_leaves_exactly_the_gaps_the_source_counts() {
    fieldproof_testkit::contain_or_return!();
    let pty = Pty::open();
    let frames = pty.collect_frames();
    let domain = 62;
    let _node = NodeProc::start(
        EXE,
        domain,
        &[
            format!("serial_port:={}", pty.slave_path),
            "drop_every_n:=3".into(),
        ],
    );
    let stats = publish_odometry_until(domain, Duration::from_secs(30), |stats| {
        stats.is_some_and(|s| s["seq"].as_u64().unwrap() >= 12)
    })
    .unwrap();
    std::thread::sleep(Duration::from_millis(300)); // frames up to the stats' seq
    let last_seq = stats["seq"].as_u64().unwrap() as u32;
    let seqs: Vec<u32> = frames
        .all()
        .iter()
        .map(|(_, f)| ConvoyPacket::decode(f).unwrap().seq)
        .filter(|seq| *seq <= last_seq)
        .collect();
    let expected: Vec<u32> = (1..=last_seq).filter(|seq| seq % 3 != 0).collect();
    assert_eq!(seqs, expected, "{stats}");
    let gaps = u64::from(last_seq) - seqs.len() as u64;
    assert_eq!(stats["dropped_every_n"].as_u64(), Some(gaps), "{stats}");
    assert_eq!(stats["dropped"].as_u64(), Some(gaps), "{stats}");
    assert_eq!(stats["sent"].as_u64(), Some(seqs.len() as u64), "{stats}");
}

#[test]
fn a_blackout_set_at_run_time_drops_a_run_of_packets_and_counts_them() {
    fieldproof_testkit::contain_or_return!();
    let pty = Pty::open();
    let frames = pty.collect_frames();
    let domain = 66;
    let _node = NodeProc::start(EXE, domain, &[format!("serial_port:={}", pty.slave_path)]);
    let mut final_stats = None;
    let final_ref = &mut final_stats;
    fieldproof_runtime::run_on_domain("blackout_switch", domain, |node| async move {
        let odom_pub = node.publisher::<Odometry>("odom", qos::default())?;
        let stats_sub =
            node.subscription::<std_msgs::String>("convoy/source_stats", qos::latched())?;
        let set = node.client::<SetParametersRequest, SetParametersResponse>(
            "/lead_broadcaster/set_parameters",
            "rcl_interfaces/srv/SetParameters",
        )?;
        let start = Instant::now();
        // 0: before, 1: blackout on, 2: blackout off again.
        let mut step = 0;
        loop {
            assert!(start.elapsed() < Duration::from_secs(40), "step {step}");
            odom_pub.publish(odometry())?;
            let tick = smol::Timer::after(Duration::from_millis(50));
            let stats: Option<serde_json::Value> = futures::select! {
                _ = FutureExt::fuse(tick) => None,
                m = stats_sub.recv().fuse() => Some(serde_json::from_str(&m?.data)?),
            };
            let Some(stats) = stats else { continue };
            let count = |k: &str| stats[k].as_u64().unwrap();
            match step {
                0 if count("sent") >= 4 => {
                    // An out-of-range value is refused, the node keeps running.
                    let refused = set
                        .call_retry(
                            set_parameters_request([("drop_every_n", ParamValue::Integer(-1))]),
                            Duration::from_secs(1),
                            20,
                        )
                        .await?;
                    assert!(!refused.results[0].successful, "{:?}", refused.results);
                    let r = set
                        .call_retry(
                            set_parameters_request([("blackout", ParamValue::Bool(true))]),
                            Duration::from_secs(1),
                            20,
                        )
                        .await?;
                    assert!(r.results[0].successful, "{:?}", r.results);
                    step = 1;
                }
                1 if count("dropped_blackout") >= 5 => {
                    let r = set
                        .call_retry(
                            set_parameters_request([("blackout", ParamValue::Bool(false))]),
                            Duration::from_secs(1),
                            20,
                        )
                        .await?;
                    assert!(r.results[0].successful, "{:?}", r.results);
                    step = 2;
                }
                2 if count("sent") >= 4 + 4 => {
                    *final_ref = Some(stats);
                    return Ok(());
                }
                _ => {}
            }
        }
    })
    .expect("peer run");
    std::thread::sleep(Duration::from_millis(300));
    let stats = final_stats.unwrap();
    let last_seq = stats["seq"].as_u64().unwrap() as u32;
    let seqs: Vec<u32> = frames
        .all()
        .iter()
        .map(|(_, f)| ConvoyPacket::decode(f).unwrap().seq)
        .filter(|seq| *seq <= last_seq)
        .collect();
    let missing: Vec<u32> = (1..=last_seq).filter(|s| !seqs.contains(s)).collect();
    assert!(!missing.is_empty());
    assert!(
        missing.windows(2).all(|w| w[1] == w[0] + 1),
        "one run: {missing:?}"
    );
    assert_eq!(
        stats["dropped_blackout"].as_u64(),
        Some(missing.len() as u64),
        "{stats}"
    );
    assert_eq!(stats["dropped_every_n"].as_u64(), Some(0), "{stats}");
}
