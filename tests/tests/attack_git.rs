//! Attacks on git metadata through the built binary: code runs outside the
//! sandbox the next time the user runs git if the agent can write a git dir's `config`,
//! `config.worktree`, `commondir`, `info/`, `hooks/`, or a `.git` file that points
//! elsewhere. With the write tool (even with an approved grant) and with bash (renaming the
//! git dir, exhausting the carve-out scan, nested repositories), and bash creating sensitive
//! files that did not exist yet. Every check is on disk, not on messages.

use std::path::Path;

use serde_json::{Value, json};
use toolhost_tests::attack::*;

/// What a file holds now (None: absent).
fn snapshot(p: &Path) -> Option<Vec<u8>> {
    std::fs::read(p).ok()
}

/// A workspace that is a git repository.
fn repo() -> Attack {
    let a = Attack::new();
    a.git_init(&a.ws);
    a
}

/// The agent tries to write `rel` with the write tool: read it first (if it exists), write
/// it, then write it again with an approved exact write grant for it.
fn write_tool_attempts(a: &Attack, rel: &str, content: &str) -> Vec<Value> {
    let mut s = a.session(&["--allow-escalation"]);
    let abs = a.ws.join(rel).display().to_string();
    let mut results = vec![s.call("r", "read", json!({ "path": rel }))];
    results.push(s.call("w1", "write", json!({ "path": rel, "content": content })));
    results.push(s.call("r2", "read", json!({ "path": rel })));
    results.push(s.call(
        "w2",
        "write",
        json!({
            "path": rel,
            "content": content,
            "sandboxPermissions": {"paths": [{"path": abs, "access": "write", "scope": "exact"}]},
            "justification": "update the repository settings",
        }),
    ));
    results
}

/// The write tool must leave `rel` (in a fresh repo workspace) as it was.
fn write_tool_cannot_change(rel: &str, content: &str) {
    let a = repo();
    let path = a.ws.join(rel);
    let before = snapshot(&path);
    let results = write_tool_attempts(&a, rel, content);
    let after = snapshot(&path);
    promise(after == before, || {
        format!(
            "the write tool changed {rel}: now {:?}\n{results:#?}",
            after.map(|b| String::from_utf8_lossy(&b).into_owned())
        )
    });
}

#[test]
fn the_write_tool_cannot_point_git_commondir_elsewhere() {
    write_tool_cannot_change(".git/commondir", "../evilgit\n");
}

#[test]
fn the_write_tool_cannot_create_git_config_worktree() {
    write_tool_cannot_change(".git/config.worktree", "[core]\n\tfsmonitor = touch /tmp/pwned\n");
}

#[test]
fn the_write_tool_cannot_write_git_info_attributes() {
    write_tool_cannot_change(".git/info/attributes", "* filter=evil\n");
}

#[test]
fn the_write_tool_cannot_write_into_git_hooks() {
    write_tool_cannot_change(".git/hooks/x", "#!/bin/sh\ntouch /tmp/pwned\n");
}

#[test]
fn the_write_tool_cannot_change_git_config_even_with_a_grant() {
    write_tool_cannot_change(".git/config", "[core]\n\tfsmonitor = touch /tmp/pwned\n");
}

#[test]
fn the_write_tool_cannot_write_a_git_file_in_a_subdirectory() {
    let a = repo();
    std::fs::create_dir_all(a.ws.join("sub")).unwrap();
    write_tool_attempts(&a, "sub/.git", "gitdir: ../evilgit\n");
    promise(!a.ws.join("sub/.git").exists(), || {
        "the write tool created sub/.git (a gitdir pointer)".into()
    });
}

#[test]
fn bash_cannot_point_git_commondir_elsewhere() {
    let a = repo();
    if !a.sandbox_or_skip("bash_cannot_point_git_commondir_elsewhere") {
        return;
    }
    let out = a.bash("echo ../evilgit > .git/commondir; printf '[core]\\n\\tfsmonitor = x\\n' > .git/config.worktree");
    promise(!a.ws.join(".git/commondir").exists(), || {
        format!("bash wrote .git/commondir: {}", out.all())
    });
    promise(!a.ws.join(".git/config.worktree").exists(), || {
        format!("bash wrote .git/config.worktree: {}", out.all())
    });
}

#[test]
fn bash_cannot_move_the_git_dir_and_recreate_its_config() {
    let a = repo();
    if !a.sandbox_or_skip("bash_cannot_move_the_git_dir_and_recreate_its_config") {
        return;
    }
    let config = a.ws.join(".git/config");
    let before = snapshot(&config);
    let out = a.bash(
        "mv .git .git-old && mkdir -p .git/hooks && cp -r .git-old/objects .git-old/refs .git-old/HEAD .git/ ; \
         printf '[core]\\n\\trepositoryformatversion = 0\\n\\tfsmonitor = touch /tmp/pwned\\n' > .git/config; \
         printf '#!/bin/sh\\ntouch /tmp/pwned\\n' > .git/hooks/pre-commit; ls -la .git",
    );
    let after = snapshot(&config);
    promise(after == before, || {
        format!("bash replaced .git/config by moving .git away: {}", out.all())
    });
    promise(!a.ws.join(".git/hooks/pre-commit").exists(), || {
        format!("bash planted .git/hooks/pre-commit: {}", out.all())
    });
}

/// Creates empty candidate directories until one comes before `.git` in `ws`'s directory
/// order (the order the carve-out scan walks in); removes the others and returns its name.
fn a_dir_listed_before_git(ws: &Path) -> String {
    let order = || -> Vec<String> {
        std::fs::read_dir(ws)
            .unwrap()
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect()
    };
    let mut made = Vec::new();
    for batch in 0..64 {
        for i in 0..64 {
            let name = format!("pad-{batch}-{i}");
            std::fs::create_dir(ws.join(&name)).unwrap();
            made.push(name);
        }
        let names = order();
        let git = names.iter().position(|n| n == ".git").unwrap();
        if let Some(pick) = names[..git].iter().find(|n| n.starts_with("pad-")).cloned() {
            for n in made.iter().filter(|n| **n != pick) {
                std::fs::remove_dir(ws.join(n)).unwrap();
            }
            return pick;
        }
    }
    panic!("no directory name sorts before .git in this file system's directory order");
}

#[test]
fn bash_cannot_write_git_config_after_filling_the_workspace_with_files() {
    let a = repo();
    if !a.sandbox_or_skip("bash_cannot_write_git_config_after_filling_the_workspace_with_files") {
        return;
    }
    let pad = a_dir_listed_before_git(&a.ws);
    // A prior call: 25,000 files, walked before .git.
    let out = a.bash(&format!("cd '{pad}' && seq 1 25000 | xargs touch && ls | wc -l"));
    assert!(out.text().contains("25000"), "the prior call made the files: {}", out.all());
    let config = a.ws.join(".git/config");
    let before = snapshot(&config);
    // Either bash refuses to run (fail closed) or the write fails; .git/config keeps its content.
    let out = a.bash(
        "printf '[core]\\n\\tfsmonitor = touch /tmp/pwned\\n' >> .git/config; tail -2 .git/config",
    );
    let after = snapshot(&config);
    promise(after == before, || {
        format!("bash wrote .git/config past the scan budget: {}", out.all())
    });
}

/// bash must not be able to plant a hook in the repository at `repo_rel`.
fn bash_cannot_plant_a_hook_in(repo_rel: &str) {
    let a = repo();
    a.git_init(&a.ws.join(repo_rel));
    if !a.sandbox_or_skip(&format!("bash_cannot_plant_a_hook_in {repo_rel}")) {
        return;
    }
    let hook = format!("{repo_rel}/.git/hooks/post-checkout");
    let out = a.bash(&format!(
        "printf '#!/bin/sh\\ntouch /tmp/pwned\\n' > '{hook}'; chmod +x '{hook}'; ls -l '{hook}'"
    ));
    promise(!a.ws.join(&hook).exists(), || format!("bash planted {hook}: {}", out.all()));
    let cfg = a.ws.join(repo_rel).join(".git/config");
    let before = snapshot(&cfg);
    let out =
        a.bash(&format!("printf '[core]\\n\\thooksPath = /tmp\\n' >> '{repo_rel}/.git/config'"));
    promise(snapshot(&cfg) == before, || {
        format!("bash wrote {repo_rel}/.git/config: {}", out.all())
    });
}

#[test]
fn bash_cannot_write_hooks_of_a_nested_repo_under_node_modules() {
    bash_cannot_plant_a_hook_in("node_modules/pkg");
}

#[test]
fn bash_cannot_write_hooks_of_a_repo_nested_deeper_than_four_levels() {
    bash_cannot_plant_a_hook_in("a/b/c/d/e/f");
}

/// bash must not create the sensitive file `rel` that does not exist yet.
fn bash_cannot_create(rel: &str, content: &str) {
    let a = repo();
    if !a.sandbox_or_skip(&format!("bash_cannot_create {rel}")) {
        return;
    }
    assert!(!a.ws.join(rel).exists());
    let out =
        a.bash(&format!("mkdir -p \"$(dirname '{rel}')\"; printf '{content}' > '{rel}'; ls -la"));
    promise(!a.ws.join(rel).exists(), || format!("bash created {rel}: {}", out.all()));
}

#[test]
fn bash_cannot_create_a_dotenv_file() {
    bash_cannot_create(".env", "AWS_SECRET_ACCESS_KEY=attacker\\n");
}

#[test]
fn bash_cannot_create_gitmodules() {
    bash_cannot_create(".gitmodules", "[submodule \"x\"]\\n\\tpath = x\\n\\turl = ../evil\\n");
}

#[test]
fn bash_cannot_create_a_sensitive_file_in_a_subdirectory() {
    bash_cannot_create("sub/.env.local", "TOKEN=attacker\\n");
}

/// The scan budget fails closed, and only the user raises it: with `policy.json`
/// `"scan_entries": 20`, bash refuses in a workspace of 50 files (and runs nothing); with the
/// default budget it runs.
#[test]
fn a_tree_past_the_scan_budget_makes_bash_refuse_until_the_user_raises_it() {
    let a = Attack::new();
    if !a.sandbox_or_skip("a_tree_past_the_scan_budget_makes_bash_refuse_until_the_user_raises_it")
    {
        return;
    }
    for i in 0..50 {
        a.put(&format!("f{i}.txt"), "x");
    }
    std::fs::write(a.data.join("policy.json"), r#"{"scan_entries": 20}"#).unwrap();
    let out = a.bash("touch ran.txt");
    assert_ne!(out.status(), "succeeded", "bash ran past the scan budget: {}", out.all());
    assert!(
        out.text().contains("scan_entries"),
        "the refusal does not say how to raise it: {}",
        out.all()
    );
    assert!(!a.ws.join("ran.txt").exists(), "the command ran");
    std::fs::remove_file(a.data.join("policy.json")).unwrap();
    let out = a.bash("touch ran.txt");
    assert_eq!(out.status(), "succeeded", "{}", out.all());
    assert!(a.ws.join("ran.txt").exists());
}
