//! Reading YAML documents: `extends` chains, deep merge, strict typed deserialisation.
//!
//! # `extends` and deep merge
//! A manifest may start with `extends: <path>` (relative to the file that says it). The base
//! is loaded first (its own `extends` too: chains of any length, cycles are an error), then
//! the extending document is merged over it:
//! - maps merge key by key, recursively; a key set to `null` (`~`) removes the inherited key;
//! - a sequence of maps that all carry a `name` key (sensors, outputs, joints) or a `child`
//!   key (description frames) merges item by item on that key: an item naming an inherited
//!   one is merged into it (in the base's order), a new name is appended, and an item with
//!   `remove: true` drops the inherited one;
//! - anything else (scalars, other sequences) replaces the base's value.

use std::path::{Path, PathBuf};

use serde::de::DeserializeOwned;
use serde_yaml::{Mapping, Value};

use crate::error::{from_serde, Error, FieldPath};
use crate::yaml_guard;

/// Reads one YAML file into a value, through [`yaml_guard::read_file`] (bounded, checked
/// before parsing).
pub(crate) fn read_yaml(file: &Path) -> Result<Value, Error> {
    let text = yaml_guard::read_file(file).map_err(|e| match e {
        yaml_guard::ReadError::Io(source) => Error::Io {
            file: file.to_path_buf(),
            source,
        },
        yaml_guard::ReadError::Refused(refusal) => Error::Syntax {
            file: file.to_path_buf(),
            message: refusal.to_string(),
        },
    })?;
    parse_yaml(file, &text)
}

/// Parses YAML text (named `file` in errors); text larger than [`yaml_guard::MAX_BYTES`]
/// or nested deeper than [`yaml_guard::MAX_DEPTH`] is refused before `serde_yaml` sees it.
pub(crate) fn parse_yaml(file: &Path, text: &str) -> Result<Value, Error> {
    yaml_guard::check(text).map_err(|e| Error::Syntax {
        file: file.to_path_buf(),
        message: e.to_string(),
    })?;
    let value: Value = serde_yaml::from_str(text).map_err(|e| Error::Syntax {
        file: file.to_path_buf(),
        message: e.to_string(),
    })?;
    match value {
        Value::Mapping(_) => Ok(value),
        Value::Null => Err(Error::Field {
            file: file.to_path_buf(),
            path: FieldPath::root(),
            message: "empty document".into(),
        }),
        _ => Err(Error::Field {
            file: file.to_path_buf(),
            path: FieldPath::root(),
            message: "expected a mapping at the top level".into(),
        }),
    }
}

/// Loads `file`, resolving its `extends` chain; returns the merged document (without
/// `extends`) and the chain, leaf first.
pub(crate) fn load_with_extends(file: &Path) -> Result<(Value, Vec<PathBuf>), Error> {
    let mut chain: Vec<PathBuf> = Vec::new();
    let mut docs: Vec<Value> = Vec::new();
    let mut current = file.to_path_buf();
    loop {
        let canon = std::fs::canonicalize(&current).map_err(|source| Error::Io {
            file: current.clone(),
            source,
        })?;
        if chain
            .iter()
            .any(|c| std::fs::canonicalize(c).ok().as_ref() == Some(&canon))
        {
            let mut names: Vec<String> = chain.iter().map(|p| p.display().to_string()).collect();
            names.push(current.display().to_string());
            return Err(Error::ExtendsCycle {
                file: chain.last().cloned().unwrap_or_else(|| file.to_path_buf()),
                chain: names.join(" -> "),
            });
        }
        let mut doc = read_yaml(&current)?;
        let extends = match &mut doc {
            Value::Mapping(m) => m.remove("extends"),
            _ => None,
        };
        resolve_paths(&mut doc, current.parent().unwrap_or(Path::new(".")));
        chain.push(current.clone());
        docs.push(doc);
        match extends {
            None => break,
            Some(Value::String(rel)) => {
                let base_dir = current.parent().unwrap_or(Path::new("."));
                current = normalize(&base_dir.join(rel));
            }
            Some(_) => {
                return Err(Error::Field {
                    file: current,
                    path: FieldPath::root().key("extends"),
                    message: "expected a path (string)".into(),
                })
            }
        }
    }
    let mut merged = docs.pop().expect("at least one document");
    while let Some(over) = docs.pop() {
        merged = merge(merged, over);
    }
    Ok((merged, chain))
}

/// Fields holding a path relative to the file that declares them.
const PATH_FIELDS: &[&[&str]] = &[&["description", "xacro"]];

/// Rewrites the relative path fields of `doc` against `dir`, so that a path keeps pointing
/// at the same file whichever manifest of an `extends` chain declared it.
pub(crate) fn resolve_paths(doc: &mut Value, dir: &Path) {
    for field in PATH_FIELDS {
        if let Some(Value::String(s)) = lookup_mut(doc, field) {
            if Path::new(s.as_str()).is_relative() && !dir.as_os_str().is_empty() {
                *s = normalize(&dir.join(&*s)).to_string_lossy().into_owned();
            }
        }
    }
}

/// Removes `.` and folds `dir/..` lexically (no file system access).
pub(crate) fn normalize(p: &Path) -> PathBuf {
    use std::path::Component;
    let mut out = PathBuf::new();
    for c in p.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => match out.components().next_back() {
                Some(Component::Normal(_)) => {
                    out.pop();
                }
                _ => out.push(".."),
            },
            other => out.push(other.as_os_str()),
        }
    }
    out
}

fn lookup_mut<'a>(v: &'a mut Value, keys: &[&str]) -> Option<&'a mut Value> {
    match keys.split_first() {
        None => Some(v),
        Some((k, rest)) => lookup_mut(v.get_mut(*k)?, rest),
    }
}

/// Deep-merges `over` onto `base` (see the module docs).
pub fn merge(base: Value, over: Value) -> Value {
    match (base, over) {
        (Value::Mapping(mut b), Value::Mapping(o)) => {
            for (k, v) in o {
                if v.is_null() {
                    b.remove(&k);
                    continue;
                }
                let merged = match b.remove(&k) {
                    Some(old) => merge(old, v),
                    None => strip_removals(v),
                };
                b.insert(k, merged);
            }
            Value::Mapping(b)
        }
        (Value::Sequence(b), Value::Sequence(o)) => match merge_key(&b, &o) {
            Some(key) => Value::Sequence(merge_named(b, o, key)),
            None => Value::Sequence(o),
        },
        (_, over) => over,
    }
}

fn strip_removals(v: Value) -> Value {
    match v {
        Value::Sequence(items) => {
            Value::Sequence(items.into_iter().filter(|i| !is_removal(i)).collect())
        }
        other => other,
    }
}

fn is_removal(item: &Value) -> bool {
    item.get("remove").and_then(Value::as_bool) == Some(true)
}

/// The key a sequence pair merges on: `name` or `child`, if every item has it.
fn merge_key(base: &[Value], over: &[Value]) -> Option<&'static str> {
    ["name", "child"].into_iter().find(|key| {
        base.iter()
            .chain(over)
            .all(|i| i.get(*key).is_some_and(Value::is_string))
            && !(base.is_empty() && over.is_empty())
    })
}

fn merge_named(base: Vec<Value>, over: Vec<Value>, key: &str) -> Vec<Value> {
    let mut out = base;
    for item in over {
        let name = item.get(key).cloned();
        let pos = out.iter().position(|b| b.get(key) == name.as_ref());
        match (pos, is_removal(&item)) {
            (Some(i), true) => {
                out.remove(i);
            }
            (None, true) => {}
            (Some(i), false) => {
                let old = std::mem::replace(&mut out[i], Value::Null);
                out[i] = merge(old, item);
            }
            (None, false) => out.push(item),
        }
    }
    out
}

/// Deserialises `value` strictly, turning serde's error into a field error of `file`.
pub(crate) fn typed<T: DeserializeOwned>(file: &Path, value: Value) -> Result<T, Error> {
    serde_path_to_error::deserialize(value).map_err(|e| {
        let path = FieldPath::parse(&e.path().to_string());
        let inner = e.into_inner().to_string();
        let (path, message) = from_serde(path, &inner);
        Error::Field {
            file: file.to_path_buf(),
            path,
            message,
        }
    })
}

/// An empty mapping value.
#[allow(dead_code)]
pub(crate) fn empty_map() -> Value {
    Value::Mapping(Mapping::new())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn y(s: &str) -> Value {
        serde_yaml::from_str(s).unwrap()
    }

    #[test]
    fn maps_merge_and_null_removes() {
        let m = merge(
            y("{a: 1, b: {c: 2, d: 3}, e: 4}"),
            y("{b: {c: 5}, e: ~, f: 6}"),
        );
        assert_eq!(m, y("{a: 1, b: {c: 5, d: 3}, f: 6}"));
    }

    #[test]
    fn named_sequences_merge_by_name() {
        let m = merge(
            y("[{name: imu, rate_hz: 100}, {name: lidar, rate_hz: 10}, {name: cam}]"),
            y("[{name: lidar, rate_hz: 20}, {name: cam, remove: true}, {name: sonar}]"),
        );
        assert_eq!(
            m,
            y("[{name: imu, rate_hz: 100}, {name: lidar, rate_hz: 20}, {name: sonar}]")
        );
        let m = merge(y("[{child: a, x: 1}]"), y("[{child: a, x: 2}, {child: b}]"));
        assert_eq!(m, y("[{child: a, x: 2}, {child: b}]"));
    }

    #[test]
    fn paths_are_normalized() {
        assert_eq!(
            normalize(Path::new("robots/ugv_nav2/../ugv_ref/./robot.yaml")),
            PathBuf::from("robots/ugv_ref/robot.yaml")
        );
        assert_eq!(normalize(Path::new("../a/../b")), PathBuf::from("../b"));
    }

    #[test]
    fn plain_sequences_replace() {
        assert_eq!(merge(y("[1, 2]"), y("[3]")), y("[3]"));
        assert_eq!(
            merge(y("{xyz: [0, 0, 1]}"), y("{xyz: [1, 2, 3]}")),
            y("{xyz: [1, 2, 3]}")
        );
    }
}
