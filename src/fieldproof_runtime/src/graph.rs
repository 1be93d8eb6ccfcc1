//! The ROS graph as this node sees it: which local publishers/subscriptions are matched
//! with remote ones (from rustdds' participant status events), and which ROS nodes exist
//! (from `ros_discovery_info`, dropped when their participant leaves).
//!
//! This replaces ros2-client's `Spinner`, which the runtime does not run.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Mutex;

use event_listener::Event;
use futures::{FutureExt, StreamExt};
use ros2_client::entities_info::ParticipantEntitiesInfo;
use rustdds::dds::statusevents::DomainParticipantStatusEvent as Ev;
use rustdds::no_key::SimpleDataReader;
use rustdds::policy::{Durability, History, Reliability};
use rustdds::CDRDeserializerAdapter;
use rustdds::{QosPolicyBuilder, StatusEvented, TopicKind, GUID};

/// The ROS type of `ros_discovery_info`, whose hash its endpoints announce.
pub(crate) const DISCOVERY_INFO_TYPE: &str = "rmw_dds_common/msg/ParticipantEntitiesInfo";

/// A ROS node seen in the graph.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct NodeInfo {
    /// Namespace (`/` or `/a/b`).
    pub namespace: String,
    /// Node name.
    pub name: String,
}

impl NodeInfo {
    /// `/ns/name`.
    pub fn fully_qualified_name(&self) -> String {
        crate::names::fully_qualified(&self.namespace, &self.name)
    }
}

#[derive(Default)]
struct State {
    writer_readers: BTreeMap<GUID, BTreeSet<GUID>>,
    reader_writers: BTreeMap<GUID, BTreeSet<GUID>>,
    /// by participant GUID
    nodes: BTreeMap<GUID, Vec<NodeInfo>>,
}

/// Shared graph state, updated by the runtime's graph task.
#[derive(Default)]
pub(crate) struct Graph {
    state: Mutex<State>,
    changed: Event,
}

type DiscoveryReader =
    SimpleDataReader<ParticipantEntitiesInfo, CDRDeserializerAdapter<ParticipantEntitiesInfo>>;

impl Graph {
    pub(crate) fn subscription_count(&self, writer: GUID) -> usize {
        let s = self.state.lock().unwrap();
        s.writer_readers.get(&writer).map_or(0, |r| r.len())
    }

    pub(crate) fn publisher_count(&self, reader: GUID) -> usize {
        let s = self.state.lock().unwrap();
        s.reader_writers.get(&reader).map_or(0, |w| w.len())
    }

    /// Whether some local writer is matched with one of `remote_readers` and some local
    /// reader with one of `remote_writers`.
    pub(crate) fn matched_both(
        &self,
        remote_readers: &BTreeSet<GUID>,
        remote_writers: &BTreeSet<GUID>,
    ) -> bool {
        let s = self.state.lock().unwrap();
        s.writer_readers
            .values()
            .any(|r| !r.is_disjoint(remote_readers))
            && s.reader_writers
                .values()
                .any(|w| !w.is_disjoint(remote_writers))
    }

    pub(crate) fn nodes(&self) -> Vec<NodeInfo> {
        let s = self.state.lock().unwrap();
        let mut v: Vec<NodeInfo> = s.nodes.values().flatten().cloned().collect();
        v.sort();
        v.dedup();
        v
    }

    pub(crate) fn nodes_by_participant(&self) -> Vec<Vec<NodeInfo>> {
        let s = self.state.lock().unwrap();
        s.nodes
            .values()
            .filter(|nodes| !nodes.is_empty())
            .map(|nodes| {
                let mut v = nodes.clone();
                v.sort();
                v
            })
            .collect()
    }

    /// Waits until `cond` holds on the graph.
    pub(crate) async fn wait(&self, cond: impl Fn(&Graph) -> bool) {
        loop {
            let l = self.changed.listen();
            if cond(self) {
                return;
            }
            l.await;
        }
    }

    fn apply(&self, ev: Ev) {
        let mut s = self.state.lock().unwrap();
        match ev {
            Ev::RemoteReaderMatched {
                local_writer,
                remote_reader,
            } => {
                s.writer_readers
                    .entry(local_writer)
                    .or_default()
                    .insert(remote_reader);
            }
            Ev::RemoteWriterMatched {
                local_reader,
                remote_writer,
            } => {
                s.reader_writers
                    .entry(local_reader)
                    .or_default()
                    .insert(remote_writer);
            }
            Ev::ReaderLost { guid, .. } => {
                s.writer_readers.values_mut().for_each(|r| {
                    r.remove(&guid);
                });
            }
            Ev::WriterLost { guid, .. } => {
                s.reader_writers.values_mut().for_each(|w| {
                    w.remove(&guid);
                });
            }
            Ev::ParticipantLost { id, .. } => {
                s.nodes.retain(|g, _| g.prefix != id);
                s.writer_readers.values_mut().for_each(|r| {
                    r.retain(|g| g.prefix != id);
                });
                s.reader_writers.values_mut().for_each(|w| {
                    w.retain(|g| g.prefix != id);
                });
            }
            _ => {} // discovery of remote endpoints: waiters re-check
        }
        drop(s);
        self.changed.notify(usize::MAX);
    }

    fn apply_discovery(&self, info: ParticipantEntitiesInfo) {
        let participant = GUID::from(info.gid());
        let nodes = info
            .nodes()
            .iter()
            .map(|n| NodeInfo {
                namespace: n.namespace().to_string(),
                name: n.name().to_string(),
            })
            .collect();
        self.state.lock().unwrap().nodes.insert(participant, nodes);
        self.changed.notify(usize::MAX);
    }

    /// Creates the `ros_discovery_info` reader (transient local, so existing participants
    /// are seen at once), announcing its type's hash.
    pub(crate) fn discovery_reader(
        dp: &rustdds::DomainParticipant,
    ) -> Result<DiscoveryReader, rustdds::dds::CreateError> {
        let qos = QosPolicyBuilder::new()
            .durability(Durability::TransientLocal)
            .reliability(Reliability::Reliable {
                max_blocking_time: rustdds::Duration::ZERO,
            })
            .history(History::KeepLast { depth: 100 })
            .build();
        let qos = crate::pubsub::with_type_hash_of(DISCOVERY_INFO_TYPE, qos);
        let topic = dp.create_topic(
            ros2_client::builtin_topics::ros_discovery::TOPIC_NAME.to_string(),
            ros2_client::builtin_topics::ros_discovery::TYPE_NAME.to_string(),
            &qos,
            TopicKind::NoKey,
        )?;
        dp.create_subscriber(&qos)?
            .create_simple_datareader_no_key(&topic, Some(qos))
    }

    /// Runs until dropped: feeds status events and `ros_discovery_info` into the graph.
    pub(crate) async fn follow(
        &self,
        listener: rustdds::DomainParticipantStatusListener,
        reader: DiscoveryReader,
    ) {
        let status = listener.as_async_status_stream();
        futures::pin_mut!(status);
        let disc = reader.as_async_stream();
        futures::pin_mut!(disc);
        loop {
            futures::select! {
                ev = status.select_next_some() => self.apply(ev),
                d = disc.select_next_some() => match d {
                    Ok(dcc) => self.apply_discovery(dcc.into_value()),
                    Err(e) => tracing::debug!("ros_discovery_info: {e:?}"),
                },
                complete => break,
            }
        }
        // never resolves normally; keep the type simple
        std::future::pending::<()>().fuse().await
    }
}
