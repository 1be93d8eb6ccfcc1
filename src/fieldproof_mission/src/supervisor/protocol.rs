//! The supervisor's line protocol: one [`Frame`] in (15 space-separated fields), one
//! [`Command`] out (6 fields), one line each, stdin to stdout.
//!
//! ```text
//! in:  sequence now imu_stamp gnss_stamp vision_stamp link_stamp battery
//!      pos_e pos_n pos_u target_e target_n target_u inference_ms complete
//! out: sequence mode reason velocity_e velocity_n velocity_u
//! ```
//!
//! Times are simulation seconds, positions ENU metres about the world's origin, velocities ENU
//! metres per second, `battery` a fraction in [0, 1], `complete` 0 or 1. Both lines are
//! written deterministically, so a recorded trace replays byte for byte.

use std::fmt;
use std::str::FromStr;

/// The supervisor's mode, as written on the wire.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Mode {
    /// Waiting for the first second of health; zero velocity.
    Init,
    /// Flying toward the target.
    Active,
    /// A sensor or latency fault: zero velocity while the fault episode runs.
    Hold,
    /// Descending until the autopilot reports touchdown (latched).
    Land,
    /// The mission goal was accepted; stationary (latched within limits).
    Complete,
}

impl Mode {
    /// Every mode, in the state machine's order.
    pub const ALL: [Mode; 5] = [
        Mode::Init,
        Mode::Active,
        Mode::Hold,
        Mode::Land,
        Mode::Complete,
    ];

    /// The wire name: `INIT`, `ACTIVE`, `HOLD`, `LAND` or `COMPLETE`.
    pub fn as_str(self) -> &'static str {
        match self {
            Mode::Init => "INIT",
            Mode::Active => "ACTIVE",
            Mode::Hold => "HOLD",
            Mode::Land => "LAND",
            Mode::Complete => "COMPLETE",
        }
    }

    /// True for the modes the policy never leaves on health alone (`LAND`, `COMPLETE`).
    pub fn is_latched(self) -> bool {
        matches!(self, Mode::Land | Mode::Complete)
    }
}

impl fmt::Display for Mode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A mode name that is none of the five.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown mode {0:?} (expected INIT, ACTIVE, HOLD, LAND or COMPLETE)")]
pub struct UnknownMode(pub String);

impl FromStr for Mode {
    type Err = UnknownMode;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        Mode::ALL
            .into_iter()
            .find(|mode| mode.as_str() == text)
            .ok_or_else(|| UnknownMode(text.to_string()))
    }
}

/// The names of a frame's 15 fields, in wire order (field `i` of an error is `FRAME_FIELDS[i-1]`).
pub const FRAME_FIELDS: [&str; 15] = [
    "sequence",
    "now",
    "imu_stamp",
    "gnss_stamp",
    "vision_stamp",
    "link_stamp",
    "battery",
    "pos_e",
    "pos_n",
    "pos_u",
    "target_e",
    "target_n",
    "target_u",
    "inference_ms",
    "complete",
];

/// Why a frame was rejected; every variant names the field (1-based, as on the wire) and value.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum FrameError {
    /// Not exactly 15 fields.
    #[error("frame has {count} fields, expected 15 ({})", FRAME_FIELDS.join(" "))]
    FieldCount {
        /// How many whitespace-separated fields the line had.
        count: usize,
    },
    /// A field that does not parse as its type.
    #[error("field {index} ({name}): {value:?} is not {expected}")]
    Syntax {
        /// 1-based field index.
        index: usize,
        /// The field's name.
        name: &'static str,
        /// The text as received.
        value: String,
        /// What was expected (`an unsigned integer`, `a number`, `0 or 1`).
        expected: &'static str,
    },
    /// A NaN or infinite number.
    #[error("field {index} ({name}): {value} is not finite")]
    NonFinite {
        /// 1-based field index.
        index: usize,
        /// The field's name.
        name: &'static str,
        /// The value.
        value: f64,
    },
    /// A number outside its range (battery, a stamp, the inference duration).
    #[error("field {index} ({name}): {value} is not in {range}")]
    OutOfRange {
        /// 1-based field index.
        index: usize,
        /// The field's name.
        name: &'static str,
        /// The value.
        value: f64,
        /// The allowed range, e.g. `[0, 1]` or `[0, now = 12.5]`.
        range: String,
    },
    /// A sequence number not greater than the previous frame's (a replayed or reordered frame).
    #[error("field 1 (sequence): {sequence} is not greater than the previous frame's {previous} (replayed or out of order)")]
    SequenceNotIncreasing {
        /// This frame's sequence.
        sequence: u64,
        /// The previous accepted frame's sequence.
        previous: u64,
    },
    /// A time not greater than the previous frame's.
    #[error("field 2 (now): {now} is not greater than the previous frame's {previous} (time must increase strictly)")]
    TimeNotIncreasing {
        /// This frame's time.
        now: f64,
        /// The previous accepted frame's time.
        previous: f64,
    },
}

/// One supervisor input: what the mission computer knows at simulation time `now`.
#[derive(Debug, Clone, PartialEq)]
pub struct Frame {
    /// Strictly increasing frame number; the command answering it carries the same.
    pub sequence: u64,
    /// Simulation time of this evaluation, seconds.
    pub now: f64,
    /// Newest IMU sample stamp, seconds (0 if none yet).
    pub imu_stamp: f64,
    /// Newest GNSS fix stamp, seconds (0 if none yet).
    pub gnss_stamp: f64,
    /// Newest camera capture stamp, seconds (0 if none or no vision).
    pub vision_stamp: f64,
    /// Newest ground-station heartbeat stamp, seconds (0 if none yet).
    pub link_stamp: f64,
    /// Battery charge as a fraction in [0, 1].
    pub battery: f64,
    /// Estimated position, ENU metres (east, north, up) about the world's origin.
    pub position: [f64; 3],
    /// Current target waypoint, ENU metres.
    pub target: [f64; 3],
    /// Reported duration of the newest inference, milliseconds (wall clock).
    pub inference_ms: f64,
    /// The planner accepted the mission goal.
    pub complete: bool,
}

impl Frame {
    /// The frame as one wire line (no newline). Numbers use Rust's shortest round-trip `{}`
    /// formatting, so `Frame::parse(&frame.to_line())` gives back the same frame, bit for bit.
    pub fn to_line(&self) -> String {
        let [pos_e, pos_n, pos_u] = self.position;
        let [target_e, target_n, target_u] = self.target;
        format!(
            "{} {} {} {} {} {} {} {} {} {} {} {} {} {} {}",
            self.sequence,
            self.now,
            self.imu_stamp,
            self.gnss_stamp,
            self.vision_stamp,
            self.link_stamp,
            self.battery,
            pos_e,
            pos_n,
            pos_u,
            target_e,
            target_n,
            target_u,
            self.inference_ms,
            u8::from(self.complete),
        )
    }

    /// Parses one wire line (a trailing `\r`/`\n` is ignored) and checks it with
    /// [`Frame::validate`]. Fields are separated by ASCII whitespace.
    pub fn parse(line: &str) -> Result<Frame, FrameError> {
        let fields: Vec<&str> = line.split_ascii_whitespace().collect();
        if fields.len() != FRAME_FIELDS.len() {
            return Err(FrameError::FieldCount {
                count: fields.len(),
            });
        }
        let sequence = fields[0].parse::<u64>().map_err(|_| FrameError::Syntax {
            index: 1,
            name: FRAME_FIELDS[0],
            value: fields[0].to_string(),
            expected: "an unsigned integer",
        })?;
        let mut numbers = [0.0_f64; 13];
        for (offset, number) in numbers.iter_mut().enumerate() {
            *number = parse_number(offset + 2, fields[offset + 1])?;
        }
        let complete = match fields[14] {
            "0" => false,
            "1" => true,
            other => {
                return Err(FrameError::Syntax {
                    index: 15,
                    name: FRAME_FIELDS[14],
                    value: other.to_string(),
                    expected: "0 or 1",
                })
            }
        };
        let frame = Frame {
            sequence,
            now: numbers[0],
            imu_stamp: numbers[1],
            gnss_stamp: numbers[2],
            vision_stamp: numbers[3],
            link_stamp: numbers[4],
            battery: numbers[5],
            position: [numbers[6], numbers[7], numbers[8]],
            target: [numbers[9], numbers[10], numbers[11]],
            inference_ms: numbers[12],
            complete,
        };
        frame.validate()?;
        Ok(frame)
    }

    /// Checks what a single frame can be checked for: every number finite, `now` nonnegative,
    /// stamps in [0, now], battery in [0, 1], inference duration nonnegative. (Ordering against the previous
    /// frame is the policy's check.)
    pub fn validate(&self) -> Result<(), FrameError> {
        for (offset, value) in self.numbers().into_iter().enumerate() {
            if !value.is_finite() {
                let index = offset + 2;
                return Err(FrameError::NonFinite {
                    index,
                    name: FRAME_FIELDS[index - 1],
                    value,
                });
            }
        }
        if self.now < 0.0 {
            return Err(FrameError::OutOfRange {
                index: 2,
                name: FRAME_FIELDS[1],
                value: self.now,
                range: "[0, inf)".to_string(),
            });
        }
        let stamps = [
            self.imu_stamp,
            self.gnss_stamp,
            self.vision_stamp,
            self.link_stamp,
        ];
        for (offset, stamp) in stamps.into_iter().enumerate() {
            if !(0.0..=self.now).contains(&stamp) {
                let index = offset + 3;
                return Err(FrameError::OutOfRange {
                    index,
                    name: FRAME_FIELDS[index - 1],
                    value: stamp,
                    range: format!("[0, now = {}]", self.now),
                });
            }
        }
        if !(0.0..=1.0).contains(&self.battery) {
            return Err(FrameError::OutOfRange {
                index: 7,
                name: FRAME_FIELDS[6],
                value: self.battery,
                range: "[0, 1]".to_string(),
            });
        }
        if self.inference_ms < 0.0 {
            return Err(FrameError::OutOfRange {
                index: 14,
                name: FRAME_FIELDS[13],
                value: self.inference_ms,
                range: "[0, inf)".to_string(),
            });
        }
        Ok(())
    }

    /// Fields 2 to 14, in wire order.
    fn numbers(&self) -> [f64; 13] {
        [
            self.now,
            self.imu_stamp,
            self.gnss_stamp,
            self.vision_stamp,
            self.link_stamp,
            self.battery,
            self.position[0],
            self.position[1],
            self.position[2],
            self.target[0],
            self.target[1],
            self.target[2],
            self.inference_ms,
        ]
    }
}

/// Parses the number in field `index` (1-based).
fn parse_number(index: usize, text: &str) -> Result<f64, FrameError> {
    text.parse::<f64>().map_err(|_| FrameError::Syntax {
        index,
        name: FRAME_FIELDS[index - 1],
        value: text.to_string(),
        expected: "a number",
    })
}

/// The names of a command's 6 fields, in wire order.
pub const COMMAND_FIELDS: [&str; 6] = [
    "sequence",
    "mode",
    "reason",
    "velocity_e",
    "velocity_n",
    "velocity_u",
];

/// Why a command line was rejected; names the field (1-based) and value.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum CommandError {
    /// Not exactly 6 fields.
    #[error("command has {count} fields, expected 6 ({})", COMMAND_FIELDS.join(" "))]
    FieldCount {
        /// How many whitespace-separated fields the line had.
        count: usize,
    },
    /// A field that does not parse as its type.
    #[error("field {index} ({name}): {value:?} is not {expected}")]
    Syntax {
        /// 1-based field index.
        index: usize,
        /// The field's name.
        name: &'static str,
        /// The text as received.
        value: String,
        /// What was expected.
        expected: &'static str,
    },
    /// A NaN or infinite velocity component.
    #[error("field {index} ({name}): {value} is not finite")]
    NonFinite {
        /// 1-based field index.
        index: usize,
        /// The field's name.
        name: &'static str,
        /// The value.
        value: f64,
    },
}

/// One supervisor output: the mode, why, and the ENU velocity setpoint for the frame with the
/// same sequence.
#[derive(Debug, Clone, PartialEq)]
pub struct Command {
    /// The answered frame's sequence.
    pub sequence: u64,
    /// The mode after evaluating the frame.
    pub mode: Mode,
    /// One token (`[a-z0-9_]+`) saying why, e.g. `healthy`, `gnss_stale`, `episode_2s`.
    pub reason: String,
    /// Velocity setpoint, ENU metres per second (east, north, up).
    pub velocity: [f64; 3],
}

impl Command {
    /// The command as one wire line (no newline): velocities with 6 decimals (micrometres per
    /// second), a negative zero written as `0.000000`.
    pub fn to_line(&self) -> String {
        let [east, north, up] = self.velocity.map(format_velocity);
        format!(
            "{} {} {} {} {} {}",
            self.sequence, self.mode, self.reason, east, north, up
        )
    }

    /// Parses one wire line (a trailing `\r`/`\n` is ignored).
    pub fn parse(line: &str) -> Result<Command, CommandError> {
        let fields: Vec<&str> = line.split_ascii_whitespace().collect();
        if fields.len() != COMMAND_FIELDS.len() {
            return Err(CommandError::FieldCount {
                count: fields.len(),
            });
        }
        let syntax = |index: usize, expected: &'static str| CommandError::Syntax {
            index,
            name: COMMAND_FIELDS[index - 1],
            value: fields[index - 1].to_string(),
            expected,
        };
        let sequence = fields[0]
            .parse::<u64>()
            .map_err(|_| syntax(1, "an unsigned integer"))?;
        let mode = fields[1]
            .parse::<Mode>()
            .map_err(|_| syntax(2, "INIT, ACTIVE, HOLD, LAND or COMPLETE"))?;
        if !is_reason_token(fields[2]) {
            return Err(syntax(3, "a reason token ([a-z0-9_]+)"));
        }
        let mut velocity = [0.0; 3];
        for (axis, component) in velocity.iter_mut().enumerate() {
            let index = axis + 4;
            let value = fields[index - 1]
                .parse::<f64>()
                .map_err(|_| syntax(index, "a number"))?;
            if !value.is_finite() {
                return Err(CommandError::NonFinite {
                    index,
                    name: COMMAND_FIELDS[index - 1],
                    value,
                });
            }
            *component = value;
        }
        Ok(Command {
            sequence,
            mode,
            reason: fields[2].to_string(),
            velocity,
        })
    }

    /// The setpoint's speed (Euclidean norm), metres per second.
    pub fn speed(&self) -> f64 {
        let [east, north, up] = self.velocity;
        east.hypot(north).hypot(up)
    }
}

/// True for a reason token: nonempty, lowercase ASCII letters, digits and `_` only.
pub fn is_reason_token(text: &str) -> bool {
    !text.is_empty()
        && text
            .bytes()
            .all(|byte| byte.is_ascii_lowercase() || byte.is_ascii_digit() || byte == b'_')
}

/// `{:.6}`, with a result that rounds to zero written without its sign.
fn format_velocity(value: f64) -> String {
    let text = format!("{value:.6}");
    match text.strip_prefix('-') {
        Some(magnitude) if magnitude.bytes().all(|b| b == b'0' || b == b'.') => {
            magnitude.to_string()
        }
        _ => text,
    }
}

/// Maps an ENU vector (east, north, up) to NED (north, east, down): `(x, y, z) -> (y, x, -z)`.
///
/// A vector swap only. A real autopilot adapter (PX4) also needs its body-frame conventions,
/// the orientation conversion (quaternions are not vectors) and timestamp handling; applying
/// only this swap to every message would be wrong.
pub fn enu_to_ned(enu: [f64; 3]) -> [f64; 3] {
    let [x, y, z] = enu;
    [y, x, -z]
}

#[cfg(test)]
mod tests;
