//! A DDS test run by a user directly (no `scripts/netns-run`) sends nothing on the user's
//! network, because it contains itself; and the watcher that proves it sees DDS traffic
//! when a participant is not contained.
//!
//! The user's network is simulated (root needed, skipped otherwise): a network namespace whose
//! only real interface is a veth (`fpleak0`, address and multicast route on it) and a PID
//! namespace with its own `/proc`, so PID 1 lives in that network as on a real machine. A
//! raw packet socket on `fpleak0` counts RTPS datagrams. Nothing touches the machine's own
//! interfaces.

use std::io::{BufRead, BufReader, Write};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use rustdds::no_key::{DataReaderCdr, DataWriterCdr};
use rustdds::policy::{Durability, History, Reliability};
use rustdds::{DomainParticipant, QosPolicyBuilder, TopicKind};

/// The veth end the simulated user's traffic leaves by.
const VETH: &str = "fpleak0";

/// The DDS test the leak test runs as a user would: two participants in the test's network
/// namespace, one hears the other. It contains itself first.
#[test]
fn two_participants_talk_inside_the_test_namespace() {
    fieldproof_testkit::contain_or_return!();
    let qos = QosPolicyBuilder::new()
        .reliability(Reliability::Reliable {
            max_blocking_time: rustdds::Duration::from_millis(100),
        })
        .durability(Durability::Volatile)
        .history(History::KeepLast { depth: 10 })
        .build();
    let domain = 0;
    let talker = DomainParticipant::new(domain).expect("talker participant");
    let listener = DomainParticipant::new(domain).expect("listener participant");
    let topic_of = |dp: &DomainParticipant| {
        dp.create_topic(
            "rt/fieldproof_testkit_leak".into(),
            "std_msgs::msg::dds_::String_".into(),
            &qos,
            TopicKind::NoKey,
        )
        .expect("topic")
    };
    let writer: DataWriterCdr<String> = talker
        .create_publisher(&qos)
        .unwrap()
        .create_datawriter_no_key(&topic_of(&talker), None)
        .unwrap();
    let mut reader: DataReaderCdr<String> = listener
        .create_subscriber(&qos)
        .unwrap()
        .create_datareader_no_key(&topic_of(&listener), None)
        .unwrap();
    let end = Instant::now() + Duration::from_secs(20);
    let heard = loop {
        assert!(
            Instant::now() < end,
            "the listener heard nothing within 20 s"
        );
        writer.write("hello".to_string(), None).expect("write");
        std::thread::sleep(Duration::from_millis(100));
        if let Some(sample) = reader.take_next_sample().expect("take") {
            break sample.into_value();
        }
    };
    assert_eq!(heard, "hello");
}

/// Whether this process may make namespaces and veths.
fn is_root() -> bool {
    // SAFETY: geteuid has no preconditions.
    unsafe { libc::geteuid() == 0 }
}

/// True for an Ethernet frame carrying IPv4 UDP whose payload is RTPS, or any UDP to the
/// DDS discovery group 239.255.0.1.
fn is_dds(frame: &[u8]) -> bool {
    const ETH: usize = 14;
    if frame.len() < ETH + 20 || frame[12..14] != [0x08, 0x00] {
        return false;
    }
    let ip = &frame[ETH..];
    let header = usize::from(ip[0] & 0x0f) * 4;
    if ip[9] != 17 || ip.len() < header + 8 {
        return false;
    }
    let to_discovery_group = ip[16..20] == [239, 255, 0, 1];
    let payload = &ip[header + 8..];
    to_discovery_group || payload.starts_with(b"RTPS")
}

/// Counts DDS datagrams crossing `VETH` in the network namespace `netns` (a
/// `/proc/<pid>/ns/net` path), on a thread of its own, until `stop`.
fn watch(
    netns: String,
    count: Arc<AtomicUsize>,
    stop: Arc<AtomicBool>,
) -> std::sync::mpsc::Receiver<()> {
    let (ready_tx, ready) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let ns = std::fs::File::open(&netns).unwrap_or_else(|e| panic!("{netns}: {e}"));
        // SAFETY: setns on this thread only, with a namespace file we opened.
        assert_eq!(
            unsafe { libc::setns(ns.as_raw_fd(), libc::CLONE_NEWNET) },
            0,
            "setns({netns}): {}",
            std::io::Error::last_os_error()
        );
        let all = (libc::ETH_P_ALL as u16).to_be() as i32;
        // SAFETY: a plain socket(2); the fd is owned right away.
        let fd = unsafe { libc::socket(libc::AF_PACKET, libc::SOCK_RAW, all) };
        assert!(
            fd >= 0,
            "AF_PACKET socket: {}",
            std::io::Error::last_os_error()
        );
        // SAFETY: fd is a fresh, valid descriptor owned by nobody else.
        let sock = unsafe { OwnedFd::from_raw_fd(fd) };
        let name = std::ffi::CString::new(VETH).unwrap();
        // SAFETY: a NUL-terminated name.
        let index = unsafe { libc::if_nametoindex(name.as_ptr()) };
        assert_ne!(index, 0, "no interface {VETH} in {netns}");
        // SAFETY: sockaddr_ll is plain data; zeroed is a valid value.
        let mut addr: libc::sockaddr_ll = unsafe { std::mem::zeroed() };
        addr.sll_family = libc::AF_PACKET as u16;
        addr.sll_protocol = all as u16;
        addr.sll_ifindex = index as i32;
        // SAFETY: addr is a sockaddr_ll of the size given.
        let bound = unsafe {
            libc::bind(
                sock.as_raw_fd(),
                &addr as *const libc::sockaddr_ll as *const libc::sockaddr,
                std::mem::size_of::<libc::sockaddr_ll>() as u32,
            )
        };
        assert_eq!(
            bound,
            0,
            "bind to {VETH}: {}",
            std::io::Error::last_os_error()
        );
        let timeout = libc::timeval {
            tv_sec: 0,
            tv_usec: 100_000,
        };
        // SAFETY: a timeval of the size given.
        unsafe {
            libc::setsockopt(
                sock.as_raw_fd(),
                libc::SOL_SOCKET,
                libc::SO_RCVTIMEO,
                &timeout as *const libc::timeval as *const libc::c_void,
                std::mem::size_of::<libc::timeval>() as u32,
            )
        };
        ready_tx.send(()).unwrap();
        let mut frame = vec![0u8; 65536];
        while !stop.load(Ordering::SeqCst) {
            // SAFETY: frame is a writable buffer of the length given.
            let n = unsafe {
                libc::recv(
                    sock.as_raw_fd(),
                    frame.as_mut_ptr() as *mut libc::c_void,
                    frame.len(),
                    0,
                )
            };
            if n > 0 && is_dds(&frame[..n as usize]) {
                count.fetch_add(1, Ordering::SeqCst);
            }
        }
    });
    ready
}

/// The simulated user's network: lo, and the veth as the machine's interface with an address,
/// the default and the multicast route on it.
const USER_NETWORK: &str = r#"set -e
PATH="$PATH:/usr/sbin:/sbin"
ip link set lo up
ip link add fpleak0 type veth peer name fpleak1
ip addr add 10.213.0.1/24 dev fpleak0
ip link set fpleak0 up
ip link set fpleak0 multicast on
ip link set fpleak1 up
ip route add default via 10.213.0.2 dev fpleak0
ip route add 224.0.0.0/4 dev fpleak0
echo ready
read go
rc=0
"$@" 2>&1 || rc=$?
echo "exit $rc"
read done
"#;

#[test]
fn a_dds_test_run_outside_any_namespace_sends_nothing_on_the_users_network() {
    if !is_root() {
        eprintln!(
            "SKIPPED a_dds_test_run_outside_any_namespace_sends_nothing_on_the_users_network: \
             needs root (it makes network and PID namespaces and a veth)"
        );
        return;
    }
    let exe = std::env::current_exe().unwrap();
    // The user's machine: its own network and PID namespaces, /proc remounted, so PID 1's
    // network is the veth's. The DDS test runs there as a user runs `cargo test`: no wrapper,
    // no FIELDPROOF_IN_NETNS.
    let mut user = Command::new("unshare")
        .args(["--net", "--pid", "--fork", "--mount-proc", "--", "sh", "-c"])
        .arg(USER_NETWORK)
        .arg("user-network")
        .arg(&exe)
        .args([
            "--exact",
            "two_participants_talk_inside_the_test_namespace",
            "--nocapture",
        ])
        .env_remove(fieldproof_testkit::CONTAINED_ENV)
        .env_remove("FIELDPROOF_TESTKIT_RERUN")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("unshare");
    let guard_pid = user.id();
    let mut to_user = user.stdin.take().unwrap();
    let mut lines = BufReader::new(user.stdout.take().unwrap()).lines();
    let mut next_line = || lines.next().expect("user network output").unwrap();
    assert_eq!(next_line(), "ready", "the user's network was not set up");
    // unshare itself is in the new network namespace (not in the new PID namespace).
    let netns = format!("/proc/{guard_pid}/ns/net");

    let seen = Arc::new(AtomicUsize::new(0));
    let stop = Arc::new(AtomicBool::new(false));
    watch(netns.clone(), seen.clone(), stop.clone())
        .recv_timeout(Duration::from_secs(10))
        .expect("the watcher started");

    // 1. The DDS test, run plainly in the user's network.
    writeln!(to_user, "go").unwrap();
    let mut output = Vec::new();
    let status = loop {
        let line = next_line();
        eprintln!("  [user] {line}");
        if let Some(code) = line.strip_prefix("exit ") {
            break code.to_string();
        }
        output.push(line);
    };
    std::thread::sleep(Duration::from_millis(300));
    let from_contained = seen.load(Ordering::SeqCst);
    assert_eq!(status, "0", "the DDS test failed: {output:#?}");
    assert!(
        output
            .iter()
            .any(|l| l.starts_with("test result: ok. 1 passed")),
        "the DDS test did not run: {output:#?}"
    );

    // 2. Control: the same test entered into the user's network only (its /proc still the
    // machine's, so it believes itself contained and opens its participants right there).
    let before = seen.load(Ordering::SeqCst);
    let control = Command::new("nsenter")
        .arg(format!("--net={netns}"))
        .arg("--")
        .arg(&exe)
        .args([
            "--exact",
            "two_participants_talk_inside_the_test_namespace",
            "--nocapture",
        ])
        .stdin(Stdio::null())
        .output()
        .expect("nsenter");
    std::thread::sleep(Duration::from_millis(300));
    let from_uncontained = seen.load(Ordering::SeqCst) - before;
    stop.store(true, Ordering::SeqCst);
    // The user's network lives until the control has run.
    writeln!(to_user, "done").unwrap();
    let _ = user.wait();

    assert_eq!(
        from_contained, 0,
        "a contained DDS test sent {from_contained} DDS datagrams on the user's {VETH}"
    );
    assert!(
        from_uncontained > 0,
        "the watcher saw no DDS datagram from an uncontained participant on {VETH}: {}{}",
        String::from_utf8_lossy(&control.stdout),
        String::from_utf8_lossy(&control.stderr)
    );
    eprintln!(
        "DDS datagrams on {VETH}: contained test {from_contained}, uncontained control {from_uncontained}"
    );
}
