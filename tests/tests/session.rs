//! `toolhost session` (docs/sessions.md): JSON Lines through the real binary, and the session
//! runtime's cancel and progress through the library with the test components.

use std::sync::Arc;

use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use toolhost::SandboxPolicy;
use toolhost::session::{SESSION_ACTIVE, SessionRuntime};
use toolhost::store::Store;
use toolhost_tests::jsonl::{SessionProc, change_of};
use toolhost_tests::*;

#[test]
fn a_session_reads_edits_twice_is_refused_on_an_unread_file_undoes_in_reverse_and_reapplies() {
    let fx = Fixture::new();
    let a = fx.write("a.txt", "one\ntwo\nthree\n");
    let b = fx.write("b.txt", "bee\n");
    let mut s = SessionProc::start(&fx, &["--session", "s1"]);

    let r = s.call("c1", "read", json!({"path": "a.txt"}));
    assert_eq!(r["status"], "succeeded", "{r}");
    let r =
        s.call("c2", "edit", json!({"filePath": "a.txt", "oldString": "one", "newString": "ONE"}));
    assert_eq!(r["status"], "succeeded", "{r}");
    let first = change_of(&r)["changeId"].as_str().unwrap().to_string();
    // Consecutive edits need no re-read (docs/contract.md#read-before-edit).
    let r =
        s.call("c3", "edit", json!({"filePath": "a.txt", "oldString": "two", "newString": "TWO"}));
    assert_eq!(r["status"], "succeeded", "{r}");
    let second = change_of(&r)["changeId"].as_str().unwrap().to_string();
    assert_ne!(first, second);
    assert!(first.starts_with("s1-") && second.starts_with("s1-"), "{first} {second}");
    // An existing file never read in this session is refused.
    let r =
        s.call("c4", "edit", json!({"filePath": "b.txt", "oldString": "bee", "newString": "BEE"}));
    assert_eq!(r["status"], "failed");
    assert_eq!(r["content"][0]["text"], "Read b.txt before editing it.");
    assert_eq!(std::fs::read_to_string(&b).unwrap(), "bee\n");
    assert_eq!(std::fs::read_to_string(&a).unwrap(), "ONE\nTWO\nthree\n");

    // Undoing the first edit while the second is in place is a conflict: nothing written.
    let ev = s.request(json!({"id": "u0", "undo": first}));
    assert!(ev["error"].as_str().unwrap().contains("nothing was written"), "{ev}");
    assert_eq!(std::fs::read_to_string(&a).unwrap(), "ONE\nTWO\nthree\n");
    // Reverse order works.
    assert_eq!(s.request(json!({"id": "u1", "undo": second})), json!({"id": "u1", "ok": true}));
    assert_eq!(std::fs::read_to_string(&a).unwrap(), "ONE\ntwo\nthree\n");
    assert_eq!(s.request(json!({"id": "u2", "undo": first})), json!({"id": "u2", "ok": true}));
    assert_eq!(std::fs::read_to_string(&a).unwrap(), "one\ntwo\nthree\n");
    // Undo does not touch the observation table: the model must read again.
    let r =
        s.call("c5", "edit", json!({"filePath": "a.txt", "oldString": "three", "newString": "3"}));
    assert_eq!(r["status"], "failed");
    assert!(
        r["content"][0]["text"].as_str().unwrap().contains("changed since you last read it"),
        "{r}"
    );
    // Undoing twice is refused with a clear text.
    let ev = s.request(json!({"id": "u3", "undo": first}));
    assert!(ev["error"].as_str().unwrap().contains("already undone"), "{ev}");

    // Reapply in forward order.
    assert_eq!(s.request(json!({"id": "r1", "reapply": first})), json!({"id": "r1", "ok": true}));
    assert_eq!(s.request(json!({"id": "r2", "reapply": second})), json!({"id": "r2", "ok": true}));
    assert_eq!(std::fs::read_to_string(&a).unwrap(), "ONE\nTWO\nthree\n");
    let ev = s.request(json!({"id": "u4", "undo": "no-such-change"}));
    assert!(ev["error"].as_str().unwrap().contains("no-such-change"), "{ev}");

    let (status, rest, stderr) = s.finish();
    assert!(status.success(), "{stderr}");
    assert!(rest.is_empty(), "{rest:?}");
}

#[test]
fn a_malformed_line_gets_an_error_naming_the_line_and_the_session_goes_on() {
    let fx = Fixture::new();
    fx.write("x.txt", "x");
    let mut s = SessionProc::start(&fx, &[]);
    let r = s.call("c1", "list", json!({}));
    assert_eq!(r["status"], "succeeded");
    s.send_raw("{not json\n");
    let ev = s.next_event();
    assert_eq!(ev["id"], Value::Null);
    assert!(ev["error"].as_str().unwrap().starts_with("line 2: "), "{ev}");
    s.send_raw("\n"); // blank lines are skipped but counted
    s.send_raw("{\"id\": \"k\", \"bogus\": 1}\n");
    let ev = s.next_event();
    assert_eq!(ev["id"], "k");
    assert!(ev["error"].as_str().unwrap().starts_with("line 4: "), "{ev}");
    s.send_raw("[1,2]\n");
    assert!(s.next_event()["error"].as_str().unwrap().starts_with("line 5: "));
    let ev = s.request(json!({"id": "x", "cancel": "nothing-running"}));
    assert!(ev["error"].as_str().unwrap().contains("nothing-running"), "{ev}");
    let r = s.call("c2", "list", json!({}));
    assert_eq!(r["content"][0]["text"], "x.txt");
    let r = s.call("c3", "nosuchtool", json!({}));
    assert_eq!(r["error"]["code"], "tool_not_found");
    let (status, rest, stderr) = s.finish();
    assert!(status.success(), "{stderr}");
    assert!(rest.is_empty());
}

#[test]
fn eof_mid_stream_answers_every_request_read_and_exits_cleanly() {
    let fx = Fixture::new();
    fx.write("x.txt", "x");
    let mut s = SessionProc::start(&fx, &[]);
    // Three requests written at once, the last without its newline, then a torn line.
    let batch = [
        json!({"id": "c1", "tool": "list", "arguments": {}}).to_string(),
        json!({"id": "c2", "tool": "read", "arguments": {"path": "x.txt"}}).to_string(),
        json!({"id": "c3", "tool": "list", "arguments": {"path": "."}}).to_string(),
    ];
    s.send_raw(&format!("{}\n{}\n{}", batch[0], batch[1], batch[2]));
    let (status, rest, stderr) = s.finish();
    assert!(status.success(), "{stderr}");
    let ids: Vec<&str> = rest.iter().map(|e| e["id"].as_str().unwrap()).collect();
    assert_eq!(ids, ["c1", "c2", "c3"]);
    assert!(rest.iter().all(|e| e["result"]["status"] == "succeeded"), "{rest:?}");

    let mut s = SessionProc::start(&fx, &[]);
    s.send_raw(&format!("{}\n{{\"id\": \"c2\", \"tool\":", batch[0]));
    let (status, rest, stderr) = s.finish();
    assert!(status.success(), "{stderr}");
    // The torn line is answered as soon as it is read (possibly before c1's result).
    assert_eq!(rest.len(), 2, "{rest:?}");
    let result = rest.iter().find(|e| e["id"] == "c1").expect("c1 answered");
    assert_eq!(result["result"]["status"], "succeeded");
    let error = rest.iter().find(|e| e["id"].is_null()).expect("the torn line answered");
    assert!(error["error"].as_str().unwrap().starts_with("line 2: not valid JSON"), "{rest:?}");
}

/// A session over the library with the test components, served over an in-memory pipe.
struct Piped {
    to: tokio::io::DuplexStream,
    from: tokio::io::Lines<BufReader<tokio::io::DuplexStream>>,
    served: tokio::task::JoinHandle<std::io::Result<()>>,
}

impl Piped {
    async fn start(fx: &Fixture) -> Piped {
        let ts = toolset(fx, &["read", "edit", "list", "misbehave"]).await;
        let store = Store::open(fx.data.path()).unwrap();
        let rt = Arc::new(
            SessionRuntime::new(ts, SandboxPolicy::workspace_write(fx.root()), Some(store))
                .unwrap(),
        );
        let (client_in, server_in) = tokio::io::duplex(1 << 16);
        let (server_out, client_out) = tokio::io::duplex(1 << 16);
        let served = tokio::spawn(rt.serve_jsonl(BufReader::new(server_in), server_out));
        Piped { to: client_in, from: BufReader::new(client_out).lines(), served }
    }

    async fn send(&mut self, v: Value) {
        self.to.write_all(format!("{v}\n").as_bytes()).await.unwrap();
    }

    async fn next(&mut self) -> Value {
        let line = tokio::time::timeout(std::time::Duration::from_secs(60), self.from.next_line())
            .await
            .expect("an event within 60 s")
            .unwrap()
            .expect("an event");
        serde_json::from_str(&line).unwrap()
    }
}

#[tokio::test]
async fn cancel_reaches_a_running_call_and_undo_is_refused_meanwhile() {
    let fx = Fixture::new();
    let mut p = Piped::start(&fx).await;
    p.send(json!({"id": "c1", "tool": "misbehave", "arguments": {"action": "loop"}})).await;
    // The call is running (or queued): undo is refused, not queued behind it.
    p.send(json!({"id": "u1", "undo": "whatever"})).await;
    assert_eq!(p.next().await, json!({"id": "u1", "error": SESSION_ACTIVE}));
    p.send(json!({"id": "x1", "cancel": "c1"})).await;
    assert_eq!(p.next().await, json!({"id": "x1", "ok": true}));
    let ev = p.next().await;
    assert_eq!(ev["id"], "c1");
    assert_eq!(ev["result"]["status"], "cancelled", "{ev}");
    // The session goes on.
    p.send(json!({"id": "c2", "tool": "misbehave", "arguments": {"action": "echo"}})).await;
    assert_eq!(p.next().await["result"]["content"][0]["text"], "ok");
    drop(p.to);
    p.served.await.unwrap().unwrap();
    // Both calls were recorded.
    let store = Store::open(fx.data.path()).unwrap();
    assert_eq!(store.call_count("test-session").unwrap(), 2);
}

#[tokio::test]
async fn progress_events_come_before_the_result() {
    let fx = Fixture::new();
    let mut p = Piped::start(&fx).await;
    p.send(json!({"id": 7, "tool": "misbehave", "arguments": {"action": "progress"}})).await;
    for step in 1..=3 {
        let fraction = f64::from(step) / 3.0;
        assert_eq!(
            p.next().await,
            json!({"id": 7, "progress": {"message": format!("step {step} of 3"), "fraction": fraction}})
        );
    }
    let ev = p.next().await;
    assert_eq!(ev["result"]["content"][0]["text"], "done");
    drop(p.to);
    p.served.await.unwrap().unwrap();
}
