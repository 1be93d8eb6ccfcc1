#!/usr/bin/env bash
# Benchmark (not a test): the perception node's boot gate, `artifact::open_verified` (read the
# three files, Ed25519 over the manifest, parse it, SHA-256 of the model, version, device,
# input shape) on a 100 kB stand-in model: p50, p90, min, max of 50 runs, release build of
# fieldproof_perception's `gate_bench` example only. No DDS: nothing to contain.
#   scripts/bench/perception_gate.sh [--runs N] [--model-bytes N]
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$root"
cargo build --release --quiet -p fieldproof_perception --example gate_bench
"$root/target/release/examples/gate_bench" "$@"
