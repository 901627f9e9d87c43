//! `toolhost mcp` follows the installed tools, seen by a real MCP client (the official Python
//! SDK, `tests/mcp/follow_client.py`): a tool added with `toolhost tool add` while the server
//! runs is announced with `notifications/tools/list_changed`, listed and callable; a tool that
//! crashes on three calls in a row is disabled for the session (announced, gone from the list,
//! its next call failing with the reason); a removed tool is announced and gone.

use std::path::Path;
use std::process::Command;

use serde_json::Value;
use toolhost_tests::attack::Attack;
use toolhost_tests::{test_components_dir, toolhost_bin};

fn names(v: &Value) -> Vec<&str> {
    v.as_array().unwrap_or_else(|| panic!("not a list: {v}")).iter().map(|n| n.as_str().unwrap()).collect()
}

#[test]
fn mcp_announces_added_disabled_and_removed_tools() {
    let python = toolhost_tests::mcp::python_with_sdk();
    let a = Attack::new();
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("mcp").join("follow_client.py");
    let out = Command::new(&python)
        .arg(script)
        .arg(toolhost_bin())
        .arg(&a.ws)
        .arg(&a.data)
        .arg(test_components_dir().join("scribe.wasm"))
        .arg(test_components_dir().join("misbehave.wasm"))
        .env("HOME", &a.home)
        .output()
        .expect("run the MCP client");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "client failed\nstdout: {stdout}\nstderr: {stderr}");
    let r: Value = serde_json::from_str(stdout.lines().last().unwrap_or_default())
        .unwrap_or_else(|e| panic!("client output is not JSON ({e}): {stdout}\nstderr: {stderr}"));
    assert!(r.get("errors").is_none(), "{:#}\nstderr: {stderr}", r["errors"]);

    assert_eq!(r["listChanged"], true, "the server does not declare tools.listChanged: {r}");
    assert!(!names(&r["before"]).contains(&"scribe"));
    assert_eq!(r["add"]["code"], 0, "{}", r["add"]);
    assert!(r["addNoticeSeconds"].is_number(), "no list_changed after tool add: {r}");
    assert_eq!(names(&r["afterAdd"]).last(), Some(&"scribe"), "{r}");
    assert_eq!(r["scribe"]["isError"], false, "{}", r["scribe"]);
    let usage = &r["scribe"]["meta"]["toolhost/usage"];
    assert!(usage["wallUs"].is_u64() && usage["peakMemoryBytes"].is_u64(), "no usage in _meta: {}", r["scribe"]);
    assert_eq!(std::fs::read_to_string(a.ws.join("from-mcp.txt")).unwrap(), "hi\n");

    for t in r["traps"].as_array().unwrap() {
        assert_eq!(t["isError"], true, "{t}");
        assert_eq!(t["meta"]["toolhost/error"]["code"], "execution_failed", "{t}");
    }
    assert!(r["disableNoticeSeconds"].is_number(), "no list_changed after the third crash: {r}");
    let after = names(&r["afterDisable"]);
    assert!(!after.contains(&"misbehave") && after.contains(&"scribe"), "{r}");
    let disabled = &r["disabledCall"];
    assert_eq!(disabled["isError"], true, "{disabled}");
    assert!(disabled["text"].as_str().unwrap().contains("disabled for the rest of this session"), "{disabled}");

    assert_eq!(r["remove"]["code"], 0, "{}", r["remove"]);
    assert!(r["removeNoticeSeconds"].is_number(), "no list_changed after tool remove: {r}");
    assert!(!names(&r["afterRemove"]).contains(&"scribe"), "{r}");
}
