//! Managed (lifecycle) nodes, as rclcpp_lifecycle and Nav2's nodes are: the state machine
//! ([`machine`]), its four services `~/change_state`, `~/get_state`,
//! `~/get_available_states`, `~/get_available_transitions` and the `~/transition_event`
//! publisher, served like the parameter services and interoperable with ROS 2 peers
//! (`ros2 lifecycle get|set|list`). A plain node stays plain: only [`Node::managed`] creates
//! them.
//!
//! ```no_run
//! use fieldproof_runtime::lifecycle::{self, CallbackReturn, Callbacks};
//! use fieldproof_runtime::msgs::lifecycle_msgs::State;
//!
//! struct Shaper;
//! impl Callbacks for Shaper {
//!     fn on_configure(&mut self, _previous: &State) -> CallbackReturn {
//!         CallbackReturn::Success // read the parameters, set up
//!     }
//! }
//!
//! # async fn body(node: fieldproof_runtime::Node) -> fieldproof_runtime::NodeResult {
//! let managed = node.managed(Shaper)?;
//! managed.autostart()?; // configure + activate, as Nav2's `autostart`
//! managed.wait_for_state(lifecycle::PRIMARY_STATE_ACTIVE).await;
//! // ... serve while active ...
//! managed.finalized().await; // `ros2 lifecycle set <node> shutdown` answered: end
//! # Ok(()) }
//! ```
//!
//! The client side ([`get_state`], [`change_state`], [`wait_for_state`]) is what a launcher
//! uses to drive and watch another node.

mod configured;
pub mod machine;

use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures::FutureExt;

pub use configured::{Configured, ConfiguredValue};
pub use machine::{available_states, CallbackReturn, Callbacks, LifecycleError, StateMachine};

use crate::msgs::lifecycle_msgs::{
    srv, ChangeStateRequest, ChangeStateResponse, EmptyRequest, GetAvailableStatesResponse,
    GetAvailableTransitionsResponse, GetStateResponse, State, Transition, TransitionEvent,
};
use crate::node::{Node, NodeError};
use crate::pubsub::Publisher;
use crate::qos;

/// `lifecycle_msgs/msg/State::PRIMARY_STATE_UNCONFIGURED`.
pub const PRIMARY_STATE_UNCONFIGURED: u8 = State::PRIMARY_STATE_UNCONFIGURED;
/// `lifecycle_msgs/msg/State::PRIMARY_STATE_INACTIVE`.
pub const PRIMARY_STATE_INACTIVE: u8 = State::PRIMARY_STATE_INACTIVE;
/// `lifecycle_msgs/msg/State::PRIMARY_STATE_ACTIVE`.
pub const PRIMARY_STATE_ACTIVE: u8 = State::PRIMARY_STATE_ACTIVE;
/// `lifecycle_msgs/msg/State::PRIMARY_STATE_FINALIZED`.
pub const PRIMARY_STATE_FINALIZED: u8 = State::PRIMARY_STATE_FINALIZED;
/// `lifecycle_msgs/msg/Transition::TRANSITION_CONFIGURE`.
pub const TRANSITION_CONFIGURE: u8 = Transition::TRANSITION_CONFIGURE;
/// `lifecycle_msgs/msg/Transition::TRANSITION_ACTIVATE`.
pub const TRANSITION_ACTIVATE: u8 = Transition::TRANSITION_ACTIVATE;
/// `lifecycle_msgs/msg/Transition::TRANSITION_DEACTIVATE`.
pub const TRANSITION_DEACTIVATE: u8 = Transition::TRANSITION_DEACTIVATE;
/// `lifecycle_msgs/msg/Transition::TRANSITION_CLEANUP`.
pub const TRANSITION_CLEANUP: u8 = Transition::TRANSITION_CLEANUP;

/// How long [`Lifecycle::finalized`] waits after the node is finalized: the reply to the
/// `~/change_state` request that finalized it is sent after the transition.
pub const FINALIZED_REPLY_GRACE: Duration = Duration::from_millis(300);

/// rcl_lifecycle's transition-event publisher: the default publisher QoS (reliable,
/// volatile, keep last 10).
pub fn transition_event_qos() -> crate::QosSpec {
    qos::default()
}

/// The machine, the node's callbacks and the event publisher, behind one lock so
/// transitions run one at a time.
struct Core {
    machine: StateMachine,
    callbacks: Box<dyn Callbacks>,
    events: Publisher<TransitionEvent>,
}

struct Shared {
    core: Mutex<Core>,
    /// The current state's id, readable while a callback holds `core`.
    current: AtomicU8,
    changed: event_listener::Event,
    fqn: String,
}

/// The lifecycle of a managed node: its state, local transitions, waiting for a state.
/// Cloning gives another handle to the same machine.
#[derive(Clone)]
pub struct Lifecycle {
    shared: Arc<Shared>,
}

impl std::fmt::Debug for Lifecycle {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Lifecycle")
            .field("node", &self.shared.fqn)
            .field("state", &self.state())
            .finish()
    }
}

impl Node {
    /// Makes this node a managed (lifecycle) node with `callbacks`: creates the four
    /// lifecycle services and `~/transition_event`, serves them on the node's executor
    /// (call it from the body) and returns the handle. The node starts unconfigured.
    pub fn managed(&self, callbacks: impl Callbacks) -> Result<Lifecycle, NodeError> {
        let sq = qos::services();
        let change = self.server_qos::<ChangeStateRequest, ChangeStateResponse>(
            "~/change_state",
            srv::CHANGE_STATE,
            sq,
        )?;
        let get =
            self.server_qos::<EmptyRequest, GetStateResponse>("~/get_state", srv::GET_STATE, sq)?;
        let states = self.server_qos::<EmptyRequest, GetAvailableStatesResponse>(
            "~/get_available_states",
            srv::GET_AVAILABLE_STATES,
            sq,
        )?;
        let transitions = self.server_qos::<EmptyRequest, GetAvailableTransitionsResponse>(
            "~/get_available_transitions",
            srv::GET_AVAILABLE_TRANSITIONS,
            sq,
        )?;
        let events =
            self.publisher::<TransitionEvent>("~/transition_event", transition_event_qos())?;
        let lifecycle = Lifecycle {
            shared: Arc::new(Shared {
                core: Mutex::new(Core {
                    machine: StateMachine::new(),
                    callbacks: Box::new(callbacks),
                    events,
                }),
                current: AtomicU8::new(PRIMARY_STATE_UNCONFIGURED),
                changed: event_listener::Event::new(),
                fqn: self.fully_qualified_name().to_owned(),
            }),
        };
        let lc = lifecycle.clone();
        self.spawn(async move {
            let change_f = change.serve(|req| {
                let success = match lc.change_state(&req.transition) {
                    Ok(r) => r == CallbackReturn::Success,
                    Err(e) => {
                        tracing::warn!("change_state refused: {e}");
                        false
                    }
                };
                ChangeStateResponse { success }
            });
            let get_f = get.serve(|_| GetStateResponse {
                current_state: lc.state(),
            });
            let states_f = states.serve(|_| GetAvailableStatesResponse {
                available_states: available_states(),
            });
            let transitions_f = transitions.serve(|_| GetAvailableTransitionsResponse {
                available_transitions: lc.core().machine.available_transitions(),
            });
            futures::join!(change_f, get_f, states_f, transitions_f);
        })
        .detach();
        Ok(lifecycle)
    }
}

impl Lifecycle {
    fn core(&self) -> std::sync::MutexGuard<'_, Core> {
        // A panicking callback poisons the lock; the machine itself stays consistent.
        self.shared.core.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The current state (inside a callback: the transition state, e.g. configuring).
    pub fn state(&self) -> State {
        machine::state(self.shared.current.load(Ordering::Acquire))
    }

    /// Runs transition `t` (by label if set, else by id) as a `~/change_state` request
    /// would: the callback runs here, every state change is published on
    /// `~/transition_event`. Returns the callback's result. A callback must not call
    /// `change_state` itself (transitions run one at a time).
    pub fn change_state(&self, t: &Transition) -> Result<CallbackReturn, LifecycleError> {
        let mut core = self.core();
        let Core {
            machine,
            callbacks,
            events,
        } = &mut *core;
        let fqn = &self.shared.fqn;
        let current = &self.shared.current;
        let changed = &self.shared.changed;
        let r = machine.change_state(t, callbacks.as_mut(), &mut |e| {
            current.store(e.goal_state.id, Ordering::Release);
            changed.notify(usize::MAX);
            tracing::info!(
                "{fqn}: {} -> {} ({})",
                e.start_state.label,
                e.goal_state.label,
                e.transition.label
            );
            if let Err(err) = events.publish(e) {
                tracing::warn!("transition_event: {err}");
            }
        });
        drop(core);
        self.shared.changed.notify(usize::MAX);
        r
    }

    /// Triggers the transition with id `id` (`TRANSITION_CONFIGURE`, ...).
    pub fn trigger(&self, id: u8) -> Result<CallbackReturn, LifecycleError> {
        self.change_state(&Transition::new(id, ""))
    }

    /// Configures and activates, as Nav2's `autostart` does; an error names the step that
    /// did not succeed and the state the node is left in.
    pub fn autostart(&self) -> Result<(), String> {
        for (id, step) in [
            (TRANSITION_CONFIGURE, "configure"),
            (TRANSITION_ACTIVATE, "activate"),
        ] {
            match self.trigger(id) {
                Ok(CallbackReturn::Success) => {}
                Ok(r) => {
                    return Err(format!(
                        "autostart: {step} returned {r:?}; the node is {}",
                        self.state().label
                    ))
                }
                Err(e) => return Err(format!("autostart: {step}: {e}")),
            }
        }
        Ok(())
    }

    /// Waits until the current state's id is `id`.
    pub async fn wait_for_state(&self, id: u8) {
        self.wait_until(|s| s.id == id).await;
    }

    /// Waits until the node is finalized, then [`FINALIZED_REPLY_GRACE`] more, so the
    /// `~/change_state` reply that finalized it reaches its caller before a body that
    /// ends here closes the participant.
    pub async fn finalized(&self) {
        self.wait_for_state(PRIMARY_STATE_FINALIZED).await;
        async_io::Timer::after(FINALIZED_REPLY_GRACE).await;
    }

    /// Waits until `pred` holds for the current state and returns that state.
    pub async fn wait_until(&self, mut pred: impl FnMut(&State) -> bool) -> State {
        loop {
            let listener = self.shared.changed.listen();
            let s = self.state();
            if pred(&s) {
                return s;
            }
            listener.await;
        }
    }
}

/// Calls `<target_fqn>/get_state`, waiting up to `timeout` for the service and its answer.
pub async fn get_state(
    node: &Node,
    target_fqn: &str,
    timeout: Duration,
) -> Result<State, NodeError> {
    let client = node.client::<EmptyRequest, GetStateResponse>(
        &format!("{target_fqn}/get_state"),
        srv::GET_STATE,
    )?;
    let call = async {
        client.wait_for_service().await;
        client
            .call_retry(
                EmptyRequest::default(),
                Duration::from_millis(500),
                usize::MAX,
            )
            .await
            .map(|r| r.current_state)
    };
    within(timeout, client.name(), call).await
}

/// How long [`change_state`] waits between seeing the server and sending its one request,
/// for the server's discovery of the client's reply reader.
const REPLY_READER_SETTLE: Duration = Duration::from_millis(500);

/// Calls `<target_fqn>/change_state` with transition `id`; `Ok(success)` as the node
/// answered (false: refused or its callback did not succeed). Not retried: a transition is
/// not idempotent.
pub async fn change_state(
    node: &Node,
    target_fqn: &str,
    id: u8,
    timeout: Duration,
) -> Result<bool, NodeError> {
    let client = node.client::<ChangeStateRequest, ChangeStateResponse>(
        &format!("{target_fqn}/change_state"),
        srv::CHANGE_STATE,
    )?;
    let call = async {
        client.wait_for_service().await;
        // Our reply reader may not be known to the server yet when we see its endpoints; a
        // reply sent before is lost (volatile), and a transition is not resent.
        async_io::Timer::after(REPLY_READER_SETTLE).await;
        client
            .call(ChangeStateRequest {
                transition: Transition::new(id, ""),
            })
            .await
            .map(|r| r.success)
    };
    within(timeout, client.name(), call).await
}

/// Polls `<target_fqn>/get_state` until the node is in state `id` (e.g.
/// [`PRIMARY_STATE_ACTIVE`]); an error after `timeout` names the last state seen.
pub async fn wait_for_state(
    node: &Node,
    target_fqn: &str,
    id: u8,
    timeout: Duration,
) -> Result<(), NodeError> {
    let client = node.client::<EmptyRequest, GetStateResponse>(
        &format!("{target_fqn}/get_state"),
        srv::GET_STATE,
    )?;
    let last = Mutex::new(None::<State>);
    let poll = async {
        client.wait_for_service().await;
        loop {
            if let Ok(r) = client
                .call_retry(EmptyRequest::default(), Duration::from_millis(500), 1)
                .await
            {
                let reached = r.current_state.id == id;
                *last.lock().unwrap() = Some(r.current_state);
                if reached {
                    return Ok(());
                }
            }
            async_io::Timer::after(Duration::from_millis(100)).await;
        }
    };
    within(timeout, client.name(), poll)
        .await
        .map_err(|e| match e {
            NodeError::Call { service, reason } => NodeError::Call {
                service,
                reason: format!(
                    "{reason}; waiting for state {id}, last seen: {}",
                    last.lock().unwrap().as_ref().map_or(
                        "none (no answer)".to_string(),
                        |s| format!("{} ({})", s.label, s.id)
                    )
                ),
            },
            other => other,
        })
}

/// Runs `fut` for at most `timeout`; a timeout is a [`NodeError::Call`] on `service`.
async fn within<T>(
    timeout: Duration,
    service: &str,
    fut: impl std::future::Future<Output = Result<T, NodeError>>,
) -> Result<T, NodeError> {
    let fut = fut.fuse();
    let timer = async_io::Timer::after(timeout).fuse();
    futures::pin_mut!(fut, timer);
    futures::select! {
        r = fut => r,
        _ = timer => Err(NodeError::Call {
            service: service.to_owned(),
            reason: format!("no answer within {timeout:?}"),
        }),
    }
}
