//! The pipe to the `supervisor_core` child: one frame line written to its stdin, one command
//! line read from its stdout, within a wall-clock response timeout (the spec's 3 s), the
//! sequence numbers correlated; each line appended to the evidence exactly as it crossed the
//! pipe. A failure of any kind is a [`LinkError`] naming what happened; the caller aborts.

use std::ffi::OsStr;
use std::fs::{File, OpenOptions};
use std::io::{BufRead, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Stdio};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use fieldproof_runtime::tracing;
use futures::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use futures::FutureExt;
use smol::Async;

use crate::supervisor::protocol::{Command, Frame};

/// The environment variable naming the run's evidence directory (set by the runner per
/// vehicle); the frames go to its `supervisor/` directory.
pub const EVIDENCE_ENV: &str = "FIELDPROOF_EVIDENCE_DIR";

/// The longest answer line accepted, bytes (an answer is about 60).
pub const MAX_ANSWER_BYTES: u64 = 4096;

/// How many of the child's last stderr lines an exit report quotes.
const STDERR_TAIL: usize = 5;

/// The core's program and arguments.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CoreCommand {
    /// The executable.
    pub program: PathBuf,
    /// Its arguments (the policy's thresholds as flags).
    pub args: Vec<String>,
}

impl CoreCommand {
    /// The command line as one shell-readable string (for logs and the evidence).
    pub fn display(&self) -> String {
        std::iter::once(self.program.display().to_string())
            .chain(self.args.iter().cloned())
            .collect::<Vec<_>>()
            .join(" ")
    }
}

/// `supervisor_core` next to `exe` (the node's own executable): where cargo and colcon
/// install both binaries of this package.
pub fn core_beside(exe: &Path) -> PathBuf {
    exe.with_file_name("supervisor_core")
}

/// Where the frames go: `param` (the `frames_dir` parameter) if not empty, else
/// `<evidence>/supervisor` when [`EVIDENCE_ENV`] is set and not empty, else nowhere.
pub fn frames_dir(param: &str, evidence: Option<&OsStr>) -> Option<PathBuf> {
    if !param.is_empty() {
        return Some(PathBuf::from(param));
    }
    evidence
        .filter(|e| !e.is_empty())
        .map(|e| Path::new(e).join("supervisor"))
}

/// The evidence files: `frames.in` (every frame written), `frames.out` (every answer read),
/// one line each as on the pipe, appended with one `write` per line (nothing buffered in the
/// process: the files are complete even if it is killed); `core.args`, the core's
/// arguments one per line, for the replay (`supervisor_core $(cat core.args) < frames.in`).
#[derive(Debug)]
pub struct Evidence {
    dir: PathBuf,
    frames_in: File,
    frames_out: File,
}

impl Evidence {
    /// Creates `dir` if needed and opens the files for appending.
    pub fn open(dir: &Path, core: &CoreCommand) -> std::io::Result<Evidence> {
        std::fs::create_dir_all(dir)?;
        let append = |name: &str| {
            OpenOptions::new()
                .create(true)
                .append(true)
                .open(dir.join(name))
        };
        let mut args = String::new();
        for a in &core.args {
            args.push_str(a);
            args.push('\n');
        }
        std::fs::write(dir.join("core.args"), args)?;
        Ok(Evidence {
            dir: dir.to_path_buf(),
            frames_in: append("frames.in")?,
            frames_out: append("frames.out")?,
        })
    }

    /// The directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }
}

/// Why an exchange with the core failed (each one an abort of the session).
#[derive(Debug, thiserror::Error)]
pub enum LinkError {
    /// The child could not be started.
    #[error("cannot start supervisor_core ({program}): {source}")]
    Spawn {
        /// The program.
        program: String,
        /// The OS error.
        source: std::io::Error,
    },
    /// The frame could not be written (the child closed its stdin or exited).
    #[error("writing frame {sequence} to supervisor_core: {source}{stderr}")]
    Write {
        /// The frame.
        sequence: u64,
        /// The OS error.
        source: std::io::Error,
        /// The child's last stderr lines, if any (`: ...`).
        stderr: String,
    },
    /// Reading the answer failed.
    #[error("reading the answer to frame {sequence}: {source}")]
    Read {
        /// The frame.
        sequence: u64,
        /// The OS error.
        source: std::io::Error,
    },
    /// No answer within the response timeout.
    #[error("no answer to frame {sequence} within {timeout_s} s (wall clock)")]
    Timeout {
        /// The frame.
        sequence: u64,
        /// The timeout.
        timeout_s: f64,
    },
    /// The child closed its stdout (it exited).
    #[error("supervisor_core exited ({status}) without answering frame {sequence}{stderr}")]
    Exited {
        /// The frame.
        sequence: u64,
        /// Its exit status, as far as known.
        status: String,
        /// The child's last stderr lines, if any (`: ...`).
        stderr: String,
    },
    /// The answer is not a command line.
    #[error("answer to frame {sequence} is not a command ({reason}): {line:?}")]
    BadAnswer {
        /// The frame.
        sequence: u64,
        /// The line read (without its newline).
        line: String,
        /// What is wrong with it.
        reason: String,
    },
    /// The answer is for another frame.
    #[error("answer to frame {sequence} carries sequence {got}")]
    Sequence {
        /// The frame.
        sequence: u64,
        /// The answer's sequence.
        got: u64,
    },
}

/// A running `supervisor_core` child and its pipes.
pub struct CoreLink {
    child: Child,
    stdin: Option<Async<ChildStdin>>,
    stdout: BufReader<Async<ChildStdout>>,
    stderr_tail: Arc<Mutex<Vec<String>>>,
    stderr_thread: Option<std::thread::JoinHandle<()>>,
    evidence: Option<Evidence>,
    evidence_failure: Option<String>,
    timeout: Duration,
}

impl std::fmt::Debug for CoreLink {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CoreLink")
            .field("pid", &self.child.id())
            .field("evidence", &self.evidence)
            .finish()
    }
}

impl CoreLink {
    /// Starts the core; its stderr lines are logged (as warnings) as they come.
    pub fn spawn(
        core: &CoreCommand,
        evidence: Option<Evidence>,
        timeout: Duration,
    ) -> Result<CoreLink, LinkError> {
        let spawn_error = |source| LinkError::Spawn {
            program: core.program.display().to_string(),
            source,
        };
        let mut child = std::process::Command::new(&core.program)
            .args(&core.args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(spawn_error)?;
        let (Some(stdin), Some(stdout), Some(stderr)) =
            (child.stdin.take(), child.stdout.take(), child.stderr.take())
        else {
            let _ = child.kill();
            let _ = child.wait();
            return Err(spawn_error(std::io::Error::other("pipes missing")));
        };
        let pipes = Async::new(stdin).and_then(|i| Ok((i, Async::new(stdout)?)));
        let (stdin, stdout) = match pipes {
            Ok(p) => p,
            Err(e) => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(spawn_error(e));
            }
        };
        let stderr_tail = Arc::new(Mutex::new(Vec::new()));
        let tail = stderr_tail.clone();
        let stderr_thread = std::thread::Builder::new()
            .name("core-stderr".into())
            .spawn(move || {
                for line in std::io::BufReader::new(stderr).lines() {
                    let Ok(line) = line else { break };
                    tracing::warn!("supervisor_core: {line}");
                    let mut t = tail.lock().unwrap_or_else(|e| e.into_inner());
                    t.push(line);
                    if t.len() > STDERR_TAIL {
                        t.remove(0);
                    }
                }
            })
            .ok();
        Ok(CoreLink {
            child,
            stdin: Some(stdin),
            stdout: BufReader::new(stdout),
            stderr_tail,
            stderr_thread,
            evidence,
            evidence_failure: None,
            timeout,
        })
    }

    /// The child's process id.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// The first evidence write that failed, once (the frames go on; the evidence is
    /// incomplete from there and the caller says so).
    pub fn take_evidence_failure(&mut self) -> Option<String> {
        self.evidence_failure.take()
    }

    /// Appends `line` to `frames.in` (`answer` false) or `frames.out` (`answer` true).
    fn record(&mut self, answer: bool, line: &str) {
        let Some(ev) = self.evidence.as_mut() else {
            return;
        };
        let (file, name) = if answer {
            (&mut ev.frames_out, "frames.out")
        } else {
            (&mut ev.frames_in, "frames.in")
        };
        if let Err(e) = file.write_all(line.as_bytes()) {
            self.evidence_failure = Some(format!(
                "{}: {e}; no further frames are recorded",
                ev.dir.join(name).display()
            ));
            self.evidence = None;
        }
    }

    /// The child's last stderr lines as `: a | b`, waiting briefly for it to finish.
    async fn stderr_report(&mut self) -> String {
        for _ in 0..50 {
            match &self.stderr_thread {
                Some(t) if !t.is_finished() => smol::Timer::after(Duration::from_millis(10)).await,
                _ => break,
            };
        }
        let tail = self.stderr_tail.lock().unwrap_or_else(|e| e.into_inner());
        if tail.is_empty() {
            String::new()
        } else {
            format!(": {}", tail.join(" | "))
        }
    }

    /// The child's exit status, waiting up to 1 s for it.
    async fn exit_status(&mut self) -> String {
        for _ in 0..100 {
            match self.child.try_wait() {
                Ok(Some(status)) => return status.to_string(),
                Ok(None) => smol::Timer::after(Duration::from_millis(10)).await,
                Err(e) => return format!("status unknown: {e}"),
            };
        }
        "still running, stdout closed".into()
    }

    /// Writes `frame`, reads and checks its answer.
    pub async fn exchange(&mut self, frame: &Frame) -> Result<Command, LinkError> {
        let sequence = frame.sequence;
        let mut line = frame.to_line();
        while line.ends_with('\n') {
            line.pop();
        }
        line.push('\n');
        self.record(false, &line);
        let written = match self.stdin.as_mut() {
            Some(stdin) => match stdin.write_all(line.as_bytes()).await {
                Ok(()) => stdin.flush().await,
                Err(e) => Err(e),
            },
            None => Err(std::io::Error::new(
                std::io::ErrorKind::BrokenPipe,
                "stdin closed",
            )),
        };
        if let Err(source) = written {
            let stderr = self.stderr_report().await;
            return Err(LinkError::Write {
                sequence,
                source,
                stderr,
            });
        }
        let mut answer = String::new();
        let timeout = self.timeout;
        let read = {
            let mut limited = (&mut self.stdout).take(MAX_ANSWER_BYTES);
            let read_line = limited.read_line(&mut answer).fuse();
            let timer = FutureExt::fuse(smol::Timer::after(timeout));
            futures::pin_mut!(read_line, timer);
            futures::select! {
                r = read_line => Some(r),
                _ = timer => None,
            }
        };
        match read {
            None => {
                return Err(LinkError::Timeout {
                    sequence,
                    timeout_s: timeout.as_secs_f64(),
                })
            }
            Some(Err(source)) => return Err(LinkError::Read { sequence, source }),
            Some(Ok(0)) => {
                let status = self.exit_status().await;
                let stderr = self.stderr_report().await;
                return Err(LinkError::Exited {
                    sequence,
                    status,
                    stderr,
                });
            }
            Some(Ok(_)) => {}
        }
        self.record(true, &answer);
        let Some(text) = answer.strip_suffix('\n') else {
            return Err(LinkError::BadAnswer {
                sequence,
                reason: if answer.len() as u64 >= MAX_ANSWER_BYTES {
                    format!("longer than {MAX_ANSWER_BYTES} bytes")
                } else {
                    "no end of line before the pipe closed".into()
                },
                line: answer,
            });
        };
        let command = Command::parse(text).map_err(|e| LinkError::BadAnswer {
            sequence,
            line: text.to_string(),
            reason: e.to_string(),
        })?;
        if command.sequence != sequence {
            return Err(LinkError::Sequence {
                sequence,
                got: command.sequence,
            });
        }
        Ok(command)
    }

    /// Ends the child: closes its stdin (a core exits at the end of its input), waits up
    /// to `grace` for it, then kills it. Returns its exit status.
    pub async fn finish(mut self, grace: Duration) -> String {
        self.stdin = None;
        let steps = (grace.as_millis() / 10).max(1);
        for _ in 0..steps {
            if let Ok(Some(status)) = self.child.try_wait() {
                return status.to_string();
            }
            smol::Timer::after(Duration::from_millis(10)).await;
        }
        let _ = self.child.kill();
        match self.child.wait() {
            Ok(status) => format!("{status} (killed after {} s)", grace.as_secs_f64()),
            Err(e) => format!("killed, status unknown: {e}"),
        }
    }
}

impl Drop for CoreLink {
    fn drop(&mut self) {
        // Our own child, by its handle: never left running or unreaped.
        if let Ok(None) = self.child.try_wait() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_frames_go_to_the_parameter_else_the_runs_evidence_else_nowhere() {
        assert_eq!(
            frames_dir("/tmp/f", Some(OsStr::new("/run/quad1"))),
            Some(PathBuf::from("/tmp/f"))
        );
        assert_eq!(
            frames_dir("", Some(OsStr::new("/run/quad1"))),
            Some(PathBuf::from("/run/quad1/supervisor"))
        );
        assert_eq!(frames_dir("", Some(OsStr::new(""))), None);
        assert_eq!(frames_dir("", None), None);
    }

    #[test]
    fn the_core_is_looked_for_beside_the_node() {
        assert_eq!(
            core_beside(Path::new(
                "/opt/x/lib/fieldproof_mission/mission_supervisor"
            )),
            PathBuf::from("/opt/x/lib/fieldproof_mission/supervisor_core")
        );
    }

    /// A shell script as the core.
    fn sh(script: &str) -> CoreCommand {
        CoreCommand {
            program: "/bin/sh".into(),
            args: vec!["-c".into(), script.into()],
        }
    }

    fn frame(sequence: u64) -> Frame {
        crate::supervision::Inputs::new().frame(sequence, sequence as i64 * 50_000_000)
    }

    const ECHO_CORE: &str = r#"while read -r seq rest; do echo "$seq ACTIVE ok 0.5 0 0"; done"#;
    const PATIENCE: Duration = Duration::from_secs(20);

    #[test]
    fn frames_and_answers_cross_the_pipe_and_land_in_the_evidence_as_they_crossed() {
        let dir = tempfile::tempdir().unwrap();
        let core = sh(ECHO_CORE);
        let evidence = Evidence::open(&dir.path().join("supervisor"), &core).unwrap();
        let mut link = CoreLink::spawn(&core, Some(evidence), PATIENCE).unwrap();
        smol::block_on(async {
            for sequence in 1..=3 {
                let c = link.exchange(&frame(sequence)).await.unwrap();
                assert_eq!(c.sequence, sequence);
                assert_eq!(c.reason, "ok");
                assert_eq!(c.velocity, [0.5, 0.0, 0.0]);
            }
            assert_eq!(link.take_evidence_failure(), None);
            assert_eq!(link.finish(PATIENCE).await, "exit status: 0");
        });
        let read =
            |name: &str| std::fs::read_to_string(dir.path().join("supervisor").join(name)).unwrap();
        let sent: String = (1..=3)
            .map(|k| format!("{}\n", frame(k).to_line().trim_end()))
            .collect();
        assert_eq!(read("frames.in"), sent);
        assert_eq!(
            read("frames.out"),
            "1 ACTIVE ok 0.5 0 0\n2 ACTIVE ok 0.5 0 0\n3 ACTIVE ok 0.5 0 0\n"
        );
        assert_eq!(read("core.args"), format!("-c\n{ECHO_CORE}\n"));
    }

    #[test]
    fn a_core_that_exits_is_reported_with_its_status_and_its_words() {
        let core = sh("read -r line; echo 'line 1: battery: 7 is not in [0, 1]' >&2; exit 2");
        let mut link = CoreLink::spawn(&core, None, PATIENCE).unwrap();
        let e = smol::block_on(link.exchange(&frame(1))).unwrap_err();
        assert_eq!(
            e.to_string(),
            "supervisor_core exited (exit status: 2) without answering frame 1: \
             line 1: battery: 7 is not in [0, 1]"
        );
        // The next frame cannot be written.
        let e = smol::block_on(link.exchange(&frame(2))).unwrap_err();
        assert!(matches!(e, LinkError::Write { sequence: 2, .. }), "{e}");
    }

    #[test]
    fn a_core_that_does_not_answer_times_out() {
        let core = sh("cat > /dev/null");
        let mut link = CoreLink::spawn(&core, None, Duration::from_millis(200)).unwrap();
        let e = smol::block_on(link.exchange(&frame(1))).unwrap_err();
        assert_eq!(
            e.to_string(),
            "no answer to frame 1 within 0.2 s (wall clock)"
        );
        smol::block_on(link.finish(PATIENCE));
    }

    #[test]
    fn an_answer_for_another_frame_or_no_answer_at_all_is_refused() {
        let mut link = CoreLink::spawn(
            &sh(r#"read -r l; echo "99 ACTIVE ok 0 0 0""#),
            None,
            PATIENCE,
        )
        .unwrap();
        let e = smol::block_on(link.exchange(&frame(1))).unwrap_err();
        assert_eq!(e.to_string(), "answer to frame 1 carries sequence 99");

        let mut link = CoreLink::spawn(&sh("read -r l; echo hello"), None, PATIENCE).unwrap();
        let e = smol::block_on(link.exchange(&frame(1))).unwrap_err();
        assert!(
            matches!(&e, LinkError::BadAnswer { sequence: 1, line, .. } if line == "hello"),
            "{e}"
        );

        let mut link =
            CoreLink::spawn(&sh("read -r l; printf '1 ACTIVE'"), None, PATIENCE).unwrap();
        let e = smol::block_on(link.exchange(&frame(1))).unwrap_err();
        assert!(e.to_string().contains("no end of line"), "{e}");
    }

    #[test]
    fn a_core_that_cannot_start_is_named() {
        let core = CoreCommand {
            program: "/nonexistent/supervisor_core".into(),
            args: vec![],
        };
        let e = CoreLink::spawn(&core, None, PATIENCE).unwrap_err();
        assert!(
            e.to_string()
                .starts_with("cannot start supervisor_core (/nonexistent/supervisor_core): "),
            "{e}"
        );
    }

    #[test]
    fn the_command_line_reads_as_typed() {
        let c = CoreCommand {
            program: "/bin/supervisor_core".into(),
            args: vec!["--vision-required=false".into()],
        };
        assert_eq!(c.display(), "/bin/supervisor_core --vision-required=false");
    }
}
