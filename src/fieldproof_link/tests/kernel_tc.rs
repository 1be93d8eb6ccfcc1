//! The kernel path's commands against this machine's `tc` (root).
//!
//! This kernel has no sch_netem (nor sch_prio), so the commands cannot take effect here.
//! What the test proves: every command of the tree (setup, change, clear) is accepted by
//! this iproute2's parser — `tc` parses all options into the netlink request before it
//! talks to the kernel, exits 1 with its usage on a parse error, and 2 when the kernel
//! refuses. Each command either succeeds or fails with exit 2 and a kernel refusal
//! ("Specified qdisc kind is unknown", or a parent that could not be created); a negative
//! control shows a misspelt option is caught as a parse error. It does not prove the
//! kernel's behaviour: that needs a machine with sch_netem (`tc::kernel_netem_available`).

mod common;

use common::{require_root, run_id};
use fieldproof_link::emulator::EmulatorConfig;
use fieldproof_link::netns::{self, Backend, VEHICLE_IF};
use fieldproof_link::profile::{presets, Network, NetworkSection};
use fieldproof_link::shaper::{unix_now, LinkShaper};
use fieldproof_link::sys::{self, SysError};
use fieldproof_link::tc;

const KERNEL_REFUSALS: [&str; 4] = [
    "Specified qdisc kind is unknown",
    "Parent Qdisc doesn't exists",
    "Failed to find specified qdisc",
    "Cannot find specified qdisc",
];

#[derive(Debug, PartialEq)]
enum Outcome {
    Applied,
    KernelRefused,
    Other(String),
}

fn classify(r: Result<String, SysError>) -> Outcome {
    match r {
        Ok(_) => Outcome::Applied,
        Err(SysError::Command { message, .. })
            if message.ends_with("(exit status: 2)")
                && KERNEL_REFUSALS.iter().any(|k| message.contains(k)) =>
        {
            Outcome::KernelRefused
        }
        Err(e) => Outcome::Other(e.to_string()),
    }
}

#[test]
fn tc_parses_every_command_of_the_tree() {
    require_root();
    let run = run_id("tc");
    let ns = netns::vehicle_ns(&run, "tc");
    // A label so a crash leaves a stale run `cleanup --stale` finds.
    sys::ip(&["netns", "add", &ns]).unwrap();
    let result = std::panic::catch_unwind(|| {
        sys::ip(&[
            "-n", &ns, "link", "add", VEHICLE_IF, "type", "veth", "peer", "name", "peer0",
        ])
        .unwrap();
        sys::ip(&["-n", &ns, "link", "set", VEHICLE_IF, "up"]).unwrap();
        let mut outcomes = Vec::new();
        for (name, p) in presets() {
            let mut cmds = tc::setup_commands(VEHICLE_IF, &p);
            cmds.extend(tc::profile_commands(VEHICLE_IF, &presets()["lte_rural"]));
            for cmd in cmds {
                let o = classify(tc::run_in(&ns, &cmd));
                assert_ne!(
                    std::mem::discriminant(&o),
                    std::mem::discriminant(&Outcome::Other(String::new())),
                    "{name}: {} → {o:?}",
                    cmd.join(" ")
                );
                outcomes.push(o);
            }
            for cmd in tc::clear_commands(VEHICLE_IF) {
                // Clearing what the kernel refused finds nothing to delete; only a parse
                // error (exit 1) would be ours.
                if let Err(SysError::Command { message, .. }) = tc::run_in(&ns, &cmd) {
                    assert!(
                        !message.ends_with("(exit status: 1)"),
                        "{}: {message}",
                        cmd.join(" ")
                    );
                }
            }
        }
        // The ingress qdisc and the ifb device exist here, so some commands apply.
        assert!(outcomes.contains(&Outcome::Applied));
        if !tc::kernel_netem_available() {
            assert!(outcomes.contains(&Outcome::KernelRefused));
        }
        // Negative control: a misspelt netem option is a parse error, not a refusal.
        let bad: Vec<String> = [
            "tc", "qdisc", "add", "dev", VEHICLE_IF, "root", "netem", "delay", "5ms", "jiter",
            "2ms",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        assert!(
            matches!(classify(tc::run_in(&ns, &bad)), Outcome::Other(m) if m.contains("exit status: 1"))
        );
    });
    netns::cleanup_run(&run).unwrap();
    assert!(netns::namespaces_of(&run).is_empty());
    result.unwrap();
}

#[test]
fn backend_selection_matches_the_kernel() {
    // This machine has no sch_netem: the userspace emulator is selected.
    let available = tc::kernel_netem_available();
    let chosen = tc::select_backend(None);
    assert_eq!(chosen == netns::Backend::Kernel, available);
}

#[test]
fn the_kernel_backend_where_netem_is_missing_fails_with_the_hint() {
    require_root();
    let run = run_id("khint");
    let net = Network::new(
        NetworkSection::with_profile("lte_rural"),
        &presets(),
        "network",
    )
    .unwrap();
    let started = LinkShaper::start(
        &run,
        &["ugv1".into()],
        net,
        Backend::Kernel,
        EmulatorConfig::default(),
        unix_now(),
    );
    let available = tc::kernel_netem_available();
    let outcome = match started {
        Ok(shaper) => {
            drop(shaper);
            Ok(())
        }
        Err(e) => Err(e.to_string()),
    };
    // Whatever happened, the run's namespaces are gone (the topology removes them when the
    // start fails half-way).
    assert!(netns::namespaces_of(&run).is_empty());
    match outcome {
        Ok(()) => assert!(
            available,
            "the kernel backend started on a kernel without netem"
        ),
        Err(text) => {
            assert!(
                !available,
                "a kernel with netem refused the kernel backend: {text}"
            );
            assert!(
                text.starts_with("link ugv1: ") && text.ends_with(tc::NETEM_HINT),
                "{text}"
            );
            assert!(text.contains("modprobe sch_netem ifb"), "{text}");
        }
    }
}
