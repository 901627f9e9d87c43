//! The session runtime (`docs/sessions.md`): one [`FinalizedToolset`] with its
//! observation table and spill dir, calls run one after another in arrival order, each call
//! with its own id (`<session>-<n>`) and a cancellation token that is a child of the
//! session's, and every call recorded in the [`Store`].
//!
//! [`SessionRuntime::serve_jsonl`] speaks the JSON Lines protocol of `docs/sessions.md`. A reader task
//! reads requests while a call runs (so `cancel` reaches it and `undo` can be refused with
//! `SessionActive`), a runner executes calls and undo/reapply in order, and a writer task
//! writes one event per line. A request line longer than `MAX_REQUEST_BYTES` is discarded as it
//! is read (memory stays bounded) and answered with an error event naming its line and the
//! limit, under its id when one is found in it; the session goes on.
//!
//! Output waits in an [`output::OutputQueue`] for a client that reads slowly: progress
//! events past its bound are dropped and counted (the call's result event says how many, as
//! `droppedProgress`), results never are.
//!
//! `bounded_lines` and `request_id` give the line-based transports (this one and MCP over
//! stdio) request lines with a size cap, and the id of a line too long to parse.

pub mod bounded_lines;
pub mod output;
mod request_id;

use std::collections::HashMap;
use std::io::IsTerminal;
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use serde_json::Value;
use tokio::io::{AsyncBufRead, AsyncWrite};
use std::time::Duration;

use toolhost_limits::{
    MAX_CALL_TIMEOUT_MS, MAX_REQUEST_BYTES, SESSION_MAX_QUEUED_REQUEST_BYTES, SESSION_MAX_QUEUED_REQUESTS,
};
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use crate::bounded_lines::{BoundedLines, Line, too_long_message};
use crate::output::OutputQueue;
use toolhost_core::context::{PROGRESS_CHANNEL_CAPACITY, ToolCallContext, ToolProgress, ToolSessionContext};
use toolhost_core::policy::SandboxPolicy;
use toolhost_core::registry::FinalizedToolset;
use toolhost_core::result::{ErrorCode, FileChangeKind, ToolError, ToolResult};
use toolhost_store::{RecordedChange, Store, StoreError};
use toolhost_core::undo::{Direction, UndoError};

/// The text of the error returned for undo/reapply while a call is running or queued.
pub const SESSION_ACTIVE: &str = "SessionActive: a tool call is running in this session; undo or reapply once it has finished";

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
    #[error("a toolset finalized for session {0} cannot replace this session's")]
    OtherSession(String),
    #[error("the files were changed, but recording that in the session store failed: {0}; `toolhost changes` shows the old state")]
    NotRecorded(StoreError),
}

/// One session: a toolset, the policy stamped on its calls, and the store.
pub struct SessionRuntime {
    /// The toolset calls run on; replaced (for calls not yet started) when the installed
    /// tools change ([`SessionRuntime::replace_toolset`]).
    toolset: std::sync::RwLock<Arc<FinalizedToolset>>,
    session: ToolSessionContext,
    policy: SandboxPolicy,
    store: Option<Mutex<Store>>,
    cancel: CancellationToken,
    next_call: AtomicU64,
}

impl SessionRuntime {
    /// A session over `toolset`, stamping `policy` on each call, recording into `store`
    /// (None: nothing is recorded). A session id already in the store resumes its numbering.
    pub fn new(toolset: FinalizedToolset, policy: SandboxPolicy, store: Option<Store>) -> Result<Self, StoreError> {
        let mut first = 1;
        if let Some(store) = &store {
            let session = toolset.session();
            store.record_session(&session.session_id, &session.working_directory)?;
            first = store.call_count(&session.session_id)? + 1;
        }
        Ok(SessionRuntime {
            session: toolset.session().clone(),
            toolset: std::sync::RwLock::new(Arc::new(toolset)),
            policy,
            store: store.map(Mutex::new),
            cancel: CancellationToken::new(),
            next_call: AtomicU64::new(first),
        })
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
        let result = if cancel.is_cancelled() {
            ToolResult::from_error(ToolError::new(ErrorCode::Cancelled, "the call was cancelled"))
        } else {
            let mut call = ToolCallContext::new(call_id, self.policy.clone()).with_cancel(cancel);
            if let Some(deadline) = deadline {
                call = call.with_deadline(deadline);
            }
            if let Some(tx) = progress {
                call = call.with_progress(tx);
            }
            let toolset = self.toolset();
            toolset.call(tool, arguments.clone(), call).await
        };
        let recorded = self.with_store(|s| s.record_call(&self.session().session_id, call_id, tool, &arguments, &result));
        if let Some(Err(e)) = recorded {
            // The crash window of `docs/sessions.md`: the tool's effect happened but the record is lost.
            tracing::error!(call_id, "call not recorded: {e}");
            eprintln!(
                "toolhost: call {call_id} ({tool}) finished but was not recorded: {e}; any file it changed is not listed by `toolhost changes`"
            );
        }
        result
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
        let batch = {
            let store = store.lock().unwrap_or_else(|e| e.into_inner());
            recorded_batch(&store, &ids)?
        };
        let session = self.session();
        same_workspace(&batch, &session.working_directory, direction)?;
        let changes: Vec<_> = batch.iter().map(|r| r.change.clone()).collect();
        apply_changes(&changes, session, &self.policy, direction).await?;
        let store = store.lock().unwrap_or_else(|e| e.into_inner());
        mark(&store, &changes, direction)
    }

    /// Serve the JSON Lines protocol of `docs/sessions.md` until `input` ends and every request read
    /// has been answered.
    pub async fn serve_jsonl<R, W>(self: Arc<Self>, input: R, output: W) -> std::io::Result<()>
    where
        R: AsyncBufRead + Unpin + Send + 'static,
        W: AsyncWrite + Unpin + Send + 'static,
    {
        let out = Arc::new(OutputQueue::default());
        let writer = {
            let out = out.clone();
            tokio::spawn(async move { out.write_to(output).await })
        };
        let (job_tx, job_rx) = mpsc::unbounded_channel::<(Job, usize)>();
        let pending: Pending = Arc::default();
        let backlog = Arc::new(Backlog::default());
        let runner = tokio::spawn(run_jobs(self.clone(), job_rx, out.clone(), pending.clone(), backlog.clone()));
        let read = read_requests(self.clone(), input, job_tx, out.clone(), pending, backlog).await;
        // EOF (or a read error): the runner finishes what was already read, then the writer.
        let _ = runner.await;
        out.close();
        let written = writer.await.unwrap_or_else(|e| Err(std::io::Error::other(e)));
        read.and(written)
    }
}

fn paths_equal(a: &Path, b: &Path) -> bool {
    a == b || a.canonicalize().ok().zip(b.canonicalize().ok()).is_some_and(|(x, y)| x == y)
}

/// Changes are undone and reapplied only in the workspace they were made in, under that
/// workspace's own policy: never another workspace's files under this one's grants.
fn same_workspace(batch: &[RecordedChange], current: &Path, direction: Direction) -> Result<(), SessionError> {
    match batch.iter().find(|r| !paths_equal(&r.workspace, current)) {
        None => Ok(()),
        Some(r) => Err(SessionError::OtherWorkspace {
            change_id: r.change.change_id.clone(),
            recorded: r.workspace.display().to_string(),
            current: current.display().to_string(),
            direction,
        }),
    }
}

/// The recorded changes `ids`, in the order they were made.
fn recorded_batch(store: &Store, ids: &[String]) -> Result<Vec<RecordedChange>, SessionError> {
    for id in ids {
        store.find_change(id)?;
    }
    let batch: Vec<RecordedChange> =
        store.recorded_changes(None)?.into_iter().filter(|r| ids.contains(&r.change.change_id)).collect();
    if batch.iter().any(|r| r.workspace != batch[0].workspace) {
        return Err(SessionError::MixedWorkspaces(ids.join(", ")));
    }
    Ok(batch)
}

async fn apply_changes(
    changes: &[toolhost_core::result::FileChange],
    ctx: &ToolSessionContext,
    policy: &SandboxPolicy,
    direction: Direction,
) -> Result<(), UndoError> {
    match direction {
        Direction::Undo => toolhost_core::undo::undo(changes, ctx, policy).await,
        Direction::Reapply => toolhost_core::undo::reapply(changes, ctx, policy).await,
    }
}

fn mark(store: &Store, changes: &[toolhost_core::result::FileChange], direction: Direction) -> Result<(), SessionError> {
    for c in changes {
        store.set_undone(&c.change_id, direction == Direction::Undo).map_err(SessionError::NotRecorded)?;
    }
    Ok(())
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
    same_workspace(&batch, &session.working_directory, direction)?;
    let changes: Vec<_> = batch.iter().map(|r| r.change.clone()).collect();
    apply_changes(&changes, session, policy, direction).await?;
    mark(store, &changes, direction)
}

/// Render recorded changes for a terminal: a header per change, then its hunks; `+`/`-`
/// lines coloured when `color`.
pub fn render_changes(changes: &[RecordedChange], color: bool) -> String {
    let (green, red, cyan, bold, reset) =
        if color { ("\x1b[32m", "\x1b[31m", "\x1b[36m", "\x1b[1m", "\x1b[0m") } else { ("", "", "", "", "") };
    let mut out = String::new();
    for r in changes {
        let c = &r.change;
        let kind = match c.kind {
            FileChangeKind::Created => "created",
            FileChangeKind::Modified => "modified",
        };
        let undone = if c.undone { " [undone]" } else { "" };
        use toolhost_core::display::terminal_line;
        out.push_str(&format!(
            "{bold}{} {} ({kind}, +{} -{}){undone}{reset}  session {}\n",
            terminal_line(&c.change_id),
            toolhost_core::display::quote_path(&c.path),
            c.additions,
            c.deletions,
            terminal_line(&r.session_id)
        ));
        for h in &c.hunks {
            out.push_str(&format!(
                "{cyan}@@ -{},{} +{},{} @@{reset}\n",
                h.old_start, h.old_lines, h.new_start, h.new_lines
            ));
            for line in &h.lines {
                let (pre, post) = match line.as_bytes().first() {
                    Some(b'+') => (green, reset),
                    Some(b'-') => (red, reset),
                    _ => ("", ""),
                };
                // A diff line is one line of a file: every control character in it escaped.
                out.push_str(&format!("{pre}{}{post}\n", terminal_line(line)));
            }
        }
        out.push('\n');
    }
    out
}

/// Whether stdout is a terminal that wants colour (`NO_COLOR` turns it off).
pub fn stdout_wants_color() -> bool {
    std::io::stdout().is_terminal() && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
}

// ---- JSON Lines ----------------------------------------------------------------------------

/// Request ids (as JSON text) of calls read but not yet answered → their cancel tokens.
type Pending = Arc<Mutex<HashMap<String, CancellationToken>>>;

/// Requests read but not yet answered, and the bytes of their lines: bounded by
/// `SESSION_MAX_QUEUED_REQUESTS` and `SESSION_MAX_QUEUED_REQUEST_BYTES`.
#[derive(Default)]
struct Backlog(Mutex<(usize, usize)>);

impl Backlog {
    /// Take in a request of `bytes`, or say why not.
    fn admit(&self, bytes: usize) -> Result<(), String> {
        let mut b = self.0.lock().unwrap_or_else(|e| e.into_inner());
        if b.0 >= SESSION_MAX_QUEUED_REQUESTS || (b.0 > 0 && b.1 + bytes > SESSION_MAX_QUEUED_REQUEST_BYTES) {
            return Err(format!(
                "{} requests ({} MiB) are already waiting in this session; at most {SESSION_MAX_QUEUED_REQUESTS} requests and {} MiB wait at once (SESSION_MAX_QUEUED_REQUESTS, SESSION_MAX_QUEUED_REQUEST_BYTES): this one was not run; send it again once a result has arrived",
                b.0,
                b.1 >> 20,
                SESSION_MAX_QUEUED_REQUEST_BYTES >> 20
            ));
        }
        b.0 += 1;
        b.1 += bytes;
        Ok(())
    }

    /// A request of `bytes` was answered.
    fn release(&self, bytes: usize) {
        let mut b = self.0.lock().unwrap_or_else(|e| e.into_inner());
        b.0 -= 1;
        b.1 -= bytes;
    }
}

enum Job {
    Call { id: Value, tool: String, arguments: Value, timeout: Option<Duration>, cancel: CancellationToken },
    Undo { id: Value, change_id: String, direction: Direction },
}

#[derive(Debug)]
enum Request {
    Call { tool: String, arguments: Value, timeout: Option<Duration> },
    Cancel(Value),
    Undo(String),
    Reapply(String),
}

fn event(id: &Value, key: &str, body: &impl serde::Serialize) -> String {
    let id = serde_json::to_string(id).unwrap_or_else(|_| "null".into());
    let body = serde_json::to_string(body).unwrap_or_else(|e| serde_json::to_string(&e.to_string()).unwrap_or_default());
    format!("{{\"id\":{id},\"{key}\":{body}}}")
}

/// A call's result event; `droppedProgress` counts the progress events of the call that a
/// slow client did not get (present only when some were dropped).
fn result_event(id: &Value, result: &ToolResult, dropped: u64) -> String {
    let line = event(id, "result", result);
    if dropped == 0 {
        return line;
    }
    format!("{},\"droppedProgress\":{dropped}}}", &line[..line.len() - 1])
}

/// Parse one line into (id, request), or (id if known, what is wrong).
fn parse_request(line: &str) -> Result<(Value, Request), (Value, String)> {
    let value: Value = serde_json::from_str(line).map_err(|e| (Value::Null, format!("not valid JSON: {e}")))?;
    let Value::Object(mut obj) = value else {
        return Err((Value::Null, "a request must be a JSON object".into()));
    };
    let id = obj.remove("id").unwrap_or(Value::Null);
    if !(id.is_string() || id.is_number()) {
        return Err((Value::Null, "a request needs an \"id\" (a string or a number)".into()));
    }
    let kinds: Vec<&str> = ["tool", "cancel", "undo", "reapply"].into_iter().filter(|k| obj.contains_key(*k)).collect();
    if kinds.len() != 1 {
        return Err((
            id,
            "a request has exactly one of \"tool\" (with \"arguments\"), \"cancel\", \"undo\" or \"reapply\"".into(),
        ));
    }
    let string_field = |obj: &mut serde_json::Map<String, Value>, k: &str| match obj.remove(k) {
        Some(Value::String(s)) => Ok(s),
        _ => Err(format!("\"{k}\" must be a string")),
    };
    let req = match kinds[0] {
        "tool" => {
            let tool = string_field(&mut obj, "tool").map_err(|e| (id.clone(), e))?;
            let arguments = match obj.remove("arguments") {
                None => Value::Object(Default::default()),
                Some(v @ Value::Object(_)) => v,
                Some(_) => return Err((id, "\"arguments\" must be a JSON object".into())),
            };
            let timeout = match obj.remove("timeoutMs") {
                None => None,
                Some(v) => match v.as_u64().filter(|ms| (1..=MAX_CALL_TIMEOUT_MS).contains(ms)) {
                    Some(ms) => Some(Duration::from_millis(ms)),
                    None => {
                        return Err((id, format!("\"timeoutMs\" must be a whole number of milliseconds from 1 to {MAX_CALL_TIMEOUT_MS}")));
                    }
                },
            };
            Request::Call { tool, arguments, timeout }
        }
        "cancel" => match obj.remove("cancel") {
            Some(v @ (Value::String(_) | Value::Number(_))) => Request::Cancel(v),
            _ => return Err((id, "\"cancel\" must be the id of a call".into())),
        },
        "undo" => Request::Undo(string_field(&mut obj, "undo").map_err(|e| (id.clone(), e))?),
        _ => Request::Reapply(string_field(&mut obj, "reapply").map_err(|e| (id.clone(), e))?),
    };
    Ok((id, req))
}

fn key(id: &Value) -> String {
    match id {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// Whether a call is running or queued.
fn busy(pending: &Pending) -> bool {
    !pending.lock().unwrap_or_else(|e| e.into_inner()).is_empty()
}

async fn read_requests<R: AsyncBufRead + Unpin>(
    runtime: Arc<SessionRuntime>,
    input: R,
    jobs: mpsc::UnboundedSender<(Job, usize)>,
    out: Arc<OutputQueue>,
    pending: Pending,
    backlog: Arc<Backlog>,
) -> std::io::Result<()> {
    let mut lines = BoundedLines::new(input, MAX_REQUEST_BYTES);
    while let Some((line_no, line)) = lines.next_line().await? {
        let buf = match line {
            Line::Fits(bytes) => bytes,
            Line::TooLong { bytes, id } => {
                let msg = too_long_message(line_no, bytes, MAX_REQUEST_BYTES);
                out.send(event(&id.unwrap_or(Value::Null), "error", &msg)).await;
                continue;
            }
        };
        let len = buf.len();
        let Ok(line) = std::str::from_utf8(buf) else {
            out.send(event(&Value::Null, "error", &format!("line {line_no}: not UTF-8"))).await;
            continue;
        };
        if line.trim().is_empty() {
            continue;
        }
        let (id, request) = match parse_request(line) {
            Ok(r) => r,
            Err((id, msg)) => {
                out.send(event(&id, "error", &format!("line {line_no}: {msg}"))).await;
                continue;
            }
        };
        if matches!(request, Request::Call { .. } | Request::Undo(_) | Request::Reapply(_))
            && let Err(why) = backlog.admit(len)
        {
            out.send(event(&id, "error", &format!("line {line_no}: {why}"))).await;
            continue;
        }
        match request {
            Request::Call { tool, arguments, timeout } => {
                let cancel = runtime.cancel.child_token();
                let running = {
                    let mut p = pending.lock().unwrap_or_else(|e| e.into_inner());
                    p.contains_key(&key(&id)) || p.insert(key(&id), cancel.clone()).is_some()
                };
                if running {
                    backlog.release(len);
                    let msg = format!("line {line_no}: a call with id {} is still running", key(&id));
                    out.send(event(&id, "error", &msg)).await;
                    continue;
                }
                let _ = jobs.send((Job::Call { id, tool, arguments, timeout, cancel }, len));
            }
            Request::Cancel(target) => {
                let token = pending.lock().unwrap_or_else(|e| e.into_inner()).get(&key(&target)).cloned();
                match token {
                    Some(t) => {
                        t.cancel();
                        out.send(event(&id, "ok", &true)).await;
                    }
                    None => {
                        out.send(event(&id, "error", &format!("no call with id {} is running", key(&target)))).await;
                    }
                }
            }
            Request::Undo(change_id) | Request::Reapply(change_id) if busy(&pending) => {
                let _ = change_id;
                backlog.release(len);
                out.send(event(&id, "error", &SESSION_ACTIVE)).await;
            }
            Request::Undo(change_id) => {
                let _ = jobs.send((Job::Undo { id, change_id, direction: Direction::Undo }, len));
            }
            Request::Reapply(change_id) => {
                let _ = jobs.send((Job::Undo { id, change_id, direction: Direction::Reapply }, len));
            }
        }
    }
    Ok(())
}

async fn run_jobs(
    runtime: Arc<SessionRuntime>,
    mut jobs: mpsc::UnboundedReceiver<(Job, usize)>,
    out: Arc<OutputQueue>,
    pending: Pending,
    backlog: Arc<Backlog>,
) {
    while let Some((job, bytes)) = jobs.recv().await {
        run_job(&runtime, job, &out, &pending).await;
        backlog.release(bytes);
    }
}

async fn run_job(runtime: &Arc<SessionRuntime>, job: Job, out: &Arc<OutputQueue>, pending: &Pending) {
    {
        match job {
            Job::Call { id, tool, arguments, timeout, cancel } => {
                let deadline = timeout.map(|t| std::time::Instant::now() + t);
                let call_id = runtime.next_call_id();
                let (tx, mut rx) = mpsc::channel(PROGRESS_CHANNEL_CAPACITY);
                let forward_id = id.clone();
                let forward_key = key(&id);
                let forward_out = out.clone();
                let forwarder = tokio::spawn(async move {
                    while let Some(p) = rx.recv().await {
                        let body = match p {
                            ToolProgress::Stdout { chunk } => serde_json::json!({"stdout": chunk}),
                            ToolProgress::Stderr { chunk } => serde_json::json!({"stderr": chunk}),
                            ToolProgress::Message { message, fraction: None } => serde_json::json!({"message": message}),
                            ToolProgress::Message { message, fraction: Some(f) } => {
                                serde_json::json!({"message": message, "fraction": f})
                            }
                        };
                        forward_out.progress(&forward_key, event(&forward_id, "progress", &body));
                    }
                });
                let result = runtime.call_until(&call_id, &tool, arguments, cancel, Some(tx), deadline).await;
                // The call's context (and its sender) is gone: the forwarder drains and ends.
                let _ = forwarder.await;
                pending.lock().unwrap_or_else(|e| e.into_inner()).remove(&key(&id));
                let dropped = out.take_dropped(&key(&id));
                out.send(result_event(&id, &result, dropped)).await;
            }
            Job::Undo { id, change_id, direction } => {
                let r = match direction {
                    Direction::Undo => runtime.undo(&change_id).await,
                    Direction::Reapply => runtime.reapply(&change_id).await,
                };
                out.send(match r {
                    Ok(()) => event(&id, "ok", &true),
                    Err(e) => event(&id, "error", &e.to_string()),
                })
                .await;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_the_four_requests_and_names_what_is_wrong() {
        assert!(matches!(
            parse_request(r#"{"id":"c1","tool":"read","arguments":{"path":"a"}}"#),
            Ok((Value::String(_), Request::Call { .. }))
        ));
        assert!(matches!(parse_request(r#"{"id":"x","cancel":"c1"}"#), Ok((_, Request::Cancel(_)))));
        assert!(matches!(parse_request(r#"{"id":"u","undo":"s-1"}"#), Ok((_, Request::Undo(_)))));
        assert!(matches!(parse_request(r#"{"id":7,"reapply":"s-1"}"#), Ok((_, Request::Reapply(_)))));
        assert!(parse_request("{").unwrap_err().1.contains("JSON"));
        assert_eq!(parse_request("[]").unwrap_err().0, Value::Null);
        let (id, msg) = parse_request(r#"{"id":"c2","tool":"read","undo":"x"}"#).unwrap_err();
        assert_eq!(id, "c2");
        assert!(msg.contains("exactly one"));
        assert!(parse_request(r#"{"id":"c3","tool":"read","arguments":[1]}"#).unwrap_err().1.contains("arguments"));
    }

    #[test]
    fn events_put_the_id_first() {
        assert_eq!(event(&Value::from("u1"), "ok", &true), r#"{"id":"u1","ok":true}"#);
        assert_eq!(event(&Value::Null, "error", &"line 2: x"), r#"{"id":null,"error":"line 2: x"}"#);
    }
}
