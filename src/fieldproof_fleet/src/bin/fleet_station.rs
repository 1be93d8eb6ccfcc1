//! `fleet_station`: the station riding on the carrier (issue 19). Drives the carrier along its
//! road and grants launch and land clearances one vehicle at a time (the book in
//! [`fieldproof_fleet::lease`]). It coordinates only: it publishes on no vehicle's topic, so it
//! cannot arm, change a mode or command a vehicle's motion.
//!
//! - in: `odom` (nav_msgs/msg/Odometry, the carrier's, world frame), `/fleet/status`
//!   (fieldproof_interfaces/msg/FleetStatus), `/fleet/clearance_request`
//!   (fieldproof_interfaces/msg/ClearanceRequest);
//! - out: `cmd_vel` (geometry_msgs/msg/Twist, the carrier's), `/fleet/clearance`
//!   (fieldproof_interfaces/msg/Clearance: every answer, and a renewal's new expiry), `/fleet/lease`
//!   (std_msgs/msg/String, latched: the book's state on every change, `FREE`, `HELD <vehicle>
//!   <kind> <id> until <s>`, or `EXPIRED <vehicle> <kind> <id> reserved until <s>`).
//!
//! ```text
//! fleet_station --ros-args -r __ns:=/carrier -p use_sim_time:=true \
//!   -p vehicles:="[quad1, quad2, quad3]" -p road:="[0.0, 0.0, 200.0, 0.0]"
//! ```

use fieldproof_fleet::carrier::{DeckAirspace, Pose2, Road};
use fieldproof_fleet::lease::{Decision, Kind, Lease, LeaseBook, LeaseRules, Phase, Report, Slot};
use fieldproof_runtime::clock::time_from_nanos;
use fieldproof_runtime::logging::Throttle;
use fieldproof_runtime::msgs::fieldproof_interfaces::{Clearance, ClearanceRequest, FleetStatus};
use fieldproof_runtime::msgs::geometry_msgs::{Twist, Vector3};
use fieldproof_runtime::msgs::nav_msgs::Odometry;
use fieldproof_runtime::msgs::std_msgs;
use fieldproof_runtime::{qos, tracing, NodeBuilder, Param, ParamHandle, MALFORMED_LOG_PERIOD};
use futures::FutureExt;

/// The handles of the station's parameters.
struct StationParams {
    vehicles: ParamHandle<Vec<String>>,
    road: ParamHandle<Vec<f64>>,
    speed_mps: ParamHandle<f64>,
    lookahead_m: ParamHandle<f64>,
    max_turn_radps: ParamHandle<f64>,
    looped: ParamHandle<bool>,
    lease_s: ParamHandle<f64>,
    safety_margin_s: ParamHandle<f64>,
    clear_radius_m: ParamHandle<f64>,
    clear_height_m: ParamHandle<f64>,
    approach_radius_m: ParamHandle<f64>,
    deck_height_m: ParamHandle<f64>,
    rate_hz: ParamHandle<f64>,
    grant_unchecked: ParamHandle<bool>,
}

fn declare(builder: &mut NodeBuilder) -> StationParams {
    StationParams {
        vehicles: builder.declare(
            Param::strings("vehicles", &[])
                .description("the fleet's vehicle names; a request from any other is refused")
                .read_only(),
        ),
        road: builder.declare(
            Param::doubles("road", &[])
                .description("the carrier's road, [x0, y0, x1, y1, ...] in the world frame (empty: it stays)")
                .read_only(),
        ),
        speed_mps: builder.declare(Param::double("speed_mps", 1.0).range(0.0, 3.0)),
        lookahead_m: builder.declare(Param::double("lookahead_m", 5.0).range(0.5, 100.0)),
        max_turn_radps: builder.declare(Param::double("max_turn_radps", 0.3).range(0.01, 2.0)),
        looped: builder.declare(Param::bool("looped", false).read_only()),
        lease_s: builder.declare(
            Param::double("lease_s", LeaseRules::default().lease_s)
                .range(0.1, 600.0)
                .description("a lease lasts this long unless renewed, s (simulation time)")
                .read_only(),
        ),
        safety_margin_s: builder.declare(
            Param::double("safety_margin_s", LeaseRules::default().safety_margin_s)
                .range(0.1, 600.0)
                .description("after an expiry, the pad stays reserved this long unless its holder is seen clear, s")
                .read_only(),
        ),
        clear_radius_m: builder.declare(
            Param::double("clear_radius_m", 4.0)
                .range(0.1, 100.0)
                .description("horizontal distance from the carrier's centre beyond which a vehicle is clear of the deck, m"),
        ),
        clear_height_m: builder.declare(
            Param::double("clear_height_m", 3.0)
                .range(0.1, 100.0)
                .description("height above the deck beyond which a vehicle is clear of it, m"),
        ),
        approach_radius_m: builder.declare(
            Param::double("approach_radius_m", 8.0)
                .range(0.1, 1000.0)
                .description("horizontal distance from the carrier's centre within which a vehicle of a lower layer holds the climbs and descents of the higher ones, m"),
        ),
        deck_height_m: builder.declare(
            Param::double("deck_height_m", 1.2)
                .range(0.0, 20.0)
                .description("the deck's height above the carrier's odometry frame, m"),
        ),
        rate_hz: builder.declare(Param::double("rate_hz", 10.0).range(1.0, 100.0).read_only()),
        grant_unchecked: builder.declare(
            Param::bool("grant_unchecked", false)
                .description("TEST ONLY: grant every request without consulting the book (the mutation a scenario's leases_exclusive assertion must catch)")
                .read_only(),
        ),
    }
}

/// TEST ONLY (`grant_unchecked`): grants every request, one lease per vehicle and kind
/// renewed by its repeats, without looking at anyone else's: the station a scenario's
/// `leases_exclusive` assertion must catch.
#[derive(Debug, Default)]
struct UncheckedGrants {
    leases: Vec<Lease>,
}

impl UncheckedGrants {
    fn request(&mut self, vehicle: &str, kind: Kind, now_ns: i64, lease_s: f64) -> Decision {
        let expires_ns = now_ns + (lease_s * 1e9).round() as i64;
        if let Some(lease) = self
            .leases
            .iter_mut()
            .find(|l| l.vehicle == vehicle && l.kind == kind)
        {
            lease.expires_ns = lease.expires_ns.max(expires_ns);
            return Decision::Granted(lease.clone());
        }
        let lease = Lease {
            id: self.leases.len() as u32 + 1,
            vehicle: vehicle.to_string(),
            kind,
            granted_ns: now_ns,
            expires_ns,
        };
        self.leases.push(lease.clone());
        Decision::Granted(lease)
    }
}

/// The book's state as one line for `/fleet/lease`.
fn describe(slot: &Slot) -> String {
    let secs = |ns: i64| ns as f64 / 1e9;
    match slot {
        Slot::Free => "FREE".into(),
        Slot::Held(lease) => format!(
            "HELD {} {} {} until {:.2}",
            lease.vehicle,
            lease.kind,
            lease.id,
            secs(lease.expires_ns)
        ),
        Slot::Expired {
            lease, free_at_ns, ..
        } => format!(
            "EXPIRED {} {} {} reserved until {:.2}",
            lease.vehicle,
            lease.kind,
            lease.id,
            secs(*free_at_ns)
        ),
    }
}

fn kind_of(wire: u8) -> Result<Kind, String> {
    match wire {
        ClearanceRequest::KIND_LAUNCH => Ok(Kind::Launch),
        ClearanceRequest::KIND_LAND => Ok(Kind::Land),
        other => Err(format!(
            "kind: {other} is not KIND_LAUNCH (0) or KIND_LAND (1)"
        )),
    }
}

fn main() -> std::process::ExitCode {
    let mut builder = NodeBuilder::new("fleet_station");
    let params = declare(&mut builder);
    fieldproof_runtime::main(
        move || builder,
        |node| async move {
            let rules = LeaseRules {
                lease_s: params.lease_s.get(),
                safety_margin_s: params.safety_margin_s.get(),
            };
            let mut book = LeaseBook::new(rules).map_err(|e| format!("fleet_station.{e}"))?;
            let road_points = params.road.get();
            if road_points.len() % 2 != 0 {
                return Err(format!(
                    "fleet_station.road: {} numbers, not [x, y] pairs",
                    road_points.len()
                )
                .into());
            }
            let mut road = if road_points.is_empty() {
                None
            } else {
                let waypoints = road_points.chunks(2).map(|p| [p[0], p[1]]).collect();
                Some(
                    Road::new(
                        waypoints,
                        params.speed_mps.get(),
                        params.lookahead_m.get(),
                        params.max_turn_radps.get(),
                        params.looped.get(),
                    )
                    .map_err(|e| format!("fleet_station.{e}"))?,
                )
            };
            let vehicles = params.vehicles.get();
            let mut unchecked = params.grant_unchecked.get().then(UncheckedGrants::default);
            if unchecked.is_some() {
                tracing::warn!("grant_unchecked: TEST ONLY, every request is granted without consulting the book");
            }

            let odom_sub = node.subscription::<Odometry>("odom", qos::default())?;
            let status_sub =
                node.subscription::<FleetStatus>("/fleet/status", qos::default().keep_last(50))?;
            let request_sub = node.subscription::<ClearanceRequest>(
                "/fleet/clearance_request",
                qos::default().keep_last(50),
            )?;
            let drive_pub = node.publisher::<Twist>("cmd_vel", qos::default())?;
            let clearance_pub =
                node.publisher::<Clearance>("/fleet/clearance", qos::default().keep_last(50))?;
            let lease_pub = node.publisher::<std_msgs::String>("/fleet/lease", qos::latched())?;

            let mut carrier: Option<(Pose2, f64)> = None; // pose and the odometry's z
            let mut published_state = String::new();
            let mut refused = Throttle::new(MALFORMED_LOG_PERIOD);
            let mut timer = node.timer_hz(params.rate_hz.get());
            loop {
                futures::select! {
                    m = odom_sub.recv().fuse() => {
                        let m = m?;
                        let p = &m.pose.pose;
                        let pose = Pose2 { x: p.position.x, y: p.position.y, yaw: p.orientation.yaw() };
                        if [pose.x, pose.y, pose.yaw, p.position.z].iter().all(|v| v.is_finite()) {
                            carrier = Some((pose, p.position.z));
                        } else if refused.hit().is_some() {
                            tracing::warn!("odom: carrier pose {pose:?} is not finite: ignored");
                        }
                    }
                    m = status_sub.recv().fuse() => {
                        let m = m?;
                        let now = node.clock().now_nanos();
                        let phase = match Phase::from_wire(m.phase) {
                            Ok(phase) => phase,
                            Err(e) => {
                                if refused.hit().is_some() {
                                    tracing::warn!("/fleet/status from {}: {e}: ignored", m.vehicle);
                                }
                                continue;
                            }
                        };
                        let position = [m.position.x, m.position.y, m.position.z];
                        let clear = carrier.is_some_and(|(pose, z)| {
                            DeckAirspace {
                                radius_m: params.clear_radius_m.get(),
                                height_m: params.clear_height_m.get(),
                            }
                            .is_clear(pose, z + params.deck_height_m.get(), position)
                        });
                        // Unknown (no carrier pose yet, or a position not finite): near.
                        let near_carrier = carrier.is_none_or(|(pose, _)| {
                            let distance = (position[0] - pose.x).hypot(position[1] - pose.y);
                            distance.is_nan() || distance <= params.approach_radius_m.get()
                        });
                        book.progress(
                            &Report {
                                vehicle: &m.vehicle,
                                phase,
                                clear,
                                layer_m: m.layer_altitude_m,
                                near_carrier,
                            },
                            now,
                        );
                    }
                    m = request_sub.recv().fuse() => {
                        let m = m?;
                        let now = node.clock().now_nanos();
                        let decision = if !vehicles.contains(&m.vehicle) {
                            Decision::Refused(format!("{:?} is not one of this fleet's vehicles {vehicles:?}", m.vehicle))
                        } else {
                            match (kind_of(m.kind), &mut unchecked) {
                                (Ok(kind), Some(unchecked)) => unchecked.request(&m.vehicle, kind, now, rules.lease_s),
                                (Ok(kind), None) => book.request(&m.vehicle, kind, now),
                                (Err(e), _) => Decision::Refused(e),
                            }
                        };
                        let mut answer = Clearance {
                            vehicle: m.vehicle.clone(),
                            kind: m.kind,
                            request_id: m.request_id,
                            ..Clearance::default()
                        };
                        answer.header.stamp = time_from_nanos(now);
                        match decision {
                            Decision::Granted(lease) => {
                                answer.granted = true;
                                answer.lease_id = lease.id;
                                answer.expires = time_from_nanos(lease.expires_ns);
                                answer.reason = "granted".into();
                            }
                            Decision::Refused(why) => {
                                tracing::info!("refused {} request {} of {}: {why}", kind_of(m.kind).map_or("?", Kind::name), m.request_id, m.vehicle);
                                answer.reason = why;
                            }
                        }
                        clearance_pub.publish(answer)?;
                    }
                    _ = timer.tick().fuse() => {
                        book.tick(node.clock().now_nanos());
                        let command = match (&mut road, carrier) {
                            (Some(road), Some((pose, _))) => road.command(pose),
                            _ => fieldproof_fleet::carrier::Drive::STOP,
                        };
                        drive_pub.publish(Twist {
                            linear: Vector3 { x: command.linear_mps, y: 0.0, z: 0.0 },
                            angular: Vector3 { x: 0.0, y: 0.0, z: command.angular_radps },
                        })?;
                    }
                    _ = node.shutdown_requested().fuse() => break,
                }
                for event in book.take_events() {
                    tracing::info!("lease: {event:?}");
                }
                let state = describe(book.slot());
                if state != published_state {
                    lease_pub.publish(std_msgs::String {
                        data: state.clone(),
                    })?;
                    published_state = state;
                }
            }
            Ok(())
        },
    )
}
