//! Approvals asked of the session's client (`toolhost session --client-approves`,
//! docs/sessions.md#approvals): a call that needs one (an escalation, or a run of a tool that
//! asks before every run) sends `{"id": <the call's id>, "approval": {"tool", "question"}}`
//! and waits, until its call's deadline at most, for the client to answer
//! `{"id", "approve": <the call's id>, "allow": true|false}` or cancels the call. Only that
//! call waits; `cancel` and other answers are read meanwhile.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use async_trait::async_trait;
use serde_json::Value;
use tokio::sync::oneshot;

use toolhost_core::approval::{Approval, Approver, Verdict};

use crate::output::OutputQueue;

tokio::task_local! {
    /// The request id of the call running in this task (whose approvals the client answers).
    static ASKING_FOR: Value;
}

/// The approver of a session whose client answers approvals; denies when no client is
/// attached or no call is running in the asking task.
#[derive(Default)]
pub struct ClientApprovals {
    out: OnceLock<Arc<OutputQueue>>,
    /// Calls waiting for an answer, by request id (as JSON text, like the session's keys).
    waiting: Mutex<HashMap<String, oneshot::Sender<bool>>>,
}

impl ClientApprovals {
    /// An approver with no client yet (the session attaches its output when it serves).
    pub fn new() -> Arc<Self> {
        Arc::default()
    }

    /// Send questions to `out`.
    pub(crate) fn attach(&self, out: Arc<OutputQueue>) {
        let _ = self.out.set(out);
    }

    /// The answer slot of call `key`, taken (answer it with [`Answer::give`]); none when that
    /// call is not waiting for an answer.
    pub(crate) fn take(&self, key: &str) -> Option<Answer> {
        self.waiting.lock().unwrap_or_else(|e| e.into_inner()).remove(key).map(Answer)
    }

    /// Call `key` ended: a question of it left unanswered is dropped (denied).
    pub(crate) fn forget(&self, key: &str) {
        self.waiting.lock().unwrap_or_else(|e| e.into_inner()).remove(key);
    }

    /// Run `call` (the call with request id `id`) with its approvals asked of the client.
    pub(crate) async fn asking_for<F: std::future::Future>(id: Value, call: F) -> F::Output {
        ASKING_FOR.scope(id, call).await
    }
}

/// Where the answer to one waiting call's question goes.
pub(crate) struct Answer(oneshot::Sender<bool>);

impl Answer {
    /// Let the waiting call go on with `allow`.
    pub(crate) fn give(self, allow: bool) {
        let _ = self.0.send(allow);
    }
}

#[async_trait]
impl Approver for ClientApprovals {
    async fn approve(&self, tool: &str, approval: Approval<'_>) -> Verdict {
        let Ok(id) = ASKING_FOR.try_with(Value::clone) else { return Verdict::Unasked };
        let Some(out) = self.out.get() else { return Verdict::Unasked };
        let (tx, rx) = oneshot::channel();
        self.waiting.lock().unwrap_or_else(|e| e.into_inner()).insert(crate::events::key(&id), tx);
        let body = serde_json::json!({"tool": tool, "question": approval.question(tool)});
        out.send(crate::events::event(&id, "approval", &body)).await;
        rx.await.map_or(Verdict::Unasked, Verdict::answered)
    }
}
