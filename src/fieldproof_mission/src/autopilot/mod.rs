//! `autopilot_stub`'s logic, as a pure state machine in simulation time: between the
//! supervisor's ENU velocity setpoints and the multirotor's body-frame `cmd_vel`, with its own
//! command watchdog and ownership of touchdown.
//!
//! - Setpoints (`supervisor/setpoint`, ENU m/s) are followed, rotated into the body frame by
//!   the vehicle's yaw ([`enu_to_body`]).
//! - The watchdog arms at the first setpoint: none for longer than
//!   [`Settings::setpoint_timeout_s`] → hold (zero velocity); none for
//!   [`Settings::land_timeout_s`] more → it lands on its own (descent at
//!   [`Settings::land_descent_mps`]). A setpoint during the hold resumes following.
//! - Mode `LAND` (`supervisor/mode`): it owns the descent; `COMPLETE`: stationary. Neither
//!   needs setpoints (the supervisor stops sending them when it hands over).
//! - A landing ends only when the simulator reports `landed` (not when an estimate reads zero
//!   altitude); then zero, latched: a landed stub flies again only after a restart.
//! - A command with a non-finite component never leaves: zero instead, and the offending field
//!   is reported ([`Twist::non_finite_field`]).

use fieldproof_msgs::geometry_msgs::{Twist, Vector3};

use crate::supervisor::protocol::Mode;

/// The watchdog's timings and the descent speed (simulation time).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Settings {
    /// Setpoints absent for longer than this → hold, s.
    pub setpoint_timeout_s: f64,
    /// Holding for longer than this (still no setpoint) → land on its own, s.
    pub land_timeout_s: f64,
    /// Descent speed while landing, m/s (positive).
    pub land_descent_mps: f64,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            setpoint_timeout_s: DEFAULT_SETPOINT_TIMEOUT_S,
            land_timeout_s: DEFAULT_LAND_TIMEOUT_S,
            land_descent_mps: DEFAULT_LAND_DESCENT_MPS,
        }
    }
}

/// Default [`Settings::setpoint_timeout_s`].
pub const DEFAULT_SETPOINT_TIMEOUT_S: f64 = 0.5;
/// Default [`Settings::land_timeout_s`].
pub const DEFAULT_LAND_TIMEOUT_S: f64 = 2.0;
/// Default [`Settings::land_descent_mps`] (inside the spec's [0.3, 0.7] m/s).
pub const DEFAULT_LAND_DESCENT_MPS: f64 = 0.5;

/// Who started a landing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LandCause {
    /// The stub's own watchdog (setpoints stopped).
    Watchdog,
    /// The supervisor's mode `LAND`.
    Supervisor,
}

/// What the stub is doing (published on `autopilot/status`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    /// No setpoint yet: zero velocity, the watchdog not armed.
    Waiting,
    /// Following the supervisor's setpoints.
    Following,
    /// Setpoints stopped: zero velocity.
    Holding,
    /// Descending until the simulator reports `landed`.
    Landing(LandCause),
    /// On the ground after a landing: zero, latched.
    Landed,
    /// The supervisor reported `COMPLETE`: stationary, latched.
    Complete,
}

impl Status {
    /// The status line, as published: `following`, `holding: no setpoint for 0.5 s`,
    /// `landing: watchdog`, `landing: supervisor LAND`, `landed`, `complete: holding position`
    /// (and `waiting: no setpoint yet` before the first setpoint).
    pub fn text(&self, settings: &Settings) -> String {
        match self {
            Status::Waiting => "waiting: no setpoint yet".into(),
            Status::Following => "following".into(),
            Status::Holding => {
                format!("holding: no setpoint for {} s", settings.setpoint_timeout_s)
            }
            Status::Landing(LandCause::Watchdog) => "landing: watchdog".into(),
            Status::Landing(LandCause::Supervisor) => "landing: supervisor LAND".into(),
            Status::Landed => "landed".into(),
            Status::Complete => "complete: holding position".into(),
        }
    }
}

/// One output of [`Autopilot::step`]: the body-frame command, and the field that was not
/// finite when the command had to be zeroed.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Command {
    /// What goes to `cmd_vel` (always finite).
    pub twist: Twist,
    /// The first non-finite component of the command that was replaced by zero.
    pub rejected: Option<(&'static str, f64)>,
}

/// Seconds as whole nanoseconds (so the watchdog compares integers: no rounding at the
/// boundary).
fn nanos(seconds: f64) -> i64 {
    (seconds * 1e9).round() as i64
}

/// An ENU velocity (east, north, up) as the body-frame linear velocity of a vehicle whose
/// heading is `yaw` (rad, from east, counter-clockwise): the horizontal part rotated by
/// `-yaw`, the vertical part unchanged.
pub fn enu_to_body(enu: [f64; 3], yaw: f64) -> [f64; 3] {
    let (s, c) = yaw.sin_cos();
    [c * enu[0] + s * enu[1], -s * enu[0] + c * enu[1], enu[2]]
}

/// The stub's state machine. Feed it what the node receives, with the node's clock
/// (simulation time, nanoseconds), and call [`Autopilot::step`] at the output rate.
#[derive(Debug, Clone)]
pub struct Autopilot {
    settings: Settings,
    status: Status,
    /// The newest setpoint (ENU) and when it was received.
    setpoint: Option<([f64; 3], i64)>,
    /// The vehicle's yaw in the setpoints' frame, once odometry was heard.
    yaw: Option<f64>,
}

impl Autopilot {
    /// A stub waiting for its first setpoint.
    pub fn new(settings: Settings) -> Autopilot {
        Autopilot {
            settings,
            status: Status::Waiting,
            setpoint: None,
            yaw: None,
        }
    }

    /// The settings.
    pub fn settings(&self) -> &Settings {
        &self.settings
    }

    /// What it is doing now.
    pub fn status(&self) -> Status {
        self.status
    }

    /// Whether odometry has given it a yaw (without one, horizontal commands are zero).
    pub fn has_yaw(&self) -> bool {
        self.yaw.is_some()
    }

    /// A setpoint (ENU m/s) received at `now_ns`: feeds the watchdog; while waiting or
    /// holding it (re)starts following. Non-finite values are kept and refused at output.
    pub fn setpoint(&mut self, enu: [f64; 3], now_ns: i64) {
        self.setpoint = Some((enu, now_ns));
        if matches!(self.status, Status::Waiting | Status::Holding) {
            self.status = Status::Following;
        }
    }

    /// The supervisor's mode: `LAND` starts (or takes over) the landing unless landed;
    /// `COMPLETE` makes it stationary unless it is landing or landed. Other modes change
    /// nothing (the setpoints carry them).
    pub fn mode(&mut self, mode: Mode) {
        match mode {
            Mode::Land if self.status != Status::Landed => {
                self.status = Status::Landing(LandCause::Supervisor);
            }
            Mode::Complete if !matches!(self.status, Status::Landing(_) | Status::Landed) => {
                self.status = Status::Complete;
            }
            _ => {}
        }
    }

    /// The vehicle's yaw from its odometry (rad, already in the setpoints' frame). A
    /// non-finite yaw is ignored (the previous one stays); returns whether it was taken.
    pub fn odometry_yaw(&mut self, yaw: f64) -> bool {
        if yaw.is_finite() {
            self.yaw = Some(yaw);
        }
        yaw.is_finite()
    }

    /// The simulator's landed flag: `true` while landing is the touchdown.
    pub fn landed(&mut self, landed: bool) {
        if landed && matches!(self.status, Status::Landing(_)) {
            self.status = Status::Landed;
        }
    }

    /// Advances the watchdog to `now_ns` and returns the command to send.
    pub fn step(&mut self, now_ns: i64) -> Command {
        if let (Status::Following | Status::Holding, Some((_, at))) = (self.status, self.setpoint) {
            let silent_ns = now_ns.saturating_sub(at);
            let hold_ns = nanos(self.settings.setpoint_timeout_s);
            let land_ns = hold_ns.saturating_add(nanos(self.settings.land_timeout_s));
            if silent_ns > land_ns {
                self.status = Status::Landing(LandCause::Watchdog);
            } else if silent_ns > hold_ns {
                self.status = Status::Holding;
            }
        }
        let linear = match (self.status, self.setpoint) {
            (Status::Following, Some((enu, _))) => match self.yaw {
                Some(yaw) => enu_to_body(enu, yaw),
                // No heading yet: only the vertical part is frame-independent.
                None => [0.0, 0.0, enu[2]],
            },
            (Status::Landing(_), _) => [0.0, 0.0, -self.settings.land_descent_mps],
            _ => [0.0; 3],
        };
        let twist = Twist {
            linear: Vector3 {
                x: linear[0],
                y: linear[1],
                z: linear[2],
            },
            angular: Vector3::default(),
        };
        match twist.non_finite_field() {
            Some(bad) => Command {
                twist: Twist::default(),
                rejected: Some(bad),
            },
            None => Command {
                twist,
                rejected: None,
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: i64 = 1_000_000;

    fn near(a: [f64; 3], b: [f64; 3]) -> bool {
        a.iter().zip(b).all(|(x, y)| (x - y).abs() < 1e-9)
    }

    fn linear(c: &Command) -> [f64; 3] {
        [c.twist.linear.x, c.twist.linear.y, c.twist.linear.z]
    }

    /// Runs `ap` at 20 Hz from `from_ms` to `to_ms` (inclusive), returning (time, status).
    fn run(ap: &mut Autopilot, from_ms: i64, to_ms: i64) -> Vec<(i64, Status)> {
        (from_ms..=to_ms)
            .step_by(50)
            .map(|t| {
                ap.step(t * MS);
                (t, ap.status())
            })
            .collect()
    }

    fn first(trace: &[(i64, Status)], status: Status) -> Option<i64> {
        trace.iter().find(|(_, s)| *s == status).map(|(t, _)| *t)
    }

    #[test]
    fn enu_rotates_into_the_body_frame_by_minus_yaw() {
        let half_pi = std::f64::consts::FRAC_PI_2;
        // Facing north: north is ahead, east is to the right (-y).
        assert!(near(enu_to_body([0.0, 1.0, 0.2], half_pi), [1.0, 0.0, 0.2]));
        assert!(near(
            enu_to_body([1.0, 0.0, 0.0], half_pi),
            [0.0, -1.0, 0.0]
        ));
        // Facing east: unchanged.
        assert!(near(enu_to_body([1.0, 2.0, -0.5], 0.0), [1.0, 2.0, -0.5]));
        // Facing west: east is behind.
        let w = enu_to_body([1.0, 0.0, 0.0], std::f64::consts::PI);
        assert!(near(w, [-1.0, 0.0, 0.0]));
        // The speed is kept.
        let b = enu_to_body([0.6, -0.8, 0.0], 0.77);
        assert!(((b[0] * b[0] + b[1] * b[1]).sqrt() - 1.0).abs() < 1e-12);
    }

    #[test]
    fn waits_with_zero_until_the_first_setpoint_and_never_times_out_before() {
        let mut ap = Autopilot::new(Settings::default());
        let trace = run(&mut ap, 0, 10_000);
        assert!(trace.iter().all(|(_, s)| *s == Status::Waiting));
        assert_eq!(linear(&ap.step(10_000 * MS)), [0.0; 3]);
    }

    #[test]
    fn follows_setpoints_rotated_by_the_odometry_yaw() {
        let mut ap = Autopilot::new(Settings::default());
        ap.odometry_yaw(std::f64::consts::FRAC_PI_2);
        ap.setpoint([0.0, 2.0, 0.5], 0);
        let c = ap.step(10 * MS);
        assert_eq!(ap.status(), Status::Following);
        assert!(near(linear(&c), [2.0, 0.0, 0.5]), "{c:?}");
        assert_eq!(c.twist.angular, Vector3::default());
        assert_eq!(c.rejected, None);
    }

    #[test]
    fn without_a_yaw_only_the_vertical_part_passes() {
        let mut ap = Autopilot::new(Settings::default());
        ap.setpoint([1.0, 1.0, 0.4], 0);
        assert_eq!(linear(&ap.step(10 * MS)), [0.0, 0.0, 0.4]);
        assert!(!ap.odometry_yaw(f64::NAN), "a NaN yaw is not taken");
        assert!(!ap.has_yaw());
    }

    /// Setpoints every 50 ms until 1 s, then none: following until 1.5 s, holding (zero)
    /// from the first step more than 0.5 s after the last setpoint, landing (descent) from
    /// the first step more than 0.5 + 2.0 s after it, until the simulator reports landed.
    #[test]
    fn the_watchdog_holds_then_lands_in_simulation_time() {
        let mut ap = Autopilot::new(Settings::default());
        ap.odometry_yaw(0.0);
        for t in (0..=1000).step_by(50) {
            ap.setpoint([1.0, 0.0, 0.0], t * MS);
            assert!(near(linear(&ap.step(t * MS)), [1.0, 0.0, 0.0]));
        }
        let trace = run(&mut ap, 1050, 5000);
        let hold = first(&trace, Status::Holding).expect("holds");
        let land = first(&trace, Status::Landing(LandCause::Watchdog)).expect("lands");
        assert_eq!(hold, 1550, "{trace:?}");
        assert_eq!(land, 3550, "{trace:?}");
        assert!(trace
            .iter()
            .filter(|(t, _)| *t < hold)
            .all(|(_, s)| *s == Status::Following));
        assert_eq!(linear(&ap.step(5000 * MS)), [0.0, 0.0, -0.5]);
        // Not landed yet: still descending, whatever the time.
        ap.landed(false);
        assert_eq!(linear(&ap.step(60_000 * MS)), [0.0, 0.0, -0.5]);
        ap.landed(true);
        assert_eq!(ap.status(), Status::Landed);
        assert_eq!(linear(&ap.step(60_050 * MS)), [0.0; 3]);
        // Latched: a late setpoint does not lift it again.
        ap.setpoint([0.0, 0.0, 1.0], 60_100 * MS);
        assert_eq!(linear(&ap.step(60_100 * MS)), [0.0; 3]);
        assert_eq!(ap.status(), Status::Landed);
    }

    #[test]
    fn a_setpoint_during_the_hold_resumes_following() {
        let s = Settings {
            setpoint_timeout_s: 0.2,
            land_timeout_s: 1.0,
            land_descent_mps: 0.4,
        };
        let mut ap = Autopilot::new(s);
        ap.odometry_yaw(0.0);
        ap.setpoint([0.5, 0.0, 0.0], 0);
        ap.step(300 * MS);
        assert_eq!(ap.status(), Status::Holding);
        assert_eq!(ap.status().text(&s), "holding: no setpoint for 0.2 s");
        ap.setpoint([0.5, 0.0, 0.0], 350 * MS);
        let c = ap.step(350 * MS);
        assert_eq!(ap.status(), Status::Following);
        assert!(near(linear(&c), [0.5, 0.0, 0.0]));
        // The timings restart from the new setpoint.
        ap.step(1500 * MS);
        assert_eq!(ap.status(), Status::Holding);
        ap.step(1600 * MS);
        assert_eq!(ap.status(), Status::Landing(LandCause::Watchdog));
        assert_eq!(linear(&ap.step(1650 * MS)), [0.0, 0.0, -0.4]);
    }

    #[test]
    fn supervisor_land_owns_the_descent_until_touchdown() {
        let mut ap = Autopilot::new(Settings::default());
        ap.odometry_yaw(0.0);
        ap.setpoint([1.0, 0.0, 0.0], 0);
        ap.mode(Mode::Active);
        assert_eq!(ap.status(), Status::Following);
        ap.landed(true); // landed while following is no touchdown (the take-off)
        assert_eq!(ap.status(), Status::Following);
        ap.mode(Mode::Land);
        assert_eq!(ap.status(), Status::Landing(LandCause::Supervisor));
        // No setpoints follow: the watchdog does not take over the landing.
        let trace = run(&mut ap, 50, 20_000);
        assert!(trace
            .iter()
            .all(|(_, s)| *s == Status::Landing(LandCause::Supervisor)));
        assert_eq!(linear(&ap.step(20_000 * MS)), [0.0, 0.0, -0.5]);
        ap.mode(Mode::Complete); // too late: landing
        assert_eq!(ap.status(), Status::Landing(LandCause::Supervisor));
        ap.landed(true);
        assert_eq!(ap.status(), Status::Landed);
        assert_eq!(ap.status().text(ap.settings()), "landed");
        ap.mode(Mode::Land);
        assert_eq!(ap.status(), Status::Landed);
    }

    #[test]
    fn supervisor_land_takes_over_a_watchdog_landing() {
        let mut ap = Autopilot::new(Settings::default());
        ap.setpoint([0.0; 3], 0);
        ap.step(3000 * MS);
        assert_eq!(ap.status(), Status::Landing(LandCause::Watchdog));
        assert_eq!(ap.status().text(ap.settings()), "landing: watchdog");
        ap.mode(Mode::Land);
        assert_eq!(ap.status().text(ap.settings()), "landing: supervisor LAND");
    }

    #[test]
    fn complete_is_stationary_without_setpoints() {
        let mut ap = Autopilot::new(Settings::default());
        ap.odometry_yaw(0.0);
        ap.setpoint([1.0, 1.0, 0.0], 0);
        ap.mode(Mode::Complete);
        let trace = run(&mut ap, 0, 10_000);
        assert!(trace.iter().all(|(_, s)| *s == Status::Complete));
        assert_eq!(linear(&ap.step(10_000 * MS)), [0.0; 3]);
        assert_eq!(
            ap.status().text(ap.settings()),
            "complete: holding position"
        );
        ap.mode(Mode::Land); // a hard limit after COMPLETE still lands
        assert_eq!(ap.status(), Status::Landing(LandCause::Supervisor));
    }

    #[test]
    fn non_finite_commands_never_leave() {
        let mut ap = Autopilot::new(Settings::default());
        ap.odometry_yaw(0.0);
        ap.setpoint([f64::NAN, 0.0, 0.0], 0);
        let c = ap.step(10 * MS);
        assert_eq!(c.twist, Twist::default());
        let (field, value) = c.rejected.expect("reported");
        assert_eq!(field, "linear.x");
        assert!(value.is_nan());
        ap.setpoint([0.0, f64::INFINITY, 0.0], 20 * MS);
        let c = ap.step(30 * MS);
        assert_eq!(c.twist, Twist::default());
        // Rotated by yaw 0, the infinite north component makes body x NaN (0 * inf) and y inf.
        assert_eq!(c.rejected.map(|(f, _)| f), Some("linear.x"));
        // A finite setpoint passes again.
        ap.setpoint([0.3, 0.0, 0.0], 40 * MS);
        let c = ap.step(50 * MS);
        assert_eq!(c.rejected, None);
        assert!(near(linear(&c), [0.3, 0.0, 0.0]));
    }

    /// One thing the node can hear, for the property test.
    #[derive(Debug, Clone)]
    enum Heard {
        Setpoint([f64; 3]),
        Mode(Mode),
        Yaw(f64),
        Landed(bool),
    }

    fn heard() -> impl proptest::strategy::Strategy<Value = Heard> {
        use proptest::prelude::*;
        prop_oneof![
            proptest::array::uniform3(proptest::num::f64::ANY).prop_map(Heard::Setpoint),
            proptest::sample::select(Mode::ALL.to_vec()).prop_map(Heard::Mode),
            proptest::num::f64::ANY.prop_map(Heard::Yaw),
            proptest::bool::ANY.prop_map(Heard::Landed),
        ]
    }

    proptest::proptest! {
        /// Whatever it hears, in any order, at any times: every command is finite, nothing
        /// but a descent at the set speed leaves while landing, zero while waiting, holding,
        /// landed or complete, and landed stays landed.
        #[test]
        fn commands_are_finite_and_fit_the_status(
            events in proptest::collection::vec((heard(), 0i64..200_000_000), 0..200),
        ) {
            let mut ap = Autopilot::new(Settings::default());
            let mut now = 0i64;
            let mut was_landed = false;
            for (event, advance) in events {
                now += advance;
                match event {
                    Heard::Setpoint(v) => ap.setpoint(v, now),
                    Heard::Mode(m) => ap.mode(m),
                    Heard::Yaw(y) => { ap.odometry_yaw(y); }
                    Heard::Landed(l) => ap.landed(l),
                }
                let c = ap.step(now);
                proptest::prop_assert_eq!(c.twist.non_finite_field(), None);
                let out = linear(&c);
                match ap.status() {
                    Status::Landing(_) => proptest::prop_assert_eq!(out, [0.0, 0.0, -0.5]),
                    Status::Following => {}
                    _ => proptest::prop_assert_eq!(out, [0.0; 3]),
                }
                proptest::prop_assert_eq!(c.twist.angular, Vector3::default());
                proptest::prop_assert!(!was_landed || ap.status() == Status::Landed);
                was_landed = ap.status() == Status::Landed;
            }
        }
    }

    #[test]
    fn status_lines() {
        let s = Settings::default();
        assert_eq!(Status::Following.text(&s), "following");
        assert_eq!(Status::Holding.text(&s), "holding: no setpoint for 0.5 s");
        assert_eq!(
            Status::Landing(LandCause::Supervisor).text(&s),
            "landing: supervisor LAND"
        );
    }
}
