//! `link_shaper`: the one privileged node. Creates the run's namespaces and links
//! (`fieldproof_link::netns`), shapes them (kernel netem or the userspace emulator) and
//! takes link commands over ROS; removes everything when it ends (SIGINT/SIGTERM too; after
//! a crash `link_net cleanup --stale` does).
//!
//! A managed (lifecycle) node: configure reads the parameters and scenario, creates and shapes
//! the links and prints `{"ready": true, "topology": …}` on stdout (what the runner waits
//! for); activate starts serving the commands below, deactivate stops (the links stay),
//! cleanup removes the links. With `autostart` (default true) it configures and activates
//! itself; a configuration that fails then ends the process with the reason.
//!
//! Interface (under the node, `std_msgs/msg/String`):
//! - `~/command` (in): `set <vehicle> <profile>`, `custom <vehicle> <name> <profile JSON>`,
//!   `drop <vehicle> [seconds]`, `restore <vehicle>`, `counters <vehicle>`, `status`;
//! - `~/result` (out): one JSON reply per command; a refusal (a link not of this run, an
//!   unknown profile, an out-of-range value) is `{"ok": false, "error": reason}`;
//! - `~/in_force` (out, transient local): what is in force on every link, on each change;
//! - `~/counters` (out, 1 Hz): every link's counters (bytes, packets, drops, backlog, both ways).
//!
//! ```text
//! link_shaper --ros-args -p run_id:=r1 -p vehicles:="[ugv1, ugv2]" -p scenario:=examples/ugv_link_loss.yaml
//! ros2 topic pub --once /link_shaper/command std_msgs/msg/String "{data: 'drop ugv1 30'}"
//! ```

use fieldproof_link::emulator::EmulatorConfig;
use fieldproof_link::netns::Backend;
use fieldproof_link::profile::{presets, Network, NetworkSection};
use fieldproof_link::shaper::{unix_now, LinkShaper};
use fieldproof_link::tc;
use fieldproof_runtime::lifecycle::{Configured, PRIMARY_STATE_ACTIVE, PRIMARY_STATE_FINALIZED};
use fieldproof_runtime::msgs::std_msgs;
use fieldproof_runtime::{qos, tracing, NodeBuilder, Param, ParamHandle};
use futures::FutureExt;
use std::time::Duration;

fn network(profile: &str, scenario: &str) -> Result<Network, String> {
    if scenario.is_empty() {
        let sec = NetworkSection::with_profile(profile);
        return Network::new(sec, &presets(), "profile").map_err(|e| e.to_string());
    }
    let links = fieldproof_link::scenario_file::read(std::path::Path::new(scenario))
        .map_err(|e| format!("scenario: {e}"))?;
    Network::new(links.network, &presets(), "network").map_err(|e| e.to_string())
}

fn main() -> std::process::ExitCode {
    let mut builder = NodeBuilder::new("link_shaper");
    let run_id: ParamHandle<String> = builder.declare(
        Param::string("run_id", "")
            .description("the run (1 to 12 of [a-z0-9]); names every namespace")
            .read_only(),
    );
    let vehicles: ParamHandle<Vec<String>> = builder.declare(
        Param::strings("vehicles", &[])
            .description("one link per vehicle")
            .read_only(),
    );
    let profile: ParamHandle<String> = builder.declare(
        Param::string("profile", "wifi_good")
            .description("every link's profile without a scenario")
            .read_only(),
    );
    let scenario: ParamHandle<String> = builder.declare(
        Param::string("scenario", "")
            .description("scenario file whose network section configures the links")
            .read_only(),
    );
    let backend: ParamHandle<String> = builder.declare(
        Param::string("backend", "auto")
            .description("auto, kernel or userspace")
            .one_of(&["auto", "kernel", "userspace"])
            .read_only(),
    );
    let keep: ParamHandle<bool> = builder.declare(
        Param::bool("keep", false)
            .description("keep the namespaces after the end")
            .read_only(),
    );
    let autostart: ParamHandle<bool> = builder.declare(
        Param::bool("autostart", true)
            .description("configure and activate at start (false: wait for ~/change_state)")
            .read_only(),
    );
    let events_jsonl: ParamHandle<String> = builder.declare(
        Param::string("events_jsonl", "")
            .description("file for the applied profile changes (empty: none)")
            .read_only(),
    );
    fieldproof_runtime::main(
        move || builder,
        |node| async move {
            let vehicle_names = vehicles.get();
            // configure: the links are created and shaped; the runner waits for the line.
            let (callbacks, configured) = Configured::new(move || {
                let net = network(&profile.get(), &scenario.get())?;
                let forced = match backend.get().as_str() {
                    "kernel" => Some(Backend::Kernel),
                    "userspace" => Some(Backend::Userspace),
                    "auto" => None,
                    other => {
                        return Err(format!(
                            "backend: '{other}' is not one of auto, kernel, userspace"
                        ))
                    }
                };
                let backend = tc::select_backend(forced);
                let run_id = run_id.get();
                let vehicles = vehicles.get();
                let epoch = unix_now();
                let mut shaper = LinkShaper::start(
                    &run_id,
                    &vehicles,
                    net,
                    backend,
                    EmulatorConfig::default(),
                    epoch,
                )
                .map_err(|e| e.to_string())?;
                shaper.keep(keep.get()).map_err(|e| format!("keep: {e}"))?;
                // The runner waits for this line (the topology: namespaces, addresses).
                println!(
                    "{}",
                    serde_json::json!({"ready": true, "epoch": epoch, "topology": shaper.topology(), "in_force": shaper.in_force()})
                );
                {
                    use std::io::Write;
                    let _ = std::io::stdout().flush();
                }
                tracing::info!(
                    "run {run_id}: {} links ({backend:?} backend)",
                    vehicles.len()
                );
                Ok(shaper)
            });
            let managed = node.managed(callbacks)?;
            if autostart.get() {
                managed
                    .autostart()
                    .map_err(|e| configured.last_error().unwrap_or(e))?;
            }
            let vehicles = vehicle_names;
            let commands = node.subscription::<std_msgs::String>("~/command", qos::default())?;
            let result = node.publisher::<std_msgs::String>("~/result", qos::default())?;
            let in_force = node.publisher::<std_msgs::String>("~/in_force", qos::latched())?;
            let counters = node.publisher::<std_msgs::String>("~/counters", qos::default())?;
            let events = events_jsonl.get();
            // Rewritten on every change, so it is complete however the node ends.
            let publish_in_force = |s: &LinkShaper| {
                if !events.is_empty() {
                    let text: String = s
                        .events()
                        .iter()
                        .filter_map(|c| serde_json::to_string(c).ok())
                        .map(|l| l + "\n")
                        .collect();
                    if let Err(e) = std::fs::write(&events, text) {
                        tracing::error!("events_jsonl: {events}: {e}");
                    }
                }
                in_force.publish(std_msgs::String {
                    data: serde_json::to_string(s.in_force()).unwrap_or_default(),
                })
            };
            // activate: serve commands while ACTIVE; deactivate: stop serving, links kept.
            let outcome: Result<(), fieldproof_runtime::BoxError> = 'lifecycle: loop {
                let state = futures::select! {
                    s = managed.wait_until(|s| s.id == PRIMARY_STATE_ACTIVE || s.id == PRIMARY_STATE_FINALIZED).fuse() => s,
                    _ = node.shutdown_requested().fuse() => break Ok(()),
                };
                if state.id == PRIMARY_STATE_FINALIZED {
                    managed.finalized().await;
                    break Ok(());
                }
                let Some(mut shaper) = configured.take() else {
                    break Err("active without a configuration".into());
                };
                publish_in_force(&shaper)?;
                let mut second = smol::Timer::interval(Duration::from_secs(1));
                let mut tick = smol::Timer::interval(Duration::from_millis(50));
                let served: Result<bool, fieldproof_runtime::BoxError> = loop {
                    futures::select! {
                        c = commands.recv().fuse() => {
                            let line = match c { Ok(c) => c.data, Err(e) => break Err(e.into()) };
                            let (reply, _) = shaper.command(line.trim());
                            if reply["ok"] == false {
                                tracing::warn!("refused '{}': {}", line.trim(), reply["error"]);
                            } else {
                                tracing::info!("{}", line.trim());
                            }
                            result.publish(std_msgs::String { data: reply.to_string() })?;
                            publish_in_force(&shaper)?;
                        }
                        _ = futures::StreamExt::next(&mut tick).fuse() => {
                            match shaper.tick() {
                                Ok(restored) if !restored.is_empty() => {
                                    tracing::info!("timed drop ended, restored: {}", restored.join(", "));
                                    publish_in_force(&shaper)?;
                                }
                                Ok(_) => {}
                                Err(e) => break Err(e.into()),
                            }
                        }
                        _ = futures::StreamExt::next(&mut second).fuse() => {
                            let mut all = serde_json::Map::new();
                            for v in &vehicles {
                                if let Ok(c) = shaper.counters(v) {
                                    all.insert(v.clone(), serde_json::to_value(c)?);
                                }
                            }
                            counters.publish(std_msgs::String { data: serde_json::Value::Object(all).to_string() })?;
                        }
                        _ = managed.wait_until(|s| s.id != PRIMARY_STATE_ACTIVE).fuse() => break Ok(false),
                        _ = node.shutdown_requested().fuse() => break Ok(true),
                    }
                };
                configured.put(shaper);
                match served {
                    Ok(false) => continue 'lifecycle,
                    Ok(true) => break Ok(()),
                    Err(e) => break Err(e),
                }
            };
            // The namespaces go before the participant does.
            drop(configured.take());
            outcome
        },
    )
}
