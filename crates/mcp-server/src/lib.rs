//! `toolhost mcp`: a Model Context Protocol server (rmcp) over one [`SessionRuntime`].
//!
//! * `tools/list`: the finalized toolset in toolset order; name = tool id, `inputSchema` = the
//!   definition's schema, annotations from the risk (`readOnlyHint` for read-only tools,
//!   `destructiveHint` for workspace mutation and process execution).
//! * `tools/call`: runs through the session runtime (one after another, recorded in the store
//!   like JSON Lines session calls). The model-visible text is the one text content; `isError`
//!   is set for every status but `succeeded`. Status, artifacts, the error code and
//!   `sandbox_denied` travel in the result's `_meta` under `toolhost/…` keys — never in the
//!   content, so they do not reach the model (`docs/contract.md#results`); so does a component call's
//!   `usage` (wall time, peak memory).
//! * `notifications/progress` for calls that carry a progress token (the call's
//!   [`ToolProgress`], in order); `notifications/cancelled` cancels the call's token.
//! * Escalation (`sandboxPermissions`): with `--allow-escalation` every one is approved;
//!   otherwise [`ElicitEscalations`] asks the user through MCP elicitation when the client
//!   declared it (handshake revisions only: 2026-07-28 forbids server-to-client requests),
//!   and denies when nobody can be asked. The message is the terminal prompt's words
//!   (`toolhost_core::approval::approval_request`).
//!
//! Both the 2025-11-25 revision (`initialize` handshake) and the stateless 2026-07-28
//! revision (per-request `_meta`, `server/discover`) are served: rmcp selects the lifecycle
//! from the first request. Nothing but protocol messages is written to stdout.
//!
//! Transports: [`stdio`] (request lines capped and answered when refused) and [`http`]
//! (`--listen`: bearer token [`auth`], Host/Origin checks, per-connection timeouts, a bound on
//! live MCP sessions).

pub mod auth;
pub mod conns;
pub mod http;
mod sessions;
pub mod stdio;
mod watch;

use std::sync::Arc;

use async_trait::async_trait;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, ElicitRequestParams, ElicitationAction,
    ElicitationSchema, Implementation, JsonObject, ListToolsResult, MetaObject, PaginatedRequestParams,
    ProgressNotificationParam, ServerCapabilities, ServerConfig, Tool, ToolAnnotations,
};
use rmcp::service::{RequestContext, RoleServer};
use rmcp::{ErrorData as McpError, Peer, ServerHandler};
use serde_json::Value;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use toolhost_core::approval::Approver;
use toolhost_core::context::{PROGRESS_CHANNEL_CAPACITY, ToolProgress};
use toolhost_core::result::ToolResult;
use toolhost_session::SessionRuntime;
use toolhost_core::tool::{ToolDefinition, ToolRisk};
use toolhost_sandbox::policy::Escalation;

/// `_meta` key: the call's status (`succeeded`, `failed`, `denied`, `cancelled`, `outcome_unknown`).
pub const META_STATUS: &str = "toolhost/status";
/// `_meta` key: the call's artifacts (file changes), as in the ToolResult JSON.
pub const META_ARTIFACTS: &str = "toolhost/artifacts";
/// `_meta` key: whether the sandbox denied something the call tried.
pub const META_SANDBOX_DENIED: &str = "toolhost/sandboxDenied";
/// `_meta` key: the typed error (`code`, `retryable`) of a call that did not succeed.
pub const META_ERROR: &str = "toolhost/error";
/// `_meta` key: the tool call id (the change id of a file change it made).
pub const META_CALL_ID: &str = "toolhost/callId";
/// `_meta` key: what a component call cost (`wallUs`, `peakMemoryBytes`), as in the
/// ToolResult JSON's `usage`.
pub const META_USAGE: &str = "toolhost/usage";

/// The MCP tool for a toolset definition.
pub fn mcp_tool(def: &ToolDefinition) -> Tool {
    let schema: JsonObject = match &def.input_schema {
        Value::Object(map) => map.clone(),
        _ => {
            let mut m = JsonObject::new();
            m.insert("type".into(), Value::from("object"));
            m
        }
    };
    let annotations = match def.risk {
        ToolRisk::ReadOnly => ToolAnnotations::new().read_only(true).destructive(false),
        ToolRisk::WorkspaceMutation | ToolRisk::ProcessExecution => {
            ToolAnnotations::new().read_only(false).destructive(true)
        }
    };
    let mut tool = Tool::new(def.id.as_str().to_string(), def.description.clone(), Arc::new(schema)).with_annotations(annotations);
    if let Some(Value::Object(output)) = &def.output_schema {
        tool.output_schema = Some(Arc::new(output.clone()));
    }
    tool
}

/// The MCP result for a ToolResult: the text as content, the structured value (checked
/// against the tool's output schema by the runtime) as `structuredContent`, everything else
/// in `_meta`.
pub fn mcp_result(result: &ToolResult, call_id: &str) -> CallToolResult {
    let content = vec![ContentBlock::text(result.text())];
    let mut out = if result.succeeded() { CallToolResult::success(content) } else { CallToolResult::error(content) };
    out.structured_content = result.structured.clone();
    let mut meta = JsonObject::new();
    meta.insert(META_STATUS.into(), serde_json::to_value(result.status).unwrap_or(Value::Null));
    meta.insert(META_ARTIFACTS.into(), serde_json::to_value(&result.artifacts).unwrap_or_else(|_| Value::Array(vec![])));
    meta.insert(META_SANDBOX_DENIED.into(), Value::Bool(result.sandbox_denied));
    meta.insert(META_CALL_ID.into(), Value::from(call_id));
    if let Some(e) = &result.error {
        meta.insert(META_ERROR.into(), serde_json::json!({"code": e.code, "retryable": e.retryable}));
    }
    if let Some(usage) = &result.usage {
        meta.insert(META_USAGE.into(), serde_json::to_value(usage).unwrap_or(Value::Null));
    }
    out.meta = Some(MetaObject(meta));
    out
}

/// The `progress` (and `total`) of a call's notifications: a count while the tool reports
/// no fraction; once it does, the fraction of [`PROGRESS_TOTAL`]. MCP wants `progress` to
/// grow with every notification, so a value that would not is nudged past the last one.
#[derive(Debug, Default)]
pub struct ProgressCounter {
    last: f64,
    fractions: bool,
}

/// The `total` of a call whose tool reports fractions: `progress` is then a percentage.
pub const PROGRESS_TOTAL: f64 = 100.0;

impl ProgressCounter {
    /// `progress` and `total` for the next notification.
    pub fn next(&mut self, fraction: Option<f64>) -> (f64, Option<f64>) {
        let nudged = |last: f64| last + (PROGRESS_TOTAL - last).min(1.0) / 1000.0 + f64::EPSILON * PROGRESS_TOTAL;
        let value = match fraction {
            Some(f) => {
                self.fractions = true;
                let v = f.clamp(0.0, 1.0) * PROGRESS_TOTAL;
                if v > self.last { v } else { nudged(self.last) }
            }
            None if self.fractions => nudged(self.last),
            None => self.last + 1.0,
        };
        self.last = value;
        (value, self.fractions.then_some(PROGRESS_TOTAL))
    }
}

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
        let Ok(schema) = ElicitationSchema::builder().required_bool("approve").build() else { return false };
        let params = ElicitRequestParams::FormElicitationParams { meta: None, message, requested_schema: schema };
        match peer.create_elicitation(params).await {
            Ok(r) => {
                r.action == ElicitationAction::Accept
                    && r.content.as_ref().and_then(|c| c.get("approve")).and_then(Value::as_bool) == Some(true)
            }
            Err(e) => {
                tracing::warn!("elicitation for an escalation failed: {e}");
                false
            }
        }
    }
}

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
}

impl McpServer {
    /// A server over `runtime`'s toolset.
    pub fn new(runtime: Arc<SessionRuntime>) -> Self {
        let server = McpServer { runtime, turn: Arc::default(), peers: Arc::default(), advertised: Arc::default() };
        *server.advertised.lock().unwrap_or_else(|e| e.into_inner()) = server.tool_ids();
        server
    }

    /// The tools offered now: the toolset's, less any disabled for the session.
    fn tools(&self) -> Vec<Tool> {
        self.runtime.toolset().available_definitions().iter().map(mcp_tool).collect()
    }

    fn tool_ids(&self) -> Vec<String> {
        self.runtime.toolset().available_definitions().iter().map(|d| d.id.to_string()).collect()
    }

    /// Serve later calls on `toolset` (the installed tools changed) and tell every client.
    pub async fn replace_toolset(&self, toolset: toolhost_core::registry::FinalizedToolset) -> Result<(), toolhost_session::SessionError> {
        self.runtime.replace_toolset(toolset)?;
        self.notify_if_tools_changed().await;
        Ok(())
    }

    /// If the offered tools differ from those last advertised, send every client
    /// `notifications/tools/list_changed` (dropping clients that are gone).
    pub async fn notify_if_tools_changed(&self) {
        let ids = self.tool_ids();
        {
            let mut advertised = self.advertised.lock().unwrap_or_else(|e| e.into_inner());
            if *advertised == ids {
                return;
            }
            *advertised = ids;
        }
        let peers: Vec<Peer<RoleServer>> = self.peers.lock().unwrap_or_else(|e| e.into_inner()).clone();
        for peer in &peers {
            if let Err(e) = peer.notify_tool_list_changed().await {
                tracing::debug!("tools/list_changed not sent: {e}");
            }
        }
        self.peers.lock().unwrap_or_else(|e| e.into_inner()).retain(|p| !p.is_transport_closed());
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
            let Some((token, mut rx)) = rx else { return };
            let mut counter = ProgressCounter::default();
            while let Some(p) = rx.recv().await {
                let (message, fraction) = match p {
                    ToolProgress::Stdout { chunk } | ToolProgress::Stderr { chunk } => (chunk, None),
                    ToolProgress::Message { message, fraction } => (message, fraction),
                };
                let (progress, total) = counter.next(fraction);
                let mut note = ProgressNotificationParam::new(token.clone(), progress).with_message(message);
                if let Some(total) = total {
                    note = note.with_total(total);
                }
                if let Err(e) = peer.notify_progress(note).await {
                    tracing::debug!("progress not sent: {e}");
                }
            }
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
        let call = CLIENT.scope(context.peer.clone(), call);
        let (result, (), ()) = tokio::join!(call, watch, forward);
        result
    }
}

impl ServerHandler for McpServer {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().enable_tool_list_changed().build())
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
        *self.advertised.lock().unwrap_or_else(|e| e.into_inner()) = tools.iter().map(|t| t.name.to_string()).collect();
        Ok(ListToolsResult::with_all_items(tools))
    }

    fn get_tool(&self, name: &str) -> Option<Tool> {
        self.tools().into_iter().find(|t| t.name == name)
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
            let ids: Vec<String> = toolset.available_definitions().iter().map(|d| d.id.to_string()).collect();
            return Err(McpError::invalid_params(
                format!("tool `{name}` is not available; available tools: {}", ids.join(", ")),
                None,
            ));
        }
        let arguments = Value::Object(request.arguments.unwrap_or_default());
        Ok(self.run_call(name, arguments, context).await.into())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use toolhost_core::result::{ErrorCode, ToolError};
    use toolhost_core::tool::ToolId;

    #[test]
    fn progress_grows_with_every_notification() {
        let mut c = ProgressCounter::default();
        assert_eq!(c.next(None), (1.0, None));
        assert_eq!(c.next(None), (2.0, None));
        assert_eq!(c.next(Some(0.5)), (50.0, Some(PROGRESS_TOTAL)));
        let mut last = 50.0;
        for f in [Some(0.5), Some(0.2), None, Some(0.75), Some(1.0), Some(1.0), None] {
            let (p, total) = c.next(f);
            assert!(p > last, "{p} after {last}");
            assert_eq!(total, Some(PROGRESS_TOTAL));
            last = p;
        }
    }

    #[test]
    fn annotations_follow_the_risk() {
        let def = |risk| ToolDefinition {
            id: ToolId::new("t"),
            description: "d".into(),
            input_schema: serde_json::json!({"type": "object", "properties": {}}),
            output_schema: None,
            risk,
        };
        let ro = serde_json::to_value(mcp_tool(&def(ToolRisk::ReadOnly))).unwrap();
        assert_eq!(ro["annotations"]["readOnlyHint"], true);
        assert_eq!(ro["inputSchema"]["type"], "object");
        let w = serde_json::to_value(mcp_tool(&def(ToolRisk::WorkspaceMutation))).unwrap();
        assert_eq!(w["annotations"]["destructiveHint"], true);
        let p = serde_json::to_value(mcp_tool(&def(ToolRisk::ProcessExecution))).unwrap();
        assert_eq!(p["annotations"]["destructiveHint"], true);
        assert_eq!(p["annotations"]["readOnlyHint"], false);
    }

    #[test]
    fn only_text_reaches_the_content() {
        let r = ToolResult::from_error(ToolError::new(ErrorCode::PermissionDenied, "no"));
        let v = serde_json::to_value(mcp_result(&r, "s-1")).unwrap();
        assert_eq!(v["isError"], true);
        assert_eq!(v["content"], serde_json::json!([{"type": "text", "text": "no"}]));
        assert_eq!(v["_meta"][META_STATUS], "failed");
        assert_eq!(v["_meta"][META_ERROR]["code"], "permission_denied");
        assert_eq!(v["_meta"][META_CALL_ID], "s-1");
    }
}
