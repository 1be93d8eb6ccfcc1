"""Start installed fieldproof nodes from the tests, the way `ros2 run` does (through the colcon
install tree and `fieldproof exec`), and stop them the way a terminal's Ctrl-C does."""

import os
import pathlib
import shutil
import signal
import subprocess
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parents[1]
INSTALL = pathlib.Path(os.environ.get("FIELDPROOF_INSTALL", ROOT / "install"))


def ament_env(**extra) -> dict:
    """The environment of `source install/setup.bash`: AMENT_PREFIX_PATH over every package."""
    prefixes = sorted(str(p) for p in INSTALL.iterdir() if (p / "share/ament_index").is_dir())
    if not prefixes:
        raise RuntimeError(f"{INSTALL}: no colcon install tree (run scripts/test, which builds it)")
    env = dict(os.environ)
    env["AMENT_PREFIX_PATH"] = ":".join(prefixes)
    env.setdefault("RUST_BACKTRACE", "1")
    env.update(extra)
    return env


class NodeProcess:
    """A node process: `fieldproof exec <pkg> <exe> --ros-args ...`, output kept for asserts."""

    def __init__(self, pkg: str, exe: str, *ros_args: str, env: dict | None = None,
                 cmd_args: list[str] | None = None):
        fieldproof = INSTALL / "fieldproof_tools/lib/fieldproof_tools/fieldproof"
        self.cmd = [str(fieldproof), "exec", pkg, exe, *(cmd_args or [])]
        if ros_args:
            self.cmd += ["--ros-args", *ros_args]
        self.log = open(ROOT / "build" / f"test-{exe}-{os.getpid()}-{time.monotonic_ns()}.log", "w+")
        self.proc = subprocess.Popen(self.cmd, env=ament_env(**(env or {})), stdout=self.log,
                                     stderr=subprocess.STDOUT, text=True)

    def output(self) -> str:
        self.log.flush()
        return pathlib.Path(self.log.name).read_text()

    def alive(self) -> bool:
        return self.proc.poll() is None

    def stop(self, timeout: float = 10.0) -> int:
        """SIGINT, as Ctrl-C; the exit code (a hung node is killed and fails the caller)."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGINT)
            try:
                self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
                raise AssertionError(f"{self.cmd}: did not stop on SIGINT within {timeout}s\n{self.output()}")
        return self.proc.returncode

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.stop()


def wait_until(predicate, timeout: float, what: str, poll: float = 0.02):
    """Poll `predicate` until it returns a truthy value; fail naming `what` after `timeout`."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(poll)
    raise AssertionError(f"timed out after {timeout}s waiting for {what}")


def colcon_build_against_rig(package: pathlib.Path, build: pathlib.Path, rig_env: dict,
                             *cmake_args: str, timeout: float = 900) -> pathlib.Path:
    """Builds the ROS 2 package at `package` with colcon against the Jazzy rig (incrementally,
    under `build`) and returns its install base. Skips the calling test where the rig's build
    tools (cmake, g++) are missing; fails with colcon's log when the build fails."""
    import pytest  # only the tests that build a package need it

    missing = [tool for tool in ("cmake", "g++") if shutil.which(tool, path=rig_env["PATH"]) is None]
    if missing:
        pytest.skip(f"building {package.name} needs {', '.join(missing)} (scripts/setup installs them "
                    "beside the rig)")
    colcon = pathlib.Path(sys.executable).parent / "colcon"
    done = subprocess.run(
        [str(colcon), "--log-base", str(build / "log"), "build", "--base-paths", str(package),
         "--build-base", str(build / "build"), "--install-base", str(build / "install"),
         "--event-handlers", "console_cohesion-", "status-", "summary-",
         "--cmake-args", "-DPython3_EXECUTABLE=/usr/bin/python3", *cmake_args],
        env=rig_env, capture_output=True, text=True, timeout=timeout)
    logs = "\n".join(log.read_text() for log in (build / "log/latest_build").glob("*/stdout_stderr.log"))
    assert done.returncode == 0, f"{done.stdout}{done.stderr}\n{logs}"
    return build / "install"
