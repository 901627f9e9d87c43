//! `apply_patch` through the built binary (docs/contract.md#apply_patch): scenarios, each a
//! patch, an input tree and the expected tree, run through `toolhost session`; refusals that
//! leave every file as it was; one change undone and reapplied whole; a process killed
//! mid-patch put back at the next start; the fence of `write`; the toolsets that offer it.

use std::collections::BTreeMap;
use std::path::Path;

use serde_json::{Value, json};
use toolhost_tests::attack::{Attack, result_text};

/// Every regular file under `root` (relative path → bytes), symlinks and directories left out.
fn tree(root: &Path) -> BTreeMap<String, Vec<u8>> {
    fn walk(root: &Path, dir: &Path, out: &mut BTreeMap<String, Vec<u8>>) {
        for entry in std::fs::read_dir(dir).unwrap().flatten() {
            let path = entry.path();
            let kind = entry.file_type().unwrap();
            if kind.is_dir() {
                walk(root, &path, out);
            } else if kind.is_file() {
                let rel = path.strip_prefix(root).unwrap().to_string_lossy().into_owned();
                out.insert(rel, std::fs::read(&path).unwrap());
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(root, root, &mut out);
    out
}

fn owned(files: &[(&str, &str)]) -> BTreeMap<String, Vec<u8>> {
    files.iter().map(|(p, c)| (p.to_string(), c.as_bytes().to_vec())).collect()
}

/// A patch from its lines between the markers.
fn patch(body: &str) -> String {
    format!("*** Begin Patch\n{body}*** End Patch\n")
}

/// What a scenario expects.
enum Expect<'a> {
    /// The patch applies and the workspace is exactly this tree.
    Tree(&'a [(&'a str, &'a str)]),
    /// The patch is refused with a message containing each of these, and nothing changes.
    Refused(&'a [&'a str]),
}

/// Write `before` into a fresh workspace, read every file of it in a session (so each may
/// be updated), apply `patch`, and compare with `expect`. The ToolResult of the patch.
fn scenario(name: &str, before: &[(&str, &str)], patch: &str, expect: Expect<'_>) -> Value {
    let a = Attack::new();
    for (path, content) in before {
        a.put(path, content);
    }
    let mut s = a.session(&["--tools", "read,write,edit,apply_patch"]);
    for (i, (path, _)) in before.iter().enumerate() {
        let r = s.call(&format!("r{i}"), "read", json!({ "path": path }));
        assert_eq!(r["status"], "succeeded", "{name}: read {path}: {r}");
    }
    let r = s.call("patch", "apply_patch", json!({ "input": patch }));
    let text = result_text(&r);
    match expect {
        Expect::Tree(files) => {
            assert_eq!(r["status"], "succeeded", "{name}: {r}");
            assert_eq!(tree(&a.ws), owned(files), "{name}: the tree after the patch ({text})");
        }
        Expect::Refused(needles) => {
            assert_eq!(r["status"], "failed", "{name}: {r}");
            for needle in needles {
                assert!(text.contains(needle), "{name}: {needle:?} not in: {text}");
            }
            assert_eq!(tree(&a.ws), owned(before), "{name}: a refused patch changed files");
            assert!(r["artifacts"].as_array().unwrap().is_empty(), "{name}: {r}");
        }
    }
    r
}

#[test]
fn adds_deletes_and_updates_with_several_hunks() {
    let r = scenario(
        "add, delete, update",
        &[
            ("src/lib.rs", "fn a() {\n    1\n}\n\nfn b() {\n    2\n}\n\nfn c() {\n    3\n}\n"),
            ("old.txt", "obsolete\n"),
        ],
        &patch(
            "*** Add File: docs/new/guide.md\n+# Guide\n+\n+Read me.\n\
             *** Update File: src/lib.rs\n@@ fn a() {\n-    1\n+    10\n }\n@@ fn c() {\n-    3\n+    30\n }\n\
             *** Delete File: old.txt\n",
        ),
        Expect::Tree(&[
            ("docs/new/guide.md", "# Guide\n\nRead me.\n"),
            ("src/lib.rs", "fn a() {\n    10\n}\n\nfn b() {\n    2\n}\n\nfn c() {\n    30\n}\n"),
        ]),
    );
    let text = result_text(&r);
    assert!(text.starts_with("Applied the patch: 3 files changed (+5 -3)"), "{text}");
    for line in ["A docs/new/guide.md (+3)", "M src/lib.rs (+2 -2)", "D old.txt (-1)"] {
        assert!(text.lines().any(|l| l == line), "{line:?} not in {text}");
    }
    let kinds: Vec<&str> =
        r["artifacts"].as_array().unwrap().iter().map(|a| a["kind"].as_str().unwrap()).collect();
    assert_eq!(kinds, ["created", "modified", "deleted"], "{r}");
}

#[test]
fn moves_into_new_directories_and_over_existing_files() {
    scenario(
        "move into a new directory",
        &[("a.txt", "one\ntwo\n")],
        &patch("*** Update File: a.txt\n*** Move to: deep/er/b.txt\n@@\n one\n-two\n+TWO\n"),
        Expect::Tree(&[("deep/er/b.txt", "one\nTWO\n")]),
    );
    scenario(
        "move over an existing file",
        &[("a.txt", "mine\n"), ("b.txt", "theirs\n")],
        &patch("*** Update File: a.txt\n*** Move to: b.txt\n@@\n-mine\n+moved\n"),
        Expect::Tree(&[("b.txt", "moved\n")]),
    );
}

#[test]
fn a_moved_file_keeps_its_mode_and_a_crlf_file_keeps_crlf() {
    use std::os::unix::fs::PermissionsExt;
    let a = Attack::new();
    let script = a.put("run.sh", "#!/bin/sh\necho old\n");
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o750)).unwrap();
    let dos = a.put("dos.txt", "one\r\ntwo\r\nthree\r\n");
    std::fs::set_permissions(&dos, std::fs::Permissions::from_mode(0o640)).unwrap();
    let mut s = a.session(&["--agent", "patch"]);
    for p in ["run.sh", "dos.txt"] {
        assert_eq!(s.call(p, "read", json!({ "path": p }))["status"], "succeeded");
    }
    let r = s.call(
        "p",
        "apply_patch",
        json!({ "input": patch("*** Update File: run.sh\n*** Move to: bin/run.sh\n@@\n #!/bin/sh\n-echo old\n+echo new\n*** Update File: dos.txt\n@@\n one\n-two\n+TWO\n+two and a half\n three\n") }),
    );
    assert_eq!(r["status"], "succeeded", "{r}");
    let moved = a.ws.join("bin/run.sh");
    assert_eq!(std::fs::read_to_string(&moved).unwrap(), "#!/bin/sh\necho new\n");
    assert_eq!(std::fs::metadata(&moved).unwrap().permissions().mode() & 0o777, 0o750);
    assert_eq!(std::fs::read_to_string(&dos).unwrap(), "one\r\nTWO\r\ntwo and a half\r\nthree\r\n");
    assert_eq!(std::fs::metadata(&dos).unwrap().permissions().mode() & 0o777, 0o640);
    drop(s);
    // Undone, the moved file comes back where it was with its mode; reapplied, it moves again
    // with it.
    let id = a.change_ids().remove(0);
    let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
    assert_eq!(a.run(&[], &["undo", &id]).code, Some(0));
    assert_eq!(std::fs::read_to_string(&script).unwrap(), "#!/bin/sh\necho old\n");
    assert_eq!(mode(&script), 0o750);
    assert!(!moved.exists());
    assert_eq!(a.run(&[], &["reapply", &id]).code, Some(0));
    assert_eq!(mode(&moved), 0o750);
    assert!(!script.exists());
}

#[test]
fn padded_markers_missing_newlines_end_of_file_anchors_and_unicode() {
    scenario(
        "padded markers and hunk headers",
        &[("a.txt", "x\ny\n")],
        "  *** Begin Patch  \n  *** Update File: a.txt  \n  @@  \n x\n-y\n+z\n  *** End Patch  \n",
        Expect::Tree(&[("a.txt", "x\nz\n")]),
    );
    scenario(
        "a file without a final newline",
        &[("a.txt", "first\nlast")],
        &patch("*** Update File: a.txt\n@@\n first\n-last\n+LAST\n"),
        Expect::Tree(&[("a.txt", "first\nLAST\n")]),
    );
    scenario(
        "an end-of-file anchor picks the last of two equal regions",
        &[("a.txt", "end\nmid\nend\n")],
        &patch("*** Update File: a.txt\n@@\n-end\n+END\n*** End of File\n"),
        Expect::Tree(&[("a.txt", "end\nmid\nEND\n")]),
    );
    scenario(
        "Unicode punctuation in the file, ASCII in the patch",
        &[("a.md", "caf\u{e9} \u{2014} \u{201c}quoted\u{201d}\nnext\n")],
        &patch("*** Update File: a.md\n@@\n caf\u{e9} - \"quoted\"\n-next\n+suivant \u{1f600}\n"),
        Expect::Tree(&[("a.md", "caf\u{e9} \u{2014} \u{201c}quoted\u{201d}\nsuivant \u{1f600}\n")]),
    );
    scenario(
        "a pure addition goes to the end, a deletion-only hunk removes",
        &[("a.txt", "keep\ndrop\nkeep too\n")],
        &patch("*** Update File: a.txt\n@@\n keep\n-drop\n keep too\n@@\n+appended\n"),
        Expect::Tree(&[("a.txt", "keep\nkeep too\nappended\n")]),
    );
}

#[test]
fn each_refusal_names_what_is_wrong_and_changes_nothing() {
    let files: &[(&str, &str)] = &[("a.txt", "alpha\nbeta\ngamma\n"), ("dir/keep.txt", "k\n")];
    scenario("an empty patch", files, "", Expect::Refused(&["the patch cannot be read"]));
    scenario(
        "no end marker",
        files,
        "*** Begin Patch\n*** Delete File: a.txt\n",
        Expect::Refused(&["*** End Patch"]),
    );
    scenario(
        "missing context",
        files,
        &patch("*** Update File: a.txt\n@@\n alpha\n-BETA?\n+b\n"),
        Expect::Refused(&["Update File: a.txt", "\"BETA?\"", "closest region", "beta"]),
    );
    scenario(
        "a missing file",
        files,
        &patch("*** Update File: nope.txt\n@@\n-x\n+y\n"),
        Expect::Refused(&["Update File: nope.txt", "no such file"]),
    );
    scenario(
        "deleting a missing file",
        files,
        &patch("*** Delete File: gone.txt\n"),
        Expect::Refused(&["Delete File: gone.txt"]),
    );
    scenario(
        "a bad hunk header",
        files,
        &patch("*** Update File: a.txt\n@@@ nonsense\n-alpha\n+A\n"),
        Expect::Refused(&["line 3", "hunk"]),
    );
    scenario(
        "deleting a directory",
        files,
        &patch("*** Delete File: dir\n"),
        Expect::Refused(&["Delete File: dir", "directory"]),
    );
    // The last operation fails after two that would succeed: none of them is written.
    scenario(
        "a failure in the last operation",
        files,
        &patch(
            "*** Add File: new.txt\n+n\n*** Update File: dir/keep.txt\n@@\n-k\n+K\n\
             *** Update File: a.txt\n@@\n-not there\n+x\n",
        ),
        Expect::Refused(&["Update File: a.txt", "\"not there\""]),
    );
}

/// A file the session did not read may be neither updated, deleted nor added over.
#[test]
fn files_not_read_first_are_refused() {
    let a = Attack::new();
    a.put("a.txt", "one\n");
    let mut s = a.session(&["--agent", "patch"]);
    for (body, op) in [
        ("*** Update File: a.txt\n@@\n-one\n+two\n", "Update File: a.txt"),
        ("*** Delete File: a.txt\n", "Delete File: a.txt"),
        ("*** Add File: a.txt\n+over\n", "Add File: a.txt"),
    ] {
        let r = s.call("p", "apply_patch", json!({ "input": patch(body) }));
        let text = result_text(&r);
        assert_eq!(r["status"], "failed", "{op}: {r}");
        assert!(text.starts_with(op) && text.contains("Read a.txt"), "{op}: {text}");
    }
    assert_eq!(std::fs::read_to_string(a.ws.join("a.txt")).unwrap(), "one\n");
}

/// One file named twice under two names is refused, not waited on for ever.
#[test]
fn one_file_under_two_names_is_refused() {
    let a = Attack::new();
    a.put("a.txt", "one\n");
    std::fs::create_dir_all(a.ws.join("sub")).unwrap();
    let mut s = a.session(&["--agent", "patch"]);
    s.call("r", "read", json!({ "path": "a.txt" }));
    let r = s.call(
        "p",
        "apply_patch",
        json!({ "input": patch("*** Update File: a.txt\n@@\n-one\n+two\n*** Delete File: sub/../a.txt\n") }),
    );
    assert_eq!(r["status"], "failed", "{r}");
    assert!(result_text(&r).contains("already open for writing"), "{r}");
    assert_eq!(std::fs::read_to_string(a.ws.join("a.txt")).unwrap(), "one\n");
}

/// A patch that adds one file, updates another and deletes a third is one change: undone and
/// reapplied whole by its id, with the conflict rules of single-file changes.
#[test]
fn one_patch_is_one_change_undone_and_reapplied_whole() {
    let a = Attack::new();
    a.put("keep.txt", "v1\n");
    a.put("gone.txt", "bye\n");
    let mut s = a.session(&["--agent", "patch"]);
    for p in ["keep.txt", "gone.txt"] {
        s.call(p, "read", json!({ "path": p }));
    }
    let r = s.call(
        "p",
        "apply_patch",
        json!({ "input": patch("*** Add File: made.txt\n+new\n*** Update File: keep.txt\n@@\n-v1\n+v2\n*** Delete File: gone.txt\n") }),
    );
    assert_eq!(r["status"], "succeeded", "{r}");
    drop(s);
    let after = tree(&a.ws);
    let ids = a.change_ids();
    assert_eq!(ids.len(), 3, "three files: {ids:?}");
    assert!(ids.iter().all(|id| *id == ids[0]), "one change id: {ids:?}");

    let undo = a.run(&[], &["undo", &ids[0]]);
    assert_eq!(undo.code, Some(0), "{}", undo.all());
    assert_eq!(tree(&a.ws), owned(&[("gone.txt", "bye\n"), ("keep.txt", "v1\n")]));
    let reapply = a.run(&[], &["reapply", &ids[0]]);
    assert_eq!(reapply.code, Some(0), "{}", reapply.all());
    assert_eq!(tree(&a.ws), after);

    // A file that reappeared where the patch deleted one: the undo is refused whole.
    a.put("gone.txt", "someone else\n");
    let undo = a.run(&[], &["undo", &ids[0]]);
    assert_ne!(undo.code, Some(0), "{}", undo.all());
    assert!(
        undo.stderr.contains("gone.txt") && undo.stderr.contains("already exists"),
        "{}",
        undo.all()
    );
    assert_eq!(std::fs::read_to_string(a.ws.join("keep.txt")).unwrap(), "v2\n");
    assert!(a.ws.join("made.txt").exists());
    let listed = a.run(&[], &["changes"]);
    assert!(listed.stdout.contains("gone.txt (deleted, +0 -1)"), "{}", listed.stdout);
}

/// The host killed after writing two of three files: the next start puts both back from the
/// journal and says so; the call was never recorded.
#[test]
fn a_process_killed_mid_patch_is_put_back_at_the_next_start() {
    let mut a = Attack::new();
    a.put("one.txt", "1\n");
    a.put("two.txt", "2\n");
    a.put("three.txt", "3\n");
    let before = tree(&a.ws);
    a.env.push(("TOOLHOST_TEST_DIE_AFTER_FILES".into(), "2".into()));
    let mut s = a.session(&["--agent", "patch"]);
    for p in ["one.txt", "two.txt", "three.txt"] {
        s.call(p, "read", json!({ "path": p }));
    }
    let answer = s.try_call(
        "p",
        "apply_patch",
        json!({ "input": patch("*** Update File: one.txt\n@@\n-1\n+one\n*** Delete File: two.txt\n*** Update File: three.txt\n@@\n-3\n+three\n") }),
    );
    assert!(answer.is_none(), "the host was to die mid-patch, yet answered: {answer:?}");
    drop(s);
    // Killed after the second file: the first two changed, the third not.
    assert_eq!(std::fs::read_to_string(a.ws.join("one.txt")).unwrap(), "one\n");
    assert!(!a.ws.join("two.txt").exists());
    assert_eq!(std::fs::read_to_string(a.ws.join("three.txt")).unwrap(), "3\n");

    a.env.clear();
    // While a process holds the journal (as a live commit does), another start leaves it be.
    let journals: Vec<_> = std::fs::read_dir(a.data.join("journal"))
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    assert_eq!(journals.len(), 1, "{journals:?}");
    {
        use std::os::fd::AsRawFd;
        let held = std::fs::File::open(&journals[0]).unwrap();
        // SAFETY: an open descriptor.
        assert_eq!(unsafe { libc::flock(held.as_raw_fd(), libc::LOCK_EX) }, 0);
        let meanwhile = a.run(&[], &["changes"]);
        assert!(!meanwhile.stderr.contains("interrupted"), "{}", meanwhile.all());
        assert!(!a.ws.join("two.txt").exists(), "a live change was rolled back under it");
    }
    let next = a.run(&[], &["changes"]);
    assert_eq!(next.code, Some(0), "{}", next.all());
    assert!(
        next.stderr.contains("interrupted part-way; 2 file(s) were put back"),
        "{}",
        next.all()
    );
    assert_eq!(tree(&a.ws), before, "the next start put every file back");
    assert!(a.change_ids().is_empty(), "the interrupted call is not a recorded change");
    let again = a.run(&[], &["changes"]);
    assert!(!again.stderr.contains("interrupted"), "recovered once: {}", again.all());
}

/// Paths go through the fence `write` goes through: outside the workspace, through a symlink
/// out, into git metadata or the data dir — refused, and nothing of the patch is written.
#[test]
fn the_fence_refuses_what_it_refuses_write() {
    let a = Attack::new();
    a.git_init(&a.ws);
    let outside = a.outside_dir("outside");
    std::os::unix::fs::symlink(&outside, a.ws.join("link")).unwrap();
    let data_file = a.data.join("planted.txt");
    let targets = [
        "../outside/escape.txt".to_string(),
        outside.join("abs.txt").display().to_string(),
        "link/through.txt".to_string(),
        ".git/hooks/pre-commit".to_string(),
        ".git/config".to_string(),
        data_file.display().to_string(),
    ];
    for target in &targets {
        let write = a.call_with(&["--agent", "patch"], "apply_patch", json!({
            "input": patch(&format!("*** Add File: inside.txt\n+fine\n*** Add File: {target}\n+#!/bin/sh\n+echo pwned\n"))
        }));
        assert_eq!(write.status(), "failed", "{target}: {}", write.all());
        assert!(
            write.text().contains(&format!("Add File: {target}")),
            "{target}: {}",
            write.text()
        );
        assert!(!a.ws.join("inside.txt").exists(), "{target}: the rest of the patch was written");
    }
    assert_eq!(std::fs::read_dir(&outside).unwrap().count(), 0, "a file landed outside");
    assert!(!data_file.exists());
    assert!(!a.ws.join(".git/hooks/pre-commit").exists());
    // A move out of the workspace is refused the same way.
    a.put("a.txt", "x\n");
    let mut s = a.session(&["--agent", "patch"]);
    s.call("r", "read", json!({ "path": "a.txt" }));
    let r = s.call(
        "m",
        "apply_patch",
        json!({ "input": patch("*** Update File: a.txt\n*** Move to: ../outside/moved.txt\n@@\n-x\n+y\n") }),
    );
    assert_eq!(r["status"], "failed", "{r}");
    assert_eq!(std::fs::read_to_string(a.ws.join("a.txt")).unwrap(), "x\n");
    assert_eq!(std::fs::read_dir(&outside).unwrap().count(), 0);
}

/// `apply_patch` is offered only when chosen: beside the seven with `--tools`, in place of
/// write and edit with `--agent patch`; the default toolset stays the seven.
#[test]
fn offered_only_when_chosen() {
    let a = Attack::new();
    let ids = |global: &[&str]| -> Vec<String> {
        let out = a.run(global, &["tools", "--json"]);
        assert_eq!(out.code, Some(0), "{}", out.all());
        let defs: Value = serde_json::from_str(&out.stdout).unwrap();
        defs.as_array()
            .unwrap()
            .iter()
            .map(|d| d["id"].as_str().or(d["name"].as_str()).unwrap().to_string())
            .collect()
    };
    assert_eq!(ids(&[]), ["read", "write", "edit", "grep", "glob", "list", "bash"]);
    assert_eq!(ids(&["--agent", "patch"]), ["read", "apply_patch", "grep", "glob", "list", "bash"]);
    assert_eq!(
        ids(&["--tools", "read,write,edit,apply_patch"]),
        ["read", "write", "edit", "apply_patch"]
    );
    let out = a.run(&["--agent", "patch"], &["tools", "--json"]);
    let defs: Value = serde_json::from_str(&out.stdout).unwrap();
    let description = defs[1]["description"].as_str().unwrap();
    for needle in ["*** Begin Patch", "*** Update File:", "*** Move to:", "@@", "`read`"] {
        assert!(
            description.contains(needle),
            "the description does not teach {needle:?}: {description}"
        );
    }
    // A call to it without choosing it is tool_not_found, as for any tool outside the set.
    let r = a.call("apply_patch", json!({ "input": patch("*** Add File: x.txt\n+x\n") }));
    assert_eq!(r.status(), "failed", "{}", r.all());
    assert!(!a.ws.join("x.txt").exists());
}

/// An oversized patch is refused before anything is parsed.
#[test]
fn a_patch_over_the_limit_is_refused() {
    let a = Attack::new();
    let line = format!("+{}\n", "x".repeat(1023));
    let body: String = std::iter::repeat_n(line.as_str(), 8 * 1024 + 16).collect();
    let mut s = a.session(&["--agent", "patch"]);
    let r = s.call(
        "big",
        "apply_patch",
        json!({ "input": patch(&format!("*** Add File: big.txt\n{body}")) }),
    );
    assert_eq!(r["status"], "failed", "{r}");
    assert!(result_text(&r).contains("the limit is 8 MiB"), "{}", result_text(&r));
    assert!(!a.ws.join("big.txt").exists());
}

/// Over MCP: `--agent patch` lists apply_patch with its schema, and a read then a patch
/// change the files, the result text being the summary.
#[test]
fn over_mcp_a_patch_is_one_call() {
    let a = Attack::new();
    a.put("a.txt", "one\n");
    let mut m = a.mcp(&["--agent", "patch"]);
    let list = m.request("tools/list", json!({}));
    let tools = list["result"]["tools"].as_array().unwrap();
    let names: Vec<&str> = tools.iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["read", "apply_patch", "grep", "glob", "list", "bash"], "{list}");
    let schema = &tools[1]["inputSchema"];
    assert_eq!(schema["required"], json!(["input"]), "{schema}");
    let read = m.call_tool("read", json!({ "path": "a.txt" }));
    assert_eq!(read["result"]["isError"], false, "{read}");
    let r = m.call_tool(
        "apply_patch",
        json!({ "input": patch("*** Update File: a.txt\n@@\n-one\n+two\n*** Add File: b.txt\n+b\n") }),
    );
    assert_eq!(r["result"]["isError"], false, "{r}");
    let text = r["result"]["content"][0]["text"].as_str().unwrap();
    assert!(text.starts_with("Applied the patch: 2 files changed (+2 -1)"), "{text}");
    assert_eq!(tree(&a.ws), owned(&[("a.txt", "two\n"), ("b.txt", "b\n")]));
}

/// Outside the workspace only with an approved grant, as for `write`: `sandboxPermissions`
/// widens the one call to the granted file, never to the data dir.
#[test]
fn an_approved_grant_lets_one_patch_write_outside() {
    let a = Attack::new();
    if !a.sandbox_or_skip("an_approved_grant_lets_one_patch_write_outside") {
        return;
    }
    let outside = a.outside_dir("granted");
    let target = outside.join("granted.txt");
    let add = |path: &Path| patch(&format!("*** Add File: {}\n+granted\n", path.display()));
    let global = ["--agent", "patch", "--allow-escalation"];
    let without = a.call_with(&global, "apply_patch", json!({ "input": add(&target) }));
    assert_eq!(without.status(), "failed", "{}", without.all());
    assert!(!target.exists());
    let with = a.call_with(
        &global,
        "apply_patch",
        json!({
            "input": add(&target),
            "sandboxPermissions": {"paths": [{"path": target, "access": "write", "scope": "exact"}]},
            "justification": "the user asked for it there"
        }),
    );
    assert_eq!(with.status(), "succeeded", "{}", with.all());
    assert_eq!(std::fs::read_to_string(&target).unwrap(), "granted\n");
    let planted = a.data.join("spill/planted.txt");
    let data = a.call_with(
        &global,
        "apply_patch",
        json!({
            "input": add(&planted),
            "sandboxPermissions": {"paths": [{"path": a.data, "access": "write", "scope": "subtree"}]},
            "justification": "please"
        }),
    );
    assert_eq!(data.status(), "failed", "{}", data.all());
    assert!(!planted.exists());
}

/// A patch naming more files than one change may write is refused, and nothing is written.
#[test]
fn a_patch_over_the_file_bound_is_refused() {
    let a = Attack::new();
    let body: String = (0..1001).map(|i| format!("*** Add File: many/f{i}.txt\n+x\n")).collect();
    let mut s = a.session(&["--agent", "patch"]);
    let r = s.call("many", "apply_patch", json!({ "input": patch(&body) }));
    assert_eq!(r["status"], "failed", "{r}");
    assert!(result_text(&r).contains("more than 1000 files"), "{}", result_text(&r));
    assert!(!a.ws.join("many").exists());
}
