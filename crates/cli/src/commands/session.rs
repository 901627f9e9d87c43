//! `toolhost session`: the JSON Lines protocol on stdin/stdout, every call recorded.

use std::process::ExitCode;
use std::sync::Arc;

use anyhow::Result;

use crate::Cli;
use crate::setup::Setup;

/// Serve requests from stdin until it closes.
pub async fn run(setup: &Setup, cli: &Cli) -> Result<ExitCode> {
    let toolset = setup.toolset(cli, None, toolhost::runtime::Allocation::Pooling).await?;
    let store = toolhost::store::Store::open(&setup.data_dir)?;
    let session = Arc::new(toolhost::session::SessionRuntime::new(
        toolset,
        setup.policy.clone(),
        Some(store),
    )?);
    let stdin = tokio::io::BufReader::new(tokio::io::stdin());
    session.serve_jsonl(stdin, tokio::io::stdout()).await?;
    Ok(ExitCode::SUCCESS)
}
