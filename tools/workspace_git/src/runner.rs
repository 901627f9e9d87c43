//! Running git: the [`Git`] trait the operations call, so that they run natively in tests
//! (a runner over `std::process`) and in the component ([`crate::host::HostGit`], over
//! `process.run`) alike.

use toolhost_sdk::error_kinds::ErrorKind;

use crate::failure::GitFailure;
use toolhost_sdk::head_tail::Kept;

/// What to keep of stdout.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Keep {
    /// All of it (status, log, branch and the small queries parse it whole).
    Whole,
    /// The start and the end, at most this many bytes (diff, show).
    HeadTail(usize),
}

/// A git run that exited.
#[derive(Debug, Clone)]
pub struct GitRun {
    /// The exit code.
    pub code: i32,
    /// stdout, kept as asked.
    pub stdout: Kept,
    /// Where the whole stdout is saved, when the host saved it (it was longer than it
    /// returns in one piece).
    pub stdout_saved: Option<String>,
    /// Whether stdout is missing bytes the runner could not get (over the host's spill cap).
    pub stdout_incomplete: bool,
    /// stderr, as the host returns it (bounded).
    pub stderr: String,
}

impl GitRun {
    /// stdout as text (lossy UTF-8).
    pub fn text(&self) -> String {
        self.stdout.render(crate::GIT_OUTPUT)
    }

    /// stderr without trailing blank lines.
    pub fn stderr_trimmed(&self) -> &str {
        self.stderr.trim_end()
    }
}

/// Something that runs git (with [`crate::hardening::ENV`]) in the call's repository
/// directory with exactly the given arguments.
pub trait Git {
    /// Runs `git args…`; `Err` when it did not exit by itself (not started, timed out,
    /// killed, cancelled: a [`GitFailure`] of kind cancelled) or the host refused it.
    fn run(&mut self, args: &[String], keep: Keep) -> Result<GitRun, GitFailure>;
}

/// The failure for a git run that exited with a non-zero code: not a repository, or a
/// command failure with git's first error line.
pub fn exit_failure(what: &str, ran: &GitRun) -> GitFailure {
    let stderr = ran.stderr_trimmed();
    if stderr.contains("not a git repository") {
        return GitFailure::new(
            ErrorKind::NotARepository,
            "not a git repository: `cwd` (default: the workspace root) is not inside one",
        )
        .with_stderr(stderr);
    }
    let line = stderr
        .lines()
        .find(|l| l.starts_with("fatal:") || l.starts_with("error:"))
        .or_else(|| stderr.lines().find(|l| !l.trim().is_empty()))
        .unwrap_or("no message");
    GitFailure::new(ErrorKind::CommandFailed, format!("{what} failed (exit {}): {line}", ran.code))
        .with_stderr(stderr)
}

/// Where the whole of a stream `process.run` captured is (toolhost:tool `captured`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CapturedAt<'a> {
    /// In its text: the stream was at most the host's 2 KiB head + 14 KiB tail.
    Text,
    /// In the file the host saved it to (the text is only its head and tail).
    File(&'a str),
    /// Nowhere whole: the text is head and tail, and the host could not save the rest.
    Lost,
}

/// Where to read a stream of `total` bytes that the host saved at `spill` (if it did).
pub fn source(total: u64, spill: Option<&str>) -> CapturedAt<'_> {
    use toolhost_sdk::limits::{BASH_HEAD_BYTES, BASH_TAIL_BYTES};
    if total <= (BASH_HEAD_BYTES + BASH_TAIL_BYTES) as u64 {
        return CapturedAt::Text;
    }
    spill.map_or(CapturedAt::Lost, CapturedAt::File)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stream_is_read_from_its_text_only_when_the_text_is_all_of_it() {
        assert_eq!(source(0, None), CapturedAt::Text);
        assert_eq!(source(16 * 1024, None), CapturedAt::Text);
        assert_eq!(source(16 * 1024 + 1, Some("/s/out.txt")), CapturedAt::File("/s/out.txt"));
        assert_eq!(source(16 * 1024 + 1, None), CapturedAt::Lost);
    }

    #[test]
    fn exit_failures_name_the_repository_problem_or_git_s_error() {
        let ran = |stderr: &str| GitRun {
            code: 128,
            stdout: Kept::of(b"", 1),
            stdout_saved: None,
            stdout_incomplete: false,
            stderr: stderr.into(),
        };
        let f = exit_failure("git status", &ran("fatal: not a git repository (or any parent)\n"));
        assert_eq!(f.kind, ErrorKind::NotARepository);
        let f = exit_failure("git log", &ran("warning: x\nfatal: bad object abc\n"));
        assert_eq!(f.kind, ErrorKind::CommandFailed);
        assert_eq!(f.message, "git log failed (exit 128): fatal: bad object abc");
        assert_eq!(f.stderr, "warning: x\nfatal: bad object abc");
    }
}
