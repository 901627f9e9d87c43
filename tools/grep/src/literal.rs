//! The fast paths for the patterns agents search most. One ASCII literal, case-sensitive or
//! case-insensitive, optionally between word boundaries (`return`, `(?i)error`,
//! `(?i)\berror\b`): [`LiteralMatcher`] finds each occurrence with a SIMD scan and confirms
//! the line itself; only where a boundary touches a non-ASCII byte does the full regex
//! decide. A pattern that requires some literals (`\b(impl|struct)\s+\w+`, `(TODO|FIXME)`):
//! lines holding them are found by [`Required`]'s scan and confirmed by the regex. Every other
//! pattern goes straight to the regex.
//!
//! Sound by construction: a pattern is taken as a literal only when its language is exactly
//! "this byte string, where each letter marked as folded may be either case", so an
//! occurrence found here is a match of the regex and every match of the regex is found here;
//! a required literal is one that every match contains ([`crate::required`]).

use grep_matcher::{LineMatchKind, LineTerminator, Match, Matcher, NoError};
use grep_regex::RegexMatcher;
use regex_syntax::hir::{Class, Hir, HirKind, Look};

use crate::required::Required;

/// A [`RegexMatcher`] with a faster candidate-line search for patterns that are or require
/// literals.
pub struct LiteralMatcher {
    regex: RegexMatcher,
    literal: Option<Literal>,
    /// When the pattern is not a literal: the literals it requires.
    required: Option<Required>,
}

impl LiteralMatcher {
    /// `regex`, compiled from `pattern`, sped up when `pattern` is or requires a literal.
    pub fn new(pattern: &str, regex: RegexMatcher) -> Self {
        let literal = Literal::of(pattern);
        let required = match literal {
            Some(_) => None,
            None => regex_syntax::ParserBuilder::new()
                .build()
                .parse(pattern)
                .ok()
                .and_then(|hir| Required::of(&hir)),
        };
        LiteralMatcher { regex, literal, required }
    }

    /// Whether the required-literal scan is in use (for tests).
    #[cfg(test)]
    pub fn has_required(&self) -> bool {
        self.required.is_some()
    }

    /// Whether the fast path is in use (for tests).
    #[cfg(test)]
    pub fn is_literal(&self) -> bool {
        self.literal.is_some()
    }
}

/// A literal pattern: its bytes (letters that may be either case stored lowercase, with
/// bit 0x20 in `fold`), and whether a word boundary is required before and after.
#[derive(Debug, Clone)]
struct Literal {
    bytes: Vec<u8>,
    fold: Vec<u8>,
    word_before: bool,
    word_after: bool,
    /// The two needle positions the scan tests first (the rarest bytes).
    probes: (usize, usize),
    /// memchr's searcher, when no letter is folded (it is faster for exact bytes).
    exact: Option<memchr::memmem::Finder<'static>>,
}

/// What the boundary test says about an occurrence.
enum Verdict {
    Match,
    NoMatch,
    /// A neighbouring byte is not ASCII: only the regex knows (Unicode `\b`).
    Unsure,
}

impl Literal {
    /// The literal `pattern` denotes, or `None` when it is anything else (or does not parse).
    fn of(pattern: &str) -> Option<Literal> {
        let hir = regex_syntax::ParserBuilder::new().build().parse(pattern).ok()?;
        let mut items = Vec::new();
        flatten(&hir, &mut items);
        let word_before = matches!(items.first(), Some(Item::Word));
        let word_after = items.len() > 1 && matches!(items.last(), Some(Item::Word));
        let inner = &items[word_before as usize..items.len() - word_after as usize];
        let (mut bytes, mut fold) = (Vec::new(), Vec::new());
        for item in inner {
            match item {
                Item::Byte(b) => {
                    bytes.push(*b);
                    fold.push(0);
                }
                Item::Folded(b) => {
                    bytes.push(*b);
                    fold.push(0x20);
                }
                Item::Word | Item::Other => return None,
            }
        }
        // A line terminator in the literal never matches in line mode; leave it to the regex.
        if bytes.is_empty() || bytes.contains(&b'\n') || !bytes.is_ascii() {
            return None;
        }
        let probes = probes(&bytes);
        let exact =
            fold.iter().all(|&f| f == 0).then(|| memchr::memmem::Finder::new(&bytes).into_owned());
        Some(Literal { bytes, fold, word_before, word_after, probes, exact })
    }

    /// Whether the needle occurs at `at` in `haystack`.
    fn occurs_at(&self, haystack: &[u8], at: usize) -> bool {
        let Some(window) = haystack.get(at..at + self.bytes.len()) else { return false };
        window.iter().zip(&self.bytes).zip(&self.fold).all(|((h, b), f)| h | f == *b)
    }

    /// The first occurrence of the needle in `haystack` at or after `from`.
    fn find(&self, haystack: &[u8], from: usize) -> Option<usize> {
        if let Some(exact) = &self.exact {
            return exact.find(haystack.get(from..)?).map(|i| from + i);
        }
        let n = self.bytes.len();
        if haystack.len() < n || from > haystack.len() - n {
            return None;
        }
        let (p, q) = self.probes;
        let (bp, fp, bq, fq) = (self.bytes[p], self.fold[p], self.bytes[q], self.fold[q]);
        let last = haystack.len() - n;
        let mut at = from;
        #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
        {
            use core::arch::wasm32::*;
            let (vbp, vfp, vbq, vfq) =
                (u8x16_splat(bp), u8x16_splat(fp), u8x16_splat(bq), u8x16_splat(fq));
            while at + 16 <= last + 1 {
                // SAFETY: `at + q + 16 <= last + q + 1 <= haystack.len()` (q < n), and the
                // same for p; wasm loads need no alignment.
                let (hp, hq) = unsafe {
                    (
                        v128_load(haystack.as_ptr().add(at + p) as *const v128),
                        v128_load(haystack.as_ptr().add(at + q) as *const v128),
                    )
                };
                let hits =
                    v128_and(u8x16_eq(v128_or(hp, vfp), vbp), u8x16_eq(v128_or(hq, vfq), vbq));
                let mut mask = u8x16_bitmask(hits);
                while mask != 0 {
                    let i = at + mask.trailing_zeros() as usize;
                    if self.occurs_at(haystack, i) {
                        return Some(i);
                    }
                    mask &= mask - 1;
                }
                at += 16;
            }
        }
        while at <= last {
            if haystack[at + p] | fp == bp
                && haystack[at + q] | fq == bq
                && self.occurs_at(haystack, at)
            {
                return Some(at);
            }
            at += 1;
        }
        None
    }

    /// Whether the occurrence at `at` has the word boundaries the pattern asks for.
    fn verdict(&self, haystack: &[u8], at: usize) -> Verdict {
        let end = at + self.bytes.len();
        let sides = [
            (self.word_before, at.checked_sub(1).map(|i| haystack[i]), self.bytes[0]),
            (self.word_after, haystack.get(end).copied(), self.bytes[self.bytes.len() - 1]),
        ];
        let mut unsure = false;
        for (wanted, outside, inside) in sides {
            if !wanted {
                continue;
            }
            match outside {
                Some(b) if !b.is_ascii() => unsure = true,
                // `\b`: a word character on exactly one side. ASCII word characters are the
                // same for Unicode and ASCII `\b`.
                _ => {
                    if outside.is_some_and(is_word) == is_word(inside) {
                        return Verdict::NoMatch;
                    }
                }
            }
        }
        if unsure { Verdict::Unsure } else { Verdict::Match }
    }
}

fn is_word(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

/// The two positions of `needle` whose bytes are rarest in source text (distinct when the
/// needle has two bytes or more), so the scan stops at few false candidates.
fn probes(needle: &[u8]) -> (usize, usize) {
    // Letters from most to least common in English and code; other bytes rank by class.
    const COMMON: &[u8] = b"etaoinsrlcdhupmfgbywvkxjqz";
    let rank = |b: u8| -> usize {
        let lower = b.to_ascii_lowercase();
        match COMMON.iter().position(|&c| c == lower) {
            Some(i) => 100 - i,
            None if b == b' ' || b == b'_' || b == b'.' || b == b'(' || b == b')' => 100,
            None if b.is_ascii_digit() => 80,
            None => 60,
        }
    };
    let mut order: Vec<usize> = (0..needle.len()).collect();
    order.sort_by_key(|&i| (rank(needle[i]), i));
    let first = order[0];
    let second = order.get(1).copied().unwrap_or(first);
    (first.min(second), first.max(second))
}

/// One piece of a flattened pattern.
enum Item {
    /// This byte, exactly.
    Byte(u8),
    /// This lowercase ASCII letter, in either case.
    Folded(u8),
    /// A word boundary (`\b`, Unicode or ASCII).
    Word,
    /// Anything that makes the pattern more than a literal.
    Other,
}

/// `hir` as a sequence of items (captures and concatenations taken apart).
fn flatten(hir: &Hir, out: &mut Vec<Item>) {
    match hir.kind() {
        HirKind::Literal(lit) => out.extend(lit.0.iter().map(|&b| Item::Byte(b))),
        HirKind::Class(class) => out.push(folded_letter(class).map_or(Item::Other, Item::Folded)),
        HirKind::Look(Look::WordUnicode | Look::WordAscii) => out.push(Item::Word),
        HirKind::Capture(cap) => flatten(&cap.sub, out),
        HirKind::Concat(subs) => subs.iter().for_each(|s| flatten(s, out)),
        _ => out.push(Item::Other),
    }
}

/// The lowercase letter when `class` is exactly one ASCII letter in its two cases (`(?i)e`);
/// `(?i)k` also holds the Kelvin sign, and so is not one.
fn folded_letter(class: &Class) -> Option<u8> {
    let mut members = Vec::new();
    match class {
        Class::Unicode(c) => {
            for r in c.ranges() {
                let (start, end) = (r.start() as u32, r.end() as u32);
                if end - start > 1 || end > 0x7f {
                    return None;
                }
                members.extend((start..=end).map(|c| c as u8));
            }
        }
        Class::Bytes(c) => {
            for r in c.ranges() {
                if r.end() - r.start() > 1 || r.end() > 0x7f {
                    return None;
                }
                members.extend(r.start()..=r.end());
            }
        }
    }
    members.sort_unstable();
    match members[..] {
        [upper, lower] if upper.is_ascii_uppercase() && lower == upper.to_ascii_lowercase() => {
            Some(lower)
        }
        _ => None,
    }
}

impl Matcher for LiteralMatcher {
    type Captures = <RegexMatcher as Matcher>::Captures;
    type Error = NoError;

    fn find_at(&self, haystack: &[u8], at: usize) -> Result<Option<Match>, NoError> {
        self.regex.find_at(haystack, at)
    }

    fn new_captures(&self) -> Result<Self::Captures, NoError> {
        self.regex.new_captures()
    }

    fn capture_count(&self) -> usize {
        self.regex.capture_count()
    }

    fn capture_index(&self, name: &str) -> Option<usize> {
        self.regex.capture_index(name)
    }

    fn captures_at(
        &self,
        haystack: &[u8],
        at: usize,
        caps: &mut Self::Captures,
    ) -> Result<bool, NoError> {
        self.regex.captures_at(haystack, at, caps)
    }

    fn is_match_at(&self, haystack: &[u8], at: usize) -> Result<bool, NoError> {
        self.regex.is_match_at(haystack, at)
    }

    fn shortest_match_at(&self, haystack: &[u8], at: usize) -> Result<Option<usize>, NoError> {
        self.regex.shortest_match_at(haystack, at)
    }

    fn non_matching_bytes(&self) -> Option<&grep_matcher::ByteSet> {
        self.regex.non_matching_bytes()
    }

    fn line_terminator(&self) -> Option<LineTerminator> {
        self.regex.line_terminator()
    }

    fn find_candidate_line(&self, haystack: &[u8]) -> Result<Option<LineMatchKind>, NoError> {
        let Some(literal) = &self.literal else {
            return match &self.required {
                // The regex confirms each candidate line (grep-searcher asks it).
                Some(required) => {
                    Ok(required.find_candidate(haystack).map(LineMatchKind::Candidate))
                }
                None => self.regex.find_candidate_line(haystack),
            };
        };
        let mut from = 0;
        while let Some(at) = literal.find(haystack, from) {
            match literal.verdict(haystack, at) {
                Verdict::Match => return Ok(Some(LineMatchKind::Confirmed(at))),
                Verdict::Unsure => return Ok(Some(LineMatchKind::Candidate(at))),
                // Not here; a later occurrence (on this line or another) may be.
                Verdict::NoMatch => from = at + 1,
            }
        }
        Ok(None)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::{lines, regex};

    fn lit(pattern: &str) -> Option<(String, String, bool, bool)> {
        Literal::of(pattern).map(|l| {
            (
                String::from_utf8(l.bytes).unwrap(),
                l.fold.iter().map(|&f| if f == 0 { '.' } else { 'f' }).collect(),
                l.word_before,
                l.word_after,
            )
        })
    }

    #[test]
    fn literal_patterns_are_recognised_and_others_are_not() {
        assert_eq!(lit("return"), Some(("return".into(), "......".into(), false, false)));
        assert_eq!(lit(r"(?i)\berror\b"), Some(("error".into(), "fffff".into(), true, true)));
        assert_eq!(lit(r"(?i)a_1"), Some(("a_1".into(), "f..".into(), false, false)));
        assert_eq!(lit(r"\bfoo"), Some(("foo".into(), "...".into(), true, false)));
        assert_eq!(lit(r"(foo)bar"), Some(("foobar".into(), "......".into(), false, false)));
        assert_eq!(lit(r"(?-u:\b)x(?-u:\b)"), Some(("x".into(), ".".into(), true, true)));
        for other in [
            r"(?i)kilo", // the Kelvin sign folds to k
            r"(?i)s",    // ſ folds to s
            "a.c",
            "a|b",
            "ab+",
            r"\Bfoo",
            r"\b",
            "",
            "^foo",
            "foo$",
            "é",
            r"a\nb",
            "[ab]c",
            "(",
        ] {
            assert_eq!(lit(other), None, "{other}");
        }
    }

    #[test]
    fn probes_pick_rare_bytes() {
        // 'r' is rarer than 'e' and 'o'; 'Z' the rarest of XYZZY_RARE.
        assert_eq!(probes(b"error"), (1, 2));
        assert_eq!(probes(b"XYZZY_RARE"), (2, 3));
        assert_eq!(probes(b"z"), (0, 0));
    }

    /// The fast path reports exactly the lines the regex does, on haystacks made to hit
    /// every edge: case variants, word characters and non-ASCII letters on either side,
    /// occurrences at line starts and ends, and across the 16-byte blocks of the scan.
    #[test]
    fn the_fast_path_finds_exactly_the_lines_the_regex_finds() {
        let pieces: &[&str] = &[
            "error",
            "ERROR",
            "Error",
            "eRrOr",
            "errors",
            "_error",
            "error_",
            "3error",
            "error9",
            "éerror",
            "erroré",
            "ßerror",
            "(error)",
            "err",
            "rror",
            "e",
            " ",
            " ",
            "\n",
            "\n",
            "x",
            "-",
            "ERR",
            "ö",
            "return",
            "RETURN",
            "returns",
            "kilo",
            "\u{212a}ilo",
            "a_1",
            "A_1",
            "foo",
            "bar",
        ];
        let patterns = [
            r"(?i)\berror\b",
            r"(?i)error",
            r"\berror\b",
            "error",
            r"(?i)\berror",
            r"error\b",
            "return",
            r"(?i)a_1",
            r"(?i)\bfoo\b",
            "e",
            r"(?i)\be\b",
        ];
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        for round in 0..400 {
            let len = (next() % 200) as usize;
            let text: String =
                (0..len).map(|_| pieces[(next() % pieces.len() as u64) as usize]).collect();
            for pattern in patterns {
                let fast = LiteralMatcher::new(pattern, regex(pattern));
                assert!(fast.is_literal(), "{pattern}");
                assert_eq!(
                    lines(&fast, text.as_bytes()),
                    lines(regex(pattern), text.as_bytes()),
                    "round {round}, {pattern:?} in {text:?}"
                );
            }
        }
    }

    #[test]
    fn other_patterns_are_the_regex_itself() {
        let text = b"fn a_1(self\nfn b(ctx\nx\n";
        let pattern = r"fn [a-z_]+_[0-9]+\((self|ctx)";
        let fast = LiteralMatcher::new(pattern, regex(pattern));
        assert!(!fast.is_literal());
        assert_eq!(lines(&fast, text), lines(regex(pattern), text));
        assert_eq!(lines(&fast, text).len(), 1);
    }
}
