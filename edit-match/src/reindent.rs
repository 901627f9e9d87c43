//! Re-indenting a replacement to the file's indentation, after a tier that ignores it.
//!
//! The difference is taken from the first non-blank pattern line and the file line it
//! matched: the pattern's leading whitespace `P` against the file's `F`. Every non-blank
//! replacement line that starts with `P` gets `F` in its place (so when `P` is a prefix of
//! `F` the extra is added); a line indented less than `P` (its leading whitespace a prefix
//! of `P`) keeps its offset below `F`, shortened from `F`'s end; any other line is left as
//! it is. Blank lines stay as they are.
//!
//! After [`Tier::TabsSpaces`] (the pattern met the file only by widths) each non-blank line
//! is moved by the columns `F` and `P` differ by, with the tab width that tier matched with,
//! and written in the file's kind of indentation: tabs then spaces when `F` has a tab, else
//! spaces.

use crate::shift::{tab_width, width};
use crate::tier::{Tier, is_blank, leading_whitespace};

/// `replacement` re-indented by the difference between `pattern` and `found`, the file
/// lines it matched under `tier` (module docs); a final `\r` of a line is kept.
pub fn reindent(
    tier: Tier,
    replacement: &[String],
    pattern: &[String],
    found: &[String],
) -> Vec<String> {
    let reference = pattern.iter().zip(found).find(|(p, _)| !is_blank(p));
    let Some((p, f)) = reference else {
        return replacement.to_vec();
    };
    let (p, f) = (leading_whitespace(p), leading_whitespace(f));
    if tier == Tier::TabsSpaces {
        let pairs = pattern
            .iter()
            .zip(found)
            .filter(|(pl, _)| !is_blank(pl))
            .map(|(pl, fl)| (leading_whitespace(pl), leading_whitespace(fl)));
        if let Some(tab) = tab_width(pairs, p, f) {
            return by_width(replacement, width(f, tab) as i64 - width(p, tab) as i64, tab, f);
        }
    }
    if p == f {
        return replacement.to_vec();
    }
    replacement.iter().map(|line| reindent_line(line, p, f)).collect()
}

/// Each non-blank line moved by `delta` columns (never below 0), its indentation written
/// with `tab`-wide tabs when the file's `f` has one.
fn by_width(replacement: &[String], delta: i64, tab: usize, f: &str) -> Vec<String> {
    let tabs = f.contains('\t');
    replacement
        .iter()
        .map(|line| {
            if is_blank(line) {
                return line.clone();
            }
            let lead = leading_whitespace(line);
            let w = (width(lead, tab) as i64 + delta).max(0) as usize;
            let indent = if tabs {
                format!("{}{}", "\t".repeat(w / tab), " ".repeat(w % tab))
            } else {
                " ".repeat(w)
            };
            format!("{indent}{}", &line[lead.len()..])
        })
        .collect()
}

/// `line` with pattern indentation `p` turned into file indentation `f`.
fn reindent_line(line: &str, p: &str, f: &str) -> String {
    if is_blank(line) {
        return line.to_owned();
    }
    if let Some(rest) = line.strip_prefix(p) {
        return format!("{f}{rest}");
    }
    let lead = leading_whitespace(line);
    let rest = &line[lead.len()..];
    if let Some(less) = p.strip_prefix(lead) {
        // Indented `less` below the reference line: as far below `f`, or at column 0.
        let keep = f.len().saturating_sub(less.len());
        let keep = (0..=keep).rev().find(|&k| f.is_char_boundary(k)).unwrap_or(0);
        return format!("{}{rest}", &f[..keep]);
    }
    line.to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(lines: &[&str]) -> Vec<String> {
        lines.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn a_flush_pattern_takes_the_files_indentation() {
        let pattern = v(&["if x {", "    y();", "}"]);
        let found = v(&["        if x {", "            y();", "        }"]);
        let replacement = v(&["if x {", "    y();", "", "    z();", "}"]);
        assert_eq!(
            reindent(Tier::Indentation, &replacement, &pattern, &found),
            ["        if x {", "            y();", "", "            z();", "        }"]
        );
        // With tabs in the file.
        let found = v(&["\t\tif x {", "\t\t    y();", "\t\t}"]);
        assert_eq!(
            reindent(Tier::Indentation, &v(&["if x {", "    w();", "}"]), &pattern, &found),
            ["\t\tif x {", "\t\t    w();", "\t\t}"]
        );
    }

    #[test]
    fn a_deeper_pattern_is_brought_out() {
        let pattern = v(&["", "        a();", "        b();"]);
        let found = v(&["", "    a();", "    b();"]);
        let replacement = v(&["        a();", "            nested();", "      odd();", "x"]);
        assert_eq!(
            reindent(Tier::Indentation, &replacement, &pattern, &found),
            ["    a();", "        nested();", "  odd();", "x"]
        );
    }

    #[test]
    fn a_different_prefix_is_replaced() {
        let pattern = v(&["    a", "    b"]);
        let found = v(&["\ta", "\tb"]);
        assert_eq!(
            reindent(Tier::Indentation, &v(&["    a", "        c"]), &pattern, &found),
            ["\ta", "\t    c"]
        );
        // The same indentation, or an all-blank pattern: unchanged.
        assert_eq!(reindent(Tier::Indentation, &v(&["  q"]), &pattern, &pattern), ["  q"]);
        assert_eq!(reindent(Tier::Indentation, &v(&["  q"]), &v(&[" "]), &v(&["\t"])), ["  q"]);
    }

    #[test]
    fn after_tabs_and_spaces_the_file_keeps_its_tabs() {
        let pattern = v(&["    if x {", "        y();", "    }"]);
        let found = v(&["\tif x {", "\t\ty();", "\t}"]);
        let replacement = v(&["    if x {", "        y();", "        z();", "    }"]);
        assert_eq!(
            reindent(Tier::TabsSpaces, &replacement, &pattern, &found),
            ["\tif x {", "\t\ty();", "\t\tz();", "\t}"]
        );
    }
}
