//! The tool-call core of toolhost: what every tool call goes through, whatever runs the tool
//! (a WebAssembly component, host-native bash) and whoever asks (a one-shot command, a JSON
//! Lines session, an MCP client). No wasmtime, no SQLite, no MCP: those crates build on this one.
//!
//! A call flows like this: a [`ToolsetConfig`] selects tools from a [`ToolRegistry`];
//! [`finalize`] binds them to a [`ToolSessionContext`] as a [`FinalizedToolset`]; each
//! [`FinalizedToolset::call`] gets a fresh [`ToolCallContext`] (id, cancellation, deadline,
//! this call's `toolhost_policy::SandboxPolicy`), passes the approval stage
//! ([`approval::decide`]: what the call asks — an escalation, or the one run its tool will
//! make — asked of the session's approver and awaited by one rule), runs the tool and returns
//! one [`ToolResult`], cut to the result bound with the rest in a spill file.
//!
//! A tool reaches the filesystem only through the host side of this crate: [`fence`] turns a
//! path into a [`CheckedPath`], `open` opens it without following a symlink, [`atomic`]
//! publishes a write by rename inside the pinned parent, [`observations`] holds what was read
//! (read-before-edit), [`changes`] turns a write into a file-change artifact, [`changeset`]
//! commits several writes as one, and [`undo`] takes them back.
//!
//! The map:
//!
//! * [`tool`] — the contract: [`NativeTool`] (typed, host-native), [`DynTool`] (erased; it says
//!   whether it asks before every run, and the run a call will make).
//! * [`registry`] — registry, toolset config, finalize, the finalized toolset.
//! * [`context`] — session and call contexts, progress.
//! * [`result`] — `ToolResult`, error codes, file-change artifacts.
//! * [`approval`] — the approval stage of every call ([`approval::decide`], its wait
//!   [`approval::wait_for_approval`]): who may allow what a call asks
//!   ([`approval::Approver`], one per channel), an escalation or one program run
//!   ([`approval::RunApproval`], held for its call by a [`approval::RunGate`]), in the words
//!   every channel shows ([`approval::Approval`]).
//! * [`fence`] — path resolution into a [`CheckedPath`].
//! * [`open`] — opening checked paths and walked files with no symlink followed.
//! * [`walk`] — the recursive walk of grep and glob: ignore rules, no symlink followed.
//! * [`observations`] — the read-before-edit table.
//! * [`atomic`] — staged writes published by rename.
//! * [`changes`] — diffs and file-change artifacts.
//! * [`changeset`] — several file writes committed all or none, journaled.
//! * [`undo`] — undo and reapply of file changes.
//! * [`write_ahead`] — a call's changes recorded as pending before they are written.
//! * [`on_disk`] — how recorded changes stand against the files now, by their hashes.
//! * [`spill`] — spill files for oversized results.
//! * [`expire`] — removing a directory's entries older than an age (old spill directories,
//!   the CLI's interrupted downloads).
//! * [`display`] — paths and texts made safe to show on a terminal or in JSON.
//!
//! Limits shared with the tool components live in the `toolhost-limits` crate.

#![deny(clippy::print_stdout, clippy::print_stderr)]

pub mod approval;
pub mod atomic;
pub mod changes;
pub mod changeset;
pub mod context;
pub mod display;
pub mod expire;
pub mod fence;
pub mod input_error;
pub mod observations;
pub mod on_disk;
pub mod open;
pub mod registry;
pub mod result;
pub mod spill;
pub mod tool;
pub mod undo;
pub mod walk;
pub mod write_ahead;

pub use context::{ToolCallContext, ToolCallId, ToolProgress, ToolSessionContext};
pub use fence::{CheckedPath, resolve_path};
pub use registry::{
    FinalizeError, FinalizedToolset, PreparedCall, ToolRegistry, ToolRegistryBuilder,
    ToolsetConfig, finalize,
};
pub use result::{ErrorCode, ToolError, ToolResult, ToolResultStatus};
pub use tool::{CallInspection, DynTool, NativeTool, ToolDefinition, ToolId, ToolRisk};
