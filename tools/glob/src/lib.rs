//! The `glob` tool (docs/contract.md#glob): find files by glob pattern, newest first.
//!
//! Reads top to bottom as its section of docs/contract.md: the input and its bound, then the loop —
//! the host walks below `path` with the pattern as its only glob (`.gitignore`, hidden entries,
//! symlinks and credential paths handled there; files only) and [`scan::scan`] counts every match,
//! writes the full list to a spill in traversal order and keeps the newest in a heap of capacity
//! [`MAX_RESULTS`] ([`newest`]) — then the footer ([`report`]).

mod newest;
mod report;
mod scan;

use schemars::JsonSchema;
use serde::Deserialize;
use toolhost_sdk::{Risk, Spill, Tool, ToolError, WalkOptions, cancelled, open_dir};

use newest::NewestEntry;
use report::GlobEnd;
use scan::Stop;

/// Files returned (docs/contract.md#glob, docs/limits.md `MAX_RESULTS`: 100).
pub const MAX_RESULTS: usize = toolhost_sdk::limits::GLOB_MAX_RESULTS;

/// Input of the `glob` tool.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct GlobInput {
    /// The glob to match files against, relative to `path`, e.g. `**/*.rs` or `src/*.ts`.
    pub pattern: String,
    /// The directory to search: absolute, or relative to the working directory. Default ".".
    #[serde(default = "default_path")]
    pub path: String,
}

fn default_path() -> String {
    ".".to_owned()
}

/// Finds files by glob pattern.
#[derive(Default)]
pub struct Glob;

impl Tool for Glob {
    type Input = GlobInput;

    fn id(&self) -> &'static str {
        "glob"
    }

    fn description(&self) -> &'static str {
        "Find files whose path matches a glob pattern (e.g. `**/*.rs`, `src/**/*.test.ts`), \
         relative to `path`. Searches recursively, respecting .gitignore and skipping hidden \
         files; matches files only, not directories. Returns at most 100 paths, the most \
         recently modified first; when more match, the footer gives the exact total and where \
         the full list was saved."
    }

    fn risk(&self) -> Risk {
        Risk::ReadOnly
    }

    fn execute(&self, input: GlobInput) -> Result<String, ToolError> {
        let control = toolhost_sdk::scan::HostControl::new();
        let mut spill = Spill::new();
        let dir = open_dir(&input.path)?;
        let walker =
            dir.walk(&WalkOptions { globs: vec![input.pattern.clone()], with_contents: false })?;
        let next_batch = || {
            walker
                .next_batch()
                .into_iter()
                .map(|f| NewestEntry { path: f.path, modified_ms: f.modified_ms })
                .collect()
        };
        let mut scanned = scan::scan(next_batch, &control, &mut spill);
        // The host ends a walk with an empty batch when the call is cancelled, as it does at
        // the real end: ask once more so a cancelled walk is not taken for a complete one.
        if scanned.stop.is_none() && cancelled() {
            scanned.stop = Some(Stop::Cancelled);
        }
        if scanned.stop == Some(Stop::Cancelled) {
            return Err(ToolError::cancelled(report::CANCELLED));
        }
        let kept = scanned.newest.into_sorted();
        // The full list is only kept when the result leaves something out
        // (docs/contract.md#spill-files); an unfinished spill is deleted by the host when dropped.
        let spilled = if (kept.len() as u64) < scanned.total { spill.finish() } else { None };
        let end = match scanned.stop {
            Some(_) => {
                GlobEnd::TimedOut { timeout_ms: control.timeout_ms(), spilled: spilled.as_ref() }
            }
            None => GlobEnd::Complete { spilled: spilled.as_ref() },
        };
        Ok(report::render(&input.pattern, &dir.display_path(), &kept, scanned.total, end))
    }
}

toolhost_sdk::export_tool!(Glob);

#[cfg(test)]
mod tests {
    use super::*;
    use toolhost_sdk::{input_schema, parse_input};

    #[test]
    fn defaults_and_unknown_fields() {
        let input: GlobInput = parse_input(r#"{"pattern": "*.rs"}"#).unwrap();
        assert_eq!((input.pattern.as_str(), input.path.as_str()), ("*.rs", "."));
        assert!(parse_input::<GlobInput>(r#"{}"#).is_err());
        assert!(parse_input::<GlobInput>(r#"{"pattern": "*", "limit": 5}"#).is_err());
    }

    #[test]
    fn schema_requires_only_the_pattern() {
        let schema = input_schema::<GlobInput>();
        assert_eq!(schema["additionalProperties"], false);
        assert_eq!(schema["required"], serde_json::json!(["pattern"]));
        assert!(schema["properties"]["path"]["description"].is_string());
    }

    #[test]
    fn definition() {
        assert_eq!(Glob.id(), "glob");
        assert_eq!(Glob.risk(), Risk::ReadOnly);
        assert_eq!(MAX_RESULTS, 100);
    }
}
