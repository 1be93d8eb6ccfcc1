"""A relay written on the Cyclone DDS Python binding: the class of the earlier rclpy adapters.

Only for the benchmark's side-by-side comparison with our Rust relay:
    python -m peers.cyclone_relay <input topic> <output topic> <type: Imu|Image> [best_effort]
Reads `rt/<input>`, republishes every sample on `rt/<output>`, until SIGINT/SIGTERM.
"""

import signal
import sys

from cyclonedds.core import Listener, Policy, Qos
from cyclonedds.domain import DomainParticipant
from cyclonedds.pub import DataWriter
from cyclonedds.sub import DataReader
from cyclonedds.topic import Topic
from cyclonedds.util import duration

from peers import ros_types


def qos(best_effort: bool) -> Qos:
    reliability = (
        Policy.Reliability.BestEffort if best_effort else Policy.Reliability.Reliable(duration(seconds=1))
    )
    return Qos(reliability, Policy.History.KeepLast(10), Policy.Durability.Volatile)


def main() -> None:
    src, dst, type_name = sys.argv[1:4]
    best_effort = len(sys.argv) > 4 and sys.argv[4] == "best_effort"
    msg_type = getattr(ros_types, type_name)
    dp = DomainParticipant()
    writer = DataWriter(dp, Topic(dp, f"rt/{dst.lstrip('/')}", msg_type), qos(best_effort))

    class Forward(Listener):
        def on_data_available(self, reader):
            for sample in reader.take(64):
                writer.write(sample)

    reader = DataReader(dp, Topic(dp, f"rt/{src.lstrip('/')}", msg_type), qos(best_effort), listener=Forward())
    stop = []
    signal.signal(signal.SIGTERM, lambda *_: stop.append(1))
    signal.signal(signal.SIGINT, lambda *_: stop.append(1))
    print("ready", flush=True)
    while not stop:
        signal.pause()
    del reader


if __name__ == "__main__":
    main()
