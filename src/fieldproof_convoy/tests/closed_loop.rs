//! The pure core in a closed loop, without DDS: a lead driving a gentle arc broadcasts packets at
//! 5 Hz through a link that drops everything for a blackout window; the follower (a unicycle
//! integrating its own commands at 10 Hz) decodes them, runs the watchdog and the controller,
//! and writes the CSV log; the analysis of that log must show the blackout the link made.

use fieldproof_convoy::analysis::analyse;
use fieldproof_convoy::csv_log::{read_log, CsvLogWriter, CsvRow};
use fieldproof_convoy::follow::{Cycle, FollowConfig, FollowController, LeadReport, Pose2D};
use fieldproof_convoy::packet::ConvoyPacket;
use fieldproof_convoy::watchdog::{Watchdog, WatchdogConfig, WatchdogState};

const CONTROL_DT_S: f64 = 0.1;
const PACKET_EVERY_CYCLES: u64 = 2; // 5 Hz
const LEAD_SPEED_MPS: f64 = 0.2;
const LEAD_YAW_RATE_RPS: f64 = 0.01;
const BLACKOUT_S: (f64, f64) = (20.0, 30.0);
const RUN_S: f64 = 80.0;
const SAFETY_DISTANCE_M: f64 = 1.0;

struct Run {
    rows: Vec<CsvRow>,
    csv: Vec<u8>,
    packets_dropped: u64,
    last_packet_before_blackout_s: f64,
}

fn integrate(pose: &mut Pose2D, speed_mps: f64, yaw_rate_rps: f64, dt_s: f64) {
    pose.x_m += speed_mps * pose.yaw_rad.cos() * dt_s;
    pose.y_m += speed_mps * pose.yaw_rad.sin() * dt_s;
    pose.yaw_rad += yaw_rate_rps * dt_s;
}

fn run(follow: FollowConfig) -> Run {
    let watchdog_config = WatchdogConfig::default();
    let mut watchdog = Watchdog::new(watchdog_config).unwrap();
    let mut controller = FollowController::new(follow).unwrap();
    let mut log = CsvLogWriter::new(Vec::new(), true).unwrap();
    let mut lead = Pose2D {
        x_m: 3.0,
        y_m: 0.0,
        yaw_rad: 0.0,
    };
    let mut follower = Pose2D::default();
    let mut newest: Option<LeadReport> = None;
    let mut seq = 0u32;
    let mut packets_dropped = 0;
    let mut last_packet_before_blackout_s = f64::NAN;
    let mut rows = Vec::new();
    let cycles = (RUN_S / CONTROL_DT_S).round() as u64;
    for cycle in 0..=cycles {
        let now_s = cycle as f64 * CONTROL_DT_S;
        if cycle % PACKET_EVERY_CYCLES == 0 {
            seq += 1;
            let bytes = ConvoyPacket {
                rover_id: 1,
                seq,
                t_ms: (now_s * 1e3) as u32,
                x_m: lead.x_m as f32,
                y_m: lead.y_m as f32,
                heading_rad: lead.yaw_rad as f32,
                speed_mps: LEAD_SPEED_MPS as f32,
            }
            .encode();
            if (BLACKOUT_S.0..BLACKOUT_S.1).contains(&now_s) {
                packets_dropped += 1;
            } else {
                if now_s < BLACKOUT_S.0 {
                    last_packet_before_blackout_s = now_s;
                }
                let packet = ConvoyPacket::decode(&bytes).unwrap();
                if watchdog.on_packet(packet.seq, now_s).accepted() {
                    newest = Some(LeadReport::from_packet(&packet));
                }
            }
        }
        let Cycle {
            state,
            packet_age_s: age,
            gap_error_m,
            command,
        } = controller.cycle(&mut watchdog, newest, follower, now_s, CONTROL_DT_S);
        let row = CsvRow {
            t_s: now_s,
            seq_gaps: watchdog.stats().seq_gaps,
            rssi_dbm: None,
            pkt_age_s: age,
            gap_err_m: gap_error_m,
            state,
            lead_dist_m: Some((lead.x_m - follower.x_m).hypot(lead.y_m - follower.y_m)),
        };
        log.write_row(&row).unwrap();
        rows.push(row);
        integrate(
            &mut follower,
            command.linear_mps,
            command.angular_rps,
            CONTROL_DT_S,
        );
        integrate(&mut lead, LEAD_SPEED_MPS, LEAD_YAW_RATE_RPS, CONTROL_DT_S);
    }
    Run {
        rows,
        csv: log.into_inner(),
        packets_dropped,
        last_packet_before_blackout_s,
    }
}

fn first_t(rows: &[CsvRow], after_s: f64, state: WatchdogState) -> f64 {
    rows.iter()
        .find(|row| row.t_s >= after_s && row.state == state)
        .map(|row| row.t_s)
        .unwrap_or_else(|| panic!("no {state} row from t = {after_s}"))
}

#[test]
fn a_blackout_holds_stops_rejoins_and_recovers_and_the_log_says_so() {
    let run = run(FollowConfig::default());
    let watchdog = WatchdogConfig::default();
    let last_packet = run.last_packet_before_blackout_s;

    // The watchdog's sequence, at the control cycle's resolution.
    let hold_t = first_t(&run.rows, BLACKOUT_S.0, WatchdogState::Hold);
    let stop_t = first_t(&run.rows, hold_t, WatchdogState::SafeStop);
    let rejoin_t = first_t(&run.rows, stop_t, WatchdogState::Rejoin);
    let follow_t = first_t(&run.rows, rejoin_t, WatchdogState::Follow);
    assert!(
        (hold_t - (last_packet + watchdog.fresh_s)).abs() < CONTROL_DT_S,
        "HOLD at {hold_t}"
    );
    assert!(
        (stop_t - (last_packet + watchdog.grace_s)).abs() < CONTROL_DT_S,
        "SAFE_STOP at {stop_t}"
    );
    assert!(
        (rejoin_t - BLACKOUT_S.1).abs() < CONTROL_DT_S,
        "REJOIN at {rejoin_t}"
    );
    assert!(follow_t > rejoin_t);

    // The log read back and analysed tells the same story.
    let rows = read_log(run.csv.as_slice()).unwrap();
    assert_eq!(rows.len(), run.rows.len());
    let analysis = analyse(&rows, watchdog.gap_tolerance_m).unwrap();
    // The numbers, for the record (`cargo test -- --nocapture`).
    eprintln!("{}", serde_json::to_string_pretty(&analysis).unwrap());
    assert_eq!(analysis.blackouts.len(), 1, "{analysis:#?}");
    let blackout = analysis.blackouts[0];
    assert_eq!(blackout.hold_start_t, Some(hold_t));
    assert_eq!(blackout.stop_start_t, stop_t);
    assert_eq!(blackout.restored_t, Some(rejoin_t));
    let recovery_s = blackout
        .recovery_s
        .expect("recovered before the end of the run");
    assert!(recovery_s > 0.0 && recovery_s <= follow_t - rejoin_t + CONTROL_DT_S);

    // Sequence gaps equal the packets the link dropped, one for one.
    assert_eq!(analysis.seq_gaps, run.packets_dropped);
    assert!(run.packets_dropped > 0);

    // The follower never came within the safety distance of the lead.
    let min_distance = analysis.min_lead_dist_m.unwrap().value;
    assert!(
        min_distance > SAFETY_DISTANCE_M,
        "closest approach {min_distance} m"
    );
    // And it ends in formation.
    assert_eq!(run.rows.last().unwrap().state, WatchdogState::Follow);
}

#[test]
fn commands_stay_within_their_caps_in_every_state() {
    let follow = FollowConfig::default();
    let run = run(follow);
    // Rebuild the speed from the log: in REJOIN the follower may close the gap at v_max / 2 at
    // most, so the lead distance cannot shrink faster than that plus the lead's speed.
    for pair in run.rows.windows(2) {
        let (Some(before), Some(after)) = (pair[0].lead_dist_m, pair[1].lead_dist_m) else {
            continue;
        };
        let closing_mps = (before - after) / CONTROL_DT_S;
        let cap = match pair[0].state {
            WatchdogState::Rejoin => follow.v_max_mps / 2.0,
            _ => follow.v_max_mps,
        };
        assert!(
            closing_mps <= cap + LEAD_SPEED_MPS + 1e-9,
            "t {}: closing at {closing_mps} m/s",
            pair[0].t_s
        );
    }
}

/// The mean gap error over the last `window_s` of a run.
fn settled_gap_error_m(run: &Run, window_s: f64) -> f64 {
    let end = run.rows.last().unwrap().t_s;
    let settled: Vec<f64> = run
        .rows
        .iter()
        .filter(|row| row.t_s > end - window_s)
        .filter_map(|row| row.gap_err_m)
        .collect();
    settled.iter().sum::<f64>() / settled.len() as f64
}

#[test]
fn the_spec_speed_law_lags_by_lead_speed_over_gain_and_feedforward_removes_it() {
    let spec_law = FollowConfig::default();
    let lag = settled_gap_error_m(&run(spec_law), 10.0);
    let expected_lag = LEAD_SPEED_MPS / spec_law.k_gap;
    assert!(
        (lag - expected_lag).abs() < 0.02,
        "settled gap error {lag} m, expected about {expected_lag} m"
    );
    let feedforward = FollowConfig {
        lead_speed_feedforward: true,
        ..spec_law
    };
    let residual = settled_gap_error_m(&run(feedforward), 10.0);
    assert!(
        residual.abs() < 0.05,
        "settled gap error with feed-forward {residual} m"
    );
}
