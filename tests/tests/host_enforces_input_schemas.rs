//! The host checks a third-party tool's arguments against the input schema it declared, before
//! the component runs (docs/contract.md#the-input-contract): through the built binary, by
//! `call --tool`, an installed tool over MCP, and JSON Lines. `lenient` declares `path` a
//! string but answers whatever it gets ("took 5"); the host must refuse `{"path": 5}` with
//! `invalid_arguments`, a text starting `invalid tool input: ` that names the field and the
//! violation, and no instance run (no memory used). A built-in component's refusal (its own
//! parser's, one type with its schema) comes in the same words.

use serde_json::{Value, json};
use toolhost_tests::attack::{Attack, result_text};
use toolhost_tests::test_components_dir;

const REFUSED_BY_HOST: &str =
    "the host checked the arguments against the tool's input schema; the tool did not run";

fn lenient() -> String {
    test_components_dir().join("lenient.wasm").display().to_string()
}

fn assert_refused(text: &str) {
    assert!(text.starts_with("invalid tool input: `path`: expected a string, got 5; "), "{text}");
    assert!(text.ends_with(REFUSED_BY_HOST), "{text}");
    assert!(!text.contains("took"), "the component answered: {text}");
}

#[test]
fn a_call_that_breaks_the_declared_schema_never_reaches_the_component() {
    let a = Attack::new();
    let out = a.run(&["--tool", &lenient()], &["call", "lenient", r#"{"path": 5}"#, "--json"]);
    assert_eq!(out.code, Some(1), "{}", out.all());
    let result: Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(result["status"], "failed", "{result}");
    assert_eq!(result["error"]["code"], "invalid_arguments", "{result}");
    assert_refused(result["error"]["message"].as_str().unwrap());
    // No instance ran: no usage, no memory.
    assert!(result["usage"].is_null(), "an instance ran: {result}");

    // An unknown field and a missing required one, too.
    for (input, what) in [
        (r#"{"path": "a", "extra": 1}"#, "`extra` is not a field this tool takes"),
        (r#"{}"#, "`path` is missing; it is required"),
    ] {
        let out = a.run(&["--tool", &lenient()], &["call", "lenient", input, "--json"]);
        let result: Value = serde_json::from_str(&out.stdout).unwrap();
        let text = result["error"]["message"].as_str().unwrap_or_default().to_string();
        assert!(text.starts_with(&format!("invalid tool input: {what}; ")), "{text}");
    }

    // Arguments that meet the schema reach it.
    let out = a.run(&["--tool", &lenient()], &["call", "lenient", r#"{"path": "a.txt"}"#]);
    assert_eq!(out.code, Some(0), "{}", out.all());
    assert!(out.stdout.starts_with("took \"a.txt\""), "{}", out.stdout);
}

#[test]
fn installed_tools_are_checked_over_mcp_and_json_lines() {
    let a = Attack::new();
    let add = a.run(&[], &["tool", "add", &lenient(), "--yes"]);
    assert_eq!(add.code, Some(0), "{}", add.all());

    let mut mcp = a.mcp(&[]);
    let resp = mcp.call_tool("lenient", json!({"path": 5}));
    assert_eq!(resp["result"]["isError"], true, "{resp}");
    assert_refused(&result_text(&resp["result"]));

    let mut session = a.session(&[]);
    let result = session.call("1", "lenient", json!({"path": 5}));
    assert_eq!(result["error"]["code"], "invalid_arguments", "{result}");
    assert_refused(result["error"]["message"].as_str().unwrap());
}

#[test]
fn built_ins_get_the_same_check_in_the_same_words() {
    let a = Attack::new();
    let out = a.call("read", json!({"path": 5}));
    let result = out.json();
    assert_eq!(result["error"]["code"], "invalid_arguments", "{result}");
    assert_refused(result["error"]["message"].as_str().unwrap_or_default());
}
