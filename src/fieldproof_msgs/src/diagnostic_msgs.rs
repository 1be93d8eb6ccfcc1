//! `diagnostic_msgs`: DiagnosticArray, DiagnosticStatus, KeyValue.

use serde::{Deserialize, Serialize};

use crate::std_msgs::Header;

/// `diagnostic_msgs/msg/KeyValue`: one named value of a status.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct KeyValue {
    /// The value's label.
    pub key: String,
    /// The value, as text.
    pub value: String,
}

impl KeyValue {
    /// A key and its value.
    pub fn new(key: impl Into<String>, value: impl Into<String>) -> Self {
        Self {
            key: key.into(),
            value: value.into(),
        }
    }
}

crate::ros_message!(KeyValue, "diagnostic_msgs/msg/KeyValue");

/// `diagnostic_msgs/msg/DiagnosticStatus`: the state of one component.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct DiagnosticStatus {
    /// One of [`Self::OK`], [`Self::WARN`], [`Self::ERROR`], [`Self::STALE`].
    pub level: u8,
    /// The component or test reporting.
    pub name: String,
    /// What the status is.
    pub message: String,
    /// A unique hardware id.
    pub hardware_id: String,
    /// Values of the component, tracked over time.
    pub values: Vec<KeyValue>,
}

impl DiagnosticStatus {
    /// Level: operating normally.
    pub const OK: u8 = 0;
    /// Level: a warning.
    pub const WARN: u8 = 1;
    /// Level: an error.
    pub const ERROR: u8 = 2;
    /// Level: no recent report.
    pub const STALE: u8 = 3;

    /// The value of the first entry of `values` named `key`, `None` if there is none.
    pub fn value(&self, key: &str) -> Option<&str> {
        self.values
            .iter()
            .find(|entry| entry.key == key)
            .map(|entry| entry.value.as_str())
    }
}

crate::ros_message!(DiagnosticStatus, "diagnostic_msgs/msg/DiagnosticStatus");

/// `diagnostic_msgs/msg/DiagnosticArray`: the statuses reported at one time.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct DiagnosticArray {
    /// Stamp (and frame) of the report.
    pub header: Header,
    /// One status per component.
    pub status: Vec<DiagnosticStatus>,
}

crate::ros_message!(
    DiagnosticArray,
    "diagnostic_msgs/msg/DiagnosticArray",
    stamped
);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{builtin_interfaces::Time, cdr};

    #[test]
    fn wire_layout_level_is_one_byte() {
        let status = DiagnosticStatus {
            level: DiagnosticStatus::WARN,
            name: "p".into(),
            ..DiagnosticStatus::default()
        };
        // byte level, pad to 4, "p\0", pad to 4, two empty strings, empty sequence.
        assert_eq!(
            cdr::to_bytes(&status).unwrap(),
            [
                0, 1, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0, b'p', 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0,
                0, 0, 0, 0, 0, 0, 0, 0, 0
            ]
        );
    }

    #[test]
    fn diagnostics_round_trip_and_values_by_key() {
        let array = DiagnosticArray {
            header: Header {
                stamp: Time { sec: 3, nanosec: 7 },
                frame_id: "camera".into(),
            },
            status: vec![
                DiagnosticStatus {
                    level: DiagnosticStatus::OK,
                    name: "perception".into(),
                    message: "ok".into(),
                    hardware_id: "cpu".into(),
                    values: vec![
                        KeyValue::new("inference_ms", "4.250"),
                        KeyValue::new("frame_seq", "17"),
                    ],
                },
                DiagnosticStatus {
                    level: DiagnosticStatus::STALE,
                    ..DiagnosticStatus::default()
                },
            ],
        };
        let bytes = cdr::to_bytes(&array).unwrap();
        let back: DiagnosticArray = cdr::from_bytes(&bytes).unwrap();
        assert_eq!(back, array);
        assert_eq!(back.status[0].value("inference_ms"), Some("4.250"));
        assert_eq!(back.status[0].value("frame_seq"), Some("17"));
        assert_eq!(back.status[0].value("detections"), None);
        assert_eq!(
            [
                DiagnosticStatus::OK,
                DiagnosticStatus::WARN,
                DiagnosticStatus::ERROR,
                DiagnosticStatus::STALE
            ],
            [0, 1, 2, 3]
        );
    }
}
