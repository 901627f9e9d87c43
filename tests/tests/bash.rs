//! bash through the toolset (docs/contract.md#bash; docs/acceptance.md: sandbox, cancellation and
//! processes, bounded results): it runs only inside the sandbox made from this call's policy;
//! without a sandbox it does not run.

use std::sync::Arc;

use serde_json::json;
use toolhost::{ErrorCode, ToolResultStatus, ToolsetConfig, finalize};
use toolhost_tests::*;

#[tokio::test]
async fn acc_10c_bash_runs_under_the_policy_of_this_call() {
    let fx = Fixture::new();
    let ts = toolset(&fx, &["bash"]).await;
    let r =
        call(&ts, &fx, "bash", json!({"command": "echo ok > inside.txt && cat inside.txt"})).await;
    assert!(r.succeeded(), "{}", r.text());
    assert!(r.text().starts_with("ok\n[exit 0; duration "), "{}", r.text());
    // Outside the writable roots the kernel refuses, and the result says so.
    let r = call(&ts, &fx, "bash", json!({"command": "echo x > /etc/toolhost-test"})).await;
    assert!(r.succeeded(), "a non-zero exit is a completed call: {}", r.text());
    assert!(r.sandbox_denied, "{}", r.text());
    assert!(r.text().contains("[sandbox denied: "), "{}", r.text());
    assert!(!std::path::Path::new("/etc/toolhost-test").exists());
    // A write grant on this call widens only this call.
    // Not under /tmp: the system temp dir is writable in workspace-write mode.
    let outside = tempfile::tempdir_in("/var/tmp").unwrap();
    let target = outside.path().join("granted.txt");
    let call_ctx = fx.call("g").clone();
    let policy = call_ctx.sandbox_policy.with_grants([toolhost_policy::PathGrant {
        path: outside.path().canonicalize().unwrap(),
        access: toolhost_policy::Access::Write,
        scope: toolhost_policy::Scope::Subtree,
    }]);
    let mut granted = call_ctx;
    granted.sandbox_policy = policy;
    let cmd = format!("echo y > {}", target.display());
    let r = ts.call("bash", json!({"command": cmd}), granted).await;
    assert!(r.succeeded() && !r.sandbox_denied, "{}", r.text());
    assert!(target.exists());
    let r = call(
        &ts,
        &fx,
        "bash",
        json!({"command": format!("echo z > {}/other", outside.path().display())}),
    )
    .await;
    assert!(r.sandbox_denied, "the next call has no grant: {}", r.text());
}

#[tokio::test]
async fn acc_10d_bash_does_not_run_when_the_sandbox_is_unavailable() {
    let fx = Fixture::new();
    let broken = toolhost_sandbox::bwrap::Bubblewrap::new().with_bwrap("/nonexistent/bwrap");
    let session = fx.session().with_sandbox(Arc::new(broken));
    let ts = finalize(
        &registry_with_test_tools().await,
        &ToolsetConfig::new(["bash", "misbehave"]),
        session,
    )
    .unwrap();
    let marker = fx.root().join("ran");
    let r = ts
        .call("bash", json!({"command": format!("touch {}", marker.display())}), fx.call("c"))
        .await;
    assert_eq!(r.error.as_ref().unwrap().code, ErrorCode::SandboxUnavailable, "{}", r.text());
    assert!(!r.sandbox_denied, "a runner failure is not a denial (10e)");
    assert!(!marker.exists(), "bash did not run");
}

#[tokio::test]
async fn acc_10f_escalation_parameters_disappear_when_the_sandbox_is_unavailable() {
    let fx = Fixture::new();
    let reg = registry_with_test_tools().await;
    let ids = ["bash"];
    let with = finalize(&reg, &ToolsetConfig::new(ids), fx.session()).unwrap();
    let props = &with.definitions()[0].input_schema["properties"];
    assert!(props.get("sandboxPermissions").is_some() && props.get("justification").is_some());
    let broken = toolhost_sandbox::bwrap::Bubblewrap::new().with_bwrap("/nonexistent/bwrap");
    let without =
        finalize(&reg, &ToolsetConfig::new(ids), fx.session().with_sandbox(Arc::new(broken)))
            .unwrap();
    let schema = &without.definitions()[0].input_schema;
    assert!(schema["properties"].get("sandboxPermissions").is_none());
    assert!(schema["properties"].get("justification").is_none());
    let text = schema.to_string();
    assert!(!text.contains("PathPermission") && !text.contains("SandboxPermissions"), "{text}");
    // Read-only tools never get them.
    let ro = finalize(&reg, &ToolsetConfig::new(["misbehave"]), fx.session()).unwrap();
    assert!(ro.definitions()[0].input_schema["properties"].get("sandboxPermissions").is_none());
}

#[tokio::test]
async fn an_unapproved_escalation_is_denied_and_does_not_run() {
    let fx = Fixture::new();
    let ts = toolset(&fx, &["bash"]).await;
    let outside = tempfile::tempdir_in("/var/tmp").unwrap();
    let target = outside.path().join("x");
    let r = call(&ts, &fx, "bash", json!({
        "command": format!("echo y > {}", target.display()),
        "sandboxPermissions": {"paths": [{"path": outside.path(), "access": "write", "scope": "subtree"}]},
        "justification": "test"
    }))
    .await;
    assert_eq!(r.status, ToolResultStatus::Denied, "{}", r.text());
    assert!(!target.exists());
    let r = call(&ts, &fx, "bash", json!({
        "command": "true",
        "sandboxPermissions": {"paths": [{"path": "/tmp", "access": "write", "scope": "subtree"}]},
    }))
    .await;
    assert_eq!(r.error.unwrap().code, ErrorCode::InvalidArguments, "justification is required");
}

#[tokio::test]
async fn an_approved_escalation_never_unlocks_hard_protected_paths() {
    let fx = Fixture::new();
    let session = fx.session().with_approver(Arc::new(toolhost::approval::AllowApprovals));
    let ts = finalize(&registry_with_test_tools().await, &ToolsetConfig::new(["bash"]), session)
        .unwrap();
    let spill = fx.data.path().join("spill");
    std::fs::create_dir_all(&spill).unwrap();
    let r = call(&ts, &fx, "bash", json!({
        "command": format!("echo pwned > {}/x", spill.display()),
        "sandboxPermissions": {"paths": [{"path": fx.data.path(), "access": "write", "scope": "subtree"}]},
        "justification": "test"
    }))
    .await;
    assert!(!spill.join("x").exists(), "{}", r.text());
    let hooks = fx.root().join(".git/hooks");
    std::fs::create_dir_all(&hooks).unwrap();
    let r = call(&ts, &fx, "bash", json!({"command": "echo x > .git/hooks/pre-commit"})).await;
    assert!(!hooks.join("pre-commit").exists(), "{}", r.text());
    assert!(r.sandbox_denied || r.text().contains("Read-only"), "{}", r.text());
}

#[tokio::test]
async fn non_zero_exit_is_a_completed_tool_result() {
    let fx = Fixture::new();
    fx.write("sandbox-denied.txt", "no match here\n");
    let ts = toolset(&fx, &["bash"]).await;
    for cmd in
        ["false", "exit 7", "grep nothing sandbox-denied.txt", "cat sandbox-denied.txt; exit 2"]
    {
        let r = call(&ts, &fx, "bash", json!({"command": cmd})).await;
        assert_eq!(r.status, ToolResultStatus::Succeeded, "{cmd}: {}", r.text());
        assert!(!r.sandbox_denied, "{cmd} is not a denial: {}", r.text());
    }
    let r = call(&ts, &fx, "bash", json!({"command": "exit 7"})).await;
    assert!(r.text().starts_with("[exit 7; duration "), "{}", r.text());
}

#[tokio::test]
async fn acc_25_long_output_keeps_head_and_tail_and_spills_the_rest() {
    let fx = Fixture::new();
    let ts = toolset(&fx, &["bash", "read"]).await;
    let r = call(&ts, &fx, "bash", json!({"command": "seq 1 20000"})).await;
    let text = r.text();
    let full: String = (1..=20000).map(|i| format!("{i}\n")).collect();
    let (head, rest) = text.split_once("\n... (").unwrap();
    assert_eq!(head.len(), 2048, "head is 2 KiB");
    assert!(full.starts_with(head));
    let (note, tail) = rest.split_once(")\n").unwrap();
    let omitted: usize = note.split(' ').next().unwrap().parse().unwrap();
    let tail = tail.rsplit_once("\n[exit 0").unwrap().0;
    assert_eq!(omitted, full.len() - 2048 - 14 * 1024);
    assert!(full.ends_with(&format!("{tail}\n")) || full.ends_with(tail));
    let path = note.split("Full output saved at ").nth(1).unwrap().split(" — ").next().unwrap();
    assert_eq!(std::fs::read_to_string(path).unwrap(), full, "the spill holds everything");
    assert!(path.starts_with(fx.data.path().to_str().unwrap()));
    // acc 26: readable with read; bash cannot write it.
    let r = call(&ts, &fx, "read", json!({"path": path, "limit": 2})).await;
    assert!(r.succeeded() && r.text().starts_with("1\t1\n2\t2"), "{}", r.text());
    let r = call(&ts, &fx, "bash", json!({"command": format!("echo x >> {path}")})).await;
    assert!(r.sandbox_denied, "{}", r.text());
    assert_eq!(std::fs::read_to_string(path).unwrap(), full);
}

#[tokio::test]
async fn cancellation_preserves_partial_output_and_kills_the_group() {
    let fx = Fixture::new();
    let ts = toolset(&fx, &["bash"]).await;
    // Cancel once "started" has come out (a loaded machine can take a while to start bwrap).
    let (tx, mut rx) = tokio::sync::mpsc::channel(64);
    let ctx = fx.call("c").with_progress(tx);
    let cancel = ctx.cancel.clone();
    tokio::spawn(async move {
        while let Some(progress) = rx.recv().await {
            if matches!(&progress, toolhost::ToolProgress::Stdout { chunk } if chunk.contains("started"))
            {
                break;
            }
        }
        cancel.cancel();
    });
    let r = ts.call("bash", json!({"command": "echo started; sleep 1000 & wait"}), ctx).await;
    assert_eq!(r.status, ToolResultStatus::Cancelled, "{}", r.text());
    assert!(r.text().starts_with("started\n"), "{}", r.text());
    assert!(r.text().contains("[cancelled; duration "), "{}", r.text());
}

#[tokio::test]
async fn timeout_preserves_partial_output() {
    let fx = Fixture::new();
    let ts = toolset(&fx, &["bash"]).await;
    // 3 s: room for bwrap and bash to start and echo on a loaded machine.
    let r = call(&ts, &fx, "bash", json!({"command": "echo begun; sleep 1000", "timeoutMs": 3000}))
        .await;
    assert_eq!(r.status, ToolResultStatus::Failed);
    assert_eq!(r.error.as_ref().unwrap().code, ErrorCode::Timeout);
    assert!(r.text().starts_with("begun\n[timed out after 3000 ms; duration "), "{}", r.text());
}

#[tokio::test]
async fn inspect_reports_the_command() {
    let fx = Fixture::new();
    let ts = toolset(&fx, &["bash"]).await;
    let p = ts.prepare("bash", &json!({"command": "ls -la"}), fx.call("p")).await.unwrap();
    assert_eq!(p.inspection, toolhost::CallInspection::Runs("ls -la".into()));
    assert_eq!(p.danger, None);
    let p = ts
        .prepare("bash", &json!({"command": "git push --force origin main"}), fx.call("p"))
        .await
        .unwrap();
    assert!(p.danger.as_deref().is_some_and(|d| d.contains("force")), "{p:?}");
    let p = ts.prepare("bash", &json!({"command": "rm -rf /"}), fx.call("p")).await.unwrap();
    assert!(p.danger.is_some(), "{p:?}");
    // With sandboxPermissions, the normalised escalation is reported before anything runs.
    let p = ts
        .prepare("bash", &json!({"command": "true", "sandboxPermissions": {"paths": [{"path": "/var/tmp", "access": "write", "scope": "subtree"}]}, "justification": "j"}), fx.call("p"))
        .await
        .unwrap();
    let e = p.escalation.expect("escalation");
    assert_eq!(e.justification, "j");
    assert_eq!(e.grants[0].path, std::path::PathBuf::from("/var/tmp").canonicalize().unwrap());
}

#[tokio::test]
async fn an_unavailable_sandbox_reports_no_dangerous_command_and_no_escalation() {
    let fx = Fixture::new();
    let broken = toolhost_sandbox::bwrap::Bubblewrap::new().with_bwrap("/nonexistent/bwrap");
    let ts = finalize(
        &registry_with_test_tools().await,
        &ToolsetConfig::new(["bash"]),
        fx.session().with_sandbox(Arc::new(broken)),
    )
    .unwrap();
    let p = ts.prepare("bash", &json!({"command": "rm -rf /"}), fx.call("p")).await.unwrap();
    assert_eq!(p.danger, None);
    assert_eq!(p.escalation, None);
}

#[tokio::test]
async fn a_nested_repositorys_hooks_are_not_writable_from_bash() {
    let fx = Fixture::new();
    std::fs::create_dir_all(fx.root().join("vendor/lib/.git/hooks")).unwrap();
    let ts = toolset(&fx, &["bash", "write"]).await;
    let r =
        call(&ts, &fx, "bash", json!({"command": "echo evil > vendor/lib/.git/hooks/post-merge"}))
            .await;
    assert!(!fx.root().join("vendor/lib/.git/hooks/post-merge").exists(), "{}", r.text());
    let r = call(
        &ts,
        &fx,
        "write",
        json!({"path": "vendor/lib/.git/hooks/post-merge", "content": "evil"}),
    )
    .await;
    assert_eq!(r.error.unwrap().code, ErrorCode::PermissionDenied);
}
