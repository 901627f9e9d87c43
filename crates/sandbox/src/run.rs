//! One command run inside the OS sandbox, the path bash and a component's `process.run` share
//! (docs/architecture.md#the-policy-and-the-os-sandbox): [`run_sandboxed`] scans what the
//! policy protects ([`crate::protected`]), has the [`SandboxBackend`] wrap the argv, starts it
//! on the [`ProcessBackend`] in a cgroup of its own ([`crate::cgroup`]), and afterwards sweeps
//! what the command created that it may not. Nothing runs unwrapped.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use tokio_util::sync::CancellationToken;

use crate::backend::{Availability, SandboxBackend};
use crate::process::{ProcessBackend, ProcessEnd, ProcessRequest, ProgressFn};
use toolhost_policy::SandboxPolicy;

/// `timeout_ms` cut to what is left before the call's `deadline` (at least 1 ms): a run never
/// outlives its call.
pub fn within_deadline_ms(timeout_ms: u64, deadline: Option<Instant>, now: Instant) -> u64 {
    match deadline {
        Some(d) => timeout_ms.min(d.saturating_duration_since(now).as_millis() as u64).max(1),
        None => timeout_ms,
    }
}

/// One argv to run inside the OS sandbox (bash's, or a component's `process.run`).
pub struct SandboxedRun<'a> {
    /// The command (never run unwrapped).
    pub argv: Vec<std::ffi::OsString>,
    /// Where it starts.
    pub cwd: PathBuf,
    /// This call's policy.
    pub policy: &'a SandboxPolicy,
    /// The whole environment of the process.
    pub env: BTreeMap<String, String>,
    /// Already clamped by the caller.
    pub timeout: Duration,
    /// Ends the run (cancelled) when cancelled.
    pub cancel: CancellationToken,
    /// Where merged output past 16 KiB is saved (created only then).
    pub spill_path: Option<PathBuf>,
    /// Told of each chunk of output as it arrives.
    pub progress: Option<ProgressFn>,
}

/// A sandboxed run that started (whatever its end).
pub struct SandboxedOutcome {
    /// How the process ended.
    pub end: ProcessEnd,
    /// The merged output.
    pub output: crate::capture::Capture,
    /// From start to end.
    pub duration: Duration,
    /// The line saying which of the call's cgroup limits ended it, if one did.
    pub limit_hit: Option<String>,
    /// Protected entries the run created, removed after it (see [`crate::protected::sweep`]).
    pub swept: Vec<PathBuf>,
}

/// Why a sandboxed run did not run: the model-facing text (`sandbox unavailable: …`).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{text}")]
pub struct NotRun {
    /// What the model is told.
    pub text: String,
}

/// Runs `run.argv` inside the OS sandbox made from `run.policy`: scan what must be pinned,
/// wrap, start in a cgroup of its own, and afterwards sweep what it created that it may not.
/// Never runs it unwrapped: an unavailable sandbox, a failed scan or wrap, or a sandbox runner
/// that failed before the command started is [`NotRun`].
pub async fn run_sandboxed(
    sandbox: &dyn SandboxBackend,
    processes: &dyn ProcessBackend,
    run: SandboxedRun<'_>,
) -> Result<SandboxedOutcome, NotRun> {
    if let Availability::Unavailable { reason } = sandbox.available() {
        return Err(NotRun { text: crate::texts::unavailable(&reason) });
    }
    // What the sandbox must pin, and what the command must not create (fails closed past
    // its budget).
    let since = std::time::SystemTime::now();
    let protected =
        crate::protected::scan(run.policy).map_err(|e| NotRun { text: e.to_string() })?;
    // A sandbox that cannot make git metadata and sensitive files read-only (the Landlock
    // tier) has them saved first and put back after the run.
    let snapshot = if sandbox.restores_protected() {
        Some(
            crate::protected::Snapshot::take(&protected, run.policy)
                .map_err(|e| NotRun { text: e.to_string() })?,
        )
    } else {
        None
    };
    let argv = sandbox
        .wrap(run.policy, run.argv, &run.cwd, &protected)
        .map_err(|e| NotRun { text: crate::texts::unavailable(&e.to_string()) })?;
    // Its own cgroup: a fork bomb or a runaway allocation ends this call, not the host.
    let cgroup = crate::cgroup::CallCgroup::create(run.policy.limits()).ok();
    let outcome = processes
        .run(ProcessRequest {
            argv,
            cwd: run.cwd,
            env: run.env,
            timeout: run.timeout,
            cancel: run.cancel,
            spill_path: run.spill_path,
            progress: run.progress,
            cgroup_procs: cgroup.as_ref().map(|c| c.procs_files().to_vec()).unwrap_or_default(),
            started_fd: sandbox.started_fd(),
        })
        .await;
    let limit_hit = cgroup.as_ref().and_then(|c| c.limit_hit());
    drop(cgroup);
    let mut output = outcome.output;
    // Every process of the sandbox is gone with it: put back what it changed of the protected
    // entries (where they were writable), and remove what it created that it may not.
    let mut swept = snapshot.map(|s| s.restore()).unwrap_or_default();
    match crate::protected::sweep(run.policy, &protected, since) {
        Ok(removed) => swept.extend(removed),
        Err(e) => swept.push(PathBuf::from(format!("(the scan after the call failed: {e})"))),
    };
    let mut end = outcome.end;
    if outcome.exec_failed {
        // The sandbox is up and said so; only the command's own exec failed (the runner said
        // so on a descriptor the command never had, so the command cannot fake it).
        let line =
            String::from_utf8_lossy(output.stderr_start()).lines().next().unwrap_or("").to_string();
        let reason = line
            .strip_prefix(crate::helper::SANDBOX_EXEC_ERROR_PREFIX)
            .unwrap_or(&line)
            .to_string();
        output.discard_spill();
        output = crate::capture::Capture::new(None);
        end = ProcessEnd::SpawnFailed(reason);
    } else if let ProcessEnd::Exited { code, .. } = end
        && let Some(msg) = sandbox.runner_failure(code, output.stderr_start(), outcome.started)
    {
        output.discard_spill();
        return Err(NotRun { text: crate::texts::runner_failed(&msg) });
    } else if let (ProcessEnd::Exited { .. }, Some(signal)) = (&end, outcome.reported_signal) {
        // The runner (bubblewrap) exits 128 + N when a signal killed the command; the helper
        // inside said which signal, on a descriptor the command never had.
        end = ProcessEnd::Exited { code: None, signal: Some(signal) };
    }
    Ok(SandboxedOutcome { end, output, duration: outcome.duration, limit_hit, swept })
}
