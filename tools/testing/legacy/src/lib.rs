//! `legacy`: a test-only tool built against `toolhost:tool@0.1.0` (`wit/since_v0.1.0`), the
//! way a third party built tools before 0.2.0 existed. It binds the frozen WIT directly with
//! wit-bindgen instead of using the SDK (which follows the newest version), so this source
//! never changes: every newer host must load it, run it, and pass it through conformance.
//!
//! It counts the lines of a workspace file, and those containing `needle` when given,
//! reading through the 0.1.0 `file` handle, checking `cancelled` between chunks and
//! reporting progress with the 0.1.0 `report-progress(message)`.

wit_bindgen::generate!({
    world: "tool-component",
    path: "../../../wit/since_v0.1.0",
});

use exports::toolhost::tool::tool::Guest;
use toolhost::tool::call::{cancelled, report_progress};
use toolhost::tool::types::{Definition, ErrorCode, Inspection, Risk, ToolError};
use toolhost::tool::workspace::open_file;

/// The prefix of every invalid-input message (the contract's, as 0.1.0 tools wrote it).
const INVALID: &str = "invalid tool input: ";

/// The input schema, written by hand as a 0.1.0 author would.
const SCHEMA: &str = r#"{"type":"object","properties":{"path":{"type":"string","description":"The file to count, relative to the workspace."},"needle":{"type":"string","description":"Count only the lines containing this text."}},"required":["path"],"additionalProperties":false}"#;

/// Bytes read per `file.read`.
const CHUNK: u32 = 64 * 1024;

fn invalid(message: String) -> ToolError {
    ToolError {
        code: ErrorCode::InvalidArguments,
        message: format!("{INVALID}{message}"),
        retryable: false,
    }
}

/// `path` and `needle` from the JSON input, or the contract's invalid-input error.
fn parse(input: &str) -> Result<(String, Option<String>), ToolError> {
    let value: serde_json::Value =
        serde_json::from_str(input).map_err(|e| invalid(e.to_string()))?;
    let obj = value.as_object().ok_or_else(|| invalid("expected a JSON object".into()))?;
    if let Some(unknown) = obj.keys().find(|k| *k != "path" && *k != "needle") {
        return Err(invalid(format!("unknown field `{unknown}`, expected `path` or `needle`")));
    }
    let path = match obj.get("path") {
        Some(serde_json::Value::String(p)) => p.clone(),
        Some(_) => return Err(invalid("`path` must be a string".into())),
        None => return Err(invalid("missing field `path`".into())),
    };
    let needle = match obj.get("needle") {
        None => None,
        Some(serde_json::Value::String(n)) => Some(n.clone()),
        Some(_) => return Err(invalid("`needle` must be a string".into())),
    };
    Ok((path, needle))
}

struct Legacy;

impl Guest for Legacy {
    fn describe() -> Definition {
        Definition {
            id: "legacy".into(),
            description: "Test-only tool built against toolhost:tool 0.1.0: counts the lines of a file, or those containing a needle.".into(),
            input_schema: SCHEMA.into(),
            risk: Risk::ReadOnly,
        }
    }

    fn inspect(input: String) -> Result<Inspection, ToolError> {
        parse(&input).map(|_| Inspection::ReadOnly)
    }

    fn execute(input: String) -> Result<String, ToolError> {
        let (path, needle) = parse(&input)?;
        let file = open_file(&path)?;
        let size = file.size();
        let mut text = Vec::new();
        loop {
            if cancelled() {
                return Err(ToolError {
                    code: ErrorCode::Cancelled,
                    message: "cancelled".into(),
                    retryable: false,
                });
            }
            let chunk = file.read(CHUNK)?;
            if chunk.is_empty() {
                break;
            }
            text.extend_from_slice(&chunk);
            report_progress(&format!("read {} of {size} bytes", text.len()));
        }
        let text = String::from_utf8_lossy(&text);
        let shown = file.display_path();
        Ok(match needle {
            None => format!("{} lines in {shown}", text.lines().count()),
            Some(n) => format!(
                "{} of {} lines in {shown} contain {n:?}",
                text.lines().filter(|l| l.contains(n.as_str())).count(),
                text.lines().count()
            ),
        })
    }
}

export!(Legacy);
