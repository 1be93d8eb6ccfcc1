//! `supervisor_core` as a process: frames on stdin, one command per frame on stdout, exit 2
//! with the reason on stderr and no answer for a rejected frame, and the golden traces under
//! `tests/golden/` replayed byte for byte (see `tests/golden/README.md` to regenerate them).
//! No DDS here: the binary opens no participant.

use std::io::{BufRead, BufReader, Write};
use std::path::PathBuf;
use std::process::{Command, Output, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use fieldproof_mission::supervisor::{Command as Answer, Frame, Mode};
use fieldproof_testkit::ChildGuard;

const BINARY: &str = env!("CARGO_BIN_EXE_supervisor_core");

fn golden(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/golden")
        .join(name)
}

/// Runs the binary with `args`, `input` on stdin, to its exit.
fn run(args: &[&str], input: &[u8]) -> Output {
    let mut child = Command::new(BINARY)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("supervisor_core starts");
    let mut stdin = child.stdin.take().unwrap();
    let input = input.to_vec();
    // A rejected frame ends the process early: a broken pipe here is expected.
    let writer = std::thread::spawn(move || {
        let _ = stdin.write_all(&input);
    });
    let output = child.wait_with_output().unwrap();
    writer.join().unwrap();
    output
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8(bytes.to_vec()).unwrap()
}

/// A valid frame line at `now` (all stamps `now`), hovering at 10 m, target 20 m east.
fn frame(sequence: u64, now: f64) -> Frame {
    Frame {
        sequence,
        now,
        imu_stamp: now,
        gnss_stamp: now,
        vision_stamp: now,
        link_stamp: now,
        battery: 0.9,
        position: [0.0, 0.0, 10.0],
        target: [20.0, 0.0, 10.0],
        inference_ms: 30.0,
        complete: false,
    }
}

/// Three valid frames then `bad`, then one more valid frame.
fn input_with(bad: &str) -> String {
    let mut input: String = (1..=3)
        .map(|i| frame(i, i as f64 * 0.05).to_line() + "\n")
        .collect();
    input.push_str(bad);
    input.push('\n');
    input.push_str(&frame(10, 1.0).to_line());
    input.push('\n');
    input
}

#[test]
fn end_of_input_exits_0() {
    let output = run(&[], b"");
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    assert!(output.stdout.is_empty() && output.stderr.is_empty());
    let input: String = (1..=5)
        .map(|i| frame(i, i as f64).to_line() + "\n")
        .collect();
    let output = run(&[], input.as_bytes());
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    assert_eq!(text(&output.stdout).lines().count(), 5);
}

#[test]
fn every_rejection_exits_2_naming_the_field_without_answering_the_frame() {
    let replay = frame(2, 0.5).to_line();
    let time_backwards = frame(4, 0.1).to_line();
    let mut future_stamp = frame(4, 0.2);
    future_stamp.gnss_stamp = 0.25;
    let cases: Vec<(String, &str)> = vec![
        (
            replay,
            "line 4: field 1 (sequence): 2 is not greater than the previous frame's 3",
        ),
        (
            time_backwards,
            "line 4: field 2 (now): 0.1 is not greater than the previous frame's 0.15",
        ),
        (
            future_stamp.to_line(),
            "line 4: field 4 (gnss_stamp): 0.25 is not in [0, now = 0.2]",
        ),
        (
            "4 0.2 0.2 0.2 0.2 0.2 1.5 0 0 10 20 0 10 30 0".into(),
            "field 7 (battery): 1.5 is not in [0, 1]",
        ),
        (
            "4 0.2 0.2 0.2 0.2 0.2 0.9 0 0 10 20 0 10 30 0 7".into(),
            "frame has 16 fields, expected 15",
        ),
        (
            "4 0.2 0.2 0.2 0.2 0.2 0.9 0 0 10 20 0 10 30".into(),
            "frame has 14 fields, expected 15",
        ),
        (
            "4 0.2 0.2 0.2 0.2 0.2 0.9 nan 0 10 20 0 10 30 0".into(),
            "field 8 (pos_e): NaN is not finite",
        ),
        (
            "4 0.2 0.2 0.2 0.2 0.2 0.9 0 0 10 20 0 inf 30 0".into(),
            "field 13 (target_u): inf is not finite",
        ),
        (
            "4 0.2 -0.1 0.2 0.2 0.2 0.9 0 0 10 20 0 10 30 0".into(),
            "field 3 (imu_stamp): -0.1 is not in [0, now = 0.2]",
        ),
        (
            "4 0.2 0.2 0.2 0.2 0.2 0.9 0 0 10 20 0 10 30 2".into(),
            "field 15 (complete): \"2\" is not 0 or 1",
        ),
        (
            "4 0.2 0.2 0.2 0.2 0.2 0.9 0 0 10 20 0 10 -5 0".into(),
            "field 14 (inference_ms): -5 is not in [0, inf)",
        ),
        (
            "x 0.2 0.2 0.2 0.2 0.2 0.9 0 0 10 20 0 10 30 0".into(),
            "field 1 (sequence): \"x\" is not an unsigned integer",
        ),
        ("".into(), "line 4: frame has 0 fields"),
    ];
    for (bad, expected) in cases {
        let output = run(&[], input_with(&bad).as_bytes());
        let stderr = text(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{bad:?}: {stderr}");
        assert!(
            stderr.contains(expected),
            "{bad:?}: stderr {stderr:?}, expected {expected:?}"
        );
        let answers: Vec<Answer> = text(&output.stdout)
            .lines()
            .map(|line| Answer::parse(line).unwrap())
            .collect();
        let sequences: Vec<u64> = answers.iter().map(|a| a.sequence).collect();
        assert_eq!(
            sequences,
            [1, 2, 3],
            "{bad:?}: only the frames before the bad one are answered"
        );
    }
}

#[test]
fn each_frame_is_answered_before_the_next_is_sent() {
    let mut child = ChildGuard::new(
        Command::new(BINARY)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap(),
    );
    let mut stdin = child.stdin.take().unwrap();
    let stdout = child.stdout.take().unwrap();
    let (sender, answers) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            let Ok(line) = line else { break };
            if sender.send(line).is_err() {
                break;
            }
        }
    });
    for sequence in 1..=25 {
        writeln!(
            stdin,
            "{}",
            frame(sequence, sequence as f64 * 0.05).to_line()
        )
        .unwrap();
        stdin.flush().unwrap();
        // Generous: only a binary that never answers (an unflushed answer) fails here.
        let answer = answers.recv_timeout(Duration::from_secs(60)).unwrap();
        assert_eq!(Answer::parse(&answer).unwrap().sequence, sequence);
    }
    drop(stdin);
    assert_eq!(child.wait().unwrap().code(), Some(0));
}

#[test]
fn help_lists_every_threshold_with_its_default() {
    let output = run(&["--help"], b"");
    assert_eq!(output.status.code(), Some(0));
    let help = text(&output.stdout);
    // One entry per option: its line and the description lines under it.
    let mut entries: Vec<String> = Vec::new();
    for line in help.lines() {
        if line.trim_start().starts_with('-') {
            entries.push(line.trim().to_string());
        } else if let Some(entry) = entries.last_mut() {
            entry.push(' ');
            entry.push_str(line.trim());
        }
    }
    for (flag, default) in [
        ("--init-dwell-s", "1"),
        ("--episode-s", "2"),
        ("--recovery-dwell-s", "1"),
        ("--imu-max-age-s", "0.25"),
        ("--gnss-max-age-s", "0.5"),
        ("--vision-max-age-s", "0.5"),
        ("--link-max-age-s", "1"),
        ("--inference-max-ms", "100"),
        ("--battery-floor", "0.2"),
        ("--geofence-radius-m", "150"),
        ("--ceiling-m", "50"),
        ("--max-speed-mps", "2"),
        ("--approach-gain-per-s", "1"),
        ("--goal-acceptance-m", "0.3"),
        ("--descent-mps", "0.5"),
        ("--vision-required", "true"),
    ] {
        let entry = entries
            .iter()
            .find(|entry| entry.starts_with(&format!("{flag} ")))
            .unwrap_or_else(|| panic!("{flag} missing from --help:\n{help}"));
        assert!(
            entry.contains(&format!("[default: {default}]")),
            "{flag}: {entry}"
        );
    }
}

#[test]
fn an_unusable_threshold_exits_2_naming_it() {
    let output = run(&["--descent-mps", "0.9"], b"");
    assert_eq!(output.status.code(), Some(2));
    assert!(
        text(&output.stderr).contains("supervisor.descent_mps: 0.9 is not in [0.3, 0.7]"),
        "{}",
        text(&output.stderr)
    );
    let output = run(&["--recovery-dwell-s", "3"], b"");
    assert_eq!(output.status.code(), Some(2));
    assert!(text(&output.stderr).contains("recovery_dwell_s: 3 is not < episode_s (2)"));
}

#[test]
fn thresholds_from_flags_change_the_decisions() {
    // A camera that never delivers: HOLD with vision required, ACTIVE without it.
    let input: String = (0..=25)
        .map(|i| {
            let mut frame = frame(i + 1, i as f64 * 0.05);
            frame.vision_stamp = 0.0;
            frame.to_line() + "\n"
        })
        .collect();
    let last_mode = |args: &[&str]| {
        let output = run(args, input.as_bytes());
        assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
        let stdout = text(&output.stdout);
        Answer::parse(stdout.lines().last().unwrap()).unwrap()
    };
    let required = last_mode(&[]);
    assert_eq!(
        (required.mode, required.reason.as_str()),
        (Mode::Hold, "vision_stale")
    );
    assert_eq!(
        last_mode(&["--vision-required", "false"]).mode,
        Mode::Active
    );
    let slow = last_mode(&["--vision-required", "false", "--max-speed-mps", "0.5"]);
    assert_eq!(slow.velocity, [0.5, 0.0, 0.0]);
}

/// Replays `tests/golden/<name>.in` through the binary and compares with `<name>.out`.
fn replay_golden(name: &str) -> Vec<Answer> {
    let input = std::fs::read(golden(&format!("{name}.in"))).unwrap();
    let expected = std::fs::read_to_string(golden(&format!("{name}.out"))).unwrap();
    let output = run(&[], &input);
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    let actual = text(&output.stdout);
    if actual != expected {
        let first = actual
            .lines()
            .zip(expected.lines())
            .position(|(a, e)| a != e)
            .map_or("a line count".to_string(), |line| {
                format!("line {}", line + 1)
            });
        panic!(
            "{name}: the binary's answers differ from {name}.out at {first}; if the policy changed \
             on purpose, regenerate as tests/golden/README.md says and review the diff"
        );
    }
    assert_eq!(
        actual.lines().count(),
        String::from_utf8(input).unwrap().lines().count(),
        "one answer per frame"
    );
    actual
        .lines()
        .map(|line| Answer::parse(line).unwrap())
        .collect()
}

/// Asserts the modes of `answers`, repeats collapsed, each with its first reason.
fn assert_timeline(answers: &[Answer], expected: &[(Mode, &str)]) {
    let mut timeline: Vec<(Mode, &str)> = Vec::new();
    for answer in answers {
        if timeline.last().map(|(mode, _)| *mode) != Some(answer.mode) {
            timeline.push((answer.mode, &answer.reason));
        }
    }
    assert_eq!(timeline, expected);
}

#[test]
fn golden_nominal_replays_byte_for_byte() {
    let answers = replay_golden("nominal");
    assert_timeline(
        &answers,
        &[
            (Mode::Init, "init_dwell"),
            (Mode::Active, "healthy"),
            (Mode::Complete, "goal_reached"),
        ],
    );
}

#[test]
fn golden_flapping_gnss_replays_byte_for_byte_and_lands() {
    let answers = replay_golden("flapping_gnss");
    let expected = [
        (Mode::Init, "init_dwell"),
        (Mode::Active, "healthy"),
        (Mode::Hold, "gnss_stale"),
        (Mode::Active, "healthy"),
        (Mode::Hold, "gnss_stale"),
        (Mode::Land, "fault_episode"),
    ];
    assert_timeline(&answers, &expected);
    // LAND descends at 0.5 m/s to the end of the trace, past the estimate's touchdown.
    let land = answers.iter().position(|a| a.mode == Mode::Land).unwrap();
    assert!(answers[land..]
        .iter()
        .all(|a| a.velocity == [0.0, 0.0, -0.5]));
}

/// One closed-loop run for the golden inputs: the vehicle follows each answer perfectly for
/// one 0.05 s step (the ground stops it), sensors on their robots/quad_ref rates.
struct Flight {
    start: [f64; 3],
    target: [f64; 3],
    /// Windows `[from, to)` of simulation time, in ms, in which GNSS fixes are lost.
    gnss_dropouts: Vec<(u64, u64)>,
    /// Seconds to keep going after the first latched mode.
    after_latch_s: f64,
    /// Or after the estimate touched the ground in LAND.
    after_touchdown_s: f64,
}

impl Flight {
    /// Drives the binary frame by frame and returns (frames, answers) as lines.
    fn fly(&self) -> (String, String) {
        let mut child = ChildGuard::new(
            Command::new(BINARY)
                .stdin(Stdio::piped())
                .stdout(Stdio::piped())
                .spawn()
                .unwrap(),
        );
        let mut stdin = child.stdin.take().unwrap();
        let mut stdout = BufReader::new(child.stdout.take().unwrap());
        let (mut frames, mut answers) = (String::new(), String::new());
        let mut position = self.start;
        let mut gnss_stamp_ms = 0_u64;
        let mut latched_at_ms: Option<u64> = None;
        let mut touchdown_at_ms: Option<u64> = None;
        for step in 1_u64.. {
            let now_ms = step * 50;
            let seconds = |ms: u64| ms as f64 / 1000.0;
            let lost = self
                .gnss_dropouts
                .iter()
                .any(|(from, to)| (*from..*to).contains(&now_ms));
            if now_ms % 100 == 0 && !lost {
                gnss_stamp_ms = now_ms;
            }
            let frame = Frame {
                sequence: step,
                now: seconds(now_ms),
                imu_stamp: seconds(now_ms),
                gnss_stamp: seconds(gnss_stamp_ms),
                vision_stamp: seconds(now_ms / 100 * 100),
                link_stamp: seconds(now_ms / 200 * 200),
                battery: 0.95 - seconds(now_ms) * 0.001,
                position: position.map(|p| (p * 1000.0).round() / 1000.0),
                target: self.target,
                inference_ms: 30.0 + (step % 4) as f64 * 2.5,
                complete: distance(position, self.target) < 0.5,
            };
            let line = frame.to_line();
            writeln!(stdin, "{line}").unwrap();
            stdin.flush().unwrap();
            let mut answer = String::new();
            stdout.read_line(&mut answer).unwrap();
            let command = Answer::parse(&answer).unwrap();
            frames.push_str(&line);
            frames.push('\n');
            answers.push_str(&answer);
            for (coordinate, speed) in position.iter_mut().zip(command.velocity) {
                *coordinate += speed * 0.05;
            }
            position[2] = position[2].max(0.0);
            if command.mode.is_latched() {
                latched_at_ms.get_or_insert(now_ms);
            }
            if command.mode == Mode::Land && position[2] == 0.0 {
                touchdown_at_ms.get_or_insert(now_ms);
            }
            let done_latched = latched_at_ms.is_some_and(|ms| {
                command.mode == Mode::Complete && seconds(now_ms - ms) >= self.after_latch_s
            });
            let done_touchdown =
                touchdown_at_ms.is_some_and(|ms| seconds(now_ms - ms) >= self.after_touchdown_s);
            if done_latched || done_touchdown || now_ms >= 60_000 {
                break;
            }
        }
        drop(stdin);
        assert_eq!(child.wait().unwrap().code(), Some(0));
        (frames, answers)
    }
}

fn distance(a: [f64; 3], b: [f64; 3]) -> f64 {
    (a[0] - b[0]).hypot(a[1] - b[1]).hypot(a[2] - b[2])
}

/// Rewrites the golden traces (run on purpose: see tests/golden/README.md).
#[test]
#[ignore = "writes tests/golden/*.in and *.out; run on purpose after a policy change"]
fn regenerate_golden_traces() {
    let nominal = Flight {
        start: [0.0, 0.0, 10.0],
        target: [12.0, 5.0, 10.0],
        gnss_dropouts: vec![],
        after_latch_s: 1.0,
        after_touchdown_s: 1.0,
    };
    // GNSS lost for 0.8 s every 1.6 s from 3 s: stale 0.3 s each time (limit 0.5 s), then
    // healthy long enough to recover (1 s) but not to end the episode (2 s).
    let flapping = Flight {
        start: [0.0, 0.0, 4.0],
        target: [60.0, 20.0, 4.0],
        gnss_dropouts: (0..8).map(|k| (3000 + 1600 * k, 3800 + 1600 * k)).collect(),
        after_latch_s: 1.0,
        after_touchdown_s: 1.0,
    };
    for (name, flight) in [("nominal", nominal), ("flapping_gnss", flapping)] {
        let (frames, answers) = flight.fly();
        std::fs::write(golden(&format!("{name}.in")), frames).unwrap();
        std::fs::write(golden(&format!("{name}.out")), answers).unwrap();
    }
}
