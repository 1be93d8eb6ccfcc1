//! What the node publishes per processed image: the detections (observations only, nothing
//! steers from them) and the payload's health, both stamped with the image's header.

use fieldproof_msgs::diagnostic_msgs::{DiagnosticArray, DiagnosticStatus, KeyValue};
use fieldproof_msgs::geometry_msgs::PoseWithCovariance;
use fieldproof_msgs::std_msgs::Header;
use fieldproof_msgs::vision_msgs::{
    BoundingBox2D, Detection2D, Detection2DArray, ObjectHypothesis, ObjectHypothesisWithPose,
    Point2D, Pose2D,
};

use super::{Analysis, TARGET_CLASS_ID};

/// The health status's name.
pub const HEALTH_STATUS_NAME: &str = "perception";

/// One `vision_msgs/Detection2D` per detection, header = the image's (capture stamp, camera
/// frame); the box's centre and size in pixels, `results[0]` the class and mean score.
pub fn detections_message(image_header: &Header, analysis: &Analysis) -> Detection2DArray {
    let detections = analysis
        .detections
        .iter()
        .enumerate()
        .map(|(i, d)| {
            let (x, y) = d.center();
            let (size_x, size_y) = d.size();
            Detection2D {
                header: image_header.clone(),
                results: vec![ObjectHypothesisWithPose {
                    hypothesis: ObjectHypothesis {
                        class_id: TARGET_CLASS_ID.into(),
                        score: d.score,
                    },
                    pose: PoseWithCovariance::default(),
                }],
                bbox: BoundingBox2D {
                    center: Pose2D {
                        position: Point2D { x, y },
                        theta: 0.0,
                    },
                    size_x,
                    size_y,
                },
                id: i.to_string(),
            }
        })
        .collect();
    Detection2DArray {
        header: image_header.clone(),
        detections,
    }
}

/// The figures of one processed frame that the health reports.
#[derive(Debug, Clone, PartialEq)]
pub struct FrameHealth {
    /// The measured wall-clock duration of the frame's inference, ms.
    pub measured_ms: f64,
    /// `reported_inference_ms` at this frame: > 0 is reported instead of the measurement
    /// (the overload fault); 0 reports the measurement.
    pub override_ms: f64,
    /// Frames processed so far, this one included.
    pub frame_seq: u64,
    /// Targets found in this frame.
    pub detections: usize,
    /// The device the model runs on (`hardware_id`).
    pub device: String,
    /// The model that ran: `<name> <version>`.
    pub model: String,
}

impl FrameHealth {
    /// The duration reported as `inference_ms`: the override when one is set, else the
    /// measurement.
    pub fn reported_ms(&self) -> f64 {
        if self.override_ms > 0.0 {
            self.override_ms
        } else {
            self.measured_ms
        }
    }

    /// True while the overload override is set.
    pub fn overridden(&self) -> bool {
        self.override_ms > 0.0
    }
}

/// The `diagnostic_msgs/DiagnosticArray` of one frame: header = the image's (its stamp is the
/// capture time the supervisor ages), one status `perception` (OK, WARN while the override is
/// set) with `inference_ms` (3 decimals), `measured_inference_ms`, `frame_seq`,
/// `detections` and `model`.
pub fn health_message(image_header: &Header, health: &FrameHealth) -> DiagnosticArray {
    let reported = health.reported_ms();
    let (level, message) = if health.overridden() {
        (
            DiagnosticStatus::WARN,
            format!(
                "overload override: reporting {reported:.3} ms (measured {:.3} ms)",
                health.measured_ms
            ),
        )
    } else {
        (
            DiagnosticStatus::OK,
            format!(
                "{} detection(s) in {:.3} ms",
                health.detections, health.measured_ms
            ),
        )
    };
    DiagnosticArray {
        header: image_header.clone(),
        status: vec![DiagnosticStatus {
            level,
            name: HEALTH_STATUS_NAME.into(),
            message,
            hardware_id: health.device.clone(),
            values: vec![
                KeyValue::new("inference_ms", format!("{reported:.3}")),
                KeyValue::new(
                    "measured_inference_ms",
                    format!("{:.3}", health.measured_ms),
                ),
                KeyValue::new("frame_seq", health.frame_seq.to_string()),
                KeyValue::new("detections", health.detections.to_string()),
                KeyValue::new("model", health.model.clone()),
            ],
        }],
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::inference::{Blob, Detection};
    use fieldproof_msgs::builtin_interfaces::Time;
    use std::time::Duration;

    fn header() -> Header {
        Header {
            stamp: Time {
                sec: 42,
                nanosec: 100_000_000,
            },
            frame_id: "camera_optical_link".into(),
        }
    }

    fn health(override_ms: f64) -> FrameHealth {
        FrameHealth {
            measured_ms: 1.23456,
            override_ms,
            frame_seq: 7,
            detections: 1,
            device: "cpu".into(),
            model: "inspection_seg 1.0.0".into(),
        }
    }

    #[test]
    fn detections_carry_the_image_header_box_and_class() {
        let analysis = Analysis {
            detections: vec![Detection {
                blob: Blob {
                    min_x: 10,
                    max_x: 19,
                    min_y: 0,
                    max_y: 47,
                    pixels: 480,
                    score_sum: 470.0,
                },
                score: 0.98,
            }],
            duration: Duration::from_micros(800),
        };
        let msg = detections_message(&header(), &analysis);
        assert_eq!(msg.header, header());
        let [d] = &msg.detections[..] else {
            panic!("{msg:?}")
        };
        assert_eq!(d.header, header());
        assert_eq!(
            (d.bbox.center.position.x, d.bbox.center.position.y),
            (14.5, 23.5)
        );
        assert_eq!((d.bbox.size_x, d.bbox.size_y), (10.0, 48.0));
        assert_eq!(d.results[0].hypothesis.class_id, "inspection_target");
        assert_eq!(d.results[0].hypothesis.score, 0.98);
        let none = Analysis {
            detections: vec![],
            duration: Duration::ZERO,
        };
        assert_eq!(detections_message(&header(), &none).detections, []);
    }

    #[test]
    fn health_reports_the_measurement_and_is_ok_without_override() {
        let msg = health_message(&header(), &health(0.0));
        assert_eq!(msg.header, header());
        let status = &msg.status[0];
        assert_eq!(
            (
                status.level,
                status.name.as_str(),
                status.hardware_id.as_str()
            ),
            (DiagnosticStatus::OK, "perception", "cpu")
        );
        assert_eq!(status.value("inference_ms"), Some("1.235"));
        assert_eq!(status.value("measured_inference_ms"), Some("1.235"));
        assert_eq!(status.value("frame_seq"), Some("7"));
        assert_eq!(status.value("detections"), Some("1"));
        assert_eq!(status.value("model"), Some("inspection_seg 1.0.0"));
    }

    #[test]
    fn the_override_is_reported_as_inference_ms_with_a_warning() {
        let msg = health_message(&header(), &health(120.0));
        let status = &msg.status[0];
        assert_eq!(status.level, DiagnosticStatus::WARN);
        assert_eq!(status.value("inference_ms"), Some("120.000"));
        assert_eq!(status.value("measured_inference_ms"), Some("1.235"));
        assert!(status.message.contains("120.000 ms"), "{}", status.message);
    }
}
