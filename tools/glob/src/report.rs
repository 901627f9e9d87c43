//! The text glob returns (docs/contract.md#glob, #spill-files): the kept paths newest first, then a
//! footer when files were left out or the scan timed out. Every model-facing text is defined here.

use toolhost_sdk::Spilled;

use crate::newest::NewestEntry;

pub use toolhost_sdk::scan::{CANCELLED, found_so_far_saved, saved_clause, seconds};

/// The result when no file matched (docs/contract.md#glob, verbatim).
pub fn no_files(pattern: &str, path: &str) -> String {
    format!("No files match {pattern} in {path}")
}

/// Footer when files were left out (docs/contract.md#glob, verbatim); without the path when the
/// spill failed (docs/contract.md#spill-files), with `toolhost_sdk::scan::CAPPED` when it was
/// capped.
pub fn showing(shown: usize, total: u64, spilled: Option<&Spilled>) -> String {
    let saved = saved_clause(spilled);
    format!("[showing the {shown} most recently modified of {total} files{saved}]")
}

/// Footer of a timed-out scan (docs/contract.md#glob, verbatim).
pub fn timed_out(total: u64, timeout_ms: u64) -> String {
    format!(
        "[at least {total} files; search timed out after {} — narrow the path or pattern]",
        seconds(timeout_ms)
    )
}

/// How the scan ended, for the footer.
#[derive(Debug)]
pub enum GlobEnd<'a> {
    /// Everything was walked; `spilled` is where the full list went when it was saved.
    Complete { spilled: Option<&'a Spilled> },
    /// The walk stopped after `timeout_ms`.
    TimedOut { timeout_ms: u64, spilled: Option<&'a Spilled> },
}

/// The result: one path per line, newest first, then the footer.
pub fn render(
    pattern: &str,
    root: &str,
    kept: &[NewestEntry],
    total: u64,
    end: GlobEnd<'_>,
) -> String {
    if total == 0 && matches!(end, GlobEnd::Complete { .. }) {
        return no_files(pattern, root);
    }
    let mut lines: Vec<String> = kept.iter().map(|e| e.path.clone()).collect();
    let omits = (kept.len() as u64) < total;
    match end {
        GlobEnd::Complete { .. } if !omits => {}
        GlobEnd::Complete { spilled } => lines.push(showing(kept.len(), total, spilled)),
        GlobEnd::TimedOut { timeout_ms, spilled } => {
            lines.push(timed_out(total, timeout_ms));
            if let (true, Some(s)) = (omits, spilled) {
                lines.push(found_so_far_saved(s));
            }
        }
    }
    lines.join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spilled(capped: bool) -> Spilled {
        Spilled { path: "<path>".into(), capped }
    }

    fn entries(n: usize) -> Vec<NewestEntry> {
        (0..n).map(|i| NewestEntry { path: format!("f{i}"), modified_ms: Some(i as u64) }).collect()
    }

    #[test]
    fn footers_are_the_contract_text() {
        assert_eq!(
            showing(100, 150, Some(&spilled(false))),
            "[showing the 100 most recently modified of 150 files; full list saved to <path>]"
        );
        assert_eq!(
            timed_out(150, 30_000),
            "[at least 150 files; search timed out after 30s — narrow the path or pattern]"
        );
        assert_eq!(no_files("**/*.rs", "src"), "No files match **/*.rs in src");
    }

    #[test]
    fn failed_and_capped_spills() {
        assert_eq!(
            showing(100, 150, None),
            "[showing the 100 most recently modified of 150 files]"
        );
        assert_eq!(
            showing(100, 150, Some(&spilled(true))),
            "[showing the 100 most recently modified of 150 files; full list saved to <path> (only the first 64 MB were saved)]"
        );
    }

    #[test]
    fn seconds_are_whole_when_whole() {
        assert_eq!(seconds(30_000), "30s");
        assert_eq!(seconds(200), "0.2s");
        assert_eq!(seconds(1_500), "1.5s");
    }

    #[test]
    fn render_cases() {
        let end = || GlobEnd::Complete { spilled: None };
        assert_eq!(render("*.x", ".", &[], 0, end()), "No files match *.x in .");
        assert_eq!(render("*", ".", &entries(2), 2, end()), "f0\nf1");
        let s = spilled(false);
        let text = render("*", ".", &entries(100), 150, GlobEnd::Complete { spilled: Some(&s) });
        assert!(text.starts_with("f0\nf1\n"));
        assert!(text.ends_with(
            "f99\n[showing the 100 most recently modified of 150 files; full list saved to <path>]"
        ));
        assert_eq!(
            render("*", ".", &[], 0, GlobEnd::TimedOut { timeout_ms: 200, spilled: None }),
            "[at least 0 files; search timed out after 0.2s — narrow the path or pattern]"
        );
        let text = render(
            "*",
            ".",
            &entries(100),
            120,
            GlobEnd::TimedOut { timeout_ms: 30_000, spilled: Some(&s) },
        );
        assert!(text.ends_with(
            "f99\n[at least 120 files; search timed out after 30s — narrow the path or pattern]\n\
             [everything found before the timeout saved to <path>]"
        ));
    }
}
