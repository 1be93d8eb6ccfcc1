//! The scenario file: its raw (serde) form, checked strictly (unknown keys are errors), and
//! the validated form the runner executes. Every error names the field path and the value:
//! `timeline[2].action: "link.explode" is not one of link.set, link.drop, ...`.
//!
//! ```yaml
//! name: ugv_link_loss
//! world: ../../worlds/depot.yaml          # relative to the scenario file
//! duration_s: 90s                          # simulation time the timeline runs
//! vehicles:
//!   - { name: ugv1, manifest: ../../robots/ugv_nav2/robot.yaml, spawn: spawn_dock, stack: goal_driver }
//! network: { profile: lte_rural, verify: fail }
//! timeline:
//!   - { name: go, at: 2s, vehicle: ugv1, action: navigate_to, goal: goal_east_gate }
//!   - { name: link_outage, at: 10s, vehicle: ugv1, action: link.drop, duration_s: 30s }
//! assertions:
//!   - { name: link_lost, type: topic_value, topic: /ugv1/link_state, field: data, op: eq,
//!       value: false, mode: eventually, entry: link_outage, within_s: 15s }
//!   - { name: goal_reached, type: reached, vehicle: ugv1, goal: goal_east_gate, radius_m: 1.0 }
//! record: { topics: [/ugv1/odom, /ugv1/cmd_vel, /ugv1/link_state] }
//! ```

use crate::duration::{self, Secs};
use fieldproof_link::profile::{presets, Network, NetworkSection};
use fieldproof_robots::yaml_guard::{self, GuardError};
use fieldproof_robots::{LossAction, Manifest, World};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// A scenario (or a manifest/world it names) that cannot run, with the field at fault.
#[derive(Debug, thiserror::Error)]
pub enum ScenarioError {
    /// The file cannot be read.
    #[error("{}: {source}", file.display())]
    Read {
        /// The file.
        file: PathBuf,
        /// The OS error.
        source: std::io::Error,
    },
    /// A field with a bad value (or a YAML error located at a field).
    #[error("{}: {path}: {message}", file.display())]
    Field {
        /// The scenario file.
        file: PathBuf,
        /// Field path (`timeline[2].action`).
        path: String,
        /// What is wrong, with the value.
        message: String,
    },
    /// The file is refused before parsing: larger than [`yaml_guard::MAX_BYTES`] or nested
    /// deeper than [`yaml_guard::MAX_DEPTH`].
    #[error("{}: {source}", file.display())]
    Refused {
        /// The file.
        file: PathBuf,
        /// The size or the depth, with its limit.
        source: GuardError,
    },
    /// A manifest or world named by the scenario does not load.
    #[error("{path}: {source}")]
    Robots {
        /// The scenario field naming it (`vehicles[0].manifest`).
        path: String,
        /// The manifest/world error (names its own file and field).
        source: fieldproof_robots::Error,
    },
}

impl ScenarioError {
    /// The field path of the error (empty for a read error).
    pub fn path(&self) -> &str {
        match self {
            ScenarioError::Read { .. } | ScenarioError::Refused { .. } => "",
            ScenarioError::Field { path, .. } | ScenarioError::Robots { path, .. } => path,
        }
    }
}

/// The raw scenario document.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct RawScenario {
    /// Scenario name (names the run directory).
    pub name: String,
    /// What it proves.
    #[serde(default)]
    pub description: String,
    /// The world file (relative to the scenario file).
    pub world: PathBuf,
    /// Seed of the simulator's noise (the command line's `--seed` wins).
    #[serde(default)]
    pub seed: Option<u64>,
    /// Simulation speed (the command line's `--real-time-factor` wins).
    #[serde(default)]
    pub real_time_factor: Option<f64>,
    /// Simulation time the timeline runs (default 60 s).
    #[serde(default)]
    pub duration_s: Option<Secs>,
    /// The vehicles.
    pub vehicles: Vec<RawVehicle>,
    /// Radio links (spec: Radio links); without it the vehicles share one unshaped network.
    #[serde(default)]
    pub network: Option<NetworkSection>,
    /// The timeline.
    #[serde(default)]
    pub timeline: Vec<RawEntry>,
    /// The assertions.
    #[serde(default)]
    pub assertions: Vec<RawAssertion>,
    /// Timeouts of the run's phases.
    #[serde(default)]
    pub timeouts: Timeouts,
    /// What goes into the MCAP recording.
    #[serde(default)]
    pub record: Record,
}

/// A vehicle of the scenario.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct RawVehicle {
    /// The vehicle's name (its link and network namespace are named after it).
    pub name: String,
    /// Its manifest (relative to the scenario file).
    pub manifest: PathBuf,
    /// ROS namespace (default: the name).
    #[serde(default)]
    pub namespace: Option<String>,
    /// A frame of the world to spawn at.
    #[serde(default)]
    pub spawn: Option<String>,
    /// Or a pose.
    #[serde(default)]
    pub pose: Option<PoseSpec>,
    /// The stack to run (default: `goal_driver`).
    #[serde(default)]
    pub stack: Option<StackSpec>,
    /// Optional sensors to leave out (bridge_gen's `--without`, the simulator's `without`).
    #[serde(default)]
    pub without: Vec<String>,
    /// Run the manifest's failsafe (`link_monitor`, from `runtime.link`) in the velocity
    /// chain (default: true when the manifest has one). `false` runs the vehicle without
    /// it: the stack drives the base directly, as a vehicle whose failsafe is disabled.
    #[serde(default)]
    pub failsafe: Option<bool>,
}

/// A pose in the world: `{ xyz: [x, y, z], yaw_deg: 90 }`.
#[derive(Debug, Clone, Copy, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct PoseSpec {
    /// Position (m, ENU).
    pub xyz: [f64; 3],
    /// Heading (degrees from east, counter-clockwise).
    #[serde(default)]
    pub yaw_deg: f64,
}

/// The stack a vehicle runs.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(untagged)]
pub enum StackSpec {
    /// `goal_driver` (the example stack), `none`, or an installed `package/executable`.
    Name(String),
    /// A launch file or a command.
    Custom(CustomStack),
}

/// A user's own stack.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct CustomStack {
    /// A YAML launch file (relative to the scenario), started with `fieldproof launch`.
    #[serde(default)]
    pub launch: Option<PathBuf>,
    /// Its `name:=value` arguments.
    #[serde(default)]
    pub args: BTreeMap<String, String>,
    /// Or a command (argv), run in the vehicle's network namespace.
    #[serde(default)]
    pub command: Option<Vec<String>>,
    /// The topic the stack publishes its velocity commands on (default `cmd_vel_nav`,
    /// which link_monitor reads; without a failsafe, the base's command topic). A launch
    /// file gets it as the argument `cmd_vel:=<topic>`.
    #[serde(default)]
    pub cmd_vel: Option<String>,
}

/// Timeouts (seconds of wall clock).
#[derive(Debug, Clone, Copy, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields, default)]
pub struct Timeouts {
    /// Every process ready (a node in the graph, the clock ticking).
    pub ready_s: Secs,
    /// The ground station's ready line.
    pub ground_s: Secs,
    /// The whole run (wall clock), bring-up to teardown.
    pub run_s: Secs,
    /// A process to leave after SIGINT before SIGKILL.
    pub shutdown_s: Secs,
}

impl Default for Timeouts {
    fn default() -> Self {
        Timeouts {
            ready_s: Secs(60.0),
            ground_s: Secs(60.0),
            run_s: Secs(900.0),
            shutdown_s: Secs(5.0),
        }
    }
}

/// What is recorded.
#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Record {
    /// Topics (fully qualified) recorded into the MCAP, beside the ones the assertions and
    /// `when` triggers read (always recorded).
    #[serde(default)]
    pub topics: Vec<String>,
    /// Types of recorded topics the runner cannot tell itself (neither in a vehicle's
    /// contract nor one of fieldproof's own): `{ /ugv1/my_topic: std_msgs/msg/String }`.
    #[serde(default)]
    pub types: BTreeMap<String, String>,
}

/// A timeline entry as written (one flat map; which fields apply depends on the action).
#[derive(Debug, Clone, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct RawEntry {
    /// Entry name (default `<action>#<index>`); `after` and assertions refer to it.
    #[serde(default)]
    pub name: Option<String>,
    /// The vehicle it acts on.
    #[serde(default)]
    pub vehicle: Option<String>,
    /// The action.
    pub action: String,
    /// Trigger: simulation time from the timeline's start.
    #[serde(default)]
    pub at: Option<Secs>,
    /// Trigger: when another entry has ended (+ `delay_s`).
    #[serde(default)]
    pub after: Option<String>,
    /// Delay after the `after` entry.
    #[serde(default)]
    pub delay_s: Option<Secs>,
    /// Trigger: the first time a topic condition holds.
    #[serde(default)]
    pub when: Option<RawCondition>,
    /// Trigger: every period from `start_s`.
    #[serde(default)]
    pub every: Option<Secs>,
    /// First firing of `every` (default 0).
    #[serde(default)]
    pub start_s: Option<Secs>,
    /// No `every` firing after this.
    #[serde(default)]
    pub until_s: Option<Secs>,
    /// At most this many `every` firings.
    #[serde(default)]
    pub count: Option<u32>,
    /// How long the fault lasts (then it is cleared / the link restored); battery.drain:
    /// the ramp's duration.
    #[serde(default)]
    pub duration_s: Option<Secs>,
    /// link.set: the profile.
    #[serde(default)]
    pub profile: Option<String>,
    /// sensor.dropout / sensor.freeze: a manifest sensor (`lidar`, `imu`, `gnss`) or drive
    /// interface (`odometry`, `joint_states`, `command`), or `sensor/output`.
    #[serde(default)]
    pub sensor: Option<String>,
    /// imu.bias: rad/s on x, y, z.
    #[serde(default)]
    pub gyro_bias_radps: Option<[f64; 3]>,
    /// imu.bias: m/s² on x, y, z.
    #[serde(default)]
    pub accel_bias_mps2: Option<[f64; 3]>,
    /// gps.offset: metres east, north, up.
    #[serde(default)]
    pub offset_enu_m: Option<[f64; 3]>,
    /// actuator.limit: linear speed cap (0: none).
    #[serde(default)]
    pub max_linear_mps: Option<f64>,
    /// actuator.limit: angular speed cap (0: none).
    #[serde(default)]
    pub max_angular_radps: Option<f64>,
    /// battery.drain: the target charge, 0 to 1.
    #[serde(default)]
    pub to: Option<f64>,
    /// navigate_to: a goal of the world.
    #[serde(default)]
    pub goal: Option<String>,
    /// navigate_to: or a pose.
    #[serde(default)]
    pub pose: Option<PoseSpec>,
    /// process.kill: the node (`goal_driver`, `link_monitor`, an adapter of the bundle).
    #[serde(default)]
    pub node: Option<String>,
    /// process.kill: `TERM` (default), `INT` or `KILL`.
    #[serde(default)]
    pub signal: Option<String>,
}

/// A topic condition as written.
#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct RawCondition {
    /// Fully qualified topic.
    pub topic: String,
    /// Field path in the message (`twist.twist.linear.x`, `ranges[0]`); one or several
    /// (every one must hold).
    pub field: FieldSpec,
    /// `eq`, `ne`, `lt`, `le`, `gt`, `ge`.
    #[serde(default)]
    pub op: Option<String>,
    /// The value compared with (number, bool or string).
    pub value: serde_yaml::Value,
    /// Compare the field's absolute value.
    #[serde(default)]
    pub abs: bool,
}

/// One field or several.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(untagged)]
pub enum FieldSpec {
    /// One field.
    One(String),
    /// Several (all must hold).
    Many(Vec<String>),
}

impl Default for FieldSpec {
    fn default() -> Self {
        FieldSpec::One(String::new())
    }
}

impl FieldSpec {
    fn list(&self) -> Vec<String> {
        match self {
            FieldSpec::One(s) => vec![s.clone()],
            FieldSpec::Many(v) => v.clone(),
        }
    }
}

/// An assertion as written.
#[derive(Debug, Clone, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct RawAssertion {
    /// Assertion name (default `<type>#<index>`).
    #[serde(default)]
    pub name: Option<String>,
    /// `topic_value`, `reached`, `no_collision`, `link_verdicts`, `max_rate`, `min_rate`.
    #[serde(rename = "type")]
    pub kind: String,
    /// topic_value / rates: the topic.
    #[serde(default)]
    pub topic: Option<String>,
    /// topic_value: the field(s).
    #[serde(default)]
    pub field: Option<FieldSpec>,
    /// topic_value: the comparison (default `eq`).
    #[serde(default)]
    pub op: Option<String>,
    /// topic_value: the value.
    #[serde(default)]
    pub value: Option<serde_yaml::Value>,
    /// topic_value: compare the absolute value.
    #[serde(default)]
    pub abs: bool,
    /// topic_value: `always` or `eventually` (default).
    #[serde(default)]
    pub mode: Option<String>,
    /// The entry the window is relative to (default: the timeline's start).
    #[serde(default)]
    pub entry: Option<String>,
    /// `start` (default) or `end` of that entry.
    #[serde(default)]
    pub from: Option<String>,
    /// Window start after the reference (default 0).
    #[serde(default)]
    pub after_s: Option<Secs>,
    /// Window end after the reference (default: the end of the run).
    #[serde(default)]
    pub within_s: Option<Secs>,
    /// reached / no_collision: the vehicle.
    #[serde(default)]
    pub vehicle: Option<String>,
    /// reached: a goal of the world.
    #[serde(default)]
    pub goal: Option<String>,
    /// reached: or a pose.
    #[serde(default)]
    pub pose: Option<PoseSpec>,
    /// reached: the radius (default 1 m).
    #[serde(default)]
    pub radius_m: Option<f64>,
    /// max_rate / min_rate: the bound (Hz).
    #[serde(default)]
    pub hz: Option<f64>,
}

/// Comparison operators.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Op {
    /// `==`
    Eq,
    /// `!=`
    Ne,
    /// `<`
    Lt,
    /// `<=`
    Le,
    /// `>`
    Gt,
    /// `>=`
    Ge,
}

impl Op {
    /// All spellings.
    pub const NAMES: &'static [&'static str] = &["eq", "ne", "lt", "le", "gt", "ge"];

    fn parse(s: &str) -> Option<Op> {
        Some(match s {
            "eq" | "==" => Op::Eq,
            "ne" | "!=" => Op::Ne,
            "lt" | "<" => Op::Lt,
            "le" | "<=" => Op::Le,
            "gt" | ">" => Op::Gt,
            "ge" | ">=" => Op::Ge,
            _ => return None,
        })
    }

    /// The symbol (`<=`).
    pub fn symbol(self) -> &'static str {
        match self {
            Op::Eq => "==",
            Op::Ne => "!=",
            Op::Lt => "<",
            Op::Le => "<=",
            Op::Gt => ">",
            Op::Ge => ">=",
        }
    }
}

/// A comparison value.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum Value {
    /// A number (booleans compare as numbers too: true = 1).
    Number(f64),
    /// A boolean.
    Bool(bool),
    /// A string (eq/ne only).
    Text(String),
}

/// A validated topic condition.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Condition {
    /// Fully qualified topic.
    pub topic: String,
    /// Field paths (all must hold).
    pub fields: Vec<String>,
    /// The comparison.
    pub op: Op,
    /// The value.
    pub value: Value,
    /// Compare absolute values.
    pub abs: bool,
}

/// What starts a timeline entry.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Trigger {
    /// At this simulation time after the timeline's start.
    At(f64),
    /// When entry `entry` (index) has ended, plus `delay_s`.
    After {
        /// The entry's index.
        entry: usize,
        /// Delay (s).
        delay_s: f64,
    },
    /// The first time the condition holds.
    When(Condition),
    /// Every `period_s` from `start_s`, at most `count` times, not after `until_s`.
    Every {
        /// Period (s, above 0).
        period_s: f64,
        /// First firing.
        start_s: f64,
        /// Last allowed firing time.
        until_s: Option<f64>,
        /// Most firings.
        count: Option<u32>,
    },
}

/// A fault on an adapter's parameters.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ParamFault {
    /// The node of the bundle that gets the parameters (`imu_adapter`).
    pub node: String,
    /// The parameters set at the start.
    pub set: Vec<(String, ParamSetting)>,
    /// The parameters set back when the fault ends (`duration_s`).
    pub clear: Vec<(String, ParamSetting)>,
}

/// A parameter value a fault sets.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum ParamSetting {
    /// bool parameter.
    Bool(bool),
    /// double parameter.
    Double(f64),
    /// double array parameter.
    Doubles(Vec<f64>),
}

/// What a timeline entry does.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Action {
    /// `link.set`: the profile from now on.
    LinkSet {
        /// Profile name.
        profile: String,
    },
    /// `link.drop`: 100 % loss; restored after `duration_s` when given.
    LinkDrop,
    /// `link.restore`: the configured profile.
    LinkRestore,
    /// One of the fault events on an adapter (`sensor.dropout`, `imu.bias`, ...).
    Fault {
        /// The action as written.
        action: String,
        /// What it sets.
        fault: ParamFault,
    },
    /// `navigate_to`: a goal for the vehicle's stack.
    NavigateTo {
        /// The goal's name, if a world goal.
        goal: Option<String>,
        /// The pose.
        pose: PoseSpec,
    },
    /// `process.kill`: signal a node of the vehicle.
    ProcessKill {
        /// The node.
        node: String,
        /// The signal (`TERM`, `INT`, `KILL`).
        signal: String,
    },
}

/// A validated timeline entry.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Entry {
    /// Its name.
    pub name: String,
    /// The action as written (`link.drop`).
    pub action_name: String,
    /// The vehicle.
    pub vehicle: Option<String>,
    /// What starts it.
    pub trigger: Trigger,
    /// What it does.
    pub action: Action,
    /// How long it lasts (its end: the fault cleared, the link restored).
    pub duration_s: Option<f64>,
}

/// `always` or `eventually`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    /// Every sample of the window.
    Always,
    /// At least one sample.
    Eventually,
}

/// The reference point of an assertion window.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Window {
    /// The entry (index and name); `None`: the timeline's start.
    pub entry: Option<(usize, String)>,
    /// Relative to the entry's end instead of its start.
    pub from_end: bool,
    /// Window start after the reference.
    pub after_s: f64,
    /// Window end after the reference (`None`: the end of the run).
    pub within_s: Option<f64>,
}

/// What an assertion checks.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "snake_case", tag = "type")]
pub enum Check {
    /// A field compared with a value.
    TopicValue {
        /// The condition.
        condition: Condition,
        /// always / eventually.
        mode: Mode,
    },
    /// The vehicle within `radius_m` of the goal (its truth pose).
    Reached {
        /// The vehicle.
        vehicle: String,
        /// The goal's name.
        goal: Option<String>,
        /// The goal.
        pose: PoseSpec,
        /// Radius (m).
        radius_m: f64,
    },
    /// No collision of the vehicle (or of any vehicle).
    NoCollision {
        /// The vehicle (`None`: all).
        vehicle: Option<String>,
    },
    /// Every link period passed (or was insufficient).
    LinkVerdicts,
    /// The topic's rate in the window at most `hz`.
    MaxRate {
        /// Topic.
        topic: String,
        /// Bound (Hz).
        hz: f64,
    },
    /// The topic's rate in the window at least `hz`.
    MinRate {
        /// Topic.
        topic: String,
        /// Bound (Hz).
        hz: f64,
    },
    /// The fields keep one value through the window (a frozen sensor), over at least two
    /// samples.
    Unchanged {
        /// Topic.
        topic: String,
        /// Fields.
        fields: Vec<String>,
    },
}

/// A validated assertion.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Assertion {
    /// Its name.
    pub name: String,
    /// What it checks.
    pub check: Check,
    /// When.
    pub window: Window,
}

/// A validated vehicle, with its manifest loaded.
#[derive(Debug, Clone)]
pub struct Vehicle {
    /// Its name.
    pub name: String,
    /// ROS namespace (no slashes).
    pub namespace: String,
    /// Absolute manifest path.
    pub manifest_path: PathBuf,
    /// The manifest.
    pub manifest: Manifest,
    /// Spawn frame.
    pub spawn: Option<String>,
    /// Spawn pose (from the frame or written).
    pub pose: PoseSpec,
    /// The stack.
    pub stack: Stack,
    /// Whether `link_monitor` runs between the stack and the base.
    pub failsafe: bool,
    /// The topic the stack publishes its velocity commands on (relative to the namespace).
    pub stack_cmd_vel: String,
    /// The bridge bundle plan (in memory; written at run time).
    pub bundle: fieldproof_bridge::gen::Bundle,
}

impl Vehicle {
    /// Its topics' prefix: `/<namespace>`, or empty without a namespace.
    pub fn topic_prefix(&self) -> String {
        if self.namespace.is_empty() {
            String::new()
        } else {
            format!("/{}", self.namespace)
        }
    }
}

/// A vehicle's stack, resolved.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum Stack {
    /// The example stack (`fieldproof_stack goal_driver`).
    GoalDriver,
    /// Nothing (the scenario drives the vehicle itself, or tests the bridge alone).
    None,
    /// An installed executable.
    Executable {
        /// Package.
        package: String,
        /// Executable.
        executable: String,
    },
    /// A launch file.
    Launch {
        /// Absolute path.
        file: PathBuf,
        /// Arguments.
        args: BTreeMap<String, String>,
    },
    /// A command.
    Command {
        /// argv.
        argv: Vec<String>,
    },
}

/// A validated scenario, ready to run.
#[derive(Debug, Clone)]
pub struct Scenario {
    /// The file.
    pub file: PathBuf,
    /// As written.
    pub raw: RawScenario,
    /// The world.
    pub world: World,
    /// The vehicles.
    pub vehicles: Vec<Vehicle>,
    /// The network.
    pub network: Option<Network>,
    /// The timeline.
    pub timeline: Vec<Entry>,
    /// The assertions.
    pub assertions: Vec<Assertion>,
    /// Simulation time the timeline runs.
    pub duration_s: f64,
    /// Every topic recorded (record.topics + what assertions and triggers read + the
    /// runner's own) with its ROS type, sorted by topic.
    pub recorded_topics: BTreeMap<String, String>,
}

/// The shortest period of an `every` trigger (10 ms): each firing runs an action.
pub const MIN_EVERY_PERIOD_S: f64 = 0.01;

/// The most firings an `every` entry may have in a run (its count, or what its period,
/// `start_s`, `until_s` and the scenario's `duration_s` allow).
pub const MAX_EVERY_FIRINGS: u64 = 100_000;

/// Every action the timeline knows.
pub const ACTIONS: &[&str] = &[
    "link.set",
    "link.drop",
    "link.restore",
    "sensor.dropout",
    "sensor.freeze",
    "imu.bias",
    "gps.deny",
    "gps.offset",
    "actuator.limit",
    "battery.drain",
    "navigate_to",
    "process.kill",
];

/// Every assertion type.
pub const ASSERTION_TYPES: &[&str] = &[
    "topic_value",
    "reached",
    "no_collision",
    "link_verdicts",
    "max_rate",
    "min_rate",
    "unchanged",
];

/// The collision topic of the simulator.
pub const COLLISIONS_TOPIC: &str = "/fieldproof/truth/collisions";

/// The truth pose topic of a vehicle (namespace label).
pub fn truth_topic(label: &str) -> String {
    format!("/fieldproof/truth/{label}/pose")
}

struct Ctx<'a> {
    file: &'a Path,
}

impl Ctx<'_> {
    fn err(&self, path: impl Into<String>, message: impl Into<String>) -> ScenarioError {
        ScenarioError::Field {
            file: self.file.to_path_buf(),
            path: path.into(),
            message: message.into(),
        }
    }
}

/// The topic a stack publishes its velocity commands on when a failsafe follows it.
pub const DEFAULT_STACK_CMD_VEL: &str = "cmd_vel_nav";

/// A relative ROS topic name: segments of `[A-Za-z0-9_]`, not starting with a digit.
fn is_topic_name(s: &str) -> bool {
    !s.is_empty()
        && s.split('/').all(|seg| {
            !seg.is_empty()
                && seg.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
                && !seg.starts_with(|c: char| c.is_ascii_digit())
        })
}

fn is_name(s: &str) -> bool {
    !s.is_empty()
        && s.len() <= 32
        && s.chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
        && !s.starts_with(|c: char| c.is_ascii_digit())
}

fn topic_ok(t: &str) -> bool {
    t.starts_with('/')
        && t.len() > 1
        && !t.ends_with('/')
        && !t.contains("//")
        && t.chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '/')
}

fn value_of(ctx: &Ctx, path: &str, v: &serde_yaml::Value) -> Result<Value, ScenarioError> {
    match v {
        serde_yaml::Value::Bool(b) => Ok(Value::Bool(*b)),
        serde_yaml::Value::Number(n) => n
            .as_f64()
            .filter(|x| x.is_finite())
            .map(Value::Number)
            .ok_or_else(|| ctx.err(path, format!("{n} is not a finite number"))),
        serde_yaml::Value::String(s) => Ok(Value::Text(s.clone())),
        other => Err(ctx.err(
            path,
            format!("{other:?} is not a number, a boolean or a string"),
        )),
    }
}

fn condition(
    ctx: &Ctx,
    path: &str,
    topic: &str,
    fields: &FieldSpec,
    op: Option<&str>,
    value: &serde_yaml::Value,
    abs: bool,
) -> Result<Condition, ScenarioError> {
    if !topic_ok(topic) {
        return Err(ctx.err(
            format!("{path}.topic"),
            format!("\"{topic}\" is not a fully qualified topic name (/ns/name)"),
        ));
    }
    let list = fields.list();
    if list.is_empty() {
        return Err(ctx.err(format!("{path}.field"), "needs at least one field"));
    }
    for f in &list {
        if crate::store::parse_field(f).is_none() {
            return Err(ctx.err(
                format!("{path}.field"),
                format!("\"{f}\" is not a field path (a.b.c, ranges[0])"),
            ));
        }
    }
    let op = match op {
        None => Op::Eq,
        Some(s) => Op::parse(s).ok_or_else(|| {
            ctx.err(
                format!("{path}.op"),
                format!("\"{s}\" is not one of {}", Op::NAMES.join(", ")),
            )
        })?,
    };
    let value = value_of(ctx, &format!("{path}.value"), value)?;
    if matches!(value, Value::Text(_)) && !matches!(op, Op::Eq | Op::Ne) {
        return Err(ctx.err(
            format!("{path}.op"),
            format!("\"{}\" does not compare strings (eq, ne)", op.symbol()),
        ));
    }
    Ok(Condition {
        topic: topic.to_string(),
        fields: list,
        op,
        value,
        abs,
    })
}

/// Parses YAML text into the raw model; errors carry the field path. Text larger than
/// [`yaml_guard::MAX_BYTES`] or nested deeper than [`yaml_guard::MAX_DEPTH`] is refused
/// before it is parsed.
pub fn parse_raw(file: &Path, text: &str) -> Result<RawScenario, ScenarioError> {
    let ctx = Ctx { file };
    yaml_guard::check(text).map_err(|source| ScenarioError::Refused {
        file: file.to_path_buf(),
        source,
    })?;
    let de = serde_yaml::Deserializer::from_str(text);
    serde_path_to_error::deserialize(de).map_err(|e| {
        let path = e.path().to_string();
        let path = if path == "." { String::new() } else { path };
        let inner = e.into_inner().to_string();
        // serde_yaml prefixes its own (shorter) path: keep one.
        let inner = match inner.split_once(": ") {
            Some((head, rest)) if !head.contains(' ') && path.starts_with(head) => rest.to_string(),
            _ => inner,
        };
        ctx.err(path, inner)
    })
}

/// Reads and validates a scenario file: the raw model, the world, every manifest, the
/// network, the timeline, the assertions. Nothing is created.
pub fn load(file: &Path) -> Result<Scenario, ScenarioError> {
    let text = read_bounded(file)?;
    let file = std::fs::canonicalize(file).unwrap_or_else(|_| file.to_path_buf());
    let raw = parse_raw(&file, &text)?;
    validate(&file, raw)
}

/// Reads a scenario file through [`yaml_guard::read_file`] (bounded, checked before parsing).
fn read_bounded(file: &Path) -> Result<String, ScenarioError> {
    yaml_guard::read_file(file).map_err(|e| match e {
        yaml_guard::ReadError::Io(source) => ScenarioError::Read {
            file: file.to_path_buf(),
            source,
        },
        yaml_guard::ReadError::Refused(source) => ScenarioError::Refused {
            file: file.to_path_buf(),
            source,
        },
    })
}

/// Validates a raw scenario (`file` locates relative paths and names errors).
pub fn validate(file: &Path, raw: RawScenario) -> Result<Scenario, ScenarioError> {
    let ctx = Ctx { file };
    let dir = file.parent().unwrap_or(Path::new(".")).to_path_buf();
    let rel = |p: &Path| {
        let p = if p.is_absolute() {
            p.to_path_buf()
        } else {
            dir.join(p)
        };
        std::fs::canonicalize(&p).unwrap_or(p)
    };
    if !is_name(&raw.name) {
        return Err(ctx.err(
            "name",
            format!(
                "\"{}\" must be 1 to 32 of [a-z0-9_], starting with a letter",
                raw.name
            ),
        ));
    }
    if let Some(r) = raw.real_time_factor {
        if !(r.is_finite() && (0.0..=1000.0).contains(&r)) {
            return Err(ctx.err("real_time_factor", format!("{r} is not in 0 to 1000")));
        }
    }
    let duration_s = raw.duration_s.map(Secs::get).unwrap_or(60.0);
    if duration_s <= 0.0 {
        return Err(ctx.err("duration_s", format!("{duration_s} must be above 0")));
    }
    check_timeouts(&ctx, &raw.timeouts)?;
    let world = World::load(rel(&raw.world)).map_err(|e| ScenarioError::Robots {
        path: "world".into(),
        source: e,
    })?;

    // Vehicles.
    if raw.vehicles.is_empty() {
        return Err(ctx.err("vehicles", "needs at least one vehicle"));
    }
    let mut vehicles = Vec::new();
    let mut names = BTreeSet::new();
    let mut namespaces = BTreeSet::new();
    for (i, v) in raw.vehicles.iter().enumerate() {
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
        let pose = match (&v.spawn, &v.pose) {
            (Some(_), Some(_)) => {
                return Err(ctx.err(format!("{p}.pose"), "give spawn or pose, not both"))
            }
            (Some(f), None) => match world.frames.get(f) {
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
                check_pose(&ctx, &format!("{p}.pose"), pose)?;
                *pose
            }
            (None, None) => {
                return Err(ctx.err(
                    format!("{p}.spawn"),
                    "missing (a frame of the world, or pose)",
                ))
            }
        };
        let stack = stack(&ctx, &p, v.stack.as_ref(), &rel)?;
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
            check_loss_action(&ctx, &p, &manifest, &stack)?;
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
        vehicles.push(Vehicle {
            name: v.name.clone(),
            namespace: ns,
            manifest_path,
            manifest,
            spawn: v.spawn.clone(),
            pose,
            stack,
            failsafe,
            stack_cmd_vel,
            bundle,
        });
    }

    // Network.
    let network = match &raw.network {
        None => None,
        Some(sec) => {
            for (veh, _) in sec.links.iter() {
                if !names.contains(veh) {
                    return Err(ctx.err(
                        format!("network.links.{veh}"),
                        format!("\"{veh}\" is not a vehicle of the scenario"),
                    ));
                }
            }
            Some(
                Network::new(sec.clone(), &presets(), "network")
                    .map_err(|e| profile_err(&ctx, e))?,
            )
        }
    };

    // Timeline.
    let mut entry_names: BTreeMap<String, usize> = BTreeMap::new();
    for (i, e) in raw.timeline.iter().enumerate() {
        let name = e
            .name
            .clone()
            .unwrap_or_else(|| format!("{}#{i}", e.action));
        if e.name.is_some() && !is_name(&name) {
            return Err(ctx.err(
                format!("timeline[{i}].name"),
                format!("\"{name}\" must be 1 to 32 of [a-z0-9_], starting with a letter"),
            ));
        }
        if entry_names.insert(name.clone(), i).is_some() {
            return Err(ctx.err(
                format!("timeline[{i}].name"),
                format!("\"{name}\" is used twice"),
            ));
        }
    }
    let mut timeline = Vec::new();
    for (i, e) in raw.timeline.iter().enumerate() {
        timeline.push(entry(
            &ctx,
            i,
            e,
            &entry_names,
            &vehicles,
            &world,
            network.as_ref(),
        )?);
    }
    check_after_cycles(&ctx, &timeline)?;
    check_every_firings(&ctx, &timeline, duration_s)?;

    // Assertions.
    let mut assertions = Vec::new();
    let mut anames = BTreeSet::new();
    for (i, a) in raw.assertions.iter().enumerate() {
        let asr = assertion(
            &ctx,
            i,
            a,
            &entry_names,
            &vehicles,
            &world,
            network.is_some(),
        )?;
        if !anames.insert(asr.name.clone()) {
            return Err(ctx.err(
                format!("assertions[{i}].name"),
                format!("\"{}\" is used twice", asr.name),
            ));
        }
        assertions.push(asr);
    }

    // Recorded topics.
    let mut topics: BTreeSet<String> = BTreeSet::new();
    for (i, t) in raw.record.topics.iter().enumerate() {
        if !topic_ok(t) {
            return Err(ctx.err(
                format!("record.topics[{i}]"),
                format!("\"{t}\" is not a fully qualified topic name (/ns/name)"),
            ));
        }
        topics.insert(t.clone());
    }
    for e in &timeline {
        if let Trigger::When(c) = &e.trigger {
            topics.insert(c.topic.clone());
        }
    }
    for a in &assertions {
        match &a.check {
            Check::TopicValue { condition, .. } => {
                topics.insert(condition.topic.clone());
            }
            Check::MaxRate { topic, .. }
            | Check::MinRate { topic, .. }
            | Check::Unchanged { topic, .. } => {
                topics.insert(topic.clone());
            }
            _ => {}
        }
    }
    for v in &vehicles {
        topics.insert(truth_topic(&label(v)));
        // The report plots every vehicle's speed, and its link state behind a link.
        let ns = v.topic_prefix();
        let odom = &v.manifest.drive.odometry.ros_topic;
        if !odom.starts_with('/') {
            topics.insert(format!("{ns}/{odom}"));
        }
        if network.is_some()
            && v.manifest
                .runtime
                .as_ref()
                .and_then(|r| r.link.as_ref())
                .is_some()
        {
            topics.insert(format!("{ns}/link_state"));
        }
        if let Some(hb) = heartbeat_topic(v).filter(|_| network.is_some()) {
            topics.insert(hb);
        }
    }
    topics.insert(COLLISIONS_TOPIC.to_string());
    if network.is_some() {
        topics.insert(NETWORK_TOPIC.to_string());
    }
    for (t, ty) in &raw.record.types {
        let path = format!("record.types.{t}");
        if !topic_ok(t) {
            return Err(ctx.err(
                path,
                format!("\"{t}\" is not a fully qualified topic name (/ns/name)"),
            ));
        }
        if !fieldproof_msgs::is_known_type(ty) {
            return Err(ctx.err(
                path,
                format!("\"{ty}\" is not a message type fieldproof knows"),
            ));
        }
        if !topics.contains(t) {
            return Err(ctx.err(
                path,
                format!("{t} is not recorded: add it to record.topics, or remove its type"),
            ));
        }
    }
    let known = known_types(&vehicles, network.is_some());
    let mut recorded = BTreeMap::new();
    for t in topics {
        let ty = raw
            .record
            .types
            .get(&t)
            .cloned()
            .or_else(|| known.get(&t).cloned());
        match ty {
            Some(ty) if fieldproof_msgs::is_known_type(&ty) => {
                recorded.insert(t, ty);
            }
            Some(ty) => {
                return Err(ctx.err(
                    format!("record.types.{t}"),
                    format!("\"{ty}\" is not a message type fieldproof knows"),
                ))
            }
            None => {
                return Err(ctx.err(
                    "record.types",
                    format!("the type of {t} is unknown (not in a vehicle's contract nor one of fieldproof's topics): give it under record.types"),
                ))
            }
        }
    }

    Ok(Scenario {
        file: file.to_path_buf(),
        raw,
        world,
        vehicles,
        network,
        timeline,
        assertions,
        duration_s,
        recorded_topics: recorded,
    })
}

/// The topics whose types the runner knows: every vehicle's contract, the stack's and the
/// failsafe's topics, the simulator's truth and the run's own.
pub fn known_types(vehicles: &[Vehicle], network: bool) -> BTreeMap<String, String> {
    let mut m = BTreeMap::new();
    for v in vehicles {
        for t in &v.bundle.contract.topics {
            m.insert(t.topic.clone(), t.ros_type.clone());
        }
        let ns = v.topic_prefix();
        m.insert(
            format!("{ns}/{}", v.stack_cmd_vel),
            "geometry_msgs/msg/Twist".to_string(),
        );
        for (t, ty) in [
            ("link_state", "std_msgs/msg/Bool"),
            (DEFAULT_STACK_CMD_VEL, "geometry_msgs/msg/Twist"),
            ("goal_pose", "geometry_msgs/msg/PoseStamped"),
            ("goal_reached", "std_msgs/msg/Bool"),
        ] {
            m.insert(format!("{ns}/{t}"), ty.to_string());
        }
        // Where the ground station publishes it (an absolute topic stays absolute).
        if let Some(hb) = heartbeat_topic(v) {
            m.insert(hb, "std_msgs/msg/Header".into());
        }
        m.insert(
            truth_topic(&label(v)),
            "geometry_msgs/msg/PoseStamped".into(),
        );
    }
    m.insert(COLLISIONS_TOPIC.into(), "std_msgs/msg/String".into());
    m.insert("/clock".into(), "rosgraph_msgs/msg/Clock".into());
    if network {
        m.insert(NETWORK_TOPIC.into(), "std_msgs/msg/String".into());
    }
    m
}

/// The `link_state` topic of the vehicle's failsafe (`link_monitor`), when it runs one:
/// its manifest has `runtime.link` and `failsafe` is not off.
pub fn failsafe_state_topic(v: &Vehicle) -> Option<String> {
    v.manifest
        .runtime
        .as_ref()?
        .link
        .as_ref()
        .filter(|_| v.failsafe)?;
    let ns = v.topic_prefix();
    Some(format!("{ns}/link_state"))
}

/// The heartbeat the vehicle's manifest asks for (`runtime.link.heartbeat`), if any.
pub fn heartbeat(v: &Vehicle) -> Option<&fieldproof_robots::manifest::Heartbeat> {
    v.manifest
        .runtime
        .as_ref()?
        .link
        .as_ref()?
        .heartbeat
        .as_ref()
}

/// The vehicle's heartbeat topic, fully qualified, if its manifest asks for one.
pub fn heartbeat_topic(v: &Vehicle) -> Option<String> {
    let hb = heartbeat(v)?;
    // As ROS resolves it: an absolute topic stays as it is, a relative one goes under the
    // vehicle's namespace (what link_monitor subscribes and the ground station publishes).
    Some(match hb.topic.strip_prefix('/') {
        Some(absolute) => format!("/{absolute}"),
        None => format!("{}/{}", v.topic_prefix(), hb.topic),
    })
}

/// The topic the ground station's measurement windows are recorded on.
pub const NETWORK_TOPIC: &str = "/fieldproof/network";

/// The simulator's label of a vehicle (its namespace, or its name without one).
pub fn label(v: &Vehicle) -> String {
    if v.namespace.is_empty() {
        v.name.clone()
    } else {
        v.namespace.clone()
    }
}

fn profile_err(ctx: &Ctx, e: fieldproof_link::profile::ProfileError) -> ScenarioError {
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

fn check_pose(ctx: &Ctx, path: &str, p: &PoseSpec) -> Result<(), ScenarioError> {
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
                if let Some(reserved) = ["namespace", "cmd_vel"]
                    .into_iter()
                    .find(|k| c.args.contains_key(*k))
                {
                    return Err(ctx.err(
                        format!("{p}.stack.args.{reserved}"),
                        "is set by the runner (the vehicle's namespace; stack.cmd_vel)",
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

/// The fields each action takes beside `name`, `vehicle`, `action` and the triggers.
fn action_fields(action: &str) -> &'static [&'static str] {
    match action {
        "link.set" => &["profile"],
        "link.drop" => &["duration_s"],
        "link.restore" => &[],
        "sensor.dropout" | "sensor.freeze" => &["sensor", "duration_s"],
        "imu.bias" => &["gyro_bias_radps", "accel_bias_mps2", "duration_s", "sensor"],
        "gps.deny" => &["duration_s", "sensor"],
        "gps.offset" => &["offset_enu_m", "duration_s", "sensor"],
        "actuator.limit" => &["max_linear_mps", "max_angular_radps", "duration_s"],
        "battery.drain" => &["to", "duration_s"],
        "navigate_to" => &["goal", "pose"],
        "process.kill" => &["node", "signal"],
        _ => &[],
    }
}

fn present_action_fields(e: &RawEntry) -> Vec<&'static str> {
    let mut v = Vec::new();
    macro_rules! has {
        ($($f:ident),*) => { $( if e.$f.is_some() { v.push(stringify!($f)); } )* };
    }
    has!(
        duration_s,
        profile,
        sensor,
        gyro_bias_radps,
        accel_bias_mps2,
        offset_enu_m,
        max_linear_mps,
        max_angular_radps,
        to,
        goal,
        pose,
        node,
        signal
    );
    v
}

fn entry(
    ctx: &Ctx,
    i: usize,
    e: &RawEntry,
    names: &BTreeMap<String, usize>,
    vehicles: &[Vehicle],
    world: &World,
    network: Option<&Network>,
) -> Result<Entry, ScenarioError> {
    let p = format!("timeline[{i}]");
    let f = |k: &str| format!("{p}.{k}");
    let a = e.action.as_str();
    if !ACTIONS.contains(&a) {
        return Err(ctx.err(
            f("action"),
            format!("\"{a}\" is not one of {}", ACTIONS.join(", ")),
        ));
    }
    for field in present_action_fields(e) {
        if !action_fields(a).contains(&field) {
            return Err(ctx.err(f(field), format!("is not a field of {a}")));
        }
    }
    let name = e.name.clone().unwrap_or_else(|| format!("{a}#{i}"));

    // Trigger: exactly one.
    let mut triggers = Vec::new();
    if e.at.is_some() {
        triggers.push("at");
    }
    if e.after.is_some() {
        triggers.push("after");
    }
    if e.when.is_some() {
        triggers.push("when");
    }
    if e.every.is_some() {
        triggers.push("every");
    }
    if triggers.len() != 1 {
        return Err(ctx.err(
            p.clone(),
            if triggers.is_empty() {
                "needs a trigger: one of at, after, when, every".to_string()
            } else {
                format!("has {} triggers, give one", triggers.join(" and "))
            },
        ));
    }
    if e.delay_s.is_some() && e.after.is_none() {
        return Err(ctx.err(f("delay_s"), "only an after trigger takes delay_s"));
    }
    for (k, set) in [
        ("start_s", e.start_s.is_some()),
        ("until_s", e.until_s.is_some()),
        ("count", e.count.is_some()),
    ] {
        if set && e.every.is_none() {
            return Err(ctx.err(f(k), format!("only an every trigger takes {k}")));
        }
    }
    let trigger = if let Some(at) = e.at {
        Trigger::At(at.get())
    } else if let Some(other) = &e.after {
        let Some(&j) = names.get(other) else {
            return Err(ctx.err(
                f("after"),
                format!(
                    "\"{other}\" is not an entry of the timeline (entries: {})",
                    names.keys().cloned().collect::<Vec<_>>().join(", ")
                ),
            ));
        };
        if j == i {
            return Err(ctx.err(f("after"), format!("\"{other}\" is this entry")));
        }
        Trigger::After {
            entry: j,
            delay_s: e.delay_s.map(Secs::get).unwrap_or(0.0),
        }
    } else if let Some(c) = &e.when {
        Trigger::When(condition(
            ctx,
            &f("when"),
            &c.topic,
            &c.field,
            c.op.as_deref(),
            &c.value,
            c.abs,
        )?)
    } else {
        let period = e.every.expect("one trigger").get();
        if period < MIN_EVERY_PERIOD_S {
            return Err(ctx.err(
                f("every"),
                format!(
                    "{} s is below the minimum period of {MIN_EVERY_PERIOD_S} s (10 ms)",
                    duration::display(period)
                ),
            ));
        }
        if e.count == Some(0) {
            return Err(ctx.err(f("count"), "0 must be at least 1"));
        }
        Trigger::Every {
            period_s: period,
            start_s: e.start_s.map(Secs::get).unwrap_or(0.0),
            until_s: e.until_s.map(Secs::get),
            count: e.count,
        }
    };

    // Vehicle.
    let vehicle = match &e.vehicle {
        Some(v) => match vehicles.iter().find(|x| &x.name == v) {
            Some(x) => Some(x),
            None => {
                return Err(ctx.err(
                    f("vehicle"),
                    format!(
                        "\"{v}\" is not a vehicle of the scenario (vehicles: {})",
                        vehicles
                            .iter()
                            .map(|x| x.name.as_str())
                            .collect::<Vec<_>>()
                            .join(", ")
                    ),
                ))
            }
        },
        None if vehicles.len() == 1 => Some(&vehicles[0]),
        None => return Err(ctx.err(f("vehicle"), "missing (the scenario has several vehicles)")),
    };
    let veh = vehicle.expect("resolved");
    let duration_s = e.duration_s.map(Secs::get);
    if a.starts_with("link.") && network.is_none() {
        return Err(ctx.err(f("action"), format!("\"{a}\" needs a network section")));
    }
    let need = |k: &str| ctx.err(f(k), format!("missing (required by {a})"));
    let injector = |serves: &dyn Fn(&fieldproof_bridge::gen::Serves) -> bool,
                    what: &str|
     -> Result<String, ScenarioError> {
        veh.bundle
            .nodes
            .iter()
            .find(|n| n.injector.as_ref().is_some_and(|inj| serves(&inj.serves)))
            .map(|n| n.name.clone())
            .ok_or_else(|| {
                ctx.err(
                    f("action"),
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
    };
    use fieldproof_bridge::gen::Serves;
    let sensor_of_type = |ty: &str| -> Option<String> {
        veh.manifest
            .sensors
            .iter()
            .find(|s| format!("{:?}", s.kind).eq_ignore_ascii_case(ty))
            .map(|s| s.name.clone())
    };
    let typed_sensor = |ty: &str, what: &str| -> Result<String, ScenarioError> {
        let sensor = match &e.sensor {
            Some(s) => s.clone(),
            None => sensor_of_type(ty).ok_or_else(|| {
                ctx.err(
                    f("vehicle"),
                    format!("vehicle {} has no {what} sensor", veh.name),
                )
            })?,
        };
        injector(
            &|s| matches!(s, Serves::Sensor { sensor: n, .. } if *n == sensor),
            &format!("sensor {sensor}"),
        )
    };
    let fault = |node: String, set: Vec<(&str, ParamSetting)>, clear: Vec<(&str, ParamSetting)>| {
        Action::Fault {
            action: a.to_string(),
            fault: ParamFault {
                node,
                set: set.into_iter().map(|(k, v)| (k.to_string(), v)).collect(),
                clear: if duration_s.is_some() {
                    clear.into_iter().map(|(k, v)| (k.to_string(), v)).collect()
                } else {
                    Vec::new()
                },
            },
        }
    };
    let vec3 = |k: &str, v: Option<[f64; 3]>| -> Result<Vec<f64>, ScenarioError> {
        let v = v.unwrap_or([0.0; 3]);
        if v.iter().any(|x| !x.is_finite()) {
            return Err(ctx.err(f(k), format!("{v:?} must be finite")));
        }
        Ok(v.to_vec())
    };
    let action = match a {
        "link.set" => {
            let profile = e.profile.clone().ok_or_else(|| need("profile"))?;
            network
                .expect("checked")
                .lookup(&profile, &f("profile"))
                .map_err(|e| profile_err(ctx, e))?;
            Action::LinkSet { profile }
        }
        "link.drop" => Action::LinkDrop,
        "link.restore" => Action::LinkRestore,
        "sensor.dropout" | "sensor.freeze" => {
            let sensor = e.sensor.clone().ok_or_else(|| need("sensor"))?;
            let (s, out) = match sensor.split_once('/') {
                Some((s, o)) => (s.to_string(), Some(o.to_string())),
                None => (sensor.clone(), None),
            };
            let node = injector(
                &|sv| match sv {
                    Serves::Sensor { sensor: n, output } => {
                        *n == s && out.as_ref().is_none_or(|o| o == output)
                    }
                    Serves::Drive(d) => out.is_none() && *d == s,
                    Serves::Battery => out.is_none() && s == "battery",
                },
                &format!("sensor {sensor}"),
            )?;
            let param = if a == "sensor.dropout" {
                "dropout"
            } else {
                "freeze"
            };
            fault(
                node,
                vec![(param, ParamSetting::Bool(true))],
                vec![(param, ParamSetting::Bool(false))],
            )
        }
        "imu.bias" => {
            if e.gyro_bias_radps.is_none() && e.accel_bias_mps2.is_none() {
                return Err(need("gyro_bias_radps"));
            }
            let node = typed_sensor("imu", "imu")?;
            let g = vec3("gyro_bias_radps", e.gyro_bias_radps)?;
            let acc = vec3("accel_bias_mps2", e.accel_bias_mps2)?;
            fault(
                node,
                vec![
                    ("gyro_bias_radps", ParamSetting::Doubles(g)),
                    ("accel_bias_mps2", ParamSetting::Doubles(acc)),
                ],
                vec![
                    ("gyro_bias_radps", ParamSetting::Doubles(vec![0.0; 3])),
                    ("accel_bias_mps2", ParamSetting::Doubles(vec![0.0; 3])),
                ],
            )
        }
        "gps.deny" => {
            let node = typed_sensor("gnss", "gnss")?;
            fault(
                node,
                vec![("deny", ParamSetting::Bool(true))],
                vec![("deny", ParamSetting::Bool(false))],
            )
        }
        "gps.offset" => {
            let o = vec3(
                "offset_enu_m",
                Some(e.offset_enu_m.ok_or_else(|| need("offset_enu_m"))?),
            )?;
            let node = typed_sensor("gnss", "gnss")?;
            fault(
                node,
                vec![("offset_enu_m", ParamSetting::Doubles(o))],
                vec![("offset_enu_m", ParamSetting::Doubles(vec![0.0; 3]))],
            )
        }
        "actuator.limit" => {
            if e.max_linear_mps.is_none() && e.max_angular_radps.is_none() {
                return Err(need("max_linear_mps"));
            }
            let mut set = Vec::new();
            let mut clear = Vec::new();
            for (k, v) in [
                ("max_linear_mps", e.max_linear_mps),
                ("max_angular_radps", e.max_angular_radps),
            ] {
                if let Some(v) = v {
                    if !(v.is_finite() && (0.0..=100.0).contains(&v)) {
                        return Err(ctx.err(f(k), format!("{v} is not in 0 to 100")));
                    }
                    set.push((k, ParamSetting::Double(v)));
                    clear.push((k, ParamSetting::Double(0.0)));
                }
            }
            let node = injector(
                &|s| matches!(s, Serves::Drive(d) if d == "command"),
                "the drive command",
            )?;
            fault(node, set, clear)
        }
        "battery.drain" => {
            let to = e.to.ok_or_else(|| need("to"))?;
            if !(to.is_finite() && (0.0..=1.0).contains(&to)) {
                return Err(ctx.err(f("to"), format!("{to} is not in 0 to 1")));
            }
            let node = injector(&|s| matches!(s, Serves::Battery), "the battery")?;
            let ramp = duration_s.unwrap_or(0.0);
            let set = if ramp > 0.0 {
                vec![
                    ("drain_to", ParamSetting::Double(to)),
                    ("drain_duration_s", ParamSetting::Double(ramp)),
                ]
            } else {
                vec![("percentage", ParamSetting::Double(to))]
            };
            // The drain's duration is its ramp: nothing is set back at its end.
            Action::Fault {
                action: a.to_string(),
                fault: ParamFault {
                    node,
                    set: set.into_iter().map(|(k, v)| (k.to_string(), v)).collect(),
                    clear: Vec::new(),
                },
            }
        }
        "navigate_to" => {
            let (goal, pose) = match (&e.goal, &e.pose) {
                (Some(g), None) => match world.goals.get(g).or_else(|| world.frames.get(g)) {
                    Some(p) => (
                        Some(g.clone()),
                        PoseSpec {
                            xyz: p.xyz,
                            yaw_deg: p.yaw_deg,
                        },
                    ),
                    None => {
                        return Err(ctx.err(
                            f("goal"),
                            format!(
                                "\"{g}\" is not a goal of world {} (goals: {})",
                                world.name,
                                world.goals.keys().cloned().collect::<Vec<_>>().join(", ")
                            ),
                        ))
                    }
                },
                (None, Some(p)) => {
                    check_pose(ctx, &f("pose"), p)?;
                    (None, *p)
                }
                (Some(_), Some(_)) => return Err(ctx.err(f("pose"), "give goal or pose, not both")),
                (None, None) => return Err(need("goal")),
            };
            Action::NavigateTo { goal, pose }
        }
        "process.kill" => {
            let node = e.node.clone().ok_or_else(|| need("node"))?;
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
            if !known.contains(&node) {
                return Err(ctx.err(
                    f("node"),
                    format!(
                        "\"{node}\" is not a node of vehicle {} (nodes: {})",
                        veh.name,
                        known.join(", ")
                    ),
                ));
            }
            let signal = e.signal.clone().unwrap_or_else(|| "TERM".into());
            if !["TERM", "INT", "KILL"].contains(&signal.as_str()) {
                return Err(ctx.err(
                    f("signal"),
                    format!("\"{signal}\" is not one of TERM, INT, KILL"),
                ));
            }
            Action::ProcessKill { node, signal }
        }
        _ => unreachable!("checked against ACTIONS"),
    };
    Ok(Entry {
        name,
        action_name: a.to_string(),
        vehicle: Some(veh.name.clone()),
        trigger,
        action,
        duration_s,
    })
}

/// Every timeout above 0 (the upper bound is every duration's, [`duration::MAX_DURATION_S`]).
fn check_timeouts(ctx: &Ctx, t: &Timeouts) -> Result<(), ScenarioError> {
    for (name, value) in [
        ("ready_s", t.ready_s),
        ("ground_s", t.ground_s),
        ("run_s", t.run_s),
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

/// How a stack is named in messages.
fn stack_name(stack: &Stack) -> String {
    match stack {
        Stack::GoalDriver => "goal_driver".into(),
        Stack::None => "none".into(),
        Stack::Executable {
            package,
            executable,
        } => format!("{package}/{executable}"),
        Stack::Launch { file, .. } => file.display().to_string(),
        Stack::Command { argv } => argv.first().cloned().unwrap_or_default(),
    }
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
                stack_name(stack)
            ),
        ));
    }
    Ok(())
}

/// How many times an `every` entry can fire before the timeline ends, at most
/// [`MAX_EVERY_FIRINGS`].
fn check_every_firings(
    ctx: &Ctx,
    timeline: &[Entry],
    duration_s: f64,
) -> Result<(), ScenarioError> {
    for (i, e) in timeline.iter().enumerate() {
        let Trigger::Every {
            period_s,
            start_s,
            until_s,
            count,
        } = e.trigger
        else {
            continue;
        };
        let last_s = until_s.map_or(duration_s, |u| u.min(duration_s));
        let by_time = if last_s < start_s {
            0.0
        } else {
            ((last_s - start_s) / period_s).floor() + 1.0
        };
        let firings = count.map_or(by_time, |c| by_time.min(f64::from(c)));
        if firings > MAX_EVERY_FIRINGS as f64 {
            return Err(ctx.err(
                format!("timeline[{i}].every"),
                format!(
                    "{} s from {} s to {} s fires {firings} times, more than {MAX_EVERY_FIRINGS}: give a count, an until_s or a longer period",
                    duration::display(period_s),
                    duration::display(start_s),
                    duration::display(last_s)
                ),
            ));
        }
    }
    Ok(())
}

fn check_after_cycles(ctx: &Ctx, timeline: &[Entry]) -> Result<(), ScenarioError> {
    for (i, _) in timeline.iter().enumerate() {
        let mut seen = BTreeSet::new();
        let mut cur = i;
        while let Trigger::After { entry, .. } = timeline[cur].trigger {
            if !seen.insert(cur) {
                return Err(ctx.err(
                    format!("timeline[{i}].after"),
                    format!(
                        "\"{}\" waits for itself through a cycle of after triggers",
                        timeline[i].name
                    ),
                ));
            }
            cur = entry;
        }
    }
    Ok(())
}

fn assertion(
    ctx: &Ctx,
    i: usize,
    a: &RawAssertion,
    entries: &BTreeMap<String, usize>,
    vehicles: &[Vehicle],
    world: &World,
    has_network: bool,
) -> Result<Assertion, ScenarioError> {
    let p = format!("assertions[{i}]");
    let f = |k: &str| format!("{p}.{k}");
    let kind = a.kind.as_str();
    if !ASSERTION_TYPES.contains(&kind) {
        return Err(ctx.err(
            f("type"),
            format!("\"{kind}\" is not one of {}", ASSERTION_TYPES.join(", ")),
        ));
    }
    let name = match &a.name {
        Some(n) if !is_name(n) => {
            return Err(ctx.err(
                f("name"),
                format!("\"{n}\" must be 1 to 32 of [a-z0-9_], starting with a letter"),
            ))
        }
        Some(n) => n.clone(),
        None => format!("{kind}#{i}"),
    };
    let allowed: &[&str] = match kind {
        "topic_value" => &["topic", "field", "op", "value", "abs", "mode"],
        "reached" => &["vehicle", "goal", "pose", "radius_m"],
        "no_collision" => &["vehicle"],
        "link_verdicts" => &[],
        "unchanged" => &["topic", "field"],
        _ => &["topic", "hz"],
    };
    let mut present = Vec::new();
    macro_rules! has {
        ($($f:ident),*) => { $( if a.$f.is_some() { present.push(stringify!($f)); } )* };
    }
    has!(topic, field, op, value, mode, vehicle, goal, pose, radius_m, hz);
    if a.abs {
        present.push("abs");
    }
    for k in present {
        if !allowed.contains(&k) {
            return Err(ctx.err(f(k), format!("is not a field of {kind}")));
        }
    }
    let need = |k: &str| ctx.err(f(k), format!("missing (required by {kind})"));
    let entry = match &a.entry {
        None => None,
        Some(n) => match entries.get(n) {
            Some(&j) => Some((j, n.clone())),
            None => {
                return Err(ctx.err(
                    f("entry"),
                    format!(
                        "\"{n}\" is not an entry of the timeline (entries: {})",
                        entries.keys().cloned().collect::<Vec<_>>().join(", ")
                    ),
                ))
            }
        },
    };
    let from_end = match a.from.as_deref() {
        None | Some("start") => false,
        Some("end") => true,
        Some(o) => return Err(ctx.err(f("from"), format!("\"{o}\" is not one of start, end"))),
    };
    if a.from.is_some() && entry.is_none() {
        return Err(ctx.err(f("from"), "needs an entry"));
    }
    let after_s = a.after_s.map(Secs::get).unwrap_or(0.0);
    let within_s = a.within_s.map(Secs::get);
    if let Some(w) = within_s {
        if w < after_s {
            return Err(ctx.err(f("within_s"), format!("{w} is before after_s ({after_s})")));
        }
    }
    let vehicle = |required: bool| -> Result<Option<String>, ScenarioError> {
        match &a.vehicle {
            Some(v) if vehicles.iter().any(|x| &x.name == v) => Ok(Some(v.clone())),
            Some(v) => Err(ctx.err(
                f("vehicle"),
                format!("\"{v}\" is not a vehicle of the scenario"),
            )),
            None if required && vehicles.len() == 1 => Ok(Some(vehicles[0].name.clone())),
            None if required => Err(need("vehicle")),
            None => Ok(None),
        }
    };
    let topic = || -> Result<String, ScenarioError> {
        let t = a.topic.clone().ok_or_else(|| need("topic"))?;
        if !topic_ok(&t) {
            return Err(ctx.err(
                f("topic"),
                format!("\"{t}\" is not a fully qualified topic name (/ns/name)"),
            ));
        }
        Ok(t)
    };
    let hz = || -> Result<f64, ScenarioError> {
        let h = a.hz.ok_or_else(|| need("hz"))?;
        if !(h.is_finite() && h >= 0.0) {
            return Err(ctx.err(f("hz"), format!("{h} must be a number, not negative")));
        }
        Ok(h)
    };
    let check = match kind {
        "topic_value" => {
            let t = topic()?;
            let field = a.field.clone().ok_or_else(|| need("field"))?;
            let value = a.value.clone().ok_or_else(|| need("value"))?;
            let condition = condition(ctx, &p, &t, &field, a.op.as_deref(), &value, a.abs)?;
            let mode = match a.mode.as_deref() {
                None | Some("eventually") => Mode::Eventually,
                Some("always") => Mode::Always,
                Some(o) => {
                    return Err(ctx.err(
                        f("mode"),
                        format!("\"{o}\" is not one of always, eventually"),
                    ))
                }
            };
            Check::TopicValue { condition, mode }
        }
        "reached" => {
            let v = vehicle(true)?.expect("required");
            let (goal, pose) = match (&a.goal, &a.pose) {
                (Some(g), None) => match world.goals.get(g).or_else(|| world.frames.get(g)) {
                    Some(p) => (
                        Some(g.clone()),
                        PoseSpec {
                            xyz: p.xyz,
                            yaw_deg: p.yaw_deg,
                        },
                    ),
                    None => {
                        return Err(ctx.err(
                            f("goal"),
                            format!("\"{g}\" is not a goal of world {}", world.name),
                        ))
                    }
                },
                (None, Some(p)) => (None, *p),
                (Some(_), Some(_)) => return Err(ctx.err(f("pose"), "give goal or pose, not both")),
                (None, None) => return Err(need("goal")),
            };
            let radius_m = a.radius_m.unwrap_or(1.0);
            if !(radius_m.is_finite() && radius_m > 0.0) {
                return Err(ctx.err(f("radius_m"), format!("{radius_m} must be above 0")));
            }
            Check::Reached {
                vehicle: v,
                goal,
                pose,
                radius_m,
            }
        }
        "no_collision" => Check::NoCollision {
            vehicle: vehicle(false)?,
        },
        "link_verdicts" => {
            if !has_network {
                return Err(ctx.err(f("type"), "link_verdicts needs a network section"));
            }
            Check::LinkVerdicts
        }
        "max_rate" => Check::MaxRate {
            topic: topic()?,
            hz: hz()?,
        },
        "min_rate" => Check::MinRate {
            topic: topic()?,
            hz: hz()?,
        },
        "unchanged" => {
            let t = topic()?;
            let fields = a.field.clone().ok_or_else(|| need("field"))?.list();
            for fl in &fields {
                if crate::store::parse_field(fl).is_none() {
                    return Err(ctx.err(
                        f("field"),
                        format!("\"{fl}\" is not a field path (a.b.c, ranges[0])"),
                    ));
                }
            }
            Check::Unchanged { topic: t, fields }
        }
        _ => unreachable!("checked against ASSERTION_TYPES"),
    };
    Ok(Assertion {
        name,
        check,
        window: Window {
            entry,
            from_end,
            after_s,
            within_s,
        },
    })
}
