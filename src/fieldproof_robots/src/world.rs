//! The world (`worlds/<name>.yaml`): a flat ground with obstacles, a geodetic origin for
//! NavSat, named frames vehicles spawn at, and goals.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::error::{Error, FieldPath, Issues};
use crate::load;

/// A world, loaded and validated.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct World {
    /// World name (Gazebo's world name in gz topics).
    pub name: String,
    /// One line saying what the world is for.
    #[serde(default)]
    pub summary: Option<String>,
    /// The geodetic position of the world origin (x east, y north, z up: ENU).
    pub origin: GeoOrigin,
    /// Limits of the flat ground; vehicles leaving it count as a collision with the boundary.
    #[serde(default)]
    pub bounds: Option<Bounds>,
    /// Static obstacles.
    #[serde(default)]
    pub obstacles: Vec<Obstacle>,
    /// Named frames (spawn points, docks), by name.
    #[serde(default)]
    pub frames: BTreeMap<String, Pose2>,
    /// Named goals, by name.
    #[serde(default)]
    pub goals: BTreeMap<String, Pose2>,
    /// Where the world was loaded from.
    #[serde(skip)]
    pub source: PathBuf,
}

/// Geodetic origin (WGS84).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GeoOrigin {
    /// Latitude in degrees, north positive.
    pub latitude_deg: f64,
    /// Longitude in degrees, east positive.
    pub longitude_deg: f64,
    /// Altitude above the WGS84 ellipsoid.
    pub altitude_m: f64,
}

/// An axis-aligned rectangle of ground.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Bounds {
    /// South-west corner (x, y).
    pub min: [f64; 2],
    /// North-east corner (x, y).
    pub max: [f64; 2],
}

/// A pose on the ground plane (with a height).
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Pose2 {
    /// Position (x east, y north, z up).
    pub xyz: [f64; 3],
    /// Heading, counter-clockwise from +x.
    #[serde(default)]
    pub yaw_deg: f64,
}

impl Pose2 {
    /// The heading in radians.
    pub fn yaw_rad(&self) -> f64 {
        self.yaw_deg.to_radians()
    }
}

/// A static obstacle: a vertical cylinder (`circle`) or a box, standing on the ground.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Obstacle {
    /// Obstacle name (reported in collisions).
    pub name: String,
    /// Footprint shape.
    pub shape: Shape,
    /// Centre of the footprint (x, y).
    pub center: [f64; 2],
    /// Radius of a circle.
    #[serde(default)]
    pub radius_m: Option<f64>,
    /// Length (along x before rotation) and width of a box.
    #[serde(default)]
    pub size_m: Option<[f64; 2]>,
    /// Rotation of a box about z.
    #[serde(default)]
    pub yaw_deg: f64,
    /// Height (for cameras and multirotors flying over it).
    #[serde(default = "default_obstacle_height")]
    pub height_m: f64,
    /// The colour cameras draw it in (`[r, g, b]`, 0..255); none: a palette colour by its
    /// index. Perception's `inspection_target` is magenta, a colour no palette entry has.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub color_rgb: Option<[u8; 3]>,
}

fn default_obstacle_height() -> f64 {
    2.0
}

/// Obstacle footprint shapes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Shape {
    /// A circle of `radius_m`.
    Circle,
    /// A rectangle of `size_m`, rotated by `yaw_deg`.
    Box,
}

impl World {
    /// Loads and validates a world file.
    pub fn load(path: impl AsRef<Path>) -> Result<Self, Error> {
        let path = path.as_ref();
        let value = load::read_yaml(path)?;
        Self::from_value(path, value)
    }

    /// Parses and validates a world from YAML text (`name` is used in errors).
    pub fn from_yaml(name: impl AsRef<Path>, text: &str) -> Result<Self, Error> {
        let name = name.as_ref();
        let value = load::parse_yaml(name, text)?;
        Self::from_value(name, value)
    }

    fn from_value(path: &Path, value: serde_yaml::Value) -> Result<Self, Error> {
        let mut w: World = load::typed(path, value)?;
        w.source = path.to_path_buf();
        w.validate()?;
        Ok(w)
    }

    /// The named frame (spawn point) or goal.
    pub fn frame(&self, name: &str) -> Option<&Pose2> {
        self.frames.get(name).or_else(|| self.goals.get(name))
    }

    /// The error a spawn list gets for an unknown frame (lists the known ones).
    pub fn unknown_frame(&self, path: &str, name: &str) -> Error {
        Error::Field {
            file: self.source.clone(),
            path: FieldPath::parse(path),
            message: format!(
                "no frame {name} in world {} (frames: {})",
                self.name,
                self.frames.keys().cloned().collect::<Vec<_>>().join(", ")
            ),
        }
    }

    fn validate(&self) -> Result<(), Error> {
        let mut is = Issues::new(&self.source);
        let root = FieldPath::root();
        if self.name.trim().is_empty() {
            is.push(&root.key("name"), "must not be empty");
        }
        let o = &self.origin;
        let op = root.key("origin");
        if !(o.latitude_deg.is_finite() && o.latitude_deg.abs() < 90.0) {
            is.push(
                &op.key("latitude_deg"),
                format!("{} is not in (-90, 90)", o.latitude_deg),
            );
        }
        if !(o.longitude_deg.is_finite() && o.longitude_deg.abs() <= 180.0) {
            is.push(
                &op.key("longitude_deg"),
                format!("{} is not in [-180, 180]", o.longitude_deg),
            );
        }
        if !o.altitude_m.is_finite() {
            is.push(&op.key("altitude_m"), "must be a finite number");
        }
        if let Some(b) = &self.bounds {
            if !(b.min[0] < b.max[0] && b.min[1] < b.max[1]) {
                is.push(&root.key("bounds"), "min must be below max on both axes");
            }
        }
        let mut names = BTreeSet::new();
        for (i, ob) in self.obstacles.iter().enumerate() {
            let p = root.key("obstacles").index(i);
            if ob.name.trim().is_empty() {
                is.push(&p.key("name"), "must not be empty");
            }
            if !names.insert(ob.name.as_str()) {
                is.push(
                    &p.key("name"),
                    format!("duplicate obstacle name {}", ob.name),
                );
            }
            if !(ob.center[0].is_finite() && ob.center[1].is_finite()) {
                is.push(&p.key("center"), "must be finite");
            }
            if !(ob.height_m.is_finite() && ob.height_m > 0.0) {
                is.push(
                    &p.key("height_m"),
                    format!("{} must be a positive number", ob.height_m),
                );
            }
            match ob.shape {
                Shape::Circle => {
                    match ob.radius_m {
                        None => is.missing(&p, "radius_m"),
                        Some(r) if !(r.is_finite() && r > 0.0) => {
                            is.push(&p.key("radius_m"), format!("{r} must be a positive number"))
                        }
                        Some(_) => {}
                    }
                    if ob.size_m.is_some() {
                        is.push(&p.key("size_m"), "a circle has radius_m, not size_m");
                    }
                }
                Shape::Box => {
                    match ob.size_m {
                        None => is.missing(&p, "size_m"),
                        Some(s) if !s.iter().all(|v| v.is_finite() && *v > 0.0) => {
                            is.push(&p.key("size_m"), "both sides must be positive")
                        }
                        Some(_) => {}
                    }
                    if ob.radius_m.is_some() {
                        is.push(&p.key("radius_m"), "a box has size_m, not radius_m");
                    }
                }
            }
        }
        for (field, map) in [("frames", &self.frames), ("goals", &self.goals)] {
            for (name, pose) in map {
                if !pose.xyz.iter().all(|v| v.is_finite()) || !pose.yaw_deg.is_finite() {
                    is.push(&root.key(field).key(name), "must be finite");
                }
            }
        }
        for name in self.goals.keys() {
            if self.frames.contains_key(name) {
                is.push(
                    &root.key("goals").key(name),
                    format!("{name} is also a frame"),
                );
            }
        }
        is.into_result()
    }
}
