//! The pure part of `read` (docs/contract.md#read): a line engine that consumes the file in chunks
//! of any size and renders the page, its footer and its errors.
//!
//! Memory stays flat whatever the file: the engine holds the current line's first
//! [`READ_LINE_KEEP_BYTES`] bytes and the page it has rendered (at most
//! [`READ_MAX_CONTENT_BYTES`]); every other byte is looked at once and dropped.
//!
//! How lines are counted:
//! * lines end at `\n`; a trailing `\n` ends the last line and does not start another;
//! * a last line without `\n` is still a line (`a\nb` has 2 lines);
//! * a `\r` right before the `\n` (or at the end of the file) is not shown;
//! * a UTF-8 byte order mark at the start of the file is not shown in line 1, and a file that
//!   holds nothing but one is an empty file.

use toolhost_sdk::ToolError;
use toolhost_sdk::limits::{
    MAX_RESULT_BYTES, READ_LINE_KEEP_BYTES, READ_MAX_CONTENT_BYTES, READ_MAX_LINE_CHARS,
    READ_MAX_LINES,
};

/// The UTF-8 byte order mark.
const BOM: [u8; 3] = [0xEF, 0xBB, 0xBF];

/// The text for a file with no lines (docs/contract.md#read, verbatim).
pub const EMPTY_FILE: &str = "[empty file]";

/// What is appended, after a space, to a line cut to [`READ_MAX_LINE_CHARS`] characters
/// (docs/contract.md#read: `... (line truncated to 2000 chars)`).
pub fn truncation_marker() -> String {
    format!("... (line truncated to {READ_MAX_LINE_CHARS} chars)")
}

/// The footer when the page stopped at `limit` lines before the end of the file
/// (docs/contract.md#read: `[showing lines 2-3 of 4. Continue with offset=4]`).
pub fn footer_lines(first: u64, last: u64, total: u64) -> String {
    let next = last + 1;
    format!("[showing lines {first}-{last} of {total}. Continue with offset={next}]")
}

/// The footer when the page stopped at the content byte bound
/// (docs/contract.md#read: `[showing lines 1-812 of 3401; stopped at 32 KB. Continue with
/// offset=813]`).
pub fn footer_bytes(first: u64, last: u64, total: u64) -> String {
    let next = last + 1;
    let kb = MAX_RESULT_BYTES / 1000;
    format!(
        "[showing lines {first}-{last} of {total}; stopped at {kb} KB. Continue with offset={next}]"
    )
}

/// Reject a `limit` outside 1–[`READ_MAX_LINES`], naming the range and the value given.
pub fn check_limit(limit: u32) -> Result<(), ToolError> {
    if (1..=READ_MAX_LINES).contains(&limit) {
        Ok(())
    } else {
        Err(ToolError::invalid_arguments(format!(
            "limit must be between 1 and {READ_MAX_LINES}, got {limit}"
        )))
    }
}

/// `offset` is past the last line of the file.
pub fn past_end_message(offset: u64, path: &str, total: u64) -> String {
    let noun = if total == 1 { "line" } else { "lines" };
    format!(
        "offset {offset} is past the end of {path} ({total} {noun}); use an offset from 1 to {total}"
    )
}

/// A line in the requested range holds a NUL byte.
pub fn binary_message(path: &str, line: u64) -> String {
    format!(
        "{path} looks like a binary file (line {line} contains a NUL byte); read shows text only. \
         Inspect it with bash instead (for example `file` or `xxd | head`)"
    )
}

/// A line in the requested range is not valid UTF-8.
pub fn not_utf8_message(path: &str, line: u64) -> String {
    format!(
        "line {line} of {path} is not valid UTF-8; read shows UTF-8 text only. \
         Inspect it with bash instead (for example `file` or `iconv -f <encoding> -t utf-8`)"
    )
}

/// Why the page stopped before the end of the file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Stop {
    /// `limit` lines were shown.
    Lines,
    /// The next line would have passed [`READ_MAX_CONTENT_BYTES`].
    Bytes,
}

/// Reads one file's lines from chunks and renders the page `offset`..`offset + limit`.
///
/// Feed every chunk to [`feed`](Self::feed), then call [`finish`](Self::finish). After an
/// error from `feed` the engine is done; the caller stops reading.
#[derive(Debug)]
pub struct LineReader {
    path: String,
    /// First line to show, 1-based.
    first: u64,
    limit: u32,

    /// Lines completed so far (the current line is number `lines + 1`).
    lines: u64,
    /// Bytes of the file seen so far.
    bytes_seen: u64,
    /// The first (up to) three bytes of the file, to recognise a lone byte order mark.
    head: Vec<u8>,

    /// The first [`READ_LINE_KEEP_BYTES`] bytes of the current line, when it is shown.
    kept: Vec<u8>,
    /// Every byte of the current line, kept or not (without its `\n`).
    line_len: u64,
    /// The current line's last byte so far was `\r`.
    line_ends_cr: bool,
    /// The current line contains a NUL byte, kept or not.
    line_has_nul: bool,

    /// The rendered page: `{line}\t{content}` lines joined by `\n`.
    page: String,
    /// Lines in `page`.
    shown: u32,
    stop: Option<Stop>,
}

impl LineReader {
    /// An engine for `path` (as shown to the model) that shows up to `limit` lines from the
    /// 1-based `offset` (0 means 1). `limit` must pass [`check_limit`].
    pub fn new(path: impl Into<String>, offset: u64, limit: u32) -> Result<Self, ToolError> {
        check_limit(limit)?;
        Ok(LineReader {
            path: path.into(),
            first: offset.max(1),
            limit,
            lines: 0,
            bytes_seen: 0,
            head: Vec::with_capacity(BOM.len()),
            kept: Vec::new(),
            line_len: 0,
            line_ends_cr: false,
            line_has_nul: false,
            page: String::new(),
            shown: 0,
            stop: None,
        })
    }

    /// Bytes the engine holds for the current line (at most [`READ_LINE_KEEP_BYTES`]).
    #[cfg(test)]
    fn line_buffer_capacity(&self) -> usize {
        self.kept.capacity()
    }

    /// The current line is one the page still wants.
    fn wants_current_line(&self) -> bool {
        self.stop.is_none() && self.lines + 1 >= self.first
    }

    /// Consume the next chunk of the file.
    pub fn feed(&mut self, chunk: &[u8]) -> Result<(), ToolError> {
        if self.head.len() < BOM.len() {
            let take = (BOM.len() - self.head.len()).min(chunk.len());
            self.head.extend_from_slice(&chunk[..take]);
        }
        self.bytes_seen += chunk.len() as u64;
        let mut rest = chunk;
        while !rest.is_empty() {
            let newline = rest.iter().position(|&b| b == b'\n');
            let segment = &rest[..newline.unwrap_or(rest.len())];
            if !segment.is_empty() {
                self.line_len += segment.len() as u64;
                self.line_ends_cr = segment[segment.len() - 1] == b'\r';
                if self.wants_current_line() {
                    self.line_has_nul |= segment.contains(&0);
                    let room = READ_LINE_KEEP_BYTES - self.kept.len();
                    if room > 0 {
                        if self.kept.capacity() == 0 {
                            self.kept.reserve_exact(READ_LINE_KEEP_BYTES);
                        }
                        self.kept.extend_from_slice(&segment[..room.min(segment.len())]);
                    }
                }
            }
            match newline {
                Some(i) => {
                    self.end_line()?;
                    rest = &rest[i + 1..];
                }
                None => break,
            }
        }
        Ok(())
    }

    /// The current line ended (at `\n` or at the end of the file).
    fn end_line(&mut self) -> Result<(), ToolError> {
        let number = self.lines + 1;
        if self.wants_current_line() {
            self.show_line(number)?;
        }
        self.lines = number;
        self.kept.clear();
        self.line_len = 0;
        self.line_ends_cr = false;
        self.line_has_nul = false;
        Ok(())
    }

    /// Render line `number` from `kept` into the page, or stop the page before it.
    fn show_line(&mut self, number: u64) -> Result<(), ToolError> {
        if self.line_has_nul {
            return Err(ToolError::invalid_arguments(binary_message(&self.path, number)));
        }
        let mut len = self.line_len;
        if self.line_ends_cr {
            len -= 1;
            if self.kept.len() as u64 > len {
                self.kept.pop();
            }
        }
        let mut bytes: &[u8] = &self.kept;
        if number == 1 && bytes.starts_with(&BOM) {
            bytes = &bytes[BOM.len()..];
            len -= BOM.len() as u64;
        }
        let cut_by_bytes = len > bytes.len() as u64;
        let text = match std::str::from_utf8(bytes) {
            Ok(text) => text,
            // The keep bound may split the last character of a longer line.
            Err(e) if cut_by_bytes && e.error_len().is_none() => {
                std::str::from_utf8(&bytes[..e.valid_up_to()]).unwrap_or_default()
            }
            Err(_) => {
                return Err(ToolError::invalid_arguments(not_utf8_message(&self.path, number)));
            }
        };
        let content = match text.char_indices().nth(READ_MAX_LINE_CHARS) {
            Some((end, _)) => format!("{} {}", &text[..end], truncation_marker()),
            None if cut_by_bytes => format!("{text} {}", truncation_marker()),
            None => text.to_owned(),
        };
        let line = format!("{number}\t{content}");
        let separator = usize::from(!self.page.is_empty());
        if self.shown > 0 && self.page.len() + separator + line.len() > READ_MAX_CONTENT_BYTES {
            self.stop = Some(Stop::Bytes);
            return Ok(());
        }
        if separator == 1 {
            self.page.push('\n');
        }
        self.page.push_str(&line);
        self.shown += 1;
        if self.shown == self.limit {
            self.stop = Some(Stop::Lines);
        }
        Ok(())
    }

    /// The end of the file: the page with its footer, `[empty file]`, or the error for an
    /// offset past the end.
    pub fn finish(mut self) -> Result<String, ToolError> {
        if self.line_len > 0 {
            self.end_line()?;
        }
        let only_bom = self.bytes_seen == BOM.len() as u64 && self.head == BOM;
        if self.lines == 0 || only_bom {
            return Ok(EMPTY_FILE.to_owned());
        }
        let total = self.lines;
        if self.first > total {
            return Err(ToolError::invalid_arguments(past_end_message(
                self.first, &self.path, total,
            )));
        }
        let last = self.first + u64::from(self.shown) - 1;
        let footer = match self.stop {
            _ if last >= total => None,
            Some(Stop::Bytes) => Some(footer_bytes(self.first, last, total)),
            Some(Stop::Lines) | None => Some(footer_lines(self.first, last, total)),
        };
        if let Some(footer) = footer {
            self.page.push('\n');
            self.page.push_str(&footer);
        }
        Ok(self.page)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use toolhost_sdk::ErrorCode;

    /// Feed `bytes` in chunks of `chunk` bytes.
    fn read_chunked(
        bytes: &[u8],
        chunk: usize,
        offset: u64,
        limit: u32,
    ) -> Result<String, ToolError> {
        let mut reader = LineReader::new("src/a.txt", offset, limit)?;
        for part in bytes.chunks(chunk) {
            reader.feed(part)?;
        }
        reader.finish()
    }

    /// The same result for several chunk sizes, including 1 byte and odd primes.
    fn read(bytes: &[u8], offset: u64, limit: u32) -> Result<String, ToolError> {
        let whole = read_chunked(bytes, bytes.len().max(1), offset, limit);
        for chunk in [1, 2, 3, 7, 997, 64 * 1024] {
            let parted = read_chunked(bytes, chunk, offset, limit);
            match (&whole, &parted) {
                (Ok(a), Ok(b)) => assert_eq!(a, b, "chunk size {chunk}"),
                (Err(a), Err(b)) => assert_eq!(a.message, b.message, "chunk size {chunk}"),
                _ => panic!("chunk size {chunk}: {whole:?} vs {parted:?}"),
            }
        }
        whole
    }

    fn numbered(n: usize, body: impl Fn(usize) -> String) -> Vec<u8> {
        (1..=n).map(|i| body(i) + "\n").collect::<String>().into_bytes()
    }

    #[test]
    fn contract_texts() {
        assert_eq!(truncation_marker(), "... (line truncated to 2000 chars)");
        assert_eq!(footer_lines(2, 3, 4), "[showing lines 2-3 of 4. Continue with offset=4]");
        assert_eq!(
            footer_bytes(1, 812, 3401),
            "[showing lines 1-812 of 3401; stopped at 32 KB. Continue with offset=813]"
        );
        assert_eq!(EMPTY_FILE, "[empty file]");
    }

    #[test]
    fn one_based_page_with_original_line_numbers() {
        let file = b"a\nb\nc\nd\n";
        assert_eq!(
            read(file, 2, 2).unwrap(),
            "2\tb\n3\tc\n[showing lines 2-3 of 4. Continue with offset=4]"
        );
        // Reaching the end of the file: no footer.
        assert_eq!(read(file, 3, 2).unwrap(), "3\tc\n4\td");
        assert_eq!(read(file, 1, 2000).unwrap(), "1\ta\n2\tb\n3\tc\n4\td");
        assert_eq!(read(file, 4, 1).unwrap(), "4\td");
    }

    #[test]
    fn offset_zero_is_one() {
        assert_eq!(read(b"a\nb\n", 0, 2000).unwrap(), read(b"a\nb\n", 1, 2000).unwrap());
        assert_eq!(
            read(b"a\nb\n", 0, 1).unwrap(),
            "1\ta\n[showing lines 1-1 of 2. Continue with offset=2]"
        );
    }

    #[test]
    fn offset_past_the_end() {
        let err = read(b"a\nb\nc\nd\n", 10, 2000).unwrap_err();
        assert_eq!(err.code, ErrorCode::InvalidArguments);
        assert_eq!(
            err.message,
            "offset 10 is past the end of src/a.txt (4 lines); use an offset from 1 to 4"
        );
        let err = read(b"a\nb\nc\nd\n", 5, 2000).unwrap_err();
        assert!(err.message.starts_with("offset 5 is past the end"), "{}", err.message);
        let err = read(b"only", 2, 2000).unwrap_err();
        assert_eq!(
            err.message,
            "offset 2 is past the end of src/a.txt (1 line); use an offset from 1 to 1"
        );
    }

    #[test]
    fn line_counting_at_the_end_of_the_file() {
        // A last line without `\n` is a line; a trailing `\n` adds none.
        assert_eq!(
            read(b"a\nb", 1, 1).unwrap(),
            "1\ta\n[showing lines 1-1 of 2. Continue with offset=2]"
        );
        assert_eq!(
            read(b"a\nb\n", 1, 1).unwrap(),
            "1\ta\n[showing lines 1-1 of 2. Continue with offset=2]"
        );
        // Empty lines are lines.
        assert_eq!(read(b"a\n\n", 1, 2000).unwrap(), "1\ta\n2\t");
        assert_eq!(read(b"\n", 1, 2000).unwrap(), "1\t");
    }

    #[test]
    fn empty_file() {
        assert_eq!(read(b"", 1, 2000).unwrap(), "[empty file]");
        assert_eq!(read(b"", 7, 2000).unwrap(), "[empty file]");
        assert_eq!(read(&BOM, 1, 2000).unwrap(), "[empty file]");
    }

    #[test]
    fn limit_bounds() {
        for bad in [0, READ_MAX_LINES + 1] {
            let err = LineReader::new("x", 1, bad).unwrap_err();
            assert_eq!(err.code, ErrorCode::InvalidArguments);
            assert_eq!(err.message, format!("limit must be between 1 and 2000, got {bad}"));
        }
        assert!(LineReader::new("x", 1, 1).is_ok());
        assert!(LineReader::new("x", 1, 2000).is_ok());
    }

    #[test]
    fn crlf_is_stripped() {
        assert_eq!(read(b"a\r\nb\r\n", 1, 2000).unwrap(), "1\ta\n2\tb");
        assert_eq!(read(b"a\r\nb\r", 1, 2000).unwrap(), "1\ta\n2\tb");
        // Only the `\r` at the end of a line.
        assert_eq!(read(b"a\rb\r\n", 1, 2000).unwrap(), "1\ta\rb");
        assert_eq!(read(b"\r\n", 1, 2000).unwrap(), "1\t");
    }

    #[test]
    fn bom_is_not_shown() {
        let mut file = BOM.to_vec();
        file.extend_from_slice(b"fn main() {}\n\xEF\xBB\xBFsecond\n");
        // Only the mark at the start of the file is dropped.
        assert_eq!(read(&file, 1, 2000).unwrap(), "1\tfn main() {}\n2\t\u{FEFF}second");
        assert_eq!(read(&file, 2, 2000).unwrap(), "2\t\u{FEFF}second");
    }

    #[test]
    fn nul_in_the_range_is_a_binary_file() {
        let err = read(b"text\nab\0cd\n", 1, 2000).unwrap_err();
        assert_eq!(err.code, ErrorCode::InvalidArguments);
        assert_eq!(
            err.message,
            "src/a.txt looks like a binary file (line 2 contains a NUL byte); read shows text \
             only. Inspect it with bash instead (for example `file` or `xxd | head`)"
        );
        // Outside the range it is only counted.
        assert_eq!(
            read(b"text\nab\0cd\n", 1, 1).unwrap(),
            "1\ttext\n[showing lines 1-1 of 2. Continue with offset=2]"
        );
        // Past the kept bytes of a long line it still counts.
        let mut long = vec![b'x'; READ_LINE_KEEP_BYTES + 10];
        long.push(0);
        assert!(read(&long, 1, 2000).unwrap_err().message.contains("NUL byte"));
    }

    #[test]
    fn invalid_utf8_in_the_range() {
        let err = read(b"ok\n\xff\xfe bad\n", 1, 2000).unwrap_err();
        assert_eq!(err.code, ErrorCode::InvalidArguments);
        assert_eq!(
            err.message,
            "line 2 of src/a.txt is not valid UTF-8; read shows UTF-8 text only. Inspect it \
             with bash instead (for example `file` or `iconv -f <encoding> -t utf-8`)"
        );
        assert!(read(b"ok\n\xff\n", 1, 1).is_ok());
        // A truncated character at the very end of a file is invalid, not cut.
        assert!(read(b"ok\n\xE2\x82", 1, 2000).is_err());
    }

    #[test]
    fn default_read_of_5000_short_lines_stops_at_2000_lines() {
        let file = numbered(5000, |i| format!("line {i}"));
        let out = read(&file, 1, READ_MAX_LINES).unwrap();
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(lines.len(), 2001);
        assert_eq!(lines[0], "1\tline 1");
        assert_eq!(lines[1999], "2000\tline 2000");
        assert_eq!(lines[2000], "[showing lines 1-2000 of 5000. Continue with offset=2001]");
        assert!(out.len() <= MAX_RESULT_BYTES);
    }

    #[test]
    fn default_read_of_5000_long_lines_stops_at_the_byte_bound() {
        // 60 characters per line: 2000 lines would be far more than 31,488 bytes.
        let file = numbered(5000, |i| format!("{i:>6} {}", "x".repeat(53)));
        let out = read(&file, 1, READ_MAX_LINES).unwrap();
        let (page, footer) = out.rsplit_once('\n').unwrap();
        assert!(page.len() <= READ_MAX_CONTENT_BYTES);
        assert!(out.len() <= MAX_RESULT_BYTES);
        let shown = page.lines().count() as u64;
        // Every shown line is whole, and one more would not fit.
        for (i, line) in page.lines().enumerate() {
            assert_eq!(line, format!("{}\t{:>6} {}", i + 1, i + 1, "x".repeat(53)));
        }
        let next_line = format!("{}\t{:>6} {}", shown + 1, shown + 1, "x".repeat(53));
        assert!(page.len() + 1 + next_line.len() > READ_MAX_CONTENT_BYTES);
        assert_eq!(
            footer,
            format!(
                "[showing lines 1-{shown} of 5000; stopped at 32 KB. Continue with offset={}]",
                shown + 1
            )
        );
        // Continuing from there shows the next lines with their own numbers.
        let next = read(&file, shown + 1, 1).unwrap();
        assert!(next.starts_with(&format!("{}\t", shown + 1)), "{next}");
    }

    #[test]
    fn long_lines_are_cut_to_2000_chars_and_marked() {
        let line = "é".repeat(10_000);
        let file = format!("{line}\nshort\n");
        let out = read(file.as_bytes(), 1, 2000).unwrap();
        let expected =
            format!("1\t{} ... (line truncated to 2000 chars)\n2\tshort", "é".repeat(2000));
        assert_eq!(out, expected);
        // Exactly 2000 characters is not cut.
        let exact = "a".repeat(2000);
        assert_eq!(read(exact.as_bytes(), 1, 2000).unwrap(), format!("1\t{exact}"));
        // 2000 four-byte characters fill the kept bytes exactly; one more is cut.
        let wide = "😀".repeat(2000);
        assert_eq!(read(wide.as_bytes(), 1, 2000).unwrap(), format!("1\t{wide}"));
        let wider = "😀".repeat(2001);
        assert_eq!(
            read(wider.as_bytes(), 1, 2000).unwrap(),
            format!("1\t{wide} ... (line truncated to 2000 chars)")
        );
        // A `\r` past the kept bytes does not make a line count as cut.
        let crlf = format!("{wide}\r\n");
        assert_eq!(read(crlf.as_bytes(), 1, 2000).unwrap(), format!("1\t{wide}"));
    }

    #[test]
    fn a_3_mb_line_keeps_only_8000_bytes() {
        let mut reader = LineReader::new("big.txt", 1, 2000).unwrap();
        let chunk = vec![b'y'; 64 * 1024];
        let mut fed = 0;
        while fed < 3_000_000 {
            reader.feed(&chunk).unwrap();
            fed += chunk.len();
            assert!(reader.line_buffer_capacity() <= READ_LINE_KEEP_BYTES);
        }
        reader.feed(b"\nend\n").unwrap();
        let out = reader.finish().unwrap();
        assert_eq!(
            out,
            format!("1\t{} ... (line truncated to 2000 chars)\n2\tend", "y".repeat(2000))
        );
    }

    #[test]
    fn the_first_line_is_always_shown() {
        // A cut line is at most 8,000 bytes plus the marker, far below the bound, so the
        // first line always fits; the bound then stops at the next whole line.
        let line = "😀".repeat(3000);
        let file = numbered(10, |_| line.clone());
        let out = read(&file, 1, 2000).unwrap();
        let (page, footer) = out.rsplit_once('\n').unwrap();
        assert!(page.starts_with("1\t"));
        assert!(page.len() <= READ_MAX_CONTENT_BYTES);
        assert!(footer.contains("stopped at 32 KB"), "{footer}");
    }
}
