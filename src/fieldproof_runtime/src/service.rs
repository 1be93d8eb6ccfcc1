//! Typed service servers and clients (the request/reply mappings are in `rpc`).

use std::collections::BTreeSet;
use std::sync::Arc;
use std::time::Duration;

use futures::StreamExt;
use serde::{de::DeserializeOwned, Deserialize, Serialize};

use crate::graph::Graph;
use crate::node::NodeError;
use crate::rpc::{self, RawBody};

/// Serde-transparent wrapper giving any serde type ros2-client's `Message` marker.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(transparent)]
pub(crate) struct Wire<T>(pub T);
impl<T: Serialize + DeserializeOwned> ros2_client::Message for Wire<T> {}

/// A typed service server. It answers requests in both ROS 2 request/reply mappings
/// (Fast DDS's and rmw_cyclonedds'), see the `rpc` module.
pub struct Server<Req, Resp>
where
    Req: Serialize + DeserializeOwned + Clone + Send + 'static,
    Resp: Serialize + DeserializeOwned + Send + 'static,
{
    pub(crate) inner: ros2_client::Server<RawBody, RawBody>,
    pub(crate) name: String,
    pub(crate) prefer_cyclone: bool,
    pub(crate) _types: std::marker::PhantomData<fn(Req) -> Resp>,
}

impl<Req, Resp> Server<Req, Resp>
where
    Req: Serialize + DeserializeOwned + Clone + Send + 'static,
    Resp: Serialize + DeserializeOwned + Send + 'static,
{
    /// Answers requests with `handler` until the future is dropped.
    pub async fn serve(&self, mut handler: impl FnMut(Req) -> Resp) {
        let stream = self.inner.receive_request_stream();
        futures::pin_mut!(stream);
        while let Some(r) = stream.next().await {
            let (id, raw) = match r {
                Ok(x) => x,
                Err(e) => {
                    tracing::warn!("service '{}': bad request: {e:?}", self.name);
                    continue;
                }
            };
            let (framing, req) = match rpc::decode_request::<Req>(&raw.0, self.prefer_cyclone) {
                Ok(x) => x,
                Err(e) => {
                    tracing::warn!("service '{}': undecodable request: {e}", self.name);
                    continue;
                }
            };
            let reply = match rpc::encode_reply(framing, &handler(req)) {
                Ok(r) => r,
                Err(e) => {
                    tracing::warn!("service '{}': encoding the reply: {e}", self.name);
                    continue;
                }
            };
            if let Err(e) = self.inner.async_send_response(id, reply).await {
                tracing::warn!("service '{}': sending response: {e:?}", self.name);
            }
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
