//! Every test that opens a DDS participant contains itself: when it is not in a private
//! network namespace, it re-runs (only itself) inside a fresh one with loopback up and a
//! multicast route on it, as `scripts/netns-run` does, so `cargo test` or `colcon test` run
//! directly by a user never multicast on their network.

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};

/// Set to `1` in a namespace made for a test (by `scripts/netns-run` or by [`contain`]).
pub const CONTAINED_ENV: &str = "FIELDPROOF_IN_NETNS";

/// The shell the new namespace runs first: loopback up with multicast, the multicast route
/// on it (what `scripts/netns-run` does), then the test binary.
const SETUP: &str = r#"PATH="$PATH:/usr/sbin:/sbin"
ip link set lo up || exit 97
ip link set lo multicast on || exit 97
ip route add 224.0.0.0/4 dev lo 2>/dev/null || true
exec "$@""#;

/// The inode of a network namespace link (`/proc/<pid>/ns/net`), or `None` when it cannot
/// be read (another user's process without ptrace rights).
fn netns_of(link: &str) -> Option<String> {
    std::fs::read_link(link)
        .ok()
        .map(|p| p.to_string_lossy().into_owned())
}

/// True when this process's network namespace is not the one of PID 1 (the machine's, or the
/// container's, network). When PID 1's namespace cannot be read, `FIELDPROOF_IN_NETNS=1`
/// decides.
pub fn is_contained() -> bool {
    match (netns_of("/proc/self/ns/net"), netns_of("/proc/1/ns/net")) {
        (Some(me), Some(init)) => me != init,
        _ => std::env::var(CONTAINED_ENV).as_deref() == Ok("1"),
    }
}

/// The name libtest gave the running test (its thread's name).
fn current_test_name() -> String {
    let thread = std::thread::current();
    match thread.name() {
        Some(name) if name != "main" => name.to_string(),
        other => panic!(
            "contain(): thread name {other:?} is no test name; call it first thing in the \
             #[test] function, or use contain_as(\"<test name>\")"
        ),
    }
}

/// [`contain_as`] for the running test (named by libtest's test thread).
///
/// ```no_run
/// #[test]
/// fn talks_over_dds() {
///     if !fieldproof_testkit::contain() {
///         return; // it ran, and passed, inside a private network namespace
///     }
///     // ... open participants ...
/// }
/// ```
#[must_use = "the test body must only run when contain() returns true"]
pub fn contain() -> bool {
    contain_as(&current_test_name())
}

/// First line of a test that opens DDS participants: returns from the test (which then ran,
/// and passed, inside a private network namespace) unless it already runs in one.
///
/// ```no_run
/// #[test]
/// fn talks_over_dds() {
///     fieldproof_testkit::contain_or_return!();
///     // ... open participants ...
/// }
/// ```
#[macro_export]
macro_rules! contain_or_return {
    () => {
        if !$crate::contain() {
            return;
        }
    };
}

/// Same as [`contain_as`], the name the issue gives it.
#[must_use = "the test body must only run when this returns true"]
pub fn in_private_netns_or_rerun(test: &str) -> bool {
    contain_as(test)
}

/// True when this process is already in a private network namespace (run the test body).
/// Otherwise re-runs the test binary filtered to `test` (`--exact <test> --nocapture
/// --test-threads=1 --include-ignored`) inside a fresh network namespace, asserts it ran
/// exactly that test and passed, and returns false (the caller returns).
#[must_use = "the test body must only run when this returns true"]
pub fn contain_as(test: &str) -> bool {
    if is_contained() {
        return true;
    }
    assert!(
        std::env::var_os("FIELDPROOF_TESTKIT_RERUN").is_none(),
        "{test}: re-run inside a new network namespace, yet still in PID 1's namespace"
    );
    rerun_contained(test);
    false
}

/// `unshare` options making a network namespace: as root a plain one; otherwise inside a
/// user namespace mapping this user to root (so loopback can be configured).
fn unshare_args() -> &'static [&'static str] {
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } == 0 {
        &["--net"]
    } else {
        &["--user", "--map-root-user", "--net"]
    }
}

fn rerun_contained(test: &str) {
    let exe = std::env::current_exe().expect("test executable path");
    let mut child = Command::new("unshare")
        .args(unshare_args())
        .args(["--", "sh", "-c", SETUP, "fieldproof-testkit"])
        .arg(&exe)
        // --include-ignored: the outer run reached this test only if it was selected, ignored
        // or not, so the inner run must not skip it.
        .args([
            "--exact",
            test,
            "--nocapture",
            "--test-threads=1",
            "--include-ignored",
        ])
        .env(CONTAINED_ENV, "1")
        .env("FIELDPROOF_TESTKIT_RERUN", "1")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("{test}: cannot start `unshare` (util-linux): {e}"));
    let stdout = child.stdout.take().expect("piped stdout");
    let mut summary = None;
    let mut out = std::io::stdout();
    for line in BufReader::new(stdout).lines() {
        let Ok(line) = line else { break };
        let _ = writeln!(out, "{line}");
        if line.starts_with("test result: ") {
            summary = Some(line);
        }
    }
    let status = child.wait().expect("wait for the contained re-run");
    assert_ne!(
        status.code(),
        Some(97),
        "{test}: loopback could not be brought up in the new network namespace"
    );
    assert!(
        status.success(),
        "{test} failed inside its private network namespace ({status})"
    );
    let summary = summary.unwrap_or_default();
    assert!(
        summary.contains(" 1 passed;"),
        "{test}: the contained re-run did not run exactly this test: {summary:?}"
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_test_thread_is_named_after_the_test() {
        assert_eq!(
            current_test_name(),
            "netns::tests::the_test_thread_is_named_after_the_test"
        );
    }

    #[test]
    fn contained_after_contain() {
        if !contain() {
            return;
        }
        assert!(is_contained());
        assert_ne!(
            netns_of("/proc/self/ns/net"),
            netns_of("/proc/1/ns/net"),
            "the test body runs outside PID 1's network namespace"
        );
    }
}
