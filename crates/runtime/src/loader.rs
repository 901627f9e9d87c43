//! A component loaded as a tool: [`ComponentRuntime`]'s ways to turn a component file, its
//! bytes or an installed pin into a [`ComponentTool`] (from the cache when it remembers the
//! definition, else compiled and described now), and [`ComponentRuntime::inspect`], which
//! checks an unknown component ([`crate::validate`]) before it describes itself.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use wasmtime::component::Component;

use crate::cache;
use crate::component_tool::ComponentTool;
use crate::engine::{ComponentRuntime, RuntimeError};
use crate::source::{ComponentBytes, Source};
use crate::validate::{Facts, InvalidComponent, check_component, check_header};

/// A component that passed [`ComponentRuntime::inspect`]: loaded, with its facts.
pub struct Inspected {
    /// The loaded tool (its definition from `describe`).
    pub tool: ComponentTool,
    /// The `toolhost:tool` version it targets.
    pub wit_version: String,
    /// Every import, by name.
    pub imports: Vec<String>,
    /// Every export, by name.
    pub exports: Vec<String>,
    /// SHA-256 of its bytes (hex).
    pub sha256: String,
}

impl ComponentRuntime {
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

    /// Check that `bytes` (named `path`) are a tool component this host can run, compile it
    /// (cached), and ask it to describe itself; the definition is checked
    /// ([`crate::definition::check_definition`], with no id taken: the caller knows which are)
    /// before anything else reads it.
    pub async fn inspect(
        self: &Arc<Self>,
        path: &Path,
        bytes: Arc<[u8]>,
    ) -> Result<Inspected, InvalidComponent> {
        check_header(&bytes)?;
        let key = cache::cache_key(&self.engine, &bytes);
        let sha256 = key.split('-').next().unwrap_or_default().to_string();
        let component: Component = self
            .compile(path, &bytes, &key)
            .map_err(|e| InvalidComponent::Compile(format!("{e:#}")))?;
        let Facts { imports, exports, wit_version } = check_component(&self.engine, &component)?;
        let pre = self.link(&component).map_err(|e| InvalidComponent::Link(e.to_string()))?;
        let source = Source {
            path: path.to_path_buf(),
            key: key.clone(),
            bytes: Some(ComponentBytes::Shared(bytes)),
            pinned: None,
        };
        let tool = ComponentTool::describe(self.clone(), source, pre).await?;
        cache::save_definition(self.cache_dir.as_deref(), &key, tool.definition_ref());
        Ok(Inspected { tool, wit_version, imports, exports, sha256 })
    }
}
