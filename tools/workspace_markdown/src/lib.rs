//! The `workspace_markdown` tool (docs/workspace-tools.md#workspace_markdown): read-only
//! analysis of one Markdown file — its outline, structural diagnostics, mechanical format
//! suggestions as `edit` replacements, and a check of its local links.
//!
//! A call flows top to bottom: [`analyze`] loads the file through a [`workspace::Workspace`]
//! (the host's fenced `stat` and `open_file`: [`workspace::HostWorkspace`]), parses it once
//! ([`document`], over [`lines`]), and runs the operation — [`outline`] (anchors by [`slug`]),
//! [`diagnose`], [`suggest`] (unique `oldString`s by [`unique`]) or [`links`] (destinations
//! by [`target`]). The result is a [`report::MarkdownReport`], the structured value; [`render`] makes
//! its text, bounded with a spill. A failure the tool detects (missing file, not UTF-8, too
//! large, a refused path) is a report with `success: false` and a `LOCAL_EXECUTOR_*`
//! `error_kind`; only cancellation is a tool error.

pub mod diagnose;
pub mod document;
pub mod lines;
pub mod links;
pub mod outline;
pub mod render;
pub mod report;
pub mod slug;
pub mod suggest;
pub mod target;
pub mod unique;
pub mod workspace;

use schemars::JsonSchema;
use serde::Deserialize;
use toolhost_sdk::error_kinds::ErrorKind;
use toolhost_sdk::limits::MAX_EDIT_FILE_BYTES;
use toolhost_sdk::{Output, Risk, Spill, Tool, ToolError, cancelled, output_schema};

use document::Document;
use report::{MAX_ENTRIES, MarkdownOperation, MarkdownReport, Severity};
use suggest::SuggestCancelled;
use workspace::Workspace;

/// The message of a cancelled call.
pub const CANCELLED: &str = toolhost_sdk::scan::CANCELLED;

/// Input of `workspace_markdown`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct MarkdownInput {
    /// What to do: `outline` (every heading with its level, 1-based line and GitHub anchor),
    /// `diagnostics` (duplicate headings, level jumps, several h1, empty headings, empty
    /// links, `#Title` missing its space, undefined and unused references),
    /// `format_suggestions` (mechanical fixes as replacements for the edit tool; nothing is
    /// written) or `link_check_local` (relative links and images must lead to existing files,
    /// and their `#anchors` to existing headings).
    pub operation: MarkdownOperation,
    /// The Markdown file, relative to the workspace root (e.g. `docs/guide.md`); absolute
    /// paths, `..` above the root and symlinks out of the workspace are refused.
    pub path: String,
}

/// Analyses one Markdown file.
#[derive(Default)]
pub struct WorkspaceMarkdown;

impl Tool for WorkspaceMarkdown {
    type Input = MarkdownInput;

    fn id(&self) -> &'static str {
        "workspace_markdown"
    }

    fn description(&self) -> &'static str {
        "Analyse one Markdown file (read-only; GitHub's dialect). `outline`: every heading \
         as an indented list with its 1-based line and the #anchor GitHub gives it. \
         `diagnostics`: duplicate headings, heading level jumps (h1 → h3), more than one h1, \
         empty headings, empty link targets `[x]()`, `#Title` missing the space after `#`, \
         undefined and unused reference links. `format_suggestions`: mechanical fixes \
         (trailing whitespace, extra blank lines, blank lines around headings, closing `#`s, \
         `#Title`) as filePath/oldString/newString replacements to pass to the edit tool as \
         they are, in order; this tool writes nothing. `link_check_local`: relative links and \
         images must lead to files or directories that exist, and `#anchors` to headings of \
         this file or of the Markdown file linked; external links are not fetched. Files of \
         at most 2 MiB."
    }

    fn risk(&self) -> Risk {
        Risk::ReadOnly
    }

    fn output_schema(&self) -> Option<serde_json::Value> {
        Some(output_schema::<MarkdownReport>())
    }

    fn execute(&self, input: MarkdownInput) -> Result<String, ToolError> {
        self.run(input).map(|o| o.text)
    }

    fn run(&self, input: MarkdownInput) -> Result<Output, ToolError> {
        let mut report = analyze(&input, &mut workspace::HostWorkspace, &cancelled)
            .map_err(|SuggestCancelled| ToolError::cancelled(CANCELLED))?;
        let text = render::bound(&render::render(&report), &mut SpillSave);
        report.fit();
        Output::structured(text, &report)
    }
}

toolhost_sdk::export_tool!(WorkspaceMarkdown);

/// Saves a cut rendering to this call's spill file.
struct SpillSave;

impl render::Save for SpillSave {
    fn save(&mut self, lines: &[String]) -> Option<(String, bool)> {
        let spill = Spill::new();
        for line in lines {
            spill.append(line);
        }
        spill.finish().map(|s| (s.path, s.capped))
    }
}

/// Run `input`'s operation on the file it names; `cancelled` is asked between steps.
pub fn analyze(
    input: &MarkdownInput,
    ws: &mut dyn Workspace,
    cancelled: &dyn Fn() -> bool,
) -> Result<MarkdownReport, SuggestCancelled> {
    let op = input.operation;
    let loaded = match ws.load(&input.path) {
        Ok(loaded) => loaded,
        Err(f) if f.kind == ErrorKind::Cancelled => return Err(SuggestCancelled),
        // The host holds `path` to the workspace; its refusal names the field.
        Err(f) if f.kind == ErrorKind::PathDenied => {
            let message = format!("`path`: {}", f.message);
            return Ok(MarkdownReport::failed(op, &input.path, f.kind, message));
        }
        Err(f) => return Ok(MarkdownReport::failed(op, &input.path, f.kind, f.message)),
    };
    if cancelled() {
        return Err(SuggestCancelled);
    }
    let path = loaded.display_path.as_str();
    let doc = Document::parse(&loaded.text);
    let mut report = MarkdownReport::ok(op, path, String::new());
    match op {
        MarkdownOperation::Outline => {
            let mut entries = outline::outline(&doc);
            report.summary = match entries.len() {
                0 => format!("No headings in {path}"),
                n => format!("{} in {path}{}", plural(n, "heading"), capped(n)),
            };
            entries.truncate(MAX_ENTRIES);
            report.outline = Some(entries);
        }
        MarkdownOperation::Diagnostics => {
            let mut found = diagnose::diagnose(&doc);
            report.summary = match found.len() {
                0 => format!("No findings in {path}"),
                n => format!(
                    "{} in {path} ({}){}",
                    plural(n, "finding"),
                    by_severity(&found),
                    capped(n)
                ),
            };
            found.truncate(MAX_ENTRIES);
            report.diagnostics = Some(found);
        }
        MarkdownOperation::FormatSuggestions => {
            let s = suggest::suggest(&doc, path, cancelled)?;
            report.summary = suggestions_summary(&s, path, loaded.text.len());
            report.suggested_edits = Some(s.edits);
        }
        MarkdownOperation::LinkCheckLocal => {
            let mut c =
                links::check_links(&doc, path, ws, cancelled).map_err(|_| SuggestCancelled)?;
            let mut parts =
                vec![plural(c.broken, "broken link"), plural(c.missing_anchors, "missing anchor")];
            if c.unchecked > 0 {
                parts.push(format!("{} not checked", c.unchecked));
            }
            let n = c.diagnostics.len();
            report.summary = format!(
                "Checked {} in {path}: {}; {} not checked{}",
                plural(c.checked, "local link"),
                parts.join(", "),
                plural(c.external, "external link"),
                capped(n)
            );
            c.diagnostics.truncate(MAX_ENTRIES);
            report.diagnostics = Some(c.diagnostics);
        }
    }
    Ok(report)
}

fn suggestions_summary(s: &suggest::Suggestions, path: &str, size: usize) -> String {
    let mut summary = match s.edits.len() {
        0 if s.found == 0 => format!("No mechanical fixes for {path}"),
        n => format!(
            "{} for {path} (nothing was written; pass each to the edit tool as it is, in order)",
            plural(n, "suggested edit")
        ),
    };
    let tried = s.covered + s.not_unique;
    if s.not_unique > 0 {
        summary.push_str(&format!(
            "; {} left out: their lines repeat elsewhere, so no oldString is unique",
            plural(s.not_unique, "fix")
        ));
    }
    if s.budget_spent {
        summary.push_str(&format!(
            "; stopped after {tried} of {} groups of lines: proving more of them unique in a file this large costs too much — apply these and call again",
            s.found
        ));
    } else if tried < s.found {
        summary.push_str(&format!("; the first {MAX_ENTRIES} of {} are listed", s.found));
    }
    if size > MAX_EDIT_FILE_BYTES && !s.edits.is_empty() {
        summary.push_str(&format!(
            "; note: the edit tool takes files of at most {MAX_EDIT_FILE_BYTES} bytes and this one is {size}"
        ));
    }
    summary
}

/// `1 heading`, `2 headings`.
fn plural(n: usize, noun: &str) -> String {
    match (n, noun.strip_suffix('x')) {
        (1, _) => format!("1 {noun}"),
        (_, Some(_)) => format!("{n} {noun}es"),
        _ => format!("{n} {noun}s"),
    }
}

/// The note of a list longer than [`MAX_ENTRIES`].
fn capped(n: usize) -> String {
    if n > MAX_ENTRIES { format!("; the first {MAX_ENTRIES} are listed") } else { String::new() }
}

/// `1 error, 2 warnings, 1 info`, leaving out zeros.
fn by_severity(found: &[report::Diagnostic]) -> String {
    let count = |s: Severity| found.iter().filter(|d| d.severity == s).count();
    let (e, w, i) = (count(Severity::Error), count(Severity::Warning), count(Severity::Info));
    let mut parts = Vec::new();
    if e > 0 {
        parts.push(plural(e, "error"));
    }
    if w > 0 {
        parts.push(plural(w, "warning"));
    }
    if i > 0 {
        parts.push(format!("{i} info"));
    }
    parts.join(", ")
}

#[cfg(test)]
mod corpus_tests;
#[cfg(test)]
mod test_support;
#[cfg(test)]
mod tests;
