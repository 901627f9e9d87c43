//! The registry of built-in tools: the file-tool components (embedded in the binary by
//! `build.rs`, or loaded from `TOOLHOST_COMPONENTS`), then bash (toolhost's own or Anthropic's)
//! and OpenAI's shell, then the workspace-tool, on-demand and agent-only components a toolset
//! names.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use toolhost_core::registry::ToolRegistryBuilder;
use toolhost_runtime::{ComponentRuntime, ComponentTool, RuntimeError};

use crate::components::{
    AGENT_ONLY_CRATES, ASKS_BEFORE_EACH_RUN, BUILTIN_COMPONENT_CRATES, ON_DEMAND_FILE_TOOL_CRATES,
    WORKSPACE_COMPONENT_CRATES,
};
use crate::toolset::BashShape;

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

/// The workspace tools (components too), by id: registered only when a toolset names them.
pub const WORKSPACE_COMPONENTS: &[&str] = &WORKSPACE_IDS;

const WORKSPACE_IDS: [&str; WORKSPACE_COMPONENT_CRATES.len()] = {
    let mut ids = [""; WORKSPACE_COMPONENT_CRATES.len()];
    let mut i = 0;
    while i < ids.len() {
        ids[i] = WORKSPACE_COMPONENT_CRATES[i].1;
        i += 1;
    }
    ids
};

/// The file tools offered only when a toolset names them, by id (`apply_patch`).
pub const ON_DEMAND_FILE_TOOLS: &[&str] = &ON_DEMAND_IDS;

const ON_DEMAND_IDS: [&str; ON_DEMAND_FILE_TOOL_CRATES.len()] = {
    let mut ids = [""; ON_DEMAND_FILE_TOOL_CRATES.len()];
    let mut i = 0;
    while i < ids.len() {
        ids[i] = ON_DEMAND_FILE_TOOL_CRATES[i].1;
        i += 1;
    }
    ids
};

/// The tools whose reads count as "the model read this file"
/// (docs/contract.md#read-before-edit): `read`, and the text editor, whose `view` is Claude's
/// read. Other tools that open files (grep on a single file, third-party tools) leave the
/// observation table alone.
pub const READING_TOOLS: &[&str] = &["read", "str_replace_based_edit_tool"];

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

/// The workspace tools, on-demand file tools and agent-only components `on_demand` names, in
/// registry order (other ids are left to the caller's toolset check).
fn chosen<'a>(on_demand: &'a [&'a str]) -> impl Iterator<Item = &'static str> + 'a {
    WORKSPACE_COMPONENTS
        .iter()
        .chain(ON_DEMAND_FILE_TOOLS)
        .copied()
        .chain(AGENT_ONLY_CRATES.iter().map(|(_, key)| *key))
        .filter(|id| on_demand.contains(id))
}

/// Where the built-in components come from.
enum Origin<'a> {
    /// `<dir>/<id>.wasm` (`TOOLHOST_COMPONENTS`).
    Dir(&'a Path),
    /// The copies `build.rs` embedded.
    Embedded,
}

impl Origin<'_> {
    /// The component `id`, loaded and marked as a built-in.
    async fn load(
        &self,
        runtime: &Arc<ComponentRuntime>,
        id: &str,
    ) -> Result<Arc<ComponentTool>, BuiltinError> {
        let tool = match self {
            Origin::Dir(dir) => {
                let path = dir.join(format!("{id}.wasm"));
                if !path.is_file() {
                    return Err(BuiltinError::ComponentMissing(path));
                }
                runtime.load(&path).await?
            }
            Origin::Embedded => {
                let Some((_, bytes, sha256)) = embedded::EMBEDDED.iter().find(|(e, ..)| *e == id)
                else {
                    return Err(BuiltinError::ComponentMissing(PathBuf::from(format!(
                        "<embedded>/{id}.wasm"
                    ))));
                };
                runtime.load_embedded(id, bytes, sha256).await?
            }
        };
        let tool = tool.record_reads(READING_TOOLS.contains(&id)).parses_own_input();
        let tool =
            if ASKS_BEFORE_EACH_RUN.contains(&id) { tool.asks_before_each_run() } else { tool };
        let tool = if WORKSPACE_COMPONENT_CRATES.iter().any(|(_, w)| *w == id) {
            tool.within_workspace()
        } else {
            tool
        };
        // OpenAI's toolset reads through `shell`; its patches prove what they saw by context.
        let tool = if AGENT_ONLY_CRATES.iter().any(|(_, key)| *key == id) {
            tool.edits_unread()
        } else {
            tool
        };
        Ok(Arc::new(tool))
    }

    /// The file tools, bash, then the workspace and on-demand tools `on_demand` names.
    async fn registry(
        &self,
        runtime: &Arc<ComponentRuntime>,
        on_demand: &[&str],
        bash: BashShape,
    ) -> Result<ToolRegistryBuilder, BuiltinError> {
        let mut builder = ToolRegistryBuilder::new();
        for id in BUILTIN_COMPONENTS {
            builder.register_dyn(self.load(runtime, id).await?);
        }
        match bash {
            BashShape::Toolhost => builder.register(crate::bash::Bash),
            BashShape::Anthropic => builder.register(crate::bash::anthropic::AnthropicBash),
        };
        builder.register(crate::bash::openai_shell::OpenAiShell);
        for id in chosen(on_demand) {
            builder.register_dyn(self.load(runtime, id).await?);
        }
        Ok(builder)
    }
}

/// Bytes of the embedded built-ins this toolset loads (the file tools, then the workspace
/// and on-demand tools `on_demand` names) whose compilation `runtime` has not cached: what a first start
/// compiles. 0 with `TOOLHOST_COMPONENTS` (those files are told of one by one).
pub fn uncompiled_bytes(runtime: &ComponentRuntime, on_demand: &[&str]) -> usize {
    if components_override().is_some() {
        return 0;
    }
    BUILTIN_COMPONENTS
        .iter()
        .copied()
        .chain(chosen(on_demand))
        .filter_map(|id| embedded::EMBEDDED.iter().find(|(e, ..)| *e == id))
        .filter(|(_, _, sha256)| !runtime.is_cached(sha256))
        .map(|(_, bytes, _)| bytes.len())
        .sum()
}

/// Register the built-in tools from `dir` (`<dir>/<id>.wasm`): the file tools, bash, then each
/// workspace or on-demand tool `on_demand` names.
pub async fn builtin_registry_from(
    runtime: &Arc<ComponentRuntime>,
    dir: &Path,
    on_demand: &[&str],
    bash: BashShape,
) -> Result<ToolRegistryBuilder, BuiltinError> {
    Origin::Dir(dir).registry(runtime, on_demand, bash).await
}

/// Register the built-in tools embedded in the binary (or, with `TOOLHOST_COMPONENTS`, from
/// that directory): the file tools, bash, then each workspace or on-demand tool `on_demand`
/// names. More
/// tools (installed ones) may be registered after them.
pub async fn builtin_registry(
    runtime: &Arc<ComponentRuntime>,
    on_demand: &[&str],
    bash: BashShape,
) -> Result<ToolRegistryBuilder, BuiltinError> {
    match components_override() {
        Some(dir) => Origin::Dir(&dir).registry(runtime, on_demand, bash).await,
        None => Origin::Embedded.registry(runtime, on_demand, bash).await,
    }
}
