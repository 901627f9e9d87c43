//! `toolhost session`: the JSON Lines protocol on stdin/stdout, every call recorded.

use std::process::ExitCode;
use std::sync::Arc;

use anyhow::Result;

use crate::Cli;
use crate::setup::Setup;

/// Serve requests from stdin until it closes; with `client_approves`, approvals are asked
/// of the client (docs/sessions.md#approvals).
pub async fn run(setup: &Setup, cli: &Cli, client_approves: bool) -> Result<ExitCode> {
    let approvals = client_approves.then(toolhost::session::approvals::ClientApprovals::new);
    let approver = approvals.clone().map(|a| a as Arc<dyn toolhost::approval::Approver>);
    let toolset = setup.toolset(cli, approver, toolhost::runtime::Allocation::Pooling).await?;
    let store = setup.open_store()?;
    let mut session =
        toolhost::session::SessionRuntime::new(toolset, setup.policy.clone(), Some(store))?;
    if let Some(approvals) = approvals {
        session = session.with_client_approvals(approvals);
    }
    let session = Arc::new(session);
    let stdin = tokio::io::BufReader::new(tokio::io::stdin());
    session.serve_jsonl(stdin, tokio::io::stdout()).await?;
    Ok(ExitCode::SUCCESS)
}
