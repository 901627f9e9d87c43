//! The structured result (the output schema is derived from [`MarkdownReport`]) and its bound: each
//! list holds at most [`MAX_ENTRIES`] entries, and the whole value stays under
//! `MAX_STRUCTURED_BYTES` of JSON ([`MarkdownReport::fit`]).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use toolhost_sdk::error_kinds::ErrorKind;
use toolhost_sdk::limits::MAX_STRUCTURED_BYTES;

/// Most entries of one list (outline, diagnostics, suggested edits); the summary says when
/// more were found.
pub const MAX_ENTRIES: usize = 5_000;

/// Bytes of JSON kept free under `MAX_STRUCTURED_BYTES` for the summary's note and the
/// fields around the lists.
const STRUCTURED_RESERVE_BYTES: usize = 4 * 1024;

/// The operations.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
#[schemars(rename = "Operation")]
pub enum MarkdownOperation {
    /// The heading tree: level, text, 1-based line and GitHub anchor of every heading.
    Outline,
    /// Structural problems: duplicate headings, level jumps, several h1, empty headings,
    /// empty link targets, `#Title` without a space, undefined and unused references.
    Diagnostics,
    /// Mechanical fixes as replacements the `edit` tool accepts; nothing is written.
    FormatSuggestions,
    /// Relative links and images: the target must exist, and a `#fragment` must be a heading
    /// anchor of the target Markdown file (or of this file).
    LinkCheckLocal,
}

impl MarkdownOperation {
    /// The name, as in the input.
    pub fn name(self) -> &'static str {
        match self {
            MarkdownOperation::Outline => "outline",
            MarkdownOperation::Diagnostics => "diagnostics",
            MarkdownOperation::FormatSuggestions => "format_suggestions",
            MarkdownOperation::LinkCheckLocal => "link_check_local",
        }
    }
}

/// One heading of the outline.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct OutlineEntry {
    /// Heading level, 1–6.
    #[schemars(range(min = 1, max = 6))]
    pub level: u8,
    /// The heading's plain text.
    pub text: String,
    /// 1-based line where the heading starts.
    #[schemars(range(min = 1))]
    pub line: usize,
    /// The anchor GitHub gives the heading (without `#`), unique in the file.
    pub anchor: String,
}

/// How serious a diagnostic is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Severity {
    /// Broken: a link that leads nowhere.
    Error,
    /// Most likely a mistake.
    Warning,
    /// Worth knowing; often intended.
    Info,
}

/// What a diagnostic is about (a stable name).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum DiagnosticKind {
    /// A heading with the same level and text, or the same anchor, as an earlier one.
    DuplicateHeading,
    /// A heading more than one level deeper than the one before (h1 → h3).
    HeadingLevelJump,
    /// A second (or later) level-1 heading.
    MultipleH1,
    /// A heading without text.
    EmptyHeading,
    /// A link or image with an empty destination, `[x]()`.
    EmptyLink,
    /// `#Title`: a paragraph that looks like a heading missing the space after `#`.
    MissingHeadingSpace,
    /// `[text][label]` or `[label][]` whose label has no definition.
    UndefinedReference,
    /// A reference definition no link uses.
    UnusedReference,
    /// A relative link or image whose target does not exist.
    BrokenLink,
    /// A `#fragment` that is no anchor of its target Markdown file.
    MissingAnchor,
    /// A link that could not be checked (refused by the host, a target too large, too many
    /// files).
    UncheckedLink,
}

impl DiagnosticKind {
    /// The stable name.
    pub fn name(self) -> &'static str {
        match self {
            DiagnosticKind::DuplicateHeading => "duplicate_heading",
            DiagnosticKind::HeadingLevelJump => "heading_level_jump",
            DiagnosticKind::MultipleH1 => "multiple_h1",
            DiagnosticKind::EmptyHeading => "empty_heading",
            DiagnosticKind::EmptyLink => "empty_link",
            DiagnosticKind::MissingHeadingSpace => "missing_heading_space",
            DiagnosticKind::UndefinedReference => "undefined_reference",
            DiagnosticKind::UnusedReference => "unused_reference",
            DiagnosticKind::BrokenLink => "broken_link",
            DiagnosticKind::MissingAnchor => "missing_anchor",
            DiagnosticKind::UncheckedLink => "unchecked_link",
        }
    }
}

/// One finding.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct Diagnostic {
    /// What it is about.
    pub kind: DiagnosticKind,
    /// How serious it is.
    pub severity: Severity,
    /// 1-based line.
    #[schemars(range(min = 1))]
    pub line: usize,
    /// What is wrong, for a reader.
    pub message: String,
    /// The link destination, for link diagnostics.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub target: Option<String>,
}

/// One replacement the `edit` tool accepts as it is.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct SuggestedEdit {
    /// The file to edit (the analysed file).
    pub file_path: String,
    /// Text that occurs exactly once in the file.
    pub old_string: String,
    /// What replaces it.
    pub new_string: String,
    /// 1-based first line the edit changes.
    #[schemars(range(min = 1))]
    pub line: usize,
    /// What the edit fixes.
    pub reason: String,
}

/// The structured result of a call.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct MarkdownReport {
    /// The operation run.
    pub operation: MarkdownOperation,
    /// The Markdown file analysed (relative to the workspace when inside it).
    pub path: String,
    /// Whether the analysis ran; findings do not make it fail.
    pub success: bool,
    /// One line for a reader.
    pub summary: String,
    /// `outline`: every heading in document order.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub outline: Option<Vec<OutlineEntry>>,
    /// `diagnostics` and `link_check_local`: the findings, by line.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub diagnostics: Option<Vec<Diagnostic>>,
    /// `format_suggestions`: edits in file order, touching disjoint lines; apply them in
    /// order. This tool writes nothing.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub suggested_edits: Option<Vec<SuggestedEdit>>,
    /// On failure: a `LOCAL_EXECUTOR_*` name.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(regex(pattern = r"^LOCAL_EXECUTOR_[A-Z_]+$"))]
    pub error_kind: Option<String>,
    /// On failure: whether the same call will fail the same way again.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub terminal: Option<bool>,
    /// On failure: what went wrong.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

impl MarkdownReport {
    /// A successful report with no list yet.
    pub fn ok(operation: MarkdownOperation, path: &str, summary: String) -> Self {
        MarkdownReport {
            operation,
            path: path.to_owned(),
            success: true,
            summary,
            outline: None,
            diagnostics: None,
            suggested_edits: None,
            error_kind: None,
            terminal: None,
            error: None,
        }
    }

    /// A failed call of `kind`.
    pub fn failed(
        operation: MarkdownOperation,
        path: &str,
        kind: ErrorKind,
        message: String,
    ) -> Self {
        MarkdownReport {
            success: false,
            error_kind: Some(kind.name().to_owned()),
            terminal: Some(kind.terminal()),
            error: Some(message.clone()),
            ..MarkdownReport::ok(operation, path, message)
        }
    }

    /// Bound the value to `MAX_STRUCTURED_BYTES` of JSON: halve the list until it fits,
    /// and say so in the summary. Returns how many entries were dropped.
    pub fn fit(&mut self) -> usize {
        let budget = MAX_STRUCTURED_BYTES.saturating_sub(STRUCTURED_RESERVE_BYTES);
        let total = self.entries();
        while self.entries() > 0 && json_len(self) > budget {
            let keep = self.entries() / 2;
            self.truncate(keep);
        }
        let dropped = total - self.entries();
        if dropped > 0 {
            self.summary.push_str(&format!(
                " (the structured list keeps the first {} of {total}; the text, or the file it names, has them all)",
                self.entries()
            ));
        }
        dropped
    }

    fn entries(&self) -> usize {
        self.outline.as_ref().map_or(0, Vec::len)
            + self.diagnostics.as_ref().map_or(0, Vec::len)
            + self.suggested_edits.as_ref().map_or(0, Vec::len)
    }

    fn truncate(&mut self, keep: usize) {
        if let Some(v) = self.outline.as_mut() {
            v.truncate(keep);
        }
        if let Some(v) = self.diagnostics.as_mut() {
            v.truncate(keep);
        }
        if let Some(v) = self.suggested_edits.as_mut() {
            v.truncate(keep);
        }
    }
}

/// Bytes of `value` as JSON.
pub fn json_len<T: Serialize>(value: &T) -> usize {
    serde_json::to_vec(value).map_or(usize::MAX, |v| v.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn failure_carries_kind_and_terminal() {
        let r = MarkdownReport::failed(
            MarkdownOperation::Outline,
            "a.md",
            ErrorKind::NotFound,
            "a.md does not exist".into(),
        );
        let v = serde_json::to_value(&r).unwrap();
        assert_eq!(v["success"], false);
        assert_eq!(v["error_kind"], "LOCAL_EXECUTOR_NOT_FOUND");
        assert_eq!(v["terminal"], true);
        assert_eq!(v["operation"], "outline");
        assert!(v.get("outline").is_none());
    }

    #[test]
    fn fit_halves_a_list_that_is_too_large() {
        let mut r = MarkdownReport::ok(MarkdownOperation::Outline, "a.md", "n headings".into());
        let entry = OutlineEntry { level: 1, text: "x".repeat(1000), line: 1, anchor: "x".into() };
        let n = MAX_STRUCTURED_BYTES / 500;
        r.outline = Some(vec![entry; n]);
        let dropped = r.fit();
        assert!(dropped > 0);
        assert!(json_len(&r) <= MAX_STRUCTURED_BYTES);
        assert!(r.summary.contains(&format!("of {n}")), "{}", r.summary);
        let mut small = MarkdownReport::ok(MarkdownOperation::Outline, "a.md", "1 heading".into());
        small.outline = Some(vec![]);
        assert_eq!(small.fit(), 0);
        assert_eq!(small.summary, "1 heading");
    }
}
