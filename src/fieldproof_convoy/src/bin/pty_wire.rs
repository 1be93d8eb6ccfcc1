//! `pty_wire`: a null-modem cable between two serial devices that do not exist, for a run
//! without hardware. Opens two pty pairs in raw mode, links their device ends to the paths
//! given, and copies every byte written to one to the other, both ways, until it is stopped
//! (SIGINT or SIGTERM; the links are removed then). Not a ROS node: no DDS; anything from
//! `--ros-args` on (what a launch file's `node:` entry appends) is ignored.
//!
//! ```text
//! pty_wire /tmp/run/lead_tx /tmp/run/radio_rx &
//! lead_broadcaster --ros-args -p serial_port:=/tmp/run/lead_tx
//! lora_radio --ros-args -p input_port:=/tmp/run/radio_rx ...
//! ```

use std::fs::File;
use std::io::{Read, Write};
use std::os::fd::AsRawFd;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::Parser;
use fieldproof_convoy::serial::make_raw;
use nix::sys::signal::{SigSet, Signal};

/// A null-modem cable between two pty devices linked at `end_a` and `end_b`.
#[derive(Parser, Debug)]
#[command(name = "pty_wire", version, about)]
struct Args {
    /// Path of the first end (a symlink to a pty device, made here; an old link is replaced).
    end_a: PathBuf,
    /// Path of the second end.
    end_b: PathBuf,
}

/// One end: the pty's master (read and written here) and its device, kept open so the wire
/// survives its users closing and reopening the device.
struct End {
    master: File,
    _device: std::os::fd::OwnedFd,
    link: PathBuf,
}

impl End {
    fn open(link: &Path) -> Result<End, String> {
        let pair = nix::pty::openpty(None, None).map_err(|e| format!("openpty: {e}"))?;
        make_raw(&pair.slave).map_err(|e| format!("{}: raw mode: {e}", link.display()))?;
        let device = std::fs::read_link(format!("/proc/self/fd/{}", pair.slave.as_raw_fd()))
            .map_err(|e| format!("{}: the pty's device path: {e}", link.display()))?;
        if let Some(dir) = link.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        }
        match std::fs::remove_file(link) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(format!("{}: an old link not removed: {e}", link.display())),
        }
        // A link made under another name, then renamed: a user never opens a half-made path.
        let staging = link.with_extension("pty_wire_tmp");
        let _ = std::fs::remove_file(&staging);
        std::os::unix::fs::symlink(&device, &staging)
            .and_then(|()| std::fs::rename(&staging, link))
            .map_err(|e| format!("{}: link to {}: {e}", link.display(), device.display()))?;
        Ok(End {
            master: File::from(pair.master),
            _device: pair.slave,
            link: link.to_path_buf(),
        })
    }
}

/// Copies what is written to `from`'s device into `to`'s device, on a thread.
fn copy(from: &End, to: &End) -> Result<(), String> {
    let mut reader = from.master.try_clone().map_err(|e| format!("clone: {e}"))?;
    let mut writer = to.master.try_clone().map_err(|e| format!("clone: {e}"))?;
    let label = format!("{} -> {}", from.link.display(), to.link.display());
    std::thread::spawn(move || {
        let mut buf = [0u8; 512];
        loop {
            match reader.read(&mut buf) {
                Ok(0) => std::thread::sleep(std::time::Duration::from_millis(10)),
                Ok(n) => {
                    if let Err(e) = writer.write_all(&buf[..n]) {
                        eprintln!("pty_wire: {label}: {e}");
                    }
                }
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                // EIO: nobody holds the device open (the master keeps its own open, so this
                // is brief); try again shortly.
                Err(_) => std::thread::sleep(std::time::Duration::from_millis(20)),
            }
        }
    });
    Ok(())
}

fn run(args: Args) -> Result<(), String> {
    // SIGINT and SIGTERM are blocked here (and in the copying threads, which inherit the
    // mask) and taken by `wait` below, so the links are removed however the wire is stopped.
    let mut stop_signals = SigSet::empty();
    stop_signals.add(Signal::SIGINT);
    stop_signals.add(Signal::SIGTERM);
    stop_signals
        .thread_block()
        .map_err(|e| format!("blocking SIGINT/SIGTERM: {e}"))?;
    let a = End::open(&args.end_a)?;
    let b = End::open(&args.end_b)?;
    copy(&a, &b)?;
    copy(&b, &a)?;
    eprintln!(
        "pty_wire: {} <-> {}",
        args.end_a.display(),
        args.end_b.display()
    );
    let signal = stop_signals
        .wait()
        .map_err(|e| format!("waiting for a signal: {e}"))?;
    eprintln!("pty_wire: {signal}: removing the links");
    for end in [&a, &b] {
        let _ = std::fs::remove_file(&end.link);
    }
    Ok(())
}

fn main() -> ExitCode {
    // A launch file's `node:` entry appends `--ros-args ...`: not ours.
    let argv: Vec<String> = std::env::args().take_while(|a| a != "--ros-args").collect();
    let args = match Args::try_parse_from(argv) {
        Ok(args) => args,
        Err(e) => {
            let _ = e.print();
            return if e.use_stderr() {
                ExitCode::from(2)
            } else {
                ExitCode::SUCCESS
            };
        }
    };
    match run(args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("pty_wire: {e}");
            ExitCode::from(2)
        }
    }
}
