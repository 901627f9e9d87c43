//! The MCP server: [`McpServer`] answers `tools/list` and `tools/call` over one
//! [`SessionRuntime`], runs calls in arrival order (any that can change something alone,
//! read-only ones side by side), and tells its clients when the tool list changes.

use std::future::Future;
use std::sync::Arc;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, CancelTaskParams, CreateTaskResult,
    GetTaskParams, GetTaskResult, Implementation, ListToolsResult, PaginatedRequestParams,
    ProtocolVersion, ServerCapabilities, ServerConfig, Tool, UpdateTaskParams,
};
use rmcp::service::{RequestContext, RoleServer};
use rmcp::{ErrorData as McpError, Peer, ServerHandler};
use serde_json::Value;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use toolhost_core::context::PROGRESS_CHANNEL_CAPACITY;
use toolhost_core::tool::ToolRisk;
use toolhost_session::SessionRuntime;

use crate::convert::{mcp_result, mcp_tool};
use crate::elicit::{self, Asker};
use crate::roots::ClientRoots;
use crate::rounds::{ApprovalRounds, RoundError};
use crate::subscriptions::Subscriptions;
use crate::task_store::{Cancelled, TaskContext, TaskStore};
use crate::{progress, tasks};
use toolhost_limits::MCP_MAX_RUNNING_TASKS;

/// A call's hold on its turn (only dropped: it ends the turn).
#[allow(dead_code)]
enum Turn<'a> {
    Shared(tokio::sync::RwLockReadGuard<'a, ()>),
    Alone(tokio::sync::RwLockWriteGuard<'a, ()>),
}

/// The MCP server: a session runtime, the queue that runs calls in order, and the clients to
/// tell when the tool list changes.
#[derive(Clone)]
pub struct McpServer {
    runtime: Arc<SessionRuntime>,
    /// Calls' turns: read-only calls share one, any other call has it alone.
    turn: Arc<tokio::sync::RwLock<()>>,
    /// Every initialized client (one on stdio, one per MCP session over HTTP).
    peers: Arc<std::sync::Mutex<Vec<Peer<RoleServer>>>>,
    /// The tool ids last advertised, to tell when the list changed.
    advertised: Arc<std::sync::Mutex<Vec<String>>>,
    /// Approvals asked as input-required results (stateless revision); `None` when the OS
    /// gave no randomness for their key (such approvals are then denied).
    rounds: Option<Arc<ApprovalRounds>>,
    /// Calls running (or finished) as tasks, in bounded memory.
    tasks: TaskStore,
    /// The `subscriptions/listen` streams of 2026-07-28 clients, told the same.
    subscriptions: Arc<Subscriptions>,
    /// The clients whose MCP roots narrow their reads (reads confined: `roots.rs`).
    roots: Arc<ClientRoots>,
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
            tasks: TaskStore::new(),
            subscriptions: Arc::default(),
            roots: Arc::default(),
        };
        *server.advertised.lock().unwrap_or_else(|e| e.into_inner()) = server.tool_ids();
        server
    }

    /// The session runtime the calls run in (`/readyz` asks its store).
    pub(crate) fn runtime(&self) -> &Arc<SessionRuntime> {
        &self.runtime
    }

    /// The tools offered now: the toolset's, less any disabled for the session.
    fn tools(&self) -> Vec<Tool> {
        self.runtime.toolset().available_definitions().iter().map(mcp_tool).collect()
    }

    /// The tools offered now to a client whose roots narrowed its reads to `policy`: their
    /// descriptions say what it may read.
    fn tools_under(&self, policy: &toolhost_policy::SandboxPolicy) -> Vec<Tool> {
        let operator = self.runtime.policy().reads_note();
        let note = policy.reads_note().unwrap_or_default();
        self.runtime
            .toolset()
            .available_definitions()
            .iter()
            .map(|d| {
                mcp_tool(&toolhost_core::registry::with_reads_note(d, operator.as_deref(), &note))
            })
            .collect()
    }

    /// The policy `peer`'s roots give it (reads confined, the client declared `roots`),
    /// waiting (bounded) for its first answer; `None`: the session's policy.
    async fn roots_policy(
        &self,
        peer: &Peer<RoleServer>,
    ) -> Option<Arc<toolhost_policy::SandboxPolicy>> {
        let offers_roots = peer.peer_info().is_some_and(|i| i.capabilities.roots.is_some());
        if offers_roots && self.runtime.policy().reads_confined() {
            // A request that overtook `initialized` waits for the roots that one asks for.
            self.roots.start(peer);
        }
        self.roots.policy_for(peer).await
    }

    /// Ask `peer` for its roots (reads confined, the client declared `roots`), and when what
    /// it may read changed, tell it the tool list changed (their descriptions say it).
    fn ask_roots(&self, peer: Peer<RoleServer>, first: bool) {
        let scope = match first {
            true => self.roots.start(&peer),
            false => self.roots.scope_of(&peer),
        };
        let Some(scope) = scope else { return };
        let runtime = self.runtime.clone();
        tokio::spawn(async move {
            if crate::roots::ask(runtime.policy(), &peer, &scope).await
                && let Err(e) = peer.notify_tool_list_changed().await
            {
                tracing::debug!("tools/list_changed not sent: {e}");
            }
        });
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
        drop(self.turn.write().await);
    }

    /// One request's call: cancelled by the request's `notifications/cancelled`, its progress
    /// sent as `notifications/progress` when the request carried a token.
    async fn run_call(
        &self,
        name: String,
        arguments: Value,
        read_only: bool,
        context: RequestContext<RoleServer>,
        asker: Asker,
    ) -> CallToolResult {
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
        let policy = self.roots_policy(&context.peer).await;
        let call =
            self.execute(&name, arguments, read_only, context.ct.cancelled(), tx, asker, policy);
        let ((result, call_id), ()) = tokio::join!(call, forward);
        mcp_result(&result, &call_id)
    }

    /// Runs a call in its turn, with `asker` answering its approvals, until it ends or `stop`
    /// resolves (the call is then cancelled); its result and call id. In arrival order (the
    /// lock queues fairly): a call that can change anything runs alone; read-only calls, which
    /// change nothing another call could see but the observation table (its own lock), run
    /// side by side. A call cancelled while queued runs as cancelled (recorded) without
    /// waiting for its turn.
    #[allow(clippy::too_many_arguments)]
    async fn execute(
        &self,
        name: &str,
        arguments: Value,
        read_only: bool,
        stop: impl Future<Output = ()>,
        progress: Option<mpsc::Sender<toolhost_core::context::ToolProgress>>,
        asker: Asker,
        policy: Option<Arc<toolhost_policy::SandboxPolicy>>,
    ) -> (toolhost_core::ToolResult, String) {
        let cancel = self.runtime.cancel_token().child_token();
        let done = CancellationToken::new();
        let watch = async {
            tokio::select! {
                _ = stop => cancel.cancel(),
                _ = done.cancelled() => {}
            }
        };
        let call = async {
            let turn = tokio::select! {
                g = async {
                    if read_only {
                        Turn::Shared(self.turn.read().await)
                    } else {
                        Turn::Alone(self.turn.write().await)
                    }
                } => Some(g),
                _ = cancel.cancelled() => None,
            };
            let call_id = self.runtime.next_call_id();
            let started = std::time::Instant::now();
            let result = self
                .runtime
                .call_under(
                    policy.as_deref(),
                    &call_id,
                    name,
                    arguments,
                    cancel.clone(),
                    progress,
                    None,
                )
                .await;
            drop(turn);
            done.cancel();
            crate::metrics::metrics().call_ended(name, &result, started.elapsed());
            // A tool the call disabled (it crashed too often) leaves the list.
            self.notify_if_tools_changed().await;
            (result, call_id)
        };
        let (ran, ()) = tokio::join!(elicit::asking(asker, call), watch);
        ran
    }

    /// Starts the call as a task (`docs/mcp.md#tasks`): it runs on after this request is
    /// answered; `tasks/get` reports its latest progress line and then its result, and
    /// `tasks/cancel` cancels it.
    fn start_task(
        &self,
        name: String,
        arguments: Value,
        read_only: bool,
        asker: Asker,
        policy: Option<Arc<toolhost_policy::SandboxPolicy>>,
    ) -> CreateTaskResult {
        let server = self.clone();
        let status = format!("{name}: waiting for its turn");
        let task = self.tasks.spawn(status, move |task: TaskContext| {
            Box::pin(async move {
                let (tx, mut rx) = mpsc::channel(PROGRESS_CHANNEL_CAPACITY);
                let status = async {
                    task.set_status_message(format!("{name}: running"));
                    while let Some(p) = rx.recv().await {
                        task.set_status_message(tasks::status_line(&name, &p));
                    }
                };
                let call = server.execute(
                    &name,
                    arguments,
                    read_only,
                    task.cancelled(),
                    Some(tx),
                    asker,
                    policy,
                );
                let ((result, call_id), ()) = tokio::join!(call, status);
                if task.is_cancel_requested()
                    && result.status == toolhost_core::ToolResultStatus::Cancelled
                {
                    return Err(Cancelled);
                }
                Ok(mcp_result(&result, &call_id))
            })
        });
        CreateTaskResult::new(task)
    }
}

impl ServerHandler for McpServer {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(
            ServerCapabilities::builder()
                .enable_tools()
                .enable_tool_list_changed()
                .enable_tasks()
                .build(),
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
        context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, McpError> {
        let tools = match self.roots_policy(&context.peer).await {
            Some(policy) => self.tools_under(&policy),
            None => self.tools(),
        };
        *self.advertised.lock().unwrap_or_else(|e| e.into_inner()) =
            tools.iter().map(|t| t.name.to_string()).collect();
        Ok(ListToolsResult::with_all_items(tools))
    }

    fn get_tool(&self, name: &str) -> Option<Tool> {
        self.runtime.toolset().available_definition(name).map(mcp_tool)
    }

    async fn get_task(
        &self,
        request: GetTaskParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<GetTaskResult, McpError> {
        Ok(self.tasks.get_task(&request.task_id).map(GetTaskResult::new)?)
    }

    async fn update_task(
        &self,
        request: UpdateTaskParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), McpError> {
        // No task of toolhost's asks for input mid-run (approvals are asked before a task
        // starts); answers are acknowledged and ignored, as the extension says.
        Ok(self.tasks.update_task(&request.task_id)?)
    }

    async fn cancel_task(
        &self,
        request: CancelTaskParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), McpError> {
        Ok(self.tasks.cancel_task(&request.task_id)?)
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
        // Reads confined: a client that offers roots narrows them (`roots.rs`).
        let offers_roots = context.peer.peer_info().is_some_and(|i| i.capabilities.roots.is_some());
        if offers_roots && self.runtime.policy().reads_confined() {
            self.ask_roots(context.peer.clone(), true);
        }
        let mut peers = self.peers.lock().unwrap_or_else(|e| e.into_inner());
        peers.retain(|p| !p.is_transport_closed());
        peers.push(context.peer);
    }

    async fn on_roots_list_changed(&self, context: rmcp::service::NotificationContext<RoleServer>) {
        if self.runtime.policy().reads_confined() {
            self.ask_roots(context.peer, false);
        }
    }

    async fn call_tool(
        &self,
        mut request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        let name = request.name.to_string();
        // A tool disabled for the session is still called: its result says why.
        let toolset = self.runtime.toolset();
        let Some(definition) = toolset.definitions().iter().find(|d| d.id.as_str() == name) else {
            let ids: Vec<String> =
                toolset.available_definitions().iter().map(|d| d.id.to_string()).collect();
            return Err(McpError::invalid_params(
                format!("tool `{name}` is not available; available tools: {}", ids.join(", ")),
                None,
            ));
        };
        let read_only = definition.risk == ToolRisk::ReadOnly;
        let arguments = Value::Object(request.arguments.take().unwrap_or_default());
        let asker = self.asker(&name, &arguments, &request, &context)?;
        let can_answer = context.client_capabilities().is_some_and(|c| c.elicitation.is_some());
        let question = match &asker {
            Asker::Round(question) => Some(question.clone()),
            _ => None,
        };
        // A call that may outlast the client's patience runs as a task when the client
        // declared tasks — unless it first needs the answer to an approval round (asked
        // before anything runs, so that request ends at once).
        // A call whose approval is still to be asked, or already declined, ends at once.
        let needs_approval = toolset.may_ask(&name, &arguments);
        let as_task = context.client_capabilities().is_some_and(|c| c.supports_tasks())
            && toolset.available_definition(&name).is_some_and(tasks::eligible)
            && !(needs_approval
                && matches!(asker, Asker::Round(_) | Asker::Answered(false) | Asker::Nobody))
            && self.tasks.running_task_count() < MCP_MAX_RUNNING_TASKS;
        if as_task {
            let policy = self.roots_policy(&context.peer).await;
            return Ok(CallToolResponse::Task(
                self.start_task(name, arguments, read_only, asker, policy),
            ));
        }
        let result =
            self.run_call(name.clone(), arguments.clone(), read_only, context, asker).await;
        let asked = question.and_then(|q| q.lock().unwrap_or_else(|e| e.into_inner()).take());
        match (asked, &self.rounds) {
            // The call was denied for want of an answer: ask for it.
            (Some(message), Some(rounds)) if can_answer => {
                match rounds.ask(&name, &arguments, message) {
                    Some(round) => {
                        crate::metrics::metrics().approval_asked();
                        Ok(CallToolResponse::InputRequired(round))
                    }
                    None => Ok(result.into()),
                }
            }
            // It needs an approval and the client did not declare elicitation (-32021; HTTP 400).
            (Some(_), Some(_)) => Err(elicitation_required()),
            _ => Ok(result.into()),
        }
    }
}

impl McpServer {
    /// Who answers an approval the call of `name` with `arguments` needs
    /// (docs/mcp.md#approvals): the client (2025-11-25), the answers a retried stateless
    /// round brought back, a round still to ask, or nobody.
    fn asker(
        &self,
        name: &str,
        arguments: &Value,
        request: &CallToolRequestParams,
        context: &RequestContext<RoleServer>,
    ) -> Result<Asker, McpError> {
        let stateless = context
            .protocol_version()
            .is_some_and(|v| v.as_str() >= ProtocolVersion::V_2026_07_28.as_str());
        let retried = request.request_state.is_some() || request.input_responses.is_some();
        Ok(match (&self.rounds, stateless, retried) {
            (_, false, _) => Asker::Client(context.peer.clone()),
            (Some(rounds), true, true) => {
                let (Some(state), Some(responses)) =
                    (&request.request_state, &request.input_responses)
                else {
                    return Err(McpError::invalid_params(RoundError::Incomplete.to_string(), None));
                };
                match rounds.answer(name, arguments, state, responses) {
                    Ok(approved) => Asker::Answered(approved),
                    Err(e) => return Err(McpError::invalid_params(e.to_string(), None)),
                }
            }
            // Asked whether or not the client declared elicitation: a question it cannot
            // answer is MissingRequiredClientCapability (below).
            (Some(_), true, false) => Asker::Round(Arc::default()),
            // Nobody to ask: denied.
            _ => Asker::Nobody,
        })
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
