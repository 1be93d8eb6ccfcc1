//! What the node tests share: pty pairs, the node binaries as child processes, an in-process
//! DDS peer, and frame collection from a pty. Every test that uses them starts with
//! `fieldproof_testkit::contain_or_return!()` (its DDS participants stay in a private network
//! namespace).
#![allow(dead_code)]

use std::fs::File;
use std::io::{Read, Write};
use std::ops::{Deref, DerefMut};
use std::os::fd::{AsRawFd, OwnedFd};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use fieldproof_convoy::serial::{make_raw, Deframer, Frame};

/// A pty pair: the node opens `slave_path`, the test reads and writes `master`. The slave end
/// stays open here (raw mode) for the test's lifetime.
pub struct Pty {
    pub master: File,
    _slave: OwnedFd,
    pub slave_path: String,
}

impl Pty {
    pub fn open() -> Pty {
        let pair = nix::pty::openpty(None, None).expect("openpty");
        make_raw(&pair.slave).expect("raw slave");
        let slave_path = std::fs::read_link(format!("/proc/self/fd/{}", pair.slave.as_raw_fd()))
            .expect("slave path")
            .to_string_lossy()
            .into_owned();
        Pty {
            master: File::from(pair.master),
            _slave: pair.slave,
            slave_path,
        }
    }

    /// Collects the valid frames written to the slave, with their arrival times, on a thread.
    pub fn collect_frames(&self) -> Frames {
        let frames = Frames::default();
        let out = frames.clone();
        let mut master = self.master.try_clone().expect("master clone");
        std::thread::spawn(move || {
            let mut deframer = Deframer::new();
            let mut buf = [0u8; 256];
            while let Ok(n) = master.read(&mut buf) {
                if n == 0 {
                    break;
                }
                let now = Instant::now();
                for frame in deframer.push(&buf[..n]) {
                    out.0.lock().unwrap().push((now, frame));
                }
            }
        });
        frames
    }
}

/// Copies every byte the node wrote to `from`'s slave into `to`'s slave (the wire between two
/// serial devices), on a thread.
pub fn relay(from: &Pty, to: &Pty) {
    let mut reader = from.master.try_clone().expect("master clone");
    let mut writer = to.master.try_clone().expect("master clone");
    std::thread::spawn(move || {
        let mut buf = [0u8; 256];
        while let Ok(n) = reader.read(&mut buf) {
            if n == 0 || writer.write_all(&buf[..n]).is_err() {
                break;
            }
        }
    });
}

/// Frames read so far, with the time each was read.
#[derive(Clone, Default)]
pub struct Frames(Arc<Mutex<Vec<(Instant, Frame)>>>);

impl Frames {
    pub fn all(&self) -> Vec<(Instant, Frame)> {
        self.0.lock().unwrap().clone()
    }

    pub fn len(&self) -> usize {
        self.0.lock().unwrap().len()
    }
}

/// A node binary of this crate running in ROS domain `domain`: a
/// [`fieldproof_testkit::NodeProc`] (its `child`, `stderr`, `wait_for_log`, `stop`).
pub struct NodeProc(fieldproof_testkit::NodeProc);

impl NodeProc {
    pub fn start(exe: &str, domain: u16, params: &[String]) -> NodeProc {
        NodeProc::start_with(exe, domain, &[], params)
    }

    /// [`NodeProc::start`] with more ROS arguments (remappings: `["-r", "__ns:=/r1"]`).
    pub fn start_with(exe: &str, domain: u16, ros_args: &[&str], params: &[String]) -> NodeProc {
        NodeProc(
            fieldproof_testkit::NodeProc::command(exe)
                .domain(domain)
                .ros_args(ros_args)
                .params(params)
                .start(),
        )
    }
}

impl Deref for NodeProc {
    type Target = fieldproof_testkit::NodeProc;
    fn deref(&self) -> &fieldproof_testkit::NodeProc {
        &self.0
    }
}

impl DerefMut for NodeProc {
    fn deref_mut(&mut self) -> &mut fieldproof_testkit::NodeProc {
        &mut self.0
    }
}

/// Polls `f` every 20 ms until it is true; panics naming `what` after `timeout`.
pub fn wait_until(what: &str, timeout: Duration, mut f: impl FnMut() -> bool) {
    let end = Instant::now() + timeout;
    while !f() {
        assert!(Instant::now() < end, "{what}: not within {timeout:?}");
        std::thread::sleep(Duration::from_millis(20));
    }
}
