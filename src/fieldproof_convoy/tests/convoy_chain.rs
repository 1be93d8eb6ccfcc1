//! The LoRa path end to end (DDS in a private network namespace): lead_broadcaster at 8 Hz
//! with `drop_every_n:=5` (6.4 packets/s, more than the radio's 4.42) → serial → lora_radio (drop_oldest, depth 1) → serial →
//! convoy_follower. The follower's sequence gaps equal, one for one, the packets dropped at the
//! source plus those the radio dropped, each counted where it happened.

mod common;

use std::time::{Duration, Instant};

use common::{relay, NodeProc, Pty};
use fieldproof_runtime::msgs::nav_msgs::Odometry;
use fieldproof_runtime::msgs::std_msgs;
use fieldproof_runtime::qos;
use futures::FutureExt;

const DROP_EVERY_N: u64 = 5;

fn odometry_at(x: f64, y: f64) -> Odometry {
    let mut odom = Odometry::default();
    odom.pose.pose.position.x = x;
    odom.pose.pose.position.y = y;
    odom.pose.pose.orientation.w = 1.0;
    odom
}

#[test]
fn follower_gaps_equal_source_drops_plus_radio_drops() {
    fieldproof_testkit::contain_or_return!();
    let lead_port = Pty::open();
    let radio_in = Pty::open();
    let radio_out = Pty::open();
    let follower_port = Pty::open();
    relay(&lead_port, &radio_in);
    relay(&radio_out, &follower_port);
    let domain = 67;
    // Each node in its own namespace, as on two vehicles and a radio.
    let mut lead = NodeProc::start_with(
        env!("CARGO_BIN_EXE_lead_broadcaster"),
        domain,
        &["-r", "__ns:=/r1"],
        &[
            format!("serial_port:={}", lead_port.slave_path),
            "rate_hz:=8.0".into(),
            format!("drop_every_n:={DROP_EVERY_N}"),
        ],
    );
    let radio = NodeProc::start_with(
        env!("CARGO_BIN_EXE_lora_radio"),
        domain,
        &["-r", "__ns:=/radio"],
        &[
            format!("input_port:={}", radio_in.slave_path),
            format!("output_port:={}", radio_out.slave_path),
        ],
    );
    radio.wait_for_log("on air per frame", Duration::from_secs(15));
    let _follower = NodeProc::start_with(
        env!("CARGO_BIN_EXE_convoy_follower"),
        domain,
        &["-r", "__ns:=/r2"],
        &[format!("serial_port:={}", follower_port.slave_path)],
    );

    let mut stats = (None, None, None);
    let stats_ref = &mut stats;
    let lead_ref = &mut lead;
    fieldproof_runtime::run_on_domain("chain_peer", domain, |node| async move {
        let lead_odom = node.publisher::<Odometry>("/r1/odom", qos::default())?;
        let follower_odom = node.publisher::<Odometry>("/r2/odom", qos::default())?;
        let source =
            node.subscription::<std_msgs::String>("/r1/convoy/source_stats", qos::latched())?;
        let radio =
            node.subscription::<std_msgs::String>("/radio/convoy/radio_stats", qos::latched())?;
        let link =
            node.subscription::<std_msgs::String>("/r2/convoy/link_stats", qos::default())?;
        let start = Instant::now();
        let mut lead_stopped = None;
        loop {
            assert!(start.elapsed() < Duration::from_secs(60), "{stats_ref:?}");
            if lead_stopped.is_none() {
                lead_odom.publish(odometry_at(3.0, 0.0))?;
            }
            follower_odom.publish(odometry_at(1.3, 0.4))?;
            let json = |m: std_msgs::String| serde_json::from_str::<serde_json::Value>(&m.data);
            futures::select! {
                _ = FutureExt::fuse(smol::Timer::after(Duration::from_millis(50))) => {}
                m = source.recv().fuse() => stats_ref.0 = Some(json(m?)?),
                m = radio.recv().fuse() => stats_ref.1 = Some(json(m?)?),
                m = link.recv().fuse() => stats_ref.2 = Some(json(m?)?),
            }
            let sent = stats_ref
                .0
                .as_ref()
                .map_or(0, |s| s["seq"].as_u64().unwrap());
            if lead_stopped.is_none() && sent >= 40 {
                // Stop the lead; let the radio drain and the follower count.
                lead_ref.stop();
                lead_stopped = Some(Instant::now());
            }
            if let (Some(stopped), Some(radio), Some(link)) =
                (lead_stopped, &stats_ref.1, &stats_ref.2)
            {
                let source = stats_ref.0.as_ref().unwrap();
                let drained = radio["in_flight"].as_u64() == Some(0)
                    && radio["received"].as_u64() == source["sent"].as_u64();
                let counted = link["accepted"].as_u64() == radio["sent"].as_u64();
                if drained && counted && stopped.elapsed() > Duration::from_millis(500) {
                    return Ok(());
                }
            }
        }
    })
    .expect("peer run");
    let (source, radio, link) = (stats.0.unwrap(), stats.1.unwrap(), stats.2.unwrap());
    eprintln!("source {source}\nradio {radio}\nfollower {link}");
    let count =
        |v: &serde_json::Value, k: &str| v[k].as_u64().unwrap_or_else(|| panic!("{k} in {v}"));
    assert!(count(&source, "dropped_every_n") > 0);
    assert!(count(&radio, "dropped_busy") > 0);
    // Gaps are counted up to the newest accepted seq: the last seq must have gone through.
    let last_seq = count(&source, "seq");
    let missing_at_end = u64::from(last_seq % DROP_EVERY_N == 0);
    assert_eq!(
        count(&link, "seq_gaps") + missing_at_end,
        count(&source, "dropped") + count(&radio, "dropped_busy"),
        "source {source} radio {radio} follower {link}"
    );
    assert_eq!(count(&link, "bad_packets"), 0);
    assert_eq!(count(&link, "duplicates") + count(&link, "out_of_order"), 0);
}
