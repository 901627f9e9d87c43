//! The `edit` tool (docs/contract.md#edit): replace an exact string in a file, or create a file.
//!
//! Reads top to bottom as its section of docs/contract.md: the input and its bounds, the checks
//! that need no file, then the flow through the host's draft (which holds the path's write lock,
//! enforces read-before-edit (docs/contract.md#read-before-edit) and the 1 MiB UTF-8 rule, and
//! refuses the commit with `file changed while edit was being prepared` when the disk changed
//! meanwhile), the replacement ([`replace::replace`]) and the one-line summary
//! ([`replace::summary`]).

mod replace;

use schemars::JsonSchema;
use serde::Deserialize;
use toolhost_sdk::{Inspection, Risk, Tool, ToolError, open_for_write, stat};

/// Input of the `edit` tool.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct EditInput {
    /// The file to edit: absolute, or relative to the working directory.
    pub file_path: String,
    /// The exact text to replace, as the file has it (whitespace and indentation included).
    /// An empty string creates a new file with newString as its content.
    pub old_string: String,
    /// The replacement text, or the whole content of a new file. At most 1 MiB.
    pub new_string: String,
    /// Replace every occurrence of oldString instead of exactly one. Default false.
    #[serde(default)]
    pub replace_all: bool,
}

/// Replaces exact text in a file.
#[derive(Default)]
pub struct Edit;

impl Tool for Edit {
    type Input = EditInput;

    fn id(&self) -> &'static str {
        "edit"
    }

    fn description(&self) -> &'static str {
        "Replace exact text in a file. `oldString` must match the file exactly, including \
         whitespace and indentation, and must occur once unless `replaceAll` is true. The file \
         must have been read with `read` first (no re-read is needed between consecutive \
         edits). An empty `oldString` creates a new file with `newString` as its content. \
         Returns one line with the lines where the new text now sits and the lines added and \
         removed."
    }

    fn risk(&self) -> Risk {
        Risk::WorkspaceMutation
    }

    fn inspect(&self, input: &EditInput) -> Inspection {
        Inspection::Writes(input.file_path.clone())
    }

    fn execute(&self, input: EditInput) -> Result<String, ToolError> {
        replace::check_new_string(&input.new_string)?;
        replace::check_strings_differ(&input.old_string, &input.new_string)?;
        let draft = open_for_write(&input.file_path)?;
        let path = draft.display_path();

        if input.old_string.is_empty() {
            // The draft cannot say whether the file exists without enforcing read-before-edit,
            // so ask `stat`: an existing file fails here with the right advice.
            if stat(&input.file_path)?.is_some() {
                return Err(ToolError::invalid_arguments(replace::file_exists_message(&path)));
            }
            if draft.current()?.is_some() {
                return Err(ToolError::invalid_arguments(replace::file_exists_message(&path)));
            }
            let committed = draft.commit(&input.new_string)?;
            return Ok(replace::summary(&path, None, &committed));
        }

        let Some(text) = draft.current()? else {
            return Err(ToolError::invalid_arguments(replace::missing_file_message(&path)));
        };
        let replaced = replace::replace(
            &text,
            &input.old_string,
            &input.new_string,
            input.replace_all,
            &path,
        )?;
        let committed = draft.commit(&replaced.text)?;
        Ok(replace::summary(&path, Some(&replaced), &committed))
    }
}

toolhost_sdk::export_tool!(Edit);

#[cfg(test)]
mod tests {
    use super::*;
    use toolhost_sdk::{input_schema, parse_input};

    #[test]
    fn camel_case_fields_and_default() {
        let input: EditInput =
            parse_input(r#"{"filePath": "a", "oldString": "x", "newString": "y"}"#).unwrap();
        assert_eq!(
            (
                input.file_path.as_str(),
                input.old_string.as_str(),
                input.new_string.as_str(),
                input.replace_all
            ),
            ("a", "x", "y", false)
        );
        let input: EditInput = parse_input(
            r#"{"filePath": "a", "oldString": "", "newString": "y", "replaceAll": true}"#,
        )
        .unwrap();
        assert!(input.replace_all);
    }

    #[test]
    fn required_and_unknown_fields() {
        assert!(parse_input::<EditInput>(r#"{"filePath": "a", "oldString": "x"}"#).is_err());
        assert!(parse_input::<EditInput>(r#"{"oldString": "x", "newString": "y"}"#).is_err());
        assert!(
            parse_input::<EditInput>(r#"{"file_path": "a", "oldString": "x", "newString": "y"}"#)
                .is_err()
        );
        assert!(
            parse_input::<EditInput>(
                r#"{"filePath": "a", "oldString": "x", "newString": "y", "fuzzy": true}"#
            )
            .is_err()
        );
    }

    #[test]
    fn schema_describes_fields_and_requires_three() {
        let schema = input_schema::<EditInput>();
        assert_eq!(schema["additionalProperties"], false);
        let required = schema["required"].as_array().unwrap();
        assert_eq!(required.len(), 3);
        for field in ["filePath", "oldString", "newString"] {
            assert!(required.iter().any(|r| r == field), "{field}");
        }
        for field in ["filePath", "oldString", "newString", "replaceAll"] {
            assert!(schema["properties"][field]["description"].is_string(), "{field}");
        }
    }

    #[test]
    fn definition_and_inspection() {
        let tool = Edit;
        assert_eq!(tool.id(), "edit");
        assert_eq!(tool.risk(), Risk::WorkspaceMutation);
        let input: EditInput =
            parse_input(r#"{"filePath": "src/a.rs", "oldString": "", "newString": "x"}"#).unwrap();
        assert!(matches!(tool.inspect(&input), Inspection::Writes(p) if p == "src/a.rs"));
    }
}
