//! A refusal advises only what the tool called can take. `read`, `list` and
//! `grep` (and any tool whose schema has no `sandboxPermissions`) are never told to retry
//! with `sandboxPermissions`; `write`, whose schema takes them when the sandbox works, still
//! is. And when a person was asked and said no, the model is told that the user declined —
//! not that nobody approved it, and not how to get around the answer.

use std::process::Command;

use serde_json::{Value, json};
use toolhost_tests::attack::{Attack, Session};

const NO_GRANT: &str =
    "This tool cannot ask for access beyond its sandbox; if the task needs it, ask the user.";

fn text(result: &Value) -> String {
    result["error"]["message"].as_str().unwrap_or_default().to_string()
        + result["content"][0]["text"].as_str().unwrap_or_default()
}

#[test]
fn read_list_and_grep_are_never_told_to_send_sandbox_permissions() {
    let a = Attack::new();
    let key = a.secret(".ssh/id_rsa").path.display().to_string();
    let ssh = a.home.join(".ssh").display().to_string();
    for (tool, input) in [
        ("read", json!({"path": key})),
        ("list", json!({"path": ssh})),
        ("grep", json!({"pattern": "KEY", "path": key})),
    ] {
        let out = a.call(tool, input);
        let result = out.json();
        let said = text(&result);
        assert!(said.contains("credential location"), "{tool}: {}", out.all());
        assert!(!said.contains("sandboxPermissions"), "{tool} is told what it cannot take: {said}");
        assert!(said.contains(NO_GRANT), "{tool}: {said}");
    }
    // `write`, whose schema takes them when the sandbox works, is still told how to ask.
    if !a.sandbox_or_skip("write_which_takes_sandbox_permissions_is_still_told_how_to_ask") {
        return;
    }
    let outside = a.outside_dir("elsewhere").join("x.txt").display().to_string();
    let result = a.call("write", json!({"path": outside, "content": "x"})).json();
    let said = text(&result);
    assert!(said.contains("retry with sandboxPermissions"), "{said}");
    assert!(!said.contains(NO_GRANT), "{said}");
}

/// `session --client-approves` with `global` options.
fn session(a: &Attack, global: &[&str]) -> Session {
    let mut cmd: Command = a.command(global);
    cmd.args(["session", "--client-approves"]);
    Session::spawn(cmd)
}

/// Call `tool` with `input`, answer its question no, and return its result.
fn declined(a: &Attack, global: &[&str], tool: &str, input: Value) -> Value {
    let mut s = session(a, global);
    s.send(&json!({"id": "c1", "tool": tool, "arguments": input}));
    let asked = s.next_final();
    assert!(asked["approval"]["question"].is_string(), "nobody was asked: {asked}");
    s.send(&json!({"id": "a1", "approve": "c1", "allow": false}));
    let (first, second) = (s.next_final(), s.next_final());
    let ended = if first["id"] == "c1" { first } else { second };
    ended["result"].clone()
}

#[test]
fn a_declined_escalation_or_run_says_the_user_declined_and_nothing_more() {
    let a = Attack::new();
    if !a.sandbox_or_skip("a_declined_escalation_or_run_says_the_user_declined") {
        return;
    }
    let outside = a.outside_dir("elsewhere");
    let marker = outside.join("ran.txt");
    let escalation = json!({
        "command": format!("echo ran > {}", marker.display()),
        "sandboxPermissions": {"paths": [{"path": outside, "access": "write", "scope": "subtree"}]},
        "justification": "the test writes one file outside the workspace",
    });
    let result = declined(&a, &[], "bash", escalation);
    assert_eq!(result["status"], "denied", "{result}");
    let said = text(&result);
    assert!(
        said.starts_with("The user declined the bash call's request for extra access to "),
        "{said}"
    );
    for advice in ["nobody", "--allow-escalation", "ask the user", "grant it"] {
        assert!(!said.contains(advice), "says more than that the user declined: {said}");
    }
    assert!(!marker.exists(), "bash ran after the user declined");

    let result = declined(
        &a,
        &["--tools", "workspace_shell"],
        "workspace_shell",
        json!({"command": "true"}),
    );
    let said = text(&result);
    assert!(
        said.starts_with("The user declined the workspace_shell call's run of `true`"),
        "{said}"
    );
    assert!(!said.contains("nobody") && !said.contains("Ask the user"), "{said}");
}
