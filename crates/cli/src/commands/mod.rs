//! One module per command, each over the one [`crate::setup::Setup`]:
//!
//! * [`tools`] — the finalized toolset's definitions.
//! * [`call`] — one tool call, recorded in the store.
//! * [`session`] — JSON Lines on stdin/stdout.
//! * [`mcp`] — the MCP server, stdio or Streamable HTTP.
//! * [`tool`] — `tool add|publish|list|show|remove`: the installed third-party tools.
//! * [`tool_install`] — installing one component file: checks, summary, question, pinned
//!   record (for `tool add FILE` and, once pulled, `tool add oci://…`).
//! * [`tool_oci`] — `tool add oci://…` (pulled, verified, then added as a file) and
//!   `tool publish`.
//! * [`conformance`] — every conformance check on one component.
//! * [`changes`] — `changes`, `undo`, `reapply`: from the session store alone.
//! * [`wit`] — the text of a WIT package the host links.
//! * [`doctor`] — whether bash's sandbox works here.
//! * [`new`] — a new tool project in Rust, Python or JavaScript, from the templates.
//!
//! A new command is a module here, a variant of `Command` in `args.rs` and an arm of
//! [`dispatch`].

pub mod call;
pub mod changes;
pub mod conformance;
pub mod doctor;
pub mod mcp;
pub mod new;
pub mod session;
pub mod tool;
pub mod tool_install;
pub mod tool_oci;
pub mod tools;
pub mod wit;

use std::process::ExitCode;

use anyhow::Result;
use toolhost::undo::Direction;

use crate::{Cli, Command, setup};

/// Exit code for a usage error (bad flags, malformed JSON arguments).
pub const EXIT_USAGE: u8 = 2;

/// The command of `cli` over `setup`.
pub(crate) async fn dispatch(cli: &Cli, setup: &setup::Setup) -> Result<ExitCode> {
    match &cli.command {
        Command::Tools { json } => tools::run(setup, cli, *json).await,
        Command::Call { tool, input, json } => call::run(setup, cli, tool, input, *json).await,
        Command::Session { client_approves } => session::run(setup, cli, *client_approves).await,
        Command::Mcp { listen, allow_hosts, token_file, no_auth } => {
            mcp::run(setup, cli, listen.clone(), allow_hosts.clone(), token_file.clone(), *no_auth)
                .await
        }
        Command::Conformance { file, json, junit, cases, seed } => {
            conformance::run(setup, file, *json, junit.as_ref(), *cases, *seed).await
        }
        Command::Wit { version } => Ok(wit::run(version.as_deref())),
        Command::New { .. } => unreachable!("handled before the setup"),
        Command::Tool { action } => tool::run(setup, action).await,
        Command::Changes { json } => changes::list(setup, cli, *json),
        Command::Undo { change_ids } => {
            changes::apply(setup, cli, change_ids, Direction::Undo).await
        }
        Command::Reapply { change_ids } => {
            changes::apply(setup, cli, change_ids, Direction::Reapply).await
        }
        Command::Doctor => {
            toolhost::spill::remove_expired(&setup.data_dir);
            Ok(doctor::run(&*setup.sandbox(true), &setup.policy))
        }
    }
}
