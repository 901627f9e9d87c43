//! `toolhost mcp` driven by a real MCP client: the official Python SDK (`mcp` 2.3.0),
//! installed into a virtualenv under the target dir, runs `tests/mcp/client.py` against the
//! built binary over stdio. The script prints what the client saw; this test asserts on it.
//!
//! Acceptance A1 (artifacts never reach the model): the file change of an edit arrives in
//! the result's `_meta`, and the content is the model-visible text alone.

use std::process::Command;

use serde_json::Value;
use toolhost_tests::*;

fn text(v: &Value) -> &str {
    v["text"].as_str().unwrap_or_default()
}

#[test]
fn a_real_mcp_client_lists_calls_gets_progress_cancels_and_never_sees_artifacts() {
    let fx = Fixture::new();
    fx.write("a.txt", "alpha\nbeta\n");
    let b = fx.write("b.txt", "bee\n");
    let outside = tempfile::tempdir_in("/var/tmp").unwrap();
    let args = [
        toolhost_bin().into_os_string(),
        fx.root().into_os_string(),
        fx.data.path().into(),
        outside.path().into(),
    ];
    let (report, _) = toolhost_tests::mcp::run_client_script(
        "client.py",
        &args.each_ref().map(|a| a.as_os_str()),
        None,
    );

    // initialize (2025-11-25 handshake)
    assert_eq!(report["initialize"]["protocolVersion"], "2025-11-25", "{report}");
    assert_eq!(report["initialize"]["serverName"], "toolhost");
    assert_eq!(report["initialize"]["tools"], true);

    // tools/list: the seven, in toolset order, with schemas and annotations from the risk.
    let tools = report["tools"].as_array().unwrap();
    let names: Vec<&str> = tools.iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["read", "write", "edit", "grep", "glob", "list", "bash"]);
    for t in tools {
        let name = t["name"].as_str().unwrap();
        assert!(!t["description"].as_str().unwrap_or_default().is_empty(), "{name}");
        assert_eq!(t["inputSchema"]["type"], "object", "{name}: {t}");
        assert!(t["inputSchema"]["properties"].is_object(), "{name}: {t}");
        let a = &t["annotations"];
        if ["read", "grep", "glob", "list"].contains(&name) {
            assert_eq!(a["readOnlyHint"], true, "{name}: {t}");
            assert!(t["inputSchema"]["properties"].get("sandboxPermissions").is_none(), "{name}");
        } else {
            assert_eq!(a["destructiveHint"], true, "{name}: {t}");
            assert_ne!(a["readOnlyHint"], true, "{name}: {t}");
        }
    }
    let bash = tools.iter().find(|t| t["name"] == "bash").unwrap();
    assert!(bash["inputSchema"]["properties"]["command"].is_object(), "{bash}");
    // The sandbox is available on the machines the suites run on (bash.rs needs it too).
    assert!(bash["inputSchema"]["properties"]["sandboxPermissions"].is_object(), "{bash}");

    let calls = &report["calls"];
    let ok = |k: &str| {
        let c = &calls[k];
        assert_eq!(c["isError"], false, "{k}: {c}");
        assert_eq!(c["meta"]["toolhost/status"], "succeeded", "{k}: {c}");
        c
    };
    assert!(text(ok("read")).contains("alpha"), "{}", calls["read"]);

    // A refused edit: isError and the contract's text (docs/contract.md#read-before-edit).
    let refused = &calls["edit_unread"];
    assert_eq!(refused["isError"], true, "{refused}");
    assert_eq!(text(refused), "Read b.txt before editing it.");
    assert_eq!(refused["meta"]["toolhost/status"], "failed");

    // A1: the file change travels in _meta; the content is one text block without it.
    ok("read_b");
    let edit = ok("edit");
    assert_eq!(std::fs::read_to_string(&b).unwrap(), "BEE\n");
    let artifacts = edit["meta"]["toolhost/artifacts"].as_array().unwrap();
    assert_eq!(artifacts.len(), 1, "{edit}");
    assert_eq!(artifacts[0]["type"], "file_change");
    assert_eq!(artifacts[0]["afterContent"], "BEE\n");
    let change_id = artifacts[0]["changeId"].as_str().unwrap();
    assert_eq!(edit["meta"]["toolhost/callId"], change_id);
    let content = edit["content"].as_array().unwrap();
    assert_eq!(content.len(), 1, "{edit}");
    assert_eq!(content[0]["type"], "text");
    let visible = serde_json::to_string(content).unwrap();
    for leak in [change_id, "afterContent", "beforeContent", "beforeHash", "hunks", "file_change"] {
        assert!(!visible.contains(leak), "{leak} reached the content: {visible}");
    }
    for (k, c) in calls.as_object().unwrap() {
        let visible = serde_json::to_string(&c["content"]).unwrap();
        assert!(
            !visible.contains("toolhost/") && !visible.contains("\"artifacts\""),
            "{k}: {visible}"
        );
    }

    assert!(text(ok("grep")).contains("a.txt"), "{}", calls["grep"]);
    assert!(text(ok("bash")).contains("hi"), "{}", calls["bash"]);

    // Progress from a long bash, in order.
    let long = ok("bash_long");
    for n in ["1", "2", "3"] {
        assert!(text(long).contains(n), "{long}");
    }
    let progress = report["progress"].as_array().unwrap();
    assert!(!progress.is_empty(), "no progress notification: {report}");
    let values: Vec<f64> = progress.iter().map(|p| p["progress"].as_f64().unwrap()).collect();
    assert!(values.windows(2).all(|w| w[0] < w[1]), "{values:?}");
    let messages: String = progress.iter().filter_map(|p| p["message"].as_str()).collect();
    assert!(messages.contains('1'), "{progress:?}");

    // Cancel reaches the running sleep: the next call (calls run in order) is prompt.
    let cancel = &report["cancel"];
    assert_eq!(cancel["cancelled"], true, "{cancel}");
    ok("after_cancel");
    assert!(
        cancel["next_call_seconds"].as_f64().unwrap() < 10.0,
        "the sleep was not stopped: {cancel}"
    );

    // Escalation without elicitation and without --allow-escalation: denied, says how.
    let denied = &calls["escalation_denied"];
    assert_eq!(denied["isError"], true, "{denied}");
    assert_eq!(denied["meta"]["toolhost/status"], "denied", "{denied}");
    assert!(text(denied).contains("--allow-escalation"), "{denied}");
    assert!(!outside.path().join("denied.txt").exists());

    assert!(
        report["unknown_tool"].as_str().unwrap().contains("not available"),
        "{}",
        report["unknown_tool"]
    );

    // Escalation with a client that declared elicitation: asked, approved, run.
    let el = &report["elicitation"];
    assert_eq!(el["asked"].as_array().map(Vec::len), Some(1), "{el}");
    assert!(
        el["asked"][0]["message"].as_str().unwrap().contains(&outside.path().display().to_string()),
        "{el}"
    );
    assert_eq!(el["call"]["isError"], false, "{el}");
    assert_eq!(
        std::fs::read_to_string(outside.path().join("approved.txt")).unwrap(),
        "escalated\n"
    );

    // The stateless 2026-07-28 revision.
    let st = &report["stateless"];
    assert_eq!(st["protocolVersion"], "2026-07-28", "{st}");
    assert_eq!(st["tools"].as_array().unwrap().len(), 7, "{st}");
    assert_eq!(st["read"]["isError"], false, "{st}");
    assert!(text(&st["read"]).contains("alpha"), "{st}");

    // Every call was recorded in the session store: the edit is listed after the process exited.
    let listed = Command::new(toolhost_bin())
        .args(["--data-dir"])
        .arg(fx.data.path())
        .args(["changes", "--json"])
        .output()
        .unwrap();
    assert!(listed.status.success(), "{}", String::from_utf8_lossy(&listed.stderr));
    let listed: Value = serde_json::from_slice(&listed.stdout).unwrap();
    assert!(listed.as_array().unwrap().iter().any(|c| c["changeId"] == change_id), "{listed}");
}
