//! Credential entries in every home and other users' homes, judged by the fence and found by
//! bash's masks (`homes.rs`), on a fixture whose home parent and root home are temp dirs.

use std::path::{Path, PathBuf};

use super::super::{Access, Actor, PathGrant, PolicyConfig, SandboxMode, SandboxPolicy, Scope};

struct Fixture {
    _dir: tempfile::TempDir,
    base: PathBuf,
}

/// Files of the fixture: HOME (`home/`), another user's home (`users/bob/`), a home that holds
/// a writable root (`users/carol/`), and root's (`rootdir/`).
const FILES: &[&str] = &[
    "home/.config/git/config",
    "home/.config/git/credentials",
    "home/.config/fish/config.fish",
    "home/.config/fish/fish_variables",
    "home/.local/share/uv/credentials/credentials.toml",
    "home/.local/share/uv/tools/ruff/bin/ruff",
    "home/.nvm/versions/node/v20.1.0/etc/npmrc",
    "home/.nvm/versions/node/v20.1.0/bin/node",
    "home/.pyenv/versions/3.12.1/pip.conf",
    "home/.pyenv/versions/3.12.1/bin/python3",
    "home/.volta/tools/image/node/20.1.0/etc/npmrc",
    "users/bob/secret",
    "users/bob/.ssh/id_rsa",
    "users/bob/.cargo/bin/cargo",
    "users/bob/.cargo/credentials.toml",
    "users/bob/.config/git/config",
    "users/bob/.config/git/credentials",
    "users/bob/.nvm/versions/node/v20.1.0/etc/npmrc",
    "users/bob/.nvm/versions/node/v20.1.0/bin/node",
    "users/bob/proj/src/main.rs",
    "users/carol/notes",
    "users/carol/.aws/credentials",
    "users/carol/.rustup/settings.toml",
    "rootdir/notes",
    "rootdir/.rustup/settings.toml",
    "rootdir/.pyenv/libexec/pyenv",
    "rootdir/.pyenv/shims/python3",
    "rootdir/.pyenv/versions/3.12.1/pip.conf",
    "rootdir/.pyenv/versions/3.12.1/bin/python3",
    "rootdir/.newagent/token",
];

impl Fixture {
    fn new() -> Fixture {
        let dir = tempfile::tempdir().unwrap();
        let base = std::fs::canonicalize(dir.path()).unwrap();
        for f in FILES {
            let p = base.join(f);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(&p, "x").unwrap();
        }
        std::fs::create_dir_all(base.join("ws")).unwrap();
        Fixture { _dir: dir, base }
    }

    fn path(&self, rel: &str) -> PathBuf {
        self.base.join(rel)
    }

    /// Workspace `ws`, HOME `home`, homes in `users/` and `rootdir`; `users/bob/proj` is an
    /// extra writable root, `users/carol` is one whole.
    fn policy(&self, mode: SandboxMode) -> SandboxPolicy {
        SandboxPolicy::builder(mode, self.path("ws"))
            .home(self.path("home"))
            .data_dir(self.path("data"))
            .other_homes([self.path("users")], [self.path("rootdir")])
            .config(PolicyConfig {
                extra_writable_roots: vec![self.path("users/bob/proj"), self.path("users/carol")],
                temp_dir: Some(self.path("tmp")),
                ..Default::default()
            })
            .build()
    }
}

fn read(p: &SandboxPolicy, path: &Path) -> bool {
    p.check(path, Access::Read, Actor::FileTool).is_ok()
}

fn write(p: &SandboxPolicy, path: &Path) -> bool {
    p.check(path, Access::Write, Actor::FileTool).is_ok()
}

/// (path, readable, writable in workspace-write mode)
const VERDICTS: &[(&str, bool, bool)] = &[
    // Stores inside HOME's readable entries.
    ("home/.config/git/config", true, false),
    ("home/.config/git/credentials", false, false),
    ("home/.config/fish/config.fish", true, false),
    ("home/.config/fish/fish_variables", false, false),
    ("home/.config/fish/fishd.0a1b2c", false, false),
    ("home/.local/share/uv/credentials/credentials.toml", false, false),
    ("home/.local/share/uv/credentials", false, false),
    ("home/.local/share/uv/tools/ruff/bin/ruff", true, false),
    ("home/.local/share/uv/tools/ruff/pip.conf", false, false),
    ("home/.nvm/versions/node/v20.1.0/etc/npmrc", false, false),
    ("home/.nvm/versions/node/v20.1.0/etc/other", true, false),
    ("home/.nvm/versions/node/v20.1.0/bin/node", true, false),
    ("home/.nvm/versions/node/v20.1.0/lib/node_modules/npm/npmrc", false, false),
    ("home/.pyenv/versions/3.12.1/pip.conf", false, false),
    ("home/.pyenv/versions/3.12.1/envs/venv/pip.conf", false, false),
    ("home/.pyenv/versions/3.12.1/bin/python3", true, false),
    ("home/.volta/tools/image/node/20.1.0/etc/npmrc", false, false),
    ("home/.local/share/virtualenvs/proj-Ab12/pip.conf", false, false),
    ("home/.rbenv/versions/3.3.0/etc/gemrc", false, false),
    // Another user's home: closed whole but for its toolchains and a root chosen in it.
    ("users/bob", false, false),
    ("users/bob/secret", false, false),
    ("users/bob/.ssh/id_rsa", false, false),
    ("users/bob/.cargo", false, false),
    ("users/bob/.cargo/bin/cargo", true, false),
    ("users/bob/.cargo/credentials.toml", false, false),
    ("users/bob/.config/git/config", true, false),
    ("users/bob/.config/git/credentials", false, false),
    ("users/bob/.nvm/versions/node/v20.1.0/bin/node", true, false),
    ("users/bob/.nvm/versions/node/v20.1.0/etc/npmrc", false, false),
    ("users/bob/proj/src/main.rs", true, true),
    ("users/bob/projects/x", false, false),
    // A home a writable root holds: closed as HOME is (its hidden entries).
    ("users/carol/notes", true, true),
    ("users/carol/.aws/credentials", false, false),
    ("users/carol/.rustup/settings.toml", true, true),
    ("users/carol/.unlisted/token", false, false),
    // Root's home when it is not HOME.
    ("rootdir", false, false),
    ("rootdir/notes", false, false),
    ("rootdir/.rustup/settings.toml", true, false),
    ("rootdir/.pyenv/libexec/pyenv", true, false),
    ("rootdir/.pyenv/shims/python3", true, false),
    ("rootdir/.pyenv/versions/3.12.1/bin/python3", true, false),
    ("rootdir/.pyenv/versions/3.12.1/pip.conf", false, false),
    ("rootdir/.newagent/token", false, false),
    // Neither: the home parent itself, the workspace.
    ("users", true, false),
    ("ws/x", true, true),
];

#[test]
fn credential_entries_win_over_readable_ones_and_other_homes_are_closed() {
    let f = Fixture::new();
    let p = f.policy(SandboxMode::WorkspaceWrite);
    for (rel, r, w) in VERDICTS {
        let path = f.path(rel);
        assert_eq!(read(&p, &path), *r, "read {rel}");
        assert_eq!(write(&p, &path), *w, "write {rel}");
    }
    // Read-only mode: nothing is writable, and a root chosen inside another home still opens
    // it for reading (the user chose it).
    let ro = f.policy(SandboxMode::ReadOnly);
    for (rel, r, _) in VERDICTS {
        assert_eq!(read(&ro, &f.path(rel)), *r, "read-only: read {rel}");
        assert!(!write(&ro, &f.path(rel)), "read-only: write {rel}");
    }
}

#[test]
fn a_denial_says_whose_home_it_is_and_a_grant_opens_it() {
    let f = Fixture::new();
    let p = f.policy(SandboxMode::WorkspaceWrite);
    let denial = |rel: &str| p.check(&f.path(rel), Access::Read, Actor::FileTool).unwrap_err();
    let d = denial("users/bob/secret");
    assert!(d.message.contains("another user's home") && d.sandbox_denied, "{d:?}");
    let d = denial("users/bob/.config/git/credentials");
    assert!(d.message.contains("credential location"), "{d:?}");
    let d = denial("home/.nvm/versions/node/v20.1.0/etc/npmrc");
    assert!(d.message.contains("credential location"), "{d:?}");
    let granted = p.with_grants([
        PathGrant { path: f.path("users/bob/secret"), access: Access::Read, scope: Scope::Exact },
        PathGrant {
            path: f.path("home/.config/git/credentials"),
            access: Access::Read,
            scope: Scope::Exact,
        },
    ]);
    assert!(read(&granted, &f.path("users/bob/secret")));
    assert!(read(&granted, &f.path("home/.config/git/credentials")));
    assert!(!read(&granted, &f.path("users/bob/.ssh/id_rsa")));
}

#[test]
fn homes_that_are_home_or_hold_it_are_not_other_homes() {
    let f = Fixture::new();
    // HOME is bob's home: his files are HOME's (non-hidden readable), his stores still closed.
    let p = SandboxPolicy::builder(SandboxMode::WorkspaceWrite, f.path("ws"))
        .home(f.path("users/bob"))
        .other_homes([f.path("users")], [f.path("rootdir")])
        .config(PolicyConfig { temp_dir: Some(f.path("tmp")), ..Default::default() })
        .build();
    assert!(read(&p, &f.path("users/bob/secret")));
    assert!(!read(&p, &f.path("users/bob/.ssh/id_rsa")));
    assert!(!read(&p, &f.path("users/bob/.config/git/credentials")));
    assert!(!read(&p, &f.path("users/carol/notes")), "carol's home is another's");
    // HOME inside a home (a test's fake HOME under /root): that home is not another's, but
    // the stores the credential entries name in it stay closed.
    let p = SandboxPolicy::builder(SandboxMode::WorkspaceWrite, f.path("ws"))
        .home(f.path("rootdir/fake-home"))
        .other_homes([f.path("users")], [f.path("rootdir")])
        .config(PolicyConfig { temp_dir: Some(f.path("tmp")), ..Default::default() })
        .build();
    assert!(read(&p, &f.path("rootdir/notes")));
    assert!(!read(&p, &f.path("rootdir/.pyenv/versions/3.12.1/pip.conf")));
}

#[test]
fn walks_ask_about_every_entry_where_a_home_rule_may_refuse() {
    let f = Fixture::new();
    let p = f.policy(SandboxMode::WorkspaceWrite);
    for (rel, r, _) in VERDICTS {
        if *r {
            continue;
        }
        for root in f.path(rel).ancestors() {
            assert!(p.reads_refusable_below(root), "{rel} from {}", root.display());
        }
    }
    assert!(!p.reads_refusable_below(&f.path("ws")));
    assert!(p.reads_refusable_below(&f.path("users")));
    // In a home a root holds, below its non-hidden entries nothing is refused.
    assert!(!p.reads_refusable_below(&f.path("users/carol/src")));
    assert!(p.reads_refusable_below(&f.path("users/carol")));
}

#[test]
fn bash_masks_other_homes_and_every_existing_store_inside_a_readable_entry() {
    let f = Fixture::new();
    let p = f.policy(SandboxMode::WorkspaceWrite);
    let masks = p.other_home_masks();
    let bob = masks.iter().find(|m| m.path == f.path("users/bob")).expect("bob's home masked");
    let kept: Vec<PathBuf> = bob.keep.iter().map(|(k, _)| k.clone()).collect();
    for rel in [
        "users/bob/.cargo/bin",
        "users/bob/.config/git",
        "users/bob/.nvm/versions",
        "users/bob/proj",
    ] {
        assert!(kept.contains(&f.path(rel)), "{rel} not kept: {kept:?}");
    }
    assert!(!kept.iter().any(|k| k.ends_with("secret") || k.ends_with(".ssh")), "{kept:?}");
    let root = masks.iter().find(|m| m.path == f.path("rootdir")).expect("root's home masked");
    assert!(root.keep.iter().any(|(k, _)| *k == f.path("rootdir/.pyenv/libexec")));
    // Carol's home holds a root: only her closed hidden entries are masked.
    assert!(masks.iter().any(|m| m.path == f.path("users/carol/.aws")));
    assert!(!masks.iter().any(|m| m.path == f.path("users/carol")));
    assert!(!masks.iter().any(|m| m.path == f.path("users/carol/.rustup")));
    assert!(!masks.iter().any(|m| m.path.starts_with(f.path("home"))));

    let unreadable = p.unreadable_paths();
    for rel in [
        "home/.config/git/credentials",
        "home/.config/fish/fish_variables",
        "home/.local/share/uv/credentials",
        "home/.nvm/versions/node/v20.1.0/etc/npmrc",
        "home/.pyenv/versions/3.12.1/pip.conf",
        "home/.volta/tools/image/node/20.1.0/etc/npmrc",
        "users/bob/.config/git/credentials",
        "users/bob/.nvm/versions/node/v20.1.0/etc/npmrc",
        "users/carol/.aws",
        "rootdir/.pyenv/versions/3.12.1/pip.conf",
    ] {
        assert!(unreadable.contains(&f.path(rel)), "{rel} is not masked: {unreadable:?}");
    }
    // A grant opens what it names: no mask over it.
    let granted = p.with_grants([PathGrant {
        path: f.path("users/bob"),
        access: Access::Read,
        scope: Scope::Subtree,
    }]);
    assert!(!granted.other_home_masks().iter().any(|m| m.path.starts_with(f.path("users/bob"))));
    assert!(!granted.unreadable_paths().contains(&f.path("users/bob/.config/git/credentials")));
}

#[test]
fn system_secret_locations_are_listed_by_name() {
    let p = SandboxPolicy::builder(SandboxMode::WorkspaceWrite, "/nonexistent/ws")
        .home("/nonexistent/home")
        .build();
    for path in [
        "/etc/ssl/private/ssl-cert-snakeoil.key",
        "/etc/ssl/private",
        "/etc/shadow",
        "/etc/gshadow",
        "/etc/sudoers.d/90-cloud",
        "/etc/ssh/ssh_host_ed25519_key",
        "/etc/pki/tls/private/localhost.key",
        "/etc/letsencrypt/live/example.com/privkey.pem",
        "/etc/krb5.keytab",
        "/root/.ssh/id_rsa",
        "/root/secret",
        "/home/someone/secret",
        "/home/someone/.ssh/id_rsa",
    ] {
        assert!(!read(&p, Path::new(path)), "{path} is readable");
    }
    for path in ["/etc/ssl/certs/ca-certificates.crt", "/etc/passwd", "/root/.cargo/bin/cargo"] {
        assert!(read(&p, Path::new(path)), "{path} is not readable");
    }
}
