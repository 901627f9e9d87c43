//! `call`: this call's context — cancellation, the scan timeout, elapsed time, progress —
//! and its spill files, shared by every instance of the call ([`super::CallShare`]).
//!
//! What the host holds for the call is bounded per call, not only the component's own
//! memory: at most `MAX_CALL_OPEN_SPILLS` unfinished spills (each buffers up to
//! `SPILL_BUFFER_BYTES` in the host), `MAX_CALL_SPILL_FILES` spill files and
//! `MAX_CALL_SPILL_BYTES` in them, and progress messages of at most
//! `MAX_PROGRESS_MESSAGE_BYTES`. Passing a spill bound fails the call with a [`CallLimit`]
//! (the WIT functions have no error to return); a longer progress message is cut.

use std::sync::Arc;
use std::sync::atomic::Ordering;

use wasmtime::component::Resource;

use toolhost_core::context::ToolProgress;
use toolhost_core::spill::{SpillWriter, spill_path};
use toolhost_limits::{
    MAX_CALL_OPEN_SPILLS, MAX_CALL_SPILL_BYTES, MAX_CALL_SPILL_FILES, MAX_PROGRESS_MESSAGE_BYTES,
    SCAN_TIMEOUT_MS,
};

use super::state::{CallState, SharedSpill};
use crate::wit::latest::toolhost::tool::call;

/// A spill file being written for this call.
pub struct SpillHandle {
    writer: SharedSpill,
}

/// A per-call bound on what the host holds that a component passed; the call fails with it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CallLimit {
    /// `spill()` while the call already holds the most unfinished spills.
    #[error(
        "the tool opened a spill while this call held {held} unfinished ones; a call may hold at most {MAX_CALL_OPEN_SPILLS} (MAX_CALL_OPEN_SPILLS): finish a spill before opening another"
    )]
    OpenSpills { held: usize },
    /// `spill()` past the number of spill files a call may create.
    #[error(
        "the tool opened more spill files than a call may create: at most {MAX_CALL_SPILL_FILES} (MAX_CALL_SPILL_FILES), its programs' included"
    )]
    SpillFiles,
    /// `append` past the bytes a call may spill.
    #[error(
        "the tool spilled more than a call may: at most {} MiB over all its spill files (MAX_CALL_SPILL_BYTES), its programs' included",
        MAX_CALL_SPILL_BYTES >> 20
    )]
    SpillBytes,
}

/// `message` cut to at most [`MAX_PROGRESS_MESSAGE_BYTES`], at a character boundary.
fn bounded_message(mut message: String) -> String {
    message.truncate(message.floor_char_boundary(MAX_PROGRESS_MESSAGE_BYTES));
    message
}

impl call::Host for CallState {
    async fn cancelled(&mut self) -> wasmtime::Result<bool> {
        Ok(self.call.cancel.is_cancelled())
    }

    async fn scan_timeout_ms(&mut self) -> wasmtime::Result<u64> {
        Ok(self.session.scan_timeout.map(|d| d.as_millis() as u64).unwrap_or(SCAN_TIMEOUT_MS))
    }

    async fn elapsed_ms(&mut self) -> wasmtime::Result<u64> {
        Ok(self.started.elapsed().as_millis() as u64)
    }

    async fn report_progress(
        &mut self,
        message: String,
        fraction: Option<f64>,
    ) -> wasmtime::Result<()> {
        let fraction = fraction.filter(|f| f.is_finite()).map(|f| f.clamp(0.0, 1.0));
        self.call
            .report_progress(ToolProgress::Message { message: bounded_message(message), fraction });
        Ok(())
    }
}

impl call::HostSpill for CallState {
    async fn new(&mut self) -> wasmtime::Result<Resource<SpillHandle>> {
        if self.call.sandbox_policy.reach() == toolhost_policy::Reach::Nothing {
            // No file system (describe): a spill that keeps nothing and finishes as none.
            return Ok(self
                .table
                .push(SpillHandle { writer: Arc::new(std::sync::Mutex::new(None)) })?);
        }
        let index = self.spills;
        self.spills += 1;
        let writer = {
            let mut spills = self.share.spills.lock().unwrap_or_else(|e| e.into_inner());
            if spills.len() <= index {
                // A new spill of the call (not one a parallel part already opened).
                let held = spills
                    .iter()
                    .filter(|s| s.lock().unwrap_or_else(|e| e.into_inner()).is_some())
                    .count();
                if held >= MAX_CALL_OPEN_SPILLS {
                    return Err(CallLimit::OpenSpills { held }.into());
                }
                let files = index + 1 - spills.len();
                if self.share.spill_files.fetch_add(files, Ordering::SeqCst) + files
                    > MAX_CALL_SPILL_FILES
                {
                    return Err(CallLimit::SpillFiles.into());
                }
            }
            while spills.len() <= index {
                let n = spills.len();
                let call_id = if n == 0 {
                    self.call.call_id.0.clone()
                } else {
                    format!("{}-{}", self.call.call_id.0, n)
                };
                let path = spill_path(&self.session.data_dir, &self.session.session_id, &call_id);
                spills.push(Arc::new(std::sync::Mutex::new(Some(SpillWriter::new(path)))));
            }
            spills[index].clone()
        };
        Ok(self.table.push(SpillHandle { writer })?)
    }

    async fn append(&mut self, this: Resource<SpillHandle>, line: String) -> wasmtime::Result<()> {
        let writer = self.table.get(&this)?.writer.clone();
        let mut slot = writer.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(w) = slot.as_mut() {
            // What the file will take of it (the per-file cap may keep less), counted against
            // the call's budget before anything is buffered.
            let take = (line.len() as u64 + 1).min(w.room());
            let used = self.share.spill_bytes.fetch_add(take, Ordering::SeqCst);
            if used + take > MAX_CALL_SPILL_BYTES {
                self.share.spill_bytes.fetch_sub(take, Ordering::SeqCst);
                return Err(CallLimit::SpillBytes.into());
            }
            w.append(line.as_bytes());
            w.append(b"\n");
        }
        Ok(())
    }

    async fn finish(
        &mut self,
        this: Resource<SpillHandle>,
    ) -> wasmtime::Result<Option<call::Spilled>> {
        let writer = self.table.get(&this)?.writer.clone();
        let taken = writer.lock().unwrap_or_else(|e| e.into_inner()).take();
        Ok(taken.and_then(|w| w.finish()).map(|s| call::Spilled {
            path: s.path.to_string_lossy().into_owned(),
            capped: s.capped,
        }))
    }

    async fn drop(&mut self, this: Resource<SpillHandle>) -> wasmtime::Result<()> {
        // The file is the call's: another instance may still append to or finish it. An
        // unfinished one is deleted when the call ends (see `CallShare`).
        self.table.delete(this)?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_long_progress_message_is_cut_at_a_character_boundary() {
        assert_eq!(bounded_message("short".into()), "short");
        let cut = bounded_message("é".repeat(MAX_PROGRESS_MESSAGE_BYTES));
        assert!(
            cut.len() <= MAX_PROGRESS_MESSAGE_BYTES && cut.len() > MAX_PROGRESS_MESSAGE_BYTES - 2
        );
        assert!(cut.chars().all(|c| c == 'é'));
    }
}
