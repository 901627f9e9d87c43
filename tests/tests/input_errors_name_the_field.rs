//! Every tool's refusal of arguments that break its schema is one text that
//! names the field (docs/contract.md#the-input-contract) — the built-in components, bash (a
//! host tool), the escalation parameters and an installed component alike — and the
//! operator-only `$operator` the host adds for workspace_shell and workspace_tests is never
//! named among a tool's fields.

use serde_json::{Value, json};
use toolhost_tests::attack::{Attack, Out};
use toolhost_tests::test_components_dir;

const REFUSED_BY_HOST: &str =
    "the host checked the arguments against the tool's input schema; the tool did not run";

/// The refusal's text of a `call ... --json`, checked to be `invalid_arguments`.
fn refusal(out: &Out) -> String {
    let result: Value = out.json();
    assert_eq!(result["error"]["code"], "invalid_arguments", "{}", out.all());
    let text = result["error"]["message"].as_str().unwrap_or_default().to_string();
    assert!(text.ends_with(REFUSED_BY_HOST), "not the one style: {text}");
    text
}

#[test]
fn a_wrong_type_names_the_field_for_every_kind_of_tool() {
    let a = Attack::new();
    let lenient = test_components_dir().join("lenient.wasm").display().to_string();
    let cases: [(&[&str], &str, Value, &str); 5] = [
        (&[], "read", json!({"path": 5}), "invalid tool input: `path`: expected a string, got 5;"),
        (
            &[],
            "grep",
            json!({"pattern": true}),
            "invalid tool input: `pattern`: expected a string, got true;",
        ),
        (
            &[],
            "bash",
            json!({"command": 5}),
            "invalid tool input: `command`: expected a string, got 5;",
        ),
        (
            &["--tool", &lenient],
            "lenient",
            json!({"path": 5}),
            "invalid tool input: `path`: expected a string, got 5;",
        ),
        (
            &["--agent", "workspace"],
            "workspace_git",
            json!({"operation": 5}),
            "invalid tool input: `operation`: expected one of \"status\", \"diff\", \"log\", \"show\", \"branch\", got 5;",
        ),
    ];
    for (global, tool, input, start) in cases {
        let text = refusal(&a.call_with(global, tool, input.clone()));
        assert!(text.starts_with(start), "{tool} {input}: {text}");
        assert!(!text.contains("line 1 column"), "{tool}: {text}");
    }
}

#[test]
fn missing_unknown_and_out_of_range_fields_are_named() {
    let a = Attack::new();
    let text = refusal(&a.call("read", json!({})));
    assert!(text.starts_with("invalid tool input: `path` is missing; it is required;"), "{text}");
    let text = refusal(&a.call("read", json!({"path": "a", "filePath": "a"})));
    assert!(
        text.starts_with(
            "invalid tool input: `filePath` is not a field this tool takes; the fields it takes are "
        ) && text.contains("`path`"),
        "{text}"
    );
    let text = refusal(&a.call("list", json!({"limit": 5_000_000_000u64})));
    assert!(
        text.starts_with(
            "invalid tool input: `limit`: expected a number of at most 4294967295, got 5000000000;"
        ),
        "{text}"
    );
    let text = refusal(&a.call("bash", json!({"command": "true", "bogus": 1})));
    assert!(
        text.starts_with("invalid tool input: `bogus` is not a field this tool takes"),
        "{text}"
    );
    // A nested field of the escalation parameters (or, without a sandbox, the parameter
    // itself, which the tool then does not take).
    let input = json!({"path": "x.txt", "content": "x",
        "sandboxPermissions": {"paths": [{"path": "/tmp/x", "access": "all", "scope": "exact"}]},
        "justification": "a test"});
    let text = refusal(&a.call("write", input));
    assert!(text.starts_with("invalid tool input: `sandboxPermissions"), "{text}");
}

#[test]
fn the_operators_member_is_never_named_among_a_tools_fields() {
    let a = Attack::new();
    for (tool, input) in [
        ("workspace_shell", json!({"command": "ls", "bogus": 1})),
        ("workspace_tests", json!({"operation": "detect", "bogus": 1})),
    ] {
        let text = refusal(&a.call_with(&["--agent", "workspace"], tool, input));
        assert!(text.contains("`bogus` is not a field this tool takes"), "{tool}: {text}");
        assert!(text.contains("`command`"), "{tool} lists its fields: {text}");
        assert!(!text.contains("$operator"), "{tool} names the operator's member: {text}");
    }
}
