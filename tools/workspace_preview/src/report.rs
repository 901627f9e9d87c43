//! What a call returns: the structured [`Preview`] (the output schema is derived from it)
//! and the model-visible text ([`text`]), cut to `MAX_RESULT_BYTES` with the whole rendering
//! saved to a spill ([`Saver`]) when it is longer.

use schemars::JsonSchema;
use serde::Serialize;
use toolhost_sdk::Spilled;
use toolhost_sdk::limits::{FOOTER_RESERVE_BYTES, MAX_RESULT_BYTES};

use crate::failure::Failure;
use crate::truncate::head_tail;

/// The structured result of `workspace_preview`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct Preview {
    /// The preview operation that ran: `markdown`, `html` or `artifact_summary`.
    pub operation: String,
    /// Whether the preview succeeded.
    pub success: bool,
    /// One human-readable line: what was previewed and what came out (or what failed).
    pub summary: String,
    /// The preview's format: `html` (sanitized HTML from `markdown`), `text` (the summary of an
    /// `html` page) or `metadata` (`artifact_summary`'s `key: value` lines).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub format: Option<String>,
    /// The rendered or derived preview, at most `max_bytes` bytes.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub preview: Option<String>,
    /// Whether the preview was cut to `max_bytes` (its head and tail kept, a marker line
    /// between them).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub preview_truncated: Option<bool>,
    /// The size of the source in bytes.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source_bytes: Option<u64>,
    /// The source file's path, when the preview came from a workspace file.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source_path: Option<String>,
    /// On failure, the stable machine code (a `LOCAL_EXECUTOR_*` kind).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error_kind: Option<String>,
    /// On failure, whether the same call will fail again (not worth retrying unchanged).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub terminal: Option<bool>,
    /// On failure, what went wrong.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

impl Preview {
    /// A failed `operation`.
    pub fn failed(operation: &str, failure: &Failure) -> Self {
        Preview {
            operation: operation.to_owned(),
            success: false,
            summary: format!("{operation} preview failed: {}", failure.message),
            format: None,
            preview: None,
            preview_truncated: None,
            source_bytes: None,
            source_path: None,
            error_kind: Some(failure.kind.name().to_owned()),
            terminal: Some(failure.kind.terminal()),
            error: Some(failure.message.clone()),
        }
    }
}

/// Where the whole rendering goes when the text is cut: one line per call.
pub trait Saver {
    /// Append one line.
    fn line(&mut self, line: &str);
    /// Close the file: its path, or none when saving failed.
    fn finish(self) -> Option<Spilled>;
}

impl Saver for toolhost_sdk::Spill {
    fn line(&mut self, line: &str) {
        self.append(line);
    }
    fn finish(self) -> Option<Spilled> {
        toolhost_sdk::Spill::finish(&self)
    }
}

/// The whole rendering the model would read: the failure, or the summary then the preview.
pub fn rendering(p: &Preview) -> String {
    if let (Some(error), Some(kind)) = (&p.error, &p.error_kind) {
        return format!("{error} [{kind}]");
    }
    let mut out = p.summary.clone();
    if let Some(preview) = &p.preview {
        let label = match p.format.as_deref() {
            Some("html") => "Sanitized HTML",
            Some("metadata") => "Metadata",
            _ => "Preview",
        };
        let cut = if p.preview_truncated == Some(true) { ", cut to its head and tail" } else { "" };
        out.push_str(&format!("\n\n{label} ({} bytes{cut}):\n{preview}", preview.len()));
    }
    out
}

/// The model-visible text for `p`: its [`rendering`], or when that is longer than
/// [`MAX_RESULT_BYTES`], its head and tail with a line naming the spill that holds it whole
/// (`make_saver` is called only then).
pub fn text<S: Saver>(p: &Preview, make_saver: impl FnOnce() -> S) -> String {
    let whole = rendering(p);
    if whole.len() <= MAX_RESULT_BYTES {
        return whole;
    }
    let mut saver = make_saver();
    for line in whole.split('\n') {
        saver.line(line);
    }
    let saved = match saver.finish() {
        Some(s) => format!(
            "[the whole preview ({} bytes) was saved to {}{}; read it there]",
            whole.len(),
            s.path,
            if s.capped { toolhost_sdk::scan::CAPPED } else { "" }
        ),
        None => format!("[the whole preview is {} bytes; saving it failed]", whole.len()),
    };
    let cut = head_tail(&whole, MAX_RESULT_BYTES - FOOTER_RESERVE_BYTES).unwrap_or(whole);
    format!("{cut}\n{saved}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use toolhost_sdk::error_kinds::ErrorKind;

    #[derive(Default)]
    struct Lines(Vec<String>);
    impl Saver for &mut Lines {
        fn line(&mut self, line: &str) {
            self.0.push(line.to_owned());
        }
        fn finish(self) -> Option<Spilled> {
            Some(Spilled { path: "/spill/p.txt".into(), capped: false })
        }
    }

    fn ok(preview: String) -> Preview {
        Preview {
            operation: "html".into(),
            success: true,
            summary: "page.html: summary".into(),
            format: Some("text".into()),
            preview: Some(preview),
            preview_truncated: Some(false),
            source_bytes: Some(1),
            source_path: Some("page.html".into()),
            error_kind: None,
            terminal: None,
            error: None,
        }
    }

    #[test]
    fn short_text_is_whole_and_saves_nothing() {
        let mut lines = Lines::default();
        let t = text(&ok("Title: x".into()), || &mut lines);
        assert_eq!(t, "page.html: summary\n\nPreview (8 bytes):\nTitle: x");
        assert!(lines.0.is_empty());
    }

    #[test]
    fn long_text_is_cut_and_saved_line_by_line() {
        let body: String = (0..20_000).map(|i| format!("line {i}\n")).collect();
        let p = ok(body);
        let mut lines = Lines::default();
        let t = text(&p, || &mut lines);
        assert!(t.len() <= MAX_RESULT_BYTES, "{}", t.len());
        assert!(t.starts_with("page.html: summary") && t.contains("line 19999"));
        assert!(
            t.ends_with("was saved to /spill/p.txt; read it there]"),
            "{}",
            &t[t.len() - 200..]
        );
        assert_eq!(lines.0.join("\n"), rendering(&p));
    }

    #[test]
    fn a_failure_starts_with_the_error() {
        let f = Failure::new(ErrorKind::NotFound, "no file at x.md");
        let p = Preview::failed("markdown", &f);
        assert_eq!(p.error_kind.as_deref(), Some("LOCAL_EXECUTOR_NOT_FOUND"));
        assert_eq!(p.terminal, Some(true));
        let mut lines = Lines::default();
        assert_eq!(text(&p, || &mut lines), "no file at x.md [LOCAL_EXECUTOR_NOT_FOUND]");
        let v = serde_json::to_value(&p).unwrap();
        assert_eq!(v["success"], false);
        assert!(v.get("preview").is_none());
    }
}
