//! The `workspace_preview` tool (docs/workspace-tools.md#workspace_preview): a bounded, safe
//! preview of one source — Markdown rendered to sanitized HTML, an HTML page summarised as
//! text, or a file's metadata. Read-only: it reads through the host's fenced `stat` and
//! `open-file` and writes nothing.
//!
//! A call flows top to bottom through [`preview`]: the [`PreviewInput`] is checked
//! ([`check`]); the source is taken from a file or inline ([`source`], behind the [`HostSource`]
//! trait so everything runs natively in tests); the operation renders it —
//! [`markdown`] (pulldown-cmark, a cost check of its HTML in [`nesting`], then [`sanitize`]), [`outline`] (html5ever's tokenizer) or
//! [`artifact`] (`stat`, [`sniff`], [`clock`]); [`truncate`] keeps the preview within
//! `max_bytes`; [`report`] builds the structured [`Preview`] and the model's text. A failure
//! the tool detects is a [`Failure`] ([`failure`]) reported as `success: false` with its
//! `LOCAL_EXECUTOR_*` kind; cancellation ends the call with the SDK's cancelled error.

mod artifact;
mod clock;
mod failure;
mod markdown;
mod nesting;
mod outline;
mod report;
mod sanitize;
mod sniff;
mod source;
mod truncate;

use schemars::JsonSchema;
use serde::Deserialize;
use toolhost_sdk::error_kinds::ErrorKind;
use toolhost_sdk::limits::PREVIEW_MAX_BYTES;
use toolhost_sdk::{Output, Risk, Spill, Tool, ToolError, output_schema};

pub use failure::Failure;
use failure::Halt;
pub use report::Preview;
pub use source::HostSource;
use source::{SdkHost, cancelled_error};

/// Largest structured value, as JSON text (the host withholds a larger one): a preview whose
/// JSON escapes would pass it is cut shorter than `max_bytes`.
pub const MAX_STRUCTURED_JSON_BYTES: usize = toolhost_sdk::limits::MAX_STRUCTURED_BYTES;

/// Input of the `workspace_preview` tool.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PreviewInput {
    /// What to preview: `markdown` renders Markdown (CommonMark with GitHub tables, task
    /// lists, strikethrough and footnotes) to sanitized HTML; `html` summarises an HTML page as
    /// text (title, heading outline, link targets, visible text); `artifact_summary` reports a
    /// file's metadata (size, modification time, format from its magic bytes, image
    /// dimensions, or line counts and language for text).
    pub operation: PreviewOperation,
    /// The source file, relative to the workspace root (e.g. `README.md`, `docs/index.html`;
    /// absolute paths, `..` above the root and symlinks out of the workspace are refused).
    /// Preferred over `content` when both are given; required for `artifact_summary`.
    #[serde(default)]
    pub path: Option<String>,
    /// Inline source text, for Markdown or HTML that is not in a workspace file. Ignored when
    /// `path` is given.
    #[serde(default)]
    pub content: Option<String>,
    /// Most bytes of preview to return, 1 to 524288 (the default). A longer preview keeps its
    /// head and tail with a marker line between them.
    // No `minimum`/`maximum` in the schema: the tool refuses a value out of range itself,
    // as a structured `LOCAL_EXECUTOR_INVALID_INPUT` that names the range.
    #[serde(default)]
    pub max_bytes: Option<i64>,
}

/// The preview operations.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
#[schemars(rename = "Operation")]
pub enum PreviewOperation {
    /// Markdown to sanitized HTML.
    Markdown,
    /// An HTML page to a text summary.
    Html,
    /// A file's metadata.
    ArtifactSummary,
}

impl PreviewOperation {
    /// The name in the input and the result.
    pub fn name(self) -> &'static str {
        match self {
            PreviewOperation::Markdown => "markdown",
            PreviewOperation::Html => "html",
            PreviewOperation::ArtifactSummary => "artifact_summary",
        }
    }
}

/// The input, checked: the source to read and the preview's byte bound.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CheckedPreview {
    /// The file, when given.
    pub path: Option<String>,
    /// Inline content, when no path is given.
    pub content: Option<String>,
    /// The preview's byte bound.
    pub max_bytes: usize,
}

/// The input's fields checked together; a refusal is `LOCAL_EXECUTOR_INVALID_INPUT`.
pub fn check(input: &PreviewInput) -> Result<CheckedPreview, Failure> {
    let invalid = |m: String| Failure::new(ErrorKind::InvalidInput, m);
    let max_bytes = match input.max_bytes {
        None => PREVIEW_MAX_BYTES,
        Some(n) if n >= 1 && n as u64 <= PREVIEW_MAX_BYTES as u64 => n as usize,
        Some(n) => {
            return Err(invalid(format!(
                "max_bytes must be between 1 and {PREVIEW_MAX_BYTES}, not {n}"
            )));
        }
    };
    if input.path.as_deref().is_some_and(|p| p.trim().is_empty()) {
        return Err(invalid("path is empty; give a file relative to the workspace root".into()));
    }
    if input.operation == PreviewOperation::ArtifactSummary && input.path.is_none() {
        return Err(invalid("artifact_summary needs path: a file in the workspace".into()));
    }
    if input.path.is_none() && input.content.is_none() {
        return Err(invalid(format!(
            "{} needs path (a workspace file) or content (inline text)",
            input.operation.name()
        )));
    }
    let content = if input.path.is_some() { None } else { input.content.clone() };
    Ok(CheckedPreview { path: input.path.clone(), content, max_bytes })
}

/// A successful preview's parts, before the byte bound.
struct Rendered {
    summary: String,
    format: &'static str,
    preview: String,
    bytes: u64,
    path: Option<String>,
}

fn render<H: HostSource>(
    host: &H,
    op: PreviewOperation,
    checked: &CheckedPreview,
) -> Result<Rendered, Halt> {
    if op == PreviewOperation::ArtifactSummary {
        let path = checked.path.as_deref().unwrap_or_default();
        let a = artifact::summarize(host, path)?;
        return Ok(Rendered {
            summary: a.summary,
            format: "metadata",
            preview: a.preview,
            bytes: a.bytes,
            path: Some(a.path),
        });
    }
    let format = if op == PreviewOperation::Markdown { "Markdown" } else { "HTML" };
    let src =
        source::load_text(host, checked.path.as_deref(), checked.content.as_deref(), op.name())?;
    if host.cancelled() {
        return Err(cancelled_error());
    }
    let name = src.path.clone().unwrap_or_else(|| "content".to_owned());
    let (summary, fmt, preview) = if op == PreviewOperation::Markdown {
        let r = markdown::render(&src.text)?;
        let first = r.first_heading.map(|h| format!(", first heading \"{h}\"")).unwrap_or_default();
        let summary = format!(
            "{name}: {format} ({} bytes) rendered to sanitized HTML ({} bytes): {} headings, {} \
             links and images{first}",
            src.bytes,
            r.html.len(),
            r.headings,
            r.links
        );
        (summary, "html", r.html)
    } else {
        let s = outline::summarize(&src.text);
        let title = s.title.as_ref().map(|t| format!(" \"{t}\"")).unwrap_or_default();
        let summary = format!(
            "{name}: {format} page{title} ({} bytes): {} headings, {} links, {} bytes of visible text",
            src.bytes,
            s.heading_count,
            s.link_count,
            s.text.len()
        );
        (summary, "text", s.render())
    };
    Ok(Rendered { summary, format: fmt, preview, bytes: src.bytes, path: src.path })
}

/// `preview` cut to `max` bytes as its format needs: HTML stays well-formed and sanitized.
fn bound(format: &str, preview: &str, max: usize) -> Option<String> {
    if format == "html" {
        truncate::html_head_tail(preview, max)
    } else {
        truncate::head_tail(preview, max)
    }
}

/// Run one call against `host`: the structured result, or the error that ends the call.
pub fn preview<H: HostSource>(host: &H, input: &PreviewInput) -> Result<Preview, ToolError> {
    let op = input.operation.name();
    let checked = match check(input) {
        Ok(c) => c,
        Err(f) => return Ok(Preview::failed(op, &f)),
    };
    let r = match render(host, input.operation, &checked) {
        Ok(r) => r,
        // The only path the tool hands the host is `path`: a refusal names the field.
        Err(Halt::Failed(f)) if f.kind == ErrorKind::PathDenied => {
            let named = Failure::new(f.kind, format!("`path`: {}", f.message));
            return Ok(Preview::failed(op, &named));
        }
        Err(Halt::Failed(f)) => return Ok(Preview::failed(op, &f)),
        Err(Halt::Error(e)) => return Err(e),
    };
    let mut max = checked.max_bytes;
    loop {
        let cut = bound(r.format, &r.preview, max);
        let truncated = cut.is_some();
        let shown = cut.unwrap_or_else(|| r.preview.clone());
        let summary = if truncated {
            format!("{}; preview cut to {} of {} bytes", r.summary, shown.len(), r.preview.len())
        } else {
            r.summary.clone()
        };
        let p = Preview {
            operation: op.to_owned(),
            success: true,
            summary,
            format: Some(r.format.to_owned()),
            preview: Some(shown),
            preview_truncated: Some(truncated),
            source_bytes: Some(r.bytes),
            source_path: r.path.clone(),
            error_kind: None,
            terminal: None,
            error: None,
        };
        let json = serde_json::to_string(&p).map(|j| j.len()).unwrap_or(usize::MAX);
        if json <= MAX_STRUCTURED_JSON_BYTES || max <= 1024 {
            return Ok(p);
        }
        // Escapes made the JSON longer than the preview: cut the preview by the excess.
        max = max.saturating_sub(json - MAX_STRUCTURED_JSON_BYTES + 1024).max(1024);
    }
}

/// Previews Markdown, HTML and files, read-only.
#[derive(Default)]
pub struct WorkspacePreview;

impl Tool for WorkspacePreview {
    type Input = PreviewInput;

    fn id(&self) -> &'static str {
        "workspace_preview"
    }

    fn description(&self) -> &'static str {
        "Render a bounded, safe preview of one source, read-only. `markdown`: Markdown \
         (GitHub flavour) to sanitized HTML — no scripts, styles, iframes, forms or event \
         handlers, links only http/https/mailto/relative. `html`: an HTML page to a text \
         summary (title, heading outline, links, visible text). `artifact_summary`: a file's \
         metadata (size, modified time, format from its magic bytes, image dimensions, or line \
         count and language for text). Give `path` (relative to the workspace root) or, for \
         markdown/html, inline `content`. The preview is at most `max_bytes` (default 524288): \
         a longer one keeps its head and tail. To keep the output, write it with a file tool."
    }

    fn risk(&self) -> Risk {
        Risk::ReadOnly
    }

    fn output_schema(&self) -> Option<serde_json::Value> {
        Some(output_schema::<Preview>())
    }

    fn execute(&self, input: PreviewInput) -> Result<String, ToolError> {
        self.run(input).map(|o| o.text)
    }

    fn run(&self, input: PreviewInput) -> Result<Output, ToolError> {
        let p = preview(&SdkHost, &input)?;
        let text = report::text(&p, Spill::new);
        Output::structured(text, &p)
    }
}

toolhost_sdk::export_tool!(WorkspacePreview);

#[cfg(test)]
mod attacks;
#[cfg(test)]
mod tests;
