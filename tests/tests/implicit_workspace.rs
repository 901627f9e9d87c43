//! A command that runs tools never takes a directory shared by the whole machine for its
//! workspace just because it was started there (issue 40): without `--workspace`, `call`,
//! `session` and `mcp` started from `/`, HOME or the temp dir refuse, write nothing and say
//! how to name a workspace; an explicit `--workspace` still works, and `mcp` says on stderr
//! which workspace it serves.

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
