//! The `read` tool (docs/contract.md#read): a page of a text file with line numbers.
//!
//! Reads top to bottom as its section of docs/contract.md: the input and its bounds, then the loop
//! that streams the whole file through the line engine ([`lines::LineReader`]), which renders the
//! page and its footer. The file is always read to its end: that counts the total lines and lets
//! the host hash every byte and record the read for read-before-edit
//! (docs/contract.md#read-before-edit).

mod lines;

use schemars::JsonSchema;
use serde::Deserialize;
use toolhost_sdk::{READ_CHUNK_BYTES, Risk, Tool, ToolError, cancelled, open_file};

use lines::LineReader;

/// Lines shown when `limit` is not given (docs/contract.md#read; docs/limits.md, read lines: 2000).
pub const DEFAULT_LIMIT: u32 = toolhost_sdk::limits::READ_MAX_LINES;

/// Input of the `read` tool.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ReadInput {
    /// The file to read: absolute, or relative to the working directory.
    pub path: String,
    /// 1-based line to start at. Default 1; 0 is treated as 1.
    #[serde(default = "default_offset")]
    pub offset: u64,
    /// Lines to show, 1–2000. Default 2000.
    #[serde(default = "default_limit")]
    pub limit: u32,
}

fn default_offset() -> u64 {
    1
}

fn default_limit() -> u32 {
    DEFAULT_LIMIT
}

/// The error when the call was cancelled while the file was streaming.
pub const CANCELLED_MESSAGE: &str = "read was cancelled";

/// Reads a page of a text file.
#[derive(Default)]
pub struct Read;

impl Tool for Read {
    type Input = ReadInput;

    fn id(&self) -> &'static str {
        "read"
    }

    fn description(&self) -> &'static str {
        "Read a text file. Each output line is `{line number}\\t{content}`; line numbers are \
         1-based and are the file's own. Shows up to 2000 lines and about 31 KB per call; \
         lines longer than 2000 characters are cut and marked. When the file goes on, the last \
         line says which `offset` to continue with. Reading a file is required before `edit` \
         or `write` may change it. Binary files and non-UTF-8 text are refused; use `list` for \
         directories."
    }

    fn risk(&self) -> Risk {
        Risk::ReadOnly
    }

    fn execute(&self, input: ReadInput) -> Result<String, ToolError> {
        lines::check_limit(input.limit)?;
        let file = open_file(&input.path)?;
        let mut reader = LineReader::new(file.display_path(), input.offset, input.limit)?;
        loop {
            if cancelled() {
                return Err(ToolError::cancelled(CANCELLED_MESSAGE));
            }
            let chunk = file.read(READ_CHUNK_BYTES)?;
            if chunk.is_empty() {
                break;
            }
            reader.feed(&chunk)?;
        }
        reader.finish()
    }
}

toolhost_sdk::export_tool!(Read);

#[cfg(test)]
mod tests {
    use super::*;
    use toolhost_sdk::{input_schema, parse_input};

    #[test]
    fn defaults() {
        let input: ReadInput = parse_input(r#"{"path": "a.rs"}"#).unwrap();
        assert_eq!((input.path.as_str(), input.offset, input.limit), ("a.rs", 1, 2000));
    }

    #[test]
    fn path_is_required_and_unknown_fields_rejected() {
        assert!(parse_input::<ReadInput>("{}").is_err());
        assert!(parse_input::<ReadInput>(r#"{"path": "a", "lines": 1}"#).is_err());
        assert!(parse_input::<ReadInput>(r#"{"path": "a", "offset": -1}"#).is_err());
        assert!(parse_input::<ReadInput>(r#"{"filePath": "a"}"#).is_err());
    }

    #[test]
    fn schema_describes_fields_and_requires_path() {
        let schema = input_schema::<ReadInput>();
        assert_eq!(schema["additionalProperties"], false);
        let required = schema["required"].as_array().unwrap();
        assert_eq!(required.len(), 1);
        assert_eq!(required[0], "path");
        for field in ["path", "offset", "limit"] {
            assert!(schema["properties"][field]["description"].is_string(), "{field}");
        }
    }

    #[test]
    fn definition() {
        let tool = Read;
        assert_eq!(tool.id(), "read");
        assert_eq!(tool.risk(), Risk::ReadOnly);
    }
}
