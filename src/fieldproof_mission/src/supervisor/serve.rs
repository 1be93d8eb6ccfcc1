//! The process boundary: frames in, one command line out per accepted frame, flushed at once.

use std::io::{self, BufRead, Read, Write};

use super::policy::Policy;
use super::protocol::{Frame, FrameError};

/// The longest frame line accepted, bytes (without its newline). A valid frame is at most a few
/// hundred bytes unless it carries numbers near f64's limits (up to ~330 bytes each).
pub const MAX_LINE_BYTES: usize = 8192;

/// Why serving stopped before the end of the input.
#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    /// A frame that is malformed, out of range or replayed (exit code 2).
    #[error("line {line}: {source}")]
    Frame {
        /// 1-based input line number.
        line: u64,
        /// What was wrong with it.
        source: FrameError,
    },
    /// A line longer than [`MAX_LINE_BYTES`] (exit code 2).
    #[error("line {line}: longer than {MAX_LINE_BYTES} bytes")]
    LineTooLong {
        /// 1-based input line number.
        line: u64,
    },
    /// A line that is not UTF-8 (exit code 2).
    #[error("line {line}: not UTF-8")]
    NotUtf8 {
        /// 1-based input line number.
        line: u64,
    },
    /// Reading the frames failed (exit code 1).
    #[error("reading frames: {0}")]
    Read(io::Error),
    /// Writing a command failed, e.g. the reader went away (exit code 1).
    #[error("writing commands: {0}")]
    Write(io::Error),
}

impl ServeError {
    /// The process exit code: 2 for bad input (the protocol's rule), 1 for a transport failure.
    pub fn exit_code(&self) -> u8 {
        match self {
            ServeError::Frame { .. }
            | ServeError::LineTooLong { .. }
            | ServeError::NotUtf8 { .. } => 2,
            ServeError::Read(_) | ServeError::Write(_) => 1,
        }
    }
}

/// Reads frames from `input` until its end, answering each with one command line on `output`
/// (flushed after each). Stops at the first rejected frame without answering it. Returns how
/// many frames were answered.
pub fn serve(
    mut input: impl BufRead,
    mut output: impl Write,
    policy: &mut Policy,
) -> Result<u64, ServeError> {
    let mut buffer = Vec::with_capacity(256);
    let mut line = 0_u64;
    loop {
        buffer.clear();
        let read = Read::take(&mut input, MAX_LINE_BYTES as u64 + 2)
            .read_until(b'\n', &mut buffer)
            .map_err(ServeError::Read)?;
        if read == 0 {
            return Ok(line);
        }
        line += 1;
        let content = buffer.strip_suffix(b"\n").unwrap_or(&buffer);
        let content = content.strip_suffix(b"\r").unwrap_or(content);
        if content.len() > MAX_LINE_BYTES {
            return Err(ServeError::LineTooLong { line });
        }
        let text = std::str::from_utf8(content).map_err(|_| ServeError::NotUtf8 { line })?;
        let command = Frame::parse(text)
            .and_then(|frame| policy.step(&frame))
            .map_err(|source| ServeError::Frame { line, source })?;
        let mut answer = command.to_line();
        answer.push('\n');
        output
            .write_all(answer.as_bytes())
            .and_then(|()| output.flush())
            .map_err(ServeError::Write)?;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::supervisor::config::PolicyConfig;
    use crate::supervisor::protocol::Command;
    use proptest::prelude::*;

    fn policy() -> Policy {
        Policy::new(PolicyConfig::default()).unwrap()
    }

    fn frame_line(sequence: u64, now: f64) -> String {
        format!("{sequence} {now} {now} {now} {now} {now} 0.9 0 0 10 20 0 10 30 0\n")
    }

    fn serve_text(input: &str) -> (Result<u64, ServeError>, String) {
        let mut output = Vec::new();
        let result = serve(input.as_bytes(), &mut output, &mut policy());
        (result, String::from_utf8(output).unwrap())
    }

    #[test]
    fn answers_each_frame_with_one_line_until_eof() {
        let input: String = (1..=30).map(|i| frame_line(i, i as f64 * 0.05)).collect();
        let (result, output) = serve_text(&input);
        assert_eq!(result.unwrap(), 30);
        let lines: Vec<&str> = output.lines().collect();
        assert_eq!(lines.len(), 30);
        assert_eq!(lines[0], "1 INIT init_dwell 0.000000 0.000000 0.000000");
        assert_eq!(lines[20], "21 ACTIVE healthy 2.000000 0.000000 0.000000");
    }

    #[test]
    fn empty_input_answers_nothing() {
        assert_eq!(serve_text("").0.unwrap(), 0);
    }

    #[test]
    fn a_last_line_without_newline_is_answered() {
        let (result, output) = serve_text(frame_line(1, 0.0).trim_end());
        assert_eq!(result.unwrap(), 1);
        assert_eq!(output.lines().count(), 1);
    }

    #[test]
    fn a_rejected_frame_stops_without_an_answer() {
        let input = format!(
            "{}{}{}",
            frame_line(1, 0.05),
            frame_line(1, 0.10),
            frame_line(2, 0.15)
        );
        let (result, output) = serve_text(&input);
        let error = result.unwrap_err();
        assert_eq!(error.exit_code(), 2);
        assert!(
            error
                .to_string()
                .starts_with("line 2: field 1 (sequence): 1 is not greater"),
            "{error}"
        );
        assert_eq!(output.lines().count(), 1);
    }

    #[test]
    fn a_blank_line_is_a_frame_with_no_fields() {
        let (result, output) = serve_text(&format!("{}\n", frame_line(1, 0.05)));
        let error = result.unwrap_err();
        assert_eq!(
            error.to_string(),
            format!("line 2: {}", FrameError::FieldCount { count: 0 })
        );
        assert_eq!(output.lines().count(), 1);
    }

    #[test]
    fn an_overlong_line_is_rejected_without_reading_it_all() {
        let input = format!("1 {}\n", "0".repeat(MAX_LINE_BYTES * 4));
        let error = serve_text(&input).0.unwrap_err();
        assert!(
            matches!(error, ServeError::LineTooLong { line: 1 }),
            "{error}"
        );
        assert_eq!(error.exit_code(), 2);
    }

    #[test]
    fn a_line_of_exactly_the_limit_is_read_whole() {
        // Padding with spaces keeps it a valid frame of MAX_LINE_BYTES bytes.
        let frame = frame_line(1, 0.0);
        let frame = frame.trim_end();
        let padded = format!("{frame}{}\r\n", " ".repeat(MAX_LINE_BYTES - frame.len()));
        assert_eq!(serve_text(&padded).0.unwrap(), 1);
    }

    #[test]
    fn invalid_utf8_is_rejected() {
        let mut output = Vec::new();
        let error = serve(&b"1 0 \xff\n"[..], &mut output, &mut policy()).unwrap_err();
        assert!(matches!(error, ServeError::NotUtf8 { line: 1 }), "{error}");
    }

    #[test]
    fn a_closed_output_is_a_transport_failure() {
        struct Closed;
        impl Write for Closed {
            fn write(&mut self, _: &[u8]) -> io::Result<usize> {
                Err(io::Error::from(io::ErrorKind::BrokenPipe))
            }
            fn flush(&mut self) -> io::Result<()> {
                Ok(())
            }
        }
        let error = serve(frame_line(1, 0.0).as_bytes(), Closed, &mut policy()).unwrap_err();
        assert!(matches!(error, ServeError::Write(_)), "{error}");
        assert_eq!(error.exit_code(), 1);
    }

    proptest! {
        #[test]
        fn never_two_answers_for_one_frame(
            steps in proptest::collection::vec((0..3_u64, 0..3_u32, any::<bool>()), 1..120),
        ) {
            // Sequence and time steps of 0 make replays; `garble` makes a malformed line.
            let (mut sequence, mut tenths) = (0_u64, 0_u32);
            let mut input = String::new();
            for (sequence_step, time_step, garble) in &steps {
                sequence += sequence_step;
                tenths += time_step;
                if *garble && sequence % 7 == 3 {
                    input.push_str("1 2 3\n");
                } else {
                    input.push_str(&frame_line(sequence, f64::from(tenths) / 10.0));
                }
            }
            let mut output = Vec::new();
            let result = serve(input.as_bytes(), &mut output, &mut policy());
            let output = String::from_utf8(output).unwrap();
            let answered: Vec<Command> = output.lines().map(|l| Command::parse(l).unwrap()).collect();
            let input_lines: Vec<&str> = input.lines().collect();
            match result {
                Ok(count) => prop_assert_eq!(count as usize, input_lines.len()),
                Err(ServeError::Frame { line, .. }) => prop_assert_eq!(line as usize, answered.len() + 1),
                Err(other) => prop_assert!(false, "{}", other),
            }
            // Each answer carries its frame's sequence, in order, once.
            for (answer, line) in answered.iter().zip(&input_lines) {
                prop_assert_eq!(answer.sequence, Frame::parse(line).unwrap().sequence);
            }
            prop_assert!(answered.windows(2).all(|pair| pair[0].sequence < pair[1].sequence));
        }
    }
}
