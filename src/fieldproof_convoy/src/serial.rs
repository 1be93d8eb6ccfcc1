//! Serial framing: opening a serial device (a real port or one end of a pty pair) in raw mode,
//! and finding 28-byte convoy frames in a byte stream, resynchronising on magic + CRC.

use std::fs::{File, OpenOptions};
use std::io;
use std::os::unix::fs::OpenOptionsExt;

use crate::packet::{ConvoyPacket, MAGIC, PACKET_LEN};

/// One frame as it travels: the packet's 28 bytes.
pub type Frame = [u8; PACKET_LEN];

/// Opens `path` for reading and writing, puts a terminal in raw mode (no echo, no line
/// editing, no CR/LF translation: the frames are binary), and makes writes non-blocking when
/// `nonblocking_writes` (a full buffer with nobody reading must not stall a node; the caller
/// counts the frame it could not write). The error names the path.
pub fn open_raw(path: &str, nonblocking_writes: bool) -> io::Result<File> {
    let mut flags = nix::libc::O_NOCTTY;
    if nonblocking_writes {
        flags |= nix::libc::O_NONBLOCK;
    }
    let file = OpenOptions::new()
        .read(true)
        .write(true)
        .custom_flags(flags)
        .open(path)
        .map_err(|e| io::Error::new(e.kind(), format!("serial device {path:?}: {e}")))?;
    make_raw(&file).map_err(|e| io::Error::other(format!("serial device {path:?}: {e}")))?;
    Ok(file)
}

/// [`open_raw`], waiting up to `wait` for `path` to appear (a pty link another process of the
/// run creates as it starts); every other error, or a path still missing at the end, is
/// returned at once.
pub fn open_raw_waiting(
    path: &str,
    nonblocking_writes: bool,
    wait: std::time::Duration,
) -> io::Result<File> {
    let deadline = std::time::Instant::now() + wait;
    loop {
        match open_raw(path, nonblocking_writes) {
            Err(e)
                if e.kind() == io::ErrorKind::NotFound && std::time::Instant::now() < deadline =>
            {
                std::thread::sleep(std::time::Duration::from_millis(50));
            }
            other => return other,
        }
    }
}

/// Puts a terminal in raw mode; a file that is not a terminal is left alone.
pub fn make_raw(fd: impl std::os::fd::AsFd) -> nix::Result<()> {
    use nix::sys::termios::{cfmakeraw, tcgetattr, tcsetattr, SetArg};
    use std::os::fd::AsRawFd;
    let fd = fd.as_fd();
    if !nix::unistd::isatty(fd.as_raw_fd()).unwrap_or(false) {
        return Ok(());
    }
    let mut attrs = tcgetattr(fd)?;
    cfmakeraw(&mut attrs);
    tcsetattr(fd, SetArg::TCSANOW, &attrs)
}

/// Finds frames in a byte stream: a frame starts at the magic byte and must carry a good CRC;
/// anything else is skipped one byte at a time, so the reader resynchronises after noise, a
/// cut frame or a false magic inside a payload.
#[derive(Debug, Default)]
pub struct Deframer {
    buffer: Vec<u8>,
    skipped_bytes: u64,
    rejected_frames: u64,
}

impl Deframer {
    /// An empty deframer.
    pub fn new() -> Deframer {
        Deframer::default()
    }

    /// Adds `bytes` and returns the complete, valid frames found, in order.
    pub fn push(&mut self, bytes: &[u8]) -> Vec<Frame> {
        self.buffer.extend_from_slice(bytes);
        let mut frames = Vec::new();
        let mut start = 0;
        loop {
            match self.buffer[start..].iter().position(|b| *b == MAGIC) {
                Some(offset) => {
                    self.skipped_bytes += offset as u64;
                    start += offset;
                }
                None => {
                    self.skipped_bytes += (self.buffer.len() - start) as u64;
                    start = self.buffer.len();
                    break;
                }
            }
            if self.buffer.len() - start < PACKET_LEN {
                break;
            }
            let candidate = &self.buffer[start..start + PACKET_LEN];
            if ConvoyPacket::decode(candidate).is_ok() {
                frames.push(candidate.try_into().expect("PACKET_LEN bytes"));
                start += PACKET_LEN;
            } else {
                self.rejected_frames += 1;
                self.skipped_bytes += 1;
                start += 1;
            }
        }
        self.buffer.drain(..start);
        frames
    }

    /// Bytes thrown away while looking for a frame.
    pub fn skipped_bytes(&self) -> u64 {
        self.skipped_bytes
    }

    /// Candidate frames (a magic byte with 27 more) whose CRC or content did not check.
    pub fn rejected_frames(&self) -> u64 {
        self.rejected_frames
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frame(seq: u32) -> Frame {
        ConvoyPacket {
            rover_id: 1,
            seq,
            t_ms: seq * 200,
            x_m: 1.0,
            y_m: -2.0,
            heading_rad: 0.5,
            speed_mps: 0.3,
        }
        .encode()
    }

    #[test]
    fn waiting_open_finds_a_path_that_appears_and_names_one_that_never_does() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("late");
        let late = path.clone();
        let writer = std::thread::spawn(move || {
            std::thread::sleep(std::time::Duration::from_millis(100));
            std::fs::write(late, b"").unwrap();
        });
        let wait = std::time::Duration::from_secs(30);
        assert!(open_raw_waiting(path.to_str().unwrap(), false, wait).is_ok());
        writer.join().unwrap();
        let missing = dir.path().join("never");
        let err = open_raw_waiting(missing.to_str().unwrap(), false, std::time::Duration::ZERO)
            .unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::NotFound);
        assert!(err.to_string().contains("never"), "{err}");
    }

    #[test]
    fn frames_split_across_reads_are_joined() {
        let mut deframer = Deframer::new();
        let bytes = [frame(1), frame(2)].concat();
        assert!(deframer.push(&bytes[..10]).is_empty());
        assert_eq!(deframer.push(&bytes[10..40]), vec![frame(1)]);
        assert_eq!(deframer.push(&bytes[40..]), vec![frame(2)]);
        assert_eq!(deframer.skipped_bytes(), 0);
    }

    #[test]
    fn noise_and_a_cut_frame_are_skipped_and_the_stream_resyncs() {
        let mut deframer = Deframer::new();
        let cut = &frame(7)[..15];
        let mut bytes = vec![0x00, MAGIC, 0x55];
        bytes.extend_from_slice(cut);
        bytes.extend_from_slice(&frame(8));
        bytes.extend_from_slice(&frame(9));
        let frames = deframer.push(&bytes);
        assert_eq!(frames, vec![frame(8), frame(9)]);
        assert_eq!(deframer.skipped_bytes(), (3 + cut.len()) as u64);
        assert!(deframer.rejected_frames() >= 2);
    }

    #[test]
    fn a_corrupted_frame_is_dropped_and_the_next_one_found() {
        let mut deframer = Deframer::new();
        let mut bad = frame(3);
        bad[10] ^= 0x40;
        let frames = deframer.push(&[bad, frame(4)].concat());
        assert_eq!(frames, vec![frame(4)]);
        assert_eq!(deframer.skipped_bytes(), PACKET_LEN as u64);
    }
}
