//! `fieldproof_sim`: the kinematic simulator node.
//!
//! ```text
//! fieldproof_sim --world worlds/depot.yaml \
//!     --vehicle ns=ugv1,manifest=robots/ugv_ref/robot.yaml,spawn=spawn_dock [--vehicle ...] \
//!     [--vehicles spawn_list.yaml] [--seed N] [--real-time-factor X] [--paused] \
//!     [--step-hz 1000] [--duration S] [--no-clock] [--print-topics] [--ros-args ...]
//! ```
//! The same settings are ROS parameters (`world`, `vehicles` as a YAML spawn list (a string:
//! `-p 'vehicles:="[{ns: ugv1, manifest: ...}]"'`), `vehicle_specs` (strings in the
//! `--vehicle` form), `seed`,
//! `step_hz`, `real_time_factor`, `paused`, `publish_clock`, `clock_rate_hz`,
//! `truth_rate_hz`, `duration_s`); a command-line option wins over its parameter. A bad
//! world, manifest or spawn entry exits 2 with the file and the field, before any DDS.

use std::process::ExitCode;

use fieldproof_robots::World;
use fieldproof_runtime::{NodeConfig, ParamValue};
use fieldproof_sim::ros::{self, RunOptions, SimParams};
use fieldproof_sim::{SimConfig, SimError, Simulation, Spawn, SpawnSpec};

/// What the command line and parameters ask for.
struct Settings {
    world: String,
    specs: Vec<SpawnSpec>,
    cfg: SimConfig,
    rtf: f64,
    paused: bool,
    duration_s: f64,
    print_topics: bool,
}

fn settings(cfg: &NodeConfig, params: &SimParams) -> Result<Settings, SimError> {
    let mut s = Settings {
        world: params.world.get(),
        specs: Vec::new(),
        cfg: SimConfig {
            step_hz: params.step_hz.get(),
            seed: params.seed.get().max(0) as u64,
            publish_clock: params.publish_clock.get(),
            clock_rate_hz: Some(params.clock_rate_hz.get()).filter(|r| *r > 0.0),
            truth_rate_hz: params.truth_rate_hz.get(),
        },
        rtf: params.real_time_factor.get(),
        paused: params.paused.get(),
        duration_s: params.duration_s.get(),
        print_topics: false,
    };
    let list = params.vehicles.get();
    if !list.trim().is_empty() {
        s.specs = SpawnSpec::parse_list("parameter vehicles", &list)?;
    }
    for spec in params.vehicle_specs.get() {
        s.specs.push(SpawnSpec::parse(&spec)?);
    }
    let mut cli_specs = Vec::new();
    let args = cfg.args();
    let mut it = args.iter().skip(1);
    let num = |opt: &str, v: Option<&String>| -> Result<f64, SimError> {
        let v = v.ok_or_else(|| SimError::Config(format!("{opt} needs a value")))?;
        v.parse::<f64>()
            .ok()
            .filter(|x| x.is_finite() && *x >= 0.0)
            .ok_or_else(|| SimError::Config(format!("{opt}: {v} is not a non-negative number")))
    };
    while let Some(a) = it.next() {
        let (opt, inline) = match a.split_once('=') {
            Some((o, v)) if o.starts_with("--") => (o, Some(v.to_string())),
            _ => (a.as_str(), None),
        };
        let mut value = || inline.clone().or_else(|| it.next().cloned());
        match opt {
            "--world" => {
                s.world = value().ok_or_else(|| SimError::Config("--world needs a path".into()))?
            }
            "--vehicle" => {
                let v = value()
                    .ok_or_else(|| SimError::Config("--vehicle needs ns=..,manifest=..".into()))?;
                cli_specs.push(SpawnSpec::parse(&v)?);
            }
            "--vehicles" => {
                let path =
                    value().ok_or_else(|| SimError::Config("--vehicles needs a file".into()))?;
                let text = std::fs::read_to_string(&path)
                    .map_err(|e| SimError::Config(format!("--vehicles {path}: {e}")))?;
                cli_specs.extend(SpawnSpec::parse_list(&path, &text)?);
            }
            "--seed" => s.cfg.seed = num(opt, value().as_ref())? as u64,
            "--real-time-factor" => s.rtf = num(opt, value().as_ref())?,
            "--step-hz" => s.cfg.step_hz = num(opt, value().as_ref())?,
            "--duration" => s.duration_s = num(opt, value().as_ref())?,
            "--paused" => s.paused = true,
            "--no-clock" => s.cfg.publish_clock = false,
            "--print-topics" => s.print_topics = true,
            other => {
                return Err(SimError::Config(format!(
                    "unknown option {other} (see fieldproof_sim --help)"
                )))
            }
        }
    }
    if !cli_specs.is_empty() {
        s.specs = cli_specs;
    }
    if s.world.is_empty() {
        return Err(SimError::Config(
            "no world: --world worlds/<name>.yaml or -p world:=...".into(),
        ));
    }
    if !(10.0..=10_000.0).contains(&s.cfg.step_hz) {
        return Err(SimError::Config(format!(
            "step_hz: {} is not within 10..10000",
            s.cfg.step_hz
        )));
    }
    Ok(s)
}

/// The simulator's own options, after its parameters in `--help`.
const OPTIONS_HELP: &str = "
options (before --ros-args):
  --world FILE               the world (worlds/<name>.yaml)
  --vehicle ns=N,manifest=M[,spawn=S]   a vehicle (repeatable)
  --vehicles FILE            vehicles, one spec a line
  --seed N  --real-time-factor X  --step-hz HZ  --duration S
  --paused  --no-clock  --print-topics
";

fn main() -> ExitCode {
    let (builder, params) = ros::node_builder();
    if fieldproof_runtime::wants_help(std::env::args_os().skip(1)) {
        print!("{}{OPTIONS_HELP}", builder.help("fieldproof_sim"));
        return ExitCode::SUCCESS;
    }
    let cfg = match builder.resolve_from_process() {
        Ok(c) => c,
        Err(e) => {
            eprintln!("fieldproof_sim: error: {e}");
            return ExitCode::from(2);
        }
    };
    // Everything that can be wrong with the input is checked before the participant opens.
    let prepared = settings(&cfg, &params).and_then(|s| {
        let ament = std::env::var("AMENT_PREFIX_PATH").ok();
        let world = World::load(fieldproof_robots::find_data_file(
            s.world.as_ref(),
            ament.as_deref(),
        ))?;
        let spawns = Spawn::resolve_all(&s.specs, &world)?;
        Ok((s, world, spawns))
    });
    let (s, world, spawns) = match prepared {
        Ok(p) => p,
        Err(e) => {
            eprintln!("fieldproof_sim: error: {e}");
            return ExitCode::from(2);
        }
    };
    let sim = Simulation::new(&world, &spawns, s.cfg.clone());
    if s.print_topics {
        for t in sim.topics() {
            println!("{} {} {:?}", t.name, t.ros_type, t.qos);
        }
        for c in sim.command_topics() {
            println!(
                "{} geometry_msgs/msg/Twist (subscribed) {:?}",
                c.name, c.qos
            );
        }
        return ExitCode::SUCCESS;
    }
    let (rtf, paused) = (s.rtf, s.paused);
    let opts = RunOptions {
        duration_ns: Some((s.duration_s * 1e9) as i64).filter(|d| *d > 0),
        real_time_factor: params.real_time_factor.clone(),
        paused: params.paused.clone(),
    };
    let result = fieldproof_runtime::run(cfg, move |node| async move {
        node.set_param("real_time_factor", ParamValue::Double(rtf))?;
        node.set_param("paused", ParamValue::Bool(paused))?;
        ros::run(node, sim, opts).await
    });
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("fieldproof_sim: error: {e}");
            ExitCode::FAILURE
        }
    }
}
