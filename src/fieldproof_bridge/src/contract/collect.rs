//! Collecting [`Observations`] from a live graph, as a `fieldproof_runtime` node.
//!
//! - Graph and QoS: rustdds' discovery database (`DomainParticipant::discovered_writers` /
//!   `discovered_readers`, reached through ros2-client's `Context::domain_participant`): every
//!   remote endpoint with its topic, DDS type name and the reliability and durability it
//!   announced in SEDP (SEDP carries no history depth). The checker's own endpoints are left
//!   out by their GUID prefix.
//! - Frames and rates: one subscription per published contract topic, of the concrete type
//!   ([`fieldproof_msgs::dispatch!`] on the contract's type name), with the contract's
//!   reliability and durability (a transient-local reader gets the latched samples).

use std::any::Any;
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use fieldproof_msgs::{tf2_msgs::TFMessage, MaybeStamped, RosMessage};
use fieldproof_robots::{Durability, Reliability};
use fieldproof_runtime::qos::{self as rq, QosSpec};
use fieldproof_runtime::Node;

use super::eval::{
    topic_satisfied, Endpoint, Observations, Sample, TopicObservation, TransformSample,
    WriterSequence,
};
use super::{Contract, Role};

/// How long and how much to listen.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CollectOptions {
    /// Give up waiting for samples after this long.
    pub timeout: Duration,
    /// Samples wanted per topic (after the first), per listed transform for TF.
    pub samples: usize,
    /// Listen at least this long, so discovery has settled before the graph is read.
    pub settle: Duration,
}

impl Default for CollectOptions {
    fn default() -> Self {
        Self {
            timeout: Duration::from_secs(300),
            samples: 10,
            settle: Duration::from_secs(2),
        }
    }
}

type Store = Arc<Mutex<BTreeMap<String, TopicObservation>>>;

/// Per ROS topic: (publishers, subscriptions).
type Graph = BTreeMap<String, (Vec<Endpoint>, Vec<Endpoint>)>;

/// `sensor_msgs::msg::dds_::Imu_` -> `sensor_msgs/msg/Imu` (other names unchanged).
pub fn ros_type_from_dds(dds: &str) -> String {
    let parts: Vec<&str> = dds.split("::").collect();
    match parts.as_slice() {
        [pkg, kind, "dds_", name] => format!("{pkg}/{kind}/{}", name.trim_end_matches('_')),
        _ => dds.to_string(),
    }
}

/// `rt/ugv1/scan` -> `/ugv1/scan`; `None` for services (`rq/`, `rr/`) and non-ROS topics.
pub fn ros_topic_from_dds(dds: &str) -> Option<String> {
    dds.strip_prefix("rt/").map(|t| format!("/{t}"))
}

fn reliability(r: Option<rustdds::policy::Reliability>, writer: bool) -> Reliability {
    match r {
        Some(rustdds::policy::Reliability::Reliable { .. }) => Reliability::Reliable,
        Some(rustdds::policy::Reliability::BestEffort) => Reliability::BestEffort,
        // DDS defaults: writers reliable, readers best effort.
        None if writer => Reliability::Reliable,
        None => Reliability::BestEffort,
    }
}

fn durability(d: Option<rustdds::policy::Durability>) -> Durability {
    match d {
        None | Some(rustdds::policy::Durability::Volatile) => Durability::Volatile,
        Some(_) => Durability::TransientLocal,
    }
}

/// What a message says about frames and time.
fn sample_of<T: RosMessage + MaybeStamped>(
    msg: &T,
    info: &ros2_client::MessageInfo,
    received_ns: i64,
) -> Sample {
    let header = msg.maybe_header();
    let any = msg as &dyn Any;
    let child_frame_id = any
        .downcast_ref::<fieldproof_msgs::nav_msgs::Odometry>()
        .map(|o| o.child_frame_id.clone());
    let transforms = any
        .downcast_ref::<TFMessage>()
        .map(|tf| {
            tf.transforms
                .iter()
                .map(|t| TransformSample {
                    parent: t.header.frame_id.clone(),
                    child: t.child_frame_id.clone(),
                    stamp_ns: t.header.stamp.to_nanos(),
                })
                .collect()
        })
        .unwrap_or_default();
    Sample {
        stamp_ns: header.map(|h| h.stamp.to_nanos()),
        frame_id: header.map(|h| h.frame_id.clone()),
        child_frame_id,
        transforms,
        received_ns,
        sent_as: Some(WriterSequence {
            writer: format!("{:?}", info.publisher_gid()),
            sequence: info.sequence_number(),
        }),
    }
}

/// Subscribes `topic` as `T` and records every message into `store` until cancelled.
fn listen<T: RosMessage + MaybeStamped>(
    node: &Node,
    topic: &str,
    qos: QosSpec,
    store: Store,
    start: Instant,
) -> Result<smol::Task<()>, fieldproof_runtime::NodeError> {
    let sub = node.subscription::<T>(topic, qos)?;
    let topic = topic.to_string();
    Ok(node.spawn(async move {
        loop {
            match sub.recv_with_info().await {
                Ok((msg, info)) => {
                    let at = start.elapsed().as_nanos() as i64;
                    let s = sample_of(&msg, &info, at);
                    store
                        .lock()
                        .unwrap()
                        .entry(topic.clone())
                        .or_default()
                        .samples
                        .push(s);
                }
                Err(e) => {
                    fieldproof_runtime::tracing::warn!("{topic}: {e}");
                    smol::Timer::after(Duration::from_millis(50)).await;
                }
            }
        }
    }))
}

/// The graph as discovery shows it now: endpoints per ROS topic (the checker's own left out)
/// and every visible topic name.
fn graph(node: &Node) -> (Graph, Vec<String>) {
    let dp = node.context().domain_participant();
    let own = rustdds::RTPSEntity::guid(&dp).prefix;
    let mut by_topic: Graph = BTreeMap::new();
    for w in dp.discovered_writers() {
        let p = &w.publication_topic_data;
        if p.key.prefix == own {
            continue;
        }
        if let Some(t) = ros_topic_from_dds(&p.topic_name) {
            by_topic.entry(t).or_default().0.push(Endpoint {
                ros_type: ros_type_from_dds(&p.type_name),
                reliability: reliability(p.reliability, true),
                durability: durability(p.durability),
            });
        }
    }
    for r in dp.discovered_readers() {
        let s = &r.subscription_topic_data;
        if s.key().prefix == own {
            continue;
        }
        let q = s.qos();
        if let Some(t) = ros_topic_from_dds(s.topic_name()) {
            by_topic.entry(t).or_default().1.push(Endpoint {
                ros_type: ros_type_from_dds(s.type_name()),
                reliability: reliability(q.reliability(), false),
                durability: durability(q.durability()),
            });
        }
    }
    let visible = by_topic.keys().cloned().collect();
    (by_topic, visible)
}

/// Listens to every published topic of `contract` until each has `samples` messages (or
/// `timeout`), then reads the graph. Runs inside [`fieldproof_runtime::run`].
pub async fn collect(node: &Node, contract: &Contract, opts: &CollectOptions) -> Observations {
    let start = Instant::now();
    let store: Store = Arc::new(Mutex::new(BTreeMap::new()));
    let mut tasks = Vec::new();
    for t in contract.topics.iter().filter(|t| t.role == Role::Publisher) {
        let mut qos = match (t.qos.reliability, t.qos.durability) {
            (Reliability::Reliable, _) => rq::default(),
            (Reliability::BestEffort, _) => rq::sensor_data(),
        };
        if t.qos.durability == Durability::TransientLocal {
            qos = qos.transient_local();
        }
        let qos = qos.keep_last((t.qos.depth as usize).max(100));
        let s = store.clone();
        let result = fieldproof_msgs::dispatch!(t.ros_type.as_str(), |T| listen::<T>(
            node, &t.topic, qos, s, start
        ));
        let why = match result {
            Ok(Ok(task)) => {
                tasks.push(task);
                None
            }
            Ok(Err(e)) => Some(format!("cannot subscribe: {e}")),
            Err(_) => Some(format!(
                "{} has no message type in fieldproof_msgs: frames and rate not checked",
                t.ros_type
            )),
        };
        store
            .lock()
            .unwrap()
            .entry(t.topic.clone())
            .or_default()
            .not_subscribed = why;
    }
    loop {
        smol::Timer::after(Duration::from_millis(200)).await;
        let elapsed = start.elapsed();
        if elapsed >= opts.timeout {
            break;
        }
        if elapsed < opts.settle {
            continue;
        }
        let done = {
            let st = store.lock().unwrap();
            let empty = TopicObservation::default();
            contract
                .topics
                .iter()
                .all(|t| topic_satisfied(t, st.get(&t.topic).unwrap_or(&empty), opts.samples))
        };
        if done {
            // Give discovery of the remaining endpoints (subscribers, late writers) a moment.
            let (by_topic, _) = graph(node);
            let all_present = contract.topics.iter().all(|t| {
                by_topic.get(&t.topic).is_some_and(|(w, r)| match t.role {
                    Role::Publisher => !w.is_empty(),
                    Role::Subscriber => !r.is_empty(),
                })
            });
            if all_present || elapsed >= opts.settle * 3 {
                break;
            }
        }
    }
    drop(tasks);
    let duration_s = start.elapsed().as_secs_f64();
    let (by_topic, visible) = graph(node);
    let mut topics = std::mem::take(&mut *store.lock().unwrap());
    for (name, (writers, readers)) in by_topic {
        if let Some(o) = topics.get_mut(&name) {
            o.publishers = writers;
            o.subscriptions = readers;
        } else if contract.topic(&name).is_some() {
            topics.insert(
                name,
                TopicObservation {
                    publishers: writers,
                    subscriptions: readers,
                    ..TopicObservation::default()
                },
            );
        }
    }
    Observations {
        topics,
        visible_topics: visible.into_iter().collect(),
        duration_s,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dds_names_map_to_ros_names() {
        assert_eq!(
            ros_type_from_dds("sensor_msgs::msg::dds_::Imu_"),
            "sensor_msgs/msg/Imu"
        );
        assert_eq!(ros_type_from_dds("weird"), "weird");
        assert_eq!(
            ros_topic_from_dds("rt/ugv1/imu/data").as_deref(),
            Some("/ugv1/imu/data")
        );
        assert_eq!(
            ros_topic_from_dds("rq/ugv1/imu_adapter/get_parametersRequest"),
            None
        );
        assert_eq!(ros_topic_from_dds("ros_discovery_info"), None);
    }

    #[test]
    fn missing_qos_takes_the_dds_defaults() {
        assert_eq!(reliability(None, true), Reliability::Reliable);
        assert_eq!(reliability(None, false), Reliability::BestEffort);
        assert_eq!(durability(None), Durability::Volatile);
        assert_eq!(
            durability(Some(rustdds::policy::Durability::TransientLocal)),
            Durability::TransientLocal
        );
    }

    #[test]
    fn samples_carry_stamps_frames_and_transforms() {
        use fieldproof_msgs::builtin_interfaces::Time;
        let mut odom = fieldproof_msgs::nav_msgs::Odometry::default();
        odom.header.frame_id = "odom".into();
        odom.header.stamp = Time::new(3, 5);
        odom.child_frame_id = "base_link".into();
        let writer = ros2_client::Gid::from([7u8; 16]);
        let info = ros2_client::MessageInfo::new(None, None, 42, writer, None);
        let s = sample_of(&odom, &info, 7);
        assert_eq!(
            s.sent_as,
            Some(WriterSequence {
                writer: format!("{writer:?}"),
                sequence: 42
            })
        );
        assert_eq!(s.stamp_ns, Some(3_000_000_005));
        assert_eq!(s.frame_id.as_deref(), Some("odom"));
        assert_eq!(s.child_frame_id.as_deref(), Some("base_link"));
        assert_eq!(s.received_ns, 7);
        let mut tf = TFMessage::default();
        let mut t = fieldproof_msgs::geometry_msgs::TransformStamped::default();
        t.header.frame_id = "odom".into();
        t.header.stamp = Time::new(1, 0);
        t.child_frame_id = "base_link".into();
        tf.transforms.push(t);
        let s = sample_of(&tf, &info, 0);
        assert_eq!(s.stamp_ns, None);
        assert_eq!(
            s.transforms,
            [TransformSample {
                parent: "odom".into(),
                child: "base_link".into(),
                stamp_ns: 1_000_000_000
            }]
        );
        let s = sample_of(&fieldproof_msgs::std_msgs::String::default(), &info, 0);
        assert_eq!((s.stamp_ns, s.frame_id), (None, None));
    }
}
