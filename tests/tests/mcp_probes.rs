//! What an orchestrator asks of `toolhost mcp --listen`: `/healthz` and `/readyz` answer
//! without the bearer token and say nothing but ok, ready or which part is not; `/metrics`
//! stays behind the token and counts calls by tool and outcome, their latency, denials,
//! approvals asked and calls refused for want of a sandbox.

use serde_json::{Value, json};
use toolhost_tests::http::{Reply, open_session, request, stateless};
use toolhost_tests::mcp::HttpServer;
use toolhost_tests::*;

use toolhost_tests::http::{HANDSHAKE_PROTOCOL as PROTOCOL, mcp_headers};

/// `url` with its path replaced by `path`.
fn at(url: &str, path: &str) -> String {
    let base = url.strip_suffix("/mcp").expect("the endpoint ends in /mcp");
    format!("{base}{path}")
}

fn get(url: &str, path: &str, bearer: Option<&str>) -> Reply {
    let mut headers = Vec::new();
    if let Some(b) = bearer {
        headers.push(("authorization", b));
    }
    request(&at(url, path), "GET", &headers, "")
}

/// One `tools/call` in MCP session `session`; its result.
fn call(url: &str, bearer: &str, session: &str, tool: &str, arguments: Value) -> Value {
    let body = json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {"name": tool, "arguments": arguments}});
    let headers = [
        ("authorization", bearer),
        ("mcp-session-id", session),
        ("mcp-protocol-version", PROTOCOL),
    ];
    let reply = request(url, "POST", &mcp_headers(&headers), &body.to_string());
    reply
        .messages()
        .into_iter()
        .find(|m| m["id"] == 7)
        .unwrap_or_else(|| panic!("no answer to tools/call {tool}: {reply:?}"))["result"]
        .clone()
}

/// The value of the sample `line` (name and labels exactly) in a metrics text.
fn sample(text: &str, line: &str) -> Option<f64> {
    text.lines()
        .find_map(|l| l.strip_prefix(line).and_then(|rest| rest.strip_prefix(' ')))
        .and_then(|v| v.trim().parse().ok())
}

#[test]
fn the_probes_answer_without_the_token_and_the_metrics_only_with_it() {
    let fx = Fixture::new();
    let server = HttpServer::start(&fx, &[]);
    let url = server.url();

    let health = get(url, "/healthz", None);
    assert_eq!((health.status, health.body.trim()), (200, "ok"), "{health:?}");
    let ready = get(url, "/readyz", None);
    assert_eq!((ready.status, ready.body.trim()), (200, "ready"), "{ready:?}");
    // A probe is read, never acted on: any other method is refused.
    let posted = request(&at(url, "/healthz"), "POST", &[], "{}");
    assert_eq!(posted.status, 405, "{posted:?}");

    // The metrics say what ran and how often: behind the token, like /mcp.
    let refused = get(url, "/metrics", None);
    assert_eq!(refused.status, 401, "{refused:?}");
    assert!(!refused.body.contains("toolhost_calls"), "{refused:?}");
    let wrong = get(url, "/metrics", Some("Bearer not-the-token-not-the-token-not-the-token"));
    assert_eq!(wrong.status, 401, "{wrong:?}");
    let metrics = get(url, "/metrics", Some(&server.bearer()));
    assert_eq!(metrics.status, 200, "{metrics:?}");
    assert!(
        metrics
            .header("content-type")
            .is_some_and(|t| t.starts_with("application/openmetrics-text")),
        "{metrics:?}"
    );
    assert!(metrics.body.ends_with("# EOF\n"), "{}", metrics.body);
}

#[test]
fn the_metrics_count_calls_by_tool_and_outcome_their_latency_and_denials() {
    let fx = Fixture::new();
    fx.write("a.txt", "hello\n");
    let server = HttpServer::start(&fx, &[]);
    let (url, bearer) = (server.url(), server.bearer());
    let session = open_session(url, &bearer);

    for _ in 0..2 {
        let r = call(url, &bearer, &session, "read", json!({"path": "a.txt"}));
        assert_eq!(r["isError"], false, "{r}");
    }
    let r = call(url, &bearer, &session, "read", json!({"path": "missing.txt"}));
    assert_eq!(r["isError"], true, "{r}");
    // The fence denies a write outside the workspace.
    let outside = fx.data.path().join("pwned.txt");
    let r = call(url, &bearer, &session, "write", json!({"path": outside, "content": "x"}));
    assert_eq!(r["isError"], true, "{r}");
    assert!(!outside.exists());

    let text = get(url, "/metrics", Some(&bearer)).body;
    let count =
        |line: &str| sample(&text, line).unwrap_or_else(|| panic!("no `{line}` in:\n{text}"));
    assert_eq!(count(r#"toolhost_calls_total{tool="read",outcome="succeeded"}"#), 2.0);
    assert_eq!(count(r#"toolhost_calls_total{tool="read",outcome="failed"}"#), 1.0);
    assert_eq!(count(r#"toolhost_call_duration_seconds_count{tool="read"}"#), 3.0);
    assert_eq!(count(r#"toolhost_call_duration_seconds_bucket{le="+Inf",tool="read"}"#), 3.0);
    let write = r#"{tool="write",outcome="#;
    let write_calls: f64 = text
        .lines()
        .filter(|l| l.starts_with(&format!("toolhost_calls_total{write}")))
        .filter_map(|l| l.rsplit(' ').next()?.parse::<f64>().ok())
        .sum();
    assert_eq!(write_calls, 1.0, "{text}");
    assert_eq!(count(r#"toolhost_denials_total{tool="write"}"#), 1.0, "{text}");
    assert_eq!(sample(&text, r#"toolhost_denials_total{tool="read"}"#), None, "{text}");
    assert_eq!(count("toolhost_approvals_asked_total"), 0.0);
    assert_eq!(count("toolhost_sandbox_unavailable_total"), 0.0);
}

#[test]
fn an_approval_asked_of_a_client_is_counted() {
    let fx = Fixture::new();
    let server = HttpServer::start(&fx, &[]);
    let (url, token) = (server.url(), server.token().to_string());
    let outside = fx.data.path().join("granted");
    std::fs::create_dir_all(&outside).unwrap();
    let target = outside.join("x.txt");
    let capabilities = json!({"elicitation": {"form": {}}});
    let params = json!({"name": "write", "arguments": {
        "path": target, "content": "x\n",
        "sandboxPermissions": {"paths": [{"path": outside, "access": "write", "scope": "subtree"}]},
        "justification": "the test asks once",
    }});
    let asked = stateless(url, &token, "tools/call", Some("write"), params, &capabilities);
    assert!(asked.to_string().contains("approve"), "an approval round: {asked}");
    assert!(!target.exists());

    let text = get(url, "/metrics", Some(&server.bearer())).body;
    assert_eq!(sample(&text, "toolhost_approvals_asked_total"), Some(1.0), "{text}");
}

#[test]
fn readyz_says_not_ready_when_the_sandbox_is_unavailable_and_why_only_on_stderr() {
    let fx = Fixture::new();
    let missing = "/nonexistent/toolhost-probe-bwrap";
    let server = HttpServer::start_with(&fx, &[], &[], &[("TOOLHOST_BWRAP", missing)]);
    let url = server.url();
    let health = get(url, "/healthz", None);
    assert_eq!(health.status, 200, "alive all the same: {health:?}");
    let ready = get(url, "/readyz", None);
    assert_eq!(ready.status, 503, "{ready:?}");
    assert_eq!(ready.body.trim(), "not ready: sandbox unavailable", "{ready:?}");
    assert!(!ready.body.contains(missing), "the reason stays in the log: {ready:?}");

    // A bash call is refused for it, and counted.
    let bearer = server.bearer();
    let session = open_session(url, &bearer);
    let r = call(url, &bearer, &session, "bash", json!({"command": "echo hi"}));
    assert_eq!(r["isError"], true, "{r}");
    let text = get(url, "/metrics", Some(&bearer)).body;
    assert_eq!(sample(&text, "toolhost_sandbox_unavailable_total"), Some(1.0), "{text}");
}

#[test]
fn readyz_follows_the_postgres_store_away_and_back() {
    let pg = toolhost_tests::postgres::Postgres::start();
    let store = pg.create_db();
    let fx = Fixture::new();
    let server = HttpServer::start(&fx, &["--store", &store]);
    let url = server.url();
    let ready = get(url, "/readyz", None);
    assert_eq!((ready.status, ready.body.trim()), (200, "ready"), "{ready:?}");

    pg.stop();
    let ready = get(url, "/readyz", None);
    assert_eq!(ready.status, 503, "{ready:?}");
    assert_eq!(ready.body.trim(), "not ready: store unreachable", "{ready:?}");
    assert!(!ready.body.contains(&pg.port().to_string()), "where the store is stays in the log");
    assert_eq!(get(url, "/healthz", None).status, 200, "alive all the same");

    pg.start_server();
    let ready = get(url, "/readyz", None);
    assert_eq!((ready.status, ready.body.trim()), (200, "ready"), "back: {ready:?}");
}
