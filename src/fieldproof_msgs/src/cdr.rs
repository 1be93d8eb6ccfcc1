//! CDR (XCDR1, plain CDR) encoding with the 4-byte RTPS encapsulation header, as ROS 2 puts it
//! on the wire.
//!
//! The body is produced by [`cdr_encoding`], the very serializer rustdds'
//! `CDRSerializerAdapter<_, LittleEndian>` (and thus every ros2-client publisher) uses, so
//! `to_bytes(m)` equals the serialized payload a ros2-client publisher sends for `m`.

use byteorder::{BigEndian, LittleEndian};
use serde::{de::DeserializeOwned, Serialize};

use crate::MsgError;

/// Encapsulation header of little-endian plain CDR (`CDR_LE`, options 0).
pub const CDR_LE_HEADER: [u8; 4] = [0x00, 0x01, 0x00, 0x00];
/// Representation identifier of big-endian plain CDR (`CDR_BE`).
const CDR_BE: [u8; 2] = [0x00, 0x00];
/// Representation identifier of little-endian plain CDR (`CDR_LE`).
const CDR_LE: [u8; 2] = [0x00, 0x01];

/// Encodes `msg` as little-endian CDR preceded by the encapsulation header `00 01 00 00`.
pub fn to_bytes<T: Serialize>(msg: &T) -> Result<Vec<u8>, MsgError> {
    let mut out = Vec::with_capacity(64);
    out.extend_from_slice(&CDR_LE_HEADER);
    to_body_writer(&mut out, msg)?;
    Ok(out)
}

/// Encodes `msg` as little-endian CDR without the encapsulation header (what
/// `CDRSerializerAdapter::to_bytes` returns), appending to `out`.
pub fn to_body_writer<T: Serialize>(out: &mut Vec<u8>, msg: &T) -> Result<(), MsgError> {
    // CdrSerializer counts alignment from the bytes it writes itself, i.e. from the body start,
    // as CDR requires: the encapsulation header already in `out` does not shift the padding.
    cdr_encoding::to_writer::<T, LittleEndian, _>(out, msg)?;
    Ok(())
}

/// Decodes a CDR payload that starts with the encapsulation header (`CDR_LE` or `CDR_BE`).
///
/// Up to 3 bytes after the body are accepted as end padding (some DDS implementations pad the
/// payload to a multiple of 4); more is an error, as it means the bytes are of another type.
pub fn from_bytes<T: DeserializeOwned>(bytes: &[u8]) -> Result<T, MsgError> {
    if bytes.len() < 4 {
        return Err(MsgError::TooShort(bytes.len()));
    }
    let (header, body) = bytes.split_at(4);
    let (value, consumed) = match [header[0], header[1]] {
        CDR_LE => cdr_encoding::from_bytes::<T, LittleEndian>(body)?,
        CDR_BE => cdr_encoding::from_bytes::<T, BigEndian>(body)?,
        other => return Err(MsgError::Encapsulation(other)),
    };
    let trailing = body.len() - consumed;
    if trailing > 3 {
        return Err(MsgError::TrailingBytes { consumed, trailing });
    }
    Ok(value)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{geometry_msgs::Vector3, std_msgs};

    #[test]
    fn string_has_header_length_with_nul_and_no_end_padding() {
        let bytes = to_bytes(&std_msgs::String { data: "abc".into() }).unwrap();
        assert_eq!(bytes, [0, 1, 0, 0, 4, 0, 0, 0, b'a', b'b', b'c', 0]);
        let back: std_msgs::String = from_bytes(&bytes).unwrap();
        assert_eq!(back.data, "abc");
    }

    #[test]
    fn alignment_is_relative_to_the_body() {
        // Header (stamp 8 bytes + "a\0" with length 4 = 14 bytes), then a f64 aligned to 16.
        let m = crate::sensor_msgs::Temperature {
            header: std_msgs::Header {
                stamp: crate::builtin_interfaces::Time { sec: 1, nanosec: 2 },
                frame_id: "a".into(),
            },
            temperature: 1.5,
            variance: 0.0,
        };
        let bytes = to_bytes(&m).unwrap();
        assert_eq!(bytes.len(), 4 + 16 + 8 + 8);
        assert_eq!(&bytes[4 + 14..4 + 16], &[0, 0]);
        assert_eq!(&bytes[4 + 16..4 + 24], &1.5f64.to_le_bytes());
    }

    #[test]
    fn big_endian_payloads_decode() {
        let mut bytes = vec![0, 0, 0, 0];
        for v in [1.0f64, -2.0, 0.5] {
            bytes.extend_from_slice(&v.to_be_bytes());
        }
        let v: Vector3 = from_bytes(&bytes).unwrap();
        assert_eq!(
            v,
            Vector3 {
                x: 1.0,
                y: -2.0,
                z: 0.5
            }
        );
    }

    #[test]
    fn bad_payloads_are_errors() {
        assert!(matches!(
            from_bytes::<Vector3>(&[0, 1]),
            Err(MsgError::TooShort(2))
        ));
        let mut bytes = to_bytes(&Vector3::default()).unwrap();
        bytes[1] = 0x03;
        assert!(matches!(
            from_bytes::<Vector3>(&bytes),
            Err(MsgError::Encapsulation([0, 3]))
        ));
        let bytes = to_bytes(&Vector3::default()).unwrap();
        assert!(matches!(
            from_bytes::<Vector3>(&bytes[..20]),
            Err(MsgError::Cdr(_))
        ));
        let mut padded = bytes.clone();
        padded.extend_from_slice(&[0, 0, 0]);
        assert!(from_bytes::<Vector3>(&padded).is_ok());
        padded.push(0);
        assert!(matches!(
            from_bytes::<Vector3>(&padded),
            Err(MsgError::TrailingBytes {
                consumed: 24,
                trailing: 4
            })
        ));
    }
}
