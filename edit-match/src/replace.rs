//! Replacing a substring (`str_replace`, `multi_edit`): exact first, then whole lines.
//!
//! Tier [`Tier::Exact`] is substring search over the whole text, counting non-overlapping
//! occurrences. Only when there is none do the line tiers run: `old` is split into lines (a
//! trailing newline adds no empty line) and matched against whole lines of the text, and
//! `new`, split the same way, replaces those whole lines, written with the file's line
//! ending ([`line_ending`]) and re-indented after a tier that ignores indentation
//! ([`crate::reindent`]). With `replace_all`, every place the first tier with any finds is
//! replaced (non-overlapping, left to right); without it, several are an error.

use crate::diagnose;
use crate::error::MatchError;
use crate::lines::{Prepared, line_number_prefixes};
use crate::reindent::reindent;
use crate::tier::Tier;

/// The text after a replacement, and how it was matched.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Replaced {
    /// The whole new text.
    pub text: String,
    /// The tier that found the replaced places.
    pub tier: Tier,
    /// The 1-based line, in the old text, where the first replaced place starts.
    pub line: usize,
    /// How many places were replaced.
    pub count: usize,
}

impl Replaced {
    /// The sentence for the replacement: `matched exactly at line 3`, or with several places
    /// `matched 4 places after ignoring indentation, the first at line 120`.
    pub fn summary(&self) -> String {
        if self.count == 1 {
            self.tier.matched_at(self.line)
        } else {
            format!(
                "matched {} places {}, the first at line {}",
                self.count,
                self.tier.adverb(),
                self.line
            )
        }
    }
}

/// The line ending of `text`: `\r\n` when its first line break is one, else `\n`.
pub fn line_ending(text: &str) -> &'static str {
    match text.find('\n') {
        Some(i) if text[..i].ends_with('\r') => "\r\n",
        _ => "\n",
    }
}

/// The lines of `s` without their `\n`; a trailing `\n` adds no empty line.
fn pieces(s: &str) -> Vec<&str> {
    let mut pieces: Vec<&str> = s.split('\n').collect();
    if s.ends_with('\n') || s.is_empty() {
        pieces.pop();
    }
    pieces
}

/// The byte spans of `text`'s lines, each with its line break.
fn line_spans(text: &str) -> Vec<(usize, usize)> {
    let mut spans = Vec::new();
    let mut start = 0;
    for (i, _) in text.match_indices('\n') {
        spans.push((start, i + 1));
        start = i + 1;
    }
    if start < text.len() {
        spans.push((start, text.len()));
    }
    spans
}

/// The 1-based line of each byte offset in `offsets` (ascending) within `text`.
fn lines_of(text: &str, offsets: &[usize]) -> Vec<usize> {
    let (mut line, mut from) = (1, 0);
    offsets
        .iter()
        .map(|&at| {
            line += text.as_bytes()[from..at].iter().filter(|&&b| b == b'\n').count();
            from = at;
            line
        })
        .collect()
}

/// Replace `old` (non-empty) by `new` in `text`, once or, with `replace_all`, at every place
/// of the first tier that finds any (module docs).
pub fn replace(
    text: &str,
    old: &str,
    new: &str,
    replace_all: bool,
) -> Result<Replaced, MatchError> {
    if old.is_empty() {
        return Err(MatchError::Empty);
    }
    let exact: Vec<usize> = text.match_indices(old).map(|(i, _)| i).collect();
    if let Some(&first) = exact.first() {
        let lines = lines_of(text, &exact);
        if exact.len() > 1 && !replace_all {
            return Err(MatchError::Ambiguous { tier: Tier::Exact, lines });
        }
        let text = if replace_all {
            text.replace(old, new)
        } else {
            format!("{}{new}{}", &text[..first], &text[first + old.len()..])
        };
        return Ok(Replaced { text, tier: Tier::Exact, line: lines[0], count: exact.len() });
    }
    let old_lines = pieces(old);
    if let Some(first_line) = line_number_prefixes(old_lines.iter().copied()) {
        return Err(MatchError::LineNumberPrefixes { first_line });
    }
    let spans = line_spans(text);
    let content = |&(start, end): &(usize, usize)| {
        let line = &text[start..end];
        line.strip_suffix('\n').unwrap_or(line)
    };
    // Every line of `old` but an unterminated last one has a known ending.
    let terminated = if old.ends_with('\n') { old_lines.len() } else { old_lines.len() - 1 };
    let prep = Prepared::build(
        spans.iter().map(content),
        old_lines.iter().enumerate().map(|(j, l)| (*l, j < terminated)),
    );
    for tier in &Tier::ALL[1..] {
        let candidates = prep.candidates(*tier, 0);
        if candidates.is_empty() {
            continue;
        }
        if candidates.len() > 1 && !replace_all {
            let lines = candidates.iter().map(|i| i + 1).collect();
            return Err(MatchError::Ambiguous { tier: *tier, lines });
        }
        let m = old_lines.len();
        let mut chosen = Vec::new();
        for i in candidates {
            if chosen.last().is_none_or(|&last| i >= last + m) {
                chosen.push(i);
            }
        }
        let strip = |l: &str| l.strip_suffix('\r').unwrap_or(l).to_owned();
        let pattern: Vec<String> = old_lines.iter().map(|l| strip(l)).collect();
        let new_lines: Vec<String> = pieces(new).into_iter().map(strip).collect();
        let eol = line_ending(text);
        let mut out = String::with_capacity(text.len() + new.len() * chosen.len());
        let mut at = 0;
        for &i in &chosen {
            let (start, end) = (spans[i].0, spans[i + m - 1].1);
            out.push_str(&text[at..start]);
            let replacement = if tier.reindents() {
                let found: Vec<String> =
                    spans[i..i + m].iter().map(|s| strip(content(s))).collect();
                reindent(*tier, &new_lines, &pattern, &found)
            } else {
                new_lines.clone()
            };
            let ends_with_break = text[..end].ends_with('\n');
            for (k, line) in replacement.iter().enumerate() {
                out.push_str(line);
                if k + 1 < replacement.len() || ends_with_break {
                    out.push_str(eol);
                }
            }
            at = end;
        }
        out.push_str(&text[at..]);
        return Ok(Replaced { text: out, tier: *tier, line: chosen[0] + 1, count: chosen.len() });
    }
    Err(diagnose::not_found(&prep, 0))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ok(text: &str, old: &str, new: &str, all: bool) -> (String, Tier, usize, usize) {
        let r = replace(text, old, new, all).unwrap();
        (r.text, r.tier, r.line, r.count)
    }

    #[test]
    fn exact_substrings() {
        assert_eq!(
            ok("a\nb = 1;\n", "= 1", "= 2", false),
            ("a\nb = 2;\n".into(), Tier::Exact, 2, 1)
        );
        // Two exact occurrences: an error, though the line tiers would not matter.
        assert_eq!(
            replace("x = 1;\ny\nx = 1;", "x = 1", "z", false),
            Err(MatchError::Ambiguous { tier: Tier::Exact, lines: vec![1, 3] })
        );
        assert_eq!(
            ok("foo foo\nfoo\n", "foo", "bar", true),
            ("bar bar\nbar\n".into(), Tier::Exact, 1, 3)
        );
        assert_eq!(ok("aaaa", "aa", "b", true).0, "bb");
        assert_eq!(replace("a", "", "b", false), Err(MatchError::Empty));
        assert_eq!(replace("a", "", "b", true), Err(MatchError::Empty));
    }

    #[test]
    fn an_exact_match_further_down_beats_a_lenient_one_above() {
        // Ignoring trailing whitespace, "foo()" is on lines 1 and 3; exactly only on 3.
        assert_eq!(
            ok("foo() \nbar\nfoo()\n", "foo()\n", "baz()\n", false),
            ("foo() \nbar\nbaz()\n".into(), Tier::Exact, 3, 1)
        );
    }

    #[test]
    fn whole_lines_by_the_tolerant_tiers() {
        assert_eq!(
            ok("a\nfoo  \nb\n", "foo\n", "bar", false),
            ("a\nbar\nb\n".into(), Tier::TrailingWhitespace, 2, 1)
        );
        let text = "fn f() {\n        if x {\n            y();\n        }\n}\n";
        let r = replace(text, "if x {\n    y();\n}", "if x {\n    z();\n}", false).unwrap();
        assert_eq!(r.text, "fn f() {\n        if x {\n            z();\n        }\n}\n");
        assert_eq!((r.tier, r.line), (Tier::Indentation, 2));
        assert_eq!(r.summary(), "matched after ignoring indentation at line 2");
        // The last line without a line break keeps having none.
        assert_eq!(ok("a\n  b", "b ", "c", false), ("a\n  c".into(), Tier::Indentation, 2, 1));
        // Removing the lines.
        assert_eq!(ok("a\n  b\nc\n", "b \n", "", false).0, "a\nc\n");
    }

    #[test]
    fn tabs_in_the_file() {
        // A flush pattern takes the file's tabs.
        let text = "fn f() {\n\t\tcall(1);\n}\n";
        assert_eq!(
            ok(text, "call(1); \n", "call(2);\nmore();\n", false),
            ("fn f() {\n\t\tcall(2);\n\t\tmore();\n}\n".into(), Tier::Indentation, 2, 1)
        );
        // Spaces against tabs: matched by widths, written with the file's tabs.
        let text = "\tif a {\n\t\tb();\n\t}\n";
        let r = replace(
            text,
            "    if a {\n        b();\n    }",
            "    if a {\n        c();\n    }",
            false,
        )
        .unwrap();
        assert_eq!((r.text.as_str(), r.tier), ("\tif a {\n\t\tc();\n\t}\n", Tier::TabsSpaces));
    }

    #[test]
    fn crlf_files_keep_crlf() {
        let text = "fn a() {\r\n    1\r\n}\r\n";
        assert_eq!(
            ok(text, "fn a() {\n    1\n", "fn a() {\n    2\n    3\n", false),
            ("fn a() {\r\n    2\r\n    3\r\n}\r\n".into(), Tier::Normalised, 1, 1)
        );
        // A single unterminated line: its ending is not compared.
        assert_eq!(
            ok(text, "1  ", "2", false),
            ("fn a() {\r\n    2\r\n}\r\n".into(), Tier::Indentation, 2, 1)
        );
        assert_eq!(line_ending("a\nb\r\n"), "\n");
        assert_eq!(line_ending("a"), "\n");
    }

    #[test]
    fn curly_quotes_and_dashes() {
        let text = "let s = \u{201C}hi\u{201D}; // a \u{2013} b\n";
        let r = replace(text, "let s = \"hi\"; // a - b", "let s = \"bye\";", false).unwrap();
        assert_eq!((r.text.as_str(), r.tier), ("let s = \"bye\";\n", Tier::Normalised));
        assert_eq!(
            r.summary(),
            "matched after normalising line endings and Unicode punctuation at line 1"
        );
    }

    #[test]
    fn replace_all_with_a_tolerant_tier() {
        let text = "  foo\nbar\n\tfoo\n";
        let r = replace(text, "foo \n", "baz", true).unwrap();
        assert_eq!(
            (r.text.as_str(), r.tier, r.count),
            ("  baz\nbar\n\tbaz\n", Tier::Indentation, 2)
        );
        assert_eq!(r.summary(), "matched 2 places after ignoring indentation, the first at line 1");
        assert_eq!(
            replace(text, "foo \n", "baz", false),
            Err(MatchError::Ambiguous { tier: Tier::Indentation, lines: vec![1, 3] })
        );
        // Overlapping places: left to right, non-overlapping.
        assert_eq!(
            ok("a \na \na \n", "a\na", "x", true),
            ("x\na \n".into(), Tier::TrailingWhitespace, 1, 1)
        );
    }

    #[test]
    fn line_number_prefixes_are_refused_unless_exact() {
        let text = "fn main() {\n    run();\n}\n";
        assert_eq!(
            replace(text, "2\t    run();\n3\t}", "x", false),
            Err(MatchError::LineNumberPrefixes { first_line: "2\t    run();".into() })
        );
        assert_eq!(
            replace(text, "  12: fn main() {\n", "x", false),
            Err(MatchError::LineNumberPrefixes { first_line: "  12: fn main() {".into() })
        );
        assert_eq!(ok("1: a\n2: b\n", "1: a\n2: b", "x", false).1, Tier::Exact);
    }

    #[test]
    fn not_found_says_what_fixes_it() {
        let text = "a\nfn f() {\n    x();\n}\n";
        let err = replace(text, "fn f() {\n    y();\n}", "z", false).unwrap_err();
        assert_eq!(
            err.message("old_str", "src/f.rs"),
            "old_str was not found in src/f.rs; its line 2 (\"    y();\") occurs nowhere in the \
             file; the closest place is lines 2-4:\n fn f() {\n-    y();\n+    x();\n }"
        );
    }

    #[test]
    fn a_1_mib_text() {
        let text: String =
            (0..25_000).map(|i| format!("    let value_{i} = compute({i}, \"x\");\n")).collect();
        assert!(text.len() > 1024 * 1024);
        let r = replace(&text, "let value_24000 = compute(24000, \"x\"); \n", "done();\n", false)
            .unwrap();
        assert_eq!((r.tier, r.line), (Tier::Indentation, 24_001));
        assert!(r.text.contains("\n    done();\n    let value_24001"));
        assert!(matches!(
            replace(&text, "let value_1 = compute(1, \"x\"); \nnope", "", false),
            Err(MatchError::NotFound { .. })
        ));
    }
}
