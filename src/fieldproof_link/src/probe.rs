//! The ground station's measurement: ICMP echo probes (16 bytes of payload, ten a second,
//! given up after a second) from an unprivileged ping socket, accounted per link and per
//! second of probes sent into [`Window`]s.
//!
//! Accounting: a probe belongs to the window of the second it was due in. A reply within
//! the timeout counts in its probe's window (replies, sum, sum of squares, min, max). A
//! reply after the timeout is `late`, a reply to no probe of ours (unknown sequence or
//! foreign payload, a duplicate) is `unknown`; both go to the newest open window and count
//! in no estimate. A window closes once the last probe it can hold has timed out: one
//! second plus the timeout after its start.

use crate::analysis::Window;
use crate::sys::SysError;
use std::collections::{BTreeMap, HashMap};
use std::io;
use std::net::Ipv4Addr;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};

/// SCHED_FIFO priority of the ground station's probing thread: below the link emulator's
/// forwarding threads, so a link's own timing comes first. An unprivileged ground station
/// cannot take it itself; a supervisor with CAP_SYS_NICE sets it on the thread named
/// [`PROBE_THREAD`] (fieldproof run does).
pub const PROBE_PRIORITY: i32 = 5;
/// The name of the ground station's probing thread (its `comm` in /proc).
pub const PROBE_THREAD: &str = "probe";
/// Payload bytes of a probe.
pub const PAYLOAD: usize = 16;
/// Probes a second.
pub const RATE_HZ: u64 = 10;
/// Timeout of a probe (ns).
pub const TIMEOUT_NS: u64 = 1_000_000_000;
const SECOND: u64 = 1_000_000_000;

/// What became of a reply.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReplyKind {
    /// Within the timeout: counted.
    Counted,
    /// After the timeout.
    Late,
    /// Matching no probe (unknown sequence, foreign payload, duplicate).
    Unknown,
}

#[derive(Debug, Default, Clone)]
struct Acc {
    sent: u64,
    replies: u64,
    sum: f64,
    sumsq: f64,
    min: Option<f64>,
    max: Option<f64>,
    late: u64,
    unknown: u64,
}

/// Probe bookkeeping of one link, on a monotonic clock in ns (pure: no socket).
#[derive(Debug)]
pub struct LinkProber {
    link: String,
    token: u64,
    start_ns: u64,
    start_unix: f64,
    next_seq: u16,
    sent_count: u64,
    outstanding: HashMap<u16, (u64, u64)>, // seq → (sent at, window)
    expired: HashMap<u16, u64>,            // seq → window, for late replies
    windows: BTreeMap<u64, Acc>,
}

impl LinkProber {
    /// A prober for `link` starting at `start_ns` (monotonic), which is `start_unix` on
    /// the wall clock; `token` marks our payloads.
    pub fn new(link: &str, token: u64, start_ns: u64, start_unix: f64) -> Self {
        LinkProber {
            link: link.into(),
            token,
            start_ns,
            start_unix,
            next_seq: 0,
            sent_count: 0,
            outstanding: HashMap::new(),
            expired: HashMap::new(),
            windows: BTreeMap::new(),
        }
    }

    /// When the next probe is due.
    pub fn next_due(&self) -> u64 {
        self.start_ns + self.sent_count * SECOND / RATE_HZ
    }

    /// Records a probe sent at `now_ns`; returns its sequence number and payload.
    pub fn send(&mut self, now_ns: u64) -> (u16, [u8; PAYLOAD]) {
        let due = self.next_due();
        self.sent_count += 1;
        let window = (due - self.start_ns) / SECOND;
        let seq = self.next_seq;
        self.next_seq = self.next_seq.wrapping_add(1);
        self.outstanding.insert(seq, (now_ns, window));
        self.windows.entry(window).or_default().sent += 1;
        let mut p = [0u8; PAYLOAD];
        p[..8].copy_from_slice(&self.token.to_be_bytes());
        p[8..16].copy_from_slice(&(self.sent_count - 1).to_be_bytes());
        (seq, p)
    }

    fn newest(&mut self) -> &mut Acc {
        let w = self.windows.keys().next_back().copied().unwrap_or(0);
        self.windows.entry(w).or_default()
    }

    /// Accounts a reply with `seq` and `payload` received at `now_ns`.
    pub fn reply(&mut self, seq: u16, payload: &[u8], now_ns: u64) -> ReplyKind {
        if payload.len() < 8 || payload[..8] != self.token.to_be_bytes() {
            self.newest().unknown += 1;
            return ReplyKind::Unknown;
        }
        match self.outstanding.get(&seq).copied() {
            Some((sent, window)) if now_ns - sent <= TIMEOUT_NS => {
                self.outstanding.remove(&seq);
                let rtt = (now_ns - sent) as f64 / 1e6;
                let a = self.windows.entry(window).or_default();
                a.replies += 1;
                a.sum += rtt;
                a.sumsq += rtt * rtt;
                a.min = Some(a.min.map_or(rtt, |m| m.min(rtt)));
                a.max = Some(a.max.map_or(rtt, |m| m.max(rtt)));
                ReplyKind::Counted
            }
            Some(_) => {
                self.outstanding.remove(&seq);
                self.newest().late += 1;
                ReplyKind::Late
            }
            None if self.expired.remove(&seq).is_some() => {
                self.newest().late += 1;
                ReplyKind::Late
            }
            None => {
                self.newest().unknown += 1;
                ReplyKind::Unknown
            }
        }
    }

    /// Times out probes and closes the windows that are complete at `now_ns`.
    pub fn close(&mut self, now_ns: u64) -> Vec<Window> {
        let timed_out: Vec<u16> = self
            .outstanding
            .iter()
            .filter(|(_, (s, _))| now_ns - s > TIMEOUT_NS)
            .map(|(q, _)| *q)
            .collect();
        for q in timed_out {
            if let Some((_, w)) = self.outstanding.remove(&q) {
                self.expired.insert(q, w);
            }
        }
        // Keep late-reply memory bounded (a minute of probes).
        if self.expired.len() > 600 {
            let cut = self.windows.keys().next().copied().unwrap_or(0);
            self.expired.retain(|_, w| *w + 60 >= cut);
        }
        let mut out = Vec::new();
        while let Some((&w, _)) = self.windows.iter().next() {
            let closes_at = self.start_ns + (w + 1) * SECOND + TIMEOUT_NS;
            if now_ns < closes_at {
                break;
            }
            let a = self.windows.remove(&w).expect("present");
            out.push(Window {
                t: self.start_unix + w as f64,
                link: self.link.clone(),
                sent: a.sent,
                replies: a.replies,
                sum_ms: a.sum,
                sumsq_ms2: a.sumsq,
                min_ms: a.min,
                max_ms: a.max,
                late: a.late,
                unknown: a.unknown,
            });
        }
        out
    }
}

/// An unprivileged ICMP echo socket (`SOCK_DGRAM`/`IPPROTO_ICMP`) connected to one
/// address; needs the caller's group in `net.ipv4.ping_group_range`.
#[derive(Debug)]
pub struct PingSocket {
    fd: OwnedFd,
}

impl PingSocket {
    /// Opens a socket to `addr` (non-blocking).
    pub fn connect(addr: Ipv4Addr) -> Result<Self, SysError> {
        // SAFETY: plain socket call.
        let fd = unsafe {
            libc::socket(
                libc::AF_INET,
                libc::SOCK_DGRAM | libc::SOCK_NONBLOCK | libc::SOCK_CLOEXEC,
                libc::IPPROTO_ICMP,
            )
        };
        if fd < 0 {
            return Err(SysError::Io {
                what: "ping socket (is the group in net.ipv4.ping_group_range?)".into(),
                source: io::Error::last_os_error(),
            });
        }
        // SAFETY: fresh owned descriptor.
        let fd = unsafe { OwnedFd::from_raw_fd(fd) };
        let sa = libc::sockaddr_in {
            sin_family: libc::AF_INET as u16,
            sin_port: 0,
            sin_addr: libc::in_addr {
                s_addr: u32::from(addr).to_be(),
            },
            sin_zero: [0; 8],
        };
        // SAFETY: connect with a valid sockaddr_in.
        let r = unsafe {
            libc::connect(
                fd.as_raw_fd(),
                &sa as *const _ as *const libc::sockaddr,
                std::mem::size_of::<libc::sockaddr_in>() as u32,
            )
        };
        if r != 0 {
            return Err(SysError::Io {
                what: format!("connect ping socket to {addr}"),
                source: io::Error::last_os_error(),
            });
        }
        Ok(PingSocket { fd })
    }

    /// The descriptor (for polling).
    pub fn raw_fd(&self) -> i32 {
        self.fd.as_raw_fd()
    }

    /// Sends an echo request (the kernel sets the identifier and the checksum).
    pub fn send(&self, seq: u16, payload: &[u8; PAYLOAD]) -> io::Result<()> {
        let mut pkt = [0u8; 8 + PAYLOAD];
        pkt[0] = 8; // echo request
        pkt[6..8].copy_from_slice(&seq.to_be_bytes());
        pkt[8..].copy_from_slice(payload);
        // SAFETY: valid buffer on a connected socket.
        let n = unsafe {
            libc::send(
                self.fd.as_raw_fd(),
                pkt.as_ptr() as *const libc::c_void,
                pkt.len(),
                0,
            )
        };
        if n < 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(())
    }

    /// Receives one echo reply without blocking: `(seq, payload)`, `None` if none waits.
    pub fn try_recv(&self) -> io::Result<Option<(u16, Vec<u8>)>> {
        let mut buf = [0u8; 1500];
        loop {
            // SAFETY: valid buffer.
            let n = unsafe {
                libc::recv(
                    self.fd.as_raw_fd(),
                    buf.as_mut_ptr() as *mut libc::c_void,
                    buf.len(),
                    libc::MSG_DONTWAIT,
                )
            };
            if n < 0 {
                let e = io::Error::last_os_error();
                return match e.raw_os_error() {
                    Some(libc::EAGAIN) => Ok(None),
                    // An ICMP error queued for the socket (e.g. unreachable): skip it.
                    Some(libc::EHOSTUNREACH)
                    | Some(libc::ECONNREFUSED)
                    | Some(libc::ENETUNREACH) => continue,
                    _ => Err(e),
                };
            }
            let n = n as usize;
            if n < 8 || buf[0] != 0 {
                continue; // not an echo reply
            }
            return Ok(Some((
                u16::from_be_bytes([buf[6], buf[7]]),
                buf[8..n].to_vec(),
            )));
        }
    }
}

/// Probes every `(link, address)` until `stop` is set, calling `on_window` with every
/// closed window (on the calling thread). Returns when stopped or a socket fails.
pub fn run_probers(
    links: &[(String, Ipv4Addr)],
    stop: &std::sync::atomic::AtomicBool,
    mut on_window: impl FnMut(Window),
) -> Result<(), SysError> {
    use std::sync::atomic::Ordering;
    let base = std::time::Instant::now();
    let now = || base.elapsed().as_nanos() as u64;
    let start_unix = crate::shaper::unix_now();
    let token = crate::rng::Rng::from_entropy().next_u64();
    let mut socks = Vec::new();
    let mut probers = Vec::new();
    let t0 = now();
    for (i, (link, addr)) in links.iter().enumerate() {
        socks.push(PingSocket::connect(*addr)?);
        probers.push(LinkProber::new(
            link,
            token.wrapping_add(i as u64),
            t0,
            start_unix,
        ));
    }
    let io_err = |what: &str, e: io::Error| SysError::Io {
        what: what.to_string(),
        source: e,
    };
    while !stop.load(Ordering::Relaxed) {
        let t = now();
        for (s, p) in socks.iter().zip(probers.iter_mut()) {
            while p.next_due() <= t {
                let (seq, payload) = p.send(now());
                // A full buffer or an unreachable peer is a lost probe, not a failure.
                let _ = s.send(seq, &payload);
            }
        }
        let next = probers
            .iter()
            .map(|p| p.next_due())
            .min()
            .unwrap_or(t + 100_000_000);
        let wait = next.saturating_sub(now()).min(100_000_000);
        let readable =
            crate::sys::poll_readable(&socks.iter().map(|s| s.raw_fd()).collect::<Vec<_>>(), wait);
        for (i, r) in readable.iter().enumerate() {
            if *r {
                while let Some((seq, payload)) = socks[i]
                    .try_recv()
                    .map_err(|e| io_err("receive echo reply", e))?
                {
                    probers[i].reply(seq, &payload, now());
                }
            }
        }
        let t = now();
        for p in probers.iter_mut() {
            for w in p.close(t) {
                on_window(w);
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: u64 = 1_000_000;

    fn prober() -> LinkProber {
        LinkProber::new("ugv1", 0xF1E1D, 0, 1000.0)
    }

    #[test]
    fn ten_probes_a_second_fill_one_window() {
        let mut p = prober();
        let mut sent = Vec::new();
        while p.next_due() < SECOND {
            let t = p.next_due();
            sent.push((p.send(t), t));
        }
        assert_eq!(sent.len(), 10);
        for ((seq, payload), t) in &sent {
            assert_eq!(p.reply(*seq, payload, t + 120 * MS), ReplyKind::Counted);
        }
        assert!(
            p.close(2 * SECOND - 1).is_empty(),
            "open until 1 s + timeout"
        );
        let w = p.close(2 * SECOND);
        assert_eq!(w.len(), 1);
        let w = &w[0];
        assert_eq!(
            (w.t, w.sent, w.replies, w.late, w.unknown),
            (1000.0, 10, 10, 0, 0)
        );
        assert!((w.sum_ms - 1200.0).abs() < 1e-6 && (w.sumsq_ms2 - 144_000.0).abs() < 1e-3);
        assert_eq!((w.min_ms, w.max_ms), (Some(120.0), Some(120.0)));
    }

    #[test]
    fn timeouts_late_and_unknown_replies() {
        let mut p = prober();
        let (s0, pl0) = p.send(0);
        let (s1, pl1) = p.send(100 * MS);
        let (s2, pl2) = p.send(200 * MS);
        // s0 answered after 1.2 s, before close ran: late, not counted.
        assert_eq!(p.reply(s0, &pl0, 1200 * MS), ReplyKind::Late);
        // s1 times out at close; its reply after that is late too.
        p.close(1150 * MS);
        assert_eq!(p.reply(s1, &pl1, 1300 * MS), ReplyKind::Late);
        // An answer twice: the second is unknown.
        assert_eq!(p.reply(s2, &pl2, 300 * MS), ReplyKind::Counted);
        assert_eq!(p.reply(s2, &pl2, 310 * MS), ReplyKind::Unknown);
        // Someone else's payload or sequence.
        assert_eq!(p.reply(s2, &[0u8; 16], 320 * MS), ReplyKind::Unknown);
        assert_eq!(p.reply(999, &pl2, 330 * MS), ReplyKind::Unknown);
        let w = p.close(2 * SECOND);
        assert_eq!(w.len(), 1);
        assert_eq!(
            (w[0].sent, w[0].replies, w[0].late, w[0].unknown),
            (3, 1, 2, 3)
        );
    }

    #[test]
    fn windows_close_in_order_and_empty_ones_report_no_rtt() {
        let mut p = prober();
        while p.next_due() < 3 * SECOND {
            let t = p.next_due();
            p.send(t);
        }
        let w = p.close(10 * SECOND);
        let ts: Vec<f64> = w.iter().map(|w| w.t).collect();
        assert_eq!(ts, vec![1000.0, 1001.0, 1002.0]);
        assert!(w
            .iter()
            .all(|w| w.sent == 10 && w.replies == 0 && w.min_ms.is_none()));
    }
}
