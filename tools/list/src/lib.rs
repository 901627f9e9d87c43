//! The `list` tool (docs/contract.md#list): one level of a directory, sorted by name, paged.
//!
//! Reads top to bottom as its section of docs/contract.md: the input and its bounds, then the page
//! (sorted entries, `offset`/`limit`), then the footer.

mod page;

use schemars::JsonSchema;
use serde::Deserialize;
use toolhost_sdk::{EntryKind, Risk, Tool, ToolError, open_dir};

use page::{ListedEntry, render_page};

/// Entries per page when `limit` is not given (docs/contract.md#list; docs/limits.md, list page:
/// default 200). Keeps one page well inside the 32,000-byte result budget for typical names.
pub const DEFAULT_LIMIT: u32 = toolhost_sdk::limits::LIST_DEFAULT_LIMIT;

/// Largest accepted `limit` (docs/contract.md#list; docs/limits.md, list page: max 2000). Bounds
/// the result of one call; larger values are `invalid-arguments`, not clamped.
pub const MAX_LIMIT: u32 = toolhost_sdk::limits::LIST_MAX_LIMIT;

/// Input of the `list` tool.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ListInput {
    /// The directory to list: absolute, or relative to the working directory. Default ".".
    #[serde(default = "default_path")]
    pub path: String,
    /// 0-based index into the sorted entries where the page starts. Default 0.
    #[serde(default)]
    pub offset: u32,
    /// Entries to show, 1–2000. Default 200.
    #[serde(default = "default_limit")]
    pub limit: u32,
}

fn default_path() -> String {
    ".".to_owned()
}

fn default_limit() -> u32 {
    DEFAULT_LIMIT
}

/// Lists one level of a directory.
#[derive(Default)]
pub struct List;

impl Tool for List {
    type Input = ListInput;

    fn id(&self) -> &'static str {
        "list"
    }

    fn description(&self) -> &'static str {
        "List one level of a directory, sorted by name. Directories end with `/`; hidden \
         entries are included and .gitignore is not read. Each line is a path you can pass \
         to other tools. Use `offset` and `limit` to page through large directories."
    }

    fn risk(&self) -> Risk {
        Risk::ReadOnly
    }

    fn execute(&self, input: ListInput) -> Result<String, ToolError> {
        page::check_limit(input.limit)?;
        let dir = open_dir(&input.path)?;
        let entries = dir
            .entries()?
            .into_iter()
            .map(|e| ListedEntry { is_dir: e.kind == EntryKind::Directory, name: e.name })
            .collect();
        render_page(&dir.display_path(), entries, input.offset, input.limit)
    }
}

toolhost_sdk::export_tool!(List);

#[cfg(test)]
mod tests {
    use super::*;
    use toolhost_sdk::{input_schema, parse_input};

    #[test]
    fn defaults() {
        let input: ListInput = parse_input("{}").unwrap();
        assert_eq!((input.path.as_str(), input.offset, input.limit), (".", 0, DEFAULT_LIMIT));
    }

    #[test]
    fn unknown_and_snake_case_fields_rejected() {
        assert!(parse_input::<ListInput>(r#"{"depth": 1}"#).is_err());
        assert!(parse_input::<ListInput>(r#"{"path": ".", "Limit": 1}"#).is_err());
        assert!(parse_input::<ListInput>(r#"{"offset": -1}"#).is_err());
    }

    #[test]
    fn schema_describes_fields_and_requires_none() {
        let schema = input_schema::<ListInput>();
        assert_eq!(schema["additionalProperties"], false);
        assert!(schema.get("required").is_none_or(|r| r.as_array().unwrap().is_empty()));
        for field in ["path", "offset", "limit"] {
            assert!(schema["properties"][field]["description"].is_string(), "{field}");
        }
    }

    #[test]
    fn definition() {
        let tool = List;
        assert_eq!(tool.id(), "list");
        assert_eq!(tool.risk(), Risk::ReadOnly);
    }
}
