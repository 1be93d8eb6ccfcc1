//! Thin system helpers: commands without a shell, entering a named network namespace in a
//! thread, AF_PACKET sockets, offload switches (the ethtool ioctl) and sysctls.

use std::ffi::CString;
use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::process::Command;
use thiserror::Error;

/// A failed system operation.
#[derive(Debug, Error)]
pub enum SysError {
    /// A command that could not run or exited non-zero.
    #[error("{command}: {message}")]
    Command {
        /// The command line (for the message only; it ran without a shell).
        command: String,
        /// Its stderr or the spawn error.
        message: String,
    },
    /// A system call.
    #[error("{what}: {source}")]
    Io {
        /// What was attempted.
        what: String,
        /// The OS error.
        source: io::Error,
    },
}

fn io_err(what: impl Into<String>) -> impl FnOnce(io::Error) -> SysError {
    let what = what.into();
    move |source| SysError::Io { what, source }
}

/// Runs `program args…` (no shell) and returns its stdout; a non-zero exit is an error
/// carrying stderr.
pub fn run(program: &str, args: &[&str]) -> Result<String, SysError> {
    let command = format!("{program} {}", args.join(" "));
    let out = Command::new(program)
        .args(args)
        .output()
        .map_err(|e| SysError::Command {
            command: command.clone(),
            message: e.to_string(),
        })?;
    if out.status.success() {
        Ok(String::from_utf8_lossy(&out.stdout).into_owned())
    } else {
        Err(SysError::Command {
            command,
            message: format!(
                "{} ({})",
                String::from_utf8_lossy(&out.stderr).trim(),
                out.status
            ),
        })
    }
}

/// Runs `ip args…`.
pub fn ip(args: &[&str]) -> Result<String, SysError> {
    run("ip", args)
}

/// Moves the calling thread into the named namespace (`/run/netns/<ns>`). Only the calling
/// thread moves; sockets it opens afterwards belong to that namespace.
pub fn enter_netns(ns: &str) -> Result<(), SysError> {
    let path = format!("/run/netns/{ns}");
    let f = std::fs::File::open(&path).map_err(io_err(format!("open {path}")))?;
    // SAFETY: setns on a valid namespace fd; affects the calling thread only.
    let r = unsafe { libc::setns(f.as_raw_fd(), libc::CLONE_NEWNET) };
    if r != 0 {
        return Err(SysError::Io {
            what: format!("setns {path}"),
            source: io::Error::last_os_error(),
        });
    }
    Ok(())
}

/// Runs `f` in a thread inside namespace `ns` and returns its result.
pub fn in_netns<T: Send + 'static>(
    ns: &str,
    f: impl FnOnce() -> Result<T, SysError> + Send + 'static,
) -> Result<T, SysError> {
    let ns = ns.to_string();
    std::thread::spawn(move || {
        enter_netns(&ns)?;
        f()
    })
    .join()
    .unwrap_or_else(|_| {
        Err(SysError::Io {
            what: "netns thread".into(),
            source: io::Error::other("panicked"),
        })
    })
}

/// Writes a sysctl of the current thread's network namespace (`net.ipv4.ping_group_range`).
pub fn write_sysctl(name: &str, value: &str) -> Result<(), SysError> {
    let path = format!("/proc/sys/{}", name.replace('.', "/"));
    std::fs::write(&path, value).map_err(io_err(format!("write {path} = {value}")))
}

fn cstr(s: &str) -> Result<CString, SysError> {
    CString::new(s).map_err(|_| SysError::Io {
        what: format!("name {s:?}"),
        source: io::Error::other("NUL in name"),
    })
}

/// The index of interface `name` in the current thread's namespace.
pub fn ifindex(name: &str) -> Result<i32, SysError> {
    let c = cstr(name)?;
    // SAFETY: valid C string.
    let i = unsafe { libc::if_nametoindex(c.as_ptr()) };
    if i == 0 {
        return Err(SysError::Io {
            what: format!("interface {name}"),
            source: io::Error::last_os_error(),
        });
    }
    Ok(i as i32)
}

#[repr(C)]
struct EthtoolValue {
    cmd: u32,
    data: u32,
}

#[repr(C)]
struct IfreqData {
    name: [libc::c_char; libc::IFNAMSIZ],
    data: *mut libc::c_void,
    _pad: [u8; 16],
}

const SIOCETHTOOL: libc::c_ulong = 0x8946;
const ETHTOOL_STXCSUM: u32 = 0x17;
const ETHTOOL_SSG: u32 = 0x19;
const ETHTOOL_STSO: u32 = 0x1f;
const ETHTOOL_SGSO: u32 = 0x24;
const ETHTOOL_SGRO: u32 = 0x2c;

/// Turns off checksum offload, scatter-gather, TSO, GSO and GRO on `name` (current
/// thread's namespace): frames a packet socket forwards must be complete, MTU-sized and
/// carry their checksums (`ethtool -K name tx off sg off tso off gso off gro off`).
pub fn disable_offloads(name: &str) -> Result<(), SysError> {
    // SAFETY: plain socket for the ioctl, closed by OwnedFd.
    let fd = unsafe { libc::socket(libc::AF_INET, libc::SOCK_DGRAM, 0) };
    if fd < 0 {
        return Err(SysError::Io {
            what: "socket for ethtool".into(),
            source: io::Error::last_os_error(),
        });
    }
    // SAFETY: fd is a fresh, owned descriptor.
    let fd = unsafe { OwnedFd::from_raw_fd(fd) };
    for cmd in [
        ETHTOOL_STSO,
        ETHTOOL_SGSO,
        ETHTOOL_SGRO,
        ETHTOOL_SSG,
        ETHTOOL_STXCSUM,
    ] {
        let mut v = EthtoolValue { cmd, data: 0 };
        let mut req = IfreqData {
            name: [0; libc::IFNAMSIZ],
            data: &mut v as *mut _ as *mut libc::c_void,
            _pad: [0; 16],
        };
        for (d, s) in req
            .name
            .iter_mut()
            .zip(name.bytes().take(libc::IFNAMSIZ - 1))
        {
            *d = s as libc::c_char;
        }
        // SAFETY: SIOCETHTOOL with a valid ifreq pointing at a live ethtool_value.
        let r = unsafe { libc::ioctl(fd.as_raw_fd(), SIOCETHTOOL as _, &mut req) };
        if r != 0 {
            return Err(SysError::Io {
                what: format!("ethtool cmd {cmd:#x} off on {name}"),
                source: io::Error::last_os_error(),
            });
        }
    }
    Ok(())
}

/// An AF_PACKET socket bound to one interface.
#[derive(Debug)]
pub struct PacketSocket {
    fd: OwnedFd,
    ifindex: i32,
}

const PACKET_IGNORE_OUTGOING: libc::c_int = 23;

impl PacketSocket {
    /// Opens a socket on `ifname` (current thread's namespace): `receive` makes it receive
    /// every frame arriving on the interface (not those sent from it); otherwise it only
    /// sends.
    pub fn open(ifname: &str, receive: bool) -> Result<Self, SysError> {
        let ifindex = ifindex(ifname)?;
        // Protocol 0 receives nothing until bound with a protocol: no frame of another
        // interface slips in before the bind.
        // SAFETY: plain socket call.
        let fd = unsafe { libc::socket(libc::AF_PACKET, libc::SOCK_RAW | libc::SOCK_CLOEXEC, 0) };
        if fd < 0 {
            return Err(SysError::Io {
                what: format!("AF_PACKET socket on {ifname}"),
                source: io::Error::last_os_error(),
            });
        }
        // SAFETY: fresh owned descriptor.
        let fd = unsafe { OwnedFd::from_raw_fd(fd) };
        let s = PacketSocket { fd, ifindex };
        if receive {
            s.setopt(libc::SOL_PACKET, PACKET_IGNORE_OUTGOING, 1, ifname)?;
            s.setopt(libc::SOL_SOCKET, libc::SO_RCVBUFFORCE, 8 << 20, ifname)?;
        }
        s.setopt(libc::SOL_SOCKET, libc::SO_SNDBUFFORCE, 8 << 20, ifname)?;
        let proto = if receive {
            (libc::ETH_P_ALL as u16).to_be()
        } else {
            0
        };
        // SAFETY: zeroed sockaddr_ll is valid; fields set below.
        let mut sll: libc::sockaddr_ll = unsafe { std::mem::zeroed() };
        sll.sll_family = libc::AF_PACKET as u16;
        sll.sll_protocol = proto;
        sll.sll_ifindex = ifindex;
        // SAFETY: bind with a properly sized sockaddr_ll.
        let r = unsafe {
            libc::bind(
                s.fd.as_raw_fd(),
                &sll as *const _ as *const libc::sockaddr,
                std::mem::size_of::<libc::sockaddr_ll>() as u32,
            )
        };
        if r != 0 {
            return Err(SysError::Io {
                what: format!("bind AF_PACKET to {ifname}"),
                source: io::Error::last_os_error(),
            });
        }
        Ok(s)
    }

    fn setopt(&self, level: i32, opt: i32, v: i32, ifname: &str) -> Result<(), SysError> {
        // SAFETY: setsockopt with an int option.
        let r = unsafe {
            libc::setsockopt(
                self.fd.as_raw_fd(),
                level,
                opt,
                &v as *const i32 as *const libc::c_void,
                4,
            )
        };
        if r != 0 {
            return Err(SysError::Io {
                what: format!("setsockopt {level}/{opt} on {ifname}"),
                source: io::Error::last_os_error(),
            });
        }
        Ok(())
    }

    /// The raw descriptor (for polling).
    pub fn raw_fd(&self) -> i32 {
        self.fd.as_raw_fd()
    }

    /// Receives one frame without blocking; `Ok(None)` when none is waiting. Frames this
    /// host sent (`PACKET_OUTGOING`) are skipped.
    pub fn try_recv(&self, buf: &mut [u8]) -> io::Result<Option<usize>> {
        loop {
            // SAFETY: zeroed sockaddr_ll is valid output storage.
            let mut sll: libc::sockaddr_ll = unsafe { std::mem::zeroed() };
            let mut len = std::mem::size_of::<libc::sockaddr_ll>() as u32;
            // SAFETY: buffer and address storage are valid for the given lengths.
            let n = unsafe {
                libc::recvfrom(
                    self.fd.as_raw_fd(),
                    buf.as_mut_ptr() as *mut libc::c_void,
                    buf.len(),
                    libc::MSG_DONTWAIT,
                    &mut sll as *mut _ as *mut libc::sockaddr,
                    &mut len,
                )
            };
            if n < 0 {
                let e = io::Error::last_os_error();
                return match e.raw_os_error() {
                    Some(libc::EAGAIN) => Ok(None),
                    Some(libc::EINTR) => continue,
                    _ => Err(e),
                };
            }
            if sll.sll_pkttype == libc::PACKET_OUTGOING {
                continue;
            }
            return Ok(Some(n as usize));
        }
    }

    /// Sends one frame on the interface.
    pub fn send(&self, frame: &[u8]) -> io::Result<()> {
        // SAFETY: zeroed sockaddr_ll; ifindex set.
        let mut sll: libc::sockaddr_ll = unsafe { std::mem::zeroed() };
        sll.sll_family = libc::AF_PACKET as u16;
        sll.sll_ifindex = self.ifindex;
        sll.sll_halen = 6;
        if frame.len() >= 6 {
            sll.sll_addr[..6].copy_from_slice(&frame[..6]);
        }
        // SAFETY: frame and address are valid for their lengths.
        let n = unsafe {
            libc::sendto(
                self.fd.as_raw_fd(),
                frame.as_ptr() as *const libc::c_void,
                frame.len(),
                0,
                &sll as *const _ as *const libc::sockaddr,
                std::mem::size_of::<libc::sockaddr_ll>() as u32,
            )
        };
        if n < 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(())
    }
}

/// Waits until `fd` is readable or `timeout_ns` passes (ppoll, nanosecond timeout).
/// Returns whether it is readable.
pub fn wait_readable(fd: i32, timeout_ns: u64) -> bool {
    let mut p = libc::pollfd {
        fd,
        events: libc::POLLIN,
        revents: 0,
    };
    let ts = libc::timespec {
        tv_sec: (timeout_ns / 1_000_000_000) as _,
        tv_nsec: (timeout_ns % 1_000_000_000) as _,
    };
    // SAFETY: one valid pollfd, valid timespec, no signal mask.
    let r = unsafe { libc::ppoll(&mut p, 1, &ts, std::ptr::null()) };
    r > 0 && (p.revents & libc::POLLIN) != 0
}

/// Waits until one of `fds` is readable or `timeout_ns` passes; which are readable.
pub fn poll_readable(fds: &[i32], timeout_ns: u64) -> Vec<bool> {
    let mut p: Vec<libc::pollfd> = fds
        .iter()
        .map(|&fd| libc::pollfd {
            fd,
            events: libc::POLLIN,
            revents: 0,
        })
        .collect();
    let ts = libc::timespec {
        tv_sec: (timeout_ns / 1_000_000_000) as _,
        tv_nsec: (timeout_ns % 1_000_000_000) as _,
    };
    // SAFETY: valid pollfd array of the given length, valid timespec.
    let r = unsafe { libc::ppoll(p.as_mut_ptr(), p.len() as _, &ts, std::ptr::null()) };
    p.iter()
        .map(|q| r > 0 && (q.revents & libc::POLLIN) != 0)
        .collect()
}

/// Sets the calling thread's timer slack (ns): 1 makes sleeps wake as close to their
/// deadline as the scheduler allows.
pub fn set_timer_slack(ns: u64) {
    // SAFETY: prctl with an integer argument.
    unsafe {
        libc::prctl(libc::PR_SET_TIMERSLACK, ns as libc::c_ulong, 0, 0, 0);
    }
}

/// Makes the calling thread SCHED_FIFO at `priority`; returns whether the kernel agreed.
pub fn set_realtime(priority: i32) -> bool {
    let param = libc::sched_param {
        sched_priority: priority,
    };
    // SAFETY: valid sched_param; 0 is the calling thread.
    unsafe { libc::sched_setscheduler(0, libc::SCHED_FIFO, &param) == 0 }
}

/// Makes every thread of process `pid` named `thread` (its `comm`) SCHED_FIFO at `priority`,
/// from outside (needs CAP_SYS_NICE, which the process itself may lack); returns how many
/// it changed, or why none could be.
pub fn make_threads_realtime(pid: u32, thread: &str, priority: i32) -> Result<usize, String> {
    let tasks = format!("/proc/{pid}/task");
    let entries = std::fs::read_dir(&tasks).map_err(|e| format!("{tasks}: {e}"))?;
    let mut changed = 0;
    for entry in entries.flatten() {
        let comm = std::fs::read_to_string(entry.path().join("comm")).unwrap_or_default();
        if comm.trim_end() != thread {
            continue;
        }
        let Some(tid) = entry
            .file_name()
            .to_str()
            .and_then(|t| t.parse::<i32>().ok())
        else {
            continue;
        };
        let param = libc::sched_param {
            sched_priority: priority,
        };
        // SAFETY: valid sched_param; tid is a thread id read from /proc.
        if unsafe { libc::sched_setscheduler(tid, libc::SCHED_FIFO, &param) } != 0 {
            return Err(format!(
                "SCHED_FIFO {priority} for thread {thread} ({tid}) of {pid}: {}",
                std::io::Error::last_os_error()
            ));
        }
        changed += 1;
    }
    if changed == 0 {
        return Err(format!("process {pid} has no thread named {thread}"));
    }
    Ok(changed)
}

/// CPU time (user + system) of the whole process, in seconds.
pub fn process_cpu_s() -> f64 {
    // SAFETY: zeroed rusage is valid output storage.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: RUSAGE_SELF with valid storage.
    unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut ru) };
    let t = |tv: libc::timeval| tv.tv_sec as f64 + tv.tv_usec as f64 / 1e6;
    t(ru.ru_utime) + t(ru.ru_stime)
}

/// Whether process `pid` is alive and started at `start_ticks` (field 22 of
/// `/proc/<pid>/stat`), which guards against a reused pid.
pub fn process_alive(pid: u32, start_ticks: Option<u64>) -> bool {
    match (process_start_ticks(pid), start_ticks) {
        (Some(s), Some(want)) => s == want,
        (Some(_), None) => true,
        (None, _) => false,
    }
}

/// Field 22 (start time in clock ticks) of `/proc/<pid>/stat`.
pub fn process_start_ticks(pid: u32) -> Option<u64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name (field 2) is in parentheses and may hold spaces.
    let rest = &stat[stat.rfind(')')? + 2..];
    rest.split_whitespace().nth(19)?.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn run_reports_stderr_and_status() {
        assert_eq!(run("echo", &["hi"]).unwrap(), "hi\n");
        let e = run("ls", &["/nonexistent-fieldproof"])
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("ls /nonexistent-fieldproof: "), "{e}");
        assert!(run("/nonexistent-binary", &[]).is_err());
    }

    #[test]
    fn a_named_thread_is_made_realtime_from_outside() {
        let (tx, rx) = std::sync::mpsc::channel::<()>();
        let worker = std::thread::Builder::new()
            .name("fp-rt-test".into())
            .spawn(move || {
                let _ = rx.recv();
            })
            .unwrap();
        let me = std::process::id();
        // The scheduling policy is field 41 of the thread's stat (1: SCHED_FIFO).
        let policy_of_named = || {
            std::fs::read_dir(format!("/proc/{me}/task"))
                .unwrap()
                .flatten()
                .find(|e| {
                    std::fs::read_to_string(e.path().join("comm"))
                        .unwrap_or_default()
                        .trim_end()
                        == "fp-rt-test"
                })
                .map(|e| {
                    let stat = std::fs::read_to_string(e.path().join("stat")).unwrap();
                    let after_name = stat.rsplit_once(')').unwrap().1;
                    after_name.split_whitespace().nth(38).unwrap().to_string()
                })
        };
        match make_threads_realtime(me, "fp-rt-test", 1) {
            Ok(changed) => {
                assert_eq!(changed, 1);
                assert_eq!(policy_of_named().as_deref(), Some("1"));
            }
            // Without CAP_SYS_NICE the kernel refuses, and the error says which thread.
            Err(e) => assert!(e.contains("fp-rt-test"), "{e}"),
        }
        let e = make_threads_realtime(me, "no-such-thread", 1).unwrap_err();
        assert!(e.ends_with("has no thread named no-such-thread"), "{e}");
        tx.send(()).unwrap();
        worker.join().unwrap();
    }

    #[test]
    fn own_process_is_alive_with_its_start_time() {
        let me = std::process::id();
        let start = process_start_ticks(me).unwrap();
        assert!(process_alive(me, Some(start)));
        assert!(!process_alive(me, Some(start + 1)));
        assert!(!process_alive(u32::MAX - 1, None));
    }
}
