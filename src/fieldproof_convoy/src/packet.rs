//! The convoy packet: the contract between the lead and the follower.
//!
//! Packed little-endian, 28 bytes on the wire (Python `struct` format `"<BBIIffffH"`):
//!
//! | offset | size | field | meaning |
//! |---|---|---|---|
//! | 0 | 1 | `magic` | always [`MAGIC`] (0xC0): cheap frame sync |
//! | 1 | 1 | `rover_id` | the sender (1 = R1, the lead) |
//! | 2 | 4 | `seq` | increments every packet: loss shows up as gaps |
//! | 6 | 4 | `t_ms` | the sender's milliseconds at transmit time |
//! | 10 | 4 | `x_m` | lead x in its odometry frame, metres (f32) |
//! | 14 | 4 | `y_m` | lead y in its odometry frame, metres (f32) |
//! | 18 | 4 | `heading_rad` | lead yaw, radians (f32) |
//! | 22 | 4 | `speed_mps` | lead forward speed, m/s (f32) |
//! | 26 | 2 | `crc16` | CRC-16/CCITT-FALSE over bytes 0..26 |
//!
//! The CRC is CRC-16/CCITT-FALSE (poly 0x1021, init 0xFFFF, no reflection, no final xor; check
//! value 0x29B1 on `"123456789"`), which the `crc` crate catalogues as `CRC_16_IBM_3740`.

use serde::{Deserialize, Serialize};

/// Bytes on the wire: 26 payload bytes and the CRC.
pub const PACKET_LEN: usize = 28;
/// Bytes the CRC covers (everything before it).
pub const CRC_COVERED_LEN: usize = PACKET_LEN - 2;
/// The frame-sync byte every packet starts with.
pub const MAGIC: u8 = 0xC0;
/// The packet's CRC: CRC-16/CCITT-FALSE (poly 0x1021, init 0xFFFF, refin/refout false, xorout 0).
pub const PACKET_CRC: crc::Crc<u16> = crc::Crc::<u16>::new(&crc::CRC_16_IBM_3740);

/// One lead pose report, as decoded from (or encoded into) the 28-byte packet.
///
/// The float fields carry whatever bits the sender put there: decoding does not judge them
/// (a NaN with a valid CRC is what the lead sent); [`ConvoyPacket::non_finite_field`] names the
/// first non-finite one for a consumer that must not use it.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct ConvoyPacket {
    /// The sender (1 = R1, the lead).
    pub rover_id: u8,
    /// Sequence number, incremented by the sender for every packet.
    pub seq: u32,
    /// The sender's clock at transmit time, milliseconds (wraps at 2^32).
    pub t_ms: u32,
    /// Lead x in its odometry frame, metres.
    pub x_m: f32,
    /// Lead y in its odometry frame, metres.
    pub y_m: f32,
    /// Lead yaw, radians (REP 103: counter-clockwise from +x).
    pub heading_rad: f32,
    /// Lead forward speed, m/s.
    pub speed_mps: f32,
}

/// Why a byte string is not a convoy packet. Checked in this order: length, magic, CRC.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum DecodeError {
    /// The byte string is not exactly [`PACKET_LEN`] bytes long.
    #[error("convoy packet: length {actual} bytes, expected {PACKET_LEN}")]
    WrongLength {
        /// The length received.
        actual: usize,
    },
    /// The first byte is not [`MAGIC`].
    #[error("convoy packet: magic 0x{found:02X}, expected 0x{MAGIC:02X}")]
    BadMagic {
        /// The first byte received.
        found: u8,
    },
    /// The trailing CRC does not match the one computed over the first 26 bytes.
    #[error(
        "convoy packet: crc16 0x{received:04X} does not match 0x{computed:04X} \
         computed over bytes 0..{CRC_COVERED_LEN}"
    )]
    BadCrc {
        /// The CRC in the packet's last two bytes.
        received: u16,
        /// The CRC computed over the payload.
        computed: u16,
    },
}

impl ConvoyPacket {
    /// Encodes the packet into its 28 wire bytes (little-endian, CRC appended).
    pub fn encode(&self) -> [u8; PACKET_LEN] {
        let mut bytes = [0u8; PACKET_LEN];
        bytes[0] = MAGIC;
        bytes[1] = self.rover_id;
        bytes[2..6].copy_from_slice(&self.seq.to_le_bytes());
        bytes[6..10].copy_from_slice(&self.t_ms.to_le_bytes());
        bytes[10..14].copy_from_slice(&self.x_m.to_le_bytes());
        bytes[14..18].copy_from_slice(&self.y_m.to_le_bytes());
        bytes[18..22].copy_from_slice(&self.heading_rad.to_le_bytes());
        bytes[22..26].copy_from_slice(&self.speed_mps.to_le_bytes());
        let crc = PACKET_CRC.checksum(&bytes[..CRC_COVERED_LEN]);
        bytes[CRC_COVERED_LEN..].copy_from_slice(&crc.to_le_bytes());
        bytes
    }

    /// Decodes 28 wire bytes, refusing a wrong length, a bad magic byte or a CRC mismatch.
    /// Never panics, whatever the input.
    pub fn decode(bytes: &[u8]) -> Result<ConvoyPacket, DecodeError> {
        let bytes: &[u8; PACKET_LEN] = bytes.try_into().map_err(|_| DecodeError::WrongLength {
            actual: bytes.len(),
        })?;
        if bytes[0] != MAGIC {
            return Err(DecodeError::BadMagic { found: bytes[0] });
        }
        let received = u16::from_le_bytes([bytes[26], bytes[27]]);
        let computed = PACKET_CRC.checksum(&bytes[..CRC_COVERED_LEN]);
        if received != computed {
            return Err(DecodeError::BadCrc { received, computed });
        }
        let u32_at = |at: usize| {
            u32::from_le_bytes([bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]])
        };
        let f32_at = |at: usize| f32::from_bits(u32_at(at));
        Ok(ConvoyPacket {
            rover_id: bytes[1],
            seq: u32_at(2),
            t_ms: u32_at(6),
            x_m: f32_at(10),
            y_m: f32_at(14),
            heading_rad: f32_at(18),
            speed_mps: f32_at(22),
        })
    }

    /// The name of the first float field that is NaN or infinite, if any.
    pub fn non_finite_field(&self) -> Option<&'static str> {
        [
            ("x_m", self.x_m),
            ("y_m", self.y_m),
            ("heading_rad", self.heading_rad),
            ("speed_mps", self.speed_mps),
        ]
        .into_iter()
        .find(|(_, value)| !value.is_finite())
        .map(|(name, _)| name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn sample() -> ConvoyPacket {
        ConvoyPacket {
            rover_id: 1,
            seq: 42,
            t_ms: 123_456,
            x_m: 3.25,
            y_m: -1.5,
            heading_rad: 0.75,
            speed_mps: 0.6,
        }
    }

    #[test]
    fn crc_is_ccitt_false_with_check_value_0x29b1() {
        assert_eq!(PACKET_CRC.checksum(b"123456789"), 0x29B1);
        let algorithm = PACKET_CRC.algorithm;
        assert_eq!(
            (
                algorithm.width,
                algorithm.poly,
                algorithm.init,
                algorithm.refin,
                algorithm.refout,
                algorithm.xorout
            ),
            (16, 0x1021, 0xFFFF, false, false, 0x0000)
        );
    }

    #[test]
    fn encode_lays_fields_out_little_endian_at_their_offsets() {
        let packet = sample();
        let bytes = packet.encode();
        assert_eq!(bytes.len(), 28);
        assert_eq!(bytes[0], 0xC0);
        assert_eq!(bytes[1], packet.rover_id);
        assert_eq!(bytes[2..6], packet.seq.to_le_bytes());
        assert_eq!(bytes[6..10], packet.t_ms.to_le_bytes());
        assert_eq!(bytes[10..14], packet.x_m.to_le_bytes());
        assert_eq!(bytes[14..18], packet.y_m.to_le_bytes());
        assert_eq!(bytes[18..22], packet.heading_rad.to_le_bytes());
        assert_eq!(bytes[22..26], packet.speed_mps.to_le_bytes());
        let crc = PACKET_CRC.checksum(&bytes[..26]);
        assert_eq!(bytes[26..28], crc.to_le_bytes());
    }

    #[test]
    fn decode_returns_what_encode_packed() {
        assert_eq!(ConvoyPacket::decode(&sample().encode()), Ok(sample()));
    }

    #[test]
    fn decode_refuses_wrong_lengths_naming_the_length() {
        let bytes = sample().encode();
        for len in [0, 1, 26, 27] {
            assert_eq!(
                ConvoyPacket::decode(&bytes[..len]),
                Err(DecodeError::WrongLength { actual: len })
            );
        }
        let mut long = bytes.to_vec();
        long.push(0);
        let err = ConvoyPacket::decode(&long).unwrap_err();
        assert_eq!(err, DecodeError::WrongLength { actual: 29 });
        assert_eq!(
            err.to_string(),
            "convoy packet: length 29 bytes, expected 28"
        );
    }

    #[test]
    fn decode_refuses_a_bad_magic_naming_the_byte() {
        let mut bytes = sample().encode();
        bytes[0] = 0xC1;
        let err = ConvoyPacket::decode(&bytes).unwrap_err();
        assert_eq!(err, DecodeError::BadMagic { found: 0xC1 });
        assert_eq!(err.to_string(), "convoy packet: magic 0xC1, expected 0xC0");
    }

    #[test]
    fn decode_refuses_a_bad_crc_naming_both_values() {
        let mut bytes = sample().encode();
        bytes[12] ^= 0x01;
        let computed = PACKET_CRC.checksum(&bytes[..26]);
        let received = u16::from_le_bytes([bytes[26], bytes[27]]);
        let err = ConvoyPacket::decode(&bytes).unwrap_err();
        assert_eq!(err, DecodeError::BadCrc { received, computed });
        assert_eq!(
            err.to_string(),
            format!("convoy packet: crc16 0x{received:04X} does not match 0x{computed:04X} computed over bytes 0..26")
        );
    }

    #[test]
    fn decode_keeps_non_finite_floats_and_non_finite_field_names_the_first() {
        let mut packet = sample();
        assert_eq!(packet.non_finite_field(), None);
        packet.heading_rad = f32::NAN;
        packet.speed_mps = f32::INFINITY;
        let decoded = ConvoyPacket::decode(&packet.encode()).unwrap();
        assert!(decoded.heading_rad.is_nan());
        assert_eq!(decoded.non_finite_field(), Some("heading_rad"));
    }

    fn finite_f32() -> impl Strategy<Value = f32> {
        prop::num::f32::NORMAL | prop::num::f32::SUBNORMAL | prop::num::f32::ZERO
    }

    fn arbitrary_packet() -> impl Strategy<Value = ConvoyPacket> {
        (
            any::<u8>(),
            any::<u32>(),
            any::<u32>(),
            finite_f32(),
            finite_f32(),
            finite_f32(),
            finite_f32(),
        )
            .prop_map(|(rover_id, seq, t_ms, x_m, y_m, heading_rad, speed_mps)| {
                ConvoyPacket {
                    rover_id,
                    seq,
                    t_ms,
                    x_m,
                    y_m,
                    heading_rad,
                    speed_mps,
                }
            })
    }

    proptest! {
        #[test]
        fn decode_never_panics_on_arbitrary_bytes(bytes in prop::collection::vec(any::<u8>(), 0..64)) {
            match ConvoyPacket::decode(&bytes) {
                Ok(packet) => prop_assert_eq!(packet.encode().to_vec(), bytes),
                Err(DecodeError::WrongLength { actual }) => prop_assert_eq!(actual, bytes.len()),
                Err(DecodeError::BadMagic { found }) => prop_assert_eq!(found, bytes[0]),
                Err(DecodeError::BadCrc { received, computed }) => prop_assert_ne!(received, computed),
            }
        }

        #[test]
        fn decode_never_panics_on_28_bytes_with_the_magic(mut bytes in prop::array::uniform28(any::<u8>())) {
            bytes[0] = MAGIC;
            let computed = PACKET_CRC.checksum(&bytes[..26]);
            let received = u16::from_le_bytes([bytes[26], bytes[27]]);
            let result = ConvoyPacket::decode(&bytes);
            prop_assert_eq!(result.is_ok(), received == computed);
        }

        #[test]
        fn every_single_bit_flip_of_a_valid_packet_is_rejected(packet in arbitrary_packet()) {
            let valid = packet.encode();
            for bit in 0..PACKET_LEN * 8 {
                let mut flipped = valid;
                flipped[bit / 8] ^= 1 << (bit % 8);
                let result = ConvoyPacket::decode(&flipped);
                if bit < 8 {
                    prop_assert_eq!(result, Err(DecodeError::BadMagic { found: flipped[0] }));
                } else {
                    prop_assert!(
                        matches!(result, Err(DecodeError::BadCrc { .. })),
                        "bit {} flipped: {:?}", bit, result
                    );
                }
            }
        }

        #[test]
        fn encode_decode_round_trips_finite_fields(packet in arbitrary_packet()) {
            let decoded = ConvoyPacket::decode(&packet.encode()).unwrap();
            // Compare bits so that -0.0 and 0.0 are told apart.
            prop_assert_eq!(
                (decoded.rover_id, decoded.seq, decoded.t_ms, decoded.x_m.to_bits(), decoded.y_m.to_bits(),
                 decoded.heading_rad.to_bits(), decoded.speed_mps.to_bits()),
                (packet.rover_id, packet.seq, packet.t_ms, packet.x_m.to_bits(), packet.y_m.to_bits(),
                 packet.heading_rad.to_bits(), packet.speed_mps.to_bits())
            );
        }
    }
}
