//! The agents' toolsets (docs/contract.md#definitions-and-the-toolset): which tools each agent
//! is offered, in the order the model sees them.

use toolhost_core::registry::ToolsetConfig;
use toolhost_core::tool::ToolRisk;

/// The default agent's tools, in the order the model sees them
/// (docs/contract.md#definitions-and-the-toolset: read write edit grep glob list bash; only those
/// that have landed are listed).
pub const DEFAULT_TOOLSET: &[&str] = &["read", "write", "edit", "grep", "glob", "list", "bash"];

/// The explorer sub-agent's tools (docs/contract.md#definitions-and-the-toolset: read grep glob
/// list bash; only landed ones).
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
    /// This agent's toolset config: its built-ins only.
    pub fn toolset(self) -> ToolsetConfig {
        self.toolset_with(&[])
    }

    /// This agent's toolset config: its built-ins, then `extra` tools (installed ones, in
    /// install order, then `--tool` ones) with their granted risk: all of them for the
    /// default agent, only the read-only ones for the explorer.
    pub fn toolset_with(self, extra: &[(String, ToolRisk)]) -> ToolsetConfig {
        let (builtins, extra): (&[&str], Vec<&str>) = match self {
            Agent::Default => (DEFAULT_TOOLSET, extra.iter().map(|(id, _)| id.as_str()).collect()),
            Agent::Explorer => (
                EXPLORER_TOOLSET,
                extra
                    .iter()
                    .filter(|(_, risk)| *risk == ToolRisk::ReadOnly)
                    .map(|(id, _)| id.as_str())
                    .collect(),
            ),
        };
        ToolsetConfig::new(builtins.iter().copied().chain(extra))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_toolset_is_exactly_the_ids_third_party_tools_may_not_take() {
        assert_eq!(DEFAULT_TOOLSET, toolhost_plugins::RESERVED_IDS);
        for id in EXPLORER_TOOLSET {
            assert!(DEFAULT_TOOLSET.contains(id), "{id}");
        }
    }
}
