//! Anthropic's `bash` client tool (docs/contract.md#anthropic-bash): `command`, or `restart`,
//! run exactly as [`super::Bash`] runs a command (the same sandbox, output bound, spill and
//! status line). toolhost runs a fresh shell for every call, so nothing carries over
//! between calls and a restart has nothing to reset: it answers as Anthropic's reference
//! tool does.

use async_trait::async_trait;
use schemars::JsonSchema;
use serde::Deserialize;
use toolhost_core::context::{ToolCallContext, ToolSessionContext};
use toolhost_core::result::ToolError;
use toolhost_core::tool::{CallInspection, NativeTool, ToolId, ToolOutput, ToolRisk};
use toolhost_limits::BASH_MAX_TIMEOUT_MS;

/// Input of Anthropic's `bash`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AnthropicBashInput {
    /// The command, run by `/bin/bash -c` in the workspace root. Required unless restarting.
    #[serde(default)]
    pub command: Option<String>,
    /// Restart the tool (each call already runs a fresh shell).
    #[serde(default)]
    pub restart: bool,
}

/// What a restart answers (Anthropic's reference tool's words).
pub const RESTARTED: &str = "tool has been restarted.";

/// A call with neither a command nor a restart.
pub const NO_COMMAND: &str = "no command provided.";

/// Anthropic's bash client tool, over toolhost's sandboxed bash.
pub struct AnthropicBash;

#[async_trait]
impl NativeTool for AnthropicBash {
    type Input = AnthropicBashInput;

    fn id(&self) -> ToolId {
        ToolId::new("bash")
    }

    fn description(&self) -> &'static str {
        "Run a command with /bin/bash -c in the workspace root, inside a sandbox: the workspace \
         is writable, most of the rest of the filesystem is read-only, credentials are hidden. \
         Each call is a fresh shell (a `cd` does not carry over; `restart` has nothing to \
         reset). stdout and stderr are merged; long output keeps the first 2 KiB and the last \
         14 KiB and saves the rest to a file. A command runs for at most 120000 ms."
    }

    fn risk(&self) -> ToolRisk {
        ToolRisk::ProcessExecution
    }

    fn inspect(&self, input: &AnthropicBashInput) -> CallInspection {
        match &input.command {
            Some(command) if !input.restart => CallInspection::Runs(command.clone()),
            _ => CallInspection::ReadOnly,
        }
    }

    async fn execute(
        &self,
        session: &ToolSessionContext,
        call: ToolCallContext,
        input: AnthropicBashInput,
    ) -> Result<ToolOutput, ToolError> {
        if input.restart {
            return Ok(ToolOutput::from(RESTARTED.to_owned()));
        }
        let Some(command) = input.command else {
            return Err(ToolError::new(
                toolhost_core::result::ErrorCode::InvalidArguments,
                NO_COMMAND,
            ));
        };
        super::run_command(session, call, command, Some(BASH_MAX_TIMEOUT_MS)).await
    }
}
