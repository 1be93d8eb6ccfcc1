"""Real ROS 2 Jazzy messages of any type, for the adapter peer tests (run with /usr/bin/python3
in the rig's environment):

    rclpy_generic.py roundtrip TYPE INPUT OUTPUT LISTEN_S [OUTPUT_TYPE [PRIMERS]] < messages.json
    rclpy_generic.py serialize TYPE < messages.json      (one CDR hex line per message)
    rclpy_generic.py deserialize TYPE < lines.hex         (a JSON list of the messages)

`messages.json` is a JSON list of messages as field dicts (rosidl_runtime_py's
set_message_fields), the first PRIMERS of them (default 1) the primers. `roundtrip` is an rclpy
node: it publishes the primers in turn on INPUT (reliable) until anything arrives on OUTPUT (best
effort, so it matches either reliability), then the other messages 20 ms apart, listens LISTEN_S more and prints one JSON
line {"primed", "received", "peer_type_hashes"}: the messages received after the primer as
dicts, and the type hash rmw_cyclonedds_cpp read from each other node's endpoint on the two
topics. INPUT `-` publishes nothing (an output-only node): primed by its first message.
OUTPUT_TYPE (default TYPE) is the type of OUTPUT, for a node whose output differs.
Exit 0 even when messages are missing: the test judges."""

import json
import sys
import time

import rclpy
from rclpy.node import Node
from rclpy.qos import QoSProfile, ReliabilityPolicy
from rclpy.serialization import deserialize_message, serialize_message
from rosidl_runtime_py import message_to_ordereddict, set_message_fields
from rosidl_runtime_py.utilities import get_message


def messages_from(type_name: str, dicts: list) -> list:
    message_type = get_message(type_name)
    messages = []
    for fields in dicts:
        message = message_type()
        set_message_fields(message, fields)
        messages.append(message)
    return messages


def as_dict(message) -> dict:
    # NaN and infinities as strings: JSON has no literal for them.
    def plain(value):
        if isinstance(value, float) and value != value:
            return "nan"
        if isinstance(value, float) and value in (float("inf"), float("-inf")):
            return str(value)
        if isinstance(value, dict):
            return {key: plain(item) for key, item in value.items()}
        if isinstance(value, (list, tuple)):
            return [plain(item) for item in value]
        return value
    return plain(json.loads(json.dumps(message_to_ordereddict(message), default=list)))


def peer_type_hashes(node: Node, input_topic: str, output_topic: str) -> dict:
    own = node.get_fully_qualified_name()
    endpoints = [("publisher", output_topic, node.get_publishers_info_by_topic(output_topic))]
    if input_topic != "-":
        endpoints.append(("subscription", input_topic, node.get_subscriptions_info_by_topic(input_topic)))
    return {
        f"{kind} {info.node_namespace.rstrip('/')}/{info.node_name} {topic}": str(info.topic_type_hash)
        for kind, topic, infos in endpoints
        for info in infos
        if f"{info.node_namespace.rstrip('/')}/{info.node_name}" != own
    }


def roundtrip(type_name: str, input_topic: str, output_topic: str, listen_s: float, dicts: list,
              output_type_name: str, primers: int) -> dict:
    rclpy.init()
    node = Node("rclpy_generic_peer")
    message_type = get_message(type_name)
    messages = messages_from(type_name, dicts)
    publisher = None
    if input_topic != "-":
        publisher = node.create_publisher(message_type, input_topic,
                                          QoSProfile(depth=100, reliability=ReliabilityPolicy.RELIABLE))
    received = []
    node.create_subscription(get_message(output_type_name), output_topic,
                             lambda msg: received.append(as_dict(msg)),
                             QoSProfile(depth=100, reliability=ReliabilityPolicy.BEST_EFFORT))
    deadline = time.monotonic() + 30
    attempt = 0
    while not received and time.monotonic() < deadline:
        if publisher is not None:
            publisher.publish(messages[attempt % primers])
            attempt += 1
        rclpy.spin_once(node, timeout_sec=0.1)
    primed = bool(received)
    settle = time.monotonic() + 0.5
    while time.monotonic() < settle:
        rclpy.spin_once(node, timeout_sec=0.05)
    received.clear()
    for message in messages[primers:] if primed and publisher is not None else []:
        publisher.publish(message)
        pause = time.monotonic() + 0.02
        while time.monotonic() < pause:
            rclpy.spin_once(node, timeout_sec=0.005)
    end = time.monotonic() + listen_s
    while time.monotonic() < end:
        rclpy.spin_once(node, timeout_sec=0.05)
    result = {"primed": primed, "received": received,
              "peer_type_hashes": peer_type_hashes(node, input_topic, output_topic)}
    node.destroy_node()
    rclpy.shutdown()
    return result


def main() -> int:
    command, type_name = sys.argv[1], sys.argv[2]
    if command == "roundtrip":
        input_topic, output_topic, listen_s = sys.argv[3], sys.argv[4], float(sys.argv[5])
        output_type_name = sys.argv[6] if len(sys.argv) > 6 else type_name
        primers = int(sys.argv[7]) if len(sys.argv) > 7 else 1
        print(json.dumps(roundtrip(type_name, input_topic, output_topic, listen_s, json.load(sys.stdin),
                                   output_type_name, primers)), flush=True)
    elif command == "serialize":
        for message in messages_from(type_name, json.load(sys.stdin)):
            print(serialize_message(message).hex())
    elif command == "deserialize":
        message_type = get_message(type_name)
        print(json.dumps([as_dict(deserialize_message(bytes.fromhex(line.strip()), message_type))
                          for line in sys.stdin if line.strip()]))
    else:
        print(f"unknown command {command!r}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
