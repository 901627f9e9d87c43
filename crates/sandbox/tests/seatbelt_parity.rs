//! Acceptance 10a (`docs/acceptance.md`) for macOS: the Seatbelt profile bash runs under and the file-tool
//! fence (`SandboxPolicy::check`) reach the same read and write verdict on every path of the
//! matrix, judged by an evaluator of the SBPL subset the generator emits ([`sbpl`]), since no
//! macOS machine is here to run `sandbox-exec`. The matrix holds the bubblewrap parity test's
//! paths (`sandboxed_bash.rs`) plus git metadata at depth, the data dir's private entries,
//! credentials, `/etc/ssh/*_key`, sensitive names, the stores inside readable HOME entries,
//! other users' homes (a fixture's, and the real `/home` and `/root` by path) and grants of
//! every kind, under five policies (workspace-write with and without grants, read-only with
//! grants, HOME as the workspace, with `~/.ssh` granted).

mod matrix;
mod sbpl;

use std::path::{Path, PathBuf};

use matrix::{FILES, MATRIX, NOT_IN_MATRIX};
use sbpl::{Action, Invocation, Query};
use toolhost_policy::{
    Access, Actor, NetworkAccess, PathGrant, PolicyConfig, ReadsConfig, SandboxMode, SandboxPolicy,
    Scope,
};
use toolhost_sandbox::SandboxBackend;
use toolhost_sandbox::seatbelt::Seatbelt;

/// The concrete operations a read and a write are checked as (every one must agree).
const READ_OPS: &[&str] = &["file-read-data", "file-read-metadata"];
const WRITE_OPS: &[&str] =
    &["file-write-data", "file-write-create", "file-write-unlink", "file-write-mode"];

struct Fixture {
    _dir: tempfile::TempDir,
    base: PathBuf,
}

impl Fixture {
    fn new() -> Fixture {
        let dir = tempfile::tempdir().unwrap();
        let base = std::fs::canonicalize(dir.path()).unwrap();
        for f in FILES {
            let p = base.join(f);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(&p, "x").unwrap();
        }
        Fixture { _dir: dir, base }
    }

    fn path(&self, rel: &str) -> PathBuf {
        if rel.starts_with('/') { PathBuf::from(rel) } else { self.base.join(rel) }
    }

    /// A policy that knows `ws/other-data` as another data dir (the registry's work; one the
    /// scan finds is [`a_marked_data_dir_the_scan_finds_is_hidden_and_pinned`]).
    fn policy(&self, mode: SandboxMode, workspace: &str) -> SandboxPolicy {
        SandboxPolicy::builder(mode, self.base.join(workspace))
            .home(self.base.join("home"))
            .data_dir(self.base.join("data"))
            .other_data_dirs([self.base.join("ws/other-data")])
            .other_homes(
                [self.base.join("users"), "/home".into()],
                [self.base.join("rootdir"), "/root".into()],
            )
            .config(PolicyConfig {
                extra_writable_roots: vec![
                    self.base.join("extra"),
                    self.base.join("users/bob/proj"),
                    self.base.join("users/carol"),
                ],
                temp_dir: Some(self.base.join("tmp")),
                ..Default::default()
            })
            .build()
    }

    /// [`Fixture::policy`] with reads confined to the workspace plus `outside/other`, narrowed
    /// by an MCP client's `roots` when there are any.
    fn confined(&self, roots: &[&str]) -> SandboxPolicy {
        let p = SandboxPolicy::builder(SandboxMode::WorkspaceWrite, self.base.join("ws"))
            .home(self.base.join("home"))
            .data_dir(self.base.join("data"))
            .other_data_dirs([self.base.join("ws/other-data")])
            .other_homes(
                [self.base.join("users"), "/home".into()],
                [self.base.join("rootdir"), "/root".into()],
            )
            .config(PolicyConfig {
                extra_writable_roots: vec![
                    self.base.join("extra"),
                    self.base.join("users/bob/proj"),
                ],
                temp_dir: Some(self.base.join("tmp")),
                reads: ReadsConfig { confine: true, roots: vec![self.base.join("outside/other")] },
                ..Default::default()
            })
            .build();
        if roots.is_empty() {
            return p;
        }
        let roots: Vec<PathBuf> = roots.iter().map(|r| self.path(r)).collect();
        p.with_client_roots(&roots).policy
    }

    /// Grants of every kind: write subtree outside, write exact on a sensitive file and on a
    /// directory, read exact inside a credential dir, read subtree over one, read exact on an
    /// ssh host key, and write grants that must never unlock hard-protected paths.
    fn grants(&self) -> Vec<PathGrant> {
        let g = |rel: &str, access, scope| PathGrant { path: self.path(rel), access, scope };
        vec![
            g("outside/granted", Access::Write, Scope::Subtree),
            g("ws/.env", Access::Write, Scope::Exact),
            g("outside/exactdir", Access::Write, Scope::Exact),
            g("home/.ssh/known_hosts", Access::Read, Scope::Exact),
            g("home/.aws", Access::Read, Scope::Subtree),
            g("/etc/ssh/ssh_host_ed25519_key", Access::Read, Scope::Exact),
            g("data", Access::Write, Scope::Subtree),
            g("ws/.git/hooks", Access::Write, Scope::Subtree),
            g("home/.newagent/token", Access::Read, Scope::Exact),
            g("users/bob/secret", Access::Read, Scope::Exact),
            g("users/dave", Access::Read, Scope::Subtree),
            g("home/.config/git/credentials", Access::Read, Scope::Exact),
        ]
    }
}

/// The `sandbox-exec` argv `Seatbelt::wrap` builds for `policy`, parsed.
fn invocation(policy: &SandboxPolicy) -> Invocation {
    let protected = toolhost_sandbox::protected::scan(policy).unwrap();
    let argv = Seatbelt::new()
        .wrap(
            policy,
            vec!["/bin/bash".into(), "-c".into(), "true".into()],
            policy.workspace(),
            &protected,
        )
        .unwrap();
    sbpl::parse_invocation(&argv).unwrap_or_else(|e| panic!("{e}\n{}", argv[2].to_string_lossy()))
}

/// Every disagreement between the fence and the profile on the matrix.
fn disagreements(f: &Fixture, policy: &SandboxPolicy) -> Vec<String> {
    let inv = invocation(policy);
    let mut out = Vec::new();
    for rel in MATRIX {
        let p = f.path(rel);
        let s = p.to_str().unwrap();
        for (access, ops) in [(Access::Read, READ_OPS), (Access::Write, WRITE_OPS)] {
            let fence = policy.check(&p, access, Actor::Bash).is_ok();
            for op in ops {
                let profile = inv.profile.allows(&Query::file(op, s));
                if profile != fence {
                    out.push(format!("{rel}: {op} fence={fence} profile={profile}"));
                }
            }
        }
    }
    out
}

fn assert_agree(f: &Fixture, policies: &[(&str, SandboxPolicy)]) {
    let mut report = String::new();
    for (what, policy) in policies {
        let d = disagreements(f, policy);
        if !d.is_empty() {
            report.push_str(&format!(
                "{what}:\n{}\n\nprofile:\n{}\n",
                d.join("\n"),
                invocation(policy).profile_text
            ));
        }
    }
    assert!(report.is_empty(), "the fence and the Seatbelt profile disagree\n{report}");
}

#[test]
fn acc_10a_file_tool_fence_and_seatbelt_agree_on_every_path() {
    let f = Fixture::new();
    let grants = f.grants();
    // HOME as the workspace: its credentials and persistence files sit inside a writable root;
    // a read grant over one must not make it writable.
    let home_ws = f.policy(SandboxMode::WorkspaceWrite, "home");
    let read_ssh =
        PathGrant { path: f.path("home/.ssh"), access: Access::Read, scope: Scope::Subtree };
    assert_agree(
        &f,
        &[
            ("workspace-write", f.policy(SandboxMode::WorkspaceWrite, "ws")),
            (
                "workspace-write with grants",
                f.policy(SandboxMode::WorkspaceWrite, "ws").with_grants(grants.clone()),
            ),
            ("read-only with grants", f.policy(SandboxMode::ReadOnly, "ws").with_grants(grants)),
            ("HOME as the workspace", home_ws.clone()),
            ("HOME as the workspace, ~/.ssh granted for reading", home_ws.with_grants([read_ssh])),
            ("reads confined to outside/other", f.confined(&[])),
            ("reads confined, with grants", f.confined(&[]).with_grants(f.grants())),
            ("reads confined, narrowed by a client's roots", f.confined(&["outside"])),
        ],
    );
}

#[test]
fn what_is_left_out_of_the_matrix_is_left_out_for_its_reason() {
    let f = Fixture::new();
    let policy = f.policy(SandboxMode::WorkspaceWrite, "ws");
    let inv = invocation(&policy);
    for (rel, why) in NOT_IN_MATRIX {
        let p = f.path(rel);
        assert!(!MATRIX.contains(rel), "{rel}");
        let fence_read = policy.check(&p, Access::Read, Actor::Bash).is_ok();
        let fence_write = policy.check(&p, Access::Write, Actor::Bash).is_ok();
        let read = inv.profile.allows(&Query::file("file-read-data", p.to_str().unwrap()));
        let write = inv.profile.allows(&Query::file("file-write-create", p.to_str().unwrap()));
        // The profile is never stricter than the fence there, and differs: that is the gap.
        assert!((!fence_read || read) && (!fence_write || write), "{rel}: {why}");
        assert_ne!(
            (read, write),
            (fence_read, fence_write),
            "{rel} agrees now: put it in the matrix"
        );
    }
}

#[test]
fn the_profile_has_no_deny_rule_but_the_default_so_rule_order_cannot_matter() {
    // Sources disagree on how Seatbelt settles an allow and a deny that both match (the last
    // rule, or the more specific one): a profile of allow rules over `(deny default)` means
    // the same under either reading.
    let f = Fixture::new();
    for policy in [
        f.policy(SandboxMode::WorkspaceWrite, "ws").with_grants(f.grants()),
        f.policy(SandboxMode::ReadOnly, "ws").with_grants(f.grants()),
        f.policy(SandboxMode::WorkspaceWrite, "home"),
    ] {
        let inv = invocation(&policy);
        assert_eq!(inv.profile.default, Action::Deny);
        for r in &inv.profile.rules {
            assert_eq!(r.action, Action::Allow, "{:?}", r.ops);
        }
    }
}

#[test]
fn protected_scan_entries_and_pins_are_denied_even_where_the_fence_would_allow() {
    // A `.git` file names a git dir that is not called `.git`: its config is git metadata
    // only by the scan (the fence judges by name). And the data dir inside a writable root:
    // its ancestors must not be renamed (the data dir would move out from under its rules).
    let f = Fixture::new();
    for (p, text) in
        [("ws/wt/.git", "gitdir: ../evil\n"), ("ws/evil/HEAD", "ref: x\n"), ("ws/evil/config", "")]
    {
        std::fs::create_dir_all(f.path(p).parent().unwrap()).unwrap();
        std::fs::write(f.path(p), text).unwrap();
    }
    let policy = SandboxPolicy::builder(SandboxMode::WorkspaceWrite, f.path("ws"))
        .home(f.path("home"))
        .data_dir(f.path("ws/state/toolhost"))
        .config(PolicyConfig { temp_dir: Some(f.path("tmp")), ..Default::default() })
        .build();
    std::fs::create_dir_all(f.path("ws/state/toolhost")).unwrap();
    let inv = invocation(&policy);
    let write = |rel: &str| {
        WRITE_OPS
            .iter()
            .any(|op| inv.profile.allows(&Query::file(op, f.path(rel).to_str().unwrap())))
    };
    for rel in [
        "ws/evil/config",
        "ws/evil",
        "ws/wt/.git",
        "ws/.git",
        "ws/state",
        "ws/state/toolhost",
        "ws/state/toolhost/x",
    ] {
        assert!(!write(rel), "{rel} is writable");
    }
    assert!(
        policy.check(&f.path("ws/evil/config"), Access::Write, Actor::Bash).is_ok(),
        "the fence judges by name"
    );
    for rel in ["ws/evil/objects", "ws/state/other", "ws/.git/index.lock"] {
        assert!(write(rel), "{rel} is not writable");
    }
}

#[test]
fn case_variants_of_protected_paths_are_denied_too() {
    // APFS is case-insensitive: `.GIT/config` is `.git/config` there, `~/.SSH` is `~/.ssh`.
    let f = Fixture::new();
    let policy = f.policy(SandboxMode::WorkspaceWrite, "home").with_grants([PathGrant {
        path: f.path("outside/granted"),
        access: Access::Write,
        scope: Scope::Subtree,
    }]);
    let inv = invocation(&policy);
    let allows =
        |op: &str, rel: &str| inv.profile.allows(&Query::file(op, f.path(rel).to_str().unwrap()));
    for rel in
        ["home/.SSH/id", "home/.Ssh/known_hosts", "home/.NETRC", "data/Policy.json", "data/CACHE/x"]
    {
        assert!(!allows("file-read-data", rel), "{rel} is readable");
    }
    for rel in [
        "home/sub/.GIT/config",
        "home/sub/.Git/Hooks/pre-commit",
        "home/sub/.git/CONFIG",
        "home/.ENV",
        "home/.Zshenv",
        "home/.SSH/authorized_keys",
        "outside/granted/.GIT/hooks/x",
        "outside/granted/r/.Git",
    ] {
        assert!(!allows("file-write-create", rel), "{rel} is writable");
    }
    for rel in ["home/sub/.GIT/objects/x", "home/Env", "outside/granted/Config"] {
        assert!(allows("file-write-create", rel), "{rel} is not writable");
    }
}

#[test]
fn network_is_denied_by_default_and_allowed_only_by_the_policy() {
    let f = Fixture::new();
    let denied = invocation(&f.policy(SandboxMode::WorkspaceWrite, "ws"));
    let allowed =
        invocation(&f.policy(SandboxMode::WorkspaceWrite, "ws").with_network(NetworkAccess::Allow));
    for op in ["network-outbound", "network-inbound", "network-bind"] {
        assert!(!denied.profile.allows(&Query::bare(op)), "{op}");
        assert!(allowed.profile.allows(&Query::bare(op)), "{op}");
    }
    // A unix socket is the network too: the user's agents and multiplexers stay unreachable.
    assert!(
        !denied.profile.allows(&Query::file("network-outbound", "/private/tmp/tmux-501/default"))
    );
    // Read-only mode does not open it either.
    assert!(
        !invocation(&f.policy(SandboxMode::ReadOnly, "ws"))
            .profile
            .allows(&Query::bare("network-outbound"))
    );
}

#[test]
fn bash_can_run_under_the_profile() {
    // What `/bin/bash -c` itself needs: exec, fork, signals to its own children, /dev/null.
    let f = Fixture::new();
    let inv = invocation(&f.policy(SandboxMode::ReadOnly, "ws"));
    assert!(inv.profile.allows(&Query::file("process-exec", "/bin/bash")));
    assert!(inv.profile.allows(&Query::bare("process-fork")));
    assert!(inv.profile.allows(&Query { op: "signal", path: None, target: Some("same-sandbox") }));
    assert!(
        !inv.profile.allows(&Query { op: "signal", path: None, target: None }),
        "no signal leaves the sandbox"
    );
    assert!(inv.profile.allows(&Query::file("file-write-data", "/dev/null")));
    assert!(inv.profile.allows(&Query::file("file-read-data", "/usr/lib/libSystem.B.dylib")));
    assert_eq!(inv.command, ["/bin/bash", "-c", "true"]);
    assert_eq!(inv.program, "/usr/bin/sandbox-exec");
    assert_eq!(Path::new(&inv.params["WORKSPACE"]), f.path("ws"));
}

#[test]
fn a_marker_file_alone_makes_no_data_dir() {
    // Not listed in the policy (the host's registry never named it): a `.toolhost-data-dir`
    // file, which any repository can ship, makes nothing a data dir — for the fence and the
    // profile alike.
    let f = Fixture::new();
    for mode in [SandboxMode::WorkspaceWrite, SandboxMode::ReadOnly] {
        let policy = SandboxPolicy::builder(mode, f.path("ws"))
            .home(f.path("home"))
            .data_dir(f.path("data"))
            .config(PolicyConfig { temp_dir: Some(f.path("tmp")), ..Default::default() })
            .build();
        let inv = invocation(&policy);
        let allows = |op: &str, rel: &str| {
            inv.profile.allows(&Query::file(op, f.path(rel).to_str().unwrap()))
        };
        for rel in ["ws/other-data/policy.json", "ws/other-data/mcp-token"] {
            assert!(allows("file-read-data", rel), "{mode:?}: {rel} is not readable");
            assert!(
                policy.check(&f.path(rel), Access::Read, Actor::Bash).is_ok(),
                "{mode:?}: the fence refuses {rel}"
            );
        }
        if mode == SandboxMode::WorkspaceWrite {
            for rel in ["ws/other-data/policy.json", "ws/other-data/new"] {
                assert!(allows("file-write-create", rel), "{mode:?}: {rel} is not writable");
                assert!(policy.check(&f.path(rel), Access::Write, Actor::Bash).is_ok(), "{rel}");
            }
        }
    }
}

#[test]
fn other_homes_and_stores_in_readable_entries_are_closed_in_the_profile_too() {
    // The matrix proves agreement; this proves what they agree on, in any case
    // of the letters too (APFS).
    let f = Fixture::new();
    let policy = f.policy(SandboxMode::WorkspaceWrite, "ws");
    let inv = invocation(&policy);
    let reads = |rel: &str| {
        inv.profile.allows(&Query::file("file-read-data", f.path(rel).to_str().unwrap()))
    };
    for rel in [
        "home/.config/git/credentials",
        "home/.nvm/versions/node/v20.1.0/etc/npmrc",
        "home/.NVM/versions/node/v20.1.0/etc/npmrc",
        "home/.Config/Git/Credentials",
        "users/bob/secret",
        "USERS/bob/secret",
        "users/bob/.config/git/credentials",
        "users/carol/.aws/credentials",
        "rootdir/notes",
        "rootdir/.pyenv/versions/3.12.1/pip.conf",
        "/root/x",
        "/ROOT/.ssh/id_rsa",
        "/home/someone/secret",
        "/etc/ssl/private/ssl-cert-snakeoil.key",
    ] {
        assert!(!reads(rel), "{rel} is readable");
    }
    for rel in [
        "home/.config/git/config",
        "home/.nvm/versions/node/v20.1.0/bin/node",
        "users/bob/.cargo/bin/cargo",
        "users/bob/proj/f",
        "users/carol/notes",
        "rootdir/.rustup/settings.toml",
        "/root/.cargo/bin/cargo",
        "/etc/ssl/certs/ca.pem",
    ] {
        assert!(reads(rel), "{rel} is not readable");
    }
}
