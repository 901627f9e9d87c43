//! The engine of the process and the components it loads: a [`ComponentRuntime`] holds the
//! one async `wasmtime::Engine` (epoch interruption; the pooling allocator for long-running
//! servers, [`Allocation`]), the linker with every WIT version's imports, and the component
//! cache, and turns a component file or its bytes into a [`ComponentTool`].

use std::path::{Path, PathBuf};
use std::sync::Arc;

use wasmtime::component::{Component, Linker};
use wasmtime::{Config, Engine, InstanceAllocationStrategy, PoolingAllocationConfig};

use crate::cache;
use crate::component_tool::ComponentTool;
use crate::epoch::{EpochTicker, Ticking};
use crate::exports;
use crate::host::CallState;
use crate::source::{ComponentBytes, Source};
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

    /// Load the component at `path`. On a warm start neither its bytes nor its compilation
    /// are touched: its cache key comes from a stamp (path, size, mtime), its definition from
    /// the cache, and it is prepared on its first call.
    pub async fn load(self: &Arc<Self>, path: &Path) -> Result<ComponentTool, RuntimeError> {
        let read = || {
            std::fs::read(path)
                .map_err(|source| RuntimeError::Read { path: path.to_path_buf(), source })
        };
        let stamped = cache::stamped_key(&self.engine, self.cache_dir.as_deref(), path);
        if let Some(key) = &stamped
            && let Some(definition) = cache::load_definition(self.cache_dir.as_deref(), key)
        {
            let source =
                Source { path: path.to_path_buf(), key: key.clone(), bytes: None, pinned: None };
            return Ok(ComponentTool::lazy(self.clone(), source, definition));
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
    pub async fn load_pinned(
        self: &Arc<Self>,
        path: &Path,
        bytes: Arc<[u8]>,
        sha256: &str,
    ) -> Result<ComponentTool, RuntimeError> {
        let key = cache::key_from_digest(&self.engine, sha256);
        self.load_keyed(path.to_path_buf(), ComponentBytes::Shared(bytes), key).await
    }

    /// An installed component whose pin the caller vouches for without reading its file (its
    /// stamp is unchanged since it was hashed): from its cached definition and compilation,
    /// deserialised on its first call — or `None` when either is not cached (the caller then
    /// reads, verifies and [`ComponentRuntime::load_pinned`]s it). Should the compilation be
    /// gone by the first call, the file is read then and must still hash to `sha256`.
    pub fn load_pinned_lazily(
        self: &Arc<Self>,
        path: &Path,
        sha256: &str,
    ) -> Option<ComponentTool> {
        let key = cache::key_from_digest(&self.engine, sha256);
        let dir = self.cache_dir.as_deref()?;
        if !cache::is_compiled(dir, &key) {
            return None;
        }
        let definition = cache::load_definition(Some(dir), &key)?;
        let source =
            Source { path: path.to_path_buf(), key, bytes: None, pinned: Some(sha256.to_string()) };
        Some(ComponentTool::lazy(self.clone(), source, definition))
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
    async fn load_keyed(
        self: &Arc<Self>,
        path: PathBuf,
        bytes: ComponentBytes,
        key: String,
    ) -> Result<ComponentTool, RuntimeError> {
        let load_err = |message: String| RuntimeError::Load { path: path.clone(), message };
        if let Some(definition) = cache::load_definition(self.cache_dir.as_deref(), &key) {
            let source = Source { path: path.clone(), key, bytes: Some(bytes), pinned: None };
            return Ok(ComponentTool::lazy(self.clone(), source, definition));
        }
        let pre = self.prepare(&path, bytes.as_ref(), &key).map_err(|e| load_err(e.to_string()))?;
        let source =
            Source { path: path.clone(), key: key.clone(), bytes: Some(bytes), pinned: None };
        let tool = ComponentTool::describe(self.clone(), source, pre)
            .await
            .map_err(|e| load_err(e.to_string()))?;
        cache::save_definition(self.cache_dir.as_deref(), &key, tool.definition_ref());
        Ok(tool)
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
