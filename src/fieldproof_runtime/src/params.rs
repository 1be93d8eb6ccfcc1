//! Declared parameters: declarations ([`Param`]), the store that validates and applies
//! changes, and the typed handles ([`ParamHandle`]) the node code reads.

pub mod handle;

pub use handle::{ParamAccessError, ParamHandle, ParamKind};

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, RwLock};

use ros2_client::parameters::raw;
use thiserror::Error;

use crate::args::{pattern_matches, ParamsSection, RosArgs};
use crate::value::{ParamType, ParamValue};

/// A hook that may veto a change: gets the parameter name and proposed value.
pub type ParamHook = Arc<dyn Fn(&str, &ParamValue) -> Result<(), String> + Send + Sync>;

/// A numeric range with an optional step (0 = any value in range), like
/// `rcl_interfaces/msg/IntegerRange` / `FloatingPointRange`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Range {
    /// Integer range.
    Integer {
        /// Lowest allowed value.
        from: i64,
        /// Highest allowed value.
        to: i64,
        /// Step from `from` (0: none).
        step: i64,
    },
    /// Floating-point range.
    Double {
        /// Lowest allowed value.
        from: f64,
        /// Highest allowed value.
        to: f64,
        /// Step from `from` (0: none).
        step: f64,
    },
}

/// A parameter declaration: name, type (from the default), default value, description,
/// range or choices, read-only and dynamic-typing flags, and an optional per-parameter hook.
///
/// ```
/// use fieldproof_runtime::Param;
/// let p = Param::double("max_speed", 1.0).description("m/s").range(0.0, 10.0);
/// let q = Param::string("input", "in").read_only();
/// let r = Param::string("loss_action", "stop").one_of(&["stop", "hold", "land"]);
/// ```
#[derive(Clone)]
pub struct Param {
    pub(crate) name: String,
    pub(crate) default: ParamValue,
    pub(crate) description: String,
    pub(crate) constraints: String,
    pub(crate) range: Option<Range>,
    pub(crate) choices: Vec<String>,
    pub(crate) read_only: bool,
    pub(crate) dynamic_typing: bool,
    pub(crate) topic: bool,
    pub(crate) hook: Option<ParamHook>,
}

impl std::fmt::Debug for Param {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Param")
            .field("name", &self.name)
            .field("default", &self.default)
            .field("range", &self.range)
            .field("choices", &self.choices)
            .field("read_only", &self.read_only)
            .finish_non_exhaustive()
    }
}

impl Param {
    /// A parameter of the default's type.
    pub fn new(name: &str, default: ParamValue) -> Param {
        Param {
            name: name.to_string(),
            default,
            description: String::new(),
            constraints: String::new(),
            range: None,
            choices: Vec::new(),
            read_only: false,
            dynamic_typing: false,
            topic: false,
            hook: None,
        }
    }
    /// A `bool` parameter.
    pub fn bool(name: &str, default: bool) -> Param {
        Param::new(name, ParamValue::Bool(default))
    }
    /// An `integer` parameter.
    pub fn int(name: &str, default: i64) -> Param {
        Param::new(name, ParamValue::Integer(default))
    }
    /// A `double` parameter.
    pub fn double(name: &str, default: f64) -> Param {
        Param::new(name, ParamValue::Double(default))
    }
    /// A `string` parameter.
    pub fn string(name: &str, default: &str) -> Param {
        Param::new(name, ParamValue::String(default.to_string()))
    }
    /// A `string_array` parameter.
    pub fn strings(name: &str, default: &[&str]) -> Param {
        Param::new(
            name,
            ParamValue::StringArray(default.iter().map(|s| s.to_string()).collect()),
        )
    }
    /// A `double_array` parameter.
    pub fn doubles(name: &str, default: &[f64]) -> Param {
        Param::new(name, ParamValue::DoubleArray(default.to_vec()))
    }
    /// An `integer_array` parameter.
    pub fn ints(name: &str, default: &[i64]) -> Param {
        Param::new(name, ParamValue::IntegerArray(default.to_vec()))
    }
    /// Description shown by `ros2 param describe`.
    pub fn description(mut self, text: &str) -> Param {
        self.description = text.to_string();
        self
    }
    /// Free-text constraints shown by `ros2 param describe`.
    pub fn constraints(mut self, text: &str) -> Param {
        self.constraints = text.to_string();
        self
    }
    /// Allowed range `[from, to]` (for an integer parameter the bounds are rounded).
    pub fn range(self, from: f64, to: f64) -> Param {
        self.range_step(from, to, 0.0)
    }
    /// Allowed range `[from, to]` with a step from `from`.
    pub fn range_step(mut self, from: f64, to: f64, step: f64) -> Param {
        self.range = Some(match self.default.ptype() {
            ParamType::Integer | ParamType::IntegerArray => Range::Integer {
                from: from.round() as i64,
                to: to.round() as i64,
                step: step.round() as i64,
            },
            _ => Range::Double { from, to, step },
        });
        self
    }
    /// The only values a `string` (or each element of a `string_array`) parameter may take,
    /// enforced on start-up values and on every change; `describe_parameters` shows them in
    /// `additional_constraints` (rcl_interfaces has no field for choices), `--help` too.
    pub fn one_of(mut self, choices: &[&str]) -> Param {
        self.choices = choices.iter().map(|c| c.to_string()).collect();
        self
    }
    /// The values [`Self::one_of`] allows (empty: any).
    pub fn choices(&self) -> &[String] {
        &self.choices
    }
    /// The declared type (the default's).
    pub fn ptype(&self) -> ParamType {
        self.default.ptype()
    }
    /// Settable at startup (defaults, files, `-p`) only, refused at run time.
    pub fn read_only(mut self) -> Param {
        self.read_only = true;
        self
    }
    /// May change type at run time (`ParameterDescriptor.dynamic_typing`).
    pub fn dynamic_typing(mut self) -> Param {
        self.dynamic_typing = true;
        self
    }
    /// A topic or service name (a string parameter): its value must be a valid ROS name
    /// (relative, absolute, `~` private, substitutions) that expands, under the node's name and
    /// namespace, to a name ROS 2 accepts. Checked at start-up (a bad value is a
    /// [`crate::StartError`], exit 2) and on every change.
    pub fn topic(mut self) -> Param {
        self.topic = true;
        if self.constraints.is_empty() {
            self.constraints = "a ROS topic name".into();
        }
        self
    }
    /// True for a parameter declared with [`Self::topic`].
    pub fn is_topic(&self) -> bool {
        self.topic
    }
    /// A hook run before each change of this parameter, and on every start-up value
    /// that overrides the default (`-p`, parameter files); an `Err(reason)` rejects it.
    pub fn on_change(
        mut self,
        hook: impl Fn(&ParamValue) -> Result<(), String> + Send + Sync + 'static,
    ) -> Param {
        self.hook = Some(Arc::new(move |_, v| hook(v)));
        self
    }

    /// The declared name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Checks `value` against type, range and choices (not read-only). `Err` is the
    /// ROS-style reason.
    pub(crate) fn check(&self, value: &ParamValue) -> Result<(), String> {
        self.check_shape(value)?;
        self.check_choices(value)
    }

    /// Checks `value` against the declaration (as [`Self::check`]) and the parameter's
    /// hook: type, range and topic first, then the hook (which may explain a refusal
    /// better than the bare choices do), then the choices.
    pub(crate) fn judge(&self, value: &ParamValue) -> Result<(), String> {
        self.check_shape(value)?;
        if let Some(hook) = &self.hook {
            hook(&self.name, value)?;
        }
        self.check_choices(value)
    }

    /// Type, range and topic checks.
    fn check_shape(&self, value: &ParamValue) -> Result<(), String> {
        if !self.dynamic_typing && value.ptype() != self.default.ptype() {
            return Err(format!(
                "Wrong parameter type, parameter {{{}}} is of type {{{}}}, setting it to {{{}}} is not allowed.",
                self.name,
                self.default.ptype(),
                value.ptype()
            ));
        }
        let out = |v: &dyn std::fmt::Display| {
            Err(format!(
                "Parameter {{{}}} doesn't comply with {} range: {v} is not in {}.",
                self.name,
                if matches!(self.range, Some(Range::Integer { .. })) {
                    "integer"
                } else {
                    "floating point"
                },
                self.range_text()
            ))
        };
        match (self.range, value) {
            (Some(Range::Integer { from, to, step }), ParamValue::Integer(v))
                if !int_ok(*v, from, to, step) =>
            {
                return out(v);
            }
            (Some(Range::Integer { from, to, step }), ParamValue::IntegerArray(vs)) => {
                if let Some(v) = vs.iter().find(|v| !int_ok(**v, from, to, step)) {
                    return out(v);
                }
            }
            (Some(Range::Double { from, to, step }), ParamValue::Double(v))
                if !double_ok(*v, from, to, step) =>
            {
                return out(v);
            }
            (Some(Range::Double { from, to, step }), ParamValue::DoubleArray(vs)) => {
                if let Some(v) = vs.iter().find(|v| !double_ok(**v, from, to, step)) {
                    return out(v);
                }
            }
            _ => {}
        }
        if self.topic {
            match value {
                ParamValue::String(name) => {
                    crate::names::validate_topic_name(name).map_err(|e| match e {
                        crate::names::NameError::Topic { reason, .. } => {
                            format!("not a valid ROS topic name: {reason}")
                        }
                        other => other.to_string(),
                    })?
                }
                other => return Err(format!("{other} is not a topic name (a string)")),
            }
        }
        Ok(())
    }

    /// `Err` names the value and the choices when `value` is not one of [`Self::one_of`].
    fn check_choices(&self, value: &ParamValue) -> Result<(), String> {
        if self.choices.is_empty() {
            return Ok(());
        }
        let outside = match value {
            ParamValue::String(s) => Some(s).filter(|s| !self.choices.contains(s)),
            ParamValue::StringArray(all) => all.iter().find(|s| !self.choices.contains(s)),
            other => {
                return Err(format!(
                    "{}: {other} is not one of {}",
                    self.name,
                    self.choices.join(", ")
                ))
            }
        };
        match outside {
            Some(s) => Err(format!(
                "{}: \"{s}\" is not one of {}",
                self.name,
                self.choices.join(", ")
            )),
            None => Ok(()),
        }
    }

    /// The choices and free-text constraints, as `describe_parameters` and `--help` show them.
    fn constraints_text(&self) -> String {
        let mut parts = Vec::new();
        if !self.choices.is_empty() {
            parts.push(format!("one of: {}", self.choices.join(", ")));
        }
        if !self.constraints.is_empty() {
            parts.push(self.constraints.clone());
        }
        parts.join("; ")
    }

    fn range_text(&self) -> String {
        match self.range {
            Some(Range::Integer { from, to, step }) if step != 0 => {
                format!("[{from}, {to}] step {step}")
            }
            Some(Range::Integer { from, to, .. }) => format!("[{from}, {to}]"),
            Some(Range::Double { from, to, step }) if step != 0.0 => {
                format!("[{from}, {to}] step {step}")
            }
            Some(Range::Double { from, to, .. }) => format!("[{from}, {to}]"),
            None => String::new(),
        }
    }

    /// The parameter as `--help` lists it: name, type, default, range or choices, whether
    /// it is read-only or a topic, then the description on its own line.
    pub fn help_entry(&self) -> String {
        let mut facts = vec![
            self.default.ptype().name().to_string(),
            format!("default {}", self.default),
        ];
        let range = self.range_text();
        if !range.is_empty() {
            facts.push(format!("range {range}"));
        }
        let constraints = self.constraints_text();
        if !constraints.is_empty() {
            facts.push(constraints);
        }
        if self.read_only {
            facts.push("read-only".into());
        }
        let mut entry = format!("  {} ({})", self.name, facts.join(", "));
        if !self.description.is_empty() {
            entry.push_str("\n      ");
            entry.push_str(&self.description);
        }
        entry
    }

    pub(crate) fn descriptor(&self) -> raw::ParameterDescriptor {
        raw::ParameterDescriptor {
            name: self.name.clone(),
            r#type: self.default.ptype() as u8,
            description: self.description.clone(),
            additional_constraints: self.constraints_text(),
            read_only: self.read_only,
            dynamic_typing: self.dynamic_typing,
            floating_point_range: match self.range {
                Some(Range::Double { from, to, step }) => vec![raw::FloatingPointRange {
                    from_value: from,
                    to_value: to,
                    step,
                }],
                _ => vec![],
            },
            integer_range: match self.range {
                Some(Range::Integer { from, to, step }) => vec![raw::IntegerRange {
                    from_value: from,
                    to_value: to,
                    step: step.max(0),
                }],
                _ => vec![],
            },
        }
    }
}

fn int_ok(v: i64, from: i64, to: i64, step: i64) -> bool {
    if v < from || v > to {
        return false;
    }
    step <= 0 || v == to || (v - from) % step == 0
}

fn double_ok(v: f64, from: f64, to: f64, step: f64) -> bool {
    // rclcpp compares with a relative tolerance (ULP-ish); we use 1e-9 of the span.
    let tol = 1e-9 * (to - from).abs().max(1.0);
    if v < from - tol || v > to + tol {
        return false;
    }
    if step <= 0.0 || (v - to).abs() <= tol {
        return true;
    }
    let k = ((v - from) / step).round();
    (from + k * step - v).abs() <= tol.max(1e-9 * step)
}

/// A parameter problem found at startup (a bad override) or in a declaration.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum ParamError {
    /// Declared twice.
    #[error("parameter '{0}' declared twice")]
    Duplicate(String),
    /// A declaration whose default violates its own range.
    #[error("parameter '{name}': default {value} is invalid: {reason}")]
    BadDefault {
        /// Parameter name.
        name: String,
        /// The default.
        value: String,
        /// Why.
        reason: String,
    },
    /// An override from the command line or a parameter file that does not fit.
    #[error("parameter '{name}': value {value} from {source_}: {reason}")]
    BadOverride {
        /// Parameter name.
        name: String,
        /// The offending value.
        value: String,
        /// Where it came from (`-p`, the file name).
        source_: String,
        /// Why.
        reason: String,
    },
    /// A parameter file that cannot be read or parsed.
    #[error("{0}")]
    File(String),
    /// A handle ([`crate::NodeBuilder::declare`]) of another type than the declaration.
    #[error("parameter '{name}' is declared as {declared} but its handle reads {requested}")]
    HandleType {
        /// Parameter name.
        name: String,
        /// The declared type (`dynamic` for a dynamically typed parameter).
        declared: String,
        /// The type the handle reads.
        requested: String,
    },
    /// A topic parameter ([`Param::topic`]) whose value does not expand to a valid name
    /// under the node's name and namespace.
    #[error("parameter '{name}': value {value}: {reason}")]
    BadTopic {
        /// Parameter name.
        name: String,
        /// The offending value.
        value: String,
        /// Why.
        reason: String,
    },
}

/// One change, as seen by hooks and watchers.
#[derive(Debug, Clone, PartialEq)]
pub struct ParamChange {
    /// Parameter name.
    pub name: String,
    /// New value.
    pub value: ParamValue,
}

pub(crate) type Watcher = Arc<dyn Fn(&ParamValue) + Send + Sync>;

/// The node's parameter values, their declarations, hooks and watchers.
pub(crate) struct ParamStore {
    decls: BTreeMap<String, Param>,
    values: RwLock<BTreeMap<String, ParamValue>>,
    node_hooks: Mutex<Vec<ParamHook>>,
    watchers: Mutex<Vec<(String, Watcher)>>,
    /// Serialises set operations so that check + hook + commit is atomic.
    set_lock: Mutex<()>,
}

impl std::fmt::Debug for ParamStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_map().entries(self.all()).finish()
    }
}

impl ParamStore {
    /// Builds the store: declarations, then overrides in ROS order
    /// (default < file `/**` sections < file node sections < `-p`).
    pub(crate) fn new(
        decls: Vec<Param>,
        node_hooks: Vec<ParamHook>,
        node_name: &str,
        fqn: &str,
        ros: &RosArgs,
        files: &[(String, Vec<ParamsSection>)],
    ) -> Result<ParamStore, ParamError> {
        let mut map = BTreeMap::new();
        for d in decls {
            if let Err(reason) = d.check(&d.default) {
                return Err(ParamError::BadDefault {
                    name: d.name.clone(),
                    value: d.default.to_string(),
                    reason,
                });
            }
            if map.insert(d.name.clone(), d.clone()).is_some() {
                return Err(ParamError::Duplicate(d.name));
            }
        }
        map.entry("use_sim_time".to_string()).or_insert_with(|| {
            Param::bool("use_sim_time", false)
                .description("Use simulation time from /clock instead of the system clock")
        });
        let mut values: BTreeMap<String, ParamValue> = map
            .iter()
            .map(|(k, d)| (k.clone(), d.default.clone()))
            .collect();
        let mut apply = |name: &str, v: &ParamValue, source: &str| -> Result<(), ParamError> {
            let Some(d) = map.get(name) else {
                tracing::debug!(
                    "ignoring override for undeclared parameter '{name}' from {source}"
                );
                return Ok(());
            };
            let v = v.clone().retype_empty_array(d.default.ptype());
            let bad = |reason| ParamError::BadOverride {
                name: name.to_string(),
                value: v.to_string(),
                source_: source.to_string(),
                reason,
            };
            // The validation hooks judge start-up values as they judge run-time changes.
            d.judge(&v).map_err(bad)?;
            for hook in &node_hooks {
                hook(name, &v).map_err(bad)?;
            }
            values.insert(name.to_string(), v);
            Ok(())
        };
        for (path, secs) in files {
            // wildcard sections first, then the ones naming this node exactly
            for exact in [false, true] {
                for s in secs {
                    let is_exact = s.pattern == fqn;
                    if is_exact == exact && (is_exact || pattern_matches(&s.pattern, fqn)) {
                        for (n, v) in &s.params {
                            apply(n, v, path)?;
                        }
                    }
                }
            }
        }
        for p in ros.params.iter().filter(|p| p.node.is_none()) {
            apply(&p.name, &p.value, "-p")?;
        }
        for p in ros
            .params
            .iter()
            .filter(|p| p.node.as_deref() == Some(node_name))
        {
            apply(&p.name, &p.value, "-p")?;
        }
        Ok(ParamStore {
            decls: map,
            values: RwLock::new(values),
            node_hooks: Mutex::new(node_hooks),
            watchers: Mutex::new(Vec::new()),
            set_lock: Mutex::new(()),
        })
    }

    pub(crate) fn get(&self, name: &str) -> Option<ParamValue> {
        self.values.read().unwrap().get(name).cloned()
    }

    pub(crate) fn decl(&self, name: &str) -> Option<&Param> {
        self.decls.get(name)
    }

    /// Checks that every topic parameter ([`Param::topic`]) expands to a valid name for
    /// node `node` in `namespace` (substitutions known, the result within rmw's length).
    pub(crate) fn check_topics(&self, node: &str, namespace: &str) -> Result<(), ParamError> {
        for (name, value) in self.all() {
            let is_topic = self.decls.get(&name).is_some_and(Param::is_topic);
            let ParamValue::String(topic) = &value else {
                continue;
            };
            if !is_topic {
                continue;
            }
            if let Err(e) = crate::names::expand(topic, node, namespace) {
                return Err(ParamError::BadTopic {
                    name,
                    value: value.to_string(),
                    reason: match e {
                        crate::names::NameError::Topic { reason, .. } => {
                            format!("not a valid ROS topic name: {reason}")
                        }
                        other => other.to_string(),
                    },
                });
            }
        }
        Ok(())
    }

    pub(crate) fn all(&self) -> Vec<(String, ParamValue)> {
        self.values
            .read()
            .unwrap()
            .iter()
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect()
    }

    pub(crate) fn add_hook(&self, hook: ParamHook) {
        self.node_hooks.lock().unwrap().push(hook);
    }

    /// Calls `f` with the current value now and after every change of `name`.
    pub(crate) fn watch(&self, name: &str, f: Watcher) {
        if let Some(v) = self.get(name) {
            f(&v);
        }
        self.watch_changes(name, f);
    }

    /// Calls `f` after every change of `name`.
    pub(crate) fn watch_changes(&self, name: &str, f: Watcher) {
        self.watchers.lock().unwrap().push((name.to_string(), f));
    }

    fn check_runtime(&self, name: &str, value: &ParamValue) -> Result<ParamValue, String> {
        let Some(d) = self.decls.get(name) else {
            return Err(format!(
                "parameter '{name}' cannot be set because it was not declared"
            ));
        };
        if d.read_only {
            return Err(format!("Trying to set a read-only parameter: {name}."));
        }
        let value = value.clone().retype_empty_array(d.default.ptype());
        d.judge(&value)?;
        Ok(value)
    }

    fn run_node_hooks(&self, changes: &[ParamChange]) -> Result<(), String> {
        let hooks = self.node_hooks.lock().unwrap().clone();
        for c in changes {
            for h in &hooks {
                h(&c.name, &c.value)?;
            }
        }
        Ok(())
    }

    fn commit(&self, changes: &[ParamChange]) {
        let mut values = self.values.write().unwrap();
        for c in changes {
            values.insert(c.name.clone(), c.value.clone());
        }
    }

    /// Runs the watchers of `changes`, with no lock held (a watcher may set parameters
    /// or add watchers).
    fn notify(&self, changes: &[ParamChange]) {
        for c in changes {
            let ws: Vec<Watcher> = self
                .watchers
                .lock()
                .unwrap()
                .iter()
                .filter(|(n, _)| *n == c.name)
                .map(|(_, w)| w.clone())
                .collect();
            for w in ws {
                w(&c.value);
            }
        }
    }

    /// Sets one parameter at run time; `Err(reason)` leaves the old value.
    pub(crate) fn set(
        &self,
        name: &str,
        value: Option<&ParamValue>,
    ) -> Result<ParamChange, String> {
        let guard = self.set_lock.lock().unwrap();
        let Some(value) = value else {
            return Err(format!(
                "cannot undeclare parameter '{name}': it is statically declared"
            ));
        };
        let value = self.check_runtime(name, value)?;
        let change = ParamChange {
            name: name.to_string(),
            value,
        };
        self.run_node_hooks(std::slice::from_ref(&change))?;
        self.commit(std::slice::from_ref(&change));
        drop(guard);
        self.notify(std::slice::from_ref(&change));
        Ok(change)
    }

    /// Sets several parameters, all or nothing.
    pub(crate) fn set_atomically(
        &self,
        params: &[(String, Option<ParamValue>)],
    ) -> Result<Vec<ParamChange>, String> {
        let guard = self.set_lock.lock().unwrap();
        let mut changes = Vec::new();
        for (name, value) in params {
            let Some(value) = value else {
                return Err(format!(
                    "cannot undeclare parameter '{name}': it is statically declared"
                ));
            };
            changes.push(ParamChange {
                name: name.clone(),
                value: self.check_runtime(name, value)?,
            });
        }
        self.run_node_hooks(&changes)?;
        self.commit(&changes);
        drop(guard);
        self.notify(&changes);
        Ok(changes)
    }

    /// `rcl_interfaces/srv/ListParameters` semantics (as rclcpp's `list_parameters`).
    pub(crate) fn list(&self, prefixes: &[String], depth: u64) -> raw_list::ListResult {
        let mut names = Vec::new();
        let mut out_prefixes: Vec<String> = Vec::new();
        let dots = |s: &str| s.matches('.').count() as u64;
        for name in self.decls.keys() {
            let get_all = prefixes.is_empty() && (depth == 0 || dots(name) < depth);
            let prefix_matches = prefixes.iter().any(|p| {
                if name == p {
                    return true;
                }
                let pd = format!("{p}.");
                name.starts_with(&pd) && (depth == 0 || dots(&name[pd.len()..]) < depth)
            });
            if get_all || prefix_matches {
                names.push(name.clone());
                if let Some(i) = name.rfind('.') {
                    let pre = name[..i].to_string();
                    if !out_prefixes.contains(&pre) {
                        out_prefixes.push(pre);
                    }
                }
            }
        }
        raw_list::ListResult {
            names,
            prefixes: out_prefixes,
        }
    }
}

pub(crate) mod raw_list {
    /// Result of a list operation.
    pub struct ListResult {
        pub names: Vec<String>,
        pub prefixes: Vec<String>,
    }
}

/// A parameter value kept up to date by the runtime; cheap to clone and read.
#[derive(Clone)]
pub struct Watch<T> {
    inner: Arc<dyn WatchRead<T>>,
}

trait WatchRead<T>: Send + Sync {
    fn read(&self) -> T;
}

impl<T: Clone + Send + Sync> WatchRead<T> for RwLock<T> {
    fn read(&self) -> T {
        self.read().unwrap().clone()
    }
}

impl<T> Watch<T> {
    /// The current value.
    pub fn get(&self) -> T {
        self.inner.read()
    }
}

impl ParamStore {
    pub(crate) fn watch_value(&self, name: &str) -> Watch<Option<ParamValue>> {
        let cell = Arc::new(RwLock::new(None));
        let c = cell.clone();
        self.watch(
            name,
            Arc::new(move |v| *c.write().unwrap() = Some(v.clone())),
        );
        Watch { inner: cell }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::args;

    fn store(ros: &[&str], files: &[(&str, &str)]) -> Result<ParamStore, ParamError> {
        let mut argv = vec!["prog", "--ros-args"];
        argv.extend_from_slice(ros);
        let (ros, _) = args::parse(argv).unwrap();
        let files: Vec<_> = files
            .iter()
            .map(|(p, t)| (p.to_string(), args::parse_params_file(t, p).unwrap()))
            .collect();
        ParamStore::new(
            vec![
                Param::int("a", 1).range_step(0.0, 10.0, 1.0),
                Param::double("speed", 0.5).range(0.0, 2.0),
                Param::string("input", "in").read_only(),
                Param::bool("flag", false),
                Param::doubles("gains", &[1.0]),
            ],
            vec![],
            "node",
            "/ns/node",
            &ros,
            &files,
        )
    }

    #[test]
    fn defaults_and_builtin_use_sim_time() {
        let s = store(&[], &[]).unwrap();
        assert_eq!(s.get("a"), Some(ParamValue::Integer(1)));
        assert_eq!(s.get("use_sim_time"), Some(ParamValue::Bool(false)));
    }

    #[test]
    fn override_order() {
        let f = "/**:\n  ros__parameters:\n    a: 2\n    speed: 1.0\n    input: wild\n/ns/node:\n  ros__parameters:\n    a: 3\n    input: exact\n";
        let s = store(&[], &[("f.yaml", f)]).unwrap();
        assert_eq!(s.get("a"), Some(ParamValue::Integer(3)));
        assert_eq!(s.get("speed"), Some(ParamValue::Double(1.0)));
        // read-only parameters can be set at startup
        assert_eq!(s.get("input"), Some(ParamValue::String("exact".into())));
        let s = store(&["-p", "a:=4", "-p", "other:a:=9"], &[("f.yaml", f)]).unwrap();
        assert_eq!(s.get("a"), Some(ParamValue::Integer(4)));
        let s = store(&["-p", "a:=4", "-p", "node:a:=5"], &[]).unwrap();
        assert_eq!(s.get("a"), Some(ParamValue::Integer(5)));
        let s = store(&["-p", "gains:=[]"], &[]).unwrap();
        assert_eq!(s.get("gains"), Some(ParamValue::DoubleArray(vec![])));
        // undeclared overrides are ignored, as rclcpp does
        assert!(store(&["-p", "nope:=1"], &[]).is_ok());
    }

    #[test]
    fn bad_overrides_name_the_parameter() {
        let e = store(&["-p", "a:=11"], &[]).unwrap_err();
        assert!(e.to_string().contains("'a'"), "{e}");
        let e = store(&["-p", "speed:=1"], &[]).unwrap_err(); // integer for a double
        assert!(
            e.to_string().contains("'speed'") && e.to_string().contains("type"),
            "{e}"
        );
        let e = store(
            &[],
            &[("x.yaml", "/**:\n  ros__parameters:\n    flag: 3\n")],
        )
        .unwrap_err();
        assert!(
            e.to_string().contains("x.yaml") && e.to_string().contains("'flag'"),
            "{e}"
        );
    }

    fn store_with(
        decls: Vec<Param>,
        hooks: Vec<ParamHook>,
        ros: &[&str],
    ) -> Result<ParamStore, ParamError> {
        let mut argv = vec!["prog", "--ros-args"];
        argv.extend_from_slice(ros);
        let (ros, _) = args::parse(argv).unwrap();
        ParamStore::new(decls, hooks, "node", "/ns/node", &ros, &[])
    }

    #[test]
    fn validation_hooks_judge_start_up_values() {
        let one_of = || {
            Param::string("mode", "reliable").on_change(|v| match v {
                ParamValue::String(s) if s == "reliable" || s == "best_effort" => Ok(()),
                other => Err(format!("{other} is not one of reliable, best_effort")),
            })
        };
        let e = store_with(vec![one_of()], vec![], &["-p", "mode:=sometimes"]).unwrap_err();
        assert_eq!(
            e.to_string(),
            "parameter 'mode': value 'sometimes' from -p: 'sometimes' is not one of reliable, best_effort"
        );
        assert!(store_with(vec![one_of()], vec![], &["-p", "mode:=best_effort"]).is_ok());
        let node_hook: ParamHook = Arc::new(|name, v| match v {
            ParamValue::Integer(n) if *n % 2 == 1 => Err(format!("{name}: {v} is odd")),
            _ => Ok(()),
        });
        let e = store_with(
            vec![Param::int("even", 0)],
            vec![node_hook.clone()],
            &["-p", "even:=3"],
        )
        .unwrap_err();
        assert_eq!(
            e.to_string(),
            "parameter 'even': value 3 from -p: even: 3 is odd"
        );
        assert!(store_with(
            vec![Param::int("even", 0)],
            vec![node_hook],
            &["-p", "even:=4"]
        )
        .is_ok());
    }

    #[test]
    fn topic_parameters_must_be_topic_names() {
        let decl = || Param::string("input", "input").topic().read_only();
        for good in [
            "scan",
            "/abs/scan",
            "~/private",
            "'{node}/x'",
            "_bridge/imu/data",
        ] {
            let s = store_with(vec![decl()], vec![], &["-p", &format!("input:={good}")]);
            assert!(s.is_ok(), "{good}: {:?}", s.err());
        }
        let e = store_with(vec![decl()], vec![], &["-p", "input:=bad topic name"]).unwrap_err();
        assert_eq!(
            e.to_string(),
            "parameter 'input': value 'bad topic name' from -p: not a valid ROS topic name: only [A-Za-z0-9_/~{}] allowed"
        );
        let e = store_with(vec![decl()], vec![], &["-p", "input:=a//b"]).unwrap_err();
        assert!(e.to_string().contains("parameter 'input'"), "{e}");
        // Valid alone, but too long under the node's namespace, or an unknown substitution.
        let s = store_with(
            vec![decl()],
            vec![],
            &["-p", &format!("input:={}", "t".repeat(240))],
        )
        .unwrap();
        assert!(s.check_topics("node", "/").is_ok());
        let e = s.check_topics("node", "/ns_ns_ns_ns").unwrap_err();
        assert!(
            e.to_string().starts_with("parameter 'input': value 'ttt")
                && e.to_string().contains("longer than 247 characters"),
            "{e}"
        );
        let s = store_with(vec![decl()], vec![], &["-p", "input:='{bad}/x'"]).unwrap();
        let e = s.check_topics("node", "/").unwrap_err();
        assert!(e.to_string().contains("unknown substitution"), "{e}");
        // A declaration whose default is no topic name is a programming error, refused too.
        let e = store_with(vec![Param::string("output", "").topic()], vec![], &[]).unwrap_err();
        assert!(matches!(e, ParamError::BadDefault { .. }), "{e}");
        // And at run time.
        let s = store_with(vec![Param::string("input", "input").topic()], vec![], &[]).unwrap();
        let r = s
            .set("input", Some(&ParamValue::String("1x".into())))
            .unwrap_err();
        assert!(r.contains("not a valid ROS topic name"), "{r}");
    }

    #[test]
    fn choices_are_enforced_at_start_up_and_on_set() {
        let decl = || Param::string("loss_action", "stop").one_of(&["stop", "hold", "land"]);
        let e = store_with(vec![decl()], vec![], &["-p", "loss_action:=panic"]).unwrap_err();
        assert_eq!(
            e.to_string(),
            "parameter 'loss_action': value 'panic' from -p: loss_action: \"panic\" is not one of stop, hold, land"
        );
        let s = store_with(vec![decl()], vec![], &["-p", "loss_action:=hold"]).unwrap();
        assert_eq!(
            s.get("loss_action"),
            Some(ParamValue::String("hold".into()))
        );
        let r = s
            .set("loss_action", Some(&ParamValue::String("fly".into())))
            .unwrap_err();
        assert_eq!(r, "loss_action: \"fly\" is not one of stop, hold, land");
        assert_eq!(
            s.get("loss_action"),
            Some(ParamValue::String("hold".into()))
        );
        s.set("loss_action", Some(&ParamValue::String("land".into())))
            .unwrap();
        assert_eq!(
            s.get("loss_action"),
            Some(ParamValue::String("land".into()))
        );
        // every element of a string array
        let s = store_with(
            vec![Param::strings("modes", &["a"]).one_of(&["a", "b"])],
            vec![],
            &[],
        )
        .unwrap();
        let r = s
            .set(
                "modes",
                Some(&ParamValue::StringArray(vec!["b".into(), "c".into()])),
            )
            .unwrap_err();
        assert_eq!(r, "modes: \"c\" is not one of a, b");
        // a default outside its own choices is a declaration error
        let e = store_with(vec![Param::string("m", "x").one_of(&["a"])], vec![], &[]).unwrap_err();
        assert!(matches!(e, ParamError::BadDefault { .. }), "{e}");
    }

    #[test]
    fn a_hook_explains_a_refusal_before_the_choices() {
        let decl = Param::string("action", "stop")
            .one_of(&["stop", "hold"])
            .on_change(|v| match v {
                ParamValue::String(s) if s == "home" => Err("action: home needs a map".into()),
                _ => Ok(()),
            });
        let s = store_with(vec![decl], vec![], &[]).unwrap();
        let home = s.set("action", Some(&ParamValue::String("home".into())));
        assert_eq!(home.unwrap_err(), "action: home needs a map");
        let other = s.set("action", Some(&ParamValue::String("fly".into())));
        assert_eq!(
            other.unwrap_err(),
            "action: \"fly\" is not one of stop, hold"
        );
    }

    #[test]
    fn choices_are_described_and_listed_in_help() {
        let p = Param::string("backend", "auto")
            .description("how to shape")
            .one_of(&["auto", "kernel", "userspace"])
            .constraints("kernel needs CAP_NET_ADMIN");
        assert_eq!(
            p.descriptor().additional_constraints,
            "one of: auto, kernel, userspace; kernel needs CAP_NET_ADMIN"
        );
        assert_eq!(
            p.help_entry(),
            "  backend (string, default 'auto', one of: auto, kernel, userspace; kernel needs \
             CAP_NET_ADMIN)\n      how to shape"
        );
        assert_eq!(p.choices(), ["auto", "kernel", "userspace"]);
        let plain = Param::double("speed", 1.0).range(0.0, 2.0);
        assert_eq!(plain.descriptor().additional_constraints, "");
    }

    #[test]
    fn runtime_validation_keeps_old_value() {
        let s = store(&[], &[]).unwrap();
        assert!(s.set("a", Some(&ParamValue::Integer(5))).is_ok());
        let r = s.set("a", Some(&ParamValue::Integer(50))).unwrap_err();
        assert!(r.contains("range"), "{r}");
        let r = s
            .set("a", Some(&ParamValue::String("x".into())))
            .unwrap_err();
        assert!(r.contains("type"), "{r}");
        let r = s
            .set("input", Some(&ParamValue::String("x".into())))
            .unwrap_err();
        assert!(r.contains("read-only"), "{r}");
        let r = s.set("missing", Some(&ParamValue::Integer(1))).unwrap_err();
        assert!(r.contains("declared"), "{r}");
        assert!(s.set("a", None).is_err());
        assert_eq!(s.get("a"), Some(ParamValue::Integer(5)));
        assert_eq!(s.get("input"), Some(ParamValue::String("in".into())));
    }

    #[test]
    fn hooks_and_watches() {
        let s = store(&[], &[]).unwrap();
        let w: ParamHandle<bool> = ParamHandle::new("flag", true);
        s.watch("flag", w.binder());
        assert!(!w.get());
        s.add_hook(Arc::new(|name, v| {
            if name == "speed" && *v == ParamValue::Double(1.5) {
                Err("1.5 is unlucky".into())
            } else {
                Ok(())
            }
        }));
        s.set("flag", Some(&ParamValue::Bool(true))).unwrap();
        assert!(w.get());
        assert_eq!(
            s.set("speed", Some(&ParamValue::Double(1.5))).unwrap_err(),
            "1.5 is unlucky"
        );
        assert_eq!(s.get("speed"), Some(ParamValue::Double(0.5)));
        let d: ParamHandle<f64> = ParamHandle::new("speed", 0.0);
        s.watch("speed", d.binder());
        s.set("speed", Some(&ParamValue::Double(1.25))).unwrap();
        assert_eq!(d.get(), 1.25);
    }

    #[test]
    fn watchers_may_set_parameters() {
        let s = Arc::new(store(&[], &[]).unwrap());
        let s2 = s.clone();
        s.watch(
            "flag",
            Arc::new(move |v| {
                if *v == ParamValue::Bool(true) {
                    s2.set("a", Some(&ParamValue::Integer(9))).unwrap();
                }
            }),
        );
        s.set("flag", Some(&ParamValue::Bool(true))).unwrap();
        assert_eq!(s.get("a"), Some(ParamValue::Integer(9)));
    }

    #[test]
    fn atomic_is_all_or_nothing() {
        let s = store(&[], &[]).unwrap();
        let r = s.set_atomically(&[
            ("a".into(), Some(ParamValue::Integer(2))),
            ("speed".into(), Some(ParamValue::Double(9.0))),
        ]);
        assert!(r.is_err());
        assert_eq!(s.get("a"), Some(ParamValue::Integer(1)));
        let r = s
            .set_atomically(&[
                ("a".into(), Some(ParamValue::Integer(2))),
                ("speed".into(), Some(ParamValue::Double(1.0))),
            ])
            .unwrap();
        assert_eq!(r.len(), 2);
        assert_eq!(s.get("a"), Some(ParamValue::Integer(2)));
    }

    #[test]
    fn ranges_with_steps() {
        assert!(int_ok(4, 0, 10, 2));
        assert!(!int_ok(5, 0, 10, 2));
        assert!(int_ok(9, 0, 9, 2)); // the upper bound is always allowed
        assert!(double_ok(0.3, 0.0, 1.0, 0.1));
        assert!(!double_ok(0.35, 0.0, 1.0, 0.1));
        assert!(double_ok(1.0, 0.0, 1.0, 0.3));
        assert!(!double_ok(1.1, 0.0, 1.0, 0.0));
    }

    #[test]
    fn list_like_rclcpp() {
        let (ros, _) = args::parse(["p"]).unwrap();
        let s = ParamStore::new(
            vec![
                Param::int("a.b.c", 1),
                Param::int("a.d", 1),
                Param::int("x", 1),
            ],
            vec![],
            "n",
            "/n",
            &ros,
            &[],
        )
        .unwrap();
        let all = s.list(&[], 0);
        assert_eq!(all.names, vec!["a.b.c", "a.d", "use_sim_time", "x"]);
        assert_eq!(all.prefixes, vec!["a.b", "a"]);
        let top = s.list(&[], 1);
        assert_eq!(top.names, vec!["use_sim_time", "x"]);
        let a = s.list(&["a".into()], 1);
        assert_eq!(a.names, vec!["a.d"]);
    }
}
