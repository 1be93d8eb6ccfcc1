//! The YAML frontend: walks `launch:` entities into [`ProcessSpec`]s.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_yaml::{Mapping, Value};

use super::{join_namespace, LaunchError, ProcessSpec, Scope};
use crate::ament;

/// Load one file (top level or included) into `out`. `labels` counts executables for labels.
/// The attribute and launch configuration that put a command before a process's own
/// (`gdb -ex run --args`, `ip netns exec ...`).
const LAUNCH_PREFIX: &str = "launch-prefix";

/// The keys of an `arg` (ROS 2 launch's `DeclareLaunchArgument`).
const ARG_KEYS: [&str; 4] = ["name", "default", "description", "choices"];

pub(super) fn load_file(
    file: &Path,
    args: &BTreeMap<String, String>,
    mut scope: Scope,
    out: &mut Vec<ProcessSpec>,
    labels: &mut BTreeMap<String, usize>,
) -> Result<(), LaunchError> {
    if file.extension().is_some_and(|e| e == "py") {
        return Err(LaunchError::Format {
            path: file.into(),
            reason: "Python launch files need ROS 2's `ros2 launch`; this launcher reads the YAML \
                     format (*.launch.yaml)"
                .into(),
        });
    }
    let text = std::fs::read_to_string(file).map_err(|source| LaunchError::Read {
        path: file.into(),
        source,
    })?;
    let doc: Value = serde_yaml::from_str(&text).map_err(|e| LaunchError::Format {
        path: file.into(),
        reason: e.to_string(),
    })?;
    let entities = doc
        .get("launch")
        .and_then(Value::as_sequence)
        .ok_or_else(|| LaunchError::Format {
            path: file.into(),
            reason: "top level must be `launch:` with a list of entities".into(),
        })?;
    scope.file = file.to_path_buf();
    let mut walker = Walker {
        file: file.to_path_buf(),
        args,
        used_args: Vec::new(),
        out,
        labels,
    };
    walker.entities(entities, &mut scope, "launch")?;
    if let Some(unknown) = args.keys().find(|k| !walker.used_args.contains(k)) {
        return Err(LaunchError::Argument {
            path: file.into(),
            reason: format!(
                "argument '{unknown}' is not declared (declared: {})",
                walker.used_args.join(", ")
            ),
        });
    }
    Ok(())
}

struct Walker<'a> {
    file: PathBuf,
    args: &'a BTreeMap<String, String>,
    used_args: Vec<String>,
    out: &'a mut Vec<ProcessSpec>,
    labels: &'a mut BTreeMap<String, usize>,
}

impl Walker<'_> {
    fn format_error(&self, at: &str, reason: impl Into<String>) -> LaunchError {
        LaunchError::Format {
            path: self.file.clone(),
            reason: format!("{at}: {}", reason.into()),
        }
    }

    fn entities(&mut self, list: &[Value], scope: &mut Scope, at: &str) -> Result<(), LaunchError> {
        for (i, entity) in list.iter().enumerate() {
            let at = format!("{at}[{i}]");
            let map = entity
                .as_mapping()
                .filter(|m| m.len() == 1)
                .ok_or_else(|| self.format_error(&at, "an entity is a map with one key"))?;
            let (kind, body) = map.iter().next().expect("one entry");
            let kind = kind.as_str().unwrap_or_default();
            let at = format!("{at}.{kind}");
            if !self.condition_holds(body, scope, &at)? {
                continue;
            }
            match kind {
                "arg" => self.arg(body, scope, &at)?,
                "let" => {
                    let name = self.string(body, "name", scope, &at)?;
                    let value = self.string(body, "value", scope, &at)?;
                    scope.vars.insert(name, value);
                }
                "set_env" | "set-env" => {
                    let name = self.string(body, "name", scope, &at)?;
                    let value = self.string(body, "value", scope, &at)?;
                    scope.env.insert(name, value);
                }
                "unset_env" | "unset-env" => {
                    let name = self.string(body, "name", scope, &at)?;
                    scope.env.remove(&name);
                }
                "push_ros_namespace" | "push-ros-namespace" => {
                    let ns = self.string(body, "namespace", scope, &at)?;
                    scope.namespace = join_namespace(&scope.namespace, &ns);
                }
                "group" => self.group(body, scope, &at)?,
                "include" => self.include(body, scope, &at)?,
                "node" => self.node(body, scope, &at)?,
                "executable" => self.executable(body, scope, &at)?,
                other => {
                    return Err(self.format_error(&at, format!("unsupported entity '{other}'")))
                }
            }
        }
        Ok(())
    }

    fn condition_holds(&self, body: &Value, scope: &Scope, at: &str) -> Result<bool, LaunchError> {
        let truthy = |key: &str| -> Result<Option<bool>, LaunchError> {
            match self.optional_string(body, key, scope, at)? {
                None => Ok(None),
                Some(v) => match v.to_ascii_lowercase().as_str() {
                    "true" | "1" => Ok(Some(true)),
                    "false" | "0" => Ok(Some(false)),
                    _ => Err(self.format_error(at, format!("{key}: '{v}' is not true or false"))),
                },
            }
        };
        Ok(truthy("if")?.unwrap_or(true) && !truthy("unless")?.unwrap_or(false))
    }

    fn arg(&mut self, body: &Value, scope: &mut Scope, at: &str) -> Result<(), LaunchError> {
        // As ROS 2 launch: a key it does not know is an error (an unquoted comma in a flow
        // mapping's description makes one).
        for key in body.as_mapping().into_iter().flat_map(|map| map.keys()) {
            let key = key.as_str().unwrap_or_default();
            if !ARG_KEYS.contains(&key) {
                return Err(self.format_error(
                    at,
                    format!(
                        "unexpected key '{key}' (an arg has {})",
                        ARG_KEYS.join(", ")
                    ),
                ));
            }
        }
        let name = self.string(body, "name", scope, at)?;
        let value = match (self.args.get(&name), scope.vars.get(&name)) {
            (Some(given), _) => given.clone(),
            (None, Some(existing)) => existing.clone(),
            (None, None) => self
                .optional_string(body, "default", scope, at)?
                .ok_or_else(|| LaunchError::Argument {
                    path: self.file.clone(),
                    reason: format!("required argument '{name}' not provided ({name}:=value)"),
                })?,
        };
        self.used_args.push(name.clone());
        scope.vars.insert(name, value);
        Ok(())
    }

    fn group(&mut self, body: &Value, scope: &mut Scope, at: &str) -> Result<(), LaunchError> {
        let (children, scoped) = match body {
            Value::Sequence(list) => (list.as_slice(), true),
            Value::Mapping(map) => {
                let children = map
                    .get("children")
                    .and_then(Value::as_sequence)
                    .ok_or_else(|| self.format_error(at, "missing children"))?;
                let scoped = self
                    .optional_string(body, "scoped", scope, at)?
                    .is_none_or(|s| s != "false");
                (children.as_slice(), scoped)
            }
            _ => return Err(self.format_error(at, "a group is a list of entities")),
        };
        if scoped {
            let mut inner = scope.clone();
            self.entities(children, &mut inner, at)
        } else {
            self.entities(children, scope, at)
        }
    }

    fn include(&mut self, body: &Value, scope: &mut Scope, at: &str) -> Result<(), LaunchError> {
        let file = PathBuf::from(self.string(body, "file", scope, at)?);
        let file = if file.is_relative() {
            self.file.parent().unwrap_or(Path::new(".")).join(file)
        } else {
            file
        };
        let mut args = BTreeMap::new();
        for (i, arg) in self.list(body, "arg", at)?.iter().enumerate() {
            let at = format!("{at}.arg[{i}]");
            args.insert(
                self.string(arg, "name", scope, &at)?,
                self.string(arg, "value", scope, &at)?,
            );
        }
        let mut inner = scope.clone();
        inner.vars.retain(|k, _| !args.contains_key(k));
        load_file(&file, &args, inner, self.out, self.labels)
    }

    fn node(&mut self, body: &Value, scope: &mut Scope, at: &str) -> Result<(), LaunchError> {
        let pkg = self.string(body, "pkg", scope, at)?;
        let exec = self.string(body, "exec", scope, at)?;
        let exe = ament::find_executable(&scope.prefixes, &pkg, &exec)?;
        let mut cmd = vec![exe.display().to_string()];
        if let Some(extra) = self.optional_string(body, "args", scope, at)? {
            cmd.extend(extra.split_whitespace().map(str::to_string));
        }
        cmd.push("--ros-args".into());
        if let Some(name) = self.optional_string(body, "name", scope, at)? {
            cmd.extend(["-r".into(), format!("__node:={name}")]);
        }
        let own_ns = self
            .optional_string(body, "namespace", scope, at)?
            .unwrap_or_default();
        let ns = join_namespace(&scope.namespace, &own_ns);
        if !ns.is_empty() {
            cmd.extend(["-r".into(), format!("__ns:={ns}")]);
        }
        for (i, param) in self.list(body, "param", at)?.iter().enumerate() {
            let at = format!("{at}.param[{i}]");
            if let Some(from) = self.optional_string(param, "from", scope, &at)? {
                cmd.extend(["--params-file".into(), from]);
            } else {
                let name = self.string(param, "name", scope, &at)?;
                let value = self.string(param, "value", scope, &at)?;
                cmd.extend(["-p".into(), format!("{name}:={value}")]);
            }
        }
        for (i, remap) in self.list(body, "remap", at)?.iter().enumerate() {
            let at = format!("{at}.remap[{i}]");
            let from = self.string(remap, "from", scope, &at)?;
            let to = self.string(remap, "to", scope, &at)?;
            cmd.extend(["-r".into(), format!("{from}:={to}")]);
        }
        if let Some(ros_args) = self.optional_string(body, "ros_args", scope, at)? {
            cmd.extend(ros_args.split_whitespace().map(str::to_string));
        }
        let shutdown = self.optional_string(body, "on_exit", scope, at)?;
        self.push(&exec, cmd, body, scope, at, shutdown)
    }

    fn executable(&mut self, body: &Value, scope: &mut Scope, at: &str) -> Result<(), LaunchError> {
        let cmd: Vec<String> = self
            .string(body, "cmd", scope, at)?
            .split_whitespace()
            .map(str::to_string)
            .collect();
        let label = match self.optional_string(body, "name", scope, at)? {
            Some(name) => name,
            None => Path::new(&cmd[0])
                .file_name()
                .map(|f| f.to_string_lossy().into_owned())
                .unwrap_or_else(|| cmd[0].clone()),
        };
        let shutdown = self.optional_string(body, "on_exit", scope, at)?;
        self.push(&label, cmd, body, scope, at, shutdown)
    }

    fn push(
        &mut self,
        base: &str,
        cmd: Vec<String>,
        body: &Value,
        scope: &Scope,
        at: &str,
        on_exit: Option<String>,
    ) -> Result<(), LaunchError> {
        let shutdown_on_exit = match on_exit.as_deref() {
            None => false,
            Some("shutdown") => true,
            Some(other) => {
                return Err(self.format_error(at, format!("on_exit: '{other}' is not 'shutdown'")))
            }
        };
        // As in ROS 2 launch: a process's own `launch-prefix`, else the `launch-prefix`
        // launch configuration of its scope (a `let` before an include prefixes every
        // process of the included file).
        let prefix = match self.optional_string(body, LAUNCH_PREFIX, scope, at)? {
            Some(own) => own,
            None => scope.vars.get(LAUNCH_PREFIX).cloned().unwrap_or_default(),
        };
        let cmd = if prefix.trim().is_empty() {
            cmd
        } else {
            let mut words = shlex::split(&prefix).ok_or_else(|| {
                self.format_error(
                    at,
                    format!("{LAUNCH_PREFIX}: '{prefix}' has unbalanced quotes"),
                )
            })?;
            words.extend(cmd);
            words
        };
        let mut env = scope.env.clone();
        for (i, var) in self.list(body, "env", at)?.iter().enumerate() {
            let at = format!("{at}.env[{i}]");
            env.insert(
                self.string(var, "name", scope, &at)?,
                self.string(var, "value", scope, &at)?,
            );
        }
        let n = self.labels.entry(base.to_string()).or_insert(0);
        *n += 1;
        self.out.push(ProcessSpec {
            label: format!("{base}-{n}"),
            cmd,
            env,
            unset_env: Vec::new(),
            shutdown_on_exit,
        });
        Ok(())
    }

    fn list<'v>(&self, body: &'v Value, key: &str, at: &str) -> Result<&'v [Value], LaunchError> {
        match body.get(key) {
            None => Ok(&[]),
            Some(Value::Sequence(list)) => Ok(list),
            Some(_) => Err(self.format_error(at, format!("{key}: must be a list"))),
        }
    }

    fn optional_string(
        &self,
        body: &Value,
        key: &str,
        scope: &Scope,
        at: &str,
    ) -> Result<Option<String>, LaunchError> {
        let raw = match body.as_mapping().and_then(|m: &Mapping| m.get(key)) {
            None | Some(Value::Null) => return Ok(None),
            Some(Value::String(s)) => s.clone(),
            Some(Value::Bool(b)) => b.to_string(),
            Some(Value::Number(n)) => n.to_string(),
            Some(_) => return Err(self.format_error(at, format!("{key}: must be a scalar"))),
        };
        scope.expand(&raw).map(Some)
    }

    fn string(
        &self,
        body: &Value,
        key: &str,
        scope: &Scope,
        at: &str,
    ) -> Result<String, LaunchError> {
        self.optional_string(body, key, scope, at)?
            .ok_or_else(|| self.format_error(at, format!("missing {key}")))
    }
}
