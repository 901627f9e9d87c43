//! `toolhost tools`: the finalized toolset's definitions, in toolset order.

use std::process::ExitCode;

use anyhow::Result;

use crate::Cli;
use crate::setup::Setup;

/// Print each definition's id and first line, escaped for a terminal (or, with `json`, the
/// definitions as JSON).
pub async fn run(setup: &Setup, cli: &Cli, json: bool) -> Result<ExitCode> {
    let toolset = setup.toolset(cli, None, toolhost::runtime::Allocation::OnDemand).await?;
    if json {
        outln!(
            "{}",
            toolhost::display::json_text(&serde_json::to_string_pretty(toolset.definitions())?)
        );
    } else {
        for def in toolset.definitions() {
            // A component wrote both: shown, not run, on one line each (no escape sequence
            // reaches the terminal, no second line of the listing is forged).
            let summary = def.description.trim().lines().next().unwrap_or("");
            outln!(
                "{}\t{}",
                toolhost::display::terminal_line(def.id.as_str()),
                toolhost::display::terminal_line(summary)
            );
        }
    }
    Ok(ExitCode::SUCCESS)
}
