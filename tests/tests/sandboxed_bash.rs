//! bash inside real bubblewrap + Landlock (Linux, bwrap installed; written for running as
//! root, where `--cap-drop ALL` is what stops escapes): bash's run (`toolhost::bash::run_bash`)
//! on the sandbox crate's bubblewrap backend, with the built `toolhost` binary as the Landlock
//! helper. Acceptance numbers follow docs/acceptance.md.

#![cfg(target_os = "linux")]

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio_util::sync::CancellationToken;
use toolhost::bash::{BashOutcome, BashRequest, BashStatus, run_bash};
use toolhost_limits::{BASH_HEAD_BYTES, BASH_TAIL_BYTES, MAX_SPILL_BYTES};
use toolhost_policy::{Access, Actor, PathGrant, PolicyConfig, SandboxMode, SandboxPolicy, Scope};
use toolhost_sandbox::bwrap::Bubblewrap;
use toolhost_sandbox::capture::{CAPTURE_WHOLE_BYTES, Stream};
use toolhost_sandbox::process::{
    GroupKiller, ProcessBackend, ProcessEnd, ProcessRequest, TokioProcessBackend,
};
use toolhost_sandbox::{Availability, SandboxBackend, SandboxError};

struct Fixture {
    _dir: tempfile::TempDir,
    base: PathBuf,
    ws: PathBuf,
    home: PathBuf,
    policy: SandboxPolicy,
}

fn fixture(mode: SandboxMode) -> Fixture {
    let dir = tempfile::tempdir().unwrap();
    let base = std::fs::canonicalize(dir.path()).unwrap();
    for d in [
        "ws/.git/hooks",
        "home/.ssh",
        "extra",
        "tmp",
        "data/spill/s",
        "outside/granted",
        "outside/other",
        "home/.newagent",
        "home/.cargo/registry",
        "ws/other-data/spill",
    ] {
        std::fs::create_dir_all(base.join(d)).unwrap();
    }
    for (f, text) in [
        ("ws/f", "ws"),
        ("extra/f", "extra"),
        ("tmp/f", "tmp"),
        ("data/spill/s/c.txt", "spill"),
        ("home/.ssh/id", "TOP-SECRET-KEY"),
        ("home/.netrc", "TOP-SECRET-NETRC"),
        ("outside/granted/f", "granted"),
        ("outside/other/f", "other"),
        ("home/.newagent/token", "TOP-SECRET-UNLISTED"),
        ("home/.cargo/registry/x", "cache"),
        ("home/.cargo/credentials", "TOP-SECRET-CARGO"),
        ("home/.gitconfig", "[user]\n\tname = x\n"),
        ("ws/other-data/.toolhost-data-dir", "marker"),
        ("ws/other-data/policy.json", "{}"),
        ("ws/other-data/spill/x", "spill"),
    ] {
        std::fs::write(base.join(f), text).unwrap();
    }
    let ws = base.join("ws");
    let home = base.join("home");
    let policy = SandboxPolicy::builder(mode, &ws)
        .home(&home)
        .data_dir(base.join("data"))
        // Another instance's data dir, as the registry of data dirs names it.
        .other_data_dirs([base.join("ws/other-data")])
        .config(PolicyConfig {
            extra_writable_roots: vec![base.join("extra")],
            temp_dir: Some(base.join("tmp")),
            ..Default::default()
        })
        .build();
    Fixture { _dir: dir, base, ws, home, policy }
}

fn sandbox() -> Bubblewrap {
    Bubblewrap::new().with_landlock_helper(toolhost_tests::toolhost_bin())
}

fn env(f: &Fixture) -> BTreeMap<String, String> {
    BTreeMap::from([
        ("PATH".into(), "/usr/local/bin:/usr/bin:/bin".into()),
        ("HOME".into(), f.home.display().to_string()),
        ("TMPDIR".into(), f.base.join("tmp").display().to_string()),
        ("LC_ALL".into(), "C".into()),
    ])
}

fn request(f: &Fixture, command: &str) -> BashRequest {
    BashRequest {
        command: command.into(),
        timeout_ms: Some(60_000),
        workspace: f.ws.clone(),
        policy: f.policy.clone(),
        env: env(f),
        deadline: None,
        cancel: CancellationToken::new(),
        spill_path: Some(f.base.join("data/spill/s/call.txt")),
        progress: None,
    }
}

async fn bash(f: &Fixture, command: &str) -> BashOutcome {
    run_bash(&sandbox(), &TokioProcessBackend::new(), request(f, command)).await
}

fn exit_code(o: &BashOutcome) -> Option<i32> {
    match o.status {
        BashStatus::Completed { exit_code, .. } => exit_code,
        _ => panic!("not completed: {o:?}"),
    }
}

#[tokio::test]
async fn escapes_fail_from_inside() {
    let f = fixture(SandboxMode::WorkspaceWrite);
    let ssh = f.home.join(".ssh");
    let outside = f.base.join("outside/other/f");
    let cases: Vec<String> = vec![
        "mount -o remount,rw /".into(),
        "mount -o remount,rw,bind /".into(),
        format!("umount {}", ssh.display()),
        format!("umount -l {}", ssh.display()),
        format!("ln {} hardlink", outside.display()),
        format!("cat {}/id", ssh.display()),
        format!("cat {}", f.home.join(".netrc").display()),
        format!("ls {}", ssh.display()),
        format!("echo pwned > {}", outside.display()),
        "echo pwned > /etc/toolhost-escape-probe".into(),
    ];
    for cmd in cases {
        let o = bash(&f, &cmd).await;
        assert_ne!(exit_code(&o), Some(0), "{cmd}: {}", o.text);
        assert!(!o.text.contains("TOP-SECRET"), "{cmd}: {}", o.text);
    }
    assert_eq!(std::fs::read_to_string(&outside).unwrap(), "other");
    assert!(!f.ws.join("hardlink").exists());
    assert!(!Path::new("/etc/toolhost-escape-probe").exists());
    // After the attempts, the secret is still hidden.
    let o =
        bash(&f, &format!("mount -o remount,rw / ; umount {0}; cat {0}/id", ssh.display())).await;
    assert!(!o.text.contains("TOP-SECRET"), "{}", o.text);
}

#[tokio::test]
async fn acc_10b_credential_reads_are_denied_and_marked() {
    let f = fixture(SandboxMode::WorkspaceWrite);
    let o = bash(&f, &format!("cat {}/id", f.home.join(".ssh").display())).await;
    assert_eq!(exit_code(&o), Some(1));
    assert!(o.sandbox_denied, "{}", o.text);
    assert!(o.text.contains("[sandbox denied: "), "{}", o.text);
    assert!(o.text.contains("credential location"), "{}", o.text);
}

#[tokio::test]
async fn ordinary_work_works() {
    let f = fixture(SandboxMode::WorkspaceWrite);
    std::fs::remove_dir_all(f.ws.join(".git")).unwrap();
    let o = bash(
        &f,
        "git init -q && echo hi > a.txt && git add -A && git -c user.email=a@b -c user.name=n commit -q -m x && git log --oneline | wc -l && echo t > \"$TMPDIR/t\" && cat \"$TMPDIR/t\" && echo x > ../extra/new",
    )
    .await;
    assert_eq!(exit_code(&o), Some(0), "{}", o.text);
    assert!(!o.sandbox_denied);
    assert!(o.text.starts_with("1\nt\n[exit 0; duration "), "{}", o.text);
    assert!(f.base.join("tmp/t").exists());
    assert!(f.base.join("extra/new").exists());
}

#[tokio::test]
async fn acc_10e_writing_git_hooks_is_denied_and_marked() {
    let f = fixture(SandboxMode::WorkspaceWrite);
    let o = bash(&f, "echo x > .git/hooks/pre-commit").await;
    assert_eq!(exit_code(&o), Some(1));
    assert!(o.sandbox_denied);
    let marker = o.text.lines().last().unwrap();
    assert!(
        marker.starts_with("[sandbox denied: ") && marker.contains("git metadata"),
        "{}",
        o.text
    );
    assert!(!f.ws.join(".git/hooks/pre-commit").exists());
    // The rest of .git stays writable.
    let o = bash(&f, "echo ref > .git/HEAD2").await;
    assert_eq!(exit_code(&o), Some(0), "{}", o.text);
}

#[tokio::test]
async fn acc_26_bash_cannot_write_the_spill_directory() {
    let f = fixture(SandboxMode::WorkspaceWrite);
    // Here the data dir sits inside a writable root (the temp base), so it is a carve-out.
    let mut p = f.policy.clone();
    p = p.with_grants([PathGrant {
        path: f.base.clone(),
        access: Access::Write,
        scope: Scope::Subtree,
    }]);
    let mut req =
        request(&f, &format!("echo x >> {}", f.base.join("data/spill/s/c.txt").display()));
    req.policy = p;
    let o = run_bash(&sandbox(), &TokioProcessBackend::new(), req).await;
    assert_eq!(exit_code(&o), Some(1), "{}", o.text);
    assert!(o.text.contains("never written"), "{}", o.text);
    assert_eq!(std::fs::read_to_string(f.base.join("data/spill/s/c.txt")).unwrap(), "spill");
}

#[tokio::test]
async fn ordinary_failures_are_not_denials() {
    let f = fixture(SandboxMode::WorkspaceWrite);
    for cmd in [
        "false",
        "exit 1",
        "grep nothing-here /dev/null",
        "echo denied > sandbox-denied.txt; cat sandbox-denied.txt; exit 3",
        "echo 'Permission denied' ; exit 2",
        "ls /nonexistent",
    ] {
        let o = bash(&f, cmd).await;
        assert_ne!(exit_code(&o), Some(0), "{cmd}");
        assert!(!o.sandbox_denied, "{cmd}: {}", o.text);
        assert!(!o.text.contains("[sandbox denied"), "{cmd}: {}", o.text);
    }
}

#[tokio::test]
async fn read_only_mode_denies_workspace_writes() {
    let f = fixture(SandboxMode::ReadOnly);
    let o = bash(&f, "cat f && touch g").await;
    assert_eq!(exit_code(&o), Some(1));
    assert!(o.text.starts_with("ws"), "{}", o.text);
    assert!(o.sandbox_denied, "{}", o.text);
    assert!(o.text.contains("this session is read-only"), "{}", o.text);
}

fn pids_with_arg(arg: &str) -> Vec<i32> {
    let mut out = Vec::new();
    for e in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(pid) = e.file_name().to_string_lossy().parse::<i32>() else {
            continue;
        };
        if let Ok(cmdline) = std::fs::read(e.path().join("cmdline")) {
            let parts: Vec<&[u8]> = cmdline.split(|b| *b == 0).collect();
            if parts.first() == Some(&&b"sleep"[..]) && parts.get(1) == Some(&arg.as_bytes()) {
                out.push(pid);
            }
        }
    }
    out
}

async fn wait_until_gone(pid: i32) -> bool {
    for _ in 0..200 {
        let alive = std::fs::read_to_string(format!("/proc/{pid}/stat"))
            .map(|s| !s.split(") ").nth(1).unwrap_or("").starts_with('Z'))
            .unwrap_or(false);
        if !alive {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    false
}

/// Runs `sleep <marker> & echo started; wait`, ends it with `end` once started, and checks
/// the grandchild is gone and the partial output survived.
async fn grandchild_dies(marker: &str, cancel_it: bool) -> BashOutcome {
    let f = fixture(SandboxMode::WorkspaceWrite);
    let (tx, rx) = std::sync::mpsc::channel::<()>();
    let tx = Mutex::new(tx);
    let mut req = request(&f, &format!("echo partial-output; sleep {marker} & echo started; wait"));
    req.timeout_ms = Some(if cancel_it { 60_000 } else { 3_000 });
    req.progress = Some(Arc::new(move |_s: Stream, chunk: &[u8]| {
        if String::from_utf8_lossy(chunk).contains("started") {
            let _ = tx.lock().unwrap().send(());
        }
    }));
    let cancel = req.cancel.clone();
    let marker2 = marker.to_string();
    let watcher = tokio::spawn(async move {
        tokio::task::spawn_blocking(move || rx.recv()).await.unwrap().unwrap();
        let mut pids = Vec::new();
        for _ in 0..100 {
            pids = pids_with_arg(&marker2);
            if !pids.is_empty() {
                break;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        if cancel_it {
            cancel.cancel();
        }
        pids
    });
    let o = run_bash(&sandbox(), &TokioProcessBackend::new(), req).await;
    let pids = watcher.await.unwrap();
    assert_eq!(pids.len(), 1, "the grandchild was seen running");
    assert!(wait_until_gone(pids[0]).await, "grandchild {} survived", pids[0]);
    assert!(o.text.starts_with("partial-output\nstarted\n"), "{}", o.text);
    o
}

#[tokio::test]
async fn a_grandchild_dies_on_timeout_and_partial_output_survives() {
    let o = grandchild_dies("1000.123", false).await;
    assert_eq!(o.status, BashStatus::TimedOut { timeout_ms: 3_000 });
    assert!(
        o.text.lines().last().unwrap().starts_with("[timed out after 3000 ms; duration "),
        "{}",
        o.text
    );
}

#[tokio::test]
async fn a_grandchild_dies_on_cancel_and_partial_output_survives() {
    let o = grandchild_dies("1000.456", true).await;
    assert_eq!(o.status, BashStatus::Cancelled);
    assert!(o.text.lines().last().unwrap().starts_with("[cancelled; duration "), "{}", o.text);
}

#[tokio::test]
async fn acc_25_long_output_keeps_head_and_tail_and_spills_the_rest() {
    let f = fixture(SandboxMode::WorkspaceWrite);
    let o = bash(&f, "seq 1 20000").await;
    let full = std::process::Command::new("seq").args(["1", "20000"]).output().unwrap().stdout;
    let spill = f.base.join("data/spill/s/call.txt");
    let omitted = full.len() - BASH_HEAD_BYTES - BASH_TAIL_BYTES;
    let expected_prefix = format!(
        "{}\n... ({omitted} bytes omitted. Full output saved at {} — use read with offset/limit, or grep, to look at it.)\n{}[exit 0; duration ",
        String::from_utf8_lossy(&full[..BASH_HEAD_BYTES]),
        spill.display(),
        String::from_utf8_lossy(&full[full.len() - BASH_TAIL_BYTES..]),
    );
    assert!(o.text.starts_with(&expected_prefix), "{}", o.text);
    assert!(o.text.ends_with(" ms]"));
    assert_eq!(o.spill_path.as_deref(), Some(spill.as_path()));
    assert_eq!(std::fs::read(&spill).unwrap(), full);
    // Small output leaves no file.
    let small = fixture(SandboxMode::WorkspaceWrite);
    let o = bash(&small, "seq 1 10").await;
    assert!(o.spill_path.is_none());
    assert!(!small.base.join("data/spill/s/call.txt").exists());
}

#[tokio::test]
async fn merges_stdout_and_stderr_in_arrival_order() {
    let f = fixture(SandboxMode::WorkspaceWrite);
    let seen = Arc::new(Mutex::new(Vec::new()));
    let seen2 = seen.clone();
    let mut req = request(&f, "echo out1; sleep 0.3; echo err1 >&2; sleep 0.3; echo out2; exit 7");
    req.progress = Some(Arc::new(move |s: Stream, _c: &[u8]| seen2.lock().unwrap().push(s)));
    let o = run_bash(&sandbox(), &TokioProcessBackend::new(), req).await;
    assert_eq!(exit_code(&o), Some(7));
    assert!(o.text.starts_with("out1\nerr1\nout2\n[exit 7; duration "), "{}", o.text);
    let seen = seen.lock().unwrap();
    assert!(seen.contains(&Stream::Stdout) && seen.contains(&Stream::Stderr));
}

#[tokio::test]
async fn unbounded_output_stays_bounded_in_memory_and_on_disk() {
    let dir = tempfile::tempdir().unwrap();
    let spill = dir.path().join("yes.txt");
    let out = TokioProcessBackend::new()
        .run(ProcessRequest {
            argv: vec!["/usr/bin/yes".into()],
            cwd: dir.path().into(),
            env: BTreeMap::new(),
            timeout: Duration::from_secs(3),
            cancel: CancellationToken::new(),
            spill_path: Some(spill.clone()),
            progress: None,
            cgroup_procs: Vec::new(),
            started_fd: None,
        })
        .await;
    assert_eq!(out.end, ProcessEnd::TimedOut);
    assert!(out.output.retained_bytes() <= CAPTURE_WHOLE_BYTES);
    assert!(out.output.total_bytes() > CAPTURE_WHOLE_BYTES as u64);
    let size = std::fs::metadata(&spill).unwrap().len();
    assert!(size <= MAX_SPILL_BYTES, "{size}");
    assert!(out.output.render().len() < CAPTURE_WHOLE_BYTES + 512);

    // The same through bash in the sandbox.
    let f = fixture(SandboxMode::WorkspaceWrite);
    let mut req = request(&f, "yes");
    req.timeout_ms = Some(3_000);
    let o = run_bash(&sandbox(), &TokioProcessBackend::new(), req).await;
    assert!(matches!(o.status, BashStatus::TimedOut { .. }));
    assert!(o.text.len() < CAPTURE_WHOLE_BYTES + 512, "{}", o.text.len());
    let size = std::fs::metadata(f.base.join("data/spill/s/call.txt")).unwrap().len();
    assert!(size <= MAX_SPILL_BYTES, "{size}");
}

struct FailingKiller;

impl GroupKiller for FailingKiller {
    fn kill_group(&self, _pgid: u32) -> std::io::Result<()> {
        Err(std::io::Error::from_raw_os_error(libc::EPERM))
    }
}

#[tokio::test]
async fn kill_failure_is_outcome_unknown() {
    let f = fixture(SandboxMode::WorkspaceWrite);
    let mut req = request(&f, "seq 1 20000; echo before; sleep 1000.789");
    req.timeout_ms = Some(1_500);
    let o =
        run_bash(&sandbox(), &TokioProcessBackend::with_killer(Arc::new(FailingKiller)), req).await;
    assert_eq!(o.status, BashStatus::OutcomeUnknown);
    assert!(o.text.contains("termination could not be confirmed"), "{}", o.text);
    assert!(o.spill_path.is_none());
    assert!(!f.base.join("data/spill/s/call.txt").exists(), "the spill file is deleted");
    for pid in pids_with_arg("1000.789") {
        assert!(wait_until_gone(pid).await, "the sandbox still went down with its parent");
    }
}

/// A backend that reports itself available but whose runner fails before bash starts.
struct BrokenRunner(Bubblewrap);

impl SandboxBackend for BrokenRunner {
    fn wrap(
        &self,
        _p: &SandboxPolicy,
        argv: Vec<OsString>,
        _cwd: &Path,
        _protected: &toolhost_sandbox::protected::Protected,
    ) -> Result<Vec<OsString>, SandboxError> {
        let mut a: Vec<OsString> =
            ["bwrap", "--ro-bind", "/", "/", "--tmpfs", "/nonexistent-toolhost-dir", "--"]
                .iter()
                .map(OsString::from)
                .collect();
        a.extend(argv);
        Ok(a)
    }
    fn available(&self) -> Availability {
        Availability::Available
    }
    fn runner_failure(&self, code: Option<i32>, stderr: &[u8], started: bool) -> Option<String> {
        self.0.runner_failure(code, stderr, started)
    }
}

#[tokio::test]
async fn acc_10e_a_runner_failure_is_unavailable_not_denied() {
    let f = fixture(SandboxMode::WorkspaceWrite);
    let o = run_bash(
        &BrokenRunner(Bubblewrap::new()),
        &TokioProcessBackend::new(),
        request(&f, "touch ran"),
    )
    .await;
    assert_eq!(o.status, BashStatus::SandboxUnavailable, "{}", o.text);
    assert!(!o.sandbox_denied);
    assert!(
        o.text.starts_with("sandbox unavailable: the sandbox failed to start the command (bwrap: "),
        "{}",
        o.text
    );
    assert!(!f.ws.join("ran").exists());
}

#[tokio::test]
async fn acc_10d_bash_does_not_run_when_the_sandbox_is_unavailable() {
    let f = fixture(SandboxMode::WorkspaceWrite);
    let backend = Bubblewrap::new().with_bwrap("/nonexistent/bwrap");
    let o = run_bash(&backend, &TokioProcessBackend::new(), request(&f, "touch ran")).await;
    assert_eq!(o.status, BashStatus::SandboxUnavailable);
    assert!(
        o.text.starts_with("sandbox unavailable: bubblewrap (bwrap) is not installed"),
        "{}",
        o.text
    );
    assert!(!f.ws.join("ran").exists());
}

#[tokio::test]
async fn acc_10a_file_tool_fence_and_bubblewrap_agree_on_every_path() {
    let f = fixture(SandboxMode::WorkspaceWrite);
    let policy = f.policy.with_grants([PathGrant {
        path: f.base.join("outside/granted"),
        access: Access::Write,
        scope: Scope::Subtree,
    }]);
    let paths: Vec<PathBuf> = vec![
        f.ws.join("f"),
        f.base.join("extra/f"),
        f.base.join("tmp/f"),
        "/etc/passwd".into(),
        "/usr/bin/env".into(),
        f.base.join("data/spill/s/c.txt"),
        f.home.join(".ssh/id"),
        f.home.join(".netrc"),
        f.base.join("outside/granted/f"),
        f.base.join("outside/other/f"),
        f.home.join(".newagent/token"),
        f.home.join(".cargo/registry/x"),
        f.home.join(".cargo/credentials"),
        f.home.join(".gitconfig"),
        f.ws.join("other-data/policy.json"),
        f.ws.join("other-data/spill/x"),
    ];
    let mut script = String::new();
    for (i, p) in paths.iter().enumerate() {
        let p = p.display();
        script.push_str(&format!(
            "if cat '{p}' >/dev/null 2>&1; then echo {i}R1; else echo {i}R0; fi; if ( : >> '{p}' ) 2>/dev/null; then echo {i}W1; else echo {i}W0; fi\n"
        ));
    }
    let mut req = request(&f, &script);
    req.policy = policy.clone();
    let o = run_bash(&sandbox(), &TokioProcessBackend::new(), req).await;
    assert_eq!(exit_code(&o), Some(0), "{}", o.text);
    for (i, p) in paths.iter().enumerate() {
        let read = policy.check(p, Access::Read, Actor::FileTool).is_ok();
        let write = policy.check(p, Access::Write, Actor::FileTool).is_ok();
        let got_read = o.text.contains(&format!("{i}R1\n"));
        let got_write = o.text.contains(&format!("{i}W1\n"));
        assert_eq!((got_read, got_write), (read, write), "{}: bash vs policy", p.display());
    }
}

/// Counts the group kills it is asked for, then kills for real.
struct CountingKiller(std::sync::atomic::AtomicUsize);

impl GroupKiller for CountingKiller {
    fn kill_group(&self, pgid: u32) -> std::io::Result<()> {
        self.0.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        toolhost_sandbox::process::SigkillGroup.kill_group(pgid)
    }
}

/// docs/acceptance.md K2 (was untested): timeout and cancellation end in the one `terminate`, which
/// is the only caller of the backend's group killer — proven by counting its calls.
#[tokio::test]
async fn timeout_and_cancel_go_through_the_same_terminate() {
    let f = fixture(SandboxMode::WorkspaceWrite);
    let killer = Arc::new(CountingKiller(Default::default()));
    let backend = TokioProcessBackend::with_killer(killer.clone());
    let mut req = request(&f, "sleep 1000.456");
    req.timeout_ms = Some(300);
    let o = run_bash(&sandbox(), &backend, req).await;
    assert!(matches!(o.status, BashStatus::TimedOut { .. }), "{:?}", o.status);
    let after_timeout = killer.0.load(std::sync::atomic::Ordering::SeqCst);
    assert!(after_timeout >= 1, "the timeout killed through the injected killer");
    let req = request(&f, "sleep 1000.457");
    let cancel = req.cancel.clone();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(300)).await;
        cancel.cancel();
    });
    let o = run_bash(&sandbox(), &backend, req).await;
    assert_eq!(o.status, BashStatus::Cancelled);
    assert!(
        killer.0.load(std::sync::atomic::Ordering::SeqCst) > after_timeout,
        "so did the cancel"
    );
    for arg in ["1000.456", "1000.457"] {
        for pid in pids_with_arg(arg) {
            assert!(wait_until_gone(pid).await, "{arg} is gone");
        }
    }
}
