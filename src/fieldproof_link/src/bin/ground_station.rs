//! `ground_station` (unprivileged, in the run's radio namespace): sends each vehicle its
//! heartbeat and measures every link.
//!
//! - heartbeat: `std_msgs/msg/Header` (wall-clock stamp, `frame_id: ground`), one per
//!   entry of `heartbeats` (`<vehicle> <topic> <rate_hz> <reliability> <durability>
//!   <depth>`: each vehicle its own fully qualified topic, rate and QoS, see
//!   [`fieldproof_link::heartbeat`]; what the scenario runner passes); without entries, every
//!   vehicle gets `/<vehicle>/<heartbeat_topic>` at `heartbeat_rate_hz` (0: none), best
//!   effort, depth 1;
//! - measurement: ICMP echoes from an unprivileged ping socket to every vehicle (16 bytes,
//!   10/s, given up after 1 s); per link and second one line to `network_jsonl` (if set)
//!   and on `/fieldproof/network` (`std_msgs/msg/String` with the JSON line). The probing
//!   thread runs SCHED_FIFO when allowed (`probe_realtime`), so a loaded host delays neither
//!   a probe's send nor the reading of its reply.
//!
//! Vehicle addresses: `addresses` (same order as `vehicles`) or, when empty, the vehicle
//! names resolved through the namespace's hosts file. Prints `{"ready": true}` on stdout
//! once probing.
//!
//! A managed (lifecycle) node: configure resolves and checks the links, parses the
//! heartbeats and opens `network_jsonl`; activate starts the heartbeats and the probing
//! (then the readiness line), deactivate stops them. With `autostart` (default true) it
//! configures and activates itself; a configuration that fails then ends the process with
//! the reason.
//!
//! ```text
//! ip netns exec fp-<run>-radio ground_station --ros-args -p vehicles:="[ugv1]" -p heartbeat_rate_hz:=2.0 -p network_jsonl:=runs/x/network.jsonl
//! ```

use fieldproof_link::heartbeat::{ground_station_heartbeats, HeartbeatSpec};
use fieldproof_link::probe::run_probers;
use fieldproof_link::sys;
use fieldproof_runtime::lifecycle::{Configured, PRIMARY_STATE_ACTIVE, PRIMARY_STATE_FINALIZED};
use fieldproof_runtime::msgs::{builtin_interfaces::Time, std_msgs};
use fieldproof_runtime::{qos, tracing, NodeBuilder, Param, ParamHandle};
use futures::FutureExt;
use std::io::Write;
use std::net::{Ipv4Addr, SocketAddr, ToSocketAddrs};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

fn resolve(vehicle: &str, given: Option<&String>) -> Result<Ipv4Addr, String> {
    if let Some(a) = given {
        return a
            .parse()
            .map_err(|_| format!("addresses: '{a}' is not an IPv4 address"));
    }
    (vehicle, 0)
        .to_socket_addrs()
        .map_err(|e| format!("vehicles: cannot resolve '{vehicle}': {e}"))?
        .find_map(|a| match a {
            SocketAddr::V4(v) => Some(*v.ip()),
            _ => None,
        })
        .ok_or_else(|| format!("vehicles: '{vehicle}' has no IPv4 address"))
}

fn wall_stamp() -> Time {
    let d = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap_or_default();
    Time::new(d.as_secs() as i32, d.subsec_nanos())
}

fn main() -> std::process::ExitCode {
    let mut builder = NodeBuilder::new("ground_station");
    let vehicles: ParamHandle<Vec<String>> = builder.declare(
        Param::strings("vehicles", &[])
            .description("the vehicles behind links")
            .read_only(),
    );
    let addresses: ParamHandle<Vec<String>> = builder.declare(
        Param::strings("addresses", &[])
            .description("their radio addresses (empty: resolve the names)")
            .read_only(),
    );
    let heartbeat_topic: ParamHandle<String> = builder.declare(
        Param::string("heartbeat_topic", "gcs/heartbeat")
            .topic()
            .description("relative to each vehicle's namespace")
            .read_only(),
    );
    let heartbeat_rate_hz: ParamHandle<f64> = builder.declare(
        Param::double("heartbeat_rate_hz", 2.0)
            .description("0: no heartbeat")
            .range(0.0, 100.0)
            .read_only(),
    );
    let heartbeats: ParamHandle<Vec<String>> = builder.declare(
        Param::strings("heartbeats", &[])
            .description(
                "one per vehicle: '<vehicle> <topic> <rate_hz> <reliability> \
                 <durability> <depth>', the vehicle one of vehicles, at most one entry \
                 per vehicle; when set, replaces heartbeat_topic and \
                 heartbeat_rate_hz, and a vehicle without an entry gets none",
            )
            .read_only(),
    );
    let any_address: ParamHandle<bool> = builder.declare(
        Param::bool("any_address", false)
            .description("probe addresses outside 198.18.0.0/15 and loopback")
            .read_only(),
    );
    let probe: ParamHandle<bool> = builder.declare(
        Param::bool("probe", true)
            .description("measure the links with ICMP echoes")
            .read_only(),
    );
    let probe_realtime: ParamHandle<bool> = builder.declare(
        Param::bool("probe_realtime", true)
            .description(
                "probe from a SCHED_FIFO thread (needs CAP_SYS_NICE, else a warning): \
                 keeps the host's scheduling delays out of the round trips",
            )
            .read_only(),
    );
    let autostart: ParamHandle<bool> = builder.declare(
        Param::bool("autostart", true)
            .description("configure and activate at start (false: wait for ~/change_state)")
            .read_only(),
    );
    let network_jsonl: ParamHandle<String> = builder.declare(
        Param::string("network_jsonl", "")
            .description("file for the windows (empty: none)")
            .read_only(),
    );
    fieldproof_runtime::main(
        move || builder,
        |node| async move {
            // configure: the links resolved and checked, the heartbeats parsed, the file open.
            let (callbacks, configured) = Configured::new(move || {
                let vehicles = vehicles.get();
                let given = addresses.get();
                if !given.is_empty() && given.len() != vehicles.len() {
                    return Err(format!(
                        "addresses: {} given for {} vehicles",
                        given.len(),
                        vehicles.len()
                    ));
                }
                let mut links = Vec::new();
                for (i, v) in vehicles.iter().enumerate() {
                    let a = resolve(v, given.get(i))?;
                    // Probes go only to the run's own radio addresses (or loopback) unless told.
                    let ours =
                        a.is_loopback() || (a.octets()[0] == 198 && (a.octets()[1] & 0xfe) == 18);
                    if !ours && !any_address.get() {
                        return Err(format!("addresses: {a} ({v}) is outside the run's radio network 198.18.0.0/15 (set any_address:=true to probe it)"));
                    }
                    links.push((v.clone(), a));
                }
                let heartbeats = ground_station_heartbeats(
                    &vehicles,
                    &heartbeats.get(),
                    &heartbeat_topic.get(),
                    heartbeat_rate_hz.get(),
                )?;
                let file = match network_jsonl.get() {
                    p if p.is_empty() => None,
                    p => Some(
                        std::fs::OpenOptions::new()
                            .create(true)
                            .append(true)
                            .open(&p)
                            .map_err(|e| format!("network_jsonl: {p}: {e}"))?,
                    ),
                };
                Ok(Setup {
                    links,
                    heartbeats,
                    file,
                })
            });
            let managed = node.managed(callbacks)?;
            if autostart.get() {
                managed
                    .autostart()
                    .map_err(|e| configured.last_error().unwrap_or(e))?;
            }
            let network =
                node.publisher::<std_msgs::String>("/fieldproof/network", qos::default())?;
            // activate: heartbeats and probing while ACTIVE; deactivate stops both.
            loop {
                let state = futures::select! {
                    s = managed.wait_until(|s| s.id == PRIMARY_STATE_ACTIVE || s.id == PRIMARY_STATE_FINALIZED).fuse() => s,
                    _ = node.shutdown_requested().fuse() => return Ok(()),
                };
                if state.id == PRIMARY_STATE_FINALIZED {
                    managed.finalized().await;
                    return Ok(());
                }
                let Some(mut setup) = configured.take() else {
                    return Err("active without a configuration".into());
                };
                let served = serve(
                    &node,
                    &managed,
                    &mut setup,
                    &network,
                    probe.get(),
                    probe_realtime.get(),
                )
                .await;
                configured.put(setup);
                if !served? {
                    return Ok(());
                }
            }
        },
    )
}

/// What configure sets up: the links to probe, the heartbeats, the windows' file.
struct Setup {
    links: Vec<(String, Ipv4Addr)>,
    heartbeats: Vec<HeartbeatSpec>,
    file: Option<std::fs::File>,
}

/// Sends the heartbeats and probes the links until the node leaves ACTIVE (`Ok(true)`) or
/// shuts down (`Ok(false)`).
async fn serve(
    node: &fieldproof_runtime::Node,
    managed: &fieldproof_runtime::lifecycle::Lifecycle,
    setup: &mut Setup,
    network: &fieldproof_runtime::Publisher<std_msgs::String>,
    probe: bool,
    probe_realtime: bool,
) -> Result<bool, fieldproof_runtime::BoxError> {
    let links = &setup.links;
    // Each vehicle's heartbeat: its own task, at its own rate, on the wall clock
    // (it stands for a real ground station).
    let mut heartbeat_tasks = Vec::new();
    for hb in &setup.heartbeats {
        let mut hb_qos = qos::sensor_data().keep_last(hb.depth as usize);
        if hb.reliable {
            hb_qos = hb_qos.reliable();
        }
        if hb.transient_local {
            hb_qos = hb_qos.transient_local();
        }
        let p = node.publisher::<std_msgs::Header>(&hb.topic, hb_qos)?;
        tracing::info!(
            "heartbeat of {}: {} at {} Hz ({:?})",
            hb.vehicle,
            hb.topic,
            hb.rate_hz,
            hb_qos
        );
        let name = hb.topic.clone();
        let rate_hz = hb.rate_hz;
        heartbeat_tasks.push(node.spawn(async move {
            let mut tick = smol::Timer::interval(Duration::from_secs_f64(1.0 / rate_hz));
            loop {
                futures::StreamExt::next(&mut tick).await;
                let h = std_msgs::Header {
                    stamp: wall_stamp(),
                    frame_id: "ground".into(),
                };
                if let Err(e) = p.publish(h) {
                    tracing::error!("heartbeat {name}: {e}");
                }
            }
        }));
    }
    let stop = Arc::new(AtomicBool::new(false));
    let (tx, rx) = smol::channel::unbounded();
    let (etx, erx) = smol::channel::bounded::<String>(1);
    let _keep_open = (tx.clone(), etx.clone());
    let prober = if probe && !links.is_empty() {
        let (st, l) = (stop.clone(), links.clone());
        // Named, so a supervisor allowed to (fieldproof run, which starts this node as an
        // unprivileged user) can make the thread real-time from outside.
        let thread = std::thread::Builder::new().name(fieldproof_link::probe::PROBE_THREAD.into());
        let spawned = thread.spawn(move || {
            sys::set_timer_slack(1);
            if probe_realtime && !sys::set_realtime(fieldproof_link::probe::PROBE_PRIORITY) {
                tracing::info!(
                    "probe_realtime: SCHED_FIFO refused (no CAP_SYS_NICE): the round trips \
                     carry the host's scheduling delays unless a supervisor makes the `{}` \
                     thread real-time (fieldproof run does)",
                    fieldproof_link::probe::PROBE_THREAD
                );
            }
            if let Err(e) = run_probers(&l, &st, |w| {
                let _ = tx.send_blocking(w);
            }) {
                let _ = etx.send_blocking(e.to_string());
            }
        });
        match spawned {
            Ok(handle) => Some(handle),
            Err(e) => {
                tracing::error!(
                    "the probing thread did not start: {e}; the links are not measured"
                );
                None
            }
        }
    } else {
        None
    };
    tracing::info!(
        "ground station: {} links, {} heartbeats",
        links.len(),
        heartbeat_tasks.len()
    );
    println!(
        "{}",
        serde_json::json!({"ready": true, "links": links.iter().map(|(v, a)| (v.clone(), a.to_string())).collect::<Vec<_>>()})
    );
    let _ = std::io::stdout().flush();
    let result: Result<bool, fieldproof_runtime::BoxError> = loop {
        futures::select! {
            w = rx.recv().fuse() => if let Ok(w) = w {
                let line = serde_json::to_string(&w)?;
                if let Some(f) = setup.file.as_mut() {
                    writeln!(f, "{line}")?;
                    f.flush()?;
                }
                network.publish(std_msgs::String { data: line })?;
            },
            e = erx.recv().fuse() => if let Ok(e) = e {
                break Err(format!("probing: {e}").into());
            },
            _ = managed.wait_until(|s| s.id != PRIMARY_STATE_ACTIVE).fuse() => break Ok(true),
            _ = node.shutdown_requested().fuse() => break Ok(false),
        }
    };
    stop.store(true, Ordering::Relaxed);
    if let Some(h) = prober {
        let _ = h.join();
    }
    drop(heartbeat_tasks);
    result
}
