//! The lines of a text: byte offset → 1-based line number, and each line's content and
//! ending (`\n`, `\r\n` or none for a last line without one).

/// The line starts of one text.
#[derive(Debug)]
pub struct Lines<'a> {
    text: &'a str,
    /// Byte offset where each line starts; never the text's length (an ending newline
    /// does not open another line), except for the one line of an empty text.
    starts: Vec<usize>,
}

impl<'a> Lines<'a> {
    /// Index the lines of `text`.
    pub fn new(text: &'a str) -> Self {
        let mut starts = vec![0];
        starts.extend(memchr::memchr_iter(b'\n', text.as_bytes()).map(|i| i + 1));
        if starts.len() > 1 && starts.last() == Some(&text.len()) {
            starts.pop();
        }
        Lines { text, starts }
    }

    /// The text indexed.
    pub fn text(&self) -> &'a str {
        self.text
    }

    /// How many lines there are (an empty text has one, empty).
    pub fn count(&self) -> usize {
        self.starts.len()
    }

    /// The 1-based line of byte `offset`.
    pub fn line_of(&self, offset: usize) -> usize {
        self.starts.partition_point(|&s| s <= offset).max(1)
    }

    /// The 0-based line `i`: where it starts.
    pub fn start(&self, i: usize) -> usize {
        self.starts[i]
    }

    /// Where 0-based line `i` ends, after its newline.
    pub fn end(&self, i: usize) -> usize {
        self.starts.get(i + 1).copied().unwrap_or(self.text.len())
    }

    /// The 0-based line `i` without its ending.
    pub fn content(&self, i: usize) -> &'a str {
        let line = &self.text[self.start(i)..self.end(i)];
        let line = line.strip_suffix('\n').unwrap_or(line);
        line.strip_suffix('\r').unwrap_or(line)
    }

    /// The ending of 0-based line `i`: `\n`, `\r\n`, or empty for a last line without one.
    pub fn ending(&self, i: usize) -> &'a str {
        &self.text[self.start(i) + self.content(i).len()..self.end(i)]
    }

    /// Whether 0-based line `i` is empty or only spaces and tabs.
    pub fn is_blank(&self, i: usize) -> bool {
        self.content(i).bytes().all(|b| b == b' ' || b == b'\t')
    }

    /// The 0-based lines `range` covers (a range ending in a newline stops before the
    /// next line).
    pub fn span(&self, range: &std::ops::Range<usize>) -> std::ops::RangeInclusive<usize> {
        let first = self.line_of(range.start) - 1;
        let last = self.line_of(range.end.saturating_sub(1).max(range.start)) - 1;
        first..=last.max(first)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_and_endings() {
        let l = Lines::new("a\r\nbb\n\nc");
        assert_eq!(l.count(), 4);
        assert_eq!((l.content(0), l.ending(0)), ("a", "\r\n"));
        assert_eq!((l.content(1), l.ending(1)), ("bb", "\n"));
        assert_eq!((l.content(2), l.ending(2)), ("", "\n"));
        assert_eq!((l.content(3), l.ending(3)), ("c", ""));
        assert_eq!(
            [l.line_of(0), l.line_of(2), l.line_of(3), l.line_of(6), l.line_of(7)],
            [1, 1, 2, 3, 4]
        );
        assert!(l.is_blank(2) && !l.is_blank(3));
    }

    #[test]
    fn a_final_newline_opens_no_line() {
        let l = Lines::new("x\n");
        assert_eq!(l.count(), 1);
        assert_eq!(l.end(0), 2);
        assert_eq!(Lines::new("").count(), 1);
        assert_eq!(l.span(&(0..2)), 0..=0);
    }
}
