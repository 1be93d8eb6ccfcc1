//! A client framed like ROS 2 on Fast DDS (Jazzy's default `rmw_fastrtps_cpp`): a bare
//! request carrying `related_sample_identity` = (the client's reply reader GUID, unknown
//! sequence number). rmw_fastrtps accepts a reply only if its `related_sample_identity`
//! names that reader and the request's sequence number, so check exactly that, with plain
//! rustdds endpoints in the test process. Run inside the project's network namespace.

mod common;

use std::time::{Duration, Instant};

use common::{require_netns, Proc};
use ros2_client::rcl_interfaces::{GetParametersRequest, GetParametersResponse};
use rustdds::no_key::{DataWriterCdr, SimpleDataReaderCdr};
use rustdds::policy::{Durability, History, Reliability};
use rustdds::with_key::WriteOptionsBuilder;
use rustdds::{DomainParticipant, QosPolicyBuilder, SampleIdentity, SequenceNumber, TopicKind};

#[test]
fn fastdds_style_request_gets_a_correlated_reply() {
    fieldproof_testkit::contain_or_return!();
    require_netns();
    let _proc = Proc::start(
        "talker",
        99,
        &["--ros-args", "-r", "__node:=fd", "-p", "message:=hi"],
    );
    let dp = DomainParticipant::new(99).expect("participant");
    let qos = QosPolicyBuilder::new()
        .reliability(Reliability::Reliable {
            max_blocking_time: rustdds::Duration::from_millis(100),
        })
        .durability(Durability::Volatile)
        .history(History::KeepLast { depth: 100 })
        .build();
    let rq = dp
        .create_topic(
            "rq/fd/get_parametersRequest".into(),
            "rcl_interfaces::srv::dds_::GetParameters_Request_".into(),
            &qos,
            TopicKind::NoKey,
        )
        .unwrap();
    let rr = dp
        .create_topic(
            "rr/fd/get_parametersReply".into(),
            "rcl_interfaces::srv::dds_::GetParameters_Response_".into(),
            &qos,
            TopicKind::NoKey,
        )
        .unwrap();
    let writer: DataWriterCdr<GetParametersRequest> = dp
        .create_publisher(&qos)
        .unwrap()
        .create_datawriter_no_key(&rq, None)
        .unwrap();
    let reader: SimpleDataReaderCdr<GetParametersResponse> = dp
        .create_subscriber(&qos)
        .unwrap()
        .create_simple_datareader_no_key(&rr, None)
        .unwrap();

    let mut sent = Vec::new();
    let end = Instant::now() + Duration::from_secs(20);
    let mut resend = Instant::now();
    let reply = loop {
        assert!(Instant::now() < end, "no reply; sent {sent:?}");
        if Instant::now() >= resend {
            // requests sent before discovery matched are lost: resend
            let opts = WriteOptionsBuilder::new()
                .related_sample_identity(SampleIdentity {
                    writer_guid: reader.guid(),
                    sequence_number: SequenceNumber::UNKNOWN,
                })
                .build();
            let id = writer
                .write_with_options(
                    GetParametersRequest {
                        names: vec!["message".into()],
                    },
                    opts,
                )
                .expect("write");
            sent.push(id.sequence_number);
            resend = Instant::now() + Duration::from_millis(500);
        }
        match reader.try_take_one() {
            Ok(Some(r)) => break r,
            Ok(None) => std::thread::sleep(Duration::from_millis(20)),
            Err(e) => panic!("reading the reply: {e:?}"),
        }
    };
    let rsi = reply
        .related_sample_identity()
        .expect("reply without related_sample_identity");
    assert_eq!(
        rsi.writer_guid,
        reader.guid(),
        "reply not addressed to our reader"
    );
    assert!(
        sent.contains(&rsi.sequence_number),
        "{rsi:?} vs sent {sent:?}"
    );
    let values = reply.into_value().values;
    assert_eq!(values.len(), 1);
    assert_eq!(values[0].string_value, "hi");
}
