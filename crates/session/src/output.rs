//! The JSON Lines output queue of `toolhost session`: what the session has to say, waiting
//! for a client that may read slowly or not at all, in bounded memory.
//!
//! * A progress event is dropped (newest first) when the progress already queued holds
//!   `SESSION_MAX_QUEUED_PROGRESS_BYTES`; the drop is counted for its call, and the call's
//!   result event says how many (`droppedProgress`). Progress never waits: a running call (a
//!   bash printing a gigabyte) goes on at its own pace.
//! * Every other event (a result, an error, an acknowledgement) is never dropped: once
//!   `SESSION_MAX_QUEUED_OUTPUT_BYTES` of them wait, [`OutputQueue::send`] waits for the
//!   client to read, so the session stops starting calls and reading requests instead of
//!   growing. One event larger than the bound is queued alone.
//!
//! Events keep their order; the writer flushes when the queue runs empty.

use std::collections::{HashMap, VecDeque};
use std::sync::Mutex;

use tokio::io::{AsyncWrite, AsyncWriteExt};
use tokio::sync::Notify;
use toolhost_limits::{SESSION_MAX_QUEUED_OUTPUT_BYTES, SESSION_MAX_QUEUED_PROGRESS_BYTES};

/// One queued line and whether it is progress (which may be dropped).
struct Entry {
    line: String,
    progress: bool,
}

#[derive(Default)]
struct State {
    lines: VecDeque<Entry>,
    progress_bytes: usize,
    other_bytes: usize,
    /// Progress events dropped, by the key of their call's request id.
    dropped: HashMap<String, u64>,
    closed: bool,
}

/// The queue between the session's tasks and its writer (see the module docs).
pub struct OutputQueue {
    state: Mutex<State>,
    /// Wakes the writer: a line was queued, or the queue closed.
    queued: Notify,
    /// Wakes senders waiting for room: the writer took a line.
    taken: Notify,
    progress_bound: usize,
    other_bound: usize,
}

impl Default for OutputQueue {
    fn default() -> Self {
        Self::with_bounds(SESSION_MAX_QUEUED_PROGRESS_BYTES, SESSION_MAX_QUEUED_OUTPUT_BYTES)
    }
}

impl OutputQueue {
    /// A queue holding at most `progress_bound` bytes of progress and `other_bound` bytes of
    /// other events (the session's are the limits named in the module docs).
    pub fn with_bounds(progress_bound: usize, other_bound: usize) -> Self {
        OutputQueue {
            state: Mutex::default(),
            queued: Notify::new(),
            taken: Notify::new(),
            progress_bound,
            other_bound,
        }
    }

    fn state(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Queue a progress event of the call with request-id key `call`, or drop (and count) it
    /// when the queued progress is at its bound. Never waits.
    pub fn progress(&self, call: &str, line: String) {
        let mut s = self.state();
        if s.closed {
            return;
        }
        if s.progress_bytes + line.len() > self.progress_bound {
            *s.dropped.entry(call.to_string()).or_default() += 1;
            return;
        }
        s.progress_bytes += line.len();
        s.lines.push_back(Entry { line, progress: true });
        drop(s);
        self.queued.notify_one();
    }

    /// How many progress events of call `call` were dropped so far; the count restarts.
    pub fn take_dropped(&self, call: &str) -> u64 {
        self.state().dropped.remove(call).unwrap_or(0)
    }

    /// Queue an event that is never dropped, waiting while the other events queued are at
    /// their bound (a lone event larger than the bound is still queued).
    pub async fn send(&self, line: String) {
        loop {
            let taken = self.taken.notified();
            tokio::pin!(taken);
            taken.as_mut().enable();
            {
                let mut s = self.state();
                if s.closed {
                    // The writer is gone (its output failed): nobody will read this.
                    return;
                }
                if s.other_bytes == 0 || s.other_bytes + line.len() <= self.other_bound {
                    s.other_bytes += line.len();
                    s.lines.push_back(Entry { line, progress: false });
                    drop(s);
                    self.queued.notify_one();
                    return;
                }
            }
            taken.await;
        }
    }

    /// No more lines: the writer ends once it has written those queued.
    pub fn close(&self) {
        self.state().closed = true;
        self.queued.notify_one();
        self.taken.notify_waiters();
    }

    /// The next line to write, waiting for one; None once closed and empty.
    async fn next(&self) -> Option<(String, bool)> {
        loop {
            let queued = self.queued.notified();
            tokio::pin!(queued);
            queued.as_mut().enable();
            {
                let mut s = self.state();
                if let Some(e) = s.lines.pop_front() {
                    if e.progress {
                        s.progress_bytes -= e.line.len();
                    } else {
                        s.other_bytes -= e.line.len();
                    }
                    let empty = s.lines.is_empty();
                    drop(s);
                    self.taken.notify_waiters();
                    return Some((e.line, empty));
                }
                if s.closed {
                    return None;
                }
            }
            queued.await;
        }
    }

    /// Write every line to `output`, one per line, until the queue is closed and empty; a
    /// write error ends it (the lines still queued are dropped, and senders no longer wait).
    pub async fn write_to<W: AsyncWrite + Unpin>(&self, mut output: W) -> std::io::Result<()> {
        let result = async {
            while let Some((line, empty)) = self.next().await {
                output.write_all(line.as_bytes()).await?;
                output.write_all(b"\n").await?;
                // Flush once the queue is empty, so a burst is written together.
                if empty {
                    output.flush().await?;
                }
            }
            output.flush().await
        }
        .await;
        if result.is_err() {
            // Nobody reads any more: let senders go on (their lines go nowhere).
            let mut s = self.state();
            s.closed = true;
            s.lines.clear();
            s.progress_bytes = 0;
            s.other_bytes = 0;
            drop(s);
            self.taken.notify_waiters();
        }
        result
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn progress_past_its_bound_is_dropped_and_counted_other_events_never() {
        let q = OutputQueue::with_bounds(10, 1000);
        q.progress("c1", "aaaaaa".into());
        q.progress("c1", "bbbbbb".into());
        q.progress("c1", "cccc".into());
        q.send("result".into()).await;
        assert_eq!(q.take_dropped("c1"), 1);
        assert_eq!(q.take_dropped("c1"), 0);
        q.close();
        let mut out = Vec::new();
        q.write_to(&mut out).await.unwrap();
        assert_eq!(String::from_utf8(out).unwrap(), "aaaaaa\ncccc\nresult\n");
    }

    #[tokio::test]
    async fn a_sender_waits_for_room_and_a_lone_large_event_passes() {
        let q = std::sync::Arc::new(OutputQueue::with_bounds(10, 8));
        q.send("0123456789abcdef".into()).await;
        let waiting = {
            let q = q.clone();
            tokio::spawn(async move { q.send("next".into()).await })
        };
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        assert!(!waiting.is_finished(), "a sender did not wait for room");
        let (line, _) = q.next().await.unwrap();
        assert_eq!(line, "0123456789abcdef");
        waiting.await.unwrap();
        assert_eq!(q.next().await.unwrap().0, "next");
    }
}
