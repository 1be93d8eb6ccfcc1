//! The world namespace (root): it reaches every vehicle and the ground station without
//! shaping, and it is a dead end, so nothing between vehicles, or between a vehicle and the
//! ground, can bypass the radio links through it.

mod common;

use common::{ping, require_root, run_id};
use fieldproof_link::netns::{self, world_link_addrs, Backend, Topology};

fn answers(ns: &str, addr: std::net::Ipv4Addr) -> bool {
    !ping(ns, &addr.to_string(), 1, 0.2).rtts.is_empty()
}

/// Run `tag`'s topology of ugv1 and ugv2 on the direct backend (the kernel backend's wiring,
/// unshaped: the userspace emulator forwards only under the shaper, which `userspace_links`
/// covers), and its run id.
fn two_ugvs(tag: &str) -> (String, Topology) {
    require_root();
    let run = run_id(tag);
    let names = ["ugv1".to_string(), "ugv2".to_string()];
    let t = Topology::create(&run, &names, Backend::Direct).unwrap();
    (run, t)
}

#[test]
fn the_world_reaches_everyone_and_forwards_nothing() {
    let (run, t) = two_ugvs("world");
    let world = &t.world_ns.clone();
    assert_eq!(world, &netns::world_ns(&run));
    let (ugv1, ugv2) = (&t.links[0], &t.links[1]);
    let ground_side = world_link_addrs(0).1;

    // Unshaped, direct: the world sees each vehicle and the ground station.
    for addr in [ugv1.world_addr, ugv2.world_addr, ground_side] {
        assert!(answers(world, addr), "world -> {addr}");
    }
    assert!(
        answers(&ugv1.ns, world_link_addrs(1).0),
        "ugv1 -> its world end"
    );
    // No way through the world: neither to the other vehicle's nor to the ground's end.
    assert!(
        !answers(&ugv1.ns, ugv2.world_addr),
        "ugv1 -> ugv2 through the world"
    );
    assert!(
        !answers(&ugv1.ns, ground_side),
        "ugv1 -> ground through the world"
    );
    assert!(
        !answers(&t.radio_ns, ugv1.world_addr),
        "ground -> ugv1 through the world"
    );
    // The radio still joins them all.
    assert!(answers(&ugv1.ns, ugv2.addr), "ugv1 -> ugv2 over the radio");
    assert!(
        answers(&t.radio_ns, ugv1.addr),
        "ground -> ugv1 over the radio"
    );

    // The names resolve to the ends of the world's own links there.
    let hosts = std::fs::read_to_string(format!("/etc/netns/{world}/hosts")).unwrap();
    assert!(
        hosts.contains(&format!("{} ugv2", ugv2.world_addr)),
        "{hosts}"
    );
    assert!(hosts.contains(&format!("{ground_side} ground")), "{hosts}");
    drop(t);
    assert!(netns::namespaces_of(&run).is_empty());
    assert!(!std::path::Path::new(&format!("/etc/netns/{world}")).exists());
}

/// The neighbour entry of `addr` in namespace `ns`, as `ip neigh show` prints it.
fn neighbour(ns: &str, addr: std::net::Ipv4Addr) -> String {
    fieldproof_link::sys::ip(&["-n", ns, "neigh", "show", &addr.to_string()])
        .unwrap()
        .trim()
        .to_string()
}

#[test]
fn the_radio_segment_needs_no_arp() {
    let (run, t) = two_ugvs("neigh");
    let (ugv1, ugv2) = (&t.links[0], &t.links[1]);
    // Every member knows the others' fixed hardware addresses, permanently.
    for (ns, addr) in [
        (&ugv1.ns, t.ground_addr),
        (&ugv1.ns, ugv2.addr),
        (&ugv2.ns, t.ground_addr),
        (&ugv2.ns, ugv1.addr),
        (&t.radio_ns, ugv1.addr),
        (&t.radio_ns, ugv2.addr),
    ] {
        let entry = neighbour(ns, addr);
        assert!(
            entry.contains(&netns::radio_mac(addr)) && entry.ends_with("PERMANENT"),
            "{ns}: {entry}"
        );
    }
    // The interfaces carry the addresses the entries name.
    let shown =
        fieldproof_link::sys::ip(&["-n", &ugv1.ns, "link", "show", netns::VEHICLE_IF]).unwrap();
    assert!(shown.contains(&netns::radio_mac(ugv1.addr)), "{shown}");
    let bridge =
        fieldproof_link::sys::ip(&["-n", &t.radio_ns, "link", "show", netns::RADIO_BRIDGE])
            .unwrap();
    assert!(
        bridge.contains(&netns::radio_mac(t.ground_addr)),
        "{bridge}"
    );
    // And the link still carries traffic both ways.
    assert!(answers(&ugv1.ns, t.ground_addr), "ugv1 -> ground");
    assert!(answers(&t.radio_ns, ugv2.addr), "ground -> ugv2");
    assert!(answers(&ugv1.ns, ugv2.addr), "ugv1 -> ugv2");
    drop(t);
    assert!(netns::namespaces_of(&run).is_empty());
}

/// Receives one datagram on `socket` within `timeout`, if any.
fn receive(socket: &std::net::UdpSocket, timeout: std::time::Duration) -> Option<Vec<u8>> {
    socket.set_read_timeout(Some(timeout)).unwrap();
    let mut buffer = [0u8; 64];
    socket.recv(&mut buffer).ok().map(|n| buffer[..n].to_vec())
}

#[test]
fn multicast_reaches_a_vehicle_however_long_since_it_joined() {
    use std::net::{Ipv4Addr, UdpSocket};
    use std::time::Duration;
    let (run, t) = two_ugvs("mcast");
    let ugv1 = &t.links[0];
    let group = Ipv4Addr::new(239, 255, 0, 1);
    let port = 7499;
    // A membership interval of 1 s (260 s by default), and no IGMP report after the join:
    // the radio carries the group to ugv1 all the same (a radio is a broadcast medium; the
    // bridge does not snoop).
    fieldproof_link::sys::ip(&[
        "-n",
        &t.radio_ns,
        "link",
        "set",
        netns::RADIO_BRIDGE,
        "type",
        "bridge",
        "mcast_membership_interval",
        "100",
    ])
    .unwrap();
    let vehicle_addr = ugv1.addr;
    let listener = fieldproof_link::sys::in_netns(&ugv1.ns, move || {
        let socket = UdpSocket::bind((Ipv4Addr::UNSPECIFIED, port)).unwrap();
        socket.join_multicast_v4(&group, &vehicle_addr).unwrap();
        Ok(socket)
    })
    .unwrap();
    let sender = fieldproof_link::sys::in_netns(&t.radio_ns, move || {
        let socket = UdpSocket::bind((netns::GROUND_ADDR, 0)).unwrap();
        socket.set_multicast_ttl_v4(1).unwrap();
        Ok(socket)
    })
    .unwrap();
    let send = |text: &[u8]| sender.send_to(text, (group, port)).unwrap();
    send(b"first");
    assert_eq!(
        receive(&listener, Duration::from_secs(2)).as_deref(),
        Some(&b"first"[..])
    );
    // Three membership intervals later, without a report since the join.
    std::thread::sleep(Duration::from_secs(3));
    send(b"later");
    assert_eq!(
        receive(&listener, Duration::from_secs(2)).as_deref(),
        Some(&b"later"[..]),
        "the radio stopped carrying multicast to a vehicle that joined long ago"
    );
    drop(t);
    assert!(netns::namespaces_of(&run).is_empty());
}
