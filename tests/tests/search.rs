//! `grep` and `glob` (docs/contract.md#grep, #glob), spill files (docs/contract.md#spill-files) and
//! the credential tier for the read-only file tools (10b), through the host and the real
//! components.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant, SystemTime};

use serde_json::json;
use toolhost::{
    ErrorCode, FinalizedToolset, SandboxMode, SandboxPolicy, ToolCallContext, ToolResult,
    ToolsetConfig,
};
use toolhost_tests::*;

const ALL: &[&str] = &["read", "write", "edit", "grep", "glob", "list", "bash"];

/// The spill file of call `c1` in the fixture's session.
fn spill_of(fx: &Fixture) -> PathBuf {
    fx.data.path().join("spill/test-session/c1.txt")
}

/// The path a footer names after `saved to ` (up to the closing `]`).
fn saved_path(text: &str, marker: &str) -> PathBuf {
    let start =
        text.rfind(marker).unwrap_or_else(|| panic!("no {marker:?} in {text}")) + marker.len();
    let rest = &text[start..];
    PathBuf::from(&rest[..rest.find(']').unwrap()])
}

fn same_file(a: &Path, b: &Path) -> bool {
    a.canonicalize().ok() == b.canonicalize().ok() && a.exists()
}

fn set_mtime(path: &Path, secs_ago: u64) {
    let f = std::fs::File::options().write(true).open(path).unwrap();
    f.set_modified(SystemTime::now() - Duration::from_secs(secs_ago)).unwrap();
}

async fn toolset_with_timeout(fx: &Fixture, ids: &[&str], timeout: Duration) -> FinalizedToolset {
    let mut s = fx.session();
    s.scan_timeout = Some(timeout);
    toolhost::finalize(
        &registry_with_test_tools().await,
        &ToolsetConfig::new(ids.iter().copied()),
        s,
    )
    .expect("finalize")
}

/// 97 files, 1834 matching lines: f00 has 100, six have 19, ninety have 18.
fn make_1834_in_97(fx: &Fixture) -> Vec<String> {
    let mut all = Vec::new();
    for f in 0..97 {
        let n = match f {
            0 => 100,
            1..=6 => 19,
            _ => 18,
        };
        let mut body = String::new();
        for l in 1..=n {
            body.push_str(&format!("hit {f} {l}\nother\n"));
            all.push(format!("src/f{f:02}.txt:{}:hit {f} {l}", 2 * l - 1));
        }
        fx.write(&format!("src/f{f:02}.txt"), body);
    }
    assert_eq!(all.len(), 1834);
    all
}

#[tokio::test]
async fn acc_22_bounds_lines_and_reports_exact_totals() {
    let fx = Fixture::new();
    let all = make_1834_in_97(&fx);
    let ts = toolset(&fx, ALL).await;
    let r = call(&ts, &fx, "grep", json!({"pattern": "^hit"})).await;
    assert!(r.succeeded(), "{}", r.text());
    let text = r.text();
    let spill = saved_path(&text, "full list saved to ");
    assert!(
        same_file(&spill, &spill_of(&fx)),
        "{} vs {}",
        spill.display(),
        spill_of(&fx).display()
    );
    assert!(
        text.ends_with(&format!(
            "[showing 250 of 1834 matching lines in 97 files; full list saved to {}]",
            spill.display()
        )),
        "{}",
        &text[text.len() - 200..]
    );
    // At most 250 lines, at most 50 per file, with the per-file note.
    let shown = text
        .lines()
        .filter(|l| l.split_once(':').is_some_and(|(n, _)| n.parse::<u64>().is_ok()))
        .count();
    assert_eq!(shown, 250);
    let f00: Vec<&str> = text.split("\n\n").next().unwrap().lines().collect();
    assert_eq!(f00[0], "src/f00.txt");
    assert_eq!(f00.len(), 1 + 50 + 1);
    assert_eq!(f00[51], "(+50 more matching lines in this file)");
    for group in text.split("\n\n") {
        assert!(
            group.lines().filter(|l| l.starts_with(|c: char| c.is_ascii_digit())).count() <= 50
        );
    }
    // The spill holds every line as path:line:content.
    let saved: BTreeSet<String> =
        std::fs::read_to_string(&spill).unwrap().lines().map(str::to_owned).collect();
    assert_eq!(saved, all.iter().cloned().collect::<BTreeSet<_>>());
    // …and the model can read it with `read`.
    let r =
        ts.call("read", json!({"path": spill.to_str().unwrap(), "limit": 5}), fx.call("c2")).await;
    assert!(r.succeeded(), "{}", r.text());
    assert!(r.text().starts_with("1\tsrc/f"), "{}", r.text());
}

#[tokio::test]
async fn a_file_over_64_mib_is_searched_and_its_list_saved_up_to_the_cap() {
    // 150,000 matching lines of ~500 bytes: a 75 MB file (past what a walk hands out whole,
    // so it is streamed; it was skipped before) and ~75 MB of path:line:text, past the
    // 64 MiB spill cap.
    let fx = Fixture::new();
    let line = format!("hit {}\n", "x".repeat(495));
    fx.write("big.txt", line.repeat(150_000));
    let ts = toolset(&fx, ALL).await;
    let r = call(&ts, &fx, "grep", json!({"pattern": "^hit"})).await;
    assert!(r.succeeded(), "{}", r.text());
    let text = r.text();
    let spill = spill_of(&fx);
    let named = saved_path(&text, "full list saved to ");
    let named = PathBuf::from(
        named.to_str().unwrap().trim_end_matches(" (only the first 64 MB were saved)"),
    );
    let footer = format!(
        "[showing 50 of 150000 matching lines in 1 files; full list saved to {} (only the first 64 MB were saved)]",
        named.display()
    );
    assert!(text.ends_with(&footer), "{}", &text[text.len().saturating_sub(300)..]);
    assert!(same_file(&named, &spill));
    let saved = std::fs::read(&spill).unwrap();
    assert!(
        saved.len() as u64 <= 64 * 1024 * 1024 && saved.len() as u64 > 63 * 1024 * 1024,
        "{} bytes",
        saved.len()
    );
    assert!(saved.starts_with(format!("big.txt:1:{}", line.trim_end()).as_bytes()));
}

#[tokio::test]
async fn file_modes_report_exact_totals() {
    let fx = Fixture::new();
    for f in 0..300 {
        fx.write(&format!("d/f{f:03}.txt"), "k\n".repeat(f % 3 + 1));
    }
    let ts = toolset(&fx, ALL).await;
    let r =
        call(&ts, &fx, "grep", json!({"pattern": "k", "outputMode": "files_with_matches"})).await;
    let text = r.text();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 251);
    assert_eq!(lines[0], "d/f000.txt");
    let spill = saved_path(&text, "full list saved to ");
    assert_eq!(
        lines[250],
        format!("[showing 250 of 300 files; full list saved to {}]", spill.display())
    );
    let saved: Vec<String> =
        std::fs::read_to_string(&spill).unwrap().lines().map(str::to_owned).collect();
    let expected: BTreeSet<String> = (0..300).map(|f| format!("d/f{f:03}.txt")).collect();
    assert_eq!(saved.iter().cloned().collect::<BTreeSet<_>>(), expected);
    assert_eq!(saved.len(), 300);

    let r = ts.call("grep", json!({"pattern": "k", "outputMode": "count"}), fx.call("c3")).await;
    let text = r.text();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 251);
    assert_eq!(lines[0], "d/f000.txt:1");
    assert_eq!(lines[2], "d/f002.txt:3");
    let spill = saved_path(&text, "full list saved to ");
    assert!(spill.ends_with("spill/test-session/c3.txt"), "{}", spill.display());
    assert_eq!(
        lines[250],
        format!("[showing 250 of 300 files; full list saved to {}]", spill.display())
    );
    let saved: BTreeSet<String> =
        std::fs::read_to_string(&spill).unwrap().lines().map(str::to_owned).collect();
    let expected: BTreeSet<String> =
        (0..300).map(|f| format!("d/f{f:03}.txt:{}", f % 3 + 1)).collect();
    assert_eq!(saved, expected);
    // Without omissions there is no footer and no spill file.
    let r = ts
        .call(
            "grep",
            json!({"pattern": "k", "path": "d/f001.txt", "outputMode": "count"}),
            fx.call("c4"),
        )
        .await;
    assert_eq!(r.text(), "d/f001.txt:2");
    assert!(!fx.data.path().join("spill/test-session/c4.txt").exists());
}

/// A workspace with ignored, hidden, binary and long-line files next to plain ones.
fn mixed_tree(fx: &Fixture) {
    fx.write(".gitignore", "ignored/\n*.log\n");
    fx.write("ignored/a.txt", "needle\n");
    fx.write("x.log", "needle\n");
    fx.write(".hidden/a.txt", "needle\n");
    fx.write(".secret.txt", "needle\n");
    fx.write("bin.dat", b"needle\n\x00\x01needle\n");
    fx.write("long.txt", format!("needle{}\n", "a".repeat(3000)));
    fx.write("plain.txt", "needle\n");
}

#[tokio::test]
async fn grep_cuts_long_lines_and_skips_binary_ignored_and_hidden_files() {
    let fx = Fixture::new();
    mixed_tree(&fx);
    let ts = toolset(&fx, ALL).await;
    let r = call(&ts, &fx, "grep", json!({"pattern": "needle"})).await;
    let long = format!("needle{}", "a".repeat(1994));
    assert_eq!(
        r.text(),
        format!("long.txt\n1:{long}... (line truncated to 2000 bytes)\n\nplain.txt\n1:needle")
    );
}

#[tokio::test]

async fn glob_and_grep_with_a_glob_skip_ignored_and_hidden_files() {
    let fx = Fixture::new();
    mixed_tree(&fx);
    let ts = toolset(&fx, ALL).await;
    let r = call(&ts, &fx, "glob", json!({"pattern": "**/*"})).await;
    let mut files: Vec<String> = r.text().lines().map(str::to_owned).collect();
    files.sort();
    assert_eq!(files, ["bin.dat", "long.txt", "plain.txt"]);
    let r = call(&ts, &fx, "glob", json!({"pattern": "**/*.txt"})).await;
    let mut files: Vec<String> = r.text().lines().map(str::to_owned).collect();
    files.sort();
    assert_eq!(files, ["long.txt", "plain.txt"]);
    let r = call(
        &ts,
        &fx,
        "grep",
        json!({"pattern": "needle", "glob": "**/*.txt", "outputMode": "files_with_matches"}),
    )
    .await;
    assert_eq!(r.text(), "long.txt\nplain.txt");
    let r = call(&ts, &fx, "glob", json!({"pattern": "*.log"})).await;
    assert_eq!(r.text(), "No files match *.log in .");
}

#[tokio::test]
async fn glob_and_grep_globs_are_relative_to_path() {
    let fx = Fixture::new();
    fx.write("desktop/src/a.ts", "x\n");
    fx.write("desktop/src/deep/b.ts", "x\n");
    fx.write("desktop/other/c.ts", "x\n");
    fx.write("src/d.ts", "x\n");
    fx.write("desktop/src/e.js", "x\n");
    set_mtime(&fx.root().join("desktop/src/a.ts"), 100);
    set_mtime(&fx.root().join("desktop/src/deep/b.ts"), 50);
    let ts = toolset(&fx, ALL).await;
    let r = call(&ts, &fx, "glob", json!({"pattern": "src/**/*.ts", "path": "desktop"})).await;
    assert_eq!(
        r.text(),
        "desktop/src/deep/b.ts\ndesktop/src/a.ts",
        "newest first, relative to the workspace"
    );
    let r = call(&ts, &fx, "grep", json!({"pattern": "x", "path": "desktop", "glob": "src/**/*.ts", "outputMode": "files_with_matches"})).await;
    assert_eq!(r.text(), "desktop/src/a.ts\ndesktop/src/deep/b.ts");
    // Directories never match.
    let r = call(&ts, &fx, "glob", json!({"pattern": "src", "path": "desktop"})).await;
    assert_eq!(r.text(), "No files match src in desktop");
}

#[tokio::test]
async fn walks_never_follow_symlinks() {
    // A symlinked directory and a symlinked file, both pointing out of the workspace at
    // matching text: grep and glob see neither; naming the linked file itself still works.
    let fx = Fixture::new();
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(outside.path().join("o.txt"), "needle outside\n").unwrap();
    std::os::unix::fs::symlink(outside.path(), fx.root().join("linkdir")).unwrap();
    std::os::unix::fs::symlink(outside.path().join("o.txt"), fx.root().join("link.txt")).unwrap();
    fx.write("sub/plain.txt", "needle\n");
    let ts = toolset(&fx, ALL).await;
    let r = call(&ts, &fx, "grep", json!({"pattern": "needle"})).await;
    assert_eq!(r.text(), "sub/plain.txt\n1:needle");
    let r = call(&ts, &fx, "grep", json!({"pattern": "needle", "outputMode": "count"})).await;
    assert!(!r.text().contains("link"), "{}", r.text());
    let r = call(&ts, &fx, "glob", json!({"pattern": "**/*"})).await;
    assert_eq!(r.text(), "sub/plain.txt");
    let r = call(&ts, &fx, "grep", json!({"pattern": "needle", "path": "link.txt"})).await;
    assert!(
        r.text().contains("needle outside"),
        "an explicitly named file is resolved: {}",
        r.text()
    );
}

#[tokio::test]
async fn globs_that_could_never_match_say_what_to_do() {
    let fx = Fixture::new();
    fx.write("src/a.rs", "fn main() {}\n");
    let ts = toolset(&fx, ALL).await;
    for (tool, input, says) in [
        ("glob", json!({"pattern": ""}), "glob is empty"),
        ("glob", json!({"pattern": "/etc/*"}), "is absolute"),
        ("glob", json!({"pattern": "../*", "path": "src"}), "reaches above"),
        ("grep", json!({"pattern": "main", "glob": ""}), "glob is empty"),
        ("grep", json!({"pattern": "main", "glob": "/tmp/**"}), "is absolute"),
    ] {
        let r = call(&ts, &fx, tool, input.clone()).await;
        assert_eq!(
            r.error.as_ref().map(|e| e.code),
            Some(ErrorCode::InvalidArguments),
            "{tool} {input}: {}",
            r.text()
        );
        assert!(r.text().contains(says), "{tool} {input}: {}", r.text());
    }
}

#[tokio::test]
async fn no_matches_say_the_pattern_and_path() {
    let fx = Fixture::new();
    fx.write("src/a.rs", "fn main() {}\n");
    let ts = toolset(&fx, ALL).await;
    let r = call(&ts, &fx, "grep", json!({"pattern": "zzz+", "path": "src"})).await;
    assert!(r.succeeded());
    assert_eq!(r.text(), "No matches for /zzz+/ in src");
    let r = call(&ts, &fx, "grep", json!({"pattern": "zzz"})).await;
    assert_eq!(r.text(), "No matches for /zzz/ in .");
    let r = call(&ts, &fx, "glob", json!({"pattern": "**/*.py"})).await;
    assert!(r.succeeded());
    assert_eq!(r.text(), "No files match **/*.py in .");
    let r = call(&ts, &fx, "grep", json!({"pattern": "("})).await;
    assert_eq!(r.error.unwrap().code, ErrorCode::InvalidArguments);
}

fn parse_at_least(text: &str, prefix: &str) -> Vec<u64> {
    let start =
        text.find(prefix).unwrap_or_else(|| panic!("no {prefix:?} in {text}")) + prefix.len();
    text[start..]
        .split(|c: char| !c.is_ascii_digit())
        .filter(|s| !s.is_empty())
        .take(2)
        .map(|s| s.parse().unwrap())
        .collect()
}

#[tokio::test]
async fn acc_23_timeout_reports_at_least_the_counted_matches() {
    let fx = Fixture::new();
    for d in 0..40 {
        for f in 0..100 {
            fx.write(&format!("t{d:02}/f{f:03}.txt"), "match\nmatch\nno\n".repeat(20));
        }
    }
    // 4000 files, 160,000 matching lines: a 1 ms budget cannot scan them all.
    let ts = toolset_with_timeout(&fx, ALL, Duration::from_millis(1)).await;
    let r = call(&ts, &fx, "grep", json!({"pattern": "match"})).await;
    assert!(r.succeeded(), "a timeout still returns what was found: {}", r.text());
    let text = r.text();
    assert!(
        text.contains("; search timed out after 0.001s — narrow the path or glob]"),
        "{}",
        &text[text.len().saturating_sub(300)..]
    );
    let counts = parse_at_least(&text, "[at least ");
    assert!(counts[0] < 160_000 && counts[1] < 4000, "{counts:?}");
    assert!(
        text.contains(&format!("[at least {} matching lines in {} files;", counts[0], counts[1]))
    );

    let r = ts.call("glob", json!({"pattern": "**/*.txt"}), fx.call("g1")).await;
    assert!(r.succeeded(), "{}", r.text());
    let text = r.text();
    assert!(
        text.contains(" files; search timed out after 0.001s — narrow the path or pattern]"),
        "{}",
        &text[text.len().saturating_sub(300)..]
    );
    let counts = parse_at_least(&text, "[at least ");
    assert!(counts[0] < 4000, "{counts:?}");
    // With the contract's budget (docs/limits.md) the same scans finish with exact totals.
    let ts = toolset(&fx, ALL).await;
    let r = ts.call("glob", json!({"pattern": "**/*.txt"}), fx.call("g2")).await;
    assert!(
        r.text().contains("[showing the 100 most recently modified of 4000 files;"),
        "{}",
        &r.text()[r.text().len() - 200..]
    );
}

#[tokio::test]
async fn acc_24_returns_the_newest_hundred_with_an_exact_total() {
    let fx = Fixture::new();
    for i in 0..150 {
        let p = fx.write(&format!("f{i:03}.rs"), "x");
        set_mtime(&p, 1000 - i as u64); // f149 is the newest
    }
    let ts = toolset(&fx, ALL).await;
    let r = call(&ts, &fx, "glob", json!({"pattern": "*.rs"})).await;
    let text = r.text();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 101);
    let expected: Vec<String> = (50..150).rev().map(|i| format!("f{i:03}.rs")).collect();
    assert_eq!(lines[..100], expected.iter().map(String::as_str).collect::<Vec<_>>()[..]);
    let spill = saved_path(&text, "full list saved to ");
    assert!(same_file(&spill, &spill_of(&fx)));
    assert_eq!(
        lines[100],
        format!(
            "[showing the 100 most recently modified of 150 files; full list saved to {}]",
            spill.display()
        )
    );
    let saved: BTreeSet<String> =
        std::fs::read_to_string(&spill).unwrap().lines().map(str::to_owned).collect();
    assert_eq!(saved, (0..150).map(|i| format!("f{i:03}.rs")).collect());
}

#[tokio::test]
async fn acc_26_spilled_output_is_readable_and_never_writable() {
    let fx = Fixture::new();
    make_1834_in_97(&fx);
    let ts = toolset(&fx, ALL).await;
    let r = call(&ts, &fx, "grep", json!({"pattern": "^hit"})).await;
    let spill = saved_path(&r.text(), "full list saved to ");
    let before = std::fs::read(&spill).unwrap();
    let sp = spill.to_str().unwrap();
    let r = ts.call("read", json!({"path": sp}), fx.call("r1")).await;
    assert!(r.succeeded(), "{}", r.text());
    let r = ts.call("grep", json!({"pattern": "hit 5 1$", "path": sp}), fx.call("r2")).await;
    assert!(r.succeeded(), "{}", r.text());
    assert!(r.text().contains("src/f05.txt:1:hit 5 1"), "{}", r.text());
    let r = ts.call("write", json!({"path": sp, "content": "overwritten\n"}), fx.call("w1")).await;
    assert_eq!(r.error.as_ref().map(|e| e.code), Some(ErrorCode::PermissionDenied), "{}", r.text());
    let r = ts
        .call(
            "edit",
            json!({"filePath": sp, "oldString": "hit", "newString": "HIT"}),
            fx.call("w2"),
        )
        .await;
    assert_eq!(r.error.as_ref().map(|e| e.code), Some(ErrorCode::PermissionDenied), "{}", r.text());
    let r = ts.call("bash", json!({"command": format!("echo x >> '{sp}'")}), fx.call("w3")).await;
    eprintln!("bash: {r:?}");
    if r.error.as_ref().map(|e| e.code) != Some(ErrorCode::SandboxUnavailable) {
        assert!(r.sandbox_denied, "the kernel denial is marked: {r:?}");
        assert!(!r.text().contains("[exit 0;"), "{}", r.text());
    }
    assert_eq!(std::fs::read(&spill).unwrap(), before, "the spill file is unchanged");
}

#[tokio::test]
async fn acc_27_failed_spill_omits_the_path() {
    let fx = Fixture::new();
    make_1834_in_97(&fx);
    // The session's spill "directory" is a file: creating the spill fails.
    std::fs::create_dir_all(fx.data.path().join("spill")).unwrap();
    std::fs::write(fx.data.path().join("spill/test-session"), "not a dir").unwrap();
    let ts = toolset(&fx, ALL).await;
    let r = call(&ts, &fx, "grep", json!({"pattern": "^hit"})).await;
    assert!(r.succeeded(), "{}", r.text());
    assert!(
        r.text().ends_with("\n[showing 250 of 1834 matching lines in 97 files]"),
        "{}",
        &r.text()[r.text().len() - 200..]
    );
    assert!(!r.text().contains("saved to"));
    for i in 0..150 {
        fx.write(&format!("g/f{i:03}.rs"), "x");
    }
    let r = call(&ts, &fx, "glob", json!({"pattern": "*.rs", "path": "g"})).await;
    assert!(
        r.text().ends_with("\n[showing the 100 most recently modified of 150 files]"),
        "{}",
        &r.text()[r.text().len() - 200..]
    );
}

#[tokio::test]
async fn oversized_results_are_cut_and_saved() {
    let fx = Fixture::new();
    // 100 lines of 1,900 bytes in one file: 50 shown lines are ~95 KB of text.
    let mut body = String::new();
    for i in 0..40 {
        body.push_str(&format!("k{i:02}{}\n", "w".repeat(1897)));
    }
    fx.write("wide.txt", &body);
    let ts = toolset(&fx, ALL).await;
    let r = call(&ts, &fx, "grep", json!({"pattern": "^k"})).await;
    assert!(r.succeeded(), "{}", r.text());
    let text = r.text();
    assert!(text.len() <= 32_000, "{}", text.len());
    let marker = " bytes omitted. Full output saved at ";
    let tail = " — use read with offset/limit, or grep, to look at it.)";
    assert!(text.ends_with(tail), "{}", &text[text.len().saturating_sub(300)..]);
    let note_start = text.rfind("... (").unwrap();
    let omitted: usize = text[note_start + 5..].split(' ').next().unwrap().parse().unwrap();
    let path = &text[text.find(marker).unwrap() + marker.len()..text.len() - tail.len()];
    let saved = std::fs::read_to_string(path).unwrap();
    let full: String = std::iter::once("wide.txt".to_owned())
        .chain((0..40).map(|i| format!("{}:k{i:02}{}", i + 1, "w".repeat(1897))))
        .collect::<Vec<_>>()
        .join("\n");
    assert_eq!(saved, full, "the whole text is saved");
    let kept = &text[..note_start];
    assert!(full.starts_with(kept.trim_end_matches('\n')), "keeps the head");
    assert_eq!(omitted, full.len() - kept.len(), "kept {} of {}", kept.len(), full.len());
    assert!(kept.trim_end_matches('\n').ends_with(&"w".repeat(1897)), "stops at a line end");
}

fn policy_with_home(fx: &Fixture, home: &Path) -> SandboxPolicy {
    SandboxPolicy::builder(SandboxMode::WorkspaceWrite, fx.root())
        .home(home)
        .data_dir(fx.data.path())
        .build()
}

#[tokio::test]
async fn credential_dirs_are_unreadable_for_read_grep_glob_and_list() {
    let fx = Fixture::new();
    fx.write("home/.ssh/id_rsa", "-----BEGIN PRIVATE KEY-----\nSECRETKEY\n");
    fx.write("home/.aws/credentials", "SECRETKEY\n");
    fx.write("home/notes.txt", "harmless\n");
    let home = fx.root().join("home");
    let ts = toolset(&fx, ALL).await;
    let ctx = |id: &str| {
        ToolCallContext::new(id, policy_with_home(&fx, &home))
            .with_deadline(Instant::now() + Duration::from_secs(60))
    };
    let leaked = |r: &ToolResult| {
        r.text().contains("SECRETKEY")
            || r.text().contains("id_rsa") && r.succeeded() && !r.text().starts_with("No ")
    };
    for (i, (tool, input)) in [
        ("read", json!({"path": "home/.ssh/id_rsa"})),
        ("read", json!({"path": home.join(".aws/credentials").to_str().unwrap()})),
        ("grep", json!({"pattern": "SECRETKEY", "path": "home/.ssh"})),
        ("grep", json!({"pattern": "SECRETKEY", "path": "home/.ssh/id_rsa"})),
        ("grep", json!({"pattern": "SECRETKEY", "path": "home/.aws"})),
        ("glob", json!({"pattern": "*", "path": "home/.ssh"})),
        ("list", json!({"path": "home/.ssh"})),
    ]
    .into_iter()
    .enumerate()
    {
        let r = ts.call(tool, input.clone(), ctx(&format!("k{i}"))).await;
        eprintln!("{tool} {input} -> {:?} {}", r.status, r.text());
        assert!(!leaked(&r), "{tool} {input} leaked: {}", r.text());
        assert!(
            !r.succeeded() || r.text().starts_with("No "),
            "{tool} {input} should be refused: {}",
            r.text()
        );
    }
    // Ordinary files beside them stay readable.
    let r = ts.call("read", json!({"path": "home/notes.txt"}), ctx("ok")).await;
    assert!(r.succeeded(), "{}", r.text());
}

/// Peak RSS (KiB) of `toolhost call grep` under /usr/bin/time, or None without it.
fn grep_peak_kib(fx: &Fixture) -> Option<u64> {
    let time = Path::new("/usr/bin/time");
    if !time.exists() {
        return None;
    }
    let out = std::process::Command::new(time)
        .args(["-f", "MAXRSS=%M"])
        .arg(toolhost_bin())
        .arg("--workspace")
        .arg(fx.root())
        .arg("--data-dir")
        .arg(fx.data.path())
        .args(["call", "grep", r#"{"pattern":"m"}"#])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let err = String::from_utf8_lossy(&out.stderr);
    let kib = err.lines().find_map(|l| l.strip_prefix("MAXRSS=")).unwrap().trim().parse().unwrap();
    Some(kib)
}

#[test]
fn grep_memory_is_flat_in_the_number_of_matches() {
    let small = Fixture::new();
    small.write("a/m.txt", "m\n".repeat(1_000));
    let big = Fixture::new();
    for f in 0..10 {
        big.write(&format!("a/m{f}.txt"), "m\n".repeat(100_000));
    }
    let (Some(s), Some(b)) = (grep_peak_kib(&small), grep_peak_kib(&big)) else {
        eprintln!("/usr/bin/time missing: memory not measured");
        return;
    };
    eprintln!("peak RSS: 1,000 matches {s} KiB, 1,000,000 matches {b} KiB");
    assert!(b < 2 * s + 32 * 1024, "1,000 matches: {s} KiB; 1,000,000 matches: {b} KiB");
}

/// A toolset whose grep runs every call as `parts` parallel parts (1: one instance).
async fn grep_with_parts(fx: &Fixture, parts: u32) -> FinalizedToolset {
    let tool = runtime()
        .load(&components_dir().join("grep.wasm"))
        .await
        .expect("grep component (run `cargo xtask build`)")
        .with_parts(parts);
    let mut builder = toolhost::registry::ToolRegistryBuilder::new();
    builder.register_dyn(std::sync::Arc::new(tool));
    toolhost::finalize(&builder.build(), &ToolsetConfig::new(["grep"]), fx.session())
        .expect("finalize")
}

/// The lines of the call's spill, sorted (parts append in no fixed order), or none.
fn spilled_lines(fx: &Fixture) -> Option<Vec<String>> {
    let text = std::fs::read_to_string(spill_of(fx)).ok()?;
    let mut lines: Vec<String> = text.lines().map(str::to_owned).collect();
    lines.sort();
    Some(lines)
}

/// The parallel path (`parallel` export: parts that share the walk and the spill, then a
/// merge) gives exactly the one-instance text in every mode — bounds hit, a glob, no match,
/// a single file, binary and ignored files — and the spill holds exactly the same lines.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn parallel_parts_give_exactly_the_one_instance_result() {
    let fx = Fixture::new();
    make_1834_in_97(&fx);
    for d in 0..12 {
        for f in 0..40 {
            let body: String =
                (0..(f % 7) * 9).map(|l| format!("needle {d} {f} {l}\nhay\n")).collect();
            fx.write(&format!("tree/d{d:02}/f{f:02}.txt"), body);
        }
    }
    fx.write("tree/d00/bin.dat", b"needle\0binary\n");
    fx.write(".gitignore", "ignored/\n");
    fx.write("ignored/x.txt", "needle ignored\n");
    let inputs = [
        json!({"pattern": "hit"}),
        json!({"pattern": "hit|needle", "outputMode": "files_with_matches"}),
        json!({"pattern": "needle", "outputMode": "count"}),
        json!({"pattern": "needle [0-9]+ 3", "path": "tree", "glob": "d0*/**/*.txt"}),
        json!({"pattern": "needle 1 "}),
        json!({"pattern": "nothing matches this"}),
        json!({"pattern": "hit", "path": "src/f00.txt"}),
    ];
    let one = grep_with_parts(&fx, 1).await;
    let many = grep_with_parts(&fx, 3).await;
    for input in inputs {
        let _ = std::fs::remove_file(spill_of(&fx));
        let a = call(&one, &fx, "grep", input.clone()).await;
        let spill_a = spilled_lines(&fx);
        let _ = std::fs::remove_file(spill_of(&fx));
        let b = call(&many, &fx, "grep", input.clone()).await;
        let spill_b = spilled_lines(&fx);
        assert!(a.succeeded() && b.succeeded(), "{input}: {a:?} / {b:?}");
        assert_eq!(a.text(), b.text(), "{input}");
        assert_eq!(spill_a, spill_b, "{input}: the spills differ");
        assert!(
            !b.text().contains("ignored") && !b.text().contains("bin.dat"),
            "{input}: {}",
            b.text()
        );
    }
    // A spill nobody finished (nothing left out) is gone after the call, parts or not.
    let r = call(&many, &fx, "grep", json!({"pattern": "needle 1 2 "})).await;
    assert!(r.succeeded() && !r.text().contains("saved"), "{}", r.text());
    assert!(!spill_of(&fx).exists());
    // A bad regex fails the same way.
    let bad = call(&many, &fx, "grep", json!({"pattern": "("})).await;
    assert_eq!(bad.error.as_ref().map(|e| e.code), Some(ErrorCode::InvalidArguments), "{bad:?}");
}

/// Cancelling a parallel grep stops every part: the result is `cancelled`.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_cancelled_parallel_grep_is_cancelled() {
    let fx = Fixture::new();
    for f in 0..400 {
        fx.write(&format!("d/f{f:03}.txt"), "word\n".repeat(2000));
    }
    let many = grep_with_parts(&fx, 3).await;
    let ctx = fx.call("c1");
    ctx.cancel.cancel();
    let r = many.call("grep", json!({"pattern": "word"}), ctx).await;
    assert_eq!(r.error.as_ref().map(|e| e.code), Some(ErrorCode::Cancelled), "{r:?}");
}

/// The literal fast path of the grep component (`tools/grep/src/literal.rs`: a `simd128`
/// scan, word boundaries judged on ASCII neighbours, the regex where a neighbour is not
/// ASCII) lists exactly the lines the `regex` crate matches, on text made of case variants,
/// word characters and non-ASCII letters around the word.
#[tokio::test]
async fn grep_literal_patterns_match_exactly_the_lines_the_regex_matches() {
    let fx = Fixture::new();
    let pieces = [
        "error",
        "ERROR",
        "Error",
        "eRrOr",
        "errors",
        "_error",
        "error_",
        "3error",
        "éerror",
        "erroré",
        "ßerror",
        "(error)",
        "err",
        "rror",
        " ",
        " ",
        " ",
        "\n",
        "\n",
        "x",
        "-",
        "ö",
        "return",
        "RETURN",
        "returns",
        "kilo",
        "\u{212a}ilo",
    ];
    let mut seed = 0x9e37_79b9_7f4a_7c15u64;
    let mut text = String::new();
    while text.len() < 200_000 {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        text.push_str(pieces[(seed % pieces.len() as u64) as usize]);
    }
    fx.write("t.txt", &text);
    let toolset = toolset(&fx, &["grep"]).await;
    for pattern in [
        r"(?i)\berror\b",
        r"(?i)error",
        r"\berror\b",
        "error",
        r"return\b",
        r"(?i)\breturn",
        "kilo",
        r"(?i)kilo",
    ] {
        let re = regex::Regex::new(pattern).unwrap();
        let want: Vec<String> = text
            .split('\n')
            .enumerate()
            .filter(|(_, l)| re.is_match(l))
            .map(|(i, l)| format!("t.txt:{}:{l}", i + 1))
            .collect();
        assert!(want.len() > 250, "{pattern}: {} lines; the test needs a spill", want.len());
        let _ = std::fs::remove_file(spill_of(&fx));
        let r = call(&toolset, &fx, "grep", json!({"pattern": pattern})).await;
        assert!(
            r.text().contains(&format!("of {} matching lines in 1 files", want.len())),
            "{pattern}: {}",
            r.text()
        );
        let got: Vec<String> =
            std::fs::read_to_string(spill_of(&fx)).unwrap().lines().map(str::to_owned).collect();
        assert_eq!(got, want, "{pattern}");
    }
}

/// The required-literal scan of the grep component (`tools/grep/src/required.rs`: sets of
/// needles found 16 start positions a step with `simd128`, the line checked for the other
/// sets, the regex confirming it) lists exactly the lines the `regex` crate matches, on text
/// made of the needles' case variants with word characters, Unicode spaces and non-ASCII
/// letters next to them and line breaks anywhere between.
#[tokio::test]
async fn grep_required_literal_patterns_match_exactly_the_lines_the_regex_matches() {
    let fx = Fixture::new();
    let pieces = [
        "impl",
        "struct",
        "Impl",
        "STRUCT",
        " ",
        "  ",
        "\t",
        "\u{a0}",
        "\n",
        "\n",
        "\n",
        "Foo",
        "ParseError",
        "Error",
        "\u{c9}rror",
        "\u{e9}",
        "x",
        "_",
        "TODO",
        "todo",
        "Todo",
        "FIXME",
        "fixme",
        "XXX",
        "get",
        "set_",
        "get_",
        "fn ",
        "new",
        "default",
        "fn new",
        "fn default",
        "Gr\u{f6}\u{df}e",
        "GR\u{d6}SSE",
        "kilo",
        "\u{212a}ilo",
        "(",
        "9",
        "impl ParseError",
        "struct X\u{e9}Error",
        "impl\u{a0}FooError",
        "struct \u{c9}Error",
    ];
    let mut seed = 0x2545_f491_4f6c_dd1du64;
    let mut text = String::new();
    while text.len() < 700_000 {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        text.push_str(pieces[(seed % pieces.len() as u64) as usize]);
    }
    fx.write("t.txt", &text);
    let toolset = toolset(&fx, &["grep"]).await;
    for pattern in [
        r"\b(impl|struct)\s+[A-Z]\w+Error\b",
        "(TODO|FIXME|XXX)",
        r"(?i)\b(todo|fixme)\b",
        r"(?i)(todo|fixme|xxx)",
        r"\b(get|set)_\w+",
        r"\bfn (new|default)\b",
        r"(?i)kilo\w?",
        r"\bGr\u{f6}\u{df}e",
        r"(?i)\b(impl|struct)\s+\w+",
    ] {
        let re = regex::Regex::new(pattern).unwrap();
        let want: Vec<String> = text
            .split('\n')
            .enumerate()
            .filter(|(_, l)| re.is_match(l))
            .map(|(i, l)| format!("t.txt:{}:{l}", i + 1))
            .collect();
        assert!(want.len() > 250, "{pattern}: {} lines; the test needs a spill", want.len());
        let _ = std::fs::remove_file(spill_of(&fx));
        let r = call(&toolset, &fx, "grep", json!({"pattern": pattern})).await;
        assert!(
            r.text().contains(&format!("of {} matching lines in 1 files", want.len())),
            "{pattern}: {}",
            r.text()
        );
        let got: Vec<String> =
            std::fs::read_to_string(spill_of(&fx)).unwrap().lines().map(str::to_owned).collect();
        assert_eq!(got, want, "{pattern}");
    }
}
