//! A tool that is a WebAssembly component: each call gets a fresh `Store` instantiated from
//! one `InstancePre`, with a memory cap and the call's deadline and cancellation enforced
//! through epochs. A trap, an out-of-memory or a runaway loop becomes a failed
//! [`ToolResult`]; the host goes on serving.

use std::sync::Arc;
use std::time::Instant;

use async_trait::async_trait;
use wasmtime::{Store, StoreLimitsBuilder, UpdateDeadline};

use super::host::{CallState, code_from_wit};
use super::v0_1::ToolComponentPre;
use super::v0_1::toolhost::tool::types;
use super::{ComponentRuntime, DEFAULT_CALL_TIMEOUT, MAX_STORE_MEMORY};
use crate::context::{ToolCallContext, ToolSessionContext};
use crate::policy::SandboxPolicy;
use crate::result::{ErrorCode, ToolError, ToolResult, ToolResultContent, ToolResultStatus};
use crate::tool::{CallInspection, DynTool, ToolDefinition, ToolId, ToolRisk};

/// Why the host stopped a running component.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
enum Interrupted {
    #[error("the call was cancelled")]
    Cancelled,
    #[error("the call ran past its deadline")]
    Deadline,
}

/// A loaded tool component and its definition.
pub struct ComponentTool {
    runtime: Arc<ComponentRuntime>,
    /// Where the component's bytes come from, prepared into `pre` on first use.
    source: super::Source,
    pre: tokio::sync::OnceCell<ToolComponentPre<CallState>>,
    definition: ToolDefinition,
    records_reads: bool,
}

/// What one run of a component export produced, beside the export's own return value.
struct Run<R> {
    value: Result<R, ToolError>,
    state: CallState,
}

impl ComponentTool {
    /// Ask a freshly loaded component for its definition.
    pub(super) async fn describe(
        runtime: Arc<ComponentRuntime>,
        source: super::Source,
        pre: ToolComponentPre<CallState>,
    ) -> Result<Self, String> {
        let session = ToolSessionContext::local("/", "/nonexistent", "describe");
        let call = ToolCallContext::new("describe", SandboxPolicy::new(crate::policy::SandboxMode::ReadOnly, "/"))
            .with_deadline(Instant::now() + std::time::Duration::from_secs(10));
        let run = run(&runtime, &pre, session, call, |bindings, store| {
            Box::pin(async move { bindings.toolhost_tool_tool().call_describe(store).await })
        })
        .await;
        let def = run.value.map_err(|e| format!("describe failed: {}", e.message))?;
        let input_schema: serde_json::Value = serde_json::from_str(&def.input_schema)
            .map_err(|e| format!("its input schema is not JSON: {e}"))?;
        let risk = match def.risk {
            types::Risk::ReadOnly => ToolRisk::ReadOnly,
            types::Risk::WorkspaceMutation => ToolRisk::WorkspaceMutation,
            types::Risk::ProcessExecution => ToolRisk::ProcessExecution,
        };
        let definition = ToolDefinition { id: ToolId::new(&def.id), description: def.description, input_schema, risk };
        Ok(ComponentTool {
            runtime,
            source,
            pre: tokio::sync::OnceCell::new_with(Some(pre)),
            definition,
            records_reads: false,
        })
    }

    /// A component whose definition is already known (from the cache); it is compiled or
    /// deserialised on its first call.
    pub(super) fn lazy(runtime: Arc<ComponentRuntime>, source: super::Source, definition: ToolDefinition) -> Self {
        ComponentTool { runtime, source, pre: tokio::sync::OnceCell::new(), definition, records_reads: false }
    }

    pub(super) fn definition_ref(&self) -> &ToolDefinition {
        &self.definition
    }

    async fn pre(&self) -> Result<&ToolComponentPre<CallState>, ToolError> {
        self.pre
            .get_or_try_init(|| async { self.runtime.prepare_source(&self.source) })
            .await
            .map_err(|e| ToolError::execution_failed(format!("cannot load the `{}` component: {e}", self.definition.id)))
    }
}

impl ComponentTool {
    /// Let this tool's successful whole-file reads record observations (§7.4); only the
    /// built-in `read` does.
    pub fn record_reads(mut self, yes: bool) -> Self {
        self.records_reads = yes;
        self
    }
}

type ExportFuture<'a, R> =
    std::pin::Pin<Box<dyn std::future::Future<Output = wasmtime::Result<R>> + Send + 'a>>;

/// Instantiate a fresh store for `call` and run one export in it.
async fn run<R: Send + 'static>(
    runtime: &ComponentRuntime,
    pre: &ToolComponentPre<CallState>,
    session: ToolSessionContext,
    call: ToolCallContext,
    export: impl for<'a> FnOnce(&'a super::v0_1::ToolComponent, &'a mut Store<CallState>) -> ExportFuture<'a, R>,
) -> Run<R> {
    let deadline = call
        .deadline
        .unwrap_or_else(|| Instant::now() + DEFAULT_CALL_TIMEOUT)
        .min(Instant::now() + DEFAULT_CALL_TIMEOUT);
    let cancel = call.cancel.clone();
    let limits = StoreLimitsBuilder::new().memory_size(MAX_STORE_MEMORY).trap_on_grow_failure(true).build();
    let mut store = Store::new(runtime.engine(), CallState::new(session, call, limits));
    store.limiter(|state| &mut state.limits);
    store.set_epoch_deadline(1);
    store.epoch_deadline_callback(move |_| {
        if cancel.is_cancelled() {
            return Err(wasmtime::Error::new(Interrupted::Cancelled));
        }
        if Instant::now() >= deadline {
            return Err(wasmtime::Error::new(Interrupted::Deadline));
        }
        Ok(UpdateDeadline::Yield(1))
    });
    let value = match pre.instantiate_async(&mut store).await {
        Ok(bindings) => export(&bindings, &mut store).await,
        Err(e) => Err(e),
    };
    let value = value.map_err(|e| trap_to_error(&e));
    Run { value, state: store.into_data() }
}

/// Turn a trap or host interruption into the error the model sees.
fn trap_to_error(e: &wasmtime::Error) -> ToolError {
    if let Some(i) = e.downcast_ref::<Interrupted>() {
        return match i {
            Interrupted::Cancelled => ToolError::new(ErrorCode::Cancelled, "the call was cancelled"),
            Interrupted::Deadline => ToolError::new(ErrorCode::Timeout, "the tool ran past its deadline and was stopped"),
        };
    }
    if let Some(trap) = e.downcast_ref::<wasmtime::Trap>() {
        return ToolError::execution_failed(format!("the tool component crashed ({trap})"));
    }
    let root = e.root_cause().to_string();
    if root.contains("memory") || root.contains("grow") {
        return ToolError::execution_failed(format!("the tool component ran out of memory ({root})"));
    }
    ToolError::execution_failed(format!("the tool component failed: {root}"))
}

fn wit_error(e: types::ToolError) -> ToolError {
    ToolError { code: code_from_wit(e.code), message: e.message, retryable: e.retryable }
}

#[async_trait]
impl DynTool for ComponentTool {
    fn definition(&self) -> &ToolDefinition {
        &self.definition
    }

    async fn inspect(&self, session: &ToolSessionContext, call: ToolCallContext, input: &serde_json::Value) -> Result<CallInspection, ToolError> {
        let text = input.to_string();
        let pre = self.pre().await?;
        let run = run(&self.runtime, pre, session.clone(), call, move |bindings, store| {
            Box::pin(async move { bindings.toolhost_tool_tool().call_inspect(store, &text).await })
        })
        .await;
        match run.value? {
            Ok(types::Inspection::ReadOnly) => Ok(CallInspection::ReadOnly),
            Ok(types::Inspection::Writes(path)) => Ok(CallInspection::Writes(path)),
            Ok(types::Inspection::Runs(command)) => Ok(CallInspection::Runs(command)),
            Err(e) => Err(wit_error(e)),
        }
    }

    async fn call(&self, session: &ToolSessionContext, call: ToolCallContext, input: serde_json::Value) -> ToolResult {
        let text = input.to_string();
        let pre = match self.pre().await {
            Ok(pre) => pre,
            Err(e) => return ToolResult::from_error(e),
        };
        let run = run(&self.runtime, pre, session.clone(), call, move |bindings, store| {
            Box::pin(async move { bindings.toolhost_tool_tool().call_execute(store, &text).await })
        })
        .await;
        let state = run.state;
        let mut result = match run.value {
            Ok(Ok(text)) => {
                // Only a succeeded call records what it read (§7.4).
                if self.records_reads {
                    for (path, hash) in state.observed {
                        session.observations.record(&path, hash);
                    }
                }
                ToolResult {
                    status: ToolResultStatus::Succeeded,
                    content: vec![ToolResultContent::Text { text }],
                    artifacts: Vec::new(),
                    error: None,
                    sandbox_denied: false,
                }
            }
            Ok(Err(e)) => ToolResult::from_error(wit_error(e)),
            Err(e) => ToolResult::from_error(e),
        };
        // What the host committed happened, whatever the component did afterwards.
        result.artifacts = state.artifacts;
        result
    }
}
