//! Heading anchors as GitHub makes them (the github-slugger rules).
//!
//! [`slug`] lowercases the text, removes every character that is not a letter, a mark, a
//! decimal or letter number, a connector (`_`), `-` or a space, and turns each space into
//! `-`; nothing is trimmed and repeated `-` stay. [`Slugger`] makes the slugs of one document
//! unique in document order: a repeat gets `-1`, `-2`, …, counting on from the base slug
//! even when a numbered slug was taken by a heading of its own.
//!
//! Removed: other numbers (`²`, `¼`), all punctuation but connectors and `-`, all symbols
//! (emoji, `+`, `$`), controls, format and private-use characters, unassigned code points and
//! every separator but the space; a character with the Alphabetic property always stays
//! (github-slugger removes the alphabetic code points from its set). Categories come from
//! Unicode 16 tables, Alphabetic from the standard library's.

use std::collections::HashMap;

use unicode_general_category::{GeneralCategory as G, get_general_category};

/// The slug of `text`, before it is made unique.
pub fn slug(text: &str) -> String {
    text.to_lowercase()
        .chars()
        .filter(|&c| keeps(c))
        .map(|c| if c == ' ' { '-' } else { c })
        .collect()
}

/// Whether `c` stays in a slug.
fn keeps(c: char) -> bool {
    if c == ' ' || c == '-' || c.is_alphabetic() {
        return true;
    }
    !matches!(
        get_general_category(c),
        G::OtherNumber
            | G::ClosePunctuation
            | G::FinalPunctuation
            | G::InitialPunctuation
            | G::OpenPunctuation
            | G::OtherPunctuation
            | G::DashPunctuation
            | G::MathSymbol
            | G::CurrencySymbol
            | G::ModifierSymbol
            | G::OtherSymbol
            | G::Control
            | G::PrivateUse
            | G::Format
            | G::Unassigned
            | G::Surrogate
            | G::SpaceSeparator
            | G::LineSeparator
            | G::ParagraphSeparator
    )
}

/// Unique slugs for the headings of one document, in document order.
#[derive(Debug, Default)]
pub struct Slugger {
    /// Every slug handed out, with how many repeats its base has had.
    occurrences: HashMap<String, u32>,
}

impl Slugger {
    /// The next heading's anchor: its slug, numbered when that was handed out before.
    pub fn slug(&mut self, text: &str) -> String {
        let base = slug(text);
        let mut result = base.clone();
        while self.occurrences.contains_key(&result) {
            let n = self.occurrences.entry(base.clone()).or_insert(0);
            *n += 1;
            result = format!("{base}-{n}");
        }
        self.occurrences.insert(result.clone(), 0);
        result
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn github_examples() {
        let cases = [
            ("Hello, World!", "hello-world"),
            ("foo.bar", "foobar"),
            ("a -- b", "a----b"),
            ("C++", "c"),
            ("C#", "c"),
            ("😀 Emoji", "-emoji"),
            ("Über café", "über-café"),
            ("中文 标题", "中文-标题"),
            ("日本語のテキスト", "日本語のテキスト"),
            ("Привет мир", "привет-мир"),
            ("snake_case_name", "snake_case_name"),
            ("What's new?", "whats-new"),
            ("Step 1: install", "step-1-install"),
            ("`code` and *emphasis*", "code-and-emphasis"),
            ("A & B", "a--b"),
            ("100% done", "100-done"),
            ("x²", "x"),
            ("½ cup", "-cup"),
            ("Ⅻ roman", "ⅻ-roman"),
            ("(parens) [brackets] {braces}", "parens-brackets-braces"),
            ("em—dash – en", "emdash--en"),
            ("“quoted” «text»", "quoted-text"),
            ("tab\there", "tabhere"),
            ("non\u{a0}breaking", "nonbreaking"),
            ("zero\u{200b}width", "zerowidth"),
            ("ÉCOLE", "école"),
            ("ΣΊΣΥΦΟΣ", "σίσυφος"),
            ("नमस्ते", "नमस्ते"),
            ("Ⓐ circled", "ⓐ-circled"),
            ("$HOME/path", "homepath"),
            ("v1.2.3", "v123"),
            ("", ""),
            ("   ", "---"),
            ("-", "-"),
            // github-slugger's own fixtures.
            ("heading with a - dash", "heading-with-a---dash"),
            ("heading with an _ underscore", "heading-with-an-_-underscore"),
            ("heading with a period.txt", "heading-with-a-periodtxt"),
            (
                "exchange.bind_headers(exchange, routing [, bindCallback])",
                "exchangebind_headersexchange-routing--bindcallback",
            ),
            ("apostrophe’s should be trimmed", "apostrophes-should-be-trimmed"),
            ("I ♥ unicode", "i--unicode"),
            ("en–dash", "endash"),
            ("😄-😄 unicode emoji", "--unicode-emoji"),
            ("😄_😄 unicode emoji", "_-unicode-emoji"),
            ("😄 - an emoji", "---an-emoji"),
            (":smile: - a gemoji", "smile---a-gemoji"),
            ("Привет non-latin 你好", "привет-non-latin-你好"),
            ("a_ ‿ ⁀ ⁔ ︳ ︴ ﹍ ﹎ ﹏ ＿b", "a_-‿-⁀-⁔-︳-︴-﹍-﹎-﹏-＿b"),
            ("a\u{2028}b", "ab"),
            ("aᛮ Ⅰ 〇b", "aᛮ-ⅰ-〇b"),
            ("a҈ ⃝b", "a҈-⃝b"),
            ("a$ ¢ € ＄b", "a---b"),
            ("a« ‘ “b", "a--b"),
            (" a ", "-a-"),
        ];
        for (text, want) in cases {
            assert_eq!(slug(text), want, "{text:?}");
        }
    }

    #[test]
    fn duplicates_count_on_from_the_base() {
        let mut s = Slugger::default();
        let got: Vec<String> =
            ["foo", "foo", "Foo", "foo-1", "foo", "bar"].iter().map(|t| s.slug(t)).collect();
        assert_eq!(got, ["foo", "foo-1", "foo-2", "foo-1-1", "foo-3", "bar"]);
    }

    #[test]
    fn github_slugger_repetition_fixture() {
        let mut s = Slugger::default();
        let got: Vec<String> = ["echo", "echo", "echo 1", "echo-1", "echo", " a ", "-a-"]
            .iter()
            .map(|t| s.slug(t))
            .collect();
        assert_eq!(got, ["echo", "echo-1", "echo-1-1", "echo-1-2", "echo-2", "-a-", "-a--1"]);
    }

    #[test]
    fn a_numbered_heading_taken_first_is_skipped() {
        let mut s = Slugger::default();
        let got: Vec<String> = ["foo-1", "foo", "foo"].iter().map(|t| s.slug(t)).collect();
        assert_eq!(got, ["foo-1", "foo", "foo-2"]);
    }

    #[test]
    fn empty_headings_are_numbered_too() {
        let mut s = Slugger::default();
        let got: Vec<String> = ["", "", "!"].iter().map(|t| s.slug(t)).collect();
        assert_eq!(got, ["", "-1", "-2"]);
    }
}
