//! Which vehicles a run spawns: `--vehicle ns=ugv1,manifest=robots/ugv_ref/robot.yaml,spawn=spawn_dock`
//! (repeated) or a YAML spawn list (the `vehicles` parameter or `--vehicles FILE`).
//!
//! Keys: `ns` (namespace), `manifest`, `spawn` (a frame of the world; default: the world
//! origin), `x`, `y`, `z`, `yaw_deg` (override or, without `spawn`, give the pose),
//! `frame_prefix`, `without` (optional sensors to leave out; `camera+lidar` on the command
//! line, a list in YAML), `robot_state_publisher` (default true: the sim publishes tf_static
//! and robot_description as robot_state_publisher would), `payload_kg`, `pad` (a multirotor
//! starts landed on a carrier's pad: `carrier/pad_0`, the carrier spawned earlier in the list).

use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde::Deserialize;
use serde_yaml::{Mapping, Value};

use fieldproof_robots::{Manifest, World};

use crate::math::Pose;
use crate::SimError;

/// One vehicle to spawn, as written.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SpawnSpec {
    /// ROS namespace (`ugv1`); may be empty for a single vehicle.
    #[serde(default, alias = "namespace")]
    pub ns: String,
    /// The manifest (relative to the working directory).
    pub manifest: PathBuf,
    /// A frame of the world to spawn at.
    #[serde(default)]
    pub spawn: Option<String>,
    /// East position (overrides the frame's).
    #[serde(default)]
    pub x: Option<f64>,
    /// North position.
    #[serde(default)]
    pub y: Option<f64>,
    /// Height.
    #[serde(default)]
    pub z: Option<f64>,
    /// Heading in degrees.
    #[serde(default)]
    pub yaw_deg: Option<f64>,
    /// Prefix of every frame of this vehicle.
    #[serde(default)]
    pub frame_prefix: String,
    /// Optional sensors to leave out.
    #[serde(default)]
    pub without: Vec<String>,
    /// Publish tf_static, robot_description and the wheel transforms.
    #[serde(default = "yes")]
    pub robot_state_publisher: bool,
    /// Payload at spawn (default: the manifest's).
    #[serde(default)]
    pub payload_kg: Option<f64>,
    /// Start landed on a carrier's pad: `<carrier ns>/<pad name>`.
    #[serde(default)]
    pub pad: Option<String>,
}

fn yes() -> bool {
    true
}

impl SpawnSpec {
    /// Parses the `--vehicle key=value,key=value` form.
    pub fn parse(arg: &str) -> Result<Self, SimError> {
        let bad = |message: String| SimError::Spawn {
            what: format!("--vehicle {arg}"),
            message,
        };
        let mut map = Mapping::new();
        for part in arg.split(',').filter(|p| !p.trim().is_empty()) {
            let Some((k, v)) = part.split_once('=') else {
                return Err(bad(format!("{part}: expected key=value")));
            };
            let (k, v) = (k.trim(), v.trim());
            let value = match k {
                "x" | "y" | "z" | "yaw_deg" | "payload_kg" => match v.parse::<f64>() {
                    Ok(f) => Value::from(f),
                    Err(_) => return Err(bad(format!("{k}: {v} is not a number"))),
                },
                "robot_state_publisher" => match v {
                    "true" => Value::Bool(true),
                    "false" => Value::Bool(false),
                    _ => return Err(bad(format!("{k}: {v} is not true or false"))),
                },
                "without" => Value::Sequence(
                    v.split('+')
                        .filter(|s| !s.is_empty())
                        .map(|s| Value::String(s.to_string()))
                        .collect(),
                ),
                _ => Value::String(v.to_string()),
            };
            if map.insert(Value::String(k.to_string()), value).is_some() {
                return Err(bad(format!("{k} given twice")));
            }
        }
        serde_path_to_error::deserialize(Value::Mapping(map)).map_err(|e| {
            let path = e.path().to_string();
            bad(describe(&path, &e.into_inner().to_string()))
        })
    }

    /// Parses a YAML spawn list (a sequence of mappings with the same keys).
    pub fn parse_list(what: &str, yaml: &str) -> Result<Vec<Self>, SimError> {
        let value: Value = serde_yaml::from_str(yaml).map_err(|e| SimError::Spawn {
            what: what.into(),
            message: e.to_string(),
        })?;
        serde_path_to_error::deserialize(value).map_err(|e| {
            let path = e.path().to_string();
            SimError::Spawn {
                what: what.into(),
                message: describe(&path, &e.into_inner().to_string()),
            }
        })
    }

    /// The name the vehicle is known by in truth topics and collisions.
    pub fn label(&self, manifest: &Manifest) -> String {
        if self.ns.is_empty() {
            manifest.name.clone()
        } else {
            self.ns.trim_matches('/').to_string()
        }
    }
}

fn describe(path: &str, msg: &str) -> String {
    let msg = msg
        .replace("missing field `", "missing ")
        .replace("unknown field `", "unknown key ")
        .replace('`', "");
    if path == "." || path.is_empty() {
        msg
    } else {
        format!("{path}: {msg}")
    }
}

/// A vehicle ready to spawn: manifest loaded (optional sensors left out), pose resolved.
#[derive(Debug, Clone)]
pub struct Spawn {
    /// Namespace (no slashes).
    pub namespace: String,
    /// Name in truth topics and collisions.
    pub label: String,
    /// Frame prefix.
    pub frame_prefix: String,
    /// The manifest.
    pub manifest: Arc<Manifest>,
    /// Pose in the world.
    pub pose: Pose,
    /// Play robot_state_publisher.
    pub robot_state_publisher: bool,
    /// Payload.
    pub payload_kg: f64,
    /// Start on this pad: (index of the carrier in the spawn list, pad index).
    pub pad: Option<(usize, usize)>,
}

impl Spawn {
    /// Loads the manifest and resolves the pose against the world.
    pub fn resolve(spec: &SpawnSpec, index: usize, world: &World) -> Result<Self, SimError> {
        let path = fieldproof_robots::find_data_file(
            &spec.manifest,
            std::env::var("AMENT_PREFIX_PATH").ok().as_deref(),
        );
        let manifest = Manifest::load(&path)?;
        let without: Vec<&str> = spec.without.iter().map(String::as_str).collect();
        let manifest = if without.is_empty() {
            manifest
        } else {
            manifest.without(&without)?
        };
        let base = match &spec.spawn {
            Some(name) => *world
                .frame(name)
                .ok_or_else(|| world.unknown_frame(&format!("vehicles[{index}].spawn"), name))?,
            None => Default::default(),
        };
        let pose = Pose {
            x: spec.x.unwrap_or(base.xyz[0]),
            y: spec.y.unwrap_or(base.xyz[1]),
            z: spec.z.unwrap_or(base.xyz[2]),
            yaw: spec.yaw_deg.unwrap_or(base.yaw_deg).to_radians(),
        };
        let payload_kg = spec.payload_kg.unwrap_or(manifest.body.payload_kg);
        if !(0.0..=manifest.body.max_payload_kg).contains(&payload_kg) {
            return Err(SimError::Spawn {
                what: format!("vehicles[{index}]"),
                message: format!(
                    "payload_kg: {payload_kg} is not within 0..{} (body.max_payload_kg)",
                    manifest.body.max_payload_kg
                ),
            });
        }
        Ok(Self {
            namespace: spec.ns.trim_matches('/').to_string(),
            label: spec.label(&manifest),
            frame_prefix: spec.frame_prefix.clone(),
            manifest: Arc::new(manifest),
            pose,
            robot_state_publisher: spec.robot_state_publisher,
            payload_kg,
            pad: None,
        })
    }

    /// Resolves a whole spawn list; namespaces must differ.
    pub fn resolve_all(specs: &[SpawnSpec], world: &World) -> Result<Vec<Self>, SimError> {
        let mut out: Vec<Spawn> = Vec::new();
        for (i, s) in specs.iter().enumerate() {
            let spawn = Self::resolve(s, i, world)?;
            let mut spawn = spawn;
            if let Some(pad) = &s.pad {
                spawn.pad =
                    Some(
                        resolve_pad(&out, &spawn, pad).map_err(|message| SimError::Spawn {
                            what: format!("vehicles[{i}]"),
                            message: format!("pad: {message}"),
                        })?,
                    );
            }
            if out.iter().any(|o| o.label == spawn.label) {
                return Err(SimError::Spawn {
                    what: format!("vehicles[{i}]"),
                    message: format!("ns: {} is already used by another vehicle", spawn.label),
                });
            }
            out.push(spawn);
        }
        Ok(out)
    }
}

fn resolve_pad(earlier: &[Spawn], spawn: &Spawn, pad: &str) -> Result<(usize, usize), String> {
    if spawn.manifest.kind != fieldproof_robots::VehicleKind::Multirotor {
        return Err("only a multirotor starts on a pad".into());
    }
    let Some((carrier, name)) = pad.split_once('/') else {
        return Err(format!("{pad}: expected <carrier ns>/<pad name>"));
    };
    let Some(ci) = earlier.iter().position(|s| s.label == carrier) else {
        return Err(format!("no carrier {carrier} spawned before this vehicle"));
    };
    let Some(deck) = &earlier[ci].manifest.drive.carrier else {
        return Err(format!("{carrier} is not a carrier"));
    };
    let Some(pi) = deck.pads.iter().position(|p| p.name == name) else {
        let names: Vec<&str> = deck.pads.iter().map(|p| p.name.as_str()).collect();
        return Err(format!(
            "{carrier} has no pad {name} (pads: {})",
            names.join(", ")
        ));
    };
    Ok((ci, pi))
}

/// Resolves `path` against `base` unless absolute.
pub fn relative_to(base: &Path, path: &Path) -> PathBuf {
    if path.is_absolute() {
        path.to_path_buf()
    } else {
        base.join(path)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn command_line_form_parses() {
        let s = SpawnSpec::parse("ns=ugv1,manifest=robots/ugv_ref/robot.yaml,spawn=spawn_dock,without=camera+lidar,x=2.5").unwrap();
        assert_eq!(s.ns, "ugv1");
        assert_eq!(s.spawn.as_deref(), Some("spawn_dock"));
        assert_eq!(s.without, ["camera", "lidar"]);
        assert_eq!(s.x, Some(2.5));
        assert!(s.robot_state_publisher);
    }

    #[test]
    fn command_line_errors_name_the_key() {
        let e = SpawnSpec::parse("ns=ugv1,manifest=m.yaml,spwan=dock").unwrap_err();
        assert!(e.to_string().contains("unknown key spwan"), "{e}");
        let e = SpawnSpec::parse("ns=ugv1").unwrap_err();
        assert!(e.to_string().contains("missing manifest"), "{e}");
        let e = SpawnSpec::parse("ns=ugv1,manifest=m.yaml,x=east").unwrap_err();
        assert!(e.to_string().contains("x: east is not a number"), "{e}");
    }

    #[test]
    fn yaml_list_parses() {
        let l = SpawnSpec::parse_list(
            "vehicles",
            "- {ns: ugv1, manifest: a.yaml, spawn: spawn_dock}\n- {namespace: ugv2, manifest: a.yaml, without: [camera]}\n",
        )
        .unwrap();
        assert_eq!(l.len(), 2);
        assert_eq!(l[1].ns, "ugv2");
        let e = SpawnSpec::parse_list("vehicles", "- {ns: ugv1}\n").unwrap_err();
        assert!(e.to_string().contains("[0]: missing manifest"), "{e}");
    }
}
