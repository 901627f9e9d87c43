//! What the matcher tests of [`crate::literal`] and [`crate::required`] share: the lines a
//! matcher finds, as grep-searcher reports them, and the regex they are compared with.

use grep_matcher::Matcher;
use grep_regex::RegexMatcher;
use grep_searcher::{SearcherBuilder, sinks::UTF8};

/// The matching lines of `haystack`, as grep-searcher reports them with `matcher`.
pub fn lines<M: Matcher>(matcher: M, haystack: &[u8]) -> Vec<(u64, String)> {
    let mut out = Vec::new();
    SearcherBuilder::new()
        .line_number(true)
        .build()
        .search_slice(
            matcher,
            haystack,
            UTF8(|n, line| {
                out.push((n, line.to_owned()));
                Ok(true)
            }),
        )
        .unwrap();
    out
}

/// The regex matcher grep builds for `pattern` (newline-terminated lines).
pub fn regex(pattern: &str) -> RegexMatcher {
    grep_regex::RegexMatcherBuilder::new().line_terminator(Some(b'\n')).build(pattern).unwrap()
}
