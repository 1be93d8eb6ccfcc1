"""Cyclone DDS peer for tests/lifecycle.rs: drives a managed node's lifecycle services the
way `ros2 lifecycle get/set/list` does on a Cyclone-based ROS 2 (rmw_cyclonedds_cpp:
`rq/<node>/<srv>Request` topics, ROS 2 DDS type names, a (client id, sequence number) header
before the request, echoed before the reply) and reads `<node>/transition_event`.

usage: lifecycle_peer.py NODE_FQN   (ROS_DOMAIN_ID from the environment)
Prints one JSON object with what it saw; exits non-zero if a service never answered.
"""

import json
import os
import sys
import time
from dataclasses import dataclass, field

from cyclonedds.core import Policy, Qos
from cyclonedds.domain import DomainParticipant
from cyclonedds.idl import IdlStruct
from cyclonedds.idl.types import int64, sequence, uint8, uint64
from cyclonedds.pub import DataWriter
from cyclonedds.sub import DataReader
from cyclonedds.topic import Topic
from cyclonedds.util import duration

CLIENT_ID = 0x0123_4567_89AB_CDEF
QOS = Qos(Policy.Reliability.Reliable(duration(seconds=1)), Policy.History.KeepLast(10),
          Policy.Durability.Volatile)


@dataclass
class State(IdlStruct, typename="lifecycle_msgs::msg::dds_::State_"):
    id: uint8 = 0
    label: str = ""


@dataclass
class Transition(IdlStruct, typename="lifecycle_msgs::msg::dds_::Transition_"):
    id: uint8 = 0
    label: str = ""


@dataclass
class TransitionDescription(IdlStruct, typename="lifecycle_msgs::msg::dds_::TransitionDescription_"):
    transition: Transition = field(default_factory=Transition)
    start_state: State = field(default_factory=State)
    goal_state: State = field(default_factory=State)


@dataclass
class TransitionEvent(IdlStruct, typename="lifecycle_msgs::msg::dds_::TransitionEvent_"):
    timestamp: uint64 = 0
    transition: Transition = field(default_factory=Transition)
    start_state: State = field(default_factory=State)
    goal_state: State = field(default_factory=State)


# rmw_cyclonedds puts a request header (client guid, sequence number) before the fields.
@dataclass
class ChangeStateRequest(IdlStruct, typename="lifecycle_msgs::srv::dds_::ChangeState_Request_"):
    client_guid: uint64 = 0
    seq: int64 = 0
    transition: Transition = field(default_factory=Transition)


@dataclass
class ChangeStateResponse(IdlStruct, typename="lifecycle_msgs::srv::dds_::ChangeState_Response_"):
    client_guid: uint64 = 0
    seq: int64 = 0
    success: bool = False


def empty_request(name):
    @dataclass
    class Request(IdlStruct, typename=f"lifecycle_msgs::srv::dds_::{name}_Request_"):
        client_guid: uint64 = 0
        seq: int64 = 0
        structure_needs_at_least_one_member: uint8 = 0
    return Request


GetStateRequest = empty_request("GetState")
GetAvailableStatesRequest = empty_request("GetAvailableStates")
GetAvailableTransitionsRequest = empty_request("GetAvailableTransitions")


@dataclass
class GetStateResponse(IdlStruct, typename="lifecycle_msgs::srv::dds_::GetState_Response_"):
    client_guid: uint64 = 0
    seq: int64 = 0
    current_state: State = field(default_factory=State)


@dataclass
class GetAvailableStatesResponse(IdlStruct, typename="lifecycle_msgs::srv::dds_::GetAvailableStates_Response_"):
    client_guid: uint64 = 0
    seq: int64 = 0
    available_states: sequence[State] = field(default_factory=list)


@dataclass
class GetAvailableTransitionsResponse(
        IdlStruct, typename="lifecycle_msgs::srv::dds_::GetAvailableTransitions_Response_"):
    client_guid: uint64 = 0
    seq: int64 = 0
    available_transitions: sequence[TransitionDescription] = field(default_factory=list)


class Service:
    def __init__(self, dp, node, name, req_t, rep_t):
        base = node.lstrip("/")
        self.w = DataWriter(dp, Topic(dp, f"rq/{base}/{name}Request", req_t), QOS)
        self.r = DataReader(dp, Topic(dp, f"rr/{base}/{name}Reply", rep_t), QOS)
        self.seq = 0

    def wait_matched(self, timeout=20.0):
        """Waits for the node's request reader and reply writer: change_state is not
        idempotent, so it is sent once, after matching."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.w.get_matched_subscriptions() and self.r.get_matched_publications():
                return
            time.sleep(0.05)
        raise SystemExit(f"{self.w.topic.name}: no server matched within {timeout}s")

    def call(self, make, timeout=20.0, resend=True):
        self.seq += 1
        req = make(self.seq)
        deadline = time.monotonic() + timeout
        next_send = 0.0
        sent = False
        while time.monotonic() < deadline:
            if time.monotonic() >= next_send and (resend or not sent):
                self.w.write(req)
                sent = True
                next_send = time.monotonic() + 0.5
            for rep in self.r.take(10):
                if getattr(rep, "client_guid", None) == CLIENT_ID and rep.seq == self.seq:
                    return rep
            time.sleep(0.02)
        raise SystemExit(f"no reply from {self.w.topic.name} within {timeout}s")


def main():
    node = sys.argv[1]
    dp = DomainParticipant(int(os.environ.get("ROS_DOMAIN_ID", "0")))
    get = Service(dp, node, "get_state", GetStateRequest, GetStateResponse)
    change = Service(dp, node, "change_state", ChangeStateRequest, ChangeStateResponse)
    states = Service(dp, node, "get_available_states", GetAvailableStatesRequest, GetAvailableStatesResponse)
    transitions = Service(dp, node, "get_available_transitions", GetAvailableTransitionsRequest,
                          GetAvailableTransitionsResponse)
    events = DataReader(dp, Topic(dp, f"rt/{node.lstrip('/')}/transition_event", TransitionEvent), QOS)
    out = {}

    def state():
        s = get.call(lambda q: GetStateRequest(CLIENT_ID, q)).current_state
        return [s.id, s.label]

    def set_state(transition_id, label=""):
        change.wait_matched()
        # Wait for the event reader to match too, so no event of this transition is missed.
        deadline = time.monotonic() + 20.0
        while not events.get_matched_publications() and time.monotonic() < deadline:
            time.sleep(0.05)
        rep = change.call(lambda q: ChangeStateRequest(CLIENT_ID, q, Transition(transition_id, label)),
                          resend=False)
        return rep.success

    def available():
        rep = transitions.call(lambda q: GetAvailableTransitionsRequest(CLIENT_ID, q))
        return [[d.transition.id, d.transition.label, d.goal_state.label] for d in rep.available_transitions]

    out["initial"] = state()
    out["available_unconfigured"] = available()
    out["states"] = sorted(
        [s.id, s.label] for s in states.call(lambda q: GetAvailableStatesRequest(CLIENT_ID, q)).available_states)
    out["activate_unconfigured"] = set_state(3)  # not valid from unconfigured
    out["configure"] = set_state(1)
    out["after_configure"] = state()
    out["available_inactive"] = available()
    out["activate"] = set_state(0, "activate")  # by label, as `ros2 service call` would
    out["after_activate"] = state()
    out["available_active"] = available()

    seen = []
    deadline = time.monotonic() + 10.0
    while time.monotonic() < deadline and len(seen) < 4:
        for e in events.take(10):
            seen.append([e.transition.id, e.start_state.label, e.goal_state.label, e.timestamp > 0])
        time.sleep(0.02)
    out["events"] = seen
    print(json.dumps(out), flush=True)


if __name__ == "__main__":
    main()
