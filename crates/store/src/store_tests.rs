//! The store's own tests on SQLite (the suites in `tests/` run both engines through the
//! binary).

use std::path::{Path, PathBuf};

use rusqlite::Connection;
use toolhost_core::changes::file_change;
use toolhost_core::result::{FileChange, ToolResult, ToolResultArtifact};
use toolhost_core::undo::Direction;

use crate::{ClaimRefused, DB_FILE, MIGRATIONS, Store, StoreError};

fn result_with(change: FileChange) -> ToolResult {
    let mut r = ToolResult::success("Edited a.txt:1 (+1 -1)");
    r.artifacts.push(ToolResultArtifact::FileChange(change));
    r
}

#[test]
fn records_and_finds_changes_and_flips_undone() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path()).unwrap();
    assert_eq!(store.schema_version().unwrap(), MIGRATIONS.len() as i64);
    store.record_session("s1", Path::new("/w")).unwrap();
    store.record_session("s1", Path::new("/other")).unwrap();
    store
        .record_call(
            "s1",
            "s1-1",
            "read",
            &serde_json::json!({"path": "a.txt"}),
            &ToolResult::success("1\tx"),
        )
        .unwrap();
    let change = file_change("s1-2", "a.txt", Some("x\n"), "y\n");
    store
        .record_call("s1", "s1-2", "edit", &serde_json::json!({}), &result_with(change.clone()))
        .unwrap();
    assert_eq!(store.call_count("s1").unwrap(), 2);
    assert_eq!(store.changes(None).unwrap(), vec![change.clone()]);
    assert_eq!(store.changes(Some("s2")).unwrap(), vec![]);
    let found = store.find_change("s1-2").unwrap();
    assert_eq!(found.workspace, PathBuf::from("/w"));
    store.set_undone("s1-2", true).unwrap();
    assert!(store.find_change("s1-2").unwrap().change.undone);
    assert!(matches!(store.find_change("s1-1"), Err(StoreError::UnknownChange(_))));
    assert!(matches!(store.set_undone("nope", true), Err(StoreError::UnknownChange(_))));
    // A duplicate call id is refused, not silently merged.
    assert!(
        store
            .record_call("s1", "s1-2", "edit", &serde_json::json!({}), &ToolResult::success(""))
            .is_err()
    );
}

#[test]
fn a_claim_is_held_by_one_and_refused_with_the_reason_to_the_next() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path()).unwrap().serving("host:/w");
    store.record_session("s", Path::new("/w")).unwrap();
    let change = file_change("s-1", "a.txt", Some("x\n"), "y\n");
    store.record_call("s", "s-1", "edit", &serde_json::json!({}), &result_with(change)).unwrap();
    assert_eq!(store.find_change("s-1").unwrap().workspace_id.as_deref(), Some("host:/w"));
    store.claim("s-1", Direction::Undo).unwrap();
    let other = Store::open(dir.path()).unwrap();
    let e = other.claim("s-1", Direction::Undo).unwrap_err().to_string();
    assert!(e.contains("being undone by another toolhost"), "{e}");
    store.settle("s-1", Direction::Undo, true).unwrap();
    assert!(matches!(other.claim("s-1", Direction::Undo), Err(ClaimRefused::AlreadyDone)));
    other.claim("s-1", Direction::Reapply).unwrap();
    other.settle("s-1", Direction::Reapply, false).unwrap();
    assert!(other.find_change("s-1").unwrap().change.undone);
    assert!(matches!(
        other.claim("nope", Direction::Undo),
        Err(ClaimRefused::Store(StoreError::UnknownChange(_)))
    ));
}

#[test]
fn a_one_line_edit_of_a_large_file_stores_about_one_chunk() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path()).unwrap();
    store.record_session("s", Path::new("/w")).unwrap();
    let mut text: String = (0..2500).map(|i| format!("line {i} of a large file\n")).collect();
    let db = dir.path().join(DB_FILE);
    let size = || {
        let conn = Connection::open(&db).unwrap();
        conn.query_row("SELECT SUM(length(data)) FROM chunks", [], |r| r.get::<_, i64>(0)).unwrap()
    };
    let mut first = 0;
    for i in 0..20 {
        let after = text.replacen(&format!("line {} of", i * 100), &format!("LINE {i} of"), 1);
        let change = file_change(&format!("s-{i}"), "big.txt", Some(&text), &after);
        let id = format!("s-{i}");
        store.record_call("s", &id, "edit", &serde_json::json!({}), &result_with(change)).unwrap();
        assert_eq!(store.find_change(&id).unwrap().change.after_content, after);
        text = after;
        if i == 0 {
            first = size();
        }
    }
    let per_edit = (size() - first) / 19;
    assert!(per_edit < 3 * toolhost_limits::STORE_CHUNK_MAX_BYTES as i64, "{per_edit}");
    assert!(first > text.len() as i64 / 2, "the first version is stored whole: {first}");
}

#[test]
fn a_store_of_schema_1_keeps_its_changes_and_their_state() {
    let dir = tempfile::tempdir().unwrap();
    let conn = Connection::open(dir.path().join(DB_FILE)).unwrap();
    conn.execute_batch(MIGRATIONS[0]).unwrap();
    conn.pragma_update(None, "user_version", 1).unwrap();
    let mut change = file_change("s-1", "a.txt", Some("x\n"), "y\n");
    change.undone = true;
    let artifacts = serde_json::to_string(&vec![ToolResultArtifact::FileChange(change.clone())]);
    conn.execute("INSERT INTO sessions VALUES ('s', '/w', 0)", []).unwrap();
    conn.execute(
        "INSERT INTO calls (session_id, call_id, tool, arguments, status, text, artifacts, created_at)
         VALUES ('s', 's-1', 'edit', '{}', 'succeeded', '', ?1, 0)",
        [artifacts.unwrap()],
    )
    .unwrap();
    drop(conn);
    let store = Store::open(dir.path()).unwrap();
    assert_eq!(store.find_change("s-1").unwrap().change, change);
    store.claim("s-1", Direction::Reapply).unwrap();
}

#[test]
fn reopening_keeps_the_records_and_does_not_rerun_migrations() {
    let dir = tempfile::tempdir().unwrap();
    {
        let store = Store::open(dir.path()).unwrap();
        store.record_session("s", Path::new("/w")).unwrap();
    }
    let mut store = Store::open(dir.path()).unwrap();
    assert_eq!(store.call_count("s").unwrap(), 0);
    store.close();
    assert!(matches!(store.changes(None), Err(StoreError::Closed)));
}

#[test]
fn a_store_from_a_newer_toolhost_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let conn = Connection::open(dir.path().join(DB_FILE)).unwrap();
    conn.pragma_update(None, "user_version", 99).unwrap();
    drop(conn);
    assert!(matches!(Store::open(dir.path()), Err(StoreError::TooNew { found: 99, .. })));
}
