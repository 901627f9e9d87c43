//! [`SessionRuntime`]: one finalized toolset, calls run one after another, each recorded in
//! the [`Store`]; undo and reapply of recorded changes, one at a time in a session
//! ([`SessionRuntime::undo`]) or in a batch outside any session ([`apply_recorded`]).
//! See `docs/sessions.md`.

use std::path::Path;
use std::sync::atomic::{AtomicI64, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use serde_json::Value;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use toolhost_core::context::{ToolCallContext, ToolProgress, ToolSessionContext};
use toolhost_core::on_disk::already_applied;
use toolhost_core::registry::FinalizedToolset;
use toolhost_core::result::{ErrorCode, ToolError, ToolResult};
use toolhost_core::undo::{Direction, UndoError};
use toolhost_core::write_ahead::WriteAhead;
use toolhost_policy::SandboxPolicy;
use toolhost_store::{ClaimRefused, PendingCall, RecordedChange, Store, StoreError};

use crate::write_ahead::CallWriteAhead;

/// The text of the error returned for undo/reapply while a call is running or queued.
pub const SESSION_ACTIVE: &str =
    "SessionActive: a tool call is running in this session; undo or reapply once it has finished";

/// Why a session operation failed.
#[derive(Debug, thiserror::Error)]
pub enum SessionError {
    #[error("{SESSION_ACTIVE}")]
    SessionActive,
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error(transparent)]
    Undo(#[from] UndoError),
    #[error("changes {0} were made in different workspaces; undo or reapply them one at a time")]
    MixedWorkspaces(String),
    /// The change was made in another workspace than the one this command or session runs in.
    #[error(
        "change {change_id} was made in workspace {recorded}, not in this one ({current}); nothing was written. To {direction} it, run toolhost --workspace {recorded} {direction} {change_id}"
    )]
    OtherWorkspace { change_id: String, recorded: String, current: String, direction: Direction },
    /// The change was made in a same-path copy of this workspace that this instance does not
    /// serve (another machine, pod or volume).
    #[error(
        "change {change_id} was made in workspace copy {recorded}, which this toolhost does not serve (it serves {current}); nothing was written. Undo or reapply it from the toolhost that serves that copy"
    )]
    OtherCopy { change_id: String, recorded: String, current: String },
    /// A call was not run because the store cannot record it.
    #[error("{0}; the call was not run")]
    StoreDown(StoreError),
    #[error("a toolset finalized for session {0} cannot replace this session's")]
    OtherSession(String),
    #[error(
        "the files were changed, but recording that in the session store failed: {0}; `toolhost changes` shows the old state"
    )]
    NotRecorded(StoreError),
}

/// A call that ran but whose record could not be saved.
struct Unrecorded {
    call_id: String,
    tool: String,
    arguments: Value,
    result: ToolResult,
}

/// One session: a toolset, the policy stamped on its calls, and the store.
pub struct SessionRuntime {
    /// The toolset calls run on; replaced (for calls not yet started) when the installed
    /// tools change ([`SessionRuntime::replace_toolset`]).
    toolset: std::sync::RwLock<Arc<FinalizedToolset>>,
    session: ToolSessionContext,
    policy: SandboxPolicy,
    store: Option<Arc<Mutex<Store>>>,
    /// Calls whose record could not be saved, kept to be saved again once the store answers
    /// (their changes stay pending in the store until then).
    unrecorded: Mutex<Vec<Unrecorded>>,
    cancel: CancellationToken,
    next_call: AtomicU64,
    /// The approver that asks the client, when the session's approvals go to it.
    client_approvals: Option<Arc<crate::approvals::ClientApprovals>>,
}

impl SessionRuntime {
    /// A session over `toolset`, stamping `policy` on each call, recording into `store`
    /// (None: nothing is recorded). A session id already in the store resumes its numbering.
    pub fn new(
        toolset: FinalizedToolset,
        policy: SandboxPolicy,
        store: Option<Store>,
    ) -> Result<Self, StoreError> {
        let mut first = 1;
        if let Some(store) = &store {
            let session = toolset.session();
            store.record_session(&session.session_id, &session.working_directory)?;
            first = store.call_count(&session.session_id)? + 1;
            let recovered = crate::reconcile_pending(store, session, &policy)?;
            if !recovered.is_empty() {
                tracing::warn!(calls = ?recovered, "recorded the changes of interrupted calls");
            }
        }
        Ok(SessionRuntime {
            session: toolset.session().clone(),
            toolset: std::sync::RwLock::new(Arc::new(toolset)),
            policy,
            store: store.map(|s| Arc::new(Mutex::new(s))),
            unrecorded: Mutex::new(Vec::new()),
            cancel: CancellationToken::new(),
            next_call: AtomicU64::new(first),
            client_approvals: None,
        })
    }

    /// Ask the client for this session's approvals through `approvals` (the approver its
    /// toolset was built with): questions go out as events, answers come in as requests.
    pub fn with_client_approvals(
        mut self,
        approvals: Arc<crate::approvals::ClientApprovals>,
    ) -> Self {
        self.client_approvals = Some(approvals);
        self
    }

    /// The approver that asks the client, if this session has one.
    pub(crate) fn client_approvals(&self) -> Option<&Arc<crate::approvals::ClientApprovals>> {
        self.client_approvals.as_ref()
    }

    /// Whether the session store answers (an orchestrator's readiness probe); `Ok` for a
    /// session that records nothing.
    pub fn store_reachable(&self) -> Result<(), StoreError> {
        match &self.store {
            None => Ok(()),
            Some(store) => {
                store.lock().unwrap_or_else(|e| e.into_inner()).schema_version().map(drop)
            }
        }
    }

    /// The session context.
    pub fn session(&self) -> &ToolSessionContext {
        &self.session
    }

    /// The toolset calls run on now.
    pub fn toolset(&self) -> Arc<FinalizedToolset> {
        self.toolset.read().unwrap_or_else(|e| e.into_inner()).clone()
    }

    /// Run later calls on `toolset` (finalized for this same session: the same session
    /// context, so its observations and spill dir carry on); a call already running finishes
    /// on the toolset it started with.
    pub fn replace_toolset(&self, toolset: FinalizedToolset) -> Result<(), SessionError> {
        if toolset.session().session_id != self.session.session_id {
            return Err(SessionError::OtherSession(toolset.session().session_id.clone()));
        }
        *self.toolset.write().unwrap_or_else(|e| e.into_inner()) = Arc::new(toolset);
        Ok(())
    }

    /// The session's cancellation token; every call's token is a child of it.
    pub fn cancel_token(&self) -> &CancellationToken {
        &self.cancel
    }

    /// Run `f` on the store, if there is one (tests use it to close the store).
    pub fn with_store<R>(&self, f: impl FnOnce(&mut Store) -> R) -> Option<R> {
        self.store.as_ref().map(|s| f(&mut s.lock().unwrap_or_else(|e| e.into_inner())))
    }

    /// A fresh call id: `<session>-<n>`.
    pub fn next_call_id(&self) -> String {
        format!("{}-{}", self.session().session_id, self.next_call.fetch_add(1, Ordering::SeqCst))
    }

    /// Run one call and record it. `cancel` must be a child of [`Self::cancel_token`].
    pub async fn call(
        &self,
        call_id: &str,
        tool: &str,
        arguments: Value,
        cancel: CancellationToken,
        progress: Option<mpsc::Sender<ToolProgress>>,
    ) -> ToolResult {
        self.call_until(call_id, tool, arguments, cancel, progress, None).await
    }

    /// [`Self::call`] with a deadline (a session request's `timeoutMs`).
    pub async fn call_until(
        &self,
        call_id: &str,
        tool: &str,
        arguments: Value,
        cancel: CancellationToken,
        progress: Option<mpsc::Sender<ToolProgress>>,
        deadline: Option<std::time::Instant>,
    ) -> ToolResult {
        self.call_under(None, call_id, tool, arguments, cancel, progress, deadline).await
    }

    /// The policy stamped on this session's calls.
    pub fn policy(&self) -> &SandboxPolicy {
        &self.policy
    }

    /// [`Self::call_until`] under `policy` instead of the session's (an MCP client's roots
    /// narrowed its reads: `SandboxPolicy::with_client_roots`); `None`: the session's.
    #[allow(clippy::too_many_arguments)]
    pub async fn call_under(
        &self,
        policy: Option<&SandboxPolicy>,
        call_id: &str,
        tool: &str,
        arguments: Value,
        cancel: CancellationToken,
        progress: Option<mpsc::Sender<ToolProgress>>,
        deadline: Option<std::time::Instant>,
    ) -> ToolResult {
        // A store that cannot record the call (PostgreSQL gone) runs no tool: no write is
        // made that the record would miss. The next call tries again (reconnecting), and
        // first saves the records that could not be saved before.
        let down = self.with_store(|s| s.ready().and_then(|()| self.record_unrecorded(s)));
        let down = down.and_then(Result::err);
        let result = if cancel.is_cancelled() {
            ToolResult::from_error(ToolError::new(ErrorCode::Cancelled, "the call was cancelled"))
        } else if let Some(e) = down {
            let mut error =
                ToolError::new(ErrorCode::ExecutionFailed, SessionError::StoreDown(e).to_string());
            error.retryable = true;
            return ToolResult::from_error(error);
        } else {
            let policy = policy.unwrap_or(&self.policy).clone();
            let mut call = ToolCallContext::new(call_id, policy).with_cancel(cancel);
            if let Some(deadline) = deadline {
                call = call.with_deadline(deadline);
            }
            if let Some(tx) = progress {
                call = call.with_progress(tx);
            }
            if let Some(store) = &self.store {
                call = call.with_write_ahead(WriteAhead(Arc::new(CallWriteAhead {
                    store: store.clone(),
                    call: PendingCall {
                        session_id: self.session.session_id.clone(),
                        call_id: call_id.to_string(),
                        tool: tool.to_string(),
                        arguments: arguments.clone(),
                        owner: toolhost_store::owner::current(),
                        created_at_ms: 0,
                    },
                    next: AtomicI64::new(0),
                })));
            }
            let toolset = self.toolset();
            toolset.call(tool, arguments.clone(), call).await
        };
        let recorded = self.with_store(|s| {
            s.record_call(&self.session().session_id, call_id, tool, &arguments, &result)
        });
        if let Some(Err(e)) = recorded {
            // The crash window of `docs/sessions.md`: the tool's effect happened but its record
            // is not saved yet. Its changes stay pending in the store; the record is saved
            // again before the next call, or the changes reconciled at the next start.
            tracing::error!(call_id, "call not recorded: {e}");
            // The one print of this library: docs/sessions.md promises this line on stderr
            // whatever the embedding does with tracing.
            #[allow(clippy::print_stderr)]
            {
                eprintln!(
                    "toolhost: call {call_id} ({tool}) finished but was not recorded: {e}; its record is saved again once the store answers, and until then `toolhost changes` does not list what it changed"
                );
            }
            self.unrecorded.lock().unwrap_or_else(|e| e.into_inner()).push(Unrecorded {
                call_id: call_id.to_string(),
                tool: tool.to_string(),
                arguments,
                result: result.clone(),
            });
        }
        result
    }

    /// Save the records that could not be saved before, oldest first; the first that fails
    /// again stops it (and fails the call about to run: the store cannot record).
    fn record_unrecorded(&self, store: &mut Store) -> Result<(), StoreError> {
        let mut unrecorded = self.unrecorded.lock().unwrap_or_else(|e| e.into_inner());
        while let Some(u) = unrecorded.first() {
            store.record_call(
                &self.session.session_id,
                &u.call_id,
                &u.tool,
                &u.arguments,
                &u.result,
            )?;
            unrecorded.remove(0);
        }
        Ok(())
    }

    /// Undo the recorded change `change_id`.
    pub async fn undo(&self, change_id: &str) -> Result<(), SessionError> {
        self.apply(change_id, Direction::Undo).await
    }

    /// Reapply the recorded change `change_id`.
    pub async fn reapply(&self, change_id: &str) -> Result<(), SessionError> {
        self.apply(change_id, Direction::Reapply).await
    }

    async fn apply(&self, change_id: &str, direction: Direction) -> Result<(), SessionError> {
        let Some(store) = &self.store else {
            return Err(StoreError::UnknownChange(change_id.into()).into());
        };
        let ids = [change_id.to_string()];
        let (batch, serving) = {
            let store = store.lock().unwrap_or_else(|e| e.into_inner());
            (recorded_batch(&store, &ids)?, store.workspace_id().map(str::to_string))
        };
        let session = self.session();
        same_workspace(&batch, &session.working_directory, serving.as_deref(), direction)?;
        let lock = || store.lock().unwrap_or_else(|e| e.into_inner());
        let claimed = claim(&lock(), batch, &ids, direction)?;
        let applied = apply_claimed(&claimed, session, &self.policy, direction).await;
        settle(&lock(), &ids, direction, applied)
    }
}

fn paths_equal(a: &Path, b: &Path) -> bool {
    a == b || a.canonicalize().ok().zip(b.canonicalize().ok()).is_some_and(|(x, y)| x == y)
}

/// Changes are undone and reapplied only in the workspace they were made in, under that
/// workspace's own policy: never another workspace's files under this one's grants.
fn same_workspace(
    batch: &[RecordedChange],
    current: &Path,
    serving: Option<&str>,
    direction: Direction,
) -> Result<(), SessionError> {
    if let Some(r) = batch.iter().find(|r| !paths_equal(&r.workspace, current)) {
        return Err(SessionError::OtherWorkspace {
            change_id: r.change.change_id.clone(),
            recorded: r.workspace.display().to_string(),
            current: current.display().to_string(),
            direction,
        });
    }
    // The same path on another machine is another copy: its files are not these.
    let other = |r: &&RecordedChange| {
        r.workspace_id.as_deref().zip(serving).is_some_and(|(made, here)| made != here)
    };
    match batch.iter().find(other) {
        None => Ok(()),
        Some(r) => Err(SessionError::OtherCopy {
            change_id: r.change.change_id.clone(),
            recorded: r.workspace_id.clone().unwrap_or_default(),
            current: serving.unwrap_or_default().to_string(),
        }),
    }
}

/// The recorded changes `ids`, in the order they were made.
fn recorded_batch(store: &Store, ids: &[String]) -> Result<Vec<RecordedChange>, SessionError> {
    let batch = store.find_changes(ids)?;
    if batch.iter().any(|r| r.workspace != batch[0].workspace) {
        return Err(SessionError::MixedWorkspaces(ids.join(", ")));
    }
    Ok(batch)
}

/// The changes of a batch, claimed.
struct Claimed {
    changes: Vec<toolhost_core::result::FileChange>,
    /// Whether a claim was taken over from a process that died holding it: its files may
    /// already stand as the direction leaves them.
    took_over: bool,
}

/// Claim every change of `ids` for `direction` (of two instances racing, one gets it; the
/// other is told why), releasing those already claimed when one is refused. The changes
/// of `batch`, with the state the store holds.
fn claim(
    store: &Store,
    mut batch: Vec<RecordedChange>,
    ids: &[String],
    direction: Direction,
) -> Result<Claimed, SessionError> {
    let ids = unique(ids);
    let mut took_over = false;
    for (n, id) in ids.iter().enumerate() {
        let refused = match store.claim(id, direction) {
            Ok(taken) => {
                took_over |= taken;
                continue;
            }
            Err(refused) => refused,
        };
        for held in &ids[..n] {
            let _ = store.settle(held, direction, false);
        }
        return Err(match refused {
            ClaimRefused::AlreadyDone => {
                UndoError::AlreadyDone { change_id: id.to_string(), state: direction.done_state() }
                    .into()
            }
            ClaimRefused::Store(e) => e.into(),
        });
    }
    for r in &mut batch {
        r.change.undone = direction == Direction::Reapply;
    }
    Ok(Claimed { changes: batch.into_iter().map(|r| r.change).collect(), took_over })
}

/// `ids` without repeats, in order.
fn unique(ids: &[String]) -> Vec<&String> {
    let mut seen = Vec::new();
    for id in ids {
        if !seen.contains(&id) {
            seen.push(id);
        }
    }
    seen
}

/// End the claims on `ids`: the new state if the files were rewritten, the old one if not.
fn settle(
    store: &Store,
    ids: &[String],
    direction: Direction,
    applied: Result<(), UndoError>,
) -> Result<(), SessionError> {
    let done = applied.is_ok();
    for id in unique(ids) {
        let settled = store.settle(id, direction, done);
        if done {
            settled.map_err(SessionError::NotRecorded)?;
        }
    }
    Ok(applied?)
}

/// Rewrite the files of `claimed`. When its claim was taken over from a process that died
/// after rewriting them, the files already stand as `direction` leaves them: that is found
/// by their hashes and counts as done, instead of a conflict.
async fn apply_claimed(
    claimed: &Claimed,
    ctx: &ToolSessionContext,
    policy: &SandboxPolicy,
    direction: Direction,
) -> Result<(), UndoError> {
    let changes = &claimed.changes;
    let applied = match direction {
        Direction::Undo => toolhost_core::undo::undo(changes, ctx, policy).await,
        Direction::Reapply => toolhost_core::undo::reapply(changes, ctx, policy).await,
    };
    match applied {
        Err(UndoError::Conflict { .. })
            if claimed.took_over && already_applied(changes, ctx, policy, direction) =>
        {
            Ok(())
        }
        other => other,
    }
}

/// Undo or reapply recorded changes from the store, outside any session (the CLI's
/// `toolhost undo|reapply`): only changes made in `session`'s workspace, under `policy` (the
/// one every entry point builds) plus exact write grants for the recorded paths.
pub async fn apply_recorded(
    store: &Store,
    session: &ToolSessionContext,
    policy: &SandboxPolicy,
    ids: &[String],
    direction: Direction,
) -> Result<(), SessionError> {
    let batch = recorded_batch(store, ids)?;
    same_workspace(&batch, &session.working_directory, store.workspace_id(), direction)?;
    let claimed = claim(store, batch, ids, direction)?;
    let applied = apply_claimed(&claimed, session, policy, direction).await;
    settle(store, ids, direction, applied)
}
