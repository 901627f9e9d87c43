//! Request lines over the cap (`MAX_REQUEST_BYTES`, 16 MiB) on the line-based transports,
//! through the built binary: `toolhost session` answers a 20 MiB line with an error event
//! naming the line and the limit, under its id, and goes on; a 300 MB line does not make the
//! process grow by hundreds of MB; `toolhost mcp` on stdio answers an oversize line with a
//! JSON-RPC error for its id (found wherever it sits in the line, `null` when there is none)
//! and goes on. No oversize request runs.

use std::io::{BufRead, BufReader, Write};
use std::process::Stdio;
use std::sync::mpsc;
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use toolhost_limits::MAX_REQUEST_BYTES;
use toolhost_tests::jsonl::SessionProc;
use toolhost_tests::*;

const MIB: usize = 1024 * 1024;

/// A request line of about `size` bytes: `head` + a JSON string of `x` + `tail` + newline.
fn big_line(head: &str, size: usize, tail: &str) -> Vec<u8> {
    let mut line = Vec::with_capacity(size + head.len() + tail.len() + 1);
    line.extend_from_slice(head.as_bytes());
    line.resize(head.len() + size, b'x');
    line.extend_from_slice(tail.as_bytes());
    line.push(b'\n');
    line
}

/// VmRSS or VmHWM of `pid`, in bytes.
fn memory(pid: u32, field: &str) -> u64 {
    toolhost_tests::watchdog::status_bytes(pid, field)
        .unwrap_or_else(|| panic!("no {field} for {pid}"))
}

#[test]
fn a_session_answers_an_oversize_line_with_an_error_for_its_id_and_goes_on() {
    let fx = Fixture::new();
    let mut s = SessionProc::start(&fx, &[]);
    let line = big_line(
        r#"{"id":"big","tool":"write","arguments":{"path":"big.txt","content":""#,
        20 * MIB,
        r#""}}"#,
    );
    s.send_bytes(&line);
    let ev = s.next_event();
    assert_eq!(ev["id"], "big", "{ev}");
    let msg = ev["error"].as_str().unwrap_or_else(|| panic!("an error event: {ev}"));
    assert!(msg.starts_with("line 1: "), "{msg}");
    assert!(msg.contains(&MAX_REQUEST_BYTES.to_string()) && msg.contains("16 MiB"), "{msg}");
    assert!(msg.contains(&(line.len() - 1).to_string()), "{msg}");
    // The next request is answered; the oversize one never ran.
    let r = s.call("c2", "list", json!({}));
    assert_eq!(r["status"], "succeeded", "{r}");
    assert!(!fx.root().join("big.txt").exists());
    // A line just within the cap still reaches the parser (it is a bad request, not a big one).
    let mut fits = vec![b' '; MAX_REQUEST_BYTES - 1];
    fits.push(b'{');
    fits.push(b'\n');
    s.send_bytes(&fits);
    let ev = s.next_event();
    assert!(ev["error"].as_str().unwrap().starts_with("line 3: not valid JSON"), "{ev}");
}

#[test]
fn a_300_mb_session_line_leaves_memory_bounded() {
    let fx = Fixture::new();
    let mut s = SessionProc::start(&fx, &[]);
    assert_eq!(s.call("c1", "list", json!({}))["status"], "succeeded");
    let before = memory(s.pid(), "VmRSS");
    s.send_bytes(br#"{"id":"huge","tool":"read","arguments":{"path":""#);
    let chunk = vec![b'a'; MIB];
    for _ in 0..300 {
        s.send_bytes(&chunk);
    }
    s.send_bytes(b"\"}}\n");
    let ev = s.next_event();
    let peak = memory(s.pid(), "VmHWM");
    let grown = peak.saturating_sub(before);
    eprintln!("RSS before {} MiB, peak {} MiB", before / MIB as u64, peak / MIB as u64);
    assert!(
        grown < 100 * MIB as u64,
        "a 300 MB line grew the session by {} MiB",
        grown / MIB as u64
    );
    assert_eq!(ev["id"], "huge", "{ev}");
    assert!(ev["error"].as_str().is_some_and(|e| e.contains("16 MiB")), "{ev}");
    assert_eq!(s.call("c2", "list", json!({}))["status"], "succeeded");
}

#[test]
fn mcp_on_stdio_answers_an_oversize_line_with_an_error_for_its_id_and_goes_on() {
    let fx = Fixture::new();
    let mut child = toolhost_command(&fx)
        .arg("mcp")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let stdout = child.stdout.take().unwrap();
    let (tx, rx) = mpsc::channel::<Value>();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            let _ = tx.send(
                serde_json::from_str(&line).unwrap_or_else(|e| panic!("not JSON ({e}): {line}")),
            );
        }
    });
    let mut send = |bytes: &[u8]| {
        stdin.write_all(bytes).unwrap();
        stdin.flush().unwrap();
    };
    let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}}});
    send(format!("{init}\n").as_bytes());
    let first = rx.recv_timeout(Duration::from_secs(120)).expect("the initialize response");
    assert_eq!(first["id"], 1, "{first}");
    send(b"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n");
    // The id first (as SDKs write it), the id last, no id at all.
    let write = r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"write","arguments":{"path":"big.txt","content":""#;
    send(&big_line(write, 20 * MIB, r#""}}}"#));
    let tail_first = r#"{"jsonrpc":"2.0","method":"tools/call","params":{"name":"write","arguments":{"path":"big.txt","content":""#;
    send(&big_line(tail_first, 20 * MIB, r#""}},"id":"tail"}"#));
    send(&big_line(
        r#"{"jsonrpc":"2.0","method":"notifications/x","params":{"p":""#,
        17 * MIB,
        r#""}}"#,
    ));
    send(format!("{}\n", json!({"jsonrpc": "2.0", "id": 8, "method": "tools/list"})).as_bytes());

    let mut got: Vec<Value> = Vec::new();
    let deadline = Instant::now() + Duration::from_secs(120);
    let mut listed_at = None;
    while got.len() < 4 && Instant::now() < deadline {
        // Once tools/list is answered, the others had ample time.
        if listed_at.is_some_and(|t: Instant| t.elapsed() > Duration::from_secs(10)) {
            break;
        }
        if let Ok(v) = rx.recv_timeout(Duration::from_millis(200)) {
            if v["id"] == 8 {
                listed_at = Some(Instant::now());
            }
            got.push(v);
        }
    }
    let by_id = |id: Value| got.iter().find(|v| v.get("id") == Some(&id)).cloned();
    let listed = by_id(json!(8)).unwrap_or_else(|| panic!("tools/list was not answered: {got:?}"));
    assert_eq!(listed["result"]["tools"].as_array().map(Vec::len), Some(7), "{listed}");
    for id in [json!(7), json!("tail"), Value::Null] {
        let e = by_id(id.clone()).unwrap_or_else(|| panic!("no answer for id {id}: {got:?}"));
        assert_eq!(e["error"]["code"], -32600, "{e}");
        let msg = e["error"]["message"].as_str().unwrap();
        assert!(msg.contains(&MAX_REQUEST_BYTES.to_string()) && msg.contains("16 MiB"), "{msg}");
        assert_eq!(e["error"]["data"]["limit"], MAX_REQUEST_BYTES, "{e}");
    }
    assert!(!fx.root().join("big.txt").exists(), "an oversize call ran");
    drop(stdin);
    let _ = child.kill();
    let _ = child.wait();
}
