//! The `apply_patch` tool (docs/contract.md#apply_patch): add, delete, update and move files
//! with one patch in codex's grammar, committed as one change — every file, or none.
//!
//! Reads top to bottom: the input and its bound; the patch parsed
//! ([`toolhost_patch::parse::parse_patch`]); then the operations worked out and committed as
//! one change by [`toolhost_patch::apply_operations`] (the engine this tool shares with
//! OpenAI's one-operation `apply_patch`): each file opened once, hunks applied in memory,
//! every changed file handed to the host's `commit-all` at once, which checks each file
//! again, journals the change and writes it; then the summary, one line per file.
//!
//! A failure before the commit names the operation (`Update File: src/a.rs: …`) and writes
//! nothing; a patch that cannot be read is a [`parse::ParseError`] naming its line.

use schemars::JsonSchema;
use serde::Deserialize;
use toolhost_patch::parse;
use toolhost_sdk::limits::MAX_PATCH_BYTES;
use toolhost_sdk::{Inspection, Risk, Tool, ToolError};

/// Input of the `apply_patch` tool.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ApplyPatchInput {
    /// The whole patch, from `*** Begin Patch` to `*** End Patch`. At most 8 MiB.
    pub input: String,
}

/// Applies a multi-file patch as one change.
#[derive(Default)]
pub struct ApplyPatch;

/// The description the model reads: the grammar in a few lines.
const DESCRIPTION: &str = "Edit files with a patch: add, delete, update and move several files \
in one call, applied as one change (every file is changed, or none is). The patch:\n\
*** Begin Patch\n\
*** Add File: src/new.py\n\
+every line of the new file, each starting with +\n\
*** Update File: src/app.py\n\
*** Move to: src/main.py   (optional: rename the file too)\n\
@@ def handler():\n\
 three lines of context before the change, each starting with a space\n\
-a line to remove\n\
+a line to add\n\
 three lines of context after it\n\
*** Delete File: src/old.py\n\
*** End Patch\n\
Paths are relative to the working directory. Show 3 lines of context around each change; \
when they are not unique, add an `@@` line naming the class or function the change is in \
(several `@@` hunks may follow one another). A file to update or delete, or to add over an \
existing file, must have been read with `read` first. Returns one line per file changed.";

impl Tool for ApplyPatch {
    type Input = ApplyPatchInput;

    fn id(&self) -> &'static str {
        "apply_patch"
    }

    fn description(&self) -> &'static str {
        DESCRIPTION
    }

    fn risk(&self) -> Risk {
        Risk::WorkspaceMutation
    }

    /// The first file the patch writes (the host shows it when it asks about the call).
    fn inspect(&self, input: &ApplyPatchInput) -> Inspection {
        let first = parse::parse_patch(&input.input)
            .ok()
            .and_then(|ops| ops.first().map(|op| op.path().to_owned()));
        Inspection::Writes(first.unwrap_or_default())
    }

    fn execute(&self, input: ApplyPatchInput) -> Result<String, ToolError> {
        if input.input.len() > MAX_PATCH_BYTES {
            return Err(ToolError::invalid_arguments(format!(
                "the patch is {} bytes; the limit is {} MiB ({MAX_PATCH_BYTES} bytes). Split it \
                 into several patches",
                input.input.len(),
                MAX_PATCH_BYTES / (1024 * 1024)
            )));
        }
        let operations = parse::parse_patch(&input.input)
            .map_err(|e| ToolError::invalid_arguments(format!("the patch cannot be read: {e}")))?;
        toolhost_patch::apply_operations(&operations)
    }
}

toolhost_sdk::export_tool!(ApplyPatch);
