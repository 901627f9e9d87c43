//! The tiers of comparison, strictest first, and the forms of a line each tier compares.
//!
//! A line is compared without its line break; a final `\r` (of a CRLF file) is set aside as
//! the line's ending, which tiers up to [`Tier::Indentation`] require to agree and
//! [`Tier::Normalised`] ignores. Every form a tier needs is computed once per line per call
//! ([`Forms`]); the normalised form is interned to a number so that comparing it is comparing
//! two integers.

use std::borrow::Cow;
use std::collections::HashMap;

/// How leniently a pattern was matched: the tiers, strictest first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Tier {
    /// Byte for byte.
    Exact,
    /// Trailing whitespace of each line ignored.
    TrailingWhitespace,
    /// Leading and trailing whitespace of each line ignored; the replacement is re-indented.
    Indentation,
    /// As `Indentation`, plus CRLF vs LF and Unicode dashes, quotes and spaces read as ASCII.
    Normalised,
    /// As `Normalised`, with the one shift of indentation judged on widths (a tab 4 or 8
    /// columns) instead of characters: spaces in the pattern for tabs in the file.
    TabsSpaces,
}

impl Tier {
    /// Every tier, strictest first: the order they are tried in.
    pub const ALL: [Tier; 5] = [
        Tier::Exact,
        Tier::TrailingWhitespace,
        Tier::Indentation,
        Tier::Normalised,
        Tier::TabsSpaces,
    ];

    /// The snake_case id of the tier, for logs and structured results.
    pub fn name(self) -> &'static str {
        match self {
            Tier::Exact => "exact",
            Tier::TrailingWhitespace => "trailing_whitespace",
            Tier::Indentation => "indentation",
            Tier::Normalised => "normalised",
            Tier::TabsSpaces => "tabs_spaces",
        }
    }

    /// How the tier matched, in words: "exact", "after ignoring indentation", ...
    pub fn describe(self) -> &'static str {
        match self {
            Tier::Exact => "exact",
            Tier::TrailingWhitespace => "after ignoring trailing whitespace",
            Tier::Indentation => "after ignoring indentation",
            Tier::Normalised => "after normalising line endings and Unicode punctuation",
            Tier::TabsSpaces => "after treating tabs and spaces alike",
        }
    }

    /// [`Tier::describe`] as it reads after a verb: "exactly" for `Exact`.
    pub(crate) fn adverb(self) -> &'static str {
        match self {
            Tier::Exact => "exactly",
            other => other.describe(),
        }
    }

    /// The sentence for a match at 1-based `line`: `matched exactly at line 3`,
    /// `matched after ignoring indentation at line 120`.
    pub fn matched_at(self, line: usize) -> String {
        format!("matched {} at line {line}", self.adverb())
    }

    /// Whether a match by this tier re-indents the replacement ([`crate::reindent`]).
    pub fn reindents(self) -> bool {
        self >= Tier::Indentation
    }
}

/// The ASCII character a typographic dash, quote or space stands for; any other is itself.
pub fn normalise_char(c: char) -> char {
    match c {
        '\u{2010}' | '\u{2011}' | '\u{2012}' | '\u{2013}' | '\u{2014}' | '\u{2015}'
        | '\u{2212}' => '-',
        '\u{2018}' | '\u{2019}' | '\u{201A}' | '\u{201B}' => '\'',
        '\u{201C}' | '\u{201D}' | '\u{201E}' | '\u{201F}' => '"',
        '\u{00A0}' | '\u{2002}' | '\u{2003}' | '\u{2004}' | '\u{2005}' | '\u{2006}'
        | '\u{2007}' | '\u{2008}' | '\u{2009}' | '\u{200A}' | '\u{202F}' | '\u{205F}'
        | '\u{3000}' => ' ',
        other => other,
    }
}

/// Whether a line is empty or only whitespace.
pub(crate) fn is_blank(line: &str) -> bool {
    line.trim().is_empty()
}

/// The leading whitespace of `line`.
pub(crate) fn leading_whitespace(line: &str) -> &str {
    &line[..line.len() - line.trim_start().len()]
}

/// The numbers standing for normalised line texts, shared by the file and the pattern of one
/// call: equal texts get equal numbers, the file's first.
#[derive(Default)]
pub(crate) struct Interner<'a> {
    ids: HashMap<Cow<'a, str>, u32>,
}

impl<'a> Interner<'a> {
    /// The number of `key`, a new one if it is new.
    fn id(&mut self, key: Cow<'a, str>) -> u32 {
        let next = u32::try_from(self.ids.len()).unwrap_or(u32::MAX);
        *self.ids.entry(key).or_insert(next)
    }

    /// How many distinct texts have numbers so far.
    pub(crate) fn len(&self) -> u32 {
        u32::try_from(self.ids.len()).unwrap_or(u32::MAX)
    }
}

/// One line in every form a tier compares, computed once.
pub(crate) struct Forms<'a> {
    /// The line as given (with its `\r`, if any).
    pub raw: &'a str,
    /// Whether the line ends with `\r`; `None` when either will do (the unterminated last
    /// line of a substring pattern).
    pub cr: Option<bool>,
    /// The line without its `\r` and trailing whitespace.
    pub trim_end: &'a str,
    /// The line without its `\r` and whitespace at both ends.
    pub trim: &'a str,
    /// The number of `trim` with [`normalise_char`] applied ([`Interner`]).
    pub norm: u32,
}

impl<'a> Forms<'a> {
    /// The forms of `raw`; `cr_known` false makes a missing `\r` match either ending.
    pub(crate) fn new(raw: &'a str, cr_known: bool, interner: &mut Interner<'a>) -> Self {
        let (body, cr) = match raw.strip_suffix('\r') {
            Some(body) => (body, Some(true)),
            None => (raw, cr_known.then_some(false)),
        };
        let trim = body.trim();
        let key = if trim.chars().any(|c| normalise_char(c) != c) {
            Cow::Owned(trim.chars().map(normalise_char).collect())
        } else {
            Cow::Borrowed(trim)
        };
        Forms { raw, cr, trim_end: body.trim_end(), trim, norm: interner.id(key) }
    }

    /// The line without its `\r`, for showing.
    pub(crate) fn body(&self) -> &'a str {
        self.raw.strip_suffix('\r').unwrap_or(self.raw)
    }
}

/// Whether file line `f` and pattern line `p` are the same under `tier`.
pub(crate) fn same(tier: Tier, f: &Forms<'_>, p: &Forms<'_>) -> bool {
    let endings_agree = p.cr.is_none_or(|cr| f.cr == Some(cr));
    match tier {
        Tier::Exact => f.raw == p.raw,
        Tier::TrailingWhitespace => endings_agree && f.trim_end == p.trim_end,
        Tier::Indentation => endings_agree && f.trim == p.trim,
        // Line by line the two compare alike; they differ in how the shift of indentation
        // across the lines is judged (`shift.rs`).
        Tier::Normalised | Tier::TabsSpaces => f.norm == p.norm,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pair(tier: Tier, f: &str, p: &str) -> bool {
        let mut interner = Interner::default();
        let f = Forms::new(f, true, &mut interner);
        let p = Forms::new(p, true, &mut interner);
        same(tier, &f, &p)
    }

    /// The strictest tier under which `f` and `p` are the same.
    fn strictest(f: &str, p: &str) -> Option<Tier> {
        Tier::ALL.into_iter().find(|&t| pair(t, f, p))
    }

    #[test]
    fn each_tier_accepts_what_it_should_and_no_stricter_one_does() {
        assert_eq!(strictest("  foo", "  foo"), Some(Tier::Exact));
        assert_eq!(strictest("  foo \t", "  foo"), Some(Tier::TrailingWhitespace));
        assert_eq!(strictest("\t\tfoo", "    foo  "), Some(Tier::Indentation));
        assert_eq!(strictest("foo\r", "  foo"), Some(Tier::Normalised));
        assert_eq!(strictest("it\u{2019}s \u{201C}x\u{201D} \u{2014} y", "it's \"x\" - y"), {
            Some(Tier::Normalised)
        });
        assert_eq!(strictest("a\u{00A0}b", "a b"), Some(Tier::Normalised));
        assert_eq!(strictest("naïve", "naive"), None);
        assert_eq!(strictest("a\tb", "a    b"), None);
    }

    #[test]
    fn a_missing_ending_matches_either_when_unknown() {
        let mut interner = Interner::default();
        let f = Forms::new("foo\r", true, &mut interner);
        let p = Forms::new("  foo", false, &mut interner);
        assert!(same(Tier::Indentation, &f, &p));
        let p = Forms::new("  foo", true, &mut interner);
        assert!(!same(Tier::Indentation, &f, &p));
    }

    #[test]
    fn names_and_sentences() {
        let names: Vec<_> = Tier::ALL.iter().map(|t| t.name()).collect();
        assert_eq!(
            names,
            ["exact", "trailing_whitespace", "indentation", "normalised", "tabs_spaces"]
        );
        assert_eq!(Tier::Exact.matched_at(3), "matched exactly at line 3");
        assert_eq!(
            Tier::Indentation.matched_at(120),
            "matched after ignoring indentation at line 120"
        );
        assert!(!Tier::TrailingWhitespace.reindents());
        assert!(Tier::Indentation.reindents() && Tier::TabsSpaces.reindents());
    }
}
