//! Service requests in either ROS 2 request/reply mapping.
//!
//! ROS 2 on Fast DDS (Jazzy's default RMW) sends a bare request and correlates the reply
//! through the `related_sample_identity` inline QoS; ROS 2 on Cyclone DDS
//! (`rmw_cyclonedds_cpp`) puts a 16-byte header (client id, sequence number) before the
//! request and expects it echoed before the reply. ros2-client's servers handle one fixed
//! mapping; ours take the raw CDR body, decode it both ways and keep the one that parses
//! exactly, so a node answers `ros2 param set` from either kind of ROS 2 installation.
//! The reply always carries `related_sample_identity` (as ros2-client's servers do) and,
//! for Cyclone requests, the echoed header.

use byteorder::LittleEndian;
use serde::de::{DeserializeOwned, SeqAccess, Visitor};
use serde::ser::SerializeTuple;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// A CDR body captured as bytes through serde (each byte is an unaligned `u8`, so the
/// CDR (de)serializer passes the body through unchanged).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct RawBody(pub Vec<u8>);

impl Serialize for RawBody {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut t = s.serialize_tuple(self.0.len())?;
        for b in &self.0 {
            t.serialize_element(b)?;
        }
        t.end()
    }
}

impl<'de> Deserialize<'de> for RawBody {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<RawBody, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = RawBody;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("raw bytes")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<RawBody, A::Error> {
                let mut v = Vec::new();
                // read to the end of the body; the end shows up as an error
                while let Ok(Some(b)) = seq.next_element::<u8>() {
                    v.push(b);
                }
                Ok(RawBody(v))
            }
        }
        d.deserialize_tuple(usize::MAX, V)
    }
}

impl ros2_client::Message for RawBody {}

/// How a request was framed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Framing {
    /// Bare request (Fast DDS / RPC-over-DDS "enhanced", ros2-client's default).
    Plain,
    /// rmw_cyclonedds: this header, echoed in the reply.
    Cyclone([u8; 16]),
}

const CYCLONE_HEADER: usize = 16;

fn parse_exact<R: DeserializeOwned>(b: &[u8]) -> Result<R, String> {
    let (r, n) = cdr_encoding::from_bytes::<R, LittleEndian>(b).map_err(|e| e.to_string())?;
    // up to 3 bytes of CDR padding may follow
    if b.len() - n > 3 {
        return Err(format!("{} unparsed trailing bytes", b.len() - n));
    }
    Ok(r)
}

/// Decodes a request in whichever framing parses exactly; `prefer_cyclone` settles the
/// (unlikely) case where both do.
pub(crate) fn decode_request<R: DeserializeOwned>(
    body: &[u8],
    prefer_cyclone: bool,
) -> Result<(Framing, R), String> {
    let plain = parse_exact::<R>(body);
    let cyclone = if body.len() >= CYCLONE_HEADER {
        let mut h = [0u8; CYCLONE_HEADER];
        h.copy_from_slice(&body[..CYCLONE_HEADER]);
        parse_exact::<R>(&body[CYCLONE_HEADER..]).map(|r| (Framing::Cyclone(h), r))
    } else {
        Err("shorter than a Cyclone request header".into())
    };
    match (plain, cyclone) {
        (Ok(p), Ok(c)) => Ok(if prefer_cyclone {
            c
        } else {
            (Framing::Plain, p)
        }),
        (Ok(p), Err(_)) => Ok((Framing::Plain, p)),
        (Err(_), Ok(c)) => Ok(c),
        (Err(e), Err(_)) => Err(e),
    }
}

/// Encodes a reply in the request's framing (CDR little endian).
pub(crate) fn encode_reply<T: Serialize>(framing: Framing, reply: &T) -> Result<RawBody, String> {
    let mut out = Vec::new();
    if let Framing::Cyclone(h) = framing {
        out.extend_from_slice(&h);
    }
    out.extend(cdr_encoding::to_vec::<T, LittleEndian>(reply).map_err(|e| e.to_string())?);
    Ok(RawBody(out))
}

#[cfg(test)]
mod tests {
    use super::*;
    use ros2_client::rcl_interfaces::{GetParametersRequest, ListParametersRequest};

    fn cdr<T: Serialize>(t: &T) -> Vec<u8> {
        cdr_encoding::to_vec::<T, LittleEndian>(t).unwrap()
    }

    #[test]
    fn raw_body_passes_bytes_through_cdr() {
        let bytes = RawBody(vec![1, 2, 3, 250, 0, 7]);
        let enc = cdr(&bytes);
        assert_eq!(enc, bytes.0);
        let (dec, n) = cdr_encoding::from_bytes::<RawBody, LittleEndian>(&enc).unwrap();
        assert_eq!(dec, bytes);
        assert_eq!(n, 6);
    }

    #[test]
    fn both_framings_decode() {
        let req = GetParametersRequest {
            names: vec!["rate_hz".into(), "message".into()],
        };
        let plain = cdr(&req);
        let (f, r) = decode_request::<GetParametersRequest>(&plain, false).unwrap();
        assert_eq!(f, Framing::Plain);
        assert_eq!(r.names, req.names);

        let header = [
            0xAB, 0xCD, 0xEF, 0x01, 0x23, 0x45, 0x67, 0x89, 5, 0, 0, 0, 0, 0, 0, 0,
        ];
        let mut cyc = header.to_vec();
        cyc.extend(&plain);
        let (f, r) = decode_request::<GetParametersRequest>(&cyc, false).unwrap();
        assert_eq!(f, Framing::Cyclone(header));
        assert_eq!(r.names, req.names);

        let reply = encode_reply(f, &req).unwrap();
        assert_eq!(reply.0, cyc);
    }

    #[test]
    fn empty_requests_are_not_ambiguous() {
        let req = ListParametersRequest {
            prefixes: vec![],
            depth: 0,
        };
        let plain = cdr(&req);
        assert_eq!(
            decode_request::<ListParametersRequest>(&plain, true)
                .unwrap()
                .0,
            Framing::Plain
        );
        let mut cyc = vec![0u8; 16];
        cyc.extend(&plain);
        assert!(matches!(
            decode_request::<ListParametersRequest>(&cyc, false)
                .unwrap()
                .0,
            Framing::Cyclone(_)
        ));
        assert!(decode_request::<ListParametersRequest>(&[1, 2, 3], false).is_err());
    }
}
