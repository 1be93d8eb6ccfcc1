//! `vision_msgs` (4.x, as ROS 2 Jazzy ships it): the 2D detection types, Detection2DArray,
//! Detection2D, BoundingBox2D, Pose2D, Point2D, ObjectHypothesisWithPose, ObjectHypothesis.
//! Image coordinates are pixels: x to the right, y down (the `sensor_msgs/Image` convention).

use serde::{Deserialize, Serialize};

use crate::{geometry_msgs::PoseWithCovariance, std_msgs::Header};

/// `vision_msgs/msg/Point2D`: a point in pixel coordinates.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
pub struct Point2D {
    /// Pixels to the right of the image's left edge.
    pub x: f64,
    /// Pixels down from the image's top edge.
    pub y: f64,
}

crate::ros_message!(Point2D, "vision_msgs/msg/Point2D");

/// `vision_msgs/msg/Pose2D`: a position in pixels and a rotation (radians, counterclockwise
/// positive). Not `geometry_msgs/Pose2D`, which vision_msgs 4 stopped using.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
pub struct Pose2D {
    /// The position.
    pub position: Point2D,
    /// The rotation, radians.
    pub theta: f64,
}

crate::ros_message!(Pose2D, "vision_msgs/msg/Pose2D");

/// `vision_msgs/msg/BoundingBox2D`: a box about its center, sizes in pixels.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
pub struct BoundingBox2D {
    /// The box's center and rotation.
    pub center: Pose2D,
    /// Width, pixels.
    pub size_x: f64,
    /// Height, pixels.
    pub size_y: f64,
}

crate::ros_message!(BoundingBox2D, "vision_msgs/msg/BoundingBox2D");

/// `vision_msgs/msg/ObjectHypothesis`: a class and its score.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct ObjectHypothesis {
    /// The class's id.
    pub class_id: String,
    /// Probability or confidence, by convention in `[0, 1]`.
    pub score: f64,
}

crate::ros_message!(ObjectHypothesis, "vision_msgs/msg/ObjectHypothesis");

/// `vision_msgs/msg/ObjectHypothesisWithPose`: a hypothesis and the object's 6D pose (in the
/// frame of the enclosing message's header).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct ObjectHypothesisWithPose {
    /// Class and score.
    pub hypothesis: ObjectHypothesis,
    /// The pose of the object's reference point.
    pub pose: PoseWithCovariance,
}

crate::ros_message!(
    ObjectHypothesisWithPose,
    "vision_msgs/msg/ObjectHypothesisWithPose"
);

/// `vision_msgs/msg/Detection2D`: one detected object in an image.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Detection2D {
    /// Stamp and frame (those of the source image).
    pub header: Header,
    /// Class hypotheses.
    pub results: Vec<ObjectHypothesisWithPose>,
    /// The box around the object.
    pub bbox: BoundingBox2D,
    /// Id of the object across messages, may be empty.
    pub id: String,
}

crate::ros_message!(Detection2D, "vision_msgs/msg/Detection2D", stamped);

/// `vision_msgs/msg/Detection2DArray`: the detections of one image.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Detection2DArray {
    /// Stamp and frame (those of the source image).
    pub header: Header,
    /// The detections.
    pub detections: Vec<Detection2D>,
}

crate::ros_message!(
    Detection2DArray,
    "vision_msgs/msg/Detection2DArray",
    stamped
);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{builtin_interfaces::Time, cdr};

    fn detection(class_id: &str, score: f64) -> Detection2D {
        Detection2D {
            header: Header {
                stamp: Time {
                    sec: 12,
                    nanosec: 500,
                },
                frame_id: "camera".into(),
            },
            results: vec![ObjectHypothesisWithPose {
                hypothesis: ObjectHypothesis {
                    class_id: class_id.into(),
                    score,
                },
                pose: PoseWithCovariance::default(),
            }],
            bbox: BoundingBox2D {
                center: Pose2D {
                    position: Point2D { x: 31.5, y: 20.0 },
                    theta: 0.25,
                },
                size_x: 9.0,
                size_y: 7.0,
            },
            id: "t1".into(),
        }
    }

    #[test]
    fn wire_layout_of_the_small_types() {
        let point = Point2D { x: 1.0, y: -2.0 };
        let mut expected = vec![0, 1, 0, 0];
        expected.extend(1.0f64.to_le_bytes());
        expected.extend((-2.0f64).to_le_bytes());
        assert_eq!(cdr::to_bytes(&point).unwrap(), expected);
        // string "a" (length 2 with the NUL), padding to 8, then the float64 score.
        let hypothesis = ObjectHypothesis {
            class_id: "a".into(),
            score: 0.5,
        };
        let mut expected = vec![0, 1, 0, 0, 2, 0, 0, 0, b'a', 0, 0, 0];
        expected.extend(0.5f64.to_le_bytes());
        assert_eq!(cdr::to_bytes(&hypothesis).unwrap(), expected);
        // BoundingBox2D is five float64: x, y, theta, size_x, size_y.
        assert_eq!(
            cdr::to_bytes(&BoundingBox2D::default()).unwrap().len(),
            4 + 5 * 8
        );
    }

    #[test]
    fn detections_round_trip() {
        let array = Detection2DArray {
            header: Header {
                stamp: Time {
                    sec: 12,
                    nanosec: 500,
                },
                frame_id: "camera".into(),
            },
            detections: vec![detection("inspection_target", 0.93), detection("", 0.0)],
        };
        let bytes = cdr::to_bytes(&array).unwrap();
        assert_eq!(cdr::from_bytes::<Detection2DArray>(&bytes).unwrap(), array);
        let empty = Detection2DArray::default();
        let bytes = cdr::to_bytes(&empty).unwrap();
        assert_eq!(cdr::from_bytes::<Detection2DArray>(&bytes).unwrap(), empty);
        // A hypothesis' pose defaults to the identity orientation, as in ROS.
        assert_eq!(
            ObjectHypothesisWithPose::default().pose.pose.orientation.w,
            1.0
        );
    }
}
