//! [`NativeRunner`]: a [`Runner`] over `std::process`, for the tools' tests. It runs exactly
//! the spec's program, arguments, directory (under its root) and environment, kills the
//! whole process group at the timeout, and bounds each stream the way the host does (the
//! whole when short, else a 2 KiB head and a 14 KiB tail around a line saying what was cut).
//! It has no sandbox and no approval: it stands in for the host's `process.run` only.

use std::io::Read;
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use toolhost_sdk::limits::{BASH_HEAD_BYTES, BASH_TAIL_BYTES};
use toolhost_sdk::process::Termination;

use crate::failure::Failure;
use crate::runner::{Ran, Runner};
use crate::spec::RunSpec;

/// Runs specs natively in `root` (the stand-in workspace), recording each spec it ran.
#[derive(Debug)]
pub struct NativeRunner {
    /// The workspace root the spec's `cwd` is relative to.
    pub root: PathBuf,
    /// Every spec run, in order.
    pub runs: Vec<RunSpec>,
}

impl NativeRunner {
    /// A runner in `root` that has run nothing yet.
    pub fn new(root: impl Into<PathBuf>) -> Self {
        NativeRunner { root: root.into(), runs: Vec::new() }
    }
}

fn reader(stream: Option<impl Read + Send + 'static>) -> JoinHandle<Vec<u8>> {
    std::thread::spawn(move || {
        let mut bytes = Vec::new();
        if let Some(mut s) = stream {
            let _ = s.read_to_end(&mut bytes);
        }
        bytes
    })
}

/// `bytes` as the host's captured text: whole when at most head + tail, else head and tail
/// around a line saying how many bytes were omitted; and whether it was cut.
pub fn capture(bytes: &[u8]) -> (String, bool) {
    if bytes.len() <= BASH_HEAD_BYTES + BASH_TAIL_BYTES {
        return (String::from_utf8_lossy(bytes).into_owned(), false);
    }
    let omitted = bytes.len() - BASH_HEAD_BYTES - BASH_TAIL_BYTES;
    let text = format!(
        "{}\n[... {omitted} bytes omitted ...]\n{}",
        String::from_utf8_lossy(&bytes[..BASH_HEAD_BYTES]),
        String::from_utf8_lossy(&bytes[bytes.len() - BASH_TAIL_BYTES..])
    );
    (text, true)
}

/// Kills the child's whole process group (it leads one), then the child itself.
fn kill_tree(child: &mut Child) {
    let _ = Command::new("kill")
        .args(["-KILL", "--", &format!("-{}", child.id())])
        .stderr(Stdio::null())
        .status();
    let _ = child.kill();
}

impl Runner for NativeRunner {
    fn run(&mut self, spec: &RunSpec) -> Result<Ran, Failure> {
        self.runs.push(spec.clone());
        let dir = self.root.join(spec.cwd.as_deref().unwrap_or("."));
        let started = Instant::now();
        let spawned = Command::new(&spec.program)
            .args(&spec.args)
            .current_dir(&dir)
            .envs(spec.env.iter().map(|(k, v)| (k, v)))
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .process_group(0)
            .spawn();
        let mut child = match spawned {
            Ok(child) => child,
            Err(e) => {
                return Ok(Ran {
                    termination: Termination::SpawnFailed,
                    exit_code: None,
                    signal: None,
                    stdout: String::new(),
                    stdout_truncated: false,
                    stderr: format!("{}: {e}", spec.program),
                    stderr_truncated: false,
                    duration_ms: started.elapsed().as_millis() as u64,
                });
            }
        };
        let out = reader(child.stdout.take());
        let err = reader(child.stderr.take());
        let deadline = started + Duration::from_millis(spec.timeout_ms);
        let mut timed_out = false;
        let status = loop {
            if let Some(status) = child.try_wait().map_err(|e| {
                Failure::new(toolhost_sdk::error_kinds::ErrorKind::Internal, e.to_string())
            })? {
                break status;
            }
            if Instant::now() >= deadline {
                timed_out = true;
                kill_tree(&mut child);
                break child.wait().map_err(|e| {
                    Failure::new(toolhost_sdk::error_kinds::ErrorKind::Internal, e.to_string())
                })?;
            }
            std::thread::sleep(Duration::from_millis(5));
        };
        // A process the program left behind may hold the pipes open: end its group too.
        kill_tree(&mut child);
        let (stdout, stdout_truncated) = capture(&out.join().unwrap_or_default());
        let (stderr, stderr_truncated) = capture(&err.join().unwrap_or_default());
        let termination = if timed_out {
            Termination::TimedOut
        } else if status.code().is_some() {
            Termination::Exited
        } else {
            Termination::Signalled
        };
        Ok(Ran {
            termination,
            exit_code: if termination == Termination::Exited { status.code() } else { None },
            signal: if termination == Termination::Signalled { status.signal() } else { None },
            stdout,
            stdout_truncated,
            stderr,
            stderr_truncated,
            duration_ms: started.elapsed().as_millis() as u64,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(program: &str, args: &[&str], timeout_ms: u64) -> RunSpec {
        RunSpec {
            program: program.into(),
            args: args.iter().map(|a| (*a).to_owned()).collect(),
            cwd: None,
            env: vec![("GREETING".into(), "hello".into())],
            timeout_ms,
            purpose: None,
        }
    }

    #[test]
    fn runs_real_programs_and_says_how_they_ended() {
        let tmp = tempfile::tempdir().unwrap();
        std::fs::create_dir(tmp.path().join("sub")).unwrap();
        let mut runner = NativeRunner::new(tmp.path());
        let ran = runner.run(&spec("sh", &["-c", "echo $GREETING; pwd; echo oops >&2"], 60_000));
        let ran = ran.unwrap();
        assert_eq!((ran.termination, ran.exit_code), (Termination::Exited, Some(0)));
        assert!(ran.stdout.starts_with("hello\n"), "{}", ran.stdout);
        assert_eq!(ran.stderr, "oops\n");
        assert!(ran.succeeded());

        let in_sub = RunSpec { cwd: Some("sub".into()), ..spec("pwd", &[], 60_000) };
        assert!(runner.run(&in_sub).unwrap().stdout.trim_end().ends_with("/sub"));

        let ran = runner.run(&spec("sh", &["-c", "exit 3"], 60_000)).unwrap();
        assert_eq!((ran.termination, ran.exit_code), (Termination::Exited, Some(3)));

        let ran = runner.run(&spec("sh", &["-c", "echo partial; sleep 30"], 300)).unwrap();
        assert_eq!((ran.termination, ran.exit_code), (Termination::TimedOut, None));
        assert_eq!(ran.stdout, "partial\n");

        let ran = runner.run(&spec("sh", &["-c", "kill -TERM $$"], 60_000)).unwrap();
        assert_eq!((ran.termination, ran.signal), (Termination::Signalled, Some(15)));

        let ran = runner.run(&spec("no-such-program-here", &[], 60_000)).unwrap();
        assert_eq!(ran.termination, Termination::SpawnFailed);
        assert!(ran.stderr.contains("no-such-program-here"));
        assert_eq!(runner.runs.len(), 6);
    }

    #[test]
    fn a_timeout_kills_the_tree_a_program_forked() {
        let tmp = tempfile::tempdir().unwrap();
        let mut runner = NativeRunner::new(tmp.path());
        let script = "(sleep 30; echo late) & echo forked; wait";
        let ran = runner.run(&spec("sh", &["-c", script], 300)).unwrap();
        // Reaching here at all means the pipes closed: the forked sleep is gone too.
        assert_eq!(ran.termination, Termination::TimedOut);
        assert_eq!(ran.stdout, "forked\n");
    }

    #[test]
    fn long_streams_keep_head_and_tail() {
        let (text, cut) = capture(&vec![b'x'; 100_000]);
        assert!(cut && text.contains("[... 83616 bytes omitted ...]"));
        assert_eq!(capture(b"short"), ("short".to_owned(), false));
    }
}
