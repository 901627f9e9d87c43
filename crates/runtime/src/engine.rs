//! The engine of the process and the components it loads: a [`ComponentRuntime`] holds the
//! one async `wasmtime::Engine` (epoch interruption; the pooling allocator for long-running
//! servers, [`Allocation`]), the linker with every WIT version's imports, and the component
//! cache, and prepares a compiled component for its calls (loading one as a tool is
//! `loader`'s).

use std::path::{Path, PathBuf};
use std::sync::Arc;

use wasmtime::component::{Component, Linker};
use wasmtime::{Config, Engine, InstanceAllocationStrategy, PoolingAllocationConfig};

use crate::cache;
use crate::epoch::{EpochTicker, Ticking};
use crate::exports;
use crate::host::CallState;
use crate::source::Source;
use crate::wit;

/// Linear memory one call's store may grow to. A guest that asks for more gets a failed
/// allocation (and, for Rust guests, a trap), never the host's memory.
pub const MAX_STORE_MEMORY: usize = 512 << 20;

/// Bytes of a pooled memory (and table) kept resident between calls, reset in place.
pub const KEEP_RESIDENT_BYTES: usize = 1 << 20;

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

/// Why a component could not be prepared to run (compiled or deserialised, and linked); part
/// of a [`RuntimeError::Load`] or of the failure of the call that prepared it.
#[derive(Debug, thiserror::Error)]
pub enum PrepareError {
    /// Its file could not be read.
    #[error("cannot read {}: {source}", path.display())]
    Read { path: PathBuf, source: std::io::Error },
    /// It does not compile (or its cached compilation does not deserialise).
    #[error("{0}")]
    Compile(wasmtime::Error),
    /// Its imports cannot be linked.
    #[error("{0:#}")]
    Link(wasmtime::Error),
    /// An installed component's file no longer has the SHA-256 pinned at install.
    #[error(
        "its file {} no longer matches the SHA-256 pinned at install (pinned {pinned}, now {found}); it was changed after it was installed — reinstall it with `toolhost tool add` if you trust the new bytes",
        path.display()
    )]
    Unpinned { path: PathBuf, pinned: String, found: String },
    /// It exports no `tool` interface of a version the host links (the newest version's
    /// complaint).
    #[error("{0:#}")]
    NoTool(wasmtime::Error),
}

/// What a runtime's owner is told before a compilation the cache cannot spare: the
/// component's path (`<embedded>/<id>.wasm` for a built-in) and its size in bytes.
pub type CompileNotice = Box<dyn Fn(&Path, usize) + Send + Sync>;

/// Bytes of component Cranelift compiles per second, roughly, on a 2-core machine: what
/// [`compile_estimate`] divides by. Measured: the six file tools (3.8 MB) in 1.5 to 3.6 s, a
/// 2.2 MB Rust component in about 1 s idle, an 18 MB Python one (mostly CPython) in 43 s.
const COMPILE_BYTES_PER_SEC: usize = 1_000_000;

/// Roughly how long compiling `bytes` of component takes here (at least a second).
pub fn compile_estimate(bytes: usize) -> std::time::Duration {
    std::time::Duration::from_secs((bytes / COMPILE_BYTES_PER_SEC).max(1) as u64)
}

/// "compiling NAME (N.N MB) for this machine, once (about N s)": what a terminal is told
/// before a component is compiled (`conformance` shows it as its progress line). NAME is the
/// file name, made safe to print.
pub fn compiling_text(what: &Path, bytes: usize) -> String {
    let name = what.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    format!(
        "compiling {} ({:.1} MB) for this machine, once (about {} s)",
        toolhost_core::display::terminal_line(&name),
        bytes as f64 / 1e6,
        compile_estimate(bytes).as_secs()
    )
}

/// The engine, the linker with the host's imports, and the on-disk component cache.
pub struct ComponentRuntime {
    pub(crate) engine: Engine,
    linker: Linker<CallState>,
    pub(crate) cache_dir: Option<PathBuf>,
    ticker: Arc<EpochTicker>,
    compile_notice: std::sync::OnceLock<CompileNotice>,
}

impl ComponentRuntime {
    /// A runtime for many calls (sessions, MCP, embedding): the pooling allocator, caching
    /// compiled components under `cache_dir` (none: no cache).
    pub fn new(cache_dir: Option<PathBuf>) -> Result<Arc<Self>, RuntimeError> {
        Self::with_allocation(cache_dir, Allocation::Pooling)
    }

    /// A runtime with the given instance allocation strategy.
    pub fn with_allocation(
        cache_dir: Option<PathBuf>,
        allocation: Allocation,
    ) -> Result<Arc<Self>, RuntimeError> {
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
        // Every version the host supports, side by side.
        wit::add_to_linker(&mut linker).map_err(|e| RuntimeError::Engine(e.to_string()))?;
        Ok(Arc::new(ComponentRuntime {
            engine,
            linker,
            cache_dir,
            ticker,
            compile_notice: std::sync::OnceLock::new(),
        }))
    }

    /// Call `notice` before each compilation the cache cannot spare (the first notice set
    /// stays; later ones are ignored).
    pub fn on_compile(&self, notice: CompileNotice) {
        let _ = self.compile_notice.set(notice);
    }

    /// Whether the compilation of a component whose SHA-256 (hex) is `sha256` is cached.
    pub fn is_cached(&self, sha256: &str) -> bool {
        let key = cache::key_from_digest(&self.engine, sha256);
        self.cache_dir.as_deref().is_some_and(|dir| cache::is_compiled(dir, &key))
    }

    /// `bytes` (the component at `what`) compiled: from the cache when it holds them, else
    /// compiled and cached, the notice told first.
    pub(crate) fn compile(
        &self,
        what: &Path,
        bytes: &[u8],
        key: &str,
    ) -> wasmtime::Result<Component> {
        if let Some(notice) = self.compile_notice.get()
            && !self.cache_dir.as_deref().is_some_and(|dir| cache::is_compiled(dir, key))
        {
            notice(what, bytes.len());
        }
        cache::load_or_compile(&self.engine, bytes, key, self.cache_dir.as_deref())
    }

    /// The engine.
    pub fn engine(&self) -> &Engine {
        &self.engine
    }

    /// Keep the epoch advancing while the returned guard lives (one per running store).
    pub(crate) fn ticking(&self) -> Ticking {
        self.ticker.enter()
    }

    /// Prepare a component from its cached compilation, or from its bytes.
    pub(crate) fn prepare_source(
        &self,
        source: &Source,
    ) -> Result<exports::Prepared, PrepareError> {
        if let Some(bytes) = &source.bytes {
            return self.prepare(&source.path, bytes.as_ref(), &source.key);
        }
        if let Some(component) = self
            .cache_dir
            .as_deref()
            .and_then(|dir| cache::deserialize_cached(&self.engine, dir, &source.key))
        {
            return self.link(&component);
        }
        let bytes = std::fs::read(&source.path)
            .map_err(|e| PrepareError::Read { path: source.path.clone(), source: e })?;
        if let Some(pinned) = &source.pinned {
            let found = toolhost_core::observations::sha256_hex(&bytes);
            if &found != pinned {
                return Err(PrepareError::Unpinned {
                    path: source.path.clone(),
                    pinned: pinned.clone(),
                    found,
                });
            }
        }
        self.prepare(&source.path, &bytes, &source.key)
    }

    /// Compile (or deserialise) the component at `what`, whose cache key is `key`, and link it.
    pub(crate) fn prepare(
        &self,
        what: &Path,
        bytes: &[u8],
        key: &str,
    ) -> Result<exports::Prepared, PrepareError> {
        let component: Component = self.compile(what, bytes, key).map_err(PrepareError::Compile)?;
        self.link(&component)
    }

    /// Link a compiled component as the newest version whose `tool` it exports.
    pub(crate) fn link(&self, component: &Component) -> Result<exports::Prepared, PrepareError> {
        let pre = self.linker.instantiate_pre(component).map_err(PrepareError::Link)?;
        exports::Prepared::new(pre).map_err(PrepareError::NoTool)
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
