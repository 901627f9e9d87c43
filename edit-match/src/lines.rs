//! Finding a sequence of lines (an `apply_patch` hunk) in a file's lines.
//!
//! The tiers are tried strictest first over the candidates at or after `start`; the first
//! tier with any candidate decides: one is the match, several are [`MatchError::Ambiguous`].
//! With `eof`, the one place ending at the last line is tried first under every tier (as
//! codex's grammar does for a hunk marked end-of-file), then the normal search from `start`
//! runs, so a hunk marked end-of-file still applies when its lines are elsewhere but unique.
//! Each tier is O(file lines x pattern lines) comparisons of forms computed once per call.

use crate::diagnose;
use crate::error::MatchError;
use crate::tier::{Forms, Interner, Tier, is_blank, same};

/// Where [`find_lines`] found a pattern.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LineMatch {
    /// The 0-based index of the first matched line.
    pub index: usize,
    /// The tier that found it.
    pub tier: Tier,
}

impl LineMatch {
    /// The 1-based first matched line.
    pub fn line(&self) -> usize {
        self.index + 1
    }

    /// The sentence for the match: `matched after ignoring indentation at line 120`.
    pub fn summary(&self) -> String {
        self.tier.matched_at(self.line())
    }
}

/// A file's lines and a pattern's, in every form the tiers compare.
pub(crate) struct Prepared<'a> {
    /// The file's lines.
    pub file: Vec<Forms<'a>>,
    /// The pattern's lines.
    pub pattern: Vec<Forms<'a>>,
    /// How many distinct normalised texts the file has: a pattern line whose number is at
    /// least this occurs nowhere in the file.
    pub file_keys: u32,
}

impl<'a> Prepared<'a> {
    /// The forms of `file` and `pattern`, every line's ending known.
    pub(crate) fn new(file: &'a [String], pattern: &'a [String]) -> Self {
        Self::build(file.iter().map(String::as_str), pattern.iter().map(|p| (p.as_str(), true)))
    }

    /// The forms of `file` and of `pattern`'s lines, each with whether its ending is known.
    pub(crate) fn build(
        file: impl IntoIterator<Item = &'a str>,
        pattern: impl IntoIterator<Item = (&'a str, bool)>,
    ) -> Self {
        let mut interner = Interner::default();
        let file: Vec<_> = file.into_iter().map(|l| Forms::new(l, true, &mut interner)).collect();
        let file_keys = interner.len();
        let pattern =
            pattern.into_iter().map(|(l, known)| Forms::new(l, known, &mut interner)).collect();
        Prepared { file, pattern, file_keys }
    }

    /// The last index a place can start at, if the pattern fits in the file at all.
    pub(crate) fn last_start(&self) -> Option<usize> {
        self.file.len().checked_sub(self.pattern.len())
    }

    /// Whether the pattern matches the file's lines from index `i` under `tier`.
    pub(crate) fn matches_at(&self, tier: Tier, i: usize) -> bool {
        let file = &self.file[i..i + self.pattern.len()];
        self.pattern.iter().zip(file).all(|(p, f)| same(tier, f, p))
            && crate::shift::one_shift(tier, &self.pattern, file)
    }

    /// Every index at or after `from` where the pattern matches under `tier` (overlapping
    /// places included).
    pub(crate) fn candidates(&self, tier: Tier, from: usize) -> Vec<usize> {
        match self.last_start() {
            Some(last) if from <= last => {
                (from..=last).filter(|&i| self.matches_at(tier, i)).collect()
            }
            _ => Vec::new(),
        }
    }
}

/// The first non-blank line of a pattern whose every non-blank line starts with a line
/// number as read/view output prints it (`^\s*\d+\t`, `^\s*\d+: ` or `^\s*\d+\|`).
pub(crate) fn line_number_prefixes<'s>(
    pattern: impl IntoIterator<Item = &'s str>,
) -> Option<String> {
    let mut first = None;
    for line in pattern.into_iter().filter(|l| !is_blank(l)) {
        let rest = line.trim_start();
        let after = rest.trim_start_matches(|c: char| c.is_ascii_digit());
        let numbered = after.len() < rest.len()
            && (after.starts_with('\t') || after.starts_with(": ") || after.starts_with('|'));
        if !numbered {
            return None;
        }
        first.get_or_insert(line);
    }
    first.map(str::to_owned)
}

/// The decision of one tier over its candidates: none (try the next tier), one, or several.
pub(crate) fn decide(tier: Tier, candidates: &[usize]) -> Option<Result<LineMatch, MatchError>> {
    match candidates {
        [] => None,
        [index] => Some(Ok(LineMatch { index: *index, tier })),
        several => Some(Err(MatchError::Ambiguous {
            tier,
            lines: several.iter().map(|i| i + 1).collect(),
        })),
    }
}

/// The one place at or after `start` where `pattern` occurs in `lines`, by the first tier
/// that finds any (module docs); `start` itself for an empty pattern. Lines are given
/// without `\n`; a final `\r` is read as a CRLF ending.
pub fn find_lines(
    lines: &[String],
    pattern: &[String],
    start: usize,
    eof: bool,
) -> Result<LineMatch, MatchError> {
    if pattern.is_empty() {
        return Ok(LineMatch { index: start, tier: Tier::Exact });
    }
    let numbered = line_number_prefixes(pattern.iter().map(String::as_str));
    let exact_at = |i: usize| lines[i..].iter().zip(pattern).all(|(l, p)| l == p);
    let at_end = lines.len().checked_sub(pattern.len()).filter(|&last| eof && last >= start);
    if let Some(last) = at_end.filter(|&last| exact_at(last)) {
        return Ok(LineMatch { index: last, tier: Tier::Exact });
    }
    // The exact search needs no prepared forms, so an exact hunk costs no pass over the
    // whole file; it runs here unless the end still has lenient tiers to try first.
    let exact_done = at_end.is_none() || numbered.is_some();
    if exact_done {
        let exact: Vec<usize> = match lines.len().checked_sub(pattern.len()) {
            Some(last) if start <= last => (start..=last).filter(|&i| exact_at(i)).collect(),
            _ => Vec::new(),
        };
        if let Some(decided) = decide(Tier::Exact, &exact) {
            return decided;
        }
        // Numbered text may match exactly, never leniently.
        if let Some(first_line) = numbered {
            return Err(MatchError::LineNumberPrefixes { first_line });
        }
    }
    let prep = Prepared::new(lines, pattern);
    if let Some(last) = at_end
        && let Some(&tier) = Tier::ALL[1..].iter().find(|&&tier| prep.matches_at(tier, last))
    {
        return Ok(LineMatch { index: last, tier });
    }
    let tiers = if exact_done { &Tier::ALL[1..] } else { &Tier::ALL[..] };
    for &tier in tiers {
        if let Some(decided) = decide(tier, &prep.candidates(tier, start)) {
            return decided;
        }
    }
    Err(diagnose::not_found(&prep, start))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(lines: &[&str]) -> Vec<String> {
        lines.iter().map(|s| s.to_string()).collect()
    }

    fn find(
        lines: &[&str],
        pattern: &[&str],
        start: usize,
        eof: bool,
    ) -> Result<LineMatch, MatchError> {
        find_lines(&v(lines), &v(pattern), start, eof)
    }

    fn at(index: usize, tier: Tier) -> Result<LineMatch, MatchError> {
        Ok(LineMatch { index, tier })
    }

    #[test]
    fn every_tier_matches_uniquely() {
        let file = ["fn a() {", "    x();   ", "}", "\tlet s = \u{201C}hi\u{201D};\r", "end"];
        assert_eq!(find(&file, &["fn a() {", "    x();   "], 0, false), at(0, Tier::Exact));
        assert_eq!(find(&file, &["    x();", "}"], 0, false), at(1, Tier::TrailingWhitespace));
        assert_eq!(find(&file, &["x();"], 0, false), at(1, Tier::Indentation));
        // Flattened (the body at the level of its braces): no one shift, no tier.
        assert!(find(&file, &["x();", "}"], 0, false).is_err());
        assert_eq!(find(&file, &["\tlet s = \"hi\";", "end"], 0, false), at(3, Tier::Normalised));
        // A CRLF line against an LF pattern line is a line-ending difference.
        assert_eq!(find(&file, &["\tlet s = \u{201C}hi\u{201D};"], 0, false), {
            at(3, Tier::Normalised)
        });
    }

    #[test]
    fn tabs_against_spaces_match_by_width() {
        // One tab for four spaces at every level: no one shift of characters, one of widths.
        let file = ["fn a() {", "\tif x {", "\t\ty();", "\t}", "}"];
        assert_eq!(
            find(&file, &["    if x {", "        y();", "    }"], 0, false),
            at(1, Tier::TabsSpaces)
        );
        // The same characters shifted alike: `Indentation`.
        assert_eq!(find(&file, &["if x {", "\ty();", "}"], 0, false), at(1, Tier::Indentation));
    }

    #[test]
    fn ambiguity_in_a_tier_stops_the_search() {
        // Two exact places: an error, though a later tier would not matter.
        let file = ["a", "b", "a", "b"];
        assert_eq!(
            find(&file, &["a", "b"], 0, false),
            Err(MatchError::Ambiguous { tier: Tier::Exact, lines: vec![1, 3] })
        );
        // Two places after ignoring indentation.
        let file = ["x", "  foo()", "y", "\tfoo()", "z"];
        assert_eq!(
            find(&file, &["foo()"], 0, false),
            Err(MatchError::Ambiguous { tier: Tier::Indentation, lines: vec![2, 4] })
        );
        // One trailing-whitespace place above two indentation ones: the stricter tier wins.
        let file = ["foo() ", "  foo()", "    foo()"];
        assert_eq!(find(&file, &["foo()"], 0, false), at(0, Tier::TrailingWhitespace));
        // Overlapping places count.
        assert_eq!(
            find(&["a", "a", "a"], &["a", "a"], 0, false),
            Err(MatchError::Ambiguous { tier: Tier::Exact, lines: vec![1, 2] })
        );
    }

    #[test]
    fn an_exact_match_further_down_beats_a_lenient_one_above() {
        assert_eq!(find(&["  foo", "bar", "foo"], &["foo"], 0, false), at(2, Tier::Exact));
    }

    #[test]
    fn candidates_start_at_start() {
        let lines = ["a", "x", "a", "x"];
        assert_eq!(find(&lines, &["a"], 1, false), at(2, Tier::Exact));
        assert!(matches!(find(&lines, &["a"], 3, false), Err(MatchError::NotFound { .. })));
        assert!(matches!(find(&lines, &["a"], 9, false), Err(MatchError::NotFound { .. })));
        assert_eq!(find(&lines, &[], 1, false), at(1, Tier::Exact));
        assert!(matches!(find(&[], &["x"], 0, true), Err(MatchError::NotFound { .. })));
        assert!(matches!(
            find(&["one"], &["too", "many"], 0, false),
            Err(MatchError::NotFound { .. })
        ));
    }

    #[test]
    fn eof_tries_the_last_place_first_then_the_search_from_start() {
        let lines = ["end", "mid", "end"];
        // Unique at the end though it occurs twice.
        assert_eq!(find(&lines, &["end"], 0, true), at(2, Tier::Exact));
        assert!(matches!(find(&lines, &["end"], 0, false), Err(MatchError::Ambiguous { .. })));
        // Every tier at the end before the search: a lenient end beats an exact elsewhere.
        assert_eq!(find(&["end", "mid", "  end"], &["end"], 0, true), at(2, Tier::Indentation));
        // Not at the end: the normal search.
        assert_eq!(find(&lines, &["mid"], 0, true), at(1, Tier::Exact));
    }

    #[test]
    fn line_number_prefixes_are_refused_unless_exact() {
        let file = ["fn main() {", "    run();", "}"];
        for pattern in
            [["1\tfn main() {", "2\t    run();"], ["  1: fn main() {", "  2:     run();"]]
        {
            assert_eq!(
                find(&file, &pattern, 0, false),
                Err(MatchError::LineNumberPrefixes { first_line: pattern[0].to_string() })
            );
            assert!(matches!(
                find(&file, &pattern, 0, true),
                Err(MatchError::LineNumberPrefixes { .. })
            ));
        }
        assert!(matches!(
            find(&file, &["1|fn main() {"], 0, false),
            Err(MatchError::LineNumberPrefixes { .. })
        ));
        // Text that really has numbers matches exactly.
        let table = ["rows:", "1: first", "2: second"];
        assert_eq!(find(&table, &["1: first", "2: second"], 0, false), at(1, Tier::Exact));
        // Not every line numbered: no refusal, the tiers run.
        assert_eq!(
            find(&table, &["rows:  ", "1: first"], 0, false),
            at(0, Tier::TrailingWhitespace)
        );
    }

    #[test]
    fn prefix_detection() {
        let check = |p: &[&str]| line_number_prefixes(p.iter().copied());
        assert_eq!(check(&["12\tx", "", "13\ty"]), Some("12\tx".into()));
        assert_eq!(check(&["   7: x"]), Some("   7: x".into()));
        assert_eq!(check(&["7|x"]), Some("7|x".into()));
        assert_eq!(check(&["7:x"]), None);
        assert_eq!(check(&["7 x"]), None);
        assert_eq!(check(&["\tx"]), None);
        assert_eq!(check(&["12\tx", "y"]), None);
        assert_eq!(check(&["", "  "]), None);
    }

    #[test]
    fn not_found_is_diagnosed_from_start() {
        let file = ["a", "b", "c", "a", "b", "d"];
        let Err(MatchError::NotFound { missing, closest }) =
            find(&file, &["a", "b", "e"], 2, false)
        else {
            panic!("not a NotFound");
        };
        assert_eq!(missing.map(|m| (m.line, m.text)), Some((3, "e".to_string())));
        let region = closest.unwrap();
        assert_eq!((region.start, region.end), (4, 6));
        assert_eq!(region.diff, [" a", " b", "-e", "+d"]);
    }

    #[test]
    fn a_20k_line_file_is_searched_under_every_tier() {
        let lines: Vec<String> =
            (0..20_000).map(|i| format!("    let value_{i} = compute({i}, \"text\");")).collect();
        assert!(lines.iter().map(|l| l.len() + 1).sum::<usize>() > 700_000);
        let pattern = v(&[
            "let value_19990 = compute(19990, \"text\");",
            "let value_19991 = compute(19991, \u{201C}text\u{201D});",
        ]);
        assert_eq!(find_lines(&lines, &pattern, 0, false), at(19_990, Tier::Normalised));
        let missing = v(&["let value_5 = compute(5, \"text\");", "nowhere"]);
        let Err(MatchError::NotFound { closest, .. }) = find_lines(&lines, &missing, 0, false)
        else {
            panic!("not a NotFound");
        };
        assert_eq!(closest.unwrap().start, 6);
    }
}
