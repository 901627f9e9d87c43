//! Third-party tool components: what it takes for a `.wasm` to be offered to a model, and the
//! set of installed ones.
//!
//! * [`rules`] — the rules a definition must meet (id, description, schema, risk); the one
//!   place they are written.
//! * [`installed`] — [`ToolStore`]: `<data-dir>/tools/` and `tools.json`, each component
//!   pinned by its SHA-256.
//!
//! A component flows: [`check_component`] reads it, has the runtime
//! ([`toolhost_runtime::ComponentRuntime::inspect`]) check that it is a component of a
//! supported `toolhost:tool` version importing nothing else, compile it and ask it to
//! describe itself (checking the definition: [`toolhost_runtime::definition`]), then checks
//! its id against the ids already taken ([`rules::check_definition`], the same checker). `toolhost tool add` shows the
//! [`Candidate`] to the user and records it in the [`ToolStore`]; every later session
//! [`load_installed`]s the set — each component only while its bytes match their pin, held
//! to the risk granted at install ([`toolhost_runtime::RiskGrant`]) — and `--tool` loads
//! uninstalled ones with [`load_uninstalled`].

pub mod installed;
pub mod rules;

use std::path::{Path, PathBuf};
use std::sync::Arc;

use toolhost_core::tool::{ToolDefinition, ToolRisk};
use toolhost_runtime::validate::InvalidComponent;
use toolhost_runtime::{ComponentRuntime, ComponentTool};

pub use installed::{InstalledTool, NotLoaded, StoreError, ToolStore};
pub use rules::{DefinitionError, Taken};

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

/// An installed component that is loaded, or why not.
pub enum Installed {
    /// Loaded, held to its granted risk.
    Loaded(InstalledTool, Box<ComponentTool>),
    /// Not loaded, and why.
    Skipped(InstalledTool, NotLoaded),
}

/// Load every installed component in install order: each only while its file matches its
/// pinned SHA-256 and it still meets the rules (its id distinct, ignoring case, from the
/// built-ins' and every earlier one's), held to the risk the user granted.
pub async fn load_installed(
    runtime: &Arc<ComponentRuntime>,
    store: &ToolStore,
    builtin_ids: &[&str],
) -> Result<Vec<Installed>, StoreError> {
    let mut out = Vec::new();
    let mut loaded_ids: Vec<String> = Vec::new();
    for tool in store.list()? {
        let bytes = match store.verified_bytes(&tool) {
            Ok(b) => b,
            Err(why) => {
                out.push(Installed::Skipped(tool, why));
                continue;
            }
        };
        let path = store.file_of(&tool);
        let loaded = match runtime.load_pinned(&path, bytes, &tool.sha256).await {
            Ok(component) => {
                let def = toolhost_core::tool::DynTool::definition(&component);
                if def.id.as_str() != tool.id {
                    Err(format!("it now describes itself as `{}`, not `{}`", def.id, tool.id))
                } else {
                    let mut taken: Vec<Taken<'_>> =
                        builtin_ids.iter().map(|id| Taken::Builtin(id)).collect();
                    taken.extend(loaded_ids.iter().map(|id| Taken::Tool(id)));
                    rules::check_definition(def, &taken)
                        .map(|()| component)
                        .map_err(|e| e.to_string())
                }
            }
            Err(e) => Err(e.to_string()),
        };
        out.push(match loaded {
            Ok(component) => {
                loaded_ids.push(tool.id.clone());
                let risk = tool.risk;
                Installed::Loaded(tool, Box::new(component.with_grant(risk)))
            }
            Err(why) => Installed::Skipped(tool, NotLoaded::Invalid(why)),
        });
    }
    Ok(out)
}

/// Load `paths` (`--tool`) for this run only: each checked like an install, granted its
/// declared risk, its id taken by no built-in, installed tool or earlier `--tool`.
pub async fn load_uninstalled(
    runtime: &Arc<ComponentRuntime>,
    paths: &[PathBuf],
    builtin_ids: &[&str],
    taken: &[String],
) -> Result<Vec<ComponentTool>, PluginError> {
    let mut seen: Vec<String> = taken.to_vec();
    let mut out = Vec::new();
    for path in paths {
        let mut reserved: Vec<Taken<'_>> =
            builtin_ids.iter().map(|id| Taken::Builtin(id)).collect();
        reserved.extend(seen.iter().map(|id| Taken::Tool(id)));
        let candidate = check_component(runtime, path, &reserved).await?;
        let id = candidate.definition().id.to_string();
        seen.push(id);
        let risk: ToolRisk = candidate.definition().risk;
        out.push(candidate.tool.with_grant(risk));
    }
    Ok(out)
}
