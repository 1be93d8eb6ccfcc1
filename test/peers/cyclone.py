"""A Cyclone DDS participant speaking ROS 2's conventions: `rt/` topics, ROS QoS profiles,
the graph in `ros_discovery_info`, and the parameter services (rmw_cyclonedds' request/reply
mapping, as `ros2 param set` on a Cyclone-based ROS 2 would send them)."""

import itertools
import os
import time
from dataclasses import dataclass, field

from cyclonedds.core import Policy, Qos
from cyclonedds.domain import DomainParticipant
from cyclonedds.idl import IdlStruct
from cyclonedds.idl.types import float64, int64, sequence, uint8, uint64
from cyclonedds.pub import DataWriter
from cyclonedds.sub import DataReader
from cyclonedds.topic import Topic
from cyclonedds.util import duration

from peers.ros_types import ParticipantEntitiesInfo


def ros_qos(reliable: bool = True, depth: int = 10, transient_local: bool = False) -> Qos:
    """A ROS 2 QoS profile (default: reliable, volatile, keep last 10)."""
    return Qos(
        Policy.Reliability.Reliable(duration(seconds=1)) if reliable else Policy.Reliability.BestEffort,
        Policy.History.KeepLast(depth),
        Policy.Durability.TransientLocal if transient_local else Policy.Durability.Volatile,
    )


@dataclass
class ParameterValue(IdlStruct, typename="rcl_interfaces::msg::dds_::ParameterValue_"):
    type: uint8 = 0
    bool_value: bool = False
    integer_value: int64 = 0
    double_value: float64 = 0.0
    string_value: str = ""
    byte_array_value: sequence[uint8] = field(default_factory=list)
    bool_array_value: sequence[bool] = field(default_factory=list)
    integer_array_value: sequence[int64] = field(default_factory=list)
    double_array_value: sequence[float64] = field(default_factory=list)
    string_array_value: sequence[str] = field(default_factory=list)


@dataclass
class Parameter(IdlStruct, typename="rcl_interfaces::msg::dds_::Parameter_"):
    name: str = ""
    value: ParameterValue = field(default_factory=ParameterValue)


@dataclass
class SetParametersResult(IdlStruct, typename="rcl_interfaces::msg::dds_::SetParametersResult_"):
    successful: bool = False
    reason: str = ""


# rmw_cyclonedds puts a request header (client guid, sequence number) before the fields.
@dataclass
class SetParametersRequest(IdlStruct, typename="rcl_interfaces::srv::dds_::SetParameters_Request_"):
    client_guid: uint64 = 0
    seq: int64 = 0
    parameters: sequence[Parameter] = field(default_factory=list)


@dataclass
class SetParametersResponse(IdlStruct, typename="rcl_interfaces::srv::dds_::SetParameters_Response_"):
    client_guid: uint64 = 0
    seq: int64 = 0
    results: sequence[SetParametersResult] = field(default_factory=list)


@dataclass
class GetParametersRequest(IdlStruct, typename="rcl_interfaces::srv::dds_::GetParameters_Request_"):
    client_guid: uint64 = 0
    seq: int64 = 0
    names: sequence[str] = field(default_factory=list)


@dataclass
class GetParametersResponse(IdlStruct, typename="rcl_interfaces::srv::dds_::GetParameters_Response_"):
    client_guid: uint64 = 0
    seq: int64 = 0
    values: sequence[ParameterValue] = field(default_factory=list)


@dataclass
class FloatingPointRange(IdlStruct, typename="rcl_interfaces::msg::dds_::FloatingPointRange_"):
    from_value: float64 = 0.0
    to_value: float64 = 0.0
    step: float64 = 0.0


@dataclass
class IntegerRange(IdlStruct, typename="rcl_interfaces::msg::dds_::IntegerRange_"):
    from_value: int64 = 0
    to_value: int64 = 0
    step: uint64 = 0


@dataclass
class ParameterDescriptor(IdlStruct, typename="rcl_interfaces::msg::dds_::ParameterDescriptor_"):
    name: str = ""
    type: uint8 = 0
    description: str = ""
    additional_constraints: str = ""
    read_only: bool = False
    dynamic_typing: bool = False
    floating_point_range: sequence[FloatingPointRange, 1] = field(default_factory=list)
    integer_range: sequence[IntegerRange, 1] = field(default_factory=list)


@dataclass
class DescribeParametersRequest(IdlStruct, typename="rcl_interfaces::srv::dds_::DescribeParameters_Request_"):
    client_guid: uint64 = 0
    seq: int64 = 0
    names: sequence[str] = field(default_factory=list)


@dataclass
class DescribeParametersResponse(IdlStruct, typename="rcl_interfaces::srv::dds_::DescribeParameters_Response_"):
    client_guid: uint64 = 0
    seq: int64 = 0
    descriptors: sequence[ParameterDescriptor] = field(default_factory=list)


def parameter_value(value) -> ParameterValue:
    """A Python value as a ROS ParameterValue (bool, int, float, str)."""
    if isinstance(value, bool):
        return ParameterValue(type=1, bool_value=value)
    if isinstance(value, int):
        return ParameterValue(type=2, integer_value=value)
    if isinstance(value, float):
        return ParameterValue(type=3, double_value=value)
    if isinstance(value, str):
        return ParameterValue(type=4, string_value=value)
    if isinstance(value, list) and all(isinstance(x, float) for x in value):
        return ParameterValue(type=8, double_array_value=value)
    raise TypeError(f"unsupported parameter value {value!r}")


class Peer:
    """One Cyclone DDS participant on the ROS domain of the environment."""

    _seq = itertools.count(1)

    def __init__(self):
        self.dp = DomainParticipant(int(os.environ.get("ROS_DOMAIN_ID", "0")))
        self._topics = {}
        self._graph = DataReader(self.dp, self.topic("ros_discovery_info", ParticipantEntitiesInfo, raw=True),
                                 ros_qos(depth=100, transient_local=True))
        self._nodes = {}
        self._param_clients = {}

    def topic(self, name: str, msg_type, raw: bool = False) -> Topic:
        dds_name = name if raw else "rt/" + name.lstrip("/")
        key = (dds_name, msg_type.__name__)
        if key not in self._topics:
            self._topics[key] = Topic(self.dp, dds_name, msg_type)
        return self._topics[key]

    def writer(self, name: str, msg_type, **qos) -> DataWriter:
        return DataWriter(self.dp, self.topic(name, msg_type), ros_qos(**qos))

    def reader(self, name: str, msg_type, **qos) -> DataReader:
        qos.setdefault("depth", 100)
        return DataReader(self.dp, self.topic(name, msg_type), ros_qos(**qos))

    def nodes(self) -> set[tuple[str, str]]:
        """(namespace, name) of every ROS node seen in ros_discovery_info."""
        for info in self._graph.take(100):
            if hasattr(info, "gid"):
                self._nodes[bytes(info.gid.data)] = {(n.node_namespace, n.node_name) for n in info.node_entities_info_seq}
        return set().union(*self._nodes.values()) if self._nodes else set()

    def set_parameters(self, node_fqn: str, values: dict, timeout: float = 10.0) -> list[SetParametersResult]:
        """Call `<node>/set_parameters` and return the results (one per parameter)."""
        if node_fqn not in self._param_clients:
            base = node_fqn.lstrip("/")
            req_topic = Topic(self.dp, f"rq/{base}/set_parametersRequest", SetParametersRequest)
            rep_topic = Topic(self.dp, f"rr/{base}/set_parametersReply", SetParametersResponse)
            service_qos = ros_qos(depth=10)
            self._param_clients[node_fqn] = (DataWriter(self.dp, req_topic, service_qos),
                                             DataReader(self.dp, rep_topic, service_qos))
            time.sleep(0.5)  # let request and reply endpoints match before the first call
        writer, reader = self._param_clients[node_fqn]
        seq = next(self._seq)
        request = SetParametersRequest(client_guid=0x1234_5678_9ABC_DEF0, seq=seq,
                                       parameters=[Parameter(n, parameter_value(v)) for n, v in values.items()])
        deadline = time.monotonic() + timeout
        resend = 0.0
        while time.monotonic() < deadline:
            if time.monotonic() >= resend:
                writer.write(request)
                resend = time.monotonic() + 1.0
            for reply in reader.take(10):
                if getattr(reply, "seq", None) == seq:
                    return list(reply.results)
            time.sleep(0.02)
        raise AssertionError(f"{node_fqn}/set_parameters: no reply within {timeout}s")
