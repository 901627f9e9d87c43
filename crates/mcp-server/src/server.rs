//! The MCP server: [`McpServer`] answers `tools/list` and `tools/call` over one
//! [`SessionRuntime`], runs calls one after another, and tells its clients when the tool list
//! changes.

use std::sync::Arc;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, Implementation, ListToolsResult,
    PaginatedRequestParams, ProtocolVersion, ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::{RequestContext, RoleServer};
use rmcp::{ErrorData as McpError, Peer, ServerHandler};
use serde_json::Value;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use toolhost_core::context::PROGRESS_CHANNEL_CAPACITY;
use toolhost_session::SessionRuntime;

use crate::convert::{mcp_result, mcp_tool};
use crate::elicit::{self, Asker};
use crate::rounds::{ApprovalRounds, RoundError};
use crate::subscriptions::Subscriptions;
use crate::{progress, stdio};

/// The MCP server: a session runtime, the queue that runs calls in order, and the clients to
/// tell when the tool list changes.
#[derive(Clone)]
pub struct McpServer {
    runtime: Arc<SessionRuntime>,
    turn: Arc<tokio::sync::Mutex<()>>,
    /// Every initialized client (one on stdio, one per MCP session over HTTP).
    peers: Arc<std::sync::Mutex<Vec<Peer<RoleServer>>>>,
    /// The tool ids last advertised, to tell when the list changed.
    advertised: Arc<std::sync::Mutex<Vec<String>>>,
    /// Approvals asked as input-required results (stateless revision); `None` when the OS
    /// gave no randomness for their key (such approvals are then denied).
    rounds: Option<Arc<ApprovalRounds>>,
    /// The `subscriptions/listen` streams of 2026-07-28 clients, told the same.
    subscriptions: Arc<Subscriptions>,
}

impl McpServer {
    /// A server over `runtime`'s toolset.
    pub fn new(runtime: Arc<SessionRuntime>) -> Self {
        let server = McpServer {
            runtime,
            turn: Arc::default(),
            peers: Arc::default(),
            advertised: Arc::default(),
            rounds: ApprovalRounds::new()
                .inspect_err(|e| tracing::warn!("approvals on the stateless revision are off: {e}"))
                .ok()
                .map(Arc::new),
            subscriptions: Arc::default(),
        };
        *server.advertised.lock().unwrap_or_else(|e| e.into_inner()) = server.tool_ids();
        server
    }

    /// The tools offered now: the toolset's, less any disabled for the session.
    fn tools(&self) -> Vec<Tool> {
        self.runtime.toolset().available_definitions().iter().map(mcp_tool).collect()
    }

    fn tool_ids(&self) -> Vec<String> {
        self.runtime.toolset().available_ids().into_iter().map(str::to_string).collect()
    }

    /// Serve later calls on `toolset` (the installed tools changed) and tell every client.
    pub async fn replace_toolset(
        &self,
        toolset: toolhost_core::registry::FinalizedToolset,
    ) -> Result<(), toolhost_session::SessionError> {
        self.runtime.replace_toolset(toolset)?;
        self.notify_if_tools_changed().await;
        Ok(())
    }

    /// If the offered tools differ from those last advertised, send every client
    /// `notifications/tools/list_changed` (dropping clients that are gone).
    pub async fn notify_if_tools_changed(&self) {
        {
            // Compared without cloning: this runs after every call.
            let toolset = self.runtime.toolset();
            let ids = toolset.available_ids();
            let mut advertised = self.advertised.lock().unwrap_or_else(|e| e.into_inner());
            if advertised.iter().map(String::as_str).eq(ids.iter().copied()) {
                return;
            }
            *advertised = ids.into_iter().map(str::to_string).collect();
        }
        let peers: Vec<Peer<RoleServer>> =
            self.peers.lock().unwrap_or_else(|e| e.into_inner()).clone();
        for peer in &peers {
            if let Err(e) = peer.notify_tool_list_changed().await {
                tracing::debug!("tools/list_changed not sent: {e}");
            }
        }
        self.peers.lock().unwrap_or_else(|e| e.into_inner()).retain(|p| !p.is_transport_closed());
        self.subscriptions.tools_changed().await;
    }

    /// Cancel every running and queued call (each ends as `cancelled` and is recorded).
    pub fn cancel_calls(&self) {
        self.runtime.cancel_token().cancel();
    }

    /// Wait until no call is running.
    pub async fn idle(&self) {
        drop(self.turn.lock().await);
    }

    /// Serve MCP on this process's stdin/stdout until the client closes stdin (request lines
    /// over the cap are answered with an error: [`stdio`]).
    pub async fn serve_stdio(self) -> anyhow::Result<()> {
        stdio::serve(self).await
    }

    async fn run_call(
        &self,
        name: String,
        arguments: Value,
        context: RequestContext<RoleServer>,
        asker: elicit::Asker,
    ) -> CallToolResult {
        let cancel = self.runtime.cancel_token().child_token();
        let done = CancellationToken::new();
        // notifications/cancelled → the call's token.
        let watch = async {
            tokio::select! {
                _ = context.ct.cancelled() => cancel.cancel(),
                _ = done.cancelled() => {}
            }
        };
        let (tx, rx) = match context.meta.get_progress_token() {
            Some(token) => {
                let (tx, rx) = mpsc::channel(PROGRESS_CHANNEL_CAPACITY);
                (Some(tx), Some((token, rx)))
            }
            None => (None, None),
        };
        let peer = context.peer.clone();
        let forward = async move {
            let Some((token, rx)) = rx else { return };
            progress::forward(peer, token, rx).await;
        };
        let call = async {
            // One call at a time, in arrival order; a call cancelled while queued runs as
            // cancelled (recorded) without waiting for its turn.
            let turn = tokio::select! {
                g = self.turn.lock() => Some(g),
                _ = cancel.cancelled() => None,
            };
            let call_id = self.runtime.next_call_id();
            let result = self.runtime.call(&call_id, &name, arguments, cancel.clone(), tx).await;
            drop(turn);
            done.cancel();
            // A tool the call disabled (it crashed too often) leaves the list.
            self.notify_if_tools_changed().await;
            mcp_result(&result, &call_id)
        };
        let call = elicit::asking(asker, call);
        let (result, (), ()) = tokio::join!(call, watch, forward);
        result
    }
}

impl ServerHandler for McpServer {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(
            ServerCapabilities::builder().enable_tools().enable_tool_list_changed().build(),
        )
        .with_server_info(Implementation::new("toolhost", env!("CARGO_PKG_VERSION")))
        .with_instructions(
            "Tools for working in one workspace: read, write, edit, grep, glob, list and bash \
                 (bash runs in an OS sandbox). Read a file before editing it.",
        )
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, McpError> {
        let tools = self.tools();
        *self.advertised.lock().unwrap_or_else(|e| e.into_inner()) =
            tools.iter().map(|t| t.name.to_string()).collect();
        Ok(ListToolsResult::with_all_items(tools))
    }

    fn get_tool(&self, name: &str) -> Option<Tool> {
        self.runtime.toolset().available_definition(name).map(mcp_tool)
    }

    fn accepted_subscription_filter(
        &self,
        requested: &rmcp::model::SubscriptionFilter,
    ) -> Option<rmcp::model::SubscriptionFilter> {
        Some(Subscriptions::accepted(requested))
    }

    async fn listen(
        &self,
        subscription: rmcp::service::SubscriptionContext,
    ) -> Result<(), McpError> {
        // Shutdown (`cancel_calls`) ends it gracefully: the client gets the final result.
        self.subscriptions.listen(subscription, self.runtime.cancel_token()).await
    }

    async fn on_initialized(&self, context: rmcp::service::NotificationContext<RoleServer>) {
        let mut peers = self.peers.lock().unwrap_or_else(|e| e.into_inner());
        peers.retain(|p| !p.is_transport_closed());
        peers.push(context.peer);
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        let name = request.name.to_string();
        // A tool disabled for the session is still called: its result says why.
        let toolset = self.runtime.toolset();
        if !toolset.definitions().iter().any(|d| d.id.as_str() == name) {
            let ids: Vec<String> =
                toolset.available_definitions().iter().map(|d| d.id.to_string()).collect();
            return Err(McpError::invalid_params(
                format!("tool `{name}` is not available; available tools: {}", ids.join(", ")),
                None,
            ));
        }
        let arguments = Value::Object(request.arguments.unwrap_or_default());
        // Who answers an approval this call needs (docs/mcp.md#approvals).
        let stateless = context
            .protocol_version()
            .is_some_and(|v| v.as_str() >= ProtocolVersion::V_2026_07_28.as_str());
        let retried = request.request_state.is_some() || request.input_responses.is_some();
        let asker = match (&self.rounds, stateless, retried) {
            (_, false, _) => Asker::Client(context.peer.clone()),
            (Some(rounds), true, true) => {
                let (Some(state), Some(responses)) =
                    (&request.request_state, &request.input_responses)
                else {
                    return Err(McpError::invalid_params(RoundError::Incomplete.to_string(), None));
                };
                match rounds.answer(&name, &arguments, state, responses) {
                    Ok(approved) => Asker::Answered(approved),
                    Err(e) => return Err(McpError::invalid_params(e.to_string(), None)),
                }
            }
            // Asked whether or not the client declared elicitation: a question it cannot
            // answer is MissingRequiredClientCapability (below).
            (Some(_), true, false) => Asker::Round(Arc::default()),
            // Nobody to ask: denied.
            _ => Asker::Answered(false),
        };
        let can_answer = context.client_capabilities().is_some_and(|c| c.elicitation.is_some());
        let question = match &asker {
            Asker::Round(question) => Some(question.clone()),
            _ => None,
        };
        let result = self.run_call(name.clone(), arguments.clone(), context, asker).await;
        let asked = question.and_then(|q| q.lock().unwrap_or_else(|e| e.into_inner()).take());
        match (asked, &self.rounds) {
            // The call was denied for want of an answer: ask for it.
            (Some(message), Some(rounds)) if can_answer => {
                Ok(CallToolResponse::InputRequired(rounds.ask(&name, &arguments, message)))
            }
            // It needs an approval and the client did not declare elicitation (-32021; HTTP 400).
            (Some(_), Some(_)) => Err(elicitation_required()),
            _ => Ok(result.into()),
        }
    }
}

/// MissingRequiredClientCapability (-32021) naming form elicitation: the call needs an
/// approval, and a 2026-07-28 client that did not declare elicitation cannot give one.
fn elicitation_required() -> McpError {
    let required: rmcp::model::ClientCapabilities =
        serde_json::from_value(serde_json::json!({"elicitation": {"form": {}}}))
            .unwrap_or_default();
    let mut error = McpError::missing_required_client_capability(required);
    error.message =
        "this call needs the user's approval, asked through form elicitation: declare the \
         elicitation capability in the request's _meta to be asked"
            .into();
    error
}
