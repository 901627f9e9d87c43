//! `call`: this call's context — cancellation, the scan timeout, elapsed time, progress —
//! and its spill files, shared by every instance of the call ([`super::CallShare`]).

use std::sync::Arc;

use wasmtime::component::Resource;

use toolhost_core::context::ToolProgress;
use toolhost_core::spill::{SpillWriter, spill_path};
use toolhost_limits::SCAN_TIMEOUT_MS;

use super::{CallState, SharedSpill};
use crate::v0_2::toolhost::tool::call;

/// A spill file being written for this call.
pub struct SpillHandle {
    writer: SharedSpill,
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

    async fn report_progress(&mut self, message: String, fraction: Option<f64>) -> wasmtime::Result<()> {
        let fraction = fraction.filter(|f| f.is_finite()).map(|f| f.clamp(0.0, 1.0));
        self.call.report_progress(ToolProgress::Message { message, fraction });
        Ok(())
    }
}

impl call::HostSpill for CallState {
    async fn new(&mut self) -> wasmtime::Result<Resource<SpillHandle>> {
        if self.call.sandbox_policy.reach() == toolhost_core::policy::Reach::Nothing {
            // No file system (describe): a spill that keeps nothing and finishes as none.
            return Ok(self.table.push(SpillHandle { writer: Arc::new(std::sync::Mutex::new(None)) })?);
        }
        let index = self.spills;
        self.spills += 1;
        let writer = {
            let mut spills = self.share.spills.lock().unwrap_or_else(|e| e.into_inner());
            while spills.len() <= index {
                let n = spills.len();
                let call_id =
                    if n == 0 { self.call.call_id.0.clone() } else { format!("{}-{}", self.call.call_id.0, n) };
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
            w.append(line.as_bytes());
            w.append(b"\n");
        }
        Ok(())
    }

    async fn finish(&mut self, this: Resource<SpillHandle>) -> wasmtime::Result<Option<call::Spilled>> {
        let writer = self.table.get(&this)?.writer.clone();
        let taken = writer.lock().unwrap_or_else(|e| e.into_inner()).take();
        Ok(taken.and_then(|w| w.finish()).map(|s| call::Spilled { path: s.path.to_string_lossy().into_owned(), capped: s.capped }))
    }

    async fn drop(&mut self, this: Resource<SpillHandle>) -> wasmtime::Result<()> {
        // The file is the call's: another instance may still append to or finish it. An
        // unfinished one is deleted when the call ends (see `CallShare`).
        self.table.delete(this)?;
        Ok(())
    }
}
