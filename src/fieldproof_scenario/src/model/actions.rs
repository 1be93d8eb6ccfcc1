//! The timeline's actions: each one a variant of [`RawAction`] with its own fields struct,
//! and its handler ([`ActionSpec`]) turning the fields into a validated [`Action`].
//!
//! Adding an action: one line in the `tagged_enum!` list below, its fields struct and its
//! `ActionSpec` impl (here), and what the runner does with its [`Action`].

use super::raw::VisionSource;
use super::raw::{did_you_mean, tagged_enum, PoseSpec};
use super::types::{Action, ParamFault, ParamSetting, Stack, Vehicle};
use super::vehicles::{check_pose, profile_err};
use super::{Ctx, ScenarioError};
use crate::duration::Secs;
use fieldproof_bridge::gen::Serves;
use fieldproof_link::profile::Network;
use fieldproof_link::scenario_file::{LinkDrop, LinkRestore, LinkSet};
use fieldproof_robots::World;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

tagged_enum! {
    /// A timeline action as written, with its own fields (serialized flat, beside
    /// `action: <name>`).
    pub enum RawAction { tag: "action", handler: ActionSpec }
    /// Every action the timeline knows.
    pub const ACTIONS;
    "link.set" => LinkSet(LinkSet),
    "link.drop" => LinkDrop(LinkDrop),
    "link.restore" => LinkRestore(LinkRestore),
    "sensor.dropout" => SensorDropout(SensorFault),
    "sensor.freeze" => SensorFreeze(SensorFault),
    "imu.bias" => ImuBias(ImuBias),
    "gps.deny" => GpsDeny(GpsDeny),
    "gps.offset" => GpsOffset(GpsOffset),
    "actuator.limit" => ActuatorLimit(ActuatorLimit),
    "battery.drain" => BatteryDrain(BatteryDrain),
    "perception.overload" => PerceptionOverload(PerceptionOverload),
    "navigate_to" => NavigateTo(NavigateTo),
    "process.kill" => ProcessKill(ProcessKill),
    "param.set" => ParamSet(ParamSet),
}

impl RawAction {
    /// How long the action lasts, when it takes a `duration_s`.
    pub fn duration_s(&self) -> Option<Secs> {
        self.spec().duration_s()
    }

    /// Validates the action's fields for the entry `cx` describes.
    pub(super) fn validate(&self, cx: &ActionCx) -> Result<Action, ScenarioError> {
        self.spec().validate(cx)
    }
}

/// An action's handler: what its fields mean once the entry's vehicle is known.
pub(super) trait ActionSpec {
    /// Its `duration_s` (the fault cleared, the link restored, the ramp's length).
    fn duration_s(&self) -> Option<Secs> {
        None
    }

    /// The validated action; errors name the field path (`cx.field`) and the value.
    fn validate(&self, cx: &ActionCx) -> Result<Action, ScenarioError>;
}

/// What a handler knows of its entry.
pub(super) struct ActionCx<'a> {
    /// The scenario's error context.
    pub ctx: &'a Ctx<'a>,
    /// The entry's path (`timeline[2]`).
    pub path: String,
    /// The action as written.
    pub action: &'static str,
    /// The vehicle it acts on.
    pub vehicle: &'a Vehicle,
    /// The world.
    pub world: &'a World,
    /// The scenario's network, if it has one.
    pub network: Option<&'a Network>,
    /// The entry's duration (s).
    pub duration_s: Option<f64>,
}

impl ActionCx<'_> {
    /// An error at the entry's field `key`.
    fn err(&self, key: &str, message: impl Into<String>) -> ScenarioError {
        self.ctx.err(format!("{}.{key}", self.path), message)
    }

    /// A required field that is missing.
    fn need(&self, key: &str) -> ScenarioError {
        self.err(key, format!("missing (required by {})", self.action))
    }

    /// The network a link action needs.
    fn network(&self) -> Result<&Network, ScenarioError> {
        self.network.ok_or_else(|| {
            self.err(
                "action",
                format!("\"{}\" needs a network section", self.action),
            )
        })
    }

    /// The node of the vehicle's bundle whose injector serves what `serves` accepts.
    fn injector(
        &self,
        serves: &dyn Fn(&Serves) -> bool,
        what: &str,
    ) -> Result<String, ScenarioError> {
        let veh = self.vehicle;
        veh.bundle
            .nodes
            .iter()
            .find(|n| n.injector.as_ref().is_some_and(|inj| serves(&inj.serves)))
            .map(|n| n.name.clone())
            .ok_or_else(|| {
                self.err(
                    "action",
                    format!(
                        "vehicle {} has no injector for {what} (its bundle's injectors: {})",
                        veh.name,
                        veh.bundle
                            .nodes
                            .iter()
                            .filter(|n| n.injector.is_some())
                            .map(|n| n.name.as_str())
                            .collect::<Vec<_>>()
                            .join(", ")
                    ),
                )
            })
    }

    /// The injector of `sensor`, or of the vehicle's first sensor of type `ty`.
    fn typed_sensor(&self, sensor: Option<&String>, ty: &str) -> Result<String, ScenarioError> {
        let veh = self.vehicle;
        let sensor = match sensor {
            Some(s) => s.clone(),
            None => veh
                .manifest
                .sensors
                .iter()
                .find(|s| format!("{:?}", s.kind).eq_ignore_ascii_case(ty))
                .map(|s| s.name.clone())
                .ok_or_else(|| {
                    self.err(
                        "vehicle",
                        format!("vehicle {} has no {ty} sensor", veh.name),
                    )
                })?,
        };
        self.injector(
            &|s| matches!(s, Serves::Sensor { sensor: n, .. } if *n == sensor),
            &format!("sensor {sensor}"),
        )
    }

    /// A fault on `node`'s parameters: `set` at the start, `clear` at the end when the
    /// entry has a duration.
    fn fault(
        &self,
        node: String,
        set: Vec<(&str, ParamSetting)>,
        clear: Vec<(&str, ParamSetting)>,
    ) -> Action {
        let owned = |v: Vec<(&str, ParamSetting)>| {
            v.into_iter()
                .map(|(k, v)| (k.to_string(), v))
                .collect::<Vec<_>>()
        };
        Action::Fault {
            action: self.action.to_string(),
            fault: ParamFault {
                node,
                set: owned(set),
                clear: if self.duration_s.is_some() {
                    owned(clear)
                } else {
                    Vec::new()
                },
            },
        }
    }

    /// A finite 3-vector (absent: zeros).
    fn vec3(&self, key: &str, v: Option<[f64; 3]>) -> Result<Vec<f64>, ScenarioError> {
        let v = v.unwrap_or([0.0; 3]);
        if v.iter().any(|x| !x.is_finite()) {
            return Err(self.err(key, format!("{v:?} must be finite")));
        }
        Ok(v.to_vec())
    }
}

impl ActionSpec for LinkSet {
    fn validate(&self, cx: &ActionCx) -> Result<Action, ScenarioError> {
        let network = cx.network()?;
        let profile = self.profile.clone().ok_or_else(|| cx.need("profile"))?;
        network
            .lookup(&profile, &format!("{}.profile", cx.path))
            .map_err(|e| profile_err(cx.ctx, e))?;
        Ok(Action::LinkSet { profile })
    }
}

impl ActionSpec for LinkDrop {
    fn duration_s(&self) -> Option<Secs> {
        self.duration_s
    }

    fn validate(&self, cx: &ActionCx) -> Result<Action, ScenarioError> {
        cx.network()?;
        Ok(Action::LinkDrop)
    }
}

impl ActionSpec for LinkRestore {
    fn validate(&self, cx: &ActionCx) -> Result<Action, ScenarioError> {
        cx.network()?;
        Ok(Action::LinkRestore)
    }
}

/// `sensor.dropout` / `sensor.freeze`: a sensor's output stops / keeps its last value.
#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct SensorFault {
    /// A manifest sensor (`lidar`, `imu`, `gnss`) or drive interface (`odometry`,
    /// `joint_states`, `command`), or `sensor/output`.
    #[serde(default)]
    pub sensor: Option<String>,
    /// How long (then cleared).
    #[serde(default)]
    pub duration_s: Option<Secs>,
}

impl ActionSpec for SensorFault {
    fn duration_s(&self) -> Option<Secs> {
        self.duration_s
    }

    fn validate(&self, cx: &ActionCx) -> Result<Action, ScenarioError> {
        let sensor = self.sensor.clone().ok_or_else(|| cx.need("sensor"))?;
        let (s, out) = match sensor.split_once('/') {
            Some((s, o)) => (s.to_string(), Some(o.to_string())),
            None => (sensor.clone(), None),
        };
        let node = cx.injector(
            &|sv| match sv {
                Serves::Sensor { sensor: n, output } => {
                    *n == s && out.as_ref().is_none_or(|o| o == output)
                }
                Serves::Drive(d) => out.is_none() && *d == s,
                Serves::Battery => out.is_none() && s == "battery",
            },
            &format!("sensor {sensor}"),
        )?;
        let param = if cx.action == "sensor.dropout" {
            "dropout"
        } else {
            "freeze"
        };
        Ok(cx.fault(
            node,
            vec![(param, ParamSetting::Bool(true))],
            vec![(param, ParamSetting::Bool(false))],
        ))
    }
}

/// `imu.bias`: biases added to an IMU's readings.
#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct ImuBias {
    /// rad/s on x, y, z.
    #[serde(default)]
    pub gyro_bias_radps: Option<[f64; 3]>,
    /// m/s² on x, y, z.
    #[serde(default)]
    pub accel_bias_mps2: Option<[f64; 3]>,
    /// How long (then cleared).
    #[serde(default)]
    pub duration_s: Option<Secs>,
    /// The IMU (default: the vehicle's first).
    #[serde(default)]
    pub sensor: Option<String>,
}

impl ActionSpec for ImuBias {
    fn duration_s(&self) -> Option<Secs> {
        self.duration_s
    }

    fn validate(&self, cx: &ActionCx) -> Result<Action, ScenarioError> {
        if self.gyro_bias_radps.is_none() && self.accel_bias_mps2.is_none() {
            return Err(cx.need("gyro_bias_radps"));
        }
        let node = cx.typed_sensor(self.sensor.as_ref(), "imu")?;
        let g = cx.vec3("gyro_bias_radps", self.gyro_bias_radps)?;
        let acc = cx.vec3("accel_bias_mps2", self.accel_bias_mps2)?;
        Ok(cx.fault(
            node,
            vec![
                ("gyro_bias_radps", ParamSetting::Doubles(g)),
                ("accel_bias_mps2", ParamSetting::Doubles(acc)),
            ],
            vec![
                ("gyro_bias_radps", ParamSetting::Doubles(vec![0.0; 3])),
                ("accel_bias_mps2", ParamSetting::Doubles(vec![0.0; 3])),
            ],
        ))
    }
}

/// `gps.deny`: no GNSS fix.
#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct GpsDeny {
    /// How long (then cleared).
    #[serde(default)]
    pub duration_s: Option<Secs>,
    /// The receiver (default: the vehicle's first).
    #[serde(default)]
    pub sensor: Option<String>,
}

impl ActionSpec for GpsDeny {
    fn duration_s(&self) -> Option<Secs> {
        self.duration_s
    }

    fn validate(&self, cx: &ActionCx) -> Result<Action, ScenarioError> {
        let node = cx.typed_sensor(self.sensor.as_ref(), "gnss")?;
        Ok(cx.fault(
            node,
            vec![("deny", ParamSetting::Bool(true))],
            vec![("deny", ParamSetting::Bool(false))],
        ))
    }
}

/// `gps.offset`: the GNSS position shifted.
#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct GpsOffset {
    /// Metres east, north, up; required.
    #[serde(default)]
    pub offset_enu_m: Option<[f64; 3]>,
    /// How long (then cleared).
    #[serde(default)]
    pub duration_s: Option<Secs>,
    /// The receiver (default: the vehicle's first).
    #[serde(default)]
    pub sensor: Option<String>,
}

impl ActionSpec for GpsOffset {
    fn duration_s(&self) -> Option<Secs> {
        self.duration_s
    }

    fn validate(&self, cx: &ActionCx) -> Result<Action, ScenarioError> {
        let offset = self.offset_enu_m.ok_or_else(|| cx.need("offset_enu_m"))?;
        let o = cx.vec3("offset_enu_m", Some(offset))?;
        let node = cx.typed_sensor(self.sensor.as_ref(), "gnss")?;
        Ok(cx.fault(
            node,
            vec![("offset_enu_m", ParamSetting::Doubles(o))],
            vec![("offset_enu_m", ParamSetting::Doubles(vec![0.0; 3]))],
        ))
    }
}

/// `actuator.limit`: the drive command capped.
#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct ActuatorLimit {
    /// Linear speed cap (0: none).
    #[serde(default)]
    pub max_linear_mps: Option<f64>,
    /// Angular speed cap (0: none).
    #[serde(default)]
    pub max_angular_radps: Option<f64>,
    /// How long (then cleared).
    #[serde(default)]
    pub duration_s: Option<Secs>,
}

impl ActionSpec for ActuatorLimit {
    fn duration_s(&self) -> Option<Secs> {
        self.duration_s
    }

    fn validate(&self, cx: &ActionCx) -> Result<Action, ScenarioError> {
        if self.max_linear_mps.is_none() && self.max_angular_radps.is_none() {
            return Err(cx.need("max_linear_mps"));
        }
        let mut set = Vec::new();
        let mut clear = Vec::new();
        for (k, v) in [
            ("max_linear_mps", self.max_linear_mps),
            ("max_angular_radps", self.max_angular_radps),
        ] {
            if let Some(v) = v {
                if !(v.is_finite() && (0.0..=100.0).contains(&v)) {
                    return Err(cx.err(k, format!("{v} is not in 0 to 100")));
                }
                set.push((k, ParamSetting::Double(v)));
                clear.push((k, ParamSetting::Double(0.0)));
            }
        }
        let node = cx.injector(
            &|s| matches!(s, Serves::Drive(d) if d == "command"),
            "the drive command",
        )?;
        Ok(cx.fault(node, set, clear))
    }
}

/// `battery.drain`: the charge goes to `to`, over `duration_s` when given.
#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct BatteryDrain {
    /// The target charge, 0 to 1; required.
    #[serde(default)]
    pub to: Option<f64>,
    /// The ramp's duration (nothing is set back at its end).
    #[serde(default)]
    pub duration_s: Option<Secs>,
}

impl ActionSpec for BatteryDrain {
    fn duration_s(&self) -> Option<Secs> {
        self.duration_s
    }

    fn validate(&self, cx: &ActionCx) -> Result<Action, ScenarioError> {
        let to = self.to.ok_or_else(|| cx.need("to"))?;
        if !(to.is_finite() && (0.0..=1.0).contains(&to)) {
            return Err(cx.err("to", format!("{to} is not in 0 to 1")));
        }
        let node = cx.injector(&|s| matches!(s, Serves::Battery), "the battery")?;
        let ramp = cx.duration_s.unwrap_or(0.0);
        let set = if ramp > 0.0 {
            vec![
                ("drain_to", ParamSetting::Double(to)),
                ("drain_duration_s", ParamSetting::Double(ramp)),
            ]
        } else {
            vec![("percentage", ParamSetting::Double(to))]
        };
        // The drain's duration is its ramp: nothing is set back at its end.
        Ok(Action::Fault {
            action: cx.action.to_string(),
            fault: ParamFault {
                node,
                set: set.into_iter().map(|(k, v)| (k.to_string(), v)).collect(),
                clear: Vec::new(),
            },
        })
    }
}

/// `perception.overload`: the perception node reports an inference duration it did not take
/// (its `reported_inference_ms` parameter; it does not sleep), then the measured one again
/// (0) at the end of `duration_s`. For a vehicle with `vision: perception`, whose launch
/// file starts the node `perception`.
#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct PerceptionOverload {
    /// The duration reported, ms (default 120, the spec's overload), in (0, 60000].
    #[serde(default)]
    pub reported_inference_ms: Option<f64>,
    /// How long (then the measured duration is reported again).
    #[serde(default)]
    pub duration_s: Option<Secs>,
}

impl PerceptionOverload {
    /// The spec's injected duration, ms.
    pub const DEFAULT_REPORTED_INFERENCE_MS: f64 = 120.0;
    /// The perception node's name in the vehicle's namespace.
    pub const NODE: &'static str = "perception";
}

impl ActionSpec for PerceptionOverload {
    fn duration_s(&self) -> Option<Secs> {
        self.duration_s
    }

    fn validate(&self, cx: &ActionCx) -> Result<Action, ScenarioError> {
        let veh = cx.vehicle;
        if veh.vision != Some(VisionSource::Perception) {
            return Err(cx.err(
                "action",
                format!(
                    "{} needs the perception node, which vehicle {} runs only with vision: perception (its vision: {})",
                    cx.action,
                    veh.name,
                    veh.vision.map_or("not set", VisionSource::name)
                ),
            ));
        }
        let ms = self
            .reported_inference_ms
            .unwrap_or(Self::DEFAULT_REPORTED_INFERENCE_MS);
        if !(ms.is_finite() && ms > 0.0 && ms <= 60_000.0) {
            return Err(cx.err(
                "reported_inference_ms",
                format!("{ms} is not in (0, 60000] ms"),
            ));
        }
        Ok(cx.fault(
            Self::NODE.to_string(),
            vec![("reported_inference_ms", ParamSetting::Double(ms))],
            vec![("reported_inference_ms", ParamSetting::Double(0.0))],
        ))
    }
}

/// `navigate_to`: a goal for the vehicle's stack.
#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct NavigateTo {
    /// A goal (or frame) of the world.
    #[serde(default)]
    pub goal: Option<String>,
    /// Or a pose.
    #[serde(default)]
    pub pose: Option<PoseSpec>,
}

impl ActionSpec for NavigateTo {
    fn validate(&self, cx: &ActionCx) -> Result<Action, ScenarioError> {
        let world = cx.world;
        let (goal, pose) = match (&self.goal, &self.pose) {
            (Some(g), None) => match world.goals.get(g).or_else(|| world.frames.get(g)) {
                Some(p) => (
                    Some(g.clone()),
                    PoseSpec {
                        xyz: p.xyz,
                        yaw_deg: p.yaw_deg,
                    },
                ),
                None => {
                    return Err(cx.err(
                        "goal",
                        format!(
                            "\"{g}\" is not a goal of world {} (goals: {}){}",
                            world.name,
                            world.goals.keys().cloned().collect::<Vec<_>>().join(", "),
                            did_you_mean(
                                g,
                                &world.goals.keys().map(String::as_str).collect::<Vec<_>>()
                            )
                        ),
                    ))
                }
            },
            (None, Some(p)) => {
                check_pose(cx.ctx, &format!("{}.pose", cx.path), p)?;
                (None, *p)
            }
            (Some(_), Some(_)) => return Err(cx.err("pose", "give goal or pose, not both")),
            (None, None) => return Err(cx.need("goal")),
        };
        Ok(Action::NavigateTo { goal, pose })
    }
}

/// The `name`s of the nodes a YAML launch file declares (in groups too): a node of a
/// launch-file stack that `process.kill` can signal on its own (the runner finds it among the
/// launcher's children by its `__node:=` remap). Empty when the file cannot be read.
fn launch_node_names(file: &std::path::Path) -> Vec<String> {
    fn walk(entities: &[serde_yaml::Value], out: &mut Vec<String>) {
        for entity in entities {
            if let Some(name) = entity
                .get("node")
                .and_then(|n| n.get("name"))
                .and_then(serde_yaml::Value::as_str)
            {
                out.push(name.to_string());
            }
            match entity.get("group") {
                Some(serde_yaml::Value::Sequence(children)) => walk(children, out),
                Some(group) => {
                    if let Some(children) = group
                        .get("children")
                        .and_then(serde_yaml::Value::as_sequence)
                    {
                        walk(children, out);
                    }
                }
                None => {}
            }
        }
    }
    let mut out = Vec::new();
    let doc = fieldproof_robots::yaml_guard::read_file(file)
        .ok()
        .and_then(|text| serde_yaml::from_str::<serde_yaml::Value>(&text).ok());
    if let Some(entities) = doc
        .as_ref()
        .and_then(|d| d.get("launch"))
        .and_then(serde_yaml::Value::as_sequence)
    {
        walk(entities, &mut out);
    }
    out
}

/// `process.kill`: signal a node of the vehicle.
#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct ProcessKill {
    /// The node (`goal_driver`, `link_monitor`, `stack`, an adapter of the bundle, a node a
    /// launch-file stack declares); required.
    #[serde(default)]
    pub node: Option<String>,
    /// `TERM` (default), `INT` or `KILL`.
    #[serde(default)]
    pub signal: Option<String>,
}

impl ActionSpec for ProcessKill {
    fn validate(&self, cx: &ActionCx) -> Result<Action, ScenarioError> {
        let veh = cx.vehicle;
        let node = self.node.clone().ok_or_else(|| cx.need("node"))?;
        let mut known: Vec<String> = veh.bundle.nodes.iter().map(|n| n.name.clone()).collect();
        if veh.failsafe {
            known.push("link_monitor".into());
        }
        if veh.stack != Stack::None {
            known.push("stack".into());
        }
        if veh.stack == Stack::GoalDriver {
            known.push("goal_driver".into());
        }
        if let Stack::Launch { file, .. } = &veh.stack {
            known.extend(launch_node_names(file));
        }
        if !known.contains(&node) {
            return Err(cx.err(
                "node",
                format!(
                    "\"{node}\" is not a node of vehicle {} (nodes: {})",
                    veh.name,
                    known.join(", ")
                ),
            ));
        }
        let signal = self.signal.clone().unwrap_or_else(|| "TERM".into());
        if !["TERM", "INT", "KILL"].contains(&signal.as_str()) {
            return Err(cx.err(
                "signal",
                format!("\"{signal}\" is not one of TERM, INT, KILL"),
            ));
        }
        Ok(Action::ProcessKill { node, signal })
    }
}

/// `param.set`: parameters of one node of the vehicle's stack (a node its launch file
/// declares, or `goal_driver`) set through its `~/set_parameters` service, and set to
/// `clear` at the end of `duration_s` (a lead's source blackout, a radio's distance).
#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct ParamSet {
    /// The node; required.
    #[serde(default)]
    pub node: Option<String>,
    /// Parameter name -> value (a boolean or a number), set at the start; required.
    #[serde(default)]
    pub set: BTreeMap<String, serde_yaml::Value>,
    /// Parameter name -> value set at the end; required with `duration_s`, the same names.
    #[serde(default)]
    pub clear: BTreeMap<String, serde_yaml::Value>,
    /// How long (then `clear` is set).
    #[serde(default)]
    pub duration_s: Option<Secs>,
}

impl ActionSpec for ParamSet {
    fn duration_s(&self) -> Option<Secs> {
        self.duration_s
    }

    fn validate(&self, cx: &ActionCx) -> Result<Action, ScenarioError> {
        let veh = cx.vehicle;
        let node = self.node.clone().ok_or_else(|| cx.need("node"))?;
        let known: Vec<String> = match &veh.stack {
            Stack::Launch { file, .. } => launch_node_names(file),
            Stack::GoalDriver => vec!["goal_driver".into()],
            _ => Vec::new(),
        };
        if !known.contains(&node) {
            return Err(cx.err(
                "node",
                format!(
                    "\"{node}\" is not a node of vehicle {}'s stack (nodes: {})",
                    veh.name,
                    known.join(", ")
                ),
            ));
        }
        if self.set.is_empty() {
            return Err(cx.need("set"));
        }
        let settings = |key: &str, map: &BTreeMap<String, serde_yaml::Value>| {
            map.iter()
                .map(|(name, v)| {
                    let setting = match v {
                        serde_yaml::Value::Bool(b) => ParamSetting::Bool(*b),
                        serde_yaml::Value::Number(n) => {
                            match n.as_f64().filter(|x| x.is_finite()) {
                                Some(x) => ParamSetting::Double(x),
                                None => {
                                    return Err(cx.err(
                                        &format!("{key}.{name}"),
                                        format!("{n} is not a finite number"),
                                    ))
                                }
                            }
                        }
                        other => {
                            return Err(cx.err(
                                &format!("{key}.{name}"),
                                format!("{other:?} is not a boolean or a number"),
                            ))
                        }
                    };
                    Ok((name.clone(), setting))
                })
                .collect::<Result<Vec<_>, _>>()
        };
        let set = settings("set", &self.set)?;
        let clear = settings("clear", &self.clear)?;
        if self.duration_s.is_some() && !self.clear.keys().eq(self.set.keys()) {
            return Err(cx.err(
                "clear",
                format!(
                    "must set the same parameters as set ({}) at the end of duration_s",
                    self.set.keys().cloned().collect::<Vec<_>>().join(", ")
                ),
            ));
        }
        if self.duration_s.is_none() && !self.clear.is_empty() {
            return Err(cx.err("clear", "only with duration_s"));
        }
        Ok(Action::Fault {
            action: cx.action.to_string(),
            fault: ParamFault { node, set, clear },
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use fieldproof_testkit::repo_root;

    #[test]
    fn a_launch_files_nodes_are_found_in_its_groups() {
        let names = |f: &str| launch_node_names(&repo_root().join(f));
        assert_eq!(
            names("src/fieldproof_mission/launch/mission.launch.yaml"),
            [
                "localizer",
                "planner",
                "mission_supervisor",
                "perception",
                "autopilot_stub"
            ]
        );
        assert_eq!(
            names("src/fieldproof_stack/launch/goal_driver.launch.yaml"),
            ["goal_driver"]
        );
        assert!(names("no/such/file.launch.yaml").is_empty());
    }
}
