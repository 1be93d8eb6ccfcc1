#!/usr/bin/env python3
"""Benchmark of the userspace link emulator (release build of link_net), numbers printed
as JSON, nothing asserted. Needs root, iperf3 and ping; every packet stays inside the
run's own namespaces (addresses 198.18.0.0/15 there only). Bounded: about a minute.

  cargo build --release -p fieldproof_link      # with CARGO_TARGET_DIR set as usual
  python3 src/fieldproof_link/scripts/bench_links.py [--bin /tmp/target-link/release/link_net] [--sweep]

Measures:
  - forwarding capacity at a zero profile: UDP throughput (1400-byte datagrams) and packet
    rate (64-byte datagrams) received through the emulator, offered far above capacity;
  - added latency at a zero profile: ping RTT through the emulator minus a direct veth
    (backend direct: the kernel topology, unshaped);
  - the emulator's CPU (utime + stime of link_net / wall) while carrying wifi_good's
    50 Mbit/s one way;
  - the delay line's timing error (delivery lateness against release times) from the
    emulator's own counters, under that load and with probes only;
  - with --sweep: every preset's ping latency/jitter/loss and iperf3 throughput both ways.
"""
import argparse
import json
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))


class Run:
    """link_net up, driven over stdin."""

    def __init__(self, binary, run_id, profile, backend="userspace", vehicles=("ugv1",), realtime=False):
        args = [binary, "up", "--run-id", run_id, "--profile", profile, "--backend", backend]
        if not realtime:
            args.append("--no-realtime")
        for v in vehicles:
            args += ["--vehicle", v]
        self.p = subprocess.Popen(args, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        ready = json.loads(self.p.stdout.readline())
        assert ready.get("ready"), ready
        self.topo = ready["topology"]
        self.radio = self.topo["radio_ns"]
        self.vns = self.topo["links"][0]["ns"]
        self.vaddr = self.topo["links"][0]["addr"]
        self.gaddr = self.topo["ground_addr"]

    def cmd(self, line):
        self.p.stdin.write(line + "\n")
        self.p.stdin.flush()
        return json.loads(self.p.stdout.readline())

    def cpu_s(self):
        with open(f"/proc/{self.p.pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def close(self):
        try:
            self.cmd("quit")
        except Exception:
            pass
        self.p.wait(timeout=20)


def ping(ns, addr, count, interval):
    out = subprocess.run(["ip", "netns", "exec", ns, "ping", "-n", "-s", "16", "-W", "2",
                          "-c", str(count), "-i", str(interval), addr],
                         capture_output=True, text=True).stdout
    rtts = [float(l.split("time=")[1].split()[0]) for l in out.splitlines() if "time=" in l]
    n = len(rtts)
    mean = sum(rtts) / n if n else None
    sd = (sum((r - mean) ** 2 for r in rtts) / (n - 1)) ** 0.5 if n > 1 else None
    return {"sent": count, "replies": n, "rtt_mean_ms": mean, "rtt_sd_ms": sd,
            "rtt_p50_ms": sorted(rtts)[n // 2] if n else None}


def iperf(server_ns, server_addr, client_ns, bps, secs, length, reverse=False):
    srv = subprocess.Popen(["ip", "netns", "exec", server_ns, "iperf3", "-s", "-1", "-p", "5201"],
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    time.sleep(0.3)
    args = ["ip", "netns", "exec", client_ns, "iperf3", "-c", server_addr, "-p", "5201", "-u",
            "-l", str(length), "-b", str(int(bps)), "-t", str(secs), "-J"]
    if reverse:
        args.append("-R")
    try:
        out = subprocess.run(args, capture_output=True, text=True, timeout=secs + 30).stdout
    finally:
        srv.kill()
        srv.wait()
    r = json.loads(out)["end"]["sum_received"]
    return {"received_mbit_s": r["bits_per_second"] / 1e6, "packets": r["packets"],
            "lost_percent": r["lost_percent"], "pps": r["packets"] / max(r["seconds"], 1e-9)}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", default=os.path.join(os.environ.get("CARGO_TARGET_DIR", "target"), "release", "link_net"))
    ap.add_argument("--sweep", action="store_true")
    a = ap.parse_args()
    tag = str(os.getpid() % 100000)
    res = {}

    # Baseline: a direct veth (the kernel backend's topology, unshaped here).
    base = Run(a.bin, "b" + tag, "wifi_good", backend="direct")
    ping(base.radio, base.vaddr, 3, 0.1)
    res["direct_veth_ping"] = ping(base.radio, base.vaddr, 200, 0.005)
    base.close()

    r = Run(a.bin, "e" + tag, "wifi_good")
    r.cmd('custom ugv1 zero {}')
    ping(r.radio, r.vaddr, 3, 0.1)
    res["emulator_zero_ping"] = ping(r.radio, r.vaddr, 200, 0.005)
    res["added_latency_rtt_ms"] = res["emulator_zero_ping"]["rtt_mean_ms"] - res["direct_veth_ping"]["rtt_mean_ms"]
    res["capacity_1400B"] = iperf(r.radio, r.gaddr, r.vns, 5e9, 3, 1400)
    time.sleep(0.5)
    res["capacity_64B"] = iperf(r.radio, r.gaddr, r.vns, 2e9, 3, 64)
    time.sleep(0.5)

    r.close()

    for rt in (False, True):
        key = "realtime" if rt else "normal"
        # CPU and timing while carrying wifi_good's rate (a fresh emulator per case).
        w = Run(a.bin, "w" + tag, "wifi_good", realtime=rt)
        ping(w.radio, w.vaddr, 3, 0.1)
        c0, t0 = w.cpu_s(), time.time()
        res[f"wifi_good_50mbit_{key}"] = iperf(w.radio, w.gaddr, w.vns, 50e6, 5, 1400)
        c1, t1 = w.cpu_s(), time.time()
        res[f"wifi_good_cpu_percent_of_one_core_{key}"] = 100 * (c1 - c0) / (t1 - t0)
        res[f"lateness_wifi_good_load_up_{key}"] = w.cmd("counters ugv1")["counters"]["up"]["lateness"]
        w.close()
        # Timing error with probes only.
        q = Run(a.bin, "q" + tag, "lte_rural", realtime=rt)
        ping(q.radio, q.vaddr, 3, 0.1)
        res[f"lte_rural_ping_{key}"] = ping(q.radio, q.vaddr, 300, 0.01)
        c = q.cmd("counters ugv1")["counters"]
        res[f"lateness_probes_only_{key}"] = {"up": c["up"]["lateness"], "down": c["down"]["lateness"]}
        q.close()

    if a.sweep:
        res["sweep"] = {}
        for name in ["wifi_good", "lte_rural", "rf_900mhz_5km"]:
            s = Run(a.bin, "s" + tag, name)
            rate = {"wifi_good": 50e6, "lte_rural": 4e6, "rf_900mhz_5km": 200e3}[name]
            ping(s.radio, s.vaddr, 3, 0.1)
            p = ping(s.radio, s.vaddr, 500, 0.01)
            # 1.5x the rate for 3 s: a backlog the queue drains within seconds (the iperf3
            # control connection waits behind it).
            up = iperf(s.radio, s.gaddr, s.vns, 1.5 * rate, 3, 1200)
            time.sleep(3)
            down = iperf(s.radio, s.gaddr, s.vns, 1.5 * rate, 3, 1200, reverse=True)
            res["sweep"][name] = {
                "latency_ms": p["rtt_mean_ms"] / 2, "jitter_ms": p["rtt_sd_ms"] / 2 ** 0.5,
                "loss_pct": 100 * (1 - (p["replies"] / p["sent"]) ** 0.5),
                "udp_up_mbit_s": up["received_mbit_s"], "udp_down_mbit_s": down["received_mbit_s"],
            }
            s.close()
    json.dump(res, sys.stdout, indent=1)
    print()


if __name__ == "__main__":
    main()
