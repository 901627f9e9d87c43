//! `stall`: a test-only third-party tool of workspace-mutation risk. It writes `text` to
//! `path` through the host's draft, like `scribe`, but can keep running before the write
//! (`wait_for`: until a file exists, so a test can stop the session store meanwhile) or after
//! it (`then_hang`: until the call is stopped, so a test can kill the toolhost between the
//! write and the call's record). Not conformant on purpose: it does not answer in time.

use schemars::JsonSchema;
use serde::Deserialize;
use toolhost_sdk::{
    Inspection, Risk, Tool, ToolError, cancelled, open_for_write, report_progress, stat,
};

/// The input.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct StallInput {
    /// The file to write, relative to the workspace.
    pub path: String,
    /// Its new content.
    pub text: String,
    /// After writing, keep running until the call is cancelled or reaches its deadline: a
    /// test kills the toolhost while the write is done and the call not yet recorded.
    #[serde(default)]
    pub then_hang: bool,
    /// Before writing, keep running until this workspace file exists (or the call is
    /// cancelled): a test stops the session store meanwhile, then creates it.
    #[serde(default)]
    pub wait_for: Option<String>,
}

/// The stall test tool.
#[derive(Default)]
pub struct Stall;

impl Tool for Stall {
    type Input = StallInput;

    fn id(&self) -> &'static str {
        "stall"
    }

    fn description(&self) -> &'static str {
        "Test-only tool that writes text to a file in the workspace, and may keep running before or after."
    }

    fn risk(&self) -> Risk {
        Risk::WorkspaceMutation
    }

    fn inspect(&self, input: &StallInput) -> Inspection {
        Inspection::Writes(input.path.clone())
    }

    fn execute(&self, input: StallInput) -> Result<String, ToolError> {
        let draft = open_for_write(&input.path)?;
        if let Some(signal) = &input.wait_for {
            report_progress(&format!("waiting for {signal}"), None);
            while !matches!(stat(signal), Ok(Some(_))) {
                if cancelled() {
                    return Err(ToolError::cancelled(format!("stopped waiting for {signal}")));
                }
            }
        }
        let committed = draft.commit(&input.text)?;
        if input.then_hang {
            while !cancelled() {
                std::hint::spin_loop();
            }
            return Err(ToolError::cancelled(format!("wrote {}, then was stopped", input.path)));
        }
        Ok(format!(
            "wrote {} ({:?} +{} -{})",
            input.path, committed.kind, committed.additions, committed.deletions
        ))
    }
}

toolhost_sdk::export_tool!(Stall);
