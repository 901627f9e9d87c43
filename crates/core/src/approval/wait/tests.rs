//! The one wait rule for approvals ([`super::wait_for_approval`]): an answer, a cancel or the
//! call's deadline ends the wait, and the outcome says which.

use std::time::{Duration, Instant};

use async_trait::async_trait;
use toolhost_policy::{Escalation, SandboxPolicy};

use super::*;
use crate::approval::{AllowApprovals, DenyApprovals};
use crate::context::ToolCallContext;

/// An approver that never answers.
struct Silent;

#[async_trait]
impl Approver for Silent {
    async fn approve(&self, _: &str, _: Approval<'_>) -> Verdict {
        std::future::pending().await
    }
}

fn escalation() -> Escalation {
    Escalation { grants: Vec::new(), network: true, justification: "why".into() }
}

fn call() -> ToolCallContext {
    ToolCallContext::new("c1", SandboxPolicy::workspace_write("/w"))
}

#[tokio::test]
async fn an_answer_ends_the_wait() {
    let e = escalation();
    let asking = Approval::Escalation(&e);
    let allowed = wait_for_approval(&AllowApprovals, "bash", asking, &call()).await;
    assert_eq!(allowed, ApprovalOutcome::Allowed);
    assert!(allowed.refusal("bash", asking).is_none());
    let denied = wait_for_approval(&DenyApprovals, "bash", asking, &call()).await;
    assert_eq!(denied, ApprovalOutcome::Denied);
    let result = denied.refusal("bash", asking).unwrap();
    assert_eq!(result.status, ToolResultStatus::Denied);
    assert_eq!(result.text(), asking.denied("bash"));
}

#[tokio::test]
async fn an_unanswered_question_ends_at_the_calls_deadline() {
    let e = escalation();
    let asking = Approval::Escalation(&e);
    let started = Instant::now();
    let call = call().with_deadline(started + Duration::from_millis(200));
    let outcome = wait_for_approval(&Silent, "bash", asking, &call).await;
    assert_eq!(outcome, ApprovalOutcome::TimedOut);
    let waited = started.elapsed();
    assert!(waited >= Duration::from_millis(200) && waited < Duration::from_secs(10), "{waited:?}");
    let result = outcome.refusal("bash", asking).unwrap();
    assert_eq!(result.error.as_ref().unwrap().code, ErrorCode::Timeout);
    assert!(result.text().contains("nothing ran"), "{}", result.text());
}

#[tokio::test]
async fn a_cancel_ends_the_wait() {
    let e = escalation();
    let asking = Approval::Escalation(&e);
    let call = call();
    let cancel = call.cancel.clone();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(50)).await;
        cancel.cancel();
    });
    let outcome = wait_for_approval(&Silent, "workspace_shell", asking, &call).await;
    assert_eq!(outcome, ApprovalOutcome::Cancelled);
    let result = outcome.refusal("workspace_shell", asking).unwrap();
    assert_eq!(result.status, ToolResultStatus::Cancelled);
}

#[tokio::test(start_paused = true)]
async fn a_later_deadline_or_none_is_cut_to_the_bound() {
    let e = escalation();
    let asking = Approval::Escalation(&e);
    let bound = Duration::from_millis(toolhost_limits::APPROVAL_MAX_WAIT_MS);
    let far = Instant::now() + Duration::from_secs(24 * 3600);
    for call in [call(), call().with_deadline(far)] {
        let started = tokio::time::Instant::now();
        let outcome = wait_for_approval(&Silent, "bash", asking, &call).await;
        assert_eq!(outcome, ApprovalOutcome::TimedOut);
        let waited = started.elapsed();
        assert!(waited >= bound && waited < bound + Duration::from_secs(1), "{waited:?}");
    }
}
