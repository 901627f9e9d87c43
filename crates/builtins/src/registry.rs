//! The registry of built-in tools: the file-tool components (embedded in the binary by
//! `build.rs`, or loaded from `TOOLHOST_COMPONENTS`), then bash.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use toolhost_core::registry::ToolRegistryBuilder;
use toolhost_runtime::{ComponentRuntime, RuntimeError};

use crate::components::BUILTIN_COMPONENT_CRATES;

/// The embedded built-in components (`build.rs`): (tool id, bytes, SHA-256 in hex).
mod embedded {
    include!(concat!(env!("OUT_DIR"), "/embedded.rs"));
}

/// The built-in tools that are components, by id, in registry order.
pub const BUILTIN_COMPONENTS: &[&str] = &BUILTIN_IDS;

const BUILTIN_IDS: [&str; BUILTIN_COMPONENT_CRATES.len()] = {
    let mut ids = [""; BUILTIN_COMPONENT_CRATES.len()];
    let mut i = 0;
    while i < ids.len() {
        ids[i] = BUILTIN_COMPONENT_CRATES[i].1;
        i += 1;
    }
    ids
};

/// The one tool whose reads count as "the model read this file"
/// (docs/contract.md#read-before-edit). Other tools that open files (grep on a single file,
/// third-party tools) leave the observation table alone.
pub const READ_TOOL: &str = "read";

/// The directory `TOOLHOST_COMPONENTS` names, if set: the built-in components are loaded from
/// `<dir>/<id>.wasm` instead of the copies embedded in the binary (for development).
pub fn components_override() -> Option<PathBuf> {
    std::env::var_os("TOOLHOST_COMPONENTS").filter(|d| !d.is_empty()).map(PathBuf::from)
}

/// Why the built-in registry could not be built.
#[derive(Debug, thiserror::Error)]
pub enum BuiltinError {
    #[error(
        "the built-in tool component {0} was not found (TOOLHOST_COMPONENTS names a directory without it)"
    )]
    ComponentMissing(PathBuf),
    #[error(transparent)]
    Runtime(#[from] RuntimeError),
}

/// Register the built-in tools: each component of [`BUILTIN_COMPONENTS`] from `dir`.
pub async fn builtin_registry_from(
    runtime: &Arc<ComponentRuntime>,
    dir: &Path,
) -> Result<ToolRegistryBuilder, BuiltinError> {
    let mut builder = ToolRegistryBuilder::new();
    for id in BUILTIN_COMPONENTS {
        let path = dir.join(format!("{id}.wasm"));
        if !path.is_file() {
            return Err(BuiltinError::ComponentMissing(path));
        }
        let tool = runtime.load(&path).await?.record_reads(*id == READ_TOOL).checks_own_input();
        builder.register_dyn(Arc::new(tool));
    }
    builder.register(crate::bash::Bash);
    Ok(builder)
}

/// Register the built-in tools embedded in the binary (or, with `TOOLHOST_COMPONENTS`, from
/// that directory), then bash. More tools (installed ones) may be registered after them.
pub async fn builtin_registry(
    runtime: &Arc<ComponentRuntime>,
) -> Result<ToolRegistryBuilder, BuiltinError> {
    if let Some(dir) = components_override() {
        return builtin_registry_from(runtime, &dir).await;
    }
    let mut builder = ToolRegistryBuilder::new();
    for (id, bytes, sha256) in embedded::EMBEDDED {
        let tool = runtime
            .load_embedded(id, bytes, sha256)
            .await?
            .record_reads(*id == READ_TOOL)
            .checks_own_input();
        builder.register_dyn(Arc::new(tool));
    }
    builder.register(crate::bash::Bash);
    Ok(builder)
}
