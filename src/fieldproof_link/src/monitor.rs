//! link_monitor's failsafe as pure logic on the node's clock (ns; simulation time with
//! `use_sim_time`): it arms at the first heartbeat; `timeout` without one declares the
//! link lost (link_state false, then again once a second) and, unless the loss action is
//! `continue`, sends its failsafe command at 20 Hz while dropping upstream commands; the
//! next heartbeat declares it back (link_state true) and commands pass again.

/// Default timeout (s).
pub const DEFAULT_TIMEOUT_S: f64 = 2.0;
/// Zero-velocity rate while lost (Hz).
pub const ZERO_RATE_HZ: f64 = 20.0;
/// Period of the repeated link_state while lost (ns).
pub const STATE_PERIOD_NS: i64 = 1_000_000_000;

/// Default descent speed of the `land` loss action (m/s).
pub const DEFAULT_LAND_DESCENT_MPS: f64 = 0.5;
/// The fastest descent the `land` loss action may command (m/s).
pub const MAX_LAND_DESCENT_MPS: f64 = 2.0;

/// What the failsafe does while the link is lost (the manifest's `runtime.link.loss_action`).
/// `return_home` is not among them: it needs a stack with a home behaviour, and the
/// failsafe alone has none.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum LossAction {
    /// Zero velocity (a ground vehicle stops).
    Stop,
    /// Zero velocity (a multirotor hovers in place).
    Hold,
    /// A bounded descent: straight down at this speed (m/s), nothing else.
    Land {
        /// Descent speed, m/s (at most [`MAX_LAND_DESCENT_MPS`]).
        descent_mps: f64,
    },
    /// Pass the commands on and only report the loss.
    Continue,
}

impl LossAction {
    /// The names the `loss_action` parameter accepts.
    pub const NAMES: &'static str = "stop, hold, land, continue";
    /// The same names, one each: the parameter's choices.
    pub const CHOICES: [&'static str; 4] = ["stop", "hold", "land", "continue"];

    /// Parses the `loss_action` parameter's value; `descent_mps` is the land speed.
    pub fn parse(name: &str, descent_mps: f64) -> Result<LossAction, String> {
        match name {
            "stop" => Ok(LossAction::Stop),
            "hold" => Ok(LossAction::Hold),
            "continue" => Ok(LossAction::Continue),
            "land" if descent_mps > 0.0 && descent_mps <= MAX_LAND_DESCENT_MPS => {
                Ok(LossAction::Land { descent_mps })
            }
            "land" => Err(format!(
                "land_descent_mps: {descent_mps} is not in (0, {MAX_LAND_DESCENT_MPS}]"
            )),
            "return_home" => Err(
                "loss_action: \"return_home\" needs a stack with a home behaviour; the failsafe \
                 alone cannot return home (use stop, hold, land or continue)"
                    .into(),
            ),
            other => Err(format!(
                "loss_action: \"{other}\" is not one of {}",
                LossAction::NAMES
            )),
        }
    }

    /// Whether the failsafe takes the vehicle over while the link is lost.
    pub fn takes_over(&self) -> bool {
        !matches!(self, LossAction::Continue)
    }

    /// The failsafe command as (linear x, y, z) velocity; angular is always zero.
    pub fn linear_velocity(&self) -> [f64; 3] {
        match self {
            LossAction::Land { descent_mps } => [0.0, 0.0, -descent_mps],
            _ => [0.0; 3],
        }
    }
}

/// What the node publishes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Output {
    /// `link_state` with this value.
    LinkState(bool),
    /// The loss action's failsafe command ([`LossAction::linear_velocity`]).
    Failsafe,
}

/// The failsafe's state.
#[derive(Debug, Clone)]
pub struct LinkMonitor {
    action: LossAction,
    timeout_ns: i64,
    zero_period_ns: i64,
    last_heartbeat: Option<i64>,
    lost: bool,
    next_zero: i64,
    next_state: i64,
}

impl LinkMonitor {
    /// A monitor declaring the link lost after `timeout_s` without a heartbeat and then
    /// stopping the vehicle.
    pub fn new(timeout_s: f64) -> Self {
        LinkMonitor::with_action(timeout_s, LossAction::Stop)
    }

    /// A monitor declaring the link lost after `timeout_s` without a heartbeat and then
    /// doing `action`.
    pub fn with_action(timeout_s: f64, action: LossAction) -> Self {
        LinkMonitor {
            action,
            timeout_ns: (timeout_s * 1e9) as i64,
            zero_period_ns: (1e9 / ZERO_RATE_HZ) as i64,
            last_heartbeat: None,
            lost: false,
            next_zero: 0,
            next_state: 0,
        }
    }

    /// Whether a heartbeat has been seen.
    pub fn armed(&self) -> bool {
        self.last_heartbeat.is_some()
    }

    /// Whether the link is declared lost.
    pub fn lost(&self) -> bool {
        self.lost
    }

    /// A heartbeat arrived at `now`.
    pub fn heartbeat(&mut self, now: i64) -> Vec<Output> {
        let first = self.last_heartbeat.is_none();
        self.last_heartbeat = Some(now);
        if first || self.lost {
            self.lost = false;
            vec![Output::LinkState(true)]
        } else {
            Vec::new()
        }
    }

    /// Advances to `now`: declares the loss, and while lost the zero commands and the
    /// repeated link_state that are due.
    pub fn tick(&mut self, now: i64) -> Vec<Output> {
        let mut out = Vec::new();
        let Some(last) = self.last_heartbeat else {
            return out;
        };
        if now < last {
            // The clock went back (a simulation reset): start the wait again.
            self.last_heartbeat = Some(now);
            return out;
        }
        if !self.lost {
            if now - last >= self.timeout_ns {
                self.lost = true;
                out.push(Output::LinkState(false));
                if self.action.takes_over() {
                    out.push(Output::Failsafe);
                }
                self.next_zero = now + self.zero_period_ns;
                self.next_state = now + STATE_PERIOD_NS;
            }
            return out;
        }
        if now >= self.next_state {
            out.push(Output::LinkState(false));
            self.next_state += STATE_PERIOD_NS;
            if self.next_state <= now {
                self.next_state = now + STATE_PERIOD_NS;
            }
        }
        if now >= self.next_zero && self.action.takes_over() {
            out.push(Output::Failsafe);
            self.next_zero += self.zero_period_ns;
            if self.next_zero <= now {
                self.next_zero = now + self.zero_period_ns;
            }
        }
        out
    }

    /// An upstream command at `now`: whether it passes (after advancing the state; the
    /// outputs that became due are returned too).
    pub fn command(&mut self, now: i64) -> (bool, Vec<Output>) {
        let out = self.tick(now);
        (!self.lost || !self.action.takes_over(), out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: i64 = 1_000_000;
    const S: i64 = 1_000_000_000;

    /// Simulates 1 ms steps from 0 to `end`, heartbeats at 2 Hz inside `hb`, a 20 Hz
    /// tick and a command every 100 ms; returns (time, output) and the commands' fate.
    type Trace = (Vec<(i64, Output)>, Vec<(i64, bool)>);

    fn simulate(hb: &[(i64, i64)], end: i64) -> Trace {
        let mut m = LinkMonitor::new(DEFAULT_TIMEOUT_S);
        let (mut outs, mut cmds) = (Vec::new(), Vec::new());
        let mut t = 0;
        while t <= end {
            if t % (500 * MS) == 0 && hb.iter().any(|(a, b)| t >= *a && t < *b) {
                outs.extend(m.heartbeat(t).into_iter().map(|o| (t, o)));
            }
            if t % (50 * MS) == 0 {
                outs.extend(m.tick(t).into_iter().map(|o| (t, o)));
            }
            if t % (100 * MS) == 25 * MS {
                let (pass, o) = m.command(t);
                outs.extend(o.into_iter().map(|o| (t, o)));
                cmds.push((t, pass));
            }
            t += MS;
        }
        (outs, cmds)
    }

    #[test]
    fn unarmed_without_heartbeat_passes_commands() {
        let (outs, cmds) = simulate(&[], 10 * S);
        assert!(outs.is_empty());
        assert!(cmds.iter().all(|(_, p)| *p));
    }

    #[test]
    fn loss_within_timeout_plus_one_period_zero_at_20_hz_and_recovery() {
        // Heartbeats from 1 s to 5 s (last at 4.5 s), again from 12 s.
        let (outs, cmds) = simulate(&[(S, 5 * S), (12 * S, 20 * S)], 15 * S);
        let states: Vec<(i64, bool)> = outs
            .iter()
            .filter_map(|(t, o)| match o {
                Output::LinkState(v) => Some((*t, *v)),
                _ => None,
            })
            .collect();
        assert_eq!(states[0], (S, true), "armed at the first heartbeat");
        let (t_false, _) = *states.iter().find(|(_, v)| !v).unwrap();
        let last_hb = 4500 * MS;
        assert!(
            t_false >= last_hb + 2 * S && t_false <= last_hb + 2 * S + 50 * MS,
            "false at {t_false}"
        );
        // link_state false repeated once a second while lost: 6.5, 7.5, ... 11.5 s.
        let falses: Vec<i64> = states.iter().filter(|(_, v)| !v).map(|(t, _)| *t).collect();
        assert_eq!(falses.len(), 6, "{falses:?}");
        assert!(falses.windows(2).all(|w| w[1] - w[0] == S));
        assert_eq!(*states.last().unwrap(), (12 * S, true));
        // Zero velocity at 20 Hz from the loss to the heartbeat.
        let zeros: Vec<i64> = outs
            .iter()
            .filter(|(_, o)| *o == Output::Failsafe)
            .map(|(t, _)| *t)
            .collect();
        assert_eq!(zeros.first(), Some(&t_false));
        assert!(*zeros.last().unwrap() < 12 * S);
        assert!(zeros.windows(2).all(|w| w[1] - w[0] == 50 * MS), "20 Hz");
        assert_eq!(zeros.len() as i64, (12 * S - t_false) / (50 * MS));
        // Commands dropped exactly while lost.
        for (t, pass) in cmds {
            let lost = t >= t_false && t < 12 * S;
            assert_eq!(pass, !lost, "command at {t}");
        }
    }

    #[test]
    fn continue_reports_the_loss_and_passes_commands() {
        let mut m = LinkMonitor::with_action(2.0, LossAction::Continue);
        m.heartbeat(0);
        assert_eq!(m.tick(2 * S), vec![Output::LinkState(false)]);
        assert!(m.lost());
        let (pass, outs) = m.command(2 * S + 500 * MS);
        assert!(pass, "continue passes commands while lost");
        assert!(outs.iter().all(|o| *o != Output::Failsafe), "{outs:?}");
        assert_eq!(
            m.tick(3 * S),
            vec![Output::LinkState(false)],
            "still reported"
        );
    }

    #[test]
    fn land_descends_at_its_bounded_speed_and_takes_over() {
        let land = LossAction::parse("land", 0.7).unwrap();
        assert_eq!(land.linear_velocity(), [0.0, 0.0, -0.7]);
        let mut m = LinkMonitor::with_action(2.0, land);
        m.heartbeat(0);
        assert_eq!(
            m.tick(2 * S),
            vec![Output::LinkState(false), Output::Failsafe]
        );
        assert!(!m.command(2 * S + MS).0, "commands dropped while landing");
        assert!(LossAction::parse("land", 50.0)
            .unwrap_err()
            .starts_with("land_descent_mps: 50"));
        assert!(LossAction::parse("land", f64::NAN).is_err());
    }

    #[test]
    fn the_choices_are_the_names() {
        assert_eq!(LossAction::CHOICES.join(", "), LossAction::NAMES);
        for name in LossAction::CHOICES {
            assert!(
                LossAction::parse(name, DEFAULT_LAND_DESCENT_MPS).is_ok(),
                "{name}"
            );
        }
    }

    #[test]
    fn stop_and_hold_send_zero_and_return_home_is_refused() {
        for name in ["stop", "hold"] {
            let action = LossAction::parse(name, DEFAULT_LAND_DESCENT_MPS).unwrap();
            assert!(action.takes_over());
            assert_eq!(action.linear_velocity(), [0.0; 3]);
        }
        let e = LossAction::parse("return_home", DEFAULT_LAND_DESCENT_MPS).unwrap_err();
        assert!(e.contains("home behaviour"), "{e}");
        let e = LossAction::parse("panic", DEFAULT_LAND_DESCENT_MPS).unwrap_err();
        assert_eq!(
            e,
            "loss_action: \"panic\" is not one of stop, hold, land, continue"
        );
    }

    #[test]
    fn a_clock_going_back_restarts_the_wait() {
        let mut m = LinkMonitor::new(2.0);
        m.heartbeat(10 * S);
        assert!(m.tick(5 * S).is_empty());
        assert!(m.tick(6 * S + 999 * MS).is_empty());
        assert_eq!(
            m.tick(7 * S),
            vec![Output::LinkState(false), Output::Failsafe]
        );
        assert!(m.lost());
    }
}
