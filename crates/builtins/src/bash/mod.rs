//! The `bash` tool (docs/contract.md#bash): the one built-in that lives in the host. It only ever
//! runs inside the OS sandbox made from this call's policy (`toolhost_sandbox::run`); when
//! the sandbox is unavailable it does not run at all.
//!
//! * this file — the schema ([`BashInput`]) and the [`Bash`] tool, and [`run_command`], one
//!   command run for any bash tool;
//! * `anthropic.rs` — [`anthropic::AnthropicBash`]: the same runs under Anthropic's bash
//!   client tool's shape (`command`, `restart`), for `--agent claude`;
//! * `openai_shell.rs` — [`openai_shell::OpenAiShell`]: OpenAI's `shell` (`commands` run in
//!   order, each one's stdout, stderr and outcome), for `--agent openai`;
//! * `request.rs` — one call as the sandbox runs it: [`BashRequest`], the timeout rule
//!   ([`effective_timeout_ms`]), [`BashStatus`] and [`BashOutcome`];
//! * `run.rs` — [`run_bash`]: the call through the shared sandboxed run, rendered;
//! * `texts.rs` — bash's model-facing status lines and messages.

pub mod anthropic;
pub mod openai_shell;
mod request;
mod run;
mod texts;

use std::sync::Arc;

use async_trait::async_trait;
use schemars::JsonSchema;
use serde::Deserialize;
use toolhost_sandbox::capture::Stream;

use toolhost_core::context::{ToolCallContext, ToolProgress, ToolSessionContext};
use toolhost_core::result::{ErrorCode, ToolError};
use toolhost_core::spill::spill_path;
use toolhost_core::tool::{CallInspection, NativeTool, ToolId, ToolOutput, ToolRisk};

pub use request::{BashOutcome, BashRequest, BashStatus, effective_timeout_ms};
pub use run::run_bash;

/// Input of `bash`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct BashInput {
    /// The command, run by `/bin/bash -c` in the workspace root (a fresh shell each call).
    pub command: String,
    /// Timeout in milliseconds: default 30000, clamped to 1–120000.
    pub timeout_ms: Option<u64>,
}

/// Runs a shell command inside the sandbox.
pub struct Bash;

#[async_trait]
impl NativeTool for Bash {
    type Input = BashInput;

    fn id(&self) -> ToolId {
        ToolId::new("bash")
    }

    fn description(&self) -> &'static str {
        "Run a command with /bin/bash -c in the workspace root, inside a sandbox: the workspace \
         is writable, most of the rest of the filesystem is read-only, credentials are hidden. \
         Each call is a fresh shell. stdout and stderr are merged; long output keeps the first \
         2 KiB and the last 14 KiB and saves the rest to a file you can read. Default timeout \
         30000 ms, at most 120000."
    }

    fn risk(&self) -> ToolRisk {
        ToolRisk::ProcessExecution
    }

    fn inspect(&self, input: &BashInput) -> CallInspection {
        CallInspection::Runs(input.command.clone())
    }

    async fn execute(
        &self,
        session: &ToolSessionContext,
        call: ToolCallContext,
        input: BashInput,
    ) -> Result<ToolOutput, ToolError> {
        run_command(session, call, input.command, input.timeout_ms).await
    }
}

/// Run `command` for one call of a bash tool (this one, or [`anthropic::AnthropicBash`]):
/// inside the sandbox made from the call's policy, its output streamed as progress; a run
/// that did not complete is the error its status maps to.
pub(crate) async fn run_command(
    session: &ToolSessionContext,
    call: ToolCallContext,
    command: String,
    timeout_ms: Option<u64>,
) -> Result<ToolOutput, ToolError> {
    let request = bash_request(session, &call, command, timeout_ms, None);
    let outcome =
        run_bash(session.sandbox.as_ref(), session.process_backend.as_ref(), request).await;
    let code = match outcome.status {
        BashStatus::Completed { .. } => {
            return Ok(ToolOutput {
                text: outcome.text,
                sandbox_denied: outcome.sandbox_denied,
                ..Default::default()
            });
        }
        other => error_code(&other),
    };
    Err(ToolError::new(code, outcome.text))
}

/// The error code of a run that did not complete.
pub(crate) fn error_code(status: &BashStatus) -> ErrorCode {
    match status {
        BashStatus::TimedOut { .. } => ErrorCode::Timeout,
        BashStatus::Cancelled => ErrorCode::Cancelled,
        BashStatus::ExecutionFailed | BashStatus::Completed { .. } => ErrorCode::ExecutionFailed,
        BashStatus::SandboxUnavailable => ErrorCode::SandboxUnavailable,
        BashStatus::OutcomeUnknown => ErrorCode::OutcomeUnknown,
    }
}

/// One command of a call as [`run_bash`] takes it: the call's policy, environment, deadline,
/// cancellation and spill file; each chunk of output reported as progress, and handed to
/// `tap` too when there is one.
pub(crate) fn bash_request(
    session: &ToolSessionContext,
    call: &ToolCallContext,
    command: String,
    timeout_ms: Option<u64>,
    tap: Option<toolhost_sandbox::process::ProgressFn>,
) -> BashRequest {
    let env = session.process_environment(&call.sandbox_policy);
    let progress_call = call.clone();
    let progress: toolhost_sandbox::process::ProgressFn = Arc::new(move |stream, bytes: &[u8]| {
        if let Some(tap) = &tap {
            tap(stream, bytes);
        }
        let chunk = String::from_utf8_lossy(bytes).into_owned();
        progress_call.report_progress(match stream {
            Stream::Stdout => ToolProgress::Stdout { chunk },
            Stream::Stderr => ToolProgress::Stderr { chunk },
        });
    });
    BashRequest {
        command,
        timeout_ms,
        workspace: session.working_directory.clone(),
        policy: call.sandbox_policy.clone(),
        env,
        deadline: call.deadline,
        cancel: call.cancel.clone(),
        spill_path: Some(spill_path(&session.data_dir, &session.session_id, &call.call_id.0)),
        progress: Some(progress),
    }
}
