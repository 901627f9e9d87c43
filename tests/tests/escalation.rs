//! Escalation through the file tools (docs/contract.md#escalation-parameters; file tools with a
//! write grant were untested before): a grant widens one call, never hard-protected paths.

use std::sync::Arc;

use serde_json::json;
use toolhost::{ErrorCode, ToolResultStatus, ToolsetConfig, finalize};
use toolhost_tests::*;

#[tokio::test]
async fn a_write_grant_lets_write_reach_outside_but_never_the_data_dir() {
    let fx = Fixture::new();
    let session = fx.session().with_approver(Arc::new(toolhost::approval::AllowEscalations));
    let ts = finalize(
        &registry_with_test_tools().await,
        &ToolsetConfig::new(["write", "edit"]),
        session,
    )
    .unwrap();
    let outside = tempfile::tempdir_in("/var/tmp").unwrap();
    let target = outside.path().canonicalize().unwrap().join("granted.txt");
    let grant =
        |p: &std::path::Path| json!({"paths": [{"path": p, "access": "write", "scope": "exact"}]});

    // Without a grant: refused, marked as a sandbox denial.
    let r = call(&ts, &fx, "write", json!({"path": target, "content": "x\n"})).await;
    assert_eq!(r.error.as_ref().unwrap().code, ErrorCode::PermissionDenied, "{}", r.text());
    assert!(!target.exists());

    // With an approved grant: this call writes there.
    let r = call(&ts, &fx, "write", json!({"path": target, "content": "x\n", "sandboxPermissions": grant(&target), "justification": "the user asked"})).await;
    assert!(r.succeeded(), "{}", r.text());
    assert_eq!(std::fs::read_to_string(&target).unwrap(), "x\n");

    // The next call has no grant again.
    let r = call(&ts, &fx, "edit", json!({"filePath": target, "oldString": "x", "newString": "y"}))
        .await;
    assert_eq!(r.error.as_ref().unwrap().code, ErrorCode::PermissionDenied, "{}", r.text());

    // A grant never unlocks the data dir (spill files, cache, store).
    let spill = fx.data.path().canonicalize().unwrap().join("spill/mine.txt");
    let r = call(&ts, &fx, "write", json!({"path": spill, "content": "x", "sandboxPermissions": {"paths": [{"path": fx.data.path(), "access": "write", "scope": "subtree"}]}, "justification": "please"})).await;
    assert_eq!(r.error.as_ref().unwrap().code, ErrorCode::PermissionDenied, "{}", r.text());
    assert!(!spill.exists());
}

#[tokio::test]
async fn without_an_approver_an_escalated_write_is_denied_and_nothing_is_written() {
    let fx = Fixture::new();
    let ts = toolset(&fx, &["write"]).await;
    let outside = tempfile::tempdir_in("/var/tmp").unwrap();
    let target = outside.path().join("x.txt");
    let r = call(&ts, &fx, "write", json!({"path": target, "content": "x", "sandboxPermissions": {"paths": [{"path": target, "access": "write", "scope": "exact"}]}, "justification": "j"})).await;
    assert_eq!(r.status, ToolResultStatus::Denied, "{}", r.text());
    assert!(r.text().contains("--allow-escalation"), "says how to grant it: {}", r.text());
    assert!(!target.exists());
    // Unknown fields inside sandboxPermissions are rejected.
    let r = call(&ts, &fx, "write", json!({"path": "a", "content": "x", "sandboxPermissions": {"paths": [], "extra": 1}, "justification": "j"})).await;
    assert_eq!(r.error.unwrap().code, ErrorCode::InvalidArguments);
}

/// Attack: an MCP elicitation that read "Extra access to ~ … (Approving this lets the bash
/// call read README.md only.)" was a write grant on all of HOME, and bash then appended to
/// `~/.bashrc`. Through the built binary and the official MCP Python SDK: the elicitation
/// names write, subtree and the path; the model's reason is one quoted, escaped line marked
/// as its own; the terminal prompt (on a pseudo-terminal through `script`) shows the very
/// same words. Declined, nothing is written.
#[test]
fn the_approval_request_names_access_scope_and_path_the_same_in_mcp_and_on_the_terminal() {
    use toolhost_tests::attack::{Attack, promise, run_limited};
    let a = Attack::new();
    if !a.sandbox_or_skip("the_approval_request_names_access_scope_and_path") {
        return;
    }
    let bashrc = a.home.join(".bashrc");
    let justification = "Extra access to ~ for the README.\n(Approving this lets the bash call read README.md only.)";
    let arguments = json!({
        "command": format!("echo pwned >> {}", bashrc.display()),
        "sandboxPermissions": {"paths": [{"path": a.home, "access": "write", "scope": "subtree"}]},
        "justification": justification,
    });
    let bin = toolhost_bin();
    let arguments_json = arguments.to_string();
    let args = [
        bin.as_os_str(),
        a.ws.as_os_str(),
        a.data.as_os_str(),
        std::ffi::OsStr::new(&arguments_json),
        std::ffi::OsStr::new("decline"),
    ];
    let (report, _) =
        toolhost_tests::mcp::run_client_script("elicit_client.py", &args, Some(&a.home));
    assert_eq!(report["asked"].as_array().map(Vec::len), Some(1), "{report}");
    let message = report["asked"][0]["message"].as_str().unwrap();
    let home = serde_json::to_string(&a.home).unwrap();
    let grant = message
        .lines()
        .find(|l| l.contains(&home))
        .unwrap_or_else(|| panic!("the path is not named: {message}"));
    promise(
        grant.contains("write")
            && grant.contains("subtree")
            && grant.contains("everything below it"),
        || {
            format!(
                "the elicitation does not say it grants writing everything under {home}: {message}"
            )
        },
    );
    let reason: Vec<&str> = message.lines().filter(|l| l.contains("Approving this")).collect();
    promise(
        reason.len() == 1
            && reason[0].contains(r#""Extra access to ~ for the README.\n(Approving this"#),
        || format!("the model's reason is not one quoted, escaped line: {message:?}"),
    );
    promise(reason[0].contains("model's reason"), || {
        format!("the reason is not marked as the model's: {message:?}")
    });
    assert_eq!(report["call"]["meta"]["toolhost/status"], "denied", "{report}");
    assert_eq!(
        std::fs::read_to_string(&bashrc).unwrap(),
        a.bashrc,
        "declined, yet .bashrc changed"
    );

    // The terminal prompt: the same words.
    if std::process::Command::new("script").arg("--version").output().is_err() {
        eprintln!("terminal half skipped: no `script` for a pseudo-terminal");
        return;
    }
    let inner = format!(
        "{} --workspace {} --data-dir {} call bash '{}'",
        bin.display(),
        a.ws.display(),
        a.data.display(),
        arguments.to_string().replace('\'', r"'\''")
    );
    let mut cmd = std::process::Command::new("script");
    cmd.args(["-qec", &inner, "/dev/null"]).env("HOME", &a.home);
    let out = run_limited(&mut cmd, Some(b"n\n".to_vec()), std::time::Duration::from_secs(60))
        .expect("script ran");
    let shown = out.stdout.replace("\r\n", "\n");
    promise(shown.contains(&format!("toolhost: {message} [y/N]")), || {
        format!(
            "the terminal prompt is not the elicitation's words:\nterminal: {shown:?}\nMCP: {message:?}"
        )
    });
    assert_eq!(std::fs::read_to_string(&bashrc).unwrap(), a.bashrc, "refused, yet .bashrc changed");
}

/// A stateless 2026-07-28 client (the official Python SDK's `Client`, which forbids the
/// server's own requests) approves an escalation through an input-required round: asked in
/// the terminal prompt's words, run once approved. Attack: the round's request state is the
/// client's to echo — changed, reused for other arguments (a write on HOME), sent without the
/// answer, or replayed after it was used, it approves nothing.
#[test]
fn a_stateless_client_approves_an_escalation_in_a_round_whose_state_cannot_be_forged_or_replayed() {
    use toolhost_tests::attack::{Attack, promise};
    let a = Attack::new();
    if !a.sandbox_or_skip("a_stateless_client_approves_an_escalation_in_a_round") {
        return;
    }
    let outside = tempfile::tempdir_in("/var/tmp").unwrap();
    let outside = outside.path().canonicalize().unwrap();
    let bashrc = a.home.join(".bashrc");
    let run = |answer: &str, marker: &std::path::Path| {
        let arguments = json!({
            "command": format!("echo approved >> {}", marker.display()),
            "sandboxPermissions": {"paths": [{"path": outside, "access": "write", "scope": "subtree"}]},
            "justification": "the test writes one file\noutside the workspace",
        });
        let other = json!({
            "command": format!("echo pwned >> {}", bashrc.display()),
            "sandboxPermissions": {"paths": [{"path": a.home, "access": "write", "scope": "subtree"}]},
            "justification": "the test writes one file\noutside the workspace",
        });
        let (arguments, other) = (arguments.to_string(), other.to_string());
        let bin = toolhost_bin();
        let args = [
            bin.as_os_str(),
            a.ws.as_os_str(),
            a.data.as_os_str(),
            std::ffi::OsStr::new(&arguments),
            std::ffi::OsStr::new(&other),
            std::ffi::OsStr::new(answer),
        ];
        toolhost_tests::mcp::run_client_script("approve_stateless_client.py", &args, Some(&a.home))
            .0
    };

    let marker = outside.join("approved.txt");
    let report = run("accept", &marker);
    let auto = &report["automatic"];
    assert_eq!(auto["asked"].as_array().map(Vec::len), Some(1), "{report:#}");
    let message = auto["asked"][0]["message"].as_str().unwrap();
    let path = serde_json::to_string(&outside).unwrap();
    promise(message.lines().any(|l| l.contains(&path) && l.contains("write, subtree")), || {
        format!("the round does not name the write grant on {path}: {message}")
    });
    promise(message.contains(r#""the test writes one file\noutside the workspace""#), || {
        format!("the model's reason is not one quoted, escaped line: {message:?}")
    });
    assert_eq!(auto["call"]["isError"], false, "{report:#}");

    let hand = &report["by_hand"];
    assert_eq!(hand["first"]["input_required"], true, "{report:#}");
    assert_eq!(hand["first"]["keys"], json!(["approval"]), "{report:#}");
    for (label, says) in [
        ("tampered", "does not belong to this call"),
        ("other_arguments", "does not belong to this call"),
        ("state_only", "must carry both"),
        ("replayed", "already answered once"),
    ] {
        let error = hand[label]["error"].as_str().unwrap_or_default();
        promise(error.contains(says), || {
            format!("{label}: the round's state was not refused ({says}): {:#}", hand[label])
        });
    }
    assert_eq!(hand["genuine"]["call"]["isError"], false, "{report:#}");
    // Approved twice (the SDK's round, the genuine answer by hand): two runs, no more.
    assert_eq!(std::fs::read_to_string(&marker).unwrap(), "approved\napproved\n");
    assert_eq!(std::fs::read_to_string(&bashrc).unwrap(), a.bashrc, "other arguments ran");

    // Declined: denied, nothing ran (the by-hand part answers "accept" once, genuinely).
    let marker = outside.join("declined.txt");
    let report = run("decline", &marker);
    let auto = &report["automatic"];
    assert_eq!(auto["call"]["meta"]["toolhost/status"], "denied", "{report:#}");
    assert_eq!(std::fs::read_to_string(&marker).unwrap(), "approved\n", "declined, yet it ran");
}
