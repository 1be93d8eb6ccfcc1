"""Shared fixtures for the Python side of the suite (peers and install-tree checks)."""

import os
import pathlib

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]


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
