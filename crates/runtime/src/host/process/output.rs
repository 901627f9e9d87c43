//! What a run's output becomes: its two streams captured apart, each bounded like bash's
//! output (head + tail, the rest in a spill file reserved against the call's spill bounds:
//! [`Streams`]), passed on as progress for an approved run, and how the run ended turned
//! into the `process.finished` the component reads, with bash's notes on what the kernel
//! refused and what the sweep removed ([`finished`]).

use std::sync::{Arc, Mutex};

use toolhost_core::context::ToolProgress;
use toolhost_core::spill::spill_path;
use toolhost_policy::SandboxPolicy;
use toolhost_sandbox::capture::{Capture, Stream};
use toolhost_sandbox::denial::detect_denial;
use toolhost_sandbox::process::{ProcessEnd, ProgressFn};
use toolhost_sandbox::run::SandboxedOutcome;

use crate::host::state::CallState;
use crate::host::types::err;
use crate::wit::latest::toolhost::tool::{process, types};

/// The two captured streams of one run, and whether their spill files were reserved.
pub(super) struct Streams {
    both: Arc<Mutex<(Capture, Capture)>>,
    reserved: bool,
}

impl Streams {
    /// The streams of the next run of `state`'s call: its two spill files reserved whole
    /// against the call's spill bounds (when they do not fit, its output is still bounded,
    /// head and tail, but not saved).
    pub(super) fn new(state: &CallState) -> Self {
        let n = state.share.runs.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let spill = |stream: &str| {
            spill_path(
                &state.session.data_dir,
                &state.session.session_id,
                &format!("{}-run{n}-{stream}", state.call.call_id.0),
            )
        };
        let reserved = state.share.reserve_run_spills();
        let (out_spill, err_spill) =
            if reserved { (Some(spill("stdout")), Some(spill("stderr"))) } else { (None, None) };
        state.share.run_spills.lock().unwrap_or_else(|e| e.into_inner()).extend(
            [&out_spill, &err_spill]
                .into_iter()
                .flatten()
                .map(|p| p.to_string_lossy().into_owned()),
        );
        let both = Arc::new(Mutex::new((Capture::new(out_spill), Capture::new(err_spill))));
        Streams { both, reserved }
    }

    /// What the sandboxed run calls with each chunk of output: captured, and sent as the
    /// call's progress when `reporter` is the call of an approved run (its output reaches
    /// the client as it comes, as bash's does).
    pub(super) fn sink(&self, reporter: Option<toolhost_core::ToolCallContext>) -> ProgressFn {
        let sink = self.both.clone();
        Arc::new(move |stream, bytes: &[u8]| {
            if let Some(call) = &reporter {
                let chunk = String::from_utf8_lossy(bytes).into_owned();
                call.report_progress(match stream {
                    Stream::Stdout => ToolProgress::Stdout { chunk },
                    Stream::Stderr => ToolProgress::Stderr { chunk },
                });
            }
            let mut s = sink.lock().unwrap_or_else(|e| e.into_inner());
            match stream {
                Stream::Stdout => s.0.push(Stream::Stdout, bytes),
                Stream::Stderr => s.1.push(Stream::Stderr, bytes),
            }
        })
    }

    /// The captured stdout and stderr, taken; their spill files settled to what they hold.
    fn take(self, state: &CallState) -> (Capture, Capture) {
        let (stdout, stderr) = {
            let mut s = self.both.lock().unwrap_or_else(|e| e.into_inner());
            let empty = || Capture::new(None);
            (std::mem::replace(&mut s.0, empty()), std::mem::replace(&mut s.1, empty()))
        };
        if self.reserved {
            state.share.settle_run_spills([&stdout, &stderr].map(|c| {
                c.spill_path().and_then(|p| std::fs::metadata(p).ok()).map_or(0, |m| m.len())
            }));
        }
        (stdout, stderr)
    }
}

/// A stream as the component gets it.
fn captured(capture: &Capture) -> process::Captured {
    process::Captured {
        text: capture.render(),
        total_bytes: capture.total_bytes(),
        spill_path: capture.spill_path().map(|p| p.to_string_lossy().into_owned()),
    }
}

/// How the run of `shown` ended, as the component reads it: its streams, and after stderr
/// what the kernel refused that `policy` forbids (for a run in `cwd`), a limit it hit and
/// what the sweep removed, as bash marks them; `state` learns whether the sandbox denied it.
pub(super) fn finished(
    state: &mut CallState,
    run: SandboxedOutcome,
    streams: Streams,
    shown: &str,
    policy: &SandboxPolicy,
    cwd: &std::path::Path,
) -> Result<process::Finished, types::ToolError> {
    let (stdout, mut stderr) = streams.take(state);
    let (termination, exit_code, signal) = match run.end {
        ProcessEnd::Exited { code: Some(code), .. } => {
            (process::Termination::Exited, Some(code), None)
        }
        ProcessEnd::Exited { code: None, signal } => {
            (process::Termination::Signalled, None, signal)
        }
        ProcessEnd::TimedOut => (process::Termination::TimedOut, None, None),
        ProcessEnd::Cancelled => (process::Termination::Cancelled, None, None),
        ProcessEnd::SpawnFailed(reason) => {
            stderr = Capture::new(None);
            // The sandbox helper's own text already names the program.
            let text = if reason.starts_with(toolhost_sandbox::helper::EXEC_FAILED) {
                reason
            } else {
                format!("cannot run {shown}: {reason}")
            };
            stderr.push(Stream::Stderr, text.as_bytes());
            (process::Termination::SpawnFailed, None, None)
        }
        ProcessEnd::PipeFailed(e) => {
            return Err(err(
                types::ErrorCode::ExecutionFailed,
                format!("{shown} ran but its output could not be read: {e}"),
            ));
        }
        ProcessEnd::OutcomeUnknown(e) => {
            return Err(err(
                types::ErrorCode::OutcomeUnknown,
                toolhost_sandbox::texts::outcome_unknown(&e),
            ));
        }
    };
    let stdout = captured(&stdout);
    let mut stderr = captured(&stderr);
    // A program reports a refusal on stderr; stdout is its data (a diff may well hold the
    // words "Permission denied").
    let denial = detect_denial(&stderr.text, policy, cwd);
    let mut notes = Vec::new();
    if let Some((_, denial)) = &denial {
        notes.push(toolhost_sandbox::texts::denial_marker(&denial.message));
    }
    if let Some(line) = run.limit_hit {
        notes.push(line);
    }
    if !run.swept.is_empty() {
        let names: Vec<String> = run.swept.iter().map(|p| p.display().to_string()).collect();
        notes.push(toolhost_sandbox::texts::swept(shown, &names.join(", ")));
    }
    state.process_denied |= denial.is_some() || !run.swept.is_empty();
    for note in notes {
        if !stderr.text.is_empty() && !stderr.text.ends_with('\n') {
            stderr.text.push('\n');
        }
        stderr.text.push_str(&note);
    }
    Ok(process::Finished {
        termination,
        exit_code,
        signal,
        stdout,
        stderr,
        duration_ms: run.duration.as_millis() as u64,
    })
}
