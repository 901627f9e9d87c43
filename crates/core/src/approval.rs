//! Approvals: what a call may do only once a person said yes, decided and awaited in one
//! place for every channel and both kinds of approval.
//!
//! * An escalation (docs/contract.md#escalation-parameters): a call that carries
//!   `sandboxPermissions` runs only if an [`Approver`] allows it, and then with a policy
//!   widened for this call alone.
//! * A run (docs/workspace-tools.md#approvals): a call of a tool that asks before every run
//!   (`workspace_shell`, `workspace_tests run`) describes the one program it will run
//!   ([`RunApproval`], its spec a `toolhost_run_spec::RunSpec`); it runs only if an
//!   [`Approver`] allows it, and then only that program, exactly. The host first finds out
//!   what that run will actually be ([`RunFacts`]: the program file found on PATH,
//!   [`program`]; the package scripts a package manager runs, [`package`]; every place it may
//!   write, its private cache dir, [`cache`]), the question is built from those
//!   ([`question::run_request`]), bounded ([`RunApproval::check_size`]), and the run executes
//!   exactly them, let through once by a [`RunGate`].
//!
//! The flow: the toolset finds what a call asks ([`Request`]: its escalation parameters, or
//! the tool's [`crate::tool::DynTool::planned_run`]); [`stage::decide`] — the one approval
//! stage of every call — asks the session's [`Approver`] when a person must decide and waits
//! by the one rule of [`wait::wait_for_approval`] (an answer, the call's cancel or its
//! deadline, never past `APPROVAL_MAX_WAIT_MS`); the call then runs widened or gated, or ends
//! with the refusal of [`ApprovalOutcome::refusal`]. [`Approval`] is what a person is asked;
//! [`Approval::question`] is the text every channel shows (the terminal prompt, the
//! session's client, MCP elicitation and input-required rounds).
//!
//! The map: [`stage`] (the decision), [`wait`] (the wait rule and its outcome), [`run`] (a
//! run's description, facts, size bound and gate), [`question`] (every text a person or the
//! model reads), [`terminal`] (the terminal's approver), [`program`], [`package`], [`cache`]
//! (what the host finds out about a run before asking).

pub mod cache;
pub mod package;
pub mod program;
pub mod question;
pub mod run;
pub mod stage;
pub mod terminal;
pub mod wait;

use async_trait::async_trait;
use toolhost_policy::Escalation;

pub use cache::RunCache;
pub use package::{PackageJson, PackageScripts};
pub use program::ProgramFile;
pub use question::{RUNS_IN_TURN, approval_request, run_request};
pub use run::{QuestionTooLong, RunApproval, RunFacts, RunGate};
pub use stage::{Request, decide};
pub use terminal::{TerminalApprovals, ask_on_terminal};
pub use wait::{ApprovalOutcome, wait_for_approval};

/// What one call asks a person to allow.
#[derive(Debug, Clone, Copy)]
pub enum Approval<'a> {
    /// Extra paths (or the network) beyond the call's sandbox.
    Escalation(&'a Escalation),
    /// One program run, exactly as described.
    Run(&'a RunApproval),
}

impl Approval<'_> {
    /// The words every approval channel shows for this approval of a `tool` call.
    pub fn question(&self, tool: &str) -> String {
        match self {
            Approval::Escalation(escalation) => question::approval_request(tool, escalation),
            Approval::Run(run) => question::run_request(tool, run),
        }
    }

    /// The model-visible text of the call when nobody approved it (status `denied`).
    pub fn denied(&self, tool: &str) -> String {
        match self {
            Approval::Escalation(escalation) => question::denied_message(tool, escalation),
            Approval::Run(run) => question::run_denied_message(tool, run),
        }
    }

    /// The model-visible text of the call when the user was asked and said no (status
    /// `denied`): that, and nothing more.
    pub fn declined(&self, tool: &str) -> String {
        match self {
            Approval::Escalation(escalation) => question::declined_message(tool, escalation),
            Approval::Run(run) => question::run_declined_message(tool, run),
        }
    }
}

/// What an approver answered about one approval.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// Allowed: the call goes on.
    Allowed,
    /// A person was asked and said no.
    Declined,
    /// Nobody could be asked (no approver, no terminal, a client that cannot answer): no.
    Unasked,
}

impl Verdict {
    /// [`Verdict::Allowed`] or, when `allowed` is false, [`Verdict::Declined`]: the answer of
    /// a person who was asked.
    pub fn answered(allowed: bool) -> Self {
        if allowed { Verdict::Allowed } else { Verdict::Declined }
    }
}

/// Answers approvals: whom a session asks (a channel), for escalations and runs alike.
/// Only [`stage::decide`] asks it, through [`wait::wait_for_approval`].
#[async_trait]
pub trait Approver: Send + Sync {
    /// Whether the `tool` call may do what `approval` says, and who said no if not.
    async fn approve(&self, tool: &str, approval: Approval<'_>) -> Verdict;
}

/// Refuses every approval, nobody asked: the default when nobody can be asked.
pub struct DenyApprovals;

#[async_trait]
impl Approver for DenyApprovals {
    async fn approve(&self, _: &str, _: Approval<'_>) -> Verdict {
        Verdict::Unasked
    }
}

/// Allows every approval, escalations and runs alike: chosen explicitly by the operator
/// (`--allow-escalation`).
pub struct AllowApprovals;

#[async_trait]
impl Approver for AllowApprovals {
    async fn approve(&self, _: &str, _: Approval<'_>) -> Verdict {
        Verdict::Allowed
    }
}

#[cfg(test)]
mod tests;
