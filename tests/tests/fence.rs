//! Path safety (docs/acceptance.md), attacked: symlinks out of the writable set and into
//! credential dirs, dangling symlinks, hard links, `..`, and a symlink swapped in and out
//! while reads and writes run.

use std::os::unix::fs::symlink;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use serde_json::json;
use toolhost::{ErrorCode, SandboxMode, SandboxPolicy, ToolCallContext};
use toolhost_tests::*;

/// A fake HOME beside the workspace with a credential dir holding a secret.
struct Home {
    dir: tempfile::TempDir,
}

const SECRET: &str = "-----BEGIN SECRET KEY-----";

impl Home {
    fn new() -> Self {
        let dir = tempfile::tempdir_in("/var/tmp").unwrap();
        std::fs::create_dir_all(dir.path().join(".ssh")).unwrap();
        std::fs::write(dir.path().join(".ssh/id_rsa"), SECRET).unwrap();
        Home { dir }
    }
    fn path(&self) -> std::path::PathBuf {
        self.dir.path().canonicalize().unwrap()
    }
}

fn call_with_home(fx: &Fixture, home: &Home) -> ToolCallContext {
    let policy = SandboxPolicy::builder(SandboxMode::WorkspaceWrite, fx.root())
        .home(home.path())
        .data_dir(fx.data.path())
        .build();
    ToolCallContext::new("c", policy)
}

#[tokio::test]
async fn rejects_new_file_through_symlink_outside_workspace() {
    let fx = Fixture::new();
    let outside = tempfile::tempdir_in("/var/tmp").unwrap();
    symlink(outside.path(), fx.root().join("out")).unwrap();
    let ts = toolset(&fx, &["write", "edit"]).await;
    let r = call(&ts, &fx, "write", json!({"path": "out/new.txt", "content": "x"})).await;
    assert_eq!(r.error.as_ref().unwrap().code, ErrorCode::PermissionDenied, "{}", r.text());
    let r = call(
        &ts,
        &fx,
        "edit",
        json!({"filePath": "out/new2.txt", "oldString": "", "newString": "x"}),
    )
    .await;
    assert_eq!(r.error.as_ref().unwrap().code, ErrorCode::PermissionDenied, "{}", r.text());
    assert!(std::fs::read_dir(outside.path()).unwrap().next().is_none(), "nothing written outside");
    let r = call(
        &ts,
        &fx,
        "write",
        json!({"path": "../../../../../../../../etc/escape.txt", "content": "x"}),
    )
    .await;
    assert_eq!(r.error.as_ref().unwrap().code, ErrorCode::PermissionDenied, "{}", r.text());
}

#[tokio::test]
async fn rejects_new_file_through_dangling_symlink() {
    let fx = Fixture::new();
    symlink("/nonexistent/elsewhere", fx.root().join("dangling")).unwrap();
    let ts = toolset(&fx, &["write"]).await;
    let r = call(&ts, &fx, "write", json!({"path": "dangling/x.txt", "content": "x"})).await;
    assert!(!r.succeeded(), "{}", r.text());
    assert!(r.text().contains("dangling symlink"), "{}", r.text());
    let r = call(&ts, &fx, "write", json!({"path": "dangling", "content": "x"})).await;
    assert!(!r.succeeded(), "{}", r.text());
}

#[tokio::test]
async fn rejects_protected_metadata_through_symlink_alias() {
    let fx = Fixture::new();
    std::fs::create_dir_all(fx.root().join(".git/hooks")).unwrap();
    symlink(fx.root().join(".git/hooks"), fx.root().join("hooks-alias")).unwrap();
    let ts = toolset(&fx, &["write"]).await;
    let r =
        call(&ts, &fx, "write", json!({"path": "hooks-alias/pre-commit", "content": "evil"})).await;
    assert_eq!(r.error.as_ref().unwrap().code, ErrorCode::PermissionDenied, "{}", r.text());
    assert!(!fx.root().join(".git/hooks/pre-commit").exists());
    // The data dir (spill files, cache) is hard-protected too, reached by any alias.
    symlink(fx.data.path(), fx.root().join("data-alias")).unwrap();
    let r = call(&ts, &fx, "write", json!({"path": "data-alias/x.txt", "content": "x"})).await;
    assert_eq!(r.error.as_ref().unwrap().code, ErrorCode::PermissionDenied, "{}", r.text());
}

#[tokio::test]
async fn acc_10b_credential_directories_are_unreadable_for_file_tools() {
    let fx = Fixture::new();
    let home = Home::new();
    symlink(home.path().join(".ssh"), fx.root().join("keys")).unwrap();
    let ts = toolset(&fx, &["read", "grep", "glob", "list"]).await;
    let run = |tool: &'static str, input: serde_json::Value| {
        let ts = &ts;
        let ctx = call_with_home(&fx, &home);
        async move { ts.call(tool, input, ctx).await }
    };
    let id_rsa = home.path().join(".ssh/id_rsa");
    for r in [
        run("read", json!({"path": "keys/id_rsa"})).await,
        run("read", json!({"path": id_rsa})).await,
        run("list", json!({"path": "keys"})).await,
        run("list", json!({"path": home.path().join(".ssh")})).await,
    ] {
        assert_eq!(
            r.error.as_ref().map(|e| e.code),
            Some(ErrorCode::PermissionDenied),
            "{}",
            r.text()
        );
        assert!(r.sandbox_denied || !r.text().contains(SECRET));
        assert!(!r.text().contains(SECRET));
    }
    for r in [
        run("grep", json!({"pattern": "SECRET", "path": home.path()})).await,
        run("glob", json!({"pattern": "**/*", "path": home.path()})).await,
        run("list", json!({"path": home.path()})).await,
    ] {
        assert!(!r.text().contains(SECRET) && !r.text().contains("id_rsa"), "{}", r.text());
    }
    // Reading elsewhere outside the workspace is allowed.
    let r = run("read", json!({"path": "/etc/hostname"})).await;
    assert!(r.succeeded() || r.text().contains("does not exist"), "{}", r.text());
}

#[tokio::test]
async fn a_hard_linked_file_cannot_be_written() {
    let fx = Fixture::new();
    let outside = tempfile::tempdir_in("/var/tmp").unwrap();
    let target = outside.path().join("victim.txt");
    std::fs::write(&target, "original\n").unwrap();
    let ts = toolset(&fx, &["read", "write"]).await;
    if std::fs::hard_link(&target, fx.root().join("alias.txt")).is_err() {
        eprintln!("hard links across these dirs are not possible here; skipping");
        return;
    }
    assert!(call(&ts, &fx, "read", json!({"path": "alias.txt"})).await.succeeded());
    let r = call(&ts, &fx, "write", json!({"path": "alias.txt", "content": "changed\n"})).await;
    assert_eq!(r.error.as_ref().unwrap().code, ErrorCode::PermissionDenied, "{}", r.text());
    assert!(r.text().contains("hard links"), "{}", r.text());
    assert_eq!(std::fs::read_to_string(&target).unwrap(), "original\n");
}

#[tokio::test]
async fn a_write_keeps_the_target_mode() {
    use std::os::unix::fs::PermissionsExt;
    let fx = Fixture::new();
    let p = fx.write("run.sh", "echo a\n");
    std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o750)).unwrap();
    let ts = toolset(&fx, &["read", "write"]).await;
    assert!(call(&ts, &fx, "read", json!({"path": "run.sh"})).await.succeeded());
    assert!(
        call(&ts, &fx, "write", json!({"path": "run.sh", "content": "echo b\n"})).await.succeeded()
    );
    assert_eq!(std::fs::metadata(&p).unwrap().permissions().mode() & 0o777, 0o750);
}

/// A thread swaps `link` between a workspace file and a credential dir in a tight loop while
/// 1,000 reads and writes run: not one read returns a credential byte, not one write lands
/// outside the writable roots.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_symlink_swapped_during_calls_never_leaks_or_escapes() {
    let fx = Fixture::new();
    let home = Home::new();
    std::fs::create_dir_all(fx.root().join("real")).unwrap();
    fx.write("real/id_rsa", "harmless\n");
    let link = fx.root().join("link");
    let stop = Arc::new(AtomicBool::new(false));
    let swapper = {
        let (stop, link, root, ssh) =
            (stop.clone(), link.clone(), fx.root(), home.path().join(".ssh"));
        std::thread::spawn(move || {
            let tmp = root.join("link.tmp");
            let real = root.join("real");
            let mut flip = false;
            while !stop.load(Ordering::Relaxed) {
                let _ = std::fs::remove_file(&tmp);
                let _ = symlink(if flip { &ssh } else { &real }, &tmp);
                let _ = std::fs::rename(&tmp, &link);
                flip = !flip;
            }
        })
    };
    let ts = toolset(&fx, &["misbehave"]).await;
    for i in 0..500 {
        let r = ts
            .call(
                "misbehave",
                json!({"action": "open", "path": "link/id_rsa"}),
                call_with_home(&fx, &home),
            )
            .await;
        assert!(!r.text().contains("SECRET"), "read {i} leaked: {}", r.text());
        let r = ts
            .call(
                "misbehave",
                json!({"action": "write", "path": format!("link/w{i}.txt"), "text": "x"}),
                call_with_home(&fx, &home),
            )
            .await;
        let _ = r;
    }
    stop.store(true, Ordering::Relaxed);
    swapper.join().unwrap();
    let leaked: Vec<_> = std::fs::read_dir(home.path().join(".ssh"))
        .unwrap()
        .flatten()
        .map(|e| e.file_name())
        .collect();
    assert_eq!(
        leaked,
        vec![std::ffi::OsString::from("id_rsa")],
        "no write landed in the credential dir"
    );
}

#[cfg(target_os = "linux")] // renameat2(RENAME_EXCHANGE)
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_directory_swapped_for_a_symlink_during_writes_never_takes_them_out() {
    // The checked (canonical) path has no symlink in it; the attack replaces one of its
    // directories with a symlink to the credential dir between the check and the publish.
    let fx = Fixture::new();
    let home = Home::new();
    let dir = fx.root().join("d");
    std::fs::create_dir_all(&dir).unwrap();
    let swapper = Exchanger::start(&dir, &home.path().join(".ssh"));
    let ts = toolset(&fx, &["write"]).await;
    let (mut calls, mut written) = (0, 0);
    // At least 1,000 writes and 500 swaps during them (the bound only stops a stuck swapper).
    while (calls < 1000 || swapper.swaps() < 500 || written == 0) && calls < 100_000 {
        // Every other write also makes a new parent directory inside `d`.
        let path =
            if calls % 2 == 0 { format!("d/w{calls}.txt") } else { format!("d/n{calls}/w.txt") };
        let r = ts
            .call("write", json!({"path": path, "content": "x"}), call_with_home(&fx, &home))
            .await;
        written += usize::from(r.succeeded());
        calls += 1;
    }
    let swaps = swapper.stop();
    let leaked: Vec<_> = std::fs::read_dir(home.path().join(".ssh"))
        .unwrap()
        .flatten()
        .map(|e| e.file_name())
        .collect();
    assert_eq!(
        leaked,
        vec![std::ffi::OsString::from("id_rsa")],
        "no write or directory landed in the credential dir"
    );
    assert!(swaps >= 500 && written > 0, "the race ran: {calls} calls, {written} written");
}

/// The attacker of the swap tests: a thread that keeps exchanging the real directory `dir`
/// with a symlink to `target` (made beside it as `<dir>.link`) by
/// `renameat2(RENAME_EXCHANGE)`, so the name is always there, a directory or the symlink.
#[cfg(target_os = "linux")]
struct Exchanger {
    stop: Arc<AtomicBool>,
    swaps: Arc<AtomicU64>,
    thread: std::thread::JoinHandle<()>,
}

#[cfg(target_os = "linux")]
impl Exchanger {
    fn start(dir: &std::path::Path, target: &std::path::Path) -> Self {
        let link = dir.with_extension("link");
        symlink(target, &link).unwrap();
        let c = |p: &std::path::Path| {
            std::ffi::CString::new(std::os::unix::ffi::OsStrExt::as_bytes(p.as_os_str())).unwrap()
        };
        let (dir, link) = (c(dir), c(&link));
        let (stop, swaps) = (Arc::new(AtomicBool::new(false)), Arc::new(AtomicU64::new(0)));
        let thread = {
            let (stop, swaps) = (stop.clone(), swaps.clone());
            std::thread::spawn(move || {
                let exchange = || {
                    // SAFETY: two valid NUL-terminated paths.
                    let rc = unsafe {
                        libc::renameat2(
                            libc::AT_FDCWD,
                            dir.as_ptr(),
                            libc::AT_FDCWD,
                            link.as_ptr(),
                            libc::RENAME_EXCHANGE,
                        )
                    };
                    assert_eq!(rc, 0, "exchange: {}", std::io::Error::last_os_error());
                };
                while !stop.load(Ordering::Relaxed) {
                    exchange();
                    swaps.fetch_add(1, Ordering::Relaxed);
                }
                // Leave the real directory at its name.
                if swaps.load(Ordering::Relaxed) % 2 == 1 {
                    exchange();
                }
            })
        };
        Exchanger { stop, swaps, thread }
    }

    fn swaps(&self) -> u64 {
        self.swaps.load(Ordering::Relaxed)
    }

    /// Stop, and say how many exchanges were made.
    fn stop(self) -> u64 {
        self.stop.store(true, Ordering::Relaxed);
        self.thread.join().unwrap();
        self.swaps.load(Ordering::Relaxed)
    }
}

#[cfg(target_os = "linux")] // renameat2(RENAME_EXCHANGE)
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_directory_swapped_for_a_symlink_during_grep_never_leaks_credentials() {
    // The walk finds `d/id_rsa` (a decoy) in a real directory; the attack then exchanges `d`
    // with a symlink to the credential dir, which holds a file of the same name. read, list
    // and glob under the same attack leak neither contents nor names.
    let fx = Fixture::new();
    let home = Home::new();
    let dir = fx.root().join("d");
    for i in 0..50 {
        fx.write(&format!("d/f{i}.txt"), "BEGIN decoy\n");
    }
    fx.write("d/id_rsa", "BEGIN decoy\n");
    std::fs::write(home.path().join(".ssh/id_ed25519_only_here"), "BEGIN SECRET\n").unwrap();
    let swapper = Exchanger::start(&dir, &home.path().join(".ssh"));
    let ts = toolset(&fx, &["grep", "read", "list", "glob"]).await;
    let mut calls = 0;
    while (calls < 300 || swapper.swaps() < 500) && calls < 100_000 {
        for (tool, input) in [
            ("grep", json!({"pattern": "BEGIN", "path": "."})),
            ("read", json!({"path": "d/id_rsa"})),
            ("list", json!({"path": "d"})),
            ("glob", json!({"pattern": "**/*"})),
        ] {
            let r = ts.call(tool, input, call_with_home(&fx, &home)).await;
            let text = r.text();
            assert!(
                !text.contains("SECRET") && !text.contains("only_here"),
                "{tool} call {calls} leaked: {text}"
            );
        }
        calls += 1;
    }
    assert!(swapper.stop() >= 500, "the race ran");
}

#[tokio::test]
async fn fence_denials_are_marked_sandbox_denied_except_the_hard_protected_tier() {
    // docs/contract.md#paths: the sensitive, credential and outside tiers are permission_denied and
    // marked sandbox_denied; the hard-protected tier is permission_denied only.
    let fx = Fixture::new();
    let home = Home::new();
    fx.write(".env", "KEY=1\n");
    std::fs::create_dir_all(fx.root().join(".git/hooks")).unwrap();
    let outside = tempfile::tempdir_in("/var/tmp").unwrap();
    let ts = toolset(&fx, &["read", "write", "grep"]).await;
    let ssh = home.path().join(".ssh/id_rsa");
    for (tool, input, marked) in [
        ("read", json!({"path": ssh.to_str().unwrap()}), true),
        ("grep", json!({"pattern": "x", "path": home.path().join(".ssh").to_str().unwrap()}), true),
        (
            "write",
            json!({"path": outside.path().join("x.txt").to_str().unwrap(), "content": "x"}),
            true,
        ),
        ("write", json!({"path": ".env", "content": "KEY=2\n"}), true),
        ("write", json!({"path": ".git/hooks/pre-commit", "content": "x"}), false),
    ] {
        let r = ts.call(tool, input.clone(), call_with_home(&fx, &home)).await;
        assert_eq!(
            r.error.as_ref().map(|e| e.code),
            Some(ErrorCode::PermissionDenied),
            "{tool} {input}: {}",
            r.text()
        );
        assert_eq!(r.sandbox_denied, marked, "{tool} {input}: {}", r.text());
    }
    // Not a denial: no mark.
    let r = ts.call("read", json!({"path": "missing.txt"}), call_with_home(&fx, &home)).await;
    assert!(!r.succeeded() && !r.sandbox_denied);
}
