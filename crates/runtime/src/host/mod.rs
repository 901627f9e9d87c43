//! The host side of `toolhost:tool`: every interface a component imports, implemented on
//! [`CallState`], the data of one call's `Store`. One file per interface, as in wasmtime's
//! `wasi/src/p2/host/`:
//!
//! * `types` — the contract's error type in the host's terms and back.
//! * `workspace` — `open-file`, `open-dir`, `open-for-write`; the `file` and `dir` handles.
//!   Its two larger resources have files of their own: `walk` (`walker`: the shared,
//!   parallel walk) and `draft` (`draft`: a write under the path's lock, committed atomically).
//! * `call` — cancellation, scan timeout, progress; `spill` files.
//! * `process` — programs run for a component granted process-execution, in bash's sandbox.
//!
//! Every handle is created from a [`CheckedPath`]: the component names a path, the fence
//! resolves and judges it, and only then does the host open anything. What the instances of
//! one call share (a walk, the n-th spill) is a [`CallShare`].
//!
//! The traits these implement are those of the newest WIT version (`crate::v0_2`); an older
//! version's module converts to them (`crate::v0_1`), and a new version's new interface gets
//! a file of its own here.

mod call;
mod draft;
mod process;
mod types;
mod walk;
mod workspace;

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

use wasmtime::component::ResourceTable;
use wasmtime::StoreLimits;
use wasmtime_wasi::{WasiCtx, WasiCtxView, WasiView};

use toolhost_core::context::{ToolCallContext, ToolSessionContext};
use toolhost_core::fence::{CheckedPath, Intent, resolve_path};
use toolhost_core::open::open_regular;
use toolhost_core::policy::Access;
use toolhost_core::result::ToolResultArtifact;
use toolhost_core::spill::SpillWriter;

pub use call::{CallLimit, SpillHandle};
pub use draft::DraftHandle;
pub(crate) use types::{code_from_wit, to_wit};
pub use walk::WalkerHandle;
pub use workspace::{DirHandle, FileHandle};

use types::{io_err, raced};
use crate::grant::Grant;
use walk::{SharedQueue, WalkKey};
use crate::v0_2::toolhost::tool::types as wit_types;

/// A spill file, appended to by every instance of the call; `None` once finished.
type SharedSpill = Arc<std::sync::Mutex<Option<SpillWriter>>>;

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
    pub(crate) grant: Grant,
    /// Whether the call runs as parallel parts (walks are shared only then).
    parallel: bool,
    walks: std::sync::Mutex<Vec<(WalkKey, SharedQueue)>>,
    spills: std::sync::Mutex<Vec<SharedSpill>>,
    /// Programs the call's instances ran so far (names their spill files apart).
    runs: std::sync::atomic::AtomicUsize,
    /// Spill files the call created or reserved, its own and its programs'
    /// (`MAX_CALL_SPILL_FILES`).
    spill_files: std::sync::atomic::AtomicUsize,
    /// Bytes the call's spill files hold or a running program reserved
    /// (`MAX_CALL_SPILL_BYTES`).
    spill_bytes: std::sync::atomic::AtomicU64,
}

impl CallShare {
    /// What the one instance of an ordinary call holds.
    pub fn single(grant: Grant) -> Self {
        CallShare {
            grant,
            parallel: false,
            walks: Default::default(),
            spills: Default::default(),
            runs: Default::default(),
            spill_files: Default::default(),
            spill_bytes: Default::default(),
        }
    }

    /// What the parts of a parallel call share.
    pub fn parallel(grant: Grant) -> Self {
        CallShare {
            grant,
            parallel: true,
            walks: Default::default(),
            spills: Default::default(),
            runs: Default::default(),
            spill_files: Default::default(),
            spill_bytes: Default::default(),
        }
    }
}

impl CallShare {
    /// Reserve two whole spill files (a program's stdout and stderr) against the call's spill
    /// bounds; false, reserving nothing, when they do not fit.
    fn reserve_run_spills(&self) -> bool {
        use std::sync::atomic::Ordering::SeqCst;
        use toolhost_limits::{MAX_CALL_SPILL_BYTES, MAX_CALL_SPILL_FILES, MAX_SPILL_BYTES};
        if self.spill_files.fetch_add(2, SeqCst) + 2 > MAX_CALL_SPILL_FILES {
            self.spill_files.fetch_sub(2, SeqCst);
            return false;
        }
        if self.spill_bytes.fetch_add(2 * MAX_SPILL_BYTES, SeqCst) + 2 * MAX_SPILL_BYTES > MAX_CALL_SPILL_BYTES {
            self.spill_bytes.fetch_sub(2 * MAX_SPILL_BYTES, SeqCst);
            self.spill_files.fetch_sub(2, SeqCst);
            return false;
        }
        true
    }

    /// After a run that [`Self::reserve_run_spills`]: keep only the bytes its two spill files
    /// hold.
    fn settle_run_spills(&self, sizes: [u64; 2]) {
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
    wasi: WasiCtx,
    table: ResourceTable,
    pub(crate) limits: crate::limiter::CallLimits,
    pub(super) session: ToolSessionContext,
    pub(super) call: ToolCallContext,
    started: Instant,
    /// Files read to their end: (real path, SHA-256 of the bytes served). Recorded in the
    /// observation table only if the call succeeds.
    pub(super) observed: Vec<(PathBuf, String)>,
    /// File changes the host committed during this call.
    pub(super) artifacts: Vec<ToolResultArtifact>,
    /// How many spills this instance opened (the n-th is the call's n-th spill file).
    spills: usize,
    /// The fence refused a path with a `sandbox_denied` denial (§6.2).
    sandbox_denied: std::sync::atomic::AtomicBool,
    /// The OS sandbox refused a program this instance ran a path the policy forbids.
    process_denied: bool,
    /// What this instance shares with the call's other instances.
    share: Arc<CallShare>,
    /// Keeps the epoch advancing (deadline and cancellation checks) while this store lives.
    _ticking: crate::epoch::Ticking,
}

impl CallState {
    pub(super) fn new(
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
            limits: crate::limiter::CallLimits::new(limits),
            session,
            call,
            started: Instant::now(),
            observed: Vec::new(),
            artifacts: Vec::new(),
            spills: 0,
            sandbox_denied: std::sync::atomic::AtomicBool::new(false),
            process_denied: false,
            share,
            _ticking: ticking,
        }
    }

    fn check(&self, path: &str, access: Access, intent: Intent) -> Result<CheckedPath, wit_types::ToolError> {
        resolve_path(&self.session, path, access, intent, &self.call.sandbox_policy).map_err(|e| {
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

/// Open a checked file for reading so that a symlink, rename or FIFO swapped in after the
/// check cannot redirect or hang it: [`open_regular`] reaches the checked (real) path with no
/// symlink followed, so the object opened is the one at that path (seed 003: identity after
/// open); a symlink met on the way is the race, refused.
fn open_checked(checked: &CheckedPath) -> Result<std::fs::File, wit_types::ToolError> {
    let (file, _) = open_regular(checked.as_path()).map_err(|e| match e.raw_os_error() {
        Some(libc::ELOOP) => raced(checked.display()),
        _ => io_err(&format!("cannot open {}", checked.display()), e),
    })?;
    Ok(file)
}
