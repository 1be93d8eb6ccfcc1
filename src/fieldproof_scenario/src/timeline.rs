//! The timeline engine: decides, from the simulation time it is fed and the topic
//! conditions, which entries start and which end (a fault with `duration_s` is cleared, a
//! dropped link restored). It does no I/O: the runner executes the events and records each
//! outcome, so the engine is tested without DDS.
//!
//! Triggers: `at` fires once at that time; `after` once the other entry has ended (plus
//! `delay_s`); `when` the first time its condition holds; `every` at `start_s + k·period`
//! (bounded by `count` and `until_s`). An entry without `duration_s` ends when it starts.
//!
//! A poll starts each entry at most once: an `every` entry that fell behind (a slow step, a
//! period shorter than the step) fires once for all the slots it missed, counted in
//! [`EntryState::coalesced`], and goes on at its next slot after now; so a step's events
//! and the memory the engine holds are bounded by the entries and their firings.

use crate::model::{Condition, Entry, Trigger};
use serde::Serialize;

/// What the runner must do now.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Event {
    /// Start entry `i` (run its action).
    Start(usize),
    /// End entry `i` (clear its fault / restore its link).
    End(usize),
}

/// One firing of an entry and what came of it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Firing {
    /// Simulation time it started (s from the timeline's start).
    pub started_s: f64,
    /// When it ended (`None` while it lasts or when the run ended first).
    pub ended_s: Option<f64>,
    /// What the start did (`dropped for 30 s`, `set /ugv1/relay dropout=true`).
    pub outcome: Option<String>,
    /// What the end did (`lte_rural restored`).
    pub end_outcome: Option<String>,
    /// The error, if the action failed.
    pub error: Option<String>,
}

/// The state of one entry.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct EntryState {
    /// Every firing in order.
    pub firings: Vec<Firing>,
    /// When the entry as a whole has ended (what `after` waits for).
    pub ended_s: Option<f64>,
    /// `every` slots that passed while the entry was behind, folded into the firing that
    /// caught up instead of firing each.
    #[serde(skip_serializing_if = "is_zero")]
    pub coalesced: u64,
    /// The `every` slot due next (`start_s + next_slot · period_s`).
    #[serde(skip)]
    next_slot: u64,
    #[serde(skip)]
    pending_ends: Vec<(f64, usize)>,
    #[serde(skip)]
    done_firing: bool,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

/// When slot `slot` of an `every` trigger is due.
fn slot_time(period_s: f64, start_s: f64, slot: u64) -> f64 {
    start_s + period_s * slot as f64
}

/// The engine.
#[derive(Debug, Clone)]
pub struct Timeline {
    entries: Vec<Entry>,
    states: Vec<EntryState>,
}

impl Timeline {
    /// An engine over validated entries.
    pub fn new(entries: Vec<Entry>) -> Self {
        let states = vec![EntryState::default(); entries.len()];
        Timeline { entries, states }
    }

    /// The entries.
    pub fn entries(&self) -> &[Entry] {
        &self.entries
    }

    /// The state of every entry.
    pub fn states(&self) -> &[EntryState] {
        &self.states
    }

    /// When entry `i` first started.
    pub fn started_s(&self, i: usize) -> Option<f64> {
        self.states[i].firings.first().map(|f| f.started_s)
    }

    /// When entry `i` ended (its first firing's end, for the assertion windows).
    pub fn ended_s(&self, i: usize) -> Option<f64> {
        self.states[i].firings.first().and_then(|f| f.ended_s)
    }

    /// The next time something is due (for pacing), ignoring `when` triggers.
    pub fn next_due(&self) -> Option<f64> {
        let mut best: Option<f64> = None;
        let mut take = |t: f64| best = Some(best.map_or(t, |b: f64| b.min(t)));
        for (i, e) in self.entries.iter().enumerate() {
            let st = &self.states[i];
            for &(t, _) in &st.pending_ends {
                take(t);
            }
            if st.done_firing {
                continue;
            }
            match &e.trigger {
                Trigger::At(t) => take(*t),
                Trigger::After { entry, delay_s } => {
                    if let Some(te) = self.states[*entry].ended_s {
                        take(te + delay_s);
                    }
                }
                Trigger::Every {
                    period_s, start_s, ..
                } => take(slot_time(*period_s, *start_s, st.next_slot)),
                Trigger::When(_) => {}
            }
        }
        best
    }

    /// Advances to `now` (s from the timeline's start) and returns what is due, ends first,
    /// in time order. `holds` evaluates a `when` condition on the newest samples. Each entry
    /// starts at most once per poll (see the module's documentation).
    pub fn poll(&mut self, now: f64, holds: &dyn Fn(&Condition) -> bool) -> Vec<Event> {
        let mut out = Vec::new();
        let mut started: Vec<usize> = Vec::new();
        loop {
            let mut changed = false;
            // Ends due.
            let mut ends: Vec<(f64, usize, usize)> = Vec::new();
            for (i, st) in self.states.iter().enumerate() {
                for &(t, k) in &st.pending_ends {
                    if t <= now + 1e-9 {
                        ends.push((t, i, k));
                    }
                }
            }
            ends.sort_by(|a, b| a.0.total_cmp(&b.0));
            for (t, i, k) in ends {
                let st = &mut self.states[i];
                st.pending_ends.retain(|&(_, kk)| kk != k);
                st.firings[k].ended_s = Some(t);
                out.push(Event::End(i));
                self.settle(i, t);
                changed = true;
            }
            // Starts due, each entry once per poll.
            for i in 0..self.entries.len() {
                if self.states[i].done_firing || started.contains(&i) {
                    continue;
                }
                let due = match &self.entries[i].trigger {
                    Trigger::At(t) => (*t <= now + 1e-9).then_some(now),
                    Trigger::After { entry, delay_s } => self.states[*entry]
                        .ended_s
                        .filter(|te| te + delay_s <= now + 1e-9)
                        .map(|_| now),
                    Trigger::When(c) => (now >= 0.0 && holds(c)).then_some(now),
                    Trigger::Every {
                        period_s, start_s, ..
                    } => {
                        let t = slot_time(*period_s, *start_s, self.states[i].next_slot);
                        (t <= now + 1e-9).then_some(now)
                    }
                };
                if let Some(t) = due {
                    started.push(i);
                    self.fire(i, t);
                    out.push(Event::Start(i));
                    changed = true;
                }
            }
            if !changed {
                break;
            }
        }
        out
    }

    fn fire(&mut self, i: usize, t: f64) {
        let e = &self.entries[i];
        let st = &mut self.states[i];
        let k = st.firings.len();
        st.firings.push(Firing {
            started_s: t,
            ended_s: None,
            outcome: None,
            end_outcome: None,
            error: None,
        });
        st.done_firing = match &e.trigger {
            Trigger::Every {
                period_s,
                start_s,
                until_s,
                count,
            } => {
                // The first slot after `t`; the ones in between are coalesced into this firing.
                let caught_up = ((t + 1e-9 - start_s) / period_s).floor() + 1.0;
                let next = if caught_up.is_finite() && caught_up > 0.0 {
                    // Saturates for a period too small for the slot count to be exact.
                    (caught_up as u64).max(st.next_slot + 1)
                } else {
                    st.next_slot + 1
                };
                st.coalesced += next - st.next_slot - 1;
                st.next_slot = next;
                count.is_some_and(|c| next >= u64::from(c))
                    || until_s.is_some_and(|u| slot_time(*period_s, *start_s, next) > u + 1e-9)
            }
            _ => true,
        };
        match e
            .duration_s
            .filter(|d| *d > 0.0 && e.action_name != "battery.drain")
        {
            Some(d) => st.pending_ends.push((t + d, k)),
            None => st.firings[k].ended_s = Some(t),
        }
        self.settle(i, t);
    }

    /// Marks the entry ended once it fires no more and nothing is pending.
    fn settle(&mut self, i: usize, t: f64) {
        let st = &mut self.states[i];
        if st.done_firing && st.pending_ends.is_empty() && st.ended_s.is_none() {
            st.ended_s = Some(t);
        }
    }

    /// Records what the last start (`end == false`) or end of entry `i` did.
    pub fn record(&mut self, i: usize, end: bool, result: Result<String, String>) {
        let st = &mut self.states[i];
        let f = if end {
            st.firings
                .iter_mut()
                .rev()
                .find(|f| f.ended_s.is_some() && f.end_outcome.is_none() && f.outcome.is_some())
        } else {
            st.firings.last_mut()
        };
        if let Some(f) = f {
            match (end, result) {
                (false, Ok(s)) => f.outcome = Some(s),
                (true, Ok(s)) => f.end_outcome = Some(s),
                (_, Err(e)) => f.error = Some(e),
            }
        }
    }

    /// Entries that never started (for the record).
    pub fn never_started(&self) -> Vec<&str> {
        self.entries
            .iter()
            .zip(&self.states)
            .filter(|(_, s)| s.firings.is_empty())
            .map(|(e, _)| e.name.as_str())
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Action, Op, Value};

    fn entry(name: &str, trigger: Trigger, duration_s: Option<f64>) -> Entry {
        Entry {
            name: name.into(),
            action_name: "link.drop".into(),
            vehicle: Some("ugv1".into()),
            trigger,
            action: Action::LinkDrop,
            duration_s,
        }
    }

    fn run(tl: &mut Timeline, until: f64, holds: &dyn Fn(&Condition) -> bool) -> Vec<(f64, Event)> {
        let mut out = Vec::new();
        let mut t = 0.0;
        while t <= until + 1e-9 {
            for e in tl.poll(t, holds) {
                out.push(((t * 10.0).round() / 10.0, e));
            }
            t += 0.1;
        }
        out
    }

    #[test]
    fn at_with_duration_starts_and_ends_then_after_follows() {
        let mut tl = Timeline::new(vec![
            entry("drop", Trigger::At(5.0), Some(30.0)),
            entry(
                "next",
                Trigger::After {
                    entry: 0,
                    delay_s: 2.0,
                },
                None,
            ),
        ]);
        let ev = run(&mut tl, 40.0, &|_| false);
        assert_eq!(
            ev,
            vec![
                (5.0, Event::Start(0)),
                (35.0, Event::End(0)),
                (37.0, Event::Start(1))
            ]
        );
        assert!((tl.started_s(0).unwrap() - 5.0).abs() < 1e-6);
        assert!((tl.ended_s(0).unwrap() - 35.0).abs() < 1e-6);
        assert!(tl.never_started().is_empty());
    }

    #[test]
    fn after_with_zero_delay_fires_in_the_same_poll() {
        let mut tl = Timeline::new(vec![
            entry("a", Trigger::At(1.0), None),
            entry(
                "b",
                Trigger::After {
                    entry: 0,
                    delay_s: 0.0,
                },
                None,
            ),
            entry(
                "c",
                Trigger::After {
                    entry: 1,
                    delay_s: 0.0,
                },
                None,
            ),
        ]);
        assert!(tl.poll(0.5, &|_| false).is_empty());
        assert_eq!(
            tl.poll(1.0, &|_| false),
            vec![Event::Start(0), Event::Start(1), Event::Start(2)]
        );
        assert!(tl.poll(2.0, &|_| false).is_empty());
    }

    #[test]
    fn every_respects_count_and_until() {
        let mut tl = Timeline::new(vec![
            entry(
                "tick",
                Trigger::Every {
                    period_s: 10.0,
                    start_s: 5.0,
                    until_s: None,
                    count: Some(3),
                },
                None,
            ),
            entry(
                "tock",
                Trigger::Every {
                    period_s: 4.0,
                    start_s: 0.0,
                    until_s: Some(9.0),
                    count: None,
                },
                Some(1.0),
            ),
        ]);
        let ev = run(&mut tl, 60.0, &|_| false);
        let starts0: Vec<f64> = ev
            .iter()
            .filter(|e| e.1 == Event::Start(0))
            .map(|e| e.0)
            .collect();
        assert_eq!(starts0, vec![5.0, 15.0, 25.0]);
        let starts1: Vec<f64> = ev
            .iter()
            .filter(|e| e.1 == Event::Start(1))
            .map(|e| e.0)
            .collect();
        assert_eq!(starts1, vec![0.0, 4.0, 8.0]);
        let ends1: Vec<f64> = ev
            .iter()
            .filter(|e| e.1 == Event::End(1))
            .map(|e| e.0)
            .collect();
        assert_eq!(ends1, vec![1.0, 5.0, 9.0]);
        assert!((tl.states()[1].ended_s.unwrap() - 9.0).abs() < 1e-6);
        assert!((tl.states()[0].ended_s.unwrap() - 25.0).abs() < 1e-6);
    }

    #[test]
    fn every_that_fell_behind_fires_once_per_poll_and_coalesces() {
        // A period far shorter than the step: one start per poll, never a burst.
        let mut tl = Timeline::new(vec![entry(
            "fast",
            Trigger::Every {
                period_s: 1e-12,
                start_s: 0.0,
                until_s: None,
                count: None,
            },
            None,
        )]);
        for step in 0..100 {
            let events = tl.poll(f64::from(step) * 0.1, &|_| false);
            assert_eq!(events, vec![Event::Start(0)], "step {step}");
        }
        assert_eq!(tl.states()[0].firings.len(), 100);
        assert!(tl.states()[0].coalesced > 1_000_000_000);

        // A 1 s period polled after a 5.5 s stall: one firing for the five missed slots,
        // then back on the schedule; count bounds the slots, not the firings.
        let mut tl = Timeline::new(vec![entry(
            "tick",
            Trigger::Every {
                period_s: 1.0,
                start_s: 0.0,
                until_s: None,
                count: Some(8),
            },
            None,
        )]);
        assert_eq!(tl.poll(0.0, &|_| false), vec![Event::Start(0)]);
        assert_eq!(tl.poll(5.5, &|_| false), vec![Event::Start(0)]);
        assert_eq!(tl.states()[0].coalesced, 4);
        assert_eq!(tl.next_due(), Some(6.0));
        assert!(tl.poll(5.9, &|_| false).is_empty());
        assert_eq!(tl.poll(6.0, &|_| false), vec![Event::Start(0)]);
        assert_eq!(tl.poll(7.0, &|_| false), vec![Event::Start(0)]);
        assert!(tl.poll(20.0, &|_| false).is_empty());
        let starts: Vec<f64> = tl.states()[0].firings.iter().map(|f| f.started_s).collect();
        assert_eq!(starts, vec![0.0, 5.5, 6.0, 7.0]);
        assert!((tl.states()[0].ended_s.unwrap() - 7.0).abs() < 1e-9);
    }

    #[test]
    fn when_fires_once_when_the_condition_holds() {
        let cond = Condition {
            topic: "/ugv1/odom".into(),
            fields: vec!["x".into()],
            op: Op::Gt,
            value: Value::Number(1.0),
            abs: false,
        };
        let mut tl = Timeline::new(vec![entry("w", Trigger::When(cond), None)]);
        let x = std::cell::Cell::new(0.0);
        let holds = |_: &Condition| x.get() > 1.0;
        assert!(tl.poll(1.0, &holds).is_empty());
        x.set(2.0);
        assert_eq!(tl.poll(2.0, &holds), vec![Event::Start(0)]);
        assert!(tl.poll(3.0, &holds).is_empty());
    }

    #[test]
    fn next_due_and_outcomes() {
        let mut tl = Timeline::new(vec![entry("drop", Trigger::At(5.0), Some(30.0))]);
        assert_eq!(tl.next_due(), Some(5.0));
        tl.poll(5.0, &|_| false);
        tl.record(0, false, Ok("dropped for 30 s".into()));
        assert_eq!(tl.next_due(), Some(35.0));
        tl.poll(35.0, &|_| false);
        tl.record(0, true, Ok("lte_rural restored".into()));
        let f = &tl.states()[0].firings[0];
        assert_eq!(f.outcome.as_deref(), Some("dropped for 30 s"));
        assert_eq!(f.end_outcome.as_deref(), Some("lte_rural restored"));
        assert_eq!(tl.next_due(), None);
    }
}
