//! Finding a hunk's lines in a file: the four-pass sequence search of codex's grammar.
//!
//! A pattern of lines is looked for at or after a start line, first exactly, then ignoring
//! trailing whitespace, then ignoring whitespace at both ends, then also with the Unicode
//! dashes, quotes and spaces a model tends to type as ASCII read as their ASCII forms. Each
//! pass scans the whole range before the next, more lenient one starts, so an exact match
//! always wins over a lenient one further up. The work is O(file lines × pattern lines) per pass.

/// How two lines are compared in one pass of the search.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Pass {
    /// Byte for byte.
    Exact,
    /// Trailing whitespace ignored.
    TrimEnd,
    /// Leading and trailing whitespace ignored.
    Trim,
    /// As `Trim`, with Unicode punctuation and spaces read as ASCII ([`normalise_char`]).
    Normalised,
}

/// The passes, strictest first.
const PASSES: [Pass; 4] = [Pass::Exact, Pass::TrimEnd, Pass::Trim, Pass::Normalised];

pub use toolhost_edit_match::normalise_char;

/// Whether `line` (of the file) and `pattern` (of the hunk) are the same under `pass`.
fn same(pass: Pass, line: &str, pattern: &str) -> bool {
    match pass {
        Pass::Exact => line == pattern,
        Pass::TrimEnd => line.trim_end() == pattern.trim_end(),
        Pass::Trim => line.trim() == pattern.trim(),
        Pass::Normalised => {
            line.trim().chars().map(normalise_char).eq(pattern.trim().chars().map(normalise_char))
        }
    }
}

/// The first index in `from..=last` where `pattern` matches `lines` under `pass`.
fn scan(
    lines: &[String],
    pattern: &[String],
    from: usize,
    last: usize,
    pass: Pass,
) -> Option<usize> {
    (from..=last)
        .find(|&i| lines[i..i + pattern.len()].iter().zip(pattern).all(|(l, p)| same(pass, l, p)))
}

/// The index of the first place at or after `start` where `pattern` occurs in `lines`, trying
/// the passes strictest first; `Some(start)` for an empty pattern. With `eof`, the one place
/// that ends at the end of `lines` is tried first (every pass), then the search from `start`.
pub fn seek_sequence(
    lines: &[String],
    pattern: &[String],
    start: usize,
    eof: bool,
) -> Option<usize> {
    if pattern.is_empty() {
        return Some(start);
    }
    if pattern.len() > lines.len() {
        return None;
    }
    let last = lines.len() - pattern.len();
    if eof && last >= start {
        for pass in PASSES {
            if let Some(i) = scan(lines, pattern, last, last, pass) {
                return Some(i);
            }
        }
    }
    if start > last {
        return None;
    }
    PASSES.into_iter().find_map(|pass| scan(lines, pattern, start, last, pass))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(lines: &[&str]) -> Vec<String> {
        lines.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn exact_match_is_found() {
        assert_eq!(
            seek_sequence(&v(&["foo", "bar", "baz"]), &v(&["bar", "baz"]), 0, false),
            Some(1)
        );
    }

    #[test]
    fn search_starts_at_start() {
        let lines = v(&["a", "x", "a", "x"]);
        assert_eq!(seek_sequence(&lines, &v(&["a"]), 0, false), Some(0));
        assert_eq!(seek_sequence(&lines, &v(&["a"]), 1, false), Some(2));
        assert_eq!(seek_sequence(&lines, &v(&["a"]), 3, false), None);
        assert_eq!(seek_sequence(&lines, &v(&["a"]), 9, false), None);
    }

    #[test]
    fn trailing_whitespace_is_ignored_second() {
        assert_eq!(
            seek_sequence(&v(&["foo   ", "bar\t\t"]), &v(&["foo", "bar"]), 0, false),
            Some(0)
        );
    }

    #[test]
    fn surrounding_whitespace_is_ignored_third() {
        assert_eq!(
            seek_sequence(&v(&["    foo   ", "   bar\t"]), &v(&["foo", "bar"]), 0, false),
            Some(0)
        );
    }

    #[test]
    fn an_exact_match_further_down_beats_a_lenient_one_above() {
        let lines = v(&["  foo", "foo"]);
        assert_eq!(seek_sequence(&lines, &v(&["foo"]), 0, false), Some(1));
    }

    #[test]
    fn unicode_punctuation_is_read_as_ascii_last() {
        let lines = v(&["let s = “hi” – it’s\u{00A0}ok;", "x"]);
        assert_eq!(seek_sequence(&lines, &v(&["let s = \"hi\" - it's ok;"]), 0, false), Some(0));
        // And the other way round: the pattern has the typographic forms.
        assert_eq!(seek_sequence(&v(&["a - b"]), &v(&["a \u{2014} b"]), 0, false), Some(0));
        // Other characters are not folded.
        assert_eq!(seek_sequence(&v(&["naïve"]), &v(&["naive"]), 0, false), None);
    }

    #[test]
    fn eof_tries_the_end_first_then_from_start() {
        let lines = v(&["end", "mid", "end"]);
        assert_eq!(seek_sequence(&lines, &v(&["end"]), 0, true), Some(2));
        assert_eq!(seek_sequence(&lines, &v(&["end"]), 0, false), Some(0));
        assert_eq!(seek_sequence(&lines, &v(&["mid"]), 0, true), Some(1));
    }

    #[test]
    fn edge_cases() {
        assert_eq!(seek_sequence(&v(&["one"]), &v(&["too", "many"]), 0, false), None);
        assert_eq!(seek_sequence(&v(&["one"]), &[], 1, false), Some(1));
        assert_eq!(seek_sequence(&[], &v(&["x"]), 0, true), None);
    }
}
