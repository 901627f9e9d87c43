//! The text the model reads: the same result as the structured value, as lines. The summary
//! first; the outline as an indented list (`- text (line N) #anchor`); diagnostics as
//! `LINE: kind: message`; edits as `LINE: reason` with the old and new text as JSON strings.
//!
//! At most `MAX_RESULT_BYTES`: a longer rendering keeps its head and tail, and the whole of
//! it goes to a spill file (one line per append) whose path the middle line names.

use toolhost_sdk::limits::{FOOTER_RESERVE_BYTES, MAX_RESULT_BYTES};

use crate::report::MarkdownReport;

/// Every line of the rendering of `report`.
pub fn render(report: &MarkdownReport) -> Vec<String> {
    let mut lines = vec![report.summary.clone()];
    if let Some(error) = &report.error {
        lines[0] = error.clone();
        return lines;
    }
    for e in report.outline.iter().flatten() {
        let indent = "  ".repeat(usize::from(e.level.saturating_sub(1)));
        lines.push(format!("{indent}- {} (line {}) #{}", one_line(&e.text), e.line, e.anchor));
    }
    for d in report.diagnostics.iter().flatten() {
        lines.push(format!("{}: {}: {}", d.line, d.kind.name(), one_line(&d.message)));
    }
    for e in report.suggested_edits.iter().flatten() {
        lines.push(format!("{}: {}", e.line, e.reason));
        lines.push(format!("  old: {}", json(&e.old_string)));
        lines.push(format!("  new: {}", json(&e.new_string)));
    }
    lines
}

fn one_line(s: &str) -> String {
    s.replace(['\n', '\r'], " ")
}

fn json(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_default()
}

/// Where the whole rendering is saved when it is cut: every line appended in order, then
/// the path (and whether the spill cap cut it), or none when saving failed.
pub trait Save {
    /// Save `lines`.
    fn save(&mut self, lines: &[String]) -> Option<(String, bool)>;
}

/// `lines` joined, within `MAX_RESULT_BYTES`: when longer, the first lines up to half the
/// budget, a line saying what was left out and where everything is, and the last lines that
/// fit the rest.
pub fn bound(lines: &[String], save: &mut dyn Save) -> String {
    let whole: usize = lines.iter().map(|l| l.len() + 1).sum::<usize>().saturating_sub(1);
    if whole <= MAX_RESULT_BYTES {
        return lines.join("\n");
    }
    let budget = MAX_RESULT_BYTES - FOOTER_RESERVE_BYTES;
    let mut head = 0;
    let mut used = 0;
    while head < lines.len() && used + lines[head].len() < budget / 2 {
        used += lines[head].len() + 1;
        head += 1;
    }
    // The summary always stays, cut if it must be.
    if head == 0 {
        head = 1;
        used = lines[0].len().min(budget / 2) + 1;
    }
    let mut tail = lines.len();
    while tail > head && used + lines[tail - 1].len() < budget {
        used += lines[tail - 1].len() + 1;
        tail -= 1;
    }
    let omitted = tail - head;
    let saved = match save.save(lines) {
        Some((path, capped)) => format!(
            "; the whole result ({} lines) is saved at {path}{} — read it with offset/limit, or grep it",
            lines.len(),
            if capped { " (only the first 64 MB were saved)" } else { "" }
        ),
        None => String::new(),
    };
    let mut out: Vec<String> = lines[..head].iter().map(|l| cut(l, budget / 2)).collect();
    out.push(format!("[... {omitted} lines omitted{saved}]"));
    out.extend(lines[tail..].iter().cloned());
    out.join("\n")
}

/// `line` cut to at most `max` bytes, at a character boundary.
fn cut(line: &str, max: usize) -> String {
    if line.len() <= max {
        return line.to_owned();
    }
    let mut end = max;
    while !line.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}…", &line[..end])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::{
        Diagnostic, DiagnosticKind, MarkdownOperation, OutlineEntry, Severity, SuggestedEdit,
    };

    struct Keep(Vec<String>);

    impl Save for Keep {
        fn save(&mut self, lines: &[String]) -> Option<(String, bool)> {
            self.0 = lines.to_vec();
            Some(("/spill/1.txt".into(), false))
        }
    }

    #[test]
    fn renders_each_list() {
        let mut r = MarkdownReport::ok(MarkdownOperation::Outline, "a.md", "2 headings".into());
        r.outline = Some(vec![
            OutlineEntry { level: 1, text: "Top".into(), line: 1, anchor: "top".into() },
            OutlineEntry { level: 3, text: "Deep".into(), line: 4, anchor: "deep".into() },
        ]);
        assert_eq!(render(&r), ["2 headings", "- Top (line 1) #top", "    - Deep (line 4) #deep"]);
        r.outline = None;
        r.diagnostics = Some(vec![Diagnostic {
            kind: DiagnosticKind::EmptyHeading,
            severity: Severity::Warning,
            line: 3,
            message: "no text".into(),
            target: None,
        }]);
        assert_eq!(render(&r)[1], "3: empty_heading: no text");
        r.diagnostics = None;
        r.suggested_edits = Some(vec![SuggestedEdit {
            file_path: "a.md".into(),
            old_string: "a \n".into(),
            new_string: "a\n".into(),
            line: 2,
            reason: "remove trailing whitespace".into(),
        }]);
        assert_eq!(
            render(&r)[1..],
            ["2: remove trailing whitespace", "  old: \"a \\n\"", "  new: \"a\\n\""]
        );
    }

    #[test]
    fn a_failure_is_its_message() {
        let r = MarkdownReport::failed(
            MarkdownOperation::Outline,
            "a.md",
            toolhost_sdk::error_kinds::ErrorKind::NotFound,
            "a.md does not exist".into(),
        );
        assert_eq!(render(&r), ["a.md does not exist"]);
    }

    #[test]
    fn short_text_is_whole_and_nothing_is_saved() {
        let mut keep = Keep(vec![]);
        let lines = vec!["a".to_string(), "b".to_string()];
        assert_eq!(bound(&lines, &mut keep), "a\nb");
        assert!(keep.0.is_empty());
    }

    #[test]
    fn long_text_keeps_head_and_tail_and_saves_all() {
        let lines: Vec<String> = (0..10_000).map(|i| format!("{i}: line")).collect();
        let mut keep = Keep(vec![]);
        let text = bound(&lines, &mut keep);
        assert!(text.len() <= MAX_RESULT_BYTES, "{}", text.len());
        assert!(text.starts_with("0: line\n1: line\n"));
        assert!(text.ends_with("9999: line"));
        assert!(
            text.contains("lines omitted; the whole result (10000 lines) is saved at /spill/1.txt")
        );
        assert_eq!(keep.0, lines);
    }

    #[test]
    fn one_huge_line_is_cut() {
        let lines = vec!["x".repeat(100_000), "end".into()];
        let text = bound(&lines, &mut Keep(vec![]));
        assert!(text.len() <= MAX_RESULT_BYTES);
        assert!(text.ends_with("end"));
    }
}
