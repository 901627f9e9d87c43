//! [`check_component`]: a `.wasm` file read and checked as a tool, into a [`Candidate`].

use std::path::{Path, PathBuf};
use std::sync::Arc;

use toolhost_core::tool::ToolDefinition;
use toolhost_runtime::validate::InvalidComponent;
use toolhost_runtime::{ComponentRuntime, ComponentTool};

use crate::rules::{self, DefinitionError, Taken};

/// Why a file cannot be used as a tool.
#[derive(Debug, thiserror::Error)]
pub enum PluginError {
    #[error("cannot read {}: {source}", path.display())]
    Read { path: PathBuf, source: std::io::Error },
    #[error("{} is not a toolhost tool component: {source}", path.display())]
    Invalid { path: PathBuf, source: InvalidComponent },
    #[error("{} is refused: {source}", path.display())]
    Definition { path: PathBuf, source: DefinitionError },
}

/// A component that passed every check, ready to be shown, installed or loaded.
pub struct Candidate {
    /// Where it was read from.
    pub path: PathBuf,
    /// Its bytes.
    pub bytes: Arc<[u8]>,
    /// SHA-256 of the bytes (hex).
    pub sha256: String,
    /// The `toolhost:tool` version it targets.
    pub wit_version: String,
    /// The loaded tool.
    pub tool: ComponentTool,
}

impl Candidate {
    /// Its definition (from `describe`).
    pub fn definition(&self) -> &ToolDefinition {
        toolhost_core::tool::DynTool::definition(&self.tool)
    }
}

/// Read `path` and check it as a tool: a component the runtime can run, whose definition
/// meets [`rules::check_definition`] with the ids `taken` (ignoring case).
pub async fn check_component(
    runtime: &Arc<ComponentRuntime>,
    path: &Path,
    taken: &[Taken<'_>],
) -> Result<Candidate, PluginError> {
    let bytes: Arc<[u8]> = std::fs::read(path)
        .map_err(|source| PluginError::Read { path: path.to_path_buf(), source })?
        .into();
    let inspected = runtime.inspect(path, bytes.clone()).await.map_err(|source| match source {
        InvalidComponent::Definition(source) => {
            PluginError::Definition { path: path.to_path_buf(), source }
        }
        source => PluginError::Invalid { path: path.to_path_buf(), source },
    })?;
    let definition = toolhost_core::tool::DynTool::definition(&inspected.tool);
    rules::check_definition(definition, taken)
        .map_err(|source| PluginError::Definition { path: path.to_path_buf(), source })?;
    Ok(Candidate {
        path: path.to_path_buf(),
        bytes,
        sha256: inspected.sha256,
        wit_version: inspected.wit_version,
        tool: inspected.tool,
    })
}
