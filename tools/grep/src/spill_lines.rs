//! The full list of a grep call, written as the scan goes: [`SpillLines`] buffers it in
//! [`SPILL_CHUNK_BYTES`] chunks for the host's spill file, stops sending past the host's cap,
//! and rolls back a file's lines while they are still in the guest ([`Mark`]).

use toolhost_sdk::scan::{Append, SPILL_CHUNK_BYTES};

/// The full list, written as the scan goes: buffered in [`SPILL_CHUNK_BYTES`] chunks, and
/// not sent at all once the host's 64 MiB cap is passed (the host would drop it).
pub struct SpillLines<A: Append> {
    target: A,
    /// Lines not yet handed to the host.
    pub(crate) buffer: String,
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
    pub(crate) fn line(&mut self) -> &mut String {
        &mut self.buffer
    }

    pub(crate) fn end_line(&mut self) {
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
