//! One bash call as the sandbox runs it (docs/contract.md#bash): the request, its timeout
//! rule, and how it ended.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use tokio_util::sync::CancellationToken;
use toolhost_limits::{BASH_DEFAULT_TIMEOUT_MS, BASH_MAX_TIMEOUT_MS};
use toolhost_policy::SandboxPolicy;
use toolhost_sandbox::process::ProgressFn;

/// One bash call.
pub struct BashRequest {
    /// Given to `/bin/bash -c`.
    pub command: String,
    /// `timeoutMs`; `None` is [`BASH_DEFAULT_TIMEOUT_MS`].
    pub timeout_ms: Option<u64>,
    /// The working directory: the workspace root.
    pub workspace: PathBuf,
    /// This call's policy (the session mode plus this call's grants).
    pub policy: SandboxPolicy,
    /// The whole environment of bash.
    pub env: BTreeMap<String, String>,
    /// The call's deadline, if any; the timeout never runs past it.
    pub deadline: Option<Instant>,
    /// Ends the call (cancelled) when cancelled.
    pub cancel: CancellationToken,
    /// Where output past 16 KiB is saved (created only then).
    pub spill_path: Option<PathBuf>,
    /// Told of each chunk of output as it arrives.
    pub progress: Option<ProgressFn>,
}

/// How the call ended (the host maps these to `ToolResult` statuses: the table in
/// docs/contract.md#bash).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BashStatus {
    /// bash exited (any code, or a signal nobody here sent): a succeeded tool result.
    Completed { exit_code: Option<i32>, signal: Option<i32> },
    /// Killed at the timeout: failed, code `timeout`, with the output so far.
    TimedOut { timeout_ms: u64 },
    /// Killed on cancellation: cancelled, with the output so far.
    Cancelled,
    /// Spawn or pipe failure: `execution_failed`.
    ExecutionFailed,
    /// The sandbox is unavailable or its runner failed: `sandbox_unavailable`.
    SandboxUnavailable,
    /// Termination not confirmed: `outcome_unknown`.
    OutcomeUnknown,
}

/// The result of one bash call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BashOutcome {
    /// How it ended.
    pub status: BashStatus,
    /// The model-facing text (output + status line [+ denial marker], or the error message).
    pub text: String,
    /// A kernel denial on a path the policy forbids was seen in the output.
    pub sandbox_denied: bool,
    /// The spill file, when one was kept and the text points at it.
    pub spill_path: Option<PathBuf>,
    /// From start to end.
    pub duration: Duration,
}

/// `timeoutMs` clamped to 1–[`BASH_MAX_TIMEOUT_MS`] and to what is left before `deadline`.
pub fn effective_timeout_ms(
    requested: Option<u64>,
    deadline: Option<Instant>,
    now: Instant,
) -> u64 {
    let t = requested.unwrap_or(BASH_DEFAULT_TIMEOUT_MS).clamp(1, BASH_MAX_TIMEOUT_MS);
    toolhost_sandbox::run::within_deadline_ms(t, deadline, now)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timeouts_are_clamped() {
        let now = Instant::now();
        assert_eq!(effective_timeout_ms(None, None, now), 30_000);
        assert_eq!(effective_timeout_ms(Some(0), None, now), 1);
        assert_eq!(effective_timeout_ms(Some(500_000), None, now), 120_000);
        assert_eq!(
            effective_timeout_ms(Some(60_000), Some(now + Duration::from_millis(5_000)), now),
            5_000
        );
        assert_eq!(effective_timeout_ms(Some(60_000), Some(now), now), 1);
    }
}
