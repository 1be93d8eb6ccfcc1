#!/usr/bin/env bash
# Benchmark (not a test): the `fieldproof` binary's size and start-up time — what every
# `fieldproof exec` (and so every `ros2 run`-style node start in a scenario) pays before the
# node itself runs. Prints the size and the median wall time of N runs of `--help` and
# `exec --help` (clap's help: parse and print, no ament lookup, no DDS).
#   scripts/bench/exec_start.sh [path/to/fieldproof] [runs]   (default target/debug/fieldproof, 21)
# Compare two builds by running it on each and dividing the numbers.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
bin="${1:-$root/target/debug/fieldproof}"
runs="${2:-21}"
[ -x "$bin" ] || { echo "exec_start.sh: $bin is not an executable (cargo build -p fieldproof_tools)" >&2; exit 2; }

# Median wall time in milliseconds of `$bin "$@"`, over $runs runs (after one warm-up run).
median_ms() {
  "$bin" "$@" >/dev/null 2>&1 || true
  for _ in $(seq "$runs"); do
    local start end
    start=$(date +%s%N)
    "$bin" "$@" >/dev/null 2>&1 || true
    end=$(date +%s%N)
    echo $(((end - start) / 1000))
  done | sort -n | awk '{ v[NR] = $1 } END { printf "%.2f", v[int((NR + 1) / 2)] / 1000 }'
}

size=$(stat -c %s "$bin")
echo "binary:            $bin"
echo "size:              $size bytes ($((size / 1024 / 1024)) MiB)"
echo "fieldproof --help:      $(median_ms --help) ms (median of $runs)"
echo "fieldproof exec --help: $(median_ms exec --help) ms (median of $runs)"
