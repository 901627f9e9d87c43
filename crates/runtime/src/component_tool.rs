//! A tool that is a WebAssembly component: each call gets a fresh `Store` instantiated from
//! one `InstancePre`, with a memory cap and the call's deadline and cancellation enforced
//! through epochs. A trap, an out-of-memory or a runaway loop becomes a failed
//! [`ToolResult`]; the host goes on serving.

use std::sync::Arc;
use std::time::{Duration, Instant};

use async_trait::async_trait;
use wasmtime::{Store, StoreLimitsBuilder, UpdateDeadline};

use crate::engine::{ComponentRuntime, MAX_STORE_MEMORY};
use crate::exports::{Output, Prepared};
use crate::grant::RiskGrant;
use crate::host::{CallShare, CallState};
use crate::source::Source;
use toolhost_core::context::{ToolCallContext, ToolSessionContext};
use toolhost_core::policy::SandboxPolicy;
use toolhost_core::result::{
    ErrorCode, ToolError, ToolResult, ToolResultContent, ToolResultStatus, ToolUsage,
};
use toolhost_core::tool::{CallInspection, DynTool, ToolDefinition, ToolRisk};
use toolhost_limits::COMPONENT_MAX_CONSECUTIVE_CRASHES;

/// Why the host stopped a running component.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
enum Interrupted {
    #[error("the call was cancelled")]
    Cancelled,
    #[error("the call ran past its deadline")]
    Deadline,
}

/// How every call ends whose structured result the host refused to pass on (no schema, no
/// value, too large, not JSON, or not matching the schema): the text of such a failure ends
/// with it.
pub const STRUCTURED_WITHHELD: &str = "the call's result was withheld: a tool with an output schema must return a structured result that matches it, and a tool without one must return none";

/// The text of a call the host stopped at its deadline (the component did not stop itself).
pub const STOPPED_AT_DEADLINE: &str = "the tool ran past its deadline and was stopped";

/// The text of a call the host stopped on cancellation (the component did not stop itself).
pub const STOPPED_ON_CANCEL: &str = "the call was cancelled";

/// How long one component call may run when the caller set no earlier deadline. Scans stop
/// themselves at the 30 s scan timeout; this bound only stops runaways.
pub const DEFAULT_CALL_TIMEOUT: Duration = Duration::from_secs(120);

/// Parts a parallel call is split into by default: one per core, at most this many.
pub const MAX_PARTS: u32 = 4;

/// The default number of parts for a component that exports `parallel`: `TOOLHOST_PARTS`
/// when set (1 turns parallel calls off), else one per core, at most [`MAX_PARTS`]. Worked
/// out once per process (the core count reads cgroup files), not per component loaded.
pub fn default_parts() -> u32 {
    static PARTS: std::sync::OnceLock<u32> = std::sync::OnceLock::new();
    *PARTS.get_or_init(|| {
        if let Some(n) =
            std::env::var("TOOLHOST_PARTS").ok().and_then(|v| v.trim().parse::<u32>().ok())
        {
            return n.clamp(1, MAX_PARTS);
        }
        std::thread::available_parallelism().map_or(1, |n| n.get() as u32).clamp(1, MAX_PARTS)
    })
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
    output_validator: Arc<std::sync::OnceLock<Result<Arc<jsonschema::Validator>, String>>>,
    /// What the component may do; its declared risk unless [`ComponentTool::with_grant`].
    grant: RiskGrant,
    records_reads: bool,
    /// Parts a call runs as when the component exports `parallel` (1: never split).
    parts: u32,
    /// Calls in a row that crashed; at [`COMPONENT_MAX_CONSECUTIVE_CRASHES`] the tool is
    /// disabled for the rest of the session.
    crashes: std::sync::atomic::AtomicU32,
}

/// What one run of a component export produced, beside the export's own return value.
struct Run<R> {
    value: Result<R, ToolError>,
    /// The component trapped or ran out of memory (not: stopped by the host's deadline or
    /// cancellation).
    crashed: bool,
    state: CallState,
}

impl ComponentTool {
    /// Ask a freshly loaded component for its definition.
    pub(super) async fn describe(
        runtime: Arc<ComponentRuntime>,
        source: Source,
        pre: Prepared,
    ) -> Result<Self, crate::validate::InvalidComponent> {
        let definition = describe_once(&runtime, &pre).await?;
        Ok(ComponentTool {
            runtime,
            source,
            pre: tokio::sync::OnceCell::new_with(Some(pre)),
            output_validator: Default::default(),
            grant: RiskGrant::new(definition.id.to_string(), definition.risk),
            definition,
            records_reads: false,
            parts: default_parts(),
            crashes: Default::default(),
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
            parts: default_parts(),
            crashes: Default::default(),
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
    pub async fn describe_again(&self) -> Result<ToolDefinition, String> {
        let pre = self.pre().await.map_err(|e| e.message)?;
        describe_once(&self.runtime, pre).await.map_err(|e| e.to_string())
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

    /// Check a successful call's structured value against the output schema: the value a
    /// client is given must be the one the tool promised. Every refusal ends with
    /// [`STRUCTURED_WITHHELD`]. The schema was bounded when the definition was checked and
    /// its patterns run on a linear-time engine; even so the check runs on a blocking thread
    /// raced against the call's `deadline` and `cancel`, so it never outlives the call nor
    /// holds up the host's other requests.
    async fn check_structured(
        &self,
        structured: Option<String>,
        deadline: Instant,
        cancel: &tokio_util::sync::CancellationToken,
    ) -> Result<Option<serde_json::Value>, ToolError> {
        let id = &self.definition.id;
        let withheld = |why: String| {
            ToolError::execution_failed(format!("the tool `{id}` {why}; {STRUCTURED_WITHHELD}"))
        };
        let Some(schema) = &self.definition.output_schema else {
            return match structured {
                None => Ok(None),
                Some(_) => Err(withheld(
                    "returned a structured result but declares no output schema".into(),
                )),
            };
        };
        let Some(text) = structured else {
            return Err(withheld(
                "declares an output schema but returned no structured result".into(),
            ));
        };
        if text.len() > toolhost_limits::MAX_STRUCTURED_BYTES {
            return Err(withheld(format!(
                "returned a structured result of {} bytes, more than the {} a structured result may have (MAX_STRUCTURED_BYTES); it must bound it as it bounds its text",
                text.len(),
                toolhost_limits::MAX_STRUCTURED_BYTES
            )));
        }
        let validator = self.output_validator.clone();
        let schema = validator.get().is_none().then(|| schema.clone());
        let check = off_the_runtime(
            deadline,
            cancel,
            move || -> Result<serde_json::Value, String> {
                let value: serde_json::Value = serde_json::from_str(&text)
                    .map_err(|e| format!("returned a structured result that is not JSON ({e})"))?;
                let validator = validator.get_or_init(|| {
                    let schema = schema.unwrap_or_default();
                    crate::definition::compile_schema(&schema)
                        .map(Arc::new)
                        .map_err(|e| format!("its output schema does not compile ({e})"))
                });
                let validator = validator.as_ref().map_err(Clone::clone)?;
                if validator.is_valid(&value) {
                    return Ok(value);
                }
                let why = match validator.validate(&value) {
                    Ok(()) => return Ok(value),
                    Err(e) => {
                        let at = e.instance_path.to_string();
                        format!(
                            "returned a structured result that does not match its output schema (at `{}`: {e})",
                            if at.is_empty() { "/" } else { &at }
                        )
                    }
                };
                Err(why)
            },
        );
        match check.await {
            Ok(Ok(Ok(value))) => Ok(Some(value)),
            Ok(Ok(Err(why))) => Err(withheld(why)),
            Ok(Err(e)) => {
                Err(withheld(format!("could not have its structured result checked ({e})")))
            }
            Err(Interrupted::Cancelled) => {
                Err(ToolError::new(ErrorCode::Cancelled, STOPPED_ON_CANCEL))
            }
            Err(Interrupted::Deadline) => Err(ToolError::new(
                ErrorCode::Timeout,
                format!(
                    "the tool `{id}` ran past its deadline while the host checked its structured result against its output schema; {STRUCTURED_WITHHELD}"
                ),
            )),
        }
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
) -> Result<ToolDefinition, crate::validate::InvalidComponent> {
    // `describe` gets no file system at all: every path refused, no spill kept, no program
    // run (a read-only grant), whatever the component asks.
    let session = ToolSessionContext::local("/", "/nonexistent", "describe");
    let call = ToolCallContext::new("describe", SandboxPolicy::no_file_system())
        .with_deadline(Instant::now() + std::time::Duration::from_secs(10));
    let describing = RiskGrant::new("describe", ToolRisk::ReadOnly);
    let run =
        run(runtime, pre, &describing, session, call, |pre, store| Box::pin(pre.describe(store)))
            .await;
    let def = run.value.map_err(|e| crate::validate::InvalidComponent::Describe(e.message))?;
    // Bounded and checked before anything else reads it (the one checker).
    crate::definition::check_described(def).map_err(crate::validate::InvalidComponent::Definition)
}

/// Runs `work` on a blocking thread raced against a call's `deadline` and `cancel`: the
/// answer, or which of them came first (the thread then finishes unobserved, so `work` must
/// be bounded on its own). The async runtime is never held up by it.
async fn off_the_runtime<T: Send + 'static>(
    deadline: Instant,
    cancel: &tokio_util::sync::CancellationToken,
    work: impl FnOnce() -> T + Send + 'static,
) -> Result<Result<T, tokio::task::JoinError>, Interrupted> {
    let handle = tokio::task::spawn_blocking(work);
    tokio::select! {
        done = handle => Ok(done),
        () = cancel.cancelled() => Err(Interrupted::Cancelled),
        () = tokio::time::sleep_until(deadline.into()) => Err(Interrupted::Deadline),
    }
}

/// When `call` must end: its deadline, and never later than [`DEFAULT_CALL_TIMEOUT`] from now.
fn call_deadline(call: &ToolCallContext) -> Instant {
    let longest = Instant::now() + DEFAULT_CALL_TIMEOUT;
    call.deadline.unwrap_or(longest).min(longest)
}

type ExportFuture<'a, R> =
    std::pin::Pin<Box<dyn std::future::Future<Output = wasmtime::Result<R>> + Send + 'a>>;

/// A fresh store for one instance serving `call`: the memory cap, and the call's
/// cancellation and deadline checked at every epoch tick.
fn new_store(
    runtime: &ComponentRuntime,
    session: ToolSessionContext,
    call: ToolCallContext,
    share: Arc<CallShare>,
) -> Store<CallState> {
    let deadline = call_deadline(&call);
    let cancel = call.cancel.clone();
    let limits =
        StoreLimitsBuilder::new().memory_size(MAX_STORE_MEMORY).trap_on_grow_failure(true).build();
    let mut store = Store::new(
        runtime.engine(),
        CallState::new(session, call, limits, share, runtime.ticking()),
    );
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
    store
}

/// Instantiate a fresh store for `call` and run one export in it.
async fn run<R: Send + 'static>(
    runtime: &ComponentRuntime,
    pre: &Prepared,
    grant: &RiskGrant,
    session: ToolSessionContext,
    call: ToolCallContext,
    export: impl for<'a> FnOnce(&'a Prepared, &'a mut Store<CallState>) -> ExportFuture<'a, R>,
) -> Run<R> {
    let mut store = new_store(runtime, session, call, Arc::new(CallShare::single(grant.clone())));
    let value = export(pre, &mut store).await;
    let crashed = value.as_ref().is_err_and(is_crash);
    let value = value.map_err(|e| trap_to_error(&e));
    Run { value, crashed, state: store.into_data() }
}

/// The most linear memory a call held at once: the parts of a parallel call run together
/// (their peaks add up), its merging instance after them.
fn peak_memory(states: &[CallState]) -> u64 {
    let peaks = states.iter().map(|s| s.limits.peak_memory() as u64);
    match states.len() {
        0 | 1 => peaks.sum(),
        n => {
            let all: Vec<u64> = peaks.collect();
            let parts: u64 = all[..n - 1].iter().sum();
            parts.max(all[n - 1])
        }
    }
}

/// Whether a failed export was the component's own crash (a trap, out of memory), not the
/// host stopping it at the deadline or on cancellation.
fn is_crash(e: &wasmtime::Error) -> bool {
    e.downcast_ref::<Interrupted>().is_none()
}

/// Turn a trap or host interruption into the error the model sees.
fn trap_to_error(e: &wasmtime::Error) -> ToolError {
    if let Some(i) = e.downcast_ref::<Interrupted>() {
        return match i {
            Interrupted::Cancelled => ToolError::new(ErrorCode::Cancelled, STOPPED_ON_CANCEL),
            Interrupted::Deadline => ToolError::new(ErrorCode::Timeout, STOPPED_AT_DEADLINE),
        };
    }
    if let Some(limit) = e.downcast_ref::<crate::host::CallLimit>() {
        return ToolError::execution_failed(format!(
            "the tool component passed a bound of its call: {limit}"
        ));
    }
    let cap = || format!("a call may use at most {} MiB of memory", MAX_STORE_MEMORY >> 20);
    if let Some(trap) = e.downcast_ref::<wasmtime::Trap>() {
        if *trap == wasmtime::Trap::AllocationTooLarge {
            return ToolError::execution_failed(format!(
                "the tool component ran out of memory: {} ({trap})",
                cap()
            ));
        }
        return ToolError::execution_failed(format!("the tool component crashed ({trap})"));
    }
    let root = e.root_cause().to_string();
    if root.contains("memory") || root.contains("grow") {
        return ToolError::execution_failed(format!(
            "the tool component ran out of memory: {} ({root})",
            cap()
        ));
    }
    ToolError::execution_failed(format!("the tool component failed: {root}"))
}

#[async_trait]
impl DynTool for ComponentTool {
    fn definition(&self) -> &ToolDefinition {
        &self.definition
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
        let text = input.to_string();
        let pre = self.pre().await?;
        let run = run(&self.runtime, pre, &self.grant, session.clone(), call, move |pre, store| {
            Box::pin(async move { pre.inspect(store, &text).await })
        })
        .await;
        run.value?
    }

    async fn call(
        &self,
        session: &ToolSessionContext,
        call: ToolCallContext,
        input: serde_json::Value,
    ) -> ToolResult {
        let text = input.to_string();
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
        let mut artifacts = Vec::new();
        let mut observed = Vec::new();
        let fence_denied = states.iter().any(CallState::sandbox_denied);
        let kernel_denied = states.iter().any(CallState::process_denied);
        let usage = ToolUsage {
            wall_us: started.elapsed().as_micros() as u64,
            peak_memory_bytes: peak_memory(&states),
        };
        for state in states {
            artifacts.extend(state.artifacts);
            observed.extend(state.observed);
        }
        let value = match value {
            Ok(Ok(Output { text, structured })) => {
                Ok(self.check_structured(structured, deadline, &cancel).await.map(|s| (text, s)))
            }
            Ok(Err(e)) => Ok(Err(e)),
            Err(e) => Err(e),
        };
        let mut result = match value {
            Ok(Ok((text, structured))) => {
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
            Ok(Err(e)) => ToolResult::from_error(e),
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
        self.note_crash(crashed);
        result.usage = Some(usage);
        result
    }
}

/// Run a call as `parts` instances of a `parallel` component at once (each `execute-part`
/// on a thread of its own, sharing the call's walks and spills), then `merge` their
/// findings in one more instance. The first part that fails decides the result.
async fn run_parallel(
    runtime: &Arc<ComponentRuntime>,
    pre: &Prepared,
    grant: &RiskGrant,
    session: &ToolSessionContext,
    call: ToolCallContext,
    input: String,
    parts: u32,
) -> (Result<Result<Output, ToolError>, ToolError>, Vec<CallState>, bool) {
    let share = Arc::new(CallShare::parallel(grant.clone()));
    let mut tasks = Vec::with_capacity(parts as usize);
    for index in 0..parts {
        let mut store = new_store(runtime, session.clone(), call.clone(), share.clone());
        let pre = pre.clone();
        let input = input.clone();
        // Each part on a thread of its own: a part is a long CPU-bound scan that rarely yields
        // (its host calls mostly complete at once), so on tokio's workers it would hold one
        // for the whole scan — and with it every task queued there (a server's other calls,
        // or another part woken into that worker's LIFO slot).
        let handle = tokio::runtime::Handle::current();
        tasks.push(tokio::task::spawn_blocking(move || {
            handle.block_on(async move {
                let value = pre.execute_part(&mut store, &input, index, parts).await;
                let crashed = value.as_ref().is_err_and(is_crash);
                (value.map_err(|e| trap_to_error(&e)), store.into_data(), crashed)
            })
        }));
    }
    let mut states = Vec::with_capacity(parts as usize + 1);
    let mut found = Vec::with_capacity(parts as usize);
    let mut failure = None;
    let mut crashed = false;
    for task in tasks {
        match task.await {
            Ok((value, state, part_crashed)) => {
                states.push(state);
                crashed |= part_crashed;
                match value {
                    Ok(Ok(part)) => found.push(part),
                    Ok(Err(e)) => {
                        failure.get_or_insert(Ok(Err(e)));
                    }
                    Err(e) => {
                        failure.get_or_insert(Err(e));
                    }
                }
            }
            Err(e) => {
                failure.get_or_insert(Err(ToolError::execution_failed(format!(
                    "a part of the call failed: {e}"
                ))));
            }
        }
    }
    if let Some(failure) = failure {
        return (failure, states, crashed);
    }
    let mut store = new_store(runtime, session.clone(), call, share);
    let value = pre.merge(&mut store, &input, &found).await;
    states.push(store.into_data());
    let crashed = value.as_ref().is_err_and(is_crash);
    (value.map_err(|e| trap_to_error(&e)), states, crashed)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    /// Work that outlives the call's deadline or cancel is not waited for (it is still blocked
    /// when the answer comes), and does not hold up the async runtime meanwhile.
    #[tokio::test(flavor = "multi_thread", worker_threads = 1)]
    async fn work_off_the_runtime_ends_with_the_call() {
        let (release, held) = std::sync::mpsc::channel::<()>();
        let held = Arc::new(std::sync::Mutex::new(held));
        let blocked = |held: Arc<std::sync::Mutex<std::sync::mpsc::Receiver<()>>>| {
            move || held.lock().unwrap().recv_timeout(Duration::from_secs(120)).is_ok()
        };
        let cancel = tokio_util::sync::CancellationToken::new();
        let ticker = tokio::spawn(async { tokio::time::sleep(Duration::from_millis(50)).await });
        let r = off_the_runtime(
            Instant::now() + Duration::from_millis(200),
            &cancel,
            blocked(held.clone()),
        )
        .await;
        assert!(matches!(r, Err(Interrupted::Deadline)));
        assert!(ticker.await.is_ok(), "the async runtime was held up");

        let c = cancel.clone();
        tokio::spawn(async move {
            tokio::time::sleep(Duration::from_millis(100)).await;
            c.cancel();
        });
        let r = off_the_runtime(
            Instant::now() + Duration::from_secs(600),
            &cancel,
            blocked(held.clone()),
        )
        .await;
        assert!(matches!(r, Err(Interrupted::Cancelled)));

        // Let the first blocked one go; the second takes the next message.
        release.send(()).unwrap();
        release.send(()).unwrap();
        let r = off_the_runtime(
            Instant::now() + Duration::from_secs(600),
            &tokio_util::sync::CancellationToken::new(),
            || 7,
        )
        .await;
        assert_eq!(r.unwrap().unwrap(), 7);
    }
}
