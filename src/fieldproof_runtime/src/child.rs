//! Starting the processes a supervisor (`fieldproof launch`, the scenario runner) stops
//! with SIGINT, the way `ros2 launch` stops its nodes.

use std::os::unix::process::CommandExt;
use std::process::Command;

use nix::sys::signal::{signal, SigHandler, Signal};

/// Makes `command` start a supervised child:
/// - in its own process group, so a terminal's Ctrl-C reaches the supervisor alone, which
///   then stops the children in order rather than all at once;
/// - with SIGKILL as its parent-death signal, so a supervisor killed outright takes it along;
/// - with SIGINT and SIGTERM at their default actions, so the stop request is honoured even
///   when the supervisor itself was started with them ignored (`nohup`, `cmd &` from a
///   script), which the child would otherwise inherit.
pub fn supervised(command: &mut Command) -> &mut Command {
    command.process_group(0);
    // SAFETY: prctl(2) and signal(2) only, both async-signal-safe, between fork and exec.
    unsafe {
        command.pre_exec(|| {
            nix::sys::prctl::set_pdeathsig(Signal::SIGKILL)?;
            for stop in [Signal::SIGINT, Signal::SIGTERM] {
                signal(stop, SigHandler::SigDfl)?;
            }
            Ok(())
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_ignored_sigint_is_not_inherited() {
        // Ignore SIGINT in a shell, as `cmd &` does, then start a child from a process with
        // that disposition: the child reports SIGINT's disposition from /proc.
        let ignored_here = unsafe { signal(Signal::SIGINT, SigHandler::SigIgn) }.unwrap();
        let report = |mut cmd: Command| {
            let out = cmd.output().unwrap();
            let status = String::from_utf8(out.stdout).unwrap();
            let mask = status
                .lines()
                .find_map(|l| l.strip_prefix("SigIgn:"))
                .unwrap()
                .trim()
                .to_string();
            u64::from_str_radix(&mask, 16).unwrap() & (1 << (Signal::SIGINT as u64 - 1)) != 0
        };
        let plain = {
            let mut c = Command::new("cat");
            c.arg("/proc/self/status");
            c
        };
        let mut supervised_cmd = Command::new("cat");
        supervised_cmd.arg("/proc/self/status");
        supervised(&mut supervised_cmd);
        let plain_ignores = report(plain);
        let supervised_ignores = report(supervised_cmd);
        unsafe { signal(Signal::SIGINT, ignored_here) }.unwrap();
        assert!(plain_ignores, "a plain child inherits the ignored SIGINT");
        assert!(!supervised_ignores, "a supervised child gets SIGINT back");
    }
}
