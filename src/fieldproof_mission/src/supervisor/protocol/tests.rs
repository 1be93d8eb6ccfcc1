use super::*;
use proptest::prelude::*;

/// A valid frame at `now` with every stamp at `now`.
fn frame(sequence: u64, now: f64) -> Frame {
    Frame {
        sequence,
        now,
        imu_stamp: now,
        gnss_stamp: now,
        vision_stamp: now,
        link_stamp: now,
        battery: 0.8,
        position: [1.5, -2.25, 10.0],
        target: [20.0, 30.0, 10.0],
        inference_ms: 35.5,
        complete: false,
    }
}

/// The line of `frame(7, 12.5)` with field `index` (1-based) replaced by `text`.
fn line_with(index: usize, text: &str) -> String {
    let line = frame(7, 12.5).to_line();
    let mut fields: Vec<&str> = line.split(' ').collect();
    fields[index - 1] = text;
    fields.join(" ")
}

#[test]
fn mode_names_round_trip_and_latch() {
    for mode in Mode::ALL {
        assert_eq!(mode.as_str().parse::<Mode>(), Ok(mode));
        assert_eq!(mode.to_string(), mode.as_str());
    }
    assert_eq!(Mode::Hold.as_str(), "HOLD");
    assert!(Mode::Land.is_latched() && Mode::Complete.is_latched());
    assert!(!Mode::Init.is_latched() && !Mode::Active.is_latched() && !Mode::Hold.is_latched());
    let error = "hold".parse::<Mode>().unwrap_err();
    assert!(error.to_string().contains("\"hold\""), "{error}");
}

#[test]
fn frame_line_has_15_fields_in_wire_order() {
    let mut sample = frame(7, 12.5);
    sample.complete = true;
    assert_eq!(
        sample.to_line(),
        "7 12.5 12.5 12.5 12.5 12.5 0.8 1.5 -2.25 10 20 30 10 35.5 1"
    );
}

#[test]
fn frame_parse_reads_what_to_line_wrote() {
    let sample = frame(3, 0.15);
    assert_eq!(Frame::parse(&sample.to_line()), Ok(sample.clone()));
    // A trailing newline or CR and runs of whitespace are accepted.
    let padded = format!("  {}\r\n", sample.to_line().replace(' ', "  \t"));
    assert_eq!(Frame::parse(&padded), Ok(sample));
}

#[test]
fn frame_rejects_wrong_field_counts() {
    let line = frame(1, 1.0).to_line();
    let error = Frame::parse(&format!("{line} 0")).unwrap_err();
    assert_eq!(error, FrameError::FieldCount { count: 16 });
    assert!(
        error.to_string().contains("16 fields, expected 15"),
        "{error}"
    );
    let short: Vec<&str> = line.split(' ').take(14).collect();
    assert_eq!(
        Frame::parse(&short.join(" ")),
        Err(FrameError::FieldCount { count: 14 })
    );
    assert_eq!(Frame::parse(""), Err(FrameError::FieldCount { count: 0 }));
}

#[test]
fn frame_rejects_a_bad_sequence() {
    for bad in ["-1", "1.5", "x", "18446744073709551616"] {
        let error = Frame::parse(&line_with(1, bad)).unwrap_err();
        assert!(
            matches!(error, FrameError::Syntax { index: 1, .. }),
            "{bad}: {error}"
        );
        assert!(
            error.to_string().starts_with("field 1 (sequence)"),
            "{error}"
        );
    }
}

#[test]
fn frame_rejects_text_where_a_number_belongs() {
    let error = Frame::parse(&line_with(8, "east")).unwrap_err();
    assert_eq!(
        error.to_string(),
        "field 8 (pos_e): \"east\" is not a number"
    );
}

#[test]
fn frame_rejects_non_finite_numbers_in_every_numeric_field() {
    for index in 2..=14 {
        for bad in ["nan", "inf", "-inf", "NaN", "infinity"] {
            let error = Frame::parse(&line_with(index, bad)).unwrap_err();
            assert!(
                matches!(error, FrameError::NonFinite { index: i, .. } if i == index),
                "field {index} = {bad}: {error}"
            );
            assert!(error.to_string().contains("is not finite"), "{error}");
        }
    }
}

#[test]
fn frame_rejects_battery_outside_0_1() {
    let error = Frame::parse(&line_with(7, "1.5")).unwrap_err();
    assert_eq!(error.to_string(), "field 7 (battery): 1.5 is not in [0, 1]");
    assert!(Frame::parse(&line_with(7, "-0.01")).is_err());
    assert!(Frame::parse(&line_with(7, "0")).is_ok());
    assert!(Frame::parse(&line_with(7, "1")).is_ok());
}

#[test]
fn frame_rejects_negative_stamps() {
    for index in 3..=6 {
        let error = Frame::parse(&line_with(index, "-0.5")).unwrap_err();
        assert_eq!(
            error.to_string(),
            format!(
                "field {index} ({}): -0.5 is not in [0, now = 12.5]",
                FRAME_FIELDS[index - 1]
            )
        );
    }
}

#[test]
fn frame_rejects_stamps_after_now() {
    for index in 3..=6 {
        let error = Frame::parse(&line_with(index, "12.55")).unwrap_err();
        assert!(
            matches!(error, FrameError::OutOfRange { index: i, value, .. } if i == index && value == 12.55),
            "{error}"
        );
    }
    // A stamp equal to now is fresh, not in the future.
    assert!(Frame::parse(&line_with(4, "12.5")).is_ok());
}

#[test]
fn frame_rejects_a_negative_time() {
    let line = "1 -0.5 0 0 0 0 0.5 0 0 0 0 0 0 0 0";
    let error = Frame::parse(line).unwrap_err();
    assert_eq!(error.to_string(), "field 2 (now): -0.5 is not in [0, inf)");
}

#[test]
fn frame_rejects_negative_inference_duration() {
    let error = Frame::parse(&line_with(14, "-1")).unwrap_err();
    assert_eq!(
        error.to_string(),
        "field 14 (inference_ms): -1 is not in [0, inf)"
    );
}

#[test]
fn frame_rejects_complete_other_than_0_or_1() {
    for bad in ["2", "true", "0.0", "-1"] {
        let error = Frame::parse(&line_with(15, bad)).unwrap_err();
        assert_eq!(
            error.to_string(),
            format!("field 15 (complete): {bad:?} is not 0 or 1")
        );
    }
}

#[test]
fn frame_validate_checks_frames_built_in_code() {
    let mut sample = frame(1, 2.0);
    sample.target[2] = f64::NAN;
    assert!(matches!(
        sample.validate(),
        Err(FrameError::NonFinite { index: 13, .. })
    ));
}

#[test]
fn command_line_is_fixed_format() {
    let command = Command {
        sequence: 42,
        mode: Mode::Land,
        reason: "gnss_stale".into(),
        velocity: [0.0, -0.0, -0.5],
    };
    assert_eq!(
        command.to_line(),
        "42 LAND gnss_stale 0.000000 0.000000 -0.500000"
    );
    let tiny = Command {
        velocity: [-1e-9, 1.0 / 3.0, 2.0],
        ..command
    };
    assert_eq!(
        tiny.to_line(),
        "42 LAND gnss_stale 0.000000 0.333333 2.000000"
    );
}

#[test]
fn command_parse_reads_what_to_line_wrote() {
    let command = Command {
        sequence: 9,
        mode: Mode::Active,
        reason: "healthy".into(),
        velocity: [1.25, -0.5, 0.125],
    };
    assert_eq!(
        Command::parse(&format!("{}\n", command.to_line())),
        Ok(command)
    );
}

#[test]
fn command_rejects_malformed_lines() {
    assert_eq!(
        Command::parse("1 HOLD healthy 0 0"),
        Err(CommandError::FieldCount { count: 5 })
    );
    let error = Command::parse("1 hover healthy 0 0 0").unwrap_err();
    assert!(
        error.to_string().starts_with("field 2 (mode): \"hover\""),
        "{error}"
    );
    let error = Command::parse("1 HOLD Gnss-Stale 0 0 0").unwrap_err();
    assert!(error.to_string().starts_with("field 3 (reason)"), "{error}");
    let error = Command::parse("1 HOLD healthy 0 x 0").unwrap_err();
    assert_eq!(
        error.to_string(),
        "field 5 (velocity_n): \"x\" is not a number"
    );
    let error = Command::parse("1 HOLD healthy 0 0 nan").unwrap_err();
    assert!(
        matches!(error, CommandError::NonFinite { index: 6, .. }),
        "{error}"
    );
    let error = Command::parse("-3 HOLD healthy 0 0 0").unwrap_err();
    assert!(
        matches!(error, CommandError::Syntax { index: 1, .. }),
        "{error}"
    );
}

#[test]
fn enu_to_ned_swaps_east_north_and_negates_up() {
    assert_eq!(enu_to_ned([1.0, 2.0, 3.0]), [2.0, 1.0, -3.0]);
    assert_eq!(enu_to_ned([0.0, 0.0, -0.5]), [0.0, 0.0, 0.5]);
    // Applying it twice gives the vector back (the swap is its own inverse).
    assert_eq!(enu_to_ned(enu_to_ned([4.0, -5.0, 6.0])), [4.0, -5.0, 6.0]);
}

/// Any finite f64.
fn finite() -> impl Strategy<Value = f64> {
    any::<f64>().prop_filter("finite", |v| v.is_finite())
}

proptest! {
    #[test]
    fn any_valid_frame_round_trips_bit_for_bit(
        sequence in any::<u64>(),
        now in 0.0..1e9_f64,
        stamp_fractions in proptest::array::uniform4(0.0..=1.0_f64),
        battery in 0.0..=1.0_f64,
        position in proptest::array::uniform3(finite()),
        target in proptest::array::uniform3(finite()),
        inference_ms in 0.0..1e6_f64,
        complete in any::<bool>(),
    ) {
        let [imu, gnss, vision, link] = stamp_fractions.map(|f| f * now);
        let sample = Frame {
            sequence, now, imu_stamp: imu, gnss_stamp: gnss, vision_stamp: vision,
            link_stamp: link, battery, position, target, inference_ms, complete,
        };
        let parsed = Frame::parse(&sample.to_line()).unwrap();
        prop_assert_eq!(parsed.to_line(), sample.to_line());
        for (a, b) in parsed.numbers().iter().zip(sample.numbers().iter()) {
            prop_assert_eq!(a.to_bits(), b.to_bits());
        }
        prop_assert_eq!(parsed, sample);
    }

    #[test]
    fn frame_parse_never_panics_on_arbitrary_text(line in "\\PC{0,200}") {
        let _ = Frame::parse(&line);
    }

    #[test]
    fn frame_parse_never_panics_on_near_miss_lines(
        fields in proptest::collection::vec(
            prop_oneof!["-?[0-9]{1,4}(\\.[0-9]{1,3})?", Just("nan".to_string()), Just("1e999".to_string())],
            13..17,
        )
    ) {
        if let Ok(parsed) = Frame::parse(&fields.join(" ")) {
            prop_assert!(parsed.validate().is_ok());
        }
    }

    #[test]
    fn command_parse_never_panics_and_round_trips(line in "\\PC{0,80}") {
        if let Ok(command) = Command::parse(&line) {
            prop_assert!(command.velocity.iter().all(|v| v.is_finite()));
            prop_assert!(Command::parse(&command.to_line()).is_ok());
        }
    }
}
