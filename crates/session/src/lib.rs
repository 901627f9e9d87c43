//! The session runtime (`docs/sessions.md`): one [`FinalizedToolset`] with its
//! observation table and spill dir, calls run one after another in arrival order, each call
//! with its own id (`<session>-<n>`) and a cancellation token that is a child of the
//! session's, and every call recorded in the [`Store`].
//!
//! [`SessionRuntime::serve_jsonl`] speaks the JSON Lines protocol of `docs/sessions.md`. A reader task
//! reads requests while a call runs (so `cancel` reaches it and `undo` can be refused with
//! `SessionActive`), a runner executes calls and undo/reapply in order, and a writer task
//! writes one event per line. A request line longer than `MAX_REQUEST_BYTES` is discarded as it
//! is read (memory stays bounded) and answered with an error event naming its line and the
//! limit, under its id when one is found in it; the session goes on.
//!
//! Output waits in an [`output::OutputQueue`] for a client that reads slowly: progress
//! events past its bound are dropped and counted (the call's result event says how many, as
//! `droppedProgress`), results never are.
//!
//! `bounded_lines` and `request_id` give the line-based transports (this one and MCP over
//! stdio) request lines with a size cap, and the id of a line too long to parse.
//!
//! A request flows like this: [`bounded_lines`] cuts the client's input into lines no longer
//! than the limit (naming the id of a line too long, through `request_id`); `jsonl` parses
//! each line into a call, a cancel, an undo or a reapply and queues it; the runner hands a
//! call to [`SessionRuntime::call_until`] (a fresh call id, this session's policy, the
//! request's deadline), which runs it on the toolset and records it in the [`Store`], and an
//! undo or reapply to [`SessionRuntime::undo`] / [`SessionRuntime::reapply`]; progress and the
//! result go out through the [`output::OutputQueue`], one event per line.
//!
//! The map:
//!
//! * `session_runtime` — [`SessionRuntime`], [`SessionError`], undo and reapply of recorded changes
//!   (one in a session, or a batch with [`apply_recorded`] for the CLI).
//! * `jsonl` — [`SessionRuntime::serve_jsonl`]: reader, runner and writer, requests and events.
//! * `events` — one event line under its request's id, and the key a request id is known by.
//! * [`output`] — the output queue: progress bounded and counted, results always sent.
//! * [`approvals`] — approvals asked of the client (`--client-approves`): the question as an
//!   event, the answer as a request.
//! * [`bounded_lines`] — request lines with a size cap (shared with MCP over stdio).
//! * `request_id` — the id of a request line too long to parse.
//!
//! The terminal rendering of recorded changes lives with the `toolhost changes` command.
//!
//! [`FinalizedToolset`]: toolhost_core::registry::FinalizedToolset
//! [`Store`]: toolhost_store::Store

#![deny(clippy::print_stdout, clippy::print_stderr)]

pub mod approvals;
pub mod bounded_lines;
mod events;
mod jsonl;
pub mod output;
mod request_id;
mod session_runtime;
mod write_ahead;

pub use session_runtime::{SESSION_ACTIVE, SessionError, SessionRuntime, apply_recorded};
pub use write_ahead::reconcile_pending;
