//! One vehicle's ground-station heartbeat as the ground station's `heartbeats` parameter
//! carries it: who gets it, on which fully qualified topic, how often, with which QoS.
//!
//! One entry per vehicle that expects a heartbeat, as one string (ROS parameters have no
//! structs): `<vehicle> <topic> <rate_hz> <reliability> <durability> <depth>`, e.g.
//! `ugv1 /robots/a/gcs/heartbeat 2.0 best_effort volatile 1`. The scenario runner writes
//! the entries from each vehicle's manifest (`runtime.link.heartbeat`), its topic resolved
//! in the vehicle's namespace; a vehicle whose manifest has no heartbeat gets no entry.

use std::fmt;

/// The heartbeat of one vehicle.
#[derive(Debug, Clone, PartialEq)]
pub struct HeartbeatSpec {
    /// The vehicle (as in the ground station's `vehicles`).
    pub vehicle: String,
    /// Fully qualified topic (`/ns/gcs/heartbeat`).
    pub topic: String,
    /// Rate, Hz (> 0).
    pub rate_hz: f64,
    /// `reliable` or `best_effort`.
    pub reliable: bool,
    /// `transient_local` (true) or `volatile`.
    pub transient_local: bool,
    /// Keep-last depth (≥ 1).
    pub depth: u32,
}

/// The fastest heartbeat the ground station sends (Hz).
pub const MAX_RATE_HZ: f64 = 100.0;

impl HeartbeatSpec {
    /// Parses entry `index` of the `heartbeats` parameter; errors name the entry and field.
    pub fn parse(index: usize, entry: &str) -> Result<HeartbeatSpec, String> {
        let at = |what: &str| format!("heartbeats[{index}]: {what}");
        let fields: Vec<&str> = entry.split_whitespace().collect();
        let [vehicle, topic, rate, reliability, durability, depth] = fields[..] else {
            return Err(at(&format!(
                "'{entry}' is not '<vehicle> <topic> <rate_hz> <reliability> <durability> <depth>'"
            )));
        };
        if !topic.starts_with('/') {
            return Err(at(&format!("topic '{topic}' is not fully qualified")));
        }
        let rate_hz: f64 = rate
            .parse()
            .ok()
            .filter(|r: &f64| r.is_finite() && *r > 0.0 && *r <= MAX_RATE_HZ)
            .ok_or_else(|| at(&format!("rate_hz '{rate}' is not in (0, {MAX_RATE_HZ}]")))?;
        let reliable = match reliability {
            "reliable" => true,
            "best_effort" => false,
            other => {
                return Err(at(&format!(
                    "reliability '{other}' is not one of reliable, best_effort"
                )))
            }
        };
        let transient_local = match durability {
            "transient_local" => true,
            "volatile" => false,
            other => {
                return Err(at(&format!(
                    "durability '{other}' is not one of volatile, transient_local"
                )))
            }
        };
        let depth: u32 = depth
            .parse()
            .ok()
            .filter(|d| (1..=1000).contains(d))
            .ok_or_else(|| at(&format!("depth '{depth}' is not in 1..=1000")))?;
        Ok(HeartbeatSpec {
            vehicle: vehicle.to_string(),
            topic: topic.to_string(),
            rate_hz,
            reliable,
            transient_local,
            depth,
        })
    }
}

/// The parameter entry (what [`HeartbeatSpec::parse`] reads back).
impl fmt::Display for HeartbeatSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} {} {:?} {} {} {}",
            self.vehicle,
            self.topic,
            self.rate_hz,
            if self.reliable {
                "reliable"
            } else {
                "best_effort"
            },
            if self.transient_local {
                "transient_local"
            } else {
                "volatile"
            },
            self.depth
        )
    }
}

/// The heartbeats the ground station sends, from its parameters: the `heartbeats` entries,
/// each naming one of `vehicles`, at most one per vehicle; without entries,
/// every vehicle gets `/<vehicle>/<fallback_topic>` at `fallback_rate_hz` (none at 0), best
/// effort, depth 1 (a ground station started by hand for vehicles named as their namespaces).
/// Errors name the entry and what is wrong with it.
pub fn ground_station_heartbeats(
    vehicles: &[String],
    entries: &[String],
    fallback_topic: &str,
    fallback_rate_hz: f64,
) -> Result<Vec<HeartbeatSpec>, String> {
    if entries.is_empty() {
        if fallback_rate_hz <= 0.0 {
            return Ok(Vec::new());
        }
        return Ok(vehicles
            .iter()
            .map(|v| HeartbeatSpec {
                vehicle: v.clone(),
                topic: format!("/{v}/{}", fallback_topic.trim_start_matches('/')),
                rate_hz: fallback_rate_hz,
                reliable: false,
                transient_local: false,
                depth: 1,
            })
            .collect());
    }
    let mut specs: Vec<HeartbeatSpec> = Vec::with_capacity(entries.len());
    for (index, entry) in entries.iter().enumerate() {
        let spec = HeartbeatSpec::parse(index, entry)?;
        let at = |what: String| format!("heartbeats[{index}]: {what}");
        if !vehicles.contains(&spec.vehicle) {
            return Err(at(format!(
                "vehicle '{}' is not one of vehicles [{}]",
                spec.vehicle,
                vehicles.join(", ")
            )));
        }
        if let Some(earlier) = specs.iter().position(|s| s.vehicle == spec.vehicle) {
            return Err(at(format!(
                "vehicle '{}' already has its heartbeat in heartbeats[{earlier}]",
                spec.vehicle
            )));
        }
        specs.push(spec);
    }
    Ok(specs)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn the_ground_station_sends_each_entry_and_nothing_to_a_vehicle_without_one() {
        let vehicles = names(&["ugv1", "ugv2", "ugv3"]);
        let entries = names(&[
            "ugv1 /alpha/gcs/heartbeat 2.0 best_effort volatile 1",
            "ugv2 /bravo/radio/beat 5.0 reliable volatile 5",
        ]);
        // The fallback topic and rate are ignored once there are entries.
        let specs = ground_station_heartbeats(&vehicles, &entries, "gcs/heartbeat", 2.0).unwrap();
        let summary: Vec<String> = specs.iter().map(ToString::to_string).collect();
        assert_eq!(summary, entries);
        assert_eq!(specs[1].rate_hz, 5.0);
        assert!(specs[1].reliable && specs[1].depth == 5);
        assert!(specs.iter().all(|s| s.vehicle != "ugv3"));
    }

    #[test]
    fn without_entries_each_vehicle_gets_the_fallback_under_its_name_or_none_at_rate_0() {
        let vehicles = names(&["ugv1", "ugv2"]);
        let specs = ground_station_heartbeats(&vehicles, &[], "/gcs/heartbeat", 4.0).unwrap();
        let summary: Vec<String> = specs.iter().map(ToString::to_string).collect();
        assert_eq!(
            summary,
            [
                "ugv1 /ugv1/gcs/heartbeat 4.0 best_effort volatile 1",
                "ugv2 /ugv2/gcs/heartbeat 4.0 best_effort volatile 1"
            ]
        );
        assert!(
            ground_station_heartbeats(&vehicles, &[], "gcs/heartbeat", 0.0)
                .unwrap()
                .is_empty()
        );
    }

    #[test]
    fn entries_for_unknown_vehicles_or_twice_the_same_are_refused_naming_them() {
        let vehicles = names(&["ugv1", "ugv2"]);
        for (entries, needle) in [
            (
                vec!["ugv9 /a/hb 2 best_effort volatile 1"],
                "heartbeats[0]: vehicle 'ugv9' is not one of vehicles [ugv1, ugv2]",
            ),
            (
                vec![
                    "ugv1 /a/hb 2 best_effort volatile 1",
                    "ugv1 /b/hb 2 best_effort volatile 1",
                ],
                "heartbeats[1]: vehicle 'ugv1' already has its heartbeat in heartbeats[0]",
            ),
            (
                vec!["ugv1 /a/hb 2 best_effort volatile 1", "ugv2 b/hb 5"],
                "heartbeats[1]: 'ugv2 b/hb 5' is not",
            ),
        ] {
            let e = ground_station_heartbeats(&vehicles, &names(&entries), "gcs/heartbeat", 2.0)
                .unwrap_err();
            assert!(e.starts_with(needle), "{entries:?}: {e}");
        }
    }

    #[test]
    fn an_entry_round_trips() {
        let spec = HeartbeatSpec {
            vehicle: "ugv1".into(),
            topic: "/robots/a/gcs/heartbeat".into(),
            rate_hz: 2.0,
            reliable: false,
            transient_local: false,
            depth: 1,
        };
        let text = spec.to_string();
        assert_eq!(
            text,
            "ugv1 /robots/a/gcs/heartbeat 2.0 best_effort volatile 1"
        );
        assert_eq!(HeartbeatSpec::parse(0, &text).unwrap(), spec);
    }

    #[test]
    fn bad_entries_name_the_entry_and_the_field() {
        for (entry, needle) in [
            ("ugv1 /t 2.0", "is not '<vehicle>"),
            (
                "ugv1 t 2.0 reliable volatile 1",
                "topic 't' is not fully qualified",
            ),
            ("ugv1 /t 0 reliable volatile 1", "rate_hz '0'"),
            ("ugv1 /t NaN reliable volatile 1", "rate_hz 'NaN'"),
            ("ugv1 /t 1e9 reliable volatile 1", "rate_hz '1e9'"),
            ("ugv1 /t 2 sometimes volatile 1", "reliability 'sometimes'"),
            ("ugv1 /t 2 reliable forever 1", "durability 'forever'"),
            ("ugv1 /t 2 reliable volatile 0", "depth '0'"),
        ] {
            let e = HeartbeatSpec::parse(3, entry).unwrap_err();
            assert!(
                e.starts_with("heartbeats[3]: ") && e.contains(needle),
                "{entry}: {e}"
            );
        }
    }
}
