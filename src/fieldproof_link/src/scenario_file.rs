//! The parts of a scenario file the link tools (`link_shaper`, `link_net`, `link_analysis`)
//! read, through the same types `fieldproof validate` reads them with: its `network` section
//! ([`NetworkSection`]), its durations ([`Secs`], one grammar: [`crate::duration`]) and its
//! link actions (`link.set`, `link.drop`, `link.restore`: [`LinkSet`], [`LinkDrop`],
//! [`LinkRestore`], which the scenario model's timeline uses as its own). The file is read once
//! through the YAML guard (bounded size and nesting, checked before parsing, as every reader of
//! a user's YAML file does).

use std::path::Path;

use serde::de::{self, DeserializeOwned, Deserializer, Visitor};
use serde::{Deserialize, Serialize};

pub use crate::duration::Secs;
use crate::profile::NetworkSection;

/// The link-related parts of a scenario file.
#[derive(Debug)]
pub struct ScenarioLinks {
    /// The `network` section.
    pub network: NetworkSection,
    /// The `timeline`, as written (its link actions are read by [`link_entries`]).
    pub timeline: Option<serde_yaml::Value>,
}

/// Reads `path`'s `network` section and `timeline`; errors name the file and the field.
pub fn read(path: &Path) -> Result<ScenarioLinks, String> {
    let shown = path.display();
    let text =
        fieldproof_robots::yaml_guard::read_file(path).map_err(|e| format!("{shown}: {e}"))?;
    let doc: serde_yaml::Value =
        serde_yaml::from_str(&text).map_err(|e| format!("{shown}: {e}"))?;
    let section = doc
        .get("network")
        .ok_or_else(|| format!("{shown}: network: missing"))?;
    let network: NetworkSection =
        serde_yaml::from_value(section.clone()).map_err(|e| format!("{shown}: network: {e}"))?;
    Ok(ScenarioLinks {
        network,
        timeline: doc.get("timeline").cloned(),
    })
}

/// `link.set`: the link's profile from now on.
#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct LinkSet {
    /// The profile (a preset or one of the section's `profiles`); required.
    #[serde(default)]
    pub profile: Option<String>,
}

/// `link.drop`: 100 % loss both ways; the configured profile comes back after `duration_s`
/// when given.
#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct LinkDrop {
    /// How long the link stays dropped.
    #[serde(default)]
    pub duration_s: Option<Secs>,
}

/// `link.restore`: the configured profile again.
#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct LinkRestore {}

/// A link action with its own fields.
#[derive(Debug, Clone, PartialEq)]
pub enum LinkAction {
    /// `link.set`.
    Set(LinkSet),
    /// `link.drop`.
    Drop(LinkDrop),
    /// `link.restore`.
    Restore(LinkRestore),
}

/// A field of a scenario file that does not read, with its path (`timeline[2].at`).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{path}: {message}")]
pub struct FieldError {
    /// The field's path.
    pub path: String,
    /// What is wrong, with the value.
    pub message: String,
}

/// A link action of the timeline as the link tools read it: the fields they need, typed.
#[derive(Debug, Clone, PartialEq)]
pub struct LinkEntry {
    /// The entry's index in the timeline.
    pub index: usize,
    /// The entry's name, if written.
    pub name: Option<String>,
    /// The action as written (`link.drop`).
    pub action_name: String,
    /// The vehicle, if written.
    pub vehicle: Option<String>,
    /// Its `at` trigger (simulation seconds from the timeline's start), if it has one.
    pub at: Option<f64>,
    /// The action and its fields.
    pub action: LinkAction,
}

/// The link actions of a `timeline` (entries whose action starts with `link.`), typed; other
/// entries are left to the scenario model. Errors name the field path and the value.
pub fn link_entries(timeline: &serde_yaml::Value) -> Result<Vec<LinkEntry>, FieldError> {
    let Some(entries) = timeline.as_sequence() else {
        return Err(FieldError {
            path: "timeline".into(),
            message: "expected a list".into(),
        });
    };
    let mut out = Vec::new();
    for (index, entry) in entries.iter().enumerate() {
        let Some(action_name) = entry.get("action").and_then(|a| a.as_str()) else {
            continue;
        };
        if !action_name.starts_with("link.") {
            continue;
        }
        let path = format!("timeline[{index}]");
        let Some(fields) = entry.as_mapping() else {
            continue;
        };
        let string = |key: &str| -> Result<Option<String>, FieldError> {
            field::<String>(fields, key).map_err(|e| e.under(&path))
        };
        let action = match action_name {
            "link.set" => LinkAction::Set(from_fields(fields).map_err(|e| e.under(&path))?),
            "link.drop" => LinkAction::Drop(from_fields(fields).map_err(|e| e.under(&path))?),
            "link.restore" => LinkAction::Restore(from_fields(fields).map_err(|e| e.under(&path))?),
            other => {
                return Err(FieldError {
                    path: format!("{path}.action"),
                    message: format!(
                        "unknown link action '{other}' (link.set, link.drop, link.restore)"
                    ),
                })
            }
        };
        out.push(LinkEntry {
            index,
            name: string("name")?,
            action_name: action_name.to_string(),
            vehicle: string("vehicle")?,
            at: field::<Secs>(fields, "at")
                .map_err(|e| e.under(&path))?
                .map(Secs::get),
            action,
        });
    }
    Ok(out)
}

impl FieldError {
    /// The same error with its path under `prefix` (`timeline[2]` + `at`).
    pub fn under(self, prefix: &str) -> FieldError {
        let path = if self.path.is_empty() {
            prefix.to_string()
        } else {
            format!("{prefix}.{}", self.path)
        };
        FieldError { path, ..self }
    }
}

/// One field of a mapping, typed (`None` when absent); the error's path is the key.
pub fn field<T: DeserializeOwned>(
    fields: &serde_yaml::Mapping,
    key: &str,
) -> Result<Option<T>, FieldError> {
    fields
        .get(key)
        .map(|v| {
            serde_yaml::from_value(v.clone()).map_err(|e| FieldError {
                path: key.to_string(),
                message: e.to_string(),
            })
        })
        .transpose()
}

/// A struct of optional fields (an action's or an assertion's own) read from the keys of
/// `fields` that are among [`field_names`] of `T` (other keys are the caller's to check);
/// the error's path is relative to `fields` (`duration_s`, `pose.xyz[1]`).
pub fn from_fields<T: DeserializeOwned>(fields: &serde_yaml::Mapping) -> Result<T, FieldError> {
    let names = field_names::<T>();
    let own: serde_yaml::Mapping = fields
        .iter()
        .filter(|(k, _)| k.as_str().is_some_and(|k| names.contains(&k)))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    serde_path_to_error::deserialize(serde_yaml::Value::Mapping(own)).map_err(|e| {
        let path = e.path().to_string();
        FieldError {
            path: if path == "." { String::new() } else { path },
            message: e.into_inner().to_string(),
        }
    })
}

/// The field names of a struct deriving `Deserialize` (as its derive declares them), so a
/// list of fields is never written twice.
pub fn field_names<T: DeserializeOwned>() -> &'static [&'static str] {
    let mut names: &'static [&'static str] = &[];
    let _ = T::deserialize(FieldNames(&mut names));
    names
}

/// A deserializer that only records the field names a struct asks for.
struct FieldNames<'a>(&'a mut &'static [&'static str]);

/// The error [`FieldNames`] always ends with.
#[derive(Debug)]
struct Recorded;

impl std::fmt::Display for Recorded {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("field names recorded")
    }
}

impl std::error::Error for Recorded {}

impl de::Error for Recorded {
    fn custom<M: std::fmt::Display>(_: M) -> Self {
        Recorded
    }
}

impl<'de> Deserializer<'de> for FieldNames<'_> {
    type Error = Recorded;

    fn deserialize_any<V: Visitor<'de>>(self, _: V) -> Result<V::Value, Recorded> {
        Err(Recorded)
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        fields: &'static [&'static str],
        _visitor: V,
    ) -> Result<V::Value, Recorded> {
        *self.0 = fields;
        Err(Recorded)
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf
        option unit unit_struct newtype_struct seq tuple tuple_struct map enum identifier
        ignored_any
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_example_and_refuses_hostile_files_naming_them() {
        let example =
            Path::new(env!("CARGO_MANIFEST_DIR")).join("../../config/scenarios/ugv_link_loss.yaml");
        let links = read(&example).unwrap();
        assert!(links.timeline.is_some());
        let dir = tempfile::tempdir().unwrap();
        let nested = dir.path().join("nested.yaml");
        std::fs::write(&nested, "[".repeat(100_000)).unwrap();
        let e = read(&nested).unwrap_err();
        assert!(
            e.contains("nested.yaml") && e.contains("nested deeper than the limit"),
            "{e}"
        );
        let empty = dir.path().join("empty.yaml");
        std::fs::write(&empty, "name: x\n").unwrap();
        assert!(read(&empty).unwrap_err().ends_with("network: missing"));
    }

    #[test]
    fn field_names_come_from_the_derive() {
        assert_eq!(field_names::<LinkSet>(), ["profile"]);
        assert_eq!(field_names::<LinkDrop>(), ["duration_s"]);
        assert!(field_names::<LinkRestore>().is_empty());
    }

    #[test]
    fn link_entries_are_typed_and_other_entries_left_alone() {
        let timeline: serde_yaml::Value = serde_yaml::from_str(
            "- { at: 2min, vehicle: ugv1, action: link.drop, duration_s: 250ms }\n- { after: x, action: navigate_to, goal: g }\n- { name: back, at: 1.5, vehicle: ugv1, action: link.set, profile: wifi_good }\n",
        )
        .unwrap();
        let entries = link_entries(&timeline).unwrap();
        assert_eq!(entries.len(), 2);
        assert_eq!(entries[0].at, Some(120.0));
        assert_eq!(
            entries[0].action,
            LinkAction::Drop(LinkDrop {
                duration_s: Some(Secs(0.25))
            })
        );
        assert_eq!(
            (entries[1].index, entries[1].name.as_deref()),
            (2, Some("back"))
        );
        assert_eq!(
            entries[1].action,
            LinkAction::Set(LinkSet {
                profile: Some("wifi_good".into())
            })
        );
    }

    #[test]
    fn bad_link_fields_name_their_path_and_value() {
        for (text, path, message) in [
            (
                "- { at: +3s, vehicle: ugv1, action: link.drop }",
                "timeline[0].at",
                "\"+3s\" is not a duration",
            ),
            (
                "- { at: 1s, vehicle: ugv1, action: link.drop, duration_s: 1h }",
                "timeline[0].duration_s",
                "\"1h\" is not a duration",
            ),
            (
                "- { at: 1s, vehicle: ugv1, action: link.set, profile: [a] }",
                "timeline[0].profile",
                "invalid type",
            ),
            (
                "- { at: 1s, vehicle: ugv1, action: link.explode }",
                "timeline[0].action",
                "unknown link action 'link.explode'",
            ),
        ] {
            let timeline: serde_yaml::Value = serde_yaml::from_str(text).unwrap();
            let e = link_entries(&timeline).unwrap_err();
            assert_eq!(e.path, path, "{text}: {e}");
            assert!(e.message.contains(message), "{text}: {e}");
        }
    }
}
