//! The text grep returns (docs/contract.md#grep, #spill-files): the kept lines or files in path
//! order, then a footer when something was left out or the scan timed out. Every model-facing text
//! is defined here, next to the rule that produces it.

use std::fmt::Write as _;

use toolhost_sdk::Spilled;

use crate::OutputMode;
use crate::collect::{ContentCollector, FileCollector};
pub use toolhost_sdk::scan::{CANCELLED, found_so_far_saved, saved_clause, seconds};

/// The result when nothing matched (docs/contract.md#grep, verbatim).
pub fn no_matches(pattern: &str, path: &str) -> String {
    format!("No matches for /{pattern}/ in {path}")
}

/// The note after a file whose matching lines were not all shown (docs/contract.md#grep, verbatim).
pub fn more_in_file(more: u64) -> String {
    format!("(+{more} more matching lines in this file)")
}

/// Footer of `content` mode when lines were left out (docs/contract.md#grep, verbatim).
pub fn showing_lines(shown: usize, lines: u64, files: u64, spilled: Option<&Spilled>) -> String {
    format!("[showing {shown} of {lines} matching lines in {files} files{}]", saved_clause(spilled))
}

/// Footer of `files_with_matches` and `count` mode when files were left out (the contract's
/// `content` footer, counting files).
pub fn showing_files(shown: usize, files: u64, spilled: Option<&Spilled>) -> String {
    format!("[showing {shown} of {files} files{}]", saved_clause(spilled))
}

/// Footer of a timed-out `content` or `count` scan (docs/contract.md#grep, verbatim).
pub fn timed_out_lines(lines: u64, files: u64, timeout_ms: u64) -> String {
    format!(
        "[at least {lines} matching lines in {files} files; search timed out after {} — narrow the path or glob]",
        seconds(timeout_ms)
    )
}

/// Footer of a timed-out `files_with_matches` scan, which counts files only.
pub fn timed_out_files(files: u64, timeout_ms: u64) -> String {
    format!(
        "[at least {files} files; search timed out after {} — narrow the path or glob]",
        seconds(timeout_ms)
    )
}

/// What a scan found, kept and counted.
#[derive(Debug, Default, serde::Serialize, serde::Deserialize)]
pub struct Findings {
    /// Kept lines (`content` mode).
    pub content: ContentCollector,
    /// Kept files (`files_with_matches` and `count` mode).
    pub files: FileCollector,
    /// Matching lines in all (not counted in `files_with_matches` mode).
    pub total_lines: u64,
    /// Files with at least one match.
    pub total_files: u64,
}

impl Findings {
    /// Add what another part of the same search found.
    pub fn merge(&mut self, other: Findings) {
        self.content.merge(other.content);
        self.files.merge(other.files);
        self.total_lines += other.total_lines;
        self.total_files += other.total_files;
    }

    /// True when the result leaves out lines or files, i.e. the full list must be saved.
    pub fn omits(&self, mode: OutputMode) -> bool {
        match mode {
            OutputMode::Content => (self.content.shown() as u64) < self.total_lines,
            OutputMode::FilesWithMatches | OutputMode::Count => {
                (self.files.shown() as u64) < self.total_files
            }
        }
    }
}

/// How the scan ended, for the footer.
#[derive(Debug)]
pub enum GrepEnd<'a> {
    /// Everything was scanned; `spilled` is where the full list went when it was saved.
    Complete { spilled: Option<&'a Spilled> },
    /// The scan stopped after `timeout_ms`.
    TimedOut { timeout_ms: u64, spilled: Option<&'a Spilled> },
}

/// The result text.
///
/// `content`: one group per file in path order — the path on its own line, then
/// `{line}:{content}` lines, then [`more_in_file`] when lines of the file were left out;
/// groups and the footer are separated by a blank line. `files_with_matches`: one path per
/// line. `count`: `path:count` per line. The footer follows when lines or files were left
/// out, or the scan timed out.
pub fn render(
    pattern: &str,
    root: &str,
    mode: OutputMode,
    found: &Findings,
    end: GrepEnd<'_>,
) -> String {
    let timed_out = matches!(end, GrepEnd::TimedOut { .. });
    if found.total_files == 0 && !timed_out {
        return no_matches(pattern, root);
    }
    let mut out = String::new();
    match mode {
        OutputMode::Content => {
            for (path, file) in found.content.files() {
                if !out.is_empty() {
                    out.push('\n');
                }
                out.push_str(path);
                out.push('\n');
                for line in &file.lines {
                    let _ = writeln!(out, "{}:{}", line.number, line.text);
                }
                let more = file.total - file.lines.len() as u64;
                if more > 0 {
                    out.push_str(&more_in_file(more));
                    out.push('\n');
                }
            }
        }
        OutputMode::FilesWithMatches => {
            for (path, _) in found.files.files() {
                out.push_str(path);
                out.push('\n');
            }
        }
        OutputMode::Count => {
            for (path, count) in found.files.files() {
                let _ = writeln!(out, "{path}:{count}");
            }
        }
    }
    let omits = found.omits(mode);
    let footer = match end {
        GrepEnd::Complete { .. } if !omits => None,
        GrepEnd::Complete { spilled } => Some(match mode {
            OutputMode::Content => {
                showing_lines(found.content.shown(), found.total_lines, found.total_files, spilled)
            }
            _ => showing_files(found.files.shown(), found.total_files, spilled),
        }),
        GrepEnd::TimedOut { timeout_ms, spilled } => {
            let mut f = match mode {
                OutputMode::FilesWithMatches => timed_out_files(found.total_files, timeout_ms),
                _ => timed_out_lines(found.total_lines, found.total_files, timeout_ms),
            };
            if let (true, Some(s)) = (omits, spilled) {
                f.push('\n');
                f.push_str(&found_so_far_saved(s));
            }
            Some(f)
        }
    };
    if let Some(footer) = footer {
        if mode == OutputMode::Content && !out.is_empty() {
            out.push('\n');
        }
        out.push_str(&footer);
    } else if out.ends_with('\n') {
        out.pop();
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::collect::KeptLine;

    fn spilled(capped: bool) -> Spilled {
        Spilled { path: "<path>".into(), capped }
    }

    #[test]
    fn footers_are_the_contract_text() {
        assert_eq!(
            showing_lines(250, 1834, 97, Some(&spilled(false))),
            "[showing 250 of 1834 matching lines in 97 files; full list saved to <path>]"
        );
        assert_eq!(
            timed_out_lines(1834, 97, 30_000),
            "[at least 1834 matching lines in 97 files; search timed out after 30s — narrow the path or glob]"
        );
        assert_eq!(no_matches("fo+", "src"), "No matches for /fo+/ in src");
        assert_eq!(more_in_file(7), "(+7 more matching lines in this file)");
    }

    #[test]
    fn footers_without_a_spill_name_no_path_and_a_capped_spill_says_so() {
        assert_eq!(
            showing_lines(250, 1834, 97, None),
            "[showing 250 of 1834 matching lines in 97 files]"
        );
        assert_eq!(
            showing_lines(250, 1834, 97, Some(&spilled(true))),
            "[showing 250 of 1834 matching lines in 97 files; full list saved to <path> (only the first 64 MB were saved)]"
        );
        assert_eq!(
            showing_files(250, 1834, Some(&spilled(false))),
            "[showing 250 of 1834 files; full list saved to <path>]"
        );
        assert_eq!(showing_files(250, 1834, None), "[showing 250 of 1834 files]");
        assert_eq!(
            timed_out_files(97, 200),
            "[at least 97 files; search timed out after 0.2s — narrow the path or glob]"
        );
    }

    #[test]
    fn seconds_are_whole_when_whole() {
        assert_eq!(seconds(30_000), "30s");
        assert_eq!(seconds(200), "0.2s");
        assert_eq!(seconds(1_250), "1.25s");
        assert_eq!(seconds(1_001), "1.001s");
        assert_eq!(seconds(0), "0s");
    }

    fn found_content(files: &[(&str, u64, u64)]) -> Findings {
        let mut found = Findings::default();
        for &(path, kept, total) in files {
            let lines = (1..=kept).map(|n| KeptLine { number: n, text: format!("x{n}") }).collect();
            found.content.add(path.into(), lines, total);
            found.total_lines += total;
            found.total_files += 1;
        }
        found
    }

    #[test]
    fn content_groups_by_file() {
        let found = found_content(&[("b.rs", 1, 1), ("a.rs", 2, 2)]);
        let text =
            render("x", ".", OutputMode::Content, &found, GrepEnd::Complete { spilled: None });
        assert_eq!(text, "a.rs\n1:x1\n2:x2\n\nb.rs\n1:x1");
        // Lines left out by the per-file bound are an omission too: exact totals, full list.
        let found = found_content(&[("b.rs", 1, 1), ("a.rs", 2, 5)]);
        let s = spilled(false);
        let text =
            render("x", ".", OutputMode::Content, &found, GrepEnd::Complete { spilled: Some(&s) });
        assert_eq!(
            text,
            "a.rs\n1:x1\n2:x2\n(+3 more matching lines in this file)\n\nb.rs\n1:x1\n\n\
             [showing 3 of 6 matching lines in 2 files; full list saved to <path>]"
        );
    }

    #[test]
    fn content_footer_after_a_blank_line() {
        let found = found_content(&[
            ("a", 50, 60),
            ("b", 50, 50),
            ("c", 50, 50),
            ("d", 50, 50),
            ("e", 50, 50),
            ("f", 50, 50),
        ]);
        let s = spilled(false);
        let text =
            render("x", ".", OutputMode::Content, &found, GrepEnd::Complete { spilled: Some(&s) });
        assert!(text.ends_with("50:x50\n\n[showing 250 of 310 matching lines in 6 files; full list saved to <path>]"), "{text}");
        assert!(text.contains("a\n1:x1\n"));
        assert!(text.contains("(+10 more matching lines in this file)"));
        assert!(!text.contains("\nf\n"));
    }

    #[test]
    fn no_match_and_timeouts() {
        let found = Findings::default();
        assert_eq!(
            render("a|b", "src", OutputMode::Count, &found, GrepEnd::Complete { spilled: None }),
            "No matches for /a|b/ in src"
        );
        assert_eq!(
            render(
                "a",
                ".",
                OutputMode::Content,
                &found,
                GrepEnd::TimedOut { timeout_ms: 30_000, spilled: None }
            ),
            "[at least 0 matching lines in 0 files; search timed out after 30s — narrow the path or glob]"
        );
        let found = found_content(&[("a", 2, 2)]);
        assert_eq!(
            render(
                "a",
                ".",
                OutputMode::Content,
                &found,
                GrepEnd::TimedOut { timeout_ms: 30_000, spilled: None }
            ),
            "a\n1:x1\n2:x2\n\n[at least 2 matching lines in 1 files; search timed out after 30s — narrow the path or glob]"
        );
        let found = found_content(&[
            ("a", 50, 300),
            ("b", 50, 50),
            ("c", 50, 50),
            ("d", 50, 50),
            ("e", 50, 50),
        ]);
        let s = spilled(false);
        let text = render(
            "a",
            ".",
            OutputMode::Content,
            &found,
            GrepEnd::TimedOut { timeout_ms: 500, spilled: Some(&s) },
        );
        assert!(text.ends_with(
            "[at least 500 matching lines in 5 files; search timed out after 0.5s — narrow the path or glob]\n\
             [everything found before the timeout saved to <path>]"
        ), "{text}");
    }

    #[test]
    fn file_modes() {
        let mut found = Findings::default();
        for (p, n) in [("b", 3), ("a", 1)] {
            found.files.add(p.into(), n);
            found.total_files += 1;
            found.total_lines += n;
        }
        let end = || GrepEnd::Complete { spilled: None };
        assert_eq!(render("x", ".", OutputMode::FilesWithMatches, &found, end()), "a\nb");
        assert_eq!(render("x", ".", OutputMode::Count, &found, end()), "a:1\nb:3");
        found.total_files = 300;
        let s = spilled(false);
        assert_eq!(
            render("x", ".", OutputMode::Count, &found, GrepEnd::Complete { spilled: Some(&s) }),
            "a:1\nb:3\n[showing 2 of 300 files; full list saved to <path>]"
        );
    }
}
