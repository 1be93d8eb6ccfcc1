//! Holding a service reply until the reply writer has matched the requester's reply reader.
//!
//! Replies go out on a volatile writer, so a reader the writer has not matched yet never
//! gets them. Discovery is not symmetric: a client sees the service as ready (its request
//! writer and reply reader matched ours) and sends at once, while our reply writer may not
//! have processed the client's reply reader yet. `ros2 param`, `ros2 lifecycle` and every
//! rclpy/rclcpp client that calls right after creating itself do exactly that. So each
//! reply waits, up to a bound ([`REPLY_MATCH_WAIT`] unless set), for the reply writer to
//! match a reader of that requester; rmw_cyclonedds_cpp and rmw_fastrtps_cpp wait the same
//! way (100 ms, then they drop the reply; we send it anyway and warn).
//!
//! Which reader belongs to the requester:
//! - rmw_cyclonedds_cpp clients announce `clientid=<id>;` in the USER_DATA of both their
//!   request writer and reply reader: the reader with the request writer's client id;
//! - rmw_fastrtps_cpp clients name their reply reader in the request's
//!   `related_sample_identity`: that reader;
//! - any other client (ros2-client, a bare DDS requester): a reply reader of the requester's
//!   participant (GUID prefix).

use std::collections::BTreeSet;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures::FutureExt;
use rustdds::GUID;

use crate::graph::Graph;
use crate::logging::Throttle;

/// How long a reply waits, by default, for the requester's reply reader to be matched.
pub(crate) const REPLY_MATCH_WAIT: Duration = Duration::from_secs(2);

/// At most one "sent before the reply reader matched" warning per service in this period.
const WARN_PERIOD: Duration = Duration::from_secs(10);

/// A remote endpoint of the service as discovery describes it: its GUID and USER_DATA.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Endpoint {
    pub guid: GUID,
    pub user_data: Vec<u8>,
}

/// The value of `key` in a ROS 2 USER_DATA string (`key=value;key=value;`), if present.
pub(crate) fn user_data_value<'a>(user_data: &'a [u8], key: &str) -> Option<&'a [u8]> {
    user_data
        .split(|&b| b == b';')
        .filter_map(|pair| {
            let eq = pair.iter().position(|&b| b == b'=')?;
            Some((&pair[..eq], &pair[eq + 1..]))
        })
        .find(|(k, _)| *k == key.as_bytes())
        .map(|(_, v)| v)
}

/// The requester's endpoints among the service's discovered ones: (its reply readers, its
/// request writers). `requester` is the GUID a request names (`RmwRequestId::writer_gid`:
/// the request writer, or for rmw_fastrtps the reply reader).
pub(crate) fn requester_endpoints(
    requester: GUID,
    request_writers: &[Endpoint],
    reply_readers: &[Endpoint],
) -> (BTreeSet<GUID>, BTreeSet<GUID>) {
    let same_participant = |e: &&Endpoint| e.guid.prefix == requester.prefix;
    let client_id = request_writers
        .iter()
        .find(|w| w.guid == requester)
        .and_then(|w| user_data_value(&w.user_data, "clientid"));
    if let Some(id) = client_id {
        let readers = reply_readers
            .iter()
            .filter(|r| user_data_value(&r.user_data, "clientid") == Some(id))
            .map(|r| r.guid)
            .collect();
        return (readers, BTreeSet::from([requester]));
    }
    let writers = request_writers
        .iter()
        .filter(same_participant)
        .map(|w| w.guid)
        .collect();
    if reply_readers.iter().any(|r| r.guid == requester) {
        return (BTreeSet::from([requester]), writers);
    }
    let readers = reply_readers
        .iter()
        .filter(same_participant)
        .map(|r| r.guid)
        .collect();
    (readers, writers)
}

/// Decides when a service's reply may go out (see the module documentation).
pub(crate) struct ReplyGate {
    graph: Arc<Graph>,
    participant: rustdds::DomainParticipant,
    request_topic: String,
    reply_topic: String,
    wait: Duration,
    unmatched: Mutex<Throttle>,
}

impl ReplyGate {
    /// The gate of the service named `service` (resolved, e.g. `/talker/get_parameters`).
    pub(crate) fn new(
        graph: Arc<Graph>,
        participant: rustdds::DomainParticipant,
        service: &str,
    ) -> Self {
        ReplyGate {
            graph,
            participant,
            request_topic: format!("rq{service}Request"),
            reply_topic: format!("rr{service}Reply"),
            wait: REPLY_MATCH_WAIT,
            unmatched: Mutex::new(Throttle::new(WARN_PERIOD)),
        }
    }

    /// Sets how long a reply waits for the requester's reply reader.
    pub(crate) fn set_wait(&mut self, wait: Duration) {
        self.wait = wait;
    }

    /// Whether our reply writer has matched a reply reader of `requester` (and our request
    /// reader one of its request writers).
    fn requester_matched(&self, requester: GUID) -> bool {
        let request_writers: Vec<Endpoint> = self
            .participant
            .discovered_writers()
            .into_iter()
            .filter(|w| w.publication_topic_data.topic_name == self.request_topic)
            .map(|w| Endpoint {
                guid: w.writer_proxy.remote_writer_guid,
                user_data: w.user_data,
            })
            .collect();
        let reply_readers: Vec<Endpoint> = self
            .participant
            .discovered_readers()
            .into_iter()
            .filter(|r| r.subscription_topic_data.topic_name == self.reply_topic)
            .map(|r| Endpoint {
                guid: r.reader_proxy.remote_reader_guid,
                user_data: r.user_data,
            })
            .collect();
        let (readers, writers) = requester_endpoints(requester, &request_writers, &reply_readers);
        !readers.is_empty() && self.graph.matched_both(&readers, &writers)
    }

    /// Waits until the reply writer has matched a reply reader of `requester`, at most the
    /// gate's wait; whether it has.
    pub(crate) async fn wait_for(&self, requester: GUID) -> bool {
        if self.requester_matched(requester) {
            return true;
        }
        let matched = self
            .graph
            .wait(|_| self.requester_matched(requester))
            .fuse();
        let timer = async_io::Timer::after(self.wait).fuse();
        futures::pin_mut!(matched, timer);
        futures::select! {
            () = matched => true,
            _ = timer => false,
        }
    }

    /// Warns (throttled) that a reply of `service` went out before its reader matched.
    pub(crate) fn warn_unmatched(&self, service: &str, requester: GUID) {
        let due = self
            .unmatched
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .hit();
        if let Some(count) = due {
            tracing::warn!(
                "service '{service}': no reply reader of requester {:?} matched within {:?}; \
                 sent the reply anyway, it may be lost ({count} sent this way since the last warning)",
                requester.prefix,
                self.wait
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A GUID in participant `participant`: entity `entity` of RTPS kind `kind`.
    fn guid(participant: u8, entity: u8, kind: u8) -> GUID {
        let mut bytes = [participant; 16];
        bytes[12..].copy_from_slice(&[0, 0, entity, kind]);
        GUID::from_bytes(bytes)
    }
    fn writer(participant: u8, entity: u8) -> GUID {
        guid(participant, entity, 0x03) // user-defined writer, no key
    }
    fn reader(participant: u8, entity: u8) -> GUID {
        guid(participant, entity, 0x04) // user-defined reader, no key
    }
    fn ep(guid: GUID, user_data: &str) -> Endpoint {
        Endpoint {
            guid,
            user_data: user_data.as_bytes().to_vec(),
        }
    }

    #[test]
    fn user_data_values_are_found_by_key() {
        let ud = b"typehash=RIHS01_ab;clientid=1.f.3;";
        assert_eq!(user_data_value(ud, "clientid"), Some(&b"1.f.3"[..]));
        assert_eq!(user_data_value(ud, "typehash"), Some(&b"RIHS01_ab"[..]));
        assert_eq!(user_data_value(ud, "serviceid"), None);
        assert_eq!(user_data_value(b"", "clientid"), None);
        assert_eq!(user_data_value(b"clientid", "clientid"), None);
    }

    #[test]
    fn a_cyclone_client_is_paired_by_client_id_not_by_participant() {
        // two rclpy clients of the same service in one participant: ids 1 and 2
        let writers = [
            ep(writer(1, 1), "clientid=1.2.3.1;typehash=RIHS01_x;"),
            ep(writer(1, 3), "clientid=1.2.3.2;"),
        ];
        let readers = [
            ep(reader(1, 2), "clientid=1.2.3.1;"),
            ep(reader(1, 4), "clientid=1.2.3.2;"),
        ];
        let (r, w) = requester_endpoints(writer(1, 3), &writers, &readers);
        assert_eq!(r, BTreeSet::from([reader(1, 4)]));
        assert_eq!(w, BTreeSet::from([writer(1, 3)]));
        // its reader not discovered yet: nothing to wait on but that reader
        let (r, _) = requester_endpoints(writer(1, 3), &writers, &readers[..1]);
        assert!(r.is_empty());
    }

    #[test]
    fn a_fastdds_client_names_its_reply_reader() {
        let writers = [ep(writer(2, 1), "")];
        let readers = [ep(reader(2, 2), ""), ep(reader(2, 4), "")];
        let (r, w) = requester_endpoints(reader(2, 4), &writers, &readers);
        assert_eq!(r, BTreeSet::from([reader(2, 4)]));
        assert_eq!(w, BTreeSet::from([writer(2, 1)]));
    }

    #[test]
    fn other_clients_are_paired_by_participant() {
        let writers = [ep(writer(3, 1), ""), ep(writer(4, 1), "")];
        let readers = [ep(reader(3, 2), ""), ep(reader(4, 2), "")];
        let (r, w) = requester_endpoints(writer(3, 1), &writers, &readers);
        assert_eq!(r, BTreeSet::from([reader(3, 2)]));
        assert_eq!(w, BTreeSet::from([writer(3, 1)]));
        // a requester nothing is known of yet
        let (r, w) = requester_endpoints(writer(5, 1), &writers, &readers);
        assert!(r.is_empty() && w.is_empty());
    }
}
