//! A call split over the parts of a component that exports `parallel`: each part's
//! `execute-part` on a thread of its own, sharing the call's walks and spills, then `merge`.

use std::sync::Arc;

use super::instance::{is_crash, new_store, trap_to_error};
use crate::engine::ComponentRuntime;
use crate::exports::{Output, Prepared};
use crate::grant::RiskGrant;
use crate::host::{CallShare, CallState};
use toolhost_core::context::{ToolCallContext, ToolSessionContext};
use toolhost_core::result::ToolError;

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

/// Run a call as `parts` instances of a `parallel` component at once (each `execute-part`
/// on a thread of its own, sharing the call's walks and spills), then `merge` their
/// findings in one more instance. The first part that fails decides the result.
pub(super) async fn run_parallel(
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
