//! Typed service servers and clients (the request/reply mappings are in `rpc`; a reply
//! waits for the requester's reply reader in `reply_gate`).

mod reply_gate;

use std::collections::BTreeSet;
use std::sync::Arc;
use std::time::Duration;

use futures::stream::FuturesUnordered;
use futures::StreamExt;
use ros2_client::RmwRequestId;
use serde::{de::DeserializeOwned, Deserialize, Serialize};

use crate::graph::Graph;
use crate::node::NodeError;
use crate::rpc::{self, RawBody};
use reply_gate::ReplyGate;

/// At most this many replies of one server wait for their requester's reply reader; the
/// ones beyond go out at once (a flood of requests costs no unbounded re-checking).
const MAX_WAITING_REPLIES: usize = 64;

/// Serde-transparent wrapper giving any serde type ros2-client's `Message` marker.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(transparent)]
pub(crate) struct Wire<T>(pub T);
impl<T: Serialize + DeserializeOwned> ros2_client::Message for Wire<T> {}

/// A typed service server. It answers requests in both ROS 2 request/reply mappings
/// (Fast DDS's and rmw_cyclonedds'), see the `rpc` module. Each reply waits (up to
/// 2 s by default, without holding up other requests) until the reply writer has
/// matched the requester's reply reader, so a client that calls right after it was created
/// gets its answer.
pub struct Server<Req, Resp>
where
    Req: Serialize + DeserializeOwned + Clone + Send + 'static,
    Resp: Serialize + DeserializeOwned + Send + 'static,
{
    inner: ros2_client::Server<RawBody, RawBody>,
    name: String,
    prefer_cyclone: bool,
    gate: ReplyGate,
    _types: std::marker::PhantomData<fn(Req) -> Resp>,
}

impl<Req, Resp> Server<Req, Resp>
where
    Req: Serialize + DeserializeOwned + Clone + Send + 'static,
    Resp: Serialize + DeserializeOwned + Send + 'static,
{
    /// A server on `inner`, named `name` (resolved); `graph` and `participant` are its
    /// node's, to see which requesters' reply readers are matched.
    pub(crate) fn new(
        inner: ros2_client::Server<RawBody, RawBody>,
        name: String,
        prefer_cyclone: bool,
        graph: Arc<Graph>,
        participant: rustdds::DomainParticipant,
    ) -> Self {
        Server {
            inner,
            gate: ReplyGate::new(graph, participant, &name),
            name,
            prefer_cyclone,
            _types: std::marker::PhantomData,
        }
    }

    /// Sets how long a reply waits for the requester's reply reader to be matched before it
    /// is sent anyway (default 2 s).
    pub fn with_reply_match_wait(mut self, wait: Duration) -> Self {
        self.gate.set_wait(wait);
        self
    }

    /// Answers requests with `handler` until the future is dropped. `handler` runs as each
    /// request arrives, in order; its reply goes out once the requester's reply reader is
    /// matched (or the wait is over), while later requests are handled meanwhile.
    pub async fn serve(&self, mut handler: impl FnMut(Req) -> Resp) {
        let requests = self.inner.receive_request_stream();
        futures::pin_mut!(requests);
        let mut replies = FuturesUnordered::new();
        loop {
            futures::select! {
                r = requests.next() => match r {
                    Some(r) => {
                        if let Some((id, reply)) = self.answer(r, &mut handler) {
                            let wait = replies.len() < MAX_WAITING_REPLIES;
                            replies.push(self.send_when_matched(id, reply, wait));
                        }
                    }
                    None => break,
                },
                () = replies.select_next_some() => {}
            }
        }
        while replies.next().await.is_some() {}
    }

    /// Decodes a request, runs `handler` and encodes its reply; `None` (logged) when the
    /// request cannot be read or the reply cannot be encoded.
    fn answer(
        &self,
        request: ros2_client::ReadResult<(RmwRequestId, RawBody)>,
        handler: &mut impl FnMut(Req) -> Resp,
    ) -> Option<(RmwRequestId, RawBody)> {
        let (id, raw) = request
            .map_err(|e| tracing::warn!("service '{}': bad request: {e:?}", self.name))
            .ok()?;
        let (framing, req) = rpc::decode_request::<Req>(&raw.0, self.prefer_cyclone)
            .map_err(|e| tracing::warn!("service '{}': undecodable request: {e}", self.name))
            .ok()?;
        let reply = rpc::encode_reply(framing, &handler(req))
            .map_err(|e| tracing::warn!("service '{}': encoding the reply: {e}", self.name))
            .ok()?;
        Some((id, reply))
    }

    /// Sends `reply` once the requester's reply reader is matched, or after the wait
    /// (warning, throttled, that it may be lost); at once if not to `wait`.
    async fn send_when_matched(&self, id: RmwRequestId, reply: RawBody, wait: bool) {
        let requester = rustdds::GUID::from(id.writer_gid);
        if wait && !self.gate.wait_for(requester).await {
            self.gate.warn_unmatched(&self.name, requester);
        }
        if let Err(e) = self.inner.async_send_response(id, reply).await {
            tracing::warn!("service '{}': sending response: {e:?}", self.name);
        }
    }

    /// The resolved service name.
    pub fn name(&self) -> &str {
        &self.name
    }
}

/// A typed service client.
pub struct Client<Req, Resp>
where
    Req: Serialize + DeserializeOwned + Clone + Send + 'static,
    Resp: Serialize + DeserializeOwned + Send + 'static,
{
    pub(crate) inner: ros2_client::Client<Wire<Req>, Wire<Resp>>,
    pub(crate) name: String,
    pub(crate) graph: Arc<Graph>,
    pub(crate) participant: rustdds::DomainParticipant,
}

impl<Req, Resp> Client<Req, Resp>
where
    Req: Serialize + DeserializeOwned + Clone + Send + 'static,
    Resp: Serialize + DeserializeOwned + Send + 'static,
{
    /// Sends a request and waits for its response (no timeout: race it with a timer).
    pub async fn call(&self, req: Req) -> Result<Resp, NodeError> {
        let err = |reason: String| NodeError::Call {
            service: self.name.clone(),
            reason,
        };
        let id = self
            .inner
            .async_send_request(Wire(req))
            .await
            .map_err(|e| err(format!("{e:?}")))?;
        let Wire(resp) = self
            .inner
            .async_receive_response(id)
            .await
            .map_err(|e| err(format!("{e:?}")))?;
        Ok(resp)
    }
    /// Whether a server is matched: this participant has a writer matched with a reader
    /// of the service's request topic and a reader matched with a writer of its reply
    /// topic (what `rmw_service_server_is_available` checks).
    pub fn service_is_ready(&self) -> bool {
        let rq = format!("rq{}Request", self.name);
        let rr = format!("rr{}Reply", self.name);
        let readers: BTreeSet<rustdds::GUID> = self
            .participant
            .discovered_readers()
            .into_iter()
            .filter(|r| r.subscription_topic_data.topic_name == rq)
            .map(|r| r.reader_proxy.remote_reader_guid)
            .collect();
        let writers: BTreeSet<rustdds::GUID> = self
            .participant
            .discovered_writers()
            .into_iter()
            .filter(|w| w.publication_topic_data.topic_name == rr)
            .map(|w| w.writer_proxy.remote_writer_guid)
            .collect();
        self.graph.matched_both(&readers, &writers)
    }

    /// Waits until [`Self::service_is_ready`] (no timeout: race it with a timer).
    pub async fn wait_for_service(&self) {
        self.graph.wait(|_| self.service_is_ready()).await
    }

    /// Calls, waiting `each` for the response and resending up to `tries` times: a
    /// request sent before discovery matched the service is lost (volatile QoS). The
    /// service may see the request more than once, so use it for idempotent requests.
    pub async fn call_retry(
        &self,
        req: Req,
        each: Duration,
        tries: usize,
    ) -> Result<Resp, NodeError> {
        for _ in 0..tries {
            let call = futures::FutureExt::fuse(self.call(req.clone()));
            let timer = futures::FutureExt::fuse(async_io::Timer::after(each));
            futures::pin_mut!(call, timer);
            futures::select! {
                r = call => return r,
                _ = timer => {}
            }
        }
        Err(NodeError::Call {
            service: self.name.clone(),
            reason: format!("no response after {tries} tries of {each:?}"),
        })
    }
    /// The resolved service name.
    pub fn name(&self) -> &str {
        &self.name
    }
}
