//! `word_count`: counts the lines, words and bytes of one file of the workspace, like `wc`,
//! read through the host's capability handles; text for the model and a structured result
//! matching its output schema. Made with `toolhost new word_count --lang rust`, then given
//! words: the same tool as `examples/word_count/python` and `…/javascript`. The contract it
//! follows is in `wit/tool.wit` (`toolhost wit`) and in toolhost's docs/authoring.md.

wit_bindgen::generate!({ path: "wit", world: "tool-component" });

use exports::toolhost::tool::tool::Guest;
use serde::Deserialize;
use toolhost::tool::types::{Definition, ErrorCode, Inspection, Output, Risk, ToolError};
use toolhost::tool::{call, workspace};

/// The tool's id: what models call it by. 1 to 64 characters of `A-Za-z0-9_-`.
const ID: &str = "word_count";

/// The input, as the input schema below describes it.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Input {
    path: String,
}

/// The JSON Schema of the input. Every property has a description: it is all the model
/// knows about it. The host checks every call's arguments against it before the tool runs.
const INPUT_SCHEMA: &str = r#"{
  "type": "object",
  "properties": {
    "path": {
      "type": "string",
      "minLength": 1,
      "description": "The file to read, relative to the workspace root (or absolute inside it)."
    }
  },
  "required": ["path"],
  "additionalProperties": false
}"#;

/// The JSON Schema of the structured result `execute` returns.
const OUTPUT_SCHEMA: &str = r#"{
  "type": "object",
  "properties": {
    "path": { "type": "string", "description": "The file, as the host displays it." },
    "bytes": { "type": "integer", "minimum": 0, "description": "Its size in bytes." },
    "lines": { "type": "integer", "minimum": 0, "description": "How many newline characters it holds." },
    "words": { "type": "integer", "minimum": 0, "description": "How many runs of non-whitespace it holds." }
  },
  "required": ["path", "bytes", "lines", "words"],
  "additionalProperties": false
}"#;

/// How many bytes to ask the host for at a time.
const CHUNK: u32 = 64 * 1024;

struct Tool;

impl Guest for Tool {
    fn describe() -> Definition {
        Definition {
            id: ID.to_string(),
            description: "Counts the lines, words and bytes of one file of the workspace, like \
                          `wc`: a line is a newline character, a word a run of characters other \
                          than ASCII whitespace."
                .to_string(),
            input_schema: INPUT_SCHEMA.to_string(),
            output_schema: Some(OUTPUT_SCHEMA.to_string()),
            risk: Risk::ReadOnly,
        }
    }

    fn inspect(input: String) -> Result<Inspection, ToolError> {
        parse(&input)?;
        Ok(Inspection::ReadOnly)
    }

    fn execute(input: String) -> Result<Output, ToolError> {
        let input = parse(&input)?;
        // The host resolves and fences the path; a refused path comes back as an error.
        let file = workspace::open_file(&input.path)?;
        let (mut bytes, mut lines, mut words) = (0u64, 0u64, 0u64);
        let mut in_word = false;
        loop {
            if call::cancelled() {
                return Err(error(ErrorCode::Cancelled, "cancelled".to_string()));
            }
            let chunk = file.read(CHUNK)?;
            if chunk.is_empty() {
                break;
            }
            bytes += chunk.len() as u64;
            for &b in &chunk {
                let space = b.is_ascii_whitespace() || b == 0x0b;
                lines += u64::from(b == b'\n');
                words += u64::from(!space && !in_word);
                in_word = !space;
            }
        }
        let path = file.display_path();
        let structured =
            serde_json::json!({ "path": path, "bytes": bytes, "lines": lines, "words": words });
        Ok(Output {
            text: format!("{path}: {lines} lines, {words} words, {bytes} bytes"),
            structured: Some(structured.to_string()),
        })
    }
}

/// Parse the input, refusing what the schema does not allow with `invalid-arguments` and a
/// text starting `invalid tool input: ` (the host checks the schema too; this keeps the tool
/// correct on its own).
fn parse(input: &str) -> Result<Input, ToolError> {
    let input: Input = serde_json::from_str(input).map_err(invalid)?;
    if input.path.is_empty() {
        return Err(invalid("`path` is empty; give a file of the workspace"));
    }
    Ok(input)
}

fn invalid(why: impl std::fmt::Display) -> ToolError {
    error(ErrorCode::InvalidArguments, format!("invalid tool input: {why}"))
}

fn error(code: ErrorCode, message: String) -> ToolError {
    let retryable = false;
    ToolError { code, message, retryable }
}

export!(Tool);
