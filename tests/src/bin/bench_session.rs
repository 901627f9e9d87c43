//! `cargo xtask bench session`: 1,000 `list` calls through one `toolhost session`, one
//! request at a time (write a line, read its result): calls per second and p50/p99 latency.
//! Target: ≥ 2,000 calls/s. Then the same 1,000 calls through `toolhost mcp` driven by the
//! official MCP Python SDK (`tests/mcp/bench_client.py`), over stdio and over `--listen`
//! (Streamable HTTP); those numbers include the Python client's own cost per call. Last, the
//! HTTP server under the Rust load generator (`toolhost_tests::http_load`): one client
//! (target ≥ 1,500 calls/s, p50 ≤ 1 ms), then 16 at once (target ≥ 2× one client's rate).

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};
use std::time::Instant;

use toolhost_tests::*;

fn main() {
    let calls = 1000;
    let fx = Fixture::new();
    for i in 0..10 {
        fx.write(&format!("f{i}"), "");
    }
    let mut child = Command::new(toolhost_bin())
        .arg("--workspace")
        .arg(fx.root())
        .arg("--data-dir")
        .arg(fx.data.path())
        .arg("session")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("toolhost session");
    let mut stdin = child.stdin.take().unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let mut roundtrip = |i: usize| {
        writeln!(stdin, r#"{{"id":"c{i}","tool":"list","arguments":{{}}}}"#).unwrap();
        stdin.flush().unwrap();
        let mut line = String::new();
        loop {
            line.clear();
            stdout.read_line(&mut line).unwrap();
            if line.contains("\"result\"") {
                break;
            }
        }
    };
    for i in 0..20 {
        roundtrip(i);
    }
    let mut times = Vec::with_capacity(calls);
    let start = Instant::now();
    for i in 0..calls {
        let t = Instant::now();
        roundtrip(100 + i);
        times.push(t.elapsed());
    }
    let total = start.elapsed();
    drop(stdin);
    let _ = child.wait();
    times.sort();
    println!(
        "toolhost session, {calls} list calls one at a time: {:.0} calls/s (target ≥ 2000), p50 {:.3} ms, p99 {:.3} ms",
        calls as f64 / total.as_secs_f64(),
        ms(times[calls / 2]),
        ms(times[calls * 99 / 100])
    );

    let python = toolhost_tests::mcp::python_with_sdk();
    let script =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("mcp").join("bench_client.py");
    let report = |label: &str, out: std::process::Output| {
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(out.status.success(), "{label}: {stdout}{}", String::from_utf8_lossy(&out.stderr));
        let v: serde_json::Value =
            serde_json::from_str(stdout.lines().last().unwrap_or_default()).unwrap();
        println!(
            "{label}, {calls} list calls one at a time (Python SDK client): {:.0} calls/s, p50 {:.3} ms, p99 {:.3} ms",
            v["calls"].as_f64().unwrap() / v["seconds"].as_f64().unwrap(),
            v["p50_ms"].as_f64().unwrap(),
            v["p99_ms"].as_f64().unwrap()
        );
    };
    let out = Command::new(&python)
        .arg(&script)
        .arg(calls.to_string())
        .arg("stdio")
        .arg(toolhost_bin())
        .arg(fx.root())
        .arg(fx.data.path())
        .output()
        .expect("run the MCP bench client");
    report("toolhost mcp (stdio)", out);
    let server = toolhost_tests::mcp::HttpServer::start(&fx, &[]);
    let out = Command::new(&python)
        .arg(&script)
        .arg(calls.to_string())
        .arg("http")
        .arg(server.url())
        .arg(server.token())
        .output()
        .expect("run the MCP bench client");
    report("toolhost mcp --listen (HTTP)", out);

    // The same server driven by the Rust load generator (`toolhost_tests::http_load`):
    // stateless 2026-07-28 requests on kept-alive connections, no client-side cost to speak of.
    let args = serde_json::json!({});
    let one =
        toolhost_tests::http_load::run(server.url(), server.token(), 1, 50, 2000, "list", &args);
    println!(
        "toolhost mcp --listen (HTTP), 1 client, {} stateless list calls one at a time: {:.0} calls/s (target ≥ 1500), p50 {:.3} ms (target ≤ 1), p99 {:.3} ms, {} answered as plain JSON",
        one.calls,
        one.rate(),
        ms(one.quantile(0.5)),
        ms(one.quantile(0.99)),
        one.json_answers
    );
    let many =
        toolhost_tests::http_load::run(server.url(), server.token(), 16, 20, 250, "list", &args);
    println!(
        "toolhost mcp --listen (HTTP), 16 clients, {} calls: {:.0} calls/s = {:.2}× one client (target ≥ 2×), p50 {:.3} ms, p99 {:.3} ms",
        many.calls,
        many.rate(),
        many.rate() / one.rate(),
        ms(many.quantile(0.5)),
        ms(many.quantile(0.99))
    );
}
