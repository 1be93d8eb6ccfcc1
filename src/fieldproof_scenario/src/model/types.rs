//! The validated scenario the runner executes: vehicles with their manifests loaded, the
//! timeline's entries with their triggers and actions resolved, the assertions' checks and
//! windows. Built by [`super::validate`] from the raw model ([`super::raw`]).

use super::raw::{PoseSpec, RawScenario, VisionSource};
use fieldproof_link::profile::Network;
use fieldproof_robots::{Manifest, World};
use serde::Serialize;
use std::collections::BTreeMap;
use std::path::PathBuf;

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

    pub(crate) fn parse(s: &str) -> Option<Op> {
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
    /// The field's successive distinct values in the window contain `transitions` in order
    /// (a subsequence: other values may come between), and the last one is `terminal`.
    Sequence {
        /// Topic.
        topic: String,
        /// The field (default `data`).
        field: String,
        /// The values required in this order (each differs from the one before it).
        transitions: Vec<Value>,
        /// The value the window must end with.
        terminal: Option<Value>,
    },
    /// Every estimate sample's position within `max_m` of the vehicle's truth at the same
    /// simulation time.
    EstimateError {
        /// The vehicle (its truth pose).
        vehicle: String,
        /// The estimate (`nav_msgs/msg/Odometry`, frame = the world's ENU).
        topic: String,
        /// The bound (m, 3-D distance).
        max_m: f64,
    },
    /// Two vehicles' truth positions never closer than `min_m` (planar, centre to centre)
    /// at the same simulation time.
    Separation {
        /// One vehicle.
        vehicle: String,
        /// The other.
        other: String,
        /// The bound (m).
        min_m: f64,
    },
    /// A receiver's `seq_gaps` between its first and newest accepted seq equal the drops of
    /// those seqs counted where they happened.
    SeqAccounting {
        /// The receiver's counters (JSON in `std_msgs/msg/String`).
        topic: String,
        /// Where the drops are counted.
        counted: Vec<CountedDrops>,
    },
    /// The fleet station's clearance leases (from its grants and the vehicles' reports): no
    /// two vehicles' leases in force at once, every CLIMBING and LANDING report inside a
    /// lease of its vehicle, and every listed vehicle launched and landed under one.
    LeasesExclusive {
        /// The fleet's vehicles (as they name themselves in their reports).
        vehicles: Vec<String>,
        /// The station's answers (`fieldproof_interfaces/msg/Clearance`).
        clearance_topic: String,
        /// The vehicles' reports (`fieldproof_interfaces/msg/FleetStatus`).
        status_topic: String,
        /// Slack at a lease's ends (s).
        tolerance_s: f64,
    },
    /// At the vehicle's touchdown (its first LANDED report after LANDING) its reported
    /// `pad_error_m` at most `report_max_m`, and its truth's distance from its pad (when `pad`
    /// is given) at most `max_m`.
    PadError {
        /// The vehicle.
        vehicle: String,
        /// The vehicles' reports (`fieldproof_interfaces/msg/FleetStatus`).
        status_topic: String,
        /// The truth's bound (m, horizontal).
        max_m: f64,
        /// The report's bound (m, horizontal).
        report_max_m: f64,
        /// Its pad among the carrier's pad poses, for the truth's distance.
        pad: Option<CarrierPad>,
    },
}

/// A pad among a carrier's published pad poses (`pad_error`'s `pads_topic`, `pad_index`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CarrierPad {
    /// The pads' poses (`geometry_msgs/msg/PoseArray`, world frame, in the manifest's order).
    pub topic: String,
    /// The pad's index in it.
    pub index: usize,
}

/// One place a `seq_accounting` check reads drops from.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CountedDrops {
    /// Its counters (JSON in `std_msgs/msg/String`).
    pub topic: String,
    /// The JSON field with the newest seq the counters have seen.
    pub seq_field: String,
    /// The JSON fields summed as its drops.
    pub fields: Vec<String>,
    /// How many seqs later its counters are final for a seq.
    pub settled_after: u32,
}

impl Check {
    /// The topic it reads (recorded for it), if it reads one.
    pub fn topic(&self) -> Option<&str> {
        match self {
            Check::TopicValue { condition, .. } => Some(&condition.topic),
            Check::MaxRate { topic, .. }
            | Check::MinRate { topic, .. }
            | Check::Unchanged { topic, .. }
            | Check::Sequence { topic, .. }
            | Check::EstimateError { topic, .. }
            | Check::SeqAccounting { topic, .. } => Some(topic),
            Check::LeasesExclusive { status_topic, .. } | Check::PadError { status_topic, .. } => {
                Some(status_topic)
            }
            Check::Reached { .. }
            | Check::NoCollision { .. }
            | Check::LinkVerdicts
            | Check::Separation { .. } => None,
        }
    }

    /// The other topics it reads (recorded for it too).
    pub fn other_topics(&self) -> Vec<&str> {
        match self {
            Check::SeqAccounting { counted, .. } => {
                counted.iter().map(|c| c.topic.as_str()).collect()
            }
            Check::LeasesExclusive {
                clearance_topic, ..
            } => vec![clearance_topic.as_str()],
            Check::PadError { pad: Some(pad), .. } => vec![pad.topic.as_str()],
            _ => Vec::new(),
        }
    }
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
    /// The carrier's pad it starts on, `<carrier namespace>/<pad name>` (the simulator's
    /// spawn `pad`); `pose` is then the pad's pose at the start.
    pub pad: Option<String>,
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
    /// Its vision input, when the scenario sets one (passed to its launch-file stack as
    /// [`VISION_SOURCE_ARG`]).
    pub vision: Option<VisionSource>,
    /// Its payload when the scenario sets one (the simulator's spawn `payload_kg`).
    pub payload_kg: Option<f64>,
}

/// The launch argument a vehicle's `vision:` is passed as.
pub const VISION_SOURCE_ARG: &str = "vision_source";

/// The directories of a run directory beside the vehicles' evidence directories
/// (`<run dir>/<vehicle name>`): no vehicle may be named after one.
pub const RUN_SUBDIRS: &[&str] = &["bundles", "logs", "plots"];

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

impl Stack {
    /// How the stack is named in messages and the report (`goal_driver`, `pkg/exe`, the
    /// launch file, the command's program).
    pub fn describe(&self) -> String {
        match self {
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
