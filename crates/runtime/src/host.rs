//! The host side of `toolhost:tool` imports: the capability handles of `workspace` and the
//! call context of `call`, implemented on [`CallState`], the data of one call's `Store`.
//!
//! Every handle is created from a [`CheckedPath`]: the component names a path, the fence
//! resolves and judges it, and only then does the host open anything.

use std::io::Read;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

use sha2::Digest;
use wasmtime::component::{Resource, ResourceTable};
use wasmtime::StoreLimits;
use wasmtime_wasi::{WasiCtx, WasiCtxView, WasiView};

use toolhost_core::changes;
use toolhost_core::context::{ToolCallContext, ToolProgress, ToolSessionContext};
use toolhost_core::fence::{CheckedPath, Intent, display_path, resolve_path};
use toolhost_core::observations::{self, sha256_hex};
use toolhost_core::policy::{Access, Actor};
use toolhost_core::result::{ErrorCode, ToolResultArtifact};
use toolhost_core::spill::{SpillWriter, spill_path};
use toolhost_limits::{MAX_EDIT_FILE_BYTES, SCAN_TIMEOUT_MS};

use toolhost_core::open::{open_no_symlinks, open_regular, stat_no_symlinks};
use crate::v0_1::toolhost::tool::{call, types, workspace};

/// The largest chunk one `file.read` serves: the guest asks, the host allocates, so the
/// host caps it.
pub const MAX_READ_CHUNK: u32 = 1 << 20;

/// Files a walk delivers per batch.
pub const WALK_BATCH: usize = 256;

/// A walked file larger than this comes without contents (grep then streams it through
/// `open-file`, a chunk at a time).
pub const MAX_WALK_CONTENT_BYTES: u64 = 64 * 1024 * 1024;

/// A batch stops growing past this many bytes of contents: small enough that what was just
/// read is still in the CPU's cache when the guest searches it, and one batch fits the
/// guest's memory cap however large the files are.
pub const WALK_BATCH_BYTES: usize = 1024 * 1024;

/// Found files a walker thread hands over at once (one wake-up of a waiting instance per
/// this many files, not one per file).
const WALK_CHUNK: usize = 128;

/// Found files an instance takes from the shared queue at once (and then reads without
/// holding it): instances taking one file each would hand the queue's lock back and forth,
/// waking each other per file.
const WALK_TAKE: usize = 32;

/// Chunks queued ahead of the component (paths only: contents are read by the instance
/// that takes the file, so a walk's memory is this many chunks of paths plus one batch per
/// instance).
pub const WALK_QUEUE_CHUNKS: usize = 16;

/// A file the walk found, not yet read.
struct Found {
    path: PathBuf,
    /// The path as results show it (relative to the workspace when inside it).
    display: String,
    /// The modification time, when the walk read it (walks without contents).
    modified_ms: Option<u64>,
}

/// A walk's queue of found files.
pub struct WalkQueue {
    chunks: tokio::sync::mpsc::Receiver<Vec<Found>>,
    /// The files of the chunk being taken from, last first.
    current: Vec<Found>,
}

impl WalkQueue {
    /// Up to [`WALK_TAKE`] found files, last first, waiting for some when `wait`; empty once
    /// the walk is over (or when none is ready and `wait` is false).
    async fn take(&mut self, wait: bool) -> Vec<Found> {
        if self.current.is_empty() {
            let chunk = if wait { self.chunks.recv().await } else { self.chunks.try_recv().ok() };
            let Some(mut chunk) = chunk else { return Vec::new() };
            chunk.reverse();
            self.current = chunk;
        }
        let keep = self.current.len().saturating_sub(WALK_TAKE);
        self.current.split_off(keep)
    }
}

/// One walker thread's files, handed to the queue [`WALK_CHUNK`] at a time and the rest
/// when the thread is done (dropped).
struct ChunkSender {
    tx: tokio::sync::mpsc::Sender<Vec<Found>>,
    chunk: Vec<Found>,
}

impl ChunkSender {
    /// Queue `found`; false once nobody takes files any more.
    fn send(&mut self, found: Found) -> bool {
        self.chunk.push(found);
        if self.chunk.len() < WALK_CHUNK {
            return true;
        }
        let chunk = std::mem::replace(&mut self.chunk, Vec::with_capacity(WALK_CHUNK));
        self.tx.blocking_send(chunk).is_ok()
    }
}

impl Drop for ChunkSender {
    fn drop(&mut self) {
        if !self.chunk.is_empty() {
            let _ = self.tx.blocking_send(std::mem::take(&mut self.chunk));
        }
    }
}

/// The walked file for `found`, with its contents read when `with_contents`.
fn walked(found: Found, with_contents: bool) -> workspace::WalkedFile {
    if !with_contents {
        return workspace::WalkedFile { path: found.display, modified_ms: found.modified_ms, contents: None };
    }
    // Open first and ask the open file (fstat): no second path lookup.
    let (modified_ms, contents) = match open_regular(&found.path) {
        Ok((mut file, meta)) if meta.len() <= MAX_WALK_CONTENT_BYTES => (modified_millis(&meta), read_walked(&mut file, meta.len())),
        Ok((_, meta)) => (modified_millis(&meta), None),
        Err(_) => (None, None),
    };
    workspace::WalkedFile { path: found.display, modified_ms, contents }
}

/// A file's modification time in milliseconds since the epoch, when it has one.
fn modified_millis(meta: &std::fs::Metadata) -> Option<u64> {
    meta.modified().ok().and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok()).map(|d| d.as_millis() as u64)
}

/// The contents of an opened walked file of `size` bytes (as `fstat` said when it was
/// opened), none past [`MAX_WALK_CONTENT_BYTES`]. The file is read straight into a buffer of
/// that size, so a file read whole takes one `read(2)`, however large (std's `read_to_end`
/// reads 8 KiB first, then probes for the end). A file that grew since is read up to
/// `size`; one that says it is empty (as some special files do) is read to its end.
fn read_walked(file: &mut std::fs::File, size: u64) -> Option<Vec<u8>> {
    use std::os::fd::AsRawFd;
    if size == 0 || size > MAX_WALK_CONTENT_BYTES {
        let mut bytes = Vec::new();
        file.take(MAX_WALK_CONTENT_BYTES + 1).read_to_end(&mut bytes).ok()?;
        return (bytes.len() as u64 <= MAX_WALK_CONTENT_BYTES).then_some(bytes);
    }
    let size = size as usize;
    let mut bytes: Vec<u8> = Vec::with_capacity(size);
    while bytes.len() < size {
        let want = size - bytes.len();
        let spare = &mut bytes.spare_capacity_mut()[..want];
        // SAFETY: the kernel writes at most `spare.len()` bytes into `spare`, memory this
        // Vec owns; `set_len` below covers only what it reported written.
        let n = unsafe { libc::read(file.as_raw_fd(), spare.as_mut_ptr().cast(), spare.len()) };
        match n {
            0 => break,
            n if n > 0 => unsafe { bytes.set_len(bytes.len() + n as usize) },
            _ if std::io::Error::last_os_error().kind() == std::io::ErrorKind::Interrupted => {}
            _ => return None,
        }
    }
    Some(bytes)
}

/// Compile walk globs: `/`-separated and anchored at the walk root; a pattern without a
/// `/` (e.g. `*.rs`) matches a file name at any depth, as in ripgrep's `-g`.
fn file_globs(globs: &[String]) -> Result<Option<globset::GlobSet>, String> {
    if globs.is_empty() {
        return Ok(None);
    }
    let mut set = globset::GlobSetBuilder::new();
    for glob in globs {
        // Globs match paths relative to the walk root: these could never match anything.
        if glob.is_empty() {
            return Err("glob is empty; pass a pattern such as **/*.rs".to_string());
        }
        if glob.starts_with('/') {
            return Err(format!(
                "glob {glob} is absolute, but globs match paths relative to the searched directory; \
                 pass that directory as path and a relative pattern (e.g. path \"/etc\", pattern \"*.conf\")"
            ));
        }
        if glob.split('/').any(|part| part == "..") {
            return Err(format!(
                "glob {glob} reaches above the searched directory; pass the directory above as path instead"
            ));
        }
        let patterns = if glob.contains('/') {
            vec![glob.trim_start_matches("./").to_string()]
        } else {
            vec![glob.clone(), format!("**/{glob}")]
        };
        for pattern in patterns {
            let g = globset::GlobBuilder::new(&pattern)
                .literal_separator(true)
                .build()
                .map_err(|e| format!("invalid glob {glob}: {e}"))?;
            set.add(g);
        }
    }
    set.build().map(Some).map_err(|e| format!("invalid glob: {e}"))
}

/// Walk in background threads (in parallel) and queue the files found; their contents are
/// read later, by the instance that takes them ([`walked`]), on its own thread, just before
/// it searches them. Symlinks are not followed; paths the policy will not let the tool read
/// (the credential tier) are neither yielded nor descended into. Dropping the queue stops
/// the walk.
fn spawn_walk(
    builder: ignore::WalkBuilder,
    root: PathBuf,
    matcher: Option<globset::GlobSet>,
    with_contents: bool,
    workspace: PathBuf,
    policy: toolhost_core::policy::SandboxPolicy,
) -> WalkQueue {
    let (tx, rx) = tokio::sync::mpsc::channel(WALK_QUEUE_CHUNKS);
    let mut builder = builder;
    builder.threads(std::thread::available_parallelism().map_or(2, |n| n.get()).min(8));
    std::thread::spawn(move || {
        builder.build_parallel().run(|| {
            let mut sender = ChunkSender { tx: tx.clone(), chunk: Vec::with_capacity(WALK_CHUNK) };
            let workspace = workspace.clone();
            let policy = policy.clone();
            let root = root.clone();
            let matcher = matcher.clone();
            Box::new(move |entry| {
                use ignore::WalkState;
                let Ok(entry) = entry else { return WalkState::Continue };
                let path = entry.path();
                if policy.check(path, Access::Read, Actor::FileTool).is_err() {
                    return WalkState::Skip;
                }
                if !entry.file_type().is_some_and(|t| t.is_file()) {
                    return WalkState::Continue;
                }
                if let Some(m) = &matcher {
                    let rel = path.strip_prefix(&root).unwrap_or(path);
                    if !m.is_match(rel) {
                        return WalkState::Continue;
                    }
                }
                // With contents, the reader takes the mtime from the file it opens. Without,
                // the file must still be reachable with no symlink on the way: a directory
                // swapped for a symlink mid-walk must not show the names behind it.
                let modified_ms = if with_contents {
                    None
                } else {
                    match stat_no_symlinks(path) {
                        Ok(meta) => modified_millis(&meta),
                        Err(_) => return WalkState::Continue,
                    }
                };
                let display = display_path(&workspace, path);
                let found = Found { path: entry.into_path(), display, modified_ms };
                if !sender.send(found) {
                    return WalkState::Quit;
                }
                WalkState::Continue
            })
        });
    });
    WalkQueue { chunks: rx, current: Vec::new() }
}

/// The walk options a shared walk is keyed by (with its root).
#[derive(Debug, Clone, PartialEq, Eq)]
struct WalkKey {
    root: PathBuf,
    globs: Vec<String>,
    with_contents: bool,
}

/// A walk's queue, taken from by every instance of the call that opened the same walk.
type SharedQueue = Arc<tokio::sync::Mutex<WalkQueue>>;

/// A spill file, appended to by every instance of the call; `None` once finished.
type SharedSpill = Arc<std::sync::Mutex<Option<SpillWriter>>>;

/// What every instance serving one call shares: the one instance of an ordinary call, or
/// the parts and the merging instance of a parallel one (`parallel` in `wit/tool.wit`).
///
/// * Walks (parallel calls only): a walk of the same root with the same options is started
///   once; every instance that opens it takes files from the same queue, so each file
///   reaches one instance. In an ordinary call every walk is a walk of its own.
/// * Spills: the n-th spill each instance opens is the call's n-th spill file. A spill no
///   instance finished is deleted when the call ends (this value is dropped).
#[derive(Default)]
pub struct CallShare {
    /// Whether the call runs as parallel parts (walks are shared only then).
    parallel: bool,
    walks: std::sync::Mutex<Vec<(WalkKey, SharedQueue)>>,
    spills: std::sync::Mutex<Vec<SharedSpill>>,
}

impl CallShare {
    /// What the parts of a parallel call share.
    pub fn parallel() -> Self {
        CallShare { parallel: true, walks: Default::default(), spills: Default::default() }
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
    pub(super) limits: StoreLimits,
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
    /// What this instance shares with the call's other instances.
    share: Arc<CallShare>,
    /// Keeps the epoch advancing (deadline and cancellation checks) while this store lives.
    _ticking: crate::Ticking,
}

impl CallState {
    pub(super) fn new(
        session: ToolSessionContext,
        call: ToolCallContext,
        limits: StoreLimits,
        share: Arc<CallShare>,
        ticking: crate::Ticking,
    ) -> Self {
        CallState {
            // No preopens, no environment, no arguments, no sockets: `std::fs`, `std::env`
            // and `std::net` inside a component find nothing.
            wasi: WasiCtx::builder().build(),
            table: ResourceTable::new(),
            limits,
            session,
            call,
            started: Instant::now(),
            observed: Vec::new(),
            artifacts: Vec::new(),
            spills: 0,
            sandbox_denied: std::sync::atomic::AtomicBool::new(false),
            share,
            _ticking: ticking,
        }
    }

    fn check(&self, path: &str, access: Access, intent: Intent) -> Result<CheckedPath, types::ToolError> {
        resolve_path(&self.session, path, access, intent, &self.call.sandbox_policy).map_err(|e| {
            if e.sandbox_denied {
                self.sandbox_denied.store(true, std::sync::atomic::Ordering::Relaxed);
            }
            to_wit(e.error)
        })
    }

    /// Whether the fence refused a path of this call with a denial marked `sandbox_denied`.
    pub(super) fn sandbox_denied(&self) -> bool {
        self.sandbox_denied.load(std::sync::atomic::Ordering::Relaxed)
    }
}

impl WasiView for CallState {
    fn ctx(&mut self) -> WasiCtxView<'_> {
        WasiCtxView { ctx: &mut self.wasi, table: &mut self.table }
    }
}

/// A host error as the contract's tool-error.
pub(crate) fn to_wit(e: toolhost_core::result::ToolError) -> types::ToolError {
    types::ToolError { code: code_to_wit(e.code), message: e.message, retryable: e.retryable }
}

fn code_to_wit(code: ErrorCode) -> types::ErrorCode {
    use types::ErrorCode as W;
    match code {
        ErrorCode::ToolNotFound | ErrorCode::ExecutionFailed => W::ExecutionFailed,
        ErrorCode::InvalidArguments => W::InvalidArguments,
        ErrorCode::PermissionDenied => W::PermissionDenied,
        ErrorCode::Cancelled => W::Cancelled,
        ErrorCode::Timeout => W::Timeout,
        ErrorCode::OutcomeUnknown => W::OutcomeUnknown,
        ErrorCode::SandboxUnavailable => W::SandboxUnavailable,
    }
}

/// The contract's error code in the host's terms.
pub(crate) fn code_from_wit(code: types::ErrorCode) -> ErrorCode {
    use types::ErrorCode as W;
    match code {
        W::InvalidArguments => ErrorCode::InvalidArguments,
        W::PermissionDenied => ErrorCode::PermissionDenied,
        W::Cancelled => ErrorCode::Cancelled,
        W::Timeout => ErrorCode::Timeout,
        W::ExecutionFailed => ErrorCode::ExecutionFailed,
        W::OutcomeUnknown => ErrorCode::OutcomeUnknown,
        W::SandboxUnavailable => ErrorCode::SandboxUnavailable,
    }
}

fn err(code: types::ErrorCode, message: impl Into<String>) -> types::ToolError {
    types::ToolError { code, message: message.into(), retryable: false }
}

fn io_err(what: &str, e: std::io::Error) -> types::ToolError {
    err(types::ErrorCode::ExecutionFailed, format!("{what}: {e}"))
}

type WitResult<T> = wasmtime::Result<Result<T, types::ToolError>>;

impl types::Host for CallState {}

/// Open a checked file for reading so that a symlink, rename or FIFO swapped in after the
/// check cannot redirect or hang it: [`open_regular`] reaches the checked (real) path with no
/// symlink followed, so the object opened is the one at that path (seed 003: identity after
/// open); a symlink met on the way is the race, refused.
fn open_checked(checked: &CheckedPath) -> Result<std::fs::File, types::ToolError> {
    let (file, _) = open_regular(checked.as_path()).map_err(|e| match e.raw_os_error() {
        Some(libc::ELOOP) => raced(checked.display()),
        _ => io_err(&format!("cannot open {}", checked.display()), e),
    })?;
    Ok(file)
}

/// The model-facing error for a failed write step (`what`: the step, for I/O errors).
fn write_error(what: &str, display: &str, e: toolhost_core::atomic::AtomicWriteError) -> types::ToolError {
    use toolhost_core::atomic::AtomicWriteError;
    match e {
        AtomicWriteError::Stale => err(types::ErrorCode::ExecutionFailed, observations::STALE_WRITE_MESSAGE),
        AtomicWriteError::Moved(_) => err(
            types::ErrorCode::PermissionDenied,
            format!("{display} changed while it was being written (a symlink or rename raced the check); refusing it"),
        ),
        e @ AtomicWriteError::HardLinked(_) => err(types::ErrorCode::PermissionDenied, format!("{display}: {e}")),
        AtomicWriteError::Io(e) => io_err(what, e),
    }
}

/// The model-facing error for a checked path swapped while it was opened.
fn raced(display: &str) -> types::ToolError {
    err(
        types::ErrorCode::PermissionDenied,
        format!("{display} changed while it was being opened (a symlink or rename raced the check); refusing it"),
    )
}

/// A regular file opened for reading; hashes every byte it serves.
pub struct FileHandle {
    file: std::fs::File,
    real: PathBuf,
    display: String,
    size: u64,
    hasher: sha2::Sha256,
    done: bool,
}

/// A directory opened for listing or walking.
pub struct DirHandle {
    real: PathBuf,
    display: String,
}

/// A recursive walk in progress: walker threads find files in parallel with the
/// component's matching and queue them; this instance takes some at a time and reads them.
pub struct WalkerHandle {
    queue: SharedQueue,
    /// Files taken from the queue and not yet read, last first.
    taken: Vec<Found>,
    /// Whether the files' contents are read (by [`walked`]).
    with_contents: bool,
}

/// A file about to be written, holding its path's write lock.
pub struct DraftHandle {
    checked: CheckedPath,
    /// The path as the model gave it (the artifact's `path`).
    input: String,
    /// The hash of the text `current` served, when it served one.
    served: Option<String>,
    _lock: tokio::sync::OwnedMutexGuard<()>,
}

/// A spill file being written for this call.
pub struct SpillHandle {
    writer: SharedSpill,
}

impl workspace::Host for CallState {
    async fn open_file(&mut self, path: String) -> WitResult<Resource<FileHandle>> {
        let checked = match self.check(&path, Access::Read, Intent::MustExist) {
            Ok(c) => c,
            Err(e) => return Ok(Err(e)),
        };
        let meta = match std::fs::metadata(checked.as_path()) {
            Ok(m) => m,
            Err(e) => return Ok(Err(io_err(&format!("cannot open {path}"), e))),
        };
        if meta.is_dir() {
            return Ok(Err(err(
                types::ErrorCode::InvalidArguments,
                format!("{path} is a directory; use list to see its entries"),
            )));
        }
        if !meta.is_file() {
            return Ok(Err(err(types::ErrorCode::InvalidArguments, format!("{path} is not a regular file"))));
        }
        let file = match open_checked(&checked) {
            Ok(f) => f,
            Err(e) => return Ok(Err(e)),
        };
        let handle = FileHandle {
            file,
            real: checked.as_path().to_path_buf(),
            display: checked.display().to_string(),
            size: meta.len(),
            hasher: sha2::Sha256::new(),
            done: false,
        };
        Ok(Ok(self.table.push(handle)?))
    }

    async fn open_dir(&mut self, path: String) -> WitResult<Resource<DirHandle>> {
        let checked = match self.check(&path, Access::Read, Intent::MustExist) {
            Ok(c) => c,
            Err(e) => return Ok(Err(e)),
        };
        if !checked.as_path().is_dir() {
            return Ok(Err(err(
                types::ErrorCode::InvalidArguments,
                format!("{path} is not a directory; use read to read a file"),
            )));
        }
        let handle = DirHandle { real: checked.as_path().to_path_buf(), display: checked.display().to_string() };
        Ok(Ok(self.table.push(handle)?))
    }

    async fn open_for_write(&mut self, path: String) -> WitResult<Resource<DraftHandle>> {
        let checked = match self.check(&path, Access::Write, Intent::MayCreate) {
            Ok(c) => c,
            Err(e) => return Ok(Err(e)),
        };
        if checked.as_path().is_dir() {
            return Ok(Err(err(
                types::ErrorCode::InvalidArguments,
                format!("{path} is a directory; pass the path of a file in it (e.g. {}/name.txt)", path.trim_end_matches(['/', '\\'])),
            )));
        }
        // A trailing separator names a directory; the fence's normalisation would drop it
        // and the write would make a file of that name.
        if path.ends_with(['/', '\\']) {
            return Ok(Err(err(
                types::ErrorCode::InvalidArguments,
                format!("{path} ends with a separator, which names a directory; pass a file path without it"),
            )));
        }
        let lock = self.session.write_locks().lock(checked.as_path()).await;
        let handle = DraftHandle { checked, input: path, served: None, _lock: lock };
        Ok(Ok(self.table.push(handle)?))
    }
}

impl workspace::HostFile for CallState {
    async fn display_path(&mut self, this: Resource<FileHandle>) -> wasmtime::Result<String> {
        Ok(self.table.get(&this)?.display.clone())
    }

    async fn size(&mut self, this: Resource<FileHandle>) -> wasmtime::Result<u64> {
        Ok(self.table.get(&this)?.size)
    }

    async fn read(&mut self, this: Resource<FileHandle>, max: u32) -> WitResult<Vec<u8>> {
        let handle = self.table.get_mut(&this)?;
        let mut buf = vec![0u8; max.min(MAX_READ_CHUNK) as usize];
        let n = loop {
            match handle.file.read(&mut buf) {
                Ok(n) => break n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) => return Ok(Err(io_err(&format!("cannot read {}", handle.display), e))),
            }
        };
        buf.truncate(n);
        handle.hasher.update(&buf);
        if n == 0 && max > 0 && !handle.done {
            handle.done = true;
            let hash = hex::encode(std::mem::take(&mut handle.hasher).finalize());
            let real = handle.real.clone();
            self.observed.push((real, hash));
        }
        Ok(Ok(buf))
    }

    async fn drop(&mut self, this: Resource<FileHandle>) -> wasmtime::Result<()> {
        self.table.delete(this)?;
        Ok(())
    }
}

impl workspace::HostDir for CallState {
    async fn display_path(&mut self, this: Resource<DirHandle>) -> wasmtime::Result<String> {
        Ok(self.table.get(&this)?.display.clone())
    }

    async fn entries(&mut self, this: Resource<DirHandle>) -> WitResult<Vec<workspace::DirEntry>> {
        let handle = self.table.get(&this)?;
        // List the directory opened without a symlink on the way (through its descriptor's
        // /proc name), not whatever is at the path by the time the listing starts.
        let read = open_no_symlinks(&handle.real).and_then(|dir| {
            use std::os::fd::AsRawFd;
            let via = PathBuf::from(format!("/proc/self/fd/{}", dir.as_raw_fd()));
            std::fs::read_dir(if via.exists() { &via } else { &handle.real })
        });
        let read = match read {
            Ok(r) => r,
            Err(e) if e.raw_os_error() == Some(libc::ELOOP) => return Ok(Err(raced(&handle.display))),
            Err(e) => return Ok(Err(io_err(&format!("cannot list {}", handle.display), e))),
        };
        let mut out = Vec::new();
        for entry in read {
            let entry = match entry {
                Ok(e) => e,
                Err(e) => return Ok(Err(io_err(&format!("cannot list {}", handle.display), e))),
            };
            // `file_type` does not follow symlinks.
            let kind = match entry.file_type() {
                Ok(t) if t.is_dir() => workspace::EntryKind::Directory,
                Ok(t) if t.is_file() => workspace::EntryKind::File,
                Ok(t) if t.is_symlink() => workspace::EntryKind::Symlink,
                _ => workspace::EntryKind::Other,
            };
            let path = handle.real.join(entry.file_name());
            if self.call.sandbox_policy.check(&path, Access::Read, Actor::FileTool).is_err() {
                continue;
            }
            let name = toolhost_core::display::quote_path(&entry.file_name().to_string_lossy()).into_owned();
            out.push(workspace::DirEntry { name, kind });
        }
        Ok(Ok(out))
    }

    async fn walk(&mut self, this: Resource<DirHandle>, options: workspace::WalkOptions) -> WitResult<Resource<WalkerHandle>> {
        let root = self.table.get(&this)?.real.clone();
        let mut builder = ignore::WalkBuilder::new(&root);
        builder
            .hidden(true)
            .git_ignore(true)
            .git_global(false)
            .git_exclude(true)
            .ignore(true)
            .parents(true)
            .require_git(false)
            .follow_links(false);
        // Globs filter files only, matched against the path relative to the walk root; they
        // never re-include what .gitignore or the hidden rule left out (ignore's overrides
        // would whitelist those).
        let matcher = match file_globs(&options.globs) {
            Ok(m) => m,
            Err(message) => return Ok(Err(err(types::ErrorCode::InvalidArguments, message))),
        };
        let key = WalkKey { root: root.clone(), globs: options.globs.clone(), with_contents: options.with_contents };
        let queue = {
            let mut walks = self.share.walks.lock().unwrap_or_else(|e| e.into_inner());
            match walks.iter().find(|(k, _)| self.share.parallel && *k == key) {
                Some((_, queue)) => queue.clone(),
                None => {
                    let workspace = self.session.working_directory.clone();
                    let receiver =
                        spawn_walk(builder, root, matcher, options.with_contents, workspace, self.call.sandbox_policy.clone());
                    let queue: SharedQueue = Arc::new(tokio::sync::Mutex::new(receiver));
                    if self.share.parallel {
                        walks.push((key, queue.clone()));
                    }
                    queue
                }
            }
        };
        let walker = WalkerHandle { queue, taken: Vec::new(), with_contents: options.with_contents };
        Ok(Ok(self.table.push(walker)?))
    }

    async fn drop(&mut self, this: Resource<DirHandle>) -> wasmtime::Result<()> {
        self.table.delete(this)?;
        Ok(())
    }
}

impl workspace::HostWalker for CallState {
    async fn next_batch(&mut self, this: Resource<WalkerHandle>) -> wasmtime::Result<Vec<workspace::WalkedFile>> {
        let cancel = self.call.cancel.clone();
        let walker = self.table.get_mut(&this)?;
        let (shared, with_contents) = (walker.queue.clone(), walker.with_contents);
        let mut taken = std::mem::take(&mut walker.taken);
        let mut out = Vec::new();
        let mut bytes = 0;
        // Files are read here, on this instance's thread, with the queue unlocked: the other
        // instances take and read theirs meanwhile.
        while out.len() < WALK_BATCH && bytes < WALK_BATCH_BYTES && !cancel.is_cancelled() {
            if taken.is_empty() {
                let wait = out.is_empty();
                let mut queue = tokio::select! {
                    queue = shared.lock() => queue,
                    _ = cancel.cancelled() => break,
                };
                taken = tokio::select! {
                    found = queue.take(wait) => found,
                    _ = cancel.cancelled() => break,
                };
            }
            let Some(found) = taken.pop() else { break };
            let file = walked(found, with_contents);
            bytes += file.contents.as_ref().map_or(0, Vec::len);
            out.push(file);
        }
        self.table.get_mut(&this)?.taken = taken;
        Ok(out)
    }

    async fn drop(&mut self, this: Resource<WalkerHandle>) -> wasmtime::Result<()> {
        self.table.delete(this)?;
        Ok(())
    }
}

/// Read an existing file for a draft: UTF-8, at most [`MAX_EDIT_FILE_BYTES`].
fn read_text(checked: &CheckedPath) -> Result<Option<String>, types::ToolError> {
    let display = checked.display();
    let mut file = match open_checked(checked) {
        Ok(f) => f,
        Err(_) if std::fs::symlink_metadata(checked.as_path()).is_err() => return Ok(None),
        Err(e) => return Err(e),
    };
    let mut bytes = Vec::new();
    if let Err(e) = (&mut file).take(MAX_EDIT_FILE_BYTES as u64 + 1).read_to_end(&mut bytes) {
        return Err(io_err(&format!("cannot read {display}"), e));
    }
    if bytes.len() > MAX_EDIT_FILE_BYTES {
        return Err(err(
            types::ErrorCode::InvalidArguments,
            format!("{display} is larger than 1 MiB (1048576 bytes); it cannot be edited with this tool"),
        ));
    }
    String::from_utf8(bytes).map(Some).map_err(|_| {
        err(types::ErrorCode::InvalidArguments, format!("{display} is not UTF-8 text; it cannot be edited with this tool"))
    })
}

impl CallState {
    /// The observation check of §7.4 for an existing file with content hash `hash`.
    fn check_observed(&self, draft: &DraftHandle, hash: &str) -> Result<(), types::ToolError> {
        match self.session.observations.get(draft.checked.as_path()) {
            None => Err(err(types::ErrorCode::InvalidArguments, observations::not_read_message(draft.checked.display()))),
            Some(seen) if seen != hash => {
                Err(err(types::ErrorCode::InvalidArguments, observations::changed_message(draft.checked.display())))
            }
            Some(_) => Ok(()),
        }
    }

    fn commit_draft(&mut self, this: &Resource<DraftHandle>, text: String) -> Result<workspace::Committed, types::ToolError> {
        if text.len() > MAX_EDIT_FILE_BYTES {
            return Err(err(
                types::ErrorCode::InvalidArguments,
                format!("the new content is {} bytes; the limit is 1 MiB (1048576 bytes)", text.len()),
            ));
        }
        let draft = self.table.get(this).map_err(|e| err(types::ErrorCode::ExecutionFailed, e.to_string()))?;
        let real = draft.checked.as_path().to_path_buf();
        let display = draft.checked.display().to_string();
        let input = draft.input.clone();
        let before = read_text(&draft.checked)?;
        if let Some(before) = &before {
            let hash = sha256_hex(before.as_bytes());
            match &draft.served {
                Some(served) if *served != hash => {
                    return Err(err(types::ErrorCode::ExecutionFailed, observations::STALE_WRITE_MESSAGE));
                }
                Some(_) => {}
                None => self.check_observed(draft, &hash)?,
            }
            if *before == text {
                self.session.observations.record(&real, hash);
                return Ok(workspace::Committed { kind: workspace::ChangeKind::Unchanged, additions: 0, deletions: 0 });
            }
        } else if draft.served.is_some() {
            // `current` said the file did not exist and now it does not: fine. If it
            // served a text, the file was deleted meanwhile.
        }
        let parent = real.parent().map(|p| p.to_path_buf()).unwrap_or_default();
        if let Err(e) = toolhost_core::atomic::PinnedDir::create_all(&parent) {
            return Err(write_error(&format!("cannot create the parent directory of {display}"), &display, e));
        }
        // Resolve again now that the parents exist (§6.2): a symlink planted in the new
        // chain must not take the write elsewhere.
        let again = self.check(&input, Access::Write, Intent::MayCreate)?;
        if again.as_path() != real {
            return Err(err(types::ErrorCode::PermissionDenied, format!("{display} resolved to a different place while it was being written")));
        }
        let expected = before.as_deref().map(|b| sha256_hex(b.as_bytes()));
        toolhost_core::atomic::write_atomic(&real, text.as_bytes(), expected.as_deref())
            .map_err(|e| write_error(&format!("cannot write {display}"), &display, e))?;
        self.session.observations.record(&real, sha256_hex(text.as_bytes()));
        let change = changes::file_change(&self.call.call_id.0, &input, before.as_deref(), &text);
        let committed = workspace::Committed {
            kind: if before.is_some() { workspace::ChangeKind::Modified } else { workspace::ChangeKind::Created },
            additions: change.additions,
            deletions: change.deletions,
        };
        self.artifacts.push(ToolResultArtifact::FileChange(change));
        Ok(committed)
    }
}

impl workspace::HostDraft for CallState {
    async fn display_path(&mut self, this: Resource<DraftHandle>) -> wasmtime::Result<String> {
        Ok(self.table.get(&this)?.checked.display().to_string())
    }

    async fn current(&mut self, this: Resource<DraftHandle>) -> WitResult<Option<String>> {
        let draft = self.table.get(&this)?;
        let text = match read_text(&draft.checked) {
            Ok(t) => t,
            Err(e) => return Ok(Err(e)),
        };
        let Some(text) = text else { return Ok(Ok(None)) };
        let hash = sha256_hex(text.as_bytes());
        if let Err(e) = self.check_observed(draft, &hash) {
            return Ok(Err(e));
        }
        self.table.get_mut(&this)?.served = Some(hash);
        Ok(Ok(Some(text)))
    }

    async fn commit(&mut self, this: Resource<DraftHandle>, text: String) -> WitResult<workspace::Committed> {
        Ok(self.commit_draft(&this, text))
    }

    async fn drop(&mut self, this: Resource<DraftHandle>) -> wasmtime::Result<()> {
        self.table.delete(this)?;
        Ok(())
    }
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

    async fn report_progress(&mut self, message: String) -> wasmtime::Result<()> {
        self.call.report_progress(ToolProgress::Message { message });
        Ok(())
    }
}

impl call::HostSpill for CallState {
    async fn new(&mut self) -> wasmtime::Result<Resource<SpillHandle>> {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_found_file_reaches_the_queue_once_in_takes_of_at_most_walk_take() {
        let (tx, rx) = tokio::sync::mpsc::channel(WALK_QUEUE_CHUNKS);
        let n = WALK_CHUNK * 3 + 5;
        std::thread::spawn(move || {
            let mut sender = ChunkSender { tx, chunk: Vec::new() };
            for i in 0..n {
                let found = Found { path: PathBuf::from(format!("f{i}")), display: format!("f{i}"), modified_ms: None };
                assert!(sender.send(found));
            }
            // The last 5 are handed over when the walker thread is done.
        });
        let mut queue = WalkQueue { chunks: rx, current: Vec::new() };
        let runtime = tokio::runtime::Builder::new_current_thread().build().unwrap();
        let mut seen = Vec::new();
        runtime.block_on(async {
            loop {
                let taken = queue.take(true).await;
                if taken.is_empty() {
                    break;
                }
                assert!(taken.len() <= WALK_TAKE);
                seen.extend(taken.into_iter().rev().map(|f| f.display));
            }
        });
        assert_eq!(seen, (0..n).map(|i| format!("f{i}")).collect::<Vec<_>>());
    }

    #[test]
    fn globs_that_could_never_match_are_refused_with_what_to_do() {
        for (glob, says) in [("", "is empty"), ("/etc/*", "is absolute"), ("../*.rs", "reaches above"), ("src/../../x", "reaches above")] {
            let e = file_globs(&[glob.to_string()]).unwrap_err();
            assert!(e.contains(says), "{glob:?}: {e}");
        }
        for fine in ["**/*.rs", "./src/*.ts", "a..b/*", "*.tar.gz"] {
            assert!(file_globs(&[fine.to_string()]).is_ok(), "{fine}");
        }
    }

    #[test]
    fn a_walked_file_is_read_as_fstat_saw_it() {
        let dir = tempfile::tempdir().unwrap();
        let plain = dir.path().join("plain.txt");
        std::fs::write(&plain, "ok").unwrap();
        let (mut file, meta) = open_regular(&plain).unwrap();
        assert_eq!(read_walked(&mut file, meta.len()).as_deref(), Some(&b"ok"[..]));
        // A file that grew after fstat is read as it was; one that claims to be empty, whole.
        let (mut file, meta) = open_regular(&plain).unwrap();
        std::fs::write(&plain, "ok, and more").unwrap();
        assert_eq!(read_walked(&mut file, meta.len()).as_deref(), Some(&b"ok"[..]));
        let (mut file, _) = open_regular(&plain).unwrap();
        assert_eq!(read_walked(&mut file, 0).as_deref(), Some(&b"ok, and more"[..]));
    }
}
