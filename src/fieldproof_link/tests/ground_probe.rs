//! The ground station's probes through an emulated link agree with ping (root).
//!
//! rf_900mhz_5km for 6 s: the prober's ~50 probes estimate the one-way latency with a
//! standard error of ≈ 1.0 ms, ping's 100 with ≈ 0.7 ms; the bound on their difference,
//! 5 ms, is 4 standard errors of the difference, and the prober's latency must be within
//! 10 % of 40 ms (4 SE) as the analysis would judge it.

mod common;

use common::{ping, require_root, run_id};
use fieldproof_link::analysis::{Measurement, Window};
use fieldproof_link::emulator::EmulatorConfig;
use fieldproof_link::netns::Backend;
use fieldproof_link::probe::run_probers;
use fieldproof_link::profile::{presets, Network, NetworkSection};
use fieldproof_link::shaper::{unix_now, LinkShaper};
use fieldproof_link::sys;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

#[test]
fn probes_agree_with_ping_and_a_drop_is_unanswered() {
    require_root();
    let run = run_id("gnd");
    let sec = NetworkSection::with_profile("rf_900mhz_5km");
    let net = Network::new(sec, &presets(), "network").unwrap();
    let mut s = LinkShaper::start(
        &run,
        &["ugv1".into()],
        net,
        Backend::Userspace,
        EmulatorConfig::default(),
        unix_now(),
    )
    .unwrap();
    let radio = s.topology().radio_ns.clone();
    let addr = s.topology().links[0].addr;
    // Resolve ARP first (a lost ARP request costs a 1 s retry: the bring-up the analysis
    // leaves out of the initial period).
    ping(&radio, &addr.to_string(), 5, 0.2);
    let stop = Arc::new(AtomicBool::new(false));
    let windows: Arc<Mutex<Vec<Window>>> = Arc::default();
    let (st, ws, ns) = (stop.clone(), windows.clone(), radio.clone());
    let prober = std::thread::spawn(move || {
        sys::enter_netns(&ns).unwrap();
        run_probers(&[("ugv1".to_string(), addr)], &st, |w| {
            ws.lock().unwrap().push(w)
        })
        .unwrap();
    });
    std::thread::sleep(std::time::Duration::from_millis(1000));
    let started = unix_now();
    let p = ping(&radio, &addr.to_string(), 100, 0.05);
    std::thread::sleep(std::time::Duration::from_millis(1500));
    // Then a drop of 3 s: its windows (wholly inside) are unanswered.
    s.drop_link("ugv1", None).unwrap();
    let drop_at = unix_now();
    std::thread::sleep(std::time::Duration::from_millis(5500));
    stop.store(true, Ordering::Relaxed);
    prober.join().unwrap();
    let all = windows.lock().unwrap().clone();
    let before: Vec<&Window> = all
        .iter()
        .filter(|w| w.t >= started && w.t + 1.0 <= drop_at)
        .collect();
    assert!(before.len() >= 5, "{} windows", before.len());
    let m = Measurement::from_windows(before.iter().copied());
    let lat = m.latency_ms.unwrap();
    let ping_lat = p.mean() / 2.0;
    eprintln!(
        "prober: {lat:.2} ms over {} replies (jitter {:.2}, loss {:.1} %), ping: {ping_lat:.2} ms",
        m.replies,
        m.jitter_ms.unwrap(),
        m.loss_pct.unwrap()
    );
    assert!(
        (lat - ping_lat).abs() <= 5.0,
        "prober {lat} vs ping {ping_lat}"
    );
    assert!((lat - 40.0).abs() <= 4.0, "{lat}");
    let dropped: Vec<&Window> = all
        .iter()
        .filter(|w| w.t >= drop_at + 1.0 && w.t + 1.0 <= drop_at + 4.0)
        .collect();
    assert!(!dropped.is_empty());
    assert!(
        dropped.iter().all(|w| w.replies == 0 && w.sent >= 9),
        "{dropped:?}"
    );
}
