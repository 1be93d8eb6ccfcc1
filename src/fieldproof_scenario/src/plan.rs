//! The run's plan: which processes start, in which network namespace, with which
//! arguments, and how each one shows it is ready. Pure (no process is started): the
//! runner executes it, the tests read it.

use crate::model::{Action, Scenario, Stack, Vehicle, VISION_SOURCE_ARG};
use fieldproof_link::bringup;
use fieldproof_link::heartbeat::HeartbeatSpec;
use fieldproof_link::netns::VEHICLE_WORLD_IF;
use fieldproof_link::profile::DdsOverRadio;
use fieldproof_runtime::env::INTERFACES_VAR;
use std::path::{Path, PathBuf};

/// How a process shows it is ready.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Ready {
    /// A node of this fully qualified name in the ROS graph.
    Node(String),
    /// A managed (lifecycle) node of this fully qualified name in state ACTIVE, as its
    /// `~/get_state` service answers.
    Active(String),
    /// Every node of these fully qualified names in the graph (a container's nodes).
    Nodes(Vec<String>),
    /// Nothing to wait for (a launch file, a command).
    Started,
}

/// One process of the run.
#[derive(Debug, Clone, PartialEq)]
pub struct ProcSpec {
    /// Its name in the record (`simulator`, `ugv1/imu_adapter`, `ground_station`).
    pub name: String,
    /// The vehicle it belongs to.
    pub vehicle: Option<String>,
    /// The node name `process.kill` uses (`imu_adapter`, `goal_driver`, `link_monitor`,
    /// `stack`).
    pub node: Option<String>,
    /// Whether it is the vehicle's stack (`process.kill` of `stack` finds it whatever its
    /// node name).
    pub stack: bool,
    /// The network namespace (`None`: the one the runner's DDS runs in).
    pub netns: Option<String>,
    /// argv (argv[0] absolute).
    pub argv: Vec<String>,
    /// Environment variables set for it (beside the runner's own, which it inherits).
    pub env: Vec<(String, String)>,
    /// Readiness.
    pub ready: Ready,
    /// A thread of it (by name) the runner makes SCHED_FIFO at this priority once the
    /// process is ready (the ground station's probe thread): the process, unprivileged,
    /// cannot itself.
    pub realtime_thread: Option<(&'static str, i32)>,
}

/// The environment variable naming a vehicle's evidence directory, set for every process
/// of the vehicle (its bridge adapters, failsafe and stack, and what a launch-file stack
/// starts): what a node writes there (the mission supervisor's `supervisor/frames.in` and
/// `frames.out`) is listed in run.json.
pub const EVIDENCE_DIR_ENV: &str = "FIELDPROOF_EVIDENCE_DIR";

/// The simulator's `/clock` rate in a run whose scenario does not set `clock_rate_hz`.
/// Every node on simulation time receives each `/clock` message: at every 1 ms step a UGV
/// bundle's adapters cost 47 % of a core, at 200 Hz 17.5 % (`scripts/bench/bundle_cost.py`),
/// and every timer the nodes use (1 to 50 Hz) is a multiple of 5 ms, so stays exact.
pub const DEFAULT_CLOCK_RATE_HZ: f64 = 200.0;

/// The environment that binds a process's DDS participants to its vehicle's wiring
/// (`world0`), off its radio (`network.dds_over_radio: failsafe`): fieldproof's runtime
/// reads `FIELDPROOF_DDS_INTERFACES`, a real ROS 2 node on Cyclone DDS (in a launch-file
/// stack) `CYCLONEDDS_URI`.
pub fn onboard_dds_env() -> Vec<(String, String)> {
    vec![
        (INTERFACES_VAR.to_string(), VEHICLE_WORLD_IF.to_string()),
        (
            "CYCLONEDDS_URI".to_string(),
            format!(
                "<CycloneDDS><Domain><General><Interfaces><NetworkInterface \
                 name=\"{VEHICLE_WORLD_IF}\"/></Interfaces></General></Domain></CycloneDDS>"
            ),
        ),
    ]
}

/// Whether a launch file is in ROS 2's Python format (`*.launch.py`, `*.py`), which only
/// `ros2 launch` reads.
pub fn is_python_launch_file(file: &Path) -> bool {
    file.extension().is_some_and(|e| e == "py")
}

/// A vehicle's evidence directory: `<run dir>/<vehicle name>`.
pub fn evidence_dir(run_dir: &Path, vehicle: &str) -> PathBuf {
    run_dir.join(vehicle)
}

/// An executable that cannot be found.
#[derive(Debug, thiserror::Error)]
pub enum MissingExecutable {
    /// One of a package's executables.
    #[error("executable {executable} of package {package} not found (looked in AMENT_PREFIX_PATH, beside {beside} and in PATH; build it: cargo build --workspace, or colcon build)")]
    Package {
        /// Package.
        package: String,
        /// Executable.
        executable: String,
        /// Where the runner looked beside itself.
        beside: String,
    },
    /// ROS 2's own `ros2` command, which a Python launch file needs.
    #[error("{file}: a Python launch file is started with ROS 2's `ros2 launch`, and ros2 is not on PATH (source /opt/ros/jazzy/setup.bash before fieldproof run, or write the launch file in YAML for fieldproof launch)")]
    Ros2 {
        /// The launch file.
        file: String,
    },
}

/// Finds installed executables the way `ros2 run` does, then beside the running program
/// (a cargo target directory), then in `PATH`.
#[derive(Debug, Clone)]
pub struct Executables {
    prefixes: Vec<PathBuf>,
    beside: Vec<PathBuf>,
    path: Vec<PathBuf>,
}

impl Executables {
    /// From the process's environment.
    pub fn from_env() -> Self {
        let split = |v: Option<std::ffi::OsString>| -> Vec<PathBuf> {
            v.map(|v| std::env::split_paths(&v).collect())
                .unwrap_or_default()
        };
        let mut beside = Vec::new();
        if let Ok(me) = std::env::current_exe() {
            if let Some(d) = me.parent() {
                beside.push(d.to_path_buf());
                // Test binaries live in target/<profile>/deps.
                if d.file_name().is_some_and(|n| n == "deps") {
                    if let Some(p) = d.parent() {
                        beside.push(p.to_path_buf());
                    }
                }
            }
        }
        Executables {
            prefixes: split(std::env::var_os("AMENT_PREFIX_PATH")),
            beside,
            path: split(std::env::var_os("PATH")),
        }
    }

    /// The path of a command on `PATH` alone (`ros2`), `None` where there is none.
    pub fn on_path(&self, command: &str) -> Option<PathBuf> {
        use std::os::unix::fs::PermissionsExt;
        self.path.iter().map(|d| d.join(command)).find(|c| {
            c.metadata()
                .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
        })
    }

    /// The path of `package`'s `executable`.
    pub fn find(&self, package: &str, executable: &str) -> Result<PathBuf, MissingExecutable> {
        let is_exe = |p: &Path| {
            use std::os::unix::fs::PermissionsExt;
            p.metadata()
                .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
        };
        let candidates = self
            .prefixes
            .iter()
            .map(|p| p.join("lib").join(package).join(executable))
            .chain(self.beside.iter().map(|d| d.join(executable)))
            .chain(self.path.iter().map(|d| d.join(executable)));
        for c in candidates {
            if is_exe(&c) {
                return Ok(c);
            }
        }
        Err(MissingExecutable::Package {
            package: package.into(),
            executable: executable.into(),
            beside: self
                .beside
                .iter()
                .map(|p| p.display().to_string())
                .collect::<Vec<_>>()
                .join(", "),
        })
    }
}

/// The run's settings beside the scenario.
#[derive(Debug, Clone)]
pub struct PlanInput<'a> {
    /// The run directory.
    pub dir: &'a Path,
    /// Seed.
    pub seed: u64,
    /// Simulation speed.
    pub real_time_factor: f64,
    /// Per vehicle: its network namespace (with a network section).
    pub vehicle_netns: Vec<Option<String>>,
    /// The ground station's namespace and each vehicle's radio address (with a network).
    pub radio: Option<(String, Vec<String>)>,
    /// The simulator's namespace, wired to every vehicle's (with a network).
    pub world_netns: Option<String>,
}

fn ns_arg(v: &Vehicle) -> String {
    format!("__ns:=/{}", v.namespace)
}

fn fqn(v: &Vehicle, node: &str) -> String {
    format!("{}/{node}", v.topic_prefix())
}

/// The process name (after the vehicle's) of a vehicle's composed bridge adapters.
pub const BUNDLE_CONTAINER: &str = "bridge";

/// Whether vehicle `v`'s bridge adapters run composed in one process (`bundle_container`):
/// unless the scenario says `compose_bundles: false` or a `process.kill` signals one of them
/// (the signal must reach that node alone).
pub fn composes_bundle(s: &Scenario, v: &Vehicle) -> bool {
    let kills_an_adapter = s.timeline.iter().any(|e| {
        e.vehicle.as_deref() == Some(v.name.as_str())
            && matches!(&e.action, Action::ProcessKill { node, .. }
                if v.bundle.nodes.iter().any(|n| &n.name == node))
    });
    s.raw.compose_bundles.unwrap_or(true) && !kills_an_adapter
}

/// Whether vehicle `v`'s failsafe (`link_monitor`) is a node of its bridge container
/// rather than a process of its own: when the adapters are composed ([`composes_bundle`]),
/// the vehicle has a failsafe, the scenario does not say `compose_failsafe: false`, the
/// timeline kills no `link_monitor` (a signal reaches a process), and the failsafe's DDS is
/// not bound apart from the adapters' (`network: dds_over_radio: failsafe`, where only the
/// failsafe is on the radio: one participant has one binding).
pub fn composes_failsafe(s: &Scenario, v: &Vehicle) -> bool {
    let kills_the_failsafe = s.timeline.iter().any(|e| {
        e.vehicle.as_deref() == Some(v.name.as_str())
            && matches!(&e.action, Action::ProcessKill { node, .. } if node == "link_monitor")
    });
    let failsafe_on_its_own_binding = s
        .network
        .as_ref()
        .is_some_and(|n| n.section.dds_over_radio == DdsOverRadio::Failsafe);
    composes_bundle(s, v)
        && s.raw.compose_failsafe.unwrap_or(true)
        && failsafe_parameters(v).is_some()
        && !kills_the_failsafe
        && !failsafe_on_its_own_binding
}

/// The parameters of vehicle `v`'s failsafe, from its manifest's `runtime.link`: none
/// without a failsafe. Every setting is a declared parameter of `link_monitor`, so what
/// `ros2 param get` reports is what runs.
pub fn failsafe_parameters(v: &Vehicle) -> Option<bringup::Settings> {
    let link = v
        .manifest
        .runtime
        .as_ref()
        .and_then(|r| r.link.as_ref())
        .filter(|_| v.failsafe)?;
    Some(bringup::failsafe_parameters(
        link,
        &v.stack_cmd_vel,
        &v.manifest.drive.command.ros_topic,
    ))
}

/// Where a run writes the parameters file of vehicle `vehicle`'s composed failsafe
/// (`bundle_container --failsafe`): beside its bridge bundle.
pub fn failsafe_params_file(dir: &Path, vehicle: &str) -> PathBuf {
    dir.join("bundles").join(format!("{vehicle}.failsafe.yaml"))
}

/// Builds the plan: the simulator, then per vehicle its bridge adapters (one container, or
/// a process each), its failsafe and its stack, then the ground station.
pub fn plan(
    s: &Scenario,
    p: &PlanInput,
    exes: &Executables,
) -> Result<Vec<ProcSpec>, MissingExecutable> {
    let mut out = Vec::new();
    let exe = |pkg: &str, e: &str| exes.find(pkg, e).map(|x| x.display().to_string());
    // The simulator.
    let mut argv = vec![
        exe("fieldproof_sim", "fieldproof_sim")?,
        "--world".into(),
        s.world.source.display().to_string(),
        "--seed".into(),
        p.seed.to_string(),
        "--real-time-factor".into(),
        p.real_time_factor.to_string(),
        // Released by the runner when every process is ready (run::params).
        "--paused".into(),
    ];
    for v in &s.vehicles {
        let mut spec = format!("ns={},manifest={}", v.namespace, v.manifest_path.display());
        if !v.bundle.options.without.is_empty() {
            spec.push_str(&format!(",without={}", v.bundle.options.without.join("+")));
        }
        match (&v.spawn, &v.pad) {
            (_, Some(pad)) => spec.push_str(&format!(",pad={pad}")),
            (Some(f), None) => spec.push_str(&format!(",spawn={f}")),
            (None, None) => spec.push_str(&format!(
                ",x={},y={},z={},yaw_deg={}",
                v.pose.xyz[0], v.pose.xyz[1], v.pose.xyz[2], v.pose.yaw_deg
            )),
        }
        if let Some(kg) = v.payload_kg {
            spec.push_str(&format!(",payload_kg={kg}"));
        }
        argv.push("--vehicle".into());
        argv.push(spec);
    }
    let clock_rate_hz = s.raw.clock_rate_hz.unwrap_or(DEFAULT_CLOCK_RATE_HZ);
    argv.extend([
        "--ros-args".into(),
        "-p".into(),
        format!("clock_rate_hz:={clock_rate_hz:?}"),
    ]);
    out.push(ProcSpec {
        name: "simulator".into(),
        vehicle: None,
        node: Some("fieldproof_sim".into()),
        stack: false,
        netns: p.world_netns.clone(),
        argv,
        env: Vec::new(),
        ready: Ready::Node("/fieldproof_sim".into()),
        realtime_thread: None,
    });
    for (i, v) in s.vehicles.iter().enumerate() {
        let netns = p.vehicle_netns.get(i).cloned().flatten();
        let env = vec![(
            EVIDENCE_DIR_ENV.to_string(),
            evidence_dir(p.dir, &v.name).display().to_string(),
        )];
        // Every process but the failsafe, bound to the wiring when the scenario keeps the
        // vehicle's DDS off its radio.
        let mut onboard_env = env.clone();
        if netns.is_some()
            && s.network
                .as_ref()
                .is_some_and(|n| n.section.dds_over_radio == DdsOverRadio::Failsafe)
        {
            onboard_env.extend(onboard_dds_env());
        }
        let bundle = p.dir.join("bundles").join(&v.name);
        let adapters: Vec<_> = v
            .bundle
            .nodes
            .iter()
            .filter(|n| !n.kind.gz_only())
            .collect();
        let composed = composes_bundle(s, v);
        let failsafe_composed = composes_failsafe(s, v);
        if composed {
            let mut argv = vec![
                exe("fieldproof_bridge", "bundle_container")?,
                "--bundle".into(),
                bundle.display().to_string(),
            ];
            let mut ready: Vec<String> = adapters.iter().map(|n| fqn(v, &n.name)).collect();
            if failsafe_composed {
                argv.extend([
                    "--failsafe".into(),
                    failsafe_params_file(p.dir, &v.name).display().to_string(),
                ]);
                ready.push(fqn(v, "link_monitor"));
            }
            argv.extend([
                "--ros-args".into(),
                "-r".into(),
                ns_arg(v),
                "-p".into(),
                "use_sim_time:=true".into(),
            ]);
            out.push(ProcSpec {
                name: format!("{}/{BUNDLE_CONTAINER}", v.name),
                vehicle: Some(v.name.clone()),
                node: None,
                stack: false,
                netns: netns.clone(),
                argv,
                env: onboard_env.clone(),
                ready: Ready::Nodes(ready),
                realtime_thread: None,
            });
        }
        for n in adapters.iter().filter(|_| !composed) {
            let (pkg, e) = n.kind.package_and_executable();
            let mut argv = vec![
                exe(pkg, e)?,
                "--ros-args".into(),
                "-r".into(),
                ns_arg(v),
                "-r".into(),
                format!("__node:={}", n.name),
                "--params-file".into(),
                bundle.join("params.yaml").display().to_string(),
                "-p".into(),
                "use_sim_time:=true".into(),
            ];
            for (a, b) in &n.remaps {
                argv.push("-r".into());
                argv.push(format!("{a}:={b}"));
            }
            out.push(ProcSpec {
                name: format!("{}/{}", v.name, n.name),
                vehicle: Some(v.name.clone()),
                node: Some(n.name.clone()),
                stack: false,
                netns: netns.clone(),
                argv,
                env: onboard_env.clone(),
                ready: Ready::Node(fqn(v, &n.name)),
                realtime_thread: None,
            });
        }
        let cmd_topic = &v.stack_cmd_vel;
        if let Some(parameters) = failsafe_parameters(v).filter(|_| !failsafe_composed) {
            let mut argv = vec![
                exe("fieldproof_link", "link_monitor")?,
                "--ros-args".into(),
                "-r".into(),
                ns_arg(v),
                "-p".into(),
                "use_sim_time:=true".into(),
            ];
            argv.extend(parameter_args(&parameters));
            out.push(ProcSpec {
                name: format!("{}/link_monitor", v.name),
                vehicle: Some(v.name.clone()),
                node: Some("link_monitor".into()),
                stack: false,
                netns: netns.clone(),
                argv,
                env: env.clone(),
                ready: Ready::Node(fqn(v, "link_monitor")),
                realtime_thread: None,
            });
        }
        let stack = match &v.stack {
            Stack::None => None,
            Stack::GoalDriver => Some((
                "goal_driver",
                vec![
                    exe("fieldproof_stack", "goal_driver")?,
                    "--ros-args".into(),
                    "-r".into(),
                    ns_arg(v),
                    "-p".into(),
                    "use_sim_time:=true".into(),
                    "-p".into(),
                    format!("output:={cmd_topic}"),
                ],
                Ready::Node(fqn(v, "goal_driver")),
            )),
            Stack::Executable {
                package,
                executable,
            } => Some((
                "stack",
                vec![
                    exe(package, executable)?,
                    "--ros-args".into(),
                    "-r".into(),
                    ns_arg(v),
                    "-p".into(),
                    "use_sim_time:=true".into(),
                ],
                Ready::Started,
            )),
            Stack::Launch { file, args } => {
                // A YAML launch file runs under fieldproof's launcher (or ros2 launch, the
                // same format); a Python one needs ROS 2's own.
                let launcher = if is_python_launch_file(file) {
                    exes.on_path("ros2")
                        .ok_or_else(|| MissingExecutable::Ros2 {
                            file: file.display().to_string(),
                        })?
                        .display()
                        .to_string()
                } else {
                    exe("fieldproof_tools", "fieldproof")?
                };
                let mut argv = vec![
                    launcher,
                    "launch".into(),
                    file.display().to_string(),
                    format!("namespace:={}", v.namespace),
                    format!("cmd_vel:={}", v.stack_cmd_vel),
                ];
                if let Some(vision) = v.vision {
                    argv.push(format!("{VISION_SOURCE_ARG}:={}", vision.name()));
                }
                argv.extend(args.iter().map(|(k, val)| format!("{k}:={val}")));
                Some(("stack", argv, Ready::Started))
            }
            Stack::Command { argv } => Some(("stack", argv.clone(), Ready::Started)),
        };
        if let Some((node, argv, ready)) = stack {
            out.push(ProcSpec {
                name: format!("{}/{node}", v.name),
                vehicle: Some(v.name.clone()),
                node: Some(node.into()),
                stack: true,
                netns: netns.clone(),
                argv,
                env: onboard_env.clone(),
                ready,
                realtime_thread: None,
            });
        }
    }
    if let Some((radio_ns, addrs)) = &p.radio {
        let names: Vec<String> = s.vehicles.iter().map(|v| v.name.clone()).collect();
        let heartbeats: Vec<HeartbeatSpec> = s.vehicles.iter().filter_map(heartbeat_of).collect();
        let mut argv = vec![
            exe("fieldproof_link", "ground_station")?,
            "--ros-args".into(),
        ];
        argv.extend(parameter_args(&bringup::ground_station_parameters(
            &names,
            addrs,
            &heartbeats,
            &p.dir.join("network.jsonl").display().to_string(),
        )));
        out.push(ProcSpec {
            name: "ground_station".into(),
            vehicle: None,
            node: Some("ground_station".into()),
            stack: false,
            netns: Some(radio_ns.clone()),
            argv,
            env: Vec::new(),
            ready: Ready::Active("/ground_station".into()),
            realtime_thread: Some((
                fieldproof_link::probe::PROBE_THREAD,
                fieldproof_link::probe::PROBE_PRIORITY,
            )),
        });
    }
    Ok(out)
}

/// The ground station's heartbeat for vehicle `v`: its manifest's `runtime.link.heartbeat`,
/// the topic resolved in the vehicle's namespace; none without one.
fn heartbeat_of(v: &Vehicle) -> Option<HeartbeatSpec> {
    let heartbeat = crate::model::heartbeat(v)?;
    Some(bringup::heartbeat_spec(
        &v.name,
        &v.topic_prefix(),
        heartbeat,
    ))
}

/// `-p name:=value` for each setting.
fn parameter_args(settings: &[(&str, bringup::Setting)]) -> Vec<String> {
    settings
        .iter()
        .flat_map(|(name, value)| ["-p".to_string(), format!("{name}:={}", value.to_cli())])
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use fieldproof_testkit::repo_root;

    fn fake_exes(dir: &Path) -> Executables {
        use std::os::unix::fs::PermissionsExt;
        for e in [
            "fieldproof_sim",
            "relay",
            "imu_adapter",
            "navsat_adapter",
            "throttle",
            "command_relay",
            "battery",
            "bundle_container",
            "link_monitor",
            "ground_station",
            "goal_driver",
            "fieldproof",
        ] {
            let p = dir.join(e);
            std::fs::write(&p, "#!/bin/sh\n").unwrap();
            std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755)).unwrap();
        }
        Executables {
            prefixes: vec![],
            beside: vec![dir.to_path_buf()],
            path: vec![],
        }
    }

    /// The simulator's command line ends by setting its `/clock` rate to `rate`.
    fn assert_clock_rate(sim: &[String], rate: &str) {
        let expected = ["--ros-args", "-p", &format!("clock_rate_hz:={rate}")].map(String::from);
        assert!(sim.ends_with(&expected), "{sim:?}");
    }

    #[test]
    fn plan_of_the_example() {
        let s =
            crate::model::load(&repo_root().join("config/scenarios/ugv_link_loss.yaml")).unwrap();
        let bin = tempfile::tempdir().unwrap();
        let run = Path::new("/runs/x");
        let p = plan(
            &s,
            &PlanInput {
                dir: run,
                seed: 7,
                real_time_factor: 1.0,
                vehicle_netns: vec![Some("fp-r1-v-ugv1".into())],
                radio: Some(("fp-r1-radio".into(), vec!["198.18.1.1".into()])),
                world_netns: Some("fp-r1-world".into()),
            },
            &fake_exes(bin.path()),
        )
        .unwrap();
        let names: Vec<&str> = p.iter().map(|x| x.name.as_str()).collect();
        assert_eq!(names[0], "simulator");
        assert_eq!(p[0].netns.as_deref(), Some("fp-r1-world"));
        // The bridge adapters composed in one process, ready when all of them are.
        assert!(!names.contains(&"ugv1/imu_adapter"), "{names:?}");
        let bridge = p.iter().find(|x| x.name == "ugv1/bridge").unwrap();
        assert_eq!(bridge.argv[1..3], ["--bundle", "/runs/x/bundles/ugv1"]);
        // The failsafe is one more node of that process, its parameters in a file.
        assert_eq!(
            bridge.argv[3..5],
            ["--failsafe", "/runs/x/bundles/ugv1.failsafe.yaml"]
        );
        assert!(bridge.argv.ends_with(
            &[
                "--ros-args",
                "-r",
                "__ns:=/ugv1",
                "-p",
                "use_sim_time:=true"
            ]
            .map(String::from)
        ));
        assert_eq!(bridge.netns.as_deref(), Some("fp-r1-v-ugv1"));
        let Ready::Nodes(adapters) = &bridge.ready else {
            panic!("{:?}", bridge.ready)
        };
        assert!(adapters.contains(&"/ugv1/imu_adapter".to_string()));
        assert!(adapters.contains(&"/ugv1/command_relay".to_string()));
        assert_eq!(
            adapters.len(),
            s.vehicles[0]
                .bundle
                .nodes
                .iter()
                .filter(|n| !n.kind.gz_only())
                .count()
                + 1,
            "the adapters and the failsafe"
        );
        assert!(adapters.contains(&"/ugv1/link_monitor".to_string()));
        assert!(!names.contains(&"ugv1/link_monitor"), "{names:?}");
        assert!(names.contains(&"ugv1/goal_driver"));
        assert_eq!(*names.last().unwrap(), "ground_station");
        let sim = &p[0].argv;
        // Started paused: the runner releases it when every process is ready.
        assert!(sim.contains(&"--paused".to_string()), "{sim:?}");
        assert!(sim
            .iter()
            .any(|a| a.starts_with("ns=ugv1,manifest=") && a.ends_with(",spawn=spawn_dock")));
        // The scenario sets no clock rate: the runner's default, not every step.
        assert_clock_rate(sim, "200.0");
        // What the failsafe's file gives it: the manifest's loss action and heartbeat QoS,
        // between the stack's topic and the base's.
        let failsafe: Vec<String> = parameter_args(&failsafe_parameters(&s.vehicles[0]).unwrap());
        for arg in [
            "input:=cmd_vel_nav",
            "output:=cmd_vel",
            "timeout_s:=2.0",
            "loss_action:=stop",
            "heartbeat_topic:=gcs/heartbeat",
            "heartbeat_qos_reliability:=best_effort",
            "heartbeat_qos_durability:=volatile",
            "heartbeat_qos_depth:=1",
        ] {
            assert!(failsafe.contains(&arg.to_string()), "{arg} in {failsafe:?}");
        }
        let gd = p.iter().find(|x| x.name == "ugv1/goal_driver").unwrap();
        assert!(gd.argv.contains(&"output:=cmd_vel_nav".to_string()));
        let gs = p.last().unwrap();
        assert_eq!(gs.netns.as_deref(), Some("fp-r1-radio"));
        assert!(gs.argv.contains(&"addresses:=['198.18.1.1']".to_string()));
        // The heartbeat of the vehicle's manifest, resolved in its namespace, its rate and QoS.
        assert!(
            gs.argv.contains(
                &"heartbeats:=['ugv1 /ugv1/gcs/heartbeat 2.0 best_effort volatile 1']".to_string()
            ),
            "{:?}",
            gs.argv
        );
        assert!(gs
            .argv
            .contains(&"network_jsonl:=/runs/x/network.jsonl".to_string()));
    }

    fn binds_to_the_wiring(proc: &ProcSpec) -> bool {
        proc.env
            .iter()
            .any(|(k, v)| k == INTERFACES_VAR && v == VEHICLE_WORLD_IF)
    }

    #[test]
    fn adapters_run_apart_when_the_scenario_says_so_or_kills_one_of_them() {
        let example =
            crate::model::load(&repo_root().join("config/scenarios/ugv_link_loss.yaml")).unwrap();
        let bin = tempfile::tempdir().unwrap();
        let input = PlanInput {
            dir: Path::new("/runs/x"),
            seed: 7,
            real_time_factor: 1.0,
            vehicle_netns: vec![None],
            radio: None,
            world_netns: None,
        };
        let mut separate = example.clone();
        separate.raw.compose_bundles = Some(false);
        let mut kills_an_adapter = example.clone();
        let mut kill = kills_an_adapter.timeline[0].clone();
        kill.vehicle = Some("ugv1".into());
        kill.action = Action::ProcessKill {
            node: "imu_adapter".into(),
            signal: "TERM".into(),
        };
        kills_an_adapter.timeline.push(kill.clone());
        let mut kills_the_stack = example.clone();
        kill.action = Action::ProcessKill {
            node: "goal_driver".into(),
            signal: "TERM".into(),
        };
        kills_the_stack.timeline.push(kill.clone());
        let mut failsafe_apart = example.clone();
        failsafe_apart.raw.compose_failsafe = Some(false);
        let mut kills_the_failsafe = example.clone();
        kill.action = Action::ProcessKill {
            node: "link_monitor".into(),
            signal: "KILL".into(),
        };
        kills_the_failsafe.timeline.push(kill);
        for (scenario, composed, failsafe_composed) in [
            (&example, true, true),
            (&separate, false, false),
            (&kills_an_adapter, false, false),
            (&kills_the_stack, true, true),
            (&kills_the_failsafe, true, false),
            (&failsafe_apart, true, false),
        ] {
            assert_eq!(composes_bundle(scenario, &scenario.vehicles[0]), composed);
            assert_eq!(
                composes_failsafe(scenario, &scenario.vehicles[0]),
                failsafe_composed
            );
            let p = plan(scenario, &input, &fake_exes(bin.path())).unwrap();
            let names: Vec<&str> = p.iter().map(|x| x.name.as_str()).collect();
            assert_eq!(names.contains(&"ugv1/bridge"), composed, "{names:?}");
            assert_eq!(names.contains(&"ugv1/imu_adapter"), !composed, "{names:?}");
            assert_eq!(
                names.contains(&"ugv1/link_monitor"),
                !failsafe_composed,
                "{names:?}"
            );
            if !failsafe_composed {
                // A process of its own, every setting on its command line.
                let lm = p.iter().find(|x| x.name == "ugv1/link_monitor").unwrap();
                for arg in ["input:=cmd_vel_nav", "output:=cmd_vel", "loss_action:=stop"] {
                    assert!(lm.argv.contains(&arg.to_string()), "{arg} in {:?}", lm.argv);
                }
                assert_eq!(lm.ready, Ready::Node("/ugv1/link_monitor".into()));
                if composed {
                    let bridge = p.iter().find(|x| x.name == "ugv1/bridge").unwrap();
                    assert!(!bridge.argv.contains(&"--failsafe".to_string()));
                }
            }
            if !composed {
                let imu = p.iter().find(|x| x.name == "ugv1/imu_adapter").unwrap();
                assert!(imu
                    .argv
                    .contains(&"/runs/x/bundles/ugv1/params.yaml".to_string()));
                assert_eq!(imu.ready, Ready::Node("/ugv1/imu_adapter".into()));
                assert_eq!(imu.node.as_deref(), Some("imu_adapter"));
            }
        }
    }

    #[test]
    fn dds_over_radio_failsafe_keeps_all_but_the_failsafe_on_the_wiring() {
        let mut s =
            crate::model::load(&repo_root().join("config/scenarios/ugv_link_loss.yaml")).unwrap();
        let bin = tempfile::tempdir().unwrap();
        let input = PlanInput {
            dir: Path::new("/runs/x"),
            seed: 7,
            real_time_factor: 1.0,
            vehicle_netns: vec![Some("fp-r1-v-ugv1".into())],
            radio: Some(("fp-r1-radio".into(), vec!["198.18.1.1".into()])),
            world_netns: Some("fp-r1-world".into()),
        };
        // The default: every participant on every interface.
        let p = plan(&s, &input, &fake_exes(bin.path())).unwrap();
        assert!(!p.iter().any(binds_to_the_wiring));
        s.network.as_mut().unwrap().section.dds_over_radio = DdsOverRadio::Failsafe;
        let p = plan(&s, &input, &fake_exes(bin.path())).unwrap();
        for proc in &p {
            let onboard = proc.vehicle.is_some() && proc.name != "ugv1/link_monitor";
            assert_eq!(binds_to_the_wiring(proc), onboard, "{}", proc.name);
            if onboard {
                // A real ROS 2 node of a launch-file stack, on Cyclone DDS, too.
                assert!(proc.env.iter().any(|(k, v)| k == "CYCLONEDDS_URI"
                    && v.contains("<NetworkInterface name=\"world0\"/>")));
                // And the evidence directory stays.
                assert!(proc.env.iter().any(|(k, _)| k == EVIDENCE_DIR_ENV));
            }
        }
        // The failsafe on the radio is a process apart from the composed adapters.
        assert!(!composes_failsafe(&s, &s.vehicles[0]));
        assert!(p.iter().any(|x| x.name == "ugv1/link_monitor"));
        // The composed bridge adapters and the stack.
        let bound: Vec<&str> = p
            .iter()
            .filter(|x| binds_to_the_wiring(x))
            .map(|x| x.name.as_str())
            .collect();
        assert!(bound.contains(&"ugv1/bridge"), "{bound:?}");
        assert!(bound.len() >= 2, "{bound:?}");
    }

    /// The input of a run of one vehicle and no network section.
    fn one_vehicle_without_links() -> PlanInput<'static> {
        PlanInput {
            dir: Path::new("/r"),
            seed: 0,
            real_time_factor: 1.0,
            vehicle_netns: vec![None],
            radio: None,
            world_netns: None,
        }
    }

    #[test]
    fn a_launch_file_stack_gets_the_namespace_and_the_command_topic() {
        let s = crate::model::load(&repo_root().join("config/scenarios/ugv_launch_stack.yaml"))
            .unwrap();
        let bin = tempfile::tempdir().unwrap();
        let exes = fake_exes(bin.path());
        let fieldproof = bin.path().join("fieldproof");
        std::fs::copy(bin.path().join("relay"), &fieldproof).unwrap();
        let p = plan(&s, &one_vehicle_without_links(), &exes).unwrap();
        let stack = p.iter().find(|x| x.name == "ugv1/stack").unwrap();
        assert!(stack.stack && stack.node.as_deref() == Some("stack"));
        assert_eq!(stack.argv[0], fieldproof.display().to_string());
        assert_eq!(stack.argv[1], "launch");
        assert!(stack.argv[2].ends_with("src/fieldproof_stack/launch/goal_driver.launch.yaml"));
        assert_eq!(
            stack.argv[3..],
            ["namespace:=ugv1", "cmd_vel:=cmd_vel", "max_speed_mps:=0.6"]
        );
        // ugv_ref has no failsafe: no link_monitor, the stack drives the base.
        assert!(p.iter().all(|x| x.name != "ugv1/link_monitor"));
        assert_eq!(p.iter().filter(|x| x.stack).count(), 1);
    }

    #[test]
    fn a_python_launch_file_stack_runs_under_ros2_launch_found_on_path() {
        let s =
            crate::model::load(&repo_root().join("config/scenarios/ugv_rclpy_stack.yaml")).unwrap();
        let bin = tempfile::tempdir().unwrap();
        let mut exes = fake_exes(bin.path());
        // No ros2 on PATH: refused naming the file and the remedy.
        let e = plan(&s, &one_vehicle_without_links(), &exes).unwrap_err();
        assert!(
            e.to_string()
                .ends_with("rclpy_goal_driver.launch.py: a Python launch file is started with ROS 2's `ros2 launch`, and ros2 is not on PATH (source /opt/ros/jazzy/setup.bash before fieldproof run, or write the launch file in YAML for fieldproof launch)"),
            "{e}"
        );
        let ros_bin = tempfile::tempdir().unwrap();
        let ros2 = ros_bin.path().join("ros2");
        std::fs::copy(bin.path().join("relay"), &ros2).unwrap();
        exes.path = vec![ros_bin.path().to_path_buf()];
        let p = plan(&s, &one_vehicle_without_links(), &exes).unwrap();
        let stack = p.iter().find(|x| x.name == "ugv1/stack").unwrap();
        assert_eq!(stack.argv[0], ros2.display().to_string());
        assert_eq!(stack.argv[1], "launch");
        assert!(stack.argv[2].ends_with("stacks/rclpy_goal_driver.launch.py"));
        assert_eq!(
            stack.argv[3..],
            ["namespace:=ugv1", "cmd_vel:=cmd_vel", "max_speed_mps:=0.6"]
        );
    }

    #[test]
    fn a_vehicles_vision_goes_to_its_launch_file_and_its_evidence_dir_to_its_processes() {
        let mut s = crate::model::load(&repo_root().join("config/scenarios/ugv_launch_stack.yaml"))
            .unwrap();
        s.vehicles[0].vision = Some(crate::model::VisionSource::None);
        let bin = tempfile::tempdir().unwrap();
        let exes = fake_exes(bin.path());
        std::fs::copy(bin.path().join("relay"), bin.path().join("fieldproof")).unwrap();
        let p = plan(&s, &one_vehicle_without_links(), &exes).unwrap();
        let stack = p.iter().find(|x| x.name == "ugv1/stack").unwrap();
        assert_eq!(
            stack.argv[3..],
            [
                "namespace:=ugv1",
                "cmd_vel:=cmd_vel",
                "vision_source:=none",
                "max_speed_mps:=0.6"
            ]
        );
        // Every process of the vehicle (adapters and stack) gets its evidence directory;
        // the simulator, of no vehicle, none.
        let evidence = vec![(EVIDENCE_DIR_ENV.to_string(), "/r/ugv1".to_string())];
        for proc in &p {
            if proc.vehicle.is_some() {
                assert_eq!(proc.env, evidence, "{}", proc.name);
            } else {
                assert!(proc.env.is_empty(), "{}", proc.name);
            }
        }
        // The composed bridge adapters and the stack.
        assert!(p
            .iter()
            .any(|x| x.name == "ugv1/bridge" && x.vehicle.is_some()));
        assert!(p.iter().filter(|x| x.vehicle.is_some()).count() >= 2);
        assert_eq!(evidence_dir(Path::new("/r"), "ugv1"), Path::new("/r/ugv1"));
    }

    #[test]
    fn each_vehicle_gets_its_own_heartbeat_in_its_namespace_or_none() {
        let mut s =
            crate::model::load(&repo_root().join("config/scenarios/ugv_pair_link_loss.yaml"))
                .unwrap();
        s.vehicles[0].namespace = "fleet/a".into();
        let link = s.vehicles[1]
            .manifest
            .runtime
            .as_mut()
            .unwrap()
            .link
            .as_mut()
            .unwrap();
        let hb = link.heartbeat.as_mut().unwrap();
        hb.topic = "radio/beat".into();
        hb.rate_hz = 5.0;
        hb.qos.reliability = fieldproof_robots::manifest::Reliability::Reliable;
        let first = heartbeat_of(&s.vehicles[0]).unwrap();
        assert_eq!(
            first.to_string(),
            "ugv1 /fleet/a/gcs/heartbeat 2.0 best_effort volatile 1"
        );
        let second = heartbeat_of(&s.vehicles[1]).unwrap();
        assert_eq!(
            second.to_string(),
            "ugv2 /ugv2/radio/beat 5.0 reliable volatile 1"
        );
        s.vehicles[1].manifest.runtime = None;
        assert_eq!(
            heartbeat_of(&s.vehicles[1]),
            None,
            "no heartbeat in the manifest: none"
        );
    }

    #[test]
    fn without_any_heartbeat_the_ground_station_sends_none() {
        let mut s =
            crate::model::load(&repo_root().join("config/scenarios/ugv_pair_link_loss.yaml"))
                .unwrap();
        for v in &mut s.vehicles {
            v.manifest.runtime = None;
            v.failsafe = false;
        }
        let bin = tempfile::tempdir().unwrap();
        let p = plan(
            &s,
            &PlanInput {
                dir: Path::new("/runs/x"),
                seed: 7,
                real_time_factor: 1.0,
                vehicle_netns: vec![Some("fp-r1-v-ugv1".into()), Some("fp-r1-v-ugv2".into())],
                radio: Some((
                    "fp-r1-radio".into(),
                    vec!["198.18.1.1".into(), "198.18.2.1".into()],
                )),
                world_netns: Some("fp-r1-world".into()),
            },
            &fake_exes(bin.path()),
        )
        .unwrap();
        let gs = p.last().unwrap();
        assert_eq!(gs.name, "ground_station");
        // No entry, and no fallback: the ground station's default (every vehicle's
        // /<name>/gcs/heartbeat at 2 Hz) is switched off.
        for arg in ["heartbeats:=[]", "heartbeat_rate_hz:=0.0"] {
            assert!(gs.argv.contains(&arg.to_string()), "{arg} in {:?}", gs.argv);
        }
    }

    #[test]
    fn a_missing_executable_is_named() {
        let s =
            crate::model::load(&repo_root().join("config/scenarios/ugv_navigate.yaml")).unwrap();
        let empty = tempfile::tempdir().unwrap();
        let exes = Executables {
            prefixes: vec![],
            beside: vec![empty.path().into()],
            path: vec![],
        };
        let e = plan(&s, &one_vehicle_without_links(), &exes).unwrap_err();
        assert!(e
            .to_string()
            .starts_with("executable fieldproof_sim of package fieldproof_sim not found"));
    }

    /// The fleet: quads on the carrier's pads (the simulator's `pad=`), the scenario's clock
    /// rate to the simulator, each quad's spawn pose (its pad's) to its launch file.
    #[test]
    fn plan_of_the_fleet() {
        let s =
            crate::model::load(&repo_root().join("config/scenarios/fleet_carrier.yaml")).unwrap();
        let bin = tempfile::tempdir().unwrap();
        let p = plan(
            &s,
            &PlanInput {
                dir: Path::new("/runs/f"),
                seed: 7,
                real_time_factor: 0.25,
                vehicle_netns: vec![None; 4],
                radio: None,
                world_netns: None,
            },
            &fake_exes(bin.path()),
        )
        .unwrap();
        let sim = &p[0].argv;
        assert!(sim
            .iter()
            .any(|a| a.starts_with("ns=carrier,") && a.ends_with(",spawn=spawn_carrier")));
        assert!(sim
            .iter()
            .any(|a| a.starts_with("ns=quad2,") && a.ends_with(",pad=carrier/pad_1")));
        assert_clock_rate(sim, "200.0");
        let quad2 = p.iter().find(|x| x.name == "quad2/stack").unwrap();
        for arg in [
            "spawn_x_m:=-0.2",
            "spawn_y_m:=0.8",
            "spawn_yaw_deg:=0.0",
            "spawn_yaw_rad:=0.0",
            "pad_index:=1",
        ] {
            assert!(
                quad2.argv.contains(&arg.to_string()),
                "{arg} in {:?}",
                quad2.argv
            );
        }
    }
}
