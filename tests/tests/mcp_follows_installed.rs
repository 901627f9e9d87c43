//! `toolhost mcp` follows the installed tools, seen by a real MCP client (the official Python
//! SDK, `tests/mcp/follow_client.py`): a tool added with `toolhost tool add` while the server
//! runs is announced with `notifications/tools/list_changed`, listed and callable; a tool that
//! crashes on three calls in a row is disabled for the session (announced, gone from the list,
//! its next call failing with the reason); a removed tool is announced and gone.

use serde_json::Value;
use toolhost_tests::attack::Attack;
use toolhost_tests::{test_components_dir, toolhost_bin};

fn names(v: &Value) -> Vec<&str> {
    v.as_array()
        .unwrap_or_else(|| panic!("not a list: {v}"))
        .iter()
        .map(|n| n.as_str().unwrap())
        .collect()
}

#[test]
fn mcp_announces_added_disabled_and_removed_tools() {
    let a = Attack::new();
    let args = [
        toolhost_bin().into_os_string(),
        a.ws.clone().into_os_string(),
        a.data.clone().into_os_string(),
        test_components_dir().join("scribe.wasm").into_os_string(),
        test_components_dir().join("misbehave.wasm").into_os_string(),
    ];
    let (r, _) = toolhost_tests::mcp::run_client_script(
        "follow_client.py",
        &args.each_ref().map(|a| a.as_os_str()),
        Some(&a.home),
    );

    assert_eq!(r["listChanged"], true, "the server does not declare tools.listChanged: {r}");
    assert!(!names(&r["before"]).contains(&"scribe"));
    assert_eq!(r["add"]["code"], 0, "{}", r["add"]);
    assert!(r["addNoticeSeconds"].is_number(), "no list_changed after tool add: {r}");
    assert_eq!(names(&r["afterAdd"]).last(), Some(&"scribe"), "{r}");
    assert_eq!(r["scribe"]["isError"], false, "{}", r["scribe"]);
    let usage = &r["scribe"]["meta"]["toolhost/usage"];
    assert!(
        usage["wallUs"].is_u64() && usage["peakMemoryBytes"].is_u64(),
        "no usage in _meta: {}",
        r["scribe"]
    );
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
    assert!(
        disabled["text"].as_str().unwrap().contains("disabled for the rest of this session"),
        "{disabled}"
    );

    assert_eq!(r["remove"]["code"], 0, "{}", r["remove"]);
    assert!(r["removeNoticeSeconds"].is_number(), "no list_changed after tool remove: {r}");
    assert!(!names(&r["afterRemove"]).contains(&"scribe"), "{r}");
}
