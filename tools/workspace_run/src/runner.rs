//! Running a [`RunSpec`]: the [`Runner`] trait, so the tools' flows run natively in tests
//! ([`crate::native::NativeRunner`], over `std::process`) and in the component
//! ([`crate::host::HostRunner`], over `process.run`) alike, and what a run that ended
//! returns ([`Ran`]).

use toolhost_sdk::process::{Captured, Finished, Termination};

use crate::failure::Failure;
use crate::spec::RunSpec;

/// A run that ended, however it ended (exited, timed out, cancelled, signalled, not started).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Ran {
    /// How it ended.
    pub termination: Termination,
    /// The exit code, when it exited.
    pub exit_code: Option<i32>,
    /// The signal, when one ended it.
    pub signal: Option<i32>,
    /// stdout as the host returns it: whole when short, else its head and tail around a
    /// line naming the file holding all of it.
    pub stdout: String,
    /// Whether `stdout` is not all of it.
    pub stdout_truncated: bool,
    /// stderr, bounded the same way.
    pub stderr: String,
    /// Whether `stderr` is not all of it.
    pub stderr_truncated: bool,
    /// Wall time of the run.
    pub duration_ms: u64,
}

impl Ran {
    /// What `process.run` returned, as a [`Ran`].
    pub fn from_finished(finished: &Finished) -> Self {
        Ran {
            termination: finished.termination,
            exit_code: finished.exit_code,
            signal: finished.signal,
            stdout: finished.stdout.text.clone(),
            stdout_truncated: truncated(&finished.stdout),
            stderr: finished.stderr.text.clone(),
            stderr_truncated: truncated(&finished.stderr),
            duration_ms: finished.duration_ms,
        }
    }

    /// Whether the program exited with code 0.
    pub fn succeeded(&self) -> bool {
        self.termination == Termination::Exited && self.exit_code == Some(0)
    }
}

/// Whether a captured stream's text is not all of it: the host saved it to a file, or wrote
/// more bytes than the text holds.
pub fn truncated(captured: &Captured) -> bool {
    captured.spill_path.is_some() || captured.total_bytes > captured.text.len() as u64
}

/// Something that runs exactly one [`RunSpec`].
pub trait Runner {
    /// Runs `spec` to its end: `Ok` however the run ended, `Err` when it was refused and
    /// never ran.
    fn run(&mut self, spec: &RunSpec) -> Result<Ran, Failure>;
}

#[cfg(test)]
mod tests {
    use super::*;

    fn captured(text: &str, total: u64, spill: Option<&str>) -> Captured {
        Captured { text: text.into(), total_bytes: total, spill_path: spill.map(Into::into) }
    }

    #[test]
    fn a_stream_is_truncated_when_its_text_is_not_all_of_it() {
        assert!(!truncated(&captured("abc", 3, None)));
        assert!(!truncated(&captured("", 0, None)));
        assert!(truncated(&captured("head…tail", 40_000, Some("/s/out"))));
        assert!(truncated(&captured("head…tail", 40_000, None)));
        assert!(truncated(&captured("abc", 3, Some("/s/out"))));
    }

    #[test]
    fn a_finished_run_keeps_every_field() {
        let finished = Finished {
            termination: Termination::Exited,
            exit_code: Some(3),
            signal: None,
            stdout: captured("out\n", 4, None),
            stderr: captured("err…", 90_000, Some("/s/err")),
            duration_ms: 12,
        };
        let ran = Ran::from_finished(&finished);
        assert_eq!(ran.termination, Termination::Exited);
        assert_eq!((ran.exit_code, ran.signal, ran.duration_ms), (Some(3), None, 12));
        assert_eq!((ran.stdout.as_str(), ran.stdout_truncated), ("out\n", false));
        assert_eq!((ran.stderr.as_str(), ran.stderr_truncated), ("err…", true));
        assert!(!ran.succeeded());
    }
}
