//! The fleet station's clearance book: who may launch from or land on the carrier, one vehicle
//! at a time, as leases in simulation time.
//!
//! - A **request** (launch or land) is answered at once: a grant (a lease with an id and an
//!   expiry) or a refusal naming why. A request from the vehicle that already holds the lease
//!   for the same kind renews it (same id, new expiry): a request repeated because its answer
//!   was lost is harmless.
//! - A **progress report** from the holder, in a phase that belongs to its lease (launch:
//!   waiting on the pad or climbing; land: waiting in its layer or landing), renews the lease.
//!   A report that shows the manoeuvre done (launch: clear of the carrier; land: landed)
//!   **releases** it.
//! - A lease not renewed before its expiry **expires**: the vehicle went silent. The pad is
//!   not free yet (a silent vehicle may still be climbing off or descending onto it): it frees
//!   only when the vehicle is seen clear of the carrier, or when the lease's safety margin has
//!   passed since the expiry. Meanwhile every request is refused.
//! - So at most one lease is ever in force, whatever the order or delay of the messages: the
//!   book has one slot, and nothing but a release, a clearance seen or the margin empties it.
//! - **The layers below**: a lease keeps the deck's airspace for one vehicle, but a climb to
//!   (or a descent from) a layer crosses every lower layer over the pads. So a request is
//!   also refused while a vehicle of a lower layer is airborne in the way: for a launch,
//!   flying within the carrier's approach radius (a climb takes seconds: a vehicle farther
//!   out cannot reach the pads' column before it is done); for a landing, that too, or
//!   returning, holding or landing wherever it is (it is bound for the pads' column, where
//!   it will hold in its layer). The lowest airborne vehicle is never held by this rule, so
//!   landings go bottom layer first and nobody waits forever; a vehicle silent longer than
//!   the lease and its margin holds nobody.
//!
//! Everything here is pure (no DDS, no clock): the node feeds it the simulation time.

use std::fmt;

/// What a clearance is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Kind {
    /// Leaving the pad and climbing clear of the carrier.
    Launch,
    /// Descending onto the pad.
    Land,
}

impl Kind {
    /// The name used in messages and reports.
    pub fn name(self) -> &'static str {
        match self {
            Kind::Launch => "launch",
            Kind::Land => "land",
        }
    }
}

impl fmt::Display for Kind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Where a vehicle is in its sortie, as it reports it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Phase {
    /// On its pad, not asking for anything.
    OnPad,
    /// On its pad, asking for a launch clearance.
    WaitingLaunch,
    /// Climbing from the pad to its layer (under a launch lease).
    Climbing,
    /// Flying its inspection in its layer.
    Mission,
    /// Flying back to the carrier in its layer.
    Returning,
    /// Holding in its layer above the carrier, asking for a land clearance.
    WaitingLand,
    /// Descending onto its pad (under a land lease).
    Landing,
    /// Down on its pad.
    Landed,
    /// Its own supervisor ended the sortie (LAND or an abort): it coordinates no more.
    Aborted,
}

impl Phase {
    /// Every phase, in the order of a sortie (the wire values are the indices).
    pub const ALL: [Phase; 9] = [
        Phase::OnPad,
        Phase::WaitingLaunch,
        Phase::Climbing,
        Phase::Mission,
        Phase::Returning,
        Phase::WaitingLand,
        Phase::Landing,
        Phase::Landed,
        Phase::Aborted,
    ];

    /// The phase's name as `FleetStatus` spells its constant, without `PHASE_`
    /// (`WAITING_LAND`).
    pub fn name(self) -> &'static str {
        match self {
            Phase::OnPad => "ON_PAD",
            Phase::WaitingLaunch => "WAITING_LAUNCH",
            Phase::Climbing => "CLIMBING",
            Phase::Mission => "MISSION",
            Phase::Returning => "RETURNING",
            Phase::WaitingLand => "WAITING_LAND",
            Phase::Landing => "LANDING",
            Phase::Landed => "LANDED",
            Phase::Aborted => "ABORTED",
        }
    }

    /// The phase's value on the wire (`fieldproof_interfaces/msg/FleetStatus.phase`).
    pub fn wire(self) -> u8 {
        Phase::ALL.iter().position(|p| *p == self).unwrap_or(0) as u8
    }

    /// The phase of a wire value; `Err` names the value.
    pub fn from_wire(value: u8) -> Result<Phase, String> {
        Phase::ALL.get(usize::from(value)).copied().ok_or_else(|| {
            format!(
                "phase: {value} is not a phase (0..={})",
                Phase::ALL.len() - 1
            )
        })
    }

    /// Whether a vehicle in this phase is in the air (an aborted one coordinates no more).
    pub fn airborne(self) -> bool {
        matches!(
            self,
            Phase::Climbing
                | Phase::Mission
                | Phase::Returning
                | Phase::WaitingLand
                | Phase::Landing
        )
    }

    /// Whether a vehicle in this phase is on its way to or over the carrier wherever it is
    /// (it will hold in its layer over the pads' column).
    fn bound_for_the_carrier(self) -> bool {
        matches!(self, Phase::Returning | Phase::WaitingLand | Phase::Landing)
    }

    /// Whether a vehicle of a lower layer in this phase, `near_carrier` or not, is in the way
    /// of a `kind` manoeuvre of a higher one.
    fn in_the_way_of(self, kind: Kind, near_carrier: bool) -> bool {
        self.airborne()
            && match kind {
                Kind::Launch => near_carrier,
                Kind::Land => near_carrier || self.bound_for_the_carrier(),
            }
    }

    /// Whether a report in this phase renews a lease of `kind` (the holder is making
    /// progress with what the lease is for).
    fn renews(self, kind: Kind) -> bool {
        match kind {
            Kind::Launch => matches!(self, Phase::WaitingLaunch | Phase::Climbing),
            Kind::Land => matches!(self, Phase::WaitingLand | Phase::Landing),
        }
    }
}

/// The book's rules (parameters of `fleet_station`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LeaseRules {
    /// How long a lease lasts without renewal, seconds of simulation time.
    pub lease_s: f64,
    /// After an expiry, how long the pad stays reserved for the silent holder unless it is
    /// seen clear, seconds.
    pub safety_margin_s: f64,
}

impl Default for LeaseRules {
    fn default() -> Self {
        LeaseRules {
            lease_s: 5.0,
            safety_margin_s: 10.0,
        }
    }
}

impl LeaseRules {
    /// Checks the rules: both durations finite and positive; `Err` names the field and value.
    pub fn validate(&self) -> Result<(), String> {
        for (field, value) in [
            ("lease_s", self.lease_s),
            ("safety_margin_s", self.safety_margin_s),
        ] {
            if !(value.is_finite() && value > 0.0) {
                return Err(format!(
                    "{field}: {value} is not a positive number of seconds"
                ));
            }
        }
        Ok(())
    }
}

/// A vehicle's report to the station, as the book needs it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Report<'a> {
    /// The vehicle's name.
    pub vehicle: &'a str,
    /// Where it is in its sortie.
    pub phase: Phase,
    /// Clear of the deck's airspace (the station judges it from the position and the pads).
    pub clear: bool,
    /// Its cruise layer's altitude, metres (not finite: unknown).
    pub layer_m: f64,
    /// Within the carrier's approach radius, horizontally (or the carrier's pose unknown).
    pub near_carrier: bool,
}

/// The last report of a vehicle, for the layers rule.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Traffic {
    phase: Phase,
    layer_m: f64,
    near_carrier: bool,
    at_ns: i64,
}

/// A clearance granted to one vehicle.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Lease {
    /// Unique within a station's run, from 1.
    pub id: u32,
    /// The holder's name.
    pub vehicle: String,
    /// What it is for.
    pub kind: Kind,
    /// When it was granted, ns of simulation time.
    pub granted_ns: i64,
    /// When it ends unless renewed, ns.
    pub expires_ns: i64,
}

/// The answer to a request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Decision {
    /// Granted (or renewed): the lease in force.
    Granted(Lease),
    /// Refused, and why (a sentence naming the holder or the state).
    Refused(String),
}

/// What the book holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Slot {
    /// No lease: the next request is granted.
    Free,
    /// A lease in force.
    Held(Lease),
    /// A lease that expired at `expired_ns` (its holder went silent): reserved until the
    /// holder is seen clear or `free_at_ns` passes.
    Expired {
        /// The lease that expired.
        lease: Lease,
        /// When it expired, ns.
        expired_ns: i64,
        /// When the pad frees without news, ns.
        free_at_ns: i64,
    },
}

/// One change of the book, for the station's log and the run's evidence.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Event {
    /// A lease granted.
    Granted(Lease),
    /// A lease renewed.
    Renewed {
        /// The lease.
        id: u32,
        /// Its new expiry, ns.
        expires_ns: i64,
    },
    /// A lease released by its holder's progress.
    Released {
        /// The lease.
        id: u32,
        /// When, ns.
        at_ns: i64,
        /// Why (the report that showed the manoeuvre done).
        why: String,
    },
    /// A lease expired unrenewed.
    Expired {
        /// The lease.
        id: u32,
        /// Its expiry, ns.
        at_ns: i64,
    },
    /// An expired lease's reservation ended.
    Freed {
        /// The lease.
        id: u32,
        /// When, ns.
        at_ns: i64,
        /// Why: seen clear, or the margin passed.
        why: String,
    },
}

/// The clearance book (see the module documentation).
#[derive(Debug, Clone)]
pub struct LeaseBook {
    rules: LeaseRules,
    slot: Slot,
    traffic: std::collections::BTreeMap<String, Traffic>,
    next_id: u32,
    events: Vec<Event>,
}

fn nanos(seconds: f64) -> i64 {
    (seconds * 1e9).round() as i64
}

fn secs(ns: i64) -> f64 {
    ns as f64 / 1e9
}

impl LeaseBook {
    /// An empty book; `Err` if the rules are not valid.
    pub fn new(rules: LeaseRules) -> Result<LeaseBook, String> {
        rules.validate()?;
        Ok(LeaseBook {
            rules,
            slot: Slot::Free,
            traffic: Default::default(),
            next_id: 1,
            events: Vec::new(),
        })
    }

    /// What the book holds now (call [`LeaseBook::tick`] first for the current time).
    pub fn slot(&self) -> &Slot {
        &self.slot
    }

    /// The lease in force, if any.
    pub fn in_force(&self) -> Option<&Lease> {
        match &self.slot {
            Slot::Held(lease) => Some(lease),
            _ => None,
        }
    }

    /// Takes the events since the last call.
    pub fn take_events(&mut self) -> Vec<Event> {
        std::mem::take(&mut self.events)
    }

    /// Advances to `now_ns`: an unrenewed lease expires, an expired one's margin ends.
    pub fn tick(&mut self, now_ns: i64) {
        if let Slot::Held(lease) = &self.slot {
            if now_ns >= lease.expires_ns {
                let lease = lease.clone();
                self.events.push(Event::Expired {
                    id: lease.id,
                    at_ns: lease.expires_ns,
                });
                self.slot = Slot::Expired {
                    free_at_ns: lease.expires_ns + nanos(self.rules.safety_margin_s),
                    expired_ns: lease.expires_ns,
                    lease,
                };
            }
        }
        if let Slot::Expired {
            lease, free_at_ns, ..
        } = &self.slot
        {
            if now_ns >= *free_at_ns {
                self.events.push(Event::Freed {
                    id: lease.id,
                    at_ns: *free_at_ns,
                    why: format!(
                        "safety margin of {} s after the expiry passed",
                        self.rules.safety_margin_s
                    ),
                });
                self.slot = Slot::Free;
            }
        }
    }

    /// Answers `vehicle`'s request for a `kind` clearance at `now_ns`.
    pub fn request(&mut self, vehicle: &str, kind: Kind, now_ns: i64) -> Decision {
        self.tick(now_ns);
        let expires_ns = now_ns + nanos(self.rules.lease_s);
        match &mut self.slot {
            Slot::Free => {
                if let Some(why) = self.lower_layer_in_the_way(vehicle, kind, now_ns) {
                    return Decision::Refused(why);
                }
                let lease = Lease {
                    id: self.next_id,
                    vehicle: vehicle.to_string(),
                    kind,
                    granted_ns: now_ns,
                    expires_ns,
                };
                self.next_id += 1;
                self.events.push(Event::Granted(lease.clone()));
                self.slot = Slot::Held(lease.clone());
                Decision::Granted(lease)
            }
            Slot::Held(lease) if lease.vehicle == vehicle && lease.kind == kind => {
                lease.expires_ns = lease.expires_ns.max(expires_ns);
                self.events.push(Event::Renewed {
                    id: lease.id,
                    expires_ns: lease.expires_ns,
                });
                Decision::Granted(lease.clone())
            }
            Slot::Held(lease) if lease.vehicle == vehicle => Decision::Refused(format!(
                "{vehicle} still holds {} lease {} (until {:.2} s): finish or release it first",
                lease.kind,
                lease.id,
                secs(lease.expires_ns)
            )),
            Slot::Held(lease) => Decision::Refused(format!(
                "pad clearance held by {} ({} lease {} until {:.2} s)",
                lease.vehicle,
                lease.kind,
                lease.id,
                secs(lease.expires_ns)
            )),
            Slot::Expired {
                lease, free_at_ns, ..
            } => Decision::Refused(format!(
                "{}'s {} lease {} expired unrenewed: reserved until it is seen clear of the \
                 carrier or {:.2} s",
                lease.vehicle,
                lease.kind,
                lease.id,
                secs(*free_at_ns)
            )),
        }
    }

    /// The refusal of `vehicle`'s `kind` request while a vehicle of a lower layer is
    /// airborne in the way of its climb or descent (module documentation), if one is.
    fn lower_layer_in_the_way(&self, vehicle: &str, kind: Kind, now_ns: i64) -> Option<String> {
        let own_layer = self
            .traffic
            .get(vehicle)
            .map(|own| own.layer_m)
            .filter(|layer| layer.is_finite())
            .unwrap_or(f64::INFINITY);
        let silent_after = nanos(self.rules.lease_s + self.rules.safety_margin_s);
        self.traffic
            .iter()
            .filter(|(name, _)| name.as_str() != vehicle)
            .filter(|(_, other)| {
                other.layer_m < own_layer
                    && other.phase.in_the_way_of(kind, other.near_carrier)
                    && now_ns - other.at_ns <= silent_after
            })
            .min_by(|a, b| a.1.layer_m.total_cmp(&b.1.layer_m))
            .map(|(name, other)| {
                format!(
                    "{name} is airborne in a lower layer ({} m, {:?}{}): it crosses the {kind} \
                     path first",
                    other.layer_m,
                    other.phase,
                    if other.near_carrier {
                        ", near the carrier"
                    } else {
                        ""
                    }
                )
            })
    }

    /// Records `report` at `now_ns` (for the layers rule) and, from its holder, renews,
    /// releases or frees the lease as the module documentation says: `report.clear` tells
    /// whether it is clear of the carrier (out of the deck's airspace or, for a landing, down
    /// on its pad).
    pub fn progress(&mut self, report: &Report, now_ns: i64) {
        let Report {
            vehicle,
            phase,
            clear,
            layer_m,
            near_carrier,
        } = *report;
        self.traffic.insert(
            vehicle.to_string(),
            Traffic {
                phase,
                layer_m,
                near_carrier,
                at_ns: now_ns,
            },
        );
        self.tick(now_ns);
        match &mut self.slot {
            Slot::Held(lease) if lease.vehicle == vehicle => {
                let done = match lease.kind {
                    Kind::Launch => {
                        (clear && !phase.renews(Kind::Launch)) || phase == Phase::Aborted
                    }
                    Kind::Land => phase == Phase::Landed || phase == Phase::Aborted,
                };
                if done {
                    let why = format!(
                        "{vehicle} reported {phase:?}{}",
                        if clear { ", clear" } else { "" }
                    );
                    self.events.push(Event::Released {
                        id: lease.id,
                        at_ns: now_ns,
                        why,
                    });
                    self.slot = Slot::Free;
                } else if phase.renews(lease.kind) {
                    lease.expires_ns = lease.expires_ns.max(now_ns + nanos(self.rules.lease_s));
                    self.events.push(Event::Renewed {
                        id: lease.id,
                        expires_ns: lease.expires_ns,
                    });
                }
            }
            Slot::Expired { lease, .. } if lease.vehicle == vehicle => {
                let seen_clear = match lease.kind {
                    Kind::Launch => clear,
                    Kind::Land => clear || phase == Phase::Landed,
                };
                if seen_clear {
                    self.events.push(Event::Freed {
                        id: lease.id,
                        at_ns: now_ns,
                        why: format!("{vehicle} seen clear ({phase:?}) after its lease expired"),
                    });
                    self.slot = Slot::Free;
                }
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    const S: i64 = 1_000_000_000;

    /// The phases' names and wire values are FleetStatus.msg's `PHASE_*` constants, read
    /// from the .msg file itself.
    #[test]
    fn phase_names_and_wire_values_are_the_message_constants() {
        let msg = include_str!("../../fieldproof_interfaces/msg/FleetStatus.msg");
        let constants: Vec<(String, u8)> = msg
            .lines()
            .filter_map(|line| line.split('#').next()?.trim().strip_prefix("uint8 PHASE_"))
            .filter_map(|rest| {
                let (name, value) = rest.split_once('=')?;
                Some((name.trim().to_string(), value.trim().parse().ok()?))
            })
            .collect();
        let ours: Vec<(String, u8)> = Phase::ALL
            .iter()
            .map(|p| (p.name().to_string(), p.wire()))
            .collect();
        assert_eq!(ours, constants);
        for (name, wire) in constants {
            assert_eq!(Phase::from_wire(wire).map(Phase::name), Ok(name.as_str()));
        }
        assert!(Phase::from_wire(9).unwrap_err().contains("phase: 9"));
    }

    fn book() -> LeaseBook {
        LeaseBook::new(LeaseRules {
            lease_s: 5.0,
            safety_margin_s: 10.0,
        })
        .unwrap()
    }

    /// A report with no layer known (the layers rule holds nobody).
    fn report(vehicle: &str, phase: Phase, clear: bool) -> Report<'_> {
        Report {
            vehicle,
            phase,
            clear,
            layer_m: f64::NAN,
            near_carrier: false,
        }
    }

    /// A report of `vehicle` in its `layer_m`, not clear of the deck.
    fn in_layer(vehicle: &str, phase: Phase, layer_m: f64, near_carrier: bool) -> Report<'_> {
        Report {
            vehicle,
            phase,
            clear: false,
            layer_m,
            near_carrier,
        }
    }

    #[test]
    fn a_land_lease_waits_for_every_lower_layer_in_the_way() {
        // Run 23 of stop 33: quad2 descended from 8 m onto pad 1 through quad1's 6 m layer
        // while quad1 flew back over the pads: they met at 6.2 m.
        let mut b = book();
        b.progress(&in_layer("quad1", Phase::Returning, 6.0, false), S);
        b.progress(&in_layer("quad2", Phase::WaitingLand, 8.0, true), S);
        let why = refused(b.request("quad2", Kind::Land, 2 * S));
        assert_eq!(
            why,
            "quad1 is airborne in a lower layer (6 m, Returning): it crosses the land path first"
        );
        // The lowest is never held: it lands first, then the next.
        granted(b.request("quad1", Kind::Land, 3 * S));
        b.progress(&in_layer("quad1", Phase::Landing, 6.0, true), 4 * S);
        b.progress(&in_layer("quad1", Phase::Landed, 6.0, true), 8 * S);
        granted(b.request("quad2", Kind::Land, 9 * S));
    }

    #[test]
    fn a_lower_layer_holds_only_when_in_the_way_and_not_silent() {
        let mut b = book();
        b.progress(&in_layer("quad3", Phase::WaitingLand, 10.0, true), 0);
        // Inspecting far away: not in the way.
        b.progress(&in_layer("quad1", Phase::Mission, 6.0, false), 0);
        // Down, or aborted: not airborne.
        b.progress(&in_layer("quad2", Phase::Landed, 8.0, true), 0);
        let lease = granted(b.request("quad3", Kind::Land, S));
        b.progress(&in_layer("quad3", Phase::Landed, 10.0, true), 2 * S);
        assert_eq!(b.slot(), &Slot::Free, "{lease:?} released");
        // A launch through a lower layer flown near the carrier waits for it to move off.
        b.progress(&in_layer("quad3", Phase::WaitingLaunch, 10.0, true), 3 * S);
        b.progress(&in_layer("quad1", Phase::Mission, 6.0, true), 3 * S);
        let why = refused(b.request("quad3", Kind::Launch, 3 * S));
        assert!(
            why.contains("quad1") && why.contains("near the carrier"),
            "{why}"
        );
        // Nor by one returning from beyond the approach radius (a landing is).
        b.progress(&in_layer("quad1", Phase::Returning, 6.0, false), 3 * S);
        granted(b.request("quad3", Kind::Launch, 3 * S));
        b.progress(
            &Report {
                clear: true,
                ..in_layer("quad3", Phase::Mission, 10.0, false)
            },
            3 * S,
        );
        // A higher layer never holds a lower one.
        b.progress(&in_layer("quad2", Phase::WaitingLaunch, 8.0, true), 3 * S);
        b.progress(&in_layer("quad1", Phase::Mission, 6.0, false), 4 * S);
        granted(b.request("quad2", Kind::Launch, 4 * S));
        // A vehicle silent longer than the lease and its margin holds nobody.
        let mut b = book();
        b.progress(&in_layer("quad1", Phase::Returning, 6.0, false), 0);
        b.progress(&in_layer("quad2", Phase::WaitingLand, 8.0, true), 15 * S);
        refused(b.request("quad2", Kind::Land, 15 * S));
        granted(b.request("quad2", Kind::Land, 15 * S + 1));
    }

    fn granted(decision: Decision) -> Lease {
        match decision {
            Decision::Granted(lease) => lease,
            Decision::Refused(why) => panic!("refused: {why}"),
        }
    }

    fn refused(decision: Decision) -> String {
        match decision {
            Decision::Refused(why) => why,
            Decision::Granted(lease) => panic!("granted: {lease:?}"),
        }
    }

    #[test]
    fn one_vehicle_at_a_time_and_a_repeated_request_renews() {
        let mut b = book();
        let lease = granted(b.request("quad1", Kind::Launch, S));
        assert_eq!((lease.id, lease.expires_ns), (1, 6 * S));
        let why = refused(b.request("quad2", Kind::Launch, 2 * S));
        assert!(
            why.contains("held by quad1") && why.contains("launch lease 1"),
            "{why}"
        );
        let again = granted(b.request("quad1", Kind::Launch, 3 * S));
        assert_eq!(
            (again.id, again.expires_ns),
            (1, 8 * S),
            "renewed, not a second lease"
        );
        let why = refused(b.request("quad1", Kind::Land, 3 * S));
        assert!(why.contains("still holds launch lease 1"), "{why}");
    }

    #[test]
    fn progress_renews_and_clearing_releases() {
        let mut b = book();
        granted(b.request("quad1", Kind::Launch, 0));
        b.progress(&report("quad1", Phase::Climbing, false), 4 * S);
        assert_eq!(b.in_force().unwrap().expires_ns, 9 * S);
        // Another vehicle's report changes nothing.
        b.progress(&report("quad2", Phase::Mission, true), 5 * S);
        assert_eq!(b.in_force().unwrap().vehicle, "quad1");
        // Still climbing but clear of the deck: not done until it leaves the launch phases.
        b.progress(&report("quad1", Phase::Climbing, true), 6 * S);
        assert!(b.in_force().is_some());
        b.progress(&report("quad1", Phase::Mission, true), 7 * S);
        assert_eq!(b.slot(), &Slot::Free);
        let lease = granted(b.request("quad2", Kind::Launch, 7 * S));
        assert_eq!(lease.id, 2);
    }

    #[test]
    fn a_landing_is_released_when_landed() {
        let mut b = book();
        granted(b.request("quad3", Kind::Land, 0));
        b.progress(&report("quad3", Phase::Landing, false), 2 * S);
        refused(b.request("quad1", Kind::Land, 3 * S));
        b.progress(&report("quad3", Phase::Landed, true), 4 * S);
        assert_eq!(b.slot(), &Slot::Free);
        let events = b.take_events();
        assert!(
            matches!(events.last(), Some(Event::Released { id: 1, .. })),
            "{events:?}"
        );
    }

    #[test]
    fn a_silent_holder_keeps_the_pad_until_seen_clear_or_the_margin_passes() {
        let mut b = book();
        granted(b.request("quad1", Kind::Land, 0));
        b.tick(5 * S);
        assert!(matches!(b.slot(), Slot::Expired { .. }));
        let why = refused(b.request("quad2", Kind::Land, 6 * S));
        assert!(
            why.contains("expired unrenewed") && why.contains("15.00 s"),
            "{why}"
        );
        // Its own late renewal cannot revive an expired lease.
        refused(b.request("quad1", Kind::Land, 7 * S));
        b.tick(15 * S - 1);
        assert!(matches!(b.slot(), Slot::Expired { .. }));
        b.tick(15 * S);
        assert_eq!(b.slot(), &Slot::Free);

        let mut b = book();
        granted(b.request("quad1", Kind::Launch, 0));
        b.tick(6 * S);
        b.progress(&report("quad1", Phase::Mission, true), 8 * S);
        assert_eq!(
            b.slot(),
            &Slot::Free,
            "seen clear frees it before the margin"
        );
    }

    #[test]
    fn rules_and_phases_are_checked() {
        let bad = LeaseRules {
            lease_s: 0.0,
            safety_margin_s: 1.0,
        };
        assert_eq!(
            LeaseBook::new(bad).unwrap_err(),
            "lease_s: 0 is not a positive number of seconds"
        );
        for phase in Phase::ALL {
            assert_eq!(Phase::from_wire(phase.wire()), Ok(phase));
        }
        assert_eq!(
            Phase::from_wire(9).unwrap_err(),
            "phase: 9 is not a phase (0..=8)"
        );
    }

    #[derive(Debug, Clone)]
    enum Step {
        Request(usize, bool),
        Progress(usize, usize, bool, bool),
        Tick,
    }

    fn step() -> impl Strategy<Value = Step> {
        prop_oneof![
            (0..3usize, any::<bool>()).prop_map(|(v, land)| Step::Request(v, land)),
            (0..3usize, 0..Phase::ALL.len(), any::<bool>(), any::<bool>())
                .prop_map(|(v, p, clear, near)| Step::Progress(v, p, clear, near)),
            Just(Step::Tick),
        ]
    }

    proptest! {
        /// Whatever arrives in whatever order and with whatever gaps, a grant is never given
        /// while another vehicle's lease is in force or reserved, nor while a vehicle of a
        /// lower layer (quad1 6 m, quad2 8 m, quad3 10 m) last reported itself airborne in
        /// the way less than 15 s ago; and ids only grow.
        #[test]
        fn never_two_leases(steps in prop::collection::vec((step(), 0..4_000_000_000i64), 1..200)) {
            let names = ["quad1", "quad2", "quad3"];
            let mut b = book();
            let mut now = 0;
            let mut last_id = 0;
            let mut last_report: [Option<(Phase, bool, i64)>; 3] = [None; 3];
            for (step, gap) in steps {
                now += gap;
                let before = b.slot().clone();
                match step {
                    Step::Request(v, land) => {
                        let kind = if land { Kind::Land } else { Kind::Launch };
                        b.tick(now);
                        let reserved = b.slot().clone();
                        if let Decision::Granted(lease) = b.request(names[v], kind, now) {
                            match reserved {
                                Slot::Free => {
                                    prop_assert!(lease.id > last_id);
                                    for (lower, report) in last_report.iter().enumerate().take(v) {
                                        if let Some((phase, near, at)) = report {
                                            let in_the_way = phase.airborne()
                                                && (*near || (kind == Kind::Land && matches!(phase,
                                                    Phase::Returning | Phase::WaitingLand | Phase::Landing)));
                                            prop_assert!(!(in_the_way && now - at <= 15 * S),
                                                "{} granted over {} {:?}", names[v], names[lower], report);
                                        }
                                    }
                                }
                                Slot::Held(held) => {
                                    prop_assert_eq!(&held.vehicle, names[v]);
                                    prop_assert_eq!(held.id, lease.id);
                                }
                                Slot::Expired { .. } => prop_assert!(false, "granted over {:?}", before),
                            }
                            last_id = last_id.max(lease.id);
                            prop_assert!(lease.expires_ns > now);
                        }
                    }
                    Step::Progress(v, p, clear, near) => {
                        let layer_m = 6.0 + 2.0 * v as f64;
                        b.progress(&Report { clear, ..in_layer(names[v], Phase::ALL[p], layer_m, near) }, now);
                        last_report[v] = Some((Phase::ALL[p], near, now));
                    }
                    Step::Tick => b.tick(now),
                }
            }
        }
    }
}
