//! Which tools a run offers, through the built binary: the default agent's seven stay as they
//! were; `--agent workspace` adds the five workspace tools after them (three read-only, two
//! that ask before every run and take no escalation parameters); `--tools` serves
//! exactly the ids it lists, in order — built-in, workspace and `--tool` ones alike — and
//! refuses an id that is no tool, a repeated one, and `--agent` beside it. No workspace tool
//! shows the engine's `sandbox_root` to the model, and no third-party tool may take a
//! workspace tool's id.

use serde_json::Value;
use toolhost_tests::attack::Attack;
use toolhost_tests::test_components_dir;

const DEFAULT: [&str; 7] = ["read", "write", "edit", "grep", "glob", "list", "bash"];
const WORKSPACE: [&str; 5] = [
    "workspace_git",
    "workspace_markdown",
    "workspace_preview",
    "workspace_shell",
    "workspace_tests",
];

/// `toolhost <global> tools --json`: the definitions.
fn tools(a: &Attack, global: &[&str]) -> Vec<Value> {
    let out = a.run(global, &["tools", "--json"]);
    assert_eq!(out.code, Some(0), "{}", out.all());
    serde_json::from_str::<Vec<Value>>(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}", out.all()))
}

fn ids(defs: &[Value]) -> Vec<String> {
    defs.iter().map(|d| d["id"].as_str().unwrap().to_owned()).collect()
}

#[test]
fn the_default_agent_is_unchanged_and_the_workspace_agent_adds_five_tools() {
    let a = Attack::new();
    assert_eq!(ids(&tools(&a, &[])), DEFAULT);
    let workspace = tools(&a, &["--agent", "workspace"]);
    let expected: Vec<&str> = DEFAULT.iter().chain(&WORKSPACE).copied().collect();
    assert_eq!(ids(&workspace), expected);
    for (i, def) in workspace[7..].iter().enumerate() {
        let risk = if i < 3 { "read_only" } else { "process_execution" };
        assert_eq!(def["risk"], risk, "{def}");
        let schema = def["input_schema"].to_string() + &def["inputSchema"].to_string();
        assert!(!schema.contains("sandbox_root"), "the engine's field reached the model: {def}");
        for operator in
            ["$operator", "allow_shell_string", "command_whitelist", "sandboxPermissions"]
        {
            assert!(!schema.contains(operator), "{operator} reached the model: {def}");
        }
        if def["id"] != "workspace_shell" {
            assert!(def.to_string().contains("operation"), "{def}");
        }
    }
    // A workspace tool is not callable by an agent that was not given it.
    let out = a.call("workspace_git", serde_json::json!({"operation": "status"}));
    assert_eq!(out.json()["error"]["code"], "tool_not_found", "{}", out.all());
}

#[test]
fn tools_serves_exactly_the_listed_ids_in_order() {
    let a = Attack::new();
    let misbehave = test_components_dir().join("misbehave.wasm");
    let m = misbehave.to_str().unwrap();
    let defs = tools(&a, &["--tool", m, "--tools", "workspace_markdown, grep,misbehave,read"]);
    assert_eq!(ids(&defs), ["workspace_markdown", "grep", "misbehave", "read"]);
    // And only those are callable.
    let out = a.call_with(&["--tools", "read"], "list", serde_json::json!({"path": "."}));
    assert_eq!(out.json()["error"]["code"], "tool_not_found", "{}", out.all());
}

#[test]
fn tools_refuses_unknown_repeated_and_empty_ids_and_agent_beside_it() {
    let a = Attack::new();
    let out = a.run(&["--tools", "read,workspace_gti"], &["tools"]);
    assert_ne!(out.code, Some(0), "{}", out.all());
    assert!(
        out.stderr.contains("`workspace_gti`") && out.stderr.contains("workspace_git"),
        "the refusal names the id and the tools there are: {}",
        out.all()
    );
    let out = a.run(&["--tools", "read,grep,read"], &["tools"]);
    assert_ne!(out.code, Some(0), "{}", out.all());
    assert!(out.stderr.contains("`read` is selected more than once"), "{}", out.all());
    let out = a.run(&["--tools", "read,,grep"], &["tools"]);
    assert_eq!(out.code, Some(2), "{}", out.all());
    assert!(out.stderr.contains("empty"), "{}", out.all());
    let out = a.run(&["--agent", "explorer", "--tools", "read"], &["tools"]);
    assert_eq!(out.code, Some(2), "{}", out.all());
    assert!(out.stderr.contains("--agent") && out.stderr.contains("--tools"), "{}", out.all());
}

#[test]
fn the_help_names_the_workspace_agent_and_tools() {
    let a = Attack::new();
    let out = a.run(&[], &["--help"]);
    assert_eq!(out.code, Some(0), "{}", out.all());
    for word in ["workspace", "--tools", "workspace_git"] {
        assert!(out.stdout.contains(word), "--help does not mention {word}: {}", out.stdout);
    }
}
