"""The shipped fleet-of-eight scenario is what its generator writes (scripts/bench/ugv_fleet.py,
issue 16's scale benchmark), so the benchmark's runs at 1 to 8 vehicles and the file a user
runs are the same scenario. `every_shipped_scenario_validates` (the scenario crate's tests)
validates the file itself. No DDS, no build."""

import importlib.util
import pathlib

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
SHIPPED = ROOT / "config/scenarios/ugv_fleet8_link_loss.yaml"


def generator():
    spec = importlib.util.spec_from_file_location("ugv_fleet", ROOT / "scripts/bench/ugv_fleet.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_shipped_fleet_scenario_is_the_generated_one():
    assert SHIPPED.read_text() == generator().scenario(8), \
        "regenerate it: .venv/bin/python scripts/bench/ugv_fleet.py scenario 8 > " + str(SHIPPED.relative_to(ROOT))


def test_each_vehicle_has_its_lane_outage_and_assertions():
    text = generator().scenario(3)
    for lane, name in enumerate(["ugv1", "ugv2", "ugv3"], start=1):
        assert f"name: {name}, manifest: ../../robots/ugv_nav2/robot.yaml, spawn: spawn_lane_{lane}" in text
        assert f"name: outage_{name}, at: {7 + lane}s, vehicle: {name}, action: link.drop" in text
        for check in ("link_lost", "stopped", "link_back", "reached"):
            assert f"name: {name}_{check}," in text
    assert "ugv4" not in text


@pytest.mark.parametrize("count", [0, 9])
def test_a_count_the_yard_cannot_hold_is_refused_by_name(count):
    with pytest.raises(ValueError, match=f"vehicles: {count} is not between 1 and 8"):
        generator().scenario(count)
