//! The built-in tools and the agents' toolsets (seed 000 §3).
//!
//! Built-in file tools are WebAssembly components that `cargo xtask build` places in a
//! `components/` directory next to the `toolhost` binary; bash lives in the host.
//! A tool joins these lists only once it has landed: no stubs are ever registered.

pub mod bash;

use std::path::{Path, PathBuf};
use std::sync::Arc;

use toolhost_core::registry::{ToolRegistry, ToolRegistryBuilder, ToolsetConfig};
use toolhost_runtime::{ComponentRuntime, RuntimeError};

/// The built-in tools that are components, by id; each is `<components-dir>/<id>.wasm`.
pub const BUILTIN_COMPONENTS: &[&str] = &["read", "write", "edit", "grep", "glob", "list"];

/// The one tool whose reads count as "the model read this file" (§7.4). Other tools that
/// open files (grep on a single file, third-party tools) leave the observation table alone.
pub const READ_TOOL: &str = "read";

/// The default agent's tools, in the order the model sees them (§3: read write edit grep
/// glob list bash; only those that have landed are listed).
pub const DEFAULT_TOOLSET: &[&str] = &["read", "write", "edit", "grep", "glob", "list", "bash"];

/// The explorer sub-agent's tools (§3: read grep glob list bash; only landed ones).
pub const EXPLORER_TOOLSET: &[&str] = &["read", "grep", "glob", "list", "bash"];

/// Which agent a toolset is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Agent {
    /// The default agent.
    Default,
    /// The read-only explorer sub-agent.
    Explorer,
}

impl Agent {
    /// This agent's toolset config.
    pub fn toolset(self) -> ToolsetConfig {
        match self {
            Agent::Default => ToolsetConfig::new(DEFAULT_TOOLSET),
            Agent::Explorer => ToolsetConfig::new(EXPLORER_TOOLSET),
        }
    }
}

/// Where the built-in components are: `$TOOLHOST_COMPONENTS`, else `components/` next to the
/// running binary or one level up (test binaries run from `target/<profile>/deps`).
pub fn components_dir() -> Option<PathBuf> {
    if let Some(dir) = std::env::var_os("TOOLHOST_COMPONENTS") {
        return Some(PathBuf::from(dir));
    }
    let exe = std::env::current_exe().ok()?;
    let exe_dir = exe.parent()?;
    [exe_dir.join("components"), exe_dir.join("../components")]
        .into_iter()
        .find(|d| d.join(format!("{}.wasm", BUILTIN_COMPONENTS[0])).is_file())
}

/// Why the built-in registry could not be built.
#[derive(Debug, thiserror::Error)]
pub enum BuiltinError {
    #[error(
        "the built-in tool components were not found; run `cargo xtask build` (or set TOOLHOST_COMPONENTS to their directory)"
    )]
    ComponentsMissing,
    #[error(transparent)]
    Runtime(#[from] RuntimeError),
}

/// Register the built-in tools: each component of [`BUILTIN_COMPONENTS`] from `dir`.
pub async fn builtin_registry_from(runtime: &Arc<ComponentRuntime>, dir: &Path) -> Result<ToolRegistry, BuiltinError> {
    let mut builder = ToolRegistryBuilder::new();
    for id in BUILTIN_COMPONENTS {
        let path = dir.join(format!("{id}.wasm"));
        if !path.is_file() {
            return Err(BuiltinError::ComponentsMissing);
        }
        let tool = runtime.load(&path).await?.record_reads(*id == READ_TOOL);
        builder.register_dyn(Arc::new(tool));
    }
    builder.register(crate::bash::Bash);
    Ok(builder.build())
}

/// Register the built-in tools from [`components_dir`].
pub async fn builtin_registry(runtime: &Arc<ComponentRuntime>) -> Result<ToolRegistry, BuiltinError> {
    let dir = components_dir().ok_or(BuiltinError::ComponentsMissing)?;
    builtin_registry_from(runtime, &dir).await
}
