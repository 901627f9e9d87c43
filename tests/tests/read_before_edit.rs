//! Read before edit (docs/contract.md#read-before-edit, docs/acceptance.md items 31–34) through the
//! host and the real components. One toolset per test: its session holds the one observation table.

use serde_json::json;
use toolhost::{ErrorCode, FinalizedToolset, ToolResult, ToolResultStatus};
use toolhost_tests::*;

const ALL: &[&str] = &["read", "write", "edit", "grep"];

fn not_read(path: &str) -> String {
    format!("Read {path} before editing it.")
}

fn changed(path: &str) -> String {
    format!(
        "{path} changed since you last read it (by you via bash, or by the user). Read it again before editing."
    )
}

fn assert_refused(r: &ToolResult, text: &str) {
    assert_eq!(r.status, ToolResultStatus::Failed, "{}", r.text());
    assert_eq!(r.text(), text);
    assert!(r.artifacts.is_empty());
}

async fn edit(ts: &FinalizedToolset, fx: &Fixture, path: &str, old: &str, new: &str) -> ToolResult {
    call(ts, fx, "edit", json!({"filePath": path, "oldString": old, "newString": new})).await
}

async fn write(ts: &FinalizedToolset, fx: &Fixture, path: &str, content: &str) -> ToolResult {
    call(ts, fx, "write", json!({"path": path, "content": content})).await
}

async fn read(ts: &FinalizedToolset, fx: &Fixture, path: &str) -> ToolResult {
    call(ts, fx, "read", json!({"path": path})).await
}

fn disk(fx: &Fixture, rel: &str) -> String {
    std::fs::read_to_string(fx.root().join(rel)).unwrap()
}

#[tokio::test]
async fn acc_31_unread_existing_files_cannot_be_edited_or_overwritten() {
    let fx = Fixture::new();
    fx.write("src/a.rs", "fn a() {}\n");
    let ts = toolset(&fx, ALL).await;
    assert_refused(&edit(&ts, &fx, "src/a.rs", "a()", "b()").await, &not_read("src/a.rs"));
    assert_refused(&write(&ts, &fx, "src/a.rs", "new\n").await, &not_read("src/a.rs"));
    assert_eq!(disk(&fx, "src/a.rs"), "fn a() {}\n", "the file is unchanged");
    // After a read, both are allowed.
    assert!(read(&ts, &fx, "src/a.rs").await.succeeded());
    assert!(edit(&ts, &fx, "src/a.rs", "a()", "b()").await.succeeded());
    assert_eq!(disk(&fx, "src/a.rs"), "fn b() {}\n");
}

#[tokio::test]
async fn acc_32_files_changed_since_the_read_must_be_read_again() {
    let fx = Fixture::new();
    fx.write("a.txt", "one\ntwo\n");
    fx.write("b.txt", "one\ntwo\n");
    let ts = toolset(&fx, ALL).await;
    // edit
    assert!(read(&ts, &fx, "a.txt").await.succeeded());
    fx.write("a.txt", "one\ntwo\nthree (by the user)\n");
    assert_refused(&edit(&ts, &fx, "a.txt", "one", "ONE").await, &changed("a.txt"));
    assert_eq!(disk(&fx, "a.txt"), "one\ntwo\nthree (by the user)\n");
    // write (was untested)
    assert!(read(&ts, &fx, "b.txt").await.succeeded());
    fx.write("b.txt", "changed outside\n");
    assert_refused(&write(&ts, &fx, "b.txt", "mine\n").await, &changed("b.txt"));
    assert_eq!(disk(&fx, "b.txt"), "changed outside\n");
    // Reading again lifts the refusal.
    assert!(read(&ts, &fx, "a.txt").await.succeeded());
    assert!(edit(&ts, &fx, "a.txt", "one", "ONE").await.succeeded());
    assert!(read(&ts, &fx, "b.txt").await.succeeded());
    assert!(write(&ts, &fx, "b.txt", "mine\n").await.succeeded());
    assert_eq!(disk(&fx, "b.txt"), "mine\n");
}

#[tokio::test]
async fn acc_32_a_partial_read_counts_for_the_whole_file() {
    let fx = Fixture::new();
    fx.write("a.txt", "1\n2\n3\n4\n5\n");
    let ts = toolset(&fx, ALL).await;
    assert!(
        call(&ts, &fx, "read", json!({"path": "a.txt", "offset": 2, "limit": 1})).await.succeeded()
    );
    assert!(
        edit(&ts, &fx, "a.txt", "5\n", "five\n").await.succeeded(),
        "any page records the whole file"
    );
}

#[tokio::test]
async fn acc_33_consecutive_edits_do_not_need_a_new_read() {
    let fx = Fixture::new();
    fx.write("a.txt", "alpha\nbeta\ngamma\n");
    let ts = toolset(&fx, ALL).await;
    assert!(read(&ts, &fx, "a.txt").await.succeeded());
    for (old, new) in [("alpha", "ALPHA"), ("beta", "BETA"), ("gamma", "GAMMA")] {
        let r = edit(&ts, &fx, "a.txt", old, new).await;
        assert!(r.succeeded(), "{}", r.text());
    }
    let r = write(&ts, &fx, "a.txt", "all new\n").await;
    assert!(r.succeeded(), "a write after edits needs no read: {}", r.text());
    let r = edit(&ts, &fx, "a.txt", "all", "quite").await;
    assert!(r.succeeded(), "an edit after a write needs no read: {}", r.text());
    assert_eq!(disk(&fx, "a.txt"), "quite new\n");
}

#[tokio::test]
async fn acc_34_creating_files_needs_no_read() {
    let fx = Fixture::new();
    let ts = toolset(&fx, ALL).await;
    let r = write(&ts, &fx, "new/deep/w.txt", "a\nb\n").await;
    assert_eq!(r.text(), "Created new/deep/w.txt (+2)");
    let r = edit(&ts, &fx, "e.txt", "", "x\ny\nz\n").await;
    assert_eq!(r.text(), "Created e.txt (+3)");
    assert_eq!(disk(&fx, "e.txt"), "x\ny\nz\n");
    // The created files can be edited at once: creating counts as having seen them.
    assert!(edit(&ts, &fx, "e.txt", "y", "Y").await.succeeded());
    assert!(edit(&ts, &fx, "new/deep/w.txt", "b", "B").await.succeeded());
}

#[tokio::test]
async fn grep_on_a_single_file_does_not_count_as_a_read() {
    let fx = Fixture::new();
    fx.write("a.txt", "needle\n");
    let ts = toolset(&fx, ALL).await;
    let r = call(&ts, &fx, "grep", json!({"pattern": "needle", "path": "a.txt"})).await;
    assert!(r.succeeded(), "{}", r.text());
    assert!(r.text().contains("needle"), "{}", r.text());
    assert_refused(&edit(&ts, &fx, "a.txt", "needle", "pin").await, &not_read("a.txt"));
    assert_refused(&write(&ts, &fx, "a.txt", "pin\n").await, &not_read("a.txt"));
}

#[tokio::test]
async fn a_failed_read_records_nothing() {
    let fx = Fixture::new();
    fx.write("a.txt", "a\nb\n");
    fx.write("bin.txt", b"a\n\x00\n");
    let ts = toolset(&fx, ALL).await;
    let r = call(&ts, &fx, "read", json!({"path": "a.txt", "offset": 10})).await;
    assert_eq!(r.status, ToolResultStatus::Failed);
    let r = call(&ts, &fx, "read", json!({"path": "a.txt", "limit": 0})).await;
    assert_eq!(r.error.unwrap().code, ErrorCode::InvalidArguments);
    assert_refused(&edit(&ts, &fx, "a.txt", "a", "A").await, &not_read("a.txt"));
    let r = read(&ts, &fx, "bin.txt").await;
    assert_eq!(r.status, ToolResultStatus::Failed);
    assert_refused(&write(&ts, &fx, "bin.txt", "text\n").await, &not_read("bin.txt"));
    assert_eq!(std::fs::read(fx.root().join("bin.txt")).unwrap(), b"a\n\x00\n");
}

#[tokio::test]
async fn another_session_has_its_own_table() {
    let fx = Fixture::new();
    fx.write("a.txt", "a\n");
    let first = toolset(&fx, ALL).await;
    assert!(read(&first, &fx, "a.txt").await.succeeded());
    let second = toolset(&fx, ALL).await;
    assert_refused(&edit(&second, &fx, "a.txt", "a", "b").await, &not_read("a.txt"));
}
