//! `toolhost changes`, `undo`, `reapply`: the recorded file changes, from the session store
//! alone (no toolset is built).

use std::io::IsTerminal;
use std::process::ExitCode;

use anyhow::Result;

use toolhost::ToolSessionContext;
use toolhost::display::{quote_path, terminal_line};
use toolhost::result::FileChangeKind;
use toolhost::session::{apply_recorded, reconcile_pending};
use toolhost::store::RecordedChange;
use toolhost::undo::Direction;

use crate::Cli;
use crate::setup::{Setup, new_session_id};

/// `changes`: list the recorded file changes with their diffs (only `--session`'s when given).
pub fn list(setup: &Setup, cli: &Cli, json: bool) -> Result<ExitCode> {
    let store = setup.open_store()?;
    reconcile_pending(&store, &local_session(setup, cli), &setup.policy)?;
    let mut changes = store.recorded_changes(cli.session.as_deref())?;
    // With --workspace, that workspace's changes only.
    if cli.workspace.is_some() {
        changes.retain(|c| c.workspace == setup.workspace);
    }
    if json {
        let list: Vec<_> = changes
            .into_iter()
            .map(|r| toolhost::result::ToolResultArtifact::FileChange(r.change))
            .collect();
        outln!("{}", toolhost::display::json_text(&serde_json::to_string_pretty(&list)?));
    } else {
        out!("{}", render_changes(&changes, stdout_wants_color()));
    }
    Ok(ExitCode::SUCCESS)
}

/// `undo` (newest first) or `reapply` (oldest first) the changes `ids`; refused if a file
/// changed since.
pub async fn apply(
    setup: &Setup,
    cli: &Cli,
    ids: &[String],
    direction: Direction,
) -> Result<ExitCode> {
    let store = setup.open_store()?;
    let session = local_session(setup, cli);
    reconcile_pending(&store, &session, &setup.policy)?;
    match apply_recorded(&store, &session, &setup.policy, ids, direction).await {
        Ok(()) => {
            let verb = if direction == Direction::Undo { "Undid" } else { "Reapplied" };
            outln!("{verb} {}", ids.join(", "));
            Ok(ExitCode::SUCCESS)
        }
        Err(e) => {
            eprintln!("toolhost: {}", toolhost::display::terminal_text(&e.to_string()));
            Ok(ExitCode::FAILURE)
        }
    }
}

/// The workspace's session context for reading and rewriting its files outside any session.
/// The changes left pending there by a toolhost that died are settled first
/// ([`reconcile_pending`]), so what is listed and undone includes them.
fn local_session(setup: &Setup, cli: &Cli) -> ToolSessionContext {
    ToolSessionContext::local(
        &setup.workspace,
        &setup.data_dir,
        cli.session.clone().unwrap_or_else(new_session_id),
        setup.sandbox(false),
    )
}

/// Render recorded changes for a terminal: a header per change, then its hunks; `+`/`-`
/// lines coloured when `color`.
fn render_changes(changes: &[RecordedChange], color: bool) -> String {
    let (green, red, cyan, bold, reset) = if color {
        ("\x1b[32m", "\x1b[31m", "\x1b[36m", "\x1b[1m", "\x1b[0m")
    } else {
        ("", "", "", "", "")
    };
    let mut out = String::new();
    for r in changes {
        let c = &r.change;
        let kind = match c.kind {
            FileChangeKind::Created => "created",
            FileChangeKind::Modified => "modified",
            FileChangeKind::Deleted => "deleted",
        };
        let undone = if c.undone { " [undone]" } else { "" };
        out.push_str(&format!(
            "{bold}{} {} ({kind}, +{} -{}){undone}{reset}  session {}\n",
            terminal_line(&c.change_id),
            quote_path(&c.path),
            c.additions,
            c.deletions,
            terminal_line(&r.session_id)
        ));
        for h in &c.hunks {
            out.push_str(&format!(
                "{cyan}@@ -{},{} +{},{} @@{reset}\n",
                h.old_start, h.old_lines, h.new_start, h.new_lines
            ));
            for line in &h.lines {
                let (pre, post) = match line.as_bytes().first() {
                    Some(b'+') => (green, reset),
                    Some(b'-') => (red, reset),
                    _ => ("", ""),
                };
                // A diff line is one line of a file: every control character in it escaped.
                out.push_str(&format!("{pre}{}{post}\n", terminal_line(line)));
            }
        }
        out.push('\n');
    }
    out
}

/// Whether stdout is a terminal that wants colour (`NO_COLOR` turns it off).
fn stdout_wants_color() -> bool {
    std::io::stdout().is_terminal() && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
}
