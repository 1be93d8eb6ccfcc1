"""The scenario runner with a real ROS 2 stack: config/scenarios/ugv_rclpy_stack.yaml, whose
vehicle runs an rclpy node (config/stacks/rclpy_goal_driver.py) started by the runner with the
rig's `ros2 launch` from a Python launch file. The run must pass: the rclpy stack hears the
runner's goal and the simulator's odometry through our bridge adapters, and drives the
vehicle to the goal under the speed limit its launch argument sets.

The rig's environment is test_real_ros.py's (its module-level skip applies: no rig, or not inside
a private network namespace)."""

import json
import subprocess
import uuid

import pytest

from nodes import INSTALL, ROOT, ament_env
from test_real_ros import on_domain, rig_env  # noqa: F401 (rig_env is a fixture)

pytestmark = pytest.mark.real_ros

FIELDPROOF = INSTALL / "fieldproof_tools/lib/fieldproof_tools/fieldproof"
SCENARIO = ROOT / "config/scenarios/ugv_rclpy_stack.yaml"


def test_the_runner_runs_an_rclpy_stack_from_a_python_launch_file(rig_env):
    # Our install tree in front (fieldproof's nodes), the rig behind it (ros2 launch, rclpy).
    env = {**on_domain(rig_env, 179),
           "AMENT_PREFIX_PATH": f"{ament_env()['AMENT_PREFIX_PATH']}:{rig_env['AMENT_PREFIX_PATH']}"}
    # Under the repository (not pytest's 0700 tmp_path), so the stack's unprivileged account
    # can write its evidence below it.
    out = ROOT / "build" / "test-runs" / f"rclpy-stack-{uuid.uuid4().hex[:8]}"
    run = subprocess.run([str(FIELDPROOF), "run", str(SCENARIO), "--out", str(out)], env=env,
                         capture_output=True, text=True, timeout=300)
    record = json.loads((out / "run.json").read_text())
    assert run.returncode == 0, f"{run.stderr}\n{json.dumps(record['result'], indent=1)}"
    assert [a["name"] for a in record["assertions"] if a["passed"]] == \
        ["aisle_reached", "speed_limit", "no_collision"]
    stack = next(p for p in record["processes"] if p["name"] == "ugv1/stack")
    assert stack["command"][0].endswith("/ros2") and stack["command"][1] == "launch"
    assert stack["command"][2].endswith("stacks/rclpy_goal_driver.launch.py")
    log = (out / "logs" / "ugv1_stack.log").read_text()
    # The rclpy node heard the goal and got there.
    assert "goal reached" in log, log
