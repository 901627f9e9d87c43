//! The scan loop of grep (docs/contract.md#grep): one [`Searcher`] and one matcher (the regex, with
//! [`LiteralMatcher`]'s fast path for literals) for the whole call, run over each file the
//! host delivers; every match is counted, written to the full list and — while it can still
//! be shown — kept.
//!
//! The host is reached through two seams so the loop runs natively in tests: [`Control`]
//! (cancellation and the scan timeout) and [`Append`] (the spill file).

use std::io;

use grep_regex::RegexMatcherBuilder;
use grep_searcher::{BinaryDetection, Searcher, SearcherBuilder, Sink, SinkMatch};
use toolhost_sdk::ToolError;

use crate::bytes::{count_newlines, has_line_longer_than, push_u64, strip_terminator, text_of};
use crate::collect::{KeptLine, cut_line};
use crate::literal::LiteralMatcher;
use crate::report::Findings;
use crate::spill_lines::SpillLines;
use crate::{MAX_LINE_LENGTH, MAX_LINES_PER_FILE, OutputMode};

pub use toolhost_sdk::scan::{Append, Control, Stop};

/// The matcher for `pattern`, or `invalid-arguments` naming the regex error.
pub fn matcher(pattern: &str) -> Result<LiteralMatcher, ToolError> {
    let regex = RegexMatcherBuilder::new()
        .line_terminator(Some(b'\n'))
        .build(pattern)
        .map_err(|e| ToolError::invalid_arguments(format!("pattern is not a valid regex: {e}")))?;
    Ok(LiteralMatcher::new(pattern, regex))
}

/// One scan: the searcher, the matcher, what was found, and the full list.
pub struct Scan<'c, C: Control, A: Append> {
    mode: OutputMode,
    /// The searcher for files in memory (no line numbers).
    searcher: Searcher,
    /// The searcher for streamed files (line numbers in content mode).
    streaming: Searcher,
    matcher: LiteralMatcher,
    control: &'c C,
    pub found: Findings,
    pub spill: SpillLines<A>,
    /// Set once the scan must stop; no file is searched after it.
    pub stop: Option<Stop>,
    /// Kept lines of the current file (reused across files).
    lines: Vec<KeptLine>,
}

impl<'c, C: Control, A: Append> Scan<'c, C, A> {
    pub fn new(mode: OutputMode, matcher: LiteralMatcher, control: &'c C, spill: A) -> Self {
        let searcher = |line_number: bool| {
            SearcherBuilder::new()
                // A NUL byte marks a binary file: stop searching it (docs/contract.md#grep).
                .binary_detection(BinaryDetection::quit(b'\x00'))
                .line_number(line_number)
                // A line longer than this makes a streamed search fail, which skips the file.
                .heap_limit(Some(MAX_LINE_LENGTH as usize))
                .build()
        };
        Scan {
            mode,
            // Line numbers of a file in memory are counted by the sink, and only for the
            // lines it writes (`FileSink::number`); a streamed file needs the searcher's.
            searcher: searcher(false),
            streaming: searcher(mode == OutputMode::Content),
            matcher,
            control,
            found: Findings::default(),
            spill: SpillLines::new(spill),
            stop: None,
            lines: Vec::new(),
        }
    }

    /// Search one walked file; `None` contents (unreadable) skip it. Returns false once the
    /// scan must stop.
    pub fn file(&mut self, path: &str, contents: Option<&[u8]>) -> bool {
        if !self.check() {
            return false;
        }
        let Some(bytes) = contents else { return true };
        if bytes.len() as u64 > MAX_LINE_LENGTH && has_line_longer_than(bytes, MAX_LINE_LENGTH) {
            return true;
        }
        self.search(path, Some(bytes), |scan, sink| {
            scan.searcher.search_slice(scan.matcher, bytes, sink)
        })
    }

    /// Search one file streamed from `reader` (a `path` that names a file).
    pub fn reader(&mut self, path: &str, reader: impl io::Read) -> bool {
        if !self.check() {
            return false;
        }
        self.search(path, None, |scan, sink| {
            scan.streaming.search_reader(scan.matcher, reader, sink)
        })
    }

    fn check(&mut self) -> bool {
        if self.stop.is_none() {
            self.stop = self.control.check();
        }
        self.stop.is_none()
    }

    /// Search one file with `run`; `haystack` is the file when it is in memory.
    fn search(
        &mut self,
        path: &str,
        haystack: Option<&[u8]>,
        run: impl FnOnce(&mut Searchers<'_>, &mut FileSink<'_, C, A>) -> io::Result<()>,
    ) -> bool {
        let keep = match self.mode {
            OutputMode::Content => self.found.content.wants(path),
            _ => self.found.files.wants(path),
        };
        let mark = self.spill.mark();
        self.lines.clear();
        let mut sink = FileSink {
            mode: self.mode,
            path,
            control: self.control,
            spill: &mut self.spill,
            keep,
            lines: &mut self.lines,
            count: 0,
            stop: None,
            haystack,
            counted: (0, 1),
        };
        let mut searchers = Searchers {
            searcher: &mut self.searcher,
            streaming: &mut self.streaming,
            matcher: &self.matcher,
        };
        let result = run(&mut searchers, &mut sink);
        let (count, stop) = (sink.count, sink.stop);
        if result.is_err() && stop.is_none() {
            // A line over the limit or a read error: skip the file (docs/contract.md#grep).
            self.spill.rollback(mark);
            return true;
        }
        self.stop = stop;
        if count > 0 {
            self.found.total_files += 1;
            self.found.total_lines += count;
            match self.mode {
                OutputMode::Content => {
                    let lines = std::mem::take(&mut self.lines);
                    self.found.content.add(path.to_owned(), lines, count);
                }
                OutputMode::Count => {
                    let line = self.spill.line();
                    line.push_str(path);
                    line.push(':');
                    push_u64(line, count);
                    self.spill.end_line();
                    self.found.files.add(path.to_owned(), count);
                }
                OutputMode::FilesWithMatches => self.found.files.add(path.to_owned(), count),
            }
        }
        self.stop.is_none()
    }
}

/// What a search runs with: the two searchers and the matcher.
struct Searchers<'a> {
    searcher: &'a mut Searcher,
    streaming: &'a mut Searcher,
    matcher: &'a LiteralMatcher,
}

/// The searcher's view of one file: counts matches, writes the full list, keeps lines.
struct FileSink<'a, C: Control, A: Append> {
    mode: OutputMode,
    path: &'a str,
    control: &'a C,
    spill: &'a mut SpillLines<A>,
    /// Whether this file's lines may still be shown.
    keep: bool,
    lines: &'a mut Vec<KeptLine>,
    count: u64,
    stop: Option<Stop>,
    /// The file, when it is in memory: line numbers are counted here.
    haystack: Option<&'a [u8]>,
    /// (byte offset, its line number) as far as lines were counted.
    counted: (usize, u64),
}

impl<C: Control, A: Append> FileSink<'_, C, A> {
    /// The line number of the match's first line.
    fn number(&mut self, mat: &SinkMatch<'_>) -> u64 {
        let Some(haystack) = self.haystack else { return mat.line_number().unwrap_or(0) };
        let start = (mat.absolute_byte_offset() as usize).min(haystack.len());
        let (from, line) = self.counted;
        let number = line + count_newlines(&haystack[from.min(start)..start]);
        self.counted = (start, number);
        number
    }
}

impl<C: Control, A: Append> Sink for FileSink<'_, C, A> {
    type Error = io::Error;

    fn matched(&mut self, _: &Searcher, mat: &SinkMatch<'_>) -> Result<bool, io::Error> {
        if let Some(stop) = self.control.check() {
            self.stop = Some(stop);
            return Ok(false);
        }
        match self.mode {
            OutputMode::FilesWithMatches => {
                // One match decides the file; the rest of it need not be searched.
                self.count = 1;
                self.spill.push(self.path);
                Ok(false)
            }
            // The searchers are line by line (never multi-line), so a match is exactly one
            // line, terminator included (`SinkMatch::lines`): no need to split it.
            OutputMode::Count => {
                self.count += 1;
                Ok(true)
            }
            OutputMode::Content
                if self.spill.full() && !(self.keep && self.lines.len() < MAX_LINES_PER_FILE) =>
            {
                // Nothing of this line is shown or saved any more: count it only.
                self.count += 1;
                Ok(true)
            }
            OutputMode::Content => {
                let number = self.number(mat);
                let text = text_of(strip_terminator(mat.bytes()));
                let line = self.spill.line();
                line.push_str(self.path);
                line.push(':');
                push_u64(line, number);
                line.push(':');
                line.push_str(&text);
                self.spill.end_line();
                if self.keep && self.lines.len() < MAX_LINES_PER_FILE {
                    self.lines.push(KeptLine { number, text: cut_line(&text) });
                }
                self.count += 1;
                Ok(true)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::Cell;
    use toolhost_sdk::scan::SPILL_CHUNK_BYTES;

    /// Stops with `stop` after `after` checks.
    struct After {
        checks: Cell<u64>,
        after: u64,
        stop: Stop,
    }

    impl After {
        fn never() -> Self {
            After { checks: Cell::new(0), after: u64::MAX, stop: Stop::TimedOut }
        }
        fn new(after: u64, stop: Stop) -> Self {
            After { checks: Cell::new(0), after, stop }
        }
    }

    impl Control for After {
        fn check(&self) -> Option<Stop> {
            let n = self.checks.get() + 1;
            self.checks.set(n);
            (n > self.after).then_some(self.stop)
        }
    }

    #[derive(Default)]
    struct Chunks(Vec<String>);

    impl Append for &mut Chunks {
        fn append(&mut self, lines: &str) {
            self.0.push(lines.to_owned());
        }
    }

    fn run(
        mode: OutputMode,
        pattern: &str,
        files: &[(&str, &[u8])],
        control: &After,
    ) -> (Findings, Vec<String>, Option<Stop>) {
        let mut chunks = Chunks::default();
        let (found, stop) = {
            let mut scan = Scan::new(mode, matcher(pattern).unwrap(), control, &mut chunks);
            for (path, bytes) in files {
                if !scan.file(path, Some(bytes)) {
                    break;
                }
            }
            let stop = scan.stop;
            let found = std::mem::take(&mut scan.found);
            scan.spill.into_target();
            (found, stop)
        };
        let lines = chunks.0.iter().flat_map(|c| c.split('\n')).map(str::to_owned).collect();
        (found, lines, stop)
    }

    #[test]
    fn content_counts_keeps_and_spills_every_line() {
        let files: &[(&str, &[u8])] =
            &[("b.txt", b"foo\nbar\nfoo bar\r\n"), ("a.txt", b"no\nfood\n"), ("c.txt", b"nothing")];
        let (found, spill, stop) = run(OutputMode::Content, "fo+", files, &After::never());
        assert_eq!(stop, None);
        assert_eq!((found.total_lines, found.total_files), (3, 2));
        assert_eq!(spill, ["b.txt:1:foo", "b.txt:3:foo bar", "a.txt:2:food"]);
        let kept: Vec<(&str, Vec<(u64, String)>)> = found
            .content
            .files()
            .map(|(p, f)| (p, f.lines.iter().map(|l| (l.number, l.text.clone())).collect()))
            .collect();
        assert_eq!(
            kept,
            [
                ("a.txt", vec![(2, "food".to_owned())]),
                ("b.txt", vec![(1, "foo".to_owned()), (3, "foo bar".to_owned())])
            ]
        );
    }

    #[test]
    fn bounds_keep_counting_after_they_are_reached() {
        let big: Vec<u8> = (0..1000).flat_map(|i| format!("match {i}\n").into_bytes()).collect();
        let files: Vec<(String, Vec<u8>)> =
            (0..10).map(|i| (format!("f{i}"), big.clone())).collect();
        let refs: Vec<(&str, &[u8])> =
            files.iter().map(|(p, b)| (p.as_str(), b.as_slice())).collect();
        let (found, spill, _) = run(OutputMode::Content, "match", &refs, &After::never());
        assert_eq!((found.total_lines, found.total_files), (10_000, 10));
        assert_eq!(found.content.shown(), 250);
        assert_eq!(found.content.files().count(), 5);
        assert!(found.content.files().all(|(_, f)| f.lines.len() == 50 && f.total == 1000));
        assert_eq!(spill.len(), 10_000);
    }

    #[test]
    fn long_lines_are_cut_for_display_but_spilled_whole() {
        let line = format!("x{}", "é".repeat(1500));
        let (found, spill, _) =
            run(OutputMode::Content, "x", &[("a", line.as_bytes())], &After::never());
        let kept = &found.content.files().next().unwrap().1.lines[0].text;
        assert!(kept.ends_with("... (line truncated to 2000 bytes)"));
        assert_eq!(kept.len(), 1999 + "... (line truncated to 2000 bytes)".len());
        assert_eq!(spill, [format!("a:1:{line}")]);
    }

    #[test]
    fn binary_files_stop_at_the_nul() {
        // The NUL is in the first 64 KiB: the file is binary from the start.
        let (found, _, _) =
            run(OutputMode::Content, "foo", &[("bin", b"foo\n\0foo\n")], &After::never());
        assert_eq!(found.total_files, 0);
        // A NUL in a later matching line stops the search there.
        let mut late = "a\n".repeat(70_000).into_bytes();
        late.extend_from_slice(b"foo 1\nfoo\0 2\nfoo 3\n");
        let (found, _, _) = run(OutputMode::Content, "foo", &[("late", &late)], &After::never());
        assert_eq!(found.total_lines, 1);
    }

    #[test]
    fn file_modes() {
        let files: &[(&str, &[u8])] = &[("b", b"x\nx\nx\n"), ("a", b"x\n"), ("c", b"y\n")];
        let (found, spill, _) = run(OutputMode::FilesWithMatches, "x", files, &After::never());
        assert_eq!(found.total_files, 2);
        assert_eq!(found.files.files().collect::<Vec<_>>(), [("a", 1), ("b", 1)]);
        assert_eq!(spill, ["b", "a"]);
        let (found, spill, _) = run(OutputMode::Count, "x", files, &After::never());
        assert_eq!((found.total_files, found.total_lines), (2, 4));
        assert_eq!(found.files.files().collect::<Vec<_>>(), [("a", 1), ("b", 3)]);
        assert_eq!(spill, ["b:3", "a:1"]);
    }

    #[test]
    fn stops_per_file_and_per_match() {
        let files: &[(&str, &[u8])] = &[("a", b"x\nx\nx\n"), ("b", b"x\n")];
        // Check 1 is file "a", checks 2-3 its first two matches, check 4 stops.
        let control = After::new(3, Stop::TimedOut);
        let (found, _, stop) = run(OutputMode::Content, "x", files, &control);
        assert_eq!(stop, Some(Stop::TimedOut));
        assert_eq!((found.total_lines, found.total_files), (2, 1));
        let control = After::new(0, Stop::Cancelled);
        let (found, _, stop) = run(OutputMode::Content, "x", files, &control);
        assert_eq!(stop, Some(Stop::Cancelled));
        assert_eq!(found.total_files, 0);
    }

    #[test]
    fn a_streamed_file_with_an_overlong_line_is_skipped() {
        let control = After::never();
        let mut chunks = Chunks::default();
        let mut scan = Scan::new(OutputMode::Content, matcher("x").unwrap(), &control, &mut chunks);
        scan.streaming = SearcherBuilder::new().heap_limit(Some(1024)).build();
        let mut data = b"x\n".to_vec();
        data.extend(std::iter::repeat_n(b'a', 100_000));
        assert!(scan.reader("f", &data[..]));
        assert_eq!(scan.found.total_files, 0);
        assert!(scan.spill.buffer.is_empty());
        assert!(scan.reader("g", &b"x\n"[..]));
        assert_eq!(scan.found.total_files, 1);
    }

    #[test]
    fn invalid_regex_names_the_error() {
        let Err(err) = matcher("(") else { panic!("an invalid regex was accepted") };
        assert_eq!(err.code, toolhost_sdk::ErrorCode::InvalidArguments);
        assert!(err.message.starts_with("pattern is not a valid regex: "), "{}", err.message);
        assert!(err.message.contains("unclosed group"), "{}", err.message);
    }

    #[test]
    fn spill_chunks_and_rollback() {
        let mut chunks = Chunks::default();
        let mut spill = SpillLines::new(&mut chunks);
        spill.push("a");
        let mark = spill.mark();
        spill.push("b");
        spill.rollback(mark);
        spill.push("c");
        let long = "z".repeat(SPILL_CHUNK_BYTES);
        spill.push(&long);
        let mark = spill.mark();
        spill.push("d");
        spill.into_target();
        let _ = mark;
        assert_eq!(chunks.0, [format!("a\nc\n{long}"), "d".to_owned()]);
    }
}
