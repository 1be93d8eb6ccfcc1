"""`ros2 launch` (real launch_ros from the ROS 2 Jazzy rig) of every launch file the project ships
(src/*/launch/*.launch.yaml): the expected nodes appear in `ros2 node list`, each answers
`ros2 param get` of one declared parameter with the value the launch gave it, and SIGINT to
`ros2 launch` (a terminal's Ctrl-C) ends every process with exit 0 and leaves none behind.

The rig's environment and the `ros2` CLI helper are test_real_ros.py's (its module-level skip
applies here too: no rig, or not inside a private network namespace). Each launch runs on its own
ROS_DOMAIN_ID inside the namespace scripts/test creates (scripts/netns-run)."""

import concurrent.futures
import os
import pathlib
import re
import signal
import subprocess
import uuid

import pytest
import yaml

from nodes import INSTALL, ROOT, ament_env, wait_until
from test_real_ros import on_domain, rig_env, ros2  # noqa: F401 (rig_env is a fixture)

pytestmark = pytest.mark.real_ros

MANIFEST = ROOT / "robots/ugv_ref/robot.yaml"
FIELDPROOF = INSTALL / "fieldproof_tools/lib/fieldproof_tools/fieldproof"
# Set in each launch's environment, so every process it starts (and their children, such as
# mission_supervisor's supervisor_core) can be found in /proc after the launch ended.
LAUNCH_TAG_VAR = "FIELDPROOF_LAUNCH_TEST_TAG"


def launch_env(rig: dict, domain: int) -> dict:
    """The rig's environment with our install tree in front on AMENT_PREFIX_PATH (what
    `source /opt/ros/jazzy/setup.bash && source install/setup.bash` gives), on `domain`."""
    ours = ament_env()["AMENT_PREFIX_PATH"]
    return {**on_domain(rig, domain), "AMENT_PREFIX_PATH": f"{ours}:{rig['AMENT_PREFIX_PATH']}",
            "ROS_LOG_DIR": str(ROOT / "build" / "ros-log")}


def tagged_processes(tag: str) -> list[str]:
    """`pid cmdline` of every process whose environment carries LAUNCH_TAG_VAR=`tag`."""
    needle = f"{LAUNCH_TAG_VAR}={tag}".encode()
    found = []
    for proc in pathlib.Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            if needle in (proc / "environ").read_bytes().split(b"\0"):
                cmdline = (proc / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
                state = (proc / "stat").read_text().rsplit(")", 1)[1].split()[0]
                if state != "Z":
                    found.append(f"{proc.name} {cmdline}")
        except OSError:
            continue  # gone meanwhile, or not ours to read
    return found


class Ros2Launch:
    """`ros2 launch <pkg> <file> <args>` (or `ros2 launch <path> <args>` with pkg "") on its own
    domain, from the repository's root, output kept in a log file."""

    def __init__(self, rig: dict, domain: int, pkg: str, launch_file: str, *args: str):
        self.tag = uuid.uuid4().hex
        self.env = launch_env(rig, domain)
        self.cmd = ["ros2", "launch", *([pkg] if pkg else []), launch_file, *args]
        name = pathlib.Path(launch_file).name
        self.log = open(ROOT / "build" / f"test-ros2-launch-{name}-{self.tag}.log", "w+")
        # SIGINT at its default in the child: a suite started in the background (`cmd &`)
        # ignores SIGINT, and a Python started with SIGINT ignored never installs its
        # KeyboardInterrupt handler, so `ros2 launch` would not hear the test's Ctrl-C.
        self.proc = subprocess.Popen(self.cmd, env={**self.env, LAUNCH_TAG_VAR: self.tag}, cwd=ROOT,
                                     stdout=self.log, stderr=subprocess.STDOUT, text=True,
                                     preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))

    def output(self) -> str:
        self.log.flush()
        return pathlib.Path(self.log.name).read_text()

    def interrupt(self, timeout: float = 30.0) -> int:
        """SIGINT, as Ctrl-C in the terminal; `ros2 launch`'s exit code."""
        self.proc.send_signal(signal.SIGINT)
        try:
            return self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.kill()
            raise AssertionError(f"{self.cmd}: still running {timeout}s after SIGINT\n{self.output()}")

    def kill(self):
        """SIGKILL to `ros2 launch` and to every process it started (cleanup after a failure)."""
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        for entry in tagged_processes(self.tag):
            try:
                os.kill(int(entry.split()[0]), signal.SIGKILL)
            except ProcessLookupError:
                pass


def node_list(env: dict) -> list[str]:
    out = ros2(env, "node", "list", "--no-daemon", "--spin-time", "2")
    return out.stdout.split() if out.returncode == 0 else []


def param_get(env: dict, node: str, param: str) -> str:
    """`ros2 param get`'s answer, retried until the node's parameter service answers."""
    def answered():
        out = ros2(env, "param", "get", "--no-daemon", node, param)
        return out.returncode == 0 and out.stdout.strip()
    return wait_until(answered, 60, f"ros2 param get {node} {param}", poll=0.5)


def shown(value) -> str:
    """How `ros2 param get` prints a scalar parameter's value."""
    if isinstance(value, bool):
        return f"Boolean value is: {value}"
    if isinstance(value, int):
        return f"Integer value is: {value}"
    if isinstance(value, float):
        return f"Double value is: {value}"
    return f"String value is: {value}"


def launch_and_check(rig: dict, domain: int, pkg: str, launch_file: str, args: list[str],
                     expected: dict[str, tuple[str, str]], plain_processes: int = 0,
                     processes: int | None = None):
    """Launches, waits for exactly the `expected` nodes ({fully qualified name: (parameter,
    `ros2 param get` answer)}), checks one parameter of each, then Ctrl-C: exit 0, every process
    (the nodes and `plain_processes` more that are no ROS nodes; or `processes` in all, where
    one process holds several nodes) finished cleanly, none left."""
    launch = Ros2Launch(rig, domain, pkg, launch_file, *args)
    try:
        listed = wait_until(
            lambda: (names := node_list(launch.env)) and set(expected) <= set(names) and names,
            60, f"ros2 node list to show {sorted(expected)}", poll=0.5)
        assert sorted(listed) == sorted(expected), f"ros2 node list: {listed}\n{launch.output()}"
        with concurrent.futures.ThreadPoolExecutor(max_workers=4) as pool:
            answers = dict(zip(expected, pool.map(
                lambda node: param_get(launch.env, node, expected[node][0]), expected)))
        assert answers == {node: answer for node, (_, answer) in expected.items()}, launch.output()
        assert launch.proc.poll() is None, launch.output()
        running = tagged_processes(launch.tag)
        count = len(expected) + plain_processes if processes is None else processes
        assert len(running) > min(count, len(expected)), f"the tag finds ros2 launch and its nodes: {running}"

        code = launch.interrupt()
        output = launch.output()
        started = re.findall(r"\[INFO\] \[([\w.-]+)\]: process started with pid \[(\d+)\]", output)
        finished = re.findall(r"\[INFO\] \[([\w.-]+)\]: process has finished cleanly \[pid (\d+)\]", output)
        assert code == 0, f"ros2 launch exited {code}\n{output}"
        assert "process has died" not in output, output
        assert len(started) == count and sorted(finished) == sorted(started), output
        # Reaped by launch and by the nodes themselves (supervisor_core): give the kernel a moment.
        wait_until(lambda: not tagged_processes(launch.tag), 5,
                   f"no process of the launch left: {tagged_processes(launch.tag)}", poll=0.1)
    finally:
        launch.kill()


def bridge_gen(bundle: pathlib.Path, namespace: str):
    subprocess.run([str(FIELDPROOF), "exec", "fieldproof_bridge", "bridge_gen", str(MANIFEST), "-o", str(bundle),
                    "-n", namespace], env=ament_env(), check=True, capture_output=True, timeout=60)


def bundle_nodes(bundle: pathlib.Path) -> dict[str, tuple[str, str]]:
    """Our nodes the bundle's launch file starts without Gazebo (no `if: $(var gz)`), each with
    its `output` parameter as the bundle's params.yaml sets it."""
    launch = yaml.safe_load((bundle / "bridge.launch.yaml").read_text())["launch"]
    group = next(entry["group"] for entry in launch if "group" in entry)
    namespace = next(e["push_ros_namespace"]["namespace"] for e in group if "push_ros_namespace" in e)
    params = yaml.safe_load((bundle / "params.yaml").read_text())
    nodes = {}
    for entry in group:
        node = entry.get("node")
        if node and node["pkg"] == "fieldproof_bridge" and "if" not in node:
            name = f"/{namespace}/{node['name']}"
            nodes[name] = ("output", shown(params[name]["ros__parameters"]["output"]))
    return nodes


SHIPPED = sorted(str(p.relative_to(ROOT)) for p in [*ROOT.glob("src/*/launch/*.launch.yaml"),
                                                     *ROOT.glob("launch/*.launch.yaml")])
# The bringup's vehicle and ground station files run inside the fleet's (its test below).
COVERED = ["launch/fleet.launch.yaml", "launch/ground_station.launch.yaml", "launch/vehicle.launch.yaml",
           "src/fieldproof_bridge/launch/bridge.launch.yaml", "src/fieldproof_convoy/launch/convoy_follower.launch.yaml",
           "src/fieldproof_convoy/launch/convoy_lead.launch.yaml", "src/fieldproof_fleet/launch/fleet_quad.launch.yaml",
           "src/fieldproof_fleet/launch/fleet_station.launch.yaml", "src/fieldproof_mission/launch/mission.launch.yaml",
           "src/fieldproof_sim/launch/sim.launch.yaml", "src/fieldproof_stack/launch/goal_driver.launch.yaml"]


def test_every_shipped_launch_file_has_a_ros2_launch_test():
    assert SHIPPED == COVERED, "a launch file under src/*/launch/ without its test here (or the reverse)"


def test_ros2_launch_bridge_bundle(rig_env, tmp_path):
    bundle = tmp_path / "bundle"
    bridge_gen(bundle, "ugv1")
    expected = bundle_nodes(bundle)
    assert len(expected) == 7 and expected["/ugv1/imu_adapter"] == ("output", "String value is: /ugv1/imu/data")
    launch_and_check(rig_env, 171, "fieldproof_bridge", "bridge.launch.yaml",
                     [f"bundle:={bundle}", "gz:=false"], expected)


def test_ros2_launch_bridge_composed_with_the_failsafe(rig_env, tmp_path):
    # container:=true with failsafe_params: one process (bundle_container) holds the seven
    # adapters and link_monitor; `ros2 param get` reaches each under its own name, the
    # failsafe's values from its file.
    bundle = tmp_path / "bundle"
    bridge_gen(bundle, "ugv1")
    expected = bundle_nodes(bundle)
    params = tmp_path / "failsafe.yaml"
    params.write_text(yaml.safe_dump({"/**": {"ros__parameters": {
        "timeout_s": 1.5, "loss_action": "hold", "input": "cmd_vel_nav", "output": "cmd_vel"}}}))
    expected["/ugv1/link_monitor"] = ("timeout_s", shown(1.5))
    launch_and_check(rig_env, 178, "fieldproof_bridge", "bridge.launch.yaml",
                     [f"bundle:={bundle}", "gz:=false", "container:=true", f"failsafe_params:={params}"],
                     expected, processes=1)


def test_ros2_launch_bridge_from_a_manifest(rig_env, tmp_path):
    # manifest:= generates the bundle at launch time (bridge_bundle through `$(command ...)`),
    # with the generator's options, into bundle_out; the nodes are those of the same bundle
    # written beforehand by bridge_gen.
    reference = tmp_path / "reference"
    bridge_gen(reference, "ugv4")
    expected = bundle_nodes(reference)
    assert expected["/ugv4/scan_relay"] == ("output", "String value is: /ugv4/scan")
    out = tmp_path / "generated"
    launch_and_check(rig_env, 177, "fieldproof_bridge", "bridge.launch.yaml",
                     [f"manifest:={MANIFEST}", "namespace:=ugv4", f"bundle_out:={out}", "gz:=false"], expected)
    assert bundle_nodes(out) == expected


def test_ros2_launch_simulator(rig_env):
    launch_and_check(rig_env, 172, "fieldproof_sim", "sim.launch.yaml",
                     ["world:=worlds/depot.yaml", "vehicle:=ns=ugv1,manifest=robots/ugv_ref/robot.yaml,spawn=spawn_dock",
                      "seed:=7"],
                     {"/fieldproof_sim": ("seed", shown(7))})


def test_ros2_launch_goal_driver(rig_env):
    launch_and_check(rig_env, 173, "fieldproof_stack", "goal_driver.launch.yaml",
                     ["namespace:=ugv7", "cmd_vel:=cmd_vel", "max_speed_mps:=0.6"],
                     {"/ugv7/goal_driver": ("max_speed_mps", shown(0.6))})


def test_ros2_launch_mission_computer(rig_env):
    launch_and_check(rig_env, 174, "fieldproof_mission", "mission.launch.yaml",
                     ["namespace:=quad7", "cmd_vel:=cmd_vel_nav", "vision_source:=none", "cruise_altitude_m:=6.5",
                      "origin_latitude_deg:=46.5"],
                     {"/quad7/localizer": ("origin_latitude_deg", shown(46.5)),
                      "/quad7/planner": ("cruise_altitude_m", shown(6.5)),
                      "/quad7/mission_supervisor": ("vision_source", shown("none")),
                      "/quad7/autopilot_stub": ("output", shown("cmd_vel_nav"))})


def test_ros2_launch_fleet_station(rig_env):
    launch_and_check(rig_env, 181, "fieldproof_fleet", "fleet_station.launch.yaml",
                     ["namespace:=carrier", "vehicles:=[quad1, quad2]", "speed_mps:=0.4"],
                     {"/carrier/fleet_station": ("speed_mps", shown(0.4))})


def test_ros2_launch_fleet_quad(rig_env):
    # The mission computer (included from fieldproof_mission, its planner flying the layer)
    # and the quad's fleet_adapter, all in the quad's namespace.
    launch_and_check(rig_env, 182, "fieldproof_fleet", "fleet_quad.launch.yaml",
                     ["namespace:=quad5", "pad_index:=2", "layer_altitude_m:=9.0", "cmd_vel:=cmd_vel_nav"],
                     {"/quad5/localizer": ("origin_latitude_deg", shown(47.3977)),
                      "/quad5/planner": ("cruise_altitude_m", shown(9.0)),
                      "/quad5/mission_supervisor": ("vision_source", shown("none")),
                      "/quad5/autopilot_stub": ("output", shown("cmd_vel_nav")),
                      "/quad5/fleet_adapter": ("pad_index", shown(2))})


def test_ros2_launch_convoy_lead_with_the_lora_path(rig_env, tmp_path):
    # lora:=true: goal_driver, lead_broadcaster and lora_radio (nodes) and the two pty_wire
    # links (no ROS nodes) between them, made in serial_dir.
    serial = tmp_path / "serial"
    serial.mkdir()
    launch_and_check(rig_env, 175, "fieldproof_convoy", "convoy_lead.launch.yaml",
                     ["namespace:=ugv1", "lora:=true", f"serial_dir:={serial}", "udp_target:=127.0.0.1:5611",
                      "max_speed_mps:=0.3"],
                     {"/ugv1/goal_driver": ("max_speed_mps", shown(0.3)),
                      "/ugv1/lead_broadcaster": ("serial_port", shown(f"{serial}/lead_tx")),
                      "/ugv1/lora_radio": ("output_port", shown(f"{serial}/radio_tx"))},
                     plain_processes=2)


def test_ros2_launch_convoy_follower(rig_env, tmp_path):
    launch_and_check(rig_env, 176, "fieldproof_convoy", "convoy_follower.launch.yaml",
                     ["namespace:=ugv2", "udp_port:=5612", f"csv_path:={tmp_path}/convoy.csv",
                      f"analysis_path:={tmp_path}/convoy_analysis.json"],
                     {"/ugv2/convoy_follower": ("udp_port", shown(5612))})


def test_ros2_launch_fleet_bringup(rig_env, tmp_path):
    # The top-level bringup under real launch_ros: link_shaper (root) makes the run's
    # namespaces, every other process starts inside its own through the `launch-prefix`
    # launch configuration (link_net exec), each vehicle's failsafe gets its heartbeat over
    # its own radio link, and Ctrl-C ends every process cleanly and removes the namespaces.
    if os.geteuid() != 0:
        pytest.skip("the link shaper makes network namespaces: needs root")
    run_id = f"rl{os.getpid() % 100000}"
    launch = Ros2Launch(rig_env, 183, "", "launch/fleet.launch.yaml", f"run_id:={run_id}", "backend:=userspace",
                        "real_time_factor:=0.5")
    try:
        for vehicle in ("ugv1", "ugv2"):
            try:
                wait_until(lambda: f"[{vehicle}.link_monitor]: link back: heartbeat received" in launch.output(), 120,
                           f"{vehicle}'s failsafe to receive its heartbeat", poll=0.5)
            except AssertionError as timeout:
                raise AssertionError(f"{timeout}\n{launch.output()}") from None
        assert launch.proc.poll() is None, launch.output()
        assert any(line.startswith(f"fp-{run_id}-v-ugv2") for line in
                   subprocess.run(["ip", "netns", "list"], capture_output=True, text=True).stdout.splitlines())
        code = launch.interrupt(60)
        output = launch.output()
        started = re.findall(r"\[INFO\] \[([\w.-]+)\]: process started with pid \[(\d+)\]", output)
        finished = re.findall(r"\[INFO\] \[([\w.-]+)\]: process has finished cleanly \[pid (\d+)\]", output)
        assert code == 0, f"ros2 launch exited {code}\n{output}"
        assert "process has died" not in output, output
        assert len(started) >= 20 and sorted(finished) == sorted(started), output
        listed = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True).stdout
        assert f"fp-{run_id}-" not in listed, listed
    finally:
        launch.kill()
        subprocess.run([str(INSTALL / "fieldproof_link/lib/fieldproof_link/link_net"), "cleanup", "--run-id", run_id],
                       capture_output=True)
