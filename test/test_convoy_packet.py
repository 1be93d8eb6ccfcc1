"""The convoy packet's test vectors, decoded independently of the Rust code.

The vectors (src/fieldproof_convoy/tests/fixtures/packet_vectors.json) are what the Rust
`ConvoyPacket::encode` produces (a Rust test checks that); here Python's `struct` layout
"<BBIIffffH" and a bit-loop CRC-16/CCITT-FALSE written from the algorithm's definition must agree
with them field for field.
"""

import json
import pathlib
import struct

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
VECTORS = json.loads(
    (ROOT / "src/fieldproof_convoy/tests/fixtures/packet_vectors.json").read_text()
)
LAYOUT = "<BBIIffffH"  # magic, rover_id, seq, t_ms, x, y, heading, speed, crc16
MAGIC = 0xC0


def crc16_ccitt_false(data: bytes) -> int:
    """CRC-16/CCITT-FALSE: poly 0x1021, init 0xFFFF, MSB first, no final xor."""
    crc = 0xFFFF
    for byte in data:
        crc ^= byte << 8
        for _ in range(8):
            crc = ((crc << 1) ^ 0x1021) & 0xFFFF if crc & 0x8000 else (crc << 1) & 0xFFFF
    return crc


def classify(raw: bytes) -> str:
    """Why raw is not a packet ("wrong_length", "bad_magic", "bad_crc"), or "ok"."""
    if len(raw) != struct.calcsize(LAYOUT):
        return "wrong_length"
    if raw[0] != MAGIC:
        return "bad_magic"
    (received,) = struct.unpack_from("<H", raw, 26)
    return "ok" if received == crc16_ccitt_false(raw[:26]) else "bad_crc"


def test_layout_is_28_bytes_and_crc_matches_the_check_value():
    assert struct.calcsize(LAYOUT) == 28
    check = VECTORS["crc"]
    assert crc16_ccitt_false(check["check_input"].encode()) == 0x29B1 == check["check"]
    assert (check["poly"], check["init"]) == (0x1021, 0xFFFF)


@pytest.mark.parametrize("vector", VECTORS["valid"], ids=lambda v: v["hex"][:16])
def test_valid_vector_decodes_field_for_field(vector):
    raw = bytes.fromhex(vector["hex"])
    assert classify(raw) == "ok"
    magic, rover_id, seq, t_ms, x, y, heading, speed, crc = struct.unpack(LAYOUT, raw)
    assert magic == MAGIC
    assert (rover_id, seq, t_ms) == (vector["rover_id"], vector["seq"], vector["t_ms"])
    # struct widens each f32 to a double exactly; the fixture holds the same doubles.
    assert (x, y, heading, speed) == (
        vector["x_m"], vector["y_m"], vector["heading_rad"], vector["speed_mps"]
    )
    assert crc == vector["crc16"] == crc16_ccitt_false(raw[:26])
    # Packing the fields again (the spec's lead_broadcaster.py way) gives the same bytes.
    body = struct.pack("<BBIIffff", MAGIC, rover_id, seq, t_ms, x, y, heading, speed)
    assert body + struct.pack("<H", crc16_ccitt_false(body)) == raw


@pytest.mark.parametrize("vector", VECTORS["invalid"], ids=lambda v: v["error"])
def test_invalid_vector_is_refused_for_its_reason(vector):
    assert classify(bytes.fromhex(vector["hex"])) == vector["error"]


def test_every_kind_of_vector_is_present():
    assert len(VECTORS["valid"]) >= 3
    assert {v["error"] for v in VECTORS["invalid"]} == {"wrong_length", "bad_magic", "bad_crc"}
