//! `fleet_station` and `fleet_adapter` on DDS (each test in a private network namespace), on a
//! simulated clock the test drives itself (`use_sim_time:=true`, the test publishes `/clock`),
//! so every lease expiry is in simulation time and no wall-clock threshold decides a result
//! (wall-clock waits only bound how long an expected message may take to arrive).

use std::future::Future;
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use fieldproof_runtime::clock::{nanos_from_time, time_from_nanos};
use fieldproof_runtime::msgs::fieldproof_interfaces::{Clearance, ClearanceRequest, FleetStatus};
use fieldproof_runtime::msgs::geometry_msgs::{Point, Pose, PoseArray, PoseStamped};
use fieldproof_runtime::msgs::nav_msgs::Odometry;
use fieldproof_runtime::msgs::{rosgraph_msgs, std_msgs};
use fieldproof_runtime::{qos, Node, NodeResult, Publisher, Subscription};
use fieldproof_testkit::NodeProc;

const S: i64 = 1_000_000_000;
/// How long an expected message may take to arrive (wall clock): generous, never a verdict.
const PATIENCE: Duration = Duration::from_secs(20);

/// `fut`'s output, or a panic naming `what` after [`PATIENCE`].
async fn within<T>(what: &str, fut: impl Future<Output = T>) -> T {
    smol::future::or(async { Some(fut.await) }, async {
        smol::Timer::after(PATIENCE).await;
        None
    })
    .await
    .unwrap_or_else(|| panic!("{what}: nothing within {PATIENCE:?}"))
}

/// The simulated clock: a task of the peer publishes the held time every 10 ms.
struct SimClock(Arc<AtomicI64>);

impl SimClock {
    fn start(node: &Node, at_ns: i64) -> Result<SimClock, fieldproof_runtime::NodeError> {
        let now = Arc::new(AtomicI64::new(at_ns));
        let clock_pub = node.publisher::<rosgraph_msgs::Clock>("/clock", qos::clock())?;
        let held = now.clone();
        node.spawn(async move {
            loop {
                let clock = time_from_nanos(held.load(Ordering::Acquire));
                let _ = clock_pub.publish(rosgraph_msgs::Clock { clock });
                smol::Timer::after(Duration::from_millis(10)).await;
            }
        })
        .detach();
        Ok(SimClock(now))
    }

    fn now(&self) -> i64 {
        self.0.load(Ordering::Acquire)
    }

    /// Moves the clock to `at_ns` in 100 ms steps, 10 ms of wall time each, so the node's
    /// timers (10 Hz) run at every step.
    async fn advance_to(&self, at_ns: i64) {
        while self.now() < at_ns {
            let next = (self.now() + S / 10).min(at_ns);
            self.0.store(next, Ordering::Release);
            smol::Timer::after(Duration::from_millis(10)).await;
        }
    }
}

/// The next answer the station gives `vehicle`.
async fn answer_for(answers: &Subscription<Clearance>, vehicle: &str) -> Clearance {
    within(&format!("an answer for {vehicle}"), async {
        loop {
            let answer = answers.recv().await.expect("recv");
            if answer.vehicle == vehicle {
                return answer;
            }
        }
    })
    .await
}

/// The latched book state once it reads `wanted` (a prefix).
async fn lease_state(states: &Subscription<std_msgs::String>, wanted: &str) -> String {
    within(&format!("/fleet/lease {wanted}..."), async {
        loop {
            let state = states.recv().await.expect("recv").data;
            if state.starts_with(wanted) {
                return state;
            }
        }
    })
    .await
}

fn request(vehicle: &str, kind: u8, request_id: u32, now_ns: i64) -> ClearanceRequest {
    let mut request = ClearanceRequest {
        vehicle: vehicle.into(),
        kind,
        request_id,
        pad: "pad_0".into(),
        ..ClearanceRequest::default()
    };
    request.header.stamp = time_from_nanos(now_ns);
    request
}

fn status(vehicle: &str, phase: u8, position: [f64; 3], now_ns: i64) -> FleetStatus {
    let mut status = FleetStatus {
        vehicle: vehicle.into(),
        phase,
        position: Point {
            x: position[0],
            y: position[1],
            z: position[2],
        },
        layer_altitude_m: 6.0,
        pad_error_m: f64::NAN,
        ..FleetStatus::default()
    };
    status.header.stamp = time_from_nanos(now_ns);
    status
}

async fn matched<M: fieldproof_runtime::msgs::RosMessage>(publisher: &Publisher<M>) {
    within(
        &format!("a subscription matched on {}", publisher.topic()),
        publisher.wait_for_subscriptions(1),
    )
    .await;
}

/// One lease at a time: quad1's launch lease refuses quad2 until quad1 reports itself clear
/// of the deck in its layer; quad2's lease then expires unrenewed (it went silent) and keeps
/// the pad reserved, so quad1's land request is refused until quad2 is seen clear. A vehicle
/// outside the fleet and an unknown kind are refused naming them.
#[test]
fn the_station_grants_one_lease_at_a_time_and_holds_an_expired_one_until_its_vehicle_is_clear() {
    fieldproof_testkit::contain_or_return!();
    let domain = 40 + (std::process::id() % 20) as u16;
    let mut station = NodeProc::command(env!("CARGO_BIN_EXE_fleet_station"))
        .domain(domain)
        .ros_args(&["-r", "__ns:=/carrier"])
        .params(&[
            "use_sim_time:=true",
            "vehicles:=[quad1, quad2]",
            "lease_s:=5.0",
            "safety_margin_s:=10.0",
        ])
        .start();
    fieldproof_runtime::run_on_domain("station_peer", domain, |node| async move {
        let clock = SimClock::start(&node, 10 * S)?;
        let odom_pub = node.publisher::<Odometry>("/carrier/odom", qos::default())?;
        let request_pub = node.publisher::<ClearanceRequest>(
            "/fleet/clearance_request",
            qos::default().keep_last(50),
        )?;
        let status_pub =
            node.publisher::<FleetStatus>("/fleet/status", qos::default().keep_last(50))?;
        let answers =
            node.subscription::<Clearance>("/fleet/clearance", qos::default().keep_last(50))?;
        let states = node.subscription::<std_msgs::String>("/fleet/lease", qos::latched())?;
        for publisher in [odom_pub.topic(), request_pub.topic(), status_pub.topic()] {
            eprintln!("waiting for the station on {publisher}");
        }
        matched(&odom_pub).await;
        matched(&request_pub).await;
        matched(&status_pub).await;
        within("the station's answers", answers.wait_for_publishers(1)).await;
        assert_eq!(lease_state(&states, "FREE").await, "FREE");
        // The carrier stands at the origin (deck top at 1.2 m).
        odom_pub.publish(Odometry::default())?;

        request_pub.publish(request(
            "quad1",
            ClearanceRequest::KIND_LAUNCH,
            1,
            clock.now(),
        ))?;
        let granted = answer_for(&answers, "quad1").await;
        assert!(granted.granted, "{granted:?}");
        assert_eq!((granted.request_id, granted.lease_id), (1, 1));
        assert_eq!(nanos_from_time(granted.expires), 15 * S);
        assert!(lease_state(&states, "HELD quad1")
            .await
            .contains("launch 1"));

        request_pub.publish(request(
            "quad2",
            ClearanceRequest::KIND_LAUNCH,
            1,
            clock.now(),
        ))?;
        let refused = answer_for(&answers, "quad2").await;
        assert!(!refused.granted && refused.lease_id == 0, "{refused:?}");
        assert!(refused.reason.contains("held by quad1"), "{refused:?}");

        request_pub.publish(request(
            "quad9",
            ClearanceRequest::KIND_LAUNCH,
            1,
            clock.now(),
        ))?;
        let stranger = answer_for(&answers, "quad9").await;
        assert!(
            !stranger.granted && stranger.reason.contains("quad9"),
            "{stranger:?}"
        );
        request_pub.publish(request("quad2", 7, 2, clock.now()))?;
        let bad_kind = answer_for(&answers, "quad2").await;
        assert!(
            !bad_kind.granted && bad_kind.reason.contains("kind: 7"),
            "{bad_kind:?}"
        );

        // Climbing over the deck: still held. In its layer, clear of the deck: released.
        clock.advance_to(12 * S).await;
        status_pub.publish(status(
            "quad1",
            FleetStatus::PHASE_CLIMBING,
            [1.0, 0.0, 3.0],
            clock.now(),
        ))?;
        clock.advance_to(13 * S).await;
        status_pub.publish(status(
            "quad1",
            FleetStatus::PHASE_MISSION,
            [10.0, 8.0, 6.0],
            clock.now(),
        ))?;
        lease_state(&states, "FREE").await;

        request_pub.publish(request(
            "quad2",
            ClearanceRequest::KIND_LAUNCH,
            3,
            clock.now(),
        ))?;
        let second = answer_for(&answers, "quad2").await;
        assert!(second.granted && second.lease_id == 2, "{second:?}");

        // quad2 goes silent on the deck: its lease expires at 18 s and stays reserved.
        clock.advance_to(19 * S).await;
        let expired = lease_state(&states, "EXPIRED quad2").await;
        assert!(expired.contains("reserved until 28.00"), "{expired}");
        request_pub.publish(request(
            "quad1",
            ClearanceRequest::KIND_LAND,
            4,
            clock.now(),
        ))?;
        let held_back = answer_for(&answers, "quad1").await;
        assert!(
            !held_back.granted && held_back.reason.contains("quad2"),
            "{held_back:?}"
        );

        // quad2 seen clear of the carrier: the pad is free again.
        status_pub.publish(status(
            "quad2",
            FleetStatus::PHASE_MISSION,
            [20.0, -5.0, 8.0],
            clock.now(),
        ))?;
        lease_state(&states, "FREE").await;
        request_pub.publish(request(
            "quad1",
            ClearanceRequest::KIND_LAND,
            5,
            clock.now(),
        ))?;
        let land = answer_for(&answers, "quad1").await;
        assert!(land.granted && land.lease_id == 3, "{land:?}");
        node.shutdown();
        Ok(())
    })
    .expect("peer run");
    station.stop();
    assert_eq!(station.stderr.count("panicked"), 0);
}

fn odometry_at(position: [f64; 3], now_ns: i64) -> Odometry {
    let mut odom = Odometry::default();
    odom.header.stamp = time_from_nanos(now_ns);
    odom.header.frame_id = "map".into();
    odom.pose.pose.position = Point {
        x: position[0],
        y: position[1],
        z: position[2],
    };
    odom
}

fn pads_at(pad: [f64; 3], now_ns: i64) -> PoseArray {
    let mut pads = PoseArray::default();
    pads.header.stamp = time_from_nanos(now_ns);
    pads.header.frame_id = "world".into();
    pads.poses = vec![Pose {
        position: Point {
            x: pad[0],
            y: pad[1],
            z: pad[2],
        },
        ..Pose::default()
    }];
    pads
}

/// Advances the clock 100 ms at a time (re-sending the vehicle's odometry and pads at each
/// step, as the sensors would) until `subscription` delivers a message `wanted` accepts.
async fn advance_until<M: fieldproof_runtime::msgs::RosMessage>(
    clock: &SimClock,
    feed: &dyn Fn(i64) -> NodeResult,
    subscription: &Subscription<M>,
    what: &str,
    wanted: impl Fn(&M) -> bool,
) -> M {
    within(what, async {
        loop {
            while let Some(message) = subscription.try_recv().expect("try_recv") {
                if wanted(&message) {
                    return message;
                }
            }
            clock.advance_to(clock.now() + S / 10).await;
            feed(clock.now()).expect("feed");
        }
    })
    .await
}

/// The vehicle's side: on its pad the adapter holds the supervisor where the vehicle is and
/// asks for a launch lease; a grant for another vehicle or another request changes nothing;
/// its own grant gives the planner the inspection goal in the layer and the supervisor the
/// planner's targets; in the layer it reports MISSION. Its status names it, its phase and
/// its layer.
#[test]
fn the_adapter_waits_for_its_launch_lease_then_hands_the_supervisor_the_planners_targets() {
    fieldproof_testkit::contain_or_return!();
    let domain = 60 + (std::process::id() % 20) as u16;
    let mut adapter = NodeProc::command(env!("CARGO_BIN_EXE_fleet_adapter"))
        .domain(domain)
        .ros_args(&["-r", "__ns:=/quad1"])
        .params(&[
            "use_sim_time:=true",
            "layer_altitude_m:=6.0",
            "inspection_goal:=[20.0, 10.0]",
            "pads_topic:=/carrier/pads",
        ])
        .start();
    fieldproof_runtime::run_on_domain("adapter_peer", domain, |node| async move {
        let clock = SimClock::start(&node, 5 * S)?;
        let odom_pub = node.publisher::<Odometry>("/quad1/odometry/filtered", qos::default())?;
        let pads_pub = node.publisher::<PoseArray>("/carrier/pads", qos::default())?;
        let planner_pub = node.publisher::<PoseStamped>("/quad1/planner/target", qos::latched())?;
        let clearance_pub =
            node.publisher::<Clearance>("/fleet/clearance", qos::default().keep_last(50))?;
        let requests = node.subscription::<ClearanceRequest>(
            "/fleet/clearance_request",
            qos::default().keep_last(50),
        )?;
        let statuses =
            node.subscription::<FleetStatus>("/fleet/status", qos::default().keep_last(50))?;
        let targets = node.subscription::<PoseStamped>("/quad1/mission/target", qos::latched())?;
        let goals = node.subscription::<PoseStamped>("/quad1/goal_pose", qos::latched())?;
        for publisher in [
            odom_pub.topic(),
            pads_pub.topic(),
            planner_pub.topic(),
            clearance_pub.topic(),
        ] {
            eprintln!("waiting for the adapter on {publisher}");
        }
        matched(&odom_pub).await;
        matched(&pads_pub).await;
        matched(&planner_pub).await;
        matched(&clearance_pub).await;
        within("the adapter's requests", requests.wait_for_publishers(1)).await;
        within("the adapter's status", statuses.wait_for_publishers(1)).await;
        within("the adapter's targets", targets.wait_for_publishers(1)).await;
        within("the adapter's goals", goals.wait_for_publishers(1)).await;

        let pad = [1.0, 0.0, 1.2];
        let on_pad = [1.0, 0.0, 1.3];
        let position = std::cell::Cell::new(on_pad);
        let feed = |now: i64| -> NodeResult {
            odom_pub.publish(odometry_at(position.get(), now))?;
            pads_pub.publish(pads_at(pad, now))?;
            Ok(())
        };
        feed(clock.now())?;

        let asked = advance_until(&clock, &feed, &requests, "a launch request", |_| true).await;
        assert_eq!(
            (asked.vehicle.as_str(), asked.kind, asked.pad.as_str()),
            ("quad1", ClearanceRequest::KIND_LAUNCH, "pad_0")
        );
        let waiting = advance_until(&clock, &feed, &statuses, "WAITING_LAUNCH", |s| {
            s.phase == FleetStatus::PHASE_WAITING_LAUNCH
        })
        .await;
        assert_eq!(
            (waiting.vehicle.as_str(), waiting.layer_altitude_m),
            ("quad1", 6.0)
        );
        let held = advance_until(&clock, &feed, &targets, "the hold target", |_| true).await;
        let p = held.pose.position;
        assert_eq!([p.x, p.y, p.z], on_pad, "held where it stands");

        // Answers that are not its own current grant change nothing.
        let grant = |vehicle: &str, request_id: u32| {
            let mut answer = Clearance {
                vehicle: vehicle.into(),
                kind: ClearanceRequest::KIND_LAUNCH,
                request_id,
                granted: true,
                lease_id: 1,
                reason: "granted".into(),
                ..Clearance::default()
            };
            answer.header.stamp = time_from_nanos(clock.now());
            answer.expires = time_from_nanos(clock.now() + 5 * S);
            answer
        };
        clearance_pub.publish(grant("quad2", asked.request_id))?;
        clearance_pub.publish(grant("quad1", asked.request_id + 1))?;
        let from = clock.now() + S;
        let still = advance_until(&clock, &feed, &statuses, "a status a second later", |s| {
            nanos_from_time(s.header.stamp) >= from
        })
        .await;
        assert_eq!(still.phase, FleetStatus::PHASE_WAITING_LAUNCH, "{still:?}");
        assert!(goals.try_recv()?.is_none(), "a goal before its own grant");

        // Its own grant: the planner gets the inspection goal in the layer, and the
        // supervisor the planner's targets.
        clearance_pub.publish(grant("quad1", asked.request_id))?;
        let goal = advance_until(&clock, &feed, &goals, "the planner's goal", |_| true).await;
        let g = goal.pose.position;
        assert_eq!([g.x, g.y, g.z], [20.0, 10.0, 6.0]);
        let mut planned = PoseStamped::default();
        planned.header.frame_id = "map".into();
        planned.pose.position = Point {
            x: 1.0,
            y: 0.0,
            z: 6.0,
        };
        planner_pub.publish(planned)?;
        let forwarded = advance_until(&clock, &feed, &targets, "the planner's target", |t| {
            t.pose.position.z == 6.0
        })
        .await;
        assert_eq!(forwarded.pose.position.x, 1.0);

        // In its layer: MISSION, 1.1 m from its pad.
        position.set([2.0, 0.5, 6.0]);
        let in_layer = advance_until(&clock, &feed, &statuses, "MISSION", |s| {
            s.phase == FleetStatus::PHASE_MISSION
        })
        .await;
        assert!(
            (in_layer.pad_error_m - 0.5f64.hypot(1.0)).abs() < 1e-9,
            "{in_layer:?}"
        );
        node.shutdown();
        Ok(())
    })
    .expect("peer run");
    adapter.stop();
    assert_eq!(adapter.stderr.count("panicked"), 0);
}
