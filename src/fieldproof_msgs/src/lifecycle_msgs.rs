//! `lifecycle_msgs`: the managed-node (lifecycle) messages State, Transition,
//! TransitionDescription, TransitionEvent, and the requests and responses of its four
//! services (ChangeState, GetState, GetAvailableStates, GetAvailableTransitions).
//!
//! The id constants are associated consts, as rosidl generates them
//! (`State::PRIMARY_STATE_ACTIVE`, `Transition::TRANSITION_CONFIGURE`).

use serde::{Deserialize, Serialize};

/// `lifecycle_msgs/msg/State`: a state of the managed-node state machine.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct State {
    /// The state's id (`PRIMARY_STATE_*` or `TRANSITION_STATE_*`).
    pub id: u8,
    /// Its name, e.g. "active".
    pub label: String,
}

impl State {
    /// Not a state of the machine (the default of an unset id).
    pub const PRIMARY_STATE_UNKNOWN: u8 = 0;
    /// Created, not configured.
    pub const PRIMARY_STATE_UNCONFIGURED: u8 = 1;
    /// Configured, not serving.
    pub const PRIMARY_STATE_INACTIVE: u8 = 2;
    /// Serving.
    pub const PRIMARY_STATE_ACTIVE: u8 = 3;
    /// Shut down; only destruction follows.
    pub const PRIMARY_STATE_FINALIZED: u8 = 4;
    /// Running `on_configure`.
    pub const TRANSITION_STATE_CONFIGURING: u8 = 10;
    /// Running `on_cleanup`.
    pub const TRANSITION_STATE_CLEANINGUP: u8 = 11;
    /// Running `on_shutdown`.
    pub const TRANSITION_STATE_SHUTTINGDOWN: u8 = 12;
    /// Running `on_activate`.
    pub const TRANSITION_STATE_ACTIVATING: u8 = 13;
    /// Running `on_deactivate`.
    pub const TRANSITION_STATE_DEACTIVATING: u8 = 14;
    /// Running `on_error`.
    pub const TRANSITION_STATE_ERRORPROCESSING: u8 = 15;

    /// A state from its id and label.
    pub fn new(id: u8, label: &str) -> Self {
        Self {
            id,
            label: label.to_owned(),
        }
    }
}

/// `lifecycle_msgs/msg/Transition`: a transition of the state machine, by id and label.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Transition {
    /// The transition's id (`TRANSITION_*`).
    pub id: u8,
    /// Its name, e.g. "configure"; when set in a `ChangeState` request it takes precedence
    /// over the id (as rclcpp does).
    pub label: String,
}

#[allow(missing_docs)]
impl Transition {
    pub const TRANSITION_CREATE: u8 = 0;
    pub const TRANSITION_CONFIGURE: u8 = 1;
    pub const TRANSITION_CLEANUP: u8 = 2;
    pub const TRANSITION_ACTIVATE: u8 = 3;
    pub const TRANSITION_DEACTIVATE: u8 = 4;
    pub const TRANSITION_UNCONFIGURED_SHUTDOWN: u8 = 5;
    pub const TRANSITION_INACTIVE_SHUTDOWN: u8 = 6;
    pub const TRANSITION_ACTIVE_SHUTDOWN: u8 = 7;
    pub const TRANSITION_DESTROY: u8 = 8;
    pub const TRANSITION_ON_CONFIGURE_SUCCESS: u8 = 10;
    pub const TRANSITION_ON_CONFIGURE_FAILURE: u8 = 11;
    pub const TRANSITION_ON_CONFIGURE_ERROR: u8 = 12;
    pub const TRANSITION_ON_CLEANUP_SUCCESS: u8 = 20;
    pub const TRANSITION_ON_CLEANUP_FAILURE: u8 = 21;
    pub const TRANSITION_ON_CLEANUP_ERROR: u8 = 22;
    pub const TRANSITION_ON_ACTIVATE_SUCCESS: u8 = 30;
    pub const TRANSITION_ON_ACTIVATE_FAILURE: u8 = 31;
    pub const TRANSITION_ON_ACTIVATE_ERROR: u8 = 32;
    pub const TRANSITION_ON_DEACTIVATE_SUCCESS: u8 = 40;
    pub const TRANSITION_ON_DEACTIVATE_FAILURE: u8 = 41;
    pub const TRANSITION_ON_DEACTIVATE_ERROR: u8 = 42;
    pub const TRANSITION_ON_SHUTDOWN_SUCCESS: u8 = 50;
    pub const TRANSITION_ON_SHUTDOWN_FAILURE: u8 = 51;
    pub const TRANSITION_ON_SHUTDOWN_ERROR: u8 = 52;
    pub const TRANSITION_ON_ERROR_SUCCESS: u8 = 60;
    pub const TRANSITION_ON_ERROR_FAILURE: u8 = 61;
    pub const TRANSITION_ON_ERROR_ERROR: u8 = 62;
    pub const TRANSITION_CALLBACK_SUCCESS: u8 = 97;
    pub const TRANSITION_CALLBACK_FAILURE: u8 = 98;
    pub const TRANSITION_CALLBACK_ERROR: u8 = 99;
}

impl Transition {
    /// A transition from its id and label.
    pub fn new(id: u8, label: &str) -> Self {
        Self {
            id,
            label: label.to_owned(),
        }
    }
}

/// `lifecycle_msgs/msg/TransitionDescription`: a transition with its start and goal state.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct TransitionDescription {
    /// The transition.
    pub transition: Transition,
    /// The state it leaves.
    pub start_state: State,
    /// The state it enters.
    pub goal_state: State,
}

/// `lifecycle_msgs/msg/TransitionEvent`: published on `~/transition_event` at every state
/// change.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct TransitionEvent {
    /// When the change happened (nanoseconds).
    pub timestamp: u64,
    /// The transition taken.
    pub transition: Transition,
    /// The state left.
    pub start_state: State,
    /// The state entered.
    pub goal_state: State,
}

crate::ros_message!(State, "lifecycle_msgs/msg/State");
crate::ros_message!(Transition, "lifecycle_msgs/msg/Transition");
crate::ros_message!(
    TransitionDescription,
    "lifecycle_msgs/msg/TransitionDescription"
);
crate::ros_message!(TransitionEvent, "lifecycle_msgs/msg/TransitionEvent");

/// `lifecycle_msgs/srv/ChangeState` request: the transition to trigger.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct ChangeStateRequest {
    /// By label if the label is set, else by id.
    pub transition: Transition,
}

/// `lifecycle_msgs/srv/ChangeState` response.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct ChangeStateResponse {
    /// Whether the transition was valid and its callback succeeded.
    pub success: bool,
}

/// An empty service request: rosidl gives it one `uint8` member (one byte on the wire).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct EmptyRequest {
    /// The placeholder member generated by rosidl.
    pub structure_needs_at_least_one_member: u8,
}

/// `lifecycle_msgs/srv/GetState` request (empty).
pub type GetStateRequest = EmptyRequest;
/// `lifecycle_msgs/srv/GetAvailableStates` request (empty).
pub type GetAvailableStatesRequest = EmptyRequest;
/// `lifecycle_msgs/srv/GetAvailableTransitions` request (empty).
pub type GetAvailableTransitionsRequest = EmptyRequest;

/// `lifecycle_msgs/srv/GetState` response.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct GetStateResponse {
    /// The node's current state.
    pub current_state: State,
}

/// `lifecycle_msgs/srv/GetAvailableStates` response.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct GetAvailableStatesResponse {
    /// Every state of the machine.
    pub available_states: Vec<State>,
}

/// `lifecycle_msgs/srv/GetAvailableTransitions` response.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct GetAvailableTransitionsResponse {
    /// The transitions valid from the current state.
    pub available_transitions: Vec<TransitionDescription>,
}

/// Service type names, as `Node::server` and `Node::client` take them.
pub mod srv {
    /// `lifecycle_msgs/srv/ChangeState`.
    pub const CHANGE_STATE: &str = "lifecycle_msgs/srv/ChangeState";
    /// `lifecycle_msgs/srv/GetState`.
    pub const GET_STATE: &str = "lifecycle_msgs/srv/GetState";
    /// `lifecycle_msgs/srv/GetAvailableStates`.
    pub const GET_AVAILABLE_STATES: &str = "lifecycle_msgs/srv/GetAvailableStates";
    /// `lifecycle_msgs/srv/GetAvailableTransitions`.
    pub const GET_AVAILABLE_TRANSITIONS: &str = "lifecycle_msgs/srv/GetAvailableTransitions";
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cdr;

    #[test]
    fn wire_layout() {
        // uint8 id, pad to 4, uint32 length, "active\0".
        let state = State::new(State::PRIMARY_STATE_ACTIVE, "active");
        assert_eq!(
            cdr::to_bytes(&state).unwrap(),
            [0, 1, 0, 0, 3, 0, 0, 0, 7, 0, 0, 0, b'a', b'c', b't', b'i', b'v', b'e', 0]
        );
        assert_eq!(
            cdr::to_bytes(&EmptyRequest::default()).unwrap(),
            [0, 1, 0, 0, 0]
        );
        let event = TransitionEvent {
            timestamp: 5,
            transition: Transition::new(Transition::TRANSITION_CONFIGURE, "configure"),
            start_state: State::new(State::PRIMARY_STATE_UNCONFIGURED, "unconfigured"),
            goal_state: State::new(State::TRANSITION_STATE_CONFIGURING, "configuring"),
        };
        let bytes = cdr::to_bytes(&event).unwrap();
        assert_eq!(cdr::from_bytes::<TransitionEvent>(&bytes).unwrap(), event);
    }
}
