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
            Some(Arc::new(toolhost::approval::TerminalApprovals))
        } else {
            None
        };
    let input = match tool_input(input)? {
        Ok(input) => input,
        Err(usage) => {
            eprintln!("toolhost: {usage}");
            return Ok(ExitCode::from(EXIT_USAGE));
        }
    };
    // Recorded like a session's calls, so `toolhost changes`/`undo` see what it did. The
    // store opens (SQLite reads its schema and write-ahead log) on its own thread while the
    // toolset is built: on more than one core, a one-shot call does not wait for both.
    let opening = {
        let setup = setup.clone();
        std::thread::spawn(move || setup.open_store())
    };
    let toolset = setup.toolset(cli, approver, toolhost::runtime::Allocation::OnDemand).await;
    let opened = opening.join();
    let toolset = toolset?;
    let store = opened_store(setup, opened)?;
    let session = toolhost::session::SessionRuntime::new(toolset, setup.policy.clone(), store)?;
    let cancel = session.cancel_token().child_token();
    let on_interrupt = cancel.clone();
    tokio::spawn(async move {
        // Ctrl-C or SIGTERM cancels the call (bash's process group is killed) instead of
        // abandoning it; the command then ends as usual and the session's temp dir goes.
        crate::termination_signal().await;
        on_interrupt.cancel();
    });
    let result = session.call(&session.next_call_id(), tool, input, cancel, None).await;
    if json {
        outln!("{}", toolhost::display::json_text(&serde_json::to_string(&result)?));
    } else if std::io::stdout().is_terminal() {
        // What a file or a command printed is shown, not run, on a terminal.
        outln!("{}", toolhost::display::terminal_text(&result.text()));
    } else {
        outln!("{}", result.text());
    }
    if !result.succeeded() && toolhost::observations::is_not_read_message(result.text().trim()) {
        // The model-facing text is the contract's; the person at the command line is told
        // why a one-shot call can never have read the file, and the way that works.
        eprintln!(
            "toolhost: each `toolhost call` is a process of its own, and what was read is remembered only within one process (after a restart the model reads again), so `call {tool}` cannot change an existing file. Read and then edit in one process: `toolhost session` (JSON Lines on stdin, docs/sessions.md), e.g. printf '%s\\n' '{{\"id\":\"1\",\"tool\":\"read\",\"arguments\":{{\"path\":\"F\"}}}}' '{{\"id\":\"2\",\"tool\":\"{tool}\",\"arguments\":{{…}}}}' | toolhost session"
        );
    }
    Ok(if result.succeeded() { ExitCode::SUCCESS } else { ExitCode::FAILURE })
}

/// The tool input: `input` itself, or for `-` stdin's (bounded like one session request),
/// as a JSON object; `Ok(Err(why))` for input that is not one (a usage error).
fn tool_input(input: &str) -> Result<Result<serde_json::Value, String>> {
    let stdin_input;
    let input = if input == "-" {
        use std::io::Read;
        let mut bytes = Vec::new();
        let limit = toolhost_limits::MAX_REQUEST_BYTES;
        std::io::stdin().lock().take(limit as u64 + 1).read_to_end(&mut bytes)?;
        if bytes.len() > limit {
            return Ok(Err(format!("the tool input on stdin is longer than {limit} bytes")));
        }
        let Ok(text) = String::from_utf8(bytes) else {
            return Ok(Err("the tool input on stdin is not UTF-8".into()));
        };
        stdin_input = text;
        stdin_input.as_str()
    } else {
        input
    };
    Ok(match serde_json::from_str(input) {
        Ok(v @ serde_json::Value::Object(_)) => Ok(v),
        Ok(_) => Err("the tool input must be a JSON object, e.g. '{\"path\": \".\"}'".into()),
        Err(e) => Err(format!("the tool input is not valid JSON: {e}")),
    })
}

/// The store the call is recorded in, as the thread that opened it (`opened`) found it: a
/// shared store that cannot record the call is an error (a write it would miss); a local one
/// is left out, with a word on stderr.
fn opened_store(
    setup: &Setup,
    opened: std::thread::Result<Result<toolhost::store::Store>>,
) -> Result<Option<toolhost::store::Store>> {
    Ok(match opened {
        Ok(Ok(store)) => Some(store),
        Ok(Err(e)) if matches!(setup.store, toolhost::store::StoreLocation::Postgres(_)) => {
            return Err(e);
        }
        Err(_) => {
            eprintln!(
                "toolhost: the session store is unavailable (opening it failed); this call will not be recorded"
            );
            None
        }
        Ok(Err(e)) => {
            eprintln!(
                "toolhost: the session store is unavailable ({e:#}); this call will not be recorded"
            );
            None
        }
    })
}
