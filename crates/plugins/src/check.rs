//! [`check_component`]: a `.wasm` file read and checked as a tool, into a [`Candidate`].

use std::path::{Path, PathBuf};
use std::sync::Arc;

use toolhost_core::tool::ToolDefinition;
use toolhost_runtime::validate::InvalidComponent;
use toolhost_runtime::{ComponentRuntime, ComponentTool};

use crate::rules::{self, DefinitionError, Taken};

/// Why a file cannot be used as a tool. The text carries the reason whole, so the reason is
/// not also its `source()`: a chain printed with `{:#}` (`--tool`) says it once.
#[derive(Debug, thiserror::Error)]
pub enum PluginError {
    #[error("cannot read {}: {reason}", path.display())]
    Read { path: PathBuf, reason: std::io::Error },
    #[error("{} is not a toolhost tool component: {reason}", path.display())]
    Invalid { path: PathBuf, reason: InvalidComponent },
    #[error("{} is refused: {reason}", path.display())]
    Definition { path: PathBuf, reason: DefinitionError },
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
        .map_err(|reason| PluginError::Read { path: path.to_path_buf(), reason })?
        .into();
    let inspected = runtime.inspect(path, bytes.clone()).await.map_err(|reason| match reason {
        InvalidComponent::Definition(reason) => {
            PluginError::Definition { path: path.to_path_buf(), reason }
        }
        reason => PluginError::Invalid { path: path.to_path_buf(), reason },
    })?;
    let definition = toolhost_core::tool::DynTool::definition(&inspected.tool);
    rules::check_definition(definition, taken)
        .map_err(|reason| PluginError::Definition { path: path.to_path_buf(), reason })?;
    Ok(Candidate {
        path: path.to_path_buf(),
        bytes,
        sha256: inspected.sha256,
        wit_version: inspected.wit_version,
        tool: inspected.tool,
    })
}
