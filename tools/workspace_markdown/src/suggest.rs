//! The `format_suggestions` operation: mechanical fixes, each as a replacement the `edit`
//! tool accepts (`filePath`, `oldString` occurring once, `newString`).
//!
//! Fixes are decided per line first ([`fixes`]): `#Title` → `# Title`; closing `#`s of an
//! ATX heading removed; trailing spaces and tabs removed, except that a hard line break keeps
//! exactly two spaces (a line ending in exactly two spaces is never touched); a second (and
//! further) blank line in a row removed; a blank line added before and after a heading that is
//! not inside a list, quote or footnote. Code blocks, HTML blocks and front matter are left as
//! they are. Adjacent changed lines form one edit, widened with unchanged context lines until
//! its `oldString` is unique ([`crate::unique`]); context never reaches another edit's changed
//! lines, so the edits apply one after another in file order. A group that repeats within
//! that room takes in the next groups (up to [`MAX_MERGED_GROUPS`]) before it is left out.

use std::collections::{BTreeMap, BTreeSet};

use crate::diagnose::missing_heading_spaces;
use crate::document::Document;
use crate::report::{MAX_ENTRIES, SuggestedEdit};
use crate::unique::{NotUnique, Widener};

/// What one line becomes.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct LineFix {
    /// The new content (without the ending), when it changes.
    pub content: Option<String>,
    /// The line goes away.
    pub delete: bool,
    /// Why, in order.
    pub reasons: Vec<&'static str>,
}

/// Every line change of a document: line fixes, and the lines a blank line is inserted
/// before (with why).
#[derive(Debug, Default)]
pub struct Fixes {
    /// By 0-based line.
    pub lines: BTreeMap<usize, LineFix>,
    /// 0-based lines that get a blank line before them.
    pub gaps: BTreeMap<usize, &'static str>,
}

/// The suggestions of one document.
#[derive(Debug, Default)]
pub struct Suggestions {
    /// The edits, in file order.
    pub edits: Vec<SuggestedEdit>,
    /// Groups of changed lines found (one edit each when all could be made).
    pub found: usize,
    /// Groups the edits cover (an edit may cover several).
    pub covered: usize,
    /// Groups left out because no unique `oldString` could be made.
    pub not_unique: usize,
    /// Stopped early: the scan budget is spent (the rest were not tried).
    pub budget_spent: bool,
}

/// Most groups of changed lines one edit takes in when the first repeats on its own.
pub const MAX_MERGED_GROUPS: usize = 4;

/// The call was cancelled.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SuggestCancelled;

/// Line changes of `doc`.
pub fn fixes(doc: &Document<'_>) -> Fixes {
    let lines = &doc.lines;
    let mut f = Fixes::default();
    let current = |f: &mut Fixes, i: usize| -> String {
        f.lines.get(&i).and_then(|x| x.content.clone()).unwrap_or_else(|| lines.content(i).into())
    };
    for m in missing_heading_spaces(doc) {
        let mut c = current(&mut f, m.line);
        c.insert(m.column + m.hashes, ' ');
        let c = without_closing_hashes(&c).unwrap_or(c);
        set(&mut f, m.line, c, "add a space after `#` so the line is a heading");
    }
    for h in doc.headings.iter().filter(|h| h.atx) {
        let c = current(&mut f, h.line);
        if let Some(stripped) = without_closing_hashes(&c) {
            set(&mut f, h.line, stripped, "remove the closing `#`s of the heading");
        }
    }
    let mut blank_run = 0;
    for i in 0..lines.count() {
        if doc.verbatim[i] {
            blank_run = 0;
            continue;
        }
        let c = current(&mut f, i);
        let trimmed = c.trim_end_matches([' ', '\t']);
        let run = &c[trimmed.len()..];
        if trimmed.is_empty() {
            blank_run += 1;
            if blank_run > 1 {
                let fix = f.lines.entry(i).or_default();
                fix.delete = true;
                fix.reasons.push("remove an extra blank line");
                continue;
            }
        } else {
            blank_run = 0;
        }
        if run.is_empty() || (run == "  " && !trimmed.is_empty()) {
            continue;
        }
        if doc.hard_break[i] && run.ends_with("  ") {
            set(
                &mut f,
                i,
                format!("{trimmed}  "),
                "keep exactly two trailing spaces (a line break)",
            );
        } else {
            set(&mut f, i, trimmed.to_owned(), "remove trailing whitespace");
        }
    }
    for h in doc.headings.iter().filter(|h| h.top_level) {
        if h.line > 0 && !lines.is_blank(h.line - 1) {
            f.gaps.insert(h.line, "add a blank line before the heading");
        }
        if h.end_line + 1 < lines.count() && !lines.is_blank(h.end_line + 1) {
            f.gaps.insert(h.end_line + 1, "add a blank line after the heading");
        }
    }
    f
}

fn set(f: &mut Fixes, line: usize, content: String, reason: &'static str) {
    let fix = f.lines.entry(line).or_default();
    fix.content = Some(content);
    fix.reasons.push(reason);
}

/// An ATX heading line without its closing sequence (` ##` at the end), if it has one; the
/// opening `#`s (and whatever container markers precede them) stay.
pub fn without_closing_hashes(line: &str) -> Option<String> {
    let open_at = line.find('#')?;
    let head_end = open_at + line[open_at..].bytes().take_while(|&b| b == b'#').count();
    let rest = line[head_end..].trim_end_matches([' ', '\t']);
    let before = rest.trim_end_matches('#');
    if before.len() == rest.len() || !(before.is_empty() || before.ends_with([' ', '\t'])) {
        return None;
    }
    Some(format!("{}{}", &line[..head_end], before.trim_end_matches([' ', '\t'])))
}

/// The edits of `doc` for the file shown as `file_path`; `cancelled` is asked now and then.
pub fn suggest(
    doc: &Document<'_>,
    file_path: &str,
    cancelled: &dyn Fn() -> bool,
) -> Result<Suggestions, SuggestCancelled> {
    let fixes = fixes(doc);
    let groups = touched_runs(&fixes);
    let mut out = Suggestions { found: groups.len(), ..Suggestions::default() };
    let mut widener = Widener::new(&doc.lines);
    let last_line = doc.lines.count() - 1;
    let mut k = 0;
    let mut asked = 0usize;
    'groups: while k < groups.len() {
        asked += 1;
        if asked % 64 == 1 && cancelled() {
            return Err(SuggestCancelled);
        }
        if out.edits.len() == MAX_ENTRIES {
            break;
        }
        let (first, mut last) = groups[k];
        let lo = k.checked_sub(1).map_or(0, |p| groups[p].1 + 1);
        // A group that repeats within its room takes in the next ones, up to
        // MAX_MERGED_GROUPS, before it is left out.
        let mut end = k;
        let span = loop {
            let hi = groups.get(end + 1).map_or(last_line, |n| n.0 - 1);
            match widener.widen((first, last), (lo, hi)) {
                Ok(span) => break Some(span),
                Err(NotUnique::Repeats)
                    if end + 1 < groups.len() && end - k + 1 < MAX_MERGED_GROUPS =>
                {
                    end += 1;
                    last = groups[end].1;
                }
                Err(NotUnique::Repeats) => break None,
                Err(NotUnique::BudgetSpent) => {
                    out.budget_spent = true;
                    break 'groups;
                }
            }
        };
        let Some((a, b)) = span else {
            out.not_unique += 1;
            k += 1;
            continue;
        };
        out.covered += end - k + 1;
        k = end + 1;
        let old_string = widener.span(a, b).to_owned();
        let new_string = rewrite(doc, &fixes, a, b);
        if old_string == new_string {
            continue;
        }
        out.edits.push(SuggestedEdit {
            file_path: file_path.to_owned(),
            old_string,
            new_string,
            line: first + 1,
            reason: reasons(&fixes, first, last),
        });
    }
    Ok(out)
}

/// The runs of consecutive lines the fixes touch, as `(first, last)`, in order.
fn touched_runs(fixes: &Fixes) -> Vec<(usize, usize)> {
    let touched: BTreeSet<usize> = fixes.lines.keys().chain(fixes.gaps.keys()).copied().collect();
    let mut groups: Vec<(usize, usize)> = Vec::new();
    for i in touched {
        match groups.last_mut() {
            Some((_, last)) if *last + 1 == i => *last = i,
            _ => groups.push((i, i)),
        }
    }
    groups
}

/// Why lines `first..=last` change: each fix's reason once, in line order.
fn reasons(fixes: &Fixes, first: usize, last: usize) -> String {
    let mut reasons: Vec<&str> = Vec::new();
    for i in first..=last {
        let gap = fixes.gaps.get(&i).copied();
        let line = fixes.lines.get(&i).map(|f| f.reasons.iter().copied());
        for r in gap.into_iter().chain(line.into_iter().flatten()) {
            if !reasons.contains(&r) {
                reasons.push(r);
            }
        }
    }
    reasons.join("; ")
}

/// Lines `a..=b` with their fixes applied.
fn rewrite(doc: &Document<'_>, fixes: &Fixes, a: usize, b: usize) -> String {
    let lines = &doc.lines;
    let mut s = String::new();
    for i in a..=b {
        if fixes.gaps.contains_key(&i) {
            s.push_str(if i > 0 { lines.ending(i - 1) } else { "\n" });
        }
        let fix = fixes.lines.get(&i);
        if fix.is_some_and(|f| f.delete) {
            continue;
        }
        s.push_str(fix.and_then(|f| f.content.as_deref()).unwrap_or(lines.content(i)));
        s.push_str(lines.ending(i));
    }
    s
}

#[cfg(test)]
#[path = "suggest_tests.rs"]
pub(crate) mod tests;
