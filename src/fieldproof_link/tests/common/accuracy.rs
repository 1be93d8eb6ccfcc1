//! The link accuracy test, one body for both backends: the userspace emulator here
//! (`userspace_links.rs`) and kernel netem in a VM (`kernel_links.rs`, run by
//! `scripts/vm-netem`).
//!
//! Sequential: parallel links on a 2-core machine would measure the machine. The host's (or
//! VM's) own round trip is measured first at a zero profile, in the same run, and every
//! latency is judged over it. Bounds (n = probes): latency |mean RTT / 2 − latency| ≤ 10 % of
//! it + the baseline round trip; jitter (RTT sd / √2, with the baseline's variance taken out
//! where [`Tolerances::subtract_baseline_variance`] says so) within
//! [`Tolerances::jitter`] of the profile; unanswered probes ≤ λ + 4√λ + 2 with
//! λ = n (1 − (1 − loss)²); UDP received throughput at 1.5× the rate offered (1.25× for
//! wifi_good) within 10 % of the rate (counted on the wire, Ethernet headers included, as
//! netem counts; an unshaped link would deliver ≥ 1.2×); where
//! [`Tolerances::lower_rate_bound_needs_room`] says so, the lower bound is judged only if
//! the same path carries 1.2× the rate at a zero profile, measured first in the same run (as
//! the round trip is); reordering at 50 %: the share of
//! round trips sent at once both ways within 4 sd of 0.25; a drop answers nothing, a restore
//! answers again.

use super::{iperf_udp, ping, run_id, udp_receive_buffer_errors};
use fieldproof_link::emulator::EmulatorConfig;
use fieldproof_link::netns::Backend;
use fieldproof_link::profile::{presets, Network, NetworkSection, Profile};
use fieldproof_link::shaper::{unix_now, LinkShaper};

/// What a backend is held to.
#[derive(Debug, Clone, Copy)]
pub struct Tolerances {
    /// Relative jitter tolerance.
    pub jitter: f64,
    /// Take the baseline's round-trip variance out of the jitter estimate (a VM under
    /// emulation adds its own scheduling noise to every round trip).
    pub subtract_baseline_variance: bool,
    /// Largest baseline round trip (ms) at which the measurement means anything.
    pub max_baseline_ms: f64,
    /// Judge a rate's lower bound only where the path carries 1.2x the rate at a zero
    /// profile, measured first in the same run at the same offered load (the upper bound is
    /// always judged). An emulated VM's throughput follows its host's load (26 to 48 Mbit/s
    /// carried of 62.5 offered on this machine): at 50 Mbit/s it may not carry the rate at
    /// all, and its own ceiling is not the tree's error. The userspace emulator is ours to
    /// make fast: it is held to the nominal rate.
    pub lower_rate_bound_needs_room: bool,
}

impl Tolerances {
    /// The userspace emulator on this machine.
    pub const USERSPACE: Tolerances = Tolerances {
        jitter: 0.3,
        subtract_baseline_variance: false,
        max_baseline_ms: 2.0,
        lower_rate_bound_needs_room: false,
    };
    /// Kernel netem in a VM under TCG: the 20 % jitter, over the VM's own noise.
    pub const NETEM_IN_A_VM: Tolerances = Tolerances {
        jitter: 0.2,
        subtract_baseline_variance: true,
        max_baseline_ms: 10.0,
        lower_rate_bound_needs_room: true,
    };
}

/// UDP through the link one way (`down`: ground to vehicle), counted where it is received, by
/// iperf3's client (`-R`: the server sends) in both directions, over the client's own window.
/// Counted by iperf3's server instead, the window runs until the client's end-of-test message
/// arrives through the same shaped queue (1.7 s late at rf_900mhz_5km's rate), and whether the
/// queue had drained by then decided the figure: 174 or 189 kbit/s of its 193.
fn udp_one_way(
    radio: &str,
    ground_addr: &str,
    vehicle_ns: &str,
    vehicle_addr: &str,
    offered_bps: f64,
    down: bool,
) -> (f64, f64) {
    if down {
        iperf_udp(radio, ground_addr, vehicle_ns, offered_bps, 3, true)
    } else {
        iperf_udp(vehicle_ns, vehicle_addr, radio, offered_bps, 3, true)
    }
}

fn shaper(run: &str, profile: &str, backend: Backend) -> LinkShaper {
    let sec = NetworkSection::with_profile(profile);
    let net = Network::new(sec, &presets(), "network").unwrap();
    LinkShaper::start(
        run,
        &["ugv1".to_string()],
        net,
        backend,
        EmulatorConfig::default(),
        unix_now(),
    )
    .unwrap()
}

/// Every preset through `backend`, then reordering, a drop and a restore.
pub fn every_preset(backend: Backend, tolerances: Tolerances) {
    let run = run_id("acc");
    let mut s = shaper(&run, "wifi_good", backend);
    let radio = s.topology().radio_ns.clone();
    let vns = s.topology().links[0].ns.clone();
    let vaddr = s.topology().links[0].addr.to_string();
    let gaddr = s.topology().ground_addr.to_string();

    // The baseline: the round trip through the link at a zero profile.
    s.set_custom("ugv1", "zero", Profile::default()).unwrap();
    ping(&radio, &vaddr, 3, 0.05);
    let base = ping(&radio, &vaddr, 100, 0.01);
    assert_eq!(base.rtts.len(), 100, "a zero profile answers every probe");
    let base_rtt = base.mean();
    let base_var = if tolerances.subtract_baseline_variance {
        base.sd().powi(2)
    } else {
        0.0
    };
    eprintln!(
        "{backend:?}: baseline round trip {base_rtt:.3} ms (sd {:.3})",
        base.sd()
    );
    assert!(base_rtt < tolerances.max_baseline_ms, "{base_rtt}");
    // The path's own capacity at a zero profile, each way, at the highest load offered below
    // (wifi_good's): where the tolerances say so, it decides whether a rate's lower bound is
    // judged.
    let capacity = if tolerances.lower_rate_bound_needs_room {
        let offered = 1.25 * presets()["wifi_good"].rate_kbit.unwrap() * 1000.0;
        let [up, down] = [false, true].map(|reverse| {
            let (got, sent) = udp_one_way(&radio, &gaddr, &vns, &vaddr, offered, reverse);
            std::thread::sleep(std::time::Duration::from_millis(1500));
            eprintln!(
                "{backend:?}: zero profile carries {:.0} kbit/s {} of {:.0} sent",
                got / 1000.0,
                if reverse { "down" } else { "up" },
                sent / 1000.0
            );
            got
        });
        Some((up, down))
    } else {
        None
    };

    for (name, n, interval) in [
        ("wifi_good", 200, 0.01),
        ("lte_rural", 100, 0.02),
        ("rf_900mhz_5km", 100, 0.02),
    ] {
        let p = presets()[name].clone();
        s.set("ugv1", name).unwrap();
        ping(&radio, &vaddr, 2, 0.05); // ARP resolved under the new profile's delay
        let r = ping(&radio, &vaddr, n, interval);
        let lat = r.mean() / 2.0;
        let jit = ((r.sd().powi(2) - base_var).max(0.0) / 2.0).sqrt();
        let answered = r.rtts.len() as f64;
        // Expected unanswered λ = n (1 − (1 − loss)²), Poisson-like: allow λ + 4√λ + 2.
        let lambda = n as f64 * (1.0 - (1.0 - p.loss_pct / 100.0).powi(2));
        let min_answered = n as f64 - (lambda + 4.0 * lambda.sqrt() + 2.0).ceil();
        eprintln!(
            "{name}: latency {lat:.2} ms (profile {}), jitter {jit:.2} ms (profile {}), answered {answered}/{n} (≥ {min_answered:.1})",
            p.latency_ms, p.jitter_ms
        );
        assert!(
            (lat - p.latency_ms).abs() <= 0.1 * p.latency_ms + base_rtt,
            "{name}: latency {lat}"
        );
        assert!(
            (jit - p.jitter_ms).abs() <= tolerances.jitter * p.jitter_ms,
            "{name}: jitter {jit}"
        );
        assert!(
            answered >= min_answered,
            "{name}: {answered} of {n} answered"
        );

        let rate = p.rate_kbit.unwrap() * 1000.0;
        for reverse in [false, true] {
            // Above the rate: 1.5x, 1.25x for wifi_good (75 Mbit/s strains a loaded 2-core
            // machine's iperf3; an unshaped link would still deliver 1.2x, outside 10 %).
            let over = if name == "wifi_good" { 1.25 } else { 1.5 };
            let before = s.counters("ugv1").unwrap();
            let receiver = if reverse {
                vns.as_str()
            } else {
                radio.as_str()
            };
            let refused_before = udp_receive_buffer_errors(receiver);
            let (got, sent) = udp_one_way(&radio, &gaddr, &vns, &vaddr, over * rate, reverse);
            let dir = if reverse { "down" } else { "up" };
            let after = s.counters("ugv1").unwrap();
            let (queue_before, queue_after) = if reverse {
                (&before.down.traffic, &after.down.traffic)
            } else {
                (&before.up.traffic, &after.up.traffic)
            };
            // Where the frames went: delivered by the link, dropped by it (loss or a full
            // queue), refused by the receiving socket.
            eprintln!(
                "{name}: UDP {dir} {:.0} kbit/s received of {:.0} sent (rate {} kbit/s); link delivered {} frames and dropped {} (loss and a full queue), receiver refused {}",
                got / 1000.0,
                sent / 1000.0,
                rate / 1000.0,
                queue_after.packets - queue_before.packets,
                (queue_after.drops_loss + queue_after.drops_overflow)
                    - (queue_before.drops_loss + queue_before.drops_overflow),
                udp_receive_buffer_errors(receiver) - refused_before
            );
            // The rate counts Ethernet frames (as netem does): 1200 bytes of UDP payload are
            // 1242 bytes on the wire. A loaded machine (or a VM under emulation) may keep
            // iperf3 itself from sending above the rate (seen at 50 Mbit/s): then the link
            // must carry what was sent.
            let payload_rate = rate * 1200.0 / 1242.0;
            if name != "wifi_good" {
                assert!(
                    sent >= 1.2 * rate,
                    "{name} {dir}: iperf3 sent only {sent} bit/s"
                );
            } else if sent < 1.2 * rate {
                eprintln!(
                    "{name} {dir}: iperf3 sent below 1.2x the rate, the limiter is not exercised"
                );
            }
            // At most the rate (or what was sent), within 10 %: the limiter's work, whatever
            // the machine. At least that, within 10 %, where the path can carry the rate with
            // room: where the tolerances say so, only if it carried 1.2x the rate at a zero
            // profile (in a VM under TCG, netem's pacing at 50 Mbit/s costs the emulated CPUs
            // what they do not have: 42.9 of 48.1 sent were delivered with the path carrying
            // 48.2 unpaced; that measures the emulator, not the tree).
            let most = payload_rate.min(sent);
            assert!(
                got <= 1.1 * most,
                "{name} {dir}: {got} bit/s received, more than 10 % over {most} ({sent} sent)"
            );
            let carried = capacity.map(|(up, down)| if reverse { down } else { up });
            match carried {
                Some(carried) if carried < 1.2 * payload_rate => eprintln!(
                    "{name} {dir}: the path carried {:.0} kbit/s at a zero profile, less than 1.2x the rate: only the upper bound is judged here",
                    carried / 1000.0
                ),
                _ => assert!(
                    got >= 0.9 * most,
                    "{name} {dir}: {got} bit/s received, more than 10 % under {most} ({sent} sent)"
                ),
            }
            // Let the queue the excess built drain before the next run.
            std::thread::sleep(std::time::Duration::from_millis(1500));
        }
        let c = s.counters("ugv1").unwrap();
        assert!(
            c.up.traffic.packets > 0 && c.down.traffic.packets > 0,
            "{c:?}"
        );
    }

    // Reordering: 50 % of the frames each way are sent at once. A round trip is then
    // ~0 ms (both at once, p = 0.25), ~20 ms (one, p = 0.5) or ~40 ms (neither, p = 0.25);
    // of 200 probes the at-once-both-ways share lies within [0.13, 0.37] (4 sd). The
    // thresholds sit between those modes, over the baseline.
    s.set_custom(
        "ugv1",
        "reorder",
        Profile {
            latency_ms: 20.0,
            reorder_pct: 50.0,
            ..Default::default()
        },
    )
    .unwrap();
    ping(&radio, &vaddr, 2, 0.05);
    let r = ping(&radio, &vaddr, 200, 0.01);
    let fast = r.rtts.iter().filter(|t| **t < 5.0 + base_rtt).count() as f64 / r.rtts.len() as f64;
    let slow = r.rtts.iter().filter(|t| **t > 35.0 + base_rtt).count() as f64 / r.rtts.len() as f64;
    eprintln!(
        "reorder 50 %: {:.2} of round trips at once both ways, {slow:.2} delayed both ways",
        fast
    );
    assert!((0.13..=0.37).contains(&fast), "{fast}");
    assert!((0.13..=0.37).contains(&slow), "{slow}");

    // A drop answers nothing; the restore answers again.
    s.drop_link("ugv1", None).unwrap();
    std::thread::sleep(std::time::Duration::from_millis(100));
    let dropped = ping(&radio, &vaddr, 20, 0.05);
    assert_eq!(dropped.rtts.len(), 0, "a dropped link answers nothing");
    let before = s.counters("ugv1").unwrap();
    assert!(
        before.down.probe.drops_loss + before.up.probe.drops_loss >= 20,
        "{before:?}"
    );
    s.restore("ugv1").unwrap();
    assert_eq!(s.in_force()["ugv1"].profile, "wifi_good");
    let back = ping(&radio, &vaddr, 20, 0.05);
    assert!(back.rtts.len() >= 18, "restored: {} of 20", back.rtts.len());
    let events: Vec<&str> = s.events().iter().map(|e| e.profile.as_str()).collect();
    assert_eq!(
        events,
        vec![
            "wifi_good",
            "zero",
            "wifi_good",
            "lte_rural",
            "rf_900mhz_5km",
            "reorder",
            "drop",
            "wifi_good"
        ]
    );
    drop(s);
    assert!(fieldproof_link::netns::namespaces_of(&run).is_empty());
}
