//! `view`: a file with its line numbers (`cat -n`'s layout: the number right-aligned in six
//! columns, a tab, the line), a range of it, or a directory two levels deep; and the numbered
//! snippet an edit's result shows.
//!
//! A file is read to its end, so the host records the read (read-before-edit) even when only
//! a range is shown. What is shown stops at [`READ_MAX_CONTENT_BYTES`] (or `max_characters`)
//! with a line saying how to see the rest.

use toolhost_sdk::limits::{LIST_MAX_LIMIT, READ_MAX_CONTENT_BYTES, VIEW_MAX_FILE_BYTES};
use toolhost_sdk::text::split_bom;
use toolhost_sdk::{EntryKind, ToolError, open_dir, open_file, read_to_end, stat};

use crate::{TextEditorInput, texts};

/// Lines of context an edit's snippet shows before and after the changed lines.
pub const SNIPPET_LINES: usize = 4;

/// Show a file or a directory.
pub fn view(input: &TextEditorInput) -> Result<String, ToolError> {
    match stat(&input.path)? {
        None => Err(ToolError::invalid_arguments(texts::no_such_path(&input.path))),
        Some(meta) if meta.kind == EntryKind::Directory => {
            if input.view_range.is_some() {
                return Err(ToolError::invalid_arguments(texts::RANGE_ON_DIRECTORY));
            }
            directory(&input.path)
        }
        Some(meta) if meta.size > VIEW_MAX_FILE_BYTES => Err(ToolError::invalid_arguments(
            texts::too_large(&input.path, meta.size, VIEW_MAX_FILE_BYTES),
        )),
        Some(_) => file(input),
    }
}

/// The number of lines of `text` (a final line break ends the last line; it starts none).
pub fn line_count(text: &str) -> usize {
    text.lines().count()
}

/// `lines` numbered from `first` as `cat -n` lays them out, one per line.
fn numbered<'a>(lines: impl Iterator<Item = &'a str>, first: usize) -> String {
    let mut out = String::new();
    for (i, line) in lines.enumerate() {
        out.push_str(&format!("{:6}\t{}\n", first + i, line.strip_suffix('\r').unwrap_or(line)));
    }
    out
}

/// Lines `first..=last` of `text` (1-based) with [`SNIPPET_LINES`] around them, numbered.
pub fn snippet(text: &str, first: usize, last: usize) -> String {
    let from = first.saturating_sub(SNIPPET_LINES).max(1);
    let to = last + SNIPPET_LINES;
    let mut out = numbered(text.lines().skip(from - 1).take(to + 1 - from), from);
    if out.len() > READ_MAX_CONTENT_BYTES {
        let cut = out[..READ_MAX_CONTENT_BYTES].rfind('\n').map_or(0, |i| i + 1);
        out.truncate(cut);
        out.push_str("[the rest of the snippet is not shown]\n");
    }
    out
}

fn file(input: &TextEditorInput) -> Result<String, ToolError> {
    let handle = open_file(&input.path)?;
    let path = handle.display_path();
    let bytes = read_to_end(&handle)?;
    let Ok(text) = String::from_utf8(bytes) else {
        return Err(ToolError::invalid_arguments(texts::not_text(&path)));
    };
    let (_, body) = split_bom(&text);
    let lines: Vec<&str> = body.lines().collect();
    let n = lines.len();
    let (start, end) = match &input.view_range {
        None => (1, n),
        Some(range) => range_of(range, n)?,
    };
    let budget = input
        .max_characters
        .map_or(READ_MAX_CONTENT_BYTES, |m| usize::try_from(m).unwrap_or(usize::MAX))
        .min(READ_MAX_CONTENT_BYTES);
    let mut shown = String::new();
    let mut last = start.saturating_sub(1);
    for (i, line) in lines.iter().enumerate().take(end).skip(start - 1) {
        let one = numbered(std::iter::once(*line), i + 1);
        if shown.len() + one.len() > budget {
            break;
        }
        shown.push_str(&one);
        last = i + 1;
    }
    let mut out = texts::view_header(&path);
    out.push_str(&shown);
    if last < end {
        out.push_str(&texts::view_cut(last, end, n));
    }
    Ok(out)
}

/// `view_range` checked against a file of `n` lines: `[start, end]`, end -1 = the last line.
fn range_of(range: &[i64], n: usize) -> Result<(usize, usize), ToolError> {
    let [start, end] = range else {
        return Err(ToolError::invalid_arguments(texts::RANGE_NOT_TWO));
    };
    let bad = |why: String| ToolError::invalid_arguments(texts::bad_range(*start, *end, &why));
    let n_i = i64::try_from(n).unwrap_or(i64::MAX);
    if *start < 1 || *start > n_i.max(1) {
        return Err(bad(format!(
            "its first element `{start}` should be within the range of lines of the file: [1, {n}]"
        )));
    }
    if *end == -1 {
        return Ok((*start as usize, n));
    }
    if *end < *start {
        return Err(bad(format!(
            "its second element `{end}` should be larger or equal than its first `{start}`"
        )));
    }
    if *end > n_i {
        return Err(bad(format!(
            "its second element `{end}` should be smaller than the number of lines in the \
             file: `{n}`"
        )));
    }
    Ok((*start as usize, *end as usize))
}

/// The directory's entries and theirs, hidden ones left out, sorted, at most
/// [`LIST_MAX_LIMIT`] lines.
fn directory(path: &str) -> Result<String, ToolError> {
    let dir = open_dir(path)?;
    let shown = dir.display_path();
    let base = path.trim_end_matches('/');
    let base = if base.is_empty() { "/" } else { base };
    let mut lines = Vec::new();
    let mut entries = dir.entries()?;
    entries.retain(|e| !e.name.starts_with('.'));
    entries.sort_by(|a, b| a.name.cmp(&b.name));
    let limit = LIST_MAX_LIMIT as usize;
    for e in entries {
        let child = join(base, &e.name);
        let is_dir = e.kind == EntryKind::Directory;
        lines.push(if is_dir { format!("{child}/") } else { child.clone() });
        if is_dir && lines.len() < limit {
            // A subdirectory the fence refuses is listed, not opened.
            if let Ok(sub) = open_dir(&child)
                && let Ok(mut inner) = sub.entries()
            {
                inner.retain(|e| !e.name.starts_with('.'));
                inner.sort_by(|a, b| a.name.cmp(&b.name));
                for i in inner {
                    let slash = if i.kind == EntryKind::Directory { "/" } else { "" };
                    lines.push(format!("{}{slash}", join(&child, &i.name)));
                }
            }
        }
        if lines.len() >= limit {
            break;
        }
    }
    let cut = lines.len() > limit;
    lines.truncate(limit);
    let mut out = texts::directory_header(&shown);
    let mut used = out.len();
    let mut listed = 0;
    for l in &lines {
        if used + l.len() + 1 > READ_MAX_CONTENT_BYTES {
            break;
        }
        out.push_str(l);
        out.push('\n');
        used += l.len() + 1;
        listed += 1;
    }
    if cut || listed < lines.len() {
        out.push_str(&texts::directory_cut(listed));
    }
    Ok(out)
}

fn join(base: &str, name: &str) -> String {
    if base.ends_with('/') { format!("{base}{name}") } else { format!("{base}/{name}") }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_are_numbered_as_cat_n_does() {
        assert_eq!(numbered(["a", "b\r"].into_iter(), 9), "     9\ta\n    10\tb\n");
    }

    #[test]
    fn a_snippet_shows_four_lines_around_the_change() {
        let text: String = (1..=20).map(|i| format!("l{i}\n")).collect();
        let s = snippet(&text, 10, 11);
        assert!(s.starts_with("     6\tl6\n") && s.ends_with("    15\tl15\n"), "{s}");
        assert!(snippet(&text, 1, 1).starts_with("     1\tl1\n"));
    }

    #[test]
    fn a_range_is_checked_as_the_reference_tool_checks_it() {
        assert_eq!(range_of(&[2, -1], 5).unwrap(), (2, 5));
        assert_eq!(range_of(&[2, 3], 5).unwrap(), (2, 3));
        assert!(range_of(&[0, 3], 5).is_err());
        assert!(range_of(&[4, 3], 5).is_err());
        assert!(range_of(&[1, 6], 5).is_err());
        assert!(range_of(&[1], 5).is_err());
    }
}
