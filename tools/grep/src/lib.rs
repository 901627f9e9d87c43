//! The `grep` tool (seed 000 §7.6): search file contents with a Rust regex.
//!
//! Reads top to bottom as the seed section: the input and its bounds, then the loop — the
//! host walks (`.gitignore`, hidden entries, symlinks and credential paths handled there)
//! and delivers each file's contents; [`scan::Scan`] runs one `grep-searcher` `Searcher`
//! with one `grep-regex` matcher over them, counting every match, writing the full list to
//! a spill and keeping only what the result shows ([`collect`]) — then the footer
//! ([`report`]).

mod collect;
mod report;
mod scan;

use schemars::JsonSchema;
use serde::Deserialize;
use toolhost_sdk::{
    ErrorCode, File, Risk, Spill, Tool, ToolError, WalkOptions, cancelled, open_dir,
    open_file,
};

use report::End;
use scan::{Scan, Stop};

/// Matching lines returned in all (seed 000 §7.6, §9 `MAX_LINES`: 250).
pub const MAX_LINES: usize = toolhost_sdk::limits::GREP_MAX_LINES;

/// Matching lines returned per file (seed 000 §7.6, §9 `MAX_LINES_PER_FILE`: 50).
pub const MAX_LINES_PER_FILE: usize = toolhost_sdk::limits::GREP_MAX_LINES_PER_FILE;

/// Bytes of one returned line (seed 000 §7.6, §9 `MAX_LINE_BYTES`: 2000).
pub const MAX_LINE_BYTES: usize = toolhost_sdk::limits::GREP_MAX_LINE_BYTES;

/// Files listed by `files_with_matches` and `count` (seed 000 §7.6, §9 `MAX_FILES`: 250).
pub const MAX_FILES: usize = toolhost_sdk::limits::GREP_MAX_FILES;

/// A file with a longer line is skipped (seed 000 §7.6: 64 MiB).
pub const MAX_LINE_LENGTH: u64 = toolhost_sdk::limits::GREP_MAX_LINE_LENGTH;

/// Input of the `grep` tool.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct GrepInput {
    /// The regular expression to search for, in Rust regex syntax.
    pub pattern: String,
    /// The directory or file to search: absolute, or relative to the working directory.
    /// Default ".".
    #[serde(default = "default_path")]
    pub path: String,
    /// Only search files matching this glob, relative to `path` (e.g. `src/**/*.ts`).
    /// Ignored when `path` is a file.
    #[serde(default)]
    pub glob: Option<String>,
    /// `content` (matching lines, default), `files_with_matches` (paths only) or `count`
    /// (`path:count`).
    #[serde(default)]
    pub output_mode: OutputMode,
}

fn default_path() -> String {
    ".".to_owned()
}

/// What grep returns.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum OutputMode {
    /// Matching lines grouped by file.
    #[default]
    Content,
    /// The paths of files with a match.
    FilesWithMatches,
    /// `path:count` for each file with a match.
    Count,
}

/// Searches file contents.
#[derive(Default)]
pub struct Grep;

impl Tool for Grep {
    type Input = GrepInput;

    fn id(&self) -> &'static str {
        "grep"
    }

    fn description(&self) -> &'static str {
        "Search file contents with a regular expression (Rust regex syntax). Searches a \
         directory recursively (respecting .gitignore, skipping hidden and binary files) or a \
         single file. `glob` limits the files, relative to `path`. `outputMode`: `content` \
         shows matching lines grouped by file as `line:text` under each path (at most 250 \
         lines, 50 per file, 2000 bytes per line); `files_with_matches` lists paths; `count` \
         lists `path:count` (at most 250 files). Results are sorted by path; when some are \
         left out, the footer gives the exact totals and where the full list was saved."
    }

    fn risk(&self) -> Risk {
        Risk::ReadOnly
    }

    fn execute(&self, input: GrepInput) -> Result<String, ToolError> {
        let matcher = scan::matcher(&input.pattern)?;
        let control = toolhost_sdk::scan::HostControl::new();
        let mut scan = Scan::new(input.output_mode, matcher, &control, Spill::new());

        let root = match open_dir(&input.path) {
            Ok(dir) => {
                let globs = input.glob.into_iter().collect();
                let walker = dir.walk(&WalkOptions {
                    globs,
                    with_contents: true,
                })?;
                'walk: loop {
                    let batch = walker.next_batch();
                    if batch.is_empty() {
                        break;
                    }
                    // Each file's contents are freed as soon as it is searched.
                    for file in batch {
                        if !scan.file(&file.path, file.contents.as_deref()) {
                            break 'walk;
                        }
                    }
                }
                dir.display_path()
            }
            // Not a directory: search the file itself.
            // (The host says "not a directory" as invalid-arguments; any other failure of
            // `open-dir` is the answer.)
            Err(ToolError {
                code: ErrorCode::InvalidArguments,
                ..
            }) => {
                let file = open_file(&input.path)?;
                let display = file.display_path();
                scan.reader(&display, FileReader(&file));
                display
            }
            Err(e) => return Err(e),
        };

        // The host ends a walk with an empty batch when the call is cancelled, as it does at
        // the real end: ask once more so a cancelled walk is not taken for a complete one.
        if scan.stop.is_none() && cancelled() {
            scan.stop = Some(Stop::Cancelled);
        }
        let stop = scan.stop;
        if stop == Some(Stop::Cancelled) {
            return Err(ToolError::cancelled(report::CANCELLED));
        }
        let found = std::mem::take(&mut scan.found);
        let spill = scan.spill.into_target();
        // The full list is only kept when the result leaves something out (seed 000 §8.2);
        // an unfinished spill is deleted by the host when dropped.
        let spilled = if found.omits(input.output_mode) {
            spill.finish()
        } else {
            None
        };
        let end = match stop {
            Some(_) => End::TimedOut {
                timeout_ms: control.timeout_ms(),
                spilled: spilled.as_ref(),
            },
            None => End::Complete {
                spilled: spilled.as_ref(),
            },
        };
        Ok(report::render(
            &input.pattern,
            &root,
            input.output_mode,
            &found,
            end,
        ))
    }
}

toolhost_sdk::export_tool!(Grep);

/// A host file as `std::io::Read`, for streaming one file through the searcher.
struct FileReader<'a>(&'a File);

impl std::io::Read for FileReader<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let max = u32::try_from(buf.len())
            .unwrap_or(u32::MAX)
            .min(toolhost_sdk::READ_CHUNK_BYTES);
        let chunk = self
            .0
            .read(max)
            .map_err(|e| std::io::Error::other(e.message))?;
        let n = chunk.len().min(buf.len());
        buf[..n].copy_from_slice(&chunk[..n]);
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use toolhost_sdk::{input_schema, parse_input};

    #[test]
    fn defaults() {
        let input: GrepInput = parse_input(r#"{"pattern": "x"}"#).unwrap();
        assert_eq!(input.path, ".");
        assert_eq!(input.glob, None);
        assert_eq!(input.output_mode, OutputMode::Content);
    }

    #[test]
    fn modes_and_unknown_fields() {
        let input: GrepInput =
            parse_input(r#"{"pattern": "x", "outputMode": "files_with_matches", "glob": "*.rs"}"#)
                .unwrap();
        assert_eq!(input.output_mode, OutputMode::FilesWithMatches);
        assert_eq!(input.glob.as_deref(), Some("*.rs"));
        let input: GrepInput = parse_input(r#"{"pattern": "x", "outputMode": "count"}"#).unwrap();
        assert_eq!(input.output_mode, OutputMode::Count);
        assert!(parse_input::<GrepInput>(r#"{}"#).is_err());
        assert!(parse_input::<GrepInput>(r#"{"pattern": "x", "output_mode": "count"}"#).is_err());
        assert!(parse_input::<GrepInput>(r#"{"pattern": "x", "outputMode": "lines"}"#).is_err());
        assert!(parse_input::<GrepInput>(r#"{"pattern": "x", "maxResults": 5}"#).is_err());
    }

    #[test]
    fn schema_requires_only_the_pattern() {
        let schema = input_schema::<GrepInput>();
        assert_eq!(schema["additionalProperties"], false);
        assert_eq!(schema["required"], serde_json::json!(["pattern"]));
        for field in ["pattern", "path", "glob", "outputMode"] {
            assert!(schema["properties"].get(field).is_some(), "{field}");
        }
    }

    #[test]
    fn definition() {
        assert_eq!(Grep.id(), "grep");
        assert_eq!(Grep.risk(), Risk::ReadOnly);
        assert_eq!(MAX_LINES, 250);
        assert_eq!(MAX_LINES_PER_FILE, 50);
        assert_eq!(MAX_LINE_BYTES, 2000);
        assert_eq!(MAX_FILES, 250);
    }
}
