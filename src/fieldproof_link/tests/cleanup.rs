//! Nothing of a run is left after it ends, is killed or fails (root).

mod common;

use common::{require_root, run_id};
use fieldproof_link::netns::{self, namespaces_of, Backend, Topology};
use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// Starts `link_net up` for `run` (ugv1 and ugv2) and waits for its ready line.
fn start_link_net(run: &str) -> Child {
    start_link_net_with(run, &["--vehicle", "ugv2"])
}

/// Starts `link_net up` for `run` with ugv1 and the further options `more`, and waits for
/// its ready line.
fn start_link_net_with(run: &str, more: &[&str]) -> Child {
    let mut child = Command::new(env!("CARGO_BIN_EXE_link_net"))
        .args([
            "up",
            "--run-id",
            run,
            "--vehicle",
            "ugv1",
            "--profile",
            "lte_rural",
            "--backend",
            "userspace",
        ])
        .args(more)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("link_net starts");
    let mut line = String::new();
    BufReader::new(child.stdout.as_mut().unwrap())
        .read_line(&mut line)
        .unwrap();
    assert!(line.contains("\"ready\":true"), "{line}");
    child
}

/// A process left inside the run's vehicle namespace (a stand-in for the vehicle's stack).
fn park_process(ns: &str) -> Child {
    Command::new("ip")
        .args(["netns", "exec", ns, "sleep", "300"])
        .spawn()
        .unwrap()
}

fn wait_gone(child: &mut Child) -> bool {
    let t = Instant::now();
    while t.elapsed() < Duration::from_secs(5) {
        if let Ok(Some(_)) = child.try_wait() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    false
}

#[test]
fn sigkill_of_the_owner_leaves_a_stale_run_that_cleanup_removes() {
    require_root();
    let run = run_id("kill");
    let mut owner = start_link_net(&run);
    assert_eq!(
        namespaces_of(&run).len(),
        6,
        "radio + world + 2 vehicles + 2 links"
    );
    let mut parked = park_process(&netns::vehicle_ns(&run, "ugv1"));
    std::thread::sleep(Duration::from_millis(200));
    assert!(!netns::stale_runs().contains(&run), "the owner lives");
    owner.kill().unwrap(); // SIGKILL
    owner.wait().unwrap();
    assert_eq!(
        namespaces_of(&run).len(),
        6,
        "a killed owner cannot clean up"
    );
    assert!(netns::stale_runs().contains(&run));
    let out = Command::new(env!("CARGO_BIN_EXE_link_net"))
        .args(["cleanup", "--stale"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    assert!(namespaces_of(&run).is_empty(), "{:?}", namespaces_of(&run));
    assert!(
        wait_gone(&mut parked),
        "the process left in the run's namespace is ended"
    );
    assert!(netns::read_label(&run).is_none());
    assert!(!std::path::Path::new(&format!("/etc/netns/{}", netns::radio_ns(&run))).exists());
}

#[test]
fn a_guard_on_the_owners_pipe_cleans_up_after_a_sigkill() {
    require_root();
    let run = run_id("guard");
    let mut owner = start_link_net(&run);
    let mut guard = Command::new(env!("CARGO_BIN_EXE_link_net"))
        .args(["cleanup", "--run-id", &run, "--after-stdin-closes"])
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .spawn()
        .unwrap();
    let mut parked = park_process(&netns::vehicle_ns(&run, "ugv1"));
    std::thread::sleep(Duration::from_millis(300));
    assert_eq!(
        guard.try_wait().unwrap(),
        None,
        "waits while its pipe is open"
    );
    assert_eq!(namespaces_of(&run).len(), 6);
    owner.kill().unwrap(); // SIGKILL: the owner cannot clean up
    owner.wait().unwrap();
    assert_eq!(namespaces_of(&run).len(), 6, "the owner did not clean up");
    // The pipe's writer (here the test, in the runner the runner itself) ends.
    drop(guard.stdin.take());
    assert!(guard.wait().unwrap().success());
    assert!(namespaces_of(&run).is_empty(), "{:?}", namespaces_of(&run));
    assert!(wait_gone(&mut parked), "the parked process is ended");
    assert!(netns::read_label(&run).is_none());
}

#[test]
fn sigint_and_quit_remove_everything() {
    require_root();
    for (k, how) in ["sigint", "quit"].iter().enumerate() {
        let run = run_id(&format!("end{k}"));
        let mut owner = start_link_net(&run);
        let mut parked = park_process(&netns::vehicle_ns(&run, "ugv2"));
        std::thread::sleep(Duration::from_millis(200));
        if *how == "sigint" {
            // SAFETY: kill(2) on our own child.
            unsafe { libc::kill(owner.id() as i32, libc::SIGINT) };
        } else {
            use std::io::Write;
            writeln!(owner.stdin.as_mut().unwrap(), "quit").unwrap();
        }
        let status = owner.wait().unwrap();
        assert!(status.success(), "{how}: {status}");
        assert!(
            namespaces_of(&run).is_empty(),
            "{how}: {:?}",
            namespaces_of(&run)
        );
        assert!(wait_gone(&mut parked), "{how}: the parked process is ended");
    }
}

#[test]
fn a_failed_creation_removes_what_it_made() {
    require_root();
    let run = run_id("fail");
    // A file where the radio namespace's hosts directory goes makes the last step fail.
    let blocker = format!("/etc/netns/{}", netns::radio_ns(&run));
    std::fs::create_dir_all("/etc/netns").unwrap();
    std::fs::write(&blocker, "not a directory").unwrap();
    let r = Topology::create(&run, &["ugv1".into()], Backend::Userspace);
    let _ = std::fs::remove_file(&blocker);
    let e = r.expect_err("creation fails");
    assert!(e.to_string().contains("mkdir"), "{e}");
    assert!(namespaces_of(&run).is_empty(), "{:?}", namespaces_of(&run));
    assert!(netns::read_label(&run).is_none());
}

#[test]
fn a_run_id_with_leftovers_is_refused_and_dropping_removes() {
    require_root();
    let run = run_id("dup");
    let t = Topology::create(&run, &["ugv1".into()], Backend::Kernel).unwrap();
    assert_eq!(
        namespaces_of(&run).len(),
        3,
        "kernel backend: radio + world + vehicle, no link namespace"
    );
    let e = Topology::create(&run, &["ugv1".into()], Backend::Kernel).unwrap_err();
    assert!(e.to_string().contains("already has namespaces"), "{e}");
    drop(t);
    assert!(namespaces_of(&run).is_empty());
}

#[test]
fn a_kept_run_outlives_its_owner_and_the_stale_cleanup_until_cleanup_by_its_id() {
    require_root();
    let run = run_id("kept");
    let mut owner = start_link_net_with(&run, &["--keep"]);
    assert!(netns::read_label(&run).unwrap().kept);
    // The owner ends normally (its stdin closes): the namespaces stay.
    drop(owner.stdin.take());
    assert!(owner.wait().unwrap().success());
    let kept = namespaces_of(&run);
    assert_eq!(kept.len(), 4, "radio + world + vehicle + link: {kept:?}");
    // Its owner is gone, yet it is not stale: `cleanup --stale` leaves it.
    assert!(!netns::stale_runs().contains(&run));
    let out = Command::new(env!("CARGO_BIN_EXE_link_net"))
        .args(["cleanup", "--stale"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    assert_eq!(namespaces_of(&run), kept);
    // `cleanup --run-id` removes it.
    let out = Command::new(env!("CARGO_BIN_EXE_link_net"))
        .args(["cleanup", "--run-id", &run])
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    assert!(namespaces_of(&run).is_empty(), "{:?}", namespaces_of(&run));
    assert!(netns::read_label(&run).is_none());
}
