//! The approver (escalations and runs) of `toolhost mcp` without `--allow-escalation`, in the words of
//! the terminal prompt (`toolhost_core::approval::Approval::question`): on a handshake session
//! it asks the user through MCP elicitation; on the stateless 2026-07-28 revision, which
//! forbids the server's own requests, the question leaves as an input-required result
//! ([`crate::rounds`]) and the retried call brings the answer.

use std::future::Future;
use std::sync::{Arc, Mutex};

use async_trait::async_trait;
use rmcp::Peer;
use rmcp::model::{ElicitRequestParams, ElicitResult, ElicitationAction, ElicitationSchema};
use rmcp::service::RoleServer;
use serde_json::Value;

use toolhost_core::approval::{Approval, Approver, Verdict};

/// Who answers the approvals of the MCP request whose call is running.
#[derive(Clone)]
pub(crate) enum Asker {
    /// A handshake session's client, asked through elicitation (denied when it did not
    /// declare elicitation, or on the stateless revision).
    Client(Peer<RoleServer>),
    /// A stateless request whose client can answer an input-required round: the question
    /// is kept here (the call is denied), and the server answers the request with it.
    Round(Arc<Mutex<Option<String>>>),
    /// A stateless retry whose sealed round was checked: its answer.
    Answered(bool),
    /// Nobody can be asked for this request: denied.
    Nobody,
}

tokio::task_local! {
    /// Who answers for the MCP request whose call is running.
    static ASKER: Asker;
}

/// Asks whoever answers for the running MCP request ([`Asker`]); denies when nobody can be
/// asked or asking fails.
pub struct ElicitApprovals;

#[async_trait]
impl Approver for ElicitApprovals {
    async fn approve(&self, tool: &str, approval: Approval<'_>) -> Verdict {
        let Ok(asker) = ASKER.try_with(Asker::clone) else { return Verdict::Unasked };
        // The words of every approval channel, the model's on one escaped line.
        let message = approval.question(tool);
        match asker {
            Asker::Client(peer) => elicit(&peer, message).await,
            Asker::Round(question) => {
                *question.lock().unwrap_or_else(|e| e.into_inner()) = Some(message);
                Verdict::Unasked
            }
            Asker::Answered(approved) => Verdict::answered(approved),
            Asker::Nobody => Verdict::Unasked,
        }
    }
}

async fn elicit(peer: &Peer<RoleServer>, message: String) -> Verdict {
    if !peer.supported_elicitation_modes().contains(&rmcp::service::ElicitationMode::Form) {
        return Verdict::Unasked;
    }
    let Some(params) = approval_form(message) else { return Verdict::Unasked };
    crate::metrics::metrics().approval_asked();
    match peer.create_elicitation(params).await {
        Ok(answer) => Verdict::answered(approves(&answer)),
        Err(e) => {
            tracing::warn!("elicitation for an approval failed: {e}");
            Verdict::Unasked
        }
    }
}

/// The form every MCP approval asks with (elicitation or an input-required round): the
/// question and one required boolean, `approve`.
pub(crate) fn approval_form(message: String) -> Option<ElicitRequestParams> {
    let schema = ElicitationSchema::builder().required_bool("approve").build().ok()?;
    Some(ElicitRequestParams::FormElicitationParams {
        meta: None,
        message,
        requested_schema: schema,
    })
}

/// Whether an answer to [`approval_form`] approves: accepted, with `approve: true`.
pub(crate) fn approves(answer: &ElicitResult) -> bool {
    answer.action == ElicitationAction::Accept
        && answer.content.as_ref().and_then(|c| c.get("approve")).and_then(Value::as_bool)
            == Some(true)
}

/// Run `call` (one MCP request's tool call) with `asker` answering its approvals.
pub(crate) async fn asking<F: Future>(asker: Asker, call: F) -> F::Output {
    ASKER.scope(asker, call).await
}
