//! The `write` tool (docs/contract.md#write): create a file, or replace one the model has read.
//!
//! Reads top to bottom as its section of docs/contract.md: the input and its bound, then the flow
//! through the host's draft (which creates missing parents, enforces read-before-edit on existing
//! files (docs/contract.md#read-before-edit), refuses a file that changed meanwhile, and writes
//! atomically), then the one-line summary ([`summary::summary`]).

mod summary;

use schemars::JsonSchema;
use serde::Deserialize;
use toolhost_sdk::{Inspection, Risk, Tool, ToolError, open_for_write};

/// Input of the `write` tool.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct WriteInput {
    /// The file to write: absolute, or relative to the working directory. Missing parent
    /// directories are created.
    pub path: String,
    /// The complete new content of the file, at most 1 MiB (1,048,576 bytes).
    pub content: String,
}

/// Writes a whole file.
#[derive(Default)]
pub struct Write;

impl Tool for Write {
    type Input = WriteInput;

    fn id(&self) -> &'static str {
        "write"
    }

    fn description(&self) -> &'static str {
        "Write a whole file: create it (with any missing parent directories) or replace its \
         content. An existing file must have been read with `read` first, and is refused if it \
         changed since. Content is at most 1 MiB. To change part of a file, prefer `edit`. \
         Returns one line saying whether the file was created, overwritten or unchanged, with \
         the lines added and removed."
    }

    fn risk(&self) -> Risk {
        Risk::WorkspaceMutation
    }

    fn inspect(&self, input: &WriteInput) -> Inspection {
        Inspection::Writes(input.path.clone())
    }

    fn execute(&self, input: WriteInput) -> Result<String, ToolError> {
        summary::check_content(&input.content)?;
        let draft = open_for_write(&input.path)?;
        // Serves the text the commit is compared against; refuses unread or changed files.
        draft.current()?;
        let committed = draft.commit(&input.content)?;
        Ok(summary::summary(&draft.display_path(), &committed))
    }
}

toolhost_sdk::export_tool!(Write);

#[cfg(test)]
mod tests {
    use super::*;
    use toolhost_sdk::{input_schema, parse_input};

    #[test]
    fn both_fields_required_and_unknown_fields_rejected() {
        let input: WriteInput = parse_input(r#"{"path": "a", "content": "x\n"}"#).unwrap();
        assert_eq!((input.path.as_str(), input.content.as_str()), ("a", "x\n"));
        assert!(parse_input::<WriteInput>(r#"{"path": "a"}"#).is_err());
        assert!(parse_input::<WriteInput>(r#"{"content": "a"}"#).is_err());
        assert!(parse_input::<WriteInput>(r#"{"path": "a", "content": "", "mode": 1}"#).is_err());
        assert!(parse_input::<WriteInput>(r#"{"filePath": "a", "content": ""}"#).is_err());
    }

    #[test]
    fn schema_describes_fields_and_requires_both() {
        let schema = input_schema::<WriteInput>();
        assert_eq!(schema["additionalProperties"], false);
        let required = schema["required"].as_array().unwrap();
        assert_eq!(required.len(), 2);
        for field in ["path", "content"] {
            assert!(required.iter().any(|r| r == field), "{field}");
            assert!(schema["properties"][field]["description"].is_string(), "{field}");
        }
    }

    #[test]
    fn definition_and_inspection() {
        let tool = Write;
        assert_eq!(tool.id(), "write");
        assert_eq!(tool.risk(), Risk::WorkspaceMutation);
        let input: WriteInput = parse_input(r#"{"path": "src/a.rs", "content": ""}"#).unwrap();
        assert!(matches!(tool.inspect(&input), Inspection::Writes(p) if p == "src/a.rs"));
    }
}
