use super::*;

struct Fixture {
    _dir: tempfile::TempDir,
    base: PathBuf,
    policy: SandboxPolicy,
}

#[test]
fn every_git_hooks_dir_is_hard_protected_in_every_mode_and_under_any_grant() {
    for mode in [SandboxMode::ReadOnly, SandboxMode::WorkspaceWrite] {
        let f = fixture(mode);
        let ws = f.base.join("ws");
        let granted = f.policy.with_grants([PathGrant {
            path: ws.clone(),
            access: Access::Write,
            scope: Scope::Subtree,
        }]);
        for p in [ws.join(".git/hooks/pre-commit"), ws.join("vendor/lib/.git/hooks/post-merge")] {
            assert_eq!(granted.tier(&p), Tier::GitMetadata, "{}", p.display());
            let denial = granted.check(&p, Access::Write, Actor::FileTool).unwrap_err();
            assert!(!denial.sandbox_denied, "hard-protected: no escalation hint");
        }
        for p in [ws.join(".git/HEAD"), ws.join(".git/refs/heads/main"), ws.join(".git/index")] {
            let denial = granted.check(&p, Access::Write, Actor::FileTool).unwrap_err();
            assert!(denial.message.contains("git's own state"), "{}", denial.message);
            // Bash runs git, which writes its state on every commit: the OS rules leave it open.
            assert!(granted.check(&p, Access::Write, Actor::Bash).is_ok(), "{}", p.display());
        }
        let hook = ws.join(".git/hooks/pre-commit");
        assert!(granted.check(&hook, Access::Write, Actor::Bash).is_err());
        assert!(
            granted.check(&ws.join(".git/description"), Access::Write, Actor::FileTool).is_ok()
        );
    }
}

fn fixture(mode: SandboxMode) -> Fixture {
    let dir = tempfile::tempdir().unwrap();
    let base = std::fs::canonicalize(dir.path()).unwrap();
    for d in ["ws/.git/hooks", "ws/sub", "home/.ssh", "extra", "tmp", "data/spill", "out"] {
        std::fs::create_dir_all(base.join(d)).unwrap();
    }
    for f in ["ws/.env", "ws/sub/.env.local", "ws/.git/config", "home/.netrc", "home/.bashrc"] {
        std::fs::write(base.join(f), "x").unwrap();
    }
    let policy = SandboxPolicy::builder(mode, base.join("ws"))
        .home(base.join("home"))
        .data_dir(base.join("data"))
        .config(PolicyConfig {
            extra_writable_roots: vec![base.join("extra")],
            temp_dir: Some(base.join("tmp")),
            ..Default::default()
        })
        .build();
    Fixture { _dir: dir, base, policy }
}

/// (path under the fixture base, read allowed, write allowed, write denial escalatable)
const WORKSPACE_WRITE: &[(&str, bool, bool, bool)] = &[
    ("ws/src/main.rs", true, true, false),
    ("ws/.git/HEAD", true, false, false),
    ("ws/.git/objects/ab", true, false, false),
    ("ws/.git/packed-refs", true, false, false),
    ("ws/.git/COMMIT_EDITMSG", true, true, false),
    ("ws/.git/hooks/pre-commit", true, false, false),
    ("ws/.git/config", true, false, false),
    ("ws/.gitmodules", true, false, true),
    ("ws/.env", true, false, true),
    ("ws/sub/.env.local", true, false, true),
    ("ws/sub/.envrc", true, true, false),
    ("ws/.bashrc", true, false, true),
    ("extra/x", true, true, false),
    ("tmp/x", true, true, false),
    ("data/spill/s1/c1.txt", true, false, false),
    ("data/cache", false, false, false),
    ("home/.ssh/id_ed25519", false, false, true),
    ("home/.netrc", false, false, true),
    ("home/.config/gh/hosts.yml", false, false, true),
    ("home/.cargo/credentials.toml", false, false, true),
    // HOME's hidden entries fail closed (cargo's own config may hold a registry token).
    ("home/.cargo/config.toml", false, false, true),
    ("home/.cargo/registry/index/x", true, false, true),
    ("home/.cargo/credentials", false, false, true),
    ("home/.newagent/token", false, false, true),
    ("home/.local/lib/python3.12/x.py", true, false, true),
    ("home/.local/lib/perl5/x.pm", false, false, true),
    ("home/.local/share/keyrings/login.keyring", false, false, true),
    ("home/.gitconfig", true, false, true),
    ("home/.claude/.credentials.json", false, false, true),
    ("home/visible/x", true, false, true),
    ("home/.bashrc", true, false, true),
    ("out/file", true, false, true),
];

#[test]
fn workspace_write_tiers() {
    let f = fixture(SandboxMode::WorkspaceWrite);
    for (rel, read, write, escalatable) in WORKSPACE_WRITE {
        let p = f.base.join(rel);
        assert_eq!(f.policy.check(&p, Access::Read, Actor::FileTool).is_ok(), *read, "read {rel}");
        let w = f.policy.check(&p, Access::Write, Actor::FileTool);
        assert_eq!(w.is_ok(), *write, "write {rel}: {w:?}");
        if let Err(d) = w {
            assert_eq!(d.sandbox_denied, *escalatable, "escalatable {rel}");
        }
    }
    for abs in ["/etc/passwd", "/usr/bin/x"] {
        assert!(f.policy.check(Path::new(abs), Access::Read, Actor::FileTool).is_ok());
        assert!(f.policy.check(Path::new(abs), Access::Write, Actor::FileTool).is_err());
    }
}

#[test]
fn read_only_writes_nothing() {
    let f = fixture(SandboxMode::ReadOnly);
    for rel in ["ws/a", "extra/a", "tmp/a", "out/a"] {
        let d = f.policy.check(&f.base.join(rel), Access::Write, Actor::FileTool).unwrap_err();
        assert!(d.sandbox_denied);
        assert!(d.message.contains("read-only"), "{}", d.message);
    }
    assert!(f.policy.check(&f.base.join("ws/a"), Access::Read, Actor::FileTool).is_ok());
    assert!(f.policy.writable_roots().is_empty());
}

#[test]
fn grants_unlock_what_they_name_but_never_hard_protected_paths() {
    let f = fixture(SandboxMode::WorkspaceWrite);
    let g = |rel: &str, access, scope| PathGrant { path: f.base.join(rel), access, scope };
    let p = f.policy.with_grants([
        g("out", Access::Write, Scope::Subtree),
        g("ws/.env", Access::Write, Scope::Exact),
        g("home/.ssh", Access::Read, Scope::Subtree),
        g("data", Access::Write, Scope::Subtree),
        g("ws/.git/hooks", Access::Write, Scope::Subtree),
    ]);
    let w = |rel: &str| p.check(&f.base.join(rel), Access::Write, Actor::FileTool);
    assert!(w("out/a/b").is_ok());
    assert!(w("ws/.env").is_ok());
    assert!(w("ws/sub/.env.local").is_err());
    assert!(w("home/.ssh/id").is_err(), "a read grant does not allow writing");
    assert!(p.check(&f.base.join("home/.ssh/id"), Access::Read, Actor::FileTool).is_ok());
    assert!(!w("data/spill/x").unwrap_err().sandbox_denied);
    assert!(!w("ws/.git/hooks/pre-commit").unwrap_err().sandbox_denied);
    assert!(!w("out/.git/hooks/x").unwrap_err().sandbox_denied, "hooks of a granted root");
    // Only this value is widened.
    assert!(f.policy.check(&f.base.join("out/a"), Access::Write, Actor::FileTool).is_err());
    assert!(p.writable_roots().contains(&f.base.join("out")));
    assert!(!p.writable_roots().contains(&f.base.join("data")));
    assert!(!p.unreadable_paths().contains(&f.base.join("home/.ssh")));
}

#[test]
fn os_sandbox_lists() {
    let f = fixture(SandboxMode::WorkspaceWrite);
    let roots = f.policy.writable_roots();
    assert_eq!(roots, vec![f.base.join("ws"), f.base.join("extra"), f.base.join("tmp")]);
    let mut unreadable = f.policy.unreadable_paths();
    unreadable.retain(|p| p.starts_with(&f.base));
    unreadable.sort();
    assert_eq!(unreadable, vec![f.base.join("home/.netrc"), f.base.join("home/.ssh")]);
}

#[test]
fn denial_texts_say_what_to_do() {
    let f = fixture(SandboxMode::WorkspaceWrite);
    let w = |rel: &str| {
        f.policy.check(&f.base.join(rel), Access::Write, Actor::FileTool).unwrap_err().message
    };
    assert!(w("out/x").contains("retry with sandboxPermissions"));
    assert!(w("out/x").contains("justification"));
    assert!(w("ws/.env").contains("retry with sandboxPermissions"));
    assert!(w("data/spill/x").contains("never written, not even with sandboxPermissions"));
    assert!(w("ws/.git/hooks/x").contains("git metadata"));
    let r =
        f.policy.check(&f.base.join("home/.ssh/id"), Access::Read, Actor::FileTool).unwrap_err();
    assert!(r.message.contains("credential location"));
    for environ in ["/proc/1/environ", "/proc/self/environ", "/proc/12/task/13/environ"] {
        let r = f.policy.check(Path::new(environ), Access::Read, Actor::FileTool).unwrap_err();
        assert!(r.message.contains("credential location") && r.sandbox_denied, "{environ}");
    }
    for fine in ["/proc/1/status", "/proc/cpuinfo", "/srv/environ"] {
        assert!(f.policy.check(Path::new(fine), Access::Read, Actor::FileTool).is_ok(), "{fine}");
    }
    assert_eq!(
        w("out/x"),
        format!(
            "{0}/out/x is outside the writable roots of this session ({0}/ws, {0}/extra, {0}/tmp). If the task needs it, retry with sandboxPermissions {{\"paths\": [{{\"path\": \"{0}/out/x\", \"access\": \"write\", \"scope\": \"exact\"}}]}} and a justification (one sentence for the user, who decides).",
            f.base.display()
        )
    );
}

#[test]
fn legacy_constructor_still_works() {
    let p = SandboxPolicy::new(SandboxMode::ReadOnly, "/");
    assert_eq!(p.mode(), SandboxMode::ReadOnly);
    assert!(p.check(Path::new("/etc/hosts"), Access::Read, Actor::FileTool).is_ok());
    assert!(p.check(Path::new("/etc/hosts"), Access::Write, Actor::FileTool).is_err());
    let ws = tempfile::tempdir().unwrap();
    let p = SandboxPolicy::workspace_write(ws.path());
    assert!(p.check(&real_path(&ws.path().join("a")), Access::Write, Actor::FileTool).is_ok());
}

#[test]
fn escalation_requests_validate() {
    let cwd = Path::new("/nonexistent-cwd");
    let parse = |v: serde_json::Value| serde_json::from_value::<EscalationRequest>(v);
    let ok = parse(serde_json::json!({
        "sandboxPermissions": {"paths": [{"path": "out/x", "access": "write", "scope": "subtree"}]},
        "justification": "build output goes there"
    }))
    .unwrap();
    let e = ok.validate(cwd).unwrap().unwrap();
    assert_eq!(
        e.grants,
        vec![PathGrant {
            path: "/nonexistent-cwd/out/x".into(),
            access: Access::Write,
            scope: Scope::Subtree
        }]
    );
    assert_eq!(parse(serde_json::json!({})).unwrap().validate(cwd), Ok(None));
    assert!(parse(serde_json::json!({"sandboxPermissions": {"paths": [], "extra": 1}})).is_err());
    assert!(parse(serde_json::json!({"other": 1})).is_err());
    assert!(parse(serde_json::json!({"sandboxPermissions": {"paths": [{"path": "a", "access": "exec", "scope": "exact"}]}})).is_err());
    let cases: &[(serde_json::Value, EscalationError)] = &[
        (
            serde_json::json!({"sandboxPermissions": {"paths": []}, "justification": "j"}),
            EscalationError::PathCount(0),
        ),
        (
            serde_json::json!({"sandboxPermissions": {"paths": vec![serde_json::json!({"path": "a", "access": "read", "scope": "exact"}); 17]}, "justification": "j"}),
            EscalationError::PathCount(17),
        ),
        (
            serde_json::json!({"sandboxPermissions": {"paths": [{"path": "a", "access": "read", "scope": "exact"}]}, "justification": "  "}),
            EscalationError::MissingJustification,
        ),
        (
            serde_json::json!({"sandboxPermissions": {"paths": [{"path": "a", "access": "read", "scope": "exact"}]}}),
            EscalationError::MissingJustification,
        ),
        (
            serde_json::json!({"sandboxPermissions": {"paths": [{"path": "", "access": "read", "scope": "exact"}]}, "justification": "j"}),
            EscalationError::EmptyPath(0),
        ),
    ];
    for (v, err) in cases {
        assert_eq!(parse(v.clone()).unwrap().validate(cwd), Err(err.clone()), "{v}");
    }
    assert_eq!(
        EscalationError::PathCount(17).to_string(),
        "sandboxPermissions.paths must list 1 to 16 paths (or none with \"network\": true); got 17"
    );
    let schema = serde_json::to_value(schemars::schema_for!(EscalationRequest)).unwrap();
    assert!(schema.to_string().contains("sandboxPermissions"));
}

#[test]
fn lexical_normalization() {
    for (input, want) in
        [("/a/./b/../c", "/a/c"), ("/..", "/"), ("a/../../b", "../b"), ("/a/b/", "/a/b")]
    {
        assert_eq!(normalize_lexically(Path::new(input)), PathBuf::from(want), "{input}");
    }
}

/// `reads_refusable_below` never says "nothing below is refused" for a root under which
/// `check` refuses a read: every path of the fixture's table, and the system ones, judged from
/// each of their ancestors.
#[test]
fn reads_refusable_below_covers_every_read_refusal() {
    let fx = fixture(SandboxMode::WorkspaceWrite);
    let mut paths: Vec<PathBuf> = WORKSPACE_WRITE.iter().map(|(p, ..)| fx.base.join(p)).collect();
    paths.extend(
        ["/proc/1/environ", "/proc/self/environ", "/etc/ssh/ssh_host_rsa_key", "/etc/shadow"]
            .map(PathBuf::from),
    );
    let mut refused = 0;
    for path in &paths {
        if fx.policy.check(path, Access::Read, Actor::FileTool).is_ok() {
            continue;
        }
        refused += 1;
        for root in path.ancestors() {
            assert!(
                fx.policy.reads_refusable_below(root),
                "{} is refused but {} says nothing below it is",
                path.display(),
                root.display()
            );
        }
    }
    assert!(refused >= 8, "the table refuses reads of {refused} paths");
    // A workspace with nothing refused below it needs no check per entry; HOME does.
    assert!(!fx.policy.reads_refusable_below(&fx.base.join("ws")));
    assert!(!fx.policy.reads_refusable_below(&fx.base.join("ws/sub")));
    assert!(fx.policy.reads_refusable_below(&fx.base.join("home")));
    assert!(fx.policy.reads_refusable_below(&fx.base.join("data")));
    assert!(fx.policy.reads_refusable_below(&fx.base.join("home/.ssh/keys")));
    assert!(fx.policy.reads_refusable_below(Path::new("/")));
}

#[test]
fn a_box_reaches_only_its_workspace_and_keeps_every_tier_inside() {
    let f = fixture(SandboxMode::WorkspaceWrite);
    let boxed = f.policy.confined_to(f.base.join("ws"));
    assert_eq!(boxed.reach(), Reach::WorkspaceOnly);
    assert!(boxed.check(&f.base.join("ws/src/main.rs"), Access::Read, Actor::FileTool).is_ok());
    assert!(boxed.check(&f.base.join("ws/src/main.rs"), Access::Write, Actor::FileTool).is_ok());
    // The tiers of the policy it was made from still hold inside.
    assert!(boxed.check(&f.base.join("ws/.git/config"), Access::Write, Actor::FileTool).is_err());
    assert!(boxed.check(&f.base.join("ws/.env"), Access::Write, Actor::FileTool).is_err());
    for rel in
        ["extra/x", "tmp/x", "out/file", "home/.bashrc", "data/spill/s1/c1.txt", "ws-sibling"]
    {
        for access in [Access::Read, Access::Write] {
            let d = boxed.check(&f.base.join(rel), access, Actor::FileTool).unwrap_err();
            assert!(!d.sandbox_denied, "{rel}: nothing to offer outside a box");
            assert!(d.message.contains("outside this call's box"), "{rel}: {}", d.message);
        }
    }
    assert_eq!(boxed.writable_roots(), vec![f.base.join("ws")]);
    assert!(boxed.reads_refusable_below(&f.base));
    // No grant and no network widen it.
    let g = PathGrant { path: f.base.join("out"), access: Access::Write, scope: Scope::Subtree };
    let widened = boxed.with_grants([g]).with_network(NetworkAccess::Allow);
    assert!(widened.check(&f.base.join("out/file"), Access::Read, Actor::FileTool).is_err());
    assert_eq!(widened.network(), NetworkAccess::Deny);
    // bash's sandbox empties HOME, the temp dir and the data dir before binding the box.
    let away = boxed.boxed_away_dirs();
    for rel in ["home", "tmp", "data"] {
        assert!(away.contains(&f.base.join(rel)), "{rel} not boxed away: {away:?}");
    }
    assert!(!away.iter().any(|d| d.starts_with(f.base.join("ws"))), "{away:?}");
}

#[test]
fn no_file_system_refuses_every_path() {
    let p = SandboxPolicy::no_file_system();
    assert_eq!(p.reach(), Reach::Nothing);
    for path in ["/", "/etc/hostname", "/tmp/x", "/nonexistent"] {
        for access in [Access::Read, Access::Write] {
            assert!(p.check(Path::new(path), access, Actor::FileTool).is_err(), "{path}");
        }
    }
    assert!(p.writable_roots().is_empty());
    assert!(p.reads_refusable_below(Path::new("/")));
}

#[test]
fn readable_home_entries_widen_the_hidden_rule_but_never_a_listed_credential() {
    let dir = tempfile::tempdir().unwrap();
    let base = std::fs::canonicalize(dir.path()).unwrap();
    let policy = SandboxPolicy::builder(SandboxMode::WorkspaceWrite, base.join("ws"))
        .home(base.join("home"))
        .config(PolicyConfig {
            readable_home_entries: vec!["~/.newagent".into(), ".config/".into()],
            ..Default::default()
        })
        .build();
    let read = |rel: &str| policy.check(&base.join(rel), Access::Read, Actor::FileTool).is_ok();
    assert!(read("home/.newagent/token"));
    assert!(read("home/.config/mytool/x"));
    assert!(!read("home/.config/gh/hosts.yml"), "a listed credential stays closed");
    assert!(!read("home/.config/github-copilot/hosts.json"));
    assert!(!read("home/.other/x"));
    let d = policy.check(&base.join("home/.other/x"), Access::Read, Actor::FileTool).unwrap_err();
    assert!(
        d.message.contains("hidden entry of HOME")
            && d.message.contains("readable_home_entries")
            && d.sandbox_denied,
        "{d:?}"
    );
    let d = policy
        .check(&base.join("home/.config/gh/hosts.yml"), Access::Read, Actor::FileTool)
        .unwrap_err();
    assert!(d.message.contains("credential location"), "{d:?}");
    // Walks over HOME ask about every entry.
    assert!(policy.reads_refusable_below(&base.join("home")));
    assert!(policy.reads_refusable_below(&base));
    assert!(!policy.reads_refusable_below(&base.join("home/visible")));
}

#[test]
fn a_root_or_the_data_dir_inside_a_hidden_entry_stays_readable() {
    let dir = tempfile::tempdir().unwrap();
    let base = std::fs::canonicalize(dir.path()).unwrap();
    let policy = SandboxPolicy::builder(SandboxMode::WorkspaceWrite, base.join("home/.dotfiles"))
        .home(base.join("home"))
        .data_dir(base.join("home/.local/state/toolhost"))
        .build();
    let read = |rel: &str| policy.check(&base.join(rel), Access::Read, Actor::FileTool).is_ok();
    assert!(read("home/.dotfiles/vimrc"));
    assert!(
        policy.check(&base.join("home/.dotfiles/vimrc"), Access::Write, Actor::FileTool).is_ok()
    );
    assert!(read("home/.local/state/toolhost/spill/s/x"));
    assert!(!read("home/.local/state/toolhost/toolhost.db"));
    assert!(!read("home/.local/state/other"));
}

#[test]
fn a_symlinked_hidden_entry_is_judged_by_its_home_name() {
    let dir = tempfile::tempdir().unwrap();
    let base = std::fs::canonicalize(dir.path()).unwrap();
    std::fs::create_dir_all(base.join("home")).unwrap();
    std::fs::create_dir_all(base.join("elsewhere/config/gh")).unwrap();
    std::fs::create_dir_all(base.join("elsewhere/ssh")).unwrap();
    std::os::unix::fs::symlink(base.join("elsewhere/config"), base.join("home/.config")).unwrap();
    std::os::unix::fs::symlink(base.join("elsewhere/ssh"), base.join("home/.ssh")).unwrap();
    let policy = SandboxPolicy::builder(SandboxMode::WorkspaceWrite, base.join("ws"))
        .home(base.join("home"))
        .config(PolicyConfig {
            readable_home_entries: vec![".config".into()],
            ..Default::default()
        })
        .build();
    let read = |rel: &str| policy.check(&base.join(rel), Access::Read, Actor::FileTool).is_ok();
    assert!(!read("elsewhere/ssh/id_rsa"), "~/.ssh through its symlink");
    assert!(!read("elsewhere/config/gh/hosts.yml"), "~/.config/gh through its symlink");
    assert!(read("elsewhere/config/mytool/x"));
}

#[test]
fn another_data_dir_is_private_by_the_hosts_record_never_by_a_marker_and_a_token_file_by_name() {
    let dir = tempfile::tempdir().unwrap();
    let base = std::fs::canonicalize(dir.path()).unwrap();
    std::fs::create_dir_all(base.join("ws/state/other/spill")).unwrap();
    std::fs::create_dir_all(base.join("ws/shipped/cache")).unwrap();
    // A repository may ship the marker file: it makes nothing a data dir.
    std::fs::write(base.join("ws/shipped").join(DATA_DIR_MARKER), "").unwrap();
    let policy = SandboxPolicy::builder(SandboxMode::WorkspaceWrite, base.join("ws"))
        .home(base.join("home"))
        .data_dir(base.join("data"))
        .other_data_dirs([base.join("ws/state/other")])
        .private_file(base.join("ws/token"))
        .build();
    let check = |rel: &str, access| policy.check(&base.join(rel), access, Actor::FileTool).is_ok();
    for rel in [
        "ws/state/other/mcp-token",
        "ws/state/other/toolhost.db",
        "ws/state/other/cache/components/x",
        "ws/token",
    ] {
        assert!(!check(rel, Access::Read), "read {rel}");
        assert!(policy.is_private_data(&base.join(rel)), "{rel}");
    }
    assert!(check("ws/state/other/spill/x", Access::Read));
    for rel in
        ["ws/state/other/policy.json", "ws/state/other/spill/x", "ws/state/other/new", "ws/token"]
    {
        let w = policy.check(&base.join(rel), Access::Write, Actor::FileTool);
        assert!(w.as_ref().is_err_and(|d| !d.sandbox_denied), "write {rel}: {w:?}");
    }
    // A directory with only the marker is not a data dir.
    for rel in ["ws/shipped/cache/x", "ws/shipped/x", "ws/shipped/toolhost.db"] {
        assert!(check(rel, Access::Read), "read {rel}");
        assert!(check(rel, Access::Write), "write {rel}");
    }
}

#[test]
fn process_env_allow_names_exact_variables_or_prefixes() {
    let config: PolicyConfig =
        serde_json::from_str(r#"{"process_env_allow": ["GOFLAGS", "MYAPP_*", "*"]}"#).unwrap();
    let policy = SandboxPolicy::builder(SandboxMode::WorkspaceWrite, "/ws").config(config).build();
    assert!(policy.process_env_allowed("GOFLAGS"));
    assert!(policy.process_env_allowed("MYAPP_LEVEL"));
    assert!(!policy.process_env_allowed("GOFLAGSX"), "an exact name is not a prefix");
    assert!(!policy.process_env_allowed("goflags"));
    assert!(!policy.process_env_allowed("GIT_DIR"), "a bare `*` allows nothing");
    assert!(!SandboxPolicy::workspace_write("/ws").process_env_allowed("GOFLAGS"));
}
