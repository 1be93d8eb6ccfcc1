//! Typed publishers and subscriptions.
//!
//! A subscription never lets one bad sample end its reader: a sample that fails to
//! deserialize (truncated, wrong type, hostile) is counted, logged at most once per
//! [`MALFORMED_LOG_PERIOD`], and skipped; only a failure of the participant itself (a
//! poisoned lock, an internal error, a closed reader) is an error of the stream.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures::StreamExt;
use ros2_client::ReadError;

use crate::graph::Graph;
use crate::logging::Throttle;
use crate::msgs::RosMessage;
use crate::node::NodeError;

/// The shortest interval between two log lines about malformed samples on one topic.
pub const MALFORMED_LOG_PERIOD: Duration = Duration::from_secs(5);

/// `topic_qos` with the USER_DATA a ROS 2 Jazzy endpoint of `type_name` announces
/// (`typehash=RIHS01_<hex>;`, REP 2011), so rmw_cyclonedds_cpp peers read our type hash:
/// a registered message type, a builtin topic's (`rcl_interfaces/msg/Log`) or a service's
/// (`rcl_interfaces/srv/GetParameters`: both endpoints of a service announce the service
/// type's hash). Endpoints take it from their topic's QoS. An unknown type keeps
/// `topic_qos` as it is (announces no hash).
pub(crate) fn with_type_hash_of(
    type_name: &str,
    topic_qos: rustdds::QosPolicies,
) -> rustdds::QosPolicies {
    match fieldproof_msgs::type_hash::user_data(type_name) {
        Ok(user_data) => topic_qos.with_user_data(user_data),
        Err(_) => topic_qos,
    }
}

/// A typed publisher.
pub struct Publisher<M: RosMessage> {
    inner: ros2_client::Publisher<M>,
    topic: String,
    graph: Arc<Graph>,
}

impl<M: RosMessage> Publisher<M> {
    pub(crate) fn new(inner: ros2_client::Publisher<M>, topic: String, graph: Arc<Graph>) -> Self {
        Publisher {
            inner,
            topic,
            graph,
        }
    }
    /// Publishes (a reliable writer with a full window waits up to 100 ms).
    pub fn publish(&self, msg: M) -> Result<(), NodeError> {
        self.inner.publish(msg).map_err(|e| NodeError::Write {
            topic: self.topic.clone(),
            reason: e.to_string(),
        })
    }
    /// Publishes, waiting asynchronously for window space.
    pub async fn publish_async(&self, msg: M) -> Result<(), NodeError> {
        self.inner
            .async_publish(msg)
            .await
            .map_err(|e| NodeError::Write {
                topic: self.topic.clone(),
                reason: e.to_string(),
            })
    }
    /// The resolved topic name.
    pub fn topic(&self) -> &str {
        &self.topic
    }
    /// The DDS writer GUID.
    pub fn guid(&self) -> rustdds::GUID {
        self.inner.guid()
    }
    /// How many subscriptions are matched (any participant, this one included).
    pub fn subscription_count(&self) -> usize {
        self.graph.subscription_count(self.guid())
    }
    /// Waits until at least `n` subscriptions are matched.
    pub async fn wait_for_subscriptions(&self, n: usize) {
        let g = self.guid();
        self.graph.wait(|gr| gr.subscription_count(g) >= n).await
    }
}

/// Counts the malformed samples of one subscription and rate-limits their log lines.
#[derive(Debug)]
struct MalformedSamples(Mutex<Throttle>);

impl Default for MalformedSamples {
    fn default() -> Self {
        MalformedSamples(Mutex::new(Throttle::new(MALFORMED_LOG_PERIOD)))
    }
}

impl MalformedSamples {
    /// Records one malformed sample on `topic`, logging it unless a line about this topic
    /// was logged less than [`MALFORMED_LOG_PERIOD`] ago.
    fn record(&self, topic: &str, reason: &str) {
        let mut throttle = self.0.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(since) = throttle.hit() {
            tracing::warn!(
                "receiving on '{topic}': skipped a sample that does not deserialize ({reason}); \
                 {since} skipped since the last report, {} in all",
                throttle.total()
            );
        }
    }
    fn count(&self) -> u64 {
        self.0.lock().unwrap_or_else(|e| e.into_inner()).total()
    }
}

/// Whether a read error concerns one sample (skip it) rather than the reader.
fn is_sample_error(e: &ReadError) -> bool {
    matches!(e, ReadError::Deserialization { .. } | ReadError::Malformed)
}

/// A typed subscription. Malformed samples are skipped (see the module documentation).
pub struct Subscription<M: RosMessage> {
    inner: ros2_client::Subscription<M>,
    topic: String,
    graph: Arc<Graph>,
    malformed: MalformedSamples,
}

impl<M: RosMessage> Subscription<M> {
    pub(crate) fn new(
        inner: ros2_client::Subscription<M>,
        topic: String,
        graph: Arc<Graph>,
    ) -> Self {
        Subscription {
            inner,
            topic,
            graph,
            malformed: MalformedSamples::default(),
        }
    }
    fn read_error(&self, e: ReadError) -> NodeError {
        NodeError::Read {
            topic: self.topic.clone(),
            reason: e.to_string(),
        }
    }
    /// Waits for the next well-formed message. An error means the reader itself failed.
    pub async fn recv(&self) -> Result<M, NodeError> {
        self.recv_with_info().await.map(|(m, _)| m)
    }
    /// Waits for the next well-formed message and its DDS metadata.
    pub async fn recv_with_info(&self) -> Result<(M, ros2_client::MessageInfo), NodeError> {
        loop {
            match self.inner.async_take().await {
                Ok(x) => return Ok(x),
                Err(e) if is_sample_error(&e) => self.malformed.record(&self.topic, &e.to_string()),
                Err(e) => return Err(self.read_error(e)),
            }
        }
    }
    /// A well-formed message if one is waiting.
    pub fn try_recv(&self) -> Result<Option<M>, NodeError> {
        loop {
            match self.inner.take() {
                Ok(x) => return Ok(x.map(|(m, _)| m)),
                Err(e) if is_sample_error(&e) => self.malformed.record(&self.topic, &e.to_string()),
                Err(e) => return Err(self.read_error(e)),
            }
        }
    }
    /// The messages as a stream; malformed samples are skipped, and so (logged) are
    /// reader failures.
    pub fn stream(&self) -> impl futures::Stream<Item = M> + '_ {
        self.inner.async_stream().filter_map(move |r| {
            futures::future::ready(match r {
                Ok((m, _)) => Some(m),
                Err(e) if is_sample_error(&e) => {
                    self.malformed.record(&self.topic, &e.to_string());
                    None
                }
                Err(e) => {
                    tracing::warn!("receiving on '{}': {e}", self.topic);
                    None
                }
            })
        })
    }
    /// How many samples were skipped because they did not deserialize.
    pub fn malformed_count(&self) -> u64 {
        self.malformed.count()
    }
    /// The resolved topic name.
    pub fn topic(&self) -> &str {
        &self.topic
    }
    /// The DDS reader GUID.
    pub fn guid(&self) -> rustdds::GUID {
        self.inner.guid()
    }
    /// How many publishers are matched.
    pub fn publisher_count(&self) -> usize {
        self.graph.publisher_count(self.guid())
    }
    /// Waits until at least `n` publishers are matched.
    pub async fn wait_for_publishers(&self, n: usize) {
        let g = self.guid();
        self.graph.wait(|gr| gr.publisher_count(g) >= n).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sample_errors_are_skipped_reader_errors_are_not() {
        assert!(is_sample_error(&ReadError::Deserialization {
            reason: "5 bytes".into()
        }));
        assert!(is_sample_error(&ReadError::Malformed));
        assert!(!is_sample_error(&ReadError::Closed));
        assert!(!is_sample_error(&ReadError::Poisoned {
            reason: "lock".into()
        }));
        assert!(!is_sample_error(&ReadError::Internal {
            reason: "bug".into()
        }));
    }

    #[test]
    fn malformed_samples_are_all_counted() {
        let m = MalformedSamples::default();
        for _ in 0..1000 {
            m.record("/t", "short");
        }
        assert_eq!(m.count(), 1000);
    }

    #[test]
    fn endpoints_of_registered_types_announce_their_jazzy_type_hash() {
        let topic_qos = rustdds::QosPolicies::from(crate::qos::default().to_profile());
        let announced = with_type_hash_of(
            <crate::msgs::sensor_msgs::Imu as RosMessage>::TYPE_NAME,
            topic_qos.clone(),
        );
        // sensor_msgs/msg/Imu's hash as the ROS 2 Jazzy rig ships it (share/sensor_msgs/msg/Imu.json).
        assert_eq!(
            announced.user_data(),
            Some(&b"typehash=RIHS01_7d9a00ff131080897a5ec7e26e315954b8eae3353c3f995c55faf71574000b5b;"[..])
        );
        assert_eq!(topic_qos.user_data(), None);
    }

    #[derive(Clone, serde::Serialize, serde::Deserialize)]
    struct Unregistered;
    impl RosMessage for Unregistered {
        const TYPE_NAME: &'static str = "foo_msgs/msg/Unregistered";
    }

    #[test]
    fn service_and_builtin_topic_endpoints_announce_their_jazzy_type_hash() {
        let topic_qos = rustdds::QosPolicies::from(crate::qos::services().to_profile());
        let service = with_type_hash_of("rcl_interfaces/srv/GetParameters", topic_qos.clone());
        // As the rig ships it (share/rcl_interfaces/srv/GetParameters.json).
        assert_eq!(
            service.user_data(),
            Some(&b"typehash=RIHS01_bf9803d5c74cf989a5de3e0c2e99444599a627c7ff75f97b8c05b01003675cbc;"[..])
        );
        let discovery = with_type_hash_of(crate::graph::DISCOVERY_INFO_TYPE, topic_qos);
        assert!(discovery.user_data().is_some());
    }

    #[test]
    fn endpoints_of_other_types_announce_nothing() {
        let topic_qos = rustdds::QosPolicies::from(crate::qos::default().to_profile());
        let announced = with_type_hash_of(Unregistered::TYPE_NAME, topic_qos);
        assert_eq!(announced.user_data(), None);
    }
}
