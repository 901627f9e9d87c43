//! The stateless 2026-07-28 revision of `toolhost mcp --listen`: the official conformance
//! suite's `server --requirements 2026-07-28` (0.2.0-alpha.12, through a proxy that adds the
//! bearer token) with the suite's fixture tools that components can be (tools/testing/fixtures:
//! `greet`, `slow_compute` and `failing_job` run through the real host and task store), and
//! raw HTTP for what the suite can only probe with diagnostic tools of its own:
//! `subscriptions/listen` delivering `notifications/tools/list_changed` when the installed
//! tools change, tagged with the subscription id and filtered by the client's filter; no
//! server-to-client request and no log message on a call's stream; caching hints on
//! `tools/list`.

use std::time::Duration;

use serde_json::{Value, json};
use toolhost_tests::http::{AuthProxy, EventStream, mcp_headers, request};
use toolhost_tests::mcp::{CONFORMANCE_2026_VERSION, HttpServer, conformance_runner_for};
use toolhost_tests::*;

/// The revision under test.
const REVISION: &str = "2026-07-28";

/// The suite's fixture tools that toolhost serves from test components (tools/testing/fixtures,
/// one tool each, installed with `--tool`): their calls go through the real host, fence and
/// task store.
const FIXTURE_TOOLS: &[&str] = &[
    "greet",
    "slow_compute",
    "failing_job",
    "test_simple_text",
    "test_error_handling",
    "test_tool_with_progress",
    "json_schema_2020_12_tool",
];

/// Scenarios (and checks of scenarios) that cannot pass against toolhost, each with why: every
/// check of theirs that does not pass must fail with one of the given messages (substrings),
/// which say exactly that reason. Every other scenario the suite runs must pass whole.
const DOES_NOT_APPLY: &[(&str, &str, &[&str])] = &[
    // A tool answers text (and structured JSON): no image, audio or embedded-resource content,
    // so no component can be these fixture tools.
    ("tools-call-image", "no image content", &["tool `test_image_content` is not available"]),
    ("tools-call-audio", "no audio content", &["tool `test_audio_content` is not available"]),
    (
        "tools-call-embedded-resource",
        "no embedded resources",
        &["tool `test_embedded_resource` is not available"],
    ),
    (
        "tools-call-mixed-content",
        "no image or resource content",
        &["tool `test_multiple_content_types` is not available"],
    ),
    // toolhost refuses a component whose input schema has `$schema` (models are given the
    // schema as it is): the fixture declares the rest of the suite's 2020-12 schema, kept.
    (
        "json-schema-2020-12",
        "no `$schema` in an input schema",
        &["$schema field missing from inputSchema"],
    ),
    // No completions, resources or prompts: the method is not there (-32601; this suite's
    // message is the method's name).
    ("completion-complete", "not offered", &["Failed: completion/complete"]),
    ("resources-list", "not offered", &["Failed: resources/list"]),
    ("resources-read-text", "not offered", &["Failed: resources/read"]),
    ("resources-read-binary", "not offered", &["Failed: resources/read"]),
    ("resources-templates-read", "not offered", &["Failed: resources/read"]),
    ("prompts-list", "not offered", &["Failed: prompts/list"]),
    ("prompts-get-simple", "not offered", &["Failed: prompts/get"]),
    ("prompts-get-with-args", "not offered", &["Failed: prompts/get"]),
    ("prompts-get-embedded-resource", "not offered", &["Failed: prompts/get"]),
    ("prompts-get-with-image", "not offered", &["Failed: prompts/get"]),
    (
        "caching",
        "no prompts or resources to list (tools/list carries its hints: checked here)",
        &[
            "prompts/list returned JSON-RPC error -32601",
            "resources/list returned JSON-RPC error -32601",
            "resources/templates/list returned JSON-RPC error -32601",
            "resources/read was not exercised",
        ],
    ),
    (
        "sep-2164-resource-not-found",
        "no resources: resources/read is -32601 (SHOULD warnings)",
        &["got -32601", "Error data.uri is undefined"],
    ),
    // Input-required results (MRTR, SEP-2322): a component cannot ask the client (elicitation,
    // sampling, roots); toolhost asks only its own escalation approvals that way
    // (escalation.rs proves it with the official Python SDK, and the approval-before-task
    // path is in mcp_tasks.rs). These scenarios need fixture tools that ask, or a prompt.
    (
        "input-required-result-basic-elicitation",
        "a tool cannot ask",
        &["tool `test_input_required_result_elicitation` is not available"],
    ),
    (
        "input-required-result-basic-sampling",
        "a tool cannot ask",
        &["tool `test_input_required_result_sampling` is not available"],
    ),
    (
        "input-required-result-basic-list-roots",
        "a tool cannot ask",
        &["tool `test_input_required_result_list_roots` is not available"],
    ),
    (
        "input-required-result-request-state",
        "a tool cannot ask",
        &["tool `test_input_required_result_request_state` is not available"],
    ),
    (
        "input-required-result-multiple-input-requests",
        "a tool cannot ask",
        &["tool `test_input_required_result_multiple_inputs` is not available"],
    ),
    (
        "input-required-result-result-type",
        "a tool cannot ask",
        &["tool `test_input_required_result_elicitation` is not available"],
    ),
    (
        "input-required-result-capability-check",
        "a tool cannot ask",
        &["tool `test_input_required_result_capabilities` is not available"],
    ),
    (
        "input-required-result-ignore-extra-params",
        "a tool cannot ask",
        &["tool `test_input_required_result_elicitation` is not available"],
    ),
    (
        "input-required-result-multi-round",
        "a tool cannot ask",
        &["Expected InputRequiredResult with inputRequests and requestState"],
    ),
    (
        "input-required-result-tampered-state",
        "a tool cannot ask",
        &["could not get initial InputRequiredResult with requestState"],
    ),
    (
        "input-required-result-missing-input-response",
        "a tool cannot ask",
        &["instead of re-requesting via InputRequiredResult"],
    ),
    ("input-required-result-non-tool-request", "no prompts", &["JSON-RPC error: prompts/get"]),
    // SEP-2243 custom headers: no toolhost tool declares `x-mcp-header` parameters.
    (
        "http-custom-header-server-validation",
        "no tool with x-mcp-header parameters",
        &["Not testable: server exposes no tool with x-mcp-header annotations"],
    ),
    // The tasks extension (SEP-2663) runs `slow_compute` and `failing_job` (process-execution
    // components: tasks) and `greet` (sync) through the real host; what remains needs:
    // a task that ends `failed` (a tool cannot: every outcome of a call, a trap included, is
    // a result, so a task ends completed, with isError when the tool failed, or cancelled),
    (
        "tasks-lifecycle",
        "a task never ends failed",
        &["tool `protocol_error_job` is not available"],
    ),
    // a tool that asks the client for input while it runs (see input-required above),
    (
        "tasks-dispatch-and-envelope",
        "a tool cannot ask",
        &["tool `confirm_delete` is not available"],
    ),
    (
        "tasks-mrtr-input",
        "a tool cannot ask",
        &["tool `confirm_delete` is not available", "tool `multi_input` is not available"],
    ),
    (
        "tasks-mrtr-composition",
        "a tool cannot ask",
        &["tool `test_tool_with_task` is not available"],
    ),
    // and a tool that only runs as a task: toolhost runs a process-execution call
    // synchronously for a client that did not declare the extension, never -32021.
    (
        "tasks-required-task-error",
        "no task-required tools",
        &["returned a successful response from a client that did not declare"],
    ),
    (
        "tasks-status-notifications",
        "skipped by the suite itself",
        &["Skipped: SEP-2663 delivers notifications/tasks via the SEP-2575 subscriptions/listen"],
    ),
];

/// Checks of `server-stateless` that need the suite's diagnostic tools (`test_missing_capability`,
/// `test_streaming_elicitation`, `test_logging_tool`, `test_trigger_tool_change`): each must
/// fail (or warn) only for that. What they probe is proven with toolhost's own tools below.
const STATELESS_DIAGNOSTIC_TOOL: &[(&str, &str)] = &[
    (
        "sep-2575-server-rejects-undeclared-capability",
        "Not testable: server does not list the diagnostic tool 'test_missing_capability'",
    ),
    (
        "sep-2575-missing-capability-http-400",
        "Not testable: server does not list the diagnostic tool 'test_missing_capability'",
    ),
    (
        "sep-2575-http-server-no-independent-requests-on-stream",
        "Not testable: server does not list the diagnostic tool 'test_streaming_elicitation'",
    ),
    (
        "sep-2575-server-no-log-without-loglevel",
        "Not testable: server does not list the diagnostic tool 'test_logging_tool'",
    ),
    // It changes the tool list by calling `test_trigger_tool_change` (unknown here: -32602,
    // so the suite cannot tell it apart from a server that sends nothing): a SHOULD, a warning.
    (
        "sep-2575-server-sends-tools-list-changed-on-subscription",
        "Mutated the tool list but no notifications/tools/list_changed arrived",
    ),
];

/// The `server-stateless` check skipped because toolhost declares no `prompts.listChanged`.
const NO_PROMPTS: &str = "sep-2575-server-sends-prompts-list-changed-on-subscription";

#[test]
fn the_conformance_suite_for_2026_07_28_passes_every_check_that_applies() {
    let (node, entry) = conformance_runner_for(CONFORMANCE_2026_VERSION);
    let fx = Fixture::new();
    fx.write("a.txt", "alpha\n");
    let fixtures: Vec<String> = FIXTURE_TOOLS
        .iter()
        .map(|id| test_components_dir().join(format!("{id}.wasm")).to_string_lossy().into_owned())
        .collect();
    let extra: Vec<&str> = fixtures.iter().flat_map(|f| ["--tool", f.as_str()]).collect();
    let server = HttpServer::start(&fx, &extra);
    let proxy = AuthProxy::start(server.url(), server.token());
    let (by_scenario, log) = toolhost_tests::mcp::run_conformance_server(
        &node,
        &entry,
        proxy.url(),
        &["--requirements", REVISION],
    );
    assert!(by_scenario.contains_key("server-stateless"), "server-stateless did not run\n{log}");
    let passes = |c: &Value| matches!(c["status"].as_str(), Some("SUCCESS" | "INFO"));
    let message = |c: &Value| c["errorMessage"].as_str().unwrap_or_default().to_string();

    let mut wrong = Vec::new();
    for (scenario, checks) in &by_scenario {
        if scenario == "server-stateless" {
            for c in checks.iter().filter(|c| !passes(c)) {
                if c["id"] == NO_PROMPTS && c["status"] == "SKIPPED" {
                    continue;
                }
                let expected = STATELESS_DIAGNOSTIC_TOOL.iter().find(|(id, _)| c["id"] == *id);
                match expected {
                    Some((_, why)) if message(c).contains(why) => {}
                    _ => wrong.push(format!("{scenario}: {c:#}")),
                }
            }
            continue;
        }
        match DOES_NOT_APPLY.iter().find(|(s, _, _)| s == scenario) {
            None => {
                for c in checks.iter().filter(|c| !passes(c)) {
                    wrong.push(format!("{scenario} (applies): {c:#}"));
                }
            }
            Some((_, why, messages)) => {
                let failing: Vec<&Value> = checks.iter().filter(|c| !passes(c)).collect();
                if failing.is_empty() {
                    wrong.push(format!(
                        "{scenario} passed: it applies now, drop it from DOES_NOT_APPLY"
                    ));
                }
                for c in failing {
                    if !messages.iter().any(|m| message(c).contains(m)) {
                        wrong.push(format!(
                            "{scenario} failed for another reason than `{why}`: {c:#}"
                        ));
                    }
                }
            }
        }
    }
    // The subscription checks are toolhost's own to pass.
    let stateless = &by_scenario["server-stateless"];
    for id in [
        "sep-2575-server-sends-subscription-ack",
        "sep-2575-server-tags-subscription-id",
        "sep-2575-server-honors-notification-filter",
    ] {
        let c = stateless.iter().find(|c| c["id"] == id);
        if !c.is_some_and(|c| c["status"] == "SUCCESS") {
            wrong.push(format!("server-stateless: {id} did not pass: {c:?}"));
        }
    }
    assert!(wrong.is_empty(), "{}\nserver stderr:\n{}", wrong.join("\n"), server.stderr());
}

/// Per-request `_meta` of the 2026-07-28 revision, with `capabilities` declared.
fn meta(capabilities: Value) -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": REVISION,
        "io.modelcontextprotocol/clientCapabilities": capabilities,
        "io.modelcontextprotocol/clientInfo": {"name": "raw", "version": "1"},
    })
}

/// POST headers of a 2026-07-28 request for `method` (and tool `name`).
fn headers<'a>(bearer: &'a str, method: &'a str, name: Option<&'a str>) -> Vec<(&'a str, &'a str)> {
    let mut extra =
        vec![("authorization", bearer), ("mcp-protocol-version", REVISION), ("mcp-method", method)];
    if let Some(name) = name {
        extra.push(("mcp-name", name));
    }
    mcp_headers(&extra)
}

/// A `subscriptions/listen` stream with request id `id` and `filter`; its acknowledgement read.
fn listen(server: &HttpServer, bearer: &str, id: &str, filter: Value) -> (EventStream, Value) {
    let body = json!({
        "jsonrpc": "2.0", "id": id, "method": "subscriptions/listen",
        "params": {"_meta": meta(json!({})), "notifications": filter},
    });
    let mut stream = EventStream::open(
        server.url(),
        &headers(bearer, "subscriptions/listen", None),
        &body.to_string(),
    );
    assert_eq!(stream.status, 200, "subscriptions/listen: {:?}", stream.headers);
    assert!(
        stream.header("content-type").is_some_and(|t| t.starts_with("text/event-stream")),
        "{:?}",
        stream.headers
    );
    let ack = stream
        .next_message(Duration::from_secs(60))
        .unwrap_or_else(|| panic!("no first message on the listen stream {id}"));
    (stream, ack)
}

fn subscription_id(message: &Value) -> &Value {
    &message["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"]
}

#[test]
fn a_listen_stream_gets_tools_list_changed_with_its_subscription_id_and_only_what_it_asked_for() {
    let fx = Fixture::new();
    let server = HttpServer::start(&fx, &[]);
    let bearer = server.bearer();

    // tools/list carries the 2026-07-28 caching hints (a tool list may change: not cached).
    let list = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"_meta": meta(json!({}))}});
    let r = request(server.url(), "POST", &headers(&bearer, "tools/list", None), &list.to_string());
    assert_eq!(r.status, 200, "{r:?}");
    let listed = &r.messages()[0]["result"];
    assert_eq!(listed["ttlMs"], 0, "{listed}");
    assert_eq!(listed["cacheScope"], "private", "{listed}");
    assert!(!listed["tools"].as_array().unwrap().iter().any(|t| t["name"] == "scribe"));

    let (mut tools, ack) =
        listen(&server, &bearer, "listen-tools", json!({"toolsListChanged": true}));
    assert_eq!(ack["method"], "notifications/subscriptions/acknowledged", "{ack}");
    assert_eq!(subscription_id(&ack), "listen-tools", "{ack}");
    assert_eq!(ack["params"]["notifications"]["toolsListChanged"], true, "{ack}");
    let (mut prompts, ack) =
        listen(&server, &bearer, "listen-prompts", json!({"promptsListChanged": true}));
    assert_eq!(ack["method"], "notifications/subscriptions/acknowledged", "{ack}");
    assert_eq!(subscription_id(&ack), "listen-prompts", "{ack}");
    // toolhost has no prompts to announce: the accepted filter is empty.
    assert_ne!(ack["params"]["notifications"]["promptsListChanged"], true, "{ack}");

    // The installed tools change while both streams are open.
    let scribe = test_components_dir().join("scribe.wasm");
    let add =
        toolhost_command(&fx).arg("tool").arg("add").arg(&scribe).arg("--yes").output().unwrap();
    assert!(add.status.success(), "tool add: {add:?}");
    let note = tools
        .next_message(Duration::from_secs(60))
        .unwrap_or_else(|| panic!("no list_changed after tool add; stderr:\n{}", server.stderr()));
    assert_eq!(note["method"], "notifications/tools/list_changed", "{note}");
    assert_eq!(subscription_id(&note), "listen-tools", "{note}");
    let r = request(server.url(), "POST", &headers(&bearer, "tools/list", None), &list.to_string());
    let names = r.messages()[0]["result"]["tools"].clone();
    assert!(names.as_array().unwrap().iter().any(|t| t["name"] == "scribe"), "{names}");

    // Shutdown ends both subscriptions with their final result; the prompts-only stream never
    // saw the tools notice.
    let status = server.terminate();
    assert!(status.success(), "{status:?}");
    let rest = prompts.rest(Duration::from_secs(60));
    assert!(
        !rest.iter().any(|m| m["method"] == "notifications/tools/list_changed"),
        "a stream filtered to prompts got the tools notice: {rest:#?}"
    );
    let last = rest.last().unwrap_or_else(|| panic!("the prompts stream ended without a result"));
    assert_eq!(last["id"], "listen-prompts", "{rest:#?}");
    assert_eq!(
        last["result"]["_meta"]["io.modelcontextprotocol/subscriptionId"], "listen-prompts",
        "{last}"
    );
    let rest = tools.rest(Duration::from_secs(60));
    assert_eq!(rest.last().map(|m| &m["id"]), Some(&json!("listen-tools")), "{rest:#?}");
}

/// A 2026-07-28 `tools/call` of `write` outside the workspace (it needs an approval), from a
/// client declaring `capabilities`.
fn escalated_write(target: &std::path::Path, capabilities: Value) -> String {
    let mut meta = meta(capabilities);
    meta["progressToken"] = json!("p7");
    json!({
        "jsonrpc": "2.0", "id": 7, "method": "tools/call",
        "params": {
            "name": "write",
            "arguments": {
                "path": target, "content": "x\n",
                "sandboxPermissions": {"paths": [{"path": target, "access": "write", "scope": "exact"}]},
                "justification": "the test asks",
            },
            "_meta": meta,
        },
    })
    .to_string()
}

#[test]
fn a_stateless_call_needing_approval_asks_in_its_result_never_by_request_and_without_elicitation_is_32021()
 {
    let fx = Fixture::new();
    let outside = tempfile::tempdir().unwrap();
    let target = outside.path().canonicalize().unwrap().join("escalated.txt");
    let server = HttpServer::start(&fx, &[]);
    let bearer = server.bearer();
    let h = headers(&bearer, "tools/call", Some("write"));

    // Elicitation declared: the question is the call's input-required result; the stream
    // carries no server-to-client request and, with no logLevel asked, no log message.
    let r = request(
        server.url(),
        "POST",
        &h,
        &escalated_write(&target, json!({"elicitation": {"form": {}}})),
    );
    assert_eq!(r.status, 200, "{r:?}");
    let messages = r.messages();
    for m in &messages {
        let method = m["method"].as_str();
        assert!(
            method.is_none_or(|s| s.starts_with("notifications/")),
            "a server-to-client request on a 2026-07-28 call's stream: {m}"
        );
        assert_ne!(method, Some("notifications/message"), "a log message without logLevel: {m}");
    }
    let result = &messages.last().unwrap()["result"];
    assert_eq!(result["resultType"], "input_required", "{result}");
    assert_eq!(result["inputRequests"]["approval"]["method"], "elicitation/create", "{result}");

    // Not declared: the call needs a capability the client lacks, -32021 and HTTP 400, the
    // error naming the capability as a ClientCapabilities object.
    let r = request(server.url(), "POST", &h, &escalated_write(&target, json!({})));
    assert_eq!(r.status, 400, "{r:?}");
    let error = &r.messages()[0];
    assert_eq!(error["id"], 7, "{error}");
    assert_eq!(error["error"]["code"], -32021, "{error}");
    assert!(error["error"]["data"]["requiredCapabilities"]["elicitation"].is_object(), "{error}");
    assert!(!target.exists(), "the escalated write ran without an approval");

    // A call that needs no approval needs no capability either.
    fx.write("a.txt", "alpha\n");
    let read = json!({"jsonrpc": "2.0", "id": 8, "method": "tools/call",
        "params": {"name": "read", "arguments": {"path": "a.txt"}, "_meta": meta(json!({}))}});
    let r = request(
        server.url(),
        "POST",
        &headers(&bearer, "tools/call", Some("read")),
        &read.to_string(),
    );
    assert_eq!(r.status, 200, "{r:?}");
    assert_eq!(r.messages().last().unwrap()["result"]["isError"], false, "{r:?}");
}
