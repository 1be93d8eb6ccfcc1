"""Benchmark (not a test): the floor of a relay hop on this machine, to read `relay_hop`'s
figures against (`cargo bench -p fieldproof_bridge --bench relay_hop`, issue 16's goal: relay
CPU <= 3 % of a core at 1 kHz, p50 <= 1.5x direct).

A C forwarder (`relay_floor.c`, compiled here with `cc -O2`) moves each datagram from one
loopback UDP socket to another and does nothing else, in three thread layouts: one thread
(no hand-off), one hand-off (receiving thread -> sending thread: a stack whose node sends from
its executor) and two hand-offs (receiving thread -> worker -> sending thread: rustdds's path,
event loop -> executor -> event loop). A paced sender sends `--rate` datagrams a second of
`--size` bytes for `--seconds`, each stamped, and takes each back before the next; printed:
p50 and p99 of direct (sender -> receiver) and through each layout, and the forwarder's CPU
(utime + stime from /proc) as % of one core and per message. No DDS, but run it like every
bench, inside a private network namespace:

    scripts/netns-run .venv/bin/python scripts/bench/relay_floor.py [--rate 1000] [--seconds 10] [--size 400]
"""

import argparse
import pathlib
import socket
import statistics
import struct
import subprocess
import sys
import tempfile
import time

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from bundle_cost import cpu_seconds  # noqa: E402  (one reading of /proc/<pid>/stat for the benches)
LAYOUTS = {0: "one thread, no hand-off", 1: "one hand-off", 2: "two hand-offs (rustdds's path)"}


def paced_round_trips(port_in: int, port_out: int, rate: float, seconds: float, size: int):
    """Sends stamped datagrams to `port_in` at `rate`, each taken back on `port_out` before the
    next; returns (p50 us, p99 us, messages sent, messages lost)."""
    sender = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    receiver = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    receiver.bind(("127.0.0.1", port_out))
    receiver.settimeout(0.5)
    padding = b"x" * max(0, size - 8)
    latencies, sent, lost = [], 0, 0
    started = time.perf_counter()
    while time.perf_counter() - started < seconds:
        sent += 1
        delay = started + sent / rate - time.perf_counter()
        if delay > 0:
            time.sleep(delay)
        sender.sendto(struct.pack("d", time.perf_counter()) + padding, ("127.0.0.1", port_in))
        try:
            data, _ = receiver.recvfrom(65536)
        except socket.timeout:
            lost += 1
            continue
        latencies.append((time.perf_counter() - struct.unpack("d", data[:8])[0]) * 1e6)
    sender.close()
    receiver.close()
    latencies.sort()
    return statistics.median(latencies), latencies[int(len(latencies) * 0.99)], sent, lost


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rate", type=float, default=1000.0, help="datagrams a second (default 1000)")
    parser.add_argument("--seconds", type=float, default=10.0, help="per measurement (default 10)")
    parser.add_argument("--size", type=int, default=400,
                        help="datagram bytes (default 400: an Imu sample with its RTPS headers)")
    args = parser.parse_args()
    for name, value in (("--rate", args.rate), ("--seconds", args.seconds)):
        if not value > 0:
            parser.error(f"{name}: {value} is not a positive number")
    if not 8 <= args.size <= 65000:
        parser.error(f"--size: {args.size} is not between 8 and 65000 bytes")
    with tempfile.TemporaryDirectory() as scratch:
        forwarder = pathlib.Path(scratch) / "relay_floor"
        subprocess.run(["cc", "-O2", "-pthread", "-o", str(forwarder), str(HERE / "relay_floor.c")],
                       check=True)
        subprocess.run(["ip", "link", "set", "lo", "up"], check=False)
        print(f"{args.rate:g} datagrams/s of {args.size} B for {args.seconds:g} s each, loopback UDP")
        p50, p99, sent, lost = paced_round_trips(9100, 9100, args.rate, args.seconds, args.size)
        print(f"{'direct':<36} p50 {p50:7.1f} us  p99 {p99:8.1f} us  lost {lost}/{sent}")
        for layout, label in LAYOUTS.items():
            process = subprocess.Popen([str(forwarder), str(layout), "9001", "9002"])
            try:
                time.sleep(0.3)
                cpu_before, wall_before = cpu_seconds(process.pid), time.perf_counter()
                p50, p99, sent, lost = paced_round_trips(9001, 9002, args.rate, args.seconds, args.size)
                cpu = cpu_seconds(process.pid) - cpu_before
                wall = time.perf_counter() - wall_before
            finally:
                process.kill()
                process.wait()
            print(f"{label:<36} p50 {p50:7.1f} us  p99 {p99:8.1f} us  lost {lost}/{sent}  "
                  f"forwarder CPU {100 * cpu / wall:5.1f} % of a core ({1e6 * cpu / sent:.0f} us a message)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
