//! One bash call (docs/contract.md#bash): clamp the timeout, run `/bin/bash -c command` in the
//! workspace root through `toolhost_sandbox::run::run_sandboxed` (never unwrapped), map the end
//! to an outcome, render the bounded text with its status line, and mark kernel denials on
//! paths the policy forbids.

use std::path::Path;
use std::time::{Duration, Instant};

use toolhost_sandbox::SandboxBackend;
use toolhost_sandbox::capture::Capture;
use toolhost_sandbox::denial::detect_denial;
use toolhost_sandbox::process::{ProcessBackend, ProcessEnd};
use toolhost_sandbox::run::{SandboxedOutcome, SandboxedRun, run_sandboxed};

use super::request::{BashOutcome, BashRequest, BashStatus, effective_timeout_ms};
use super::texts;

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
    let SandboxedOutcome { end, output, duration, limit_hit, swept } = match run {
        Ok(run) => run,
        Err(e) => return fail(BashStatus::SandboxUnavailable, e.text),
    };
    let (status, text, denied) = ended(end, &output, duration, timeout_ms, &req);
    let text = match limit_hit {
        Some(line) => format!("{text}\n{line}"),
        None => text,
    };
    let (text, denied) = if swept.is_empty() {
        (text, denied)
    } else {
        let names: Vec<String> = swept.iter().map(|p| p.display().to_string()).collect();
        (format!("{text}\n{}", toolhost_sandbox::texts::swept("bash", &names.join(", "))), true)
    };
    BashOutcome {
        status,
        text,
        sandbox_denied: denied,
        spill_path: output.spill_path().map(Path::to_path_buf),
        duration,
    }
}

/// How the run ended, the text the model sees for it (the output, then the status line) and
/// whether the kernel denied a path the policy forbids.
fn ended(
    end: ProcessEnd,
    output: &Capture,
    duration: Duration,
    timeout_ms: u64,
    req: &BashRequest,
) -> (BashStatus, String, bool) {
    match end {
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
                text.push_str(&toolhost_sandbox::texts::denial_marker(&d.message));
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
            with_status(output.render(), toolhost_sandbox::texts::outcome_unknown(&e)),
            false,
        ),
    }
}

/// `body`, then `status` on a line of its own.
fn with_status(body: String, status: String) -> String {
    let mut t = body;
    if !t.is_empty() && !t.ends_with('\n') {
        t.push('\n');
    }
    t.push_str(&status);
    t
}
