//! The run's network namespaces: one per vehicle, a radio namespace (the ground station's)
//! and one link per vehicle between them, plus a world namespace (the simulator's and the
//! observer's) wired to every vehicle and to the radio without shaping; all named after
//! the run id and always removed.
//!
//! ```text
//!  fp-<run>-v-<vehicle>          fp-<run>-l-<vehicle> (userspace backend)      fp-<run>-radio
//!  radio0 198.18.1.<i>/16 ══ veh ⇄ emulator ⇄ gnd ══ lnk<i> ─┐
//!                                                           ├─ bridge `radio` 198.18.0.1/16
//!  (kernel backend: radio0 ══ lnk<i> directly, netem on radio0 + ifb)                    ┘
//!  world0 198.19.<i>.2/24                                      world 198.19.0.2/24
//!     ║                                                          ║
//!  v<i> 198.19.<i>.1/24 ─────────── fp-<run>-world ─────────── gnd0 198.19.0.1/24
//! ```
//!
//! The radio namespace is one Ethernet segment (a bridge), as the earlier Docker radio
//! network was: multicast discovery reaches every member, and vehicle-to-vehicle traffic
//! crosses the sender's link and the receiver's. Its hardware addresses are fixed
//! ([`radio_mac`]) and every member has permanent neighbour entries for the others, so no
//! ARP crosses a shaped link. The world namespace stands for what is
//! not radio: the simulator's sensor and actuator traffic with each vehicle (a vehicle's
//! wiring, unshaped) and the observer (the scenario runner's recorder) that sees every
//! vehicle and the ground station. It forwards nothing, and each of its links is its own
//! subnet outside the radio's, so no traffic between vehicles or between a vehicle and
//! the ground can bypass the radio links through it. Addresses come from 198.18.0.0/15
//! (RFC 2544, set aside for benchmarking), used only inside these namespaces.
//!
//! Every run writes a label file `/run/fieldproof-link/<run>.json` (owner pid and start
//! time, namespaces) before creating anything; [`cleanup_stale`] removes the namespaces of
//! every run whose owner is gone, [`cleanup_run`] those of one run.

use crate::sys::{self, SysError};
use serde::{Deserialize, Serialize};
use std::net::Ipv4Addr;
use std::path::PathBuf;
use thiserror::Error;

/// Directory of the runs' label files.
pub const LABEL_DIR: &str = "/run/fieldproof-link";
/// Name prefix of every namespace this module creates.
pub const PREFIX: &str = "fp-";
/// The vehicle's radio interface.
pub const VEHICLE_IF: &str = "radio0";
/// The ground station's bridge in the radio namespace.
pub const RADIO_BRIDGE: &str = "radio";
/// Vehicle-side interface in a link namespace.
pub const LINK_VEHICLE_IF: &str = "veh";
/// Ground-side interface in a link namespace.
pub const LINK_GROUND_IF: &str = "gnd";
/// The ground station's address.
pub const GROUND_ADDR: Ipv4Addr = Ipv4Addr::new(198, 18, 0, 1);
/// A vehicle's interface to the world namespace.
pub const VEHICLE_WORLD_IF: &str = "world0";
/// The world namespace's interface to the radio namespace.
pub const WORLD_GROUND_IF: &str = "gnd0";
/// The radio namespace's interface to the world namespace.
pub const RADIO_WORLD_IF: &str = "world";
/// Most vehicles a run may have (the address plan's limit).
pub const MAX_VEHICLES: usize = 250;

/// A topology that cannot be created or removed.
#[derive(Debug, Error)]
pub enum NetnsError {
    /// A bad run id or vehicle name.
    #[error("{field}: '{value}' {message}")]
    Invalid {
        /// `run_id` or `vehicles[i]`.
        field: String,
        /// The value.
        value: String,
        /// What is wrong.
        message: String,
    },
    /// Leftovers of the same run id.
    #[error("run_id: '{0}' already has namespaces ({1}); remove them with `link_net cleanup --run-id {0}`")]
    Exists(String, String),
    /// A system operation.
    #[error(transparent)]
    Sys(#[from] SysError),
}

/// How links are shaped.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum Backend {
    /// Kernel netem in the vehicle namespace (radio0 egress, ifb for ingress).
    Kernel,
    /// The userspace emulator in a link namespace between the vehicle and the radio.
    Userspace,
    /// No shaping: the kernel backend's topology left unshaped (a baseline for benchmarks).
    Direct,
}

/// Checks a run id: 1 to 12 of `[a-z0-9]`.
pub fn validate_run_id(id: &str) -> Result<(), NetnsError> {
    if (1..=12).contains(&id.len())
        && id
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit())
    {
        Ok(())
    } else {
        Err(NetnsError::Invalid {
            field: "run_id".into(),
            value: id.into(),
            message: "must be 1 to 12 of [a-z0-9]".into(),
        })
    }
}

/// Checks a vehicle name: 1 to 32 of `[a-z0-9_]`, starting with a letter.
pub fn validate_vehicle(field: &str, name: &str) -> Result<(), NetnsError> {
    let ok = (1..=32).contains(&name.len())
        && name.as_bytes()[0].is_ascii_lowercase()
        && name
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_');
    if ok {
        Ok(())
    } else {
        Err(NetnsError::Invalid {
            field: field.into(),
            value: name.into(),
            message: "must be 1 to 32 of [a-z0-9_], starting with a letter".into(),
        })
    }
}

/// Namespace of the ground station.
pub fn radio_ns(run: &str) -> String {
    format!("{PREFIX}{run}-radio")
}

/// Namespace of a vehicle.
pub fn vehicle_ns(run: &str, vehicle: &str) -> String {
    format!("{PREFIX}{run}-v-{vehicle}")
}

/// Namespace of the simulator and the observer, wired to every vehicle and the radio.
pub fn world_ns(run: &str) -> String {
    format!("{PREFIX}{run}-world")
}

/// Namespace of a vehicle's link (userspace backend).
pub fn link_ns(run: &str, vehicle: &str) -> String {
    format!("{PREFIX}{run}-l-{vehicle}")
}

/// Run id of a namespace this module named, if it is one.
pub fn run_of(ns: &str) -> Option<&str> {
    let rest = ns.strip_prefix(PREFIX)?;
    let (run, kind) = rest.split_once('-')?;
    (validate_run_id(run).is_ok()
        && (kind == "radio" || kind == "world" || kind.starts_with("v-") || kind.starts_with("l-")))
    .then_some(run)
}

/// The address of the `index`-th vehicle (1-based).
pub fn vehicle_addr(index: usize) -> Ipv4Addr {
    Ipv4Addr::new(198, 18, 1, index as u8)
}

/// The hardware address of a radio interface, from its IPv4 address (locally administered,
/// `02:66:70` then the address's last three bytes: 198.18.1.5 → `02:66:70:12:01:05`), so
/// that every namespace can know every other one's without asking (see the permanent
/// neighbour entries of [`Topology::create`]).
pub fn radio_mac(addr: Ipv4Addr) -> String {
    let [_, b, c, d] = addr.octets();
    format!("02:66:70:{b:02x}:{c:02x}:{d:02x}")
}

/// The two ends of the world namespace's link to the `index`-th vehicle (1-based; 0: to
/// the radio namespace): (world side, other side), each in a /24 of its own.
pub fn world_link_addrs(index: usize) -> (Ipv4Addr, Ipv4Addr) {
    let i = index as u8;
    (Ipv4Addr::new(198, 19, i, 1), Ipv4Addr::new(198, 19, i, 2))
}

/// The label file of a run.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Label {
    /// The run id.
    pub run_id: String,
    /// The process that owns the run's namespaces.
    pub owner_pid: u32,
    /// Its start time (clock ticks), against pid reuse.
    pub owner_start: Option<u64>,
    /// The namespaces the run creates.
    pub namespaces: Vec<String>,
    /// Kept on purpose (`--keep`): not stale when its owner is gone; only
    /// `link_net cleanup --run-id` removes it.
    #[serde(default)]
    pub kept: bool,
    /// Every link of the run is made and shaped: a process started inside now finds its
    /// interfaces (`link_net exec` waits for this).
    #[serde(default)]
    pub shaped: bool,
}

fn label_path(run: &str) -> PathBuf {
    PathBuf::from(LABEL_DIR).join(format!("{run}.json"))
}

/// Writes a run's label file.
fn write_label(label: &Label) -> Result<(), SysError> {
    std::fs::create_dir_all(LABEL_DIR).map_err(|e| SysError::Io {
        what: format!("mkdir {LABEL_DIR}"),
        source: e,
    })?;
    std::fs::write(
        label_path(&label.run_id),
        serde_json::to_string(label).expect("label serializes"),
    )
    .map_err(|e| SysError::Io {
        what: format!("write label of {}", label.run_id),
        source: e,
    })
}

/// Reads a run's label file.
pub fn read_label(run: &str) -> Option<Label> {
    serde_json::from_str(&std::fs::read_to_string(label_path(run)).ok()?).ok()
}

/// Every namespace (of anyone) under `/run/netns`.
pub fn list_namespaces() -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir("/run/netns")
        .map(|d| {
            d.filter_map(|e| e.ok()?.file_name().into_string().ok())
                .collect()
        })
        .unwrap_or_default();
    v.sort();
    v
}

/// The namespaces of run `run`.
pub fn namespaces_of(run: &str) -> Vec<String> {
    list_namespaces()
        .into_iter()
        .filter(|n| run_of(n) == Some(run))
        .collect()
}

/// One vehicle's link.
#[derive(Debug, Clone, Serialize)]
pub struct VehicleLink {
    /// The vehicle.
    pub vehicle: String,
    /// 1-based index (address and radio port).
    pub index: usize,
    /// The vehicle's namespace.
    pub ns: String,
    /// The link namespace (userspace backend).
    pub link_ns: Option<String>,
    /// The vehicle's radio address.
    pub addr: Ipv4Addr,
    /// The link's port on the radio bridge.
    pub radio_port: String,
    /// The vehicle's address on its link to the world namespace.
    pub world_addr: Ipv4Addr,
    /// That link's interface in the world namespace.
    pub world_port: String,
}

/// A run's namespaces and links; dropping it removes them.
#[derive(Debug, Serialize)]
pub struct Topology {
    /// The run id.
    pub run_id: String,
    /// The ground station's namespace.
    pub radio_ns: String,
    /// The ground station's address.
    pub ground_addr: Ipv4Addr,
    /// The simulator's and the observer's namespace.
    pub world_ns: String,
    /// The links, in vehicle order.
    pub links: Vec<VehicleLink>,
    /// How links are shaped.
    pub backend: Backend,
    /// Keep everything when dropped (`--keep`).
    #[serde(skip)]
    pub keep: bool,
}

impl Topology {
    /// Creates the run's namespaces and links. On error everything created is removed.
    pub fn create(
        run_id: &str,
        vehicles: &[String],
        backend: Backend,
    ) -> Result<Topology, NetnsError> {
        validate_run_id(run_id)?;
        if vehicles.is_empty() || vehicles.len() > MAX_VEHICLES {
            return Err(NetnsError::Invalid {
                field: "vehicles".into(),
                value: vehicles.len().to_string(),
                message: format!("must be 1 to {MAX_VEHICLES} vehicles"),
            });
        }
        for (i, v) in vehicles.iter().enumerate() {
            validate_vehicle(&format!("vehicles[{i}]"), v)?;
            if vehicles[..i].contains(v) {
                return Err(NetnsError::Invalid {
                    field: format!("vehicles[{i}]"),
                    value: v.clone(),
                    message: "is listed twice".into(),
                });
            }
        }
        let existing = namespaces_of(run_id);
        if !existing.is_empty() {
            return Err(NetnsError::Exists(run_id.into(), existing.join(", ")));
        }
        let links: Vec<VehicleLink> = vehicles
            .iter()
            .enumerate()
            .map(|(i, v)| VehicleLink {
                vehicle: v.clone(),
                index: i + 1,
                ns: vehicle_ns(run_id, v),
                link_ns: (backend == Backend::Userspace).then(|| link_ns(run_id, v)),
                addr: vehicle_addr(i + 1),
                radio_port: format!("lnk{}", i + 1),
                world_addr: world_link_addrs(i + 1).1,
                world_port: format!("v{}", i + 1),
            })
            .collect();
        let topo = Topology {
            run_id: run_id.into(),
            radio_ns: radio_ns(run_id),
            ground_addr: GROUND_ADDR,
            world_ns: world_ns(run_id),
            links,
            backend,
            keep: false,
        };
        let mut namespaces = vec![topo.radio_ns.clone(), topo.world_ns.clone()];
        for l in &topo.links {
            namespaces.push(l.ns.clone());
            namespaces.extend(l.link_ns.clone());
        }
        write_label(&Label {
            run_id: run_id.into(),
            owner_pid: std::process::id(),
            owner_start: sys::process_start_ticks(std::process::id()),
            namespaces,
            kept: false,
            shaped: false,
        })?;
        // From here on, Drop removes whatever was made.
        topo.build()?;
        Ok(topo)
    }

    fn build(&self) -> Result<(), NetnsError> {
        let r = &self.radio_ns;
        add_ns(r)?;
        let ground_mac = radio_mac(self.ground_addr);
        sys::ip(&[
            "-n",
            r,
            "link",
            "add",
            RADIO_BRIDGE,
            "address",
            &ground_mac,
            "type",
            "bridge",
            "stp_state",
            "0",
            "forward_delay",
            "0",
            // A radio is a broadcast medium: every station hears every frame. Snooping (a
            // switch's default) forwards multicast only to ports whose IGMP membership the
            // bridge heard within its membership interval (260 s). Without a querier on the
            // radio the bridge floods anyway, but a stack that ran one would make DDS
            // discovery depend on IGMP reports crossing a lossy, shaped link.
            "mcast_snooping",
            "0",
        ])?;
        sys::ip(&[
            "-n",
            r,
            "addr",
            "add",
            &format!("{GROUND_ADDR}/16"),
            "dev",
            RADIO_BRIDGE,
        ])?;
        sys::ip(&["-n", r, "link", "set", RADIO_BRIDGE, "up"])?;
        sys::ip(&["-n", r, "route", "add", "224.0.0.0/4", "dev", RADIO_BRIDGE])?;
        // Unprivileged ICMP echo sockets for the ground station.
        sys::in_netns(r, || {
            sys::write_sysctl("net.ipv4.ping_group_range", "0 2147483647")
        })?;
        for l in &self.links {
            add_ns(&l.ns)?;
            if let Some(lns) = &l.link_ns {
                add_ns(lns)?;
            }
            let peer_ns = l.link_ns.as_deref().unwrap_or(r);
            let peer_if = if l.link_ns.is_some() {
                LINK_VEHICLE_IF
            } else {
                l.radio_port.as_str()
            };
            let mac = radio_mac(l.addr);
            sys::ip(&[
                "-n", &l.ns, "link", "add", VEHICLE_IF, "address", &mac, "type", "veth", "peer",
                "name", peer_if, "netns", peer_ns,
            ])?;
            if let Some(lns) = &l.link_ns {
                sys::ip(&[
                    "-n",
                    lns,
                    "link",
                    "add",
                    LINK_GROUND_IF,
                    "type",
                    "veth",
                    "peer",
                    "name",
                    &l.radio_port,
                    "netns",
                    r,
                ])?;
                for ifname in [LINK_VEHICLE_IF, LINK_GROUND_IF] {
                    sys::ip(&["-n", lns, "link", "set", ifname, "promisc", "on", "up"])?;
                }
                sys::in_netns(lns, || {
                    sys::write_sysctl("net.ipv6.conf.all.disable_ipv6", "1")
                })?;
            }
            sys::ip(&[
                "-n",
                r,
                "link",
                "set",
                &l.radio_port,
                "master",
                RADIO_BRIDGE,
                "up",
            ])?;
            sys::ip(&[
                "-n",
                &l.ns,
                "addr",
                "add",
                &format!("{}/16", l.addr),
                "dev",
                VEHICLE_IF,
            ])?;
            sys::ip(&["-n", &l.ns, "link", "set", VEHICLE_IF, "up"])?;
            sys::ip(&[
                "-n",
                &l.ns,
                "route",
                "add",
                "224.0.0.0/4",
                "dev",
                VEHICLE_IF,
            ])?;
            if l.link_ns.is_some() {
                // Frames entering the emulator must be complete (checksums, no TSO/GSO).
                sys::in_netns(&l.ns, || sys::disable_offloads(VEHICLE_IF))?;
                let port = l.radio_port.clone();
                sys::in_netns(r, move || sys::disable_offloads(&port))?;
            }
        }
        self.add_neighbours()?;
        self.build_world()?;
        self.write_hosts()?;
        Ok(())
    }

    /// Permanent neighbour entries on the radio segment: each vehicle knows the ground's
    /// and every other vehicle's hardware address, the ground every vehicle's, so no ARP
    /// crosses the shaped links. Without them a request lost to the profile's loss, or
    /// behind a queue DDS has filled, holds every packet to that address for a second or
    /// more (probes answered after 0.9 s on an `lte_rural` link), which is no property of
    /// the profile; an LTE bearer carries IP with no ARP at all.
    fn add_neighbours(&self) -> Result<(), NetnsError> {
        let entry = |addr: Ipv4Addr, dev: &str| {
            format!(
                "neigh replace {addr} lladdr {} dev {dev} nud permanent\n",
                radio_mac(addr)
            )
        };
        let mut batches: Vec<(&str, String)> = vec![(
            self.radio_ns.as_str(),
            self.links
                .iter()
                .map(|l| entry(l.addr, RADIO_BRIDGE))
                .collect(),
        )];
        for l in &self.links {
            let mut batch = entry(self.ground_addr, VEHICLE_IF);
            for other in self.links.iter().filter(|o| o.vehicle != l.vehicle) {
                batch.push_str(&entry(other.addr, VEHICLE_IF));
            }
            batches.push((l.ns.as_str(), batch));
        }
        for (ns, batch) in batches {
            let file = std::env::temp_dir().join(format!("{ns}.neigh"));
            std::fs::write(&file, batch).map_err(|e| SysError::Io {
                what: format!("write {}", file.display()),
                source: e,
            })?;
            let done = sys::ip(&["-n", ns, "-batch", &file.to_string_lossy()]);
            let _ = std::fs::remove_file(&file);
            done?;
        }
        Ok(())
    }

    /// The world namespace and its unshaped links to the radio and every vehicle. A new
    /// namespace does not forward (`net.ipv4.ip_forward` 0), which keeps it a dead end.
    fn build_world(&self) -> Result<(), NetnsError> {
        let w = &self.world_ns;
        add_ns(w)?;
        let mut ends = vec![(
            WORLD_GROUND_IF.to_string(),
            self.radio_ns.as_str(),
            RADIO_WORLD_IF,
            world_link_addrs(0),
        )];
        for l in &self.links {
            ends.push((
                l.world_port.clone(),
                l.ns.as_str(),
                VEHICLE_WORLD_IF,
                world_link_addrs(l.index),
            ));
        }
        for (world_if, peer_ns, peer_if, (world_addr, peer_addr)) in &ends {
            sys::ip(&[
                "-n", w, "link", "add", world_if, "type", "veth", "peer", "name", peer_if, "netns",
                peer_ns,
            ])?;
            for (ns, ifname, addr) in [
                (w.as_str(), world_if.as_str(), world_addr),
                (peer_ns, peer_if, peer_addr),
            ] {
                sys::ip(&[
                    "-n",
                    ns,
                    "addr",
                    "add",
                    &format!("{addr}/24"),
                    "dev",
                    ifname,
                ])?;
                sys::ip(&["-n", ns, "link", "set", ifname, "up"])?;
            }
        }
        Ok(())
    }

    /// `/etc/netns/<ns>/hosts` for every namespace: `ip netns exec` shows it as
    /// `/etc/hosts`, so vehicles and the ground resolve each other by name.
    /// The world namespace's file names the ends of its own links.
    fn write_hosts(&self) -> Result<(), NetnsError> {
        let mut radio = format!("127.0.0.1 localhost\n{} ground\n", self.ground_addr);
        let mut world = format!("127.0.0.1 localhost\n{} ground\n", world_link_addrs(0).1);
        for l in &self.links {
            radio.push_str(&format!("{} {}\n", l.addr, l.vehicle));
            world.push_str(&format!("{} {}\n", l.world_addr, l.vehicle));
        }
        let mut files = vec![
            (self.radio_ns.clone(), &radio),
            (self.world_ns.clone(), &world),
        ];
        files.extend(self.links.iter().map(|l| (l.ns.clone(), &radio)));
        for (ns, hosts) in files {
            let dir = PathBuf::from("/etc/netns").join(&ns);
            std::fs::create_dir_all(&dir).map_err(|e| SysError::Io {
                what: format!("mkdir {}", dir.display()),
                source: e,
            })?;
            std::fs::write(dir.join("hosts"), hosts).map_err(|e| SysError::Io {
                what: format!("write {}/hosts", dir.display()),
                source: e,
            })?;
        }
        Ok(())
    }

    /// The link of `vehicle`.
    pub fn link(&self, vehicle: &str) -> Option<&VehicleLink> {
        self.links.iter().find(|l| l.vehicle == vehicle)
    }

    /// Removes everything of the run now (also done on drop).
    pub fn remove(&self) -> Result<Vec<String>, NetnsError> {
        cleanup_run(&self.run_id)
    }
}

impl Topology {
    /// Keeps the run's namespaces when dropped (`--keep`), or not. A kept run's label says
    /// so: it is not stale once its owner is gone (`cleanup --stale` and the next run leave
    /// it), and only `link_net cleanup --run-id` removes it.
    pub fn set_keep(&mut self, keep: bool) -> Result<(), NetnsError> {
        self.keep = keep;
        self.update_label(|label| label.kept = keep)
    }

    /// Marks the run's links as made and shaped in its label.
    pub fn mark_shaped(&self) -> Result<(), NetnsError> {
        self.update_label(|label| label.shaped = true)
    }

    fn update_label(&self, change: impl FnOnce(&mut Label)) -> Result<(), NetnsError> {
        let mut label = read_label(&self.run_id).ok_or_else(|| SysError::Io {
            what: format!("read label of {}", self.run_id),
            source: std::io::Error::from(std::io::ErrorKind::NotFound),
        })?;
        change(&mut label);
        write_label(&label)?;
        Ok(())
    }
}

/// The namespace of run `run` that `place` names: `radio` (the ground station's), `world`
/// (the simulator's) or a vehicle's name.
pub fn namespace_of_place(run: &str, place: &str) -> Result<String, NetnsError> {
    validate_run_id(run)?;
    Ok(match place {
        "radio" => radio_ns(run),
        "world" => world_ns(run),
        vehicle => {
            validate_vehicle("place", vehicle)?;
            vehicle_ns(run, vehicle)
        }
    })
}

/// Waits until run `run`'s links are made and shaped (its label says so) and `namespace` is
/// one of them, polling every 50 ms for at most `timeout`.
pub fn wait_shaped(run: &str, namespace: &str, timeout: std::time::Duration) -> Result<(), String> {
    let deadline = std::time::Instant::now() + timeout;
    loop {
        if let Some(label) = read_label(run).filter(|label| label.shaped) {
            return if label.namespaces.iter().any(|ns| ns == namespace) {
                Ok(())
            } else {
                Err(format!(
                    "run {run} has no namespace {namespace} (it has {})",
                    label.namespaces.join(", ")
                ))
            };
        }
        if std::time::Instant::now() >= deadline {
            return Err(format!(
                "run {run}'s links were not up within {:.0} s (is its link_shaper or \
                 `link_net up` running, as root?)",
                timeout.as_secs_f64()
            ));
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
}

impl Drop for Topology {
    fn drop(&mut self) {
        if !self.keep {
            if let Err(e) = cleanup_run(&self.run_id) {
                eprintln!("fieldproof_link: removing run {}: {e}", self.run_id);
            }
        }
    }
}

fn add_ns(ns: &str) -> Result<(), NetnsError> {
    sys::ip(&["netns", "add", ns])?;
    sys::ip(&["-n", ns, "link", "set", "lo", "up"])?;
    Ok(())
}

/// How long processes left inside a run's namespaces get to end before they are killed.
pub const LEFTOVER_GRACE: std::time::Duration = std::time::Duration::from_secs(5);

/// Removes every namespace of run `run` (killing the processes left inside them after
/// [`LEFTOVER_GRACE`]), its
/// hosts files and its label. Returns the namespaces removed.
pub fn cleanup_run(run: &str) -> Result<Vec<String>, NetnsError> {
    validate_run_id(run)?;
    let me = std::process::id();
    let mut removed = Vec::new();
    let mut first_err = None;
    let namespaces = namespaces_of(run);
    // A process left inside keeps the namespace (and its links) alive. It may be ending on
    // its own (`ros2 launch` signals every process of a bringup at once): it gets
    // LEFTOVER_GRACE to do so, then it is killed.
    let pids_inside = || -> Vec<i32> {
        namespaces
            .iter()
            .filter_map(|ns| sys::ip(&["netns", "pids", ns]).ok())
            .flat_map(|pids| {
                pids.split_whitespace()
                    .filter_map(|p| p.parse::<i32>().ok())
                    .collect::<Vec<_>>()
            })
            .filter(|pid| *pid as u32 != me)
            .collect()
    };
    let deadline = std::time::Instant::now() + LEFTOVER_GRACE;
    let mut left = pids_inside();
    while !left.is_empty() && std::time::Instant::now() < deadline {
        std::thread::sleep(std::time::Duration::from_millis(100));
        left = pids_inside();
    }
    for pid in left {
        // SAFETY: kill(2) on a pid inside the run's own namespace.
        unsafe { libc::kill(pid, libc::SIGKILL) };
    }
    for ns in namespaces {
        match sys::ip(&["netns", "del", &ns]) {
            Ok(_) => removed.push(ns.clone()),
            Err(e) => {
                first_err.get_or_insert(e);
            }
        }
        let _ = std::fs::remove_dir_all(PathBuf::from("/etc/netns").join(&ns));
    }
    let _ = std::fs::remove_file(label_path(run));
    match first_err {
        Some(e) => Err(e.into()),
        None => Ok(removed),
    }
}

/// Runs with namespaces whose owner is gone (or that have no label), but for the kept ones.
pub fn stale_runs() -> Vec<String> {
    let mut runs: Vec<String> = list_namespaces()
        .iter()
        .filter_map(|n| run_of(n).map(str::to_string))
        .collect();
    if let Ok(d) = std::fs::read_dir(LABEL_DIR) {
        runs.extend(d.filter_map(|e| {
            e.ok()?
                .file_name()
                .into_string()
                .ok()?
                .strip_suffix(".json")
                .map(str::to_string)
        }));
    }
    runs.sort();
    runs.dedup();
    runs.retain(|r| match read_label(r) {
        Some(l) => !l.kept && !sys::process_alive(l.owner_pid, l.owner_start),
        None => true,
    });
    runs
}

/// Removes every stale run; returns the namespaces removed.
pub fn cleanup_stale() -> Result<Vec<String>, NetnsError> {
    let mut all = Vec::new();
    for r in stale_runs() {
        all.extend(cleanup_run(&r)?);
    }
    Ok(all)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_carry_the_run_id() {
        assert_eq!(radio_ns("ab12"), "fp-ab12-radio");
        assert_eq!(vehicle_ns("ab12", "ugv1"), "fp-ab12-v-ugv1");
        assert_eq!(link_ns("ab12", "ugv_2"), "fp-ab12-l-ugv_2");
        assert_eq!(run_of("fp-ab12-v-ugv1"), Some("ab12"));
        assert_eq!(run_of("fp-ab12-radio"), Some("ab12"));
        assert_eq!(run_of("fp-ab12-world"), Some("ab12"));
        assert_eq!(run_of("fp-ab12-other"), None);
        assert_eq!(run_of("someone-else"), None);
        assert_eq!(run_of("fp-AB-radio"), None);
        assert_eq!(vehicle_addr(3), Ipv4Addr::new(198, 18, 1, 3));
    }

    #[test]
    fn run_ids_and_vehicles_are_validated() {
        assert!(validate_run_id("r1").is_ok());
        for bad in ["", "UP", "a-b", "0123456789abc", "a b"] {
            let e = validate_run_id(bad).unwrap_err().to_string();
            assert!(e.starts_with("run_id: '"), "{e}");
        }
        assert!(validate_vehicle("v", "ugv_1").is_ok());
        assert_eq!(
            validate_vehicle("vehicles[0]", "1ugv")
                .unwrap_err()
                .to_string(),
            "vehicles[0]: '1ugv' must be 1 to 32 of [a-z0-9_], starting with a letter"
        );
        let e = Topology::create("r1", &["a".into(), "a".into()], Backend::Userspace).unwrap_err();
        assert_eq!(e.to_string(), "vehicles[1]: 'a' is listed twice");
    }
}
