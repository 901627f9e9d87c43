//! `scribe`: a test-only third-party tool of workspace-mutation risk. It writes `text` to
//! `path` through the host's draft (fence, write lock, read-before-edit, atomic commit), so
//! host tests can check that what a third-party tool writes is a recorded, undoable change;
//! with `then_hang` it keeps running after the write, so a test can stop the toolhost between
//! a write and the call's record.

use schemars::JsonSchema;
use serde::Deserialize;
use toolhost_sdk::{Inspection, Risk, Tool, ToolError, open_for_write, report_progress, stat};

/// The input.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ScribeInput {
    /// The file to write, relative to the workspace.
    pub path: String,
    /// Its new content.
    pub text: String,
    /// After writing, keep running (spinning) until the call is stopped: a test kills the
    /// toolhost while the write is done and the call not yet recorded.
    #[serde(default)]
    pub then_hang: bool,
    /// Before writing, keep running until this workspace file exists: a test stops the
    /// session store meanwhile, then creates it.
    #[serde(default)]
    pub wait_for: Option<String>,
}

/// The scribe test tool.
#[derive(Default)]
pub struct Scribe;

impl Tool for Scribe {
    type Input = ScribeInput;

    fn id(&self) -> &'static str {
        "scribe"
    }

    fn description(&self) -> &'static str {
        "Test-only tool that writes text to a file in the workspace."
    }

    fn risk(&self) -> Risk {
        Risk::WorkspaceMutation
    }

    fn inspect(&self, input: &ScribeInput) -> Inspection {
        Inspection::Writes(input.path.clone())
    }

    fn execute(&self, input: ScribeInput) -> Result<String, ToolError> {
        let draft = open_for_write(&input.path)?;
        if let Some(signal) = &input.wait_for {
            report_progress(&format!("waiting for {signal}"), None);
            while !matches!(stat(signal), Ok(Some(_))) {
                std::hint::spin_loop();
            }
        }
        let committed = draft.commit(&input.text)?;
        if input.then_hang {
            let mut n: u64 = 0;
            loop {
                n = std::hint::black_box(n.wrapping_add(1));
            }
        }
        Ok(format!(
            "wrote {} ({:?} +{} -{})",
            input.path, committed.kind, committed.additions, committed.deletions
        ))
    }
}

toolhost_sdk::export_tool!(Scribe);
