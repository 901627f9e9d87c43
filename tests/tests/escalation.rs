//! Escalation through the file tools (seed 000 §7.5; the seed's gap: file tools with a write
//! grant were never tested): a grant widens one call, never hard-protected paths.

use std::sync::Arc;

use serde_json::json;
use toolhost::{ErrorCode, ToolResultStatus, ToolsetConfig, finalize};
use toolhost_tests::*;

#[tokio::test]
async fn a_write_grant_lets_write_reach_outside_but_never_the_data_dir() {
    let fx = Fixture::new();
    let session = fx.session().with_approver(Arc::new(toolhost::approval::AllowEscalations));
    let ts = finalize(&registry_with_test_tools().await, &ToolsetConfig::new(["write", "edit"]), session).unwrap();
    let outside = tempfile::tempdir_in("/var/tmp").unwrap();
    let target = outside.path().canonicalize().unwrap().join("granted.txt");
    let grant = |p: &std::path::Path| json!({"paths": [{"path": p, "access": "write", "scope": "exact"}]});

    // Without a grant: refused, marked as a sandbox denial.
    let r = call(&ts, &fx, "write", json!({"path": target, "content": "x\n"})).await;
    assert_eq!(r.error.as_ref().unwrap().code, ErrorCode::PermissionDenied, "{}", r.text());
    assert!(!target.exists());

    // With an approved grant: this call writes there.
    let r = call(&ts, &fx, "write", json!({"path": target, "content": "x\n", "sandboxPermissions": grant(&target), "justification": "the user asked"})).await;
    assert!(r.succeeded(), "{}", r.text());
    assert_eq!(std::fs::read_to_string(&target).unwrap(), "x\n");

    // The next call has no grant again.
    let r = call(&ts, &fx, "edit", json!({"filePath": target, "oldString": "x", "newString": "y"})).await;
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
