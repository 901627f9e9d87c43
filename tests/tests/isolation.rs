//! A component that traps, loops forever, allocates 4 GiB or reaches for ambient authority
//! gets a failed result (or nothing) while the host goes on serving.

use std::time::{Duration, Instant};

use serde_json::json;
use toolhost::{ErrorCode, ToolResultStatus};
use toolhost_tests::*;

#[tokio::test]
async fn a_trap_fails_the_call_and_the_host_goes_on() {
    let fx = Fixture::new();
    let ts = toolset(&fx, &["misbehave"]).await;
    let r = call(&ts, &fx, "misbehave", json!({"action": "trap"})).await;
    assert_eq!(r.status, ToolResultStatus::Failed);
    assert_eq!(r.error.as_ref().unwrap().code, ErrorCode::ExecutionFailed);
    assert!(r.text().contains("crashed"), "{}", r.text());
    assert_eq!(call(&ts, &fx, "misbehave", json!({"action": "echo"})).await.text(), "ok");
}

#[tokio::test]
async fn an_endless_loop_times_out_at_the_deadline() {
    let fx = Fixture::new();
    let ts = toolset(&fx, &["misbehave"]).await;
    let deadline = Instant::now() + Duration::from_millis(300);
    let r =
        ts.call("misbehave", json!({"action": "loop"}), fx.call("c").with_deadline(deadline)).await;
    assert_eq!(r.status, ToolResultStatus::Failed);
    assert_eq!(r.error.unwrap().code, ErrorCode::Timeout);
    assert_eq!(call(&ts, &fx, "misbehave", json!({"action": "echo"})).await.text(), "ok");
}

#[tokio::test]
async fn an_endless_loop_stops_when_cancelled() {
    let fx = Fixture::new();
    let ts = toolset(&fx, &["misbehave"]).await;
    let call_ctx = fx.call("c");
    let cancel = call_ctx.cancel.clone();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(100)).await;
        cancel.cancel();
    });
    let r = ts.call("misbehave", json!({"action": "loop"}), call_ctx).await;
    assert_eq!(r.status, ToolResultStatus::Cancelled);
    assert_eq!(r.error.unwrap().code, ErrorCode::Cancelled);
}

#[tokio::test]
async fn allocating_4_gib_fails_the_call_not_the_host() {
    let fx = Fixture::new();
    let ts = toolset(&fx, &["misbehave"]).await;
    let r = call(&ts, &fx, "misbehave", json!({"action": "alloc"})).await;
    assert_eq!(r.status, ToolResultStatus::Failed);
    assert_eq!(r.error.unwrap().code, ErrorCode::ExecutionFailed);
    assert_eq!(call(&ts, &fx, "misbehave", json!({"action": "echo"})).await.text(), "ok");
}

#[tokio::test]
async fn a_component_reaches_nothing_through_wasi() {
    let fx = Fixture::new();
    let ts = toolset(&fx, &["misbehave"]).await;
    let r = call(&ts, &fx, "misbehave", json!({"action": "ambient"})).await;
    assert!(r.succeeded(), "{}", r.text());
    let text = r.text();
    assert!(!text.contains("GOT ACCESS"), "{text}");
    for line in [
        "fs-read-dir: denied",
        "fs-read: denied",
        "fs-write: denied",
        "tcp-connect: denied",
        "udp-bind: denied",
    ] {
        assert!(text.contains(line), "missing `{line}` in {text}");
    }
    assert!(text.contains("env: 0 vars"), "{text}");
    assert!(text.contains("args: 0"), "{text}");
    assert!(!std::path::Path::new("/tmp/toolhost-escape").exists());
}

#[tokio::test]
async fn progress_reaches_a_listener_and_a_closed_channel_changes_nothing() {
    let fx = Fixture::new();
    let ts = toolset(&fx, &["misbehave"]).await;
    let (tx, mut rx) = tokio::sync::mpsc::channel(toolhost::context::PROGRESS_CHANNEL_CAPACITY);
    let with =
        ts.call("misbehave", json!({"action": "progress"}), fx.call("c").with_progress(tx)).await;
    let mut got = Vec::new();
    while let Ok(p) = rx.try_recv() {
        got.push(p);
    }
    assert_eq!(got.len(), 3);
    let (tx, rx) = tokio::sync::mpsc::channel(1);
    drop(rx);
    let closed =
        ts.call("misbehave", json!({"action": "progress"}), fx.call("c").with_progress(tx)).await;
    let without = ts.call("misbehave", json!({"action": "progress"}), fx.call("c")).await;
    assert_eq!(with, closed);
    assert_eq!(with, without);
}
