#!/usr/bin/env python3
"""Checks fieldproof_msgs' CDR against the rosbags ROS 2 Jazzy typestore, both ways.

Usage: rosbags_check.py VECTORS_JSON OUT_JSON

VECTORS_JSON (written by tests/rosbags.rs) holds {"samples": [{"type", "cdr", "value"}]}: a
ROS type name, the hex CDR fieldproof_msgs produced, and the value as JSON with the fields in
declaration order. For each sample this script
  1. deserializes the Rust bytes with rosbags and compares the result field by field (names,
     order, array lengths, numpy dtypes, float bit patterns) with the value;
  2. builds the message from the value with rosbags' own classes and serializes it with
     rosbags, writing those bytes to OUT_JSON ({"results": [{"type", "cdr"}]}, same order) for
     the Rust side to decode and compare.
Types the rosbags Jazzy typestore lacks (vision_msgs) are registered first from their .msg
text in VISION_MSGS_4 below, copied from ros-perception/vision_msgs 4.1.1 (branch ros2), not from
fieldproof_msgs, so the check stays independent of the Rust definitions.
Exit status: 0 all equal, 1 mismatches (listed on stderr), 2 usage error or rosbags missing.
"""

import json
import pathlib
import struct
import sys

try:
    import numpy as np
    from rosbags.interfaces import Nodetype
    from rosbags.typesys import Stores, get_types_from_msg, get_typestore
except ImportError as err:  # the Rust test turns this into a failure with this text
    sys.stderr.write(
        f"rosbags_check: cannot import rosbags/numpy with {sys.executable}: {err}\n"
        "install the test requirements: pip install -r test/requirements.txt\n"
    )
    sys.exit(2)

# vision_msgs 4.1.1 (ROS 2 Jazzy), msg/<Name>.msg without the comments.
VISION_MSGS_4 = {
    "vision_msgs/msg/Point2D": "float64 x\nfloat64 y\n",
    "vision_msgs/msg/Pose2D": "vision_msgs/Point2D position\nfloat64 theta\n",
    "vision_msgs/msg/BoundingBox2D": "vision_msgs/Pose2D center\nfloat64 size_x\nfloat64 size_y\n",
    "vision_msgs/msg/ObjectHypothesis": "string class_id\nfloat64 score\n",
    "vision_msgs/msg/ObjectHypothesisWithPose": (
        "ObjectHypothesis hypothesis\ngeometry_msgs/PoseWithCovariance pose\n"
    ),
    "vision_msgs/msg/Detection2D": (
        "std_msgs/Header header\nObjectHypothesisWithPose[] results\nBoundingBox2D bbox\nstring id\n"
    ),
    "vision_msgs/msg/Detection2DArray": "std_msgs/Header header\nDetection2D[] detections\n",
}


# The fleet's own messages: registered from the interface package's .msg files themselves
# (comments and constants included: rosbags parses them as rosidl does), the single source of
# truth that fieldproof_msgs' hand-written types must match.
INTERFACES_DIR = pathlib.Path(__file__).resolve().parents[2] / "fieldproof_interfaces" / "msg"


def interface_definitions():
    """{"fieldproof_interfaces/msg/<Name>": .msg text} for every file in INTERFACES_DIR."""
    return {
        f"fieldproof_interfaces/msg/{path.stem}": path.read_text()
        for path in sorted(INTERFACES_DIR.glob("*.msg"))
    }


def jazzy_typestore():
    """The rosbags Jazzy typestore, with the VISION_MSGS_4 types it lacks and the fleet's
    interfaces registered."""
    ts = get_typestore(Stores.ROS2_JAZZY)
    missing = {}
    for name, text in {**VISION_MSGS_4, **interface_definitions()}.items():
        if name not in ts.fielddefs:
            missing.update(get_types_from_msg(text, name))
    if missing:
        ts.register(missing)
    return ts


DTYPES = {
    "bool": np.bool_,
    "int8": np.int8,
    "uint8": np.uint8,
    "byte": np.uint8,
    "char": np.uint8,
    "int16": np.int16,
    "uint16": np.uint16,
    "int32": np.int32,
    "uint32": np.uint32,
    "int64": np.int64,
    "uint64": np.uint64,
    "float32": np.float32,
    "float64": np.float64,
}
INTS = {"int8", "uint8", "byte", "char", "int16", "uint16", "int32", "uint32", "int64", "uint64"}


def base_to_py(typ, value):
    """A JSON scalar as the Python value rosbags expects for a base type."""
    if typ == "string":
        return str(value)
    if typ == "bool":
        return bool(value)
    if typ == "byte":
        return signed_byte(int(value))
    if typ in INTS:
        return int(value)
    return float(value)


def signed_byte(value):
    """A scalar `byte` as rosbags holds it: one octet on the wire (rosidl's `octet`, uint8 in
    C and in fieldproof_msgs), but a signed int8 in rosbags' Python values (a `byte[]` is a
    uint8 array there). The octet is the same; only its Python reading differs."""
    return value - 256 if value > 127 else value


def build(ts, typename, value):
    """A rosbags message of `typename` from its JSON value."""
    _, fields = ts.fielddefs[typename]
    kwargs = {name: build_field(ts, nt, desc, value[name]) for name, (nt, desc) in fields}
    return ts.types[typename](**kwargs)


def build_field(ts, nt, desc, value):
    if nt == Nodetype.BASE:
        return base_to_py(desc[0], value)
    if nt == Nodetype.NAME:
        return build(ts, desc, value)
    (snt, sdesc), _size = desc
    if snt == Nodetype.BASE and sdesc[0] != "string":
        return np.array(value, dtype=DTYPES[sdesc[0]])
    return [build_field(ts, snt, sdesc, v) for v in value]


def compare_base(typ, actual, expected, path, errors):
    if typ == "float64":
        ok = isinstance(actual, float) and struct.pack("<d", actual) == struct.pack("<d", expected)
    elif typ == "float32":
        ok = isinstance(actual, float) and struct.pack("<f", actual) == struct.pack("<f", expected)
    elif typ == "string":
        ok = isinstance(actual, str) and actual == expected
    elif typ == "byte":
        ok = isinstance(actual, int) and actual == signed_byte(expected)
    elif typ == "bool":
        ok = isinstance(actual, bool) and actual == expected
    else:
        ok = isinstance(actual, int) and not isinstance(actual, bool) and actual == expected
    if not ok:
        errors.append(f"{path}: rosbags decoded {actual!r} ({type(actual).__name__}), expected {expected!r} ({typ})")


def compare_msg(ts, typename, actual, expected, path, errors):
    if getattr(actual, "__msgtype__", None) != typename:
        errors.append(f"{path}: rosbags type {getattr(actual, '__msgtype__', None)!r}, expected {typename}")
        return
    _, fields = ts.fielddefs[typename]
    names = [name for name, _ in fields]
    if list(expected.keys()) != names:
        errors.append(f"{path}: Rust fields {list(expected.keys())} != ROS fields {names}")
        return
    for name, (nt, desc) in fields:
        compare_field(ts, nt, desc, getattr(actual, name), expected[name], f"{path}.{name}", errors)


def compare_field(ts, nt, desc, actual, expected, path, errors):
    if nt == Nodetype.BASE:
        compare_base(desc[0], actual, expected, path, errors)
        return
    if nt == Nodetype.NAME:
        compare_msg(ts, desc, actual, expected, path, errors)
        return
    (snt, sdesc), size = desc
    if nt == Nodetype.ARRAY and len(expected) != size:
        errors.append(f"{path}: Rust array has {len(expected)} elements, ROS has {size}")
        return
    if len(actual) != len(expected):
        errors.append(f"{path}: rosbags decoded {len(actual)} elements, expected {len(expected)}")
        return
    if snt == Nodetype.BASE and sdesc[0] != "string":
        dtype = np.dtype(DTYPES[sdesc[0]])
        arr = np.asarray(actual)
        if arr.dtype != dtype:
            errors.append(f"{path}: rosbags dtype {arr.dtype}, expected {dtype}")
        elif arr.tobytes() != np.array(expected, dtype=dtype).tobytes():
            errors.append(f"{path}: rosbags decoded {arr.tolist()}, expected {expected}")
        return
    for i, (a, e) in enumerate(zip(actual, expected)):
        compare_field(ts, snt, sdesc, a, e, f"{path}[{i}]", errors)


def main(argv):
    if len(argv) != 3:
        sys.stderr.write(__doc__)
        return 2
    with open(argv[1], encoding="utf-8") as f:
        samples = json.load(f)["samples"]
    ts = jazzy_typestore()
    errors, results = [], []
    for i, sample in enumerate(samples):
        typename, value = sample["type"], sample["value"]
        where = f"sample {i} {typename}"
        if typename not in ts.fielddefs:
            errors.append(f"{where}: not in the rosbags Jazzy typestore")
            results.append({"type": typename, "cdr": ""})
            continue
        rust_bytes = bytes.fromhex(sample["cdr"])
        try:
            decoded = ts.deserialize_cdr(rust_bytes, typename)
        except Exception as err:  # noqa: BLE001 - report and go on
            errors.append(f"{where}: rosbags cannot deserialize the Rust bytes: {err!r}")
        else:
            try:
                compare_msg(ts, typename, decoded, value, where, errors)
            except Exception as err:  # noqa: BLE001 - e.g. a value out of the ROS type's range
                errors.append(f"{where}: comparison failed: {err!r}")
        try:
            ours = bytes(ts.serialize_cdr(build(ts, typename, value), typename))
        except Exception as err:  # noqa: BLE001
            errors.append(f"{where}: rosbags cannot serialize the value: {err!r}")
            ours = b""
        results.append({"type": typename, "cdr": ours.hex()})
    with open(argv[2], "w", encoding="utf-8") as f:
        json.dump({"results": results}, f)
    for err in errors:
        sys.stderr.write(err + "\n")
    kinds = len({s["type"] for s in samples})
    print(f"rosbags_check: {len(samples)} samples of {kinds} types, {len(errors)} mismatches")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
