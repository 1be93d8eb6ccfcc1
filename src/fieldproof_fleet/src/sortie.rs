//! A fleet vehicle's sortie, the pure logic of `fleet_adapter`: the phases of
//! [`crate::lease::Phase`], the clearance requests, and what the vehicle's supervisor is given
//! as its target (see the package README: the adapter sits between the planner and the
//! supervisor).
//!
//! A grant counts only if it answers the newest request, is of the kind asked and expires
//! after now on the vehicle's own clock: a late, duplicated or stale answer changes nothing.
//! While it holds a lease the vehicle repeats its request every `request_period_s` (a renewal:
//! the station answers with the new expiry). If its lease runs out on its own clock while
//! landing (the station or the link went silent), it climbs back to its layer and asks again;
//! while climbing it carries on (climbing away clears the deck).

use crate::lease::{Kind, Phase};

/// The sortie's settings (parameters of `fleet_adapter`).
#[derive(Debug, Clone, PartialEq)]
pub struct SortieConfig {
    /// This vehicle's cruise layer, metres (world z).
    pub layer_altitude_m: f64,
    /// The inspection goal, world x, y (flown at the layer's altitude).
    pub inspection_xy: [f64; 2],
    /// Horizontal distance from the pad at which a returning vehicle starts waiting to land, m.
    pub arrive_radius_m: f64,
    /// The supervisor's approach gain, 1/s: the target leads the moving pad by its velocity
    /// divided by it, so a proportional approach keeps pace with the carrier.
    pub approach_gain: f64,
    /// How often a request is repeated while unanswered or while a lease is held, s.
    pub request_period_s: f64,
    /// How far below the pad the landing target is, m: the supervisor stops short of its
    /// target by its goal acceptance (0.3 m), so a target on the deck would leave the vehicle
    /// hovering above it; one below keeps it descending until the touchdown.
    pub touchdown_below_m: f64,
    /// Horizontal distance from its pad within which a landing vehicle descends, m; farther
    /// off it holds its altitude and closes on the pad first (a vehicle that fell behind its
    /// moving pad, e.g. holding through a link outage, would otherwise touch down still
    /// closing on it).
    pub align_radius_m: f64,
    /// How long a vehicle holds above its pad, once arrived, before it first asks to land, s
    /// (simulation time): it settles over the moving pad, matching its velocity, first.
    pub settle_s: f64,
}

/// What the vehicle observes at a step.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Observed {
    /// Its estimated position, world frame.
    pub position: [f64; 3],
    /// Its pad: position (world, deck height) and horizontal velocity; `None` until heard.
    pub pad: Option<([f64; 3], [f64; 2])>,
    /// The planner reports its current goal reached.
    pub planner_complete: bool,
    /// The simulator reports the vehicle landed.
    pub landed: bool,
    /// Its supervisor has ended the sortie (LAND, or an abort).
    pub supervisor_ended: bool,
}

/// What the supervisor is given as its target.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Target {
    /// Stay at this point.
    Hold([f64; 3]),
    /// The planner's target, as it comes.
    Planner,
    /// Fly to this point (it moves with the pad).
    Point([f64; 3]),
}

/// What a step asks of the node.
#[derive(Debug, Clone, PartialEq)]
pub struct Step {
    /// The phase after the step.
    pub phase: Phase,
    /// The target for the supervisor.
    pub target: Target,
    /// A request to send now: kind and request id.
    pub request: Option<(Kind, u32)>,
    /// A new goal for the planner (world x, y, z), when it changes.
    pub planner_goal: Option<[f64; 3]>,
    /// The mission is complete (landed on the pad): `mission/complete` true.
    pub complete: bool,
}

/// A station's answer, as the vehicle received it.
#[derive(Debug, Clone, PartialEq)]
pub struct Answer {
    /// The request it answers.
    pub request_id: u32,
    /// The kind it answers.
    pub kind: Kind,
    /// Granted or renewed (else refused).
    pub granted: bool,
    /// The lease's expiry, ns (simulation time).
    pub expires_ns: i64,
}

/// The sortie (see the module documentation).
#[derive(Debug, Clone)]
pub struct Sortie {
    config: SortieConfig,
    phase: Phase,
    request_id: u32,
    asked: Option<(Kind, i64)>,
    lease_expires_ns: Option<i64>,
    goal_sent: Option<[f64; 3]>,
    /// When it began waiting to land (arrived above its pad, or its land lease lapsed).
    waiting_since_ns: Option<i64>,
}

/// The distance between two points in the horizontal plane (x, y), m.
fn horizontal_distance(a: &[f64; 3], b: &[f64; 3]) -> f64 {
    (a[0] - b[0]).hypot(a[1] - b[1])
}

fn nanos(seconds: f64) -> i64 {
    (seconds * 1e9).round() as i64
}

impl Sortie {
    /// A vehicle on its pad.
    pub fn new(config: SortieConfig) -> Sortie {
        Sortie {
            config,
            phase: Phase::OnPad,
            request_id: 0,
            asked: None,
            lease_expires_ns: None,
            goal_sent: None,
            waiting_since_ns: None,
        }
    }

    /// The current phase.
    pub fn phase(&self) -> Phase {
        self.phase
    }

    /// The kind of clearance the current phase needs, if any.
    fn needs(&self) -> Option<Kind> {
        match self.phase {
            Phase::WaitingLaunch | Phase::Climbing => Some(Kind::Launch),
            Phase::WaitingLand | Phase::Landing => Some(Kind::Land),
            _ => None,
        }
    }

    /// Takes a station's answer received at `now_ns` (see the module documentation for
    /// which count).
    pub fn on_answer(&mut self, answer: &Answer, now_ns: i64) {
        let current = answer.request_id == self.request_id
            && self.needs() == Some(answer.kind)
            && answer.granted
            && answer.expires_ns > now_ns;
        if !current {
            return;
        }
        self.lease_expires_ns = Some(answer.expires_ns);
        self.phase = match self.phase {
            Phase::WaitingLaunch => Phase::Climbing,
            Phase::WaitingLand => Phase::Landing,
            other => other,
        };
    }

    fn holds_lease(&self, now_ns: i64) -> bool {
        self.lease_expires_ns
            .is_some_and(|expires| expires > now_ns)
    }

    /// Advances the sortie at `now_ns` with what the vehicle observes.
    pub fn step(&mut self, observed: &Observed, now_ns: i64) -> Step {
        let mut planner_goal = None;
        if observed.supervisor_ended && self.phase != Phase::Landed {
            self.phase = Phase::Aborted;
        }
        let layer = self.config.layer_altitude_m;
        let led_pad = observed.pad.map(|(pad, velocity)| {
            let lead = 1.0 / self.config.approach_gain;
            [
                pad[0] + velocity[0] * lead,
                pad[1] + velocity[1] * lead,
                pad[2],
            ]
        });
        match self.phase {
            Phase::OnPad if observed.pad.is_some() => self.phase = Phase::WaitingLaunch,
            Phase::Climbing if observed.position[2] >= layer - 0.5 => {
                self.phase = Phase::Mission;
                self.lease_expires_ns = None;
            }
            Phase::Mission if observed.planner_complete && self.goal_sent.is_some() => {
                self.phase = Phase::Returning;
                self.goal_sent = None;
            }
            Phase::Returning => {
                if let Some(pad) = observed.pad.map(|(pad, _)| pad) {
                    let off = horizontal_distance(&observed.position, &pad);
                    if off <= self.config.arrive_radius_m {
                        self.phase = Phase::WaitingLand;
                        self.waiting_since_ns = Some(now_ns);
                    }
                }
            }
            Phase::Landing if observed.landed => {
                self.phase = Phase::Landed;
                self.lease_expires_ns = None;
            }
            Phase::Landing if !self.holds_lease(now_ns) => {
                // The lease ran out unrenewed: back up to the layer and ask again.
                self.phase = Phase::WaitingLand;
                self.lease_expires_ns = None;
                self.waiting_since_ns = Some(now_ns);
            }
            _ => {}
        }
        // The planner's goal for the phase.
        let wanted_goal = match self.phase {
            Phase::Climbing | Phase::Mission => Some([
                self.config.inspection_xy[0],
                self.config.inspection_xy[1],
                layer,
            ]),
            Phase::Returning => observed.pad.map(|(pad, _)| [pad[0], pad[1], layer]),
            _ => None,
        };
        if let Some(goal) = wanted_goal {
            let moved = self.goal_sent.is_none_or(|sent| {
                horizontal_distance(&sent, &goal) > self.config.arrive_radius_m / 2.0
            });
            if moved {
                self.goal_sent = Some(goal);
                planner_goal = Some(goal);
            }
        }
        let target = match self.phase {
            Phase::OnPad | Phase::WaitingLaunch | Phase::Landed | Phase::Aborted => {
                Target::Hold(observed.position)
            }
            Phase::Climbing | Phase::Mission | Phase::Returning => Target::Planner,
            Phase::WaitingLand => match led_pad {
                Some(pad) => Target::Point([pad[0], pad[1], layer]),
                None => Target::Hold(observed.position),
            },
            Phase::Landing => match (led_pad, observed.pad) {
                (Some(led), Some((pad, _))) => {
                    let off = horizontal_distance(&observed.position, &pad);
                    let altitude = if off <= self.config.align_radius_m {
                        pad[2] - self.config.touchdown_below_m
                    } else {
                        observed.position[2]
                    };
                    Target::Point([led[0], led[1], altitude])
                }
                _ => Target::Hold(observed.position),
            },
        };
        // Requests: a new id when a phase first needs a kind; repeated every period. A
        // vehicle waiting to land asks once it has settled over its pad.
        let settled = self.phase != Phase::WaitingLand
            || self
                .waiting_since_ns
                .is_none_or(|since| now_ns - since >= nanos(self.config.settle_s));
        let request = self.needs().filter(|_| settled).and_then(|kind| {
            let period = nanos(self.config.request_period_s);
            let due = match self.asked {
                Some((asked, at)) if asked == kind => now_ns - at >= period,
                _ => {
                    self.request_id += 1;
                    true
                }
            };
            due.then(|| {
                self.asked = Some((kind, now_ns));
                (kind, self.request_id)
            })
        });
        if self.needs().is_none() {
            self.asked = None;
        }
        Step {
            phase: self.phase,
            target,
            request,
            planner_goal,
            complete: self.phase == Phase::Landed,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const S: i64 = 1_000_000_000;

    fn config() -> SortieConfig {
        SortieConfig {
            layer_altitude_m: 8.0,
            inspection_xy: [40.0, 10.0],
            arrive_radius_m: 2.0,
            approach_gain: 1.0,
            request_period_s: 1.0,
            touchdown_below_m: 0.5,
            align_radius_m: 0.3,
            settle_s: 2.0,
        }
    }

    fn seen(position: [f64; 3], pad: [f64; 3]) -> Observed {
        Observed {
            position,
            pad: Some((pad, [1.0, 0.0])),
            planner_complete: false,
            landed: false,
            supervisor_ended: false,
        }
    }

    fn grant(request_id: u32, kind: Kind, expires_ns: i64) -> Answer {
        Answer {
            request_id,
            kind,
            granted: true,
            expires_ns,
        }
    }

    #[test]
    fn a_whole_sortie_under_two_leases() {
        let mut s = Sortie::new(config());
        let pad = [10.0, 0.0, 1.2];
        let step = s.step(&seen([10.0, 0.0, 1.3], pad), S);
        assert_eq!(step.phase, Phase::WaitingLaunch);
        assert_eq!(step.request, Some((Kind::Launch, 1)));
        assert_eq!(step.target, Target::Hold([10.0, 0.0, 1.3]));
        // Repeated every second with the same id, not before.
        assert_eq!(
            s.step(&seen([10.0, 0.0, 1.3], pad), S + S / 2).request,
            None
        );
        assert_eq!(
            s.step(&seen([10.0, 0.0, 1.3], pad), 2 * S).request,
            Some((Kind::Launch, 1))
        );
        s.on_answer(&grant(1, Kind::Launch, 7 * S), 2 * S);
        let step = s.step(&seen([10.0, 0.0, 1.3], pad), 2 * S + 1);
        assert_eq!(step.phase, Phase::Climbing);
        assert_eq!(step.target, Target::Planner);
        assert_eq!(step.planner_goal, Some([40.0, 10.0, 8.0]));
        let step = s.step(&seen([12.0, 0.0, 7.6], pad), 4 * S);
        assert_eq!(step.phase, Phase::Mission);
        assert_eq!(step.request, None, "no lease needed in the layer");
        let mut done = seen([40.0, 10.0, 8.0], [30.0, 0.0, 1.2]);
        done.planner_complete = true;
        let step = s.step(&done, 30 * S);
        assert_eq!(step.phase, Phase::Returning);
        assert_eq!(step.planner_goal, Some([30.0, 0.0, 8.0]), "above the pad");
        let step = s.step(&seen([31.0, 0.5, 8.0], [31.5, 0.0, 1.2]), 38 * S);
        assert_eq!(step.phase, Phase::WaitingLand);
        // Held above the pad, led by its velocity (1 m/s, gain 1/s: 1 m ahead).
        assert_eq!(step.target, Target::Point([32.5, 0.0, 8.0]));
        // It asks once it has settled there (2 s), not before.
        assert_eq!(step.request, None, "arrived: settling first");
        assert_eq!(
            s.step(&seen([31.5, 0.0, 8.0], [31.5, 0.0, 1.2]), 39 * S)
                .request,
            None
        );
        let step = s.step(&seen([31.5, 0.0, 8.0], [31.5, 0.0, 1.2]), 40 * S);
        assert_eq!(step.request, Some((Kind::Land, 2)));
        s.on_answer(&grant(2, Kind::Land, 45 * S), 40 * S);
        let step = s.step(&seen([32.0, 0.0, 8.0], [32.0, 0.0, 1.2]), 41 * S);
        assert_eq!(step.phase, Phase::Landing);
        assert_eq!(
            step.target,
            Target::Point([33.0, 0.0, 0.7]),
            "led, below the deck"
        );
        // Fallen 1 m behind its pad (beyond the 0.3 m alignment radius): it holds its
        // altitude and closes first, then descends once within the radius.
        let step = s.step(&seen([31.0, 0.0, 5.0], [32.0, 0.0, 1.2]), 42 * S);
        assert_eq!(
            step.target,
            Target::Point([33.0, 0.0, 5.0]),
            "closing, level"
        );
        let step = s.step(&seen([31.8, 0.0, 5.0], [32.0, 0.0, 1.2]), 43 * S);
        assert_eq!(
            step.target,
            Target::Point([33.0, 0.0, 0.7]),
            "aligned: down"
        );
        let mut down = seen([33.0, 0.0, 1.3], [33.0, 0.0, 1.2]);
        down.landed = true;
        let step = s.step(&down, 44 * S);
        assert_eq!((step.phase, step.complete), (Phase::Landed, true));
    }

    #[test]
    fn stale_late_and_foreign_answers_change_nothing() {
        let mut s = Sortie::new(config());
        let pad = [0.0, 0.0, 1.2];
        s.step(&seen([0.0, 0.0, 1.3], pad), S);
        // A grant for another request id, another kind, a refusal, an expired lease.
        s.on_answer(&grant(7, Kind::Launch, 9 * S), S);
        s.on_answer(&grant(1, Kind::Land, 9 * S), S);
        s.on_answer(
            &Answer {
                granted: false,
                ..grant(1, Kind::Launch, 9 * S)
            },
            S,
        );
        s.on_answer(&grant(1, Kind::Launch, S), 2 * S);
        assert_eq!(s.phase(), Phase::WaitingLaunch);
    }

    #[test]
    fn a_landing_whose_lease_runs_out_climbs_back_and_asks_again() {
        let mut s = Sortie::new(config());
        s.phase = Phase::WaitingLand;
        let pad = [0.0, 0.0, 1.2];
        let step = s.step(&seen([0.0, 0.0, 8.0], pad), S);
        let (_, id) = step.request.unwrap();
        s.on_answer(&grant(id, Kind::Land, 3 * S), S);
        assert_eq!(
            s.step(&seen([0.0, 0.0, 6.0], pad), 2 * S).phase,
            Phase::Landing
        );
        let step = s.step(&seen([0.0, 0.0, 4.0], pad), 3 * S);
        assert_eq!(step.phase, Phase::WaitingLand);
        assert_eq!(
            step.target,
            Target::Point([1.0, 0.0, 8.0]),
            "back to the layer"
        );
        // It settles again before it asks again.
        assert_eq!(step.request, None);
        assert_eq!(s.step(&seen([0.0, 0.0, 8.0], pad), 4 * S).request, None);
        assert_eq!(
            s.step(&seen([0.0, 0.0, 8.0], pad), 5 * S).request,
            Some((Kind::Land, id))
        );
    }

    #[test]
    fn the_supervisor_ending_the_sortie_aborts_it() {
        let mut s = Sortie::new(config());
        let mut o = seen([0.0, 0.0, 1.3], [0.0, 0.0, 1.2]);
        s.step(&o, S);
        o.supervisor_ended = true;
        let step = s.step(&o, 2 * S);
        assert_eq!((step.phase, step.request), (Phase::Aborted, None));
        assert_eq!(step.target, Target::Hold([0.0, 0.0, 1.3]));
    }
}
