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
//!
//! The module is split by concern: [`raw`] (the file's serde types; a timeline entry's action
//! and an assertion's type are tagged enums, [`RawAction`] and [`RawCheck`], one variant = one
//! fields struct), [`types`] (the validated model), validation (`vehicles`, `entries`,
//! [`actions`] and [`checks`], each action's and type's handler beside its variant),
//! [`topics`] (topic naming) and [`launch_file`] (what a launch-file stack declares). Durations have one grammar, [`crate::duration`].

pub mod actions;
pub mod checks;
mod entries;
pub mod launch_file;
pub mod raw;
pub mod topics;
pub mod types;
mod vehicles;

#[cfg(test)]
mod tests;

pub use actions::{RawAction, ACTIONS};
pub use checks::{RawCheck, ASSERTION_TYPES};
pub use raw::{
    CustomStack, FieldSpec, Pace, PoseSpec, RawAssertion, RawCondition, RawEntry, RawScenario,
    RawVehicle, Record, StackSpec, Timeouts, VisionSource,
};
pub use topics::{
    failsafe_state_topic, heartbeat, heartbeat_topic, is_latched, is_multirotor, known_types,
    label, mode_topic, truth_topic, COLLISIONS_TOPIC, DEFAULT_STACK_CMD_VEL, ESTIMATE_TOPIC,
    MODE_TOPIC, NETWORK_TOPIC,
};
pub use types::{
    Action, Assertion, Check, Condition, CountedDrops, Entry, Mode, Op, ParamFault, ParamSetting,
    Scenario, Stack, Trigger, Value, Vehicle, Window, MAX_EVERY_FIRINGS, MIN_EVERY_PERIOD_S,
    RUN_SUBDIRS, VISION_SOURCE_ARG,
};

use crate::duration::Secs;
use checks::CheckCx;
use fieldproof_link::scenario_file::FieldError;
use fieldproof_robots::yaml_guard::{self, GuardError};
use raw::{read_tagged, ScenarioDoc, ASSERTION_FIELDS, ENTRY_FIELDS};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// A scenario (or a manifest/world it names) that cannot run, with the field at fault.
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

/// Where errors of one scenario file point.
pub(crate) struct Ctx<'a> {
    file: &'a Path,
}

impl Ctx<'_> {
    /// An error at field `path` of the file.
    pub(crate) fn err(&self, path: impl Into<String>, message: impl Into<String>) -> ScenarioError {
        ScenarioError::Field {
            file: self.file.to_path_buf(),
            path: path.into(),
            message: message.into(),
        }
    }

    /// A field error of a part of the file (`timeline[2]`) at its place.
    fn field(&self, prefix: &str, e: FieldError) -> ScenarioError {
        let e = e.under(prefix);
        self.err(e.path, e.message)
    }
}

/// A name of the scenario (its own, a vehicle's, an entry's): 1 to 32 of `[a-z0-9_]`,
/// starting with a letter.
fn is_name(s: &str) -> bool {
    !s.is_empty()
        && s.len() <= 32
        && s.chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
        && !s.starts_with(|c: char| c.is_ascii_digit())
}

/// Parses YAML text into the raw model; errors carry the field path. Text larger than
/// [`yaml_guard::MAX_BYTES`] or nested deeper than [`yaml_guard::MAX_DEPTH`] is refused
/// before it is parsed. Each timeline entry's action and each assertion's type are read
/// from the fields written beside them ([`RawAction`], [`RawCheck`]).
pub fn parse_raw(file: &Path, text: &str) -> Result<RawScenario, ScenarioError> {
    let ctx = Ctx { file };
    yaml_guard::check(text).map_err(|source| ScenarioError::Refused {
        file: file.to_path_buf(),
        source,
    })?;
    let de = serde_yaml::Deserializer::from_str(text);
    let doc: ScenarioDoc = serde_path_to_error::deserialize(de).map_err(|e| {
        let path = e.path().to_string();
        let path = if path == "." { String::new() } else { path };
        let inner = e.into_inner().to_string();
        // serde_yaml prefixes its own (shorter) path: keep one.
        let inner = match inner.split_once(": ") {
            Some((head, rest)) if !head.contains(' ') && path.starts_with(head) => rest.to_string(),
            _ => inner,
        };
        ctx.err(path, inner)
    })?;
    let mut timeline = Vec::with_capacity(doc.timeline.len());
    for (i, e) in doc.timeline.into_iter().enumerate() {
        let action = read_tagged::<RawAction>(ENTRY_FIELDS, &e.action)
            .map_err(|err| ctx.field(&format!("timeline[{i}]"), err))?;
        timeline.push(RawEntry {
            name: e.name,
            vehicle: e.vehicle,
            at: e.at,
            after: e.after,
            delay_s: e.delay_s,
            when: e.when,
            every: e.every,
            start_s: e.start_s,
            until_s: e.until_s,
            count: e.count,
            action,
        });
    }
    let mut assertions = Vec::with_capacity(doc.assertions.len());
    for (i, a) in doc.assertions.into_iter().enumerate() {
        let check = read_tagged::<RawCheck>(ASSERTION_FIELDS, &a.check)
            .map_err(|err| ctx.field(&format!("assertions[{i}]"), err))?;
        assertions.push(RawAssertion {
            name: a.name,
            entry: a.entry,
            from: a.from,
            after_s: a.after_s,
            within_s: a.within_s,
            check,
        });
    }
    Ok(RawScenario {
        name: doc.name,
        description: doc.description,
        world: doc.world,
        seed: doc.seed,
        real_time_factor: doc.real_time_factor,
        pace: doc.pace,
        duration_s: doc.duration_s,
        clock_rate_hz: doc.clock_rate_hz,
        compose_bundles: doc.compose_bundles,
        compose_failsafe: doc.compose_failsafe,
        vehicles: doc.vehicles,
        network: doc.network,
        timeline,
        assertions,
        timeouts: doc.timeouts,
        record: doc.record,
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
    if let Some(rate) = raw.clock_rate_hz {
        if !(rate.is_finite() && (1.0..=1000.0).contains(&rate)) {
            return Err(ctx.err(
                "clock_rate_hz",
                format!("{rate} is not in 1 to 1000 (the simulator steps at 1000 Hz)"),
            ));
        }
    }
    let duration_s = raw.duration_s.map(Secs::get).unwrap_or(60.0);
    if duration_s <= 0.0 {
        return Err(ctx.err("duration_s", format!("{duration_s} must be above 0")));
    }
    vehicles::check_timeouts(&ctx, &raw.timeouts)?;
    let world =
        fieldproof_robots::World::load(rel(&raw.world)).map_err(|e| ScenarioError::Robots {
            path: "world".into(),
            source: e,
        })?;

    // Vehicles.
    if raw.vehicles.is_empty() {
        return Err(ctx.err("vehicles", "needs at least one vehicle"));
    }
    let mut scope = vehicles::VehicleScope {
        dir: &dir,
        rel: &rel,
        world: &world,
        names: BTreeSet::new(),
        namespaces: BTreeSet::new(),
        pads: BTreeMap::new(),
    };
    let mut vehicles = Vec::new();
    for (i, v) in raw.vehicles.iter().enumerate() {
        vehicles.push(vehicles::vehicle(&ctx, i, v, &mut scope)?);
    }
    let network = vehicles::network(&ctx, raw.network.as_ref(), &scope.names)?;

    // Timeline.
    let mut entry_names: BTreeMap<String, usize> = BTreeMap::new();
    for (i, e) in raw.timeline.iter().enumerate() {
        let name = e
            .name
            .clone()
            .unwrap_or_else(|| format!("{}#{i}", e.action.name()));
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
        timeline.push(entries::entry(
            &ctx,
            i,
            e,
            &entry_names,
            &vehicles,
            &world,
            network.as_ref(),
        )?);
    }
    entries::check_after_cycles(&ctx, &timeline)?;
    entries::check_every_firings(&ctx, &timeline, duration_s)?;

    // Assertions.
    let mut assertions = Vec::new();
    let mut anames = BTreeSet::new();
    for (i, a) in raw.assertions.iter().enumerate() {
        let cx = CheckCx {
            ctx: &ctx,
            path: format!("assertions[{i}]"),
            kind: a.check.name(),
            vehicles: &vehicles,
            world: &world,
            has_network: network.is_some(),
        };
        let asr = checks::assertion(&cx, i, a, &entry_names)?;
        if !anames.insert(asr.name.clone()) {
            return Err(ctx.err(
                format!("assertions[{i}].name"),
                format!("\"{}\" is used twice", asr.name),
            ));
        }
        assertions.push(asr);
    }

    let recorded_topics = topics::recorded_topics(
        &ctx,
        &raw.record,
        &timeline,
        &assertions,
        &vehicles,
        network.is_some(),
    )?;
    Ok(Scenario {
        file: file.to_path_buf(),
        raw,
        world,
        vehicles,
        network,
        timeline,
        assertions,
        duration_s,
        recorded_topics,
    })
}
