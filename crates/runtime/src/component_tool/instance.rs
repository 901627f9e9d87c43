//! One instance of a component: its fresh `Store` (the memory cap, the call's deadline and
//! cancellation checked at every epoch tick), one export run in it, and how a trap or the
//! host's interruption becomes the error the model sees.

use std::sync::Arc;
use std::time::{Duration, Instant};

use wasmtime::{Store, StoreLimitsBuilder, UpdateDeadline};

use crate::engine::{ComponentRuntime, MAX_STORE_MEMORY};
use crate::exports::Prepared;
use crate::grant::RiskGrant;
use crate::host::{CallShare, CallState};
use crate::interrupt::{Interrupted, STOPPED_AT_DEADLINE, STOPPED_ON_CANCEL};
use toolhost_core::context::{ToolCallContext, ToolSessionContext};
use toolhost_core::result::{ErrorCode, ToolError};

/// How long one component call may run when the caller set no earlier deadline. Scans stop
/// themselves at the 30 s scan timeout; this bound only stops runaways.
pub const DEFAULT_CALL_TIMEOUT: Duration = Duration::from_secs(120);

/// What one run of a component export produced, beside the export's own return value.
pub(super) struct Run<R> {
    pub(super) value: Result<R, ToolError>,
    /// The component trapped or ran out of memory (not: stopped by the host's deadline or
    /// cancellation).
    pub(super) crashed: bool,
    pub(super) state: CallState,
}

/// When `call` must end: its deadline, and never later than [`DEFAULT_CALL_TIMEOUT`] from now.
/// A call with an approved run may last as long as that run's budget.
pub(super) fn call_deadline(call: &ToolCallContext) -> Instant {
    let budget = call.run_gate.as_ref().map_or(DEFAULT_CALL_TIMEOUT, |gate| gate.budget());
    let longest = Instant::now() + budget.max(DEFAULT_CALL_TIMEOUT);
    call.deadline.unwrap_or(longest).min(longest)
}

pub(super) type ExportFuture<'a, R> =
    std::pin::Pin<Box<dyn std::future::Future<Output = wasmtime::Result<R>> + Send + 'a>>;

/// A fresh store for one instance serving `call`: the memory cap, and the call's
/// cancellation and deadline checked at every epoch tick.
pub(super) fn new_store(
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
pub(super) async fn run<R: Send + 'static>(
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
pub(super) fn peak_memory(states: &[CallState]) -> u64 {
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
pub(super) fn is_crash(e: &wasmtime::Error) -> bool {
    e.downcast_ref::<Interrupted>().is_none()
}

/// Turn a trap or host interruption into the error the model sees.
pub(super) fn trap_to_error(e: &wasmtime::Error) -> ToolError {
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
