//! A load generator for `toolhost mcp --listen`: clients on their own threads, each on one
//! kept-alive connection, each sending stateless 2026-07-28 `tools/call` requests one at a
//! time (write a request, read its whole response) and checking every answer is the call's
//! successful result. `cargo xtask bench session` reports its figures; the suites use it to
//! prove that answers stay right under concurrency.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::http::{HANG_GUARD, split_url};

/// What a load run measured.
#[derive(Debug, Clone)]
pub struct LoadReport {
    /// Clients that ran at once.
    pub clients: usize,
    /// Calls answered (all clients, warm-up excluded).
    pub calls: usize,
    /// Wall time of the measured calls.
    pub elapsed: Duration,
    /// Every measured call's latency, sorted.
    pub latencies: Vec<Duration>,
    /// How many answers came as plain JSON (the rest as an SSE stream).
    pub json_answers: usize,
}

impl LoadReport {
    /// Calls per second over the run.
    pub fn rate(&self) -> f64 {
        self.calls as f64 / self.elapsed.as_secs_f64()
    }

    /// The latency at quantile `q` (0.5 = median).
    pub fn quantile(&self, q: f64) -> Duration {
        let i = ((self.latencies.len() as f64 * q) as usize).min(self.latencies.len() - 1);
        self.latencies[i]
    }
}

/// The stateless 2026-07-28 `tools/call` of `tool` with `arguments` as one HTTP request.
pub fn stateless_call(url: &str, token: &str, id: u64, tool: &str, arguments: &Value) -> Vec<u8> {
    let (authority, path) = split_url(url);
    let body = json!({
        "jsonrpc": "2.0", "id": id, "method": "tools/call",
        "params": {
            "name": tool, "arguments": arguments,
            "_meta": {
                "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientInfo": {"name": "toolhost-load", "version": "1"},
                "io.modelcontextprotocol/clientCapabilities": {},
            },
        },
    })
    .to_string();
    format!(
        "POST {path} HTTP/1.1\r\nhost: {authority}\r\ncontent-type: application/json\r\n\
         accept: application/json, text/event-stream\r\nauthorization: Bearer {token}\r\n\
         mcp-protocol-version: 2026-07-28\r\nmcp-method: tools/call\r\nmcp-name: {tool}\r\n\
         content-length: {}\r\n\r\n{body}",
        body.len()
    )
    .into_bytes()
}

/// One response read off a kept-alive connection: its content type and its JSON-RPC messages.
pub fn read_response(conn: &mut BufReader<TcpStream>) -> (String, Vec<Value>) {
    let mut status = String::new();
    conn.read_line(&mut status).expect("a status line");
    assert!(status.starts_with("HTTP/1.1 200"), "not 200: {status:?}");
    let (mut length, mut chunked, mut content_type) = (None, false, String::new());
    loop {
        let mut line = String::new();
        conn.read_line(&mut line).expect("a header line");
        let line = line.trim_end();
        if line.is_empty() {
            break;
        }
        let (name, value) = line.split_once(':').unwrap_or((line, ""));
        let (name, value) = (name.to_ascii_lowercase(), value.trim());
        match name.as_str() {
            "content-length" => length = value.parse::<usize>().ok(),
            "transfer-encoding" => chunked = value.contains("chunked"),
            "content-type" => content_type = value.to_string(),
            _ => {}
        }
    }
    let mut body = Vec::new();
    if let Some(n) = length {
        body.resize(n, 0);
        conn.read_exact(&mut body).expect("the body");
    } else if chunked {
        loop {
            let mut size = String::new();
            conn.read_line(&mut size).expect("a chunk size");
            let n = usize::from_str_radix(size.trim().split(';').next().unwrap_or("0"), 16)
                .expect("a hex chunk size");
            let mut chunk = vec![0; n + 2];
            conn.read_exact(&mut chunk).expect("a chunk");
            if n == 0 {
                break;
            }
            body.extend_from_slice(&chunk[..n]);
        }
    } else {
        panic!("a response with neither content-length nor chunked body: {status}");
    }
    let text = String::from_utf8_lossy(&body);
    let messages = if content_type.starts_with("application/json") {
        vec![serde_json::from_str(&text).expect("a JSON body")]
    } else {
        text.lines()
            .filter_map(|l| l.strip_prefix("data:"))
            .filter_map(|d| serde_json::from_str(d.trim()).ok())
            .collect()
    };
    (content_type, messages)
}

/// Runs `clients` clients at once, each making `warmup` unmeasured calls and then `calls`
/// measured ones of `tool` with `arguments`; panics on any answer that is not the call's
/// successful result.
pub fn run(
    url: &str,
    token: &str,
    clients: usize,
    warmup: usize,
    calls: usize,
    tool: &str,
    arguments: &Value,
) -> LoadReport {
    let (authority, _) = split_url(url);
    let start = std::sync::Barrier::new(clients + 1);
    let results = std::thread::scope(|s| {
        let workers: Vec<_> = (0..clients)
            .map(|c| {
                let (authority, start) = (&authority, &start);
                s.spawn(move || {
                    let stream = TcpStream::connect(authority).expect("connect");
                    stream.set_nodelay(true).unwrap();
                    stream.set_read_timeout(Some(HANG_GUARD)).unwrap();
                    let mut writer = stream.try_clone().unwrap();
                    let mut reader = BufReader::new(stream);
                    let mut latencies = Vec::with_capacity(calls);
                    let mut json_answers = 0;
                    let mut one = |i: usize| {
                        let id = (c * 1_000_000 + i) as u64;
                        let t = Instant::now();
                        writer.write_all(&stateless_call(url, token, id, tool, arguments)).unwrap();
                        let (content_type, messages) = read_response(&mut reader);
                        let elapsed = t.elapsed();
                        let answer = messages
                            .iter()
                            .find(|m| m["id"] == id)
                            .unwrap_or_else(|| panic!("no answer to {id}: {messages:?}"));
                        assert_eq!(answer["result"]["isError"], false, "{answer}");
                        (elapsed, content_type.starts_with("application/json"))
                    };
                    // A failed warm-up still reaches the barrier, so no thread waits forever.
                    let warmed = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                        for i in 0..warmup {
                            one(i);
                        }
                    }));
                    start.wait();
                    if let Err(panic) = warmed {
                        std::panic::resume_unwind(panic);
                    }
                    for i in 0..calls {
                        let (elapsed, json) = one(warmup + i);
                        latencies.push(elapsed);
                        json_answers += usize::from(json);
                    }
                    (latencies, json_answers)
                })
            })
            .collect();
        start.wait();
        let began = Instant::now();
        let results: Vec<_> = workers.into_iter().map(|w| w.join().expect("a client")).collect();
        (began.elapsed(), results)
    });
    let (elapsed, per_client) = results;
    let mut latencies: Vec<Duration> = per_client.iter().flat_map(|(l, _)| l.clone()).collect();
    latencies.sort();
    LoadReport {
        clients,
        calls: latencies.len(),
        elapsed,
        latencies,
        json_answers: per_client.iter().map(|(_, j)| j).sum(),
    }
}
