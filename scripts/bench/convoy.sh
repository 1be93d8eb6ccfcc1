#!/usr/bin/env bash
# Benchmark (not a test) of issue 20's convoy: builds, in release, fieldproof_convoy's
# lora_radio and its bench driver (src/fieldproof_convoy/examples/convoy_bench.rs), then
#  1. the follower's control cycle (watchdog + controller, what convoy_follower does each tick,
#     no I/O) timed cycle by cycle over a scripted run that visits all four states: p50/p90/p99/
#     p99.9/max/mean in nanoseconds;
#  2. the LoRa path: lora_radio between two pty pairs fed one 28-byte frame every 200 ms (5 Hz)
#     for [lora_seconds] (default 30): frames delivered per second against the computed
#     1 / airtime(28 B) = 1 / 226.3 ms = 4.42 /s.
# lora_radio opens a DDS participant (its stats), so the driver runs inside scripts/netns-run.
#   scripts/bench/convoy.sh [cycles] [lora_seconds]   (defaults 200000, 30)
# The cycle times are wall clock and depend on the machine's load: compare on the same one.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$root"
cycles="${1:-200000}"
lora_seconds="${2:-30}"
[[ "$cycles" =~ ^[1-9][0-9]*$ ]] || { echo "convoy.sh: cycles: $cycles is not a positive integer" >&2; exit 2; }
[[ "$lora_seconds" =~ ^[1-9][0-9]*$ && "$lora_seconds" -ge 5 ]] || { echo "convoy.sh: lora_seconds: $lora_seconds is not an integer >= 5" >&2; exit 2; }

cargo build --release --quiet -p fieldproof_convoy --bin lora_radio --example convoy_bench
echo "machine:           $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg)"
scripts/netns-run target/release/examples/convoy_bench --cycles "$cycles" \
  --lora-radio target/release/lora_radio --lora-seconds "$lora_seconds"
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
