//! Bounded capture of a command's merged output (docs/contract.md#bash, #spill-files): memory keeps
//! only the first [`BASH_HEAD_BYTES`] and the last [`BASH_TAIL_BYTES`]; once the total passes their
//! sum, a spill file is created and everything is written to it as it arrives, up to
//! [`MAX_SPILL_BYTES`].

use std::collections::VecDeque;
use std::io::Write;
use std::path::{Path, PathBuf};

use toolhost_limits::{BASH_HEAD_BYTES, BASH_TAIL_BYTES, MAX_SPILL_BYTES};

/// Output up to this many bytes is kept whole; past it the middle is omitted and spilled.
pub const CAPTURE_WHOLE_BYTES: usize = BASH_HEAD_BYTES + BASH_TAIL_BYTES;

/// How many bytes of stderr's start are kept apart, to recognize a sandbox runner's own error.
pub const STDERR_START_BYTES: usize = 512;

/// Which pipe a chunk came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stream {
    Stdout,
    Stderr,
}

/// What became of the spill file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SpillState {
    /// Not needed (output within [`CAPTURE_WHOLE_BYTES`]) or no path was given.
    None,
    /// Everything is saved at this path.
    Complete(PathBuf),
    /// The first [`MAX_SPILL_BYTES`] are saved at this path; writing stopped there.
    Truncated(PathBuf),
    /// Creating or writing failed; the partial file was removed.
    Failed,
}

/// The head, tail and totals of one command's merged stdout and stderr.
#[derive(Debug)]
pub struct Capture {
    head: Vec<u8>,
    tail: VecDeque<u8>,
    total: u64,
    stderr_start: Vec<u8>,
    spill_path: Option<PathBuf>,
    spill_file: Option<std::fs::File>,
    spill_written: u64,
    spill: SpillState,
}

impl Capture {
    /// An empty capture that spills to `spill_path` when needed.
    pub fn new(spill_path: Option<PathBuf>) -> Self {
        Capture {
            head: Vec::with_capacity(BASH_HEAD_BYTES),
            tail: VecDeque::with_capacity(BASH_TAIL_BYTES),
            total: 0,
            stderr_start: Vec::new(),
            spill_path,
            spill_file: None,
            spill_written: 0,
            spill: SpillState::None,
        }
    }

    /// Takes one chunk in arrival order.
    pub fn push(&mut self, stream: Stream, chunk: &[u8]) {
        if stream == Stream::Stderr && self.stderr_start.len() < STDERR_START_BYTES {
            let n = (STDERR_START_BYTES - self.stderr_start.len()).min(chunk.len());
            self.stderr_start.extend_from_slice(&chunk[..n]);
        }
        let before = self.total;
        self.total += chunk.len() as u64;
        if before <= CAPTURE_WHOLE_BYTES as u64 && self.total > CAPTURE_WHOLE_BYTES as u64 {
            self.start_spill();
        }
        if self.spill_file.is_some() {
            self.write_spill(chunk);
        }
        let mut rest = chunk;
        if self.head.len() < BASH_HEAD_BYTES {
            let n = (BASH_HEAD_BYTES - self.head.len()).min(rest.len());
            self.head.extend_from_slice(&rest[..n]);
            rest = &rest[n..];
        }
        if rest.len() >= BASH_TAIL_BYTES {
            self.tail.clear();
            self.tail.extend(&rest[rest.len() - BASH_TAIL_BYTES..]);
        } else {
            let overflow = (self.tail.len() + rest.len()).saturating_sub(BASH_TAIL_BYTES);
            self.tail.drain(..overflow);
            self.tail.extend(rest);
        }
    }

    fn start_spill(&mut self) {
        let Some(path) = self.spill_path.clone() else {
            return;
        };
        let created = path.parent().map_or(Ok(()), std::fs::create_dir_all).and_then(|_| {
            std::fs::OpenOptions::new().write(true).create(true).truncate(true).open(&path)
        });
        match created {
            Ok(f) => {
                self.spill_file = Some(f);
                self.spill = SpillState::Complete(path);
                let (a, b) = self.tail.as_slices();
                let so_far = [self.head.clone(), a.to_vec(), b.to_vec()].concat();
                self.write_spill(&so_far);
            }
            Err(_) => self.spill = SpillState::Failed,
        }
    }

    fn write_spill(&mut self, bytes: &[u8]) {
        let Some(f) = self.spill_file.as_mut() else {
            return;
        };
        let room = MAX_SPILL_BYTES.saturating_sub(self.spill_written);
        let n = (bytes.len() as u64).min(room) as usize;
        if let Err(_e) = f.write_all(&bytes[..n]) {
            self.discard_spill();
            self.spill = SpillState::Failed;
            return;
        }
        self.spill_written += n as u64;
        if n < bytes.len() {
            self.spill_file = None;
            if let SpillState::Complete(p) = &self.spill {
                self.spill = SpillState::Truncated(p.clone());
            }
        }
    }

    /// Removes the spill file (the execution failed, or writing it failed).
    pub fn discard_spill(&mut self) {
        self.spill_file = None;
        if let SpillState::Complete(p) | SpillState::Truncated(p) = &self.spill {
            let _ = std::fs::remove_file(p);
        }
        if self.spill != SpillState::None {
            self.spill = SpillState::Failed;
        }
    }

    /// Total bytes seen on both streams.
    pub fn total_bytes(&self) -> u64 {
        self.total
    }

    /// The first bytes of stderr alone (up to [`STDERR_START_BYTES`]).
    pub fn stderr_start(&self) -> &[u8] {
        &self.stderr_start
    }

    /// The spill outcome.
    pub fn spill(&self) -> &SpillState {
        &self.spill
    }

    /// The spill file's path when it exists.
    pub fn spill_path(&self) -> Option<&Path> {
        match &self.spill {
            SpillState::Complete(p) | SpillState::Truncated(p) => Some(p),
            _ => None,
        }
    }

    /// Bytes kept in memory (head and tail buffers).
    pub fn retained_bytes(&self) -> usize {
        self.head.len() + self.tail.len()
    }

    /// The model-facing text: all of it, or head + omission note + tail cut on UTF-8
    /// boundaries, with the exact number of omitted bytes.
    pub fn render(&self) -> String {
        let (a, b) = self.tail.as_slices();
        if self.total <= CAPTURE_WHOLE_BYTES as u64 {
            return String::from_utf8_lossy(&[self.head.as_slice(), a, b].concat()).into_owned();
        }
        let tail: Vec<u8> = [a, b].concat();
        let head = &self.head[..utf8_prefix_end(&self.head)];
        let tail = &tail[utf8_suffix_start(&tail)..];
        let omitted = self.total - head.len() as u64 - tail.len() as u64;
        format!(
            "{}{}{}",
            String::from_utf8_lossy(head),
            omission_note(omitted, &self.spill),
            String::from_utf8_lossy(tail)
        )
    }
}

/// The line between head and tail (with its surrounding newlines).
pub fn omission_note(omitted: u64, spill: &SpillState) -> String {
    match spill {
        SpillState::Complete(p) => format!(
            "\n... ({omitted} bytes omitted. Full output saved at {} — use read with offset/limit, or grep, to look at it.)\n",
            p.display()
        ),
        SpillState::Truncated(p) => format!(
            "\n... ({omitted} bytes omitted. Only the first {} bytes (64 MiB) of the output were saved, at {} — use read with offset/limit, or grep, to look at it.)\n",
            MAX_SPILL_BYTES,
            p.display()
        ),
        SpillState::None | SpillState::Failed => format!("\n... ({omitted} bytes omitted.)\n"),
    }
}

/// End of the longest prefix that does not stop inside a UTF-8 sequence.
fn utf8_prefix_end(b: &[u8]) -> usize {
    let len = b.len();
    for back in 1..=3.min(len) {
        let byte = b[len - back];
        if byte & 0xC0 == 0x80 {
            continue;
        }
        let need = match byte {
            0xC0..=0xDF => 2,
            0xE0..=0xEF => 3,
            0xF0..=0xF7 => 4,
            _ => 1,
        };
        return if need > back { len - back } else { len };
    }
    len
}

/// Start of the longest suffix that does not begin inside a UTF-8 sequence.
fn utf8_suffix_start(b: &[u8]) -> usize {
    b.iter().take(3).take_while(|x| *x & 0xC0 == 0x80).count()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_a_short_head_and_a_long_tail() {
        let dir = tempfile::tempdir().unwrap();
        let spill = dir.path().join("s/c.txt");
        let mut c = Capture::new(Some(spill.clone()));
        let data: Vec<u8> = (0..50_000u32).map(|i| b'a' + (i % 26) as u8).collect();
        for chunk in data.chunks(1000) {
            c.push(Stream::Stdout, chunk);
        }
        assert_eq!(c.total_bytes(), 50_000);
        assert_eq!(c.retained_bytes(), CAPTURE_WHOLE_BYTES);
        let text = c.render();
        let omitted = 50_000 - BASH_HEAD_BYTES - BASH_TAIL_BYTES;
        let want = format!(
            "{}\n... ({omitted} bytes omitted. Full output saved at {} — use read with offset/limit, or grep, to look at it.)\n{}",
            String::from_utf8_lossy(&data[..BASH_HEAD_BYTES]),
            spill.display(),
            String::from_utf8_lossy(&data[50_000 - BASH_TAIL_BYTES..])
        );
        assert_eq!(text, want);
        assert_eq!(std::fs::read(&spill).unwrap(), data);
    }

    #[test]
    fn small_output_is_whole_and_never_spills() {
        let dir = tempfile::tempdir().unwrap();
        let spill = dir.path().join("c.txt");
        let mut c = Capture::new(Some(spill.clone()));
        c.push(Stream::Stdout, &vec![b'x'; CAPTURE_WHOLE_BYTES - 1]);
        c.push(Stream::Stderr, b"y");
        assert_eq!(c.render().len(), CAPTURE_WHOLE_BYTES);
        assert!(!spill.exists());
        assert_eq!(c.spill(), &SpillState::None);
        c.push(Stream::Stdout, b"z");
        assert!(spill.exists());
        assert_eq!(std::fs::metadata(&spill).unwrap().len(), CAPTURE_WHOLE_BYTES as u64 + 1);
    }

    #[test]
    fn cuts_on_utf8_boundaries_and_counts_the_cut_bytes() {
        let mut c = Capture::new(None);
        // 'é' is 2 bytes; an odd prefix puts a sequence across the head boundary.
        let mut data = vec![b'a'];
        while data.len() < 40_000 {
            data.extend_from_slice("é".as_bytes());
        }
        c.push(Stream::Stdout, &data);
        let text = c.render();
        let (head, rest) = text.split_once("\n... (").unwrap();
        let (note, tail) = rest.split_once(")\n").unwrap();
        assert!(!head.contains('\u{FFFD}') && !tail.contains('\u{FFFD}'));
        let omitted: u64 = note.split(' ').next().unwrap().parse().unwrap();
        assert_eq!(omitted + head.len() as u64 + tail.len() as u64, data.len() as u64);
        assert!(note.ends_with("bytes omitted."), "{note}");
    }

    #[test]
    fn failed_spill_omits_the_path() {
        let mut c = Capture::new(Some("/proc/nonexistent/dir/c.txt".into()));
        c.push(Stream::Stdout, &vec![b'x'; 20_000]);
        assert_eq!(c.spill(), &SpillState::Failed);
        assert!(c.render().contains("\n... (3616 bytes omitted.)\n"));
    }

    #[test]
    fn an_abandoned_capture_leaves_no_spill_file() {
        let dir = tempfile::tempdir().unwrap();
        let spill = dir.path().join("c.txt");
        let mut c = Capture::new(Some(spill.clone()));
        c.push(Stream::Stdout, &vec![b'x'; 20_000]);
        assert!(spill.exists());
        c.discard_spill();
        assert!(!spill.exists());
        assert!(!c.render().contains("saved at"));
    }
}
