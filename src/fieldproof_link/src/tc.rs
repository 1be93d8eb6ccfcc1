//! The kernel path (for kernels with sch_netem): the `tc`/`ip` argument vectors that shape
//! a vehicle's radio interface, and backend selection.
//!
//! Both directions get the same tree, outbound on the interface, inbound on an ifb device
//! the interface's ingress is redirected to:
//!
//! ```text
//! root 1: prio, 2 bands (priomap: everything to band 1:2)
//! ├── 1:1 ← ICMP (u32 ip protocol 1) → netem 10: latency, jitter, loss, reordering
//! └── 1:2 ← everything else          → netem 20: the same + rate (limit 1000 packets)
//! ```
//!
//! `tc qdisc replace` changes the netem queues in place, so a profile change reruns only
//! [`profile_commands`].

use crate::netns::Backend;
use crate::profile::Profile;
use crate::sys;

/// The ifb device receiving the radio interface's inbound traffic.
pub const IFB: &str = "ifbradio0";

fn fmt_num(v: f64) -> String {
    // f64's Display prints the shortest exact form (5, 0.1, 12.5).
    format!("{v}")
}

/// The netem options of a profile; the rate only in the traffic band.
pub fn netem_args(p: &Profile, with_rate: bool) -> Vec<String> {
    let mut a: Vec<String> = vec![
        "netem".into(),
        "limit".into(),
        "1000".into(),
        "delay".into(),
        format!("{}ms", fmt_num(p.latency_ms)),
    ];
    if p.jitter_ms > 0.0 {
        a.extend([
            format!("{}ms", fmt_num(p.jitter_ms)),
            "distribution".into(),
            "normal".into(),
        ]);
    }
    if p.loss_pct > 0.0 {
        a.extend([
            "loss".into(),
            "random".into(),
            format!("{}%", fmt_num(p.loss_pct)),
        ]);
    }
    if p.reorder_pct > 0.0 {
        a.extend(["reorder".into(), format!("{}%", fmt_num(p.reorder_pct))]);
    }
    if let (true, Some(r)) = (with_rate, p.rate_kbit) {
        a.extend(["rate".into(), format!("{}kbit", fmt_num(r))]);
    }
    a
}

fn v(parts: &[&str]) -> Vec<String> {
    parts.iter().map(|s| s.to_string()).collect()
}

/// The tree on one device, without the netem queues: prio root and the ICMP filter.
fn tree_commands(dev: &str) -> Vec<Vec<String>> {
    vec![
        v(&[
            "tc", "qdisc", "replace", "dev", dev, "root", "handle", "1:", "prio", "bands", "2",
            "priomap", "1", "1", "1", "1", "1", "1", "1", "1", "1", "1", "1", "1", "1", "1", "1",
            "1",
        ]),
        v(&[
            "tc", "filter", "replace", "dev", dev, "parent", "1:", "protocol", "ip", "prio", "1",
            "u32", "match", "ip", "protocol", "1", "0xff", "flowid", "1:1",
        ]),
    ]
}

/// The netem queues of one device carrying `p`.
fn netem_commands(dev: &str, p: &Profile) -> Vec<Vec<String>> {
    let mut probe = v(&[
        "tc", "qdisc", "replace", "dev", dev, "parent", "1:1", "handle", "10:",
    ]);
    probe.extend(netem_args(p, false));
    let mut traffic = v(&[
        "tc", "qdisc", "replace", "dev", dev, "parent", "1:2", "handle", "20:",
    ]);
    traffic.extend(netem_args(p, true));
    vec![probe, traffic]
}

/// Everything that sets up shaping on `dev` (the vehicle's radio interface) with `p`: the
/// ifb device, the ingress redirect, the tree on both and the netem queues.
pub fn setup_commands(dev: &str, p: &Profile) -> Vec<Vec<String>> {
    let mut c = vec![
        v(&["ip", "link", "add", IFB, "type", "ifb"]),
        v(&["ip", "link", "set", IFB, "up"]),
        v(&[
            "tc", "qdisc", "replace", "dev", dev, "handle", "ffff:", "ingress",
        ]),
        v(&[
            "tc", "filter", "replace", "dev", dev, "parent", "ffff:", "protocol", "all", "prio",
            "1", "u32", "match", "u32", "0", "0", "action", "mirred", "egress", "redirect", "dev",
            IFB,
        ]),
    ];
    for d in [dev, IFB] {
        c.extend(tree_commands(d));
    }
    c.extend(profile_commands(dev, p));
    c
}

/// What a profile change runs: the four netem queues replaced in place.
pub fn profile_commands(dev: &str, p: &Profile) -> Vec<Vec<String>> {
    let mut c = netem_commands(dev, p);
    c.extend(netem_commands(IFB, p));
    c
}

/// What removes the shaping again.
pub fn clear_commands(dev: &str) -> Vec<Vec<String>> {
    vec![
        v(&["tc", "qdisc", "del", "dev", dev, "root"]),
        v(&["tc", "qdisc", "del", "dev", dev, "ingress"]),
        v(&["ip", "link", "del", IFB]),
    ]
}

/// What reads the counters (`tc -s -j qdisc show dev …`), both ways.
pub fn stats_commands(dev: &str) -> Vec<Vec<String>> {
    [dev, IFB]
        .iter()
        .map(|d| v(&["tc", "-s", "-j", "qdisc", "show", "dev", d]))
        .collect()
}

/// Runs a command vector inside namespace `ns` (`ip -n` / `tc -n`).
pub fn run_in(ns: &str, cmd: &[String]) -> Result<String, sys::SysError> {
    let mut args: Vec<&str> = vec!["-n", ns];
    args.extend(cmd[1..].iter().map(String::as_str));
    sys::run(&cmd[0], &args)
}

/// What a kernel-backend failure adds where this kernel cannot shape with netem.
pub const NETEM_HINT: &str = "this kernel cannot shape with netem (hint: modprobe sch_netem ifb; or use the userspace emulator: network.backend: userspace, link_net --backend userspace)";

/// Whether this kernel can shape with netem: netem, prio and ifb are tried in a throwaway
/// namespace (`unshare --net`), which proves more than `modprobe -n` (a module may be
/// loadable yet refused in a container, or built in).
pub fn kernel_netem_available() -> bool {
    let tries: [&[&str]; 3] = [
        &[
            "--net", "--", "tc", "qdisc", "add", "dev", "lo", "root", "netem", "delay", "1ms",
        ],
        // As the tree has it: two bands need a priomap inside them (the default one names
        // band 2, which a 2-band prio refuses with EINVAL; found running it for real in a VM).
        &[
            "--net", "--", "tc", "qdisc", "add", "dev", "lo", "root", "handle", "1:", "prio",
            "bands", "2", "priomap", "1", "1", "1", "1", "1", "1", "1", "1", "1", "1", "1", "1",
            "1", "1", "1", "1",
        ],
        &[
            "--net",
            "--",
            "ip",
            "link",
            "add",
            "fpifbprobe",
            "type",
            "ifb",
        ],
    ];
    tries.iter().all(|a| sys::run("unshare", a).is_ok())
}

/// The backend to use: `forced` if given, else kernel when netem is available.
pub fn select_backend(forced: Option<Backend>) -> Backend {
    forced.unwrap_or_else(|| {
        if kernel_netem_available() {
            Backend::Kernel
        } else {
            Backend::Userspace
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::profile::presets;

    fn s(c: &[String]) -> String {
        c.join(" ")
    }

    #[test]
    fn netem_arguments_of_the_presets() {
        let p = presets();
        assert_eq!(
            s(&netem_args(&p["lte_rural"], true)),
            "netem limit 1000 delay 60ms 20ms distribution normal loss random 1% rate 4000kbit"
        );
        assert_eq!(
            s(&netem_args(&p["wifi_good"], false)),
            "netem limit 1000 delay 5ms 2ms distribution normal loss random 0.1%"
        );
        assert_eq!(
            s(&netem_args(&p["drop"], true)),
            "netem limit 1000 delay 0ms loss random 100%"
        );
        let r = Profile {
            latency_ms: 12.5,
            reorder_pct: 25.0,
            ..Default::default()
        };
        assert_eq!(
            s(&netem_args(&r, true)),
            "netem limit 1000 delay 12.5ms reorder 25%"
        );
    }

    #[test]
    fn the_tree_has_a_probe_band_and_ifb_for_inbound() {
        let p = presets();
        let c: Vec<String> = setup_commands("radio0", &p["rf_900mhz_5km"])
            .iter()
            .map(|c| s(c))
            .collect();
        assert_eq!(c[0], "ip link add ifbradio0 type ifb");
        assert!(c.contains(&"tc filter replace dev radio0 parent ffff: protocol all prio 1 u32 match u32 0 0 action mirred egress redirect dev ifbradio0".to_string()));
        for dev in ["radio0", "ifbradio0"] {
            assert!(c.contains(&format!("tc qdisc replace dev {dev} root handle 1: prio bands 2 priomap 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1")));
            assert!(c.contains(&format!("tc filter replace dev {dev} parent 1: protocol ip prio 1 u32 match ip protocol 1 0xff flowid 1:1")));
            assert!(c.contains(&format!(
                "tc qdisc replace dev {dev} parent 1:1 handle 10: netem limit 1000 delay 40ms 10ms distribution normal loss random 3%"
            )));
            assert!(c.contains(&format!(
                "tc qdisc replace dev {dev} parent 1:2 handle 20: netem limit 1000 delay 40ms 10ms distribution normal loss random 3% rate 200kbit"
            )));
        }
        assert_eq!(c.len(), 4 + 4 + 4);
        // A change only replaces the four netem queues.
        let ch = profile_commands("radio0", &p["drop"]);
        assert_eq!(ch.len(), 4);
        assert!(ch.iter().all(|c| c[1] == "qdisc" && c[2] == "replace"));
        assert_eq!(s(&clear_commands("radio0")[2]), "ip link del ifbradio0");
        assert_eq!(
            s(&stats_commands("radio0")[1]),
            "tc -s -j qdisc show dev ifbradio0"
        );
    }

    #[test]
    fn forced_backend_wins() {
        assert_eq!(select_backend(Some(Backend::Userspace)), Backend::Userspace);
        assert_eq!(select_backend(Some(Backend::Kernel)), Backend::Kernel);
    }
}
