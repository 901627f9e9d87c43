//! The WebAssembly runtime of toolhost: a tool component becomes a [`ComponentTool`], a
//! `DynTool` like any other, so the core's registry and finalize treat it as they treat bash.
//!
//! A [`ComponentRuntime`] holds the one async `wasmtime::Engine` of the process (epoch
//! interruption, the pooling allocator for long-running servers — [`Allocation`]) and the
//! component cache ([`cache`]: compiled once, keyed by SHA-256 and the engine's hash, with the
//! definition each component described). A call flows: [`ComponentTool`]
//! ([`component_tool`]) makes a fresh `Store` whose data is a `CallState` (the call's contexts,
//! memory cap, deadline and cancellation checked in the epoch callback), instantiates the
//! component against the linker of its WIT version, and calls `tool.execute` (or the parts of
//! `parallel` and the merge); every import the component makes lands in `host/`, one file
//! per WIT interface, which goes through the core's fence for every path.
//!
//! * [`wit`] — the released WIT packages (text, frozen digest), one directory each under `wit/`.
//! * `v0_2`, `v0_1` — bindings of `toolhost:tool@0.2.0` and `@0.1.0` (`wit/since_v0.x.0/`),
//!   one module per released WIT version, the way Zed's extension host keeps `since_v0_x`.
//!   The host code is written against the newest; `v0_1` converts each of its imports to the
//!   0.2.0 one. The linker links every version side by side.
//! * `exports` — a component's exports in the host's terms, whichever version it was built
//!   against (its `Prepared` picks the version by what the component exports).
//! * `host/` — the host side of the imports: `types`, `workspace` (with `walk` and `draft`),
//!   `call`, `process`.

pub mod cache;
mod limiter;
pub mod component_tool;
pub mod definition;
mod exports;
pub mod validate;
pub mod wit;
mod host;
mod v0_1;
mod v0_2;

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use wasmtime::component::{Component, Linker};
use wasmtime::{Config, Engine, InstanceAllocationStrategy, PoolingAllocationConfig};

use toolhost_core::tool::ToolRisk;

pub use component_tool::ComponentTool;
pub(crate) use host::CallState;

/// How often the epoch advances: the granularity at which a running component notices a
/// cancellation or a passed deadline.
pub const EPOCH_TICK: Duration = Duration::from_millis(5);

/// Linear memory one call's store may grow to. A guest that asks for more gets a failed
/// allocation (and, for Rust guests, a trap), never the host's memory.
pub const MAX_STORE_MEMORY: usize = 512 << 20;

/// Bytes of a pooled memory (and table) kept resident between calls, reset in place.
pub const KEEP_RESIDENT_BYTES: usize = 1 << 20;

/// How long one component call may run when the caller set no earlier deadline. Scans stop
/// themselves at the 30 s scan timeout (seed 000 §9); this bound only stops runaways.
pub const DEFAULT_CALL_TIMEOUT: Duration = Duration::from_secs(120);

/// What one component may do, from the risk the user granted it (at `tool add`, or its
/// declared risk for a built-in or a `--tool`): a read-only grant gets `open-file`, `stat`
/// and `open-dir` only; `open-for-write` needs workspace-mutation or more, and
/// `process.run` needs process-execution.
#[derive(Debug, Clone)]
pub struct Grant {
    /// The tool's id, named in refusals.
    pub tool: String,
    /// The granted risk.
    pub risk: ToolRisk,
    /// Every capability refused for lack of a grant, as `open-for-write(PATH)` or
    /// `process.run(PROGRAM)`, shared by the
    /// clones of this grant (conformance reports them).
    refusals: Noted,
    /// Every program run through `process.run`, as `program args…`, shared the same way
    /// (conformance compares them with what `inspect` said).
    runs: Noted,
}

/// What a [`Grant`] notes for whoever reads it (conformance), shared by its clones: at most
/// [`MAX_NOTED_REFUSALS`] entries until taken, so a long session of a tool that keeps trying
/// does not grow it without bound.
#[derive(Debug, Clone, Default)]
struct Noted(Arc<std::sync::Mutex<Vec<String>>>);

impl Noted {
    fn push(&self, entry: String) {
        let mut entries = self.0.lock().unwrap_or_else(|e| e.into_inner());
        if entries.len() < MAX_NOTED_REFUSALS {
            entries.push(entry);
        }
    }

    fn take(&self) -> Vec<String> {
        std::mem::take(&mut *self.0.lock().unwrap_or_else(|e| e.into_inner()))
    }
}

/// How many refused capabilities (and programs run) a [`Grant`] keeps until they are taken.
const MAX_NOTED_REFUSALS: usize = 64;

impl Grant {
    /// `tool` held to `risk`.
    pub fn new(tool: impl Into<String>, risk: ToolRisk) -> Self {
        Grant { tool: tool.into(), risk, refusals: Noted::default(), runs: Noted::default() }
    }

    /// The capabilities refused since the last call of this, oldest first.
    pub fn take_refusals(&self) -> Vec<String> {
        self.refusals.take()
    }

    /// The programs run since the last call of this, oldest first.
    pub fn take_runs(&self) -> Vec<String> {
        self.runs.take()
    }

    /// Note a program about to run.
    pub(crate) fn note_run(&self, command: String) {
        self.runs.push(command);
    }

    /// Why this grant refuses `open-for-write` of `path`, as the model-facing text (and
    /// noted); `None` if it allows it.
    pub fn refuses_writes(&self, path: &str) -> Option<String> {
        (self.risk == ToolRisk::ReadOnly).then(|| {
            self.refusals.push(format!("open-for-write({path:?})"));
            format!(
                "the tool `{}` is granted read-only, so it cannot write files; a tool that writes must be installed as workspace-mutation",
                self.tool
            )
        })
    }

    /// Why this grant refuses `process.run` of `program`, as the model-facing text (and
    /// noted); `None` if it allows it.
    pub fn refuses_processes(&self, program: &str) -> Option<String> {
        (self.risk != ToolRisk::ProcessExecution).then(|| {
            self.refusals.push(format!("process.run({program:?})"));
            format!(
                "the tool `{}` is granted {}, so it cannot run programs; a tool that runs programs must be installed as process-execution",
                self.tool,
                self.risk.name()
            )
        })
    }
}

/// How instances get their memories and tables.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Allocation {
    /// Slots reserved up front and reused: the cheapest per call, but setting the pool up
    /// and tearing it down costs milliseconds; for processes that make many calls.
    Pooling,
    /// Allocated per instance: for a process that makes one call (`toolhost call`).
    OnDemand,
}

/// Problems loading a component; calls never see these (they get a `ToolResult`).
#[derive(Debug, thiserror::Error)]
pub enum RuntimeError {
    #[error("cannot configure the WebAssembly engine: {0}")]
    Engine(String),
    #[error("cannot read component {path}: {source}")]
    Read { path: PathBuf, source: std::io::Error },
    #[error("cannot load component {path}: {message}")]
    Load { path: PathBuf, message: String },
}

/// The engine, the linker with the host's imports, and the on-disk component cache.
pub struct ComponentRuntime {
    engine: Engine,
    linker: Linker<CallState>,
    cache_dir: Option<PathBuf>,
    ticker: Arc<EpochTicker>,
}

impl ComponentRuntime {
    /// A runtime for many calls (sessions, MCP, embedding): the pooling allocator, caching
    /// compiled components under `cache_dir` (none: no cache).
    pub fn new(cache_dir: Option<PathBuf>) -> Result<Arc<Self>, RuntimeError> {
        Self::with_allocation(cache_dir, Allocation::Pooling)
    }

    /// A runtime with the given instance allocation strategy.
    pub fn with_allocation(cache_dir: Option<PathBuf>, allocation: Allocation) -> Result<Arc<Self>, RuntimeError> {
        let engine = match Engine::new(&engine_config(allocation == Allocation::Pooling)) {
            Ok(engine) => engine,
            // The pooling allocator reserves address space up front; where that is refused
            // (a small `ulimit -v`), fall back to allocating on demand.
            Err(_) => Engine::new(&engine_config(false))
                .map_err(|e| RuntimeError::Engine(e.to_string()))?,
        };
        let ticker = EpochTicker::start(&engine);
        let mut linker = Linker::new(&engine);
        wasmtime_wasi::p2::add_to_linker_async(&mut linker)
            .map_err(|e| RuntimeError::Engine(e.to_string()))?;
        // Every version the host supports, side by side: their interfaces have distinct
        // names (`toolhost:tool/workspace@0.1.0`, `…@0.2.0`), and a component is linked as
        // the version whose `tool` it exports (`exports::Prepared`).
        v0_1::add_to_linker(&mut linker).map_err(|e| RuntimeError::Engine(e.to_string()))?;
        v0_2::add_to_linker(&mut linker).map_err(|e| RuntimeError::Engine(e.to_string()))?;
        Ok(Arc::new(ComponentRuntime { engine, linker, cache_dir, ticker }))
    }

    /// The engine.
    pub fn engine(&self) -> &Engine {
        &self.engine
    }

    /// Keep the epoch advancing while the returned guard lives (one per running store).
    pub(crate) fn ticking(&self) -> Ticking {
        self.ticker.enter()
    }

    /// Load the component at `path`. On a warm start neither its bytes nor its compilation
    /// are touched: its cache key comes from a stamp (path, size, mtime), its definition from
    /// the cache, and it is prepared on its first call.
    pub async fn load(self: &Arc<Self>, path: &Path) -> Result<ComponentTool, RuntimeError> {
        let read = || std::fs::read(path).map_err(|source| RuntimeError::Read { path: path.to_path_buf(), source });
        let stamped = cache::stamped_key(&self.engine, self.cache_dir.as_deref(), path);
        if let Some(key) = &stamped {
            if let Some(definition) = cache::load_definition(self.cache_dir.as_deref(), key) {
                let source = Source { path: path.to_path_buf(), key: key.clone(), bytes: None };
                return Ok(ComponentTool::lazy(self.clone(), source, definition));
            }
        }
        let bytes = read()?;
        self.load_bytes(path, &bytes).await
    }

    /// Load a component embedded in the binary: `name` names it in errors, `sha256` is the
    /// digest of `bytes` worked out at build time, so a warm start neither hashes nor
    /// compiles it (its definition and compilation are cached under that digest).
    pub async fn load_embedded(
        self: &Arc<Self>,
        name: &str,
        bytes: &'static [u8],
        sha256: &str,
    ) -> Result<ComponentTool, RuntimeError> {
        let path = PathBuf::from(format!("<embedded>/{name}.wasm"));
        let key = cache::key_from_digest(&self.engine, sha256);
        self.load_keyed(path, ComponentBytes::Static(bytes), key).await
    }

    /// Load a component from bytes whose SHA-256 (hex) the caller has just verified (an
    /// installed tool's pin): they are not hashed again.
    pub async fn load_pinned(self: &Arc<Self>, path: &Path, bytes: Arc<[u8]>, sha256: &str) -> Result<ComponentTool, RuntimeError> {
        let key = cache::key_from_digest(&self.engine, sha256);
        self.load_keyed(path.to_path_buf(), ComponentBytes::Shared(bytes), key).await
    }

    /// Load a component from its bytes; `path` names it in errors and stamps. On a warm start
    /// the definition comes from the cache and the component is prepared on first call.
    pub async fn load_bytes(
        self: &Arc<Self>,
        path: &Path,
        bytes: &[u8],
    ) -> Result<ComponentTool, RuntimeError> {
        let key = cache::cache_key(&self.engine, bytes);
        cache::save_stamp(&self.engine, self.cache_dir.as_deref(), path, &key);
        self.load_keyed(path.to_path_buf(), ComponentBytes::Shared(Arc::from(bytes)), key).await
    }

    /// Load a component whose cache key is known: from the cached definition (prepared on
    /// its first call), or compiled and described now.
    async fn load_keyed(self: &Arc<Self>, path: PathBuf, bytes: ComponentBytes, key: String) -> Result<ComponentTool, RuntimeError> {
        let load_err = |message: String| RuntimeError::Load { path: path.clone(), message };
        if let Some(definition) = cache::load_definition(self.cache_dir.as_deref(), &key) {
            let source = Source { path: path.clone(), key, bytes: Some(bytes) };
            return Ok(ComponentTool::lazy(self.clone(), source, definition));
        }
        let pre = self.prepare(bytes.as_ref(), &key).map_err(load_err)?;
        let source = Source { path: path.clone(), key: key.clone(), bytes: Some(bytes) };
        let tool = ComponentTool::describe(self.clone(), source, pre).await.map_err(|e| load_err(e.to_string()))?;
        cache::save_definition(self.cache_dir.as_deref(), &key, tool.definition_ref());
        Ok(tool)
    }

    /// Prepare a component from its cached compilation, or from its bytes.
    pub(crate) fn prepare_source(&self, source: &Source) -> Result<exports::Prepared, String> {
        if let Some(bytes) = &source.bytes {
            return self.prepare(bytes.as_ref(), &source.key);
        }
        if let Some(component) = self.cache_dir.as_deref().and_then(|dir| cache::deserialize_cached(&self.engine, dir, &source.key)) {
            return self.link(&component);
        }
        let bytes = std::fs::read(&source.path).map_err(|e| format!("cannot read {}: {e}", source.path.display()))?;
        self.prepare(&bytes, &source.key)
    }

    /// Compile (or deserialise) a component whose cache key is `key`, and link it.
    pub(crate) fn prepare(&self, bytes: &[u8], key: &str) -> Result<exports::Prepared, String> {
        let component: Component = cache::load_or_compile(&self.engine, bytes, key, self.cache_dir.as_deref())
            .map_err(|e| e.to_string())?;
        self.link(&component)
    }

    fn link(&self, component: &Component) -> Result<exports::Prepared, String> {
        let pre = self.linker.instantiate_pre(component).map_err(|e| format!("{e:#}"))?;
        exports::Prepared::new(pre)
    }
}

/// Where a component comes from: its file, its cache key, and its bytes when they were
/// already read.
pub struct Source {
    path: PathBuf,
    key: String,
    bytes: Option<ComponentBytes>,
}

/// A component's bytes: embedded in the binary, or read from a file.
#[derive(Clone)]
pub enum ComponentBytes {
    /// Embedded at build time.
    Static(&'static [u8]),
    /// Read at run time.
    Shared(Arc<[u8]>),
}

impl AsRef<[u8]> for ComponentBytes {
    fn as_ref(&self) -> &[u8] {
        match self {
            ComponentBytes::Static(b) => b,
            ComponentBytes::Shared(b) => b,
        }
    }
}

fn engine_config(pooling: bool) -> Config {
    let mut config = Config::new();
    config.epoch_interruption(true);
    config.wasm_component_model(true);
    if pooling {
        let mut pool = PoolingAllocationConfig::default();
        pool.total_component_instances(128)
            .total_core_instances(512)
            .total_memories(256)
            .total_tables(512)
            .max_memory_size(MAX_STORE_MEMORY);
        // Where the kernel can tell which pages a call dirtied (PAGEMAP_SCAN, Linux ≥ 6.7),
        // reset those with memset instead of unmapping the slot: the next call finds its
        // pages resident (no faults, no TLB shootdowns). In-process `list`: 63 → 40 µs.
        if PoolingAllocationConfig::is_pagemap_scan_available() {
            pool.pagemap_scan(wasmtime::Enabled::Yes)
                .linear_memory_keep_resident(KEEP_RESIDENT_BYTES)
                .table_keep_resident(KEEP_RESIDENT_BYTES);
        }
        config.allocation_strategy(InstanceAllocationStrategy::Pooling(pool));
    }
    config
}

/// Advance the engine's epoch every [`EPOCH_TICK`] until the engine is dropped.
/// Advances the engine's epoch every [`EPOCH_TICK`] while at least one store is running,
/// and sleeps while none is: an idle server (MCP, session) costs no wake-ups.
pub(crate) struct EpochTicker {
    running: std::sync::Mutex<usize>,
    wake: std::sync::Condvar,
}

/// Held by every running store's data: while one exists, the epoch advances.
pub(crate) struct Ticking(Arc<EpochTicker>);

impl Drop for Ticking {
    fn drop(&mut self) {
        let mut running = self.0.running.lock().unwrap_or_else(|e| e.into_inner());
        *running = running.saturating_sub(1);
    }
}

impl EpochTicker {
    /// Start the ticker thread for `engine`; it ends when the engine is dropped.
    fn start(engine: &Engine) -> Arc<Self> {
        let ticker = Arc::new(EpochTicker { running: std::sync::Mutex::new(0), wake: std::sync::Condvar::new() });
        let weak = engine.weak();
        let this = ticker.clone();
        std::thread::Builder::new()
            .name("toolhost-epoch".into())
            .spawn(move || loop {
                {
                    let mut running = this.running.lock().unwrap_or_else(|e| e.into_inner());
                    while *running == 0 {
                        // Wake now and then only to notice that the engine is gone.
                        running = this
                            .wake
                            .wait_timeout(running, Duration::from_secs(1))
                            .unwrap_or_else(|e| e.into_inner())
                            .0;
                        if weak.upgrade().is_none() {
                            return;
                        }
                    }
                }
                let Some(engine) = weak.upgrade() else { return };
                engine.increment_epoch();
                drop(engine);
                std::thread::sleep(EPOCH_TICK);
            })
            .expect("spawning the epoch thread");
        ticker
    }

    /// A store starts running: keep the epoch advancing until the guard is dropped.
    pub(crate) fn enter(self: &Arc<Self>) -> Ticking {
        *self.running.lock().unwrap_or_else(|e| e.into_inner()) += 1;
        self.wake.notify_all();
        Ticking(self.clone())
    }

    /// Stores running now.
    #[cfg(test)]
    fn running(&self) -> usize {
        *self.running.lock().unwrap()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_epoch_ticks_only_while_a_store_runs() {
        let engine = Engine::default();
        let ticker = EpochTicker::start(&engine);
        assert_eq!(ticker.running(), 0);
        let a = ticker.enter();
        let b = ticker.enter();
        assert_eq!(ticker.running(), 2);
        drop(a);
        assert_eq!(ticker.running(), 1);
        drop(b);
        assert_eq!(ticker.running(), 0);
    }
}
