//! The JSON Lines protocol of `toolhost session` (`docs/sessions.md`):
//! [`SessionRuntime::serve_jsonl`] with a reader task, a runner and a writer task, and the
//! parsing of requests and the writing of events.

use crate::events::{event, key};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::Value;
use tokio::io::{AsyncBufRead, AsyncWrite};
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use toolhost_core::context::{PROGRESS_CHANNEL_CAPACITY, ToolProgress};
use toolhost_core::result::ToolResult;
use toolhost_core::undo::Direction;
use toolhost_limits::{
    MAX_CALL_TIMEOUT_MS, MAX_REQUEST_BYTES, SESSION_MAX_QUEUED_REQUEST_BYTES,
    SESSION_MAX_QUEUED_REQUESTS,
};

use crate::bounded_lines::{BoundedLines, Line, too_long_message};
use crate::output::OutputQueue;
use crate::session_runtime::{SESSION_ACTIVE, SessionRuntime};

impl SessionRuntime {
    /// Serve the JSON Lines protocol of `docs/sessions.md` until `input` ends and every request read
    /// has been answered.
    pub async fn serve_jsonl<R, W>(self: Arc<Self>, input: R, output: W) -> std::io::Result<()>
    where
        R: AsyncBufRead + Unpin + Send + 'static,
        W: AsyncWrite + Unpin + Send + 'static,
    {
        let out = Arc::new(OutputQueue::default());
        if let Some(approvals) = self.client_approvals() {
            approvals.attach(out.clone());
        }
        let writer = {
            let out = out.clone();
            tokio::spawn(async move { out.write_to(output).await })
        };
        let (job_tx, job_rx) = mpsc::unbounded_channel::<(Job, usize)>();
        let pending: Pending = Arc::default();
        let backlog = Arc::new(Backlog::default());
        let runner = tokio::spawn(run_jobs(
            self.clone(),
            job_rx,
            out.clone(),
            pending.clone(),
            backlog.clone(),
        ));
        let read = read_requests(self.clone(), input, job_tx, out.clone(), pending, backlog).await;
        // EOF (or a read error): the runner finishes what was already read, then the writer.
        let _ = runner.await;
        out.close();
        let written = writer.await.unwrap_or_else(|e| Err(std::io::Error::other(e)));
        read.and(written)
    }
}

/// Request ids (as JSON text) of calls read but not yet answered → their cancel tokens.
type Pending = Arc<Mutex<HashMap<String, CancellationToken>>>;

/// Requests read but not yet answered, and the bytes of their lines: bounded by
/// `SESSION_MAX_QUEUED_REQUESTS` and `SESSION_MAX_QUEUED_REQUEST_BYTES`.
#[derive(Default)]
struct Backlog(Mutex<(usize, usize)>);

/// A request refused because the session's backlog is full.
#[derive(Debug, thiserror::Error)]
#[error(
    "{requests} requests ({mib} MiB) are already waiting in this session; at most {SESSION_MAX_QUEUED_REQUESTS} requests and {max_mib} MiB wait at once (SESSION_MAX_QUEUED_REQUESTS, SESSION_MAX_QUEUED_REQUEST_BYTES): this one was not run; send it again once a result has arrived",
    max_mib = SESSION_MAX_QUEUED_REQUEST_BYTES >> 20
)]
struct BacklogFull {
    requests: usize,
    mib: usize,
}

impl Backlog {
    /// Take in a request of `bytes`, or say why not.
    fn admit(&self, bytes: usize) -> Result<(), BacklogFull> {
        let mut b = self.0.lock().unwrap_or_else(|e| e.into_inner());
        if b.0 >= SESSION_MAX_QUEUED_REQUESTS
            || (b.0 > 0 && b.1 + bytes > SESSION_MAX_QUEUED_REQUEST_BYTES)
        {
            return Err(BacklogFull { requests: b.0, mib: b.1 >> 20 });
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
    Call {
        id: Value,
        tool: String,
        arguments: Value,
        timeout: Option<Duration>,
        cancel: CancellationToken,
    },
    Undo {
        id: Value,
        change_id: String,
        direction: Direction,
    },
}

#[derive(Debug)]
enum Request {
    Call {
        tool: String,
        arguments: Value,
        timeout: Option<Duration>,
    },
    Cancel(Value),
    Undo(String),
    Reapply(String),
    /// The client's answer to the approval a call asked for.
    Approve {
        call: Value,
        allow: bool,
    },
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
    let value: Value =
        serde_json::from_str(line).map_err(|e| (Value::Null, format!("not valid JSON: {e}")))?;
    let Value::Object(mut obj) = value else {
        return Err((Value::Null, "a request must be a JSON object".into()));
    };
    let id = obj.remove("id").unwrap_or(Value::Null);
    if !(id.is_string() || id.is_number()) {
        return Err((Value::Null, "a request needs an \"id\" (a string or a number)".into()));
    }
    let kinds: Vec<&str> = ["tool", "cancel", "undo", "reapply", "approve"]
        .into_iter()
        .filter(|k| obj.contains_key(*k))
        .collect();
    if kinds.len() != 1 {
        return Err((
            id,
            "a request has exactly one of \"tool\" (with \"arguments\"), \"cancel\", \"undo\", \"reapply\" or \"approve\" (with \"allow\")".into(),
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
                        return Err((
                            id,
                            format!(
                                "\"timeoutMs\" must be a whole number of milliseconds from 1 to {MAX_CALL_TIMEOUT_MS}"
                            ),
                        ));
                    }
                },
            };
            Request::Call { tool, arguments, timeout }
        }
        "cancel" => match obj.remove("cancel") {
            Some(v @ (Value::String(_) | Value::Number(_))) => Request::Cancel(v),
            _ => return Err((id, "\"cancel\" must be the id of a call".into())),
        },
        "approve" => {
            let call = match obj.remove("approve") {
                Some(v @ (Value::String(_) | Value::Number(_))) => v,
                _ => return Err((id, "\"approve\" must be the id of a call".into())),
            };
            let Some(Value::Bool(allow)) = obj.remove("allow") else {
                return Err((id, "\"approve\" needs \"allow\": true or false".into()));
            };
            Request::Approve { call, allow }
        }
        "undo" => Request::Undo(string_field(&mut obj, "undo").map_err(|e| (id.clone(), e))?),
        _ => Request::Reapply(string_field(&mut obj, "reapply").map_err(|e| (id.clone(), e))?),
    };
    Ok((id, req))
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
                let cancel = runtime.cancel_token().child_token();
                let running = {
                    let mut p = pending.lock().unwrap_or_else(|e| e.into_inner());
                    p.contains_key(&key(&id)) || p.insert(key(&id), cancel.clone()).is_some()
                };
                if running {
                    backlog.release(len);
                    let msg =
                        format!("line {line_no}: a call with id {} is still running", key(&id));
                    out.send(event(&id, "error", &msg)).await;
                    continue;
                }
                let _ = jobs.send((Job::Call { id, tool, arguments, timeout, cancel }, len));
            }
            Request::Cancel(target) => out.send(cancel(&pending, &id, &target)).await,
            Request::Approve { call, allow } => approve(&runtime, &out, &id, &call, allow).await,
            Request::Undo(change_id) | Request::Reapply(change_id) if busy(&pending) => {
                let _ = change_id;
                backlog.release(len);
                out.send(event(&id, "error", &SESSION_ACTIVE)).await;
            }
            Request::Undo(change_id) => {
                let _ = jobs.send((Job::Undo { id, change_id, direction: Direction::Undo }, len));
            }
            Request::Reapply(change_id) => {
                let _ =
                    jobs.send((Job::Undo { id, change_id, direction: Direction::Reapply }, len));
            }
        }
    }
    Ok(())
}

/// `cancel`: cancel the running call `target`; the answer to the request `id`.
fn cancel(pending: &Pending, id: &Value, target: &Value) -> String {
    let token = pending.lock().unwrap_or_else(|e| e.into_inner()).get(&key(target)).cloned();
    match token {
        Some(t) => {
            t.cancel();
            event(id, "ok", &true)
        }
        None => event(id, "error", &format!("no call with id {} is running", key(target))),
    }
}

/// `approve`: answer the approval the call `call` is waiting for, and say so to the request
/// `id` — the `ok` goes out before the call goes on, so it precedes the call's result.
async fn approve(
    runtime: &SessionRuntime,
    out: &OutputQueue,
    id: &Value,
    call: &Value,
    allow: bool,
) {
    let waiting = match runtime.client_approvals() {
        None => Err("this session does not ask its client for approvals (start it with `toolhost session --client-approves`)".to_string()),
        Some(approvals) => approvals
            .take(&key(call))
            .ok_or_else(|| format!("no call with id {} is waiting for approval", key(call))),
    };
    match waiting {
        Ok(answer) => {
            out.send(event(id, "ok", &true)).await;
            answer.give(allow);
        }
        Err(e) => out.send(event(id, "error", &e)).await,
    }
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

async fn run_job(
    runtime: &Arc<SessionRuntime>,
    job: Job,
    out: &Arc<OutputQueue>,
    pending: &Pending,
) {
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
                            ToolProgress::Message { message, fraction: None } => {
                                serde_json::json!({"message": message})
                            }
                            ToolProgress::Message { message, fraction: Some(f) } => {
                                serde_json::json!({"message": message, "fraction": f})
                            }
                        };
                        forward_out.progress(&forward_key, event(&forward_id, "progress", &body));
                    }
                });
                let calling =
                    runtime.call_until(&call_id, &tool, arguments, cancel, Some(tx), deadline);
                let result = match runtime.client_approvals() {
                    Some(approvals) => {
                        let result =
                            crate::approvals::ClientApprovals::asking_for(id.clone(), calling)
                                .await;
                        approvals.forget(&key(&id));
                        result
                    }
                    None => calling.await,
                };
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
        assert!(matches!(
            parse_request(r#"{"id":"x","cancel":"c1"}"#),
            Ok((_, Request::Cancel(_)))
        ));
        assert!(matches!(parse_request(r#"{"id":"u","undo":"s-1"}"#), Ok((_, Request::Undo(_)))));
        assert!(matches!(
            parse_request(r#"{"id":7,"reapply":"s-1"}"#),
            Ok((_, Request::Reapply(_)))
        ));
        assert!(matches!(
            parse_request(r#"{"id":"a","approve":"c1","allow":true}"#),
            Ok((_, Request::Approve { allow: true, .. }))
        ));
        assert!(parse_request(r#"{"id":"a","approve":"c1"}"#).unwrap_err().1.contains("allow"));
        assert!(
            parse_request(r#"{"id":"a","approve":"c1","allow":"yes"}"#)
                .unwrap_err()
                .1
                .contains("allow")
        );
        assert!(parse_request("{").unwrap_err().1.contains("JSON"));
        assert_eq!(parse_request("[]").unwrap_err().0, Value::Null);
        let (id, msg) = parse_request(r#"{"id":"c2","tool":"read","undo":"x"}"#).unwrap_err();
        assert_eq!(id, "c2");
        assert!(msg.contains("exactly one"));
        assert!(
            parse_request(r#"{"id":"c3","tool":"read","arguments":[1]}"#)
                .unwrap_err()
                .1
                .contains("arguments")
        );
    }
}
