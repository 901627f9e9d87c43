//! Results and artifacts (docs/acceptance.md): undo and reapply of file changes
//! (docs/contract.md#file-changes-and-undo), the session store, and what the user sees after a
//! reload or in the crash window.

use std::process::Command;

use serde_json::{Value, json};
use toolhost::result::{FileChange, ToolResultArtifact};
use toolhost::session::SessionRuntime;
use toolhost::store::Store;
use toolhost::undo::{self, UndoError};
use toolhost::{FinalizedToolset, SandboxPolicy, ToolResult};
use toolhost_tests::jsonl::{SessionProc, change_of};
use toolhost_tests::*;

async fn call_as(
    ts: &FinalizedToolset,
    fx: &Fixture,
    id: &str,
    tool: &str,
    input: Value,
) -> ToolResult {
    let r = ts.call(tool, input, fx.call(id)).await;
    assert!(r.succeeded(), "{id}: {}", r.text());
    r
}

fn change(r: &ToolResult) -> FileChange {
    match r.artifacts.first() {
        Some(ToolResultArtifact::FileChange(c)) => c.clone(),
        None => panic!("no artifact: {}", r.text()),
    }
}

fn undone(mut changes: Vec<FileChange>) -> Vec<FileChange> {
    for c in &mut changes {
        c.undone = true;
    }
    changes
}

fn policy(fx: &Fixture) -> SandboxPolicy {
    SandboxPolicy::workspace_write(fx.root())
}

#[tokio::test]
async fn undo_refuses_to_overwrite_an_external_change() {
    let fx = Fixture::new();
    let f = fx.write("a.txt", "one\n");
    let ts = toolset(&fx, &["read", "edit"]).await;
    call_as(&ts, &fx, "r1", "read", json!({"path": "a.txt"})).await;
    let c = change(
        &call_as(
            &ts,
            &fx,
            "e1",
            "edit",
            json!({"filePath": "a.txt", "oldString": "one", "newString": "two"}),
        )
        .await,
    );
    std::fs::write(&f, "user's own text\n").unwrap();
    let e = undo::undo(std::slice::from_ref(&c), ts.session(), &policy(&fx)).await.unwrap_err();
    assert!(matches!(&e, UndoError::Conflict { path, .. } if path == "a.txt"), "{e}");
    assert!(e.to_string().contains("nothing was written"), "{e}");
    assert_eq!(std::fs::read_to_string(&f).unwrap(), "user's own text\n");
    // A deleted file is a conflict too, and is not re-created.
    std::fs::remove_file(&f).unwrap();
    let e = undo::undo(&[c], ts.session(), &policy(&fx)).await.unwrap_err();
    assert!(matches!(e, UndoError::Conflict { .. }), "{e}");
    assert!(!f.exists());
}

#[tokio::test]
async fn reapply_refuses_to_overwrite_a_change_made_after_undo() {
    let fx = Fixture::new();
    let f = fx.write("a.txt", "one\n");
    let ts = toolset(&fx, &["read", "edit", "write"]).await;
    call_as(&ts, &fx, "r1", "read", json!({"path": "a.txt"})).await;
    let c = change(
        &call_as(
            &ts,
            &fx,
            "e1",
            "edit",
            json!({"filePath": "a.txt", "oldString": "one", "newString": "two"}),
        )
        .await,
    );
    undo::undo(std::slice::from_ref(&c), ts.session(), &policy(&fx)).await.unwrap();
    assert_eq!(std::fs::read_to_string(&f).unwrap(), "one\n");
    std::fs::write(&f, "edited after the undo\n").unwrap();
    let e = undo::reapply(&undone(vec![c]), ts.session(), &policy(&fx)).await.unwrap_err();
    assert!(matches!(&e, UndoError::Conflict { path, .. } if path == "a.txt"), "{e}");
    assert_eq!(std::fs::read_to_string(&f).unwrap(), "edited after the undo\n");
    // Reapplying a creation refuses when the file exists again.
    let created = change(
        &call_as(&ts, &fx, "w1", "write", json!({"path": "new.txt", "content": "n\n"})).await,
    );
    undo::undo(std::slice::from_ref(&created), ts.session(), &policy(&fx)).await.unwrap();
    fx.write("new.txt", "someone else's\n");
    let e = undo::reapply(&undone(vec![created]), ts.session(), &policy(&fx)).await.unwrap_err();
    assert!(e.to_string().contains("already exists"), "{e}");
    assert_eq!(std::fs::read_to_string(fx.root().join("new.txt")).unwrap(), "someone else's\n");
}

#[tokio::test]
async fn undo_reverses_multiple_changes_to_the_same_file_in_reverse_order() {
    let fx = Fixture::new();
    let ts = toolset(&fx, &["write", "edit"]).await;
    let created = change(
        &call_as(&ts, &fx, "w1", "write", json!({"path": "src/new.rs", "content": "fn a() {}\n"}))
            .await,
    );
    let edited = change(
        &call_as(
            &ts,
            &fx,
            "e1",
            "edit",
            json!({"filePath": "src/new.rs", "oldString": "a()", "newString": "b()"}),
        )
        .await,
    );
    let f = fx.root().join("src/new.rs");
    assert_eq!(std::fs::read_to_string(&f).unwrap(), "fn b() {}\n");
    // The batch in the order made; undo runs it newest first, so create-then-edit deletes.
    undo::undo(&[created, edited], ts.session(), &policy(&fx)).await.unwrap();
    assert!(!f.exists(), "undoing create-then-edit deletes the file");
}

#[tokio::test]
async fn reapply_restores_chained_changes_in_forward_order() {
    let fx = Fixture::new();
    let ts = toolset(&fx, &["write", "edit"]).await;
    let created = change(
        &call_as(&ts, &fx, "w1", "write", json!({"path": "new.txt", "content": "1\n"})).await,
    );
    let e1 = change(
        &call_as(
            &ts,
            &fx,
            "e1",
            "edit",
            json!({"filePath": "new.txt", "oldString": "1", "newString": "2"}),
        )
        .await,
    );
    let e2 = change(
        &call_as(
            &ts,
            &fx,
            "e2",
            "edit",
            json!({"filePath": "new.txt", "oldString": "2", "newString": "3"}),
        )
        .await,
    );
    let batch = vec![created, e1, e2];
    undo::undo(&batch, ts.session(), &policy(&fx)).await.unwrap();
    let f = fx.root().join("new.txt");
    assert!(!f.exists());
    undo::reapply(&undone(batch.clone()), ts.session(), &policy(&fx)).await.unwrap();
    assert_eq!(std::fs::read_to_string(&f).unwrap(), "3\n");
    // Given out of order, the chain does not line up: a conflict, and nothing written.
    std::fs::remove_file(&f).unwrap();
    let shuffled = undone(vec![batch[1].clone(), batch[0].clone(), batch[2].clone()]);
    let e = undo::reapply(&shuffled, ts.session(), &policy(&fx)).await.unwrap_err();
    assert!(matches!(e, UndoError::Conflict { .. }), "{e}");
    assert!(!f.exists());
}

fn toolhost(fx: &Fixture) -> Command {
    let mut cmd = Command::new(toolhost_bin());
    cmd.arg("--workspace").arg(fx.root()).arg("--data-dir").arg(fx.data.path());
    toolhost_tests::postgres::store_env(&mut cmd, fx.data.path());
    cmd
}

#[test]
fn after_the_session_exits_changes_shows_the_exact_hunks_and_the_cli_undoes_and_reapplies() {
    let fx = Fixture::new();
    let f = fx.write("a.txt", "1\n2\n3\n4\n5\n6\n7\n8\n9\n");
    let mut s = SessionProc::start(&fx, &["--session", "reload"]);
    s.call("c1", "read", json!({"path": "a.txt"}));
    let r =
        s.call("c2", "edit", json!({"filePath": "a.txt", "oldString": "5", "newString": "five"}));
    let artifact = change_of(&r).clone();
    let (status, _, stderr) = s.finish();
    assert!(status.success(), "{stderr}");

    // Reload: a new process reads the store.
    let out = toolhost(&fx).args(["changes", "--json"]).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let listed: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(listed, json!([artifact]), "the record is the artifact, byte for byte");
    assert_eq!(
        listed[0]["hunks"][0]["lines"],
        json!([" 2", " 3", " 4", "-5", "+five", " 6", " 7", " 8"])
    );
    let out = toolhost(&fx).args(["--session", "other", "changes", "--json"]).output().unwrap();
    assert_eq!(serde_json::from_slice::<Value>(&out.stdout).unwrap(), json!([]));
    // The terminal listing: not a TTY here, so no colour codes.
    let out = toolhost(&fx).args(["changes"]).output().unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    let id = artifact["changeId"].as_str().unwrap();
    assert!(text.contains(&format!("{id} a.txt (modified, +1 -1)")), "{text}");
    assert!(text.contains("@@ -2,7 +2,7 @@\n 2\n 3\n 4\n-5\n+five\n"), "{text}");
    assert!(!text.contains('\x1b'), "{text:?}");

    // Undo and reapply from the store, after the agent has gone.
    let out = toolhost(&fx).args(["undo", id]).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(std::fs::read_to_string(&f).unwrap(), "1\n2\n3\n4\n5\n6\n7\n8\n9\n");
    let out = toolhost(&fx).args(["changes", "--json"]).output().unwrap();
    assert_eq!(serde_json::from_slice::<Value>(&out.stdout).unwrap()[0]["undone"], true);
    let out = toolhost(&fx).args(["undo", id]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("already undone"));
    let out = toolhost(&fx).args(["reapply", id]).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(std::fs::read_to_string(&f).unwrap().contains("five"));
    let out = toolhost(&fx).args(["undo", "nope"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("no recorded file change has the id nope")
    );
}

/// The crash window (docs/sessions.md#what-is-not-atomic-the-crash-window) is closed for a
/// store that cannot record: a change is recorded as pending before it is written, so when
/// the store is gone the write is refused, nothing is written, and the call says why.
#[tokio::test]
async fn a_change_the_store_cannot_record_first_is_not_written() {
    let fx = Fixture::new();
    let ts = toolset(&fx, &["write"]).await;
    let store = Store::open(fx.data.path()).unwrap();
    let rt = SessionRuntime::new(ts, policy(&fx), Some(store)).unwrap();
    let ok = rt
        .call(
            "s-1",
            "write",
            json!({"path": "kept.txt", "content": "recorded\n"}),
            Default::default(),
            None,
        )
        .await;
    assert!(ok.succeeded());
    rt.with_store(|s| s.close());
    let id = rt.next_call_id();
    let r = rt
        .call(
            &id,
            "write",
            json!({"path": "lost.txt", "content": "written\n"}),
            Default::default(),
            None,
        )
        .await;
    assert!(!r.succeeded(), "{}", r.text());
    assert!(r.text().contains("the session store cannot record the change first"), "{}", r.text());
    assert!(!fx.root().join("lost.txt").exists(), "nothing the record would miss is written");

    // The store this test wrote through the library is SQLite's, whatever store the suite
    // runs on.
    let out = toolhost(&fx).args(["--store", "sqlite", "changes", "--json"]).output().unwrap();
    let listed: Value = serde_json::from_slice(&out.stdout).unwrap();
    let paths: Vec<&str> =
        listed.as_array().unwrap().iter().map(|c| c["path"].as_str().unwrap()).collect();
    assert_eq!(paths, ["kept.txt"]);
}
