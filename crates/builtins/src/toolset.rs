//! The agents' toolsets (docs/contract.md#definitions-and-the-toolset): which tools each agent
//! is offered, in the order the model sees them, or an explicit [`Selection`] (`--tools`).

use toolhost_core::registry::ToolsetConfig;
use toolhost_core::tool::ToolRisk;

/// The default agent's tools, in the order the model sees them
/// (docs/contract.md#definitions-and-the-toolset: read write edit grep glob list bash; only those
/// that have landed are listed).
pub const DEFAULT_TOOLSET: &[&str] = &["read", "write", "edit", "grep", "glob", "list", "bash"];

/// The explorer sub-agent's tools (docs/contract.md#definitions-and-the-toolset: read grep glob
/// list bash; only landed ones).
pub const EXPLORER_TOOLSET: &[&str] = &["read", "grep", "glob", "list", "bash"];

/// The workspace agent's tools after the default seven (docs/workspace-tools.md): read-only
/// inspection of the repository, Markdown and previews, then the shell and the tests, whose
/// every run is approved.
pub const WORKSPACE_TOOLSET: &[&str] = crate::registry::WORKSPACE_COMPONENTS;

/// The patch agent's tools: the default seven with `apply_patch` in place of `write` and
/// `edit`, as agents built for models trained on that grammar offer them.
pub const PATCH_TOOLSET: &[&str] = &["read", "apply_patch", "grep", "glob", "list", "bash"];

/// The claude agent's tools: Anthropic's client tools as Claude was trained on them, the text
/// editor and `bash` in Anthropic's shape ([`crate::bash::anthropic`]).
pub const CLAUDE_TOOLSET: &[&str] = &["str_replace_based_edit_tool", "bash"];

/// The openai agent's tools: the Responses API's client tools, OpenAI's one-operation
/// `apply_patch` (embedded as `openai_apply_patch`) and `shell`.
pub const OPENAI_TOOLSET: &[&str] = &["apply_patch", "shell"];

/// Which `bash` a toolset offers: toolhost's own (`command`, `timeoutMs`) or Anthropic's client
/// tool (`command`, `restart`). Both run the same sandboxed command.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BashShape {
    /// docs/contract.md#bash.
    Toolhost,
    /// docs/contract.md#anthropic-bash.
    Anthropic,
}

/// Which agent a toolset is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Agent {
    /// The default agent.
    Default,
    /// The read-only explorer sub-agent.
    Explorer,
    /// The default agent's tools, then the five workspace tools: workspace_git,
    /// workspace_markdown, workspace_preview, workspace_shell and workspace_tests.
    Workspace,
    /// The default agent's tools with apply_patch in place of write and edit: read,
    /// apply_patch, grep, glob, list, bash.
    Patch,
    /// Anthropic's client tools: str_replace_based_edit_tool (view, create, str_replace,
    /// insert) and bash (command, restart).
    Claude,
    /// OpenAI's Responses API client tools: apply_patch (one create_file, update_file or
    /// delete_file operation with a V4A diff) and shell (commands, timeout_ms,
    /// max_output_length).
    Openai,
}

impl Agent {
    /// This agent's toolset config: its built-ins only.
    pub fn toolset(self) -> ToolsetConfig {
        self.toolset_with(&[])
    }

    /// This agent's toolset config: its built-ins, then `extra` tools (installed ones, in
    /// install order, then `--tool` ones) with their granted risk: all of them for the
    /// default agent, only the read-only ones for the explorer.
    pub fn toolset_with(self, extra: &[(String, ToolRisk)]) -> ToolsetConfig {
        let all = || extra.iter().map(|(id, _)| id.as_str());
        let (builtins, extra): (Vec<&str>, Vec<&str>) = match self {
            Agent::Default => (DEFAULT_TOOLSET.to_vec(), all().collect()),
            Agent::Patch => (PATCH_TOOLSET.to_vec(), all().collect()),
            Agent::Claude => (CLAUDE_TOOLSET.to_vec(), all().collect()),
            Agent::Openai => (OPENAI_TOOLSET.to_vec(), all().collect()),
            Agent::Workspace => (
                DEFAULT_TOOLSET.iter().chain(WORKSPACE_TOOLSET).copied().collect(),
                all().collect(),
            ),
            Agent::Explorer => (
                EXPLORER_TOOLSET.to_vec(),
                extra
                    .iter()
                    .filter(|(_, risk)| *risk == ToolRisk::ReadOnly)
                    .map(|(id, _)| id.as_str())
                    .collect(),
            ),
        };
        ToolsetConfig::new(builtins.into_iter().chain(extra))
    }

    /// The tools registered only when named (workspace tools, `apply_patch`) that this
    /// agent's toolset holds.
    pub fn on_demand_tools(self) -> &'static [&'static str] {
        match self {
            Agent::Workspace => WORKSPACE_TOOLSET,
            Agent::Patch => &["apply_patch"],
            Agent::Claude => &["str_replace_based_edit_tool"],
            Agent::Openai => &["openai_apply_patch"],
            Agent::Default | Agent::Explorer => &[],
        }
    }

    /// The `bash` this agent's toolset offers.
    pub fn bash_shape(self) -> BashShape {
        match self {
            Agent::Claude => BashShape::Anthropic,
            _ => BashShape::Toolhost,
        }
    }
}

/// Which tools a run offers, in order: an agent's toolset, or the ids `--tools` lists.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Selection {
    /// `--agent`'s toolset (built-ins, then the installed and `--tool` tools it takes).
    Agent(Agent),
    /// Exactly these tools, in this order: built-in, workspace, installed or `--tool` ones.
    Tools(Vec<String>),
}

impl Selection {
    /// The tools registered only when named (workspace tools, `apply_patch`) that this
    /// selection names.
    pub fn on_demand_tools(&self) -> Vec<&str> {
        match self {
            Selection::Agent(agent) => agent.on_demand_tools().to_vec(),
            Selection::Tools(ids) => ids
                .iter()
                .map(String::as_str)
                .filter(|id| {
                    WORKSPACE_TOOLSET.contains(id)
                        || crate::registry::ON_DEMAND_FILE_TOOLS.contains(id)
                })
                .collect(),
        }
    }

    /// The `bash` this selection offers: the agent's, or toolhost's own for a `--tools` list.
    pub fn bash_shape(&self) -> BashShape {
        match self {
            Selection::Agent(agent) => agent.bash_shape(),
            Selection::Tools(_) => BashShape::Toolhost,
        }
    }

    /// The toolset config: the agent's (see [`Agent::toolset_with`]), or the listed ids.
    pub fn toolset_with(&self, extra: &[(String, ToolRisk)]) -> ToolsetConfig {
        match self {
            Selection::Agent(agent) => agent.toolset_with(extra),
            Selection::Tools(ids) => ToolsetConfig::new(ids.iter().map(String::as_str)),
        }
    }
}

/// The ids a `--tools` value lists, in order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolIds(pub Vec<String>);

/// A `--tools` value with an empty id in it (the value as given).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "--tools takes tool ids separated by commas, e.g. read,grep,workspace_git; {0:?} has an empty one"
)]
pub struct EmptyToolId(pub String);

/// The ids of a `--tools` value: comma-separated, in order, spaces around each trimmed; an
/// empty one is refused.
pub fn parse_tools(value: &str) -> Result<ToolIds, EmptyToolId> {
    let ids: Vec<String> = value.split(',').map(|id| id.trim().to_owned()).collect();
    if ids.iter().any(String::is_empty) {
        return Err(EmptyToolId(value.to_owned()));
    }
    Ok(ToolIds(ids))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_built_in_ids_are_exactly_the_ids_third_party_tools_may_not_take() {
        let builtins: Vec<&str> = DEFAULT_TOOLSET
            .iter()
            .chain(WORKSPACE_TOOLSET)
            .chain(crate::registry::ON_DEMAND_FILE_TOOLS)
            .chain(&["shell"])
            .copied()
            .collect();
        assert_eq!(builtins, toolhost_plugins::RESERVED_IDS);
        for id in EXPLORER_TOOLSET {
            assert!(DEFAULT_TOOLSET.contains(id), "{id}");
        }
        for id in PATCH_TOOLSET.iter().chain(CLAUDE_TOOLSET).chain(OPENAI_TOOLSET) {
            assert!(builtins.contains(id), "{id}");
        }
    }
}

#[cfg(test)]
mod selection_tests {
    use super::*;

    #[test]
    fn tools_are_comma_separated_in_order() {
        assert_eq!(
            parse_tools("read, workspace_git,grep").unwrap().0,
            ["read", "workspace_git", "grep"]
        );
        assert!(parse_tools("read,,grep").unwrap_err().to_string().contains("empty"));
        assert!(parse_tools("").is_err());
        let s = Selection::Tools(parse_tools("grep,read").unwrap().0);
        assert!(s.on_demand_tools().is_empty());
        let s = Selection::Tools(parse_tools("read,apply_patch,workspace_git").unwrap().0);
        assert_eq!(s.on_demand_tools(), ["apply_patch", "workspace_git"]);
    }
}
