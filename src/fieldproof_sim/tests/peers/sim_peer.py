"""A Cyclone DDS (PyPI `cyclonedds`) peer of the simulator: reads /clock, odometry, the scan,
the GNSS fix, tf_static and a camera image with ROS 2's DDS type names, drives the vehicle
through its hidden command topic, and prints one JSON line of what it saw.

Usage: sim_peer.py NAMESPACE (ROS_DOMAIN_ID from the environment; run inside scripts/netns-run).
The types (test/peers/ros_types.py) are written from the .msg definitions, independently of
our Rust types."""

import json
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "../../../../test"))

from cyclonedds.core import Policy, Qos  # noqa: E402
from cyclonedds.domain import DomainParticipant  # noqa: E402
from cyclonedds.pub import DataWriter  # noqa: E402
from cyclonedds.sub import DataReader  # noqa: E402
from cyclonedds.topic import Topic  # noqa: E402
from cyclonedds.util import duration  # noqa: E402

from peers.ros_types import (  # noqa: E402
    Clock, Image, LaserScan, NavSatFix, Odometry, TFMessage, Twist, Vector3,
)


def qos(reliable=True, depth=10, transient_local=False):
    return Qos(
        Policy.Reliability.Reliable(duration(seconds=1)) if reliable else Policy.Reliability.BestEffort,
        Policy.History.KeepLast(depth),
        Policy.Durability.TransientLocal if transient_local else Policy.Durability.Volatile,
    )


def main():
    ns = sys.argv[1]
    dp = DomainParticipant(int(os.environ.get("ROS_DOMAIN_ID", "0")))

    def reader(name, t, **q):
        return DataReader(dp, Topic(dp, "rt" + name, t), qos(**q))

    clock = reader("/clock", Clock, reliable=False, depth=1)
    odom = reader(f"/{ns}/_bridge/odom", Odometry, depth=50)
    scan = reader(f"/{ns}/_bridge/scan", LaserScan)
    fix = reader(f"/{ns}/_bridge/gps/fix", NavSatFix)
    tf_static = reader(f"/{ns}/tf_static", TFMessage, depth=1, transient_local=True)
    image = reader(f"/{ns}/camera/image", Image, depth=5)
    cmd = DataWriter(dp, Topic(dp, f"rt/{ns}/_bridge/cmd_vel", Twist), qos())

    seen = {}
    deadline = time.time() + 60
    while time.time() < deadline and len(seen) < 6:
        for name, r in [("clock", clock), ("odom", odom), ("scan", scan), ("fix", fix), ("tf_static", tf_static), ("image", image)]:
            for s in r.take(10):
                if hasattr(s, "header") or hasattr(s, "clock") or hasattr(s, "transforms"):
                    seen[name] = s
        time.sleep(0.05)
    missing = sorted({"clock", "odom", "scan", "fix", "tf_static", "image"} - set(seen))
    if missing:
        print(json.dumps({"error": f"nothing on {missing}"}))
        return 1
    # Drive: 0.5 m/s forward until odometry shows 0.3 m.
    x = 0.0
    deadline = time.time() + 60
    while time.time() < deadline and x < 0.3:
        cmd.write(Twist(linear=Vector3(0.5, 0.0, 0.0)))
        for o in odom.take(50):
            x = o.pose.pose.position.x
        time.sleep(0.05)
    o, s, f, t, i = seen["odom"], seen["scan"], seen["fix"], seen["tf_static"], seen["image"]
    print(json.dumps({
        "clock_s": seen["clock"].clock.sec + seen["clock"].clock.nanosec * 1e-9,
        "odom_frames": [o.header.frame_id, o.child_frame_id],
        "scan_frame": s.header.frame_id,
        "scan_samples": len(s.ranges),
        "scan_min": min(r for r in s.ranges if r == r),
        "fix": [f.latitude, f.longitude, f.altitude, f.header.frame_id],
        "tf_static_children": sorted(tr.child_frame_id for tr in t.transforms),
        "image": [i.width, i.height, i.encoding, i.header.frame_id, len(i.data)],
        "driven_x": x,
    }))
    return 0


if __name__ == "__main__":
    sys.exit(main())
