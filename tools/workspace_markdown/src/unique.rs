//! Widening an edit's `oldString` until it occurs exactly once in the file, as the `edit`
//! tool requires: whole lines, then one more line of context above, one below, and so on.
//!
//! Proving a string unique scans the file, so the scanning of one call is bounded
//! ([`SCAN_BUDGET_BYTES`]): past it no further suggestion is made and the summary says so.

use crate::lines::Lines;

/// Bytes scanned to prove `oldString`s unique, over one call: about 1.5 s of the component's
/// time (measured: 512 MiB took 0.36 s). A typical document spends a tiny part of it; a file
/// of a megabyte with more than 2,000 fixes stops early and says so.
pub const SCAN_BUDGET_BYTES: u64 = 2 * 1024 * 1024 * 1024;

/// Lines of context added on each side at most before a suggestion is given up.
pub const MAX_CONTEXT_LINES: usize = 8;

/// Longest `oldString` offered, in bytes.
pub const MAX_OLD_BYTES: usize = 16 * 1024;

/// Why no unique `oldString` was found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NotUnique {
    /// The text repeats even with all the context allowed (or the string grew too long).
    Repeats,
    /// [`SCAN_BUDGET_BYTES`] is spent.
    BudgetSpent,
}

/// Finds unique line spans in one text, within the scan budget.
pub struct Widener<'l, 'a> {
    lines: &'l Lines<'a>,
    scanned: u64,
    budget: u64,
}

impl<'l, 'a> Widener<'l, 'a> {
    /// A widener over `lines` with the whole budget.
    pub fn new(lines: &'l Lines<'a>) -> Self {
        Self::with_budget(lines, SCAN_BUDGET_BYTES)
    }

    /// A widener with another budget (for tests).
    pub fn with_budget(lines: &'l Lines<'a>, budget: u64) -> Self {
        Widener { lines, scanned: 0, budget }
    }

    /// The text of 0-based lines `a..=b`, endings included.
    pub fn span(&self, a: usize, b: usize) -> &'a str {
        &self.lines.text()[self.lines.start(a)..self.lines.end(b)]
    }

    /// The smallest span `a..=b` around lines `first..=last`, within `lo..=hi`, whose text
    /// occurs once in the whole text.
    pub fn widen(
        &mut self,
        (first, last): (usize, usize),
        (lo, hi): (usize, usize),
    ) -> Result<(usize, usize), NotUnique> {
        let (mut a, mut b) = (first, last);
        for step in 0..=2 * MAX_CONTEXT_LINES {
            if step > 0 {
                let up = step % 2 == 1;
                match (up && a > lo, !up && b < hi) {
                    (true, _) => a -= 1,
                    (_, true) => b += 1,
                    _ if a > lo => a -= 1,
                    _ if b < hi => b += 1,
                    _ => return Err(NotUnique::Repeats),
                }
            }
            let needle = self.span(a, b);
            if needle.len() > MAX_OLD_BYTES {
                return Err(NotUnique::Repeats);
            }
            if self.occurs_once(needle)? {
                return Ok((a, b));
            }
        }
        Err(NotUnique::Repeats)
    }

    /// Whether `needle` occurs exactly once; the bytes searched (up to the end of the second
    /// occurrence, or the whole text) count against the budget.
    fn occurs_once(&mut self, needle: &str) -> Result<bool, NotUnique> {
        let hay = self.lines.text().as_bytes();
        if self.scanned >= self.budget {
            return Err(NotUnique::BudgetSpent);
        }
        let mut found = memchr::memmem::find_iter(hay, needle.as_bytes());
        let first = found.next();
        let second = found.next();
        self.scanned += second.map_or(hay.len(), |at| at + needle.len()) as u64;
        Ok(first.is_some() && second.is_none())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn widens_until_unique() {
        let lines = Lines::new("a\nx\nb\nx\nc\n");
        let mut w = Widener::new(&lines);
        assert_eq!(w.widen((0, 0), (0, 4)), Ok((0, 0)));
        // "x\n" twice; "a\nx\n" once.
        assert_eq!(w.widen((1, 1), (0, 4)), Ok((0, 1)));
        // Not allowed above line 1: goes below instead.
        assert_eq!(w.widen((1, 1), (1, 4)), Ok((1, 2)));
    }

    #[test]
    fn repeats_and_budget() {
        let lines = Lines::new("x\nx\n");
        let mut w = Widener::new(&lines);
        assert_eq!(w.widen((0, 0), (0, 1)), Ok((0, 1)));
        assert_eq!(w.widen((0, 0), (0, 0)), Err(NotUnique::Repeats));
        // "x\n" is found twice within the first 4 bytes: 4 bytes spent, then nothing is left.
        let mut poor = Widener::with_budget(&lines, 4);
        assert_eq!(poor.widen((0, 0), (0, 1)), Err(NotUnique::BudgetSpent));
        let mut enough = Widener::with_budget(&lines, 5);
        assert_eq!(enough.widen((0, 0), (0, 1)), Ok((0, 1)));
    }

    #[test]
    fn a_line_inside_another_is_not_unique() {
        // "b\n" is also the end of "ab\n".
        let lines = Lines::new("ab\nb\nc\n");
        let mut w = Widener::new(&lines);
        assert_eq!(w.widen((1, 1), (0, 2)), Ok((0, 1)));
    }
}
