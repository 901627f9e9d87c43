//! `legacy02`: a test-only tool built against `toolhost:tool@0.2.0` (`wit/since_v0.2.0`), the
//! way a third party built tools before 0.3.0 existed. It binds the frozen WIT directly with
//! wit-bindgen instead of using the SDK (which follows the newest version), so this source
//! never changes: every newer host must load it, run it, and pass it through conformance.
//!
//! It counts the lines of a workspace file (`stat` for its size, the `file` handle for its
//! bytes) and answers with a structured value beside the text; with `copyTo` it also writes
//! the text to another file through a 0.2.0 `draft` (`current`, then `commit`).

wit_bindgen::generate!({
    world: "tool-component",
    path: "../../../wit/since_v0.2.0",
});

use exports::toolhost::tool::tool::Guest;
use toolhost::tool::types::{Definition, ErrorCode, Inspection, Output, Risk, ToolError};
use toolhost::tool::workspace::{ChangeKind, open_file, open_for_write, stat};

/// The prefix of every invalid-input message (the contract's).
const INVALID: &str = "invalid tool input: ";

/// The input schema, written by hand as a 0.2.0 author without the SDK would.
const SCHEMA: &str = r#"{"type":"object","properties":{"path":{"type":"string","description":"The file to count, relative to the workspace."},"copyTo":{"type":"string","description":"Also write the file's text to this file."}},"required":["path"],"additionalProperties":false}"#;

/// The output schema of the structured value.
const OUTPUT_SCHEMA: &str = r#"{"type":"object","properties":{"lines":{"type":"integer"},"bytes":{"type":"integer"}},"required":["lines","bytes"],"additionalProperties":false}"#;

fn invalid(message: String) -> ToolError {
    ToolError {
        code: ErrorCode::InvalidArguments,
        message: format!("{INVALID}{message}"),
        retryable: false,
    }
}

/// `path` and `copyTo` from the JSON input, or the contract's invalid-input error.
fn parse(input: &str) -> Result<(String, Option<String>), ToolError> {
    let value: serde_json::Value =
        serde_json::from_str(input).map_err(|e| invalid(e.to_string()))?;
    let obj = value.as_object().ok_or_else(|| invalid("expected a JSON object".into()))?;
    if let Some(unknown) = obj.keys().find(|k| *k != "path" && *k != "copyTo") {
        return Err(invalid(format!("unknown field `{unknown}`, expected `path` or `copyTo`")));
    }
    let string = |key: &str| match obj.get(key) {
        None => Ok(None),
        Some(serde_json::Value::String(s)) => Ok(Some(s.clone())),
        Some(_) => Err(invalid(format!("`{key}` must be a string"))),
    };
    let path = string("path")?.ok_or_else(|| invalid("missing field `path`".into()))?;
    Ok((path, string("copyTo")?))
}

struct Legacy02;

impl Guest for Legacy02 {
    fn describe() -> Definition {
        Definition {
            id: "legacy02".into(),
            description: "Test-only tool built against toolhost:tool 0.2.0: counts the lines of a file, and copies it when asked.".into(),
            input_schema: SCHEMA.into(),
            output_schema: Some(OUTPUT_SCHEMA.into()),
            risk: Risk::WorkspaceMutation,
        }
    }

    fn inspect(input: String) -> Result<Inspection, ToolError> {
        let (path, copy_to) = parse(&input)?;
        Ok(match copy_to {
            Some(to) => Inspection::Writes(to),
            None => {
                let _ = path;
                Inspection::ReadOnly
            }
        })
    }

    fn execute(input: String) -> Result<Output, ToolError> {
        let (path, copy_to) = parse(&input)?;
        let Some(meta) = stat(&path)? else {
            return Err(ToolError {
                code: ErrorCode::InvalidArguments,
                message: format!("{path} does not exist"),
                retryable: false,
            });
        };
        let file = open_file(&path)?;
        let mut bytes = Vec::new();
        loop {
            let chunk = file.read(64 * 1024)?;
            if chunk.is_empty() {
                break;
            }
            bytes.extend_from_slice(&chunk);
        }
        let text = String::from_utf8_lossy(&bytes).into_owned();
        let lines = text.lines().count();
        let mut said = format!("{lines} lines ({} bytes) in {}", meta.size, file.display_path());
        if let Some(to) = copy_to {
            let draft = open_for_write(&to)?;
            draft.current()?;
            let committed = draft.commit(&text)?;
            let kind = match committed.kind {
                ChangeKind::Created => "created",
                ChangeKind::Modified => "modified",
                ChangeKind::Unchanged => "unchanged",
            };
            said.push_str(&format!("; {} {kind}", draft.display_path()));
        }
        Ok(Output {
            text: said,
            structured: Some(format!(r#"{{"lines":{lines},"bytes":{}}}"#, meta.size)),
        })
    }
}

export!(Legacy02);
