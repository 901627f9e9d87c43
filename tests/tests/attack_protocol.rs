//! Attacks on toolhost's protocols through the built binary: an oversize
//! `session` request line and an oversize MCP stdio message (each must get an error answer,
//! and the server must go on), the `Origin` check of `mcp --listen` (`localhost:80.evil.com`),
//! and `mcp --listen` used without its token, from the test and from another workspace's bash.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use toolhost_tests::attack::*;

#[test]
fn a_64_mib_session_request_line_gets_an_error_and_the_session_goes_on() {
    let a = Attack::new();
    a.put("a.txt", "hello\n");
    let mut s = a.session(&[]);
    // Valid JSON, so only a cap on the line (not the parser) can turn it away.
    let big = format!(
        "{{\"id\":\"big\",\"tool\":\"read\",\"arguments\":{{\"path\":\"{}\"}}}}\n",
        "a".repeat(64 << 20)
    );
    let mut stdin = s.proc.take_stdin().unwrap();
    let writer = std::thread::spawn(move || {
        let _ = stdin.write_all(big.as_bytes());
        let _ = stdin
            .write_all(b"{\"id\":\"next\",\"tool\":\"read\",\"arguments\":{\"path\":\"a.txt\"}}\n");
        stdin
    });
    let first = s.next_final();
    promise(first.get("error").is_some() && first.get("result").is_none(), || {
        let t = first.to_string();
        format!("a 64 MiB request line was taken as a request: {}", &t[..t.len().min(400)])
    });
    let second = if first["id"] == "next" { first.clone() } else { s.next_final() };
    assert_eq!(second["id"], "next", "the session answers the next request: {second}");
    assert_eq!(second["result"]["status"], "succeeded", "{second}");
    drop(writer.join());
}

#[test]
fn an_oversize_mcp_stdio_message_gets_an_error_for_its_id() {
    let a = Attack::new();
    a.put("a.txt", "hello\n");
    let mut m = a.mcp(&[]);
    let big = json!({"jsonrpc": "2.0", "id": 77, "method": "tools/call",
        "params": {"name": "read", "arguments": {"path": "a".repeat(32 << 20)}}});
    let next = json!({"jsonrpc": "2.0", "id": 78, "method": "tools/call",
        "params": {"name": "read", "arguments": {"path": "a.txt"}}});
    let mut stdin = m.proc.take_stdin().unwrap();
    let writer = std::thread::spawn(move || {
        let _ = stdin.write_all(format!("{big}\n{next}\n").as_bytes());
        stdin
    });
    let mut answered_big = None;
    loop {
        let line = m
            .proc
            .next_line(HANG_GUARD)
            .unwrap_or_else(|| panic!("mcp ended: {}", m.proc.stderr()));
        let v: Value = serde_json::from_str(&line).unwrap_or(Value::Null);
        if v["id"] == 77 {
            answered_big = Some(v.clone());
        }
        if v["id"] == 78 {
            break;
        }
    }
    promise(answered_big.as_ref().is_some_and(|v| v.get("error").is_some()), || {
        format!("no error response for the oversize request's id 77: {answered_big:?}")
    });
    drop(writer.join());
}

/// A running `toolhost mcp --listen 127.0.0.1:0` and its port.
struct Listening {
    proc: LineProc,
    port: u16,
}

fn listen(a: &Attack) -> Listening {
    let mut cmd = a.command(&[]);
    cmd.args(["mcp", "--listen", "127.0.0.1:0"]);
    let proc = LineProc::spawn(cmd);
    let deadline = Instant::now() + HANG_GUARD;
    loop {
        let err = proc.stderr();
        if let Some(rest) = err.split("listening at http://127.0.0.1:").nth(1) {
            let port: String = rest.chars().take_while(|c| c.is_ascii_digit()).collect();
            return Listening { proc, port: port.parse().unwrap() };
        }
        assert!(Instant::now() < deadline, "mcp --listen printed no URL: {err}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// POSTs `body` to `/mcp` with `headers`; the HTTP status and the response text.
fn post(port: u16, headers: &[(&str, String)], body: &Value) -> (u16, String) {
    let mut s = TcpStream::connect(("127.0.0.1", port)).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
    let body = body.to_string();
    let mut req = format!(
        "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nContent-Length: {}\r\nConnection: close\r\n",
        body.len()
    );
    for (k, v) in headers {
        req.push_str(&format!("{k}: {v}\r\n"));
    }
    req.push_str("\r\n");
    req.push_str(&body);
    s.write_all(req.as_bytes()).unwrap();
    let mut buf = Vec::new();
    let mut chunk = [0u8; 4096];
    // The status line and what follows, until the server closes or goes quiet.
    while let Ok(n) = s.read(&mut chunk) {
        if n == 0 {
            break;
        }
        buf.extend_from_slice(&chunk[..n]);
        if buf.len() > 64 << 10 || String::from_utf8_lossy(&buf).contains("\"result\"") {
            break;
        }
    }
    let text = String::from_utf8_lossy(&buf).into_owned();
    let status = text.split_whitespace().nth(1).and_then(|c| c.parse().ok()).unwrap_or(0);
    (status, text)
}

fn initialize() -> Value {
    json!({"jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "attack", "version": "0"}}})
}

/// The server's bearer token, if it left one in a file named `*token*` in its data dir.
fn token_of(a: &Attack) -> Option<String> {
    let mut stack = vec![a.data.clone()];
    while let Some(dir) = stack.pop() {
        for e in std::fs::read_dir(&dir).ok()?.flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if e.file_name().to_string_lossy().contains("token") {
                let t = std::fs::read_to_string(&p).ok()?.trim().to_string();
                return (!t.is_empty() && !t.contains(char::is_whitespace)).then_some(t);
            }
        }
    }
    None
}

#[test]
fn mcp_listen_refuses_an_origin_whose_port_is_a_foreign_host() {
    let a = Attack::new();
    let server = listen(&a);
    let mut auth: Vec<(&str, String)> = Vec::new();
    let (mut plain, mut text) =
        post(server.port, &[("Origin", "http://localhost:8080".into())], &initialize());
    if plain == 401 {
        let Some(token) = token_of(&a) else {
            eprintln!(
                "SKIPPED: mcp --listen now demands a token this test does not have ({plain})"
            );
            return;
        };
        auth.push(("Authorization", format!("Bearer {token}")));
        let with = [auth.clone(), vec![("Origin", "http://localhost:8080".into())]].concat();
        (plain, text) = post(server.port, &with, &initialize());
    }
    assert_eq!(plain, 200, "a loopback Origin is served: {text}");
    let with = [auth, vec![("Origin", "http://localhost:80.evil.com".into())]].concat();
    let (status, text) = post(server.port, &with, &initialize());
    promise(status == 403, || {
        format!("Origin http://localhost:80.evil.com got {status}, not 403:\n{text}")
    });
    drop(server.proc);
}

#[test]
fn mcp_listen_refuses_a_request_without_its_token() {
    let a = Attack::new();
    let server = listen(&a);
    let (status, text) = post(server.port, &[], &initialize());
    promise(status == 401, || format!("an unauthenticated initialize got {status}:\n{text}"));
    let (status, _) = post(server.port, &[("Authorization", "Bearer wrong".into())], &initialize());
    promise(status == 401, || format!("a wrong token got {status}"));
}

/// A python3 MCP client (Streamable HTTP, standard library only) that asks the server on
/// port argv[1] to write `pwned.txt` in its workspace.
const DRIVE: &str = r#"import http.client, json, sys
port = int(sys.argv[1])
hdr = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
def post(msg, extra):
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=20)
    c.request("POST", "/mcp", json.dumps(msg), {**hdr, **extra})
    r = c.getresponse()
    return r, r.read()
r, b = post({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-11-25",
    "capabilities": {}, "clientInfo": {"name": "x", "version": "0"}}}, {})
print("initialize", r.status)
extra = {"mcp-protocol-version": "2025-11-25"}
if r.getheader("mcp-session-id"):
    extra["mcp-session-id"] = r.getheader("mcp-session-id")
post({"jsonrpc": "2.0", "method": "notifications/initialized"}, extra)
r, b = post({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "write",
    "arguments": {"path": "pwned.txt", "content": "pwned\n"}}}, extra)
print("call", r.status, b[:200])
"#;

#[test]
fn bash_cannot_drive_another_workspaces_mcp_listen() {
    let victim = Attack::new();
    let server = listen(&victim);
    let a = Attack::new();
    let Some(py) = python3() else {
        eprintln!("skipped: no python3");
        return;
    };
    if !a.sandbox_or_skip("bash_cannot_drive_another_workspaces_mcp_listen") {
        return;
    }
    a.put("drive.py", DRIVE);
    let out = a.bash(&format!("{py} drive.py {} 2>&1 | tail -3", server.port));
    promise(!victim.ws.join("pwned.txt").exists(), || {
        format!("bash drove the other workspace's mcp --listen and wrote there: {}", out.all())
    });
    drop(server.proc);
}
