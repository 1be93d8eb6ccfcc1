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

    /// Whether a child started from `cmd` (reading its own /proc status) ignores SIGINT.
    fn child_ignores_sigint(mut cmd: Command) -> bool {
        let out = cmd.arg("/proc/self/status").output().unwrap();
        let status = String::from_utf8(out.stdout).unwrap();
        let mask = status
            .lines()
            .find_map(|l| l.strip_prefix("SigIgn:"))
            .unwrap()
            .trim();
        u64::from_str_radix(mask, 16).unwrap() & (1 << (Signal::SIGINT as u64 - 1)) != 0
    }

    #[test]
    fn an_ignored_sigint_is_not_inherited() {
        // This process ignores SIGINT, as one started with `cmd &` from a script does.
        let before = unsafe { signal(Signal::SIGINT, SigHandler::SigIgn) }.unwrap();
        let plain_ignores = child_ignores_sigint(Command::new("cat"));
        let mut cmd = Command::new("cat");
        supervised(&mut cmd);
        let supervised_ignores = child_ignores_sigint(cmd);
        unsafe { signal(Signal::SIGINT, before) }.unwrap();
        assert!(plain_ignores, "a plain child inherits the ignored SIGINT");
        assert!(!supervised_ignores, "a supervised child gets SIGINT back");
    }
}
