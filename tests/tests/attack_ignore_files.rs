//! Attacks through the ignore files a walk reads (`.gitignore`, `.ignore`,
//! `.git/info/exclude`), through the built binary. The agent can create any of them in the
//! workspace (with bash, or the write tool), and the host reads them itself, outside every
//! sandbox, on the user's next grep or glob:
//!
//! * one that is a FIFO must not hang the walk (nothing ever writes to it);
//! * one that is a symlink must not be followed: to a secret outside every root, its lines
//!   would become ignore patterns, and which of the agent's files then vanish from a glob
//!   tells the agent what the secret's lines are (an oracle); to `/dev/zero`, the host
//!   would read forever.
//!
//! Every check is on what the binary printed and how long it took to answer.

use std::time::{Duration, Instant};

use serde_json::json;
use toolhost_tests::attack::*;

/// Long enough for a cold start under load; far below grep's and glob's 30 s scan timeout,
/// so a walk that waits on a FIFO until that timeout fails too.
const ANSWER_WITHIN: Duration = Duration::from_secs(20);

/// `toolhost call TOOL INPUT --json`, which must end within [`ANSWER_WITHIN`].
fn call_promptly(a: &Attack, tool: &str, input: serde_json::Value) -> Out {
    let mut cmd = a.command(&[]);
    cmd.args(["call", tool, &input.to_string(), "--json"]);
    let started = Instant::now();
    let out = run_limited(&mut cmd, None, ANSWER_WITHIN);
    let out = out.unwrap_or_else(|| {
        leak(&format!(
            "toolhost call {tool} {input} did not answer within {ANSWER_WITHIN:?}: the walk hangs"
        ));
        unreachable!()
    });
    promise(started.elapsed() < ANSWER_WITHIN, || format!("{tool} took {:?}", started.elapsed()));
    out
}

/// A FIFO at `rel` in the workspace (its directory created).
fn fifo(a: &Attack, rel: &str) {
    let path = a.ws.join(rel);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    let c = std::ffi::CString::new(path.as_os_str().as_encoded_bytes()).unwrap();
    // SAFETY: a NUL-terminated path.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o644) }, 0, "mkfifo {rel}");
}

fn no_ignore_file_that_is_a_fifo_hangs(tool: &str, rel: &str) {
    let a = Attack::new();
    a.put("sub/a.rs", "needle\n");
    a.put("sub/deeper/b.rs", "needle\n");
    fifo(&a, rel);
    let input =
        if tool == "glob" { json!({"pattern": "**/*.rs"}) } else { json!({"pattern": "needle"}) };
    let out = call_promptly(&a, tool, input);
    let text = out.text();
    promise(out.status() == "succeeded", || format!("{tool} with a FIFO at {rel}: {}", out.all()));
    promise(text.contains("a.rs") && text.contains("b.rs"), || {
        format!("{tool} with a FIFO at {rel} lost files: {text}")
    });
}

#[test]
fn a_gitignore_that_is_a_fifo_does_not_hang_glob() {
    no_ignore_file_that_is_a_fifo_hangs("glob", "sub/.gitignore");
}

#[test]
fn a_gitignore_that_is_a_fifo_does_not_hang_grep() {
    no_ignore_file_that_is_a_fifo_hangs("grep", "sub/.gitignore");
}

#[test]
fn an_ignore_file_that_is_a_fifo_does_not_hang_grep() {
    no_ignore_file_that_is_a_fifo_hangs("grep", ".ignore");
}

#[test]
fn a_git_exclude_file_that_is_a_fifo_does_not_hang_glob() {
    no_ignore_file_that_is_a_fifo_hangs("glob", "sub/.git/info/exclude");
}

#[test]
fn a_gitignore_symlinked_to_a_secret_is_not_read() {
    let a = Attack::new();
    let secret = a.secret(".ssh/id_rsa").clone();
    // Each line of the secret, were it read as a pattern, would hide the file named so.
    a.put(&secret.marker, "x\n");
    a.put("plain.txt", "x\n");
    std::os::unix::fs::symlink(&secret.path, a.ws.join(".gitignore")).unwrap();
    let out = call_promptly(&a, "glob", json!({"pattern": "*"}));
    let text = out.text();
    promise(text.contains("plain.txt"), || format!("glob failed: {}", out.all()));
    promise(text.contains(&secret.marker), || {
        format!(
            "the file named as the secret's line vanished: the host read the secret through the symlink\n{text}"
        )
    });
}

#[test]
fn a_gitignore_symlinked_to_dev_zero_is_not_read() {
    let a = Attack::new();
    a.put("plain.txt", "needle\n");
    std::os::unix::fs::symlink("/dev/zero", a.ws.join(".gitignore")).unwrap();
    let out = call_promptly(&a, "grep", json!({"pattern": "needle"}));
    promise(out.text().contains("plain.txt"), || {
        format!("grep with .gitignore -> /dev/zero: {}", out.all())
    });
}

#[test]
fn ignore_files_still_apply_where_they_are_plain_files() {
    let a = Attack::new();
    a.put(".gitignore", "*.log\n");
    a.put("sub/.ignore", "skip.txt\n");
    a.put("sub/.git/info/exclude", "local.txt\n");
    for rel in ["keep.txt", "x.log", "sub/skip.txt", "sub/local.txt", "sub/kept.txt"] {
        a.put(rel, "needle\n");
    }
    let out = call_promptly(&a, "glob", json!({"pattern": "**/*"}));
    let text = out.text();
    for kept in ["keep.txt", "sub/kept.txt"] {
        promise(text.contains(kept), || format!("{kept} missing: {text}"));
    }
    for ignored in ["x.log", "sub/skip.txt", "sub/local.txt"] {
        promise(!text.contains(ignored), || format!("{ignored} was not ignored: {text}"));
    }
}
