//! One bash call (docs/contract.md#bash): clamp the timeout, wrap `/bin/bash -c command` with the
//! sandbox backend (never run it unwrapped), run it in the workspace root on the process
//! backend, map the end to an outcome, render the bounded text with its status line, and mark
//! kernel denials on paths the policy forbids.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use tokio_util::sync::CancellationToken;
use toolhost_limits::{BASH_DEFAULT_TIMEOUT_MS, BASH_MAX_TIMEOUT_MS};

use crate::bwrap::SandboxBackend;
use crate::policy::{Access, Actor, Denial, SandboxPolicy, real_path};
use crate::process::{ProcessBackend, ProcessEnd, ProcessRequest, ProgressFn};

/// The kernel's words for a refused access, as tools print them.
pub const DENIAL_SIGNS: &[&str] =
    &["Read-only file system", "Permission denied", "Operation not permitted"];

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
    pub cancel: CancellationToken,
    /// Where output past 16 KiB is saved (created only then).
    pub spill_path: Option<PathBuf>,
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
    pub status: BashStatus,
    /// The model-facing text (output + status line [+ denial marker], or the error message).
    pub text: String,
    /// A kernel denial on a path the policy forbids was seen in the output.
    pub sandbox_denied: bool,
    /// The spill file, when one was kept and the text points at it.
    pub spill_path: Option<PathBuf>,
    pub duration: Duration,
}

/// The model-facing texts of a bash call.
pub mod texts {
    use std::time::Duration;

    /// `[exit 7; duration 12 ms]`
    pub fn exit_status(code: i32, d: Duration) -> String {
        format!("[exit {code}; duration {} ms]", d.as_millis())
    }

    /// `[killed by signal 9; duration 12 ms]`
    pub fn signal_status(signal: i32, d: Duration) -> String {
        format!("[killed by signal {signal}; duration {} ms]", d.as_millis())
    }

    /// `[timed out after 30000 ms; duration 30004 ms]`
    pub fn timeout_status(timeout_ms: u64, d: Duration) -> String {
        format!("[timed out after {timeout_ms} ms; duration {} ms]", d.as_millis())
    }

    /// `[cancelled; duration 51 ms]`
    pub fn cancelled_status(d: Duration) -> String {
        format!("[cancelled; duration {} ms]", d.as_millis())
    }

    /// The line after the status line when the kernel refused a path the policy forbids.
    pub fn denial_marker(denial_message: &str) -> String {
        format!("[sandbox denied: {denial_message}]")
    }

    /// Protected entries `who` (bash, or a program a component ran) created were removed
    /// after the call.
    pub fn swept(who: &str, paths: &str) -> String {
        format!(
            "[sandbox denied: {who} created {paths}, which it may not create (sensitive files and git metadata need the user's approval: sandboxPermissions with a justification); removed]"
        )
    }

    /// The sandbox cannot be used at all.
    pub fn unavailable(reason: &str) -> String {
        format!("sandbox unavailable: {reason}. The command did not run.")
    }

    /// The sandbox runner failed before the command started.
    pub fn runner_failed(message: &str) -> String {
        format!(
            "sandbox unavailable: the sandbox failed to start the command ({message}). The command did not run."
        )
    }

    /// The process could not be started.
    pub fn spawn_failed(err: &str) -> String {
        format!("failed to start bash: {err}")
    }

    /// Reading the output failed.
    pub fn pipe_failed(err: &str) -> String {
        format!("bash ran but its output could not be read: {err}")
    }

    /// Termination could not be confirmed.
    pub fn outcome_unknown(err: &str) -> String {
        format!(
            "the command was being stopped but its termination could not be confirmed ({err}); it may still be running and its effects are unknown."
        )
    }
}

/// `timeoutMs` clamped to 1–[`BASH_MAX_TIMEOUT_MS`] and to what is left before `deadline`.
pub fn effective_timeout_ms(
    requested: Option<u64>,
    deadline: Option<Instant>,
    now: Instant,
) -> u64 {
    let t = requested.unwrap_or(BASH_DEFAULT_TIMEOUT_MS).clamp(1, BASH_MAX_TIMEOUT_MS);
    match deadline {
        Some(d) => t.min(d.saturating_duration_since(now).as_millis() as u64).max(1),
        None => t,
    }
}

/// Runs one bash call in the sandbox. When the sandbox is unavailable bash does not run.
pub async fn run_bash(
    sandbox: &dyn SandboxBackend,
    processes: &dyn ProcessBackend,
    req: BashRequest,
) -> BashOutcome {
    let start = Instant::now();
    let timeout_ms = effective_timeout_ms(req.timeout_ms, req.deadline, start);
    let fail = |status, text: String| BashOutcome {
        status,
        text,
        sandbox_denied: false,
        spill_path: None,
        duration: start.elapsed(),
    };
    let run = run_sandboxed(
        sandbox,
        processes,
        SandboxedRun {
            argv: vec!["/bin/bash".into(), "-c".into(), req.command.clone().into()],
            cwd: req.workspace.clone(),
            policy: &req.policy,
            env: req.env.clone(),
            timeout: Duration::from_millis(timeout_ms),
            cancel: req.cancel.clone(),
            spill_path: req.spill_path.clone(),
            progress: req.progress.clone(),
        },
    )
    .await;
    let Sandboxed { end, output, duration, limit_hit, swept } = match run {
        Ok(run) => run,
        Err(e) => return fail(BashStatus::SandboxUnavailable, e.text),
    };
    let with_status = |body: String, status: String| {
        let mut t = body;
        if !t.is_empty() && !t.ends_with('\n') {
            t.push('\n');
        }
        t.push_str(&status);
        t
    };
    let (status, text, denied) = match end {
        ProcessEnd::Exited { code, signal } => {
            let body = output.render();
            let status_line = match (code, signal) {
                (Some(c), _) => texts::exit_status(c, duration),
                (None, Some(s)) => texts::signal_status(s, duration),
                (None, None) => texts::exit_status(-1, duration),
            };
            let denial = detect_denial(&body, &req.policy, &req.workspace);
            let mut text = with_status(body, status_line);
            if let Some((_, d)) = &denial {
                text.push('\n');
                text.push_str(&texts::denial_marker(&d.message));
            }
            (BashStatus::Completed { exit_code: code, signal }, text, denial.is_some())
        }
        ProcessEnd::TimedOut => (
            BashStatus::TimedOut { timeout_ms },
            with_status(output.render(), texts::timeout_status(timeout_ms, duration)),
            false,
        ),
        ProcessEnd::Cancelled => (
            BashStatus::Cancelled,
            with_status(output.render(), texts::cancelled_status(duration)),
            false,
        ),
        ProcessEnd::SpawnFailed(e) => (BashStatus::ExecutionFailed, texts::spawn_failed(&e), false),
        ProcessEnd::PipeFailed(e) => (BashStatus::ExecutionFailed, texts::pipe_failed(&e), false),
        ProcessEnd::OutcomeUnknown(e) => (
            BashStatus::OutcomeUnknown,
            with_status(output.render(), texts::outcome_unknown(&e)),
            false,
        ),
    };
    let text = match limit_hit {
        Some(line) => format!("{text}\n{line}"),
        None => text,
    };
    let (text, denied) = if swept.is_empty() {
        (text, denied)
    } else {
        let names: Vec<String> = swept.iter().map(|p| p.display().to_string()).collect();
        (format!("{text}\n{}", texts::swept("bash", &names.join(", "))), true)
    };
    BashOutcome {
        status,
        text,
        sandbox_denied: denied,
        spill_path: output.spill_path().map(Path::to_path_buf),
        duration,
    }
}

/// One argv to run inside the OS sandbox (bash's, or a component's `process.run`).
pub struct SandboxedRun<'a> {
    pub argv: Vec<std::ffi::OsString>,
    pub cwd: PathBuf,
    /// This call's policy.
    pub policy: &'a SandboxPolicy,
    /// The whole environment of the process.
    pub env: BTreeMap<String, String>,
    /// Already clamped by the caller.
    pub timeout: Duration,
    pub cancel: CancellationToken,
    /// Where merged output past 16 KiB is saved (created only then).
    pub spill_path: Option<PathBuf>,
    pub progress: Option<ProgressFn>,
}

/// A sandboxed run that started (whatever its end).
pub struct Sandboxed {
    pub end: ProcessEnd,
    /// The merged output.
    pub output: crate::capture::Capture,
    pub duration: Duration,
    /// The line saying which of the call's cgroup limits ended it, if one did.
    pub limit_hit: Option<String>,
    /// Protected entries the run created, removed after it (see [`crate::scan::sweep`]).
    pub swept: Vec<PathBuf>,
}

/// Why a sandboxed run did not run: the model-facing text (`sandbox unavailable: …`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NotRun {
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
) -> Result<Sandboxed, NotRun> {
    if let crate::bwrap::Availability::Unavailable { reason } = sandbox.available() {
        return Err(NotRun { text: texts::unavailable(&reason) });
    }
    // What the sandbox must pin, and what the command must not create (fails closed past
    // its budget).
    let since = std::time::SystemTime::now();
    let protected = crate::scan::scan(run.policy).map_err(|e| NotRun { text: e.to_string() })?;
    let argv = sandbox
        .wrap(run.policy, run.argv, &run.cwd, &protected)
        .map_err(|e| NotRun { text: texts::unavailable(&e.to_string()) })?;
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
    // Every process of the sandbox is gone with it: remove what it created that it may not.
    let swept = match crate::scan::sweep(run.policy, &protected, since) {
        Ok(removed) => removed,
        Err(e) => vec![PathBuf::from(format!("(the scan after the call failed: {e})"))],
    };
    let mut end = outcome.end;
    if outcome.exec_failed {
        // The sandbox is up and said so; only the command's own exec failed (the runner said
        // so on a descriptor the command never had, so the command cannot fake it).
        let line =
            String::from_utf8_lossy(output.stderr_start()).lines().next().unwrap_or("").to_string();
        let reason = line
            .strip_prefix(crate::landlock::SANDBOX_EXEC_ERROR_PREFIX)
            .unwrap_or(&line)
            .to_string();
        output.discard_spill();
        output = crate::capture::Capture::new(None);
        end = ProcessEnd::SpawnFailed(reason);
    } else if let ProcessEnd::Exited { code, .. } = end
        && let Some(msg) = sandbox.runner_failure(code, output.stderr_start(), outcome.started)
    {
        output.discard_spill();
        return Err(NotRun { text: texts::runner_failed(&msg) });
    }
    Ok(Sandboxed { end, output, duration: outcome.duration, limit_hit, swept })
}

/// Where a refusal is the kernel's own (pseudo file systems), not the sandbox's.
const KERNEL_FILE_SYSTEMS: &[&str] = &["/proc", "/sys"];

/// Looks for a kernel denial in `output` on a path `policy` forbids (for writing, or for
/// reading). Relative paths are taken from `cwd`. Returns the path and the policy's denial.
pub fn detect_denial(
    output: &str,
    policy: &SandboxPolicy,
    cwd: &Path,
) -> Option<(PathBuf, Denial)> {
    for line in output.lines() {
        if !DENIAL_SIGNS.iter().any(|s| line.contains(s)) {
            continue;
        }
        for cand in path_candidates(line) {
            let p = Path::new(&cand);
            let abs = if p.is_absolute() { p.to_path_buf() } else { cwd.join(p) };
            let real = real_path(&abs);
            // Under the kernel's own file systems a refusal is the kernel's rule for that
            // process or knob (`/proc/1/fd/0` is ptrace's), never the policy's: no grant
            // would change it, so it is not marked or answered with an escalation.
            if KERNEL_FILE_SYSTEMS.iter().any(|k| real.starts_with(k)) {
                continue;
            }
            for access in [Access::Write, Access::Read] {
                if let Err(d) = policy.check(&real, access, Actor::Bash) {
                    return Some((real, d));
                }
            }
        }
    }
    None
}

/// Path-like words of one error line: quoted strings, then the `: `-separated field just
/// before the kernel's words and its last word (the leading program name is never taken).
fn path_candidates(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    for (open, close) in [('\'', '\''), ('"', '"'), ('‘', '’'), ('`', '\'')] {
        let mut rest = line;
        while let Some(i) = rest.find(open) {
            let after = &rest[i + open.len_utf8()..];
            let Some(j) = after.find(close) else { break };
            out.push(after[..j].to_string());
            rest = &after[j + close.len_utf8()..];
        }
    }
    let fields: Vec<&str> = line.split(": ").collect();
    if let Some(sign_at) = fields.iter().position(|f| DENIAL_SIGNS.iter().any(|s| f.contains(s)))
        && sign_at >= 2
    {
        let field = fields[sign_at - 1].trim();
        out.push(field.to_string());
        if let Some(last) = field.split_whitespace().last() {
            out.push(last.trim_matches(|c| "'\"‘’`,;()[]".contains(c)).to_string());
        }
    }
    out.retain(|c| !c.is_empty() && c.len() < 4096);
    out.dedup();
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::policy::{PolicyConfig, SandboxMode};

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

    #[test]
    fn status_lines_are_the_contract_texts() {
        assert_eq!(texts::exit_status(7, Duration::from_millis(12)), "[exit 7; duration 12 ms]");
        assert_eq!(
            texts::timeout_status(30_000, Duration::from_millis(30_004)),
            "[timed out after 30000 ms; duration 30004 ms]"
        );
        assert_eq!(
            texts::cancelled_status(Duration::from_millis(51)),
            "[cancelled; duration 51 ms]"
        );
    }

    #[test]
    fn denials_are_detected_only_on_forbidden_paths() {
        let dir = tempfile::tempdir().unwrap();
        let base = std::fs::canonicalize(dir.path()).unwrap();
        let ws = base.join("ws");
        std::fs::create_dir_all(ws.join(".git/hooks")).unwrap();
        std::fs::create_dir_all(base.join("home/.ssh")).unwrap();
        let policy = SandboxPolicy::builder(SandboxMode::WorkspaceWrite, &ws)
            .home(base.join("home"))
            .config(PolicyConfig { temp_dir: Some(base.join("tmp")), ..Default::default() })
            .build();
        let ssh = base.join("home/.ssh/id").display().to_string();
        let cases: Vec<(String, Option<PathBuf>)> = vec![
            (
                "bash: line 1: .git/hooks/pre-commit: Read-only file system".into(),
                Some(ws.join(".git/hooks/pre-commit")),
            ),
            ("touch: cannot touch '/etc/x': Read-only file system".into(), Some("/etc/x".into())),
            (
                "mkdir: cannot create directory ‘/usr/x’: Read-only file system".into(),
                Some("/usr/x".into()),
            ),
            (format!("cat: {ssh}: Permission denied"), Some(PathBuf::from(&ssh))),
            (
                "PermissionError: [Errno 13] Permission denied: '/etc/y'".into(),
                Some("/etc/y".into()),
            ),
            (
                "ln: failed to create hard link 'l' => '/etc/passwd': Operation not permitted"
                    .into(),
                Some("/etc/passwd".into()),
            ),
            (
                "error: could not lock config file /etc/gitconfig: Permission denied".into(),
                Some("/etc/gitconfig".into()),
            ),
            // Not denials: ordinary failures, or denials on paths the policy allows.
            ("grep: nothing: No such file or directory".into(), None),
            ("bash: ./run.sh: Permission denied".into(), None),
            ("sandbox-denied.txt".into(), None),
            ("exit 1".into(), None),
        ];
        for (line, want) in cases {
            let got = detect_denial(&line, &policy, &ws).map(|(p, _)| p);
            assert_eq!(got, want, "{line}");
        }
    }
}
