//! Request lines with a size cap, for the line-based transports (`toolhost session`, MCP over
//! stdio): [`BoundedLines`] keeps at most the limit of one line in memory; a longer line is
//! read and discarded as it streams by, and reported as [`Line::TooLong`] with its length and
//! the request id an [`IdScanner`] found in it, so the caller can answer it and go on.

use serde_json::Value;
use tokio::io::{AsyncBufRead, AsyncBufReadExt};

use crate::request_id::IdScanner;

/// One line read by [`BoundedLines::next_line`].
#[derive(Debug, PartialEq)]
pub enum Line<'a> {
    /// A line within the limit, without its newline.
    Fits(&'a [u8]),
    /// A line longer than the limit, discarded: its length (newline excluded) and the id of
    /// its top-level object, if one was found.
    TooLong { bytes: u64, id: Option<Value> },
}

/// The text that answers a line longer than the limit (session error event, MCP error).
pub fn too_long_message(line_number: u64, bytes: u64, limit: usize) -> String {
    format!(
        "line {line_number}: the request is {bytes} bytes, more than the limit of {limit} bytes ({} MiB); it was discarded",
        limit / (1024 * 1024)
    )
}

/// Reads `\n`-terminated lines of at most `limit` bytes each from `input`.
pub struct BoundedLines<R> {
    input: R,
    limit: usize,
    line: Vec<u8>,
    number: u64,
}

impl<R: AsyncBufRead + Unpin> BoundedLines<R> {
    /// Lines of `input`, each at most `limit` bytes (newline excluded).
    pub fn new(input: R, limit: usize) -> Self {
        BoundedLines { input, limit, line: Vec::new(), number: 0 }
    }

    /// The next line with its 1-based number; `None` at end of input. A last line without a
    /// newline counts as a line.
    pub async fn next_line(&mut self) -> std::io::Result<Option<(u64, Line<'_>)>> {
        self.line.clear();
        let mut bytes: u64 = 0;
        let mut seen_any = false;
        // Set once the line is known to be too long: the kept bytes went into it and were dropped.
        let mut discarding: Option<IdScanner> = None;
        loop {
            let available = self.input.fill_buf().await?;
            if available.is_empty() {
                if !seen_any {
                    return Ok(None);
                }
                break;
            }
            seen_any = true;
            let newline = available.iter().position(|&b| b == b'\n');
            let chunk = &available[..newline.unwrap_or(available.len())];
            bytes += chunk.len() as u64;
            match &mut discarding {
                None if self.line.len() + chunk.len() <= self.limit => {
                    self.line.extend_from_slice(chunk)
                }
                None => {
                    let mut scanner = IdScanner::new();
                    scanner.feed(&self.line);
                    scanner.feed(chunk);
                    self.line.clear();
                    self.line.shrink_to(64 * 1024);
                    discarding = Some(scanner);
                }
                Some(scanner) => {
                    if !scanner.is_done() {
                        scanner.feed(chunk);
                    }
                }
            }
            let consumed = newline.map_or(available.len(), |i| i + 1);
            self.input.consume(consumed);
            if newline.is_some() {
                break;
            }
        }
        self.number += 1;
        Ok(Some(match discarding {
            None => (self.number, Line::Fits(&self.line)),
            Some(scanner) => (self.number, Line::TooLong { bytes, id: scanner.id() }),
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    async fn all(input: &[u8], limit: usize, buffer: usize) -> Vec<(u64, String)> {
        let reader = tokio::io::BufReader::with_capacity(buffer, input);
        let mut lines = BoundedLines::new(reader, limit);
        let mut out = Vec::new();
        while let Some((n, line)) = lines.next_line().await.unwrap() {
            out.push((
                n,
                match line {
                    Line::Fits(b) => String::from_utf8_lossy(b).into_owned(),
                    Line::TooLong { bytes, id } => format!("TOO LONG {bytes} {id:?}"),
                },
            ));
        }
        out
    }

    #[tokio::test]
    async fn lines_within_the_limit_pass_and_longer_ones_are_reported_with_their_id() {
        let input = b"{\"id\":1}\n{\"id\":\"big\",\"x\":\"0123456789\"}\n\nlast";
        for buffer in [1, 3, 7, 64] {
            let got = all(input, 12, buffer).await;
            assert_eq!(
                got,
                [
                    (1, "{\"id\":1}".to_string()),
                    (2, "TOO LONG 29 Some(String(\"big\"))".to_string()),
                    (3, String::new()),
                    (4, "last".to_string()),
                ],
                "buffer {buffer}"
            );
        }
    }

    #[tokio::test]
    async fn a_line_of_exactly_the_limit_fits() {
        assert_eq!(
            all(b"abcd\nabcde\n", 4, 2).await,
            [(1, "abcd".into()), (2, "TOO LONG 5 None".into())]
        );
    }

    #[tokio::test]
    async fn the_id_is_found_after_the_kept_part() {
        let line = format!("{{\"params\":\"{}\",\"id\":99}}\n", "x".repeat(100));
        let got = all(line.as_bytes(), 10, 16).await;
        assert_eq!(got, [(1, format!("TOO LONG {} Some(Number(99))", line.len() - 1))]);
    }

    #[test]
    fn the_message_names_the_line_and_the_limit() {
        let m = too_long_message(3, 20 << 20, 16 << 20);
        assert_eq!(
            m,
            "line 3: the request is 20971520 bytes, more than the limit of 16777216 bytes (16 MiB); it was discarded"
        );
    }
}
