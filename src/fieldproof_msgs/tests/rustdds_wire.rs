//! `cdr::to_bytes` is exactly the serialized payload a ros2-client publisher sends (its writers
//! are `DataWriterCdr<M>` = rustdds `CDRSerializerAdapter<M, LittleEndian>` plus the
//! `SerializedPayload` header), and `cdr::from_bytes` decodes what rustdds' reader decodes.

mod support;

use byteorder::LittleEndian;
use fieldproof_msgs::{cdr, dispatch, MessageKind};
use rustdds::{
    bytes::Bytes,
    no_key::{DeserializerAdapter, SerializerAdapter},
    CDRDeserializerAdapter, CDRSerializerAdapter, RepresentationIdentifier, SerializedPayload,
};
use support::{samples_of, seed_for, SampleType};

fn check_type<T: SampleType>(kind: MessageKind) -> usize {
    let samples = samples_of::<T>(seed_for(kind, 7));
    for value in &samples {
        type Ser<T> = CDRSerializerAdapter<T, LittleEndian>;
        assert_eq!(
            <Ser<T> as SerializerAdapter<T>>::output_encoding(),
            RepresentationIdentifier::CDR_LE
        );
        let body = <Ser<T> as SerializerAdapter<T>>::to_bytes(value).unwrap();
        let wire = Bytes::from(SerializedPayload::new_from_bytes(
            <Ser<T> as SerializerAdapter<T>>::output_encoding(),
            body,
        ));
        let ours = cdr::to_bytes(value).unwrap();
        assert_eq!(&wire[..], &ours[..], "{kind}: {value:?}");

        let payload = SerializedPayload::from_bytes(&Bytes::from(ours.clone())).unwrap();
        let decoded: T = CDRDeserializerAdapter::<T>::from_bytes(
            &payload.value,
            payload.representation_identifier,
        )
        .unwrap();
        assert_eq!(&decoded, value, "{kind}");
        assert_eq!(&cdr::from_bytes::<T>(&wire).unwrap(), value, "{kind}");
    }
    samples.len()
}

#[test]
fn cdr_to_bytes_is_the_ros2_client_wire_payload_for_every_type() {
    let mut checked = 0;
    for &kind in MessageKind::ALL {
        checked += dispatch!(kind, |T| check_type::<T>(kind)).unwrap();
    }
    assert_eq!(checked, MessageKind::ALL.len() * support::SAMPLES_PER_TYPE);
}
