"""The bringup launch files of launch/ under fieldproof's own launcher.

- What vehicle.launch.yaml and ground_station.launch.yaml start, as a vehicle's manifest asks
  (`fieldproof launch --print`): the failsafe's settings from runtime.link, the stack
  upstream of it or on the base, each heartbeat under its vehicle's namespace, and every
  process inside the link shaper run's namespaces when run_id is given.
- fleet.launch.yaml brought up for real: the link shaper makes the run's namespaces, each
  vehicle's processes run in its own, each failsafe gets its heartbeat over its own radio
  link, the ground station measures both links, and Ctrl-C ends every process cleanly and
  removes the namespaces. (`ros2 launch` of the same file: test_ros2_launch.py.)"""

import os
import pathlib
import shlex
import signal
import subprocess

import pytest
import yaml

from nodes import INSTALL, ROOT, ament_env, wait_until

FIELDPROOF = INSTALL / "fieldproof_tools/lib/fieldproof_tools/fieldproof"
LINK_NET = str(INSTALL / "fieldproof_link/lib/fieldproof_link/link_net")
NAV2 = ROOT / "robots/ugv_nav2/robot.yaml"  # has runtime.link (a heartbeat, a failsafe)
REF = ROOT / "robots/ugv_ref/robot.yaml"  # has none
VEHICLE = "launch/vehicle.launch.yaml"
GROUND = "launch/ground_station.launch.yaml"
FLEET = "launch/fleet.launch.yaml"

needs_root = pytest.mark.skipif(os.geteuid() != 0, reason="the link shaper makes network namespaces: needs root")


def launch_print(*args: str) -> dict[str, list[str]]:
    """`fieldproof launch --print`: {label: command line} of what the launch would start."""
    out = subprocess.run([str(FIELDPROOF), "launch", "--print", *args], env=ament_env(), cwd=ROOT,
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    return {label: shlex.split(line) for label, line in (row.split(": ", 1) for row in out.stdout.splitlines())}


def params_file(cmd: list[str]) -> dict:
    """The ros__parameters of the --params-file a command loads last."""
    path = cmd[len(cmd) - 1 - cmd[::-1].index("--params-file") + 1]
    return yaml.safe_load(pathlib.Path(path).read_text())["/**"]["ros__parameters"]


def manifest(path: pathlib.Path) -> dict:
    return yaml.safe_load(path.read_text())


def test_a_vehicle_takes_its_failsafe_from_its_manifest():
    procs = launch_print(VEHICLE, f"manifest:={NAV2}", "namespace:=ugv5", "gz:=false")
    link = manifest(NAV2)["runtime"]["link"]
    monitor = procs["link_monitor-1"]
    assert "__ns:=/ugv5" in monitor and "__node:=link_monitor" in monitor
    assert params_file(monitor) == {
        "timeout_s": float(link.get("timeout_s", 2.0)),
        "heartbeat_topic": link["heartbeat"]["topic"],
        "heartbeat_qos_reliability": "best_effort",
        "heartbeat_qos_durability": "volatile",
        "heartbeat_qos_depth": 1,
        "loss_action": link.get("loss_action", "stop"),
        "input": "cmd_vel_nav",
        "output": manifest(REF)["drive"]["command"]["ros_topic"],  # ugv_nav2 extends ugv_ref
    }
    # The stack publishes upstream of the failsafe; the bridge bundle runs beside it.
    driver = procs["goal_driver-1"]
    assert "__ns:=/ugv5" in driver and "output:=cmd_vel_nav" in driver
    assert {"command_relay-1", "imu_adapter-1", "battery-1"} <= set(procs), procs.keys()
    # Without run_id every process runs where it is launched (link_net exec passes it on).
    for label, cmd in procs.items():
        assert cmd[:7] == [LINK_NET, "exec", "--run-id", "", "--in", "ugv5", "--"], (label, cmd)


def test_with_container_the_failsafe_is_a_node_of_the_bridges_process():
    procs = launch_print(VEHICLE, f"manifest:={NAV2}", "namespace:=ugv5", "gz:=false", "container:=true")
    # No process per adapter nor for the failsafe: one container holds them all.
    assert not [label for label in procs if label.startswith(("link_monitor", "imu_adapter", "command_relay"))], procs
    container = procs["bundle_container-1"]
    failsafe = [arg for arg in container if arg.startswith("--failsafe=")]
    assert len(failsafe) == 1, container
    path = failsafe[0].removeprefix("--failsafe=")
    params = yaml.safe_load(pathlib.Path(path).read_text())["/**"]["ros__parameters"]
    assert params["input"] == "cmd_vel_nav" and params["output"] == manifest(REF)["drive"]["command"]["ros_topic"]
    assert params["heartbeat_topic"] == manifest(NAV2)["runtime"]["link"]["heartbeat"]["topic"]
    # The stack stays a process of its own, upstream of the failsafe.
    assert "output:=cmd_vel_nav" in procs["goal_driver-1"]
    # Without a failsafe the container is given none.
    procs = launch_print(VEHICLE, f"manifest:={REF}", "namespace:=ugv6", "gz:=false", "container:=true",
                         "failsafe:=false")
    assert "--failsafe=" in procs["bundle_container-1"], procs


def test_a_vehicle_without_a_failsafe_drives_its_base():
    procs = launch_print(VEHICLE, f"manifest:={REF}", "failsafe:=false", "gz:=false", "namespace:=ugv6")
    assert not [label for label in procs if label.startswith("link_monitor")]
    base = manifest(REF)["drive"]["command"]["ros_topic"]
    assert f"output:={base}" in procs["goal_driver-1"]


def test_a_failsafe_needs_the_manifests_link_section():
    out = subprocess.run([str(FIELDPROOF), "launch", "--print", VEHICLE, f"manifest:={REF}", "gz:=false"],
                         env=ament_env(), cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert out.returncode == 2, out
    assert "runtime.link: missing" in out.stderr and "failsafe:=false" in out.stderr, out.stderr


def test_with_a_run_id_every_process_runs_in_the_vehicles_namespace():
    procs = launch_print(VEHICLE, f"manifest:={NAV2}", "namespace:=ugv2", "run_id:=r9", "gz:=false")
    assert len(procs) >= 8
    for label, cmd in procs.items():
        assert cmd[:7] == [LINK_NET, "exec", "--run-id", "r9", "--in", "ugv2", "--"], (label, cmd)


def test_the_ground_station_gives_each_vehicle_the_heartbeat_its_manifest_asks_for():
    procs = launch_print(GROUND, f"vehicles:=ugv1={NAV2},ugv2={REF}", "run_id:=g1", "profile:=lte_rural")
    assert set(procs) == {"link_shaper-1", "ground_station-1"}
    shaper = params_file(procs["link_shaper-1"])
    assert shaper == {"run_id": "g1", "vehicles": ["ugv1", "ugv2"], "profile": "lte_rural", "scenario": "",
                      "backend": "auto"}
    station = procs["ground_station-1"]
    assert station[:7] == [LINK_NET, "exec", "--run-id", "g1", "--in", "radio", "--"]
    params = params_file(station)
    hb = manifest(NAV2)["runtime"]["link"]["heartbeat"]
    # ugv2's manifest asks for no heartbeat: it gets none (its link is still shaped and probed).
    assert params["heartbeats"] == [f"ugv1 /ugv1/{hb['topic']} {float(hb['rate_hz'])} best_effort volatile 1"]
    assert params["vehicles"] == ["ugv1", "ugv2"] and params["addresses"] == ["198.18.1.1", "198.18.1.2"]
    assert params["heartbeat_rate_hz"] == 0.0


def run_namespaces(run_id: str) -> list[str]:
    listed = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True, check=True).stdout
    return sorted(line.split()[0] for line in listed.splitlines() if line.startswith(f"fp-{run_id}-"))


def commands_in(namespace: str) -> list[str]:
    pids = subprocess.run(["ip", "netns", "pids", namespace], capture_output=True, text=True).stdout.split()
    found = []
    for pid in pids:
        try:
            found.append(pathlib.Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode())
        except OSError:
            continue
    return found


@needs_root
def test_a_fleet_brought_up_gets_its_heartbeats_over_its_own_links_and_ends_cleanly(tmp_path):
    run_id = f"bt{os.getpid() % 100000}"
    network = tmp_path / "network.jsonl"
    log = open(tmp_path / "fleet.log", "w+")
    proc = subprocess.Popen([str(FIELDPROOF), "launch", FLEET, f"run_id:={run_id}", f"network_jsonl:={network}",
                             "real_time_factor:=0.5", "backend:=userspace"],
                            env=ament_env(), cwd=ROOT, stdout=log, stderr=subprocess.STDOUT, text=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))

    def output() -> str:
        log.flush()
        return pathlib.Path(log.name).read_text()
    try:
        for vehicle in ("ugv1", "ugv2"):
            try:
                wait_until(lambda: f"[{vehicle}.link_monitor]: link back: heartbeat received" in output(), 90,
                           f"{vehicle}'s failsafe to receive its heartbeat", poll=0.5)
            except AssertionError as timeout:
                raise AssertionError(f"{timeout}\n{output()}") from None
        assert proc.poll() is None, output()
        assert run_namespaces(run_id) == sorted(f"fp-{run_id}-{kind}" for kind in
                                                ("radio", "world", "v-ugv1", "v-ugv2", "l-ugv1", "l-ugv2"))
        # Each vehicle's processes live in its own namespace, the ground station in the radio's.
        for vehicle in ("ugv1", "ugv2"):
            inside = commands_in(f"fp-{run_id}-v-{vehicle}")
            for node in ("link_monitor", "goal_driver", "imu_adapter", "command_relay"):
                assert any(f"__node:={node}" in c and f"__ns:=/{vehicle}" in c for c in inside), (vehicle, node, inside)
        assert any("ground_station" in c for c in commands_in(f"fp-{run_id}-radio"))
        assert any("fieldproof_sim" in c for c in commands_in(f"fp-{run_id}-world"))
        # The ground station measures both links.
        wait_until(lambda: network.exists() and all(f'"{v}"' in network.read_text() for v in ("ugv1", "ugv2")),
                   30, "measurement windows of both links", poll=0.5)

        proc.send_signal(signal.SIGINT)
        code = proc.wait(60)
        text = output()
        assert code == 0, text
        assert "process has died" not in text, text
        assert text.count("process started with pid") == text.count("process has finished cleanly") >= 20, text
        assert run_namespaces(run_id) == [], "the run's namespaces are removed"
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        subprocess.run([LINK_NET, "cleanup", "--run-id", run_id], capture_output=True)
