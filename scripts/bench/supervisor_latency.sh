#!/usr/bin/env bash
# Benchmark (not a test): supervisor_core's decision latency per frame through its pipe, what
# mission_supervisor waits for each 0.05 s control cycle. Builds supervisor_core and the
# driver (src/fieldproof_mission/examples/supervisor_latency.rs) in release, then the driver
# spawns the binary and, frame after frame, writes one 15-field frame and times the wall clock
# until the command with the same sequence is read back. The frames are a closed-loop flight
# like the golden traces': healthy patrol, a recoverable camera dropout and inference overload
# every 40 s, a sustained GNSS loss that lands it at the end. Prints p50/p90/p99/p99.9/max/mean
# in microseconds, per mode and overall. No DDS (no network namespace needed).
#   scripts/bench/supervisor_latency.sh [frames]   (default 20000)
# The numbers include the two pipe transfers and both processes' wake-ups, so they depend on
# the machine's load: run it on an idle machine and compare builds on the same one.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$root"
frames="${1:-20000}"
[[ "$frames" =~ ^[1-9][0-9]*$ ]] || { echo "supervisor_latency.sh: frames: $frames is not a positive integer" >&2; exit 2; }

cargo build --release --quiet -p fieldproof_mission --bin supervisor_core --example supervisor_latency
echo "machine:           $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg)"
target/release/examples/supervisor_latency --frames "$frames" --binary target/release/supervisor_core
