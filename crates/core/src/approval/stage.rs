//! The approval stage of a call: the one place that decides whether a call needs a
//! person's decision before it runs, asks the session's approver, waits by the one rule
//! ([`super::wait::wait_for_approval`]) and turns the answer into the call the tool gets —
//! for escalations and runs alike, whoever asks (the terminal, a session's client, an MCP
//! client). `FinalizedToolset::call` (`crate::registry`) runs every call through
//! [`decide`]; what a call asks ([`Request`]) comes from its escalation parameters (the
//! toolset's) or from its tool ([`crate::tool::DynTool::planned_run`]).

use std::sync::Arc;

use toolhost_policy::{Escalation, NetworkAccess};

use super::run::{RunApproval, RunGate};
use super::wait::wait_for_approval;
use super::{Approval, Approver};
use crate::context::ToolCallContext;
use crate::result::ToolResult;

/// What one call asks to be allowed before it runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Request {
    /// Nothing: the call runs as it is.
    Nothing,
    /// Extra access for this call alone (its `sandboxPermissions`, validated).
    Escalation(Escalation),
    /// A call of a tool that asks before every run: the one run it will make (what the host
    /// found out about it included), or none when it runs nothing.
    Run(Option<Box<RunApproval>>),
}

/// The approval stage of the `tool` call `call`: whether `request` needs a person's
/// decision, asked of `approver` and awaited by the one wait rule when it does; then the
/// call the tool gets — its policy widened by an approved escalation, or held to the one
/// approved run by a [`RunGate`] (a closed gate when it runs nothing) — or, when it may not
/// go on, its result (`denied`, `cancelled`, `timeout`), and nothing of it ran.
///
/// A run that cannot start (no program file of its name, no such directory) needs nobody's
/// decision: its gate lets it through unasked, and the runtime starts nothing for it.
pub async fn decide(
    approver: &dyn Approver,
    tool: &str,
    request: Request,
    mut call: ToolCallContext,
) -> Result<ToolCallContext, ToolResult> {
    match request {
        Request::Nothing => Ok(call),
        Request::Escalation(escalation) => {
            ask(approver, tool, Approval::Escalation(&escalation), &call).await?;
            call.sandbox_policy = call.sandbox_policy.with_grants(escalation.grants);
            if escalation.network {
                call.sandbox_policy = call.sandbox_policy.with_network(NetworkAccess::Allow);
            }
            Ok(call)
        }
        Request::Run(None) => {
            call.run_gate = Some(Arc::new(RunGate::closed()));
            Ok(call)
        }
        Request::Run(Some(run)) => {
            if run.facts.program.is_some() {
                ask(approver, tool, Approval::Run(&run), &call).await?;
            }
            call.run_gate = Some(Arc::new(RunGate::approved(*run)));
            Ok(call)
        }
    }
}

/// Asks `approver` about `approval` and waits; the call's refusal unless it was allowed.
async fn ask(
    approver: &dyn Approver,
    tool: &str,
    approval: Approval<'_>,
    call: &ToolCallContext,
) -> Result<(), ToolResult> {
    let outcome = wait_for_approval(approver, tool, approval, call).await;
    match outcome.refusal(tool, approval) {
        Some(refused) => Err(refused),
        None => Ok(()),
    }
}
