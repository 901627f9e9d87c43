//! toolhost:tool 0.2.0 through `toolhost mcp` and a real MCP client (the official Python SDK,
//! `tests/mcp/structured_client.py`): a tool's output schema is its `outputSchema` in
//! `tools/list`; its structured value is the call's `structuredContent` (valid against that
//! schema: the SDK checks it too) beside a text that is complete on its own; a value that
//! breaks its schema is a failed call, never handed on; a component built against the frozen
//! 0.1.0 WIT is served next to them; progress with a fraction arrives with a total.

use toolhost_tests::attack::Attack;
use toolhost_tests::{test_components_dir, toolhost_bin};

#[test]
fn structured_results_reach_a_real_mcp_client_and_a_broken_one_fails() {
    let a = Attack::new();
    if !a.sandbox_or_skip("structured_results_reach_a_real_mcp_client") {
        return;
    }
    a.put("a.txt", "alpha\nbeta\ngamma\n");
    let wasm = |id: &str| test_components_dir().join(format!("{id}.wasm")).into_os_string();
    let args = [
        toolhost_bin().into_os_string(),
        a.ws.clone().into_os_string(),
        a.data.clone().into_os_string(),
        wasm("runner"),
        wasm("shapeless"),
        wasm("legacy"),
        wasm("misbehave"),
    ];
    let (report, _) = toolhost_tests::mcp::run_client_script(
        "structured_client.py",
        &args.each_ref().map(|a| a.as_os_str()),
        Some(&a.home),
    );

    // tools/list: outputSchema for the tools that declare one, none for the others.
    let tools = &report["tools"];
    assert_eq!(tools["runner"]["outputSchema"]["type"], "object", "{tools}");
    assert!(tools["runner"]["outputSchema"]["properties"]["exitCode"].is_object(), "{tools}");
    assert!(tools["legacy"].get("outputSchema").is_none(), "{tools}");
    assert!(tools["read"].get("outputSchema").is_none(), "{tools}");

    // runner: structuredContent and a text that each say it all.
    let runner = &report["calls"]["runner"];
    assert_eq!(runner["isError"], false, "{runner}");
    let s = &runner["structuredContent"];
    assert_eq!(s["termination"], "exited", "{runner}");
    assert_eq!(s["exitCode"], 0, "{runner}");
    assert_eq!(s["stdout"]["text"], "hello from a program\n", "{runner}");
    let text = runner["text"].as_str().unwrap();
    assert!(
        text.contains("exited with code 0") && text.contains("hello from a program"),
        "{runner}"
    );

    // shapeless: its value breaks its schema, so the call failed and carries no value.
    let shapeless = &report["calls"]["shapeless"];
    assert_eq!(shapeless["isError"], true, "{shapeless}");
    assert!(shapeless["structuredContent"].is_null(), "{shapeless}");
    let why = shapeless["text"].as_str().unwrap();
    assert!(why.contains("does not match its output schema") && why.contains("/count"), "{why}");
    assert!(why.ends_with(toolhost::runtime::component_tool::STRUCTURED_WITHHELD), "{why}");

    // legacy (0.1.0): served and run like any other.
    let legacy = &report["calls"]["legacy"];
    assert_eq!(legacy["isError"], false, "{legacy}");
    assert_eq!(legacy["text"], "1 of 3 lines in a.txt contain \"et\"", "{legacy}");

    // progress with fractions: a total of 100, and progress growing to it.
    let progress = report["progress"].as_array().unwrap();
    assert_eq!(progress.len(), 3, "{progress:?}");
    let values: Vec<f64> = progress.iter().map(|p| p["progress"].as_f64().unwrap()).collect();
    assert!(values.windows(2).all(|w| w[0] < w[1]), "{values:?}");
    assert!((values[2] - 100.0).abs() < 1e-6, "{values:?}");
    assert!(progress.iter().all(|p| p["total"] == 100.0), "{progress:?}");
    assert_eq!(progress[0]["message"], "step 1 of 3");
}

/// A structured value past `MAX_STRUCTURED_BYTES` is withheld like one that breaks its
/// schema (through `toolhost session`: the input is too long for a command line): the call
/// fails and says why.
#[test]
fn a_structured_result_past_its_bound_is_withheld() {
    let a = Attack::new();
    let shapeless = test_components_dir().join("shapeless.wasm");
    let long = "word ".repeat(toolhost_limits::MAX_STRUCTURED_BYTES / 4);
    let mut session = a.session(&["--tool", shapeless.to_str().unwrap()]);
    let r = session.call("big", "shapeless", serde_json::json!({ "text": long }));
    assert_eq!(r["status"], "failed", "{r}");
    assert!(r.get("structuredContent").is_none(), "{r}");
    let why = r["error"]["message"].as_str().unwrap();
    assert!(
        why.contains("MAX_STRUCTURED_BYTES")
            && why.ends_with(toolhost::runtime::component_tool::STRUCTURED_WITHHELD),
        "{why}"
    );
}
