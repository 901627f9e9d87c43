//! The Seatbelt backend's argv, self-check and runner failures.

use std::path::PathBuf;

use super::*;
use toolhost_policy::{Access, PathGrant, PolicyConfig, SandboxMode, Scope};

#[test]
fn wrap_builds_the_golden_argv() {
    let policy = SandboxPolicy::builder(SandboxMode::WorkspaceWrite, "/golden/ws")
        .home("/golden/home")
        .data_dir("/golden/ws/.toolhost")
        .other_homes(["/golden/users".into()], ["/golden/root".into()])
        .config(PolicyConfig { temp_dir: Some("/golden/tmp".into()), ..Default::default() })
        .build()
        .with_grants([
            PathGrant {
                path: "/golden/ws/.env".into(),
                access: Access::Write,
                scope: Scope::Exact,
            },
            PathGrant {
                path: "/golden/home/.ssh/known_hosts".into(),
                access: Access::Read,
                scope: Scope::Exact,
            },
        ]);
    let protected = Protected {
        entries: ["/golden/ws/.env", "/golden/ws/.git", "/golden/ws/.git/config"]
            .map(PathBuf::from)
            .to_vec(),
        git_dirs: ["/golden/ws/.git", "/golden/ws/modules-git"].map(PathBuf::from).to_vec(),
        home_hidden: Vec::new(),
        heads: Vec::new(),
    };
    let argv = Seatbelt::new()
        .wrap(
            &policy,
            vec!["/bin/bash".into(), "-c".into(), "echo hi".into()],
            Path::new("/golden/ws"),
            &protected,
        )
        .unwrap();
    let argv: Vec<String> = argv.iter().map(|a| a.to_str().unwrap().to_string()).collect();
    assert_eq!(argv[..2], ["/usr/bin/sandbox-exec", "-p"]);
    assert_eq!(argv[3..], ["-D", "WORKSPACE=/golden/ws", "--", "/bin/bash", "-c", "echo hi"]);
    assert_eq!(argv[2], GOLDEN_CALL_PROFILE);
}

/// The profile [`Seatbelt::wrap`] writes for the golden policy, as macOS must accept it.
const GOLDEN_CALL_PROFILE: &str = include_str!("golden_call_profile.sb");

#[test]
fn off_macos_the_backend_is_unavailable_and_says_why() {
    if cfg!(target_os = "macos") {
        return;
    }
    match Seatbelt::new().available() {
        Availability::Unavailable { reason } => assert_eq!(reason, reasons::NOT_MACOS),
        a => panic!("{a:?}"),
    }
}

#[test]
fn runner_failures_are_sandbox_execs_own() {
    let s = Seatbelt::new();
    for (code, stderr) in [
        (71, "sandbox-exec: sandbox_apply: Operation not permitted\n"),
        (65, "sandbox-exec: unbound variable: setenv at <input string>, line 5\n"),
        (71, "sandbox-exec: execvp() of '/bin/bash' failed: No such file or directory\n"),
    ] {
        assert_eq!(
            s.runner_failure(Some(code), stderr.as_bytes(), false).as_deref(),
            Some(stderr.trim_end()),
            "{stderr}"
        );
    }
    for (code, stderr) in [
        (Some(1), "sandbox-exec: sandbox_apply: Operation not permitted\n"),
        (Some(71), "cat: x: Operation not permitted\n"),
        (Some(0), "sandbox-exec: hi\n"),
        (None, "sandbox-exec: sandbox_apply: Operation not permitted\n"),
    ] {
        assert_eq!(s.runner_failure(code, stderr.as_bytes(), false), None, "{code:?} {stderr}");
    }
}

#[test]
fn seatbelt_denials_are_marked_from_the_kernels_words() {
    // Seatbelt refuses with EPERM: BSD tools and bash print "Operation not permitted".
    let dir = tempfile::tempdir().unwrap();
    let base = std::fs::canonicalize(dir.path()).unwrap();
    let ws = base.join("ws");
    std::fs::create_dir_all(ws.join(".git/hooks")).unwrap();
    let policy = SandboxPolicy::builder(SandboxMode::WorkspaceWrite, &ws)
        .home(base.join("home"))
        .config(PolicyConfig { temp_dir: Some(base.join("tmp")), ..Default::default() })
        .build();
    let home = base.join("home").display().to_string();
    for (line, want) in [
        (
            "bash: line 1: .git/hooks/pre-commit: Operation not permitted".to_string(),
            ws.join(".git/hooks/pre-commit"),
        ),
        (
            format!("cat: {home}/.ssh/id_ed25519: Operation not permitted"),
            base.join("home/.ssh/id_ed25519"),
        ),
        (format!("ls: {home}/.aws: Operation not permitted"), base.join("home/.aws")),
        ("touch: /usr/local/x: Operation not permitted".to_string(), "/usr/local/x".into()),
        ("mkdir: /opt/x: Operation not permitted".to_string(), "/opt/x".into()),
        ("cp: .env: Operation not permitted".to_string(), ws.join(".env")),
    ] {
        let got = crate::denial::detect_denial(&line, &policy, &ws).map(|(p, _)| p);
        assert_eq!(got, Some(want), "{line}");
    }
    assert_eq!(
        crate::denial::detect_denial("cp: ws-file: Operation not permitted", &policy, &ws),
        None,
        "allowed by the policy: not a denial"
    );
}
