//! `edit` and `write` (docs/contract.md#write, #edit, #file-changes-and-undo) through the host and
//! the real components: one-line summaries, the file_change artifact, refusals, CRLF/BOM, 1 MiB,
//! and concurrent changes detected through the tool.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use serde_json::json;
use toolhost::observations::sha256_hex;
use toolhost::result::{FileChange, FileChangeKind, ToolResultArtifact};
use toolhost::{ErrorCode, FinalizedToolset, ToolResult, ToolResultStatus};
use toolhost_tests::*;

const ALL: &[&str] = &["read", "write", "edit"];

async fn edit(ts: &FinalizedToolset, fx: &Fixture, path: &str, old: &str, new: &str) -> ToolResult {
    call(ts, fx, "edit", json!({"filePath": path, "oldString": old, "newString": new})).await
}

async fn read(ts: &FinalizedToolset, fx: &Fixture, path: &str) -> ToolResult {
    let r = call(ts, fx, "read", json!({"path": path})).await;
    assert!(r.succeeded(), "{}", r.text());
    r
}

fn change(r: &ToolResult) -> &FileChange {
    assert_eq!(r.artifacts.len(), 1, "{r:?}");
    match &r.artifacts[0] {
        ToolResultArtifact::FileChange(c) => c,
    }
}

fn lines(n: usize) -> String {
    (1..=n).map(|i| format!("l{i}\n")).collect()
}

fn assert_invalid(r: &ToolResult, text: &str) {
    assert_eq!(r.status, ToolResultStatus::Failed, "{}", r.text());
    assert_eq!(r.error.as_ref().unwrap().code, ErrorCode::InvalidArguments, "{}", r.text());
    assert_eq!(r.text(), text);
    assert!(r.artifacts.is_empty());
}

#[tokio::test]
async fn acc_28_edits_report_one_line_with_the_new_line_range() {
    let fx = Fixture::new();
    fx.write("src/lib.rs", lines(10));
    let ts = toolset(&fx, ALL).await;
    read(&ts, &fx, "src/lib.rs").await;
    let r = edit(&ts, &fx, "src/lib.rs", "l5\n", "five\n").await;
    assert_eq!(r.text(), "Edited src/lib.rs:5 (+1 -1)");
    // A multi-line replacement: the range is where the NEW text is.
    let r = edit(&ts, &fx, "src/lib.rs", "l7\nl8\n", "a\nb\nc\nd\n").await;
    assert_eq!(r.text(), "Edited src/lib.rs:7-10 (+4 -2)");
    let r = edit(&ts, &fx, "src/lib.rs", "l2\nl3\nl4\n", "two\n").await;
    assert_eq!(r.text(), "Edited src/lib.rs:2 (+1 -3)");
    assert_eq!(
        std::fs::read_to_string(fx.root().join("src/lib.rs")).unwrap(),
        "l1\ntwo\nfive\nl6\na\nb\nc\nd\nl9\nl10\n"
    );
    assert!(!r.text().contains('\n'), "one line, no diff in the text");
}

#[tokio::test]
async fn acc_28_edit_artifact_carries_the_exact_change() {
    let fx = Fixture::new();
    let before = lines(10);
    fx.write("src/lib.rs", &before);
    let ts = toolset(&fx, ALL).await;
    read(&ts, &fx, "src/lib.rs").await;
    let r = ts
        .call(
            "edit",
            json!({"filePath": "src/lib.rs", "oldString": "l5\n", "newString": "five\n"}),
            fx.call("call-42"),
        )
        .await;
    assert_eq!(r.text(), "Edited src/lib.rs:5 (+1 -1)");
    let after = before.replace("l5\n", "five\n");
    let c = change(&r);
    assert_eq!(c.change_id, "call-42");
    assert_eq!(c.path, "src/lib.rs");
    assert_eq!(c.kind, FileChangeKind::Modified);
    assert_eq!((c.additions, c.deletions), (1, 1));
    assert_eq!(c.hunks.len(), 1);
    let h = &c.hunks[0];
    assert_eq!((h.old_start, h.old_lines, h.new_start, h.new_lines), (2, 7, 2, 7));
    assert_eq!(h.lines, [" l2", " l3", " l4", "-l5", "+five", " l6", " l7", " l8"]);
    assert_eq!(c.before_content, before);
    assert_eq!(c.after_content, after);
    assert_eq!(c.before_hash, sha256_hex(before.as_bytes()));
    assert_eq!(c.after_hash, sha256_hex(after.as_bytes()));
    assert_eq!(c.before_hash.len(), 64);
    assert!(c.before_hash.chars().all(|ch| ch.is_ascii_hexdigit() && !ch.is_ascii_uppercase()));
    assert!(!c.undone);
    // Independent check of the hash with sha256sum, when present.
    if let Ok(out) =
        std::process::Command::new("sha256sum").arg(fx.root().join("src/lib.rs")).output()
    {
        let hex =
            String::from_utf8_lossy(&out.stdout).split_whitespace().next().unwrap_or("").to_owned();
        if !hex.is_empty() {
            assert_eq!(c.after_hash, hex);
        }
    }
    let text = r.text();
    assert!(!text.contains("-l5") && !text.contains("+five"), "the diff never reaches the text");
    // Hunks that are far apart are separate, each with three lines of context.
    fx.write("far.txt", lines(30));
    read(&ts, &fx, "far.txt").await;
    let r = call(
        &ts,
        &fx,
        "edit",
        json!({"filePath": "far.txt", "oldString": "l", "newString": "L", "replaceAll": true}),
    )
    .await;
    assert_eq!(r.text(), "Replaced 30 occurrences in far.txt (+30 -30)");
    let r = write_call(
        &ts,
        &fx,
        "far.txt",
        &lines(30).replace('l', "L").replace("L2\n", "x\n").replace("L29\n", "y\n"),
    )
    .await;
    let c = change(&r);
    assert_eq!(c.hunks.len(), 2);
    assert_eq!(c.hunks[0].lines, [" L1", "-L2", "+x", " L3", " L4", " L5"]);
    assert_eq!(c.hunks[1].lines, [" L26", " L27", " L28", "-L29", "+y", " L30"]);
    assert_eq!((c.hunks[1].old_start, c.hunks[1].old_lines), (26, 5));
}

async fn write_call(ts: &FinalizedToolset, fx: &Fixture, path: &str, content: &str) -> ToolResult {
    call(ts, fx, "write", json!({"path": path, "content": content})).await
}

#[tokio::test]
async fn replace_all_reports_the_number_of_occurrences() {
    let fx = Fixture::new();
    fx.write("src/lib.rs", "foo\nbar\nfoo\nfoo\nbaz\nfoo\n");
    let ts = toolset(&fx, ALL).await;
    read(&ts, &fx, "src/lib.rs").await;
    let r = call(&ts, &fx, "edit", json!({"filePath": "src/lib.rs", "oldString": "foo", "newString": "qux", "replaceAll": true})).await;
    assert_eq!(r.text(), "Replaced 4 occurrences in src/lib.rs (+4 -4)");
    assert_eq!(
        std::fs::read_to_string(fx.root().join("src/lib.rs")).unwrap(),
        "qux\nbar\nqux\nqux\nbaz\nqux\n"
    );
    let c = change(&r);
    assert_eq!((c.additions, c.deletions), (4, 4));
}

#[tokio::test]
async fn acc_28_write_reports_one_line() {
    let fx = Fixture::new();
    let ts = toolset(&fx, ALL).await;
    let content: String = (1..=42).map(|i| format!("line {i}\n")).collect();
    let r =
        ts.call("write", json!({"path": "src/new.rs", "content": content}), fx.call("w1")).await;
    assert_eq!(r.text(), "Created src/new.rs (+42)");
    let c = change(&r);
    assert_eq!(c.kind, FileChangeKind::Created);
    assert_eq!((c.additions, c.deletions), (42, 0));
    assert_eq!(c.change_id, "w1");
    assert_eq!(c.before_content, "");
    assert_eq!(c.after_hash, sha256_hex(content.as_bytes()));

    fx.write("src/old.rs", "a\nb\nc\n");
    read(&ts, &fx, "src/old.rs").await;
    let r = write_call(&ts, &fx, "src/old.rs", "a\nx\n").await;
    assert_eq!(r.text(), "Overwrote src/old.rs (+1 -2)");
    let c = change(&r);
    assert_eq!(c.kind, FileChangeKind::Modified);
    assert_eq!(c.before_hash, sha256_hex(b"a\nb\nc\n"));
    assert_eq!(c.hunks[0].lines, [" a", "-b", "-c", "+x"]);

    let r = write_call(&ts, &fx, "src/old.rs", "a\nx\n").await;
    assert!(r.succeeded());
    assert_eq!(r.text(), "src/old.rs unchanged: the content is identical");
    assert!(r.artifacts.is_empty(), "no artifact when nothing changed");
    // An absolute path inside the workspace is shown relative to it.
    let abs = fx.root().join("src/abs.rs");
    let r = write_call(&ts, &fx, abs.to_str().unwrap(), "1\n").await;
    assert_eq!(r.text(), "Created src/abs.rs (+1)");
}

#[tokio::test]
async fn rejects_ambiguous_or_noop_edits() {
    let fx = Fixture::new();
    fx.write("src/lib.rs", "foo\nfoo\nbar\n");
    let ts = toolset(&fx, ALL).await;
    read(&ts, &fx, "src/lib.rs").await;
    assert_invalid(
        &edit(&ts, &fx, "src/lib.rs", "foo", "baz").await,
        "oldString was found 2 times in src/lib.rs. Add surrounding lines to oldString so it matches exactly one place, or set replaceAll to true to replace all 2",
    );
    assert_invalid(
        &edit(&ts, &fx, "src/lib.rs", "bar", "bar").await,
        "oldString and newString are identical; there is nothing to change. Pass the text to replace as oldString and its replacement as newString",
    );
    assert_invalid(
        &edit(&ts, &fx, "src/lib.rs", "quux", "x").await,
        "oldString was not found in src/lib.rs. It must match the file exactly, including whitespace and indentation; read the file again and copy the text to replace from it",
    );
    assert_invalid(
        &edit(&ts, &fx, "src/lib.rs", "", "new").await,
        "src/lib.rs already exists; an empty oldString only creates new files. To change it, read it and pass the text to replace as oldString, or use write to replace the whole file",
    );
    assert_invalid(
        &edit(&ts, &fx, "src/missing.rs", "x", "y").await,
        "src/missing.rs does not exist. To create it, call edit with an empty oldString and the whole content as newString, or use write",
    );
    assert_eq!(
        std::fs::read_to_string(fx.root().join("src/lib.rs")).unwrap(),
        "foo\nfoo\nbar\n",
        "nothing changed"
    );
    // Still allowed after the refusals: they did not spoil the observation.
    assert!(edit(&ts, &fx, "src/lib.rs", "bar", "baz").await.succeeded());
}

#[tokio::test]
async fn a_concurrent_change_is_detected_through_the_edit_tool() {
    let fx = Fixture::new();
    fx.write("a.txt", "v0\nTARGET\n");
    let ts = toolset(&fx, ALL).await;
    read(&ts, &fx, "a.txt").await;
    fx.write("a.txt", "external\nTARGET\n");
    let r = edit(&ts, &fx, "a.txt", "TARGET", "mine").await;
    assert_eq!(r.status, ToolResultStatus::Failed);
    assert_eq!(
        r.text(),
        "a.txt changed since you last read it (by you via bash, or by the user). Read it again before editing."
    );
    assert_eq!(std::fs::read_to_string(fx.root().join("a.txt")).unwrap(), "external\nTARGET\n");
}

/// The text a `read` result shows, as file content (every line had a `\n`).
fn content_of(read_text: &str) -> String {
    read_text.lines().map(|l| l.split_once('\t').unwrap().1.to_owned() + "\n").collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn no_edit_overwrites_content_it_did_not_read_while_the_file_changes_underneath() {
    let fx = Fixture::new();
    let path = fx.write("a.txt", "v0\nTARGET\n");
    let ts = toolset(&fx, ALL).await;
    let stop = Arc::new(AtomicBool::new(false));
    let writer = {
        let stop = stop.clone();
        let path = path.clone();
        std::thread::spawn(move || {
            let mut n = 1u64;
            while !stop.load(Ordering::Relaxed) {
                // Atomic replace, so a reader never sees a half-written file.
                let tmp = path.with_extension(format!("tmp{n}"));
                std::fs::write(&tmp, format!("v{n}\nTARGET\n")).unwrap();
                std::fs::rename(&tmp, &path).unwrap();
                n += 1;
                std::thread::sleep(std::time::Duration::from_micros(300 + (n % 7) * 200));
            }
        })
    };
    let (mut ok, mut refused) = (0, 0);
    for k in 0..300 {
        let r = call(&ts, &fx, "read", json!({"path": "a.txt"})).await;
        if !r.succeeded() {
            continue;
        }
        let seen = content_of(&r.text());
        let r = edit(&ts, &fx, "a.txt", "TARGET", &format!("EDITED {k}")).await;
        if r.succeeded() {
            ok += 1;
            let c = change(&r);
            assert_eq!(c.before_content, seen, "an edit replaced content the model never read");
            assert_eq!(c.before_hash, sha256_hex(seen.as_bytes()));
        } else {
            refused += 1;
            let t = r.text();
            assert!(
                t == "a.txt changed since you last read it (by you via bash, or by the user). Read it again before editing."
                    || t == "file changed while edit was being prepared"
                    || t.starts_with("oldString was not found"),
                "{t}"
            );
        }
    }
    stop.store(true, Ordering::Relaxed);
    writer.join().unwrap();
    eprintln!("{ok} edits committed, {refused} refused");
    assert!(refused > 0, "the writer should have raced at least one edit");
    assert!(ok > 0, "some edits should have committed between rewrites");
}

#[tokio::test]
async fn crlf_and_bom_survive_an_edit() {
    let fx = Fixture::new();
    fx.write("crlf.txt", "one\r\ntwo\r\nthree\r\n");
    fx.write("bom.txt", b"\xEF\xBB\xBFone\ntwo\n");
    let ts = toolset(&fx, ALL).await;
    read(&ts, &fx, "crlf.txt").await;
    let r = edit(&ts, &fx, "crlf.txt", "two", "TWO\nand more").await;
    assert!(r.succeeded(), "{}", r.text());
    assert_eq!(
        std::fs::read(fx.root().join("crlf.txt")).unwrap(),
        b"one\r\nTWO\r\nand more\r\nthree\r\n"
    );
    read(&ts, &fx, "bom.txt").await;
    let r = edit(&ts, &fx, "bom.txt", "one", "ONE").await;
    assert!(r.succeeded(), "{}", r.text());
    assert_eq!(std::fs::read(fx.root().join("bom.txt")).unwrap(), b"\xEF\xBB\xBFONE\ntwo\n");
}

#[tokio::test]
async fn files_and_contents_over_1_mib_are_refused() {
    let fx = Fixture::new();
    let big = "x".repeat(1024 * 1024) + "\ntail\n";
    fx.write("big.txt", &big);
    let ts = toolset(&fx, ALL).await;
    read(&ts, &fx, "big.txt").await;
    let r = edit(&ts, &fx, "big.txt", "tail", "TAIL").await;
    assert_eq!(r.status, ToolResultStatus::Failed, "{}", r.text());
    assert!(r.text().contains("big.txt") && r.text().contains("1 MiB"), "{}", r.text());
    let r = write_call(&ts, &fx, "big.txt", "small\n").await;
    assert_eq!(r.status, ToolResultStatus::Failed, "{}", r.text());
    assert_eq!(std::fs::read_to_string(fx.root().join("big.txt")).unwrap(), big);

    let r = write_call(&ts, &fx, "new.txt", &"y".repeat(1024 * 1024 + 1)).await;
    assert_eq!(r.status, ToolResultStatus::Failed, "{}", r.text());
    assert!(r.text().contains("1048577") && r.text().contains("1 MiB"), "{}", r.text());
    assert!(!fx.root().join("new.txt").exists());
    let r = write_call(&ts, &fx, "ok.txt", &"y".repeat(1024 * 1024)).await;
    assert!(r.succeeded(), "exactly 1 MiB is allowed: {}", r.text());
    let r = edit(&ts, &fx, "new2.txt", "", &"z".repeat(1024 * 1024 + 1)).await;
    assert_eq!(r.status, ToolResultStatus::Failed, "{}", r.text());
    assert!(!fx.root().join("new2.txt").exists());
}

#[tokio::test]
async fn a_write_to_a_directory_path_is_refused_and_says_what_to_pass() {
    let fx = Fixture::new();
    std::fs::create_dir(fx.root().join("somedir")).unwrap();
    let ts = toolset(&fx, ALL).await;
    let r = write_call(&ts, &fx, "somedir", "x").await;
    assert_invalid(
        &r,
        "somedir is a directory; pass the path of a file in it (e.g. somedir/name.txt)",
    );
    // A trailing separator names a directory: no file of that name is made.
    for path in ["newdir/", "newdir\\"] {
        let r = write_call(&ts, &fx, path, "x").await;
        assert_invalid(
            &r,
            &format!(
                "{path} ends with a separator, which names a directory; pass a file path without it"
            ),
        );
    }
    assert!(!fx.root().join("newdir").exists());
    let r = edit(&ts, &fx, "other/", "", "x").await;
    assert_eq!(r.error.as_ref().map(|e| e.code), Some(ErrorCode::InvalidArguments), "{}", r.text());
    assert!(!fx.root().join("other").exists());
}
