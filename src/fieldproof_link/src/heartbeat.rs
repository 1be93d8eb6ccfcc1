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

#[cfg(test)]
mod tests {
    use super::*;

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
