//! Where the localizer's geodetic origin comes from: a world file (`world`, read through
//! `fieldproof_robots`, so through `yaml_guard`) or the three `origin_*` parameters, one or
//! the other. Unset `origin_*` parameters are NaN.

use std::path::Path;

use fieldproof_robots::{find_data_file, GeoOrigin, World};

/// The origin parameters as given (NaN: not given).
#[derive(Debug, Clone, PartialEq)]
pub struct OriginSettings {
    /// `world`: a world YAML path (relative paths also under the ament prefixes'
    /// `share/fieldproof_robots/`), empty for none.
    pub world: String,
    /// `origin_latitude_deg`.
    pub latitude_deg: f64,
    /// `origin_longitude_deg`.
    pub longitude_deg: f64,
    /// `origin_altitude_m`.
    pub altitude_m: f64,
}

impl OriginSettings {
    /// The origin: the world's when `world` is set (then no `origin_*` may be), else the three
    /// `origin_*` values, each given and in range. `ament_prefix_path` is
    /// `AMENT_PREFIX_PATH`, where installed worlds are found.
    pub fn resolve(&self, ament_prefix_path: Option<&str>) -> Result<GeoOrigin, String> {
        let given: Vec<&str> = [
            ("origin_latitude_deg", self.latitude_deg),
            ("origin_longitude_deg", self.longitude_deg),
            ("origin_altitude_m", self.altitude_m),
        ]
        .iter()
        .filter(|(_, v)| !v.is_nan())
        .map(|(name, _)| *name)
        .collect();
        if !self.world.is_empty() {
            if !given.is_empty() {
                return Err(format!(
                    "world: {:?} and {} both set: give the world or the origin, not both",
                    self.world,
                    given.join(", ")
                ));
            }
            let path = find_data_file(Path::new(&self.world), ament_prefix_path);
            return World::load(&path)
                .map(|w| w.origin)
                .map_err(|e| format!("world: {:?}: {e}", self.world));
        }
        let origin = GeoOrigin {
            latitude_deg: self.latitude_deg,
            longitude_deg: self.longitude_deg,
            altitude_m: self.altitude_m,
        };
        for (field, value, ok, complaint) in [
            (
                "origin_latitude_deg",
                origin.latitude_deg,
                origin.latitude_deg.abs() < 90.0,
                "is not in (-90, 90)",
            ),
            (
                "origin_longitude_deg",
                origin.longitude_deg,
                origin.longitude_deg.abs() <= 180.0,
                "is not in [-180, 180]",
            ),
            (
                "origin_altitude_m",
                origin.altitude_m,
                origin.altitude_m.is_finite(),
                "is not finite",
            ),
        ] {
            if value.is_nan() {
                return Err(format!(
                    "{field}: not set (give world:=<world.yaml>, or origin_latitude_deg, \
                     origin_longitude_deg and origin_altitude_m)"
                ));
            }
            if !ok {
                return Err(format!("{field}: {value} {complaint}"));
            }
        }
        Ok(origin)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn settings(world: &str, lat: f64, lon: f64, alt: f64) -> OriginSettings {
        OriginSettings {
            world: world.into(),
            latitude_deg: lat,
            longitude_deg: lon,
            altitude_m: alt,
        }
    }

    #[test]
    fn the_world_gives_its_origin() {
        let world = fieldproof_testkit::repo_root().join("worlds/open_field.yaml");
        let origin = settings(&world.to_string_lossy(), f64::NAN, f64::NAN, f64::NAN)
            .resolve(None)
            .unwrap();
        assert_eq!(
            origin,
            GeoOrigin {
                latitude_deg: 47.3977,
                longitude_deg: 8.5456,
                altitude_m: 488.0
            }
        );
    }

    #[test]
    fn the_parameters_give_the_origin() {
        assert_eq!(
            settings("", 48.0, 11.0, 500.0).resolve(None).unwrap(),
            GeoOrigin {
                latitude_deg: 48.0,
                longitude_deg: 11.0,
                altitude_m: 500.0
            }
        );
    }

    #[test]
    fn a_missing_conflicting_or_bad_origin_names_its_field() {
        let e = settings("", 48.0, f64::NAN, 500.0)
            .resolve(None)
            .unwrap_err();
        assert!(e.starts_with("origin_longitude_deg: not set"), "{e}");
        let e = settings("worlds/open_field.yaml", 48.0, f64::NAN, f64::NAN)
            .resolve(None)
            .unwrap_err();
        assert!(e.contains("origin_latitude_deg both set"), "{e}");
        let e = settings("", 95.0, 11.0, 500.0).resolve(None).unwrap_err();
        assert_eq!(e, "origin_latitude_deg: 95 is not in (-90, 90)");
        let e = settings("", 48.0, 11.0, f64::INFINITY)
            .resolve(None)
            .unwrap_err();
        assert_eq!(e, "origin_altitude_m: inf is not finite");
        let e = settings("/nonexistent/world.yaml", f64::NAN, f64::NAN, f64::NAN)
            .resolve(None)
            .unwrap_err();
        assert!(e.starts_with("world: \"/nonexistent/world.yaml\""), "{e}");
    }
}
