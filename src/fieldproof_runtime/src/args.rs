//! Pure parser for the ROS 2 command line (`--ros-args ... [--]`) and parameter files.
//!
//! Follows rcl's `rcl_parse_arguments`: everything between `--ros-args` and `--` (or the end)
//! is a ROS argument; `--ros-args` may appear several times; everything else is passed
//! through to the node untouched (including `argv[0]`). Inside a ROS section:
//!
//! | argument | meaning |
//! |---|---|
//! | `-r`/`--remap [node:]from:=to` | remap rule (`__node`, `__name`, `__ns`, or a topic/service name) |
//! | `-p`/`--param [node:]name:=value` | parameter override, value parsed as YAML |
//! | `--params-file FILE` | YAML parameter file |
//! | `--log-level [logger:=]level` | log level (debug, info, warn, error, fatal, unset) |
//! | `--enable-rosout-logs` / `--disable-rosout-logs` | publish logs on `/rosout` or not |
//! | `--enable-stdout-logs` / `--disable-stdout-logs` | print logs or not |
//! | `--enable-external-lib-logs` / `--disable-external-lib-logs` | accepted, no effect |
//! | `--log-config-file FILE`, `--log-file-name NAME`, `-e`/`--enclave NAME` | accepted, recorded |
//!
//! Anything else inside a ROS section is an error naming the argument.

use std::path::PathBuf;

use thiserror::Error;

use crate::names::{self, NameError};
use crate::value::{ParamValue, ValueError};

/// A malformed or unknown ROS argument.
#[derive(Debug, Clone, PartialEq, Error)]
pub enum ArgsError {
    /// An argument rcl does not know, inside a `--ros-args` section.
    #[error("unknown ROS argument '{0}'")]
    Unknown(String),
    /// A flag given without its value.
    #[error("ROS argument '{0}' needs a value")]
    MissingValue(String),
    /// A command-line argument that is not valid UTF-8 (shown with U+FFFD replacements).
    #[error("argument {position} '{lossy}' is not valid UTF-8")]
    NotUnicode {
        /// Its position on the command line (0 is the program).
        position: usize,
        /// The argument, invalid sequences replaced by U+FFFD.
        lossy: String,
    },
    /// A value that does not parse.
    #[error("invalid ROS argument '{flag} {value}': {reason}")]
    Invalid {
        /// The flag (`-r`, `-p`, `--log-level`, ...).
        flag: String,
        /// The value that followed it.
        value: String,
        /// Why it was refused.
        reason: String,
    },
}

/// What a remap rule renames.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RemapKind {
    /// `__node:=name` (also `__name`)
    NodeName,
    /// `__ns:=/namespace`
    Namespace,
    /// `from:=to` for topics and services
    Name {
        /// The name to replace (as written: may be relative or private).
        from: String,
    },
}

/// One `-r [node:]from:=to` rule.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Remap {
    /// Only applies to the node with this name, if set.
    pub node: Option<String>,
    /// What is renamed.
    pub kind: RemapKind,
    /// The replacement.
    pub to: String,
}

/// One `-p [node:]name:=value` override.
#[derive(Debug, Clone, PartialEq)]
pub struct ParamArg {
    /// Only applies to the node with this name, if set.
    pub node: Option<String>,
    /// Parameter name.
    pub name: String,
    /// Parsed value.
    pub value: ParamValue,
}

/// ROS log severity, as `--log-level` names them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum LogLevel {
    /// `unset`: inherit the default
    Unset,
    /// `debug`
    Debug,
    /// `info`
    Info,
    /// `warn`
    Warn,
    /// `error`
    Error,
    /// `fatal`
    Fatal,
}

impl LogLevel {
    /// Parses a level name case-insensitively (`debug`, `INFO`, `warning`, ...).
    pub fn parse(s: &str) -> Option<LogLevel> {
        Some(match s.to_ascii_lowercase().as_str() {
            "unset" => LogLevel::Unset,
            "debug" => LogLevel::Debug,
            "info" => LogLevel::Info,
            "warn" | "warning" => LogLevel::Warn,
            "error" => LogLevel::Error,
            "fatal" => LogLevel::Fatal,
            _ => return None,
        })
    }
}

/// All ROS arguments of a command line.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RosArgs {
    /// Remap rules in command-line order (the first matching rule wins).
    pub remaps: Vec<Remap>,
    /// `-p` overrides in command-line order (a later one wins).
    pub params: Vec<ParamArg>,
    /// `--params-file` paths in command-line order.
    pub params_files: Vec<PathBuf>,
    /// `--log-level level` (the default logger level).
    pub log_level: Option<LogLevel>,
    /// `--log-level name:=level` entries.
    pub logger_levels: Vec<(String, LogLevel)>,
    /// `--enable-rosout-logs` (true) / `--disable-rosout-logs` (false).
    pub rosout_logs: Option<bool>,
    /// `--enable-stdout-logs` (true) / `--disable-stdout-logs` (false).
    pub stdout_logs: Option<bool>,
    /// `--enclave`.
    pub enclave: Option<String>,
    /// `--log-config-file`.
    pub log_config_file: Option<PathBuf>,
    /// `--log-file-name`.
    pub log_file_name: Option<String>,
}

impl RosArgs {
    /// The `__node` remap that applies to a node whose name in code is `original`.
    pub fn node_name_for(&self, original: &str) -> Option<&str> {
        self.remaps
            .iter()
            .find(|r| r.kind == RemapKind::NodeName && node_matches(&r.node, original))
            .map(|r| r.to.as_str())
    }

    /// The `__ns` remap that applies to a node whose name in code is `original`.
    pub fn namespace_for(&self, original: &str) -> Option<&str> {
        self.remaps
            .iter()
            .find(|r| r.kind == RemapKind::Namespace && node_matches(&r.node, original))
            .map(|r| r.to.as_str())
    }

    /// The log level for `logger`: its own `--log-level logger:=level`, else the default one.
    pub fn log_level_for(&self, logger: &str) -> Option<LogLevel> {
        self.logger_levels
            .iter()
            .rev()
            .find(|(n, _)| n == logger)
            .map(|(_, l)| *l)
            .or(self.log_level)
    }
}

fn node_matches(rule_node: &Option<String>, node: &str) -> bool {
    rule_node.as_deref().is_none_or(|n| n == node)
}

/// Splits `[prefix:]lhs:=rhs`; the prefix is anything before a single `:` preceding `lhs`.
fn split_rule(rule: &str) -> Option<(Option<&str>, &str, &str)> {
    let idx = rule.find(":=")?;
    let (lhs, rhs) = (&rule[..idx], &rule[idx + 2..]);
    match lhs.find(':') {
        Some(c) => Some((Some(&lhs[..c]), &lhs[c + 1..], rhs)),
        None => Some((None, lhs, rhs)),
    }
}

fn invalid(flag: &str, value: &str, reason: impl ToString) -> ArgsError {
    ArgsError::Invalid {
        flag: flag.to_string(),
        value: value.to_string(),
        reason: reason.to_string(),
    }
}

fn parse_remap(flag: &str, rule: &str) -> Result<Remap, ArgsError> {
    let (node, from, to) =
        split_rule(rule).ok_or_else(|| invalid(flag, rule, "expected [node:]from:=to"))?;
    if let Some(n) = node {
        names::validate_node_name(n).map_err(|e| invalid(flag, rule, e))?;
    }
    if to.is_empty() {
        return Err(invalid(flag, rule, "empty replacement"));
    }
    let name_err = |e: NameError| invalid(flag, rule, e);
    let kind = match from {
        "__node" | "__name" => {
            names::validate_node_name(to).map_err(name_err)?;
            RemapKind::NodeName
        }
        "__ns" => {
            names::validate_namespace(to).map_err(name_err)?;
            RemapKind::Namespace
        }
        _ if from.starts_with("__") => return Err(invalid(flag, rule, "unknown special name")),
        _ => {
            names::validate_topic_name(from).map_err(name_err)?;
            names::validate_topic_name(to).map_err(name_err)?;
            RemapKind::Name {
                from: from.to_string(),
            }
        }
    };
    Ok(Remap {
        node: node.map(str::to_string),
        kind,
        to: to.to_string(),
    })
}

fn parse_param(flag: &str, rule: &str) -> Result<ParamArg, ArgsError> {
    let (node, name, value) =
        split_rule(rule).ok_or_else(|| invalid(flag, rule, "expected [node:]name:=value"))?;
    if name.is_empty() {
        return Err(invalid(flag, rule, "empty parameter name"));
    }
    if let Some(n) = node {
        names::validate_node_name(n).map_err(|e| invalid(flag, rule, e))?;
    }
    let value = ParamValue::from_yaml_str(value).map_err(|e: ValueError| invalid(flag, rule, e))?;
    Ok(ParamArg {
        node: node.map(str::to_string),
        name: name.to_string(),
        value,
    })
}

/// Converts a command line of OS strings (`std::env::args_os`) to strings, refusing the
/// first argument that is not valid UTF-8 where `std::env::args` would panic.
pub fn utf8_args<I>(args: I) -> Result<Vec<String>, ArgsError>
where
    I: IntoIterator<Item = std::ffi::OsString>,
{
    args.into_iter()
        .enumerate()
        .map(|(position, a)| {
            a.into_string().map_err(|a| ArgsError::NotUnicode {
                position,
                lossy: a.to_string_lossy().into_owned(),
            })
        })
        .collect()
}

/// Parses a full command line (including `argv[0]`); returns the ROS arguments and the
/// remaining, non-ROS arguments (with `argv[0]` first).
pub fn parse<I, S>(args: I) -> Result<(RosArgs, Vec<String>), ArgsError>
where
    I: IntoIterator<Item = S>,
    S: Into<String>,
{
    let mut ros = RosArgs::default();
    let mut rest = Vec::new();
    let mut it = args.into_iter().map(Into::into);
    let mut in_ros = false;
    while let Some(arg) = it.next() {
        if arg == "--ros-args" {
            in_ros = true;
            continue;
        }
        if !in_ros {
            rest.push(arg);
            continue;
        }
        let mut value = |flag: &str| it.next().ok_or(ArgsError::MissingValue(flag.to_string()));
        match arg.as_str() {
            "--" => in_ros = false,
            "-r" | "--remap" => ros.remaps.push(parse_remap(&arg, &value(&arg)?)?),
            "-p" | "--param" => ros.params.push(parse_param(&arg, &value(&arg)?)?),
            "--params-file" => {
                let v = value(&arg)?;
                if v.is_empty() {
                    return Err(invalid(&arg, &v, "empty path"));
                }
                ros.params_files.push(PathBuf::from(v));
            }
            "--log-level" => {
                let v = value(&arg)?;
                match v.split_once(":=") {
                    Some((logger, level)) => {
                        if logger.is_empty() {
                            return Err(invalid(&arg, &v, "empty logger name"));
                        }
                        let l = LogLevel::parse(level).ok_or_else(|| {
                            invalid(&arg, &v, "level must be debug|info|warn|error|fatal|unset")
                        })?;
                        ros.logger_levels.push((logger.to_string(), l));
                    }
                    None => {
                        ros.log_level = Some(LogLevel::parse(&v).ok_or_else(|| {
                            invalid(&arg, &v, "level must be debug|info|warn|error|fatal|unset")
                        })?);
                    }
                }
            }
            "--log-config-file" => ros.log_config_file = Some(PathBuf::from(value(&arg)?)),
            "--log-file-name" => ros.log_file_name = Some(value(&arg)?),
            "-e" | "--enclave" => ros.enclave = Some(value(&arg)?),
            "--enable-rosout-logs" => ros.rosout_logs = Some(true),
            "--disable-rosout-logs" => ros.rosout_logs = Some(false),
            "--enable-stdout-logs" => ros.stdout_logs = Some(true),
            "--disable-stdout-logs" => ros.stdout_logs = Some(false),
            "--enable-external-lib-logs" | "--disable-external-lib-logs" => {}
            _ => return Err(ArgsError::Unknown(arg)),
        }
    }
    Ok((ros, rest))
}

/// An error in a `--params-file`.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("parameter file {path}: {reason}")]
pub struct ParamsFileError {
    /// The file.
    pub path: String,
    /// What is wrong, with the YAML key path.
    pub reason: String,
}

/// One node section of a parameter file: the node pattern (`/**`, `/ns/node`, ...) and its
/// flattened parameters in file order.
#[derive(Debug, Clone, PartialEq)]
pub struct ParamsSection {
    /// The node pattern, with a leading `/` added as rcl does (`node:` → `/node`).
    pub pattern: String,
    /// `(flattened.name, value)` pairs.
    pub params: Vec<(String, ParamValue)>,
}

/// Parses parameter-file YAML: `<node pattern>: [nested namespaces:] ros__parameters: {...}`.
/// Nested parameter mappings flatten to `a.b.c`.
pub fn parse_params_file(text: &str, path: &str) -> Result<Vec<ParamsSection>, ParamsFileError> {
    let err = |reason: String| ParamsFileError {
        path: path.to_string(),
        reason,
    };
    let doc: serde_yaml::Value =
        serde_yaml::from_str(text).map_err(|e| err(format!("not valid YAML: {e}")))?;
    let mut out = Vec::new();
    if doc.is_null() {
        return Ok(out);
    }
    let top = doc
        .as_mapping()
        .ok_or_else(|| err("the top level must be a mapping of node names".into()))?;
    fn key_str(k: &serde_yaml::Value) -> Option<String> {
        match k {
            serde_yaml::Value::String(s) => Some(s.clone()),
            serde_yaml::Value::Number(n) => Some(n.to_string()),
            serde_yaml::Value::Bool(b) => Some(b.to_string()),
            _ => None,
        }
    }
    fn walk_nodes(
        prefix: &str,
        map: &serde_yaml::Mapping,
        out: &mut Vec<ParamsSection>,
        err: &dyn Fn(String) -> ParamsFileError,
    ) -> Result<(), ParamsFileError> {
        for (k, v) in map {
            let k = key_str(k).ok_or_else(|| err(format!("{prefix}: non-scalar key")))?;
            if k == "ros__parameters" {
                if prefix.is_empty() {
                    return Err(err("ros__parameters outside a node section".into()));
                }
                let pattern = if prefix.starts_with('/') {
                    prefix.to_string()
                } else {
                    format!("/{prefix}")
                };
                let mut params = Vec::new();
                match v {
                    serde_yaml::Value::Mapping(m) => {
                        flatten("", m, &mut params, prefix, err)?;
                    }
                    serde_yaml::Value::Null => {}
                    _ => return Err(err(format!("{prefix}.ros__parameters: must be a mapping"))),
                }
                out.push(ParamsSection { pattern, params });
            } else {
                let path = if prefix.is_empty() {
                    k.clone()
                } else {
                    format!(
                        "{}/{}",
                        prefix.trim_end_matches('/'),
                        k.trim_start_matches('/')
                    )
                };
                match v {
                    serde_yaml::Value::Mapping(m) => walk_nodes(&path, m, out, err)?,
                    _ => {
                        return Err(err(format!(
                            "{path}: expected a node section containing ros__parameters"
                        )))
                    }
                }
            }
        }
        Ok(())
    }
    fn flatten(
        prefix: &str,
        map: &serde_yaml::Mapping,
        params: &mut Vec<(String, ParamValue)>,
        node: &str,
        err: &dyn Fn(String) -> ParamsFileError,
    ) -> Result<(), ParamsFileError> {
        for (k, v) in map {
            let k = key_str(k).ok_or_else(|| err(format!("{node}: non-scalar key")))?;
            let name = if prefix.is_empty() {
                k
            } else {
                format!("{prefix}.{k}")
            };
            match v {
                serde_yaml::Value::Mapping(m) => flatten(&name, m, params, node, err)?,
                _ => {
                    let value = ParamValue::from_yaml(v)
                        .map_err(|reason| err(format!("{node}: parameter {name}: {reason}")))?;
                    params.push((name, value));
                }
            }
        }
        Ok(())
    }
    walk_nodes("", top, &mut out, &err)?;
    Ok(out)
}

/// Whether a parameter-file node pattern matches a fully qualified node name. `*` matches
/// one name token (or part of one), `**` any number of tokens (rcl's wildcard rules).
pub fn pattern_matches(pattern: &str, fqn: &str) -> bool {
    fn m(p: &[u8], s: &[u8]) -> bool {
        if p.is_empty() {
            return s.is_empty();
        }
        if p.starts_with(b"/**") {
            // "/**" matches "" or "/x/y..." (any number of tokens)
            let rest = &p[3..];
            if m(rest, s) {
                return true;
            }
            for i in 0..s.len() {
                if s[i] == b'/' && m(rest, &s[i..]) {
                    return true;
                }
            }
            return rest.is_empty() && s.starts_with(b"/");
        }
        match p[0] {
            b'*' => {
                let rest = &p[1..];
                let mut i = 0;
                loop {
                    if m(rest, &s[i..]) {
                        return true;
                    }
                    if i >= s.len() || s[i] == b'/' {
                        return false;
                    }
                    i += 1;
                }
            }
            c => !s.is_empty() && s[0] == c && m(&p[1..], &s[1..]),
        }
    }
    m(pattern.as_bytes(), fqn.as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(args: &[&str]) -> Result<(RosArgs, Vec<String>), ArgsError> {
        parse(args.iter().copied())
    }

    #[test]
    fn non_utf8_arguments_are_refused_naming_them() {
        use std::ffi::OsString;
        use std::os::unix::ffi::OsStringExt;
        let argv = vec![
            OsString::from("node"),
            OsString::from("--ros-args"),
            OsString::from("-p"),
            OsString::from_vec(b"input:=sc\xffan".to_vec()),
        ];
        let e = utf8_args(argv).unwrap_err();
        assert_eq!(
            e.to_string(),
            "argument 3 'input:=sc\u{fffd}an' is not valid UTF-8"
        );
        let ok = utf8_args(["a", "b"].map(OsString::from)).unwrap();
        assert_eq!(ok, ["a", "b"]);
    }

    #[test]
    fn no_ros_args_pass_through() {
        let (ros, rest) = p(&["prog", "a", "-r", "x"]).unwrap();
        assert_eq!(ros, RosArgs::default());
        assert_eq!(rest, vec!["prog", "a", "-r", "x"]);
    }

    #[test]
    fn node_and_namespace_remaps() {
        let (ros, rest) = p(&[
            "prog",
            "--ros-args",
            "-r",
            "__node:=x",
            "-r",
            "__ns:=/y",
            "--remap",
            "other:__node:=z",
        ])
        .unwrap();
        assert_eq!(rest, vec!["prog"]);
        assert_eq!(ros.node_name_for("talker"), Some("x"));
        assert_eq!(ros.namespace_for("talker"), Some("/y"));
        // the node-specific rule only applies to 'other', but the generic one came first
        assert_eq!(ros.node_name_for("other"), Some("x"));
        let (ros, _) = p(&["prog", "--ros-args", "-r", "other:__node:=z"]).unwrap();
        assert_eq!(ros.node_name_for("talker"), None);
        assert_eq!(ros.node_name_for("other"), Some("z"));
        let (ros, _) = p(&["prog", "--ros-args", "-r", "__name:=w"]).unwrap();
        assert_eq!(ros.node_name_for("talker"), Some("w"));
    }

    #[test]
    fn topic_remaps() {
        let (ros, _) = p(&[
            "prog",
            "--ros-args",
            "-r",
            "chatter:=/talk",
            "-r",
            "n:~/a:=b",
        ])
        .unwrap();
        assert_eq!(
            ros.remaps[0],
            Remap {
                node: None,
                kind: RemapKind::Name {
                    from: "chatter".into()
                },
                to: "/talk".into()
            }
        );
        assert_eq!(ros.remaps[1].node.as_deref(), Some("n"));
        assert_eq!(ros.remaps[1].kind, RemapKind::Name { from: "~/a".into() });
    }

    #[test]
    fn bad_remaps_name_the_argument() {
        for bad in [
            "chatter",
            "a:=",
            "__ns:=relative",
            "__node:=1x",
            "__foo:=x",
            "a b:=c",
            "x:=a//b",
        ] {
            let e = p(&["prog", "--ros-args", "-r", bad]).unwrap_err();
            assert!(e.to_string().contains(bad), "{e} does not name {bad}");
        }
    }

    #[test]
    fn params() {
        let (ros, _) = p(&[
            "prog",
            "--ros-args",
            "-p",
            "a:=3",
            "--param",
            "b:=[1.0, 2.0]",
            "-p",
            "n:c:=true",
            "-p",
            "s:=hello world",
            "-p",
            "e:=",
        ])
        .unwrap();
        assert_eq!(ros.params[0].value, ParamValue::Integer(3));
        assert_eq!(ros.params[1].value, ParamValue::DoubleArray(vec![1.0, 2.0]));
        assert_eq!(ros.params[2].node.as_deref(), Some("n"));
        assert_eq!(ros.params[2].value, ParamValue::Bool(true));
        assert_eq!(
            ros.params[3].value,
            ParamValue::String("hello world".into())
        );
        assert_eq!(ros.params[4].value, ParamValue::String(String::new()));
        assert!(p(&["prog", "--ros-args", "-p", "a=3"]).is_err());
        assert!(p(&["prog", "--ros-args", "-p", ":=3"]).is_err());
        assert!(p(&["prog", "--ros-args", "-p", "a:=[1, x]"]).is_err());
    }

    #[test]
    fn terminator_and_sections() {
        let (ros, rest) = p(&[
            "prog",
            "in1",
            "--ros-args",
            "-p",
            "a:=1",
            "--",
            "in2",
            "--ros-args",
            "-p",
            "b:=2",
        ])
        .unwrap();
        assert_eq!(rest, vec!["prog", "in1", "in2"]);
        assert_eq!(ros.params.len(), 2);
        // "-p" after "--" belongs to the node
        let (ros, rest) = p(&["prog", "--ros-args", "--", "-p", "x"]).unwrap();
        assert!(ros.params.is_empty());
        assert_eq!(rest, vec!["prog", "-p", "x"]);
    }

    #[test]
    fn logging_flags() {
        let (ros, _) = p(&[
            "prog",
            "--ros-args",
            "--log-level",
            "DEBUG",
            "--log-level",
            "talker:=warn",
            "--disable-rosout-logs",
            "--disable-stdout-logs",
            "--enable-external-lib-logs",
        ])
        .unwrap();
        assert_eq!(ros.log_level, Some(LogLevel::Debug));
        assert_eq!(ros.log_level_for("talker"), Some(LogLevel::Warn));
        assert_eq!(ros.log_level_for("other"), Some(LogLevel::Debug));
        assert_eq!(ros.rosout_logs, Some(false));
        assert_eq!(ros.stdout_logs, Some(false));
        assert!(p(&["prog", "--ros-args", "--log-level", "loud"]).is_err());
        assert!(p(&["prog", "--ros-args", "--log-level", ":=info"]).is_err());
    }

    #[test]
    fn unknown_and_missing() {
        assert_eq!(
            p(&["prog", "--ros-args", "--bogus"]).unwrap_err(),
            ArgsError::Unknown("--bogus".into())
        );
        assert_eq!(
            p(&["prog", "--ros-args", "stray"]).unwrap_err(),
            ArgsError::Unknown("stray".into())
        );
        assert_eq!(
            p(&["prog", "--ros-args", "-r"]).unwrap_err(),
            ArgsError::MissingValue("-r".into())
        );
        assert_eq!(
            p(&["prog", "--ros-args", "--params-file"]).unwrap_err(),
            ArgsError::MissingValue("--params-file".into())
        );
        assert!(p(&[
            "prog",
            "--ros-args",
            "--params-file",
            "f.yaml",
            "-e",
            "/enc"
        ])
        .is_ok());
    }

    #[test]
    fn params_file_sections_and_flattening() {
        let text = r#"
/**:
  ros__parameters:
    a: 1
    nested:
      b: 2.5
      deeper: {c: x}
/ns/node:
  ros__parameters:
    a: 2
node:
  ros__parameters:
    list: [1, 2]
ns2:
  other:
    ros__parameters:
      flag: true
"#;
        let secs = parse_params_file(text, "f.yaml").unwrap();
        assert_eq!(secs.len(), 4);
        assert_eq!(secs[0].pattern, "/**");
        assert_eq!(
            secs[0].params,
            vec![
                ("a".to_string(), ParamValue::Integer(1)),
                ("nested.b".to_string(), ParamValue::Double(2.5)),
                (
                    "nested.deeper.c".to_string(),
                    ParamValue::String("x".into())
                ),
            ]
        );
        assert_eq!(secs[1].pattern, "/ns/node");
        assert_eq!(secs[2].pattern, "/node");
        assert_eq!(secs[3].pattern, "/ns2/other");
        assert_eq!(secs[3].params[0].1, ParamValue::Bool(true));
    }

    #[test]
    fn params_file_errors_name_the_place() {
        let e = parse_params_file("n:\n  ros__parameters:\n    a: [1, x]\n", "f.yaml").unwrap_err();
        assert!(e.to_string().contains("f.yaml"), "{e}");
        assert!(e.to_string().contains("parameter a"), "{e}");
        assert!(parse_params_file("- 1\n", "f.yaml").is_err());
        assert!(parse_params_file("n: 3\n", "f.yaml").is_err());
        assert!(parse_params_file(": : :\n", "f.yaml").is_err());
        assert!(parse_params_file("", "f.yaml").unwrap().is_empty());
    }

    #[test]
    fn wildcards() {
        assert!(pattern_matches("/**", "/a/b/node"));
        assert!(pattern_matches("/**", "/node"));
        assert!(pattern_matches("/**/node", "/a/b/node"));
        assert!(pattern_matches("/**/node", "/node"));
        assert!(pattern_matches("/*/node", "/a/node"));
        assert!(!pattern_matches("/*/node", "/a/b/node"));
        assert!(pattern_matches("/ns/*", "/ns/node"));
        assert!(pattern_matches("/ns/no*", "/ns/node"));
        assert!(!pattern_matches("/ns/node", "/ns/node2"));
        assert!(pattern_matches("/ns/node", "/ns/node"));
    }
}
