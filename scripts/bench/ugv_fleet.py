"""Benchmark (not a test): how many UGVs run at real time on this machine, each with its
stack and failsafe behind its own radio link and the ground station probing it, with every
assertion of a link-loss scenario passing for each vehicle (issue 16's scale item).

The scenario for N vehicles (1 to 8) is generated: vehicle i drives lane i of
worlds/fleet_yard.yaml (28 m, west to east) behind its own `lte_rural` link, which drops for
20 s at 7 + i s; each vehicle's failsafe must report its link lost within 15 s and hold it
still, report the link back within 25 s of the restore, and the vehicle must reach its goal;
no collision, every link period as its profile says. The eight-vehicle file is shipped:

    .venv/bin/python scripts/bench/ugv_fleet.py scenario 8 > config/scenarios/ugv_fleet8_link_loss.yaml
    scripts/netns-run .venv/bin/python scripts/bench/ugv_fleet.py bench 1 2 4 8 [--rtf 1.0] \
        [--separate | --failsafe-apart] \
        [--json results.json] [--plot docs/images/ugv_fleet_scale.svg]

`bench` runs `fieldproof run` for each count (the colcon install tree must be built:
scripts/build) and prints, per count: the verdict and the failed assertions, the real-time
factor the timeline achieved, the machine's busy cores during the timeline (from /proc/stat),
the run's CPU and peak memory (run.json's resources), the bring-up time and the mean wait for a
CPU per wake-up of the run's threads (run.json's host: the starvation bound). Each vehicle's
bridge adapters and its failsafe run composed in one process, as the runner does by default;
`--separate` runs them as a process each (`compose_bundles: false`), `--failsafe-apart` only the
failsafe (`compose_failsafe: false`), to compare. Nothing else should run on the
machine meanwhile. `--json` writes the figures, `--plot` draws CPU and memory against the
count as SVG (matplotlib: `.venv/bin/pip install -r scripts/bench/requirements.txt`).
"""

import argparse
import json
import os
import pathlib
import shutil
import subprocess
import sys
import threading
import time

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "test"))
from nodes import INSTALL, ament_env  # noqa: E402

LANES = 8
OUTAGE_S = 20
FIRST_OUTAGE_S = 8
DURATION_S = 100


def scenario(vehicles: int, base: str = "../..") -> str:
    """The scenario for `vehicles` UGVs as YAML text; `base` is the repository's root as seen
    from where the file will be (relative for the shipped file, absolute for a bench run)."""
    if not 1 <= vehicles <= LANES:
        raise ValueError(f"vehicles: {vehicles} is not between 1 and {LANES} (the yard's lanes)")
    names = [f"ugv{i}" for i in range(1, vehicles + 1)]
    lines = [
        f"# {vehicles} UGVs, each behind its own LTE link with the ground station probing it, each",
        "# link dropped for 20 s in turn while its vehicle drives its lane of the fleet yard; every",
        "# vehicle's failsafe must hold it while its own link is down, and every vehicle reaches its",
        "# goal. Issue 16's scale benchmark; generated, do not edit:",
        f"#   .venv/bin/python scripts/bench/ugv_fleet.py scenario {vehicles}",
        f"#   fieldproof run config/scenarios/ugv_fleet{vehicles}_link_loss.yaml",
        f"name: ugv_fleet{vehicles}_link_loss",
        f"description: {vehicles} UGVs behind their own links; each link drops for {OUTAGE_S} s in turn",
        f"world: {base}/worlds/fleet_yard.yaml",
        "seed: 16",
        f"duration_s: {DURATION_S}s",
        "real_time_factor: 1.0",
        "# /clock at 200 Hz, not every 1 ms step: every node on simulation time wakes for each /clock",
        "# message (issue 16); the stacks' timers (10, 20, 50 Hz) stay exact at 5 ms.",
        "clock_rate_hz: 200",
        "vehicles:",
    ]
    for lane, name in enumerate(names, start=1):
        lines.append(f"  - {{ name: {name}, manifest: {base}/robots/ugv_nav2/robot.yaml, "
                     f"spawn: spawn_lane_{lane}, stack: goal_driver, without: [camera] }}")
    lines += ["network:", "  profile: lte_rural", "  verify: fail", "timeline:"]
    for lane, name in enumerate(names, start=1):
        lines.append(f"  - {{ name: go_{name}, at: 1s, vehicle: {name}, action: navigate_to, "
                     f"goal: goal_lane_{lane} }}")
    for lane, name in enumerate(names, start=1):
        lines.append(f"  - {{ name: outage_{name}, at: {FIRST_OUTAGE_S + lane - 1}s, vehicle: {name}, "
                     f"action: link.drop, duration_s: {OUTAGE_S}s }}")
    lines.append("assertions:")
    for lane, name in enumerate(names, start=1):
        lines += [
            f"  - {{ name: {name}_link_lost, type: topic_value, topic: /{name}/link_state, field: data,"
            f" op: eq, value: false, mode: eventually, entry: outage_{name}, within_s: 15s }}",
            f"  - {{ name: {name}_stopped, type: topic_value, topic: /{name}/odom,"
            f" field: twist.twist.linear.x, abs: true, op: lt, value: 0.05, mode: always,"
            f" entry: outage_{name}, after_s: 13s, within_s: 19.5s }}",
            f"  - {{ name: {name}_link_back, type: topic_value, topic: /{name}/link_state, field: data,"
            f" op: eq, value: true, mode: eventually, entry: outage_{name}, from: end, within_s: 25s }}",
            f"  - {{ name: {name}_reached, type: reached, vehicle: {name}, goal: goal_lane_{lane},"
            f" radius_m: 1.0 }}",
        ]
    lines += [
        "  - { name: no_collision, type: no_collision }",
        "  - { name: links_ok, type: link_verdicts }",
        "# Bring-up: every vehicle's failsafe must hear the ground station over its own link first.",
        "timeouts: { ready_s: 180s, ground_s: 180s }",
        "record:",
        "  topics: [" + ", ".join(
            topic for name in names
            for topic in (f"/{name}/odom", f"/{name}/cmd_vel", f"/{name}/link_state",
                          f"/{name}/gcs/heartbeat")) + ", /fieldproof/network]",
    ]
    return "\n".join(lines) + "\n"


class BusyCores:
    """The machine's busy cores over time, from /proc/stat, sampled once a second."""

    def __init__(self) -> None:
        self.samples: list[tuple[float, int, int]] = []
        self.stopped = threading.Event()
        self.thread = threading.Thread(target=self._sample, daemon=True)
        self.thread.start()

    @staticmethod
    def _read() -> tuple[int, int]:
        fields = [int(x) for x in pathlib.Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
        idle = fields[3] + fields[4]  # idle + iowait
        return sum(fields) - idle, sum(fields)

    def _sample(self) -> None:
        while not self.stopped.is_set():
            busy, total = self._read()
            self.samples.append((time.time(), busy, total))
            self.stopped.wait(1.0)

    def stop(self) -> None:
        """Ends the sampling."""
        self.stopped.set()
        self.thread.join()

    def between(self, start_unix: float, end_unix: float) -> float | None:
        """Average busy cores between two wall-clock instants (the nearest samples inside)."""
        inside = [s for s in self.samples if start_unix <= s[0] <= end_unix]
        if len(inside) < 2:
            return None
        (_, busy0, total0), (_, busy1, total1) = inside[0], inside[-1]
        return (busy1 - busy0) / (total1 - total0) * os.cpu_count()


def bench_one(vehicles: int, rtf: float, out: pathlib.Path, separate: bool = False,
              failsafe_apart: bool = False) -> dict:
    """Runs the scenario for `vehicles` UGVs (adapters and failsafe a process each if
    `separate`, the failsafe alone if `failsafe_apart`); what it measured."""
    out.mkdir(parents=True, exist_ok=True)
    path = out / f"ugv_fleet{vehicles}_link_loss.yaml"
    text = scenario(vehicles, base=str(ROOT))
    if separate:
        text += "compose_bundles: false\n"
    if failsafe_apart:
        text += "compose_failsafe: false\n"
    path.write_text(text)
    fieldproof = str(INSTALL / "fieldproof_tools/lib/fieldproof_tools/fieldproof")
    run_dir = out / "run"
    shutil.rmtree(run_dir, ignore_errors=True)  # `fieldproof run --out` refuses an existing one
    busy = BusyCores()
    started = time.time()
    done = subprocess.run([fieldproof, "run", str(path), "--out", str(run_dir), "--real-time-factor",
                           str(rtf)], env=ament_env(), capture_output=True, text=True)
    wall = time.time() - started
    busy.stop()
    record = json.loads((run_dir / "run.json").read_text()) if (run_dir / "run.json").is_file() else {}
    network = record.get("network") or {}
    achieved = network.get("sim_s_per_wall_s")
    timeline_start = record.get("timeline_started_unix")
    timeline_s = record.get("timeline_duration_s") or 0.0
    cores = None
    if timeline_start and achieved:
        cores = busy.between(timeline_start, timeline_start + timeline_s / achieved)
    resources = record.get("resources") or {}
    failed = [a.get("name") for a in record.get("assertions", []) if not a.get("passed", False)]
    return {
        "vehicles": vehicles,
        "exit": done.returncode,
        "status": (record.get("result") or {}).get("status", "no run.json: " + done.stderr[-300:]),
        "failed": failed,
        "achieved_rtf": achieved,
        "busy_cores": cores,
        "run_cores": (resources.get("processes_cpu_s", 0) + resources.get("runner_cpu_s", 0)) / wall,
        "peak_rss_mib": resources.get("peak_rss_mib"),
        "wakeup_delay_ms": (record.get("host") or {}).get("mean_wakeup_delay_ms"),
        "bring_up_s": (timeline_start - record["started_unix"]) if timeline_start else None,
        "wall_s": wall,
    }


def plot(results: list[dict], path: pathlib.Path, title: str) -> None:
    """Draws CPU (cores) and peak memory against the vehicle count, as SVG at `path`."""
    try:
        import matplotlib
    except ImportError:
        sys.exit("ugv_fleet.py: --plot needs matplotlib: "
                 ".venv/bin/pip install -r scripts/bench/requirements.txt")
    matplotlib.use("svg")
    matplotlib.rcParams["svg.hashsalt"] = "ugv_fleet"  # the same ids every time
    import matplotlib.pyplot as plt

    def series(key: str) -> list[float]:
        """One figure per count; a count that did not measure it is a gap."""
        return [float("nan") if r[key] is None else r[key] for r in results]

    counts = [r["vehicles"] for r in results]
    figure, (cpu, memory) = plt.subplots(1, 2, figsize=(9, 3.6))
    cpu.plot(counts, series("run_cores"), "o-",
             label="the run's processes and the runner")
    cpu.plot(counts, series("busy_cores"), "s--", label="the machine (busy cores)")
    cpu.axhline(os.cpu_count(), color="grey", linewidth=0.8)
    cpu.set(xlabel="UGVs", ylabel="cores", xticks=counts, ylim=(0, os.cpu_count() * 1.1),
            title="CPU")
    cpu.legend(fontsize="small")
    memory.plot(counts, series("peak_rss_mib"), "o-", color="tab:green")
    memory.set(xlabel="UGVs", ylabel="MiB", xticks=counts, ylim=(0, None),
               title="peak memory (resident, all processes)")
    for r in results:
        if r["status"] != "passed":
            cpu.annotate(r["status"], (r["vehicles"], r["run_cores"]), fontsize="small")
    figure.suptitle(title, fontsize="medium")
    figure.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    # No timestamp and fixed ids: the file changes only with its figures.
    figure.savefig(path, metadata={"Date": None})


def fmt(value, pattern: str) -> str:
    return "-" if value is None else pattern.format(value)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    gen = sub.add_parser("scenario", help="print the scenario for N vehicles")
    gen.add_argument("vehicles", type=int)
    run = sub.add_parser("bench", help="run the scenario for each count and print what it measured")
    run.add_argument("counts", type=int, nargs="+")
    run.add_argument("--rtf", type=float, default=1.0, help="real-time factor asked for (default 1.0)")
    run.add_argument("--out", type=pathlib.Path, default=ROOT / "runs" / "bench-ugv-fleet")
    run.add_argument("--separate", action="store_true",
                     help="each bridge adapter its own process (compose_bundles: false)")
    run.add_argument("--failsafe-apart", action="store_true",
                     help="adapters composed, the failsafe its own process (compose_failsafe: false)")
    run.add_argument("--json", type=pathlib.Path, help="write the figures to this file")
    run.add_argument("--plot", type=pathlib.Path, help="draw CPU and memory per count to this SVG")
    args = parser.parse_args()
    if args.command == "scenario":
        try:
            sys.stdout.write(scenario(args.vehicles))
        except ValueError as e:
            sys.exit(f"ugv_fleet.py: {e}")
        return
    if os.environ.get("FIELDPROOF_IN_NETNS") != "1":
        sys.exit("run inside a private network namespace: scripts/netns-run ...")
    if args.separate and args.failsafe_apart:
        sys.exit("ugv_fleet.py: --separate already runs the failsafe apart; give one of them")
    layout = ("adapters and failsafe a process each" if args.separate else
              "adapters composed, failsafe its own process" if args.failsafe_apart else
              "adapters and failsafe composed, one process per vehicle")
    for count in args.counts:
        if not 1 <= count <= LANES:
            sys.exit(f"ugv_fleet.py: counts: {count} is not between 1 and {LANES}")
    print(f"machine: {os.cpu_count()} cores, load average {os.getloadavg()[0]:.2f}; "
          f"real-time factor asked {args.rtf}; {layout}")
    print(f"{'UGVs':>4}  {'verdict':<12} {'achieved RTF':>12} {'busy cores':>10} {'run cores':>9} "
          f"{'peak RSS':>9} {'bring-up':>8} {'wake-up delay':>13}  failed assertions")
    results = []
    for count in args.counts:
        r = bench_one(count, args.rtf, args.out / str(count), args.separate, args.failsafe_apart)
        results.append(r)
        print(f"{count:>4}  {r['status']:<12} {fmt(r['achieved_rtf'], '{:.3f}'):>12} "
              f"{fmt(r['busy_cores'], '{:.2f}'):>10} {r['run_cores']:>9.2f} "
              f"{fmt(r['peak_rss_mib'], '{:.0f} MiB'):>9} {fmt(r['bring_up_s'], '{:.1f} s'):>8} "
              f"{fmt(r['wakeup_delay_ms'], '{:.2f} ms'):>13}  "
              f"{', '.join(r['failed']) or '-'}", flush=True)
    passing = [r["vehicles"] for r in results
               if r["status"] == "passed" and (r["achieved_rtf"] or 0) >= 0.98 * args.rtf]
    print(f"largest count passing at the asked real-time factor: {max(passing) if passing else 'none'}")
    if args.json:
        args.json.write_text(json.dumps(results, indent=2) + "\n")
    if args.plot:
        plot(results, args.plot,
             f"link-loss scenario per UGV, real-time factor {args.rtf}; {os.cpu_count()} cores; "
             f"{layout}")
        print(f"plot: {args.plot}")


if __name__ == "__main__":
    main()
