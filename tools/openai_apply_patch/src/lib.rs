//! OpenAI's `apply_patch` client tool (docs/contract.md#openai-apply_patch): the Responses
//! API's one operation per call — `create_file`, `update_file` or `delete_file` on `path`,
//! with a V4A `diff` — answered with what `apply_patch_call_output` carries (`status`
//! `completed`, an `output` text; a failed call is the tool's error, which the client sends
//! back as status `failed` with the error text as `output`).
//!
//! Reads top to bottom: the operation; its `diff` checked to be one file's lines only
//! ([`operation_patch`]: no `*** ` marker may smuggle in a second operation) and framed as
//! codex's grammar; then the shared engine, `toolhost_patch`: parsed, worked out against the
//! files the host serves and committed as one change, exactly as codex's `apply_patch` is.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use toolhost_patch::parse::{self, END_OF_FILE, PatchOperation};
use toolhost_sdk::limits::MAX_PATCH_BYTES;
use toolhost_sdk::{Inspection, Output, Risk, Tool, ToolError, output_schema};

/// Input of OpenAI's `apply_patch`: the call's `operation`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct OperationInput {
    /// `create_file`, `update_file` or `delete_file`.
    #[serde(rename = "type")]
    pub kind: OperationKind,
    /// The file, relative to the working directory.
    pub path: String,
    /// The V4A diff: for `create_file` every line of the file starting with `+`; for
    /// `update_file` hunks of ` ` context, `-` removed and `+` added lines, each hunk after an
    /// `@@` line (which may name the class or function it is in). None for `delete_file`.
    #[serde(default)]
    pub diff: Option<String>,
}

/// The operations of OpenAI's `apply_patch`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum OperationKind {
    /// Create a file with the diff's `+` lines.
    CreateFile,
    /// Apply the diff's hunks to a file.
    UpdateFile,
    /// Delete a file.
    DeleteFile,
}

/// What `apply_patch_call_output` carries for a call that succeeded.
#[derive(Debug, Serialize, JsonSchema)]
pub struct CallOutput {
    /// Always `completed` here (a failed call is the tool's error).
    pub status: &'static str,
    /// What happened, for the model.
    pub output: String,
}

/// OpenAI's one-operation `apply_patch`.
#[derive(Default)]
pub struct OpenAiApplyPatch;

const DESCRIPTION: &str = "Create, update or delete one file. `type` is create_file, \
update_file or delete_file; `path` is relative to the working directory; `diff` is a V4A \
diff: for create_file every line of the new file starting with +; for update_file, hunks of \
lines starting with a space (context, 3 lines around each change), - (removed) or + (added), \
each hunk after an @@ line, which may name the class or function it is in when the context \
is not unique. A file to update or delete must have been read first. The hunk's lines must \
match one place; whitespace and Unicode punctuation differences are tolerated and said.";

impl Tool for OpenAiApplyPatch {
    type Input = OperationInput;

    fn id(&self) -> &'static str {
        "apply_patch"
    }

    fn description(&self) -> &'static str {
        DESCRIPTION
    }

    fn risk(&self) -> Risk {
        Risk::WorkspaceMutation
    }

    fn inspect(&self, input: &OperationInput) -> Inspection {
        Inspection::Writes(input.path.clone())
    }

    fn output_schema(&self) -> Option<serde_json::Value> {
        Some(output_schema::<CallOutput>())
    }

    fn execute(&self, input: OperationInput) -> Result<String, ToolError> {
        self.run(input).map(|o| o.text)
    }

    fn run(&self, input: OperationInput) -> Result<Output, ToolError> {
        let patch = operation_patch(&input).map_err(ToolError::invalid_arguments)?;
        let operations = parse::parse_patch(&patch)
            .map_err(|e| ToolError::invalid_arguments(format!("the diff cannot be read: {e}")))?;
        let [op] = operations.as_slice() else {
            return Err(ToolError::invalid_arguments("the diff must change one file only"));
        };
        let expected = match (op, input.kind) {
            (PatchOperation::Add { path, .. }, OperationKind::CreateFile)
            | (PatchOperation::Update { path, move_to: None, .. }, OperationKind::UpdateFile)
            | (PatchOperation::Delete { path }, OperationKind::DeleteFile) => path == &input.path,
            _ => false,
        };
        if !expected {
            return Err(ToolError::invalid_arguments("the diff must change one file only"));
        }
        let text = toolhost_patch::apply_operations(&operations)?;
        Output::structured(text.clone(), &CallOutput { status: "completed", output: text })
    }
}

/// The operation as a patch in codex's grammar, after checking that its diff holds one
/// file's lines only: no line of it may be a `*** ` marker (but `*** End of File`), so the
/// framing cannot be broken out of; a path on one line.
pub fn operation_patch(input: &OperationInput) -> Result<String, String> {
    if input.path.is_empty() || input.path.contains(['\n', '\r']) {
        return Err("path must be one line naming a file".into());
    }
    let diff = input.diff.as_deref().unwrap_or("");
    if diff.len() > MAX_PATCH_BYTES {
        return Err(format!(
            "the diff is {} bytes; the limit is {} MiB ({MAX_PATCH_BYTES} bytes)",
            diff.len(),
            MAX_PATCH_BYTES / (1024 * 1024)
        ));
    }
    if let Some((n, line)) = diff
        .lines()
        .enumerate()
        .find(|(_, l)| l.trim_start().starts_with("***") && l.trim() != END_OF_FILE)
    {
        return Err(format!(
            "line {} of the diff is a patch marker ({}); a diff holds one file's lines only: \
             the operation is given by type and path",
            n + 1,
            parse::quoted(line)
        ));
    }
    let diff = diff.trim_end_matches(['\n', '\r']);
    let path = &input.path;
    Ok(match input.kind {
        OperationKind::DeleteFile => {
            if !diff.trim().is_empty() {
                return Err("delete_file takes no diff".into());
            }
            format!("*** Begin Patch\n*** Delete File: {path}\n*** End Patch\n")
        }
        OperationKind::CreateFile => {
            if let Some((n, line)) = diff.lines().enumerate().find(|(_, l)| !l.starts_with('+')) {
                return Err(format!(
                    "line {} of a create_file diff does not start with + ({}); every line of \
                     the new file does",
                    n + 1,
                    parse::quoted(line)
                ));
            }
            let body = if diff.is_empty() { String::new() } else { format!("{diff}\n") };
            format!("*** Begin Patch\n*** Add File: {path}\n{body}*** End Patch\n")
        }
        OperationKind::UpdateFile => {
            if diff.trim().is_empty() {
                return Err("update_file needs a diff with at least one hunk".into());
            }
            format!("*** Begin Patch\n*** Update File: {path}\n{diff}\n*** End Patch\n")
        }
    })
}

toolhost_sdk::export_tool!(OpenAiApplyPatch);

#[cfg(test)]
mod tests {
    use super::*;
    use toolhost_sdk::parse_input;

    fn op(json: &str) -> OperationInput {
        parse_input(json).unwrap()
    }

    #[test]
    fn each_operation_is_framed_as_one_file_of_codexs_grammar() {
        let p = operation_patch(&op(r#"{"type":"create_file","path":"a.txt","diff":"+x\n+y\n"}"#))
            .unwrap();
        assert_eq!(p, "*** Begin Patch\n*** Add File: a.txt\n+x\n+y\n*** End Patch\n");
        let p =
            operation_patch(&op(r#"{"type":"update_file","path":"a.txt","diff":"@@\n-x\n+z"}"#))
                .unwrap();
        assert_eq!(p, "*** Begin Patch\n*** Update File: a.txt\n@@\n-x\n+z\n*** End Patch\n");
        let p = operation_patch(&op(r#"{"type":"delete_file","path":"a.txt"}"#)).unwrap();
        assert_eq!(p, "*** Begin Patch\n*** Delete File: a.txt\n*** End Patch\n");
        let ops = parse::parse_patch(&p).unwrap();
        assert!(matches!(ops.as_slice(), [PatchOperation::Delete { .. }]));
    }

    #[test]
    fn a_diff_cannot_smuggle_in_another_operation() {
        for diff in [
            "@@\n-x\n+y\n*** Delete File: other.txt",
            "+x\n*** End Patch\n*** Begin Patch\n*** Add File: b\n+b",
            "@@\n-x\n+y\n *** Move to: elsewhere",
        ] {
            for kind in ["create_file", "update_file"] {
                let input =
                    op(&serde_json::json!({"type": kind, "path": "a", "diff": diff}).to_string());
                let e = operation_patch(&input).unwrap_err();
                assert!(e.contains("patch marker") || e.contains("does not start with +"), "{e}");
            }
        }
        let eof = op(r#"{"type":"update_file","path":"a","diff":"@@\n-x\n+y\n*** End of File"}"#);
        assert!(operation_patch(&eof).is_ok());
        assert!(
            operation_patch(&op(r#"{"type":"create_file","path":"a\nb","diff":"+x"}"#)).is_err()
        );
        assert!(operation_patch(&op(r#"{"type":"delete_file","path":"a","diff":"-x"}"#)).is_err());
        assert!(parse_input::<OperationInput>(r#"{"type":"rename_file","path":"a"}"#).is_err());
    }
}
