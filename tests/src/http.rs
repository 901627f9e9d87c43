//! Plain HTTP/1.1 for the `--listen` suites: a raw client that sends exactly the headers a
//! test names (attacks need that), [`EventStream`], which reads a response's messages while
//! it is still open (a `subscriptions/listen` stream), and [`AuthProxy`], which adds a bearer
//! token to every request for clients that cannot send headers of their own (the conformance
//! suite).

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::time::Duration;

use serde_json::Value;

/// How long a raw request may take before the test fails instead of hanging.
pub const HANG_GUARD: Duration = Duration::from_secs(90);

/// A response as read off the wire.
#[derive(Debug, Clone)]
pub struct Reply {
    /// The status code.
    pub status: u16,
    /// The headers, names lowercased.
    pub headers: Vec<(String, String)>,
    /// The body (SSE streams read to their end).
    pub body: String,
}

impl Reply {
    /// The first value of header `name`.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(n, _)| n == name).map(|(_, v)| v.as_str())
    }

    /// The JSON-RPC messages of the body: the body itself, or each SSE `data:` line.
    pub fn messages(&self) -> Vec<Value> {
        if let Ok(v) = serde_json::from_str::<Value>(&self.body) {
            return vec![v];
        }
        self.body
            .lines()
            .filter_map(|l| l.strip_prefix("data:"))
            .filter_map(|d| serde_json::from_str(d.trim()).ok())
            .collect()
    }
}

/// `host:port` and path of an `http://` URL.
pub fn split_url(url: &str) -> (String, String) {
    let rest = url.strip_prefix("http://").expect("an http:// URL");
    let (authority, path) = rest.split_once('/').unwrap_or((rest, ""));
    (authority.to_string(), format!("/{path}"))
}

/// Sends one request (with `Connection: close`) and reads the whole response.
pub fn request(url: &str, method: &str, headers: &[(&str, &str)], body: &str) -> Reply {
    let (authority, path) = split_url(url);
    let mut stream = TcpStream::connect(&authority).expect("connect to the server");
    stream.set_read_timeout(Some(HANG_GUARD)).unwrap();
    let mut head = format!(
        "{method} {path} HTTP/1.1\r\nconnection: close\r\ncontent-length: {}\r\n",
        body.len()
    );
    if !headers.iter().any(|(n, _)| n.eq_ignore_ascii_case("host")) {
        head.push_str(&format!("host: {authority}\r\n"));
    }
    for (name, value) in headers {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    head.push_str("\r\n");
    stream.write_all(head.as_bytes()).unwrap();
    stream.write_all(body.as_bytes()).unwrap();
    let mut raw = Vec::new();
    if let Err(e) = stream.read_to_end(&mut raw) {
        panic!(
            "{method} {url}: no complete response within {HANG_GUARD:?} ({e}); got {:?}",
            String::from_utf8_lossy(&raw)
        );
    }
    parse_reply(&raw)
}

/// Writes `head` (a request head, its blank line included) on a kept-alive connection and
/// reads the response head back: the status and the headers, names lowercased. The body, if
/// any, stays unread; so does the request's, unless `head` is followed by it.
pub fn response_head(stream: &mut TcpStream, head: &str) -> (u16, Vec<(String, String)>) {
    stream.set_read_timeout(Some(HANG_GUARD)).unwrap();
    stream.write_all(head.as_bytes()).unwrap();
    let mut raw = Vec::new();
    let mut byte = [0u8; 1];
    while !raw.ends_with(b"\r\n\r\n") {
        match stream.read(&mut byte) {
            Ok(1) => raw.push(byte[0]),
            other => {
                panic!("no response head ({other:?}); got {:?}", String::from_utf8_lossy(&raw))
            }
        }
    }
    let reply = parse_reply(&raw);
    (reply.status, reply.headers)
}

fn parse_reply(raw: &[u8]) -> Reply {
    let text = String::from_utf8_lossy(raw);
    let (head, body) =
        text.split_once("\r\n\r\n").unwrap_or_else(|| panic!("no response head in {text:?}"));
    let mut lines = head.lines();
    let status = lines
        .next()
        .and_then(|l| l.split(' ').nth(1))
        .and_then(|s| s.parse().ok())
        .expect("a status line");
    let headers: Vec<(String, String)> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(n, v)| (n.trim().to_ascii_lowercase(), v.trim().to_string()))
        .collect();
    let chunked = headers.iter().any(|(n, v)| n == "transfer-encoding" && v.contains("chunked"));
    let body = if chunked { dechunk(body) } else { body.to_string() };
    Reply { status, headers, body }
}

fn dechunk(mut body: &str) -> String {
    let mut out = String::new();
    while let Some((size, rest)) = body.split_once("\r\n") {
        let Ok(n) = usize::from_str_radix(size.trim(), 16) else { break };
        if n == 0 || rest.len() < n {
            break;
        }
        out.push_str(&rest[..n]);
        body = rest[n..].strip_prefix("\r\n").unwrap_or(&rest[n..]);
    }
    out
}

/// The headers of an MCP POST: JSON in, JSON or SSE out, plus `extra`.
pub fn mcp_headers<'a>(extra: &[(&'a str, &'a str)]) -> Vec<(&'a str, &'a str)> {
    let mut h = vec![
        ("content-type", "application/json"),
        ("accept", "application/json, text/event-stream"),
    ];
    h.extend_from_slice(extra);
    h
}

/// The `initialize` request of the 2025-11-25 revision.
pub fn initialize_body(id: u64) -> String {
    serde_json::json!({
        "jsonrpc": "2.0", "id": id, "method": "initialize",
        "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}},
    })
    .to_string()
}

/// A proxy on 127.0.0.1 that forwards to `upstream`, adding `Authorization: Bearer <token>` to
/// every request (keep-alive and pipelining kept: each request head is rewritten); runs until
/// the test process ends.
pub struct AuthProxy {
    url: String,
}

impl AuthProxy {
    /// A proxy for the server at `upstream_url` (`http://HOST:PORT/PATH`).
    pub fn start(upstream_url: &str, token: &str) -> AuthProxy {
        let (upstream, path) = split_url(upstream_url);
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("http://{}{path}", listener.local_addr().unwrap());
        let token = token.to_string();
        std::thread::spawn(move || {
            for client in listener.incoming().map_while(Result::ok) {
                let (upstream, token) = (upstream.clone(), token.clone());
                std::thread::spawn(move || {
                    let _ = proxy_connection(client, &upstream, &token);
                });
            }
        });
        AuthProxy { url }
    }

    /// The proxy's URL for the same path.
    pub fn url(&self) -> &str {
        &self.url
    }
}

fn proxy_connection(client: TcpStream, upstream: &str, token: &str) -> std::io::Result<()> {
    let server = TcpStream::connect(upstream)?;
    let (mut from_server, mut to_client) = (server.try_clone()?, client.try_clone()?);
    let back = std::thread::spawn(move || {
        let _ = std::io::copy(&mut from_server, &mut to_client);
        let _ = to_client.shutdown(Shutdown::Write);
    });
    let mut from_client = BufReader::new(client);
    let mut to_server = server;
    loop {
        let mut head = String::new();
        let mut line = String::new();
        loop {
            line.clear();
            if from_client.read_line(&mut line)? == 0 {
                let _ = to_server.shutdown(Shutdown::Write);
                let _ = back.join();
                return Ok(());
            }
            if line == "\r\n" || line == "\n" {
                break;
            }
            if !line.to_ascii_lowercase().starts_with("authorization:") {
                head.push_str(&line);
            }
        }
        head.push_str(&format!("Authorization: Bearer {token}\r\n\r\n"));
        to_server.write_all(head.as_bytes())?;
        let lower = head.to_ascii_lowercase();
        if lower.contains("transfer-encoding: chunked") {
            forward_chunked(&mut from_client, &mut to_server)?;
        } else if let Some(n) = lower
            .lines()
            .find_map(|l| l.strip_prefix("content-length:"))
            .and_then(|v| v.trim().parse::<u64>().ok())
        {
            std::io::copy(&mut (&mut from_client).take(n), &mut to_server)?;
        }
    }
}

fn forward_chunked(from: &mut BufReader<TcpStream>, to: &mut TcpStream) -> std::io::Result<()> {
    loop {
        let mut size = String::new();
        from.read_line(&mut size)?;
        to.write_all(size.as_bytes())?;
        let n = u64::from_str_radix(size.trim().split(';').next().unwrap_or("0"), 16).unwrap_or(0);
        if n == 0 {
            // Trailers, then the empty line.
            loop {
                let mut line = String::new();
                from.read_line(&mut line)?;
                to.write_all(line.as_bytes())?;
                if line == "\r\n" || line.is_empty() {
                    return Ok(());
                }
            }
        }
        std::io::copy(&mut (&mut *from).take(n + 2), to)?;
    }
}

/// The handshake revision the suites open sessions with.
pub const HANDSHAKE_PROTOCOL: &str = "2025-11-25";

/// A [`HANDSHAKE_PROTOCOL`] session opened at `url` with `bearer` as the Authorization
/// header (the full `Bearer …` value): initialize, then `notifications/initialized`; its
/// `Mcp-Session-Id`.
pub fn open_session(url: &str, bearer: &str) -> String {
    let init =
        request(url, "POST", &mcp_headers(&[("authorization", bearer)]), &initialize_body(1));
    assert_eq!(init.status, 200, "{init:?}");
    let id = init.header("mcp-session-id").expect("a session id").to_string();
    let note =
        serde_json::json!({"jsonrpc": "2.0", "method": "notifications/initialized"}).to_string();
    let extra = [
        ("authorization", bearer),
        ("mcp-session-id", id.as_str()),
        ("mcp-protocol-version", HANDSHAKE_PROTOCOL),
    ];
    let r = request(url, "POST", &mcp_headers(&extra), &note);
    assert_eq!(r.status, 202, "{r:?}");
    id
}

/// The client capabilities of a stateless client that declared the tasks extension.
pub fn tasks_capabilities() -> Value {
    serde_json::json!({"extensions": {"io.modelcontextprotocol/tasks": {}}})
}

/// One stateless 2026-07-28 request: `method` with `params`, whose `_meta` gets the protocol
/// version, a client name and `capabilities`; `name` goes in `Mcp-Name` (a tool's, for
/// `tools/call`). The JSON-RPC message that answers it (plain JSON or the SSE stream's last).
pub fn stateless(
    url: &str,
    token: &str,
    method: &str,
    name: Option<&str>,
    mut params: Value,
    capabilities: &Value,
) -> Value {
    params["_meta"] = serde_json::json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": {"name": "raw", "version": "1"},
        "io.modelcontextprotocol/clientCapabilities": capabilities,
    });
    let body = serde_json::json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
        .to_string();
    let bearer = format!("Bearer {token}");
    let mut headers = vec![
        ("authorization", bearer.as_str()),
        ("mcp-protocol-version", "2026-07-28"),
        ("mcp-method", method),
    ];
    if let Some(name) = name {
        headers.push(("mcp-name", name));
    }
    let reply = request(url, "POST", &mcp_headers(&headers), &body);
    reply
        .messages()
        .into_iter()
        .rev()
        .find(|m| m["id"] == 1)
        .unwrap_or_else(|| panic!("no answer to {method}: {reply:?}"))
}

/// A response read message by message while it is still open (a `subscriptions/listen`
/// stream): the head at once, then each SSE event's JSON-RPC message as it arrives.
pub struct EventStream {
    stream: TcpStream,
    /// The status code.
    pub status: u16,
    /// The headers, names lowercased.
    pub headers: Vec<(String, String)>,
    chunked: bool,
    /// Bytes read but not yet de-chunked.
    raw: Vec<u8>,
    /// The body de-chunked, not yet split into events.
    body: String,
    ended: bool,
}

impl EventStream {
    /// Sends one POST (with `Connection: close`) and reads the response head.
    pub fn open(url: &str, headers: &[(&str, &str)], body: &str) -> EventStream {
        let (authority, path) = split_url(url);
        let mut stream = TcpStream::connect(&authority).expect("connect to the server");
        let mut head = format!(
            "POST {path} HTTP/1.1\r\nconnection: close\r\nhost: {authority}\r\ncontent-length: {}\r\n",
            body.len()
        );
        for (name, value) in headers {
            head.push_str(&format!("{name}: {value}\r\n"));
        }
        head.push_str("\r\n");
        stream.write_all(head.as_bytes()).unwrap();
        stream.write_all(body.as_bytes()).unwrap();
        let mut s = EventStream {
            stream,
            status: 0,
            headers: Vec::new(),
            chunked: false,
            raw: Vec::new(),
            body: String::new(),
            ended: false,
        };
        let deadline = std::time::Instant::now() + HANG_GUARD;
        let end = loop {
            if let Some(i) = s.raw.windows(4).position(|w| w == b"\r\n\r\n") {
                break i;
            }
            assert!(s.read_more(deadline), "no response head within {HANG_GUARD:?}");
        };
        let head = String::from_utf8_lossy(&s.raw[..end]).to_string();
        s.raw.drain(..end + 4);
        let reply = parse_reply(format!("{head}\r\n\r\n").as_bytes());
        s.status = reply.status;
        s.chunked = reply.header("transfer-encoding").is_some_and(|v| v.contains("chunked"));
        s.headers = reply.headers;
        s
    }

    /// The first value of header `name`.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(n, _)| n == name).map(|(_, v)| v.as_str())
    }

    /// Reads what arrives before `deadline`; false when nothing more can come by then.
    fn read_more(&mut self, deadline: std::time::Instant) -> bool {
        let now = std::time::Instant::now();
        if self.ended || now >= deadline {
            return false;
        }
        self.stream.set_read_timeout(Some(deadline - now)).unwrap();
        let mut buf = [0u8; 8192];
        match self.stream.read(&mut buf) {
            Ok(0) | Err(_) => {
                self.ended = true;
                false
            }
            Ok(n) => {
                self.raw.extend_from_slice(&buf[..n]);
                true
            }
        }
    }

    /// Moves the complete chunks (or, unchunked, every byte) of `raw` into `body`.
    fn dechunk(&mut self) {
        if !self.chunked {
            self.body.push_str(&String::from_utf8_lossy(&std::mem::take(&mut self.raw)));
            return;
        }
        while let Some(i) = self.raw.windows(2).position(|w| w == b"\r\n") {
            let size = String::from_utf8_lossy(&self.raw[..i]).to_string();
            let Ok(n) = usize::from_str_radix(size.trim().split(';').next().unwrap_or(""), 16)
            else {
                return;
            };
            if n == 0 {
                self.raw.clear();
                return;
            }
            if self.raw.len() < i + 2 + n + 2 {
                return;
            }
            self.body.push_str(&String::from_utf8_lossy(&self.raw[i + 2..i + 2 + n]));
            self.raw.drain(..i + 2 + n + 2);
        }
    }

    /// The next JSON-RPC message of the stream (an SSE event's `data`, or a whole JSON body),
    /// or None when the stream ended, or nothing came within `limit`.
    pub fn next_message(&mut self, limit: Duration) -> Option<Value> {
        let deadline = std::time::Instant::now() + limit;
        loop {
            self.dechunk();
            while let Some(i) = self.body.find("\n\n") {
                let event: String = self.body.drain(..i + 2).collect();
                let data: Vec<&str> =
                    event.lines().filter_map(|l| l.strip_prefix("data:")).map(str::trim).collect();
                if let Ok(v) = serde_json::from_str::<Value>(&data.join("\n")) {
                    return Some(v);
                }
            }
            if self.ended && !self.body.trim().is_empty() {
                // A plain JSON body (no SSE framing).
                let body = std::mem::take(&mut self.body);
                return serde_json::from_str(body.trim()).ok();
            }
            if !self.read_more(deadline) {
                self.dechunk();
                if self.body.contains("\n\n") || (self.ended && !self.body.trim().is_empty()) {
                    continue;
                }
                return None;
            }
        }
    }

    /// Every message left until the stream ends (at most `limit` in all).
    pub fn rest(&mut self, limit: Duration) -> Vec<Value> {
        let deadline = std::time::Instant::now() + limit;
        let mut out = Vec::new();
        while let Some(v) =
            self.next_message(deadline.saturating_duration_since(std::time::Instant::now()))
        {
            out.push(v);
        }
        out
    }
}
