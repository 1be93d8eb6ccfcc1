#!/usr/bin/env bash
# Benchmark (not a test): one quad's whole stack, what it costs and how fast it can run. Runs a
# quad scenario through the scenario runner (inside a private network namespace, as every DDS
# process must) once per real-time factor given, and for each run prints
#   - the runner's verdict and the run's wall time (the scenario's own simulated duration_s
#     plus bring-up and teardown), so the fastest factor that still passes can be read off;
#   - every process of the run (simulator, bridge adapters, link emulator and ground station,
#     the launch, the four mission nodes and supervisor_core), sampled from /proc every
#     0.5 s: its CPU time (utime + stime) over its lifetime as % of one core, and its peak
#     resident set (VmHWM, the kernel's own maximum, not a sampled one).
#   scripts/bench/quad_stack.sh [--profile debug|release] [--scenario FILE] [RTF ...]
#   scripts/bench/quad_stack.sh 1 2 4 0        (0: as fast as the simulator can step)
#   scripts/bench/quad_stack.sh --scenario config/scenarios/fleet_carrier.yaml 0.25 0.5 1
#                                              (the fleet: three quads and the carrier's station)
# Defaults: debug, config/scenarios/quad_nominal.yaml, the scenario's own real_time_factor (1
# if it sets none; the quad scenarios run at 0.5 so a debug stack on a loaded machine keeps up
# with simulation time). It builds nothing: the runner, the simulator, the bridge, `fieldproof`
# and the mission binaries must be in target/<profile> (`cargo build --workspace`); the mission executables are found through a temporary ament
# prefix of links to them (as src/fieldproof_mission/tests/quad_scenarios.rs does). Needs root
# (network namespaces). Runs go to runs/bench-<scenario>-rtf<factor>-<time>/.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$root"
profile=debug
scenario=config/scenarios/quad_nominal.yaml
factors=()
while [ $# -gt 0 ]; do
  case "$1" in
    --profile) profile="${2:?--profile needs debug or release}"; shift 2 ;;
    --scenario) scenario="${2:?--scenario needs a file}"; shift 2 ;;
    -h | --help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;;
    *) factors+=("$1"); shift ;;
  esac
done
case "$profile" in debug | release) ;; *) echo "quad_stack.sh: --profile: $profile is not debug or release" >&2; exit 2 ;; esac
[ -f "$scenario" ] || { echo "quad_stack.sh: --scenario: $scenario is not a file" >&2; exit 2; }
if [ ${#factors[@]} -eq 0 ]; then
  own="$(sed -n 's/^real_time_factor:[[:space:]]*\([0-9.]*\).*/\1/p' "$scenario")"
  factors=("${own:-1}")
fi
for factor in "${factors[@]}"; do
  [[ "$factor" =~ ^[0-9]+(\.[0-9]+)?$ ]] || { echo "quad_stack.sh: real-time factor $factor is not a number >= 0" >&2; exit 2; }
done
bin="$root/target/$profile"
mission=(localizer planner mission_supervisor supervisor_core autopilot_stub)
fleet=(fleet_station fleet_adapter)
for exe in fieldproof-scenario fieldproof_sim fieldproof "${mission[@]}" "${fleet[@]}"; do
  [ -x "$bin/$exe" ] || { echo "quad_stack.sh: $bin/$exe missing (build it for $profile: cargo build --workspace)" >&2; exit 2; }
done

# The mission's and the fleet's executables and launch files in a temporary ament prefix
# (`fieldproof launch` resolves pkg: and $(find-pkg-share ...) through it).
prefix="$(mktemp -d)"
# The stack runs as the unprivileged account (`fieldproof run --user`): let it read the prefix.
chmod 755 "$prefix"
trap 'rm -rf "$prefix"' EXIT
mkdir -p "$prefix/share/ament_index/resource_index/packages"
link_package() {
  local package="$1"; shift
  mkdir -p "$prefix/lib/$package" "$prefix/share/$package"
  touch "$prefix/share/ament_index/resource_index/packages/$package"
  ln -s "$root/src/$package/launch" "$prefix/share/$package/launch"
  for exe in "$@"; do ln -s "$bin/$exe" "$prefix/lib/$package/$exe"; done
}
link_package fieldproof_mission "${mission[@]}"
link_package fieldproof_fleet "${fleet[@]}"

# Samples every descendant of pid $1 until it exits; prints the per-process table.
sample_tree() {
  python3 - "$1" <<'EOF'
import os, sys, time
root = int(sys.argv[1])
hz = os.sysconf("SC_CLK_TCK")
seen = {}  # pid -> dict(name, start, cpu, hwm_kib, last)

def uptime():
    with open("/proc/uptime") as f:
        return float(f.read().split()[0])

def stat(pid):
    with open(f"/proc/{pid}/stat") as f:
        text = f.read()
    fields = text[text.rindex(")") + 2:].split()  # after "pid (comm) "
    # fields[0] is state (stat field 3): ppid 4, utime 14, stime 15, starttime 22
    return int(fields[1]), int(fields[11]) + int(fields[12]), int(fields[19]) / hz

def name(pid):
    with open(f"/proc/{pid}/cmdline", "rb") as f:
        argv = [a.decode(errors="replace") for a in f.read().split(b"\0") if a]
    if not argv:
        return "?"
    label = os.path.basename(argv[0])
    nodes = [a.split(":=", 1)[1] for a in argv if a.startswith("__node:=")]
    if nodes and nodes[-1] != label:
        label += f" [{nodes[-1]}]"
    return label

def hwm_kib(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    return 0

while os.path.exists(f"/proc/{root}"):
    table = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                table[int(entry)] = stat(int(entry))
            except (OSError, ValueError, IndexError):
                pass
    tree, frontier = set(), [root]
    children = {}
    for pid, (ppid, _, _) in table.items():
        children.setdefault(ppid, []).append(pid)
    while frontier:
        pid = frontier.pop()
        if pid in tree:
            continue
        tree.add(pid)
        frontier.extend(children.get(pid, []))
    now = uptime()
    for pid in tree:
        try:
            ticks, start = table[pid][1], table[pid][2]
            record = seen.setdefault(pid, {"name": name(pid), "start": start, "hwm": 0})
            record["cpu"] = ticks / hz
            record["hwm"] = max(record["hwm"], hwm_kib(pid))
            record["last"] = now
        except (OSError, KeyError):
            pass
    time.sleep(0.5)

rows = [r for r in seen.values() if r["last"] > r["start"]]
rows.sort(key=lambda r: -r["cpu"])
print(f"{'process':<44} {'alive s':>8} {'cpu s':>8} {'% core':>7} {'peak RSS MiB':>13}")
for r in rows:
    alive = r["last"] - r["start"]
    print(f"{r['name'][:44]:<44} {alive:>8.1f} {r['cpu']:>8.2f} {100 * r['cpu'] / alive:>7.1f} {r['hwm'] / 1024:>13.1f}")
cpu = sum(r["cpu"] for r in rows)
span = max(r["last"] for r in rows) - min(r["start"] for r in rows) if rows else 0
if span > 0:
    print(f"{'all ' + str(len(rows)) + ' processes':<44} {span:>8.1f} {cpu:>8.2f} {100 * cpu / span:>7.1f} "
          f"{sum(r['hwm'] for r in rows) / 1024:>13.1f} (sum of peaks)")
EOF
}

name="$(basename "$scenario" .yaml)"
echo "scenario:  $scenario ($profile builds from $bin)"
echo "machine:   $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg)"
summary=()
for factor in "${factors[@]}"; do
  out="runs/bench-$name-rtf$factor-$(date +%Y%m%d-%H%M%S)"
  echo
  echo "== real_time_factor $factor -> $out"
  start=$(date +%s%N)
  AMENT_PREFIX_PATH="$prefix" scripts/netns-run "$bin/fieldproof-scenario" run "$scenario" \
    --out "$out" --real-time-factor "$factor" </dev/null >"/tmp/quad_stack.$$.log" 2>&1 &
  runner=$!
  sample_tree "$runner"
  status=0
  wait "$runner" || status=$?
  end=$(date +%s%N)
  wall=$(awk -v ns=$((end - start)) 'BEGIN { printf "%.1f", ns / 1e9 }')
  verdict=$([ "$status" -eq 0 ] && echo passed || echo "FAILED (exit $status; $out/report.md)")
  tail -n 3 "/tmp/quad_stack.$$.log"
  rm -f "/tmp/quad_stack.$$.log"
  echo "wall time: $wall s, $verdict"
  summary+=("$(printf '%-6s %9s s  %s' "$factor" "$wall" "$verdict")")
done
echo
echo "rtf     wall time  verdict"
printf '%s\n' "${summary[@]}"
