//! What a call returns: the structured value ([`ShellOutput`], the fields of
//! docs/workspace-tools.md) and the model-visible text, for a run that ended ([`ran`]) or a
//! call that never ran ([`failed`]).

use schemars::JsonSchema;
use serde::Serialize;
use toolhost_sdk::process::Termination;
use toolhost_workspace_run::display::{command_display, how_it_ended, streams, termination};
use toolhost_workspace_run::{Failure, Ran, RunSpec};

/// The structured result of `workspace_shell`.
#[derive(Debug, Clone, Default, Serialize, JsonSchema)]
pub struct ShellOutput {
    /// Whether the command ran and exited with code 0.
    pub success: bool,
    /// One line saying how the command ended (or why it did not run).
    pub summary: String,
    /// The command line run (or refused): each word as is when plain, else as a JSON string.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub command_display: Option<String>,
    /// The working directory, relative to the workspace root ("." for the root).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cwd: Option<String>,
    /// The exit code; null unless the program exited by itself (or when it never ran).
    pub exit_code: Option<i32>,
    /// How the run ended: exited, timed_out, cancelled, signalled or spawn_failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub termination: Option<String>,
    /// Wall time of the run in milliseconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub duration_ms: Option<u64>,
    /// stdout: whole when short, else its first 2 KiB and last 14 KiB around a line naming
    /// the file holding all of it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stdout: Option<String>,
    /// Whether `stdout` is not all of it (head and tail kept).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stdout_truncated: Option<bool>,
    /// stderr, bounded like stdout.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stderr: Option<String>,
    /// Whether `stderr` is not all of it (head and tail kept).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stderr_truncated: Option<bool>,
    /// On failure: the `LOCAL_EXECUTOR_*` kind.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error_kind: Option<String>,
    /// On failure: whether the same call will fail the same way again.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub terminal: Option<bool>,
    /// On failure: what went wrong.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// The working directory as the result names it.
fn shown_cwd(spec: &RunSpec) -> String {
    spec.cwd.clone().unwrap_or_else(|| ".".into())
}

/// The value and text of a call that did not run: refused by this tool (no spec) or by the
/// host (the spec it refused).
pub fn failed(spec: Option<&RunSpec>, failure: &Failure) -> (ShellOutput, String) {
    let shown = spec.map(|s| command_display(&s.program, &s.args));
    let output = ShellOutput {
        success: false,
        summary: format!("not run: {}", failure.message),
        command_display: shown.clone(),
        cwd: spec.map(shown_cwd),
        error_kind: Some(failure.kind.name().into()),
        terminal: Some(failure.kind.terminal()),
        error: Some(failure.message.clone()),
        ..Default::default()
    };
    let mut text = format!("{} ({})", failure.message, failure.kind.name());
    if let Some(shown) = shown {
        text.push_str(&format!("\ncommand: {shown}"));
    }
    (output, text)
}

/// The value and text of a run that ended (not cancelled: that is the call's error): exit 0
/// succeeds; a non-zero exit or a signal is a failed command, a timeout a timeout (its
/// output so far kept), a program that could not start a spawn failure.
pub fn ran(spec: &RunSpec, ran: &Ran) -> (ShellOutput, String) {
    let shown = command_display(&spec.program, &spec.args);
    let (how, kind) = how_it_ended(spec, ran, "the output so far is kept");
    let summary = format!("`{shown}` {how}");
    let output = ShellOutput {
        success: kind.is_none(),
        summary: summary.clone(),
        command_display: Some(shown.clone()),
        cwd: Some(shown_cwd(spec)),
        exit_code: ran.exit_code.filter(|_| ran.termination == Termination::Exited),
        termination: Some(termination(ran.termination).into()),
        duration_ms: Some(ran.duration_ms),
        stdout: Some(ran.stdout.clone()),
        stdout_truncated: Some(ran.stdout_truncated),
        stderr: Some(ran.stderr.clone()),
        stderr_truncated: Some(ran.stderr_truncated),
        error_kind: kind.map(|k| k.name().into()),
        terminal: kind.map(|k| k.terminal()),
        error: kind.map(|_| summary.clone()),
    };
    let mut text = summary;
    if let Some(kind) = kind {
        text.push_str(&format!(" ({})", kind.name()));
    }
    text.push_str(&format!("\ncwd: {}\n", shown_cwd(spec)));
    text.push_str(&streams(ran));
    (output, text)
}
