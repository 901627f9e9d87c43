//! Why a match failed, with messages a model can act on.
//!
//! [`MatchError::message`] takes the caller's noun for the pattern ("oldString", "the hunk")
//! and the file's path; `Display` uses "the text to replace" and "the file".

use std::fmt;

use crate::tier::Tier;

/// How many candidate lines an ambiguity message lists before "and N more".
pub const MAX_LISTED: usize = 10;

/// Longest quoted line in a message, in characters; longer ones end in "...".
const MAX_QUOTED_CHARS: usize = 120;

/// Why no single place was found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MatchError {
    /// The text to replace is empty.
    Empty,
    /// A tier found more than one place; no later tier was tried.
    Ambiguous {
        /// The tier that found them.
        tier: Tier,
        /// The 1-based first line of every place, in file order.
        lines: Vec<usize>,
    },
    /// No tier found any place.
    NotFound {
        /// The first non-blank pattern line that occurs nowhere in the file, even normalised.
        missing: Option<MissingLine>,
        /// The file region most like the pattern, if any shares a line with it.
        closest: Option<Region>,
    },
    /// Every non-blank pattern line starts with a line number copied from read/view output,
    /// and the text as given matches nowhere exactly.
    LineNumberPrefixes {
        /// The first non-blank line of the pattern, as given.
        first_line: String,
    },
}

/// A pattern line that occurs nowhere in the file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MissingLine {
    /// Its 1-based number within the pattern.
    pub line: usize,
    /// Its text.
    pub text: String,
}

/// The file region closest to a pattern that was not found, and how they differ.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Region {
    /// Its 1-based first line in the file.
    pub start: usize,
    /// Its 1-based last line in the file.
    pub end: usize,
    /// A line diff, expected (pattern) against found (file): each line starts with `-`
    /// (expected, not in the file), `+` (in the file) or ` ` (both); at most
    /// [`crate::diagnose::MAX_DIFF_LINES`] lines.
    pub diff: Vec<String>,
    /// How many diff lines were left off `diff`.
    pub omitted: usize,
}

/// `text` between double quotes, without a `\r`, cut at [`MAX_QUOTED_CHARS`].
fn quote(text: &str) -> String {
    let text = text.strip_suffix('\r').unwrap_or(text);
    match text.char_indices().nth(MAX_QUOTED_CHARS) {
        Some((cut, _)) => format!("\"{}...\"", &text[..cut]),
        None => format!("\"{text}\""),
    }
}

/// `lines 4, 19, 40` (at most [`MAX_LISTED`], then `and N more`).
fn list_lines(lines: &[usize]) -> String {
    let listed: Vec<String> = lines.iter().take(MAX_LISTED).map(usize::to_string).collect();
    let word = if lines.len() == 1 { "line" } else { "lines" };
    let mut out = format!("{word} {}", listed.join(", "));
    if lines.len() > MAX_LISTED {
        out.push_str(&format!(" and {} more", lines.len() - MAX_LISTED));
    }
    out
}

impl MatchError {
    /// The message for a model: `what` names the pattern ("old_str", "the hunk's lines"),
    /// `path` the file.
    pub fn message(&self, what: &str, path: &str) -> String {
        match self {
            MatchError::Empty => {
                format!("{what} is empty; give the exact text to find, copied from {path}")
            }
            MatchError::Ambiguous { tier, lines } => format!(
                "{what} matches {} places ({}) {}; include more surrounding lines to make it \
                 unique",
                lines.len(),
                list_lines(lines),
                tier.adverb()
            ),
            MatchError::LineNumberPrefixes { first_line } => format!(
                "{what} carries line numbers copied from the read/view output (its first line \
                 is {}); give it without them, exactly as the lines are in {path}",
                quote(first_line)
            ),
            MatchError::NotFound { missing, closest } => {
                let mut out = format!("{what} was not found in {path}");
                match missing {
                    Some(m) => out.push_str(&format!(
                        "; its line {} ({}) occurs nowhere in the file",
                        m.line,
                        quote(&m.text)
                    )),
                    None => out.push_str(
                        "; each of its lines occurs in the file, but not together as given",
                    ),
                }
                match closest {
                    Some(region) => {
                        let place = if region.start == region.end {
                            format!("line {}", region.start)
                        } else {
                            format!("lines {}-{}", region.start, region.end)
                        };
                        out.push_str(&format!("; the closest place is {place}:"));
                        for line in &region.diff {
                            out.push('\n');
                            out.push_str(line);
                        }
                        if region.omitted > 0 {
                            out.push_str(&format!("\n... ({} more diff lines)", region.omitted));
                        }
                    }
                    None => out.push_str("; no part of the file shares a line with it"),
                }
                out
            }
        }
    }
}

impl fmt::Display for MatchError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message("the text to replace", "the file"))
    }
}

impl std::error::Error for MatchError {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ambiguity_lists_at_most_ten_lines() {
        let e = MatchError::Ambiguous { tier: Tier::Exact, lines: vec![4, 19, 40] };
        assert_eq!(
            e.message("old_str", "src/a.rs"),
            "old_str matches 3 places (lines 4, 19, 40) exactly; include more surrounding \
             lines to make it unique"
        );
        let e = MatchError::Ambiguous { tier: Tier::Indentation, lines: (1..=13).collect() };
        assert_eq!(
            e.to_string(),
            "the text to replace matches 13 places (lines 1, 2, 3, 4, 5, 6, 7, 8, 9, 10 and 3 \
             more) after ignoring indentation; include more surrounding lines to make it unique"
        );
    }

    #[test]
    fn not_found_and_prefix_messages() {
        let e = MatchError::NotFound {
            missing: Some(MissingLine { line: 2, text: "    let y = 2;".into() }),
            closest: Some(Region {
                start: 10,
                end: 11,
                diff: vec![
                    " let x = 1;".into(),
                    "-    let y = 2;".into(),
                    "+    let y = 3;".into(),
                ],
                omitted: 0,
            }),
        };
        assert_eq!(
            e.message("old_str", "src/a.rs"),
            "old_str was not found in src/a.rs; its line 2 (\"    let y = 2;\") occurs nowhere \
             in the file; the closest place is lines 10-11:\n let x = 1;\n-    let y = 2;\n+    \
             let y = 3;"
        );
        let e = MatchError::NotFound { missing: None, closest: None };
        assert_eq!(
            e.to_string(),
            "the text to replace was not found in the file; each of its lines occurs in the \
             file, but not together as given; no part of the file shares a line with it"
        );
        let e = MatchError::LineNumberPrefixes { first_line: "12\tfn main() {".into() };
        assert_eq!(
            e.message("old_str", "src/main.rs"),
            "old_str carries line numbers copied from the read/view output (its first line is \
             \"12\tfn main() {\"); give it without them, exactly as the lines are in src/main.rs"
        );
        assert_eq!(quote(&"x".repeat(200)), format!("\"{}...\"", "x".repeat(120)));
    }
}
