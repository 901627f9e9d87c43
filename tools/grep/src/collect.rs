//! What grep keeps while it scans (docs/contract.md#grep: memory holds only what is returned, and
//! the counts): bounded collectors that hold only the lines or files the result will show, whatever
//! order the walk delivers files in.
//!
//! Which lines are shown is decided by path order, not by traversal order, so the answer
//! does not depend on the walk: the result is the first [`MAX_LINES`] lines of the
//! sequence "files sorted by path (byte order), each file's first [`MAX_LINES_PER_FILE`]
//! matching lines by line number". A file that sorts after everything already kept, once
//! the bound is full, keeps nothing and is only counted.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::{MAX_FILES, MAX_LINE_BYTES, MAX_LINES, MAX_LINES_PER_FILE};

/// Appended to a line cut at [`MAX_LINE_BYTES`] (docs/contract.md#grep, verbatim).
pub const LINE_TRUNCATED: &str = "... (line truncated to 2000 bytes)";

/// `line` cut to at most [`MAX_LINE_BYTES`] bytes on a char boundary, with
/// [`LINE_TRUNCATED`] appended when anything was cut.
pub fn cut_line(line: &str) -> String {
    if line.len() <= MAX_LINE_BYTES {
        return line.to_owned();
    }
    let mut end = MAX_LINE_BYTES;
    while !line.is_char_boundary(end) {
        end -= 1;
    }
    let mut out = String::with_capacity(end + LINE_TRUNCATED.len());
    out.push_str(&line[..end]);
    out.push_str(LINE_TRUNCATED);
    out
}

/// One kept matching line, already cut for display.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct KeptLine {
    /// 1-based line number.
    pub number: u64,
    /// The line without its terminator, cut by [`cut_line`].
    pub text: String,
}

/// The kept lines of one file and how many lines of it matched in all.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileLines {
    /// The first matching lines of the file, in line order; never more than
    /// [`MAX_LINES_PER_FILE`], fewer when the global bound cut them.
    pub lines: Vec<KeptLine>,
    /// Matching lines in the file, kept or not.
    pub total: u64,
}

/// The kept lines of `content` mode: at most [`MAX_LINES`] lines over the files that sort
/// first by path.
#[derive(Debug, Default, Serialize, Deserialize)]
pub struct ContentCollector {
    files: BTreeMap<String, FileLines>,
    kept: usize,
}

impl ContentCollector {
    /// True when lines of a file at `path` could still be shown; when false, the scan only
    /// counts that file's matches.
    pub fn wants(&self, path: &str) -> bool {
        self.kept < MAX_LINES
            || self.files.last_key_value().is_some_and(|(last, _)| path < last.as_str())
    }

    /// Add a searched file: its first matching lines (at most [`MAX_LINES_PER_FILE`]) and its
    /// total; then drop lines from the files that sort last until [`MAX_LINES`] remain.
    pub fn add(&mut self, path: String, mut lines: Vec<KeptLine>, total: u64) {
        lines.truncate(MAX_LINES_PER_FILE);
        self.kept += lines.len();
        if lines.is_empty() {
            return;
        }
        self.files.insert(path, FileLines { lines, total });
        while self.kept > MAX_LINES {
            let mut last = self.files.last_entry().expect("kept > 0 means a file is kept");
            let excess = (self.kept - MAX_LINES).min(last.get().lines.len());
            let keep = last.get().lines.len() - excess;
            last.get_mut().lines.truncate(keep);
            self.kept -= excess;
            if keep == 0 {
                last.remove();
            }
        }
    }

    /// Lines kept in all.
    pub fn shown(&self) -> usize {
        self.kept
    }

    /// Take in what another collector kept (another part of the same search): the result
    /// is what one collector would have kept from both parts' files.
    pub fn merge(&mut self, other: ContentCollector) {
        for (path, file) in other.files {
            self.add(path, file.lines, file.total);
        }
    }

    /// The kept files in path order.
    pub fn files(&self) -> impl Iterator<Item = (&str, &FileLines)> {
        self.files.iter().map(|(p, f)| (p.as_str(), f))
    }
}

/// The kept files of `files_with_matches` and `count` mode: at most [`MAX_FILES`] files, the
/// first by path, each with its count of matching lines.
#[derive(Debug, Default, Serialize, Deserialize)]
pub struct FileCollector {
    files: BTreeMap<String, u64>,
}

impl FileCollector {
    /// True when a file at `path` could still be shown.
    pub fn wants(&self, path: &str) -> bool {
        self.files.len() < MAX_FILES
            || self.files.last_key_value().is_some_and(|(last, _)| path < last.as_str())
    }

    /// Add a file with `count` matching lines, dropping the file that sorts last when more
    /// than [`MAX_FILES`] are kept.
    pub fn add(&mut self, path: String, count: u64) {
        if !self.wants(&path) {
            return;
        }
        self.files.insert(path, count);
        if self.files.len() > MAX_FILES {
            self.files.pop_last();
        }
    }

    /// Files kept.
    pub fn shown(&self) -> usize {
        self.files.len()
    }

    /// Take in what another collector kept (another part of the same search).
    pub fn merge(&mut self, other: FileCollector) {
        for (path, count) in other.files {
            self.add(path, count);
        }
    }

    /// The kept files in path order with their counts.
    pub fn files(&self) -> impl Iterator<Item = (&str, u64)> {
        self.files.iter().map(|(p, c)| (p.as_str(), *c))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(n: u64) -> Vec<KeptLine> {
        (1..=n).map(|number| KeptLine { number, text: format!("l{number}") }).collect()
    }

    #[test]
    fn cut_line_keeps_short_lines_and_cuts_long_ones_on_a_char_boundary() {
        assert_eq!(cut_line("abc"), "abc");
        let exact = "a".repeat(MAX_LINE_BYTES);
        assert_eq!(cut_line(&exact), exact);
        let long = "a".repeat(MAX_LINE_BYTES + 1);
        assert_eq!(
            cut_line(&long),
            format!("{}... (line truncated to 2000 bytes)", "a".repeat(2000))
        );
        // 1999 ASCII bytes then a 3-byte char straddling byte 2000: the char goes whole.
        let straddle = format!("{}€tail", "a".repeat(MAX_LINE_BYTES - 1));
        let cut = cut_line(&straddle);
        assert_eq!(cut, format!("{}{LINE_TRUNCATED}", "a".repeat(1999)));
        // A line of 4-byte chars: 500 of them fill 2000 bytes exactly.
        let wide = "😀".repeat(600);
        let cut = cut_line(&wide);
        assert_eq!(cut, format!("{}{LINE_TRUNCATED}", "😀".repeat(500)));
        assert_eq!(LINE_TRUNCATED, "... (line truncated to 2000 bytes)");
    }

    #[test]
    fn content_keeps_the_first_lines_by_path_whatever_the_order() {
        // 8 files of 40 lines: by path, a..f give 240 lines, g gives 10 of its 40.
        let names = ["h", "c", "a", "g", "e", "b", "f", "d"];
        let mut orders = vec![names.to_vec()];
        let mut reversed = names.to_vec();
        reversed.reverse();
        orders.push(reversed);
        let mut sorted = names.to_vec();
        sorted.sort();
        orders.push(sorted);
        let mut results = Vec::new();
        for order in orders {
            let mut c = ContentCollector::default();
            for name in order {
                c.add(name.to_owned(), lines(40), 40);
            }
            assert_eq!(c.shown(), MAX_LINES);
            let got: Vec<(String, usize, u64)> =
                c.files().map(|(p, f)| (p.to_owned(), f.lines.len(), f.total)).collect();
            results.push(got);
        }
        let expected: Vec<(String, usize, u64)> = ["a", "b", "c", "d", "e", "f", "g"]
            .iter()
            .map(|n| (n.to_string(), if *n == "g" { 10 } else { 40 }, 40))
            .collect();
        for got in results {
            assert_eq!(got, expected);
        }
    }

    #[test]
    fn content_wants_only_files_that_sort_before_the_last_kept_once_full() {
        let mut c = ContentCollector::default();
        assert!(c.wants("m"));
        for name in ["b", "d", "f", "h", "j"] {
            c.add(name.into(), lines(50), 70);
        }
        assert_eq!(c.shown(), 250);
        assert!(!c.wants("k"));
        assert!(!c.wants("j"));
        assert!(c.wants("i"));
        c.add("a".into(), lines(10), 10);
        // "j" lost 10 lines and keeps 40.
        let j = c.files().find(|(p, _)| *p == "j").unwrap().1;
        assert_eq!((j.lines.len(), j.total), (40, 70));
        assert_eq!(c.shown(), 250);
    }

    #[test]
    fn content_never_keeps_more_than_fifty_lines_of_a_file() {
        let mut c = ContentCollector::default();
        c.add("a".into(), lines(80), 80);
        assert_eq!(c.shown(), MAX_LINES_PER_FILE);
        c.add("b".into(), Vec::new(), 0);
        assert_eq!(c.files().count(), 1);
    }

    #[test]
    fn files_keep_the_first_by_path() {
        let mut c = FileCollector::default();
        for i in (0..400).rev() {
            c.add(format!("f{i:03}"), i);
        }
        assert_eq!(c.shown(), MAX_FILES);
        let kept: Vec<(String, u64)> = c.files().map(|(p, n)| (p.to_owned(), n)).collect();
        assert_eq!(kept.first().unwrap(), &("f000".to_owned(), 0));
        assert_eq!(kept.last().unwrap(), &("f249".to_owned(), 249));
        assert!(!c.wants("f300"));
        assert!(c.wants("f100x"));
    }
}
