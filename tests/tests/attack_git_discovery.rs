//! Attacks that plant a repository the user's own git later runs, outside any sandbox (issue
//! 39): a `.git/config` padded past what a check reads, an include on a header line, and a
//! repository laid out as plain files (`HEAD`, `objects/`, `refs/`, `config`) that git's
//! discovery takes for one — written by bash, by an approved `workspace_shell` run, or by the
//! write tool alone, one file per call in every order. Each attack ends the way the user
//! would meet it: `git status` run outside the sandbox, with the fake HOME, and the planted
//! `core.fsmonitor` command must not have run.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::json;
use toolhost_tests::attack::*;

/// An fsmonitor command that leaves `pwned` behind when git runs it (git runs it with a
/// shell; the `#` swallows the arguments git appends).
fn fsmonitor_config(pwned: &Path) -> String {
    format!("[core]\n\tfsmonitor = touch {} #\n", pwned.display())
}

/// The user's own `git status` in `dir`, outside any sandbox (HOME = the fake one, no system
/// config; as the confined user when the runs are confined, whose repository it is). Its
/// outcome is not asserted: only what it ran.
fn users_git_status(a: &Attack, dir: &Path) -> String {
    let mut git = Command::new("git");
    git.env_clear()
        .env("PATH", &a.path_var)
        .env("HOME", &a.home)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .arg("status")
        .current_dir(dir);
    let out = a.confined_command(git).output().expect("git is installed (.ci/run installs it)");
    format!(
        "git status in {}: {}{}",
        dir.display(),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

/// A place outside the workspace for the fsmonitor's mark, and the mark itself.
fn pwned_path(a: &Attack) -> PathBuf {
    let dir = a.outside_dir("pwned");
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(format!("pwned-{}", rand_hex()))
}

/// The attack got through if the user's git ran the planted command.
fn assert_git_ran_nothing(a: &Attack, dir: &Path, pwned: &Path, what: &str, context: &str) {
    let status = users_git_status(a, dir);
    promise(!pwned.exists(), || {
        format!("{what}: the user's git status ran the planted fsmonitor\n{status}\n{context}")
    });
}

/// A shell script that fills an empty `.git` (HEAD, objects/, refs/) and writes `config_src`
/// (a file in the workspace) as its config.
fn fill_dot_git(config_src: &str) -> String {
    format!(
        "mkdir -p .git/objects .git/refs/heads && printf 'ref: refs/heads/main\\n' > .git/HEAD && cp '{config_src}' .git/config; ls -la .git"
    )
}

#[test]
fn bash_cannot_keep_a_config_padded_past_the_first_4096_bytes() {
    let a = Attack::new();
    if !a.sandbox_or_skip("bash_cannot_keep_a_config_padded_past_the_first_4096_bytes") {
        return;
    }
    let pwned = pwned_path(&a);
    let padded = format!("{}{}", "# a long comment line\n".repeat(400), fsmonitor_config(&pwned));
    a.put("padded.cfg", &padded);
    let out = a.bash(&fill_dot_git("padded.cfg"));
    assert_git_ran_nothing(&a, &a.ws, &pwned, "bash, padded .git/config", &out.all());
}

#[test]
fn an_approved_run_cannot_keep_a_config_padded_past_the_first_4096_bytes() {
    let a = Attack::new();
    if !a.sandbox_or_skip("an_approved_run_cannot_keep_a_config_padded_past_the_first_4096_bytes") {
        return;
    }
    let pwned = pwned_path(&a);
    let padded = format!("{}{}", "# a long comment line\n".repeat(400), fsmonitor_config(&pwned));
    a.put("padded.cfg", &padded);
    std::fs::create_dir_all(a.ws.join(".git/objects")).unwrap();
    std::fs::create_dir_all(a.ws.join(".git/refs/heads")).unwrap();
    std::fs::write(a.ws.join(".git/HEAD"), "ref: refs/heads/main\n").unwrap();
    let out = a.call_with(
        &["--tools", "workspace_shell", "--allow-escalation"],
        "workspace_shell",
        json!({"command": "cp", "args": ["padded.cfg", ".git/config"]}),
    );
    assert_git_ran_nothing(&a, &a.ws, &pwned, "approved run, padded .git/config", &out.all());
}

#[test]
fn bash_cannot_plant_an_include_on_a_header_line() {
    let a = Attack::new();
    if !a.sandbox_or_skip("bash_cannot_plant_an_include_on_a_header_line") {
        return;
    }
    let pwned = pwned_path(&a);
    a.put("inc.cfg", fsmonitor_config(&pwned));
    a.put("header.cfg", "[includeIf \"gitdir:/\"] path = ../inc.cfg ;\"]\n");
    let out = a.bash(&fill_dot_git("header.cfg"));
    assert_git_ran_nothing(&a, &a.ws, &pwned, "bash, include on a header line", &out.all());
}

/// The four files of a repository laid out as plain files, as the write tool writes them.
fn plain_repo_files(pwned: &Path) -> [(&'static str, String); 4] {
    [
        ("HEAD", "ref: refs/heads/main\n".to_string()),
        ("objects/.keep", String::new()),
        ("refs/heads/.keep", String::new()),
        (
            "config",
            format!(
                "[core]\n\trepositoryformatversion = 0\n\tbare = false\n\tworktree = .\n\tfsmonitor = touch {} #\n",
                pwned.display()
            ),
        ),
    ]
}

/// Every order of four items.
fn orders() -> Vec<[usize; 4]> {
    let mut out = Vec::new();
    for a in 0..4 {
        for b in 0..4 {
            for c in 0..4 {
                for d in 0..4 {
                    let o = [a, b, c, d];
                    if (0..4).all(|i| o.contains(&i)) {
                        out.push(o);
                    }
                }
            }
        }
    }
    out
}

#[test]
fn the_write_tool_alone_cannot_lay_out_a_repository_in_any_order() {
    let a = Attack::new();
    let pwned = pwned_path(&a);
    let files = plain_repo_files(&pwned);
    let mut s = a.session(&[]);
    let mut log = Vec::new();
    let all = orders();
    assert_eq!(all.len(), 24);
    for (n, order) in all.iter().enumerate() {
        for &i in order {
            let (rel, content) = &files[i];
            let path = format!("o{n}/{rel}");
            let r =
                s.call(&format!("w{n}-{i}"), "write", json!({"path": path, "content": content}));
            log.push(format!("{path}: {}", r["result"]["status"]));
        }
    }
    drop(s);
    for (n, order) in all.iter().enumerate() {
        let dir = a.ws.join(format!("o{n}"));
        assert_git_ran_nothing(
            &a,
            &dir,
            &pwned,
            &format!("the write tool, order {order:?}"),
            &log.join("\n"),
        );
    }
}

#[test]
fn the_write_tool_cannot_lay_out_a_repository_at_the_workspace_root() {
    let a = Attack::new();
    let pwned = pwned_path(&a);
    let mut log = Vec::new();
    for (rel, content) in plain_repo_files(&pwned) {
        let out = a.call("write", json!({"path": rel, "content": content}));
        log.push(format!("{rel}: {}", out.text()));
    }
    assert_git_ran_nothing(&a, &a.ws, &pwned, "the write tool at the root", &log.join("\n"));
}

#[test]
fn the_write_tool_cannot_lay_out_a_repository_in_a_subdirectory_of_a_real_one() {
    let a = Attack::new();
    a.git_init(&a.ws);
    let pwned = pwned_path(&a);
    let mut log = Vec::new();
    for (rel, content) in plain_repo_files(&pwned) {
        let out = a.call("write", json!({"path": format!("src/{rel}"), "content": content}));
        log.push(format!("src/{rel}: {}", out.text()));
    }
    assert_git_ran_nothing(
        &a,
        &a.ws.join("src"),
        &pwned,
        "the write tool in src/",
        &log.join("\n"),
    );
}

#[test]
fn bash_cannot_lay_out_a_repository_as_plain_files() {
    let a = Attack::new();
    if !a.sandbox_or_skip("bash_cannot_lay_out_a_repository_as_plain_files") {
        return;
    }
    a.git_init(&a.ws.join("real"));
    let pwned = pwned_path(&a);
    a.put("evil.cfg", plain_repo_files(&pwned)[3].1.as_bytes());
    let plant = |dir: &str| {
        format!(
            "mkdir -p {dir}/objects {dir}/refs/heads && printf 'ref: refs/heads/main\\n' > {dir}/HEAD && cp evil.cfg {dir}/config"
        )
    };
    let out = a.bash(&format!("{} && {}", plant("."), plant("real/src")));
    assert_git_ran_nothing(&a, &a.ws, &pwned, "bash at the root", &out.all());
    assert_git_ran_nothing(&a, &a.ws.join("real/src"), &pwned, "bash in real/src", &out.all());
}

#[test]
fn bash_cannot_complete_a_repository_the_write_tool_began() {
    let a = Attack::new();
    if !a.sandbox_or_skip("bash_cannot_complete_a_repository_the_write_tool_began") {
        return;
    }
    let pwned = pwned_path(&a);
    let files = plain_repo_files(&pwned);
    // The write tool writes the config and HEAD (no repository yet) ...
    let out = a.call("write", json!({"path": "lib/config", "content": files[3].1}));
    let out2 = a.call("write", json!({"path": "lib/HEAD", "content": files[0].1}));
    // ... and bash adds objects/ and refs/ in a later call.
    let out3 = a.bash("mkdir -p lib/objects lib/refs/heads && ls lib");
    let context = format!("{}\n{}\n{}", out.all(), out2.all(), out3.all());
    assert_git_ran_nothing(&a, &a.ws.join("lib"), &pwned, "write tool, then bash", &context);
    // The user's own files stay: only what made it a repository went.
    assert!(a.ws.join("lib/config").exists(), "the sweep removed a file bash did not make");
}

/// A repository (or anything else) that ships a file named like toolhost's data-dir marker
/// does not switch the agent off in its tree.
#[test]
fn a_shipped_data_dir_marker_switches_nothing_off() {
    let a = Attack::new();
    a.put(".toolhost-data-dir", "planted by the repository\n");
    a.put("src/.toolhost-data-dir", "planted by the repository\n");
    a.put("src/lib.rs", "fn main() {}\n");
    a.put("toolhost.db", "not a store\n");
    for rel in ["notes.txt", "src/new.rs"] {
        let out = a.call("write", json!({"path": rel, "content": "written\n"}));
        promise(out.status() == "succeeded", || format!("write {rel} refused: {}", out.all()));
    }
    let out = a.call("read", json!({"path": "toolhost.db"}));
    promise(out.text().contains("not a store"), || format!("read refused: {}", out.all()));
    if a.sandbox_or_skip("a_shipped_data_dir_marker_switches_nothing_off (bash)") {
        let out = a.bash("ls src; echo more > src/more.txt && cat src/more.txt");
        promise(out.text().contains("lib.rs") && a.ws.join("src/more.txt").exists(), || {
            format!("bash saw src/ empty or could not write it: {}", out.all())
        });
    }
}
