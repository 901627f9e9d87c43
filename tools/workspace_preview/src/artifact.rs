//! `artifact_summary`: one file's metadata as `key: value` lines.
//!
//! [`summarize`] takes the size and modification time from `stat`, reads the file's first
//! [`HEAD_BYTES`] to [`sniff`](crate::sniff::sniff) its format, and for a text file streams
//! on, chunk by chunk and at most [`PREVIEW_MAX_SOURCE_BYTES`], to count its lines
//! ([`TextStats`]); past that bound the counts say "at least".

use toolhost_sdk::READ_CHUNK_BYTES;
use toolhost_sdk::limits::PREVIEW_MAX_SOURCE_BYTES;

use crate::clock::rfc3339;
use crate::failure::{Halt, from_host};
use crate::sniff::{language, sniff};
use crate::source::{HostSource, Reader, cancelled_error, stat_file};

/// Bytes read to recognise a file's format.
pub const HEAD_BYTES: usize = 64 * 1024;

/// What `artifact_summary` found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ArtifactSummary {
    /// One line: the file and what it is.
    pub summary: String,
    /// The `key: value` lines.
    pub preview: String,
    /// The file's size.
    pub bytes: u64,
    /// The display path.
    pub path: String,
}

/// Lines of a text streamed through [`TextStats::feed`].
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct TextStats {
    /// Bytes fed.
    pub bytes: u64,
    /// Newlines seen.
    pub newlines: u64,
    /// Longest line in bytes (without its `\r\n` or `\n`).
    pub longest: u64,
    current: u64,
    last: Option<u8>,
    /// Offset of the first byte that is not valid UTF-8, if any.
    pub invalid_at: Option<u64>,
    /// A character cut by the end of the last chunk.
    carry: Vec<u8>,
}

impl TextStats {
    /// Count `chunk`, the next bytes of the text.
    pub fn feed(&mut self, chunk: &[u8]) {
        if self.invalid_at.is_none() {
            self.check_utf8(chunk);
        }
        for &b in chunk {
            if b == b'\n' {
                let len = self.current - u64::from(self.last == Some(b'\r'));
                self.longest = self.longest.max(len);
                self.newlines += 1;
                self.current = 0;
            } else {
                self.current += 1;
            }
            self.last = Some(b);
        }
        self.bytes += chunk.len() as u64;
    }

    fn check_utf8(&mut self, chunk: &[u8]) {
        let start = self.bytes - self.carry.len() as u64;
        let mut joined = std::mem::take(&mut self.carry);
        joined.extend_from_slice(chunk);
        match std::str::from_utf8(&joined) {
            Ok(_) => {}
            Err(e) if e.error_len().is_none() => self.carry = joined[e.valid_up_to()..].to_vec(),
            Err(e) => self.invalid_at = Some(start + e.valid_up_to() as u64),
        }
    }

    /// Lines in what was fed (a last line without a newline counts).
    pub fn lines(&self) -> u64 {
        self.newlines + u64::from(self.current > 0)
    }

    /// The longest line, the unfinished last one included.
    pub fn longest_line(&self) -> u64 {
        self.longest.max(self.current)
    }

    /// Whether what was fed is valid UTF-8 as a whole (a cut last character counts as
    /// invalid only when `complete`).
    pub fn utf8(&self, complete: bool) -> bool {
        self.invalid_at.is_none() && (!complete || self.carry.is_empty())
    }
}

fn read_upto<R: Reader, H: HostSource>(
    host: &H,
    file: &mut R,
    into: &mut Vec<u8>,
    want: usize,
) -> Result<bool, Halt> {
    while into.len() < want {
        if host.cancelled() {
            return Err(cancelled_error());
        }
        let ask = (want - into.len()).min(READ_CHUNK_BYTES as usize) as u32;
        let chunk = file.read(ask).map_err(from_host)?;
        if chunk.is_empty() {
            return Ok(true);
        }
        into.extend_from_slice(&chunk);
    }
    Ok(false)
}

/// The metadata of the file at `path`.
pub fn summarize<H: HostSource>(host: &H, path: &str) -> Result<ArtifactSummary, Halt> {
    let stat = stat_file(host, path)?;
    let mut file = host.open(path).map_err(from_host)?;
    let shown = file.display_path();
    let mut head = Vec::with_capacity(HEAD_BYTES.min(stat.size as usize));
    let mut ended = read_upto(host, &mut file, &mut head, HEAD_BYTES)?;
    let mut lines = vec![
        format!("path: {shown}"),
        format!("size: {} bytes", stat.size),
        format!("modified: {}", stat.modified_ms.map_or_else(|| "unknown".to_owned(), rfc3339)),
    ];
    let summary;
    if head.is_empty() {
        lines.push("kind: empty file".to_owned());
        summary = format!("{shown}: empty file");
    } else if let Some(kind) = sniff(&head) {
        let detail = kind.detail.as_ref().map(|d| format!(" ({d})")).unwrap_or_default();
        lines.push(format!("kind: {}{detail}", kind.description));
        lines.push(format!("format: {}", kind.name));
        lines.push(format!("mime: {}", kind.mime));
        let mut said = format!("{shown}: {}{detail}", kind.description);
        if let Some((w, h)) = kind.dimensions {
            lines.push(format!("dimensions: {w}x{h}"));
            said.push_str(&format!(", {w}x{h}"));
        }
        summary = format!("{said}, {} bytes", stat.size);
    } else {
        // No known magic: text unless it has a NUL byte (its encoding is reported).
        let mut stats = TextStats::default();
        stats.feed(&head);
        let text = !head.contains(&0);
        if !text {
            lines.push("kind: binary data (format not recognised)".to_owned());
            lines.push("mime: application/octet-stream".to_owned());
            summary =
                format!("{shown}: binary data of an unrecognised format, {} bytes", stat.size);
        } else {
            let limit = PREVIEW_MAX_SOURCE_BYTES;
            while !ended && stats.invalid_at.is_none() && (stats.bytes as usize) < limit {
                let mut chunk = Vec::new();
                ended = read_upto(host, &mut file, &mut chunk, READ_CHUNK_BYTES as usize)?;
                let room = limit - stats.bytes as usize;
                chunk.truncate(room);
                stats.feed(&chunk);
            }
            let complete = ended;
            let at_least = if complete { "" } else { "at least " };
            let language = language(&shown);
            lines.push("kind: text".to_owned());
            match stats.invalid_at {
                Some(at) => {
                    lines.push(format!("encoding: not UTF-8 (an invalid byte at offset {at})"))
                }
                None if stats.utf8(complete) => lines.push("encoding: UTF-8".to_owned()),
                None => lines.push("encoding: not UTF-8 (a character cut at the end)".to_owned()),
            }
            if let Some(l) = language {
                lines.push(format!("language: {l} (from the name)"));
            }
            let counted = if complete {
                String::new()
            } else {
                format!(" (counted in the first {} bytes)", stats.bytes)
            };
            lines.push(format!("lines: {at_least}{}{counted}", stats.lines()));
            lines.push(format!("longest line: {at_least}{} bytes", stats.longest_line()));
            summary = format!(
                "{shown}: {} text, {at_least}{} lines, {} bytes",
                language.unwrap_or("plain"),
                stats.lines(),
                stat.size
            );
        }
    }
    Ok(ArtifactSummary { summary, preview: lines.join("\n"), bytes: stat.size, path: shown })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::fake::FakeHost;

    fn preview(path: &str, bytes: &[u8]) -> ArtifactSummary {
        match summarize(&FakeHost::with(path, bytes), path) {
            Ok(a) => a,
            Err(e) => panic!("{e:?}"),
        }
    }

    #[test]
    fn text_stats_count_across_chunks() {
        let mut s = TextStats::default();
        for chunk in ["ab\r\nc", "de\n\n", "é".get(..).unwrap(), "xyz"] {
            s.feed(chunk.as_bytes());
        }
        assert_eq!((s.lines(), s.longest_line()), (4, 5));
        assert!(s.utf8(true));
        let mut s = TextStats::default();
        let e = "é".as_bytes();
        s.feed(&[b'a', e[0]]);
        assert!(!s.utf8(true) && s.utf8(false));
        s.feed(&[e[1], b'\n']);
        assert!(s.utf8(true));
        s.feed(b"\xff");
        assert_eq!(s.invalid_at, Some(4));
    }

    #[test]
    fn a_text_file() {
        let src = "fn main() {\n    println!(\"hi\");\n}\n".repeat(5000);
        let a = preview("src/main.rs", src.as_bytes());
        assert!(a.preview.contains("\nkind: text\nencoding: UTF-8\nlanguage: Rust (from the name)\nlines: 15000\nlongest line: 19 bytes"), "{}", a.preview);
        assert!(a.preview.contains("modified: 2025-12-05T08:00:00Z"), "{}", a.preview);
        assert_eq!(a.summary, format!("src/main.rs: Rust text, 15000 lines, {} bytes", src.len()));
    }

    #[test]
    fn a_huge_text_file_says_at_least() {
        let src = "x\n".repeat(PREVIEW_MAX_SOURCE_BYTES / 2 + 100);
        let a = preview("big.txt", src.as_bytes());
        let counted = PREVIEW_MAX_SOURCE_BYTES / 2;
        assert!(
            a.preview.contains(&format!(
                "lines: at least {counted} (counted in the first {PREVIEW_MAX_SOURCE_BYTES} bytes)"
            )),
            "{}",
            a.preview
        );
    }

    #[test]
    fn images_binaries_and_empty_files() {
        let mut png = b"\x89PNG\r\n\x1a\n\0\0\0\x0dIHDR".to_vec();
        png.extend(2u32.to_be_bytes());
        png.extend(3u32.to_be_bytes());
        let a = preview("i.png", &png);
        assert!(
            a.preview.contains("kind: PNG image\nformat: png\nmime: image/png\ndimensions: 2x3"),
            "{}",
            a.preview
        );
        assert_eq!(a.summary, format!("i.png: PNG image, 2x3, {} bytes", png.len()));
        let a = preview("blob", b"\x01\x02\0\x03");
        assert!(a.preview.contains("kind: binary data (format not recognised)"), "{}", a.preview);
        let a = preview("e", b"");
        assert!(a.preview.ends_with("kind: empty file"), "{}", a.preview);
        let a = preview("latin.txt", b"caf\xe9 au lait\n");
        assert!(
            a.preview.contains("kind: text\nencoding: not UTF-8 (an invalid byte at offset 3)"),
            "{}",
            a.preview
        );
    }

    #[test]
    fn a_text_file_invalid_past_its_head() {
        let mut bytes = "a\n".repeat(HEAD_BYTES).into_bytes();
        bytes.extend(b"\xff\xfe tail\n");
        let a = preview("m.txt", &bytes);
        assert!(
            a.preview.contains(&format!(
                "encoding: not UTF-8 (an invalid byte at offset {})",
                HEAD_BYTES * 2
            )),
            "{}",
            a.preview
        );
    }
}
