//! Validation of the vehicles (names, namespaces, manifests, spawn, stack, failsafe), the
//! network section and the timeouts.

use super::launch_file::LaunchDecl;
use super::raw::{PoseSpec, RawVehicle, SpawnRef, StackSpec, Timeouts, VisionSource};
use super::topics::{is_topic_name, DEFAULT_STACK_CMD_VEL};
use super::types::{Stack, Vehicle, RUN_SUBDIRS, VISION_SOURCE_ARG};
use super::{is_name, Ctx, ScenarioError};
use crate::duration;
use fieldproof_link::profile::{presets, Network, NetworkSection};
use fieldproof_robots::{LossAction, Manifest, World};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Where a vehicle's relative paths resolve and what the vehicles before it took.
pub(super) struct VehicleScope<'a> {
    /// The scenario's directory (the bundle is planned under it).
    pub dir: &'a Path,
    /// A path of the scenario made absolute.
    pub rel: &'a dyn Fn(&Path) -> PathBuf,
    /// The world (spawn frames).
    pub world: &'a World,
    /// Names taken so far.
    pub names: BTreeSet<String>,
    /// Namespaces taken so far.
    pub namespaces: BTreeSet<String>,
    /// The pads of the carriers so far, `<namespace>/<pad name>`, at their start poses.
    pub pads: BTreeMap<String, PoseSpec>,
}

/// The launch arguments a vehicle's spawn pose is passed as, to a launch-file stack that
/// declares them (the stack's odom frame is where the vehicle started).
pub const SPAWN_POSE_ARGS: [&str; 4] = ["spawn_x_m", "spawn_y_m", "spawn_yaw_deg", "spawn_yaw_rad"];

/// Gives a launch-file stack the vehicle's spawn pose as the [`SPAWN_POSE_ARGS`] it
/// declares, unless the scenario sets them itself.
fn pass_spawn_pose(stack: &mut Stack, pose: PoseSpec) {
    let Stack::Launch { file, args } = stack else {
        return;
    };
    let Some(declared) = LaunchDecl::read(file) else {
        return;
    };
    let values = [
        pose.xyz[0],
        pose.xyz[1],
        pose.yaw_deg,
        pose.yaw_deg.to_radians(),
    ];
    for (name, value) in SPAWN_POSE_ARGS.iter().zip(values) {
        if declared.args.iter().any(|a| a == name) {
            args.entry(name.to_string())
                .or_insert_with(|| format!("{value:?}"));
        }
    }
}

/// The poses of a carrier's pads when the carrier stands at `carrier`: each pad's `xy` in
/// the carrier's frame, at its deck height, headed as the carrier.
fn pad_poses(namespace: &str, manifest: &Manifest, carrier: PoseSpec) -> Vec<(String, PoseSpec)> {
    let Some(deck) = &manifest.drive.carrier else {
        return Vec::new();
    };
    let (sin, cos) = carrier.yaw_deg.to_radians().sin_cos();
    deck.pads
        .iter()
        .map(|pad| {
            let [x, y] = pad.xy;
            let xyz = [
                carrier.xyz[0] + cos * x - sin * y,
                carrier.xyz[1] + sin * x + cos * y,
                carrier.xyz[2] + deck.deck_height_m,
            ];
            (
                format!("{namespace}/{}", pad.name),
                PoseSpec {
                    xyz,
                    yaw_deg: carrier.yaw_deg,
                },
            )
        })
        .collect()
}

/// Validates `vehicles[i]`: its name and namespace (unique), manifest, spawn, stack, failsafe
/// and command topic, and plans its bridge bundle.
pub(super) fn vehicle(
    ctx: &Ctx,
    i: usize,
    v: &RawVehicle,
    scope: &mut VehicleScope,
) -> Result<Vehicle, ScenarioError> {
    let (dir, rel, world) = (scope.dir, scope.rel, scope.world);
    let (names, namespaces) = (&mut scope.names, &mut scope.namespaces);
    let p = format!("vehicles[{i}]");
    if !is_name(&v.name) || v.name.len() > 10 {
        return Err(ctx.err(
            format!("{p}.name"),
            format!(
                "\"{}\" must be 1 to 10 of [a-z0-9_], starting with a letter (it names a network namespace)",
                v.name
            ),
        ));
    }
    if RUN_SUBDIRS.contains(&v.name.as_str()) {
        return Err(ctx.err(
            format!("{p}.name"),
            format!(
                "\"{}\" names a directory of the run ({}), where the vehicle's evidence directory would go",
                v.name,
                RUN_SUBDIRS.join(", ")
            ),
        ));
    }
    if !names.insert(v.name.clone()) {
        return Err(ctx.err(format!("{p}.name"), format!("\"{}\" is used twice", v.name)));
    }
    let namespace = v.namespace.clone().unwrap_or_else(|| v.name.clone());
    let ns = namespace.trim_matches('/').to_string();
    if !ns.is_empty() && !is_name(&ns) {
        return Err(ctx.err(
            format!("{p}.namespace"),
            format!("\"{namespace}\" is not a ROS namespace of one [a-z0-9_] segment"),
        ));
    }
    if !namespaces.insert(ns.clone()) {
        return Err(ctx.err(
            format!("{p}.namespace"),
            format!("\"{namespace}\" is used twice"),
        ));
    }
    let manifest_path = rel(&v.manifest);
    let manifest = Manifest::load(&manifest_path).map_err(|e| ScenarioError::Robots {
        path: format!("{p}.manifest"),
        source: e,
    })?;
    let pad = match &v.spawn {
        Some(SpawnRef::Pad(pad)) => Some(pad.pad.clone()),
        _ => None,
    };
    let pose = match (&v.spawn, &v.pose) {
        (Some(_), Some(_)) => {
            return Err(ctx.err(format!("{p}.pose"), "give spawn or pose, not both"))
        }
        (Some(SpawnRef::Pad(pad)), None) => {
            if manifest.kind != fieldproof_robots::VehicleKind::Multirotor {
                return Err(ctx.err(
                    format!("{p}.spawn.pad"),
                    format!(
                        "\"{}\": only a multirotor starts on a pad ({} is a {:?})",
                        pad.pad,
                        v.manifest.display(),
                        manifest.kind
                    ),
                ));
            }
            match scope.pads.get(&pad.pad) {
                Some(pose) => *pose,
                None => {
                    return Err(ctx.err(
                        format!("{p}.spawn.pad"),
                        format!(
                        "\"{}\" is not a pad of a carrier listed before this vehicle (pads: {})",
                        pad.pad,
                        if scope.pads.is_empty() {
                            "none".to_string()
                        } else {
                            scope.pads.keys().cloned().collect::<Vec<_>>().join(", ")
                        }
                    ),
                    ))
                }
            }
        }
        (Some(SpawnRef::Frame(f)), None) => match world.frames.get(f) {
            Some(fr) => PoseSpec {
                xyz: fr.xyz,
                yaw_deg: fr.yaw_deg,
            },
            None => {
                return Err(ctx.err(
                    format!("{p}.spawn"),
                    format!(
                        "\"{f}\" is not a frame of world {} (frames: {})",
                        world.name,
                        world.frames.keys().cloned().collect::<Vec<_>>().join(", ")
                    ),
                ))
            }
        },
        (None, Some(pose)) => {
            check_pose(ctx, &format!("{p}.pose"), pose)?;
            *pose
        }
        (None, None) => {
            return Err(ctx.err(
                format!("{p}.spawn"),
                "missing (a frame of the world, or pose)",
            ))
        }
    };
    let mut stack = stack(ctx, &p, v.stack.as_ref(), rel)?;
    pass_spawn_pose(&mut stack, pose);
    if let Some(kg) = v.payload_kg {
        let max = manifest.body.max_payload_kg;
        if !(kg.is_finite() && (0.0..=max).contains(&kg)) {
            return Err(ctx.err(
                format!("{p}.payload_kg"),
                format!("{kg} is not within 0..{max} (the manifest's body.max_payload_kg)"),
            ));
        }
    }
    if let Some(vision) = v.vision {
        check_vision(ctx, &p, vision, &stack)?;
    }
    let link = manifest.runtime.as_ref().and_then(|r| r.link.as_ref());
    // A failsafe needs a heartbeat to hear: without one in the manifest the ground
    // station sends it none, and link_monitor would never arm (nor let a run start).
    let has_failsafe = link.is_some_and(|l| l.heartbeat.is_some());
    let failsafe = match v.failsafe {
        Some(true) if !has_failsafe => {
            return Err(ctx.err(
                format!("{p}.failsafe"),
                format!(
                    "true, but manifest {} has no {} (no failsafe to run)",
                    v.manifest.display(),
                    if link.is_some() {
                        "runtime.link.heartbeat: its ground station sends none"
                    } else {
                        "runtime.link"
                    }
                ),
            ))
        }
        Some(f) => f,
        None => has_failsafe,
    };
    if failsafe {
        check_loss_action(ctx, &p, &manifest, &stack)?;
    }
    let custom_cmd_vel = match &v.stack {
        Some(StackSpec::Custom(c)) => c.cmd_vel.clone(),
        _ => None,
    };
    if let Some(t) = &custom_cmd_vel {
        if !is_topic_name(t) {
            return Err(ctx.err(
                format!("{p}.stack.cmd_vel"),
                format!("\"{t}\" is not a relative ROS topic name"),
            ));
        }
    }
    let stack_cmd_vel = custom_cmd_vel.unwrap_or_else(|| {
        if failsafe {
            DEFAULT_STACK_CMD_VEL.to_string()
        } else {
            manifest.drive.command.ros_topic.clone()
        }
    });
    if failsafe && stack_cmd_vel == manifest.drive.command.ros_topic {
        return Err(ctx.err(
            format!("{p}.stack.cmd_vel"),
            format!(
                "\"{stack_cmd_vel}\" is the base's command topic, which link_monitor publishes: the stack must publish upstream of the failsafe (default {DEFAULT_STACK_CMD_VEL})"
            ),
        ));
    }
    let options = fieldproof_bridge::gen::Options {
        namespace: ns.clone(),
        no_clock: true,
        no_robot_state_publisher: true,
        without: v.without.clone(),
        ..Default::default()
    };
    let field = if v.without.is_empty() {
        "manifest"
    } else {
        "without"
    };
    let bundle = fieldproof_bridge::gen::generate(&manifest, &options, &dir.join("bundle"))
        .map_err(|e| ctx.err(format!("{p}.{field}"), e.to_string()))?;
    scope.pads.extend(pad_poses(&ns, &manifest, pose));
    Ok(Vehicle {
        name: v.name.clone(),
        namespace: ns,
        manifest_path,
        manifest,
        spawn: match &v.spawn {
            Some(SpawnRef::Frame(frame)) => Some(frame.clone()),
            _ => None,
        },
        pad,
        pose,
        stack,
        failsafe,
        stack_cmd_vel,
        bundle,
        vision: v.vision,
        payload_kg: v.payload_kg,
    })
}

/// `vision:` goes to the stack as a launch argument: the stack must be a launch file that
/// declares it.
fn check_vision(
    ctx: &Ctx,
    vehicle_path: &str,
    vision: VisionSource,
    stack: &Stack,
) -> Result<(), ScenarioError> {
    let path = format!("{vehicle_path}.vision");
    let Stack::Launch { file, .. } = stack else {
        return Err(ctx.err(
            path,
            format!(
                "{} is passed to the stack as the launch argument {VISION_SOURCE_ARG}, but the stack {} is not a launch file ({{launch: file}})",
                vision.name(),
                stack.describe()
            ),
        ));
    };
    let declared = LaunchDecl::read(file).map(|d| d.args.iter().any(|a| a == VISION_SOURCE_ARG));
    if declared == Some(false) {
        return Err(ctx.err(
            path,
            format!(
                "{} is passed to the stack as the launch argument {VISION_SOURCE_ARG}, which {} does not declare",
                vision.name(),
                file.display()
            ),
        ));
    }
    Ok(())
}

/// Validates the `network` section: every link names a vehicle, every profile resolves.
pub(super) fn network(
    ctx: &Ctx,
    section: Option<&NetworkSection>,
    vehicles: &BTreeSet<String>,
) -> Result<Option<Network>, ScenarioError> {
    let Some(sec) = section else {
        return Ok(None);
    };
    for (veh, _) in sec.links.iter() {
        if !vehicles.contains(veh) {
            return Err(ctx.err(
                format!("network.links.{veh}"),
                format!("\"{veh}\" is not a vehicle of the scenario"),
            ));
        }
    }
    Network::new(sec.clone(), &presets(), "network")
        .map(Some)
        .map_err(|e| profile_err(ctx, e))
}

pub(super) fn profile_err(ctx: &Ctx, e: fieldproof_link::profile::ProfileError) -> ScenarioError {
    use fieldproof_link::profile::ProfileError as P;
    let path = match &e {
        P::OutOfRange { path, .. }
        | P::Needs { path, .. }
        | P::ReservedName { path, .. }
        | P::Unknown { path, .. }
        | P::Parse { path, .. } => path.clone(),
    };
    let full = e.to_string();
    let message = full
        .strip_prefix(&format!("{path}: "))
        .unwrap_or(&full)
        .to_string();
    ctx.err(path, message)
}

pub(super) fn check_pose(ctx: &Ctx, path: &str, p: &PoseSpec) -> Result<(), ScenarioError> {
    if p.xyz.iter().any(|x| !x.is_finite()) || !p.yaw_deg.is_finite() {
        return Err(ctx.err(path, format!("{:?} must be finite", p.xyz)));
    }
    Ok(())
}

fn stack(
    ctx: &Ctx,
    p: &str,
    s: Option<&StackSpec>,
    rel: &dyn Fn(&Path) -> PathBuf,
) -> Result<Stack, ScenarioError> {
    Ok(match s {
        None => Stack::GoalDriver,
        Some(StackSpec::Name(n)) => match n.as_str() {
            "goal_driver" | "fieldproof_stack/goal_driver" => Stack::GoalDriver,
            "none" => Stack::None,
            other => match other.split_once('/') {
                Some((pkg, exe)) if !pkg.is_empty() && !exe.is_empty() && !exe.contains('/') => {
                    Stack::Executable {
                        package: pkg.into(),
                        executable: exe.into(),
                    }
                }
                _ => {
                    return Err(ctx.err(
                        format!("{p}.stack"),
                        format!("\"{other}\" is not goal_driver, none, package/executable, {{launch: file}} or {{command: [argv]}}"),
                    ))
                }
            },
        },
        Some(StackSpec::Custom(c)) => match (&c.launch, &c.command) {
            (Some(f), None) => {
                if let Some(reserved) = ["namespace", "cmd_vel", VISION_SOURCE_ARG]
                    .into_iter()
                    .find(|k| c.args.contains_key(*k))
                {
                    return Err(ctx.err(
                        format!("{p}.stack.args.{reserved}"),
                        format!("is set by the runner (the vehicle's namespace; stack.cmd_vel; {p}.vision)"),
                    ));
                }
                let file = rel(f);
                if !file.is_file() {
                    return Err(ctx.err(
                        format!("{p}.stack.launch"),
                        format!("{} does not exist", file.display()),
                    ));
                }
                Stack::Launch {
                    file,
                    args: c.args.clone(),
                }
            }
            (None, Some(argv)) if !argv.is_empty() && !argv[0].is_empty() => {
                if !c.args.is_empty() {
                    return Err(ctx.err(
                        format!("{p}.stack.args"),
                        "only a launch file takes args",
                    ));
                }
                Stack::Command { argv: argv.clone() }
            }
            (None, Some(_)) => {
                return Err(ctx.err(format!("{p}.stack.command"), "must not be empty"))
            }
            _ => {
                return Err(ctx.err(
                    format!("{p}.stack"),
                    "give one of launch or command",
                ))
            }
        },
    })
}

/// Every timeout above 0 (the upper bound is every duration's, [`duration::MAX_DURATION_S`]).
pub(super) fn check_timeouts(ctx: &Ctx, t: &Timeouts) -> Result<(), ScenarioError> {
    for (name, value) in [
        ("ready_s", t.ready_s),
        ("ground_s", t.ground_s),
        ("run_s", t.run_s),
        ("clock_stall_s", t.clock_stall_s),
        ("shutdown_s", t.shutdown_s),
    ] {
        if value.get() <= 0.0 {
            return Err(ctx.err(
                format!("timeouts.{name}"),
                format!("{} s must be above 0", duration::display(value.get())),
            ));
        }
    }
    Ok(())
}

/// Whether the stack takes the vehicle home by itself when its link is lost: none of the
/// stacks the runner starts does (goal_driver keeps its goal; others are not known).
fn has_return_home(_stack: &Stack) -> bool {
    false
}

/// A failsafe whose loss action is `return_home` needs a stack that can go home.
fn check_loss_action(
    ctx: &Ctx,
    vehicle_path: &str,
    manifest: &Manifest,
    stack: &Stack,
) -> Result<(), ScenarioError> {
    let loss_action = manifest
        .runtime
        .as_ref()
        .and_then(|r| r.link.as_ref())
        .map(|l| l.loss_action);
    if loss_action == Some(LossAction::ReturnHome) && !has_return_home(stack) {
        return Err(ctx.err(
            format!("{vehicle_path}.manifest"),
            format!(
                "runtime.link.loss_action: return_home: the stack {} has no return-home behaviour (give stop, hold, land or continue)",
                stack.describe()
            ),
        ));
    }
    Ok(())
}
