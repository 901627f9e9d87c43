//! The tasks of one server (`io.modelcontextprotocol/tasks`, docs/mcp.md#tasks), kept in
//! bounded memory.
//!
//! [`TaskStore::spawn`] runs a call as a task: its future runs on in the background and sees
//! its task through a [`TaskContext`] (status line, cooperative cancel). `tasks/get` reads a
//! task ([`TaskStore::get_task`]), `tasks/cancel` asks it to stop ([`TaskStore::cancel_task`]).
//!
//! What is kept is bounded. A running task is never dropped (their number is bounded by
//! [`toolhost_limits::MCP_MAX_RUNNING_TASKS`] where tasks are started); one still running
//! [`MCP_TASK_TTL_SECS`] after it started is stopped and fails. A finished task keeps its
//! final state as the JSON `tasks/get` answers with, for [`MCP_TASK_TTL_SECS`] at most, and of
//! all finished tasks at most [`MCP_MAX_FINISHED_TASKS`] and [`MCP_MAX_FINISHED_TASK_BYTES`]
//! of that JSON are kept: past either, the tasks that finished first are dropped (the one
//! that finished last always stays). A `tasks/get` of a dropped task says why
//! ([`TaskError`]), for the last [`MCP_MAX_DROPPED_TASK_IDS`] dropped.

use std::collections::{HashMap, VecDeque};
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use rmcp::ErrorData as McpError;
use rmcp::model::{CallToolResult, DetailedTask, JsonObject, Task, TaskPayload, TaskStatus};
use rmcp::task_manager::current_timestamp;
use tokio_util::sync::CancellationToken;

use toolhost_limits::{
    MCP_MAX_DROPPED_TASK_IDS, MCP_MAX_FINISHED_TASK_BYTES, MCP_MAX_FINISHED_TASKS,
    MCP_TASK_POLL_MS, MCP_TASK_TTL_SECS,
};

/// A task's call stopped because `tasks/cancel` asked it to: the task ends `cancelled`.
#[derive(Debug)]
pub struct Cancelled;

/// The call a task runs: its result, or [`Cancelled`].
pub type TaskFuture = Pin<Box<dyn Future<Output = Result<CallToolResult, Cancelled>> + Send>>;

/// Why `tasks/*` found no task for an id.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TaskError {
    /// No task of this server ever had the id (or it was dropped long ago).
    #[error("unknown task: {0}")]
    Unknown(String),
    /// It finished and was dropped to keep the finished tasks within their bounds.
    #[error(
        "task {0} finished, and its final state was dropped to keep the server's memory \
         bounded: it keeps the last {MCP_MAX_FINISHED_TASKS} finished tasks and at most {mib} \
         MiB of their results; make the call again if its result is still needed",
        mib = MCP_MAX_FINISHED_TASK_BYTES / (1024 * 1024)
    )]
    Evicted(String),
    /// It finished more than [`MCP_TASK_TTL_SECS`] ago (its `ttlMs` has passed).
    #[error(
        "task {0} expired: a finished task's final state is kept for {MCP_TASK_TTL_SECS} s \
         (its ttlMs)"
    )]
    Expired(String),
}

impl From<TaskError> for McpError {
    /// `tasks/*` with an id that names no task is invalid params (-32602), as the extension
    /// asks.
    fn from(e: TaskError) -> Self {
        McpError::invalid_params(e.to_string(), None)
    }
}

/// What a running task's call sees of its task.
#[derive(Clone)]
pub struct TaskContext {
    id: String,
    inner: Arc<Mutex<Inner>>,
    cancel: CancellationToken,
}

impl TaskContext {
    /// Sets the task's `statusMessage`.
    pub fn set_status_message(&self, message: String) {
        let mut inner = lock(&self.inner);
        if let Some(running) = inner.running.get_mut(&self.id) {
            running.task.status_message = Some(message);
            running.task.last_updated_at = current_timestamp();
        }
    }

    /// Resolves once `tasks/cancel` asked this task to stop.
    pub async fn cancelled(&self) {
        self.cancel.cancelled().await;
    }

    /// Whether `tasks/cancel` asked this task to stop.
    pub fn is_cancel_requested(&self) -> bool {
        self.cancel.is_cancelled()
    }
}

/// The tasks of one server (see the module doc). Clones share them.
#[derive(Clone, Default)]
pub struct TaskStore {
    inner: Arc<Mutex<Inner>>,
}

#[derive(Default)]
struct Inner {
    running: HashMap<String, Running>,
    finished: HashMap<String, Finished>,
    /// The finished tasks' ids, the first to finish first.
    order: VecDeque<String>,
    /// The bytes of the finished tasks' kept JSON.
    bytes: usize,
    /// Ids of the last tasks dropped, the first dropped first, and why.
    dropped: VecDeque<String>,
    dropped_why: HashMap<String, TaskError>,
}

struct Running {
    task: Task,
    started: Instant,
    cancel: CancellationToken,
    handle: Option<tokio::task::JoinHandle<()>>,
}

struct Finished {
    /// The final `tasks/get` answer (a `DetailedTask`), as JSON.
    json: Box<str>,
    at: Instant,
}

fn lock(inner: &Mutex<Inner>) -> MutexGuard<'_, Inner> {
    inner.lock().unwrap_or_else(|e| e.into_inner())
}

impl TaskStore {
    /// An empty store.
    pub fn new() -> Self {
        Self::default()
    }

    /// Runs `make`'s call as a new task whose status says `status`; the task as
    /// `CreateTaskResult` reports it (readable through `tasks/get` before this returns).
    pub fn spawn<F>(&self, status: String, make: F) -> Task
    where
        F: FnOnce(TaskContext) -> TaskFuture,
    {
        let id = uuid::Uuid::new_v4().to_string();
        let now = current_timestamp();
        let task = Task::new(id.clone(), TaskStatus::Working, now.clone(), now)
            .with_ttl_ms(MCP_TASK_TTL_SECS * 1000)
            .with_poll_interval_ms(MCP_TASK_POLL_MS)
            .with_status_message(status);
        let cancel = CancellationToken::new();
        {
            let mut inner = lock(&self.inner);
            inner.sweep(Instant::now());
            let running = Running {
                task: task.clone(),
                started: Instant::now(),
                cancel: cancel.clone(),
                handle: None,
            };
            inner.running.insert(id.clone(), running);
        }
        let future = make(TaskContext { id: id.clone(), inner: self.inner.clone(), cancel });
        let inner = self.inner.clone();
        let finished_id = id.clone();
        let handle = tokio::spawn(async move {
            let payload = match future.await {
                Ok(result) => TaskPayload::Completed { result: to_object(&result) },
                Err(Cancelled) => TaskPayload::Cancelled,
            };
            lock(&inner).finish(&finished_id, payload, Instant::now());
        });
        // Not there any more: it already finished (the handle ends on its own).
        if let Some(running) = lock(&self.inner).running.get_mut(&id) {
            running.handle = Some(handle);
        }
        task
    }

    /// `tasks/get`: the task's state now.
    pub fn get_task(&self, id: &str) -> Result<DetailedTask, TaskError> {
        let mut inner = lock(&self.inner);
        inner.sweep(Instant::now());
        if let Some(running) = inner.running.get(id) {
            return Ok(DetailedTask::new(running.task.clone(), TaskPayload::Working));
        }
        if let Some(finished) = inner.finished.get(id) {
            // Written by `finish` from a DetailedTask: it reads back.
            if let Ok(task) = serde_json::from_str(&finished.json) {
                return Ok(task);
            }
        }
        Err(inner.missing(id))
    }

    /// `tasks/update`: no task of toolhost's asks for input mid-run, so answers to a known
    /// task are acknowledged and ignored, as the extension says.
    pub fn update_task(&self, id: &str) -> Result<(), TaskError> {
        let mut inner = lock(&self.inner);
        inner.sweep(Instant::now());
        if inner.running.contains_key(id) || inner.finished.contains_key(id) {
            return Ok(());
        }
        Err(inner.missing(id))
    }

    /// `tasks/cancel`: asks a running task's call to stop (it ends `cancelled` when it does);
    /// a finished task stays as it ended.
    pub fn cancel_task(&self, id: &str) -> Result<(), TaskError> {
        let mut inner = lock(&self.inner);
        inner.sweep(Instant::now());
        if let Some(running) = inner.running.get_mut(id) {
            running.cancel.cancel();
            running.task.last_updated_at = current_timestamp();
            return Ok(());
        }
        if inner.finished.contains_key(id) {
            return Ok(());
        }
        Err(inner.missing(id))
    }

    /// How many tasks are running.
    pub fn running_task_count(&self) -> usize {
        let mut inner = lock(&self.inner);
        inner.sweep(Instant::now());
        inner.running.len()
    }

    /// How many finished tasks are kept, and the bytes of their JSON.
    pub fn finished_kept(&self) -> (usize, usize) {
        let inner = lock(&self.inner);
        (inner.order.len(), inner.bytes)
    }
}

impl Inner {
    /// The error for an id that names no task kept.
    fn missing(&self, id: &str) -> TaskError {
        self.dropped_why.get(id).cloned().unwrap_or_else(|| TaskError::Unknown(id.to_string()))
    }

    /// Task `id` ended with `payload` at `now`: keep its final state.
    fn finish(&mut self, id: &str, payload: TaskPayload, now: Instant) {
        // Gone: it was stopped at its TTL and has ended already.
        let Some(running) = self.running.remove(id) else { return };
        let mut task = running.task;
        task.last_updated_at = current_timestamp();
        let json = serde_json::to_string(&DetailedTask::new(task, payload)).unwrap_or_default();
        self.bytes += json.len();
        self.finished.insert(id.to_string(), Finished { json: json.into(), at: now });
        self.order.push_back(id.to_string());
        self.evict(now);
    }

    /// Stops tasks running past their TTL, forgets finished ones past it, and keeps the
    /// finished ones within their bounds.
    fn sweep(&mut self, now: Instant) {
        let ttl = Duration::from_secs(MCP_TASK_TTL_SECS);
        let overdue: Vec<String> = self
            .running
            .iter()
            .filter(|(_, r)| now.saturating_duration_since(r.started) >= ttl)
            .map(|(id, _)| id.clone())
            .collect();
        for id in overdue {
            if let Some(handle) = self.running.get_mut(&id).and_then(|r| r.handle.take()) {
                handle.abort();
            }
            let error = McpError::internal_error(
                format!("task expired: still running {MCP_TASK_TTL_SECS} s after it started"),
                None,
            );
            self.finish(&id, TaskPayload::Failed { error: to_object(&error) }, now);
        }
        self.evict(now);
    }

    /// Drops finished tasks, the first to finish first, while one is past its TTL or they
    /// are more than [`MCP_MAX_FINISHED_TASKS`] or [`MCP_MAX_FINISHED_TASK_BYTES`] (the last
    /// to finish always stays).
    fn evict(&mut self, now: Instant) {
        let ttl = Duration::from_secs(MCP_TASK_TTL_SECS);
        while let Some(id) = self.order.front().cloned() {
            let expired =
                self.finished.get(&id).is_none_or(|f| now.saturating_duration_since(f.at) >= ttl);
            let over = self.order.len() > 1
                && (self.order.len() > MCP_MAX_FINISHED_TASKS
                    || self.bytes > MCP_MAX_FINISHED_TASK_BYTES);
            if !expired && !over {
                break;
            }
            self.order.pop_front();
            if let Some(gone) = self.finished.remove(&id) {
                self.bytes -= gone.json.len();
            }
            let why = if expired {
                TaskError::Expired(id.clone())
            } else {
                TaskError::Evicted(id.clone())
            };
            self.remember_dropped(id, why);
        }
    }

    fn remember_dropped(&mut self, id: String, why: TaskError) {
        self.dropped.push_back(id.clone());
        self.dropped_why.insert(id, why);
        while self.dropped.len() > MCP_MAX_DROPPED_TASK_IDS {
            if let Some(old) = self.dropped.pop_front() {
                self.dropped_why.remove(&old);
            }
        }
    }
}

fn to_object<T: serde::Serialize>(value: &T) -> JsonObject {
    match serde_json::to_value(value) {
        Ok(serde_json::Value::Object(map)) => map,
        _ => JsonObject::new(),
    }
}

#[cfg(test)]
#[path = "task_store_tests.rs"]
mod tests;
