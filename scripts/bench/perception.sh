#!/usr/bin/env bash
# Benchmark (not a test): the perception payload's costs, in release. Builds only
# fieldproof_perception's example (src/fieldproof_perception/examples/perception_bench.rs),
# which prints the artifact gate's time and the gate plus tract's load, the inference time per
# 64x48 frame (p50/p99/max over frames the simulator's renderer draws) and the CPU share of one
# core at the camera's rate (10 Hz, quad_ref). No DDS (no network namespace needed).
#   scripts/bench/perception.sh [--frames N] [--rate-hz HZ] [--seconds S]
# The numbers depend on the machine's load: run it on an idle machine to compare builds.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$root"
cargo build --release --quiet -p fieldproof_perception --example perception_bench
target/release/examples/perception_bench "$@"
