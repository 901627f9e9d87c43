//! `list` (docs/contract.md#list) through the host: a zero-based sorted page, the footer, hidden
//! entries, directories with `/`, bad limits, missing paths and files.

use serde_json::json;
use toolhost::{ErrorCode, ToolResultStatus};
use toolhost_tests::*;

async fn list(fx: &Fixture, input: serde_json::Value) -> toolhost::ToolResult {
    let ts = toolset(fx, &["list"]).await;
    call(&ts, fx, "list", input).await
}

#[tokio::test]
async fn lists_a_zero_based_sorted_page() {
    let fx = Fixture::new();
    for name in ["c.txt", "a.txt", "e.txt", "b.txt", "d.txt"] {
        fx.write(name, "x");
    }
    let r = list(&fx, json!({"offset": 1, "limit": 2})).await;
    assert_eq!(
        r.text(),
        "b.txt\nc.txt\n[showing 2 entries from offset 1; more entries available at offset 3]"
    );
    let r = list(&fx, json!({"offset": 3, "limit": 2})).await;
    assert_eq!(r.text(), "d.txt\ne.txt", "the last page has no footer");
}

#[tokio::test]
async fn hidden_entries_and_directories_with_a_slash() {
    let fx = Fixture::new();
    fx.write(".hidden", "x");
    fx.write(".gitignore", "ignored.txt\n");
    fx.write("ignored.txt", "x");
    fx.write("src/lib.rs", "x");
    let r = list(&fx, json!({})).await;
    assert_eq!(r.text(), ".gitignore\n.hidden\nignored.txt\nsrc/");
    let r = list(&fx, json!({"path": "src"})).await;
    assert_eq!(r.text(), "src/lib.rs", "paths are relative to the workspace");
}

#[tokio::test]
async fn limits_outside_1_to_2000_are_invalid_arguments() {
    let fx = Fixture::new();
    for limit in [0, 2001] {
        let r = list(&fx, json!({"limit": limit})).await;
        assert_eq!(r.status, ToolResultStatus::Failed);
        assert_eq!(r.error.as_ref().unwrap().code, ErrorCode::InvalidArguments);
        assert_eq!(r.text(), format!("limit must be between 1 and 2000, got {limit}"));
    }
    assert!(list(&fx, json!({"limit": 2000})).await.succeeded());
    assert!(list(&fx, json!({"limit": 1})).await.succeeded());
}

#[tokio::test]
async fn a_missing_path_and_a_file_are_clear_errors() {
    let fx = Fixture::new();
    fx.write("a.txt", "x");
    let r = list(&fx, json!({"path": "nope"})).await;
    assert_eq!(r.status, ToolResultStatus::Failed);
    assert!(r.text().contains("nope does not exist"), "{}", r.text());
    let r = list(&fx, json!({"path": "a.txt"})).await;
    assert_eq!(r.status, ToolResultStatus::Failed);
    assert!(r.text().contains("a.txt is not a directory"), "{}", r.text());
}

#[tokio::test]
async fn default_page_is_200_entries() {
    let fx = Fixture::new();
    for i in 0..250 {
        fx.write(&format!("f{i:03}"), "");
    }
    let r = list(&fx, json!({})).await;
    let text = r.text();
    assert_eq!(text.lines().count(), 201);
    assert!(
        text.ends_with("[showing 200 entries from offset 0; more entries available at offset 200]")
    );
}
