//! `toolhost changes`, `undo`, `reapply`: the recorded file changes, from the session store
//! alone (no toolset is built).

use std::process::ExitCode;

use anyhow::Result;

use toolhost::session::{apply_recorded, render_changes, stdout_wants_color};
use toolhost::undo::Direction;
use toolhost::ToolSessionContext;

use crate::setup::{Setup, new_session_id};
use crate::Cli;

/// `changes`: list the recorded file changes with their diffs (only `--session`'s when given).
pub fn list(setup: &Setup, cli: &Cli, json: bool) -> Result<ExitCode> {
    let store = toolhost::store::Store::open(&setup.data_dir)?;
    let changes = store.recorded_changes(cli.session.as_deref())?;
    if json {
        let list: Vec<_> = changes.into_iter().map(|r| toolhost::result::ToolResultArtifact::FileChange(r.change)).collect();
        println!("{}", toolhost::display::json_text(&serde_json::to_string_pretty(&list)?));
    } else {
        print!("{}", render_changes(&changes, stdout_wants_color()));
    }
    Ok(ExitCode::SUCCESS)
}

/// `undo` (newest first) or `reapply` (oldest first) the changes `ids`; refused if a file
/// changed since.
pub async fn apply(setup: &Setup, cli: &Cli, ids: &[String], direction: Direction) -> Result<ExitCode> {
    let store = toolhost::store::Store::open(&setup.data_dir)?;
    let session = ToolSessionContext::local(&setup.workspace, &setup.data_dir, cli.session.clone().unwrap_or_else(new_session_id));
    match apply_recorded(&store, &session, &setup.policy, ids, direction).await {
        Ok(()) => {
            let verb = if direction == Direction::Undo { "Undid" } else { "Reapplied" };
            println!("{verb} {}", ids.join(", "));
            Ok(ExitCode::SUCCESS)
        }
        Err(e) => {
            eprintln!("toolhost: {}", toolhost::display::terminal_text(&e.to_string()));
            Ok(ExitCode::FAILURE)
        }
    }
}
