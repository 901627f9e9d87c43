//! toolhost: the host for the tools an AI coding agent calls — the `toolhost` command and the
//! one face of the host crates for whoever embeds them (and for the cross-crate suites in
//! `tests/`), under the module names they had when the host was one crate.
//!
//! The host is a stack of crates, each with one job; the arrows point one way, down:
//!
//! * `toolhost` (this crate) — the command line: one module per command over one setup
//!   (`src/main.rs` `main`, `src/args.rs` the options, `src/setup.rs` the setup,
//!   `src/commands/` the commands).
//! * [`mcp`] (`toolhost-mcp-server`) — the Model Context Protocol server, stdio and HTTP.
//! * [`session`] (`toolhost-session`) — the session runtime and the JSON Lines protocol.
//! * [`plugins`] (`toolhost-plugins`) — third-party tool components: the definition rules,
//!   the installed set pinned by SHA-256, loading each with its grant.
//! * [`builtins`] (`toolhost-builtins`) — the built-in tools and the agents' toolsets, with
//!   [`bash`] (host-native).
//! * [`runtime`] (`toolhost-runtime`) — wasmtime: engine, component cache, one module per WIT
//!   version, the host side of each WIT interface.
//! * [`store`] (`toolhost-store`) — the SQLite session store, undo and reapply recorded.
//! * `toolhost-core` — the tool-call core: [`tool`], [`registry`], [`context`], [`result`],
//!   [`fence`], [`spill`], [`expire`], [`observations`], [`atomic`], [`changes`], [`undo`],
//!   [`display`], [`approval`].
//! * `toolhost-sandbox` ([`policy`], [`privileges`]) and `toolhost-limits` underneath.
//!
//! A call flows like this: a [`ToolsetConfig`] selects tools from a [`ToolRegistry`] (the
//! built-ins: [`builtin_registry`], then installed tools: [`plugins`]); [`finalize`] binds them to a [`ToolSessionContext`] as a
//! [`FinalizedToolset`]; each [`FinalizedToolset::call`] gets a fresh [`ToolCallContext`] and
//! returns one [`ToolResult`].

pub use toolhost_builtins as builtins;
pub use toolhost_builtins::bash;
pub use toolhost_core::{
    approval, atomic, changes, changeset, context, display, expire, fence, observations, registry,
    result, spill, tool, undo,
};
pub use toolhost_mcp_server as mcp;
pub use toolhost_plugins as plugins;
pub use toolhost_policy as policy;
pub use toolhost_runtime as runtime;
pub use toolhost_sandbox::privileges;
pub use toolhost_session as session;
pub use toolhost_store as store;

pub use toolhost_builtins::{Agent, Selection, builtin_registry};
pub use toolhost_core::{
    CallInspection, CheckedPath, DynTool, ErrorCode, FinalizeError, FinalizedToolset, NativeTool,
    PreparedCall, ToolCallContext, ToolCallId, ToolDefinition, ToolError, ToolId, ToolProgress,
    ToolRegistry, ToolRegistryBuilder, ToolResult, ToolResultStatus, ToolRisk, ToolSessionContext,
    ToolsetConfig, finalize, resolve_path,
};
pub use toolhost_policy::{SandboxMode, SandboxPolicy};
