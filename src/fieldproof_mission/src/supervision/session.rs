//! One supervision session's decisions, cycle by cycle, free of DDS and of the pipe: which
//! frame to write, and what to publish for the core's answer or for an abort.
//!
//! - Frames are numbered 1, 2, … and written only while `now` strictly increases (the core
//!   refuses anything else, so a clock that stands still or goes back skips the cycle).
//! - An answer publishes its mode and reason when they change, and its velocity as the
//!   setpoint; an answer in `LAND` or `COMPLETE` publishes the mode once more and hands
//!   over: no setpoint, no further frame.
//! - An abort (the pipe failed, the child exited, a bad answer) publishes the reason
//!   `abort: <why>` with the mode as it was (published again, unchanged; none before the
//!   first answer), and ends the session: no further frame or
//!   setpoint. Nothing is ever made up in place of an answer.

use crate::supervisor::protocol::{Command, Frame, Mode};

use super::inputs::Inputs;

/// Where the session stands.
#[derive(Debug, Clone, PartialEq)]
pub enum State {
    /// Writing a frame each cycle.
    Running,
    /// Handed over in `LAND` or `COMPLETE`: no more frames or setpoints.
    HandedOver(Mode),
    /// Aborted: no more frames or setpoints.
    Aborted(String),
}

/// What to publish after one cycle.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Publish {
    /// `supervisor/mode`, when it changed (or at the hand-over).
    pub mode: Option<Mode>,
    /// `supervisor/reason`, when it changed.
    pub reason: Option<String>,
    /// `supervisor/setpoint` (ENU m/s), while running.
    pub setpoint: Option<[f64; 3]>,
}

/// Why a cycle writes no frame.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum Skip {
    /// The session ended (handed over or aborted).
    #[error("the session has ended")]
    Ended,
    /// The clock did not advance since the last frame (in the seconds a frame carries).
    #[error("the clock did not advance: now {now_ns} ns, last frame at {last_ns} ns")]
    ClockStill {
        /// This cycle's time.
        now_ns: i64,
        /// The last frame's time.
        last_ns: i64,
    },
}

/// The session (see the module documentation).
#[derive(Debug, Clone)]
pub struct Session {
    state: State,
    sequence: u64,
    /// The last frame's time: the clock's nanoseconds and the seconds written.
    last_now: Option<(i64, f64)>,
    mode: Option<Mode>,
    reason: Option<String>,
}

impl Default for Session {
    fn default() -> Self {
        Session::new()
    }
}

impl Session {
    /// A session before its first frame.
    pub fn new() -> Session {
        Session {
            state: State::Running,
            sequence: 0,
            last_now: None,
            mode: None,
            reason: None,
        }
    }

    /// Where it stands.
    pub fn state(&self) -> &State {
        &self.state
    }

    /// The last mode published, if any.
    pub fn mode(&self) -> Option<Mode> {
        self.mode
    }

    /// The next frame, from `inputs` at `now_ns`.
    pub fn next_frame(&mut self, inputs: &Inputs, now_ns: i64) -> Result<Frame, Skip> {
        if self.state != State::Running {
            return Err(Skip::Ended);
        }
        let frame = inputs.frame(self.sequence + 1, now_ns);
        // Compared as the core compares them: in seconds, as written on the wire.
        if let Some((last_ns, last_now)) = self.last_now {
            if frame.now <= last_now {
                return Err(Skip::ClockStill { now_ns, last_ns });
            }
        }
        self.sequence = frame.sequence;
        self.last_now = Some((now_ns, frame.now));
        Ok(frame)
    }

    /// The core's answer to the last frame (its sequence already checked).
    pub fn answer(&mut self, command: &Command) -> Publish {
        let mut out = Publish::default();
        if self.state != State::Running {
            return out;
        }
        if self.reason.as_deref() != Some(command.reason.as_str()) {
            self.reason = Some(command.reason.clone());
            out.reason = Some(command.reason.clone());
        }
        if command.mode.is_latched() {
            self.mode = Some(command.mode);
            out.mode = Some(command.mode);
            self.state = State::HandedOver(command.mode);
            return out;
        }
        if self.mode != Some(command.mode) {
            self.mode = Some(command.mode);
            out.mode = Some(command.mode);
        }
        out.setpoint = Some(command.velocity);
        out
    }

    /// Ends the session because of `why` (a transport failure, a bad answer, the child's
    /// exit): the reason `abort: <why>`, the mode again as it was, nothing more.
    pub fn abort(&mut self, why: &str) -> Publish {
        if self.state != State::Running {
            return Publish::default();
        }
        let reason = format!("abort: {why}");
        self.state = State::Aborted(why.to_string());
        self.reason = Some(reason.clone());
        Publish {
            mode: self.mode,
            reason: Some(reason),
            setpoint: None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: i64 = 1_000_000;

    fn command(sequence: u64, mode: Mode, reason: &str, velocity: [f64; 3]) -> Command {
        Command {
            sequence,
            mode,
            reason: reason.to_string(),
            velocity,
        }
    }

    #[test]
    fn frames_are_numbered_and_need_an_advancing_clock() {
        let inputs = Inputs::new();
        let mut s = Session::new();
        assert_eq!(s.next_frame(&inputs, 50 * MS).unwrap().sequence, 1);
        assert_eq!(s.next_frame(&inputs, 100 * MS).unwrap().sequence, 2);
        assert_eq!(
            s.next_frame(&inputs, 100 * MS),
            Err(Skip::ClockStill {
                now_ns: 100 * MS,
                last_ns: 100 * MS
            })
        );
        assert!(s.next_frame(&inputs, 20 * MS).is_err(), "time went back");
        let f = s.next_frame(&inputs, 150 * MS).unwrap();
        assert_eq!((f.sequence, f.now), (3, 0.15));
        // System time in nanoseconds since the epoch: 1 ns more is the same number of seconds
        // on the wire, which the core would refuse as time standing still.
        let epoch = 1_700_000_000_000_000_000;
        assert_eq!(s.next_frame(&inputs, epoch).unwrap().sequence, 4);
        assert!(matches!(
            s.next_frame(&inputs, epoch + 1),
            Err(Skip::ClockStill { .. })
        ));
        assert_eq!(s.next_frame(&inputs, epoch + 50 * MS).unwrap().sequence, 5);
    }

    proptest::proptest! {
        /// Whatever the clock does (standing still, going back, jumping, at epoch-sized
        /// times where nanoseconds outrun an f64's precision) and whatever the inputs, every
        /// frame written passes the core's own checks: valid alone, sequence and time
        /// strictly increasing, the wire line parsing back to the same frame.
        #[test]
        fn every_frame_written_is_one_the_core_accepts(
            clock in proptest::collection::vec(0i64..2_000_000_000_000_000_000, 1..60),
            stamps in proptest::collection::vec((0u8..4, -5_000_000_000i64..2_000_000_000_000_000_000, 0i64..2_000_000_000_000_000_000), 0..40),
            battery in proptest::num::f64::ANY,
            position in proptest::array::uniform3(proptest::num::f64::ANY),
            target in proptest::array::uniform3(proptest::num::f64::ANY),
        ) {
            let mut inputs = Inputs::new();
            for (source, stamp, receipt) in stamps {
                match source {
                    0 => inputs.imu(stamp, receipt),
                    1 => inputs.gnss(stamp, receipt),
                    2 => inputs.camera(stamp, receipt),
                    _ => inputs.heartbeat(receipt),
                }
            }
            let _ = inputs.battery(battery);
            let _ = inputs.position(position);
            let _ = inputs.target(target);
            let mut session = Session::new();
            let mut previous: Option<Frame> = None;
            for now_ns in clock {
                let Ok(frame) = session.next_frame(&inputs, now_ns) else { continue };
                proptest::prop_assert_eq!(frame.validate(), Ok(()));
                proptest::prop_assert_eq!(Frame::parse(&frame.to_line()), Ok(frame.clone()));
                if let Some(p) = &previous {
                    proptest::prop_assert!(frame.sequence > p.sequence);
                    proptest::prop_assert!(frame.now > p.now);
                }
                previous = Some(frame);
            }
        }
    }

    #[test]
    fn mode_and_reason_are_published_on_change_and_the_setpoint_every_cycle() {
        let mut s = Session::new();
        let p = s.answer(&command(1, Mode::Init, "warming_up", [0.0; 3]));
        assert_eq!(p.mode, Some(Mode::Init));
        assert_eq!(p.reason.as_deref(), Some("warming_up"));
        assert_eq!(p.setpoint, Some([0.0; 3]));
        let p = s.answer(&command(2, Mode::Init, "warming_up", [0.0; 3]));
        assert_eq!((p.mode, p.reason), (None, None));
        assert_eq!(p.setpoint, Some([0.0; 3]));
        let p = s.answer(&command(3, Mode::Active, "healthy", [1.0, 0.5, 0.2]));
        assert_eq!(p.mode, Some(Mode::Active));
        assert_eq!(p.setpoint, Some([1.0, 0.5, 0.2]));
        let p = s.answer(&command(4, Mode::Active, "gnss_stale", [0.0; 3]));
        assert_eq!(p.mode, None);
        assert_eq!(p.reason.as_deref(), Some("gnss_stale"));
        assert_eq!(s.mode(), Some(Mode::Active));
    }

    #[test]
    fn land_and_complete_hand_over_once_and_end_the_frames() {
        for latched in [Mode::Land, Mode::Complete] {
            let mut s = Session::new();
            let inputs = Inputs::new();
            s.next_frame(&inputs, 50 * MS).unwrap();
            s.answer(&command(1, Mode::Active, "healthy", [1.0, 0.0, 0.0]));
            s.next_frame(&inputs, 100 * MS).unwrap();
            let p = s.answer(&command(2, latched, "done", [0.0, 0.0, -0.5]));
            assert_eq!(p.mode, Some(latched));
            assert_eq!(p.setpoint, None, "no setpoint at the hand-over");
            assert_eq!(s.state(), &State::HandedOver(latched));
            assert_eq!(s.next_frame(&inputs, 150 * MS), Err(Skip::Ended));
            assert_eq!(
                s.answer(&command(3, latched, "done", [0.0; 3])),
                Publish::default()
            );
            assert_eq!(s.abort("late"), Publish::default());
        }
    }

    #[test]
    fn an_abort_before_any_answer_has_no_mode_to_repeat() {
        let mut s = Session::new();
        s.next_frame(&Inputs::new(), 50 * MS).unwrap();
        let p = s.abort("no answer to frame 1 within 3 s (wall clock)");
        assert_eq!(p.mode, None);
        assert_eq!(
            p.reason.as_deref(),
            Some("abort: no answer to frame 1 within 3 s (wall clock)")
        );
        assert_eq!(p.setpoint, None);
    }

    #[test]
    fn an_abort_says_why_keeps_the_mode_and_ends_the_frames() {
        let mut s = Session::new();
        let inputs = Inputs::new();
        s.next_frame(&inputs, 50 * MS).unwrap();
        s.answer(&command(1, Mode::Active, "healthy", [1.0, 0.0, 0.0]));
        let p = s.abort("supervisor_core exited with exit status: 2");
        assert_eq!(p.mode, Some(Mode::Active), "the mode, unchanged");
        assert_eq!(
            p.reason.as_deref(),
            Some("abort: supervisor_core exited with exit status: 2")
        );
        assert_eq!(p.setpoint, None);
        assert_eq!(s.mode(), Some(Mode::Active));
        assert!(matches!(s.state(), State::Aborted(_)));
        assert_eq!(s.next_frame(&inputs, 100 * MS), Err(Skip::Ended));
        assert_eq!(
            s.answer(&command(2, Mode::Active, "healthy", [1.0, 0.0, 0.0])),
            Publish::default(),
            "nothing after an abort"
        );
    }
}
