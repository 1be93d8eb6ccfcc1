"""Benchmark (not a test): what a vehicle's bridge bundle costs at its contract rates.

Starts the simulator with robots/ugv_ref and the bundle's adapters (through `fieldproof launch`),
lets them settle, then measures every process's CPU (% of one core) and resident memory over a
window, and prints one line per process and the bundle's total.

    scripts/netns-run .venv/bin/python scripts/bench/bundle_cost.py [--window 10] [--ns ugv1] [--clock-rate-hz 200]
        [--container]   (the adapters as nodes of one process: bundle_container, launch's container:=true)
(needs the colcon install tree: scripts/test builds it, or `colcon build --base-paths src`)
"""

import argparse
import os
import pathlib
import subprocess
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "test"))
from nodes import INSTALL, ament_env  # noqa: E402

TICK = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid: int) -> float:
    fields = pathlib.Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICK


def rss_mib(pid: int) -> float:
    for line in pathlib.Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def descendants(pid: int) -> list[int]:
    out = []
    for child in pathlib.Path(f"/proc/{pid}/task/{pid}/children").read_text().split():
        out.append(int(child))
        out += descendants(int(child))
    return out


def name(pid: int) -> str:
    cmd = pathlib.Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
    exe = pathlib.Path(cmd[0].decode()).name
    for arg in cmd:
        if arg.startswith(b"__node:="):
            return f"{exe} ({arg.decode()[8:]})"
    return exe


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--window", type=float, default=10.0)
    ap.add_argument("--ns", default="ugv1")
    ap.add_argument("--clock-rate-hz", type=float, default=0.0,
                    help="the simulator's /clock rate (0: every 1 ms step, the simulator's default)")
    ap.add_argument("--container", action="store_true",
                    help="run the adapters composed in one process (container:=true)")
    args = ap.parse_args()
    if os.environ.get("FIELDPROOF_IN_NETNS") != "1":
        sys.exit("run inside a private network namespace: scripts/netns-run ...")
    fieldproof = str(INSTALL / "fieldproof_tools/lib/fieldproof_tools/fieldproof")
    manifest = ROOT / "robots/ugv_ref/robot.yaml"
    with tempfile.TemporaryDirectory() as tmp:
        bundle = pathlib.Path(tmp) / "bundle"
        subprocess.run([fieldproof, "exec", "fieldproof_bridge", "bridge_gen", str(manifest), "-o", str(bundle),
                        "-n", args.ns], env=ament_env(), check=True, capture_output=True)
        sim = subprocess.Popen([fieldproof, "exec", "fieldproof_sim", "fieldproof_sim", "--world",
                                str(ROOT / "worlds/depot.yaml"), "--vehicle",
                                f"ns={args.ns},manifest={manifest},spawn=spawn_dock", "--ros-args", "-p",
                                f"clock_rate_hz:={args.clock_rate_hz}"], env=ament_env(),
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        launch = subprocess.Popen([fieldproof, "launch", "fieldproof_bridge", "bridge.launch.yaml",
                                   f"bundle:={bundle}", "gz:=false",
                                   f"container:={'true' if args.container else 'false'}"], env=ament_env(),
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            time.sleep(5.0)
            pids = [sim.pid] + descendants(launch.pid)
            before = {p: cpu_seconds(p) for p in pids}
            t0 = time.monotonic()
            time.sleep(args.window)
            elapsed = time.monotonic() - t0
            rows = [(name(p), (cpu_seconds(p) - before[p]) / elapsed * 100, rss_mib(p)) for p in pids]
        finally:
            launch.send_signal(2)
            launch.wait(30)
            sim.send_signal(2)
            sim.wait(30)
    clock = f"/clock at {args.clock_rate_hz:g} Hz" if args.clock_rate_hz > 0 else "/clock every 1 ms step"
    how = "composed in one process" if args.container else "a process per adapter"
    print(f"ugv_ref bundle (-n {args.ns}, {how}) over {args.window:.0f} s, simulator at real time, {clock}")
    for label, cpu, rss in rows:
        print(f"  {label:<44} CPU {cpu:6.1f} %   RSS {rss:7.1f} MiB")
    adapters = rows[1:]
    print(f"  {'adapters (the bundle) total':<44} CPU {sum(r[1] for r in adapters):6.1f} %   "
          f"RSS {sum(r[2] for r in adapters):7.1f} MiB")


if __name__ == "__main__":
    main()
