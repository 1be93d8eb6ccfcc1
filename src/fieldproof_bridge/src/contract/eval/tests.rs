//! The checks on recorded observations: a stack that keeps the reference UGV's contract
//! passes; each way of breaking it fails with the finding that names it.

use std::path::Path;

use super::*;
use crate::contract::Contract;
use crate::gen::{self, Options};

fn contract(ns: &str) -> Contract {
    let path = std::path::absolute(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../robots/ugv_ref/robot.yaml"),
    )
    .unwrap();
    let m = gen::load_manifest(&path).unwrap();
    let o = Options {
        namespace: ns.into(),
        ..Options::default()
    };
    gen::generate(&m, &o, Path::new("/tmp/x")).unwrap().contract
}

const SECOND: i64 = 1_000_000_000;

/// What a stack keeping the contract shows: every endpoint as declared, `n` messages per
/// topic on the rate's grid after an off-grid first stamp (Gazebo's sensor creation), and a
/// checker-side arrival clock.
fn keeping(c: &Contract, n: usize) -> Observations {
    let mut obs = Observations {
        duration_s: 5.0,
        ..Observations::default()
    };
    for t in &c.topics {
        let e = Endpoint {
            ros_type: t.ros_type.clone(),
            reliability: t.qos.reliability,
            durability: t.qos.durability,
        };
        let mut o = TopicObservation::default();
        match t.role {
            Role::Publisher => o.publishers.push(e),
            Role::Subscriber => o.subscriptions.push(e),
        }
        if t.role == Role::Publisher {
            let period = t
                .rate_hz
                .map(|r| (SECOND as f64 / r) as i64)
                .unwrap_or(SECOND);
            for k in 0..=n {
                // The first stamp is off the grid by a third of a period.
                let stamp = if k == 0 {
                    10 * SECOND - period / 3
                } else {
                    10 * SECOND + k as i64 * period
                };
                let transforms = t
                    .frames
                    .iter()
                    .map(|f| TransformSample {
                        parent: f.parent.clone(),
                        child: f.child.clone(),
                        stamp_ns: stamp,
                    })
                    .collect();
                o.samples.push(Sample {
                    stamp_ns: (!t.is_tf()
                        && t.ros_type != "rosgraph_msgs/msg/Clock"
                        && t.ros_type != "std_msgs/msg/String")
                        .then_some(stamp),
                    frame_id: t.frame_id.clone(),
                    child_frame_id: t.child_frame_id.clone(),
                    transforms,
                    received_ns: k as i64 * period,
                    sent_as: Some(WriterSequence {
                        writer: "writer-1".into(),
                        sequence: 1 + k as i64,
                    }),
                });
            }
        }
        obs.visible_topics.insert(t.topic.clone());
        obs.topics.insert(t.topic.clone(), o);
    }
    for h in &c.hidden_topics {
        obs.visible_topics.insert(h.clone());
    }
    obs.visible_topics.insert("/parameter_events".into());
    obs.visible_topics.insert("/rosout".into());
    obs
}

fn failures(r: &Report) -> Vec<(Check, String, String)> {
    r.findings
        .iter()
        .filter(|f| f.status == Status::Fail)
        .map(|f| (f.check, f.topic.clone(), f.detail.clone()))
        .collect()
}

/// The rate finding of `topic`.
fn rate_of<'a>(r: &'a Report, topic: &str) -> &'a Finding {
    r.findings
        .iter()
        .find(|f| f.check == Check::Rate && f.topic == topic)
        .unwrap_or_else(|| panic!("no rate finding for {topic}"))
}

fn obs_mut<'a>(o: &'a mut Observations, topic: &str) -> &'a mut TopicObservation {
    o.topics.get_mut(topic).unwrap()
}

#[test]
fn a_stack_keeping_the_contract_passes_every_check() {
    let c = contract("ugv1");
    let r = evaluate(&c, &keeping(&c, 10), &Settings::default());
    assert_eq!(failures(&r), vec![]);
    assert!(r.passed);
    assert_eq!(r.skip, 0);
    // graph + qos for all 15 topics, frame + rate where declared, per transform for /tf,
    // and the topics check.
    let count = |check: Check| r.findings.iter().filter(|f| f.check == check).count();
    assert_eq!(count(Check::Graph), 15);
    assert_eq!(count(Check::Qos), 15);
    assert_eq!(count(Check::Topics), 1);
    // odom, joint_states, imu, gps, scan, 4 camera, battery, plus /tf's one transform.
    assert_eq!(count(Check::Rate), 11);
    let imu_rate = rate_of(&r, "/ugv1/imu/data");
    assert!(
        imu_rate.detail.starts_with("100.00 Hz over 10 stamps"),
        "{}",
        imu_rate.detail
    );
}

#[test]
fn the_first_stamp_is_discarded() {
    // 50 Hz on the grid after a first stamp 1 ms before the grid: measured exactly.
    let stamps: Vec<i64> = std::iter::once(-1_000_000)
        .chain((1..=10).map(|k| k * 20_000_000))
        .collect();
    let r = rate_over_stamps(&stamps, 0).unwrap();
    assert!((r - 50.0).abs() < 1e-9, "{r}");
    // Too few stamps to tell.
    assert_eq!(rate_over_stamps(&[0, 10], 0), None);
    assert_eq!(rate_over_stamps(&[5, 5, 5], 0), None);
}

/// Drops every `nth` sample of `topic` after the first, as a best-effort reader on a loaded
/// machine does: the sequence numbers keep the gaps.
fn drop_every(o: &mut Observations, topic: &str, nth: usize) {
    let samples = &mut obs_mut(o, topic).samples;
    let mut index = 0;
    samples.retain(|_| {
        index += 1;
        index == 1 || index % nth != 0
    });
}

#[test]
fn messages_lost_on_the_way_to_the_checker_count_as_sent() {
    // CI: a best-effort odometry reader on a loaded runner received 43 of the 50 Hz a
    // publisher kept; the writer's sequence numbers show the rest were sent.
    let c = contract("ugv1");
    let mut o = keeping(&c, 100);
    drop_every(&mut o, "/ugv1/odom", 5);
    let r = evaluate(&c, &o, &Settings::default());
    assert!(r.passed, "{:?}", failures(&r));
    let odom = rate_of(&r, "/ugv1/odom");
    assert!(
        odom.detail
            .starts_with("50.00 Hz over 80 stamps (and 20 sent that never reached the checker"),
        "{}",
        odom.detail
    );
}

#[test]
fn a_publisher_that_skips_messages_still_fails_its_rate() {
    // The same gaps without gaps in the sequence numbers: the writer itself sent 40 Hz
    // (39.9 over the span: the last period lacks its message).
    let c = contract("ugv1");
    let mut o = keeping(&c, 100);
    drop_every(&mut o, "/ugv1/odom", 5);
    for (sequence, sample) in obs_mut(&mut o, "/ugv1/odom").samples.iter_mut().enumerate() {
        sample.sent_as.as_mut().unwrap().sequence = 1 + sequence as i64;
    }
    let r = evaluate(&c, &o, &Settings::default());
    let failed = failures(&r);
    assert_eq!(failed.len(), 1, "{failed:?}");
    assert_eq!(
        (failed[0].0, failed[0].1.as_str()),
        (Check::Rate, "/ugv1/odom")
    );
    assert!(
        failed[0]
            .2
            .starts_with("39.90 Hz over 80 stamps, expected 50 Hz"),
        "{}",
        failed[0].2
    );
}

#[test]
fn lost_messages_are_counted_per_writer_after_the_first_stamp() {
    let sample = |stamp: i64, writer: &str, sequence: i64| Sample {
        stamp_ns: Some(stamp),
        sent_as: Some(WriterSequence {
            writer: writer.into(),
            sequence,
        }),
        ..Sample::default()
    };
    let samples = vec![
        // The discarded first stamp, and the gap after it, count for nothing.
        sample(0, "a", 1),
        sample(30, "a", 4),
        sample(40, "a", 5),
        sample(70, "a", 8),
        // A second writer's numbers are its own: interleaving is no gap.
        sample(35, "b", 100),
        sample(45, "b", 101),
        sample(55, "b", 103),
        // No sequence number known: nothing to count.
        Sample {
            stamp_ns: Some(60),
            ..Sample::default()
        },
    ];
    assert_eq!(lost_in_transport(&samples, 0), 2 + 1);
}

#[test]
fn a_broken_stack_fails_with_one_finding_per_break() {
    let c = contract("ugv1");
    let mut o = keeping(&c, 10);
    // Wrong frame: the IMU in base_link.
    for s in &mut obs_mut(&mut o, "/ugv1/imu/data").samples {
        s.frame_id = Some("base_link".into());
    }
    // Missing topic: no lidar.
    o.topics.remove("/ugv1/scan");
    o.visible_topics.remove("/ugv1/scan");
    // Wrong QoS: the image published best effort.
    obs_mut(&mut o, "/ugv1/camera/image").publishers[0].reliability = Reliability::BestEffort;
    // Rate off: the fix at 4 Hz (stamps 250 ms apart) instead of 5.
    for (k, s) in obs_mut(&mut o, "/ugv1/gps/fix")
        .samples
        .iter_mut()
        .enumerate()
    {
        s.stamp_ns = Some(10 * SECOND + k as i64 * 250_000_000);
    }
    // Something extra under the namespace (a hidden one does not count).
    o.visible_topics.insert("/ugv1/debug/pose".into());
    o.visible_topics.insert("/ugv1/_internal/x".into());
    o.visible_topics.insert("/other_robot/scan".into());
    o.visible_topics
        .insert("/fieldproof/truth/ugv1/pose".into());
    let r = evaluate(&c, &o, &Settings::default());
    assert!(!r.passed);
    let f = failures(&r);
    assert_eq!(
        f,
        vec![
            (
                Check::Frame,
                "/ugv1/imu/data".into(),
                "expected imu_link; frame_id \"base_link\" in 11 of 11 message(s)".into()
            ),
            (
                Check::Rate,
                "/ugv1/gps/fix".into(),
                "4.00 Hz over 10 stamps, expected 5 Hz ± 10 %".into()
            ),
            (
                Check::Graph,
                "/ugv1/scan".into(),
                "no publisher of sensor_msgs/msg/LaserScan".into()
            ),
            (
                Check::Frame,
                "/ugv1/scan".into(),
                "no message arrived".into()
            ),
            (
                Check::Rate,
                "/ugv1/scan".into(),
                "no message arrived".into()
            ),
            (
                Check::Qos,
                "/ugv1/camera/image".into(),
                "expected reliable, volatile; 1 of 1 publisher(s) have best_effort, volatile"
                    .into()
            ),
            (
                Check::Topics,
                "/ugv1".into(),
                "not in the contract: /ugv1/debug/pose".into()
            ),
        ]
    );
    assert_eq!(r.fail, 7);
}

#[test]
fn wrong_type_child_frame_and_tf_transforms() {
    let c = contract("");
    let mut o = keeping(&c, 10);
    // The odometry published as a different type.
    obs_mut(&mut o, "/odom").publishers[0].ros_type = "geometry_msgs/msg/PoseStamped".into();
    // ... whose messages name another child frame.
    for s in &mut obs_mut(&mut o, "/odom").samples {
        s.child_frame_id = Some("base_footprint".into());
    }
    // tf_static without the camera's optical frame.
    for s in &mut obs_mut(&mut o, "/tf_static").samples {
        s.transforms.retain(|t| t.child != "camera_optical_link");
    }
    // The command subscribed best effort by the vehicle.
    obs_mut(&mut o, "/cmd_vel").subscriptions[0].reliability = Reliability::BestEffort;
    let f = failures(&evaluate(&c, &o, &Settings::default()));
    assert_eq!(
        f,
        vec![
            (
                Check::Qos,
                "/cmd_vel".into(),
                "expected reliable, volatile; 1 of 1 subscription(s) have best_effort, volatile"
                    .into()
            ),
            (
                Check::Graph,
                "/odom".into(),
                "no publisher of nav_msgs/msg/Odometry; publishers of geometry_msgs/msg/PoseStamped instead"
                    .into()
            ),
            (
                Check::Frame,
                "/odom".into(),
                "expected odom -> base_link; child_frame_id \"base_footprint\" in 11 of 11 message(s)"
                    .into()
            ),
            (
                Check::Frame,
                "/tf_static".into(),
                "missing transform(s) camera_link -> camera_optical_link".into()
            ),
        ]
    );
}

#[test]
fn tf_rate_is_per_transform() {
    let c = contract("ugv1");
    let mut o = keeping(&c, 10);
    // robot_state_publisher's wheel transforms at 10 Hz must not dilute odom -> base_link.
    let tf = obs_mut(&mut o, "/ugv1/tf");
    for k in 0..5 {
        tf.samples.push(Sample {
            transforms: vec![TransformSample {
                parent: "base_link".into(),
                child: "front_left_wheel_link".into(),
                stamp_ns: 10 * SECOND + k * 100_000_000,
            }],
            ..Sample::default()
        });
    }
    let r = evaluate(&c, &o, &Settings::default());
    assert!(r.passed, "{:?}", failures(&r));
    // Half the odom -> base_link transforms lost: 25 Hz of 50.
    let tf = obs_mut(&mut o, "/ugv1/tf");
    let mut k = 0;
    tf.samples.retain(|_| {
        k += 1;
        k % 2 == 1
    });
    let f = failures(&evaluate(&c, &o, &Settings::default()));
    assert_eq!(f.len(), 1, "{f:?}");
    assert_eq!(f[0].0, Check::Rate);
    assert!(f[0].2.starts_with("odom -> base_link: 2"), "{}", f[0].2);
}

#[test]
fn rendering_sensors_take_the_render_tolerance() {
    let c = contract("");
    let mut o = keeping(&c, 10);
    // The point cloud at 12 Hz (20 % slow), everything else on its rate.
    for (k, s) in obs_mut(&mut o, "/camera/points")
        .samples
        .iter_mut()
        .enumerate()
    {
        s.stamp_ns = Some(10 * SECOND + k as i64 * (SECOND / 12));
    }
    let strict = failures(&evaluate(&c, &o, &Settings::default()));
    assert_eq!(strict.len(), 1);
    assert_eq!(
        (strict[0].0, strict[0].1.as_str()),
        (Check::Rate, "/camera/points")
    );
    let loose = Settings {
        render_tolerance: Some(0.5),
        ..Settings::default()
    };
    assert!(evaluate(&c, &o, &loose).passed);
    // The render tolerance does not loosen the other topics.
    for (k, s) in obs_mut(&mut o, "/imu/data").samples.iter_mut().enumerate() {
        s.stamp_ns = Some(10 * SECOND + k as i64 * (SECOND / 80));
    }
    let f = failures(&evaluate(&c, &o, &loose));
    assert_eq!(f.len(), 1);
    assert_eq!(f[0].1, "/imu/data");
}

#[test]
fn unknown_types_are_skipped_not_failed() {
    let c = contract("");
    let mut o = keeping(&c, 10);
    let scan = obs_mut(&mut o, "/scan");
    scan.samples.clear();
    scan.not_subscribed = Some("no message type for it in fieldproof_msgs".into());
    let r = evaluate(&c, &o, &Settings::default());
    assert!(r.passed);
    assert_eq!(r.skip, 2);
    assert!(!topic_satisfied(
        c.topic("/imu/data").unwrap(),
        &TopicObservation::default(),
        10
    ));
}

#[test]
fn satisfied_once_enough_samples_arrived() {
    let c = contract("");
    let o = keeping(&c, 10);
    for t in &c.topics {
        assert!(topic_satisfied(t, &o.topics[&t.topic], 10), "{}", t.topic);
        if t.rate_hz.is_some() {
            assert!(!topic_satisfied(t, &o.topics[&t.topic], 11), "{}", t.topic);
        }
    }
}

#[test]
fn report_serializes_and_prints() {
    let c = contract("ugv1");
    let r = evaluate(&c, &keeping(&c, 3), &Settings::default());
    let json = serde_json::to_value(&r).unwrap();
    assert_eq!(json["passed"], serde_json::Value::Bool(true));
    assert_eq!(json["findings"][0]["check"], "graph");
    assert_eq!(json["findings"][0]["status"], "pass");
    assert_eq!(
        r.findings[0].to_string(),
        "PASS graph  /ugv1/cmd_vel: 1 subscription(s) of geometry_msgs/msg/Twist"
    );
    assert!(is_hidden_name("/ugv1/_bridge/imu/data"));
    assert!(!is_hidden_name("/ugv1/imu/data"));
}

#[test]
fn without_a_namespace_everything_visible_counts_but_the_harness() {
    let c = contract("");
    let mut o = keeping(&c, 3);
    o.visible_topics
        .insert("/fieldproof/truth/ugv_ref/pose".into());
    o.visible_topics.insert("/fieldproof_sim/step".into());
    assert!(evaluate(&c, &o, &Settings::default()).passed);
    o.visible_topics.insert("/map".into());
    let f = failures(&evaluate(&c, &o, &Settings::default()));
    assert_eq!(
        f,
        vec![(
            Check::Topics,
            "/".into(),
            "not in the contract: /map".into()
        )]
    );
    let mut s = Settings::default();
    s.allowed_prefixes.push("/map".into());
    assert!(evaluate(&c, &o, &s).passed);
}
