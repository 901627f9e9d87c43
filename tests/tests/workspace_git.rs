//! `workspace_git` through the built binary (`--agent workspace`), over a real repository made
//! in the test — commits, branches, a rename, staged, unstaged and untracked files, names with
//! a newline, a tab, a quote, `é` and bytes that are not UTF-8 — compared with what `git`
//! itself prints. Git never runs what the repository configures: a planted `core.fsmonitor`,
//! hook, textconv driver, clean filter, pager or external diff is shown to fire under plain
//! git first, then never fires through the tool. Every refusal of the input is tested, and the
//! workspace is left exactly as it was (the tool is read-only).

use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;
use std::process::Command;

use serde_json::{Value, json};
use toolhost_tests::attack::{Attack, marker, promise};

/// `git` in `dir`, natively (the test's own runs: fixture making and the ground truth), with
/// no user or system config.
fn git(dir: &Path, args: &[&str]) -> Vec<u8> {
    git_os(dir, &args.iter().map(OsStr::new).collect::<Vec<_>>())
}

fn git_os(dir: &Path, args: &[&OsStr]) -> Vec<u8> {
    let out = Command::new("git")
        .current_dir(dir)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_AUTHOR_NAME", "Ada Tester")
        .env("GIT_AUTHOR_EMAIL", "ada@example.com")
        .env("GIT_COMMITTER_NAME", "Ada Tester")
        .env("GIT_COMMITTER_EMAIL", "ada@example.com")
        .args(["--no-optional-locks", "-c", "init.defaultBranch=main", "-c", "core.quotePath=true"])
        .args(args)
        .output()
        .expect("run git");
    assert!(out.status.success(), "git {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    out.stdout
}

fn git_text(dir: &Path, args: &[&str]) -> String {
    String::from_utf8(git(dir, args)).unwrap()
}

/// `toolhost --agent workspace call workspace_git INPUT --json`.
fn call(a: &Attack, input: Value) -> Value {
    a.workspace_call("workspace_git", input)
}

fn ok(a: &Attack, input: Value) -> Value {
    let r = call(a, input.clone());
    assert_eq!(r["status"], "succeeded", "{input}: {r}");
    assert_eq!(r["structuredContent"]["success"], true, "{r}");
    r
}

/// A repository with history on two branches, a rename staged, a change unstaged, a new file
/// staged and hostile untracked names.
fn repo(a: &Attack) -> &Path {
    let ws = a.ws.as_path();
    git(ws, &["init", "-q"]);
    a.put("README.md", "# demo\n\nfirst\n");
    a.put("src/lib.rs", "pub fn one() -> u32 {\n    1\n}\n");
    a.put("old_name.txt", "to be renamed\nwith enough lines\nto be seen as a rename\n");
    git(ws, &["add", "-A"]);
    git(ws, &["commit", "-q", "-m", "first commit"]);
    git(ws, &["branch", "feature/x"]);
    a.put("README.md", "# demo\n\nfirst\nsecond\n");
    git(ws, &["commit", "-q", "-am", "second: the readme grows"]);
    git(ws, &["mv", "old_name.txt", "new_name.txt"]);
    a.put("added.txt", "new\n");
    git(ws, &["add", "added.txt"]);
    a.put("src/lib.rs", "pub fn one() -> u32 {\n    2\n}\n");
    a.put("line\nbreak.txt", "x\n");
    a.put("tab\there.txt", "x\n");
    a.put("quote\"d.txt", "x\n");
    a.put("café.txt", "x\n");
    std::fs::write(ws.join(OsStr::from_bytes(b"latin1-\xe9.txt")), "x\n").unwrap();
    std::fs::write(ws.join(OsStr::from_bytes(b"latin1-\xe8.txt")), "x\n").unwrap();
    ws
}

/// Every file of the workspace with its bytes, to prove nothing changed.
fn snapshot(dir: &Path) -> Vec<(Vec<u8>, Vec<u8>)> {
    let mut all = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else {
                let bytes = std::fs::read(&p).unwrap_or_default();
                all.push((p.as_os_str().as_bytes().to_vec(), bytes));
            }
        }
    }
    all.sort();
    all
}

#[test]
fn status_lists_what_git_lists_with_hostile_names_unambiguous() {
    let a = Attack::new();
    if !a.sandbox_or_skip("workspace_git status") {
        return;
    }
    let ws = repo(&a);
    let before = snapshot(ws);
    let r = ok(&a, json!({"operation": "status"}));
    let s = &r["structuredContent"];
    assert_eq!(s["operation"], "status");
    assert_eq!(s["current_branch"], "main", "{s}");
    let files = s["files"].as_array().unwrap_or_else(|| panic!("no files: {s}"));
    let paths: Vec<&str> = files.iter().map(|f| f["path"].as_str().unwrap()).collect();
    // Git's own list (porcelain v2, NUL-separated): the same number of entries.
    let truth = git(ws, &["status", "--porcelain=v2", "-z", "--untracked-files=all"]);
    let mut count = 0;
    let mut fields = truth.split(|b| *b == 0).filter(|f| !f.is_empty()).peekable();
    while let Some(entry) = fields.next() {
        count += 1;
        if entry.starts_with(b"2 ") {
            fields.next(); // a rename's original path
        }
    }
    assert_eq!(files.len(), count, "{s}");
    for name in
        ["line\nbreak.txt", "tab\there.txt", "quote\"d.txt", "café.txt", "added.txt", "src/lib.rs"]
    {
        assert!(paths.contains(&name), "{name:?} missing or mangled: {paths:?}");
    }
    let renamed = files.iter().find(|f| f["path"] == "new_name.txt").expect("the rename");
    assert_eq!(renamed["orig_path"], "old_name.txt", "{renamed}");
    let untracked: Vec<&Value> = files.iter().filter(|f| f["kind"] == "untracked").collect();
    assert_eq!(untracked.len(), 6, "{s}");
    // Two names that differ only in a byte that is not UTF-8 stay two different paths.
    let latin: Vec<&str> = paths.iter().copied().filter(|p| p.contains("latin1-")).collect();
    assert_eq!(latin.len(), 2, "{paths:?}");
    assert_ne!(latin[0], latin[1], "non-UTF-8 names collapsed into one: {latin:?}");
    // The text the model sees shows every entry on its own line: the newline is escaped.
    let text = r["content"][0]["text"].as_str().unwrap();
    assert!(text.contains(r#""line\nbreak.txt""#), "{text}");
    assert!(!text.contains("line\nbreak.txt"), "{text}");
    let after = snapshot(ws);
    let changed: Vec<String> = after
        .iter()
        .filter(|e| !before.contains(e))
        .chain(before.iter().filter(|e| !after.contains(e)))
        .map(|(p, _)| String::from_utf8_lossy(p).into_owned())
        .collect();
    assert!(changed.is_empty(), "workspace_git changed the workspace: {changed:?}");
}

#[test]
fn log_branch_diff_and_show_match_git() {
    let a = Attack::new();
    if !a.sandbox_or_skip("workspace_git log") {
        return;
    }
    let ws = repo(&a);
    // log: hashes, subjects and authors in git's order.
    let r = ok(&a, json!({"operation": "log"}));
    let commits = r["structuredContent"]["commits"].as_array().unwrap().clone();
    let hashes: Vec<&str> = commits.iter().map(|c| c["hash"].as_str().unwrap()).collect();
    let truth = git_text(ws, &["log", "--format=%H"]);
    assert_eq!(hashes, truth.lines().collect::<Vec<_>>());
    assert_eq!(commits[0]["subject"], "second: the readme grows");
    assert_eq!(commits[0]["author"], "Ada Tester");
    let r = ok(&a, json!({"operation": "log", "max_count": 1}));
    assert_eq!(r["structuredContent"]["commits"].as_array().unwrap().len(), 1, "{r}");
    let r = ok(&a, json!({"operation": "log", "pathspecs": ["src"]}));
    assert_eq!(r["structuredContent"]["commits"].as_array().unwrap().len(), 1, "{r}");

    // branch: the local branches, the current one marked.
    let r = ok(&a, json!({"operation": "branch"}));
    let s = &r["structuredContent"];
    let names: Vec<&str> =
        s["branches"].as_array().unwrap().iter().map(|b| b["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["feature/x", "main"], "{s}");
    assert_eq!(s["current_branch"], "main");

    // diff: what `git diff` prints (unstaged), and the staged side with pathspecs.
    let r = ok(&a, json!({"operation": "diff"}));
    let out = r["structuredContent"]["stdout"].as_str().unwrap();
    assert_eq!(out, git_text(ws, &["diff", "--no-color", "--no-ext-diff"]), "{r}");
    assert_eq!(r["structuredContent"]["stdout_truncated"], false);

    // show: a revision by branch name, by HEAD~1 and by hash.
    for rev in ["feature/x", "HEAD~1", &git_text(ws, &["rev-parse", "HEAD~1"])[..12]] {
        let r = ok(&a, json!({"operation": "show", "revision": rev}));
        let out = r["structuredContent"]["stdout"].as_str().unwrap();
        assert!(out.contains("first commit"), "{rev}: {r}");
    }
}

#[test]
fn diff_past_max_bytes_keeps_head_and_tail_and_says_so() {
    let a = Attack::new();
    if !a.sandbox_or_skip("workspace_git max_bytes") {
        return;
    }
    let ws = a.ws.as_path();
    git(ws, &["init", "-q"]);
    let lines: String = (0..20_000).map(|i| format!("line {i} of a long file\n")).collect();
    a.put("big.txt", &lines);
    git(ws, &["add", "-A"]);
    git(ws, &["commit", "-q", "-m", "big"]);
    a.put("big.txt", lines.replace("line", "LINE"));
    let r = ok(&a, json!({"operation": "diff", "max_bytes": 4096}));
    let s = &r["structuredContent"];
    assert_eq!(s["stdout_truncated"], true, "{s}");
    let out = s["stdout"].as_str().unwrap();
    assert!(out.len() <= 4096 + 512, "{} bytes", out.len());
    assert!(out.starts_with("diff --git a/big.txt b/big.txt"), "{out}");
    assert!(out.trim_end().ends_with("+LINE 19999 of a long file"), "{out}");
    // The model's text is bounded too.
    assert!(r["content"][0]["text"].as_str().unwrap().len() <= 32_000);
    // The default bound is 262,144 bytes.
    let r = ok(&a, json!({"operation": "diff"}));
    let out = r["structuredContent"]["stdout"].as_str().unwrap();
    assert!(out.len() <= 262_144 + 512 && out.len() > 200_000, "{}", out.len());
    assert!(r["content"][0]["text"].as_str().unwrap().len() <= 32_000);
}

/// Each planted program prints a marker and writes a marker file. Plain git runs them (so the
/// plants are live); through workspace_git none runs.
#[test]
fn git_never_runs_what_the_repository_configures() {
    let a = Attack::new();
    if !a.sandbox_or_skip("workspace_git planted programs") {
        return;
    }
    let ws = repo(&a);
    let m = marker("GITRUN");
    let proof = a.outside_dir("proof");
    let script = |name: &str| {
        let path = proof.join(name);
        std::fs::write(
            &path,
            format!(
                "#!/bin/sh\necho {m}-{name}\necho {m}-{name} >&2\ntouch {}/{name}.ran\ncat\n",
                proof.display()
            ),
        )
        .unwrap();
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
        path.display().to_string()
    };
    let fsmonitor = script("fsmonitor");
    let textconv = script("textconv");
    let clean = script("clean");
    let pager = script("pager");
    let external = script("external");
    let hook = script("hook");
    let config = ws.join(".git/config");
    let mut text = std::fs::read_to_string(&config).unwrap();
    text.push_str(&format!(
        "[core]\n\tfsmonitor = {fsmonitor}\n\tpager = {pager}\n\thooksPath = {hooks}\n[diff \"evil\"]\n\ttextconv = {textconv}\n[filter \"evil\"]\n\tclean = {clean}\n\tsmudge = {clean}\n[diff]\n\texternal = {external}\n[pager]\n\tdiff = {pager}\n\tlog = {pager}\n",
        hooks = proof.join("hooks").display()
    ));
    std::fs::write(&config, text).unwrap();
    std::fs::create_dir_all(proof.join("hooks")).unwrap();
    std::fs::copy(&hook, proof.join("hooks/post-index-change")).unwrap();
    a.put(".gitattributes", "*.txt diff=evil filter=evil\n*.md diff=evil filter=evil\n");
    a.put("README.md", "# demo\n\nfirst\nsecond\nthird\n");

    // The plants are live: plain git in a copy of the repository runs them.
    let copy = a.outside_dir("copy");
    let status =
        Command::new("cp").arg("-a").arg(format!("{}/.", ws.display())).arg(&copy).status();
    assert!(status.unwrap().success());
    let live = Command::new("git")
        .current_dir(&copy)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .args(["diff", "HEAD"])
        .output()
        .unwrap();
    let live = format!(
        "{}{}",
        String::from_utf8_lossy(&live.stdout),
        String::from_utf8_lossy(&live.stderr)
    );
    assert!(live.contains(&m), "the planted drivers did not fire under plain git: {live}");
    for f in std::fs::read_dir(&proof).unwrap() {
        let p = f.unwrap().path();
        if p.extension().is_some_and(|e| e == "ran") {
            std::fs::remove_file(p).unwrap();
        }
    }

    for input in [
        json!({"operation": "status"}),
        json!({"operation": "diff"}),
        json!({"operation": "diff", "pathspecs": ["README.md"]}),
        json!({"operation": "log"}),
        json!({"operation": "show", "revision": "HEAD"}),
        json!({"operation": "branch"}),
    ] {
        let r = call(&a, input.clone());
        promise(!r.to_string().contains(&m), || format!("a planted program ran for {input}: {r}"));
        let ran: Vec<String> = std::fs::read_dir(&proof)
            .unwrap()
            .map(|f| f.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n.ends_with(".ran"))
            .collect();
        promise(ran.is_empty(), || format!("planted programs ran for {input}: {ran:?}"));
        assert_eq!(r["status"], "succeeded", "{input}: {r}");
    }
}

#[test]
fn every_refusal_says_what_is_accepted_and_runs_nothing() {
    let a = Attack::new();
    if !a.sandbox_or_skip("workspace_git refusals") {
        return;
    }
    repo(&a);
    let outside = a.outside_dir("elsewhere");
    for (input, says) in [
        (json!({"operation": "show", "revision": "HEAD..main"}), "HEAD"),
        (json!({"operation": "show", "revision": "main...feature/x"}), "HEAD"),
        (json!({"operation": "show", "revision": "HEAD@{1}"}), "HEAD"),
        (json!({"operation": "show", "revision": "origin/main"}), "HEAD"),
        (json!({"operation": "show", "revision": "HEAD:README.md"}), "HEAD"),
        (json!({"operation": "show", "revision": "--output=/tmp/x"}), "HEAD"),
        (json!({"operation": "show", "revision": "nosuchbranch"}), "HEAD"),
        (json!({"operation": "diff", "pathspecs": ["/etc/passwd"]}), "relative"),
        (json!({"operation": "diff", "pathspecs": ["../x"]}), ".."),
        (json!({"operation": "diff", "pathspecs": ["src/../../x"]}), ".."),
        (json!({"operation": "log", "pathspecs": [":(glob)**"]}), "magic"),
        (json!({"operation": "log", "max_count": 0}), "100"),
        (json!({"operation": "log", "max_count": 101}), "100"),
        (json!({"operation": "status", "cwd": outside.to_str().unwrap()}), ""),
        (json!({"operation": "status", "cwd": "../"}), ""),
        (json!({"operation": "push"}), "status"),
        (json!({"operation": "status", "sandbox_root": "/"}), "sandbox_root"),
    ] {
        let r = call(&a, input.clone());
        assert_eq!(r["status"], "failed", "{input}: {r}");
        let text = r["content"][0]["text"].as_str().unwrap();
        assert!(text.contains(says), "{input}: the refusal does not say {says:?}: {text}");
        let code = r["error"]["code"].as_str().unwrap();
        assert!(["invalid_arguments", "permission_denied"].contains(&code), "{input}: {code}: {r}");
        if let Some(kind) = r["structuredContent"]["error_kind"].as_str() {
            assert!(kind.starts_with("LOCAL_EXECUTOR_"), "{r}");
            assert_eq!(r["structuredContent"]["terminal"], true, "{r}");
        }
    }
    // Not a repository: a failure of its own kind.
    let plain = Attack::new();
    let r = call(&plain, json!({"operation": "status"}));
    assert_eq!(r["status"], "failed", "{r}");
    assert_eq!(r["structuredContent"]["error_kind"], "LOCAL_EXECUTOR_NOT_A_REPOSITORY", "{r}");
}

#[test]
fn a_session_and_a_real_mcp_client_get_the_same_answers() {
    let a = Attack::new();
    if !a.sandbox_or_skip("workspace_git session") {
        return;
    }
    repo(&a);
    let mut session = a.session(&["--agent", "workspace"]);
    let r = session.call("s1", "workspace_git", json!({"operation": "branch"}));
    assert_eq!(r["structuredContent"]["current_branch"], "main", "{r}");
    let r =
        session.call("s2", "workspace_git", json!({"operation": "show", "revision": "HEAD..x"}));
    assert_eq!(r["status"], "failed", "{r}");
}

/// `cwd` is relative to the workspace root (docs/workspace-tools.md): `..` above the root, an absolute path
/// (even the workspace's own) and a symlink out are refused before git runs, as a refused
/// path naming the field — the same rule and words as every workspace tool.
#[test]
fn a_cwd_outside_the_workspace_is_refused_naming_the_field() {
    let a = Attack::new();
    git(&a.ws, &["init", "-q"]);
    let outside = a.outside_dir("elsewhere");
    git(&outside, &["init", "-q"]);
    std::fs::write(outside.join("secret-7f3a.txt"), "x\n").unwrap();
    std::os::unix::fs::symlink(&outside, a.ws.join("link")).unwrap();
    let (inside, elsewhere) = (a.ws.display().to_string(), outside.display().to_string());
    for cwd in ["..", "../", "../elsewhere", inside.as_str(), elsewhere.as_str(), "link"] {
        let r = call(&a, json!({"operation": "status", "cwd": cwd}));
        assert_eq!(r["status"], "failed", "{cwd}: {r}");
        let s = &r["structuredContent"];
        assert_eq!(s["error_kind"], "LOCAL_EXECUTOR_PATH_DENIED", "{cwd}: {r}");
        assert!(s["error"].as_str().unwrap().starts_with("`cwd`: "), "{cwd}: {r}");
        assert!(!r.to_string().contains("7f3a"), "{cwd}: git ran outside: {r}");
    }
}
