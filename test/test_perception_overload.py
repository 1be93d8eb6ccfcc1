"""The perception node's overload fault seen by an independent peer (Cyclone DDS, types written
here from the .msg definitions): camera images in, `perception/health`
(diagnostic_msgs/msg/DiagnosticArray) out with the image's stamp; `reported_inference_ms` set
to 120 through the node's set_parameters service and the health reports `inference_ms`
120.000 (level WARN), the measured duration beside it; set back to 0, the measurement again."""

import time
from dataclasses import dataclass, field

from cyclonedds.idl import IdlStruct
from cyclonedds.idl.types import sequence, uint8

from nodes import ROOT, NodeProcess, wait_until
from peers.cyclone import Peer
from peers.ros_types import Header, Image, Time
from test_relay_interop import CYCLONE_RMW

PACKAGE = ROOT / "src/fieldproof_perception"


@dataclass
class KeyValue(IdlStruct, typename="diagnostic_msgs::msg::dds_::KeyValue_"):
    key: str = ""
    value: str = ""


@dataclass
class DiagnosticStatus(IdlStruct, typename="diagnostic_msgs::msg::dds_::DiagnosticStatus_"):
    level: uint8 = 0
    name: str = ""
    message: str = ""
    hardware_id: str = ""
    values: sequence[KeyValue] = field(default_factory=list)


@dataclass
class DiagnosticArray(IdlStruct, typename="diagnostic_msgs::msg::dds_::DiagnosticArray_"):
    header: Header = field(default_factory=Header)
    status: sequence[DiagnosticStatus] = field(default_factory=list)


def image(sec: int) -> Image:
    """A 64x48 rgb8 frame: ground colour with a magenta (the target's colour) patch."""
    data = []
    for y in range(48):
        for x in range(64):
            data += [230, 30, 210] if 20 <= x < 30 and 10 <= y < 30 else [120, 110, 90]
    return Image(header=Header(Time(sec, 0), "camera_optical_link"), height=48, width=64,
                 encoding="rgb8", is_bigendian=0, step=192, data=data)


def health_for(writer, reader, frame: Image) -> DiagnosticArray:
    """Publish `frame` until the health report with its stamp arrives (the node keeps only the
    newest image, best effort), and return that report."""
    def seen():
        writer.write(frame)
        time.sleep(0.2)
        return [h for h in reader.take(100) if h.header.stamp == frame.header.stamp]
    return wait_until(seen, 30, f"health for the frame stamped {frame.header.stamp}", poll=0.1)[0]


def values(health: DiagnosticArray) -> dict:
    [status] = health.status
    return {kv.key: kv.value for kv in status.values}


def test_overload_override_reaches_the_health_a_supervisor_reads():
    peer = Peer()
    with NodeProcess("fieldproof_perception", "perception", "-r", "__ns:=/quad1",
                     "-p", f"artifact_dir:={PACKAGE / 'artifacts/inspection_seg'}",
                     "-p", f"public_key:={PACKAGE / 'keys/lab.pub'}", env=CYCLONE_RMW) as node:
        writer = peer.writer("/quad1/camera/image", Image)
        reader = peer.reader("/quad1/perception/health", DiagnosticArray)

        before = health_for(writer, reader, image(10))
        assert before.header.frame_id == "camera_optical_link"
        [status] = before.status
        assert (status.name, status.hardware_id, status.level) == ("perception", "cpu", 0)
        measured = values(before)
        assert measured["inference_ms"] == measured["measured_inference_ms"]
        assert float(measured["inference_ms"]) > 0.0
        assert measured["detections"] == "1"

        [result] = peer.set_parameters("/quad1/perception", {"reported_inference_ms": 120.0})
        assert result.successful, result.reason
        overloaded = health_for(writer, reader, image(11))
        assert values(overloaded)["inference_ms"] == "120.000"
        assert values(overloaded)["measured_inference_ms"] != "120.000"
        assert overloaded.status[0].level == 1, "WARN while the override is set"

        [result] = peer.set_parameters("/quad1/perception", {"reported_inference_ms": 0.0})
        assert result.successful, result.reason
        after = values(health_for(writer, reader, image(12)))
        assert after["inference_ms"] == after["measured_inference_ms"]
        assert node.alive(), node.output()
