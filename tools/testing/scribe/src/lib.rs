//! `scribe`: a test-only third-party tool of workspace-mutation risk. It writes `text` to
//! `path` through the host's draft (fence, write lock, read-before-edit, atomic commit), so
//! host tests can check that what a third-party tool writes is a recorded, undoable change.

use schemars::JsonSchema;
use serde::Deserialize;
use toolhost_sdk::{Inspection, Risk, Tool, ToolError, open_for_write};

/// The input.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ScribeInput {
    /// The file to write, relative to the workspace.
    pub path: String,
    /// Its new content.
    pub text: String,
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
        let committed = open_for_write(&input.path)?.commit(&input.text)?;
        Ok(format!(
            "wrote {} ({:?} +{} -{})",
            input.path, committed.kind, committed.additions, committed.deletions
        ))
    }
}

toolhost_sdk::export_tool!(Scribe);
