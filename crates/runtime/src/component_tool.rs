//! A tool that is a WebAssembly component: each call gets a fresh `Store` instantiated from
//! one `InstancePre`, with a memory cap and the call's deadline and cancellation enforced
//! through epochs. A trap, an out-of-memory or a runaway loop becomes a failed
//! [`ToolResult`]; the host goes on serving.
//!
//! The tool is here: its constructors, what it may do ([`RiskGrant`]), and [`DynTool`] (one
//! call: prepare, run, check the structured result, turn the outcome into a [`ToolResult`]).
//! One instance's store and how it ends is in `instance`; a call split over the parts of a
//! `parallel` component and their merge is in `parallel`; the check of a structured result
//! against the output schema is in `structured`; the run a call of a tool that asks before
//! every run will make, found out for the core's approval stage, is in `planned_run`.

mod instance;
mod parallel;
mod planned_run;
mod structured;

use std::sync::Arc;
use std::time::Instant;

use async_trait::async_trait;

use crate::engine::ComponentRuntime;
use crate::exports::{Output, Prepared};
use crate::grant::RiskGrant;
use crate::host::CallState;
use crate::source::Source;
use crate::validate::InvalidComponent;
use structured::structured_failure;
use toolhost_core::context::{ToolCallContext, ToolSessionContext};
use toolhost_core::result::{
    ErrorCode, ToolError, ToolResult, ToolResultContent, ToolResultStatus, ToolUsage,
};
use toolhost_core::tool::{CallInspection, DynTool, ToolDefinition, ToolRisk};
use toolhost_limits::COMPONENT_MAX_CONSECUTIVE_CRASHES;
use toolhost_policy::SandboxPolicy;

pub use crate::interrupt::{STOPPED_AT_DEADLINE, STOPPED_ON_CANCEL};
pub use instance::DEFAULT_CALL_TIMEOUT;
use instance::{call_deadline, peak_memory, run};
use parallel::run_parallel;
pub use parallel::{MAX_PARTS, default_parts};
pub use planned_run::OPERATOR_MEMBER;
pub use structured::STRUCTURED_WITHHELD;

/// Why a second `describe` of a loaded component failed (conformance asks for it).
#[derive(Debug, thiserror::Error)]
pub enum DescribeAgainError {
    /// The component could not be prepared; the text is the call failure's.
    #[error("{}", .0.message)]
    Load(ToolError),
    /// Its `describe` failed, or what it returned is refused.
    #[error("{0}")]
    Invalid(#[from] InvalidComponent),
}

/// A loaded tool component and its definition.
pub struct ComponentTool {
    runtime: Arc<ComponentRuntime>,
    /// Where the component's bytes come from, prepared into `pre` on first use.
    source: Source,
    pre: tokio::sync::OnceCell<Prepared>,
    definition: ToolDefinition,
    /// Checks the structured value of every successful call against the output schema
    /// (compiled on first use, on a blocking thread: see [`ComponentTool::check_structured`]).
    output_validator: Arc<
        std::sync::OnceLock<Result<Arc<jsonschema::Validator>, crate::definition::CompileError>>,
    >,
    /// What the component may do; its declared risk unless [`ComponentTool::with_grant`].
    grant: RiskGrant,
    records_reads: bool,
    /// The host's check of each call's arguments against the input schema.
    input_check: crate::input::InputCheck,
    /// The built-ins parse their own input with one type for schema and parser: the host's
    /// check runs only once that parse refused, to word the refusal ([`Self::parses_own_input`]).
    parses_own_input: bool,
    /// Parts a call runs as when the component exports `parallel` (1: never split).
    parts: u32,
    /// Calls in a row that crashed; at [`COMPONENT_MAX_CONSECUTIVE_CRASHES`] the tool is
    /// disabled for the rest of the session.
    crashes: std::sync::atomic::AtomicU32,
    /// Every program it runs needs a person's approval first (`planned_run`).
    asks_before_running: bool,
}

impl ComponentTool {
    /// Ask a freshly loaded component for its definition.
    pub(super) async fn describe(
        runtime: Arc<ComponentRuntime>,
        source: Source,
        pre: Prepared,
    ) -> Result<Self, InvalidComponent> {
        let definition = describe_once(&runtime, &pre).await?;
        Ok(ComponentTool {
            runtime,
            source,
            pre: tokio::sync::OnceCell::new_with(Some(pre)),
            output_validator: Default::default(),
            grant: RiskGrant::new(definition.id.to_string(), definition.risk),
            definition,
            records_reads: false,
            input_check: Default::default(),
            parses_own_input: false,
            parts: default_parts(),
            crashes: Default::default(),
            asks_before_running: false,
        })
    }

    /// A component whose definition is already known (from the cache); it is compiled or
    /// deserialised on its first call.
    pub(super) fn lazy(
        runtime: Arc<ComponentRuntime>,
        source: Source,
        definition: ToolDefinition,
    ) -> Self {
        ComponentTool {
            runtime,
            source,
            pre: tokio::sync::OnceCell::new(),
            output_validator: Default::default(),
            grant: RiskGrant::new(definition.id.to_string(), definition.risk),
            definition,
            records_reads: false,
            input_check: Default::default(),
            parses_own_input: false,
            parts: default_parts(),
            crashes: Default::default(),
            asks_before_running: false,
        }
    }

    pub(super) fn definition_ref(&self) -> &ToolDefinition {
        &self.definition
    }

    async fn pre(&self) -> Result<&Prepared, ToolError> {
        self.pre
            .get_or_try_init(|| async { self.runtime.prepare_source(&self.source) })
            .await
            .map_err(|e| {
                ToolError::execution_failed(format!(
                    "cannot load the `{}` component: {e}",
                    self.definition.id
                ))
            })
    }
}

impl ComponentTool {
    /// Let this tool's successful whole-file reads record observations (`docs/contract.md#read-before-edit`); only the
    /// built-in `read` does.
    pub fn record_reads(mut self, yes: bool) -> Self {
        self.records_reads = yes;
        self
    }

    /// A built-in: its input's schema and parser are one type (the SDK's `parse_input`), so
    /// the host checks the arguments against the schema only when the tool's own parse refused
    /// them, and then answers with the host's refusal, in the words every tool's refusal has
    /// (`toolhost_core::input_error`). A valid call costs nothing more; the first schema
    /// compile of a process (the meta-schema's, about 14 ms) is never paid by a one-call
    /// `toolhost call` that is valid.
    pub fn parses_own_input(mut self) -> Self {
        self.parses_own_input = true;
        self
    }

    /// The host's refusal of `input`, when the tool's own parse refused it (`refused`):
    /// the host's words when the schema check finds the violation, else the tool's.
    async fn reworded(
        &self,
        refused: ToolError,
        input: serde_json::Value,
        deadline: Instant,
        cancel: &tokio_util::sync::CancellationToken,
    ) -> ToolError {
        let own_parse = refused.code == ErrorCode::InvalidArguments
            && refused.message.starts_with(toolhost_core::tool::INVALID_INPUT_PREFIX);
        if !own_parse {
            return refused;
        }
        match self.input_check.check(&self.definition, input, deadline, cancel).await {
            Err(host) if host.code == ErrorCode::InvalidArguments => host,
            _ => refused,
        }
    }

    /// Ask a person before every program this tool runs, and run only what they approved
    /// (docs/workspace-tools.md#approvals): the built-in `workspace_shell` and
    /// `workspace_tests`.
    pub fn asks_before_each_run(mut self) -> Self {
        self.asks_before_running = true;
        self
    }

    /// Hold every path this tool hands the host, and the working directory of every program
    /// it runs, to the workspace (`toolhost_core::fence::resolve_in_workspace`): the built-in
    /// workspace tools, whose every path is relative to the workspace root.
    pub fn within_workspace(mut self) -> Self {
        self.grant.within_workspace = true;
        self
    }

    /// Let this tool edit files the session did not read ([`RiskGrant::edits_unread`]).
    pub fn edits_unread(mut self) -> Self {
        self.grant.edits_unread = true;
        self
    }

    /// Count a call that crashed (or reset the count after one that did not).
    fn note_crash(&self, crashed: bool) {
        use std::sync::atomic::Ordering;
        if crashed {
            let n = self.crashes.fetch_add(1, Ordering::SeqCst) + 1;
            if n == COMPONENT_MAX_CONSECUTIVE_CRASHES {
                tracing::warn!(
                    "tool `{}` crashed on {n} calls in a row; disabled for this session",
                    self.definition.id
                );
            }
        } else if self.crashes.load(Ordering::SeqCst) < COMPONENT_MAX_CONSECUTIVE_CRASHES {
            self.crashes.store(0, Ordering::SeqCst);
        }
    }

    /// Calls in a row that crashed (a trap, out of memory) until now.
    pub fn crash_streak(&self) -> u32 {
        self.crashes.load(std::sync::atomic::Ordering::SeqCst)
    }

    /// Forget the crash streak (a conformance run calls a tool many times on purpose).
    pub fn reset_crashes(&self) {
        self.crashes.store(0, std::sync::atomic::Ordering::SeqCst);
    }

    /// Ask a fresh instance for the definition again (the first came from loading it).
    pub async fn describe_again(&self) -> Result<ToolDefinition, DescribeAgainError> {
        let pre = self.pre().await.map_err(DescribeAgainError::Load)?;
        Ok(describe_once(&self.runtime, pre).await?)
    }

    /// Hold the component to `risk` (what the user granted at install), whatever it declares.
    pub fn with_grant(mut self, risk: ToolRisk) -> Self {
        self.grant.risk = risk;
        self
    }

    /// What the component may do.
    pub fn grant(&self) -> &RiskGrant {
        &self.grant
    }
    /// Run calls as `parts` parallel parts when the component exports `parallel` (1: always
    /// one instance). Default: [`default_parts`].
    pub fn with_parts(mut self, parts: u32) -> Self {
        self.parts = parts.max(1);
        self
    }
}

/// `describe` on a fresh instance of `pre`, as the host's definition.
async fn describe_once(
    runtime: &ComponentRuntime,
    pre: &Prepared,
) -> Result<ToolDefinition, InvalidComponent> {
    // `describe` gets no file system at all: every path refused, no spill kept, no program
    // run (a read-only grant), whatever the component asks.
    let session = ToolSessionContext::local(
        "/",
        "/nonexistent",
        "describe",
        std::sync::Arc::new(toolhost_sandbox::NoSandbox),
    );
    let call = ToolCallContext::new("describe", SandboxPolicy::no_file_system())
        .with_deadline(Instant::now() + std::time::Duration::from_secs(10));
    let describing = RiskGrant::new("describe", ToolRisk::ReadOnly);
    let run =
        run(runtime, pre, &describing, session, call, |pre, store| Box::pin(pre.describe(store)))
            .await;
    let def = run.value.map_err(|e| InvalidComponent::Describe(e.message))?;
    // Bounded and checked before anything else reads it (the one checker).
    crate::definition::check_described(def).map_err(InvalidComponent::Definition)
}

#[async_trait]
impl DynTool for ComponentTool {
    fn definition(&self) -> &ToolDefinition {
        &self.definition
    }

    fn asks_before_running(&self) -> bool {
        self.asks_before_running
    }

    async fn planned_run(
        &self,
        session: &ToolSessionContext,
        call: ToolCallContext,
        input: &serde_json::Value,
    ) -> Result<Option<toolhost_core::approval::RunApproval>, ToolError> {
        if !self.asks_before_running {
            return Ok(None);
        }
        self.plan_run(session, call, input).await
    }

    fn disabled(&self) -> Option<String> {
        (self.crashes.load(std::sync::atomic::Ordering::SeqCst) >= COMPONENT_MAX_CONSECUTIVE_CRASHES).then(|| {
            format!(
                "the tool `{}` crashed on {COMPONENT_MAX_CONSECUTIVE_CRASHES} calls in a row, so it is disabled for the rest of this session; do not call it again: use another tool, or tell the user it is broken",
                self.definition.id
            )
        })
    }

    async fn inspect(
        &self,
        session: &ToolSessionContext,
        call: ToolCallContext,
        input: &serde_json::Value,
    ) -> Result<CallInspection, ToolError> {
        if let Some(reason) = self.disabled() {
            return Err(ToolError::execution_failed(reason));
        }
        let (deadline, cancel) = (call_deadline(&call), call.cancel.clone());
        if !self.parses_own_input {
            self.input_check.check(&self.definition, input.clone(), deadline, &cancel).await?;
        }
        let text = input.to_string();
        let pre = self.pre().await?;
        let run = run(&self.runtime, pre, &self.grant, session.clone(), call, move |pre, store| {
            Box::pin(async move { pre.inspect(store, &text).await })
        })
        .await;
        match run.value {
            Ok(Err(e)) | Err(e) if self.parses_own_input => {
                Err(self.reworded(e, input.clone(), deadline, &cancel).await)
            }
            value => value?,
        }
    }

    async fn call(
        &self,
        session: &ToolSessionContext,
        call: ToolCallContext,
        input: serde_json::Value,
    ) -> ToolResult {
        if !self.parses_own_input {
            return self.call_checked(session, call, input).await;
        }
        let (deadline, cancel) = (call_deadline(&call), call.cancel.clone());
        let result = self.call_checked(session, call, input.clone()).await;
        match result.error.clone() {
            Some(e) if result.status == ToolResultStatus::Failed => {
                let reworded = self.reworded(e.clone(), input, deadline, &cancel).await;
                if reworded == e {
                    result
                } else {
                    ToolResult { usage: result.usage, ..ToolResult::from_error(reworded) }
                }
            }
            _ => result,
        }
    }
}

impl ComponentTool {
    /// One call: the host's input check first (unless the tool parses its own input), then
    /// the run.
    async fn call_checked(
        &self,
        session: &ToolSessionContext,
        mut call: ToolCallContext,
        input: serde_json::Value,
    ) -> ToolResult {
        let text = if self.asks_before_running {
            // Its run was decided by the approval stage; a call that skipped it runs nothing.
            call.run_gate
                .get_or_insert_with(|| Arc::new(toolhost_core::approval::RunGate::closed()));
            planned_run::with_operator(&input, &call.sandbox_policy)
        } else {
            input.to_string()
        };
        if !self.parses_own_input
            && let Err(e) = self
                .input_check
                .check(&self.definition, input, call_deadline(&call), &call.cancel)
                .await
        {
            return ToolResult::from_error(e);
        }
        let prepared = match self.pre().await {
            Ok(pre) => pre,
            Err(e) => return ToolResult::from_error(e),
        };
        if let Some(reason) = self.disabled() {
            return ToolResult::from_error(ToolError::execution_failed(reason));
        }
        let started = Instant::now();
        let deadline = call_deadline(&call);
        let cancel = call.cancel.clone();
        let (value, states, crashed) = if prepared.is_parallel() && self.parts > 1 {
            run_parallel(&self.runtime, prepared, &self.grant, session, call, text, self.parts)
                .await
        } else {
            let run = run(
                &self.runtime,
                prepared,
                &self.grant,
                session.clone(),
                call,
                move |pre, store| Box::pin(async move { pre.execute(store, &text).await }),
            )
            .await;
            (run.value, vec![run.state], run.crashed)
        };
        let usage = ToolUsage {
            wall_us: started.elapsed().as_micros() as u64,
            peak_memory_bytes: peak_memory(&states),
        };
        let answer = match value {
            Ok(Ok(Output { text, structured })) => {
                self.check_structured(structured, deadline, &cancel).await.map(|s| (text, s))
            }
            Ok(Err(e)) | Err(e) => Err(e),
        };
        let mut result = self.result_of(session, answer, states);
        self.note_crash(crashed);
        result.usage = Some(usage);
        result
    }

    /// The result of a call that answered `answer` (its text and checked structured value,
    /// or an error), with what its instances (`states`) committed and whether a denial was
    /// the fence's or the OS sandbox's.
    fn result_of(
        &self,
        session: &ToolSessionContext,
        answer: Result<(String, Option<serde_json::Value>), ToolError>,
        states: Vec<CallState>,
    ) -> ToolResult {
        let mut artifacts = Vec::new();
        let mut observed = Vec::new();
        let fence_denied = states.iter().any(CallState::sandbox_denied);
        let kernel_denied = states.iter().any(CallState::process_denied);
        for state in states {
            artifacts.extend(state.artifacts);
            observed.extend(state.observed);
        }
        let mut result = match answer {
            Ok((text, Some(structured)))
                if let Some(e) = structured_failure(&structured, &text) =>
            {
                ToolResult { structured: Some(structured), ..ToolResult::from_error(e) }
            }
            Ok((text, structured)) => {
                // Only a succeeded call records what it read (`docs/contract.md#read-before-edit`).
                if self.records_reads {
                    for (path, hash) in observed {
                        session.observations.record(&path, hash);
                    }
                }
                ToolResult {
                    status: ToolResultStatus::Succeeded,
                    content: vec![ToolResultContent::Text { text }],
                    artifacts: Vec::new(),
                    error: None,
                    sandbox_denied: false,
                    structured,
                    usage: None,
                }
            }
            Err(e) => ToolResult::from_error(e),
        };
        // What the host committed happened, whatever the component did afterwards.
        result.artifacts = artifacts;
        // A refusal that is the fence's sensitive, credential or outside denial is marked
        // like the OS sandbox's (`docs/contract.md#paths`); a component that went on and succeeded is not.
        // A program the component ran that the OS sandbox refused a forbidden path is marked
        // as bash's is.
        result.sandbox_denied = kernel_denied
            || fence_denied
                && result.error.as_ref().is_some_and(|e| e.code == ErrorCode::PermissionDenied);
        result
    }
}
