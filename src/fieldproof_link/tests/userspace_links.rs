//! Accuracy of the userspace emulator with the real tools, for every preset (root): the
//! shared body and its bounds are `common/accuracy.rs` (the kernel path runs the same in a VM,
//! `kernel_links.rs`). The latency bound (10 % + the host's own round trip) is at least 4
//! standard errors for every preset (lte_rural: SE 1.4 ms vs 6 ms), the jitter bound (30 %)
//! too.

mod common;

use std::sync::Mutex;

use common::accuracy::{every_preset, Tolerances};
use common::{ping, require_root, run_id};
use fieldproof_link::emulator::EmulatorConfig;
use fieldproof_link::netns::Backend;
use fieldproof_link::profile::{presets, Network, NetworkSection, Profile};
use fieldproof_link::shaper::{unix_now, LinkShaper};

/// The tests of this file measure the emulator against its profiles: one at a time, so a
/// figure is the emulator's alone, not shared with the other test's traffic on two cores
/// (a slower machine measured lte_rural's 4 Mbit/s at 3.36 beside the other test).
static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

#[test]
fn every_preset_through_the_userspace_emulator() {
    let _alone = ONE_AT_A_TIME.lock().unwrap_or_else(|p| p.into_inner());
    require_root();
    every_preset(Backend::Userspace, Tolerances::USERSPACE);
}

#[test]
fn vehicle_to_vehicle_crosses_both_links() {
    let _alone = ONE_AT_A_TIME.lock().unwrap_or_else(|p| p.into_inner());
    require_root();
    let run = run_id("v2v");
    let sec = NetworkSection {
        profile: "wifi_good".into(),
        links: [("ugv2".to_string(), "slow".to_string())]
            .into_iter()
            .collect(),
        profiles: [(
            "slow".to_string(),
            Profile {
                latency_ms: 20.0,
                ..Default::default()
            },
        )]
        .into_iter()
        .collect(),
        ..NetworkSection::with_profile("wifi_good")
    };
    let net = Network::new(sec, &presets(), "network").unwrap();
    let mut s = LinkShaper::start(
        &run,
        &["ugv1".into(), "ugv2".into()],
        net,
        Backend::Userspace,
        EmulatorConfig::default(),
        unix_now(),
    )
    .unwrap();
    s.set_custom(
        "ugv1",
        "ten",
        Profile {
            latency_ms: 10.0,
            ..Default::default()
        },
    )
    .unwrap();
    let l1 = s.topology().links[0].ns.clone();
    let a2 = s.topology().links[1].addr.to_string();
    ping(&l1, &a2, 2, 0.1);
    let r = ping(&l1, &a2, 20, 0.02);
    // Each way: 10 ms (ugv1's link) + 20 ms (ugv2's): a round trip of 60 ms. The fastest
    // reply shows the delays add up (one link alone would give 20 or 40 ms; the emulator
    // never releases early); the mean also carries the host's scheduling under load (CI
    // runs other tests beside this one), so it only gets a loose bound.
    assert_eq!(r.rtts.len(), 20);
    let fastest = r.rtts.iter().copied().fold(f64::INFINITY, f64::min);
    assert!((59.5..63.0).contains(&fastest), "fastest {fastest} ms");
    assert!(r.mean() < 75.0, "mean {} ms", r.mean());
    // The vehicles resolve each other by name through the run's hosts file.
    let out = std::process::Command::new("ip")
        .args(["netns", "exec", &l1, "getent", "hosts", "ugv2"])
        .output()
        .unwrap();
    assert!(
        String::from_utf8_lossy(&out.stdout).starts_with(&a2),
        "{out:?}"
    );
}
