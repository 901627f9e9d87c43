//! toolhost: the host for the tools an AI coding agent calls.
//!
//! A call flows like this: a [`ToolsetConfig`] selects tools from a [`ToolRegistry`];
//! [`finalize`] binds them to a [`ToolSessionContext`] as a [`FinalizedToolset`]; each
//! [`FinalizedToolset::call`] gets a fresh [`ToolCallContext`] (id, cancellation, deadline,
//! this call's [`SandboxPolicy`]) and returns one [`ToolResult`].
//!
//! The map of the host:
//!
//! * [`tool`] — the contract: [`Tool`] (typed, host-native), [`DynTool`] (erased).
//! * [`registry`] — registry, toolset config, finalize, the finalized toolset.
//! * [`builtins`] — the built-in tools and the agents' toolsets.
//! * [`context`] — session and call contexts, progress.
//! * [`result`] — `ToolResult`, error codes, file-change artifacts.
//! * [`policy`] — the sandbox policy judged per call.
//! * [`fence`] — path resolution into a [`CheckedPath`].
//! * [`runtime`] — wasmtime: engine, component cache, one fresh store per call, and the
//!   host side of the WIT imports (capability handles).
//! * [`bash`] — the bash tool, run only inside the OS sandbox of `toolhost-sandbox`.
//! * [`approval`] — who may grant an escalation.
//! * [`observations`] — the read-before-edit table.
//! * [`atomic`] — staged writes published by rename.
//! * [`changes`] — diffs and file-change artifacts.
//! * [`spill`] — spill files for oversized results.
//! * [`undo`] — undo and reapply of file changes.
//! * [`store`] — the SQLite session store (`<data-dir>/toolhost.db`).
//! * [`session`] — the session runtime and the `toolhost session` JSON Lines protocol.
//! * `bounded_lines`, `request_id` — request lines with a size cap for the line-based
//!   transports, and the id of a line too long to parse.
//! * [`mcp`] — `toolhost mcp`: the Model Context Protocol server over a session runtime.
//!
//! Limits shared with the tool components live in the `toolhost-limits` crate.

pub mod approval;
pub mod atomic;
pub mod bash;
pub mod builtins;
pub mod changes;
pub mod context;
pub mod display;
pub mod fence;
pub mod observations;
mod open;
pub use toolhost_sandbox::privileges;
pub use toolhost_sandbox::policy;
pub mod registry;
pub mod result;
pub mod runtime;
pub mod spill;
pub mod tool;
pub mod undo;
pub mod store;
pub mod session;
mod bounded_lines;
mod request_id;
pub mod mcp;

pub use builtins::{Agent, builtin_registry};
pub use context::{ToolCallContext, ToolCallId, ToolProgress, ToolSessionContext};
pub use fence::{CheckedPath, resolve_path};
pub use policy::{SandboxMode, SandboxPolicy};
pub use registry::{FinalizeError, PreparedCall, FinalizedToolset, ToolRegistry, ToolRegistryBuilder, ToolsetConfig, finalize};
pub use result::{ErrorCode, ToolError, ToolResult, ToolResultStatus};
pub use tool::{CallInspection, DynTool, Tool, ToolDefinition, ToolId, ToolRisk};
