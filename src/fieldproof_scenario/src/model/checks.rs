//! The assertion types: each one a variant of [`RawCheck`] with its own fields struct, and
//! its handler ([`CheckSpec`]) turning the fields into a validated [`Check`]; and the
//! validation of an assertion's common part (its name and window).
//!
//! Adding an assertion type: one line in the `tagged_enum!` list below, its fields struct
//! and its `CheckSpec` impl (here), and its evaluation over the recorded samples
//! (`assertions.rs`).

use super::entries::{condition, value_of};
use super::raw::{tagged_enum, FieldSpec, PoseSpec, RawAssertion};
use super::topics::{topic_ok, ESTIMATE_TOPIC, FLEET_CLEARANCE_TOPIC, FLEET_STATUS_TOPIC};
use super::types::{Assertion, CarrierPad, Check, CountedDrops, Mode, Value, Vehicle, Window};
use super::{is_name, Ctx, ScenarioError};
use crate::duration::Secs;
use fieldproof_robots::World;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

tagged_enum! {
    /// An assertion type as written, with its own fields (serialized flat, beside
    /// `type: <name>`).
    pub enum RawCheck { tag: "type", handler: CheckSpec }
    /// Every assertion type.
    pub const ASSERTION_TYPES;
    "topic_value" => TopicValue(TopicValue),
    "reached" => Reached(Reached),
    "no_collision" => NoCollision(NoCollision),
    "link_verdicts" => LinkVerdicts(LinkVerdicts),
    "max_rate" => MaxRate(Rate),
    "min_rate" => MinRate(Rate),
    "unchanged" => Unchanged(Unchanged),
    "sequence" => Sequence(Sequence),
    "estimate_error" => EstimateError(EstimateError),
    "separation" => Separation(Separation),
    "seq_accounting" => SeqAccounting(SeqAccounting),
    "leases_exclusive" => LeasesExclusive(LeasesExclusive),
    "pad_error" => PadError(PadError),
}

/// An assertion type's handler: what its fields mean in the scenario.
pub(super) trait CheckSpec {
    /// The validated check; errors name the field path (`cx.err`) and the value.
    fn validate(&self, cx: &CheckCx) -> Result<Check, ScenarioError>;
}

/// What a handler knows of its assertion.
pub(super) struct CheckCx<'a> {
    /// The scenario's error context.
    pub ctx: &'a Ctx<'a>,
    /// The assertion's path (`assertions[2]`).
    pub path: String,
    /// The type as written.
    pub kind: &'static str,
    /// The scenario's vehicles.
    pub vehicles: &'a [Vehicle],
    /// The world.
    pub world: &'a World,
    /// Whether the scenario has a network section.
    pub has_network: bool,
}

impl CheckCx<'_> {
    /// An error at the assertion's field `key`.
    fn err(&self, key: &str, message: impl Into<String>) -> ScenarioError {
        self.ctx.err(format!("{}.{key}", self.path), message)
    }

    /// A required field that is missing.
    fn need(&self, key: &str) -> ScenarioError {
        self.err(key, format!("missing (required by {})", self.kind))
    }

    /// The vehicle named (or the only one, when `required`).
    fn vehicle(&self, v: Option<&String>, required: bool) -> Result<Option<String>, ScenarioError> {
        match v {
            Some(v) if self.vehicles.iter().any(|x| &x.name == v) => Ok(Some(v.clone())),
            Some(v) => Err(self.err(
                "vehicle",
                format!("\"{v}\" is not a vehicle of the scenario"),
            )),
            None if required && self.vehicles.len() == 1 => Ok(Some(self.vehicles[0].name.clone())),
            None if required => Err(self.need("vehicle")),
            None => Ok(None),
        }
    }

    /// A required, fully qualified topic.
    fn topic(&self, t: Option<&String>) -> Result<String, ScenarioError> {
        let t = t.ok_or_else(|| self.need("topic"))?;
        self.topic_at("topic", t)
    }

    /// The fully qualified topic `t` written at the field `key`.
    fn topic_at(&self, key: &str, t: &str) -> Result<String, ScenarioError> {
        if !topic_ok(t) {
            return Err(self.err(
                key,
                format!("\"{t}\" is not a fully qualified topic name (/ns/name)"),
            ));
        }
        Ok(t.to_string())
    }

    /// The topic written at `key`, or `default`.
    fn topic_or(
        &self,
        key: &str,
        t: Option<&String>,
        default: &str,
    ) -> Result<String, ScenarioError> {
        match t {
            Some(t) => self.topic_at(key, t),
            None => Ok(default.to_string()),
        }
    }
}

/// `topic_value`: a field compared with a value.
#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct TopicValue {
    /// The topic; required.
    #[serde(default)]
    pub topic: Option<String>,
    /// The field(s); required.
    #[serde(default)]
    pub field: Option<FieldSpec>,
    /// The comparison (default `eq`).
    #[serde(default)]
    pub op: Option<String>,
    /// The value; required.
    #[serde(default)]
    pub value: Option<serde_yaml::Value>,
    /// Compare the absolute value.
    #[serde(default)]
    pub abs: bool,
    /// `always` or `eventually` (default).
    #[serde(default)]
    pub mode: Option<String>,
}

impl CheckSpec for TopicValue {
    fn validate(&self, cx: &CheckCx) -> Result<Check, ScenarioError> {
        let t = cx.topic(self.topic.as_ref())?;
        let field = self.field.clone().ok_or_else(|| cx.need("field"))?;
        let value = self.value.clone().ok_or_else(|| cx.need("value"))?;
        let condition = condition(
            cx.ctx,
            &cx.path,
            &t,
            &field,
            self.op.as_deref(),
            &value,
            self.abs,
        )?;
        let mode = match self.mode.as_deref() {
            None | Some("eventually") => Mode::Eventually,
            Some("always") => Mode::Always,
            Some(o) => {
                return Err(cx.err("mode", format!("\"{o}\" is not one of always, eventually")))
            }
        };
        Ok(Check::TopicValue { condition, mode })
    }
}

/// `reached`: the vehicle within `radius_m` of a goal (its truth pose).
#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Reached {
    /// The vehicle (default: the only one).
    #[serde(default)]
    pub vehicle: Option<String>,
    /// A goal (or frame) of the world.
    #[serde(default)]
    pub goal: Option<String>,
    /// Or a pose.
    #[serde(default)]
    pub pose: Option<PoseSpec>,
    /// The radius (default 1 m).
    #[serde(default)]
    pub radius_m: Option<f64>,
}

impl CheckSpec for Reached {
    fn validate(&self, cx: &CheckCx) -> Result<Check, ScenarioError> {
        let world = cx.world;
        let v = cx.vehicle(self.vehicle.as_ref(), true)?.expect("required");
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
                        format!("\"{g}\" is not a goal of world {}", world.name),
                    ))
                }
            },
            (None, Some(p)) => (None, *p),
            (Some(_), Some(_)) => return Err(cx.err("pose", "give goal or pose, not both")),
            (None, None) => return Err(cx.need("goal")),
        };
        let radius_m = self.radius_m.unwrap_or(1.0);
        if !(radius_m.is_finite() && radius_m > 0.0) {
            return Err(cx.err("radius_m", format!("{radius_m} must be above 0")));
        }
        Ok(Check::Reached {
            vehicle: v,
            goal,
            pose,
            radius_m,
        })
    }
}

/// `no_collision`: no collision of the vehicle (or of any vehicle).
#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct NoCollision {
    /// The vehicle (default: all).
    #[serde(default)]
    pub vehicle: Option<String>,
}

impl CheckSpec for NoCollision {
    fn validate(&self, cx: &CheckCx) -> Result<Check, ScenarioError> {
        Ok(Check::NoCollision {
            vehicle: cx.vehicle(self.vehicle.as_ref(), false)?,
        })
    }
}

/// `link_verdicts`: every link period passed (or was insufficient).
#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct LinkVerdicts {}

impl CheckSpec for LinkVerdicts {
    fn validate(&self, cx: &CheckCx) -> Result<Check, ScenarioError> {
        if !cx.has_network {
            return Err(cx.err("type", "link_verdicts needs a network section"));
        }
        Ok(Check::LinkVerdicts)
    }
}

/// `max_rate` / `min_rate`: the topic's rate in the window at most / at least `hz`.
#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Rate {
    /// The topic; required.
    #[serde(default)]
    pub topic: Option<String>,
    /// The bound (Hz); required.
    #[serde(default)]
    pub hz: Option<f64>,
}

impl CheckSpec for Rate {
    fn validate(&self, cx: &CheckCx) -> Result<Check, ScenarioError> {
        let topic = cx.topic(self.topic.as_ref())?;
        let hz = self.hz.ok_or_else(|| cx.need("hz"))?;
        if !(hz.is_finite() && hz >= 0.0) {
            return Err(cx.err("hz", format!("{hz} must be a number, not negative")));
        }
        Ok(if cx.kind == "max_rate" {
            Check::MaxRate { topic, hz }
        } else {
            Check::MinRate { topic, hz }
        })
    }
}

/// `unchanged`: the fields keep one value through the window (a frozen sensor).
#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Unchanged {
    /// The topic; required.
    #[serde(default)]
    pub topic: Option<String>,
    /// The field(s); required.
    #[serde(default)]
    pub field: Option<FieldSpec>,
}

impl CheckSpec for Unchanged {
    fn validate(&self, cx: &CheckCx) -> Result<Check, ScenarioError> {
        let topic = cx.topic(self.topic.as_ref())?;
        let fields = self.field.clone().ok_or_else(|| cx.need("field"))?.list();
        for fl in &fields {
            if crate::store::parse_field(fl).is_none() {
                return Err(cx.err(
                    "field",
                    format!("\"{fl}\" is not a field path (a.b.c, ranges[0])"),
                ));
            }
        }
        Ok(Check::Unchanged { topic, fields })
    }
}

/// `sequence`: the successive distinct values of a field contain the required transitions
/// in order, and end with the terminal value.
#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Sequence {
    /// The topic; required.
    #[serde(default)]
    pub topic: Option<String>,
    /// The field (default `data`, a `std_msgs` message's).
    #[serde(default)]
    pub field: Option<String>,
    /// The values required in this order (`[INIT, ACTIVE, HOLD, ACTIVE, COMPLETE]`).
    #[serde(default)]
    pub transitions: Option<Vec<serde_yaml::Value>>,
    /// The value the window must end with.
    #[serde(default)]
    pub terminal: Option<serde_yaml::Value>,
}

impl CheckSpec for Sequence {
    fn validate(&self, cx: &CheckCx) -> Result<Check, ScenarioError> {
        let topic = cx.topic(self.topic.as_ref())?;
        let field = self.field.clone().unwrap_or_else(|| "data".into());
        if crate::store::parse_field(&field).is_none() {
            return Err(cx.err(
                "field",
                format!("\"{field}\" is not a field path (a.b.c, ranges[0])"),
            ));
        }
        let mut transitions: Vec<Value> = Vec::new();
        for (i, v) in self.transitions.iter().flatten().enumerate() {
            let value = value_of(cx.ctx, &format!("{}.transitions[{i}]", cx.path), v)?;
            if transitions.last() == Some(&value) {
                return Err(cx.err(
                    &format!("transitions[{i}]"),
                    format!(
                        "{} repeats transitions[{}]: the values compared are the successive distinct ones",
                        value_text(&value),
                        i - 1
                    ),
                ));
            }
            transitions.push(value);
        }
        let terminal = match &self.terminal {
            Some(v) => Some(value_of(cx.ctx, &format!("{}.terminal", cx.path), v)?),
            None => None,
        };
        if transitions.is_empty() && terminal.is_none() {
            return Err(cx.err(
                "transitions",
                "missing (sequence needs transitions, a terminal value, or both)",
            ));
        }
        Ok(Check::Sequence {
            topic,
            field,
            transitions,
            terminal,
        })
    }
}

/// A comparison value as a message names it (`"HOLD"`, `2`, `true`).
fn value_text(v: &Value) -> String {
    match v {
        Value::Number(n) => n.to_string(),
        Value::Bool(b) => b.to_string(),
        Value::Text(s) => format!("\"{s}\""),
    }
}

/// `estimate_error`: the vehicle's estimate (`nav_msgs/msg/Odometry` in the world's ENU
/// frame) within `max_m` of its truth, sample by sample.
#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct EstimateError {
    /// The vehicle (default: the only one).
    #[serde(default)]
    pub vehicle: Option<String>,
    /// The estimate's topic (default `/<namespace>/odometry/filtered`).
    #[serde(default)]
    pub topic: Option<String>,
    /// The largest error allowed (m); required.
    #[serde(default)]
    pub max_m: Option<f64>,
}

impl CheckSpec for EstimateError {
    fn validate(&self, cx: &CheckCx) -> Result<Check, ScenarioError> {
        let vehicle = cx.vehicle(self.vehicle.as_ref(), true)?.expect("required");
        let topic = match &self.topic {
            Some(_) => cx.topic(self.topic.as_ref())?,
            None => {
                let v = cx
                    .vehicles
                    .iter()
                    .find(|v| v.name == vehicle)
                    .expect("a vehicle of the scenario");
                format!("{}/{ESTIMATE_TOPIC}", v.topic_prefix())
            }
        };
        let max_m = self.max_m.ok_or_else(|| cx.need("max_m"))?;
        if !(max_m.is_finite() && max_m > 0.0) {
            return Err(cx.err("max_m", format!("{max_m} must be above 0")));
        }
        Ok(Check::EstimateError {
            vehicle,
            topic,
            max_m,
        })
    }
}

/// `separation`: two vehicles' truth positions never closer than `min_m`.
#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Separation {
    /// One vehicle; required.
    #[serde(default)]
    pub vehicle: Option<String>,
    /// The other; required.
    #[serde(default)]
    pub other: Option<String>,
    /// The closest the two may come, centre to centre in the plane (m); required.
    #[serde(default)]
    pub min_m: Option<f64>,
}

impl CheckSpec for Separation {
    fn validate(&self, cx: &CheckCx) -> Result<Check, ScenarioError> {
        let vehicle = cx
            .vehicle(self.vehicle.as_ref(), false)?
            .ok_or_else(|| cx.need("vehicle"))?;
        let other = match &self.other {
            None => return Err(cx.need("other")),
            Some(o) if *o == vehicle => {
                return Err(cx.err("other", format!("\"{o}\" is the vehicle itself")))
            }
            Some(o) if cx.vehicles.iter().any(|v| &v.name == o) => o.clone(),
            Some(o) => {
                return Err(cx.err("other", format!("\"{o}\" is not a vehicle of the scenario")))
            }
        };
        let min_m = self.min_m.ok_or_else(|| cx.need("min_m"))?;
        if !(min_m.is_finite() && min_m > 0.0) {
            return Err(cx.err("min_m", format!("{min_m} must be above 0")));
        }
        Ok(Check::Separation {
            vehicle,
            other,
            min_m,
        })
    }
}

/// `seq_accounting`: a receiver's sequence gaps against the drops counted where they happened.
#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct SeqAccounting {
    /// The receiver's counters (`std_msgs/msg/String` carrying a JSON object with
    /// `seq_gaps`, `first_seq` and `newest_seq`); required.
    #[serde(default)]
    pub topic: Option<String>,
    /// Where the drops are counted; at least one.
    #[serde(default)]
    pub counted: Vec<RawCountedDrops>,
}

/// One place drops are counted, as written.
#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct RawCountedDrops {
    /// Its counters (`std_msgs/msg/String` carrying a JSON object); required.
    #[serde(default)]
    pub topic: Option<String>,
    /// The JSON field with the newest seq the counters have seen; required.
    #[serde(default)]
    pub seq_field: Option<String>,
    /// The JSON fields summed as its drops; at least one.
    #[serde(default)]
    pub fields: Vec<String>,
    /// How many seqs later the counters are final for a seq (default 0; 1 for a radio that
    /// drops its waiting frame only when the next one arrives).
    #[serde(default)]
    pub settled_after: u32,
}

impl CheckSpec for SeqAccounting {
    fn validate(&self, cx: &CheckCx) -> Result<Check, ScenarioError> {
        let topic = cx.topic(self.topic.as_ref())?;
        if self.counted.is_empty() {
            return Err(cx.err("counted", "empty (name where the drops are counted)"));
        }
        let counted = self
            .counted
            .iter()
            .enumerate()
            .map(|(i, c)| {
                let at = |key: &str| format!("counted[{i}].{key}");
                let t = c
                    .topic
                    .clone()
                    .ok_or_else(|| cx.err(&at("topic"), "missing"))?;
                if !topic_ok(&t) {
                    return Err(cx.err(
                        &at("topic"),
                        format!("\"{t}\" is not a fully qualified topic name (/ns/name)"),
                    ));
                }
                let seq_field = c
                    .seq_field
                    .clone()
                    .ok_or_else(|| cx.err(&at("seq_field"), "missing"))?;
                if c.fields.is_empty() {
                    return Err(cx.err(&at("fields"), "empty (name the drop counters)"));
                }
                Ok(CountedDrops {
                    topic: t,
                    seq_field,
                    fields: c.fields.clone(),
                    settled_after: c.settled_after,
                })
            })
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Check::SeqAccounting { topic, counted })
    }
}

/// `leases_exclusive`: the fleet station's clearance leases, rebuilt from its answers and the
/// vehicles' reports (independent of the station's own book).
#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct LeasesExclusive {
    /// The fleet's vehicles, each required to launch and land under a lease; at least one.
    #[serde(default)]
    pub vehicles: Vec<String>,
    /// The station's answers (default `/fleet/clearance`).
    #[serde(default)]
    pub clearance_topic: Option<String>,
    /// The vehicles' reports (default `/fleet/status`).
    #[serde(default)]
    pub status_topic: Option<String>,
    /// Slack at a lease's ends (default 0.5 s).
    #[serde(default)]
    pub tolerance_s: Option<Secs>,
}

impl CheckSpec for LeasesExclusive {
    fn validate(&self, cx: &CheckCx) -> Result<Check, ScenarioError> {
        if self.vehicles.is_empty() {
            return Err(cx.err("vehicles", "empty (name the fleet's vehicles)"));
        }
        let mut vehicles: Vec<String> = Vec::new();
        for v in &self.vehicles {
            if !cx.vehicles.iter().any(|x| &x.name == v) {
                return Err(cx.err(
                    "vehicles",
                    format!("\"{v}\" is not a vehicle of the scenario"),
                ));
            }
            if vehicles.contains(v) {
                return Err(cx.err("vehicles", format!("\"{v}\" is listed twice")));
            }
            vehicles.push(v.clone());
        }
        let clearance_topic = cx.topic_or(
            "clearance_topic",
            self.clearance_topic.as_ref(),
            FLEET_CLEARANCE_TOPIC,
        )?;
        let status_topic = cx.topic_or(
            "status_topic",
            self.status_topic.as_ref(),
            FLEET_STATUS_TOPIC,
        )?;
        if clearance_topic == status_topic {
            return Err(cx.err(
                "clearance_topic",
                format!("\"{clearance_topic}\" is the status_topic too"),
            ));
        }
        Ok(Check::LeasesExclusive {
            vehicles,
            clearance_topic,
            status_topic,
            tolerance_s: self.tolerance_s.map(Secs::get).unwrap_or(0.5),
        })
    }
}

/// `pad_error`: at touchdown the vehicle's truth's distance from its pad (given the carrier's
/// pad poses) at most `max_m`, and its own reported distance at most `report_max_m`.
#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct PadError {
    /// The vehicle (default: the only one).
    #[serde(default)]
    pub vehicle: Option<String>,
    /// The largest distance allowed (m, horizontal); required.
    #[serde(default)]
    pub max_m: Option<f64>,
    /// The largest distance the vehicle may report (m; default `max_m`). Its report is its
    /// navigation estimate's distance, which carries the estimate's error (GNSS), so it may
    /// be set wider than the truth's bound.
    #[serde(default)]
    pub report_max_m: Option<f64>,
    /// The vehicles' reports (default `/fleet/status`).
    #[serde(default)]
    pub status_topic: Option<String>,
    /// The carrier's pad poses (`geometry_msgs/msg/PoseArray`, world frame: `/carrier/pads`);
    /// with `pad_index`, the truth's distance from the pad is checked too.
    #[serde(default)]
    pub pads_topic: Option<String>,
    /// The vehicle's pad in `pads_topic` (0 for the manifest's first pad).
    #[serde(default)]
    pub pad_index: Option<usize>,
}

impl CheckSpec for PadError {
    fn validate(&self, cx: &CheckCx) -> Result<Check, ScenarioError> {
        let vehicle = cx.vehicle(self.vehicle.as_ref(), true)?.expect("required");
        let max_m = self.max_m.ok_or_else(|| cx.need("max_m"))?;
        if !(max_m.is_finite() && max_m > 0.0) {
            return Err(cx.err("max_m", format!("{max_m} must be above 0")));
        }
        let report_max_m = self.report_max_m.unwrap_or(max_m);
        if !(report_max_m.is_finite() && report_max_m > 0.0) {
            return Err(cx.err("report_max_m", format!("{report_max_m} must be above 0")));
        }
        let status_topic = cx.topic_or(
            "status_topic",
            self.status_topic.as_ref(),
            FLEET_STATUS_TOPIC,
        )?;
        let pad = match (&self.pads_topic, self.pad_index) {
            (None, None) => None,
            (Some(_), None) => return Err(cx.err("pad_index", "missing (pads_topic needs it)")),
            (None, Some(_)) => return Err(cx.err("pads_topic", "missing (pad_index needs it)")),
            (Some(t), Some(index)) => {
                let topic = cx.topic_at("pads_topic", t)?;
                if let Some(pads) = carrier_pads(cx.vehicles, &topic) {
                    if index >= pads.len() {
                        return Err(cx.err(
                            "pad_index",
                            format!(
                                "{index} is not a pad of {topic} (pads: {})",
                                pads.iter()
                                    .enumerate()
                                    .map(|(i, p)| format!("{i} {p}"))
                                    .collect::<Vec<_>>()
                                    .join(", ")
                            ),
                        ));
                    }
                }
                Some(CarrierPad { topic, index })
            }
        };
        Ok(Check::PadError {
            vehicle,
            status_topic,
            max_m,
            report_max_m,
            pad,
        })
    }
}

/// The pad names of the scenario's carrier whose pad poses are published on `topic`, in the
/// order of its manifest (the order of the poses).
fn carrier_pads(vehicles: &[Vehicle], topic: &str) -> Option<Vec<String>> {
    vehicles.iter().find_map(|v| {
        let drive = &v.manifest.drive;
        let interface = drive.pads.as_ref()?;
        let published = match interface.ros_topic.strip_prefix('/') {
            Some(absolute) => format!("/{absolute}"),
            None => format!("{}/{}", v.topic_prefix(), interface.ros_topic),
        };
        (published == topic).then(|| {
            drive
                .carrier
                .iter()
                .flat_map(|c| c.pads.iter().map(|p| p.name.clone()))
                .collect()
        })
    })
}

/// Validates `assertions[i]`: its name, its window (`entries`: every timeline entry's name
/// and index) and its type's fields.
pub(super) fn assertion(
    cx: &CheckCx,
    i: usize,
    a: &RawAssertion,
    entries: &BTreeMap<String, usize>,
) -> Result<Assertion, ScenarioError> {
    let kind = cx.kind;
    let name = match &a.name {
        Some(n) if !is_name(n) => {
            return Err(cx.err(
                "name",
                format!("\"{n}\" must be 1 to 32 of [a-z0-9_], starting with a letter"),
            ))
        }
        Some(n) => n.clone(),
        None => format!("{kind}#{i}"),
    };
    let entry = match &a.entry {
        None => None,
        Some(n) => match entries.get(n) {
            Some(&j) => Some((j, n.clone())),
            None => {
                return Err(cx.err(
                    "entry",
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
        Some(o) => return Err(cx.err("from", format!("\"{o}\" is not one of start, end"))),
    };
    if a.from.is_some() && entry.is_none() {
        return Err(cx.err("from", "needs an entry"));
    }
    let after_s = a.after_s.map(Secs::get).unwrap_or(0.0);
    let within_s = a.within_s.map(Secs::get);
    if let Some(w) = within_s {
        if w < after_s {
            return Err(cx.err("within_s", format!("{w} is before after_s ({after_s})")));
        }
    }
    let check = a.check.spec().validate(cx)?;
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
