//! The data of one call's `Store` ([`CallState`]) and what the instances of one call share
//! ([`CallShare`]): the grant, shared walks and spills, and the call's spill bounds; and the
//! `types` interface's one function.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

use wasmtime::StoreLimits;
use wasmtime::component::ResourceTable;
use wasmtime_wasi::{WasiCtx, WasiCtxView, WasiView};

use toolhost_core::context::{ToolCallContext, ToolSessionContext};
use toolhost_core::fence::{CheckedPath, Intent};
use toolhost_core::result::ToolResultArtifact;
use toolhost_core::spill::SpillWriter;
use toolhost_policy::Access;

use super::types::to_wit;
use super::walk_queue::{SharedQueue, WalkKey};
use crate::grant::RiskGrant;
use crate::wit::latest::HostError;
use crate::wit::latest::toolhost::tool::types as wit_types;

/// A spill file, appended to by every instance of the call; `None` once finished.
pub(super) type SharedSpill = Arc<std::sync::Mutex<Option<SpillWriter>>>;

/// What every instance serving one call shares: the one instance of an ordinary call, or
/// the parts and the merging instance of a parallel one (`parallel` in `wit/since_v0.1.0/tool.wit`).
///
/// * Walks (parallel calls only): a walk of the same root with the same options is started
///   once; every instance that opens it takes files from the same queue, so each file
///   reaches one instance. In an ordinary call every walk is a walk of its own.
/// * Spills: the n-th spill each instance opens is the call's n-th spill file. A spill no
///   instance finished is deleted when the call ends (this value is dropped).
pub struct CallShare {
    /// What the component was granted: every instance of the call is held to it.
    pub(crate) grant: RiskGrant,
    /// Whether the call runs as parallel parts (walks are shared only then).
    pub(super) parallel: bool,
    pub(super) walks: std::sync::Mutex<Vec<(WalkKey, SharedQueue)>>,
    pub(super) spills: std::sync::Mutex<Vec<SharedSpill>>,
    /// Programs the call's instances ran so far (names their spill files apart).
    pub(super) runs: std::sync::atomic::AtomicUsize,
    /// Spill files the call created or reserved, its own and its programs'
    /// (`MAX_CALL_SPILL_FILES`).
    pub(super) spill_files: std::sync::atomic::AtomicUsize,
    /// Bytes the call's spill files hold or a running program reserved
    /// (`MAX_CALL_SPILL_BYTES`).
    pub(super) spill_bytes: std::sync::atomic::AtomicU64,
    /// The files the host saved the call's programs' output to, as `process.run` named them:
    /// a tool held to the workspace may still read these back.
    pub(super) run_spills: std::sync::Mutex<Vec<String>>,
}

impl CallShare {
    /// What the one instance of an ordinary call holds.
    pub fn single(grant: RiskGrant) -> Self {
        CallShare {
            grant,
            parallel: false,
            walks: Default::default(),
            spills: Default::default(),
            runs: Default::default(),
            spill_files: Default::default(),
            spill_bytes: Default::default(),
            run_spills: Default::default(),
        }
    }

    /// What the parts of a parallel call share.
    pub fn parallel(grant: RiskGrant) -> Self {
        CallShare {
            grant,
            parallel: true,
            walks: Default::default(),
            spills: Default::default(),
            runs: Default::default(),
            spill_files: Default::default(),
            spill_bytes: Default::default(),
            run_spills: Default::default(),
        }
    }
}

impl CallShare {
    /// Reserve two whole spill files (a program's stdout and stderr) against the call's spill
    /// bounds; false, reserving nothing, when they do not fit.
    pub(super) fn reserve_run_spills(&self) -> bool {
        use std::sync::atomic::Ordering::SeqCst;
        use toolhost_limits::{MAX_CALL_SPILL_BYTES, MAX_CALL_SPILL_FILES, MAX_SPILL_BYTES};
        if self.spill_files.fetch_add(2, SeqCst) + 2 > MAX_CALL_SPILL_FILES {
            self.spill_files.fetch_sub(2, SeqCst);
            return false;
        }
        if self.spill_bytes.fetch_add(2 * MAX_SPILL_BYTES, SeqCst) + 2 * MAX_SPILL_BYTES
            > MAX_CALL_SPILL_BYTES
        {
            self.spill_bytes.fetch_sub(2 * MAX_SPILL_BYTES, SeqCst);
            self.spill_files.fetch_sub(2, SeqCst);
            return false;
        }
        true
    }

    /// After a run that [`Self::reserve_run_spills`]: keep only the bytes its two spill files
    /// hold.
    pub(super) fn settle_run_spills(&self, sizes: [u64; 2]) {
        use toolhost_limits::MAX_SPILL_BYTES;
        let unused = sizes.iter().map(|s| MAX_SPILL_BYTES - (*s).min(MAX_SPILL_BYTES)).sum();
        self.spill_bytes.fetch_sub(unused, std::sync::atomic::Ordering::SeqCst);
    }
}

impl Drop for CallShare {
    fn drop(&mut self) {
        let spills = self.spills.get_mut().unwrap_or_else(|e| e.into_inner());
        for spill in spills.drain(..) {
            let mut slot = spill.lock().unwrap_or_else(|e| e.into_inner());
            if let Some(mut writer) = slot.take() {
                // Never finished: the result does not name it, so it must not linger.
                writer.discard();
            }
        }
    }
}

/// The data of one call's `Store`: WASI with an empty context, the resource table, memory
/// limits, and what the host needs to serve this call.
pub struct CallState {
    pub(super) wasi: WasiCtx,
    pub(super) table: ResourceTable,
    pub(crate) limits: crate::limiter::MemoryLimiter,
    pub(crate) session: ToolSessionContext,
    pub(crate) call: ToolCallContext,
    pub(super) started: Instant,
    /// Files read to their end: (real path, SHA-256 of the bytes served). Recorded in the
    /// observation table only if the call succeeds.
    pub(crate) observed: Vec<(PathBuf, String)>,
    /// File changes the host committed during this call.
    pub(crate) artifacts: Vec<ToolResultArtifact>,
    /// The real paths of this instance's open drafts: a second draft of one of them would
    /// wait for ever on the write lock the first holds, so it is refused instead.
    pub(super) open_drafts: std::collections::HashSet<PathBuf>,
    /// How many spills this instance opened (the n-th is the call's n-th spill file).
    pub(super) spills: usize,
    /// The fence refused a path with a `sandbox_denied` denial.
    pub(super) sandbox_denied: std::sync::atomic::AtomicBool,
    /// The OS sandbox refused a program this instance ran a path the policy forbids.
    pub(super) process_denied: bool,
    /// What this instance shares with the call's other instances.
    pub(super) share: Arc<CallShare>,
    /// Keeps the epoch advancing (deadline and cancellation checks) while this store lives.
    pub(super) _ticking: crate::epoch::Ticking,
}

impl CallState {
    pub(crate) fn new(
        session: ToolSessionContext,
        call: ToolCallContext,
        limits: StoreLimits,
        share: Arc<CallShare>,
        ticking: crate::epoch::Ticking,
    ) -> Self {
        CallState {
            // No preopens, no environment, no arguments, no sockets: `std::fs`, `std::env`
            // and `std::net` inside a component find nothing.
            wasi: WasiCtx::builder().build(),
            table: ResourceTable::new(),
            limits: crate::limiter::MemoryLimiter::new(limits),
            session,
            call,
            started: Instant::now(),
            observed: Vec::new(),
            artifacts: Vec::new(),
            open_drafts: std::collections::HashSet::new(),
            spills: 0,
            sandbox_denied: std::sync::atomic::AtomicBool::new(false),
            process_denied: false,
            share,
            _ticking: ticking,
        }
    }

    pub(super) fn check(
        &self,
        path: &str,
        access: Access,
        intent: Intent,
    ) -> Result<CheckedPath, wit_types::ToolError> {
        let policy = &self.call.sandbox_policy;
        // A tool held to the workspace reads back, by the exact name the host gave it, the
        // file its own program's output was saved to (through the policy's fence).
        let own_output = access == Access::Read
            && self
                .share
                .run_spills
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .iter()
                .any(|s| s == path);
        let checked = if own_output {
            toolhost_core::fence::resolve_path(&self.session, path, access, intent, policy)
        } else {
            self.share.grant.resolve(&self.session, path, access, intent, policy)
        };
        checked.map_err(|e| {
            if e.sandbox_denied {
                self.sandbox_denied.store(true, std::sync::atomic::Ordering::Relaxed);
            }
            to_wit(e.error)
        })
    }

    /// Whether the fence refused a path of this call with a denial marked `sandbox_denied`.
    pub(crate) fn sandbox_denied(&self) -> bool {
        self.sandbox_denied.load(std::sync::atomic::Ordering::Relaxed)
    }

    /// Whether the OS sandbox refused a program this instance ran a path the policy forbids.
    pub(crate) fn process_denied(&self) -> bool {
        self.process_denied
    }
}

impl WasiView for CallState {
    fn ctx(&mut self) -> WasiCtxView<'_> {
        WasiCtxView { ctx: &mut self.wasi, table: &mut self.table }
    }
}

/// The `types` interface: a host error reaches the component as its `tool-error`, or traps.
impl wit_types::Host for CallState {
    fn convert_tool_error(&mut self, e: HostError) -> wasmtime::Result<wit_types::ToolError> {
        e.into_wit()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::Ordering::SeqCst;
    use toolhost_core::tool::ToolRisk;
    use toolhost_limits::{MAX_CALL_SPILL_BYTES, MAX_CALL_SPILL_FILES, MAX_SPILL_BYTES};

    #[test]
    fn a_programs_spill_files_are_reserved_whole_and_settled_to_what_they_hold() {
        let share = CallShare::single(RiskGrant::new("t", ToolRisk::ProcessExecution));
        let fit = (MAX_CALL_SPILL_BYTES / (2 * MAX_SPILL_BYTES)) as usize;
        for _ in 0..fit {
            assert!(share.reserve_run_spills());
        }
        // Full: the next run is not spilled, and reserves nothing.
        assert!(!share.reserve_run_spills());
        assert_eq!(share.spill_bytes.load(SeqCst), MAX_CALL_SPILL_BYTES);
        // A run that spilled 1 MiB and nothing gives back the rest.
        share.settle_run_spills([1 << 20, 0]);
        assert_eq!(
            share.spill_bytes.load(SeqCst),
            MAX_CALL_SPILL_BYTES - 2 * MAX_SPILL_BYTES + (1 << 20)
        );
        assert!(!share.reserve_run_spills(), "less than two whole files are left");
        share.spill_bytes.store(0, SeqCst);
        share.spill_files.store(MAX_CALL_SPILL_FILES - 1, SeqCst);
        assert!(!share.reserve_run_spills(), "two files do not fit");
        assert_eq!(share.spill_files.load(SeqCst), MAX_CALL_SPILL_FILES - 1);
    }
}
