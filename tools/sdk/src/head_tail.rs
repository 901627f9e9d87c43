//! Output kept within a byte bound: the start and the end, the middle cut out and counted
//! ([`HeadTail`] while it streams, [`Kept`] once it ended). `workspace_git`'s diff and show keep
//! `max_bytes` of git's stdout this way (its structured value may cut it further:
//! [`Kept::shrink`]); `workspace_tests` keeps the start and end of a saved stream to parse.

use std::collections::VecDeque;

/// The start and end of a stream of bytes, within a bound, as it arrives.
#[derive(Debug)]
pub struct HeadTail {
    head_limit: usize,
    tail_limit: usize,
    head: Vec<u8>,
    tail: VecDeque<u8>,
    total: u64,
}

impl HeadTail {
    /// Keeps at most `limit` bytes: half from the start, half from the end.
    pub fn new(limit: usize) -> Self {
        let head_limit = limit.div_ceil(2);
        HeadTail::with_limits(head_limit, limit - head_limit)
    }

    /// Keeps the first `head_limit` bytes and the last `tail_limit` bytes.
    pub fn with_limits(head_limit: usize, tail_limit: usize) -> Self {
        HeadTail { head_limit, tail_limit, head: Vec::new(), tail: VecDeque::new(), total: 0 }
    }

    /// Takes the next chunk.
    pub fn push(&mut self, mut chunk: &[u8]) {
        self.total += chunk.len() as u64;
        if self.head.len() < self.head_limit {
            let n = (self.head_limit - self.head.len()).min(chunk.len());
            self.head.extend_from_slice(&chunk[..n]);
            chunk = &chunk[n..];
        }
        if self.tail_limit == 0 {
            return;
        }
        if chunk.len() >= self.tail_limit {
            self.tail.clear();
            self.tail.extend(&chunk[chunk.len() - self.tail_limit..]);
        } else {
            let overflow = (self.tail.len() + chunk.len()).saturating_sub(self.tail_limit);
            self.tail.drain(..overflow);
            self.tail.extend(chunk);
        }
    }

    /// What was kept, and how many bytes in the middle were not.
    pub fn finish(self) -> Kept {
        let kept = (self.head.len() + self.tail.len()) as u64;
        Kept { head: self.head, tail: self.tail.into(), omitted: self.total - kept }
    }
}

/// Bytes kept of a stream: the head, the tail, and the count of bytes omitted between them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Kept {
    /// The first bytes.
    pub head: Vec<u8>,
    /// The bytes after the omitted middle (when nothing was omitted, the rest after `head`).
    pub tail: Vec<u8>,
    /// Bytes omitted between head and tail.
    pub omitted: u64,
}

impl Kept {
    /// `bytes`, at most `limit` of them kept.
    pub fn of(bytes: &[u8], limit: usize) -> Kept {
        let mut kept = HeadTail::new(limit);
        kept.push(bytes);
        kept.finish()
    }

    /// Whether bytes were cut out.
    pub fn truncated(&self) -> bool {
        self.omitted > 0
    }

    /// Bytes kept.
    pub fn len(&self) -> usize {
        self.head.len() + self.tail.len()
    }

    /// Whether nothing was kept.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The same stream kept within `limit` bytes (no-op when it already is).
    pub fn shrink(&self, limit: usize) -> Kept {
        if self.len() <= limit {
            return self.clone();
        }
        let head_n = limit.div_ceil(2).min(self.head.len());
        let tail_n = (limit - head_n).min(self.tail.len() + self.head.len() - head_n);
        let mut rest: Vec<u8> = self.head[head_n..].to_vec();
        rest.extend_from_slice(&self.tail);
        let tail = rest[rest.len() - tail_n..].to_vec();
        let omitted = self.omitted + (rest.len() - tail_n) as u64;
        Kept { head: self.head[..head_n].to_vec(), tail, omitted }
    }

    /// The kept text (lossy UTF-8): whole, or the head and the tail, each cut at a line
    /// boundary when one is near, around one line saying how much of `what` was omitted
    /// ([`omitted_line`]).
    pub fn render(&self, what: &str) -> String {
        if !self.truncated() {
            let mut all = self.head.clone();
            all.extend_from_slice(&self.tail);
            return String::from_utf8_lossy(&all).into_owned();
        }
        let (head, tail) = (&self.head[..], &self.tail[..]);
        let head_end = match head.iter().rposition(|&b| b == b'\n') {
            Some(i) if i + 1 >= head.len() / 2 => i + 1,
            _ => head.len(),
        };
        let tail_start = match tail.iter().position(|&b| b == b'\n') {
            Some(i) if i < tail.len() / 2 => i + 1,
            _ => 0,
        };
        let omitted = self.omitted + (head.len() - head_end + tail_start) as u64;
        let mut text = String::from_utf8_lossy(&head[..head_end]).into_owned();
        if !text.is_empty() && !text.ends_with('\n') {
            text.push('\n');
        }
        text.push_str(&omitted_line(omitted, what));
        text.push('\n');
        text.push_str(&String::from_utf8_lossy(&tail[tail_start..]));
        text
    }
}

/// The line standing for the omitted middle of `what` (e.g. "git's output").
pub fn omitted_line(bytes: u64, what: &str) -> String {
    format!("[... {bytes} bytes of {what} omitted here ...]")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_output_is_kept_whole() {
        let kept = Kept::of(b"abc\ndef\n", 8);
        assert!(!kept.truncated());
        assert_eq!(kept.render("git's output"), "abc\ndef\n");
    }

    #[test]
    fn long_output_keeps_head_and_tail_and_counts_the_rest() {
        let text: String = (0..100).map(|i| format!("line {i:03}\n")).collect();
        let kept = Kept::of(text.as_bytes(), 100);
        assert_eq!(kept.len(), 100);
        assert_eq!(kept.omitted, text.len() as u64 - 100);
        let shown = kept.render("git's output");
        assert!(shown.starts_with("line 000\n"), "{shown}");
        assert!(shown.ends_with("line 099\n"), "{shown}");
        let lines: Vec<&str> = shown.lines().collect();
        let marker = lines.iter().find(|l| l.starts_with("[...")).unwrap();
        let kept_lines = lines.iter().filter(|l| l.starts_with("line ")).count();
        assert_eq!(*marker, omitted_line(((100 - kept_lines) * 9) as u64, "git's output"));
        assert!(lines.iter().all(|l| l.len() == 8 || l.starts_with("[...")), "{shown}");
    }

    #[test]
    fn streaming_equals_at_once_and_shrink_counts_more() {
        let bytes: Vec<u8> = (0..10_000u32).map(|i| (i % 251) as u8).collect();
        let mut streamed = HeadTail::new(1000);
        for chunk in bytes.chunks(77) {
            streamed.push(chunk);
        }
        let streamed = streamed.finish();
        assert_eq!(streamed, Kept::of(&bytes, 1000));
        assert_eq!(&streamed.head[..], &bytes[..500]);
        assert_eq!(&streamed.tail[..], &bytes[bytes.len() - 500..]);
        let small = streamed.shrink(100);
        assert_eq!(small.len(), 100);
        assert_eq!(small.omitted, 9900);
        assert_eq!(&small.head[..], &bytes[..50]);
        assert_eq!(&small.tail[..], &bytes[bytes.len() - 50..]);
        assert_eq!(Kept::of(b"x", 1).shrink(1), Kept::of(b"x", 1));
        let one = Kept::of(b"abcdef", 1);
        assert_eq!(
            (one.head.as_slice(), one.tail.as_slice(), one.omitted),
            (&b"a"[..], &b""[..], 5)
        );
    }

    #[test]
    fn separate_limits_keep_that_much_of_each_end() {
        let mut kept = HeadTail::with_limits(3, 2);
        kept.push(b"abcdefgh");
        let kept = kept.finish();
        assert_eq!(
            (kept.head.as_slice(), kept.tail.as_slice(), kept.omitted),
            (&b"abc"[..], &b"gh"[..], 3)
        );
    }

    #[test]
    fn shrinking_untruncated_output_cuts_its_middle() {
        let kept = Kept::of(b"0123456789", 100).shrink(4);
        assert_eq!(
            (kept.head.as_slice(), kept.tail.as_slice(), kept.omitted),
            (&b"01"[..], &b"89"[..], 6)
        );
    }
}
