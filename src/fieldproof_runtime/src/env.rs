//! The DDS participant from the ROS 2 environment variables.
//!
//! `ros2_client::Context::new()` ignores them, so the participant is built here with
//! rustdds' `DomainParticipantBuilder` and handed to `Context::from_domain_participant_with_user_data`.

use std::net::{IpAddr, Ipv4Addr};

use ros2_client::Context;
use rustdds::DomainParticipantBuilder;
use thiserror::Error;

/// `ROS_AUTOMATIC_DISCOVERY_RANGE`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DiscoveryRange {
    /// `OFF`: no discovery (rustdds: no interfaces, no same-host loopback announcements).
    Off,
    /// `LOCALHOST`: loopback only.
    Localhost,
    /// `SUBNET` (the default, also `SYSTEM_DEFAULT` and unset): all interfaces.
    Subnet,
}

/// The DDS-related environment of a ROS 2 process.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DdsEnv {
    /// `ROS_DOMAIN_ID` (default 0).
    pub domain_id: u16,
    /// `ROS_AUTOMATIC_DISCOVERY_RANGE` (default `SUBNET`; `LOCALHOST` when the deprecated
    /// `ROS_LOCALHOST_ONLY=1` is set).
    pub range: DiscoveryRange,
    /// `ROS_STATIC_PEERS`, `;`-separated.
    pub static_peers: Vec<String>,
    /// `RMW_IMPLEMENTATION` asks for Cyclone DDS's service mapping.
    pub cyclone_services: bool,
    /// `FIELDPROOF_DDS_INTERFACES`, `,`-separated interface names or IP addresses: the
    /// participant joins multicast, sends discovery and announces locators on these only
    /// (Cyclone DDS's `NetworkInterface`). Empty: every interface. Applies with the
    /// `SUBNET` range; `LOCALHOST` and `OFF` take precedence.
    pub interfaces: Vec<String>,
}

/// The variable that binds a participant to some interfaces.
pub const INTERFACES_VAR: &str = "FIELDPROOF_DDS_INTERFACES";

/// A ROS environment variable with a value ROS 2 refuses.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("environment variable {var}={value:?} is invalid: {reason}")]
pub struct EnvError {
    /// The variable.
    pub var: &'static str,
    /// Its value.
    pub value: String,
    /// Why.
    pub reason: &'static str,
}

/// The largest domain id for which the RTPS port formula stays within 16 bits.
pub const MAX_DOMAIN_ID: u16 = 232;

impl DdsEnv {
    /// Reads the process environment.
    pub fn from_process() -> Result<DdsEnv, EnvError> {
        DdsEnv::from_lookup(|k| std::env::var(k).ok())
    }

    /// Reads through `get` (for tests).
    pub fn from_lookup(get: impl Fn(&str) -> Option<String>) -> Result<DdsEnv, EnvError> {
        let domain_id = match get("ROS_DOMAIN_ID").map(|s| s.trim().to_string()) {
            None => 0,
            Some(s) if s.is_empty() => 0,
            Some(s) => match s.parse::<u16>() {
                Ok(d) if d <= MAX_DOMAIN_ID => d,
                _ => {
                    return Err(EnvError {
                        var: "ROS_DOMAIN_ID",
                        value: s,
                        reason: "must be an integer from 0 to 232",
                    })
                }
            },
        };
        let range = match get("ROS_AUTOMATIC_DISCOVERY_RANGE") {
            None => DiscoveryRange::Subnet,
            Some(s) => match s.trim().to_ascii_uppercase().as_str() {
                "" | "SUBNET" | "SYSTEM_DEFAULT" => DiscoveryRange::Subnet,
                "LOCALHOST" => DiscoveryRange::Localhost,
                "OFF" => DiscoveryRange::Off,
                _ => {
                    return Err(EnvError {
                        var: "ROS_AUTOMATIC_DISCOVERY_RANGE",
                        value: s,
                        reason: "must be SUBNET, LOCALHOST, OFF or SYSTEM_DEFAULT",
                    })
                }
            },
        };
        // Deprecated since Jazzy but still honoured by rcl: ROS_LOCALHOST_ONLY=1 wins.
        let localhost_only = get("ROS_LOCALHOST_ONLY").is_some_and(|v| v.trim() == "1");
        let range = if localhost_only {
            DiscoveryRange::Localhost
        } else {
            range
        };
        let static_peers = split_list(get("ROS_STATIC_PEERS"), ';');
        let cyclone_services =
            get("RMW_IMPLEMENTATION").is_some_and(|s| s.trim() == "rmw_cyclonedds_cpp");
        let interfaces = split_list(get(INTERFACES_VAR), ',');
        Ok(DdsEnv {
            domain_id,
            range,
            static_peers,
            cyclone_services,
            interfaces,
        })
    }

    /// The addresses `FIELDPROOF_DDS_INTERFACES` names, looked up in `local` (each local
    /// interface's name and address): None when it is unset. An entry that is neither the
    /// name of an interface with an address nor one of the addresses is refused.
    pub fn only_addresses(
        &self,
        local: &[(String, IpAddr)],
    ) -> Result<Option<Vec<IpAddr>>, EnvError> {
        if self.interfaces.is_empty() {
            return Ok(None);
        }
        let mut out = Vec::new();
        for entry in &self.interfaces {
            let found: Vec<IpAddr> = match entry.parse::<IpAddr>() {
                Ok(ip) => local
                    .iter()
                    .filter(|(_, a)| *a == ip)
                    .map(|(_, a)| *a)
                    .take(1)
                    .collect(),
                Err(_) => local
                    .iter()
                    .filter(|(name, _)| name == entry)
                    .map(|(_, a)| *a)
                    .collect(),
            };
            if found.is_empty() {
                return Err(EnvError {
                    var: INTERFACES_VAR,
                    value: entry.clone(),
                    reason: "no interface of this network namespace has that name or address",
                });
            }
            for ip in found {
                if !out.contains(&ip) {
                    out.push(ip);
                }
            }
        }
        Ok(Some(out))
    }

    /// Refuses a `FIELDPROOF_DDS_INTERFACES` that `local` cannot satisfy, where it applies
    /// (the `SUBNET` range): what [`DdsEnv::builder`] would refuse, without building.
    pub fn check_interfaces(&self, local: &[(String, IpAddr)]) -> Result<(), EnvError> {
        match self.range {
            DiscoveryRange::Subnet => self.only_addresses(local).map(|_| ()),
            DiscoveryRange::Localhost | DiscoveryRange::Off => Ok(()),
        }
    }

    /// The participant builder for this environment, `FIELDPROOF_DDS_INTERFACES` looked up
    /// in `local` (see [`DdsEnv::only_addresses`]).
    pub fn builder(
        &self,
        local: &[(String, IpAddr)],
    ) -> Result<DomainParticipantBuilder, EnvError> {
        let b = DomainParticipantBuilder::new(self.domain_id);
        Ok(match self.range {
            DiscoveryRange::Subnet => match self.only_addresses(local)? {
                Some(addresses) => b.with_only_networks(addresses),
                None => b,
            },
            DiscoveryRange::Localhost => b.with_only_networks([IpAddr::V4(Ipv4Addr::LOCALHOST)]),
            DiscoveryRange::Off => b
                .with_only_networks(Vec::<IpAddr>::new())
                .same_host_loopback(false),
        })
    }

    /// Builds the participant and the ros2-client context over it. Logs a warning for
    /// `ROS_STATIC_PEERS`, which rustdds cannot honour (it has no initial-peers list; only
    /// same-host peers are reached through its loopback announcements).
    pub fn context(&self) -> Result<Context, ContextError> {
        let remote: Vec<&String> = self
            .static_peers
            .iter()
            .filter(|p| !matches!(p.as_str(), "localhost" | "127.0.0.1" | "::1"))
            .collect();
        if !remote.is_empty() {
            tracing::warn!(
                "ROS_STATIC_PEERS={:?} is unsupported by rustdds (no initial peers list); ignoring it",
                remote
            );
        }
        let dp = self
            .builder(&local_addresses())?
            .build()
            .map_err(ros2_client::CreateError::from)?;
        // The endpoints ros2-client creates on the builtin topics announce their type's hash,
        // as every Jazzy endpoint does.
        let hash = |type_name: &str| fieldproof_msgs::type_hash::user_data(type_name).ok();
        let builtin_user_data = ros2_client::BuiltinUserData {
            ros_discovery: hash(crate::graph::DISCOVERY_INFO_TYPE),
            parameter_events: hash("rcl_interfaces/msg/ParameterEvent"),
            rosout: hash("rcl_interfaces/msg/Log"),
        };
        Ok(Context::from_domain_participant_with_user_data(
            dp,
            builtin_user_data,
        )?)
    }
}

/// The non-empty, trimmed entries of a `separator`-separated variable (none when unset).
fn split_list(value: Option<String>, separator: char) -> Vec<String> {
    value
        .map(|s| {
            s.split(separator)
                .map(str::trim)
                .filter(|entry| !entry.is_empty())
                .map(str::to_string)
                .collect()
        })
        .unwrap_or_default()
}

/// Why a context could not be made.
#[derive(Debug, Error)]
pub enum ContextError {
    /// The environment asks for what this machine does not have.
    #[error(transparent)]
    Env(#[from] EnvError),
    /// rustdds or ros2-client refused.
    #[error(transparent)]
    Create(#[from] ros2_client::CreateError),
}

/// Every address of every interface of this network namespace, with the interface's name.
pub fn local_addresses() -> Vec<(String, IpAddr)> {
    let Ok(addrs) = nix::ifaddrs::getifaddrs() else {
        return Vec::new();
    };
    addrs
        .filter_map(|ifa| {
            let address = ifa.address?;
            let ip = if let Some(v4) = address.as_sockaddr_in() {
                IpAddr::V4(v4.ip())
            } else {
                IpAddr::V6(address.as_sockaddr_in6()?.ip())
            };
            Some((ifa.interface_name, ip))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(pairs: &[(&str, &str)]) -> Result<DdsEnv, EnvError> {
        let pairs: Vec<(String, String)> = pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        DdsEnv::from_lookup(|k| pairs.iter().find(|(n, _)| n == k).map(|(_, v)| v.clone()))
    }

    #[test]
    fn defaults() {
        let e = env(&[]).unwrap();
        assert_eq!(e.domain_id, 0);
        assert_eq!(e.range, DiscoveryRange::Subnet);
        assert!(e.static_peers.is_empty());
        assert!(!e.cyclone_services);
    }

    #[test]
    fn values() {
        let e = env(&[
            ("ROS_DOMAIN_ID", "42"),
            ("ROS_AUTOMATIC_DISCOVERY_RANGE", "LOCALHOST"),
            ("ROS_STATIC_PEERS", "10.0.0.2; host.example"),
            ("RMW_IMPLEMENTATION", "rmw_cyclonedds_cpp"),
        ])
        .unwrap();
        assert_eq!(e.domain_id, 42);
        assert_eq!(e.range, DiscoveryRange::Localhost);
        assert_eq!(e.static_peers, vec!["10.0.0.2", "host.example"]);
        assert!(e.cyclone_services);
        assert_eq!(
            env(&[("ROS_AUTOMATIC_DISCOVERY_RANGE", "OFF")])
                .unwrap()
                .range,
            DiscoveryRange::Off
        );
        assert_eq!(env(&[("ROS_DOMAIN_ID", "")]).unwrap().domain_id, 0);
        assert_eq!(
            env(&[("ROS_LOCALHOST_ONLY", "1")]).unwrap().range,
            DiscoveryRange::Localhost
        );
        assert_eq!(
            env(&[("ROS_LOCALHOST_ONLY", "0")]).unwrap().range,
            DiscoveryRange::Subnet
        );
    }

    fn local() -> Vec<(String, IpAddr)> {
        [
            ("lo", "127.0.0.1"),
            ("world0", "198.19.1.2"),
            ("radio0", "198.18.1.2"),
            ("radio0", "fe80::1"),
        ]
        .iter()
        .map(|(n, a)| (n.to_string(), a.parse().unwrap()))
        .collect()
    }

    #[test]
    fn interfaces_bind_the_participant_to_their_addresses() {
        let e = env(&[(INTERFACES_VAR, " world0 , 127.0.0.1,,world0")]).unwrap();
        assert_eq!(e.interfaces, vec!["world0", "127.0.0.1", "world0"]);
        let ips: Vec<IpAddr> = ["198.19.1.2", "127.0.0.1"]
            .iter()
            .map(|a| a.parse().unwrap())
            .collect();
        assert_eq!(e.only_addresses(&local()).unwrap(), Some(ips));
        // An interface with two addresses gives both.
        let radio = env(&[(INTERFACES_VAR, "radio0")]).unwrap();
        assert_eq!(radio.only_addresses(&local()).unwrap().unwrap().len(), 2);
        // Unset or empty: every interface.
        assert_eq!(env(&[]).unwrap().only_addresses(&local()).unwrap(), None);
        assert_eq!(
            env(&[(INTERFACES_VAR, " ")])
                .unwrap()
                .only_addresses(&local())
                .unwrap(),
            None
        );
        assert!(e.builder(&local()).is_ok());
        assert!(e.check_interfaces(&local()).is_ok());
    }

    #[test]
    fn an_interface_this_namespace_lacks_is_refused_by_name() {
        for entry in ["wlan0", "10.0.0.9"] {
            let e = env(&[(INTERFACES_VAR, &format!("world0,{entry}"))]).unwrap();
            let err = e.only_addresses(&local()).unwrap_err().to_string();
            assert!(err.contains(INTERFACES_VAR) && err.contains(entry), "{err}");
            assert!(e.builder(&local()).is_err());
            assert!(e.check_interfaces(&local()).is_err());
        }
        // LOCALHOST and OFF take precedence over the interfaces.
        let e = env(&[
            (INTERFACES_VAR, "wlan0"),
            ("ROS_AUTOMATIC_DISCOVERY_RANGE", "LOCALHOST"),
        ])
        .unwrap();
        assert!(e.builder(&local()).is_ok());
        assert!(e.check_interfaces(&local()).is_ok());
    }

    #[test]
    fn invalid_values_name_the_variable() {
        for (k, v) in [
            ("ROS_DOMAIN_ID", "abc"),
            ("ROS_DOMAIN_ID", "233"),
            ("ROS_DOMAIN_ID", "-1"),
            ("ROS_AUTOMATIC_DISCOVERY_RANGE", "EVERYWHERE"),
        ] {
            let e = env(&[(k, v)]).unwrap_err().to_string();
            assert!(e.contains(k) && e.contains(v), "{e}");
        }
    }
}
