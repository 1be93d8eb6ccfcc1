//! End to end: the fleet scenarios of `config/scenarios/fleet_*.yaml` run by the scenario
//! runner (the simulator with the carrier and three quads on its pads, every vehicle's bridge
//! bundle, radio links and ground station, the station's launch file on the carrier and each
//! quad's whole mission computer plus its fleet_adapter from `launch/fleet_quad.launch.yaml`),
//! judged by the run's own verdicts (`run.json`). The mutation proof runs the nominal
//! scenario with a station that grants without consulting its book (`grant_unchecked:=true`)
//! and shows the `leases_exclusive` assertion failing.
//!
//! They need the suite's binaries beside the test binary (`cargo build --workspace`, or
//! `scripts/build`) and root for the runner's network namespaces; each test re-runs itself
//! inside a private network namespace when started outside one (fieldproof_testkit). The runs
//! are serialised (each is a whole fleet).
//! ```text
//! cargo build --workspace
//! scripts/netns-run cargo test --workspace --test fleet_scenarios -- --ignored --test-threads 1
//! ```

use std::path::Path;

use fieldproof_testkit::{repo_root, shipped_scenario, suite_binary, FakeAmentPrefix, ScenarioRun};

/// The fleet's executables (this package's, and the mission computer's of this build, beside
/// the runner) in an ament prefix, with the mission package's launch file in its share (the
/// quad's launch file includes it through `$(find-pkg-share fieldproof_mission)`).
fn fleet_prefix() -> FakeAmentPrefix {
    let prefix = FakeAmentPrefix::new();
    prefix.link(
        "fieldproof_fleet",
        "fleet_station",
        Path::new(env!("CARGO_BIN_EXE_fleet_station")),
    );
    prefix.link(
        "fieldproof_fleet",
        "fleet_adapter",
        Path::new(env!("CARGO_BIN_EXE_fleet_adapter")),
    );
    let runner = suite_binary("fieldproof-scenario");
    for name in [
        "localizer",
        "planner",
        "mission_supervisor",
        "supervisor_core",
        "autopilot_stub",
    ] {
        let exe = runner.with_file_name(name);
        assert!(
            exe.is_file(),
            "{}: build the workspace first",
            exe.display()
        );
        prefix.link("fieldproof_mission", name, &exe);
    }
    for package in ["fieldproof_mission", "fieldproof_fleet"] {
        let share = prefix.path().join("share").join(package);
        std::fs::create_dir_all(&share).unwrap();
        std::os::unix::fs::symlink(
            repo_root().join("src").join(package).join("launch"),
            share.join("launch"),
        )
        .unwrap();
    }
    prefix
}

fn run_file(scenario: &Path) -> ScenarioRun {
    ScenarioRun::of_file(scenario, &fleet_prefix())
}

/// The assertions every fleet scenario passes.
const FLEET_ASSERTIONS: [&str; 8] = [
    "leases",
    "pad_quad1",
    "pad_quad2",
    "pad_quad3",
    "modes_quad1",
    "modes_quad2",
    "modes_quad3",
    "no_collision",
];

/// The leases the assertion observed: (vehicle, kind) in grant order.
fn leases(run: &ScenarioRun) -> Vec<(String, String)> {
    run.observed("leases")["leases"]
        .as_array()
        .unwrap_or_else(|| panic!("no observed leases: {:#}", run.assertion("leases")))
        .iter()
        .map(|l| {
            (
                l["vehicle"].as_str().unwrap_or_default().to_string(),
                l["kind"].as_str().unwrap_or_default().to_string(),
            )
        })
        .collect()
}

#[test]
#[ignore = "needs the suite's binaries, root (network namespaces) and scripts/netns-run; minutes"]
fn fleet_carrier_launches_inspects_and_lands_all_three_one_lease_at_a_time() {
    fieldproof_testkit::contain_or_return!();
    let run = run_file(&shipped_scenario("fleet_carrier.yaml"));
    run.assert_passed(&FLEET_ASSERTIONS);
    let leases = leases(&run);
    for quad in ["quad1", "quad2", "quad3"] {
        for kind in ["launch", "land"] {
            assert!(
                leases.iter().any(|(v, k)| v == quad && k == kind),
                "{quad} has no {kind} lease: {leases:?}"
            );
        }
    }
    eprintln!("fleet_carrier: {:.1} s wall", run.wall_s);
}

#[test]
#[ignore = "needs the suite's binaries, root (network namespaces) and scripts/netns-run; minutes"]
fn fleet_carrier_degraded_holds_the_cut_off_quad_in_its_layer_until_the_restore() {
    fieldproof_testkit::contain_or_return!();
    let run = run_file(&shipped_scenario("fleet_carrier_degraded.yaml"));
    let mut expected = FLEET_ASSERTIONS.to_vec();
    expected.extend(["quad2_link_lost", "quad2_held_in_layer", "quad2_link_back"]);
    run.assert_passed(&expected);
    eprintln!("fleet_carrier_degraded: {:.1} s wall", run.wall_s);
}

/// The mutation: a station that grants every request without consulting its book. The
/// leases assertion must fail, naming a grant given while another lease was in force.
#[test]
#[ignore = "needs the suite's binaries, root (network namespaces) and scripts/netns-run; minutes"]
fn a_station_granting_without_its_book_fails_the_leases_assertion() {
    fieldproof_testkit::contain_or_return!();
    let file = shipped_scenario("fleet_carrier.yaml");
    let text = std::fs::read_to_string(&file).unwrap();
    let unchecked = text.replace(
        "speed_mps: \"0.5\" }",
        "speed_mps: \"0.5\", grant_unchecked: \"true\" }",
    );
    assert_ne!(
        unchecked, text,
        "the station's arguments are where the mutation goes"
    );
    // Its launches are what overlap (the first requests come about 5 s in, all granted at
    // once): 20 s of simulation show it, and how well the quads fly does not matter, so at
    // twice the nominal scenario's real-time factor.
    let mut unchecked = unchecked;
    for (key, value) in [("duration_s:", "20s"), ("real_time_factor:", "1.0")] {
        let line = unchecked
            .lines()
            .find(|line| line.starts_with(key))
            .unwrap_or_else(|| panic!("fleet_carrier.yaml states its {key}"))
            .to_string();
        unchecked = unchecked.replacen(&line, &format!("{key} {value}"), 1);
    }
    let mutant = tempfile::Builder::new()
        .prefix(".mutant_")
        .suffix(".yaml")
        .tempfile_in(file.parent().unwrap())
        .unwrap();
    std::fs::write(mutant.path(), unchecked).unwrap();
    let run = run_file(mutant.path());
    assert_ne!(run.code, Some(0), "{:#}", run.record);
    let leases = run.assertion("leases");
    assert_eq!(leases["passed"], false, "{leases:#}");
    let why = leases["reason"].as_str().unwrap_or_default();
    assert!(why.contains("was in force"), "{leases:#}");
}
