//! The DDS participant a process's nodes share: the ros2-client context, the ROS graph
//! it discovers, and the one task that follows it.
//!
//! rclcpp gives a process one participant however many nodes it holds (a component
//! container's nodes share it); so does this runtime: [`crate::run`] opens one for its node,
//! [`crate::container::run`] one for all of its nodes. Its nodes share one `/clock`
//! subscription ([`crate::clock::SimTime`]).

use std::sync::{Arc, Mutex};

use crate::clock::SimTime;
use crate::env::DdsEnv;
use crate::graph::Graph;
use crate::node::NodeError;

/// What the graph follower reads: the participant's status events and `ros_discovery_info`.
pub(crate) type GraphSource = (
    rustdds::DomainParticipantStatusListener,
    rustdds::no_key::SimpleDataReader<
        ros2_client::entities_info::ParticipantEntitiesInfo,
        rustdds::CDRDeserializerAdapter<ros2_client::entities_info::ParticipantEntitiesInfo>,
    >,
);

/// One DDS participant and the ROS graph it sees, shared by the nodes created in it
/// ([`crate::Node`]s of one process).
pub struct Participant {
    context: ros2_client::Context,
    graph: Arc<Graph>,
    /// The simulation time its nodes' clocks read, fed by one `/clock` subscription.
    sim_time: Arc<SimTime>,
    /// Taken by [`Self::follow_graph`]: rustdds gives a participant one status channel.
    graph_source: Mutex<Option<GraphSource>>,
}

impl std::fmt::Debug for Participant {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Participant")
            .field("domain_id", &self.context.domain_id())
            .finish()
    }
}

impl Participant {
    /// Opens a participant as `dds` says (domain, interfaces, discovery range), listening to
    /// its status and to `ros_discovery_info` before any entity exists, so no match is missed.
    pub fn open(dds: &DdsEnv) -> Result<Arc<Participant>, NodeError> {
        let context = dds.context().map_err(|e| NodeError::Create {
            what: "participant",
            name: format!("domain {}", dds.domain_id),
            reason: e.to_string(),
        })?;
        let dp = context.domain_participant();
        let listener = dp.status_listener();
        let discovery = Graph::discovery_reader(&dp).map_err(|e| NodeError::Create {
            what: "subscription",
            name: "ros_discovery_info".into(),
            reason: e.to_string(),
        })?;
        Ok(Arc::new(Participant {
            context,
            graph: Arc::new(Graph::default()),
            sim_time: SimTime::new(),
            graph_source: Mutex::new(Some((listener, discovery))),
        }))
    }

    /// The ros2-client context (one per participant).
    pub fn context(&self) -> &ros2_client::Context {
        &self.context
    }

    /// The DDS domain id.
    pub fn domain_id(&self) -> u16 {
        self.context.domain_id()
    }

    pub(crate) fn graph(&self) -> Arc<Graph> {
        self.graph.clone()
    }

    /// The simulation time shared by its nodes' clocks.
    pub(crate) fn sim_time(&self) -> Arc<SimTime> {
        self.sim_time.clone()
    }

    /// Feeds discovery into the graph until dropped. Only the first call follows; a second
    /// one (the participant is already followed) waits forever.
    pub(crate) async fn follow_graph(self: Arc<Self>) {
        let source = self.graph_source.lock().unwrap().take();
        match source {
            Some((listener, reader)) => self.graph.follow(listener, reader).await,
            None => std::future::pending().await,
        }
    }
}
