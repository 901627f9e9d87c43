//! One module per command, each over the one [`crate::setup::Setup`]:
//!
//! * [`tools`] — the finalized toolset's definitions.
//! * [`call`] — one tool call, recorded in the store.
//! * [`session`] — JSON Lines on stdin/stdout.
//! * [`mcp`] — the MCP server, stdio or Streamable HTTP.
//! * [`tool`] — `tool add|publish|list|show|remove`: the installed third-party tools.
//! * [`tool_oci`] — `tool add oci://…` (pulled, verified, then added as a file) and
//!   `tool publish`.
//! * [`conformance`] — every conformance check on one component.
//! * [`changes`] — `changes`, `undo`, `reapply`: from the session store alone.
//! * [`wit`] — the text of a WIT package the host links.
//! * [`doctor`] — whether bash's sandbox works here.
//! * [`new`] — a new tool project in Rust, Python or JavaScript, from the templates.
//!
//! A new command is a module here and a variant of `Command` in `main.rs`.

pub mod call;
pub mod changes;
pub mod conformance;
pub mod doctor;
pub mod mcp;
pub mod new;
pub mod session;
pub mod tool;
pub mod tool_oci;
pub mod tools;
pub mod wit;

/// Exit code for a usage error (bad flags, malformed JSON arguments).
pub const EXIT_USAGE: u8 = 2;
