use super::*;
use proptest::prelude::*;

const STEP_S: f64 = 0.05;

/// A healthy frame at step `index` (time `index x 0.05 s`, sequence `index + 1`), hovering at
/// 10 m with the target 20 m east.
fn healthy(index: u64) -> Frame {
    let now = index as f64 * STEP_S;
    Frame {
        sequence: index + 1,
        now,
        imu_stamp: now,
        gnss_stamp: now,
        vision_stamp: now,
        link_stamp: now,
        battery: 0.9,
        position: [0.0, 0.0, 10.0],
        target: [20.0, 0.0, 10.0],
        inference_ms: 40.0,
        complete: false,
    }
}

/// `healthy(index)` with the GNSS fix 1 s old (stale under the defaults).
fn gnss_stale(index: u64) -> Frame {
    let mut frame = healthy(index);
    frame.gnss_stamp = (frame.now - 1.0).max(0.0);
    frame
}

fn policy() -> Policy {
    Policy::new(PolicyConfig::default()).unwrap()
}

/// Steps `policy` through `frames`, returning each command's mode and reason.
fn run(policy: &mut Policy, frames: impl IntoIterator<Item = Frame>) -> Vec<(Mode, String)> {
    frames
        .into_iter()
        .map(|frame| {
            let command = policy.step(&frame).unwrap();
            assert_eq!(command.sequence, frame.sequence);
            (command.mode, command.reason)
        })
        .collect()
}

/// A policy brought to ACTIVE by 1 s of health (frames 0..=20); the next free index is 21.
fn active_policy() -> Policy {
    let mut policy = policy();
    run(&mut policy, (0..=20).map(healthy));
    assert_eq!(policy.mode(), Mode::Active);
    policy
}

fn step(policy: &mut Policy, frame: Frame) -> Command {
    policy.step(&frame).unwrap()
}

#[test]
fn reasons_are_wire_tokens() {
    for reason in Reason::ALL {
        assert!(
            crate::supervisor::protocol::is_reason_token(reason.as_str()),
            "{reason:?}"
        );
    }
}

#[test]
fn init_holds_zero_velocity_during_the_healthy_dwell() {
    let mut policy = policy();
    for index in 0..20 {
        let command = step(&mut policy, healthy(index));
        assert_eq!(
            (command.mode, command.reason.as_str()),
            (Mode::Init, "init_dwell")
        );
        assert_eq!(command.velocity, [0.0; 3]);
    }
}

#[test]
fn init_to_active_after_one_second_healthy() {
    let mut policy = policy();
    let modes = run(&mut policy, (0..=20).map(healthy));
    assert_eq!(modes[19].0, Mode::Init, "0.95 s of health is not enough");
    assert_eq!(modes[20], (Mode::Active, "healthy".to_string()));
}

#[test]
fn init_dwell_counts_from_the_first_healthy_sample() {
    let mut policy = policy();
    // The first frame comes at 5 s: the dwell ends at 6 s, not at 1 s.
    let modes = run(&mut policy, (100..=120).map(healthy));
    assert_eq!(modes[19].0, Mode::Init);
    assert_eq!(modes[20].0, Mode::Active);
}

#[test]
fn init_to_hold_on_an_unhealthy_sample() {
    let mut policy = policy();
    step(&mut policy, healthy(0));
    let command = step(&mut policy, gnss_stale(30));
    assert_eq!(
        (command.mode, command.reason.as_str()),
        (Mode::Hold, "gnss_stale")
    );
    assert_eq!(command.velocity, [0.0; 3]);
    assert_eq!(policy.episode_start(), Some(1.5));
}

#[test]
fn active_to_hold_on_each_sensor_and_latency_fault() {
    type Breaker = fn(&mut Frame);
    let cases: [(&str, Breaker); 5] = [
        ("imu_stale", |f| f.imu_stamp = f.now - 0.3),
        ("gnss_stale", |f| f.gnss_stamp = f.now - 0.6),
        ("vision_stale", |f| f.vision_stamp = f.now - 0.6),
        ("link_stale", |f| f.link_stamp = f.now - 1.05),
        ("inference_slow", |f| f.inference_ms = 120.0),
    ];
    for (reason, breaker) in cases {
        let mut policy = active_policy();
        let mut frame = healthy(21);
        breaker(&mut frame);
        let command = step(&mut policy, frame);
        assert_eq!(
            (command.mode, command.reason.as_str()),
            (Mode::Hold, reason)
        );
        assert_eq!(command.velocity, [0.0; 3]);
        assert_eq!(policy.episode_start(), Some(21.0 * STEP_S));
    }
}

#[test]
fn a_stamp_exactly_at_its_limit_is_fresh() {
    let mut policy = active_policy();
    let mut frame = healthy(21);
    frame.imu_stamp = frame.now - 0.25;
    frame.gnss_stamp = frame.now - 0.5;
    frame.inference_ms = 100.0;
    assert_eq!(step(&mut policy, frame).mode, Mode::Active);
}

#[test]
fn faults_are_reported_in_a_fixed_order() {
    let mut policy = active_policy();
    let mut frame = healthy(21);
    frame.link_stamp = 0.0;
    frame.gnss_stamp = 0.0;
    frame.inference_ms = 500.0;
    assert_eq!(step(&mut policy, frame).reason, "gnss_stale");
}

#[test]
fn without_vision_its_freshness_and_inference_are_ignored() {
    let config = PolicyConfig {
        vision_required: false,
        ..PolicyConfig::default()
    };
    let mut policy = Policy::new(config).unwrap();
    let frames = (0..=21).map(|index| {
        let mut frame = healthy(index);
        frame.vision_stamp = 0.0;
        frame.inference_ms = 1000.0;
        frame
    });
    let modes = run(&mut policy, frames);
    assert_eq!(modes[20].0, Mode::Active);
    assert_eq!(modes[21].0, Mode::Active);
    // The link still counts.
    let mut frame = healthy(22);
    frame.link_stamp = 0.0;
    assert_eq!(step(&mut policy, frame).reason, "link_stale");
}

#[test]
fn hold_to_active_after_the_recovery_dwell() {
    let mut policy = active_policy();
    step(&mut policy, gnss_stale(21));
    // Healthy from 1.10 s: recovering until 2.10 s, ACTIVE then (episode age 1.05 s < 2 s).
    let modes = run(&mut policy, (22..=42).map(healthy));
    assert!(modes[..20]
        .iter()
        .all(|(mode, reason)| *mode == Mode::Hold && reason == "recovering"));
    assert_eq!(modes[20], (Mode::Active, "healthy".to_string()));
    assert!(
        policy.episode_start().is_some(),
        "the episode stays open after recovery"
    );
}

#[test]
fn a_new_fault_in_hold_restarts_the_recovery_dwell() {
    let mut policy = active_policy();
    step(&mut policy, gnss_stale(21));
    run(&mut policy, (22..=30).map(healthy));
    let command = step(&mut policy, gnss_stale(31));
    assert_eq!(
        (command.mode, command.reason.as_str()),
        (Mode::Hold, "gnss_stale")
    );
    assert_eq!(policy.episode_start(), Some(21.0 * STEP_S), "same episode");
    // Healthy from 1.60 s: only 0.95 s of health at 2.55 s, still HOLD.
    let modes = run(&mut policy, (32..=51).map(healthy));
    assert_eq!(modes.last().unwrap().0, Mode::Hold);
}

#[test]
fn hold_to_land_when_a_sustained_fault_episode_reaches_two_seconds() {
    let mut policy = active_policy();
    // Episode from 1.05 s: HOLD through 3.00 s, LAND at 3.05 s.
    let modes = run(&mut policy, (21..=60).map(gnss_stale));
    assert!(modes.iter().all(|(mode, _)| *mode == Mode::Hold));
    let command = step(&mut policy, gnss_stale(61));
    assert_eq!(
        (command.mode, command.reason.as_str()),
        (Mode::Land, "fault_episode")
    );
    assert_eq!(command.velocity, [0.0, 0.0, -0.5]);
}

#[test]
fn hold_to_land_when_recovery_comes_too_late_in_the_episode() {
    let mut policy = active_policy();
    // Faulty 1.05..=2.25 s, healthy from 2.30 s: recovery would be at 3.30 s, but the
    // episode is 2 s old at 3.05 s.
    run(&mut policy, (21..=45).map(gnss_stale));
    let modes = run(&mut policy, (46..=61).map(healthy));
    assert_eq!(modes[14].0, Mode::Hold);
    assert_eq!(modes[15], (Mode::Land, "fault_episode".to_string()));
}

#[test]
fn a_fault_after_recovery_within_the_episode_lands_directly() {
    let mut policy = active_policy();
    step(&mut policy, gnss_stale(21)); // the episode starts at 1.05 s
    let modes = run(&mut policy, (22..=60).map(healthy)); // 1.10..=3.00 s: 1.90 s of health
    assert_eq!(modes.last().unwrap().0, Mode::Active);
    assert!(policy.episode_start().is_some());
    // The next dropout, at 3.05 s, is in the same episode, now 2 s old: LAND at once.
    let command = step(&mut policy, gnss_stale(61));
    assert_eq!(
        (command.mode, command.reason.as_str()),
        (Mode::Land, "fault_episode")
    );
}

#[test]
fn a_fault_episode_ends_after_two_seconds_of_continuous_health() {
    let mut policy = active_policy();
    step(&mut policy, gnss_stale(21));
    // Healthy from 1.10 s: the episode ends at 3.10 s.
    run(&mut policy, (22..=61).map(healthy));
    assert!(policy.episode_start().is_some(), "1.95 s of health");
    step(&mut policy, healthy(62));
    assert_eq!(policy.episode_start(), None, "2.00 s of health");
    // A new fault starts a new episode: HOLD, not LAND.
    let command = step(&mut policy, gnss_stale(63));
    assert_eq!(
        (command.mode, command.reason.as_str()),
        (Mode::Hold, "gnss_stale")
    );
    assert_eq!(policy.episode_start(), Some(63.0 * STEP_S));
}

#[test]
fn flapping_health_escalates_to_land_instead_of_alternating() {
    let mut policy = active_policy();
    // 0.1 s dropouts every 0.5 s from 1.05 s.
    let frames = (21..200).map(|index| {
        if (index - 21) % 10 < 2 {
            gnss_stale(index)
        } else {
            healthy(index)
        }
    });
    let modes = run(&mut policy, frames);
    let first_land = modes
        .iter()
        .position(|(mode, _)| *mode == Mode::Land)
        .unwrap();
    assert_eq!(modes[first_land].1, "fault_episode");
    // LAND when the episode (from 1.05 s) is 2 s old: 3.05 s, frame index 61.
    assert_eq!(first_land + 21, 61);
    assert!(modes[..first_land]
        .iter()
        .all(|(mode, _)| *mode == Mode::Hold));
}

#[test]
fn mutation_without_the_episode_rule_flapping_alternates_forever() {
    // The mutation the scenarios' proof uses: recovery without the 2 s episode rule.
    let config = PolicyConfig {
        episode_s: 1e9,
        ..PolicyConfig::default()
    };
    let mut policy = Policy::new(config).unwrap();
    run(&mut policy, (0..=20).map(healthy));
    // 0.2 s dropouts every 1.5 s: HOLD, recovery, ACTIVE, again, never LAND.
    let frames = (21..400).map(|index| {
        if (index - 21) % 30 < 4 {
            gnss_stale(index)
        } else {
            healthy(index)
        }
    });
    let modes = run(&mut policy, frames);
    assert!(modes.iter().all(|(mode, _)| *mode != Mode::Land));
    let entries_into_active = modes
        .windows(2)
        .filter(|pair| pair[0].0 == Mode::Hold && pair[1].0 == Mode::Active)
        .count();
    assert!(entries_into_active > 10, "{entries_into_active}");
    // The same input with the rule lands.
    let mut policy = active_policy();
    let frames = (21..400).map(|index| {
        if (index - 21) % 30 < 4 {
            gnss_stale(index)
        } else {
            healthy(index)
        }
    });
    assert!(run(&mut policy, frames)
        .iter()
        .any(|(mode, reason)| *mode == Mode::Land && reason == "fault_episode"));
}

#[test]
fn mutation_without_a_battery_floor_an_empty_battery_flies_on() {
    let config = PolicyConfig {
        battery_floor: 0.0,
        ..PolicyConfig::default()
    };
    let mut policy = Policy::new(config).unwrap();
    run(&mut policy, (0..=20).map(healthy));
    let mut frame = healthy(21);
    frame.battery = 0.0;
    assert_eq!(step(&mut policy, frame.clone()).mode, Mode::Active);
    let mut policy = active_policy();
    assert_eq!(step(&mut policy, frame).reason, "battery_low");
}

#[test]
fn active_to_complete_when_the_goal_is_accepted() {
    let mut policy = active_policy();
    let mut frame = healthy(21);
    frame.complete = true;
    let command = step(&mut policy, frame);
    assert_eq!(
        (command.mode, command.reason.as_str()),
        (Mode::Complete, "goal_reached")
    );
    assert_eq!(command.velocity, [0.0; 3]);
}

#[test]
fn a_fault_takes_precedence_over_the_goal_flag() {
    let mut policy = active_policy();
    let mut frame = gnss_stale(21);
    frame.complete = true;
    assert_eq!(step(&mut policy, frame).mode, Mode::Hold);
}

#[test]
fn the_goal_flag_is_not_accepted_in_init_or_hold() {
    let mut policy = policy();
    let mut frame = healthy(0);
    frame.complete = true;
    assert_eq!(step(&mut policy, frame).mode, Mode::Init);
    step(&mut policy, gnss_stale(30));
    let mut frame = healthy(31);
    frame.complete = true;
    assert_eq!(step(&mut policy, frame).mode, Mode::Hold);
}

#[test]
fn complete_is_latched_within_limits() {
    let mut policy = active_policy();
    let mut frame = healthy(21);
    frame.complete = true;
    step(&mut policy, frame);
    // Stale sensors, a slow inference, a cleared goal flag: still COMPLETE, stationary.
    for index in 22..200 {
        let mut frame = gnss_stale(index);
        frame.imu_stamp = 0.0;
        frame.inference_ms = 900.0;
        let command = step(&mut policy, frame);
        assert_eq!(
            (command.mode, command.reason.as_str()),
            (Mode::Complete, "goal_reached")
        );
        assert_eq!(command.velocity, [0.0; 3]);
    }
}

#[test]
fn complete_to_land_on_a_hard_limit() {
    let mut policy = active_policy();
    let mut frame = healthy(21);
    frame.complete = true;
    step(&mut policy, frame);
    let mut frame = healthy(22);
    frame.battery = 0.1;
    let command = step(&mut policy, frame);
    assert_eq!(
        (command.mode, command.reason.as_str()),
        (Mode::Land, "battery_low")
    );
}

/// The policy brought to `mode` (INIT, ACTIVE or HOLD), with the next free frame index.
fn policy_in(mode: Mode) -> (Policy, u64) {
    match mode {
        Mode::Init => {
            let mut policy = policy();
            step(&mut policy, healthy(0));
            (policy, 1)
        }
        Mode::Active => (active_policy(), 21),
        Mode::Hold => {
            let mut policy = active_policy();
            step(&mut policy, gnss_stale(21));
            (policy, 22)
        }
        other => unreachable!("{other}"),
    }
}

#[test]
fn any_state_to_land_on_each_hard_limit() {
    type Breaker = fn(&mut Frame);
    let cases: [(&str, Breaker); 4] = [
        ("geofence", |f| f.position = [120.0, -95.0, 10.0]),
        ("geofence", |f| f.position = [0.0, 150.5, 10.0]),
        ("ceiling", |f| f.position[2] = 50.1),
        ("battery_low", |f| f.battery = 0.19),
    ];
    for start in [Mode::Init, Mode::Active, Mode::Hold] {
        for (reason, breaker) in cases {
            let (mut policy, index) = policy_in(start);
            let mut frame = healthy(index);
            breaker(&mut frame);
            let command = step(&mut policy, frame);
            assert_eq!(
                (command.mode, command.reason.as_str()),
                (Mode::Land, reason),
                "from {start}"
            );
            assert_eq!(command.velocity, [0.0, 0.0, -0.5]);
        }
    }
}

#[test]
fn hard_limits_are_inclusive_of_their_boundary() {
    let (mut policy, index) = policy_in(Mode::Active);
    let mut frame = healthy(index);
    frame.position = [150.0, 0.0, 50.0];
    frame.battery = 0.2;
    assert_eq!(step(&mut policy, frame).mode, Mode::Active);
}

#[test]
fn a_hard_limit_outranks_a_sensor_fault() {
    let (mut policy, index) = policy_in(Mode::Active);
    let mut frame = gnss_stale(index);
    frame.battery = 0.05;
    assert_eq!(step(&mut policy, frame).reason, "battery_low");
}

#[test]
fn land_is_latched_and_keeps_descending_at_zero_altitude() {
    let (mut policy, index) = policy_in(Mode::Active);
    let mut frame = healthy(index);
    frame.battery = 0.1;
    step(&mut policy, frame);
    for (offset, altitude) in [5.0, 0.0, -0.4, 0.0].into_iter().enumerate() {
        let mut frame = healthy(index + 1 + offset as u64);
        frame.position[2] = altitude;
        frame.complete = true;
        let command = step(&mut policy, frame);
        assert_eq!(
            (command.mode, command.reason.as_str()),
            (Mode::Land, "battery_low")
        );
        assert_eq!(command.velocity, [0.0, 0.0, -0.5]);
    }
}

#[test]
fn land_descends_at_the_configured_speed() {
    let config = PolicyConfig {
        descent_mps: 0.7,
        ..PolicyConfig::default()
    };
    let mut policy = Policy::new(config).unwrap();
    let mut frame = healthy(0);
    frame.position[2] = 51.0;
    assert_eq!(step(&mut policy, frame).velocity, [0.0, 0.0, -0.7]);
}

#[test]
fn active_flies_toward_the_target_at_the_speed_bound() {
    let (mut policy, index) = policy_in(Mode::Active);
    let mut frame = healthy(index);
    frame.position = [0.0, 0.0, 10.0];
    frame.target = [30.0, 40.0, 10.0];
    let command = step(&mut policy, frame);
    assert_eq!(command.mode, Mode::Active);
    let [east, north, up] = command.velocity;
    assert!((east - 1.2).abs() < 1e-12 && (north - 1.6).abs() < 1e-12 && up == 0.0);
    assert!((command.speed() - 2.0).abs() < 1e-12);
}

#[test]
fn active_slows_near_the_target_and_stops_inside_the_acceptance() {
    let (mut policy, index) = policy_in(Mode::Active);
    let mut frame = healthy(index);
    frame.position = [10.0, 0.0, 10.0];
    frame.target = [10.0, 0.0, 11.0];
    let command = step(&mut policy, frame);
    assert!((command.velocity[2] - 1.0).abs() < 1e-12, "{command:?}");
    let mut frame = healthy(index + 1);
    frame.position = [10.0, 0.0, 10.0];
    frame.target = [10.2, 0.0, 10.0];
    let command = step(&mut policy, frame);
    assert_eq!((command.mode, command.velocity), (Mode::Active, [0.0; 3]));
}

#[test]
fn active_setpoint_stays_finite_for_extreme_targets() {
    let (mut policy, index) = policy_in(Mode::Active);
    let mut frame = healthy(index);
    frame.position = [0.0, 0.0, -f64::MAX];
    frame.target = [f64::MAX, f64::MAX, f64::MAX];
    let command = step(&mut policy, frame);
    assert_eq!(command.mode, Mode::Active);
    assert!(
        command.velocity.iter().all(|v| v.is_finite()),
        "{command:?}"
    );
    assert!((command.speed() - 2.0).abs() < 1e-12, "{command:?}");
    assert!(command.velocity.iter().all(|v| *v > 0.0), "{command:?}");
}

#[test]
fn a_replayed_sequence_is_rejected_and_changes_nothing() {
    let (mut policy, index) = policy_in(Mode::Active);
    let mut replay = healthy(index);
    replay.sequence = index; // the previous frame's sequence
    let error = policy.step(&replay).unwrap_err();
    assert_eq!(
        error,
        FrameError::SequenceNotIncreasing {
            sequence: index,
            previous: index
        }
    );
    assert!(
        error
            .to_string()
            .starts_with("field 1 (sequence): 21 is not greater"),
        "{error}"
    );
    replay.sequence = 3;
    assert!(policy.step(&replay).is_err());
    assert_eq!(policy.mode(), Mode::Active);
    assert_eq!(step(&mut policy, healthy(index)).mode, Mode::Active);
}

#[test]
fn a_time_that_does_not_increase_is_rejected() {
    let (mut policy, index) = policy_in(Mode::Active);
    let mut frame = healthy(index);
    frame.now = (index - 1) as f64 * STEP_S;
    frame.imu_stamp = frame.now;
    frame.gnss_stamp = frame.now;
    frame.vision_stamp = frame.now;
    frame.link_stamp = frame.now;
    let error = policy.step(&frame).unwrap_err();
    assert!(
        matches!(error, FrameError::TimeNotIncreasing { .. }),
        "{error}"
    );
    assert!(
        error
            .to_string()
            .starts_with("field 2 (now): 1 is not greater"),
        "{error}"
    );
}

#[test]
fn an_invalid_frame_built_in_code_is_rejected() {
    let (mut policy, index) = policy_in(Mode::Hold);
    let mut frame = healthy(index);
    frame.battery = 1.5;
    let error = policy.step(&frame).unwrap_err();
    assert_eq!(error.to_string(), "field 7 (battery): 1.5 is not in [0, 1]");
    assert_eq!(policy.mode(), Mode::Hold);
}

#[test]
fn the_first_frame_may_have_any_sequence_and_time() {
    let mut policy = policy();
    let mut frame = healthy(0);
    frame.sequence = 0;
    assert_eq!(step(&mut policy, frame).sequence, 0);
}

#[test]
fn an_invalid_config_is_refused() {
    let config = PolicyConfig {
        descent_mps: 0.2,
        ..PolicyConfig::default()
    };
    assert_eq!(Policy::new(config).unwrap_err().field, "descent_mps");
}

/// One randomly generated frame, relative to the previous: a time step, which sources are
/// stale, where the vehicle is, the battery, the goal flag.
#[derive(Debug, Clone)]
struct RandomFrame {
    sequence_step: u64,
    time_step: f64,
    stale: [bool; 4],
    inference_ms: f64,
    position: [f64; 3],
    target: [f64; 3],
    battery: f64,
    complete: bool,
}

fn random_frame() -> impl Strategy<Value = RandomFrame> {
    (
        1..3_u64,
        prop_oneof![Just(STEP_S), 0.001..0.5_f64],
        proptest::array::uniform4(proptest::bool::weighted(0.03)),
        prop_oneof![19 => 0.0..100.0_f64, 1 => 100.0..200.0_f64],
        prop_oneof![
            49 => (-100.0..100.0_f64, -100.0..100.0_f64, 0.0..45.0_f64),
            1 => (-200.0..200.0_f64, -200.0..200.0_f64, -10.0..80.0_f64),
        ],
        proptest::array::uniform3(-1e4..1e4_f64),
        prop_oneof![49 => 0.2..=1.0_f64, 1 => 0.0..0.2_f64],
        proptest::bool::weighted(0.05),
    )
        .prop_map(
            |(
                sequence_step,
                time_step,
                stale,
                inference_ms,
                position,
                target,
                battery,
                complete,
            )| {
                RandomFrame {
                    sequence_step,
                    time_step,
                    stale,
                    inference_ms,
                    position: [position.0, position.1, position.2],
                    target,
                    battery,
                    complete,
                }
            },
        )
}

/// Turns random increments into a valid frame sequence.
fn frames_from(random: &[RandomFrame]) -> Vec<Frame> {
    let (mut sequence, mut now) = (0_u64, 0.0_f64);
    random
        .iter()
        .map(|r| {
            sequence += r.sequence_step;
            now += r.time_step;
            let stamp = |stale: bool| if stale { (now - 5.0).max(0.0) } else { now };
            Frame {
                sequence,
                now,
                imu_stamp: stamp(r.stale[0]),
                gnss_stamp: stamp(r.stale[1]),
                vision_stamp: stamp(r.stale[2]),
                link_stamp: stamp(r.stale[3]),
                battery: r.battery,
                position: r.position,
                target: r.target,
                inference_ms: r.inference_ms,
                complete: r.complete,
            }
        })
        .collect()
}

proptest! {
    #[test]
    fn latched_modes_stay_latched_and_speed_stays_bounded(
        random in proptest::collection::vec(random_frame(), 1..300),
        vision_required in any::<bool>(),
    ) {
        let config = PolicyConfig { vision_required, ..PolicyConfig::default() };
        let mut policy = Policy::new(config.clone()).unwrap();
        let mut previous: Option<Command> = None;
        for frame in frames_from(&random) {
            let command = policy.step(&frame).unwrap();
            prop_assert_eq!(command.sequence, frame.sequence);
            prop_assert!(command.velocity.iter().all(|v| v.is_finite()));
            match command.mode {
                Mode::Land => prop_assert_eq!(command.velocity, [0.0, 0.0, -config.descent_mps]),
                Mode::Active => prop_assert!(command.speed() <= config.max_speed_mps * (1.0 + 1e-12)),
                Mode::Init | Mode::Hold | Mode::Complete => prop_assert_eq!(command.velocity, [0.0; 3]),
            }
            if let Some(previous) = &previous {
                if previous.mode == Mode::Land {
                    prop_assert_eq!(command.mode, Mode::Land);
                    prop_assert_eq!(&command.reason, &previous.reason);
                }
                if previous.mode == Mode::Complete {
                    let hard = ["geofence", "ceiling", "battery_low"];
                    prop_assert!(command.mode == Mode::Complete
                        || (command.mode == Mode::Land && hard.contains(&command.reason.as_str())),
                        "{:?} after COMPLETE", command);
                }
            }
            previous = Some(command);
        }
    }

    #[test]
    fn a_rejected_frame_changes_nothing(
        random in proptest::collection::vec(random_frame(), 2..100),
        replay_at in any::<prop::sample::Index>(),
    ) {
        let frames = frames_from(&random);
        let mut policy = Policy::new(PolicyConfig::default()).unwrap();
        let replay_at = replay_at.index(frames.len() - 1);
        for (position, frame) in frames.iter().enumerate() {
            policy.step(frame).unwrap();
            if position >= replay_at {
                // Every earlier frame is now a replay.
                let mode = policy.mode();
                prop_assert!(policy.step(&frames[replay_at]).is_err());
                prop_assert_eq!(policy.mode(), mode);
            }
        }
    }

    #[test]
    fn flapping_health_within_the_episode_always_reaches_land(
        runs in proptest::collection::vec((1..12_u64, 1..=40_u64, 0..5_usize), 1..40),
        initial_healthy in 40..100_u64,
    ) {
        // Health alternates: an unhealthy run of 1 to 11 frames (one source stale), then a
        // healthy run of 1 to 40 frames (at most 1.95 s, so the episode never ends).
        let mut pattern: Vec<Option<usize>> = vec![None; initial_healthy as usize];
        for (unhealthy, healthy_frames, source) in &runs {
            pattern.extend(std::iter::repeat_n(Some(*source), *unhealthy as usize));
            pattern.extend(std::iter::repeat_n(None, *healthy_frames as usize));
        }
        let frames: Vec<Frame> = pattern.iter().enumerate().map(|(index, fault)| {
            let mut frame = healthy(index as u64);
            match fault {
                Some(0) => frame.imu_stamp = (frame.now - 1.0).max(0.0),
                Some(1) => frame.gnss_stamp = (frame.now - 1.0).max(0.0),
                Some(2) => frame.vision_stamp = (frame.now - 1.0).max(0.0),
                Some(3) => frame.link_stamp = (frame.now - 2.0).max(0.0),
                Some(_) => frame.inference_ms = 150.0,
                None => {}
            }
            frame
        }).collect();
        // Faults start after 2 s, so every stale stamp above is older than its limit. LAND
        // must come by the first unhealthy frame 2 s or more after the episode's start.
        let mut policy = Policy::new(PolicyConfig::default()).unwrap();
        let commands: Vec<Command> = frames.iter().map(|f| policy.step(f).unwrap()).collect();
        let first_unhealthy = pattern.iter().position(Option::is_some).unwrap();
        let episode_start = frames[first_unhealthy].now;
        let deadline = pattern.iter().enumerate().position(|(index, fault)| {
            fault.is_some() && frames[index].now + TIME_EPSILON_S >= episode_start + 2.0
        });
        prop_assume!(deadline.is_some());
        let deadline = deadline.unwrap();
        let first_land = commands.iter().position(|c| c.mode == Mode::Land);
        prop_assert!(first_land.is_some_and(|land| land <= deadline),
            "LAND at {:?}, deadline {}", first_land, deadline);
        prop_assert_eq!(&commands[first_land.unwrap()].reason, "fault_episode");
    }
}
