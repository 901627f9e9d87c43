//! The built-in tools and the agents' toolsets (docs/contract.md#definitions-and-the-toolset).
//!
//! Built-in file tools are WebAssembly components embedded in the binary at build time
//! (`build.rs`; `TOOLHOST_COMPONENTS` loads them from a directory instead); bash lives in
//! the host.
//! A tool joins these lists only once it has landed: no stubs are ever registered.
//!
//! The map:
//!
//! * [`registry`] — [`builtin_registry`]: the six file-tool components
//!   ([`BUILTIN_COMPONENTS`], from `components`, the one list `build.rs` and `cargo xtask`
//!   read too), then bash (toolhost's own or Anthropic's, [`BashShape`]) and OpenAI's `shell`,
//!   then the workspace-tool components a toolset names ([`WORKSPACE_COMPONENTS`]), the
//!   on-demand file tools it names ([`ON_DEMAND_FILE_TOOLS`]: `apply_patch`, `multi_edit`,
//!   `str_replace_based_edit_tool`) and the agent-only components ([`AGENT_ONLY_CRATES`]:
//!   OpenAI's `apply_patch`); [`READING_TOOLS`], the tools whose reads are observations.
//! * [`bash`] — the host-native shells: toolhost's own bash, Anthropic's bash and OpenAI's shell,
//!   their definitions and how a call runs in the sandbox.
//! * [`toolset`] — [`Agent`] and its toolset: [`DEFAULT_TOOLSET`], [`EXPLORER_TOOLSET`],
//!   [`WORKSPACE_TOOLSET`], [`PATCH_TOOLSET`], [`CLAUDE_TOOLSET`] (with [`BashShape`]),
//!   [`OPENAI_TOOLSET`]; a [`Selection`] is an agent or an explicit `--tools` list
//!   ([`parse_tools`], refused as an [`EmptyToolId`]).

#![deny(clippy::print_stdout, clippy::print_stderr)]

pub mod bash;
mod components;
pub mod registry;
pub mod toolset;

pub use components::{
    AGENT_ONLY_CRATES, BUILTIN_COMPONENT_CRATES, ON_DEMAND_FILE_TOOL_CRATES,
    WORKSPACE_COMPONENT_CRATES,
};
pub use registry::{
    BUILTIN_COMPONENTS, BuiltinError, ON_DEMAND_FILE_TOOLS, READING_TOOLS, WORKSPACE_COMPONENTS,
    builtin_registry, builtin_registry_from, components_override, uncompiled_bytes,
};
pub use toolset::{
    Agent, BashShape, CLAUDE_TOOLSET, DEFAULT_TOOLSET, EXPLORER_TOOLSET, EmptyToolId,
    OPENAI_TOOLSET, PATCH_TOOLSET, Selection, ToolIds, WORKSPACE_TOOLSET, parse_tools,
};
