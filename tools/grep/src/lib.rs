//! The `grep` tool (docs/contract.md#grep): search file contents with a Rust regex.
//!
//! Reads top to bottom as its section of docs/contract.md: the input and its bounds, then the loop
//! — the host walks (`.gitignore`, hidden entries, symlinks and credential paths handled there) and
//! delivers each file's contents; [`scan::Scan`] runs one `grep-searcher` `Searcher` with one
//! `grep-regex` matcher over them, counting every match, writing the full list to a spill
//! (`spill_lines`) and keeping only what the result shows ([`collect`]); `bytes` is the byte
//! work it does per line — then the footer ([`report`]).
//!
//! The matcher finds candidate lines faster than the regex would on wasm32 (which has no
//! Teddy): [`literal`] for a pattern that is one literal, [`required`] for one that requires
//! literals (`\b(impl|struct)\s+\w+`, `(TODO|FIXME)`), scanned for with [`needles`]. The
//! regex decides every line these do not settle themselves.

mod bytes;
mod collect;
mod literal;
mod needles;
mod report;
mod required;
mod scan;
mod spill_lines;
#[cfg(test)]
mod test_support;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use toolhost_sdk::scan::HostControl;
use toolhost_sdk::{
    ErrorCode, File, Output, ParallelTool, Risk, Spill, Tool, ToolError, WalkOptions, cancelled,
    open_dir, open_file,
};

use report::{Findings, GrepEnd};
use scan::{Scan, Stop};

/// Matching lines returned in all (docs/contract.md#grep, docs/limits.md `MAX_LINES`: 250).
pub const MAX_LINES: usize = toolhost_sdk::limits::GREP_MAX_LINES;

/// Matching lines returned per file (docs/contract.md#grep, docs/limits.md `MAX_LINES_PER_FILE`:
/// 50).
pub const MAX_LINES_PER_FILE: usize = toolhost_sdk::limits::GREP_MAX_LINES_PER_FILE;

/// Bytes of one returned line (docs/contract.md#grep, docs/limits.md `MAX_LINE_BYTES`: 2000).
pub const MAX_LINE_BYTES: usize = toolhost_sdk::limits::GREP_MAX_LINE_BYTES;

/// Files listed by `files_with_matches` and `count` (docs/contract.md#grep, docs/limits.md
/// `MAX_FILES`: 250).
pub const MAX_FILES: usize = toolhost_sdk::limits::GREP_MAX_FILES;

/// A file with a longer line is skipped (docs/contract.md#grep: 64 MiB).
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
        // `cargo xtask bench tools` builds this component once more under another id, to
        // install it as a third-party tool beside the built-in grep.
        match option_env!("TOOLHOST_GREP_ID") {
            Some(id) => id,
            None => "grep",
        }
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
        let control = HostControl::new();
        let (part, spill) = scan_part(&input, 0, &control)?;
        finish(&input, part, spill, &control)
    }
}

/// One instance per part: the host runs the parts at once, their walks share one queue.
impl ParallelTool for Grep {
    type Part = Part;

    fn execute_part(&self, input: GrepInput, index: u32, _count: u32) -> Result<Part, ToolError> {
        // The part's spill stays open for `merge` (the host shares it between instances).
        scan_part(&input, index, &HostControl::new()).map(|(part, _)| part)
    }

    fn merge(&self, input: GrepInput, parts: Vec<Part>) -> Result<Output, ToolError> {
        let mut all = Part::default();
        for part in parts {
            all.found.merge(part.found);
            all.stop = match (all.stop, part.stop) {
                (Some(Stop::Cancelled), _) | (_, Some(Stop::Cancelled)) => Some(Stop::Cancelled),
                (a, b) => a.or(b),
            };
            all.root = all.root.or(part.root);
        }
        // The merge instance's first spill is the one the parts appended to.
        finish(&input, all, Spill::new(), &HostControl::new()).map(Output::from)
    }
}

/// What one part of a search (or the whole one-instance search) found.
#[derive(Debug, Default, Serialize, Deserialize)]
pub struct Part {
    found: Findings,
    stop: Option<Stop>,
    /// The searched path as the model sees it (part 0 always says it).
    root: Option<String>,
}

/// Scan part `index`: every part takes files from the shared walk (however many parts there
/// are); a `path` that names a file is searched by part 0 alone.
fn scan_part(
    input: &GrepInput,
    index: u32,
    control: &HostControl,
) -> Result<(Part, Spill), ToolError> {
    let matcher = scan::matcher(&input.pattern)?;
    let mut scan = Scan::new(input.output_mode, matcher, control, Spill::new());
    let root = match open_dir(&input.path) {
        Ok(dir) => {
            let globs = input.glob.iter().cloned().collect();
            let walker = dir.walk(&WalkOptions { globs, with_contents: true })?;
            'walk: loop {
                let batch = walker.next_batch();
                if batch.is_empty() {
                    break;
                }
                // Each file's contents are freed as soon as it is searched.
                for file in batch {
                    let go_on = match file.contents.as_deref() {
                        Some(bytes) => scan.file(&file.path, Some(bytes)),
                        // Larger than the host hands out whole (64 MiB), or unreadable:
                        // streamed if it opens (only an overlong line skips a file), else
                        // skipped.
                        None => match open_file(&file.path) {
                            Ok(opened) => scan.reader(&file.path, FileReader(&opened)),
                            Err(_) => scan.file(&file.path, None),
                        },
                    };
                    if !go_on {
                        break 'walk;
                    }
                }
            }
            Some(dir.display_path())
        }
        // Not a directory: search the file itself.
        // (The host says "not a directory" as invalid-arguments; any other failure of
        // `open-dir` is the answer.)
        Err(ToolError { code: ErrorCode::InvalidArguments, .. }) if index == 0 => {
            let file = open_file(&input.path)?;
            let display = file.display_path();
            scan.reader(&display, FileReader(&file));
            Some(display)
        }
        Err(ToolError { code: ErrorCode::InvalidArguments, .. }) => None,
        Err(e) => return Err(e),
    };
    // Whatever is still buffered goes to the spill now; `finish` closes it.
    let spill = scan.spill.into_target();
    let part = Part { found: scan.found, stop: scan.stop, root };
    Ok((part, spill))
}

/// The result text from everything found: cancelled, or the bounded list with its footer
/// (the spill is finished only when something was left out).
fn finish(
    input: &GrepInput,
    part: Part,
    spill: Spill,
    control: &HostControl,
) -> Result<String, ToolError> {
    let Part { found, mut stop, root } = part;
    // The host ends a walk with an empty batch when the call is cancelled, as it does at
    // the real end: ask once more so a cancelled walk is not taken for a complete one.
    if stop.is_none() && cancelled() {
        stop = Some(Stop::Cancelled);
    }
    if stop == Some(Stop::Cancelled) {
        return Err(ToolError::cancelled(report::CANCELLED));
    }
    // An unfinished spill is deleted by the host at the end of the call.
    let spilled = if found.omits(input.output_mode) { spill.finish() } else { None };
    let end = match stop {
        Some(_) => {
            GrepEnd::TimedOut { timeout_ms: control.timeout_ms(), spilled: spilled.as_ref() }
        }
        None => GrepEnd::Complete { spilled: spilled.as_ref() },
    };
    let root = root.unwrap_or_else(|| input.path.clone());
    Ok(report::render(&input.pattern, &root, input.output_mode, &found, end))
}

toolhost_sdk_parallel::export_parallel_tool!(Grep);

/// A host file as `std::io::Read`, for streaming one file through the searcher.
struct FileReader<'a>(&'a File);

impl std::io::Read for FileReader<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let max = u32::try_from(buf.len()).unwrap_or(u32::MAX).min(toolhost_sdk::READ_CHUNK_BYTES);
        let chunk = self.0.read(max).map_err(|e| std::io::Error::other(e.message))?;
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
