//! The managed-node state machine of `rcl_lifecycle`'s default state machine, pure (no DDS):
//! states, transitions by id or label, the node's callbacks, and the transition events.
//!
//! ```text
//! unconfigured --configure--> configuring --success--> inactive
//! inactive --activate--> activating --success--> active
//! active --deactivate--> deactivating --success--> inactive
//! inactive --cleanup--> cleaningup --success--> unconfigured
//! unconfigured|inactive|active --shutdown--> shuttingdown --success|failure--> finalized
//! configuring|activating|... --error--> errorprocessing --success--> unconfigured
//!                                                       --failure|error--> finalized
//! ```
//!
//! A callback's failure goes back to the primary state the transition started from
//! (shutting down goes to finalized regardless); its error goes to errorprocessing, where
//! `on_error` decides between unconfigured and finalized.

use crate::msgs::lifecycle_msgs::{State, Transition, TransitionDescription, TransitionEvent};

/// What a lifecycle callback reports, as rclcpp's `CallbackReturn`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CallbackReturn {
    /// The transition completes.
    Success,
    /// The transition is refused: back to the state it started from.
    Failure,
    /// Something broke: the node goes to errorprocessing (`on_error`).
    Error,
}

/// The callbacks of a managed node, one per transition state; each receives the primary
/// state the transition started from. All default to [`CallbackReturn::Success`].
pub trait Callbacks: Send + 'static {
    /// unconfigured -> configuring: read parameters, set up.
    fn on_configure(&mut self, _previous: &State) -> CallbackReturn {
        CallbackReturn::Success
    }
    /// inactive -> activating: start serving.
    fn on_activate(&mut self, _previous: &State) -> CallbackReturn {
        CallbackReturn::Success
    }
    /// active -> deactivating: stop serving.
    fn on_deactivate(&mut self, _previous: &State) -> CallbackReturn {
        CallbackReturn::Success
    }
    /// inactive -> cleaningup: undo the configuration.
    fn on_cleanup(&mut self, _previous: &State) -> CallbackReturn {
        CallbackReturn::Success
    }
    /// unconfigured/inactive/active -> shuttingdown.
    fn on_shutdown(&mut self, _previous: &State) -> CallbackReturn {
        CallbackReturn::Success
    }
    /// A callback returned [`CallbackReturn::Error`]: success recovers to unconfigured,
    /// anything else finalizes.
    fn on_error(&mut self, _previous: &State) -> CallbackReturn {
        CallbackReturn::Success
    }
}

/// A node that accepts every transition.
impl Callbacks for () {}

/// Why a transition request was refused before any callback ran.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LifecycleError {
    /// The machine is inside a transition (a callback is running).
    #[error("transition requested while in transition state '{state}'")]
    InTransition {
        /// The current (transition) state's label.
        state: String,
    },
    /// No such transition from the current state.
    #[error("transition {transition} is not valid from state '{state}'")]
    InvalidTransition {
        /// The transition requested (`id 3` or `label 'activate'`).
        transition: String,
        /// The current state's label.
        state: String,
    },
}

/// Every state of the machine, id and label, as `rcl_lifecycle` registers them.
const STATES: [(u8, &str); 11] = [
    (State::PRIMARY_STATE_UNKNOWN, "unknown"),
    (State::PRIMARY_STATE_UNCONFIGURED, "unconfigured"),
    (State::PRIMARY_STATE_INACTIVE, "inactive"),
    (State::PRIMARY_STATE_ACTIVE, "active"),
    (State::PRIMARY_STATE_FINALIZED, "finalized"),
    (State::TRANSITION_STATE_CONFIGURING, "configuring"),
    (State::TRANSITION_STATE_CLEANINGUP, "cleaningup"),
    (State::TRANSITION_STATE_SHUTTINGDOWN, "shuttingdown"),
    (State::TRANSITION_STATE_ACTIVATING, "activating"),
    (State::TRANSITION_STATE_DEACTIVATING, "deactivating"),
    (State::TRANSITION_STATE_ERRORPROCESSING, "errorprocessing"),
];

/// One edge: transition id, label, start state, goal state.
type Edge = (u8, &'static str, u8, u8);

/// The transitions a client may request, from a primary state into a transition state.
const REQUESTABLE: [Edge; 7] = [
    (
        T::TRANSITION_CONFIGURE,
        "configure",
        S::PRIMARY_STATE_UNCONFIGURED,
        S::TRANSITION_STATE_CONFIGURING,
    ),
    (
        T::TRANSITION_CLEANUP,
        "cleanup",
        S::PRIMARY_STATE_INACTIVE,
        S::TRANSITION_STATE_CLEANINGUP,
    ),
    (
        T::TRANSITION_ACTIVATE,
        "activate",
        S::PRIMARY_STATE_INACTIVE,
        S::TRANSITION_STATE_ACTIVATING,
    ),
    (
        T::TRANSITION_DEACTIVATE,
        "deactivate",
        S::PRIMARY_STATE_ACTIVE,
        S::TRANSITION_STATE_DEACTIVATING,
    ),
    (
        T::TRANSITION_UNCONFIGURED_SHUTDOWN,
        "shutdown",
        S::PRIMARY_STATE_UNCONFIGURED,
        S::TRANSITION_STATE_SHUTTINGDOWN,
    ),
    (
        T::TRANSITION_INACTIVE_SHUTDOWN,
        "shutdown",
        S::PRIMARY_STATE_INACTIVE,
        S::TRANSITION_STATE_SHUTTINGDOWN,
    ),
    (
        T::TRANSITION_ACTIVE_SHUTDOWN,
        "shutdown",
        S::PRIMARY_STATE_ACTIVE,
        S::TRANSITION_STATE_SHUTTINGDOWN,
    ),
];

/// From each transition state: the edges taken on success, failure and error.
const OUTCOMES: [(u8, [(u8, u8); 3]); 6] = [
    (
        S::TRANSITION_STATE_CONFIGURING,
        [
            (
                T::TRANSITION_ON_CONFIGURE_SUCCESS,
                S::PRIMARY_STATE_INACTIVE,
            ),
            (
                T::TRANSITION_ON_CONFIGURE_FAILURE,
                S::PRIMARY_STATE_UNCONFIGURED,
            ),
            (
                T::TRANSITION_ON_CONFIGURE_ERROR,
                S::TRANSITION_STATE_ERRORPROCESSING,
            ),
        ],
    ),
    (
        S::TRANSITION_STATE_CLEANINGUP,
        [
            (
                T::TRANSITION_ON_CLEANUP_SUCCESS,
                S::PRIMARY_STATE_UNCONFIGURED,
            ),
            (T::TRANSITION_ON_CLEANUP_FAILURE, S::PRIMARY_STATE_INACTIVE),
            (
                T::TRANSITION_ON_CLEANUP_ERROR,
                S::TRANSITION_STATE_ERRORPROCESSING,
            ),
        ],
    ),
    (
        S::TRANSITION_STATE_ACTIVATING,
        [
            (T::TRANSITION_ON_ACTIVATE_SUCCESS, S::PRIMARY_STATE_ACTIVE),
            (T::TRANSITION_ON_ACTIVATE_FAILURE, S::PRIMARY_STATE_INACTIVE),
            (
                T::TRANSITION_ON_ACTIVATE_ERROR,
                S::TRANSITION_STATE_ERRORPROCESSING,
            ),
        ],
    ),
    (
        S::TRANSITION_STATE_DEACTIVATING,
        [
            (
                T::TRANSITION_ON_DEACTIVATE_SUCCESS,
                S::PRIMARY_STATE_INACTIVE,
            ),
            (T::TRANSITION_ON_DEACTIVATE_FAILURE, S::PRIMARY_STATE_ACTIVE),
            (
                T::TRANSITION_ON_DEACTIVATE_ERROR,
                S::TRANSITION_STATE_ERRORPROCESSING,
            ),
        ],
    ),
    (
        S::TRANSITION_STATE_SHUTTINGDOWN,
        [
            (
                T::TRANSITION_ON_SHUTDOWN_SUCCESS,
                S::PRIMARY_STATE_FINALIZED,
            ),
            (
                T::TRANSITION_ON_SHUTDOWN_FAILURE,
                S::PRIMARY_STATE_FINALIZED,
            ),
            (
                T::TRANSITION_ON_SHUTDOWN_ERROR,
                S::TRANSITION_STATE_ERRORPROCESSING,
            ),
        ],
    ),
    (
        S::TRANSITION_STATE_ERRORPROCESSING,
        [
            (
                T::TRANSITION_ON_ERROR_SUCCESS,
                S::PRIMARY_STATE_UNCONFIGURED,
            ),
            (T::TRANSITION_ON_ERROR_FAILURE, S::PRIMARY_STATE_FINALIZED),
            (T::TRANSITION_ON_ERROR_ERROR, S::PRIMARY_STATE_FINALIZED),
        ],
    ),
];

/// Labels of the callback-outcome transitions (`rcl_lifecycle_transition_*_label`).
const OUTCOME_LABELS: [&str; 3] = [
    "transition_success",
    "transition_failure",
    "transition_error",
];

use State as S;
use Transition as T;

/// The state with id `id` (label "unknown" for an id outside the machine).
pub fn state(id: u8) -> State {
    let label = STATES
        .iter()
        .find(|(i, _)| *i == id)
        .map_or("unknown", |(_, l)| l);
    State::new(id, label)
}

/// Every state of the machine (what `~/get_available_states` answers).
pub fn available_states() -> Vec<State> {
    STATES
        .iter()
        .map(|&(id, label)| State::new(id, label))
        .collect()
}

fn outcome_index(r: CallbackReturn) -> usize {
    match r {
        CallbackReturn::Success => 0,
        CallbackReturn::Failure => 1,
        CallbackReturn::Error => 2,
    }
}

/// The state machine of one managed node: its current state and the transition logic.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StateMachine {
    current: u8,
}

impl Default for StateMachine {
    fn default() -> Self {
        Self::new()
    }
}

impl StateMachine {
    /// A machine in unconfigured, where every node starts.
    pub fn new() -> Self {
        Self {
            current: S::PRIMARY_STATE_UNCONFIGURED,
        }
    }

    /// The current state.
    pub fn current(&self) -> State {
        state(self.current)
    }

    /// The transitions valid from the current state (what `~/get_available_transitions`
    /// answers): the requestable ones from a primary state, the callback outcomes from a
    /// transition state, none from finalized.
    pub fn available_transitions(&self) -> Vec<TransitionDescription> {
        let describe = |id, label: &str, goal| TransitionDescription {
            transition: Transition::new(id, label),
            start_state: state(self.current),
            goal_state: state(goal),
        };
        let requestable = REQUESTABLE
            .iter()
            .filter(|e| e.2 == self.current)
            .map(|&(id, label, _, goal)| describe(id, label, goal));
        let outcomes = OUTCOMES
            .iter()
            .filter(|(from, _)| *from == self.current)
            .flat_map(|(_, edges)| edges.iter().zip(OUTCOME_LABELS))
            .map(|(&(id, goal), label)| describe(id, label, goal));
        requestable.chain(outcomes).collect()
    }

    /// Finds the requested transition from the current state: by label when the label is
    /// set (it takes precedence, as in rclcpp), else by id.
    fn requested(&self, t: &Transition) -> Result<Edge, LifecycleError> {
        if !self.is_primary() {
            return Err(LifecycleError::InTransition {
                state: self.current().label,
            });
        }
        REQUESTABLE
            .iter()
            .find(|e| {
                e.2 == self.current
                    && if t.label.is_empty() {
                        e.0 == t.id
                    } else {
                        e.1 == t.label
                    }
            })
            .copied()
            .ok_or_else(|| LifecycleError::InvalidTransition {
                transition: if t.label.is_empty() {
                    format!("id {}", t.id)
                } else {
                    format!("label '{}'", t.label)
                },
                state: self.current().label,
            })
    }

    /// Whether the current state is a primary state (not inside a transition).
    pub fn is_primary(&self) -> bool {
        self.current <= S::PRIMARY_STATE_FINALIZED
    }

    /// Moves along one edge and reports it.
    fn take(&mut self, id: u8, label: &str, goal: u8, events: &mut dyn FnMut(TransitionEvent)) {
        let start = state(self.current);
        self.current = goal;
        events(TransitionEvent {
            timestamp: now_nanos(),
            transition: Transition::new(id, label),
            start_state: start,
            goal_state: state(goal),
        });
    }

    /// Takes the outcome edge of the current transition state for `r`.
    fn settle(&mut self, r: CallbackReturn, events: &mut dyn FnMut(TransitionEvent)) {
        let Some((_, edges)) = OUTCOMES.iter().find(|(from, _)| *from == self.current) else {
            return;
        };
        let i = outcome_index(r);
        let (id, goal) = edges[i];
        self.take(id, OUTCOME_LABELS[i], goal, events);
    }

    /// Runs transition `t` (by label if set, else by id): enters its transition state, runs
    /// the callback, and takes the outcome; after an error, runs `on_error` in
    /// errorprocessing. Every state change is reported to `events` in order. Returns the
    /// transition's callback result (`Success` is what `~/change_state` answers as success).
    pub fn change_state(
        &mut self,
        t: &Transition,
        callbacks: &mut dyn Callbacks,
        events: &mut dyn FnMut(TransitionEvent),
    ) -> Result<CallbackReturn, LifecycleError> {
        let (id, label, start, via) = self.requested(t)?;
        let previous = state(start);
        self.take(id, label, via, events);
        let r = match via {
            S::TRANSITION_STATE_CONFIGURING => callbacks.on_configure(&previous),
            S::TRANSITION_STATE_CLEANINGUP => callbacks.on_cleanup(&previous),
            S::TRANSITION_STATE_ACTIVATING => callbacks.on_activate(&previous),
            S::TRANSITION_STATE_DEACTIVATING => callbacks.on_deactivate(&previous),
            _ => callbacks.on_shutdown(&previous),
        };
        self.settle(r, events);
        if self.current == S::TRANSITION_STATE_ERRORPROCESSING {
            let recovered = callbacks.on_error(&previous);
            self.settle(recovered, events);
        }
        Ok(r)
    }
}

/// Wall-clock nanoseconds since the epoch (a transition event's timestamp).
fn now_nanos() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_nanos()).unwrap_or(u64::MAX))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Answers each callback with a fixed result and records which ran.
    #[derive(Default)]
    struct Scripted {
        answer: Vec<(&'static str, CallbackReturn)>,
        ran: Vec<String>,
    }

    impl Scripted {
        fn answer(&mut self, name: &'static str, previous: &State) -> CallbackReturn {
            self.ran.push(format!("{name}({})", previous.label));
            self.answer
                .iter()
                .find(|(n, _)| *n == name)
                .map_or(CallbackReturn::Success, |(_, r)| *r)
        }
    }

    impl Callbacks for Scripted {
        fn on_configure(&mut self, p: &State) -> CallbackReturn {
            self.answer("configure", p)
        }
        fn on_activate(&mut self, p: &State) -> CallbackReturn {
            self.answer("activate", p)
        }
        fn on_deactivate(&mut self, p: &State) -> CallbackReturn {
            self.answer("deactivate", p)
        }
        fn on_cleanup(&mut self, p: &State) -> CallbackReturn {
            self.answer("cleanup", p)
        }
        fn on_shutdown(&mut self, p: &State) -> CallbackReturn {
            self.answer("shutdown", p)
        }
        fn on_error(&mut self, p: &State) -> CallbackReturn {
            self.answer("error", p)
        }
    }

    /// One reported state change: start state, goal state, transition id.
    type Step = (u8, u8, u8);

    fn by_id(id: u8) -> Transition {
        Transition::new(id, "")
    }

    /// Runs `t` and returns the result and the (start, goal, transition id) of every event.
    fn run(
        m: &mut StateMachine,
        t: Transition,
        cb: &mut dyn Callbacks,
    ) -> (Result<CallbackReturn, LifecycleError>, Vec<Step>) {
        let mut seen = Vec::new();
        let r = m.change_state(&t, cb, &mut |e| {
            assert_eq!(e.start_state, state(e.start_state.id));
            assert_eq!(e.goal_state, state(e.goal_state.id));
            assert!(e.timestamp > 0);
            seen.push((e.start_state.id, e.goal_state.id, e.transition.id))
        });
        (r, seen)
    }

    fn at(id: u8) -> StateMachine {
        StateMachine { current: id }
    }

    #[test]
    fn every_requestable_transition_succeeds_to_its_goal() {
        let cases = [
            (
                S::PRIMARY_STATE_UNCONFIGURED,
                T::TRANSITION_CONFIGURE,
                S::TRANSITION_STATE_CONFIGURING,
                T::TRANSITION_ON_CONFIGURE_SUCCESS,
                S::PRIMARY_STATE_INACTIVE,
            ),
            (
                S::PRIMARY_STATE_INACTIVE,
                T::TRANSITION_CLEANUP,
                S::TRANSITION_STATE_CLEANINGUP,
                T::TRANSITION_ON_CLEANUP_SUCCESS,
                S::PRIMARY_STATE_UNCONFIGURED,
            ),
            (
                S::PRIMARY_STATE_INACTIVE,
                T::TRANSITION_ACTIVATE,
                S::TRANSITION_STATE_ACTIVATING,
                T::TRANSITION_ON_ACTIVATE_SUCCESS,
                S::PRIMARY_STATE_ACTIVE,
            ),
            (
                S::PRIMARY_STATE_ACTIVE,
                T::TRANSITION_DEACTIVATE,
                S::TRANSITION_STATE_DEACTIVATING,
                T::TRANSITION_ON_DEACTIVATE_SUCCESS,
                S::PRIMARY_STATE_INACTIVE,
            ),
            (
                S::PRIMARY_STATE_UNCONFIGURED,
                T::TRANSITION_UNCONFIGURED_SHUTDOWN,
                S::TRANSITION_STATE_SHUTTINGDOWN,
                T::TRANSITION_ON_SHUTDOWN_SUCCESS,
                S::PRIMARY_STATE_FINALIZED,
            ),
            (
                S::PRIMARY_STATE_INACTIVE,
                T::TRANSITION_INACTIVE_SHUTDOWN,
                S::TRANSITION_STATE_SHUTTINGDOWN,
                T::TRANSITION_ON_SHUTDOWN_SUCCESS,
                S::PRIMARY_STATE_FINALIZED,
            ),
            (
                S::PRIMARY_STATE_ACTIVE,
                T::TRANSITION_ACTIVE_SHUTDOWN,
                S::TRANSITION_STATE_SHUTTINGDOWN,
                T::TRANSITION_ON_SHUTDOWN_SUCCESS,
                S::PRIMARY_STATE_FINALIZED,
            ),
        ];
        for (start, id, via, outcome, goal) in cases {
            let mut m = at(start);
            let mut cb = Scripted::default();
            let (r, events) = run(&mut m, by_id(id), &mut cb);
            assert_eq!(r, Ok(CallbackReturn::Success), "transition {id}");
            assert_eq!(
                events,
                [(start, via, id), (via, goal, outcome)],
                "transition {id}"
            );
            assert_eq!(m.current().id, goal);
            assert_eq!(cb.ran.len(), 1);
            assert!(
                cb.ran[0].ends_with(&format!("({})", state(start).label)),
                "{:?}",
                cb.ran
            );
        }
    }

    #[test]
    fn labels_select_the_transition_of_the_current_state() {
        let mut m = StateMachine::new();
        let mut cb = ();
        for (label, goal) in [
            ("configure", S::PRIMARY_STATE_INACTIVE),
            ("activate", S::PRIMARY_STATE_ACTIVE),
            ("deactivate", S::PRIMARY_STATE_INACTIVE),
            ("cleanup", S::PRIMARY_STATE_UNCONFIGURED),
        ] {
            let (r, _) = run(&mut m, Transition::new(0, label), &mut cb);
            assert_eq!(r, Ok(CallbackReturn::Success), "{label}");
            assert_eq!(m.current().id, goal, "{label}");
        }
        // "shutdown" from active is transition 7; the label wins over a wrong id (as rclcpp).
        let mut m = at(S::PRIMARY_STATE_ACTIVE);
        let (r, events) = run(
            &mut m,
            Transition::new(T::TRANSITION_CONFIGURE, "shutdown"),
            &mut cb,
        );
        assert_eq!(r, Ok(CallbackReturn::Success));
        assert_eq!(events[0].2, T::TRANSITION_ACTIVE_SHUTDOWN);
        assert_eq!(
            m.current(),
            State::new(S::PRIMARY_STATE_FINALIZED, "finalized")
        );
    }

    #[test]
    fn invalid_transitions_are_refused_without_callbacks_or_events() {
        let refused = [
            (S::PRIMARY_STATE_UNCONFIGURED, by_id(T::TRANSITION_ACTIVATE)),
            (
                S::PRIMARY_STATE_UNCONFIGURED,
                by_id(T::TRANSITION_INACTIVE_SHUTDOWN),
            ),
            (S::PRIMARY_STATE_INACTIVE, by_id(T::TRANSITION_CONFIGURE)),
            (S::PRIMARY_STATE_ACTIVE, by_id(T::TRANSITION_ACTIVATE)),
            (S::PRIMARY_STATE_ACTIVE, by_id(T::TRANSITION_CLEANUP)),
            (
                S::PRIMARY_STATE_ACTIVE,
                by_id(T::TRANSITION_ON_ACTIVATE_SUCCESS),
            ),
            (S::PRIMARY_STATE_FINALIZED, by_id(T::TRANSITION_CONFIGURE)),
            (S::PRIMARY_STATE_INACTIVE, Transition::new(0, "deactivate")),
            (
                S::PRIMARY_STATE_INACTIVE,
                Transition::new(0, "transition_success"),
            ),
        ];
        for (start, t) in refused {
            let mut m = at(start);
            let mut cb = Scripted::default();
            let (r, events) = run(&mut m, t.clone(), &mut cb);
            let err = r.unwrap_err();
            assert!(
                matches!(&err, LifecycleError::InvalidTransition { state, .. } if *state == state_label(start)),
                "{err}"
            );
            assert!(events.is_empty() && cb.ran.is_empty());
            assert_eq!(m.current().id, start);
        }
        let err = StateMachine::new()
            .change_state(&by_id(99), &mut (), &mut |_| {})
            .unwrap_err();
        assert_eq!(
            err.to_string(),
            "transition id 99 is not valid from state 'unconfigured'"
        );
        let mut inside = at(S::TRANSITION_STATE_ACTIVATING);
        assert!(!inside.is_primary());
        assert_eq!(
            inside.change_state(&by_id(T::TRANSITION_DEACTIVATE), &mut (), &mut |_| {}),
            Err(LifecycleError::InTransition {
                state: "activating".into()
            })
        );
    }

    fn state_label(id: u8) -> String {
        state(id).label
    }

    #[test]
    fn a_failing_callback_returns_to_the_state_it_started_from() {
        let cases = [
            (
                S::PRIMARY_STATE_UNCONFIGURED,
                T::TRANSITION_CONFIGURE,
                "configure",
                T::TRANSITION_ON_CONFIGURE_FAILURE,
                S::PRIMARY_STATE_UNCONFIGURED,
            ),
            (
                S::PRIMARY_STATE_INACTIVE,
                T::TRANSITION_ACTIVATE,
                "activate",
                T::TRANSITION_ON_ACTIVATE_FAILURE,
                S::PRIMARY_STATE_INACTIVE,
            ),
            (
                S::PRIMARY_STATE_ACTIVE,
                T::TRANSITION_DEACTIVATE,
                "deactivate",
                T::TRANSITION_ON_DEACTIVATE_FAILURE,
                S::PRIMARY_STATE_ACTIVE,
            ),
            (
                S::PRIMARY_STATE_INACTIVE,
                T::TRANSITION_CLEANUP,
                "cleanup",
                T::TRANSITION_ON_CLEANUP_FAILURE,
                S::PRIMARY_STATE_INACTIVE,
            ),
            // rcl: a failed shutdown still finalizes.
            (
                S::PRIMARY_STATE_ACTIVE,
                T::TRANSITION_ACTIVE_SHUTDOWN,
                "shutdown",
                T::TRANSITION_ON_SHUTDOWN_FAILURE,
                S::PRIMARY_STATE_FINALIZED,
            ),
        ];
        for (start, id, name, outcome, goal) in cases {
            let mut m = at(start);
            let mut cb = Scripted {
                answer: vec![(name, CallbackReturn::Failure)],
                ..Default::default()
            };
            let (r, events) = run(&mut m, by_id(id), &mut cb);
            assert_eq!(r, Ok(CallbackReturn::Failure), "{name}");
            assert_eq!(events.len(), 2, "{name}");
            assert_eq!(events[1].1, goal, "{name}");
            assert_eq!(events[1].2, outcome, "{name}");
            assert_eq!(m.current().id, goal, "{name}");
        }
    }

    #[test]
    fn an_error_goes_through_errorprocessing() {
        // on_error succeeds: recovered to unconfigured.
        let mut m = at(S::PRIMARY_STATE_INACTIVE);
        let mut cb = Scripted {
            answer: vec![("activate", CallbackReturn::Error)],
            ..Default::default()
        };
        let (r, events) = run(&mut m, by_id(T::TRANSITION_ACTIVATE), &mut cb);
        assert_eq!(r, Ok(CallbackReturn::Error));
        assert_eq!(
            events,
            [
                (
                    S::PRIMARY_STATE_INACTIVE,
                    S::TRANSITION_STATE_ACTIVATING,
                    T::TRANSITION_ACTIVATE
                ),
                (
                    S::TRANSITION_STATE_ACTIVATING,
                    S::TRANSITION_STATE_ERRORPROCESSING,
                    T::TRANSITION_ON_ACTIVATE_ERROR
                ),
                (
                    S::TRANSITION_STATE_ERRORPROCESSING,
                    S::PRIMARY_STATE_UNCONFIGURED,
                    T::TRANSITION_ON_ERROR_SUCCESS
                ),
            ]
        );
        assert_eq!(cb.ran, ["activate(inactive)", "error(inactive)"]);
        assert_eq!(m.current().id, S::PRIMARY_STATE_UNCONFIGURED);

        // on_error fails or errs: finalized.
        for (answer, outcome) in [
            (CallbackReturn::Failure, T::TRANSITION_ON_ERROR_FAILURE),
            (CallbackReturn::Error, T::TRANSITION_ON_ERROR_ERROR),
        ] {
            let mut m = StateMachine::new();
            let mut cb = Scripted {
                answer: vec![("configure", CallbackReturn::Error), ("error", answer)],
                ..Default::default()
            };
            let (_, events) = run(&mut m, by_id(T::TRANSITION_CONFIGURE), &mut cb);
            assert_eq!(
                events.last(),
                Some(&(
                    S::TRANSITION_STATE_ERRORPROCESSING,
                    S::PRIMARY_STATE_FINALIZED,
                    outcome
                ))
            );
            assert_eq!(m.current().id, S::PRIMARY_STATE_FINALIZED);
            assert!(m.available_transitions().is_empty());
        }
    }

    #[test]
    fn available_states_and_transitions() {
        let states = available_states();
        assert_eq!(states.len(), 11);
        assert!(states.contains(&State::new(S::PRIMARY_STATE_ACTIVE, "active")));
        assert!(states.contains(&State::new(
            S::TRANSITION_STATE_ERRORPROCESSING,
            "errorprocessing"
        )));
        let ids = |m: &StateMachine| -> Vec<(u8, String)> {
            m.available_transitions()
                .into_iter()
                .map(|d| {
                    assert_eq!(d.start_state, m.current());
                    (d.transition.id, d.transition.label)
                })
                .collect()
        };
        assert_eq!(
            ids(&StateMachine::new()),
            [(1, "configure".to_string()), (5, "shutdown".to_string())]
        );
        assert_eq!(
            ids(&at(S::PRIMARY_STATE_INACTIVE)),
            [
                (2, "cleanup".to_string()),
                (3, "activate".to_string()),
                (6, "shutdown".to_string())
            ]
        );
        assert_eq!(
            ids(&at(S::PRIMARY_STATE_ACTIVE)),
            [(4, "deactivate".to_string()), (7, "shutdown".to_string())]
        );
        let inside = at(S::TRANSITION_STATE_CONFIGURING).available_transitions();
        assert_eq!(inside.len(), 3);
        assert_eq!(inside[0].goal_state.id, S::PRIMARY_STATE_INACTIVE);
        assert_eq!(inside[2].transition.label, "transition_error");
        assert_eq!(state(200).label, "unknown");
    }
}
