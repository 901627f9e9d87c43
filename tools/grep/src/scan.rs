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

use crate::collect::{Line, cut_line};
use crate::literal::LiteralMatcher;
use crate::report::Found;
use crate::{MAX_LINE_LENGTH, MAX_LINES_PER_FILE, OutputMode};

pub use toolhost_sdk::scan::{Append, Control, SPILL_CHUNK_BYTES, Stop};

/// The full list, written as the scan goes: buffered in [`SPILL_CHUNK_BYTES`] chunks, and
/// not sent at all once the host's 64 MiB cap is passed (the host would drop it).
pub struct SpillLines<A: Append> {
    target: A,
    buffer: String,
    /// Bytes handed to the host, newlines included.
    sent: u64,
    /// Chunks handed to the host (a rollback is only possible within the current chunk).
    flushes: u64,
}

/// A point in the full list to roll back to (see [`SpillLines::rollback`]).
#[derive(Debug, Clone, Copy)]
pub struct Mark {
    len: usize,
    flushes: u64,
}

impl<A: Append> SpillLines<A> {
    pub fn new(target: A) -> Self {
        SpillLines { target, buffer: String::new(), sent: 0, flushes: 0 }
    }

    /// The buffer to write one line into; end it with [`SpillLines::end_line`].
    fn line(&mut self) -> &mut String {
        &mut self.buffer
    }

    fn end_line(&mut self) {
        self.buffer.push('\n');
        if self.buffer.len() >= SPILL_CHUNK_BYTES {
            self.flush();
        }
    }

    /// Append one whole line.
    pub fn push(&mut self, line: &str) {
        self.line().push_str(line);
        self.end_line();
    }

    fn flush(&mut self) {
        if self.buffer.is_empty() {
            return;
        }
        if self.sent <= toolhost_sdk::limits::MAX_SPILL_BYTES {
            // The buffer ends with '\n'; the host adds that one back.
            self.target.append(&self.buffer[..self.buffer.len() - 1]);
            self.sent += self.buffer.len() as u64;
        }
        self.flushes += 1;
        self.buffer.clear();
    }

    /// True once the host's 64 MiB cap is passed: lines written now are dropped, so they
    /// need not be formatted.
    pub fn full(&self) -> bool {
        self.sent > toolhost_sdk::limits::MAX_SPILL_BYTES
    }

    /// The current end of the list.
    pub fn mark(&self) -> Mark {
        Mark { len: self.buffer.len(), flushes: self.flushes }
    }

    /// Drop what was written since `mark`, when it is still in the guest.
    pub fn rollback(&mut self, mark: Mark) {
        if mark.flushes == self.flushes {
            self.buffer.truncate(mark.len);
        }
    }

    /// Send what is left and give the target back.
    pub fn into_target(mut self) -> A {
        self.flush();
        self.target
    }
}

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
    pub found: Found,
    pub spill: SpillLines<A>,
    /// Set once the scan must stop; no file is searched after it.
    pub stop: Option<Stop>,
    /// Kept lines of the current file (reused across files).
    lines: Vec<Line>,
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
            found: Found::default(),
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
    lines: &'a mut Vec<Line>,
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
                    self.lines.push(Line { number, text: cut_line(&text) });
                }
                self.count += 1;
                Ok(true)
            }
        }
    }
}

/// The number of `\n` bytes in `bytes` (16 at a time on wasm32 with `simd128`).
fn count_newlines(bytes: &[u8]) -> u64 {
    #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
    {
        use core::arch::wasm32::*;
        let newline = u8x16_splat(b'\n');
        let ptr = bytes.as_ptr();
        let blocks = bytes.len() / 64;
        let mut total = 0u64;
        let mut done = 0;
        while done < blocks {
            // An equal byte is -1: the four compares of a 64-byte block sum to -4..=0 per
            // byte lane, -8..=0 per pair; subtracting the pairs adds at most 8 to a u16
            // lane per block, so 255 blocks cannot overflow it.
            let run = (blocks - done).min(255);
            let mut tally = u8x16_splat(0);
            for b in done..done + run {
                // SAFETY: block `b` lies within `bytes` (b < len / 64); wasm loads need no
                // alignment.
                unsafe {
                    let at = ptr.add(b * 64);
                    let e0 = u8x16_eq(v128_load(at as *const v128), newline);
                    let e1 = u8x16_eq(v128_load(at.add(16) as *const v128), newline);
                    let e2 = u8x16_eq(v128_load(at.add(32) as *const v128), newline);
                    let e3 = u8x16_eq(v128_load(at.add(48) as *const v128), newline);
                    let pair = i8x16_add(i8x16_add(e0, e1), i8x16_add(e2, e3));
                    tally = i16x8_sub(tally, i16x8_extadd_pairwise_i8x16(pair));
                }
            }
            done += run;
            let sums = u32x4_extadd_pairwise_u16x8(tally);
            total += (u32x4_extract_lane::<0>(sums)
                + u32x4_extract_lane::<1>(sums)
                + u32x4_extract_lane::<2>(sums)
                + u32x4_extract_lane::<3>(sums)) as u64;
        }
        // The rest: 16 bytes at a time, then the last 16 bytes of `bytes` again, of which
        // only the lanes not counted yet.
        let newlines_in = |at: usize| {
            // SAFETY: callers pass `at + 16 <= bytes.len()`.
            u8x16_bitmask(u8x16_eq(unsafe { v128_load(ptr.add(at) as *const v128) }, newline))
                as u32
        };
        let mut at = blocks * 64;
        while at + 16 <= bytes.len() {
            total += newlines_in(at).count_ones() as u64;
            at += 16;
        }
        let tail = bytes.len() - at;
        if tail > 0 && bytes.len() >= 16 {
            total += (newlines_in(bytes.len() - 16) >> (16 - tail)).count_ones() as u64;
        } else {
            total += bytes[at..].iter().filter(|&&b| b == b'\n').count() as u64;
        }
        total
    }
    #[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
    {
        memchr::memchr_iter(b'\n', bytes).count() as u64
    }
}

/// `line` without its `\n` or `\r\n`.
fn strip_terminator(line: &[u8]) -> &[u8] {
    let line = line.strip_suffix(b"\n").unwrap_or(line);
    line.strip_suffix(b"\r").unwrap_or(line)
}

/// `n` in decimal, without the formatting machinery (it runs once per matching line). In
/// 32-bit steps where it fits: wasm32 has no 64-bit multiply-high, so a 64-bit division by
/// 10 stays a real division.
fn push_u64(out: &mut String, n: u64) {
    let mut digits = [0u8; 20];
    let mut i = digits.len();
    let mut small = match u32::try_from(n) {
        Ok(small) => small,
        Err(_) => {
            let mut n = n;
            while n > u64::from(u32::MAX) {
                i -= 1;
                digits[i] = b'0' + (n % 10) as u8;
                n /= 10;
            }
            n as u32
        }
    };
    loop {
        i -= 1;
        digits[i] = b'0' + (small % 10) as u8;
        small /= 10;
        if small == 0 {
            break;
        }
    }
    // Only ASCII digits were written.
    out.push_str(std::str::from_utf8(&digits[i..]).unwrap_or_default());
}

/// A line as text: borrowed when it is UTF-8 (the usual case: ASCII, checked 16 bytes at a
/// time, else by the validator), else with U+FFFD for the invalid bytes.
fn text_of(bytes: &[u8]) -> std::borrow::Cow<'_, str> {
    if is_ascii(bytes) {
        // SAFETY: ASCII is UTF-8.
        return std::borrow::Cow::Borrowed(unsafe { std::str::from_utf8_unchecked(bytes) });
    }
    match std::str::from_utf8(bytes) {
        Ok(text) => std::borrow::Cow::Borrowed(text),
        Err(_) => String::from_utf8_lossy(bytes),
    }
}

/// Whether every byte of `bytes` is ASCII (on wasm32 with `simd128`, 16 bytes per step).
fn is_ascii(bytes: &[u8]) -> bool {
    #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
    {
        use core::arch::wasm32::*;
        let mut chunks = bytes.chunks_exact(16);
        let mut any = u8x16_splat(0);
        for chunk in chunks.by_ref() {
            // SAFETY: `chunk` is 16 bytes; wasm loads need no alignment.
            any = v128_or(any, unsafe { v128_load(chunk.as_ptr() as *const v128) });
        }
        u8x16_bitmask(any) == 0 && chunks.remainder().is_ascii()
    }
    #[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
    {
        bytes.is_ascii()
    }
}

/// True when some line of `bytes` is longer than `limit` bytes.
fn has_line_longer_than(bytes: &[u8], limit: u64) -> bool {
    let mut start = 0usize;
    for end in memchr::memchr_iter(b'\n', bytes).chain(std::iter::once(bytes.len())) {
        if (end - start) as u64 > limit {
            return true;
        }
        start = end + 1;
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::Cell;

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
    ) -> (Found, Vec<String>, Option<Stop>) {
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
    fn numbers_and_text_are_written_as_before() {
        for n in [
            0u64,
            7,
            10,
            99,
            100,
            123_456_789,
            4_294_967_295,
            4_294_967_296,
            10_000_000_000,
            u64::MAX,
        ] {
            let mut s = String::from("x");
            push_u64(&mut s, n);
            assert_eq!(s, format!("x{n}"));
        }
        assert_eq!(text_of(b"caf\xc3\xa9"), "café");
        assert_eq!(text_of(b"a\xffb"), "a\u{fffd}b");
        assert!(
            is_ascii(b"plain text, longer than sixteen bytes") && !is_ascii("a café".as_bytes())
        );
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
    fn long_line_detection() {
        assert!(!has_line_longer_than(b"abc\ndef", 3));
        assert!(has_line_longer_than(b"abc\ndefg", 3));
        assert!(has_line_longer_than(b"abcd\n", 3));
        assert!(!has_line_longer_than(b"", 0));
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
