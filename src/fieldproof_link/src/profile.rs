//! Link profiles, the presets of `config/links/presets.yaml` and the scenario's `network`
//! section, validated with errors that name the field path and the value.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use thiserror::Error;

/// The preset file shipped with the package (`config/links/presets.yaml`).
pub const PRESETS_YAML: &str = include_str!("../../../config/links/presets.yaml");

/// Name of the profile a dropped link carries.
pub const DROP: &str = "drop";

/// Upper bound of `latency_ms` and `jitter_ms` (one minute).
pub const MAX_DELAY_MS: f64 = 60_000.0;
/// Upper bound of `rate_kbit` (100 Gbit/s).
pub const MAX_RATE_KBIT: f64 = 100_000_000.0;

/// A profile or network section that does not validate.
#[derive(Debug, Error, Clone, PartialEq)]
pub enum ProfileError {
    /// A numeric field outside its range.
    #[error("{path}: {value} is out of range ({range})")]
    OutOfRange {
        /// Field path, e.g. `network.profiles.far_modem.loss_pct`.
        path: String,
        /// The offending value.
        value: f64,
        /// The accepted range in words.
        range: &'static str,
    },
    /// A field that needs another one (jitter and reordering need a latency).
    #[error("{path}: {value} needs {needs}")]
    Needs {
        /// Field path.
        path: String,
        /// The offending value.
        value: f64,
        /// What it needs.
        needs: &'static str,
    },
    /// A custom profile reusing a preset's name.
    #[error("{path}: '{name}' is a preset's name; custom profiles may not reuse it")]
    ReservedName {
        /// Field path.
        path: String,
        /// The name.
        name: String,
    },
    /// A reference to a profile that neither a preset nor a custom profile defines.
    #[error("{path}: unknown profile '{name}' (known: {known})")]
    Unknown {
        /// Field path.
        path: String,
        /// The unknown name.
        name: String,
        /// Comma-separated known names.
        known: String,
    },
    /// YAML that does not parse into the model.
    #[error("{path}: {message}")]
    Parse {
        /// What was parsed (file or section).
        path: String,
        /// The parser's message (with its line and column).
        message: String,
    },
}

/// One direction of a link (both directions carry the same profile).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub struct Profile {
    /// Delay of every packet, one way (ms).
    #[serde(default)]
    pub latency_ms: f64,
    /// Standard deviation of the delay (ms, normal distribution around `latency_ms`).
    #[serde(default)]
    pub jitter_ms: f64,
    /// Packets lost in each direction, independently (%).
    #[serde(default)]
    pub loss_pct: f64,
    /// Packets sent at once instead of delayed, overtaking the delayed ones (%).
    #[serde(default)]
    pub reorder_pct: f64,
    /// Throughput of each direction (kbit/s, 1 kbit = 1000 bit); `None` is unlimited.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rate_kbit: Option<f64>,
    /// What the profile stands for.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub description: String,
}

fn check_range(
    path: &str,
    field: &str,
    v: f64,
    lo: f64,
    hi: f64,
    range: &'static str,
) -> Result<(), ProfileError> {
    if v.is_finite() && v >= lo && v <= hi {
        Ok(())
    } else {
        Err(ProfileError::OutOfRange {
            path: format!("{path}.{field}"),
            value: v,
            range,
        })
    }
}

impl Profile {
    /// The profile of a dropped link: 100 % loss.
    pub fn drop_profile() -> Self {
        Profile {
            loss_pct: 100.0,
            description: "dropped link".into(),
            ..Default::default()
        }
    }

    /// Whether this profile answers nothing (100 % loss).
    pub fn is_drop(&self) -> bool {
        self.loss_pct >= 100.0
    }

    /// Checks ranges and dependencies; `path` prefixes the field names in errors.
    pub fn validate(&self, path: &str) -> Result<(), ProfileError> {
        check_range(
            path,
            "latency_ms",
            self.latency_ms,
            0.0,
            MAX_DELAY_MS,
            "0 to 60000",
        )?;
        check_range(
            path,
            "jitter_ms",
            self.jitter_ms,
            0.0,
            MAX_DELAY_MS,
            "0 to 60000",
        )?;
        check_range(path, "loss_pct", self.loss_pct, 0.0, 100.0, "0 to 100")?;
        check_range(
            path,
            "reorder_pct",
            self.reorder_pct,
            0.0,
            100.0,
            "0 to 100",
        )?;
        if let Some(r) = self.rate_kbit {
            if !(r.is_finite() && r > 0.0 && r <= MAX_RATE_KBIT) {
                return Err(ProfileError::OutOfRange {
                    path: format!("{path}.rate_kbit"),
                    value: r,
                    range: "above 0, at most 100000000",
                });
            }
        }
        if self.jitter_ms > 0.0 && self.latency_ms <= 0.0 {
            return Err(ProfileError::Needs {
                path: format!("{path}.jitter_ms"),
                value: self.jitter_ms,
                needs: "a latency_ms above 0",
            });
        }
        if self.reorder_pct > 0.0 && self.latency_ms <= 0.0 {
            return Err(ProfileError::Needs {
                path: format!("{path}.reorder_pct"),
                value: self.reorder_pct,
                needs: "a latency_ms above 0",
            });
        }
        Ok(())
    }

    /// One line for logs and reports, e.g. `60 ms ± 20 ms, 1 % loss, 4000 kbit/s`.
    pub fn summary(&self) -> String {
        let mut parts = vec![format!("{} ms", self.latency_ms)];
        if self.jitter_ms > 0.0 {
            parts[0] = format!("{} ms ± {} ms", self.latency_ms, self.jitter_ms);
        }
        if self.loss_pct > 0.0 {
            parts.push(format!("{} % loss", self.loss_pct));
        }
        if self.reorder_pct > 0.0 {
            parts.push(format!("{} % reordered", self.reorder_pct));
        }
        if let Some(r) = self.rate_kbit {
            parts.push(format!("{r} kbit/s"));
        }
        parts.join(", ")
    }
}

/// Parses and validates a preset file (a map of name to profile).
pub fn parse_presets(yaml: &str, path: &str) -> Result<BTreeMap<String, Profile>, ProfileError> {
    let map: BTreeMap<String, Profile> =
        serde_yaml::from_str(yaml).map_err(|e| ProfileError::Parse {
            path: path.to_string(),
            message: e.to_string(),
        })?;
    for (name, p) in &map {
        p.validate(&format!("{path}.{name}"))?;
    }
    Ok(map)
}

/// The presets shipped with the package.
pub fn presets() -> BTreeMap<String, Profile> {
    parse_presets(PRESETS_YAML, "presets").expect("config/links/presets.yaml is valid (tested)")
}

/// `network.verify`: what a failed period does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum Verify {
    /// Nothing.
    Off,
    /// A `link.failed` warning (the default).
    #[default]
    Warn,
    /// The run fails, naming the link.
    Fail,
}

/// The raw `network` section of a scenario.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NetworkSection {
    /// Every vehicle's link: a preset or a name under `profiles`.
    pub profile: String,
    /// A vehicle's own profile instead.
    #[serde(default)]
    pub links: BTreeMap<String, String>,
    /// The scenario's own profiles.
    #[serde(default)]
    pub profiles: BTreeMap<String, Profile>,
    /// What a failed period does.
    #[serde(default)]
    pub verify: Verify,
    /// Which of a vehicle's DDS participants take part in DDS over its radio link.
    #[serde(default)]
    pub dds_over_radio: DdsOverRadio,
    /// What shapes the links (default `auto`).
    #[serde(default)]
    pub backend: BackendChoice,
}

impl NetworkSection {
    /// Every vehicle on `profile`, no custom profiles, the default `verify`,
    /// `dds_over_radio` and `backend`.
    pub fn with_profile(profile: &str) -> Self {
        NetworkSection {
            profile: profile.into(),
            links: BTreeMap::new(),
            profiles: BTreeMap::new(),
            verify: Verify::default(),
            dds_over_radio: DdsOverRadio::default(),
            backend: BackendChoice::default(),
        }
    }
}

/// `network.dds_over_radio`: which of a vehicle's DDS participants use its radio link.
///
/// A vehicle's processes reach the simulator and the observer over its wiring (`world0`),
/// the ground station and the other vehicles over its radio (`radio0`). A DDS participant
/// bound to no interface discovers, and is discovered, over both: on a slow, lossy link the
/// discovery between every participant of every vehicle can fill the link (the convoy's
/// 256 kbit profile: 1.5 Mbit/s offered). A robot whose middleware is bound to its onboard
/// network (Cyclone DDS's `NetworkInterface`) keeps its graph off the radio.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum DdsOverRadio {
    /// Every participant uses every interface, the radio included (the default: a ROS 2
    /// machine with no interface configured).
    #[default]
    All,
    /// Only the vehicle's failsafe (`link_monitor`, which hears the ground station's
    /// heartbeat) uses the radio; the bridge adapters and the stack are bound to the
    /// vehicle's wiring. A vehicle without a failsafe has no DDS on its radio at all.
    Failsafe,
}

/// `network.backend`: what shapes a scenario's links.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum BackendChoice {
    /// Kernel netem where this kernel has it (`sch_netem`, `sch_prio`, `ifb`), else the
    /// userspace emulator.
    #[default]
    Auto,
    /// Kernel netem; where the kernel lacks it the run cannot start, and says so with the
    /// tc error and the hint ([`crate::tc::NETEM_HINT`]).
    Kernel,
    /// The userspace emulator, whatever the kernel has.
    Userspace,
}

impl BackendChoice {
    /// The backend this choice forces (`None`: chosen by what the kernel has).
    pub fn forced(self) -> Option<crate::netns::Backend> {
        match self {
            BackendChoice::Auto => None,
            BackendChoice::Kernel => Some(crate::netns::Backend::Kernel),
            BackendChoice::Userspace => Some(crate::netns::Backend::Userspace),
        }
    }
}

/// A validated network section: every profile name it uses resolves.
#[derive(Debug, Clone, PartialEq)]
pub struct Network {
    /// The section as written.
    pub section: NetworkSection,
    /// Presets and custom profiles together.
    pub known: BTreeMap<String, Profile>,
}

impl Network {
    /// Validates `section` against `presets` (`path` is the section's path, e.g. `network`).
    pub fn new(
        section: NetworkSection,
        presets: &BTreeMap<String, Profile>,
        path: &str,
    ) -> Result<Self, ProfileError> {
        let mut known = presets.clone();
        known
            .entry(DROP.to_string())
            .or_insert_with(Profile::drop_profile);
        for (name, p) in &section.profiles {
            let ppath = format!("{path}.profiles.{name}");
            if known.contains_key(name) {
                return Err(ProfileError::ReservedName {
                    path: ppath,
                    name: name.clone(),
                });
            }
            p.validate(&ppath)?;
        }
        for (name, p) in &section.profiles {
            known.insert(name.clone(), p.clone());
        }
        let net = Network { section, known };
        net.lookup(&net.section.profile, &format!("{path}.profile"))?;
        for (vehicle, name) in &net.section.links {
            net.lookup(name, &format!("{path}.links.{vehicle}"))?;
        }
        Ok(net)
    }

    /// Parses a YAML `network` section and validates it.
    pub fn from_yaml(
        yaml: &str,
        presets: &BTreeMap<String, Profile>,
    ) -> Result<Self, ProfileError> {
        let section: NetworkSection =
            serde_yaml::from_str(yaml).map_err(|e| ProfileError::Parse {
                path: "network".into(),
                message: e.to_string(),
            })?;
        Network::new(section, presets, "network")
    }

    /// Resolves a profile name; `path` names the referring field in the error.
    pub fn lookup(&self, name: &str, path: &str) -> Result<&Profile, ProfileError> {
        self.known.get(name).ok_or_else(|| ProfileError::Unknown {
            path: path.to_string(),
            name: name.to_string(),
            known: self.known.keys().cloned().collect::<Vec<_>>().join(", "),
        })
    }

    /// The name of the profile the scenario configures for `vehicle`.
    pub fn configured_name(&self, vehicle: &str) -> &str {
        self.section
            .links
            .get(vehicle)
            .unwrap_or(&self.section.profile)
    }

    /// The profile the scenario configures for `vehicle` (what `link.restore` brings back).
    pub fn configured(&self, vehicle: &str) -> &Profile {
        &self.known[self.configured_name(vehicle)]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn presets_have_the_spec_numbers() {
        let p = presets();
        let w = &p["wifi_good"];
        assert_eq!(
            (w.latency_ms, w.jitter_ms, w.loss_pct, w.rate_kbit),
            (5.0, 2.0, 0.1, Some(50_000.0))
        );
        let l = &p["lte_rural"];
        assert_eq!(
            (l.latency_ms, l.jitter_ms, l.loss_pct, l.rate_kbit),
            (60.0, 20.0, 1.0, Some(4_000.0))
        );
        let r = &p["rf_900mhz_5km"];
        assert_eq!(
            (r.latency_ms, r.jitter_ms, r.loss_pct, r.rate_kbit),
            (40.0, 10.0, 3.0, Some(200.0))
        );
        assert!(p["drop"].is_drop());
        assert_eq!(p["drop"].latency_ms, 0.0);
    }

    #[test]
    fn jitter_and_reorder_need_latency() {
        let j = Profile {
            jitter_ms: 2.0,
            ..Default::default()
        };
        let e = j.validate("p").unwrap_err();
        assert_eq!(e.to_string(), "p.jitter_ms: 2 needs a latency_ms above 0");
        let r = Profile {
            reorder_pct: 5.0,
            ..Default::default()
        };
        assert!(
            matches!(r.validate("p"), Err(ProfileError::Needs { path, .. }) if path == "p.reorder_pct")
        );
        let ok = Profile {
            latency_ms: 1.0,
            jitter_ms: 2.0,
            reorder_pct: 5.0,
            ..Default::default()
        };
        assert!(ok.validate("p").is_ok());
    }

    #[test]
    fn ranges_are_checked() {
        for (p, field) in [
            (
                Profile {
                    loss_pct: 101.0,
                    ..Default::default()
                },
                "loss_pct",
            ),
            (
                Profile {
                    loss_pct: -1.0,
                    ..Default::default()
                },
                "loss_pct",
            ),
            (
                Profile {
                    latency_ms: f64::NAN,
                    ..Default::default()
                },
                "latency_ms",
            ),
            (
                Profile {
                    latency_ms: 60_001.0,
                    ..Default::default()
                },
                "latency_ms",
            ),
            (
                Profile {
                    latency_ms: 1.0,
                    reorder_pct: 200.0,
                    ..Default::default()
                },
                "reorder_pct",
            ),
            (
                Profile {
                    rate_kbit: Some(0.0),
                    ..Default::default()
                },
                "rate_kbit",
            ),
        ] {
            match p.validate("x") {
                Err(ProfileError::OutOfRange { path, .. }) => {
                    assert_eq!(path, format!("x.{field}"))
                }
                other => panic!("{field}: {other:?}"),
            }
        }
    }

    #[test]
    fn network_section_resolves_and_refuses() {
        let presets = presets();
        let net = Network::from_yaml(
            "profile: lte_rural\nlinks: { ugv2: far_modem }\nprofiles:\n  far_modem: { latency_ms: 80, jitter_ms: 10, loss_pct: 2, rate_kbit: 64 }\nverify: fail\n",
            &presets,
        )
        .unwrap();
        assert_eq!(net.configured_name("ugv1"), "lte_rural");
        assert_eq!(net.configured("ugv2").rate_kbit, Some(64.0));
        assert_eq!(net.section.verify, Verify::Fail);

        let reuse = Network::from_yaml(
            "profile: wifi_good\nprofiles: { wifi_good: { latency_ms: 1 } }\n",
            &presets,
        );
        assert_eq!(
            reuse.unwrap_err().to_string(),
            "network.profiles.wifi_good: 'wifi_good' is a preset's name; custom profiles may not reuse it"
        );
        let drop_reuse = Network::from_yaml(
            "profile: wifi_good\nprofiles: { drop: { latency_ms: 1 } }\n",
            &presets,
        );
        assert!(matches!(drop_reuse, Err(ProfileError::ReservedName { .. })));

        let unknown = Network::from_yaml("profile: wifi_good\nlinks: { ugv1: nope }\n", &presets)
            .unwrap_err();
        assert!(
            unknown
                .to_string()
                .starts_with("network.links.ugv1: unknown profile 'nope'"),
            "{unknown}"
        );

        let bad = Network::from_yaml("profile: x\nprofiles: { x: { jitter_ms: 3 } }\n", &presets)
            .unwrap_err();
        assert_eq!(
            bad.to_string(),
            "network.profiles.x.jitter_ms: 3 needs a latency_ms above 0"
        );

        let typo = Network::from_yaml("profile: x\nprofiles: { x: { latency: 3 } }\n", &presets)
            .unwrap_err();
        assert!(matches!(typo, ProfileError::Parse { .. }), "{typo}");
        assert_eq!(
            Network::from_yaml("profile: wifi_good\n", &presets)
                .unwrap()
                .section
                .verify,
            Verify::Warn
        );
    }

    #[test]
    fn the_backend_is_chosen_unless_the_section_forces_one() {
        let presets = presets();
        let backend = |text: &str| Network::from_yaml(text, &presets).map(|n| n.section.backend);
        assert_eq!(
            backend("profile: wifi_good\n").unwrap(),
            BackendChoice::Auto
        );
        assert_eq!(BackendChoice::Auto.forced(), None);
        assert_eq!(
            backend("profile: wifi_good\nbackend: kernel\n")
                .unwrap()
                .forced(),
            Some(crate::netns::Backend::Kernel)
        );
        assert_eq!(
            backend("profile: wifi_good\nbackend: userspace\n")
                .unwrap()
                .forced(),
            Some(crate::netns::Backend::Userspace)
        );
        let e = backend("profile: wifi_good\nbackend: netem\n").unwrap_err();
        assert!(e.to_string().contains("netem"), "{e}");
    }
}
