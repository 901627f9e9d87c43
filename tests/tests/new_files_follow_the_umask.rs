//! A file the model creates gets the mode any program of the user's would give it (0666 less
//! the umask); a file it replaces keeps its own mode, whatever the umask.

use std::io::Write;
use std::os::unix::fs::PermissionsExt;
use std::os::unix::process::CommandExt;
use std::process::Stdio;

use serde_json::json;
use toolhost_tests::*;

/// `toolhost ARGS…` over the fixture with the process's umask set to `mask`, `stdin` fed in.
fn with_umask(fx: &Fixture, mask: libc::mode_t, args: &[&str], stdin: &str) -> String {
    let mut cmd = toolhost_command(fx);
    cmd.args(args).stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped());
    // SAFETY: umask is async-signal-safe and touches nothing but the child's own mask.
    unsafe {
        cmd.pre_exec(move || {
            libc::umask(mask);
            Ok(())
        });
    }
    let mut child = cmd.spawn().expect("run toolhost");
    child.stdin.take().unwrap().write_all(stdin.as_bytes()).unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "{args:?}: {out:?}");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn mode(fx: &Fixture, rel: &str) -> u32 {
    std::fs::metadata(fx.root().join(rel)).unwrap().permissions().mode() & 0o777
}

#[test]
fn a_created_file_gets_0666_less_the_umask_and_a_replaced_one_keeps_its_mode() {
    let fx = Fixture::new();
    for (mask, name, want) in
        [(0o022, "a.txt", 0o644), (0o002, "b.txt", 0o664), (0o077, "c.txt", 0o600)]
    {
        let input = json!({"path": name, "content": "new\n"}).to_string();
        with_umask(&fx, mask, &["call", "write", &input], "");
        assert_eq!(mode(&fx, name), want, "umask {mask:03o}: {name}");
    }
    // Under a directory the write makes, too.
    let input = json!({"path": "deep/er/d.txt", "content": "new\n"}).to_string();
    with_umask(&fx, 0o022, &["call", "write", &input], "");
    assert_eq!(mode(&fx, "deep/er/d.txt"), 0o644);
    assert_eq!(mode(&fx, "deep/er"), 0o755);

    // A private file stays private after a write and an edit, even under umask 000, and an
    // executable one stays executable.
    let private = fx.write("private.env", "KEY=1\n");
    std::fs::set_permissions(&private, std::fs::Permissions::from_mode(0o600)).unwrap();
    let script = fx.write("run.sh", "echo hi\n");
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o750)).unwrap();
    let lines = [
        json!({"id": "r1", "tool": "read", "arguments": {"path": "private.env"}}),
        json!({"id": "w1", "tool": "write", "arguments": {"path": "private.env", "content": "KEY=2\n"}}),
        json!({"id": "r2", "tool": "read", "arguments": {"path": "run.sh"}}),
        json!({"id": "e1", "tool": "edit", "arguments": {"filePath": "run.sh", "oldString": "hi", "newString": "ho"}}),
    ]
    .iter()
    .map(|l| format!("{l}\n"))
    .collect::<String>();
    let out = with_umask(&fx, 0o000, &["session"], &lines);
    assert_eq!(out.matches("\"succeeded\"").count(), 4, "{out}");
    assert_eq!(std::fs::read_to_string(&private).unwrap(), "KEY=2\n");
    assert_eq!(mode(&fx, "private.env"), 0o600);
    assert_eq!(std::fs::read_to_string(&script).unwrap(), "echo ho\n");
    assert_eq!(mode(&fx, "run.sh"), 0o750);
}
