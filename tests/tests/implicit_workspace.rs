//! A command that runs tools never takes a directory shared by the whole machine for its
//! workspace just because it was started there: without `--workspace`, `call`,
//! `session` and `mcp` started from `/`, HOME or the temp dir refuse, write nothing and say
//! how to name a workspace; an explicit `--workspace` still works, and `mcp` says on stderr
//! which workspace it serves. Also: `--workspace` errors exit 2, `call TOOL -` reads stdin,
//! and `changes --workspace` lists that workspace's changes only.

use std::path::Path;
use std::process::{Command, Stdio};

use serde_json::json;
use toolhost_tests::toolhost_bin;

/// `toolhost call write` started in `cwd` with no `--workspace`: (exit code, stderr).
fn write_from(cwd: &Path, home: &Path, data: &Path, name: &str) -> (Option<i32>, String) {
    let out = Command::new(toolhost_bin())
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", home)
        .current_dir(cwd)
        .arg("--data-dir")
        .arg(data)
        .args(["call", "write"])
        .arg(json!({"path": name, "content": "planted\n"}).to_string())
        .stdin(Stdio::null())
        .output()
        .unwrap();
    (out.status.code(), String::from_utf8_lossy(&out.stderr).into_owned())
}

#[test]
fn call_started_in_a_shared_directory_without_a_workspace_writes_nothing() {
    let home = tempfile::tempdir().unwrap();
    let data = tempfile::tempdir().unwrap();
    let name = format!("toolhost-implicit-{}.txt", std::process::id());
    for dir in [Path::new("/"), home.path(), &std::env::temp_dir()] {
        let (code, stderr) = write_from(dir, home.path(), data.path(), &name);
        let written = dir.join(&name).exists();
        let _ = std::fs::remove_file(dir.join(&name));
        assert!(!written, "call wrote into {} without --workspace", dir.display());
        assert_ne!(code, Some(0), "{}: {stderr}", dir.display());
        assert!(stderr.contains("--workspace"), "the refusal names the way: {stderr}");
    }
    // A project directory is a workspace as before.
    let project = tempfile::tempdir().unwrap();
    let (code, stderr) = write_from(project.path(), home.path(), data.path(), &name);
    assert_eq!(code, Some(0), "{stderr}");
    assert!(project.path().join(&name).exists());
}

#[test]
fn mcp_started_in_home_refuses_and_with_a_workspace_says_which_it_serves() {
    let home = tempfile::tempdir().unwrap();
    let data = tempfile::tempdir().unwrap();
    let run = |cwd: &Path, extra: &[&str]| {
        Command::new(toolhost_bin())
            .env_clear()
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .env("HOME", home.path())
            .current_dir(cwd)
            .arg("--data-dir")
            .arg(data.path())
            .args(extra)
            .arg("mcp")
            .stdin(Stdio::null())
            .output()
            .unwrap()
    };
    let out = run(home.path(), &[]);
    assert_ne!(out.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--workspace"));
    let ws = tempfile::tempdir().unwrap();
    let ws_arg = ws.path().display().to_string();
    // stdin at its end: the server starts, says what it serves, and ends.
    let out = run(home.path(), &["--workspace", &ws_arg]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    let real = ws.path().canonicalize().unwrap();
    assert!(
        stderr.contains(&format!("serving the workspace {}", real.display())),
        "mcp does not say which workspace it serves: {stderr}"
    );
}

/// `--workspace` naming nothing or a file is a usage error (exit 2), as docs/cli.md says.
#[test]
fn a_workspace_that_is_missing_or_not_a_directory_is_a_usage_error() {
    let home = tempfile::tempdir().unwrap();
    let data = tempfile::tempdir().unwrap();
    let file = home.path().join("file.txt");
    std::fs::write(&file, "x").unwrap();
    for ws in [home.path().join("missing"), file] {
        let out = Command::new(toolhost_bin())
            .env("HOME", home.path())
            .arg("--workspace")
            .arg(&ws)
            .arg("--data-dir")
            .arg(data.path())
            .args(["call", "list", "{}"])
            .stdin(Stdio::null())
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{}: {stderr}", ws.display());
        assert!(stderr.contains("--workspace"), "{stderr}");
    }
}

/// `call TOOL -` reads the input from stdin, so a `write` can carry a whole file.
#[test]
fn call_reads_its_input_from_stdin_with_a_dash() {
    use std::io::Write;
    let ws = tempfile::tempdir().unwrap();
    let data = tempfile::tempdir().unwrap();
    let content = "line one\n\"quoted\" and 'single'\n".repeat(100);
    let mut child = Command::new(toolhost_bin())
        .arg("--workspace")
        .arg(ws.path())
        .arg("--data-dir")
        .arg(data.path())
        .args(["call", "write", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let input = json!({"path": "big.txt", "content": content}).to_string();
    child.stdin.take().unwrap().write_all(input.as_bytes()).unwrap();
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(std::fs::read_to_string(ws.path().join("big.txt")).unwrap(), content);
}

/// `changes --workspace W` lists W's changes only.
#[test]
fn changes_with_a_workspace_lists_that_workspaces_changes_only() {
    let data = tempfile::tempdir().unwrap();
    let (a, b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let run = |ws: &Path, args: &[&str]| {
        Command::new(toolhost_bin())
            .arg("--workspace")
            .arg(ws)
            .arg("--data-dir")
            .arg(data.path())
            .args(args)
            .stdin(Stdio::null())
            .output()
            .unwrap()
    };
    assert!(
        run(a.path(), &["call", "write", r#"{"path":"in-a.txt","content":"a\n"}"#])
            .status
            .success()
    );
    assert!(
        run(b.path(), &["call", "write", r#"{"path":"in-b.txt","content":"b\n"}"#])
            .status
            .success()
    );
    let listed = String::from_utf8_lossy(&run(a.path(), &["changes"]).stdout).into_owned();
    assert!(listed.contains("in-a.txt"), "{listed}");
    assert!(!listed.contains("in-b.txt"), "another workspace's change listed: {listed}");
}

/// `call edit` on an existing file is refused (each `call` is one process, and nothing was
/// read in it): stderr tells the person the way that works, `toolhost session`.
#[test]
fn call_edit_of_an_existing_file_names_the_way_that_works() {
    let ws = tempfile::tempdir().unwrap();
    let data = tempfile::tempdir().unwrap();
    std::fs::write(ws.path().join("a.txt"), "old\n").unwrap();
    let out = Command::new(toolhost_bin())
        .arg("--workspace")
        .arg(ws.path())
        .arg("--data-dir")
        .arg(data.path())
        .args(["call", "edit", r#"{"filePath":"a.txt","oldString":"old","newString":"new"}"#])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), "Read a.txt before editing it.");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("toolhost session"), "no way named: {stderr}");
    assert_eq!(std::fs::read_to_string(ws.path().join("a.txt")).unwrap(), "old\n");
}
