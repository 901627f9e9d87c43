//! `toolhost mcp`: a Model Context Protocol server (rmcp) over one `SessionRuntime`.
//!
//! * `tools/list`: the finalized toolset in toolset order; name = tool id, `inputSchema` = the
//!   definition's schema, annotations from the risk (`readOnlyHint` for read-only tools,
//!   `destructiveHint` for workspace mutation and process execution).
//! * `tools/call`: runs through the session runtime (in arrival order: a call that can
//!   change anything alone, read-only tools' calls side by side; recorded in the store
//!   like JSON Lines session calls). The model-visible text is the one text content; `isError`
//!   is set for every status but `succeeded`. Status, artifacts, the error code and
//!   `sandbox_denied` travel in the result's `_meta` under `toolhost/…` keys — never in the
//!   content, so they do not reach the model (`docs/contract.md#results`); so does a component call's
//!   `usage` (wall time, peak memory).
//! * `notifications/progress` for calls that carry a progress token (the call's
//!   `ToolProgress`, in order); `notifications/cancelled` cancels the call's token.
//! * Approvals (an escalation's `sandboxPermissions`, a run of `workspace_shell` or
//!   `workspace_tests`): decided and awaited by the core's approval stage
//!   (`toolhost_core::approval::decide`), which the server never second-guesses — it only
//!   asks the toolset whether a call may need one (`FinalizedToolset::may_ask`) to choose
//!   how to run it. With `--allow-escalation` every one is approved;
//!   otherwise [`ElicitApprovals`], the session's approver, asks the user through MCP elicitation when the client
//!   declared it — on a handshake session as a request of the server's, on the stateless
//!   2026-07-28 revision (which forbids those) as an input-required result answered by the
//!   retried call ([`rounds`]) — and denies when nobody can be asked (a 2026-07-28 request
//!   that did not declare elicitation gets MissingRequiredClientCapability, -32021, instead).
//!   The message is the terminal prompt's words (`toolhost_core::approval::Approval::question`).
//! * `subscriptions/listen` (2026-07-28): `notifications/tools/list_changed` for clients
//!   without a session, tagged with the subscription id, as the client's filter asks
//!   ([`subscriptions`]).
//!
//! Both the 2025-11-25 revision (`initialize` handshake) and the stateless 2026-07-28
//! revision (per-request `_meta`, `server/discover`) are served: rmcp selects the lifecycle
//! from the first request. Nothing but protocol messages is written to stdout. See
//! `docs/mcp.md`.
//!
//! A request flows like this: a transport reads it — [`stdio`] (request lines capped and
//! answered when refused) or [`http`] (`--listen`: the bearer token is checked first by
//! [`auth`], then Host/Origin; [`conns`] bounds the open connections, `watch` the time a
//! connection may sit idle or half-sent, `sessions` the live MCP sessions, `unread` closes a
//! connection whose refused request body was left unread) — and hands it to
//! the [`McpServer`] of [`server`]. A `tools/call` waits its turn, runs in the session runtime
//! with [`elicit`] as the approver it may ask, sends the call's progress through [`progress`],
//! and its `ToolResult` leaves as an MCP result built by [`convert`] (counted in [`metrics`] on
//! the way); so does every tool of `tools/list`.
//!
//! The map:
//!
//! * [`server`] — [`McpServer`]: the rmcp handler, the call queue, `tools/list_changed`.
//! * [`subscriptions`] — `subscriptions/listen` (2026-07-28): `tools/list_changed` for
//!   clients without a session.
//! * [`convert`] — toolset definitions to MCP tools, results to MCP results, the `_meta` keys.
//! * [`elicit`] — [`ElicitApprovals`]: approvals (escalations and runs) asked through MCP elicitation, or
//!   asked as an input-required result on the stateless revision.
//! * [`rounds`] — [`rounds::ApprovalRounds`]: those input-required approvals, their sealed
//!   request state and the answers redeemed once.
//! * [`progress`] — a call's progress as `notifications/progress`.
//! * [`tasks`] — which calls run as tasks (`io.modelcontextprotocol/tasks`) and their status line.
//! * [`task_store`] — the tasks themselves, running and finished, kept within bounds.
//! * [`stdio`] — the stdio transport.
//! * [`http`] — the Streamable HTTP transport (`--listen`).
//! * [`auth`] — the bearer token of `--listen`.
//! * [`probes`] — `/healthz` and `/readyz` (no token), `/metrics` (behind it).
//! * [`metrics`] — calls by tool and outcome, latency, denials, approvals asked, sandbox
//!   unavailable: counted as calls end, rendered for `/metrics`.
//! * [`conns`] — the bound on open HTTP connections.
//! * `sessions` — the bound on live MCP sessions over HTTP.
//! * `watch` — per-connection timeouts over HTTP.
//! * `unread` — `Connection: close` on a response sent before its request body was read.

#![deny(clippy::print_stdout, clippy::print_stderr)]

pub mod auth;
pub mod conns;
pub mod convert;
pub mod elicit;
pub mod http;
pub mod metrics;
pub mod probes;
pub mod progress;
pub mod roots;
pub mod rounds;
pub mod server;
mod sessions;
pub mod stdio;
pub mod subscriptions;
pub mod task_store;
pub mod tasks;
mod unread;
mod watch;

pub use convert::{
    META_ARTIFACTS, META_CALL_ID, META_ERROR, META_SANDBOX_DENIED, META_STATUS, META_USAGE,
    mcp_result, mcp_tool,
};
pub use elicit::ElicitApprovals;
pub use progress::{PROGRESS_TOTAL, ProgressCounter};
pub use server::McpServer;
