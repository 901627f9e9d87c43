//! The hunks of an Update File operation applied to the file's text, as codex's grammar applies
//! them, with an error that says which line of which hunk was not found and shows the closest
//! region of the file.
//!
//! Each hunk is looked for after the previous one: its `@@` line first (the old lines are then
//! looked for after it), then its old lines ([`crate::seek::seek_sequence`]); when they are not
//! found and end with an empty line, once more without it. A hunk with no old lines inserts its
//! new lines right after its `@@` line, or without one at the end of the file (before a last
//! empty line). The result ends with a line break unless it is empty.
//!
//! Two allowances for how the file is stored, as for `edit`:
//! * a UTF-8 byte order mark at the start is set aside before matching and put back after;
//! * in a file whose every line ends with `\r\n`, lines are matched without the `\r` and the
//!   result is written with `\r\n` throughout, added lines included. Other files are matched
//!   as they are (a stray `\r` is trailing whitespace to the lenient passes).

use std::fmt;

use toolhost_sdk::text::{is_crlf_only, split_bom};

use toolhost_edit_match::{MatchError, Tier, find_lines, reindent};

use crate::parse::{Chunk, capped, quoted};
use crate::seek::{normalise_char, seek_sequence};

/// At most this many lines of the file are shown as the closest region.
pub const MAX_REGION_LINES: usize = 5;

/// The advice that ends a not-found message.
pub const REREAD_ADVICE: &str = "Copy the context and removed lines exactly from the current \
     file (read it again if it may have changed), or anchor the hunk with a nearby @@ line";

/// Lines of the file shown in an error: 1-based `first` line, each capped.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Region {
    /// The 1-based line number of `lines[0]`.
    pub first: usize,
    /// The lines, at most [`MAX_REGION_LINES`], each cut to [`crate::parse::MAX_QUOTED_CHARS`].
    pub lines: Vec<String>,
}

/// What could not be found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ApplyErrorKind {
    /// The hunk's `@@` line was not found after line `after`.
    ContextNotFound { context: String, after: usize, closest: Option<Region> },
    /// The hunk's old lines were not found after line `after`: the first `line - 1` of them
    /// match somewhere, the `line`-th (1-based, counting context and removed lines), `text`,
    /// does not follow them anywhere.
    LinesNotFound { line: usize, text: String, after: usize, closest: Option<Region> },
    /// The hunk's old lines match several places after line `after` under the first tier
    /// that finds any, or carry line numbers copied from `read` output: never applied.
    Unmatched { after: usize, why: MatchError },
}

/// A hunk that cannot be applied.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApplyError {
    /// The 1-based number of the hunk within its Update File operation.
    pub hunk: usize,
    /// What was not found, and where the file comes closest.
    pub kind: ApplyErrorKind,
}

/// `after` as words: `after line N`, or `in the file` when searching from the top.
fn after_words(after: usize) -> String {
    if after == 0 { "in the file".to_owned() } else { format!("after line {after}") }
}

impl fmt::Display for Region {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let last = self.first + self.lines.len() - 1;
        if last == self.first {
            write!(f, "line {}:", self.first)?;
        } else {
            write!(f, "lines {}-{last}:", self.first)?;
        }
        let width = last.to_string().len();
        for (i, line) in self.lines.iter().enumerate() {
            write!(f, "\n  {:>width$} | {line}", self.first + i)?;
        }
        Ok(())
    }
}

impl fmt::Display for ApplyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (closest, after) = match &self.kind {
            ApplyErrorKind::Unmatched { after, why } => {
                let what = format!("the hunk's context and removed lines {}", after_words(*after));
                write!(f, "hunk {}: {}", self.hunk, why.message(&what, "the file"))?;
                if matches!(why, MatchError::Ambiguous { .. }) {
                    write!(f, ", or anchor the hunk with an @@ line naming its class or function")?;
                }
                return Ok(());
            }
            ApplyErrorKind::ContextNotFound { context, after, closest } => {
                write!(
                    f,
                    "hunk {}: the @@ line {} was not found {}",
                    self.hunk,
                    quoted(context),
                    after_words(*after)
                )?;
                (closest, after)
            }
            ApplyErrorKind::LinesNotFound { line, text, after, closest } => {
                write!(
                    f,
                    "hunk {}: the line {} (line {line} of the hunk's context and removed lines) \
                     was not found {}",
                    self.hunk,
                    quoted(text),
                    after_words(*after)
                )?;
                if *line > 1 {
                    write!(f, " following the {} lines before it", line - 1)?;
                }
                (closest, after)
            }
        };
        match closest {
            Some(region) => write!(f, "; the closest region is {region}")?,
            None => write!(f, "; no line {} resembles it", after_words(*after))?,
        }
        write!(f, "\n{REREAD_ADVICE}")
    }
}

impl std::error::Error for ApplyError {}

/// How one hunk's old lines were found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HunkMatch {
    /// The 1-based number of the hunk within its Update File operation.
    pub hunk: usize,
    /// The tier that found its one place.
    pub tier: Tier,
    /// The 1-based line of the file where its old lines start.
    pub line: usize,
}

/// An Update File operation's new text, and how each hunk with old lines was found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Applied {
    /// The file's new text.
    pub text: String,
    /// One per hunk that has old lines, in the patch's order.
    pub matches: Vec<HunkMatch>,
}

impl Applied {
    /// The hunks not found exactly, said as `hunk 2 matched after ignoring indentation at
    /// line 120`, joined with `; `; empty when every hunk matched exactly.
    pub fn lenient_summary(&self) -> String {
        self.matches
            .iter()
            .filter(|m| m.tier != Tier::Exact)
            .map(|m| format!("hunk {} {}", m.hunk, m.tier.matched_at(m.line)))
            .collect::<Vec<_>>()
            .join("; ")
    }
}

/// Apply `chunks`, in order, to the text `original`; the new text.
pub fn apply_chunks(original: &str, chunks: &[Chunk]) -> Result<Applied, ApplyError> {
    let (bom, body) = split_bom(original);
    let crlf = is_crlf_only(body);
    let mut lines: Vec<String> = if crlf {
        body.split("\r\n").map(str::to_owned).collect()
    } else {
        body.split('\n').map(str::to_owned).collect()
    };
    if lines.last().is_some_and(String::is_empty) {
        lines.pop();
    }
    let replacements = replacements(&lines, chunks)?;
    let matches = replacements
        .iter()
        .filter_map(|r| r.found.map(|(hunk, tier)| HunkMatch { hunk, tier, line: r.start + 1 }))
        .collect::<Vec<_>>();
    let mut matches = matches;
    matches.sort_by_key(|m| m.hunk);
    let new_lines = replaced(lines, replacements);
    let ending = if crlf { "\r\n" } else { "\n" };
    let mut out = String::with_capacity(original.len() + 64);
    out.extend(bom);
    for line in &new_lines {
        out.push_str(line);
        out.push_str(ending);
    }
    Ok(Applied { text: out, matches })
}

/// One replacement: the `old.len()` lines from `start` become `new`.
struct Replacement<'a> {
    start: usize,
    /// The hunk's context and removed lines as the patch gives them (empty: a pure addition).
    old: &'a [String],
    new: &'a [String],
    /// The hunk (1-based) and the tier that found its old lines; none for a pure addition.
    found: Option<(usize, Tier)>,
}

/// Where each chunk applies, sorted by start.
fn replacements<'a>(
    lines: &[String],
    chunks: &'a [Chunk],
) -> Result<Vec<Replacement<'a>>, ApplyError> {
    let mut out = Vec::with_capacity(chunks.len());
    let mut index = 0;
    for (n, chunk) in chunks.iter().enumerate() {
        let hunk = n + 1;
        let mut anchored = false;
        if let Some(context) = &chunk.context {
            match seek_sequence(lines, std::slice::from_ref(context), index, false) {
                Some(found) => {
                    index = found + 1;
                    anchored = true;
                }
                None => {
                    let closest = closest_line(lines, context, index);
                    let kind = ApplyErrorKind::ContextNotFound {
                        context: context.clone(),
                        after: index,
                        closest,
                    };
                    return Err(ApplyError { hunk, kind });
                }
            }
        }
        if chunk.old_lines.is_empty() {
            let start = if anchored && !chunk.is_end_of_file {
                index
            } else if lines.last().is_some_and(String::is_empty) {
                lines.len() - 1
            } else {
                lines.len()
            };
            out.push(Replacement { start, old: &[], new: &chunk.new_lines, found: None });
            continue;
        }
        let mut pattern: &[String] = &chunk.old_lines;
        let mut new: &[String] = &chunk.new_lines;
        let mut found = find_lines(lines, pattern, index, chunk.is_end_of_file);
        if matches!(found, Err(MatchError::NotFound { .. }))
            && pattern.last().is_some_and(String::is_empty)
        {
            // The last empty line may stand for the file's final line break.
            pattern = &pattern[..pattern.len() - 1];
            if new.last().is_some_and(String::is_empty) {
                new = &new[..new.len() - 1];
            }
            found = find_lines(lines, pattern, index, chunk.is_end_of_file);
        }
        match found {
            Ok(m) => {
                out.push(Replacement {
                    start: m.index,
                    old: pattern,
                    new,
                    found: Some((hunk, m.tier)),
                });
                index = m.index + pattern.len();
            }
            Err(MatchError::NotFound { .. }) => {
                return Err(ApplyError { hunk, kind: not_found(lines, &chunk.old_lines, index) });
            }
            Err(why) => {
                return Err(ApplyError {
                    hunk,
                    kind: ApplyErrorKind::Unmatched { after: index, why },
                });
            }
        }
    }
    out.sort_by_key(|r| r.start);
    Ok(out)
}

/// `lines` with the (sorted, non-overlapping) replacements made, in one pass. A line the hunk
/// keeps (its text is one of the hunk's old lines, in order) is written as the file has it,
/// not as the patch spells it: a context line matched loosely (other whitespace, typographic
/// punctuation) stays byte for byte.
fn replaced(lines: Vec<String>, replacements: Vec<Replacement<'_>>) -> Vec<String> {
    let added: usize = replacements.iter().map(|r| r.new.len()).sum();
    let mut out = Vec::with_capacity(lines.len() + added);
    let mut lines = lines.into_iter().enumerate().peekable();
    for r in replacements {
        while let Some((_, line)) = lines.next_if(|(i, _)| *i < r.start) {
            out.push(line);
        }
        let region: Vec<String> = lines.by_ref().take(r.old.len()).map(|(_, l)| l).collect();
        // Found ignoring indentation: the added lines take the file's indentation.
        let reindented = match r.found {
            Some((_, tier)) if tier.reindents() => reindent(tier, r.new, r.old, &region),
            _ => r.new.to_vec(),
        };
        let mut next_old = 0;
        for (new, indented) in r.new.iter().zip(reindented) {
            match (next_old..r.old.len()).find(|&k| r.old[k] == *new) {
                Some(k) if k < region.len() => {
                    out.push(region[k].clone());
                    next_old = k + 1;
                }
                _ => out.push(indented),
            }
        }
    }
    out.extend(lines.map(|(_, line)| line));
    out
}

/// Why `old` (non-empty) is not found at or after `start`: the longest prefix of it that is
/// found, the line after that prefix, and the region where the prefix ends.
fn not_found(lines: &[String], old: &[String], start: usize) -> ApplyErrorKind {
    // A prefix that matches at i has every shorter prefix matching at i too, so the longest
    // matching prefix is found by bisection: O(log n) searches.
    let (mut matched, mut at) = (0, None);
    let (mut lo, mut hi) = (1, old.len());
    while lo <= hi {
        let mid = lo + (hi - lo) / 2;
        match seek_sequence(lines, &old[..mid], start, false) {
            Some(i) => {
                (matched, at) = (mid, Some(i));
                lo = mid + 1;
            }
            None => hi = mid - 1,
        }
    }
    let text = old[matched.min(old.len() - 1)].clone();
    let closest = match at {
        // Show up to two matched lines before the line that differs, and what follows.
        Some(i) => {
            let miss = i + matched;
            let from = miss.saturating_sub(2).max(i);
            region(lines, from, from + MAX_REGION_LINES)
        }
        None => closest_line(lines, &text, start),
    };
    ApplyErrorKind::LinesNotFound { line: matched + 1, text, after: start, closest }
}

/// The region of up to [`MAX_REGION_LINES`] lines from 0-based `from` up to `to` (exclusive),
/// clamped to the file; none when that is empty.
fn region(lines: &[String], from: usize, to: usize) -> Option<Region> {
    let to = to.min(lines.len()).min(from + MAX_REGION_LINES);
    if from >= to {
        return None;
    }
    let shown = lines[from..to].iter().map(|l| capped(l.trim_end_matches('\r'))).collect();
    Some(Region { first: from + 1, lines: shown })
}

/// How alike two lines look once trimmed and normalised: the characters of their common
/// prefix plus those of their common suffix (not counting any character twice).
fn likeness(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.trim().chars().map(normalise_char).collect();
    let b: Vec<char> = b.trim().chars().map(normalise_char).collect();
    let prefix = a.iter().zip(&b).take_while(|(x, y)| x == y).count();
    let rest = a.len().min(b.len()) - prefix;
    let suffix = a.iter().rev().zip(b.iter().rev()).take(rest).take_while(|(x, y)| x == y).count();
    prefix + suffix
}

/// The region around the line at or after `start` most like `wanted`; none when no line
/// shares a character at either end with it.
fn closest_line(lines: &[String], wanted: &str, start: usize) -> Option<Region> {
    let (best, score) = lines
        .iter()
        .enumerate()
        .skip(start)
        .map(|(i, line)| (i, likeness(line, wanted)))
        .fold((0, 0), |best, candidate| if candidate.1 > best.1 { candidate } else { best });
    if score == 0 {
        return None;
    }
    let from = best.saturating_sub(2).max(start);
    region(lines, from, from + MAX_REGION_LINES)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse::{PatchOperation, parse_patch};

    /// The chunks of the single Update File operation in `body` (wrapped in the markers).
    fn chunks(body: &str) -> Vec<Chunk> {
        let patch = format!("*** Begin Patch\n*** Update File: f\n{body}\n*** End Patch");
        match parse_patch(&patch).unwrap().remove(0) {
            PatchOperation::Update { chunks, .. } => chunks,
            other => panic!("{other:?}"),
        }
    }

    fn apply(original: &str, body: &str) -> String {
        apply_chunks(original, &chunks(body)).unwrap().text
    }

    fn fail(original: &str, body: &str) -> String {
        apply_chunks(original, &chunks(body)).unwrap_err().to_string()
    }

    #[test]
    fn a_simple_update() {
        assert_eq!(apply("foo\nbar\n", "@@\n foo\n-bar\n+baz"), "foo\nbaz\n");
        assert_eq!(apply("line\n", "@@\n-line\n+line2"), "line2\n");
    }

    #[test]
    fn several_hunks_in_order() {
        assert_eq!(
            apply("foo\nbar\nbaz\nqux\n", "@@\n foo\n-bar\n+BAR\n@@\n baz\n-qux\n+QUX"),
            "foo\nBAR\nbaz\nQUX\n"
        );
        // Interleaved additions, deletions and replacements.
        assert_eq!(
            apply(
                "a\nb\nc\nd\ne\nf\n",
                "@@\n a\n-b\n+B\n@@\n c\n d\n+X\n@@\n e\n-f\n+F\n*** End of File"
            ),
            "a\nB\nc\nd\nX\ne\nF\n"
        );
    }

    #[test]
    fn a_later_hunk_is_looked_for_after_the_earlier_one() {
        assert_eq!(apply("x\ny\nx\nz\n", "@@\n-x\n+1\n y\n@@\n-x\n+2"), "1\ny\n2\nz\n");
    }

    #[test]
    fn old_lines_that_match_several_places_are_refused_naming_them() {
        let e = fail("x\ny\nx\ny\n", "@@\n-x\n+1");
        assert!(
            e.starts_with("hunk 1: ") && e.contains("matches 2 places (lines 1, 3) exactly"),
            "{e}"
        );
        assert!(e.contains("@@ line"), "{e}");
        // Uniqueness is judged after the hunk before: the second `x` is the only one left.
        assert_eq!(apply("x\ny\nx\ny\n", "@@ y\n-x\n+2"), "x\ny\n2\ny\n");
        let e = fail("a\n  b\nc\n  b\n", "@@\n-b\n+B");
        assert!(e.contains("lines 2, 4") && e.contains("after ignoring"), "{e}");
    }

    #[test]
    fn how_each_hunk_matched_is_said_and_added_lines_take_the_files_indentation() {
        let applied = apply_chunks(
            "fn f() {\n    let x = 1;\n}\n",
            &chunks("@@\n-let x = 1;\n+let x = 2;\n+let y = 3;"),
        )
        .unwrap();
        assert_eq!(applied.text, "fn f() {\n    let x = 2;\n    let y = 3;\n}\n");
        assert_eq!(
            applied.lenient_summary(),
            "hunk 1 matched after ignoring indentation at line 2"
        );
        let exact = apply_chunks("a\nb\n", &chunks("@@\n-a\n+A")).unwrap();
        assert_eq!(exact.lenient_summary(), "");
    }

    #[test]
    fn copied_line_numbers_are_refused_not_stripped() {
        let e = fail("a\nb\n", "@@\n-     1\ta\n+A");
        assert!(e.contains("line numbers"), "{e}");
    }

    #[test]
    fn the_context_header_is_found_first() {
        let original = "fn a() {\n    return 1;\n}\nfn b() {\n    return 1;\n}\n";
        assert_eq!(
            apply(original, "@@ fn b() {\n-    return 1;\n+    return 2;"),
            "fn a() {\n    return 1;\n}\nfn b() {\n    return 2;\n}\n"
        );
    }

    #[test]
    fn end_of_file_hunks_match_at_the_end() {
        assert_eq!(
            apply("first\nsecond\n", "@@\n first\n-second\n+second updated\n*** End of File"),
            "first\nsecond updated\n"
        );
        assert_eq!(apply("x\nmid\nx\n", "@@\n-x\n+end\n*** End of File"), "x\nmid\nend\n");
    }

    #[test]
    fn a_missing_final_line_break_is_added() {
        assert_eq!(
            apply("no newline at end", "@@\n-no newline at end\n+first line\n+second line"),
            "first line\nsecond line\n"
        );
        assert_eq!(apply("a\nb", "@@\n a\n-b\n+c"), "a\nc\n");
    }

    #[test]
    fn deletion_only() {
        assert_eq!(apply("line1\nline2\nline3\n", "@@\n line1\n-line2\n line3"), "line1\nline3\n");
        assert_eq!(apply("only\n", "@@\n-only"), "");
    }

    #[test]
    fn pure_additions_go_to_the_end_or_after_the_header() {
        assert_eq!(
            apply("line1\nline2\n", "@@\n+added line 1\n+added line 2"),
            "line1\nline2\nadded line 1\nadded line 2\n"
        );
        // Before a final empty line, as codex does.
        assert_eq!(apply("a\n\n", "@@\n+b"), "a\nb\n\n");
        assert_eq!(
            apply("fn main() {\n}\n", "@@ fn main() {\n+    go();"),
            "fn main() {\n    go();\n}\n"
        );
        assert_eq!(apply("", "@@\n+first"), "first\n");
    }

    #[test]
    fn a_trailing_empty_line_may_stand_for_the_final_line_break() {
        assert_eq!(apply("a\nb\n", "@@\n a\n-b\n+c\n"), "a\nc\n");
    }

    #[test]
    fn whitespace_and_unicode_punctuation_are_tolerated() {
        assert_eq!(apply("    foo  \n", "@@\n-foo\n+bar"), "    bar\n");
        assert_eq!(
            apply("say “hi” — it’s ok\nnext\n", "@@\n-say \"hi\" - it's ok\n+say hi"),
            "say hi\nnext\n"
        );
        assert_eq!(
            apply("line1\nnaïve café\nline3\n", "@@\n line1\n-naïve café\n+naïve café ✅"),
            "line1\nnaïve café ✅\nline3\n"
        );
    }

    #[test]
    fn a_context_line_matched_loosely_stays_as_the_file_has_it() {
        assert_eq!(
            apply("x \u{2014} \u{201c}y\u{201d}  \nold\n", "@@\n x - \"y\"\n-old\n+new"),
            "x \u{2014} \u{201c}y\u{201d}  \nnew\n"
        );
    }

    #[test]
    fn crlf_files_stay_crlf() {
        assert_eq!(apply("a\r\nb\r\nc\r\n", "@@\n a\n-b\n+B\n+B2"), "a\r\nB\r\nB2\r\nc\r\n");
        assert_eq!(apply("a\r\nb", "@@\n-b\n+c"), "a\r\nc\r\n");
        // Mixed endings: matched leniently; a context line stays as the file has it (its
        // `\r` too), an added line gets `\n`, the rest of the file is kept as it is.
        assert_eq!(apply("a\r\nb\nc\r\n", "@@\n a\n-b\n+B"), "a\r\nB\nc\r\n");
    }

    #[test]
    fn a_byte_order_mark_is_kept_and_never_matched() {
        assert_eq!(apply("\u{FEFF}a\nb\n", "@@\n-a\n+A"), "\u{FEFF}A\nb\n");
        assert_eq!(apply("\u{FEFF}a\r\nb\r\n", "@@\n a\n-b\n+c"), "\u{FEFF}a\r\nc\r\n");
    }

    #[test]
    fn lines_not_found_names_the_first_missing_line_and_the_closest_region() {
        let original: String = (1..=50).map(|i| format!("    let v{i} = {i};\n")).collect();
        let message = fail(
            &original,
            "@@\n-    let v1 = 1;\n+one\n@@\n     let v41 = 41;\n     let v42 = 42;\n-    let v43 = 44;\n+x",
        );
        assert_eq!(
            message,
            "hunk 2: the line \"    let v43 = 44;\" (line 3 of the hunk's context and removed lines) \
             was not found after line 1 following the 2 lines before it; the closest region is \
             lines 41-45:\n\
             \x20 41 |     let v41 = 41;\n\
             \x20 42 |     let v42 = 42;\n\
             \x20 43 |     let v43 = 43;\n\
             \x20 44 |     let v44 = 44;\n\
             \x20 45 |     let v45 = 45;\n\
             Copy the context and removed lines exactly from the current file (read it again if \
             it may have changed), or anchor the hunk with a nearby @@ line"
        );
    }

    #[test]
    fn a_first_line_not_found_shows_the_most_alike_line() {
        let original = "alpha\nbeta\nfn compute(x: u32) -> u32 {\n    x + 1\n}\n";
        let err = apply_chunks(original, &chunks("@@\n-fn compute(x: u64) -> u64 {\n+fn f() {"))
            .unwrap_err();
        assert_eq!(
            err,
            ApplyError {
                hunk: 1,
                kind: ApplyErrorKind::LinesNotFound {
                    line: 1,
                    text: "fn compute(x: u64) -> u64 {".into(),
                    after: 0,
                    closest: Some(Region {
                        first: 1,
                        lines: vec![
                            "alpha".into(),
                            "beta".into(),
                            "fn compute(x: u32) -> u32 {".into(),
                            "    x + 1".into(),
                            "}".into()
                        ]
                    }),
                },
            }
        );
        assert_eq!(
            fail("abc\n", "@@\n-xyz\n+q"),
            "hunk 1: the line \"xyz\" (line 1 of the hunk's context and removed lines) was not \
             found in the file; no line in the file resembles it\n\
             Copy the context and removed lines exactly from the current file (read it again if \
             it may have changed), or anchor the hunk with a nearby @@ line"
        );
    }

    #[test]
    fn a_header_not_found_is_named() {
        assert_eq!(
            fail("fn main() {\n}\n", "@@ fn mian() {\n+x"),
            "hunk 1: the @@ line \"fn mian() {\" was not found in the file; the closest region \
             is lines 1-2:\n\
             \x20 1 | fn main() {\n\
             \x20 2 | }\n\
             Copy the context and removed lines exactly from the current file (read it again if \
             it may have changed), or anchor the hunk with a nearby @@ line"
        );
    }

    #[test]
    fn the_message_is_bounded() {
        let long = "x".repeat(100_000);
        let original = format!("{long}\n{long}\n{long}\n{long}\n{long}\n{long}\n");
        let body = format!("@@ {long}y\n-{long}\n+z");
        let message = fail(&original, &body);
        assert!(message.len() < 3000, "{}", message.len());
        let message = fail(&original, &format!("@@\n {long}\n {long}\n-{long}y\n+z"));
        assert!(message.len() < 3000, "{}", message.len());
        assert!(message.contains("(line 3 of the hunk's"), "{message}");
    }

    #[test]
    fn a_hundred_hunks_over_a_large_file_apply_in_order() {
        let original: String = (0..20_000).map(|i| format!("line {i}\n")).collect();
        let body: String = (0..100)
            .map(|h| {
                format!(
                    "@@ line {}\n line {}\n-line {}\n+changed {h}\n",
                    h * 200,
                    h * 200 + 1,
                    h * 200 + 2
                )
            })
            .collect();
        let out = apply(&original, body.trim_end());
        assert!(out.contains("line 201\nchanged 1\nline 203\n"));
        assert_eq!(out.lines().count(), 20_000);
    }
}
