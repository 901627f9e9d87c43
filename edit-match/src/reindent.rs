//! Re-indenting a replacement to the file's indentation, after a tier that ignores it.
//!
//! The difference is taken from the first non-blank pattern line and the file line it
//! matched: the pattern's leading whitespace `P` against the file's `F`. Every non-blank
//! replacement line that starts with `P` gets `F` in its place (so when `P` is a prefix of
//! `F` the extra is added); a line indented less than `P` (its leading whitespace a prefix
//! of `P`) keeps its offset below `F`, shortened from `F`'s end; any other line is left as
//! it is. Blank lines stay as they are.

use crate::tier::{is_blank, leading_whitespace};

/// `replacement` re-indented by the difference between `pattern` and `found`, the file
/// lines it matched (module docs); a final `\r` of a line is kept.
pub fn reindent(replacement: &[String], pattern: &[String], found: &[String]) -> Vec<String> {
    let reference = pattern.iter().zip(found).find(|(p, _)| !is_blank(p));
    let Some((p, f)) = reference else {
        return replacement.to_vec();
    };
    let (p, f) = (leading_whitespace(p), leading_whitespace(f));
    if p == f {
        return replacement.to_vec();
    }
    replacement.iter().map(|line| reindent_line(line, p, f)).collect()
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
            reindent(&replacement, &pattern, &found),
            ["        if x {", "            y();", "", "            z();", "        }"]
        );
        // With tabs in the file.
        let found = v(&["\t\tif x {", "\t\t    y();", "\t\t}"]);
        assert_eq!(
            reindent(&v(&["if x {", "    w();", "}"]), &pattern, &found),
            ["\t\tif x {", "\t\t    w();", "\t\t}"]
        );
    }

    #[test]
    fn a_deeper_pattern_is_brought_out() {
        let pattern = v(&["", "        a();", "        b();"]);
        let found = v(&["", "    a();", "    b();"]);
        let replacement = v(&["        a();", "            nested();", "      odd();", "x"]);
        assert_eq!(
            reindent(&replacement, &pattern, &found),
            ["    a();", "        nested();", "  odd();", "x"]
        );
    }

    #[test]
    fn a_different_prefix_is_replaced() {
        let pattern = v(&["    a", "    b"]);
        let found = v(&["\ta", "\tb"]);
        assert_eq!(reindent(&v(&["    a", "        c"]), &pattern, &found), ["\ta", "\t    c"]);
        // The same indentation, or an all-blank pattern: unchanged.
        assert_eq!(reindent(&v(&["  q"]), &pattern, &pattern), ["  q"]);
        assert_eq!(reindent(&v(&["  q"]), &v(&[" "]), &v(&["\t"])), ["  q"]);
    }
}
