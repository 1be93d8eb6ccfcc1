"""Cyclone DDS peer for tests/cyclone.rs: calls a node's parameter services the way
`ros2 param get/set/describe` does on a Cyclone-based ROS 2 (rmw_cyclonedds_cpp: `rq/<node>/<srv>Request`
topics, ROS 2 DDS type names, a (client id, sequence number) header before the request,
echoed before the reply), and subscribes the node's topic.

usage: cyclone_params.py NODE_FQN TOPIC   (ROS_DOMAIN_ID from the environment)
Prints one JSON object with what it saw; exits non-zero if a service never answered.
"""

import json
import os
import sys
import time

from cyclonedds.domain import DomainParticipant
from cyclonedds.pub import DataWriter
from cyclonedds.sub import DataReader
from cyclonedds.topic import Topic

# The ROS 2 types shared by every Python peer of the suite live in <repo>/test/peers.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "test"))
from peers.cyclone import (  # noqa: E402
    DescribeParametersRequest as DescribeRequest,
    DescribeParametersResponse as DescribeResponse,
    GetParametersRequest as GetRequest,
    GetParametersResponse as GetResponse,
    Parameter,
    ParameterValue,
    SetParametersRequest as SetRequest,
    SetParametersResponse as SetResponse,
    ros_qos,
)
from peers.ros_types import String  # noqa: E402


CLIENT_ID = 0x0123_4567_89AB_CDEF
QOS = ros_qos(depth=1000)


class Service:
    def __init__(self, dp, node, name, req_t, rep_t):
        base = node.lstrip("/")
        self.w = DataWriter(dp, Topic(dp, f"rq/{base}/{name}Request", req_t), QOS)
        self.r = DataReader(dp, Topic(dp, f"rr/{base}/{name}Reply", rep_t), QOS)
        self.seq = 0

    def call(self, make, timeout=20.0):
        self.seq += 1
        req = make(self.seq)
        deadline = time.monotonic() + timeout
        resend = 0.0
        while time.monotonic() < deadline:
            if time.monotonic() >= resend:  # requests sent before matching are lost: resend
                self.w.write(req)
                resend = time.monotonic() + 0.5
            for rep in self.r.take(10):
                if getattr(rep, "client_guid", None) == CLIENT_ID and rep.seq == self.seq:
                    return rep
            time.sleep(0.02)
        raise SystemExit(f"no reply from {self.w.topic.name} within {timeout}s")


def value(v: ParameterValue):
    return {1: v.bool_value, 2: v.integer_value, 3: v.double_value, 4: v.string_value}.get(v.type)


def main():
    node, topic = sys.argv[1], sys.argv[2]
    dp = DomainParticipant(int(os.environ.get("ROS_DOMAIN_ID", "0")))
    get = Service(dp, node, "get_parameters", GetRequest, GetResponse)
    set_ = Service(dp, node, "set_parameters", SetRequest, SetResponse)
    describe = Service(dp, node, "describe_parameters", DescribeRequest, DescribeResponse)
    chatter = DataReader(dp, Topic(dp, "rt/" + topic.lstrip("/"), String), QOS)
    out = {}

    rep = get.call(lambda s: GetRequest(CLIENT_ID, s, ["message", "rate_hz"]))
    out["before"] = [value(v) for v in rep.values]
    rep = set_.call(lambda s: SetRequest(CLIENT_ID, s, [
        Parameter("message", ParameterValue(type=4, string_value="from_cyclone")),
        Parameter("rate_hz", ParameterValue(type=3, double_value=-5.0)),
    ]))
    out["set"] = [[r.successful, r.reason] for r in rep.results]
    rep = get.call(lambda s: GetRequest(CLIENT_ID, s, ["message", "rate_hz"]))
    out["after"] = [value(v) for v in rep.values]

    # A parameter with choices: describe shows them, a value outside them is refused.
    rep = describe.call(lambda s: DescribeRequest(CLIENT_ID, s, ["style"]))
    out["style_constraints"] = [d.additional_constraints for d in rep.descriptors]
    rep = set_.call(lambda s: SetRequest(CLIENT_ID, s, [
        Parameter("style", ParameterValue(type=4, string_value="loud")),
    ]))
    out["style_set"] = [[r.successful, r.reason] for r in rep.results]
    rep = get.call(lambda s: GetRequest(CLIENT_ID, s, ["style"]))
    out["style_after"] = [value(v) for v in rep.values]

    deadline = time.monotonic() + 20.0
    out["heard"] = None
    while time.monotonic() < deadline and out["heard"] is None:
        for m in chatter.take(10):
            if m.data.startswith("from_cyclone"):
                out["heard"] = m.data
        time.sleep(0.02)
    print(json.dumps(out), flush=True)


if __name__ == "__main__":
    main()
