"""An rclpy node (real ROS 2 Jazzy, run with /usr/bin/python3 in the rig's environment) that
publishes sensor_msgs/Imu on one topic and subscribes to another, for a relay in between.

    rclpy_imu_roundtrip.py INPUT OUTPUT COUNT

It publishes a primer until one comes back through the relay (discovery done), then COUNT
seeded random samples, and prints one JSON line: {"primed", "sent", "received",
"peer_type_hashes"}: the samples as dicts of their fields, and the type hash rmw_cyclonedds_cpp
read from each other node's endpoint on the two topics ("INVALID" where it read none). Exit 0
even when samples are missing: the test judges."""

import json
import random
import sys
import time

import rclpy
from rclpy.node import Node
from sensor_msgs.msg import Imu


def random_imu(rng: random.Random, index: int) -> Imu:
    msg = Imu()
    msg.header.stamp.sec = 1000 + index
    msg.header.stamp.nanosec = rng.randrange(1_000_000_000)
    msg.header.frame_id = f"imu_link_{index % 3}"
    q = msg.orientation
    q.x, q.y, q.z, q.w = (rng.uniform(-1, 1) for _ in range(4))
    for vector in (msg.angular_velocity, msg.linear_acceleration):
        vector.x, vector.y, vector.z = (rng.uniform(-10, 10) for _ in range(3))
    msg.orientation_covariance = [rng.uniform(-1, 1) for _ in range(9)]
    msg.angular_velocity_covariance = [rng.uniform(-1, 1) for _ in range(9)]
    msg.linear_acceleration_covariance = [rng.uniform(-1, 1) for _ in range(9)]
    return msg


def as_dict(msg: Imu) -> dict:
    vec = lambda v: [v.x, v.y, v.z]
    return {
        "stamp": [msg.header.stamp.sec, msg.header.stamp.nanosec],
        "frame_id": msg.header.frame_id,
        "orientation": [msg.orientation.x, msg.orientation.y, msg.orientation.z, msg.orientation.w],
        "orientation_covariance": list(msg.orientation_covariance),
        "angular_velocity": vec(msg.angular_velocity),
        "angular_velocity_covariance": list(msg.angular_velocity_covariance),
        "linear_acceleration": vec(msg.linear_acceleration),
        "linear_acceleration_covariance": list(msg.linear_acceleration_covariance),
    }


def main() -> int:
    input_topic, output_topic, count = sys.argv[1], sys.argv[2], int(sys.argv[3])
    rclpy.init()
    node = Node("rclpy_imu_roundtrip")
    publisher = node.create_publisher(Imu, input_topic, 10)
    received = []
    node.create_subscription(Imu, output_topic, lambda msg: received.append(as_dict(msg)), 100)

    primer = Imu()
    primer.header.frame_id = "primer"
    deadline = time.monotonic() + 30
    while not received and time.monotonic() < deadline:
        publisher.publish(primer)
        rclpy.spin_once(node, timeout_sec=0.1)
    primed = bool(received)
    end = time.monotonic() + 0.5
    while time.monotonic() < end:
        rclpy.spin_once(node, timeout_sec=0.05)
    received.clear()

    rng = random.Random(21)
    sent = []
    for index in range(count if primed else 0):
        msg = random_imu(rng, index)
        sent.append(as_dict(msg))
        publisher.publish(msg)
        rclpy.spin_once(node, timeout_sec=0.01)
    end = time.monotonic() + 5
    while len(received) < len(sent) and time.monotonic() < end:
        rclpy.spin_once(node, timeout_sec=0.05)

    own = node.get_fully_qualified_name()
    peer_type_hashes = {
        f"{kind} {info.node_namespace.rstrip('/')}/{info.node_name} {topic}": str(info.topic_type_hash)
        for kind, topic, infos in (
            ("subscription", input_topic, node.get_subscriptions_info_by_topic(input_topic)),
            ("publisher", output_topic, node.get_publishers_info_by_topic(output_topic)),
        )
        for info in infos
        if f"{info.node_namespace.rstrip('/')}/{info.node_name}" != own
    }
    print(json.dumps({"primed": primed, "sent": sent, "received": received,
                      "peer_type_hashes": peer_type_hashes}), flush=True)
    node.destroy_node()
    rclpy.shutdown()
    return 0


if __name__ == "__main__":
    sys.exit(main())
