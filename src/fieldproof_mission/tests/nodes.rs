//! `autopilot_stub` and `mission_supervisor` on DDS (each test in a private network
//! namespace), on a simulated clock the test drives itself: the nodes run with
//! `use_sim_time:=true` and the test publishes `/clock`, holding it still while it waits, so
//! every timing assertion is in simulation time and no wall-clock threshold decides a result
//! (wall-clock waits only bound how long an expected event may take to arrive).

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use fieldproof_runtime::clock::time_from_nanos;
use fieldproof_runtime::msgs::diagnostic_msgs::{DiagnosticArray, DiagnosticStatus, KeyValue};
use fieldproof_runtime::msgs::geometry_msgs::{PoseStamped, Twist, TwistStamped};
use fieldproof_runtime::msgs::nav_msgs::Odometry;
use fieldproof_runtime::msgs::rosgraph_msgs;
use fieldproof_runtime::msgs::sensor_msgs::{BatteryState, Image, Imu, NavSatFix};
use fieldproof_runtime::msgs::std_msgs;
use fieldproof_runtime::{qos, Node};
use fieldproof_testkit::{NodeCommand, NodeProc};

const MS: i64 = 1_000_000;
/// How long an expected event may take to arrive (wall clock): generous, never a verdict.
const PATIENCE: Duration = Duration::from_secs(20);

/// A node binary of this crate in namespace `/quad1`, ROS domain `domain`, without the
/// runner's `FIELDPROOF_EVIDENCE_DIR` (a test that wants one sets it with `.env`).
fn quad1_node(exe: &str, domain: u16, params: &[String]) -> NodeCommand {
    NodeProc::command(exe)
        .domain(domain)
        .ros_args(&["-r", "__ns:=/quad1"])
        .params(params)
        .env_remove("FIELDPROOF_EVIDENCE_DIR")
}

/// Waits (wall clock, at most [`PATIENCE`]) until `f` holds; panics naming `what`.
async fn eventually(what: &str, mut f: impl FnMut() -> bool) {
    let end = Instant::now() + PATIENCE;
    while !f() {
        assert!(Instant::now() < end, "{what}: not within {PATIENCE:?}");
        smol::Timer::after(Duration::from_millis(20)).await;
    }
}

async fn pause(ms: u64) {
    smol::Timer::after(Duration::from_millis(ms)).await;
}

/// The simulated time the test sets; a task republishes it every 20 ms (wall clock) so a
/// lost `/clock` sample (best effort) costs nothing, and so do the held-still periods.
#[derive(Clone, Default)]
struct SimClock(Arc<Mutex<i64>>);

impl SimClock {
    fn set_ms(&self, ms: i64) {
        *self.0.lock().unwrap() = ms * MS;
    }
    fn ns(&self) -> i64 {
        *self.0.lock().unwrap()
    }
}

/// Messages received so far on one topic.
#[derive(Clone)]
struct Seen<T>(Arc<Mutex<Vec<T>>>);

impl<T: Clone> Seen<T> {
    fn new() -> Seen<T> {
        Seen(Arc::new(Mutex::new(Vec::new())))
    }
    fn all(&self) -> Vec<T> {
        self.0.lock().unwrap().clone()
    }
    fn last(&self) -> Option<T> {
        self.0.lock().unwrap().last().cloned()
    }
    fn len(&self) -> usize {
        self.0.lock().unwrap().len()
    }
}

/// Collects every message of `topic` into the returned list (a task of the peer), once its
/// publisher is matched (so nothing it publishes from then on is missed).
async fn collect<M: fieldproof_runtime::msgs::RosMessage + Clone + Send + 'static>(
    node: &Node,
    topic: &str,
    qos: fieldproof_runtime::QosSpec,
) -> Result<(Seen<M>, smol::Task<()>), fieldproof_runtime::NodeError> {
    let sub = node.subscription::<M>(topic, qos)?;
    sub.wait_for_publishers(1).await;
    let seen = Seen::new();
    let sink = seen.0.clone();
    let task = node.spawn(async move {
        while let Ok(m) = sub.recv().await {
            sink.lock().unwrap().push(m);
        }
    });
    Ok((seen, task))
}

fn linear(t: &Twist) -> [f64; 3] {
    [t.linear.x, t.linear.y, t.linear.z]
}

fn near(a: [f64; 3], b: [f64; 3]) -> bool {
    a.iter().zip(b).all(|(x, y)| (x - y).abs() < 1e-9)
}

fn texts(seen: &Seen<std_msgs::String>) -> Vec<String> {
    seen.all().into_iter().map(|s| s.data).collect()
}

/// The stub follows rotated setpoints, holds once they stop for more than 0.5 s of
/// simulation time (not before), lands on its own 2 s later (not before), and stops
/// descending only when the simulator reports landed.
#[test]
fn autopilot_stub_holds_then_lands_when_setpoints_stop() {
    fieldproof_testkit::contain_or_return!();
    let domain = 90 + (std::process::id() % 20) as u16;
    let mut stub = quad1_node(
        env!("CARGO_BIN_EXE_autopilot_stub"),
        domain,
        &["use_sim_time:=true".into()],
    )
    .start();
    let sim = SimClock::default();
    fieldproof_runtime::run_on_domain("autopilot_peer", domain, |node| async move {
        let clock_pub = node.publisher::<rosgraph_msgs::Clock>("/clock", qos::clock())?;
        let setpoint_pub =
            node.publisher::<TwistStamped>("/quad1/supervisor/setpoint", qos::default())?;
        let odom_pub = node.publisher::<Odometry>("/quad1/odom", qos::sensor_data())?;
        let landed_pub = node.publisher::<std_msgs::Bool>("/quad1/landed", qos::sensor_data())?;
        let (cmds, _c) = collect::<Twist>(&node, "/quad1/cmd_vel", qos::default()).await?;
        let (status, _s) = collect::<std_msgs::String>(
            &node,
            "/quad1/autopilot/status",
            qos::latched().keep_last(20),
        )
        .await?;
        let landed = Arc::new(Mutex::new(false));
        // Clock, odometry (facing north: yaw pi/2) and the landed flag, every 20 ms.
        let _background = {
            let (sim, landed) = (sim.clone(), landed.clone());
            node.spawn(async move {
                let (s, c) = (std::f64::consts::FRAC_PI_4).sin_cos();
                loop {
                    let now = time_from_nanos(sim.ns());
                    let _ = clock_pub.publish(rosgraph_msgs::Clock { clock: now });
                    let mut odom = Odometry::default();
                    odom.header.stamp = now;
                    odom.pose.pose.orientation.z = s;
                    odom.pose.pose.orientation.w = c;
                    let _ = odom_pub.publish(odom);
                    let data = *landed.lock().unwrap();
                    let _ = landed_pub.publish(std_msgs::Bool { data });
                    pause(20).await;
                }
            })
        };
        let setpoint = |east: f64, north: f64, up: f64| {
            let mut m = TwistStamped::default();
            m.header.frame_id = "map".into();
            m.twist.linear.x = east;
            m.twist.linear.y = north;
            m.twist.linear.z = up;
            m
        };
        sim.set_ms(1000);
        eventually("the stub's first status", || {
            texts(&status).first().map(String::as_str) == Some("waiting: no setpoint yet")
        })
        .await;
        setpoint_pub.wait_for_subscriptions(1).await;
        // Following: north at 1 m/s, climbing 0.2 m/s, is straight ahead for a vehicle
        // facing north. Steps of 50 ms until that command is seen.
        let mut t = 1000;
        let forward = [1.0, 0.0, 0.2];
        for _ in 0..400 {
            t += 50;
            sim.set_ms(t);
            pause(10).await;
            setpoint_pub.publish(setpoint(0.0, 1.0, 0.2))?;
            pause(20).await;
            if cmds.last().is_some_and(|c| near(linear(&c), forward)) {
                break;
            }
        }
        assert!(
            cmds.all().iter().any(|c| near(linear(c), forward)),
            "the rotated setpoint: {:?}",
            cmds.all()
        );
        // The last setpoint, at t, with the clock held still while it arrives: received at
        // t (or at t - 50 ms if our clock sample came after it).
        sim.set_ms(t + 50);
        pause(100).await;
        t += 50;
        setpoint_pub.publish(setpoint(0.0, 1.0, 0.2))?;
        pause(1000).await;
        assert_eq!(texts(&status).last().map(String::as_str), Some("following"));

        // At most 0.47 s without a setpoint: still following.
        sim.set_ms(t + 420);
        pause(500).await;
        assert_eq!(texts(&status).last().map(String::as_str), Some("following"));
        // At least 0.68 s: holding, zero velocity.
        sim.set_ms(t + 680);
        eventually("holding", || {
            texts(&status).last().map(String::as_str) == Some("holding: no setpoint for 0.5 s")
        })
        .await;
        eventually("a zero command", || {
            cmds.last().is_some_and(|c| c == Twist::default())
        })
        .await;
        // At most 2.47 s: still holding.
        sim.set_ms(t + 2420);
        pause(500).await;
        assert_eq!(
            texts(&status).last().map(String::as_str),
            Some("holding: no setpoint for 0.5 s")
        );
        // At least 2.68 s: landing on its own at 0.5 m/s.
        sim.set_ms(t + 2680);
        eventually("landing", || {
            texts(&status).last().map(String::as_str) == Some("landing: watchdog")
        })
        .await;
        let descent = [0.0, 0.0, -0.5];
        eventually("a descent command", || {
            cmds.last().is_some_and(|c| near(linear(&c), descent))
        })
        .await;
        // Not landed yet: the descent goes on, however long it takes.
        let before = cmds.len();
        sim.set_ms(t + 10_000);
        eventually("another command", || cmds.len() > before).await;
        assert!(near(linear(&cmds.last().unwrap()), descent));
        // Touchdown, reported by the simulator: landed, zero.
        *landed.lock().unwrap() = true;
        eventually("landed", || {
            texts(&status).last().map(String::as_str) == Some("landed")
        })
        .await;
        sim.set_ms(t + 10_100);
        eventually("a zero command after touchdown", || {
            cmds.last().is_some_and(|c| c == Twist::default())
        })
        .await;
        assert_eq!(
            texts(&status),
            [
                "waiting: no setpoint yet",
                "following",
                "holding: no setpoint for 0.5 s",
                "landing: watchdog",
                "landed"
            ]
        );
        // Every command was finite and none climbed once the watchdog had fired.
        let all = cmds.all();
        assert!(all.iter().all(|c| c.non_finite_field().is_none()));
        let following = all.iter().position(|c| near(linear(c), forward)).unwrap();
        let held = following
            + all[following..]
                .iter()
                .position(|c| *c == Twist::default())
                .unwrap();
        assert!(all[held..].iter().all(|c| c.linear.z <= 0.0), "{all:?}");
        node.shutdown();
        Ok(())
    })
    .expect("peer run");
    stub.stop();
    assert_eq!(stub.stderr.count("panicked"), 0);
}

/// A fake `supervisor_core`: answers frames 1 to 4 `ACTIVE` at 0.5 m/s east, then exits 3
/// with a reason on stderr at frame 5 (as a core refusing a frame would).
fn fake_core(dir: &Path) -> PathBuf {
    let path = dir.join("fake_core");
    fieldproof_testkit::write_executable(
        &path,
        "#!/bin/sh\n\
         while read -r seq rest; do\n\
           if [ \"$seq\" -ge 5 ]; then echo \"fake core: frame $seq refused\" >&2; exit 3; fi\n\
           echo \"$seq ACTIVE fake 0.5 0 0\"\n\
         done\n",
    );
    path
}

/// What the supervisor tests publish: a healthy vehicle (fresh IMU, GNSS, camera and heartbeat, a
/// full battery unless told otherwise, at (1, 2, 3) with its target at (11, 2, 3)).
struct Vehicle {
    battery: Arc<Mutex<f32>>,
}

impl Vehicle {
    /// Starts publishing on the peer, every 20 ms of wall clock, the simulated time
    /// advancing 10 ms each time from `sim`.
    fn start(
        node: &Node,
        sim: &SimClock,
    ) -> Result<(Vehicle, smol::Task<()>), fieldproof_runtime::NodeError> {
        let clock_pub = node.publisher::<rosgraph_msgs::Clock>("/clock", qos::clock())?;
        let imu_pub = node.publisher::<Imu>("/quad1/imu/data", qos::sensor_data())?;
        let gps_pub = node.publisher::<NavSatFix>("/quad1/gps/fix", qos::sensor_data())?;
        let hb_pub = node.publisher::<std_msgs::Header>(
            "/quad1/gcs/heartbeat",
            qos::sensor_data().keep_last(1),
        )?;
        let battery_pub =
            node.publisher::<BatteryState>("/quad1/battery_state", qos::sensor_data())?;
        let odom_pub = node.publisher::<Odometry>("/quad1/odometry/filtered", qos::default())?;
        let target_pub = node.publisher::<PoseStamped>("/quad1/mission/target", qos::latched())?;
        let camera_pub = node.publisher::<Image>("/quad1/camera/image", qos::sensor_data())?;
        let mut target = PoseStamped::default();
        target.header.frame_id = "map".into();
        target.pose.position.x = 11.0;
        target.pose.position.y = 2.0;
        target.pose.position.z = 3.0;
        target_pub.publish(target)?;
        let battery = Arc::new(Mutex::new(1.0f32));
        let vehicle = Vehicle {
            battery: battery.clone(),
        };
        let sim = sim.clone();
        let task = node.spawn(async move {
            let _target_pub = target_pub;
            loop {
                let ns = sim.ns() + 10 * MS;
                *sim.0.lock().unwrap() = ns;
                let now = time_from_nanos(ns);
                let _ = clock_pub.publish(rosgraph_msgs::Clock { clock: now });
                let mut imu = Imu::default();
                imu.header.stamp = now;
                let _ = imu_pub.publish(imu);
                let mut image = Image::default();
                image.header.stamp = now;
                let _ = camera_pub.publish(image);
                let mut fix = NavSatFix::default();
                fix.header.stamp = now;
                let _ = gps_pub.publish(fix);
                let _ = hb_pub.publish(std_msgs::Header {
                    stamp: now,
                    frame_id: String::new(),
                });
                let mut bat = BatteryState::default();
                bat.header.stamp = now;
                bat.percentage = *battery.lock().unwrap();
                let _ = battery_pub.publish(bat);
                let mut odom = Odometry::default();
                odom.header.stamp = now;
                odom.pose.pose.position.x = 1.0;
                odom.pose.pose.position.y = 2.0;
                odom.pose.pose.position.z = 3.0;
                let _ = odom_pub.publish(odom);
                pause(20).await;
            }
        });
        Ok((vehicle, task))
    }
}

fn read_lines(path: &Path) -> Vec<String> {
    std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .lines()
        .map(str::to_string)
        .collect()
}

/// The child's exit is an abort: the setpoints of the four answered frames, the mode
/// unchanged, the reason naming the exit and the core's own words, nothing more; the
/// evidence, read after the node is SIGKILLed, holds the five frames written and the four
/// answers read.
#[test]
fn mission_supervisor_aborts_when_its_core_exits() {
    fieldproof_testkit::contain_or_return!();
    let domain = 110 + (std::process::id() % 20) as u16;
    let dir = tempfile::tempdir().unwrap();
    let core = fake_core(dir.path());
    let frames = dir.path().join("frames");
    let mut supervisor = quad1_node(
        env!("CARGO_BIN_EXE_mission_supervisor"),
        domain,
        &[
            "use_sim_time:=true".into(),
            "vision_source:=none".into(),
            format!("core_executable:={}", core.display()),
            format!("frames_dir:={}", frames.display()),
        ],
    )
    .start();
    let sim = SimClock::default();
    sim.set_ms(1000);
    fieldproof_runtime::run_on_domain("supervisor_peer", domain, |node| async move {
        let (setpoints, _a) =
            collect::<TwistStamped>(&node, "/quad1/supervisor/setpoint", qos::default()).await?;
        let (modes, _b) = collect::<std_msgs::String>(
            &node,
            "/quad1/supervisor/mode",
            qos::latched().keep_last(20),
        )
        .await?;
        let (reasons, _c) = collect::<std_msgs::String>(
            &node,
            "/quad1/supervisor/reason",
            qos::latched().keep_last(20),
        )
        .await?;
        // Our readers are matched; give the other direction of discovery a moment too.
        pause(1000).await;
        let (_vehicle, _d) = Vehicle::start(&node, &sim)?;
        eventually("the abort", || {
            texts(&reasons).iter().any(|r| r.starts_with("abort: "))
        })
        .await;
        // Another simulated second: nothing more.
        let until = sim.ns() + 1000 * MS;
        eventually("a second more", || sim.ns() > until).await;
        pause(300).await;
        // The node answered four frames (exactly four answers in frames.out, checked below);
        // a setpoint sent before its writer had matched our reader (discovery is not
        // symmetric in time) is not delivered, so the topic shows at most those four.
        let sp = setpoints.all();
        assert!((1..=4).contains(&sp.len()), "{sp:?}");
        for s in &sp {
            assert_eq!(s.header.frame_id, "map");
            assert!(near(linear(&s.twist), [0.5, 0.0, 0.0]));
        }
        assert_eq!(texts(&modes).last().map(String::as_str), Some("ACTIVE"));
        assert!(
            texts(&modes).iter().all(|m| m == "ACTIVE"),
            "{:?}",
            texts(&modes)
        );
        let abort = "abort: supervisor_core exited (exit status: 3) without answering frame 5: \
                     fake core: frame 5 refused";
        let reasons = texts(&reasons);
        assert_eq!(
            reasons.last().map(String::as_str),
            Some(abort),
            "{reasons:?}"
        );
        assert!(
            reasons[..reasons.len() - 1].iter().all(|r| r == "fake"),
            "{reasons:?}"
        );
        node.shutdown();
        Ok(())
    })
    .expect("peer run");
    // Killed, not stopped: the evidence is complete all the same (one write per line).
    supervisor.child.kill().unwrap();
    supervisor.wait_exit(Duration::from_secs(10));
    assert_eq!(supervisor.stderr.count("panicked"), 0);
    assert!(supervisor.stderr.count("abort: supervisor_core exited") >= 1);
    let frames_in = read_lines(&frames.join("frames.in"));
    let frames_out = read_lines(&frames.join("frames.out"));
    assert_eq!(frames_in.len(), 5, "{frames_in:?}");
    assert_eq!(frames_out.len(), 4, "{frames_out:?}");
    for (k, (frame, answer)) in frames_in.iter().zip(&frames_out).enumerate() {
        let fields: Vec<&str> = frame.split(' ').collect();
        assert_eq!(fields.len(), 15, "{frame}");
        assert_eq!(fields[0], (k + 1).to_string());
        assert_eq!(answer, &format!("{} ACTIVE fake 0.5 0 0", k + 1));
    }
    assert_eq!(
        read_lines(&frames.join("core.args")),
        ["--vision-required=false"]
    );
}

/// Publishes, every 20 ms of wall clock, a perception health report stamped with the
/// simulated time (the capture it stands for), its `inference_ms` the text in `reported`
/// (`None`: a report without it).
fn perception_health(
    node: &Node,
    sim: &SimClock,
    reported: &Arc<Mutex<Option<String>>>,
) -> Result<smol::Task<()>, fieldproof_runtime::NodeError> {
    let health_pub =
        node.publisher::<DiagnosticArray>("/quad1/perception/health", qos::sensor_data())?;
    let (sim, reported) = (sim.clone(), reported.clone());
    Ok(node.spawn(async move {
        loop {
            let mut values = vec![KeyValue {
                key: "frame_seq".into(),
                value: "1".into(),
            }];
            if let Some(ms) = reported.lock().unwrap().clone() {
                values.push(KeyValue {
                    key: "inference_ms".into(),
                    value: ms,
                });
            }
            let _ = health_pub.publish(DiagnosticArray {
                header: std_msgs::Header {
                    stamp: time_from_nanos(sim.ns()),
                    frame_id: "camera_link".into(),
                },
                status: vec![DiagnosticStatus {
                    name: "perception".into(),
                    hardware_id: "cpu".into(),
                    values,
                    ..Default::default()
                }],
            });
            pause(20).await;
        }
    }))
}

/// `vision_source:=perception`: the health report's stamp is the frame's vision stamp and
/// its `inference_ms` the frame's inference duration. 4 ms: INIT then ACTIVE; a reported
/// 120 ms (over the core's 100 ms): HOLD (`inference_slow`); 4 ms again: ACTIVE after the
/// recovery dwell. Then reports whose `inference_ms` is not finite: each refused and logged
/// (never a panic), and refused whole, so vision goes stale and the vehicle lands.
#[test]
fn mission_supervisor_supervises_perception_health() {
    fieldproof_testkit::contain_or_return!();
    let domain = 150 + (std::process::id() % 20) as u16;
    let dir = tempfile::tempdir().unwrap();
    let frames = dir.path().join("frames");
    let mut supervisor = quad1_node(
        env!("CARGO_BIN_EXE_mission_supervisor"),
        domain,
        &[
            "use_sim_time:=true".into(),
            "vision_source:=perception".into(),
            format!("core_executable:={}", env!("CARGO_BIN_EXE_supervisor_core")),
            format!("frames_dir:={}", frames.display()),
        ],
    )
    .start();
    let sim = SimClock::default();
    sim.set_ms(1000);
    fieldproof_runtime::run_on_domain("supervisor_peer", domain, |node| async move {
        let (modes, _a) = collect::<std_msgs::String>(
            &node,
            "/quad1/supervisor/mode",
            qos::latched().keep_last(20),
        )
        .await?;
        let (reasons, _b) = collect::<std_msgs::String>(
            &node,
            "/quad1/supervisor/reason",
            qos::latched().keep_last(20),
        )
        .await?;
        pause(1000).await;
        let reported = Arc::new(Mutex::new(Some("4.000".to_string())));
        // The simulation's clock first, as in a run (no capture comes before the simulator):
        // a report stamped before the supervisor's first /clock made its first frame's vision
        // stale, and that startup HOLD counted as a fault episode (a later fault then lands).
        let (_vehicle, _c) = Vehicle::start(&node, &sim)?;
        pause(200).await;
        let _health = perception_health(&node, &sim, &reported)?;
        let last_mode = || texts(&modes).last().cloned().unwrap_or_default();
        eventually("ACTIVE", || last_mode() == "ACTIVE").await;
        *reported.lock().unwrap() = Some("120.000".into());
        eventually("HOLD", || last_mode() == "HOLD").await;
        assert_eq!(
            texts(&reasons).last().map(String::as_str),
            Some("inference_slow")
        );
        *reported.lock().unwrap() = Some("4.000".into());
        eventually("ACTIVE again", || {
            texts(&modes).iter().filter(|m| *m == "ACTIVE").count() == 2
        })
        .await;
        *reported.lock().unwrap() = Some("NaN".into());
        eventually("LAND", || last_mode() == "LAND").await;
        let modes = texts(&modes);
        assert_eq!(
            modes[..4],
            ["INIT", "ACTIVE", "HOLD", "ACTIVE"],
            "{modes:?}"
        );
        node.shutdown();
        Ok(())
    })
    .expect("peer run");
    supervisor.stop();
    assert_eq!(supervisor.stderr.count("panicked"), 0);
    assert!(
        supervisor
            .stderr
            .count("perception/health inference_ms: NaN is not finite: sample ignored")
            >= 1
    );
    assert!(supervisor.stderr.count("perception/health reports refused") >= 1);
    // The frames carry the reports: inference_ms (field 14) as reported, the vision stamp
    // (field 5) the reports' stamps, and the refused reports left vision to go stale.
    let frames_in = read_lines(&frames.join("frames.in"));
    let field = |line: &str, k: usize| -> f64 { line.split(' ').nth(k).unwrap().parse().unwrap() };
    let inference: Vec<f64> = frames_in.iter().map(|l| field(l, 13)).collect();
    assert!(
        inference.contains(&4.0) && inference.contains(&120.0),
        "{inference:?}"
    );
    assert!(
        inference.iter().all(|ms| [4.0, 120.0].contains(ms)),
        "{inference:?}"
    );
    let first = &frames_in[0];
    assert!(field(first, 4) > 0.0, "{first}");
    let last = frames_in.last().unwrap();
    assert!(
        field(last, 1) - field(last, 4) > 0.5,
        "vision not stale: {last}"
    );
    let last_answer = read_lines(&frames.join("frames.out")).pop().unwrap();
    assert_eq!(last_answer.split(' ').nth(1), Some("LAND"), "{last_answer}");
}

/// With the real `supervisor_core` and the camera as the vision source: INIT, then ACTIVE
/// after its healthy second with setpoints toward the target (due east), then LAND when the
/// battery empties, handed over once with no setpoint after it;
/// `supervisor_core $(cat core.args) < frames.in` reproduces `frames.out` byte for byte.
#[test]
fn mission_supervisor_flies_lands_and_its_frames_replay() {
    fieldproof_testkit::contain_or_return!();
    let domain = 130 + (std::process::id() % 20) as u16;
    let dir = tempfile::tempdir().unwrap();
    let frames = dir.path().join("evidence").join("supervisor");
    let core = env!("CARGO_BIN_EXE_supervisor_core");
    // The evidence directory comes from the runner's variable (frames_dir unset).
    let mut supervisor = quad1_node(
        env!("CARGO_BIN_EXE_mission_supervisor"),
        domain,
        &[
            "use_sim_time:=true".into(),
            // vision_source: camera, the default
            format!("core_executable:={core}"),
        ],
    )
    .env("FIELDPROOF_EVIDENCE_DIR", dir.path().join("evidence"))
    .start();
    let sim = SimClock::default();
    sim.set_ms(1000);
    fieldproof_runtime::run_on_domain("supervisor_peer", domain, |node| async move {
        let (setpoints, _a) =
            collect::<TwistStamped>(&node, "/quad1/supervisor/setpoint", qos::default()).await?;
        let (modes, _b) = collect::<std_msgs::String>(
            &node,
            "/quad1/supervisor/mode",
            qos::latched().keep_last(20),
        )
        .await?;
        pause(1000).await;
        let (vehicle, _d) = Vehicle::start(&node, &sim)?;
        eventually("ACTIVE", || texts(&modes).contains(&"ACTIVE".to_string())).await;
        eventually("a setpoint toward the target", || {
            setpoints
                .last()
                .is_some_and(|s| s.twist.linear.x > 0.0 && s.twist.linear.y.abs() < 1e-9)
        })
        .await;
        *vehicle.battery.lock().unwrap() = 0.0;
        eventually("LAND", || {
            texts(&modes).last().map(String::as_str) == Some("LAND")
        })
        .await;
        let handed_over = setpoints.len();
        let until = sim.ns() + 1000 * MS;
        eventually("a second more", || sim.ns() > until).await;
        pause(300).await;
        assert_eq!(setpoints.len(), handed_over, "a setpoint after LAND");
        assert_eq!(texts(&modes), ["INIT", "ACTIVE", "LAND"]);
        assert!(setpoints
            .all()
            .iter()
            .all(|s| s.header.frame_id == "map" && s.twist.non_finite_field().is_none()));
        node.shutdown();
        Ok(())
    })
    .expect("peer run");
    supervisor.stop();
    assert_eq!(supervisor.stderr.count("panicked"), 0);
    let frames_in = std::fs::read(frames.join("frames.in")).unwrap();
    let frames_out = std::fs::read(frames.join("frames.out")).unwrap();
    let count = |b: &[u8]| b.iter().filter(|c| **c == b'\n').count();
    assert!(count(&frames_in) > 20, "at least a second of frames");
    assert_eq!(
        count(&frames_in),
        count(&frames_out),
        "one answer per frame"
    );
    let last = String::from_utf8_lossy(&frames_out)
        .lines()
        .last()
        .unwrap()
        .to_string();
    assert_eq!(last.split(' ').nth(1), Some("LAND"), "{last}");
    let core_args = read_lines(&frames.join("core.args"));
    assert!(core_args.is_empty(), "{core_args:?}");
    // The camera's capture stamps reach the frames (field 5, never 0 once heard).
    let first = String::from_utf8_lossy(&frames_in)
        .lines()
        .next()
        .unwrap()
        .to_string();
    let vision_stamp: f64 = first.split(' ').nth(4).unwrap().parse().unwrap();
    assert!(vision_stamp > 0.0, "{first}");
    let replay = Command::new(core)
        .args(&core_args)
        .stdin(std::fs::File::open(frames.join("frames.in")).unwrap())
        .output()
        .unwrap();
    assert!(
        replay.status.success(),
        "{}",
        String::from_utf8_lossy(&replay.stderr)
    );
    assert!(
        replay.stdout == frames_out,
        "the replay differs from frames.out"
    );
}
