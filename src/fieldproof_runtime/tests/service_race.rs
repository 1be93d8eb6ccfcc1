//! A service reply waits for the requester's reply reader (issue 21): a client may send as
//! soon as it sees the service, before our reply writer has matched its reply reader, and a
//! reply written then is lost (volatile QoS), so `ros2 param`, `ros2 lifecycle` and rclpy
//! clients calling right after their creation got no answer.
//!
//! The requesters here are bare rustdds participants in the test process (no retries, no
//! ROS client library), the server an in-process node. Run inside the project's network
//! namespace.

mod common;

use std::collections::BTreeSet;
use std::sync::mpsc;
use std::time::{Duration, Instant};

use common::require_netns;
use fieldproof_runtime::Node;
use futures::FutureExt;
use ros2_client::rcl_interfaces::{GetParametersRequest, GetParametersResponse};
use rustdds::dds::statusevents::DomainParticipantStatusEvent as Ev;
use rustdds::no_key::{DataWriterCdr, SimpleDataReaderCdr};
use rustdds::policy::{Durability, History, Reliability};
use rustdds::{
    DomainParticipant, QosPolicies, QosPolicyBuilder, RTPSEntity, SampleIdentity, SequenceNumber,
    StatusEvented, Topic, TopicKind, GUID,
};
use serde::{de::DeserializeOwned, Deserialize, Serialize};

/// A wait that only a broken run reaches.
const LONG: Duration = Duration::from_secs(30);

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct Ping {
    n: i64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct Pong {
    n: i64,
}

const PING_TYPE: &str = "fieldproof_test/srv/Ping";

fn service_qos() -> QosPolicies {
    QosPolicyBuilder::new()
        .reliability(Reliability::Reliable {
            max_blocking_time: rustdds::Duration::from_millis(100),
        })
        .durability(Durability::Volatile)
        .history(History::KeepLast { depth: 100 })
        .build()
}

/// A bare DDS requester of one service: its request writer, and its reply reader once
/// opened. It tracks its own matches from its participant's status events.
struct Requester<Req: Serialize, Resp: DeserializeOwned + 'static> {
    dp: DomainParticipant,
    status: rustdds::DomainParticipantStatusListener,
    matched: BTreeSet<GUID>,
    writer: DataWriterCdr<Req>,
    reply_topic: Topic,
    reader: Option<SimpleDataReaderCdr<Resp>>,
}

impl<Req: Serialize, Resp: DeserializeOwned + 'static> Requester<Req, Resp> {
    /// A requester of `service` (`/node/name`, DDS types `pkg::srv::dds_::Type_*_`) with a
    /// request writer only.
    fn new(domain: u16, service: &str, pkg: &str, ty: &str) -> Self {
        let dp = DomainParticipant::new(domain).expect("participant");
        let status = dp.status_listener();
        let qos = service_qos();
        let rq = dp
            .create_topic(
                format!("rq{service}Request"),
                format!("{pkg}::srv::dds_::{ty}_Request_"),
                &qos,
                TopicKind::NoKey,
            )
            .expect("request topic");
        let reply_topic = dp
            .create_topic(
                format!("rr{service}Reply"),
                format!("{pkg}::srv::dds_::{ty}_Response_"),
                &qos,
                TopicKind::NoKey,
            )
            .expect("reply topic");
        let writer = dp
            .create_publisher(&qos)
            .expect("publisher")
            .create_datawriter_no_key(&rq, None)
            .expect("request writer");
        Requester {
            dp,
            status,
            matched: BTreeSet::new(),
            writer,
            reply_topic,
            reader: None,
        }
    }

    /// Creates the reply reader.
    fn open_reply_reader(&mut self) {
        let reader = self
            .dp
            .create_subscriber(&service_qos())
            .expect("subscriber")
            .create_simple_datareader_no_key(&self.reply_topic, None)
            .expect("reply reader");
        self.reader = Some(reader);
    }

    /// Waits until the request writer (and the reply reader, if open) is matched with the
    /// service: what a ROS client checks before it calls (`service_is_ready`).
    fn wait_until_service_seen(&mut self) {
        let end = Instant::now() + LONG;
        loop {
            while let Some(ev) = self.status.try_recv_status() {
                match ev {
                    Ev::RemoteReaderMatched { local_writer, .. } => {
                        self.matched.insert(local_writer);
                    }
                    Ev::RemoteWriterMatched { local_reader, .. } => {
                        self.matched.insert(local_reader);
                    }
                    _ => {}
                }
            }
            let writer_seen = self.matched.contains(&self.writer.guid());
            let reader_seen = self
                .reader
                .as_ref()
                .is_none_or(|r| self.matched.contains(&r.guid()));
            if writer_seen && reader_seen {
                return;
            }
            assert!(Instant::now() < end, "the service was never matched");
            std::thread::sleep(Duration::from_millis(5));
        }
    }

    /// Writes one request (no retry); its sequence number.
    fn send(&self, req: Req) -> SequenceNumber {
        self.writer
            .write_with_options(req, rustdds::with_key::WriteOptionsBuilder::new().build())
            .map_err(|e| e.forget_data())
            .expect("write request")
            .sequence_number
    }

    /// The next reply (with its `related_sample_identity`), or `None` after `within`.
    fn next_reply(&self, within: Duration) -> Option<(Resp, Option<SampleIdentity>)> {
        let reader = self.reader.as_ref().expect("reply reader open");
        let end = Instant::now() + within;
        while Instant::now() < end {
            match reader.try_take_one() {
                Ok(Some(r)) => {
                    let rsi = r.related_sample_identity();
                    return Some((r.into_value(), rsi));
                }
                Ok(None) => std::thread::sleep(Duration::from_millis(5)),
                Err(e) => panic!("reading a reply: {e:?}"),
            }
        }
        None
    }
}

type PingRequester = Requester<Ping, Pong>;

fn ping_requester(domain: u16) -> PingRequester {
    Requester::new(domain, "/race_server/ping", "fieldproof_test", "Ping")
}

/// Runs node `/race_server` on `domain` serving `~/ping` (each request's `n` goes to the
/// test as it is handled, the reply echoes it; replies wait up to `reply_wait` for the
/// requester's reader) while `test` runs on its own thread with the handled `n`s.
fn with_ping_server(
    domain: u16,
    reply_wait: Duration,
    test: impl FnOnce(mpsc::Receiver<i64>) + Send + 'static,
) {
    require_netns();
    let (handled_tx, handled_rx) = mpsc::channel();
    let (done_tx, done_rx) = async_channel::bounded::<()>(1);
    // the test waits for the service itself, so it may start before the node
    let test_thread = std::thread::spawn(move || {
        test(handled_rx);
        let _ = done_tx.send_blocking(());
    });
    fieldproof_runtime::run_on_domain("race_server", domain, |node: Node| async move {
        let server = node
            .server::<Ping, Pong>("~/ping", PING_TYPE)?
            .with_reply_match_wait(reply_wait);
        let serve = server
            .serve(move |req: Ping| {
                let _ = handled_tx.send(req.n);
                Pong { n: req.n }
            })
            .fuse();
        futures::pin_mut!(serve);
        // until the test is over (or its thread panicked: the channel closes)
        futures::select! {
            () = serve => {}
            _ = done_rx.recv().fuse() => {}
        }
        Ok(())
    })
    .expect("peer run");
    if let Err(panic) = test_thread.join() {
        std::panic::resume_unwind(panic);
    }
}

/// The race made certain: the request is handled before the requester's reply reader even
/// exists. The reply must wait for that reader and reach it, once.
#[test]
fn a_reply_waits_for_a_reply_reader_created_after_the_request() {
    fieldproof_testkit::contain_or_return!();
    with_ping_server(150, Duration::from_secs(60), |handled| {
        let mut rq = ping_requester(150);
        rq.wait_until_service_seen();
        let sn = rq.send(Ping { n: 1 });
        assert_eq!(handled.recv_timeout(LONG), Ok(1), "request 1 not handled");
        // the server has answered request 1 by now, if it answers without waiting
        rq.open_reply_reader();
        let (reply, rsi) = rq
            .next_reply(LONG)
            .expect("the reply to request 1 was sent before our reply reader was matched: lost");
        assert_eq!(reply, Pong { n: 1 });
        let rsi = rsi.expect("reply without related_sample_identity");
        assert_eq!(
            (rsi.writer_guid, rsi.sequence_number),
            (rq.writer.guid(), sn)
        );
        // exactly once: the next reply is the next request's (same writer, reliable, in order)
        rq.send(Ping { n: 2 });
        assert_eq!(handled.recv_timeout(LONG), Ok(2), "request 2 not handled");
        let (reply, _) = rq.next_reply(LONG).expect("no reply to request 2");
        assert_eq!(reply, Pong { n: 2 }, "request 1 answered twice?");
    });
}

/// A requester whose reply reader never appears: its reply waits the bound, then goes out
/// once (a monitor reading every reply of the service sees it once), and other requesters
/// are answered meanwhile.
#[test]
fn an_unmatched_requester_is_answered_once_after_the_wait_without_holding_up_others() {
    fieldproof_testkit::contain_or_return!();
    let wait = Duration::from_secs(5);
    with_ping_server(151, wait, move |handled| {
        // the monitor: a full requester; its reader gets every reply written on the topic
        let mut monitor = ping_requester(151);
        monitor.open_reply_reader();
        monitor.wait_until_service_seen();
        monitor.send(Ping { n: 0 });
        assert_eq!(handled.recv_timeout(LONG), Ok(0));
        let (reply, _) = monitor.next_reply(LONG).expect("no reply to the monitor");
        assert_eq!(reply, Pong { n: 0 });

        let mut mute = ping_requester(151); // never opens a reply reader
        mute.wait_until_service_seen();
        let sent_mute = Instant::now();
        mute.send(Ping { n: 100 });
        assert_eq!(handled.recv_timeout(LONG), Ok(100));

        // while the mute requester's reply waits, the monitor's request is answered
        monitor.send(Ping { n: 1 });
        assert_eq!(handled.recv_timeout(LONG), Ok(1));
        let (reply, _) = monitor.next_reply(LONG).expect("no reply to the monitor");
        assert_eq!(
            reply,
            Pong { n: 1 },
            "the monitor's reply came after the mute requester's"
        );

        // the mute requester's reply goes out after the wait, once
        let (reply, rsi) = monitor
            .next_reply(LONG)
            .expect("the mute requester's request was never answered");
        assert_eq!(reply, Pong { n: 100 });
        assert_eq!(
            rsi.map(|r| r.writer_guid),
            Some(mute.writer.guid()),
            "the reply is addressed to the mute requester"
        );
        assert!(sent_mute.elapsed() >= wait, "sent before the wait was over");
        monitor.send(Ping { n: 2 });
        assert_eq!(handled.recv_timeout(LONG), Ok(2));
        let (reply, _) = monitor.next_reply(LONG).expect("no reply to the monitor");
        assert_eq!(
            reply,
            Pong { n: 2 },
            "the mute requester was answered twice"
        );
    });
}

/// Fresh requesters, each calling `get_parameters` once, as soon as it sees the service
/// (what `ros2 param get` and an rclpy client do): every one is answered. A guard, not the
/// proof: rustdds requesters seldom lose this race (20 of 20 answered without the wait too);
/// real `ros2 param get` clients did (`test/test_service_race.py`).
#[test]
fn fresh_requesters_calling_at_once_are_all_answered() {
    fieldproof_testkit::contain_or_return!();
    const CALLS: usize = 20;
    with_ping_server(152, Duration::from_secs(2), |_| {
        let mut answered = 0;
        for i in 0..CALLS {
            let mut rq: Requester<GetParametersRequest, GetParametersResponse> = Requester::new(
                152,
                "/race_server/get_parameters",
                "rcl_interfaces",
                "GetParameters",
            );
            rq.open_reply_reader();
            rq.wait_until_service_seen();
            let sn = rq.send(GetParametersRequest {
                names: vec!["use_sim_time".into()],
            });
            match rq.next_reply(Duration::from_secs(10)) {
                Some((reply, rsi)) => {
                    assert_eq!(rsi.map(|r| r.sequence_number), Some(sn), "call {i}");
                    assert_eq!(reply.values.len(), 1, "call {i}: {reply:?}");
                    answered += 1;
                }
                None => eprintln!("call {i}: no reply"),
            }
        }
        eprintln!("fresh requesters answered: {answered} of {CALLS}");
        assert_eq!(answered, CALLS, "immediate calls lost their replies");
    });
}
