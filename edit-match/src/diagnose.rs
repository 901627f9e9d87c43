//! What fixes a pattern that no tier found: its first line that occurs nowhere in the file,
//! and the closest file region with a line diff against it.
//!
//! The closest region is the window of the file as long as the pattern (or the whole file,
//! if shorter) in which the most non-blank pattern lines equal the file line at the same
//! offset under the [`Tier::Normalised`] comparison; ties go to the earliest window, and a
//! window sharing no line is no region. The search is O(file lines x pattern lines) integer
//! comparisons; the diff is a longest-common-subsequence diff, or a pairwise listing when
//! pattern x region exceeds [`MAX_LCS_CELLS`].

use crate::error::{MatchError, MissingLine, Region};
use crate::lines::Prepared;
use crate::tier::{Forms, Tier, is_blank, same};

/// Most diff lines a [`Region`] keeps.
pub const MAX_DIFF_LINES: usize = 20;

/// Largest pattern x region table the LCS diff fills; above it the diff is pairwise.
pub const MAX_LCS_CELLS: usize = 1_000_000;

/// The `NotFound` error for `prep`, the closest region looked for at or after line index
/// `from` (or anywhere, if no window fits there).
pub(crate) fn not_found(prep: &Prepared<'_>, from: usize) -> MatchError {
    let missing = prep
        .pattern
        .iter()
        .enumerate()
        .find(|(_, p)| !is_blank(p.raw) && p.norm >= prep.file_keys)
        .map(|(j, p)| MissingLine { line: j + 1, text: p.body().to_owned() });
    MatchError::NotFound { missing, closest: closest(&prep.file, &prep.pattern, from) }
}

/// The region of `file` closest to `pattern`, as described in the module docs.
fn closest(file: &[Forms<'_>], pattern: &[Forms<'_>], from: usize) -> Option<Region> {
    let width = pattern.len().min(file.len());
    if width == 0 {
        return None;
    }
    let last = file.len() - width;
    let from = if from <= last { from } else { 0 };
    let counted: Vec<bool> = pattern[..width].iter().map(|p| !is_blank(p.raw)).collect();
    let mut best = (0, from);
    for i in from..=last {
        let score = pattern[..width]
            .iter()
            .zip(&file[i..i + width])
            .zip(&counted)
            .filter(|((p, f), counted)| **counted && p.norm == f.norm)
            .count();
        if score > best.0 {
            best = (score, i);
        }
    }
    let (score, start) = best;
    if score == 0 {
        return None;
    }
    let mut diff = diff(pattern, &file[start..start + width]);
    let omitted = diff.len().saturating_sub(MAX_DIFF_LINES);
    diff.truncate(MAX_DIFF_LINES);
    Some(Region { start: start + 1, end: start + width, diff, omitted })
}

/// A line diff of `expected` against `found` (see [`Region::diff`]), uncut.
fn diff(expected: &[Forms<'_>], found: &[Forms<'_>]) -> Vec<String> {
    let eq = |p: &Forms<'_>, f: &Forms<'_>| same(Tier::Normalised, f, p);
    let minus = |p: &Forms<'_>| format!("-{}", p.body());
    let plus = |f: &Forms<'_>| format!("+{}", f.body());
    let keep = |f: &Forms<'_>| format!(" {}", f.body());
    let (m, r) = (expected.len(), found.len());
    let mut out = Vec::new();
    if m.saturating_mul(r) > MAX_LCS_CELLS {
        for j in 0..m.max(r) {
            match (expected.get(j), found.get(j)) {
                (Some(p), Some(f)) if eq(p, f) => out.push(keep(f)),
                (p, f) => {
                    out.extend(p.map(minus));
                    out.extend(f.map(plus));
                }
            }
        }
        return out;
    }
    // table[i * (r + 1) + j]: the LCS length of expected[i..] and found[j..].
    let mut table = vec![0u32; (m + 1) * (r + 1)];
    let at = |i: usize, j: usize| i * (r + 1) + j;
    for i in (0..m).rev() {
        for j in (0..r).rev() {
            table[at(i, j)] = if eq(&expected[i], &found[j]) {
                table[at(i + 1, j + 1)] + 1
            } else {
                table[at(i + 1, j)].max(table[at(i, j + 1)])
            };
        }
    }
    let (mut i, mut j) = (0, 0);
    while i < m && j < r {
        if eq(&expected[i], &found[j]) {
            out.push(keep(&found[j]));
            i += 1;
            j += 1;
        } else if table[at(i + 1, j)] >= table[at(i, j + 1)] {
            out.push(minus(&expected[i]));
            i += 1;
        } else {
            out.push(plus(&found[j]));
            j += 1;
        }
    }
    out.extend(expected[i..].iter().map(minus));
    out.extend(found[j..].iter().map(plus));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(lines: &[&str]) -> Vec<String> {
        lines.iter().map(|s| s.to_string()).collect()
    }

    fn error(file: &[&str], pattern: &[&str], from: usize) -> MatchError {
        let (file, pattern) = (v(file), v(pattern));
        not_found(&Prepared::new(&file, &pattern), from)
    }

    #[test]
    fn names_the_first_missing_line_and_the_closest_region() {
        let file = ["a", "fn f() {", "    let x = 1;", "    let y = 3;", "}", "z"];
        let pattern = ["fn f() {", "  let x = 1;", "  let y = 2;", "}"];
        let MatchError::NotFound { missing, closest } = error(&file, &pattern, 0) else {
            panic!("not a NotFound");
        };
        assert_eq!(missing, Some(MissingLine { line: 3, text: "  let y = 2;".into() }));
        let region = closest.unwrap();
        assert_eq!((region.start, region.end, region.omitted), (2, 5, 0));
        assert_eq!(
            region.diff,
            [" fn f() {", "     let x = 1;", "-  let y = 2;", "+    let y = 3;", " }"]
        );
    }

    #[test]
    fn the_diff_aligns_an_extra_line() {
        let file = ["x", "one", "two", "three", "four"];
        let pattern = ["one", "inserted", "two", "three"];
        let MatchError::NotFound { closest, .. } = error(&file, &pattern, 0) else {
            panic!("not a NotFound");
        };
        let region = closest.unwrap();
        // The window at line 1 has "two" and "three" at their offsets; the one at line 2
        // only "one".
        assert_eq!((region.start, region.end), (1, 4));
        assert_eq!(region.diff, ["+x", " one", "-inserted", " two", " three"]);
    }

    #[test]
    fn ties_go_to_the_earliest_and_nothing_shared_is_no_region() {
        let MatchError::NotFound { closest, missing } =
            error(&["k", "q", "k", "q"], &["k", "nope"], 0)
        else {
            panic!("not a NotFound");
        };
        assert_eq!(missing.unwrap().line, 2);
        assert_eq!(closest.unwrap().start, 1);
        let MatchError::NotFound { closest, missing } = error(&["a", "b"], &["c"], 0) else {
            panic!("not a NotFound");
        };
        assert_eq!((missing.unwrap().line, closest), (1, None));
        // Every line occurs, but not together.
        let MatchError::NotFound { missing, .. } = error(&["a", "x", "b"], &["a", "b"], 0) else {
            panic!("not a NotFound");
        };
        assert_eq!(missing, None);
    }

    #[test]
    fn long_diffs_are_cut_and_big_ones_are_pairwise() {
        let file: Vec<String> = (0..60).map(|i| format!("line {i}")).collect();
        let pattern: Vec<String> =
            (0..60).map(|i| if i == 0 { "line 0".into() } else { format!("other {i}") }).collect();
        let MatchError::NotFound { closest, .. } = not_found(&Prepared::new(&file, &pattern), 0)
        else {
            panic!("not a NotFound");
        };
        let region = closest.unwrap();
        assert_eq!(region.diff.len(), MAX_DIFF_LINES);
        assert_eq!(region.diff.len() + region.omitted, 1 + 59 * 2);

        let big: Vec<String> = (0..1001).map(|i| format!("l{i}")).collect();
        let mut changed = big.clone();
        changed[500] = "changed".into();
        let prep = Prepared::new(&big, &changed);
        let d = diff(&prep.pattern, &prep.file);
        assert_eq!(d.len(), 1002);
        assert_eq!((d[500].as_str(), d[501].as_str()), ("-changed", "+l500"));
    }
}
