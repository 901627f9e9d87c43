//! `toolhost call TOOL JSON`: one tool call; prints the model-visible text (or, with `--json`,
//! the whole ToolResult). Exit 0 if it succeeded, 1 otherwise, 2 usage.

use std::io::IsTerminal;
use std::process::ExitCode;
use std::sync::Arc;

use anyhow::Result;

use toolhost::approval::Approver;

use crate::Cli;
use crate::commands::EXIT_USAGE;
use crate::setup::Setup;

/// Make the call `tool` with `input` (a JSON object).
pub async fn run(
    setup: &Setup,
    cli: &Cli,
    tool: &str,
    input: &str,
    json: bool,
) -> Result<ExitCode> {
    // On a terminal, an escalation is asked for there; otherwise it is refused.
    let approver: Option<Arc<dyn Approver>> =
        if std::io::stdin().is_terminal() && std::io::stderr().is_terminal() {
            Some(Arc::new(toolhost::approval::TerminalApprover))
        } else {
            None
        };
    let input: serde_json::Value = match serde_json::from_str(input) {
        Ok(v @ serde_json::Value::Object(_)) => v,
        Ok(_) => {
            eprintln!("toolhost: the tool input must be a JSON object, e.g. '{{\"path\": \".\"}}'");
            return Ok(ExitCode::from(EXIT_USAGE));
        }
        Err(e) => {
            eprintln!("toolhost: the tool input is not valid JSON: {e}");
            return Ok(ExitCode::from(EXIT_USAGE));
        }
    };
    // Recorded like a session's calls, so `toolhost changes`/`undo` see what it did. The
    // store opens (SQLite reads its schema and write-ahead log) on its own thread while the
    // toolset is built: on more than one core, a one-shot call does not wait for both.
    let data_dir = setup.data_dir.clone();
    let opening = std::thread::spawn(move || toolhost::store::Store::open(&data_dir));
    let toolset = setup.toolset(cli, approver, toolhost::runtime::Allocation::OnDemand).await;
    let opened = opening.join();
    let toolset = toolset?;
    let store = match opened {
        Ok(Ok(store)) => Some(store),
        Err(_) => {
            eprintln!(
                "toolhost: the session store is unavailable (opening it failed); this call will not be recorded"
            );
            None
        }
        Ok(Err(e)) => {
            eprintln!(
                "toolhost: the session store is unavailable ({e}); this call will not be recorded"
            );
            None
        }
    };
    let session = toolhost::session::SessionRuntime::new(toolset, setup.policy.clone(), store)?;
    let cancel = session.cancel_token().child_token();
    let on_interrupt = cancel.clone();
    tokio::spawn(async move {
        // Ctrl-C or SIGTERM cancels the call (bash's process group is killed) instead of
        // abandoning it; the command then ends as usual and the session's temp dir goes.
        let mut term =
            tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()).ok();
        let sigterm = async {
            match term.as_mut() {
                Some(t) => {
                    t.recv().await;
                }
                None => std::future::pending::<()>().await,
            }
        };
        tokio::select! {
            interrupted = tokio::signal::ctrl_c() => {
                if interrupted.is_err() {
                    return;
                }
            }
            _ = sigterm => {}
        }
        on_interrupt.cancel();
    });
    let result = session.call(&session.next_call_id(), tool, input, cancel, None).await;
    if json {
        println!("{}", toolhost::display::json_text(&serde_json::to_string(&result)?));
    } else if std::io::stdout().is_terminal() {
        // What a file or a command printed is shown, not run, on a terminal.
        println!("{}", toolhost::display::terminal_text(&result.text()));
    } else {
        println!("{}", result.text());
    }
    Ok(if result.succeeded() { ExitCode::SUCCESS } else { ExitCode::FAILURE })
}
