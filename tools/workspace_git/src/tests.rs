//! The whole flow against real git in temporary repositories: a [`NativeGit`] runner runs
//! exactly the argument lists and environment the component gives `process.run`, returning
//! stdout the way the host does (lossy text up to 16 KiB, the raw bytes past it).

use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;
use toolhost_sdk::error_kinds::ErrorKind;
use toolhost_sdk::limits::{BASH_HEAD_BYTES, BASH_TAIL_BYTES};
use toolhost_sdk::{ErrorCode, parse_input};

use crate::failure::GitFailure;
use crate::hardening::{ENV, PROGRAM};
use crate::input::{GitInput, check};
use crate::report::Sink;
use crate::runner::{Git, GitRun, Keep};
use crate::{finish, flow};
use toolhost_sdk::head_tail::Kept;

/// git run natively, as the host would run it.
pub struct NativeGit {
    pub dir: PathBuf,
    pub runs: Vec<Vec<String>>,
}

impl Git for NativeGit {
    fn run(&mut self, args: &[String], keep: Keep) -> Result<GitRun, GitFailure> {
        self.runs.push(args.to_vec());
        let out = Command::new(PROGRAM)
            .args(args)
            .current_dir(&self.dir)
            .envs(ENV.iter().copied())
            .output()
            .map_err(|e| GitFailure::new(ErrorKind::SpawnFailed, e.to_string()))?;
        let limit = match keep {
            Keep::Whole => usize::MAX,
            Keep::HeadTail(n) => n,
        };
        let stdout = if out.stdout.len() <= BASH_HEAD_BYTES + BASH_TAIL_BYTES {
            Kept::of(String::from_utf8_lossy(&out.stdout).as_bytes(), limit)
        } else {
            Kept::of(&out.stdout, limit)
        };
        Ok(GitRun {
            code: out.status.code().unwrap_or(-1),
            stdout,
            stdout_saved: None,
            stdout_incomplete: false,
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        })
    }
}

/// A spill kept in memory.
#[derive(Default)]
struct MemorySink(Vec<String>);

impl Sink for MemorySink {
    fn line(&mut self, line: &str) {
        self.0.push(line.to_owned());
    }
    fn finish(&mut self) -> Option<(String, bool)> {
        Some(("/spill/whole.txt".into(), false))
    }
}

/// Runs plain git for setting a repository up (never through the tool's argv).
fn sh_git(dir: &Path, args: &[&str]) -> String {
    let out = Command::new("git")
        .args(["-c", "user.name=Test Author", "-c", "user.email=test@example.com"])
        .args(args)
        .current_dir(dir)
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_AUTHOR_DATE", "2026-01-02T03:04:05+01:00")
        .env("GIT_COMMITTER_DATE", "2026-01-02T03:04:05+01:00")
        .output()
        .unwrap();
    assert!(out.status.success(), "git {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn write(dir: &Path, name: impl AsRef<OsStr>, text: &str) {
    std::fs::write(dir.join(name.as_ref()), text).unwrap();
}

fn repo() -> tempfile::TempDir {
    let tmp = tempfile::tempdir().unwrap();
    sh_git(tmp.path(), &["init", "-q", "-b", "main", "."]);
    tmp
}

/// A call as the component makes it, natively: the structured value and the text.
fn call(dir: &Path, input: Value) -> (Value, String, Vec<Vec<String>>) {
    let parsed: GitInput = parse_input(&input.to_string()).unwrap();
    let mut git = NativeGit { dir: dir.to_path_buf(), runs: Vec::new() };
    let result = check(&parsed).and_then(|checked| {
        git.dir = dir.join(checked.cwd.as_deref().unwrap_or("."));
        flow::run(&mut git, &checked)
    });
    let output = finish(parsed.operation, result, &mut MemorySink::default()).unwrap();
    (output.structured.unwrap(), output.text, git.runs)
}

const ODD_NAMES: [&[u8]; 6] = [
    b"new\nline.txt",
    b"tab\there.txt",
    b"quo\"te.txt",
    "caf\u{e9}.txt".as_bytes(),
    b"bad\xff.txt",
    b"bad\xfe.txt",
];

/// A repository with every kind of status entry: modified, renamed (one to an odd name),
/// staged, deleted, and untracked files with odd names.
fn odd_status_repo() -> tempfile::TempDir {
    let tmp = repo();
    let dir = tmp.path();
    write(dir, "keep.txt", "keep\n");
    write(dir, "old.txt", "a file long enough to be recognised after its rename\n");
    write(dir, "gone.txt", "gone\n");
    write(dir, "orig-\u{e9}.txt", "another file long enough to be recognised when renamed\n");
    sh_git(dir, &["add", "."]);
    sh_git(dir, &["commit", "-q", "-m", "first"]);
    sh_git(dir, &["mv", "old.txt", "renamed.txt"]);
    let moved = Command::new("git")
        .args(["mv", "orig-\u{e9}.txt"])
        .arg(OsStr::from_bytes(b"moved\nto\t\"bad\xff.txt"))
        .current_dir(dir)
        .status()
        .unwrap();
    assert!(moved.success());
    write(dir, "keep.txt", "changed\n");
    write(dir, "staged.txt", "new\n");
    sh_git(dir, &["add", "staged.txt"]);
    std::fs::remove_file(dir.join("gone.txt")).unwrap();
    for name in ODD_NAMES {
        write(dir, OsStr::from_bytes(name), "x\n");
    }
    tmp
}

#[test]
fn status_parses_real_output_with_odd_names() {
    let tmp = odd_status_repo();
    let dir = tmp.path();
    let (value, text, runs) = call(dir, serde_json::json!({"operation": "status"}));
    assert_eq!(value["success"], true, "{value}");
    assert_eq!(value["current_branch"], "main");
    let files = value["files"].as_array().unwrap();
    let find = |path: &str| {
        files.iter().find(|f| f["path"] == path).unwrap_or_else(|| panic!("{path} in {value}"))
    };
    let renamed = find("renamed.txt");
    assert_eq!(
        (renamed["kind"].as_str(), renamed["orig_path"].as_str()),
        (Some("renamed"), Some("old.txt"))
    );
    assert_eq!(renamed["score"], 100);
    let moved = find(r#""moved\nto\t\"bad\xff.txt""#);
    assert_eq!(
        (moved["kind"].as_str(), moved["orig_path"].as_str()),
        (Some("renamed"), Some("orig-é.txt"))
    );
    assert_eq!(
        (find("keep.txt")["index"].as_str(), find("keep.txt")["worktree"].as_str()),
        (Some("."), Some("M"))
    );
    assert_eq!(find("staged.txt")["index"], "A");
    assert_eq!(find("gone.txt")["worktree"], "D");
    for name in ["new\nline.txt", "tab\there.txt", "quo\"te.txt", "café.txt"] {
        assert_eq!(find(name)["kind"], "untracked", "{name}");
    }
    find(r#""bad\xff.txt""#);
    find(r#""bad\xfe.txt""#);
    for line in [
        "## main",
        " M keep.txt",
        "R  old.txt -> renamed.txt",
        r#"R  orig-é.txt -> "moved\nto\t\"bad\xff.txt""#,
        "A  staged.txt",
        " D gone.txt",
        r#"?? "new\nline.txt""#,
        r#"?? "tab\there.txt""#,
        r#"?? quo"te.txt"#,
        "?? café.txt",
        r#"?? "bad\xff.txt""#,
    ] {
        assert!(text.lines().any(|l| l == line), "{line:?} in\n{text}");
    }
    assert!(value["summary"].as_str().unwrap().starts_with("on branch main; "));
    std::fs::create_dir(dir.join("sub")).unwrap();
    write(dir, "sub/inner.txt", "x\n");
    write(dir, "sub/other.txt", "x\n");
    let input =
        serde_json::json!({"operation": "status", "cwd": "sub", "pathspecs": ["inner.txt"]});
    let (sub, _, _) = call(dir, input);
    let paths: Vec<&str> =
        sub["files"].as_array().unwrap().iter().map(|f| f["path"].as_str().unwrap()).collect();
    assert_eq!(paths, ["sub/inner.txt"], "relative to the repository's top");
    let status_run = runs.last().unwrap();
    assert!(status_run.windows(2).any(|w| w == ["-c", "core.quotePath=true"]));
    assert!(status_run.contains(&"--porcelain=v2".to_owned()));
}

/// Three commits (the second on branch `feature` too, the third tagged `v1`) and a change
/// not yet committed.
fn history_repo() -> tempfile::TempDir {
    let tmp = repo();
    let dir = tmp.path();
    write(dir, "a.txt", "one\n");
    sh_git(dir, &["add", "."]);
    sh_git(dir, &["commit", "-q", "-m", "first commit"]);
    write(dir, "a.txt", "one\ntwo\n");
    sh_git(dir, &["commit", "-q", "-am", "second: é and \"quotes\""]);
    sh_git(dir, &["branch", "feature"]);
    write(dir, "a.txt", "one\ntwo\nthree\n");
    sh_git(dir, &["commit", "-q", "-am", "third"]);
    sh_git(dir, &["tag", "v1"]);
    write(dir, "a.txt", "one\ntwo\nthree\nfour\n");
    tmp
}

#[test]
fn log_show_diff_and_branch_against_real_history() {
    let tmp = history_repo();
    let dir = tmp.path();

    let (value, text, _) = call(dir, serde_json::json!({"operation": "log"}));
    let commits = value["commits"].as_array().unwrap();
    assert_eq!(commits.len(), 3);
    assert_eq!(commits[0]["subject"], "third");
    assert_eq!(commits[1]["subject"], "second: é and \"quotes\"");
    assert_eq!(commits[2]["author"], "Test Author");
    assert_eq!(commits[2]["email"], "test@example.com");
    assert_eq!(commits[2]["date"], "2026-01-02T03:04:05+01:00");
    assert_eq!(commits[0]["hash"].as_str().unwrap().len(), 40);
    assert_eq!(text.lines().count(), 3);
    assert!(text.lines().next().unwrap().ends_with(" 2026-01-02 Test Author: third"), "{text}");

    let (value, _, _) =
        call(dir, serde_json::json!({"operation": "log", "max_count": 1, "revision": "feature"}));
    assert_eq!(value["commits"][0]["subject"], "second: é and \"quotes\"");
    assert_eq!(value["commits"].as_array().unwrap().len(), 1);

    let first = sh_git(dir, &["rev-parse", "HEAD~2"]).trim().to_owned();
    for revision in ["HEAD~2", "HEAD^^", "feature~1", &first[..7], &first, "refs/heads/feature^"] {
        let (value, text, _) =
            call(dir, serde_json::json!({"operation": "show", "revision": revision}));
        assert_eq!(value["success"], true, "{revision}: {value}");
        assert!(text.starts_with(&format!("commit {first}")), "{revision}: {text}");
        assert!(text.contains("first commit"));
    }
    let (value, text, _) = call(dir, serde_json::json!({"operation": "show"}));
    assert!(text.contains("+three") && value["stdout"].as_str().unwrap().contains("+three"));
    assert_eq!(value["stdout_truncated"], false);

    for refused in ["v1", "origin/main", "nosuch", "HEAD~9", "abcdef1"] {
        let (value, text, _) =
            call(dir, serde_json::json!({"operation": "show", "revision": refused}));
        assert_eq!(value["success"], false, "{refused}");
        assert_eq!(value["error_kind"], "LOCAL_EXECUTOR_INVALID_INPUT", "{refused}");
        assert!(text.starts_with(&format!("revision {refused:?}")), "{text}");
    }

    let (value, text, _) = call(dir, serde_json::json!({"operation": "diff"}));
    assert!(text.contains("+four") && !text.contains("+three"), "{text}");
    assert!(value["summary"].as_str().unwrap().contains("bytes of diff output"));
    let (_, text, _) = call(dir, serde_json::json!({"operation": "diff", "revision": "HEAD~1"}));
    assert!(text.contains("+three") && text.contains("+four"), "{text}");
    let (value, text, _) =
        call(dir, serde_json::json!({"operation": "diff", "pathspecs": ["other.txt"]}));
    assert_eq!((value["summary"].as_str(), text.as_str()), (Some("no changes"), "No changes."));
    assert_eq!(value["stdout"], "", "git's own output, empty");

    let (value, text, _) = call(dir, serde_json::json!({"operation": "branch"}));
    let branches = value["branches"].as_array().unwrap();
    assert_eq!(branches.len(), 2);
    assert_eq!(
        (branches[0]["name"].as_str(), branches[0]["current"].as_bool()),
        (Some("feature"), Some(false))
    );
    assert_eq!(
        (branches[1]["name"].as_str(), branches[1]["current"].as_bool()),
        (Some("main"), Some(true))
    );
    assert_eq!(value["current_branch"], "main");
    assert!(text.lines().any(|l| l.starts_with("* main ")), "{text}");

    sh_git(dir, &["checkout", "-q", "--detach", "HEAD"]);
    let (value, _, _) = call(dir, serde_json::json!({"operation": "branch"}));
    assert_eq!(value["current_branch"], Value::Null);
    let (value, text, _) = call(dir, serde_json::json!({"operation": "status"}));
    assert_eq!(value["current_branch"], Value::Null);
    assert!(text.starts_with("## HEAD (no branch)"), "{text}");
}

#[test]
fn a_long_diff_keeps_head_and_tail_and_the_text_spills() {
    let tmp = repo();
    let dir = tmp.path();
    let lines: String = (0..20_000).map(|i| format!("line {i}\n")).collect();
    write(dir, "big.txt", &lines);
    sh_git(dir, &["add", "."]);
    sh_git(dir, &["commit", "-q", "-m", "big"]);
    write(dir, "big.txt", &lines.replace("line ", "LINE "));
    let (value, text, _) =
        call(dir, serde_json::json!({"operation": "diff", "max_bytes": 100_000}));
    assert_eq!(value["stdout_truncated"], true);
    let stdout = value["stdout"].as_str().unwrap();
    assert!(stdout.starts_with("diff --git a/big.txt b/big.txt"));
    assert!(stdout.ends_with("+LINE 19999\n"), "{}", &stdout[stdout.len() - 50..]);
    assert!(stdout.contains("bytes of git's output omitted here"));
    assert!(stdout.len() < 100_200);
    assert!(text.len() <= toolhost_sdk::limits::MAX_RESULT_BYTES);
    assert!(text.contains("the whole text is saved to /spill/whole.txt"), "{}", &text[..200]);
    assert!(text.contains("the middle was cut to keep max_bytes (100000)"));
    let (value, _, _) = call(dir, serde_json::json!({"operation": "diff", "max_bytes": 1}));
    assert_eq!(value["stdout_truncated"], true);
}

#[test]
fn failures_are_structured() {
    let tmp = tempfile::tempdir().unwrap();
    let (value, text, _) = call(tmp.path(), serde_json::json!({"operation": "status"}));
    assert_eq!(value["success"], false);
    assert_eq!(value["error_kind"], "LOCAL_EXECUTOR_NOT_A_REPOSITORY");
    assert_eq!(value["terminal"], true);
    assert!(value["stderr"].as_str().unwrap().contains("not a git repository"));
    assert!(text.starts_with("not a git repository"), "{text}");

    let repo = repo();
    let (value, _, _) = call(repo.path(), serde_json::json!({"operation": "log"}));
    assert_eq!(
        (value["success"].as_bool(), value["summary"].as_str()),
        (Some(true), Some("no commits yet"))
    );
    let (value, text, _) = call(repo.path(), serde_json::json!({"operation": "branch"}));
    assert_eq!(value["current_branch"], "main");
    assert!(text.contains("has no commits yet"));
    let (value, _, _) = call(repo.path(), serde_json::json!({"operation": "show"}));
    assert_eq!(value["error_kind"], "LOCAL_EXECUTOR_INVALID_INPUT");
    let (value, text, runs) =
        call(repo.path(), serde_json::json!({"operation": "diff", "pathspecs": ["../x"]}));
    assert_eq!(value["error_kind"], "LOCAL_EXECUTOR_INVALID_INPUT");
    assert!(text.starts_with("pathspec \"../x\" has a `..` component"), "{text}");
    assert!(runs.is_empty(), "nothing ran");
}

#[test]
fn cancellation_is_the_sdks_error() {
    let failure = GitFailure::new(ErrorKind::Cancelled, "the call was cancelled");
    let error = finish(crate::input::GitOperation::Log, Err(failure), &mut MemorySink::default())
        .unwrap_err();
    assert_eq!(error.code, ErrorCode::Cancelled);
}

/// A script that would leave a trace: prints a marker and writes a marker file.
fn plant(dir: &Path, markers: &Path, name: &str) -> String {
    let script = dir.join(format!("{name}.sh"));
    std::fs::write(
        &script,
        format!(
            "#!/bin/sh\necho MARKER-{name}\necho MARKER-{name} >&2\necho {name} >> '{}'\ncat\n",
            markers.display()
        ),
    )
    .unwrap();
    let mut perms = std::fs::metadata(&script).unwrap().permissions();
    std::os::unix::fs::PermissionsExt::set_mode(&mut perms, 0o755);
    std::fs::set_permissions(&script, perms).unwrap();
    script.display().to_string()
}

/// The repository in `dir` committed once and configured, hooked and filtered so that git
/// would run a script of `scripts` (each leaves its trace in `markers`) wherever it can.
fn plant_everywhere(dir: &Path, scripts: &Path, markers: &Path) {
    let run = |name: &str| plant(scripts, markers, name);
    write(dir, "a.txt", "one\n");
    write(dir, "b.bin", "binary-ish\n");
    write(dir, "c.txt", "same\n");
    sh_git(dir, &["add", "."]);
    sh_git(dir, &["commit", "-q", "-m", "first"]);
    let config = [
        ("core.fsmonitor", run("fsmonitor")),
        ("core.pager", run("pager")),
        ("pager.log", run("pagerlog")),
        ("diff.external", run("external")),
        ("diff.tc.textconv", run("textconv")),
        ("diff.tc.command", run("diffcommand")),
        ("filter.evil.clean", run("clean")),
        ("filter.evil.smudge", run("smudge")),
        ("filter.evil.process", run("process")),
        ("filter.evil.required", "true".to_owned()),
        ("core.sshCommand", run("ssh")),
        ("log.showSignature", "true".to_owned()),
        ("gpg.program", run("gpg")),
    ];
    for (key, value) in &config {
        sh_git(dir, &["config", key, value]);
    }
    let hooks = dir.join(".git/hooks");
    for hook in ["post-index-change", "pre-commit", "post-checkout", "reference-transaction"] {
        let script = run(hook);
        std::fs::copy(&script, hooks.join(hook)).unwrap();
    }
}

#[test]
fn git_never_runs_what_the_repository_names() {
    let tmp = repo();
    let dir = tmp.path();
    let scripts = tempfile::tempdir().unwrap();
    let markers = scripts.path().join("markers");
    plant_everywhere(dir, scripts.path(), &markers);
    write(dir, ".gitattributes", "*.txt filter=evil diff=tc\n*.bin diff=tc\n");
    write(dir, "a.txt", "one\ntwo\n");
    write(dir, "b.bin", "changed\n");
    write(dir, "new.txt", "untracked\n");
    // Unchanged contents with new stat data: status must read c.txt again (through the
    // clean filter, were it live).
    let c = std::fs::File::options().write(true).open(dir.join("c.txt")).unwrap();
    c.set_modified(std::time::SystemTime::now() + std::time::Duration::from_secs(5)).unwrap();

    let calls = [
        serde_json::json!({"operation": "status"}),
        serde_json::json!({"operation": "diff"}),
        serde_json::json!({"operation": "diff", "revision": "HEAD"}),
        serde_json::json!({"operation": "log"}),
        serde_json::json!({"operation": "log", "pathspecs": ["a.txt"]}),
        serde_json::json!({"operation": "show"}),
        serde_json::json!({"operation": "show", "revision": "main"}),
        serde_json::json!({"operation": "branch"}),
    ];
    for input in calls {
        let (value, text, runs) = call(dir, input.clone());
        assert_eq!(value["success"], true, "{input}: {value}");
        assert!(!text.contains("MARKER"), "{input}: {text}");
        assert!(!value.to_string().contains("MARKER"), "{input}: {value}");
        assert!(!markers.exists(), "{input} ran {}", std::fs::read_to_string(&markers).unwrap());
        let last = runs.last().unwrap();
        for setting in ["filter.evil.clean=", "filter.evil.required=false", "diff.tc.textconv="] {
            assert!(last.windows(2).any(|w| w == ["-c", setting]), "{input}: {setting}");
        }
    }
    let (value, _, _) = call(dir, serde_json::json!({"operation": "diff"}));
    let stdout = value["stdout"].as_str().unwrap();
    assert!(stdout.contains("+two") && stdout.contains("+changed"), "{stdout}");

    // The same commands without the tool's hardening do run them: the test can fail.
    for plain in [&["status", "--porcelain=v2"][..], &["diff"], &["show", "--textconv", "HEAD"]] {
        let _ = std::fs::remove_file(&markers);
        let out = Command::new("git")
            .args(plain)
            .current_dir(dir)
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .output()
            .unwrap();
        let shown = String::from_utf8_lossy(&out.stdout).into_owned()
            + &String::from_utf8_lossy(&out.stderr);
        assert!(markers.exists() || shown.contains("MARKER"), "{plain:?} is live: {shown}");
    }
}

#[test]
fn a_driver_name_git_cannot_be_told_about_fails_closed() {
    let tmp = repo();
    sh_git(tmp.path(), &["config", "filter.a=b.clean", "cat"]);
    let (value, _, runs) = call(tmp.path(), serde_json::json!({"operation": "status"}));
    assert_eq!(value["error_kind"], "LOCAL_EXECUTOR_POLICY_DENIED", "{value}");
    assert_eq!(runs.len(), 1, "only the config query ran");
}
