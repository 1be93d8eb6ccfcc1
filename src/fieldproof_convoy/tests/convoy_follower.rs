//! `convoy_follower` end to end (DDS in a private network namespace): packets of a stationary
//! lead ahead arrive over UDP; the follower, standing just behind its formation point, drives
//! toward it (cmd_vel.linear.x > 0) in FOLLOW; when the packets stop it goes HOLD after
//! `fresh_s` and SAFE_STOP after `grace_s`, its command falling to zero; new packets bring
//! REJOIN, then FOLLOW. `convoy/watchdog_state` (latched) shows every transition,
//! `convoy/link_stats` counts the sequence gap, the duplicate and the bad datagram, and the CSV
//! has one row per control cycle telling the same story.

mod common;

use std::net::UdpSocket;
use std::time::{Duration, Instant};

use common::NodeProc;
use fieldproof_convoy::csv_log::read_log;
use fieldproof_convoy::packet::ConvoyPacket;
use fieldproof_convoy::watchdog::WatchdogState;
use fieldproof_runtime::msgs::geometry_msgs::Twist;
use fieldproof_runtime::msgs::nav_msgs::Odometry;
use fieldproof_runtime::msgs::std_msgs;
use fieldproof_runtime::qos;
use futures::FutureExt;

const EXE: &str = env!("CARGO_BIN_EXE_convoy_follower");
const FRESH_S: f64 = 0.5;
const GRACE_S: f64 = 1.5;
/// Seq numbers skipped when the packets come back.
const SKIPPED: u32 = 4;

fn lead_packet(seq: u32) -> [u8; 28] {
    ConvoyPacket {
        rover_id: 1,
        seq,
        t_ms: seq * 200,
        x_m: 3.0,
        y_m: 0.0,
        heading_rad: 0.0,
        speed_mps: 0.0,
    }
    .encode()
}

/// The follower's odometry: 0.2 m behind its formation point (1.5 m behind and 0.4 m left of
/// the lead at (3, 0)), within the 0.3 m gap tolerance.
fn follower_odometry() -> Odometry {
    let mut odom = Odometry::default();
    odom.pose.pose.position.x = 1.3;
    odom.pose.pose.position.y = 0.4;
    odom.pose.pose.orientation.w = 1.0;
    odom
}

/// What the peer saw.
#[derive(Debug, Default)]
struct Observed {
    /// Watchdog states with the time each was received.
    states: Vec<(WatchdogState, Instant)>,
    /// Commands with the state in force when each was received.
    commands: Vec<(Option<WatchdogState>, Twist)>,
    /// The commands received while no packets were sent.
    outage_commands: Vec<(Option<WatchdogState>, f64)>,
    last_packet_before_outage: Option<Instant>,
    link_stats: Option<serde_json::Value>,
}

impl Observed {
    fn state(&self) -> Option<WatchdogState> {
        self.states.last().map(|(s, _)| *s)
    }

    fn first(&self, state: WatchdogState, after: Instant) -> Option<Instant> {
        self.states
            .iter()
            .find(|(s, t)| *s == state && *t >= after)
            .map(|(_, t)| *t)
    }
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Phase {
    /// Packets flow until FOLLOW with a forward command.
    Following,
    /// No packets until SAFE_STOP and a zero command.
    Outage,
    /// Packets again (seq jumped) until FOLLOW after REJOIN.
    Restored,
}

#[test]
fn follows_holds_stops_and_rejoins_as_the_packets_come_and_go() {
    fieldproof_testkit::contain_or_return!();
    let port = {
        let probe = UdpSocket::bind("127.0.0.1:0").unwrap();
        probe.local_addr().unwrap().port()
    };
    let dir = tempfile::tempdir().unwrap();
    let csv_path = dir.path().join("convoy.csv");
    let domain = 65;
    let mut node = NodeProc::start(
        EXE,
        domain,
        &[
            format!("udp_port:={port}"),
            format!("csv_path:={}", csv_path.display()),
            format!("fresh_s:={FRESH_S}"),
            format!("grace_s:={GRACE_S}"),
        ],
    );
    let sender = UdpSocket::bind("127.0.0.1:0").unwrap();
    sender.connect(("127.0.0.1", port)).unwrap();

    let mut seen = Observed::default();
    let seen_ref = &mut seen;
    fieldproof_runtime::run_on_domain("convoy_peer", domain, |node| async move {
        let odom_pub = node.publisher::<Odometry>("odom", qos::default())?;
        let cmd_sub = node.subscription::<Twist>("cmd_vel", qos::default())?;
        let state_sub = node.subscription::<std_msgs::String>(
            "convoy/watchdog_state",
            qos::latched().keep_last(10),
        )?;
        let stats_sub =
            node.subscription::<std_msgs::String>("convoy/link_stats", qos::default())?;
        let start = Instant::now();
        let mut phase = Phase::Following;
        let mut seq = 0u32;
        let mut ticks = 0u64;
        let mut outage_start = start;
        let mut restored_at = start;
        let mut last_sent = start;
        loop {
            assert!(
                start.elapsed() < Duration::from_secs(40),
                "{phase:?}: {seen_ref:#?}"
            );
            futures::select! {
                _ = FutureExt::fuse(smol::Timer::after(Duration::from_millis(50))) => {
                    ticks += 1;
                    odom_pub.publish(follower_odometry())?;
                    if ticks % 4 == 0 && phase != Phase::Outage {
                        seq += 1;
                        sender.send(&lead_packet(seq))?;
                        last_sent = Instant::now();
                        if phase == Phase::Restored && ticks % 8 == 0 {
                            sender.send(&lead_packet(seq))?; // a duplicate
                            sender.send(b"not a convoy packet")?;
                        }
                    }
                }
                m = state_sub.recv().fuse() => {
                    let name = m?.data;
                    let state = WatchdogState::parse(&name).unwrap_or_else(|| panic!("state {name:?}"));
                    seen_ref.states.push((state, Instant::now()));
                }
                m = cmd_sub.recv().fuse() => {
                    let state = seen_ref.state();
                    let command = m?;
                    if phase == Phase::Outage {
                        seen_ref.outage_commands.push((state, command.linear.x));
                    }
                    seen_ref.commands.push((state, command));
                }
                m = stats_sub.recv().fuse() => {
                    seen_ref.link_stats = Some(serde_json::from_str(&m?.data)?);
                }
            }
            let last_command = seen_ref.commands.last().map(|(_, c)| c.linear.x);
            match phase {
                Phase::Following => {
                    if seen_ref.state() == Some(WatchdogState::Follow)
                        && last_command.is_some_and(|x| x > 0.0)
                    {
                        phase = Phase::Outage;
                        outage_start = Instant::now();
                        seen_ref.last_packet_before_outage = Some(last_sent);
                    }
                }
                Phase::Outage => {
                    if seen_ref.state() == Some(WatchdogState::SafeStop)
                        && last_command == Some(0.0)
                        && outage_start.elapsed() > Duration::from_secs_f64(GRACE_S)
                    {
                        phase = Phase::Restored;
                        seq += SKIPPED;
                        restored_at = Instant::now();
                    }
                }
                Phase::Restored => {
                    if seen_ref.first(WatchdogState::Follow, restored_at).is_some()
                        && seen_ref.link_stats.as_ref().is_some_and(|s| {
                            s["duplicates"].as_u64() >= Some(1)
                                && s["bad_packets"].as_u64() >= Some(1)
                        })
                    {
                        return Ok(());
                    }
                }
            }
        }
    }).expect("peer run");
    node.stop();

    let outage = seen.last_packet_before_outage.unwrap();
    // Each state searched from the one before it (REJOIN and FOLLOW also came at the start).
    let first = |state, after| {
        seen.first(state, after)
            .unwrap_or_else(|| panic!("no {state} after the outage: {seen:#?}"))
    };
    let hold_t = first(WatchdogState::Hold, outage);
    let stop_t = first(WatchdogState::SafeStop, hold_t);
    let rejoin_t = first(WatchdogState::Rejoin, stop_t);
    let follow_t = first(WatchdogState::Follow, rejoin_t);
    let [hold_s, stop_s, rejoin_s, follow_s] =
        [hold_t, stop_t, rejoin_t, follow_t].map(|t| t.duration_since(outage).as_secs_f64());
    eprintln!("HOLD {hold_s:.2} s, SAFE_STOP {stop_s:.2} s, REJOIN {rejoin_s:.2} s, FOLLOW {follow_s:.2} s after the last packet");
    // Generous bounds: a packet interval, a control cycle and DDS delivery on top.
    assert!(
        (FRESH_S - 0.1..FRESH_S + 0.8).contains(&hold_s),
        "HOLD after {hold_s} s"
    );
    assert!(
        (GRACE_S - 0.1..GRACE_S + 0.8).contains(&stop_s),
        "SAFE_STOP after {stop_s} s"
    );
    assert!(hold_s < stop_s && stop_s < rejoin_s && rejoin_s <= follow_s);

    // Commands: forward in FOLLOW; during the outage never rising in HOLD and SAFE_STOP, zero
    // once stopped.
    assert!(seen
        .commands
        .iter()
        .any(|(s, c)| *s == Some(WatchdogState::Follow) && c.linear.x > 0.0));
    let stopping: Vec<f64> = seen
        .outage_commands
        .iter()
        .filter(|(s, _)| matches!(s, Some(WatchdogState::Hold | WatchdogState::SafeStop)))
        .map(|(_, x)| *x)
        .collect();
    assert!(
        stopping.windows(2).all(|w| w[1] <= w[0] + 1e-9),
        "{stopping:?}"
    );
    assert_eq!(stopping.last(), Some(&0.0), "{stopping:?}");
    assert!(seen
        .commands
        .iter()
        .all(|(_, c)| c.non_finite_field().is_none()));

    // Link stats: the gap, the duplicate, the bad datagram.
    let stats = seen.link_stats.clone().unwrap();
    assert_eq!(
        stats["seq_gaps"].as_u64(),
        Some(u64::from(SKIPPED)),
        "{stats}"
    );
    assert!(stats["duplicates"].as_u64() >= Some(1), "{stats}");
    assert!(stats["bad_packets"].as_u64() >= Some(1), "{stats}");

    // The CSV: one row per control cycle, every state, the gap counted.
    let rows = read_log(std::fs::File::open(&csv_path).unwrap()).unwrap();
    assert!(rows.len() > 20, "{} rows", rows.len());
    assert!(rows.windows(2).all(|w| w[1].t_s > w[0].t_s));
    let mean_cycle_s = (rows.last().unwrap().t_s - rows[0].t_s) / (rows.len() - 1) as f64;
    assert!(
        (0.08..0.13).contains(&mean_cycle_s),
        "{mean_cycle_s} s per row"
    );
    for state in WatchdogState::ALL {
        assert!(rows.iter().any(|r| r.state == state), "no {state} row");
    }
    assert_eq!(rows.last().unwrap().seq_gaps, u64::from(SKIPPED));
    assert!(rows
        .iter()
        .all(|r| r.lead_dist_m.is_none() || r.lead_dist_m.unwrap() > 1.5));
}

#[test]
fn settings_that_cannot_work_stop_the_node_naming_the_field_and_value() {
    fieldproof_testkit::contain_or_return!();
    let mut node = NodeProc::start(EXE, 68, &["fresh_s:=2.0".into(), "grace_s:=1.0".into()]);
    let status = node.wait_exit(Duration::from_secs(15));
    assert_eq!(status.code(), Some(1));
    assert_eq!(
        node.stderr.count("grace_s: 1"),
        1,
        "{:?}",
        node.stderr.all()
    );
    assert_eq!(
        node.stderr.count("fresh_s (2)"),
        1,
        "{:?}",
        node.stderr.all()
    );
}
