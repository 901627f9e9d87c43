//! `toolhost mcp --listen`: Streamable HTTP driven by the official MCP Python SDK
//! (`tests/mcp/http_client.py`, sending the server's bearer token), the DNS-rebinding guard
//! attacked with foreign `Host` and `Origin` headers, and the official conformance suite's
//! server scenarios (through a proxy that adds the token). The token itself, the timeouts and
//! the session bound are attacked in `mcp_auth.rs`.

use std::collections::BTreeSet;
use std::path::Path;
use std::process::Command;

use serde_json::Value;
use toolhost_tests::http::AuthProxy;
use toolhost_tests::mcp::{HttpServer, conformance_runner, python_with_sdk};
use toolhost_tests::*;

fn text(v: &Value) -> &str {
    v["text"].as_str().unwrap_or_default()
}

#[test]
fn a_real_client_over_streamable_http_reads_edits_gets_progress_cancels_and_foreign_hosts_are_refused()
 {
    let python = python_with_sdk();
    let fx = Fixture::new();
    fx.write("a.txt", "alpha\nbeta\n");
    let b = fx.write("b.txt", "bee\n");
    let c = fx.write("c.txt", "sea\n");
    let server = HttpServer::start(&fx, &[]);
    assert!(
        server.url().starts_with("http://127.0.0.1:") && server.url().ends_with("/mcp"),
        "{}",
        server.url()
    );
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("mcp").join("http_client.py");
    let out = Command::new(&python)
        .arg(script)
        .arg(server.url())
        .arg(server.token())
        .output()
        .expect("run the HTTP client");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success(),
        "client failed\nstdout: {stdout}\nstderr: {stderr}\nserver: {}",
        server.stderr()
    );
    // The SDK ends each session with DELETE and logs anything but 200/204 as a failure.
    assert!(!stderr.contains("Session termination failed"), "{stderr}");
    let report: Value = serde_json::from_str(stdout.lines().last().unwrap_or_default())
        .unwrap_or_else(|e| panic!("client output is not JSON ({e}): {stdout}\nstderr: {stderr}"));
    assert!(report.get("errors").is_none(), "{:#}\nserver: {}", report["errors"], server.stderr());

    assert_eq!(
        report["legacy_tools"],
        serde_json::json!(["read", "write", "edit", "grep", "glob", "list", "bash"])
    );
    let legacy = &report["legacy"];
    assert_eq!(legacy["read"]["isError"], false, "{legacy}");
    assert!(text(&legacy["read"]).contains("alpha"));
    assert_eq!(legacy["edit_unread"]["isError"], true);
    assert_eq!(text(&legacy["edit_unread"]), "Read b.txt before editing it.");
    assert_eq!(legacy["edit"]["isError"], false, "{legacy}");
    assert_eq!(std::fs::read_to_string(&b).unwrap(), "BEE\n");
    let change = &legacy["edit"]["meta"]["toolhost/artifacts"][0];
    assert_eq!(change["type"], "file_change", "{legacy}");
    assert!(!serde_json::to_string(&legacy["edit"]["content"]).unwrap().contains("afterContent"));

    // Progress notifications over the SSE response stream, in order.
    let progress = report["progress"].as_array().unwrap();
    let messages: String = progress.iter().filter_map(|p| p["message"].as_str()).collect();
    assert!(messages.contains('1') && messages.contains('3'), "{progress:?}");
    // notifications/cancelled stops the running sleep: the next call is prompt.
    assert_eq!(report["cancel"]["cancelled"], true, "{report}");
    assert!(report["cancel"]["next_call_seconds"].as_f64().unwrap() < 10.0, "{}", report["cancel"]);
    assert_eq!(legacy["after_cancel"]["isError"], false);

    // Stateless 2026-07-28: the read of one request lets the next request's edit through.
    assert_eq!(report["stateless_protocol"], "2026-07-28");
    assert_eq!(report["stateless"]["read"]["isError"], false, "{report}");
    assert_eq!(report["stateless"]["edit"]["isError"], false, "{}", report["stateless"]);
    assert_eq!(std::fs::read_to_string(&c).unwrap(), "SEA\n");

    // DNS rebinding: a foreign Host or Origin is refused before any MCP handling.
    let http = &report["http"];
    assert_eq!(http["loopback"], 200, "{http}");
    assert_eq!(http["loopback_origin"], 200, "{http}");
    assert_eq!(http["foreign_host"], 403, "{http}");
    assert_eq!(http["foreign_origin"], 403, "{http}");
    assert_eq!(http["other_path"], 404, "{http}");

    // SIGTERM ends the server cleanly, and what it did is in the store afterwards.
    let status = server.terminate();
    assert!(status.success(), "exit status {status:?}");
    let listed = toolhost_command(&fx).args(["changes", "--json"]).output().unwrap();
    let listed: Value = serde_json::from_slice(&listed.stdout).unwrap();
    let paths: BTreeSet<&str> =
        listed.as_array().unwrap().iter().filter_map(|c| c["path"].as_str()).collect();
    assert_eq!(paths, BTreeSet::from(["b.txt", "c.txt"]), "{listed}");
}

/// SIGTERM while a call runs: the call ends as cancelled (and its client gets that result),
/// the server exits 0 well before the call would have finished.
#[test]
fn sigterm_cancels_the_call_in_flight_and_exits_cleanly() {
    let python = python_with_sdk();
    let fx = Fixture::new();
    let server = HttpServer::start(&fx, &[]);
    let script = r#"
import json, sys, anyio, httpx2
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
async def main():
    auth = {"authorization": f"Bearer {sys.argv[2]}"}
    async with httpx2.AsyncClient(headers=auth, timeout=httpx2.Timeout(30.0, read=300.0)) as http, \
            Client(streamable_http_client(sys.argv[1], http_client=http), mode="legacy") as c:
        r = await c.call_tool("bash", {"command": "touch started.flag && sleep 60"})
        text = "".join(x.text for x in r.content if getattr(x, "type", None) == "text")
        print(json.dumps({"isError": bool(r.is_error), "text": text}), flush=True)
anyio.run(main)
"#;
    let client = Command::new(&python)
        .args(["-c", script, server.url(), server.token()])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    // Wait until the call runs (bash in the sandbox made its flag; a loaded machine can take
    // seconds to get there), then stop the server.
    let flag = fx.root().join("started.flag");
    let waiting = std::time::Instant::now();
    while !flag.exists() && waiting.elapsed() < std::time::Duration::from_secs(120) {
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    assert!(flag.exists(), "the bash call never started");
    let started = std::time::Instant::now();
    let status = server.terminate();
    assert!(status.success(), "exit status {status:?}");
    assert!(
        started.elapsed() < std::time::Duration::from_secs(20),
        "shutdown took {:?}",
        started.elapsed()
    );
    let out = client.wait_with_output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let line =
        stdout.lines().next().unwrap_or_else(|| panic!("the client got no result: {stdout}"));
    let result: Value = serde_json::from_str(line).unwrap();
    assert_eq!(result["isError"], true, "{result}");
    assert!(result["text"].as_str().unwrap().contains("cancel"), "{result}");
}

#[test]
fn listen_refuses_a_malformed_address_and_allow_host_needs_listen() {
    let fx = Fixture::new();
    let out = toolhost_command(&fx).args(["mcp", "--listen", "somewhere"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("is not a listen address"), "{out:?}");
    let out = toolhost_command(&fx).args(["mcp", "--allow-host", "box.lan"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2), "{out:?}");
}

#[test]
fn a_refusal_sent_before_the_body_was_read_tells_the_client_the_connection_closes() {
    // hyper closes a connection whose request body was left unread by its response; unless
    // the response says so, a keep-alive client sends its next request into the closing
    // connection and gets "other side closed" (the conformance suite did, through its proxy).
    let fx = Fixture::new();
    let server = HttpServer::start(&fx, &[]);
    let (authority, path) = toolhost_tests::http::split_url(server.url());
    let body = toolhost_tests::http::initialize_body(1);
    let head = |host: &str, bearer: &str| {
        format!(
            "POST {path} HTTP/1.1\r\nhost: {host}\r\ncontent-type: application/json\r\n\
             accept: application/json, text/event-stream\r\nauthorization: Bearer {bearer}\r\n\
             content-length: {}\r\n\r\n",
            body.len()
        )
    };
    let refusals = [
        ("a foreign Host", head("evil.example", server.token()), 403),
        ("no token", head(&authority, "wrong"), 401),
    ];
    for (what, head, status) in refusals {
        // The head alone: the server answers before the body arrives.
        let mut conn = std::net::TcpStream::connect(&authority).unwrap();
        let (got, headers) = toolhost_tests::http::response_head(&mut conn, &head);
        assert_eq!(got, status, "{what}: {headers:?}");
        assert!(
            headers.iter().any(|(n, v)| n == "connection" && v.eq_ignore_ascii_case("close")),
            "{what}: a {status} sent before the body was read must say `connection: close`: {headers:?}"
        );
    }
    // A request read whole keeps its connection.
    let mut conn = std::net::TcpStream::connect(&authority).unwrap();
    let (got, headers) = toolhost_tests::http::response_head(
        &mut conn,
        &format!("{}{body}", head(&authority, server.token())),
    );
    assert_eq!(got, 200, "{headers:?}");
    assert!(
        !headers.iter().any(|(n, v)| n == "connection" && v.eq_ignore_ascii_case("close")),
        "{headers:?}"
    );
}

#[test]
fn stateless_calls_are_answered_as_plain_json_and_stay_right_with_sixteen_clients_at_once() {
    let fx = Fixture::new();
    fx.write("a.txt", "alpha\n");
    let server = HttpServer::start(&fx, &[]);
    // Each answer is checked by the load generator: the call's own id, a successful result.
    let args = serde_json::json!({"path": "a.txt"});
    let report =
        toolhost_tests::http_load::run(server.url(), server.token(), 16, 2, 10, "read", &args);
    assert_eq!(report.calls, 160, "{report:?}");
    // Nothing was sent before the result, so no SSE stream was opened for it.
    assert_eq!(report.json_answers, 160, "{report:?}");
}

#[test]
fn a_read_sent_while_a_bash_call_runs_waits_for_it_and_sees_what_it_wrote() {
    // Calls of read-only tools share their turn; a call that can change anything runs alone,
    // in arrival order, so a read that arrives during it sees its effect.
    if !toolhost_tests::attack::Attack::new().sandbox_or_skip("a_read_sent_while_a_bash_call_runs")
    {
        return;
    }
    let fx = Fixture::new();
    let server = HttpServer::start(&fx, &[]);
    let (url, token) = (server.url().to_string(), server.token().to_string());
    let bash = std::thread::spawn(move || {
        let args = serde_json::json!({"command": "echo started > started.txt; sleep 1; echo done > done.txt"});
        toolhost_tests::http_load::run(&url, &token, 1, 0, 1, "bash", &args)
    });
    let started = fx.root().join("started.txt");
    let until = std::time::Instant::now() + std::time::Duration::from_secs(60);
    while !started.exists() {
        assert!(std::time::Instant::now() < until, "bash never started: {}", server.stderr());
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    // The read arrives while bash sleeps; answered only after bash, it finds the file.
    let args = serde_json::json!({"path": "done.txt"});
    let report =
        toolhost_tests::http_load::run(server.url(), server.token(), 1, 0, 1, "read", &args);
    assert_eq!(report.calls, 1);
    bash.join().expect("the bash call succeeded");
}

/// Server scenarios that apply to a tools-only server: every check must pass.
const APPLICABLE: [&str; 6] = [
    "server-initialize",
    "ping",
    "tools-list",
    "server-sse-multiple-streams",
    "server-sse-polling",
    "dns-rebinding-protection",
];

/// Scenarios that need a capability toolhost does not offer (logging, completions, resources,
/// prompts): they must fail only because the method is not there (-32601).
const NOT_OFFERED: [&str; 14] = [
    "logging-set-level",
    "tools-call-with-logging",
    "completion-complete",
    "resources-list",
    "resources-read-text",
    "resources-read-binary",
    "resources-templates-read",
    "resources-subscribe",
    "resources-unsubscribe",
    "prompts-list",
    "prompts-get-simple",
    "prompts-get-with-args",
    "prompts-get-embedded-resource",
    "prompts-get-with-image",
];

/// Scenarios that call the fixture tools of the suite's reference server (`test_simple_text`,
/// `test_error_handling`, `json_schema_2020_12_tool`, …): they must fail only because that tool
/// is not one of toolhost's. What they check that toolhost does (isError, progress,
/// elicitation, schemas kept as given) is proven with toolhost's own tools by `mcp_client.rs`.
const FIXTURE_TOOLS: [&str; 12] = [
    "tools-call-simple-text",
    "tools-call-image",
    "tools-call-audio",
    "tools-call-embedded-resource",
    "tools-call-mixed-content",
    "tools-call-error",
    "tools-call-with-progress",
    "tools-call-sampling",
    "tools-call-elicitation",
    "elicitation-sep1034-defaults",
    "elicitation-sep1330-enums",
    "json-schema-2020-12",
];

/// `server-sse-polling`'s check that needs the fixture tool `test_reconnection` (it reports
/// WARNING, not FAILURE, without it); its priming-event and retry-field checks must pass.
const NEEDS_FIXTURE_TOOL: &str = "server-sse-disconnect-resume";

#[test]
fn the_official_conformance_suite_passes_every_server_scenario_that_applies() {
    let (node, entry) = conformance_runner();
    let fx = Fixture::new();
    fx.write("a.txt", "alpha\n");
    let server = HttpServer::start(&fx, &[]);
    // The suite sends no custom headers: a proxy on 127.0.0.1 adds the bearer token.
    let proxy = AuthProxy::start(server.url(), server.token());
    let (by_scenario, log) = toolhost_tests::mcp::run_conformance_server(
        &node,
        &entry,
        proxy.url(),
        &["--suite", "all"],
    );
    let known: BTreeSet<&str> =
        APPLICABLE.iter().chain(&NOT_OFFERED).chain(&FIXTURE_TOOLS).copied().collect();
    let ran: BTreeSet<&str> = by_scenario.keys().map(String::as_str).collect();
    assert_eq!(ran, known, "the suite ran other scenarios than this test accounts for\n{log}");

    for scenario in APPLICABLE {
        let checks = &by_scenario[scenario];
        assert!(
            checks.iter().any(|c| c["status"] == "SUCCESS"),
            "{scenario}: no check succeeded: {checks:#?}"
        );
        for c in checks {
            let ok = matches!(c["status"].as_str(), Some("SUCCESS" | "INFO"))
                || (c["id"] == NEEDS_FIXTURE_TOOL && c["status"] == "WARNING");
            assert!(ok, "{scenario}: {c:#}\nserver stderr:\n{}", server.stderr());
        }
    }
    let failures = |scenario: &str| -> Vec<String> {
        by_scenario[scenario]
            .iter()
            .filter(|c| c["status"] == "FAILURE")
            .map(|c| c["errorMessage"].as_str().unwrap_or_default().to_string())
            .collect()
    };
    for scenario in NOT_OFFERED {
        let f = failures(scenario);
        assert!(!f.is_empty(), "{scenario} passed: move it to APPLICABLE");
        assert!(
            f.iter().all(|m| m.contains("-32601")),
            "{scenario} failed for another reason than 'method not found': {f:?}"
        );
    }
    for scenario in FIXTURE_TOOLS {
        let f = failures(scenario);
        assert!(!f.is_empty(), "{scenario} passed: move it to APPLICABLE");
        assert!(
            f.iter()
                .all(|m| m.contains("vailable tools: read, write, edit, grep, glob, list, bash")),
            "{scenario} failed for another reason than a missing fixture tool: {f:?}"
        );
    }
}
