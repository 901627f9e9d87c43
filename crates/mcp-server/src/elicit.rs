//! The escalation approver of `toolhost mcp` without `--allow-escalation`: asks the user
//! through MCP elicitation, in the words of the terminal prompt
//! (`toolhost_core::approval::approval_request`).

use std::future::Future;

use async_trait::async_trait;
use rmcp::Peer;
use rmcp::model::{ElicitRequestParams, ElicitationAction, ElicitationSchema};
use rmcp::service::RoleServer;
use serde_json::Value;

use toolhost_core::approval::Approver;
use toolhost_sandbox::policy::Escalation;

tokio::task_local! {
    /// The client of the MCP request whose call is running (for elicitation).
    static CLIENT: Peer<RoleServer>;
}

/// Asks the MCP client (elicitation, form mode) whether an escalation may run; denies when
/// the client did not declare elicitation, on the stateless revision, or when it fails.
pub struct ElicitEscalations;

#[async_trait]
impl Approver for ElicitEscalations {
    async fn approve(&self, tool: &str, escalation: &Escalation) -> bool {
        let Ok(peer) = CLIENT.try_with(|p| p.clone()) else { return false };
        if !peer.supported_elicitation_modes().contains(&rmcp::service::ElicitationMode::Form) {
            return false;
        }
        // The words of every approval channel (`approval_request`), the model's on one escaped line.
        let message = toolhost_core::approval::approval_request(tool, escalation);
        let Ok(schema) = ElicitationSchema::builder().required_bool("approve").build() else {
            return false;
        };
        let params = ElicitRequestParams::FormElicitationParams {
            meta: None,
            message,
            requested_schema: schema,
        };
        match peer.create_elicitation(params).await {
            Ok(r) => {
                r.action == ElicitationAction::Accept
                    && r.content.as_ref().and_then(|c| c.get("approve")).and_then(Value::as_bool)
                        == Some(true)
            }
            Err(e) => {
                tracing::warn!("elicitation for an escalation failed: {e}");
                false
            }
        }
    }
}

/// Run `call` (one MCP request's tool call) with `client` as the one [`ElicitEscalations`] asks.
pub(crate) async fn asking<F: Future>(client: Peer<RoleServer>, call: F) -> F::Output {
    CLIENT.scope(client, call).await
}
