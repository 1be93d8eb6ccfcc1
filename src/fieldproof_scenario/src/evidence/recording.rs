//! The MCAP recording (profile `ros2`, schema encoding `ros2msg`, CDR messages) and the
//! rosbag2 `metadata.yaml` beside it, so `ros2 bag info` and the Python `mcap` +
//! `mcap-ros2-support` readers open the run directory as a bag.

use super::msgdefs;
use std::collections::BTreeMap;
use std::fs::File;
use std::io::BufWriter;
use std::path::{Path, PathBuf};

/// A recording that cannot be written.
#[derive(Debug, thiserror::Error)]
pub enum RecordingError {
    /// File system.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// The OS error.
        source: std::io::Error,
    },
    /// The MCAP writer.
    #[error("{}: {message}", path.display())]
    Mcap {
        /// The file.
        path: PathBuf,
        /// What failed.
        message: String,
    },
    /// A type without a definition.
    #[error("{topic}: no message definition for {ros_type}")]
    UnknownType {
        /// Topic.
        topic: String,
        /// Type.
        ros_type: String,
    },
}

struct Channel {
    id: u16,
    ros_type: String,
    count: u64,
}

/// An open MCAP file.
pub struct Recording {
    path: PathBuf,
    writer: mcap::Writer<BufWriter<File>>,
    channels: BTreeMap<String, Channel>,
    seq: u32,
    first_ns: Option<u64>,
    last_ns: u64,
}

/// What was recorded.
#[derive(Debug, Clone, serde::Serialize)]
pub struct RecordingSummary {
    /// The MCAP file.
    pub file: PathBuf,
    /// Messages per topic.
    pub topics: BTreeMap<String, (String, u64)>,
    /// All messages.
    pub message_count: u64,
    /// First log time (ns).
    pub start_ns: u64,
    /// Last minus first (ns).
    pub duration_ns: u64,
}

impl Recording {
    /// Creates `path`.
    pub fn create(path: &Path) -> Result<Self, RecordingError> {
        let f = File::create(path).map_err(|e| RecordingError::Io {
            path: path.into(),
            source: e,
        })?;
        let writer = mcap::WriteOptions::new()
            .profile("ros2")
            .library("fieldproof_scenario")
            .create(BufWriter::new(f))
            .map_err(|e| RecordingError::Mcap {
                path: path.into(),
                message: e.to_string(),
            })?;
        Ok(Recording {
            path: path.into(),
            writer,
            channels: BTreeMap::new(),
            seq: 0,
            first_ns: None,
            last_ns: 0,
        })
    }

    fn mcap_err(&self, e: mcap::McapError) -> RecordingError {
        RecordingError::Mcap {
            path: self.path.clone(),
            message: e.to_string(),
        }
    }

    /// Adds the channel of `topic` (once).
    pub fn channel(&mut self, topic: &str, ros_type: &str) -> Result<u16, RecordingError> {
        if let Some(c) = self.channels.get(topic) {
            return Ok(c.id);
        }
        let schema = msgdefs::schema(ros_type).ok_or_else(|| RecordingError::UnknownType {
            topic: topic.into(),
            ros_type: ros_type.into(),
        })?;
        let sid = self
            .writer
            .add_schema(ros_type, "ros2msg", schema.as_bytes())
            .map_err(|e| self.mcap_err(e))?;
        let id = self
            .writer
            .add_channel(sid, topic, "cdr", &BTreeMap::new())
            .map_err(|e| self.mcap_err(e))?;
        self.channels.insert(
            topic.into(),
            Channel {
                id,
                ros_type: ros_type.into(),
                count: 0,
            },
        );
        Ok(id)
    }

    /// Writes one CDR message (with its 4-byte encapsulation header) at `log_ns`.
    pub fn write(
        &mut self,
        topic: &str,
        ros_type: &str,
        log_ns: u64,
        cdr: &[u8],
    ) -> Result<(), RecordingError> {
        let id = self.channel(topic, ros_type)?;
        self.seq = self.seq.wrapping_add(1);
        let header = mcap::records::MessageHeader {
            channel_id: id,
            sequence: self.seq,
            log_time: log_ns,
            publish_time: log_ns,
        };
        self.writer
            .write_to_known_channel(&header, cdr)
            .map_err(|e| self.mcap_err(e))?;
        if let Some(c) = self.channels.get_mut(topic) {
            c.count += 1;
        }
        self.first_ns = Some(self.first_ns.map_or(log_ns, |f| f.min(log_ns)));
        self.last_ns = self.last_ns.max(log_ns);
        Ok(())
    }

    /// Finishes the file and writes `metadata.yaml` in its directory.
    pub fn finish(mut self) -> Result<RecordingSummary, RecordingError> {
        self.writer.finish().map_err(|e| self.mcap_err(e))?;
        let start_ns = self.first_ns.unwrap_or(0);
        let summary = RecordingSummary {
            file: self.path.clone(),
            topics: self
                .channels
                .iter()
                .map(|(t, c)| (t.clone(), (c.ros_type.clone(), c.count)))
                .collect(),
            message_count: self.channels.values().map(|c| c.count).sum(),
            start_ns,
            duration_ns: self.last_ns.saturating_sub(start_ns),
        };
        let dir = self.path.parent().unwrap_or(Path::new("."));
        let meta = dir.join("metadata.yaml");
        std::fs::write(&meta, metadata_yaml(&summary)).map_err(|e| RecordingError::Io {
            path: meta,
            source: e,
        })?;
        Ok(summary)
    }
}

/// rosbag2's `metadata.yaml` (version 8, storage `mcap`) for a recording.
pub fn metadata_yaml(s: &RecordingSummary) -> String {
    let file = s
        .file
        .file_name()
        .map(|f| f.to_string_lossy().into_owned())
        .unwrap_or_default();
    let mut y =
        String::from("rosbag2_bagfile_information:\n  version: 8\n  storage_identifier: mcap\n");
    y += &format!(
        "  duration:\n    nanoseconds: {}\n  starting_time:\n    nanoseconds_since_epoch: {}\n  message_count: {}\n",
        s.duration_ns, s.start_ns, s.message_count
    );
    y += "  topics_with_message_count:\n";
    for (topic, (ty, n)) in &s.topics {
        y += &format!(
            "    - topic_metadata:\n        name: {topic}\n        type: {ty}\n        serialization_format: cdr\n        offered_qos_profiles: \"\"\n        type_description_hash: \"\"\n      message_count: {n}\n"
        );
    }
    y += "  compression_format: \"\"\n  compression_mode: \"\"\n";
    y += &format!("  relative_file_paths:\n    - {file}\n");
    y += &format!(
        "  files:\n    - path: {file}\n      starting_time:\n        nanoseconds_since_epoch: {}\n      duration:\n        nanoseconds: {}\n      message_count: {}\n",
        s.start_ns, s.duration_ns, s.message_count
    );
    y += "  custom_data: ~\n  ros_distro: jazzy\n";
    y
}
