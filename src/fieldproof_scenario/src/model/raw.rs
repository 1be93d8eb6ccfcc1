//! The scenario file as written (serde types). Unknown keys are errors; a timeline entry's
//! action and an assertion's type are tags whose own fields are read by the variant they
//! name ([`RawAction`], [`RawCheck`]), so the fields of each are declared once, in its struct.

use super::actions::RawAction;
use super::checks::RawCheck;
use crate::duration::Secs;
use fieldproof_link::profile::NetworkSection;
use fieldproof_link::scenario_file::FieldError;
use serde::{Deserialize, Serialize};
use serde_yaml::Mapping;
use std::collections::BTreeMap;
use std::path::PathBuf;

/// The raw scenario document. `Entry` and `Check` are the timeline entries and assertions:
/// typed ([`RawEntry`], [`RawAssertion`], the defaults) once [`super::parse_raw`] has read
/// each one's action or type.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct RawScenario<Entry = RawEntry, Check = RawAssertion> {
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
    /// How the simulation keeps `real_time_factor` (default `fixed`); `auto` as
    /// `--real-time-factor auto` (a factor on the command line fixes the pace again).
    #[serde(default)]
    pub pace: Option<Pace>,
    /// Simulation time the timeline runs (default 60 s).
    #[serde(default)]
    pub duration_s: Option<Secs>,
    /// The simulator's `/clock` rate, Hz (default 200, `plan::DEFAULT_CLOCK_RATE_HZ`; 1000:
    /// every step). Every node on simulation time wakes for each `/clock` message, so the
    /// rate is the largest part of an idle node's cost; a timer whose period is a multiple of
    /// the clock's (at 200 Hz: 1 to 50 Hz) stays exact in simulation time.
    #[serde(default)]
    pub clock_rate_hz: Option<f64>,
    /// Run each vehicle's bridge adapters as nodes of one process (`bundle_container`, one
    /// DDS participant) instead of a process each (default true). A vehicle whose adapter a
    /// `process.kill` signals runs its adapters apart, so the signal reaches that one node.
    #[serde(default)]
    pub compose_bundles: Option<bool>,
    /// Run each vehicle's failsafe (`link_monitor`) as one more node of its bridge's
    /// container (default true, where the adapters are composed); false: a process of its
    /// own, so an error that ends the container cannot take the failsafe with it.
    #[serde(default)]
    pub compose_failsafe: Option<bool>,
    /// The vehicles.
    pub vehicles: Vec<RawVehicle>,
    /// Radio links (spec: Radio links); without it the vehicles share one unshaped network.
    #[serde(default)]
    pub network: Option<NetworkSection>,
    /// The timeline.
    #[serde(default = "Vec::new")]
    pub timeline: Vec<Entry>,
    /// The assertions.
    #[serde(default = "Vec::new")]
    pub assertions: Vec<Check>,
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
    /// Where it starts: a frame of the world (`spawn: spawn_pad`), or a pad of a carrier
    /// listed before it (`spawn: { pad: carrier/pad_0 }`: landed on the pad, riding the
    /// carrier until it climbs).
    #[serde(default)]
    pub spawn: Option<SpawnRef>,
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
    /// What the vehicle's mission supervisor takes as its vision input: `none` (it ignores
    /// vision freshness), `camera` or `perception`. Passed to a launch-file stack as the
    /// argument `vision_source:=<value>` and named in the run's report; only a launch-file
    /// stack takes it.
    #[serde(default)]
    pub vision: Option<VisionSource>,
    /// The payload it carries (kg; default the manifest's `body.payload_kg`, at most its
    /// `body.max_payload_kg`): the simulator's payload model scales its acceleration and
    /// braking by mass / (mass + payload).
    #[serde(default)]
    pub payload_kg: Option<f64>,
}

/// Where a vehicle starts (`spawn:`).
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(untagged)]
pub enum SpawnRef {
    /// A frame of the world: `spawn: spawn_pad`.
    Frame(String),
    /// A carrier's pad: `spawn: { pad: <carrier namespace>/<pad name> }`.
    Pad(PadRef),
}

/// `{ pad: carrier/pad_0 }`: a pad of a carrier listed before the vehicle.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct PadRef {
    /// `<carrier namespace>/<pad name>`, a pad of the carrier's manifest.
    pub pad: String,
}

/// How a run paces its simulation (`pace:`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Pace {
    /// At `real_time_factor`, whatever the host delivers.
    Fixed,
    /// At what the host sustains, up to `real_time_factor` (`--real-time-factor auto`).
    Auto,
}

/// A vehicle's vision input (`vision:`), as its mission supervisor's launch file takes it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum VisionSource {
    /// No vision: the supervisor ignores vision freshness.
    None,
    /// The camera's capture stamps.
    Camera,
    /// The perception payload's health topic.
    Perception,
}

impl VisionSource {
    /// The value as written (`none`).
    pub fn name(self) -> &'static str {
        match self {
            VisionSource::None => "none",
            VisionSource::Camera => "camera",
            VisionSource::Perception => "perception",
        }
    }

    /// What it means for the supervisor, as the report says it.
    pub fn meaning(self) -> &'static str {
        match self {
            VisionSource::None => "the supervisor ignores vision freshness",
            VisionSource::Camera => "the supervisor checks the freshness of the camera's captures",
            VisionSource::Perception => {
                "the supervisor checks the freshness of the perception payload's health"
            }
        }
    }

    /// The report's line: `vision: none — the supervisor ignores vision freshness`.
    pub fn describe(self) -> String {
        format!("vision: {} — {}", self.name(), self.meaning())
    }
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
    /// The whole run (wall clock at real time), bring-up to teardown; a run at a real-time
    /// factor f below 1 gets run_s / f.
    pub run_s: Secs,
    /// The simulation clock not advancing during the timeline (wall clock): the simulator
    /// stalled, or its `/clock` no longer reaches the runner. The run ends as not run.
    pub clock_stall_s: Secs,
    /// A process to leave after SIGINT before SIGKILL.
    pub shutdown_s: Secs,
}

impl Default for Timeouts {
    fn default() -> Self {
        Timeouts {
            ready_s: Secs(60.0),
            ground_s: Secs(60.0),
            run_s: Secs(900.0),
            clock_stall_s: Secs(60.0),
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

/// A timeline entry as written: the fields every entry takes (its name, vehicle and trigger)
/// and its action with the action's own fields (`A`: [`RawAction`] once read; the fields as
/// written, a YAML mapping, before). Written as one flat map:
/// `{ name: outage, at: 10s, vehicle: ugv1, action: link.drop, duration_s: 30s }`.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
pub struct RawEntry<A = RawAction> {
    /// Entry name (default `<action>#<index>`); `after` and assertions refer to it.
    #[serde(default)]
    pub name: Option<String>,
    /// The vehicle it acts on.
    #[serde(default)]
    pub vehicle: Option<String>,
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
    /// The action (`action: link.drop`) and its own fields.
    #[serde(flatten)]
    pub action: A,
}

/// The fields of [`RawEntry`] every entry takes, whatever its action (named in the refusal
/// of an unknown field; a unit test keeps it equal to the struct's).
pub const ENTRY_FIELDS: &[&str] = &[
    "name", "vehicle", "action", "at", "after", "delay_s", "when", "every", "start_s", "until_s",
    "count",
];

/// An assertion as written: the fields every assertion takes (its name and window) and its
/// type with the type's own fields (`C`: [`RawCheck`] once read).
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
pub struct RawAssertion<C = RawCheck> {
    /// Assertion name (default `<type>#<index>`).
    #[serde(default)]
    pub name: Option<String>,
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
    /// The type (`type: topic_value`) and its own fields.
    #[serde(flatten)]
    pub check: C,
}

/// The fields of [`RawAssertion`] every assertion takes, whatever its type.
pub const ASSERTION_FIELDS: &[&str] = &["name", "type", "entry", "from", "after_s", "within_s"];

/// A scenario as serde reads it, before each entry's action and each assertion's type are
/// read from their fields ([`read_tagged`]).
pub(super) type ScenarioDoc = RawScenario<RawEntry<Mapping>, RawAssertion<Mapping>>;

/// A tagged family of field structs (the timeline's actions, the assertions' types): how
/// [`read_tagged`] reads one member from the fields written beside its tag.
pub(super) trait Tagged: Sized {
    /// The tag's key (`action`, `type`).
    const TAG: &'static str;
    /// Every member's name, as written.
    const NAMES: &'static [&'static str];
    /// The fields of member `name` (empty for no member).
    fn fields_of(name: &str) -> &'static [&'static str];
    /// Reads member `name` from its fields (`None`: no such member).
    fn read(name: &str, fields: &Mapping) -> Option<Result<Self, FieldError>>;
}

/// Declares a [`Tagged`] family from one list of `"name" => Variant(FieldsStruct),`: the
/// enum (one variant per member, named as written, holding its fields struct, serialized
/// flat beside `<tag>: <name>`), the list of its names, `name()`, `spec()` (the dispatch to
/// each variant's handler trait, which every fields struct implements) and its [`Tagged`]
/// impl. The enum's and the list's doc comments are written at the call.
macro_rules! tagged_enum {
    (
        $(#[$enum_doc:meta])*
        pub enum $enum:ident { tag: $tag:literal, handler: $spec:ident }
        $(#[$names_doc:meta])*
        pub const $names:ident;
        $($name:literal => $variant:ident($fields:ty),)*
    ) => {
        $(#[$enum_doc])*
        #[derive(Debug, Clone, PartialEq, ::serde::Serialize)]
        #[serde(tag = $tag)]
        pub enum $enum {
            $(
                #[doc = concat!("`", $name, "`.")]
                #[serde(rename = $name)]
                $variant($fields),
            )*
        }

        $(#[$names_doc])*
        pub const $names: &[&str] = &[$($name),*];

        impl $enum {
            /// The member's name as written (`link.drop`, `topic_value`).
            pub fn name(&self) -> &'static str {
                match self {
                    $($enum::$variant(_) => $name,)*
                }
            }

            /// Its handler.
            fn spec(&self) -> &dyn $spec {
                match self {
                    $($enum::$variant(fields) => fields,)*
                }
            }
        }

        impl $crate::model::raw::Tagged for $enum {
            const TAG: &'static str = $tag;
            const NAMES: &'static [&'static str] = $names;

            fn fields_of(name: &str) -> &'static [&'static str] {
                match name {
                    $($name => ::fieldproof_link::scenario_file::field_names::<$fields>(),)*
                    _ => &[],
                }
            }

            fn read(
                name: &str,
                fields: &::serde_yaml::Mapping,
            ) -> Option<Result<Self, ::fieldproof_link::scenario_file::FieldError>> {
                Some(match name {
                    $($name => ::fieldproof_link::scenario_file::from_fields::<$fields>(fields)
                        .map($enum::$variant),)*
                    _ => return None,
                })
            }
        }
    };
}
pub(super) use tagged_enum;

/// Reads a tagged member from a flat map of fields (`common`: the fields every member takes
/// beside the tag). Refused, with the field's path relative to the map: a key no member
/// takes (`colour: unknown field`), a missing or unknown tag (`action: "link.explode" is not
/// one of ...`, with a suggestion when one is close), a field of another member (`profile:
/// is not a field of link.drop`), a field of the wrong type.
pub(super) fn read_tagged<T: Tagged>(common: &[&str], fields: &Mapping) -> Result<T, FieldError> {
    let err = |path: &str, message: String| FieldError {
        path: path.to_string(),
        message,
    };
    let mut known: Vec<&str> = common.to_vec();
    for name in T::NAMES {
        for f in T::fields_of(name) {
            if !known.contains(f) {
                known.push(f);
            }
        }
    }
    for key in fields.keys() {
        let Some(key) = key.as_str() else {
            return Err(err("", format!("{key:?} is not a field name")));
        };
        if !known.contains(&key) {
            let expected: Vec<String> = known.iter().map(|k| format!("`{k}`")).collect();
            return Err(err(
                key,
                format!(
                    "unknown field `{key}`, expected one of {}{}",
                    expected.join(", "),
                    did_you_mean(key, &known)
                ),
            ));
        }
    }
    let name = match fields.get(T::TAG) {
        None => return Err(err("", format!("missing field `{}`", T::TAG))),
        Some(serde_yaml::Value::String(s)) => s.as_str(),
        Some(other) => return Err(err(T::TAG, format!("{other:?} is not a string"))),
    };
    if !T::NAMES.contains(&name) {
        return Err(err(
            T::TAG,
            format!(
                "\"{name}\" is not one of {}{}",
                T::NAMES.join(", "),
                did_you_mean(name, T::NAMES)
            ),
        ));
    }
    let own = T::fields_of(name);
    for (key, value) in fields {
        let key = key.as_str().unwrap_or_default();
        if key != T::TAG && !own.contains(&key) && !value.is_null() {
            return Err(err(key, format!("is not a field of {name}")));
        }
    }
    T::read(name, fields).expect("a known name")
}

/// ` (did you mean x?)` when one of `candidates` is a likely misspelling of `written`.
pub(super) fn did_you_mean(written: &str, candidates: &[&str]) -> String {
    candidates
        .iter()
        .map(|c| (edit_distance(written, c), c))
        .filter(|(d, c)| *d <= 2.max(c.len() / 4) && *d < c.len())
        .min_by_key(|(d, _)| *d)
        .map(|(_, c)| format!(" (did you mean {c}?)"))
        .unwrap_or_default()
}

/// The Levenshtein distance between two strings (in characters).
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let above = row[j + 1];
            row[j + 1] = (diagonal + usize::from(ca != *cb))
                .min(row[j] + 1)
                .min(above + 1);
            diagonal = above;
        }
    }
    row[b.len()]
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
    /// The field paths, one or several.
    pub fn list(&self) -> Vec<String> {
        match self {
            FieldSpec::One(s) => vec![s.clone()],
            FieldSpec::Many(v) => v.clone(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_common_field_lists_are_the_structs() {
        let entry: RawEntry<Mapping> = serde_yaml::from_str(
            "{ name: n, vehicle: v, action: a, at: 1, after: b, delay_s: 1, when: { topic: /t, field: x, value: 1 }, every: 1, start_s: 1, until_s: 2, count: 3 }",
        )
        .unwrap();
        // Every common field was taken by the struct: only the tag is left over.
        assert_eq!(
            entry.action.keys().collect::<Vec<_>>(),
            [&serde_yaml::Value::from("action")]
        );
        assert_eq!(ENTRY_FIELDS.len(), 11);
        let assertion: RawAssertion<Mapping> = serde_yaml::from_str(
            "{ name: n, type: t, entry: e, from: end, after_s: 1, within_s: 2 }",
        )
        .unwrap();
        assert_eq!(
            assertion.check.keys().collect::<Vec<_>>(),
            [&serde_yaml::Value::from("type")]
        );
        assert_eq!(ASSERTION_FIELDS.len(), 6);
    }

    #[test]
    fn suggestions_only_for_close_names() {
        assert_eq!(
            did_you_mean("link.dorp", &["link.drop", "link.set"]),
            " (did you mean link.drop?)"
        );
        assert_eq!(did_you_mean("link.explode", &["link.drop", "link.set"]), "");
        assert_eq!(edit_distance("kitten", "sitting"), 3);
    }
}
