//! The component's side of [`Git`]: git runs through the host's `process.run` (in its
//! read-only sandbox for this read-only tool), and a stdout longer than the host returns in
//! one piece is read back from the file the host saved it to. The spill of a long text is
//! [`HostSink`], shared with the approval-gated workspace tools.

use toolhost_sdk::error_kinds::ErrorKind;
use toolhost_sdk::process::{self, Captured, Command, Termination};
use toolhost_sdk::{READ_CHUNK_BYTES, cancelled, open_file, scan::CANCELLED};

use crate::failure::GitFailure;
use crate::hardening::{ENV, PROGRAM};
use crate::runner::{CapturedAt, Git, GitRun, Keep, source};
use toolhost_sdk::head_tail::{HeadTail, Kept};

/// The host's spill file for a long text (shared with the approval-gated workspace tools).
pub use toolhost_workspace_run::host::HostSink;

/// Milliseconds one git run may take (the host clamps it to its own bound and the call's
/// deadline).
const GIT_TIMEOUT_MS: u64 = 120_000;

/// git run by the host in the repository directory `cwd` (none: the workspace root).
pub struct HostGit {
    /// The working directory, relative to the workspace.
    pub cwd: Option<String>,
}

impl Git for HostGit {
    fn run(&mut self, args: &[String], keep: Keep) -> Result<GitRun, GitFailure> {
        if cancelled() {
            return Err(GitFailure::new(ErrorKind::Cancelled, CANCELLED));
        }
        let command = Command {
            program: PROGRAM.into(),
            args: args.to_vec(),
            cwd: self.cwd.clone(),
            env: ENV.iter().map(|(k, v)| ((*k).to_owned(), (*v).to_owned())).collect(),
            timeout_ms: Some(GIT_TIMEOUT_MS),
        };
        let finished = process::run(&command).map_err(|e| GitFailure::from_tool_error(&e))?;
        let stderr = finished.stderr.text.clone();
        let failure =
            |kind, message: String| Err(GitFailure::new(kind, message).with_stderr(&stderr));
        match finished.termination {
            Termination::Exited => {}
            Termination::TimedOut => {
                return failure(
                    ErrorKind::Timeout,
                    format!(
                        "git did not finish within {} s and was stopped",
                        GIT_TIMEOUT_MS / 1000
                    ),
                );
            }
            Termination::Cancelled => return Err(GitFailure::new(ErrorKind::Cancelled, CANCELLED)),
            Termination::Signalled => {
                return failure(
                    ErrorKind::CommandFailed,
                    format!("git was killed by signal {}", finished.signal.unwrap_or(0)),
                );
            }
            Termination::SpawnFailed => {
                return failure(
                    ErrorKind::SpawnFailed,
                    format!("git could not be started: {}", stderr.trim()),
                );
            }
        }
        let (stdout, incomplete) = read_stdout(&finished.stdout, keep)?;
        Ok(GitRun {
            code: finished.exit_code.unwrap_or(-1),
            stdout,
            stdout_saved: finished.stdout.spill_path.clone(),
            stdout_incomplete: incomplete,
            stderr,
        })
    }
}

/// The stdout `captured` stands for, kept as asked, and whether bytes are missing: its text
/// when it is whole, else the file the host saved it to.
fn read_stdout(captured: &Captured, keep: Keep) -> Result<(Kept, bool), GitFailure> {
    let limit = match keep {
        Keep::Whole => usize::MAX,
        Keep::HeadTail(n) => n,
    };
    let path = match source(captured.total_bytes, captured.spill_path.as_deref()) {
        CapturedAt::Text => return Ok((Kept::of(captured.text.as_bytes(), limit), false)),
        CapturedAt::Lost if keep == Keep::Whole => return Err(too_large(captured.total_bytes)),
        CapturedAt::Lost => return Ok((Kept::of(captured.text.as_bytes(), limit), true)),
        CapturedAt::File(path) => path,
    };
    let file = open_file(path).map_err(|e| {
        GitFailure::new(
            ErrorKind::Internal,
            format!(
                "git's output ({} bytes) was saved to {path}, which could not be read back: {}",
                captured.total_bytes, e.message
            ),
        )
    })?;
    let mut kept = HeadTail::new(limit);
    let mut read = 0u64;
    loop {
        let chunk = file.read(READ_CHUNK_BYTES).map_err(|e| {
            GitFailure::new(
                ErrorKind::Internal,
                format!("reading git's saved output failed: {}", e.message),
            )
        })?;
        if chunk.is_empty() {
            break;
        }
        read += chunk.len() as u64;
        kept.push(&chunk);
    }
    let incomplete = read < captured.total_bytes;
    if incomplete && keep == Keep::Whole {
        return Err(too_large(captured.total_bytes));
    }
    Ok((kept.finish(), incomplete))
}

fn too_large(total: u64) -> GitFailure {
    GitFailure::new(
        ErrorKind::UnsupportedContent,
        format!(
            "git printed {total} bytes, more than the host saves whole; narrow the call with pathspecs"
        ),
    )
}
