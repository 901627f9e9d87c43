//! The `bash` tool (docs/contract.md#bash): the one built-in that lives in the host. It only ever
//! runs inside the OS sandbox made from this call's policy (`toolhost_sandbox::run`); when
//! the sandbox is unavailable it does not run at all.
//!
//! * this file — the schema ([`BashInput`]) and the [`Bash`] tool;
//! * `request.rs` — one call as the sandbox runs it: [`BashRequest`], the timeout rule
//!   ([`effective_timeout_ms`]), [`BashStatus`] and [`BashOutcome`];
//! * `run.rs` — [`run_bash`]: the call through the shared sandboxed run, rendered;
//! * `texts.rs` — bash's model-facing status lines and messages.

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
        let env = session.process_environment(&call.sandbox_policy);
        let progress_call = call.clone();
        let progress: toolhost_sandbox::process::ProgressFn =
            Arc::new(move |stream, bytes: &[u8]| {
                let chunk = String::from_utf8_lossy(bytes).into_owned();
                progress_call.report_progress(match stream {
                    Stream::Stdout => ToolProgress::Stdout { chunk },
                    Stream::Stderr => ToolProgress::Stderr { chunk },
                });
            });
        let request = BashRequest {
            command: input.command,
            timeout_ms: input.timeout_ms,
            workspace: session.working_directory.clone(),
            policy: call.sandbox_policy.clone(),
            env,
            deadline: call.deadline,
            cancel: call.cancel.clone(),
            spill_path: Some(spill_path(&session.data_dir, &session.session_id, &call.call_id.0)),
            progress: Some(progress),
        };
        let outcome =
            run_bash(session.sandbox.as_ref(), session.process_backend.as_ref(), request).await;
        let code = match outcome.status {
            BashStatus::Completed { .. } => {
                return Ok(ToolOutput {
                    text: outcome.text,
                    artifacts: Vec::new(),
                    sandbox_denied: outcome.sandbox_denied,
                });
            }
            BashStatus::TimedOut { .. } => ErrorCode::Timeout,
            BashStatus::Cancelled => ErrorCode::Cancelled,
            BashStatus::ExecutionFailed => ErrorCode::ExecutionFailed,
            BashStatus::SandboxUnavailable => ErrorCode::SandboxUnavailable,
            BashStatus::OutcomeUnknown => ErrorCode::OutcomeUnknown,
        };
        Err(ToolError::new(code, outcome.text))
    }
}
