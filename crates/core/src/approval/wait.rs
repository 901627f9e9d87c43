//! The one rule for how long a call waits for a person ([`wait_for_approval`]), and how the
//! wait ended ([`ApprovalOutcome`]), for escalations and runs alike.

use super::{Approval, Approver, Verdict};
use crate::context::ToolCallContext;
use crate::result::{ErrorCode, ToolError, ToolResult, ToolResultStatus};

/// How the wait for a person's answer to one approval ended ([`wait_for_approval`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ApprovalOutcome {
    /// The approver allowed it: the call goes on.
    Allowed,
    /// Nobody could be asked, so nobody approved it.
    Denied,
    /// A person was asked and said no.
    Declined,
    /// The call was cancelled while it waited.
    Cancelled,
    /// The call reached its deadline while it waited.
    TimedOut,
}

impl ApprovalOutcome {
    /// The `tool` call's result when it may not go on, and nothing of it ran: `denied` with
    /// [`Approval::denied`]'s words (or [`Approval::declined`]'s when a person said no),
    /// `cancelled`, or `timeout`; none when it was allowed.
    pub fn refusal(self, tool: &str, approval: Approval<'_>) -> Option<ToolResult> {
        let error = match self {
            ApprovalOutcome::Allowed => return None,
            ApprovalOutcome::Denied | ApprovalOutcome::Declined => {
                let text = if self == ApprovalOutcome::Declined {
                    approval.declined(tool)
                } else {
                    approval.denied(tool)
                };
                let mut denied = ToolResult::from_error(ToolError::permission_denied(text));
                denied.status = ToolResultStatus::Denied;
                return Some(denied);
            }
            ApprovalOutcome::Cancelled => ToolError::new(
                ErrorCode::Cancelled,
                format!(
                    "the `{tool}` call was cancelled while it waited for approval; nothing ran"
                ),
            ),
            ApprovalOutcome::TimedOut => ToolError::new(
                ErrorCode::Timeout,
                format!(
                    "the `{tool}` call reached its deadline while it waited for approval; nothing ran"
                ),
            ),
        };
        Some(ToolResult::from_error(error))
    }
}

/// The one rule for how long a call waits for a person (docs/security.md#approvals): asks
/// `approver` about the `tool` call `call` and waits for its answer until the call is
/// cancelled or reaches its deadline — the call's own, and never later than
/// [`toolhost_limits::APPROVAL_MAX_WAIT_MS`] from now — whichever comes first. The approval
/// stage ([`super::stage::decide`]) waits through it for escalations and runs alike, so an
/// unanswered question never holds a call past its bounds; the question is dropped then (an
/// approver stops asking when its future is dropped: the terminal stops reading).
pub async fn wait_for_approval(
    approver: &dyn Approver,
    tool: &str,
    approval: Approval<'_>,
    call: &ToolCallContext,
) -> ApprovalOutcome {
    use tokio::time::Instant;
    let longest =
        Instant::now() + std::time::Duration::from_millis(toolhost_limits::APPROVAL_MAX_WAIT_MS);
    let deadline = call.deadline.map_or(longest, |d| Instant::from_std(d).min(longest));
    tokio::select! {
        // A cancel or a deadline already past wins over an answer given at once.
        biased;
        () = call.cancel.cancelled() => ApprovalOutcome::Cancelled,
        () = tokio::time::sleep_until(deadline) => ApprovalOutcome::TimedOut,
        verdict = approver.approve(tool, approval) => match verdict {
            Verdict::Allowed => ApprovalOutcome::Allowed,
            Verdict::Declined => ApprovalOutcome::Declined,
            Verdict::Unasked => ApprovalOutcome::Denied,
        }
    }
}

#[cfg(test)]
mod tests;
