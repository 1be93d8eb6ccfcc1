//! `lora_radio` between two ptys (DDS in a private network namespace for its stats): frames
//! written at 5 Hz come out one per airtime (1 / 226.3 ms = 4.42 /s, within 5 %), the newest
//! pending one each time (drop_oldest, depth 1), and every frame is accounted for:
//! delivered + dropped = input. Noise between the frames is skipped.

mod common;

use std::io::Write;
use std::time::{Duration, Instant};

use common::{wait_until, NodeProc, Pty};
use fieldproof_convoy::airtime::LoraSettings;
use fieldproof_convoy::packet::{ConvoyPacket, PACKET_LEN};
use fieldproof_runtime::msgs::std_msgs;
use fieldproof_runtime::qos;

const EXE: &str = env!("CARGO_BIN_EXE_lora_radio");

fn frame(seq: u32) -> [u8; PACKET_LEN] {
    ConvoyPacket {
        rover_id: 1,
        seq,
        t_ms: seq * 200,
        x_m: 0.5,
        y_m: 0.25,
        heading_rad: 0.0,
        speed_mps: 0.2,
    }
    .encode()
}

/// The newest `convoy/radio_stats` once `done` holds for it.
fn radio_stats(domain: u16, done: impl Fn(&serde_json::Value) -> bool) -> serde_json::Value {
    let mut found = None;
    let found_ref = &mut found;
    fieldproof_runtime::run_on_domain("stats_reader", domain, |node| async move {
        let sub = node.subscription::<std_msgs::String>("convoy/radio_stats", qos::latched())?;
        let end = Instant::now() + Duration::from_secs(20);
        loop {
            let stats: serde_json::Value = serde_json::from_str(&sub.recv().await?.data)?;
            if done(&stats) {
                *found_ref = Some(stats);
                return Ok(());
            }
            assert!(Instant::now() < end, "radio stats never settled: {stats}");
        }
    })
    .expect("peer run");
    found.expect("stats")
}

#[test]
fn at_5_hz_the_radio_delivers_one_frame_per_airtime_and_accounts_for_every_frame() {
    fieldproof_testkit::contain_or_return!();
    let input = Pty::open();
    let output = Pty::open();
    let delivered = output.collect_frames();
    let domain = 63;
    let node = NodeProc::start(
        EXE,
        domain,
        &[
            format!("input_port:={}", input.slave_path),
            format!("output_port:={}", output.slave_path),
        ],
    );
    node.wait_for_log("on air per frame", Duration::from_secs(15));
    let airtime_s = LoraSettings::convoy_default()
        .time_on_air(PACKET_LEN)
        .unwrap()
        .total_s;

    let sent: u32 = 40;
    let mut writer = &input.master;
    let start = Instant::now();
    for seq in 1..=sent {
        // A little noise before some frames: the radio must resynchronise.
        if seq % 10 == 5 {
            writer.write_all(&[0x00, 0xC0, 0x13]).unwrap();
        }
        writer.write_all(&frame(seq)).unwrap();
        let next = start + Duration::from_millis(200 * u64::from(seq));
        std::thread::sleep(next.saturating_duration_since(Instant::now()));
    }
    let stats = radio_stats(domain, |s| {
        s["received"].as_u64() == Some(u64::from(sent)) && s["in_flight"].as_u64() == Some(0)
    });
    wait_until("the last frame read", Duration::from_secs(2), || {
        delivered.len() as u64 == stats["sent"].as_u64().unwrap()
    });

    let frames = delivered.all();
    let seqs: Vec<u32> = frames
        .iter()
        .map(|(_, f)| ConvoyPacket::decode(f).unwrap().seq)
        .collect();
    // In order, unaltered, the first and the last always among them.
    assert!(seqs.windows(2).all(|w| w[0] < w[1]), "{seqs:?}");
    assert_eq!(seqs.first(), Some(&1));
    assert_eq!(seqs.last(), Some(&sent));
    for (_, f) in &frames {
        assert_eq!(*f, frame(ConvoyPacket::decode(f).unwrap().seq));
    }
    // The rate while saturated: one per airtime (the last frame waited for its slot too).
    let span_s = frames
        .last()
        .unwrap()
        .0
        .duration_since(frames[0].0)
        .as_secs_f64();
    let rate_hz = (frames.len() - 1) as f64 / span_s;
    let expected_hz = 1.0 / airtime_s;
    eprintln!(
        "delivered {} of {sent} at {rate_hz:.3} /s (1/airtime {expected_hz:.3} /s); {stats}",
        frames.len()
    );
    assert!(
        (rate_hz / expected_hz - 1.0).abs() < 0.05,
        "{rate_hz} /s against {expected_hz} /s"
    );
    // Every frame accounted for.
    let count = |k: &str| stats[k].as_u64().unwrap();
    assert_eq!(count("sent"), frames.len() as u64);
    assert_eq!(count("dropped_loss"), 0);
    assert!(count("dropped_busy") > 0, "{stats}");
    assert_eq!(
        count("sent") + count("dropped_busy"),
        u64::from(sent),
        "{stats}"
    );
    assert!(count("skipped_bytes") >= 3 * 4, "{stats}");
}

#[test]
fn out_of_range_every_frame_is_lost_and_counted() {
    fieldproof_testkit::contain_or_return!();
    let input = Pty::open();
    let output = Pty::open();
    let delivered = output.collect_frames();
    let domain = 64;
    let node = NodeProc::start(
        EXE,
        domain,
        &[
            format!("input_port:={}", input.slave_path),
            format!("output_port:={}", output.slave_path),
            "loss_model:=log_distance".into(),
            "shadowing_sigma_db:=0.0".into(),
            // Mean RSSI 14 − 31.2 − 27·log10(1e5) = −152.2 dBm: under the −129 dBm sensitivity.
            "distance_m:=100000.0".into(),
        ],
    );
    node.wait_for_log("on air per frame", Duration::from_secs(15));
    let mut writer = &input.master;
    for seq in 1..=3 {
        writer.write_all(&frame(seq)).unwrap();
        std::thread::sleep(Duration::from_millis(300));
    }
    let stats = radio_stats(domain, |s| {
        s["received"].as_u64() == Some(3) && s["in_flight"].as_u64() == Some(0)
    });
    assert_eq!(stats["dropped_loss"].as_u64(), Some(3), "{stats}");
    assert_eq!(stats["sent"].as_u64(), Some(0), "{stats}");
    let rssi = stats["last_rssi_dbm"].as_f64().unwrap();
    assert!((rssi - (14.0 - 31.2 - 27.0 * 5.0)).abs() < 1e-9, "{stats}");
    assert_eq!(delivered.len(), 0);
}
