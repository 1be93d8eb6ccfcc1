"""Shared fixtures for the Python side of the suite (peers and install-tree checks)."""

import os
import pathlib
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]

# The peers open DDS participants: like the Rust tests (fieldproof_testkit), a pytest run outside
# a private network namespace re-runs itself inside a fresh one (loopback up, multicast route on
# it, as scripts/netns-run does), so `pytest test` run directly never multicasts on the network.
_NETNS_SETUP = """PATH="$PATH:/usr/sbin:/sbin"
ip link set lo up || exit 97
ip link set lo multicast on || exit 97
ip route add 224.0.0.0/4 dev lo 2>/dev/null || true
exec "$@"
"""


def _contained() -> bool:
    """True when this process's network namespace is not PID 1's (FIELDPROOF_IN_NETNS=1
    decides when PID 1's cannot be read)."""
    try:
        return os.readlink("/proc/self/ns/net") != os.readlink("/proc/1/ns/net")
    except OSError:
        return os.environ.get("FIELDPROOF_IN_NETNS") == "1"


def pytest_configure(config):
    """Registers the `real_ros` marker; re-runs the whole session inside a fresh network
    namespace unless contained."""
    config.addinivalue_line("markers", "real_ros: runs against the real ROS 2 Jazzy rig (/opt/ros/jazzy)")
    if _contained():
        return
    if os.environ.get("FIELDPROOF_TESTKIT_RERUN"):
        raise SystemExit("conftest: re-run inside a new network namespace, yet still in PID 1's")
    capture = config.pluginmanager.getplugin("capturemanager")
    if capture is not None:
        capture.suspend_global_capture(in_=True)  # the re-run writes to the real stdout
    os.environ["FIELDPROOF_IN_NETNS"] = "1"
    os.environ["FIELDPROOF_TESTKIT_RERUN"] = "1"
    unshare = ["--net"] if os.geteuid() == 0 else ["--user", "--map-root-user", "--net"]
    sys.stdout.flush()
    sys.stderr.flush()
    # A child, not exec: were this process PID 1 of its PID namespace, its new network
    # namespace would be PID 1's too.
    rc = subprocess.call(
        ["unshare", *unshare, "--", "sh", "-c", _NETNS_SETUP, "pytest-netns",
         sys.executable, "-m", "pytest", *config.invocation_params.args],
    )
    os._exit(rc)


# The real ROS 2 Jazzy rig scripts/setup installs; tests marked `real_ros` run against it.
REAL_ROS_RIG = pathlib.Path("/opt/ros/jazzy")
# What a real-ROS test module's skip reason says when the rig is absent.
RIG_ABSENT_REASON = "no ROS 2 Jazzy rig"


def pytest_terminal_summary(terminalreporter):
    """Says how many tests ran against real ROS 2 (those marked `real_ros`), or that the rig is
    absent and the real-ROS tests skipped (scripts/test repeats this line in its summary)."""
    outcome_of = {}
    for outcome in ("passed", "failed", "error", "skipped"):
        for report in terminalreporter.stats.get(outcome, []):
            if "real_ros" in getattr(report, "keywords", {}):
                # a test's worst outcome over its setup, call and teardown
                if outcome_of.get(report.nodeid) not in ("failed", "error"):
                    outcome_of[report.nodeid] = outcome
    skipped_modules = [report for report in terminalreporter.stats.get("skipped", [])
                       if not hasattr(report, "keywords") and RIG_ABSENT_REASON in str(report.longrepr)]
    counts = {outcome: list(outcome_of.values()).count(outcome) for outcome in ("passed", "failed", "error", "skipped")}
    ran = counts["passed"] + counts["failed"] + counts["error"]
    if not (REAL_ROS_RIG / "setup.bash").exists():
        line = (f"real ROS 2 Jazzy: rig absent at {REAL_ROS_RIG}: 0 tests ran against it, "
                f"{len(skipped_modules)} real-ROS test modules skipped")
    else:
        line = (f"real ROS 2 Jazzy: {ran} tests ran against the rig at {REAL_ROS_RIG} "
                f"({counts['passed']} passed, {counts['failed'] + counts['error']} failed, {counts['skipped']} skipped)")
    terminalreporter.write_sep("=", line)


@pytest.fixture(scope="session")
def root() -> pathlib.Path:
    """The repository root."""
    return ROOT


@pytest.fixture(scope="session")
def install_dir() -> pathlib.Path:
    """The colcon install tree that scripts/test builds (install/)."""
    path = pathlib.Path(os.environ.get("FIELDPROOF_INSTALL", ROOT / "install"))
    if not (path / "setup.bash").exists():
        pytest.fail(f"{path}: no colcon install tree; run scripts/test (it runs colcon build first)")
    return path
