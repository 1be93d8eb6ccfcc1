//! The link shaper: a run's topology plus one shaping backend per link, with link.set,
//! link.drop (optionally for a duration), link.restore and the counters.

use crate::analysis::Change;
use crate::delay::BandCounters;
use crate::emulator::{DirectionCounters, EmulatorConfig, LinkCounters, LinkEmulator};
use crate::netns::{Backend, NetnsError, Topology, LINK_GROUND_IF, LINK_VEHICLE_IF, VEHICLE_IF};
use crate::profile::{Network, Profile, ProfileError, DROP};
use crate::sys::SysError;
use crate::tc;
use serde::Serialize;
use std::collections::BTreeMap;
use std::time::{SystemTime, UNIX_EPOCH};
use thiserror::Error;

/// A refused or failed shaper request.
#[derive(Debug, Error)]
pub enum ShaperError {
    /// A link that is not one of this run's.
    #[error("vehicle: '{0}' has no link in this run (links: {1})")]
    UnknownLink(String, String),
    /// A link of the unshaped baseline backend.
    #[error("vehicle: '{0}' is unshaped (backend direct)")]
    Unshaped(String),
    /// A bad duration.
    #[error("duration_s: {0} must be above 0 and at most 86400")]
    Duration(f64),
    /// A profile that is unknown or invalid.
    #[error(transparent)]
    Profile(#[from] ProfileError),
    /// The topology.
    #[error(transparent)]
    Netns(#[from] NetnsError),
    /// A system operation (a tc command, a socket).
    #[error(transparent)]
    Sys(#[from] SysError),
    /// The kernel backend could not shape a link; where the kernel lacks netem the message
    /// ends with [`tc::NETEM_HINT`].
    #[error("link {vehicle}: {error}{hint}")]
    Kernel {
        /// The link's vehicle.
        vehicle: String,
        /// The tc or ip command's failure.
        error: SysError,
        /// `; ` and the hint, or nothing where the kernel has netem.
        hint: String,
    },
}

/// Wall-clock now (Unix s).
pub fn unix_now() -> f64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs_f64())
        .unwrap_or(0.0)
}

/// What is in force on one link.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct InForce {
    /// The profile's name.
    pub profile: String,
    /// The profile.
    pub spec: Profile,
    /// Since when (Unix s).
    pub since: f64,
    /// A timed drop's end (Unix s), when the configured profile comes back.
    pub until: Option<f64>,
}

enum Shaping {
    Emulator(LinkEmulator),
    Kernel { ns: String },
    Direct,
}

/// A run's links, shaped.
pub struct LinkShaper {
    // Declared before `topo`: the emulators stop before the namespaces go.
    shaping: BTreeMap<String, Shaping>,
    in_force: BTreeMap<String, InForce>,
    events: Vec<Change>,
    net: Network,
    epoch: f64,
    topo: Topology,
}

impl LinkShaper {
    /// Creates the topology of `vehicles` and puts each link's configured profile on it.
    /// `epoch` (Unix s) is the time base of the recorded events.
    pub fn start(
        run_id: &str,
        vehicles: &[String],
        net: Network,
        backend: Backend,
        cfg: EmulatorConfig,
        epoch: f64,
    ) -> Result<Self, ShaperError> {
        let topo = Topology::create(run_id, vehicles, backend)?;
        let mut s = LinkShaper {
            shaping: BTreeMap::new(),
            in_force: BTreeMap::new(),
            events: Vec::new(),
            net,
            epoch,
            topo,
        };
        for l in s.topo.links.clone() {
            let name = s.net.configured_name(&l.vehicle).to_string();
            let p = s.net.configured(&l.vehicle).clone();
            let applying = unix_now();
            let shaping = match backend {
                Backend::Userspace => {
                    let ns = l
                        .link_ns
                        .as_deref()
                        .expect("userspace links have a link namespace");
                    let mut c = cfg.clone();
                    c.seed = cfg.seed.map(|x| x.wrapping_add(l.index as u64));
                    Shaping::Emulator(LinkEmulator::start(
                        ns,
                        LINK_VEHICLE_IF,
                        LINK_GROUND_IF,
                        p.clone(),
                        c,
                    )?)
                }
                Backend::Kernel => {
                    for cmd in tc::setup_commands(VEHICLE_IF, &p) {
                        tc::run_in(&l.ns, &cmd).map_err(|error| ShaperError::Kernel {
                            vehicle: l.vehicle.clone(),
                            error,
                            hint: if tc::kernel_netem_available() {
                                String::new()
                            } else {
                                format!("; {}", tc::NETEM_HINT)
                            },
                        })?;
                    }
                    Shaping::Kernel { ns: l.ns.clone() }
                }
                Backend::Direct => Shaping::Direct,
            };
            s.shaping.insert(l.vehicle.clone(), shaping);
            s.record(
                &l.vehicle,
                &name,
                p,
                applying,
                None,
                "configured (link.applied)",
            );
        }
        s.topo.mark_shaped()?;
        Ok(s)
    }

    fn record(
        &mut self,
        vehicle: &str,
        name: &str,
        spec: Profile,
        applying: f64,
        until: Option<f64>,
        cause: &str,
    ) {
        let applied = unix_now();
        self.in_force.insert(
            vehicle.to_string(),
            InForce {
                profile: name.to_string(),
                spec,
                since: applied,
                until,
            },
        );
        self.events.push(Change {
            link: vehicle.to_string(),
            applying_s: applying - self.epoch,
            applied_s: applied - self.epoch,
            profile: name.to_string(),
            cause: cause.to_string(),
        });
    }

    fn check_link(&self, vehicle: &str) -> Result<(), ShaperError> {
        if self.shaping.contains_key(vehicle) {
            Ok(())
        } else {
            Err(ShaperError::UnknownLink(
                vehicle.into(),
                self.shaping.keys().cloned().collect::<Vec<_>>().join(", "),
            ))
        }
    }

    fn apply(
        &mut self,
        vehicle: &str,
        name: &str,
        p: Profile,
        until: Option<f64>,
        cause: &str,
    ) -> Result<(), ShaperError> {
        self.check_link(vehicle)?;
        p.validate(&format!("profiles.{name}"))?;
        let applying = unix_now();
        match &self.shaping[vehicle] {
            Shaping::Emulator(e) => e.set_profile(&p),
            Shaping::Kernel { ns } => {
                for cmd in tc::profile_commands(VEHICLE_IF, &p) {
                    tc::run_in(ns, &cmd)?;
                }
            }
            Shaping::Direct => return Err(ShaperError::Unshaped(vehicle.into())),
        }
        self.record(vehicle, name, p, applying, until, cause);
        Ok(())
    }

    /// link.set: a known profile (preset or the scenario's) from now on.
    pub fn set(&mut self, vehicle: &str, profile: &str) -> Result<(), ShaperError> {
        self.check_link(vehicle)?;
        let p = self.net.lookup(profile, "profile")?.clone();
        self.apply(vehicle, profile, p, None, "link.set")
    }

    /// link.set with an ad-hoc profile (validated), in force under `name`.
    pub fn set_custom(&mut self, vehicle: &str, name: &str, p: Profile) -> Result<(), ShaperError> {
        self.apply(vehicle, name, p, None, "link.set (custom)")
    }

    /// link.drop: 100 % loss both ways; with a duration the configured profile comes back
    /// after it (see [`LinkShaper::tick`]).
    pub fn drop_link(&mut self, vehicle: &str, duration_s: Option<f64>) -> Result<(), ShaperError> {
        if let Some(d) = duration_s {
            if !(d > 0.0 && d <= 86_400.0) {
                return Err(ShaperError::Duration(d));
            }
        }
        let until = duration_s.map(|d| unix_now() + d);
        let p = self.net.lookup(DROP, "profile")?.clone();
        self.apply(vehicle, DROP, p, until, "link.drop")
    }

    /// link.restore: the profile the scenario configures for the link.
    pub fn restore(&mut self, vehicle: &str) -> Result<(), ShaperError> {
        self.check_link(vehicle)?;
        let name = self.net.configured_name(vehicle).to_string();
        let p = self.net.configured(vehicle).clone();
        self.apply(vehicle, &name, p, None, "link.restore")
    }

    /// Restores the links whose timed drop has ended; returns them.
    pub fn tick(&mut self) -> Result<Vec<String>, ShaperError> {
        let now = unix_now();
        let due: Vec<String> = self
            .in_force
            .iter()
            .filter(|(_, f)| f.until.is_some_and(|u| u <= now))
            .map(|(v, _)| v.clone())
            .collect();
        for v in &due {
            let name = self.net.configured_name(v).to_string();
            let p = self.net.configured(v).clone();
            self.apply(v, &name, p, None, "link.drop ended (restored)")?;
        }
        Ok(due)
    }

    /// A link's counters, both ways.
    pub fn counters(&self, vehicle: &str) -> Result<LinkCounters, ShaperError> {
        self.check_link(vehicle)?;
        match &self.shaping[vehicle] {
            Shaping::Emulator(e) => Ok(e.counters()),
            Shaping::Kernel { ns } => {
                let cmds = tc::stats_commands(VEHICLE_IF);
                let up = parse_tc_stats(&tc::run_in(ns, &cmds[0])?);
                let down = parse_tc_stats(&tc::run_in(ns, &cmds[1])?);
                Ok(LinkCounters { up, down })
            }
            Shaping::Direct => Err(ShaperError::Unshaped(vehicle.into())),
        }
    }

    /// What is in force on every link.
    pub fn in_force(&self) -> &BTreeMap<String, InForce> {
        &self.in_force
    }

    /// Every profile change so far, times relative to the epoch.
    pub fn events(&self) -> &[Change] {
        &self.events
    }

    /// The topology.
    pub fn topology(&self) -> &Topology {
        &self.topo
    }

    /// The network section in force.
    pub fn network(&self) -> &Network {
        &self.net
    }

    /// Runs one text command and returns its JSON reply and whether it asked to quit:
    /// `set <vehicle> <profile>`, `custom <vehicle> <name> <profile as JSON>`,
    /// `drop <vehicle> [seconds]`, `restore <vehicle>`, `counters <vehicle>`, `status`,
    /// `quit`. A refusal is `{"ok": false, "error": reason}`.
    pub fn command(&mut self, line: &str) -> (serde_json::Value, bool) {
        use serde_json::json;
        let words: Vec<&str> = line.split_whitespace().collect();
        let ok = |s: &LinkShaper| json!({"ok": true, "command": line, "in_force": s.in_force()});
        let r = match words.as_slice() {
            ["set", v, p] => self.set(v, p).map(|_| ok(self)),
            ["custom", v, name, ..] => {
                let spec = line
                    .splitn(4, char::is_whitespace)
                    .nth(3)
                    .unwrap_or("")
                    .trim();
                match serde_json::from_str::<Profile>(spec) {
                    Ok(p) => self.set_custom(v, name, p).map(|_| ok(self)),
                    Err(e) => {
                        return (
                            json!({"ok": false, "command": line, "error": format!("profile: {e}")}),
                            false,
                        )
                    }
                }
            }
            ["drop", v] => self.drop_link(v, None).map(|_| ok(self)),
            ["drop", v, d] => match d.parse::<f64>() {
                Ok(d) => self.drop_link(v, Some(d)).map(|_| ok(self)),
                Err(_) => {
                    return (
                        json!({"ok": false, "command": line, "error": format!("duration_s: '{d}' is not a number")}),
                        false,
                    )
                }
            },
            ["restore", v] => self.restore(v).map(|_| ok(self)),
            ["counters", v] => self
                .counters(v)
                .map(|c| json!({"ok": true, "command": line, "counters": c})),
            ["status"] => Ok(
                json!({"ok": true, "command": line, "in_force": self.in_force(), "events": self.events()}),
            ),
            ["quit"] => return (json!({"ok": true, "command": line, "quit": true}), true),
            _ => {
                return (
                    json!({"ok": false, "command": line, "error": "unknown command (set, custom, drop, restore, counters, status, quit)"}),
                    false,
                )
            }
        };
        match r {
            Ok(v) => (v, false),
            Err(e) => (
                json!({"ok": false, "command": line, "error": e.to_string()}),
                false,
            ),
        }
    }

    /// Keeps the namespaces after the shaper ends (`--keep`): see [`Topology::set_keep`].
    pub fn keep(&mut self, keep: bool) -> Result<(), ShaperError> {
        Ok(self.topo.set_keep(keep)?)
    }
}

/// Counters of the netem queues 10: (probes) and 20: (traffic) from `tc -s -j qdisc show`.
pub fn parse_tc_stats(json: &str) -> DirectionCounters {
    let mut d = DirectionCounters::default();
    let Ok(serde_json::Value::Array(qs)) = serde_json::from_str::<serde_json::Value>(json) else {
        return d;
    };
    for q in qs {
        let get = |k: &str| q.get(k).and_then(|v| v.as_u64()).unwrap_or(0);
        let band = BandCounters {
            packets: get("packets"),
            bytes: get("bytes"),
            drops_loss: get("drops"),
            backlog_bytes: get("backlog"),
            backlog_packets: get("qlen"),
            ..Default::default()
        };
        match q.get("handle").and_then(|h| h.as_str()) {
            Some("10:") => d.probe = band,
            Some("20:") => d.traffic = band,
            _ => {}
        }
    }
    d
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tc_stats_are_read_per_band() {
        let j = r#"[{"kind":"prio","handle":"1:","bytes":10},{"kind":"netem","handle":"10:","parent":"1:1","bytes":980,"packets":10,"drops":1,"overlimits":0,"requeues":0,"backlog":0,"qlen":0},{"kind":"netem","handle":"20:","parent":"1:2","bytes":150000,"packets":100,"drops":7,"backlog":3000,"qlen":2}]"#;
        let d = parse_tc_stats(j);
        assert_eq!((d.probe.packets, d.probe.drops()), (10, 1));
        assert_eq!(
            (
                d.traffic.bytes,
                d.traffic.drops(),
                d.traffic.backlog_packets,
                d.traffic.backlog_bytes
            ),
            (150_000, 7, 2, 3000)
        );
        assert_eq!(parse_tc_stats("not json"), DirectionCounters::default());
    }
}
