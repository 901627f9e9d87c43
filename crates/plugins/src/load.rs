//! Loading tools for a session: the installed set ([`load_installed`], each held to its pin
//! and its granted risk) and `--tool` paths for one run ([`load_uninstalled`]).

use std::path::PathBuf;
use std::sync::Arc;

use toolhost_core::tool::ToolRisk;
use toolhost_runtime::{ComponentRuntime, ComponentTool};

use crate::check::{PluginError, check_component};
use crate::installed::{InstalledSet, InstalledSetError, InstalledTool, NotLoaded, Verified};
use crate::rules::{self, Taken};

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
    store: &InstalledSet,
    builtin_ids: &[&str],
) -> Result<Vec<Installed>, InstalledSetError> {
    let mut out = Vec::new();
    let mut loaded_ids: Vec<String> = Vec::new();
    let installed = store.list()?;
    let mut stamps = store.stamps();
    for tool in installed.iter().cloned() {
        let path = store.file_of(&tool);
        // An unchanged file costs a stat: its definition and compilation come from the cache,
        // deserialised only if the tool is called. Otherwise it is read, hashed and loaded.
        let lazily = match store.verify(&tool, &mut stamps) {
            Ok(Verified::Unchanged) => runtime.load_pinned_lazily(&path, &tool.sha256).map(Ok),
            Ok(Verified::Read(bytes)) => Some(Err(bytes)),
            Err(why) => {
                out.push(Installed::Skipped(tool, why));
                continue;
            }
        };
        let component = match lazily {
            Some(Ok(component)) => Ok(component),
            Some(Err(bytes)) => runtime.load_pinned(&path, bytes, &tool.sha256).await,
            None => match store.verified_bytes(&tool) {
                Ok(bytes) => runtime.load_pinned(&path, bytes, &tool.sha256).await,
                Err(why) => {
                    out.push(Installed::Skipped(tool, why));
                    continue;
                }
            },
        };
        let loaded = match component {
            Ok(component) => {
                let def = toolhost_core::tool::DynTool::definition(&component);
                if def.id.as_str() != tool.id {
                    Err(format!("it now describes itself as `{}`, not `{}`", def.id, tool.id))
                } else {
                    let mut taken: Vec<Taken<'_>> =
                        builtin_ids.iter().map(|id| Taken::Builtin(id)).collect();
                    taken.extend(loaded_ids.iter().map(|id| Taken::Tool(id)));
                    // Its definition passed every rule when it was described (in this process
                    // or, remembered, in an earlier one): what is left is its id's place.
                    rules::check_remembered(def, &taken)
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
    store.save_stamps(stamps, &installed);
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
