//! Attacks on the credential tier through the built binary: every file tool and
//! bash, through `call`, `session` and `mcp`, aimed at a fake HOME full of fake secrets by
//! absolute path, by `..` from the workspace and through a symlink planted in the workspace.
//! No marker may ever be printed, and no secret may change. Also: root's extra reach
//! (`/etc/shadow`, another user's 0600 file) and an exact read grant inside `~/.ssh`.

use std::os::unix::fs::{PermissionsExt, symlink};
use std::path::PathBuf;

use serde_json::{Value, json};
use toolhost_tests::attack::*;

/// The three ways a file tool can name one secret: absolute, `..` from the workspace, and a
/// symlink planted in the workspace (created here), with a label for messages.
fn path_forms(a: &Attack, s: &Secret, i: usize) -> Vec<(String, String)> {
    let link = a.ws.join(format!("link-{i}"));
    let _ = symlink(&s.path, &link);
    vec![
        ("absolute".into(), s.path.display().to_string()),
        ("dot-dot".into(), format!("../home/{}", s.rel)),
        ("symlink".into(), format!("link-{i}")),
    ]
}

/// A symlink in the workspace to HOME itself, so `homelink/.ssh/id_rsa` names a secret.
fn home_link(a: &Attack) -> String {
    let _ = symlink(&a.home, a.ws.join("homelink"));
    "homelink".into()
}

fn all_markers(a: &Attack) -> Vec<String> {
    a.secrets
        .iter()
        .map(|s| s.marker.clone())
        .chain(a.name_markers.iter().map(|(_, m)| m.clone()))
        .collect()
}

fn assert_none_leaked(out: &Out, markers: &[String], what: &str) {
    for m in markers {
        out.assert_hidden(m, what);
    }
}

#[test]
fn the_read_tool_cannot_read_any_secret() {
    let a = Attack::new();
    for (i, s) in a.secrets.iter().enumerate() {
        for (form, path) in path_forms(&a, s, i) {
            let out = a.call("read", json!({ "path": path }));
            out.assert_hidden(&s.marker, &format!("read {} ({form})", s.rel));
            promise(out.status() != "succeeded", || {
                format!("read {} ({form}) succeeded: {}", s.rel, out.all())
            });
        }
        let out = a.call("read", json!({ "path": format!("{}/{}", home_link(&a), s.rel) }));
        out.assert_hidden(&s.marker, &format!("read homelink/{}", s.rel));
    }
}

#[test]
fn the_grep_tool_cannot_find_a_marker_in_any_secret() {
    let a = Attack::new();
    let markers = all_markers(&a);
    for (i, s) in a.secrets.iter().enumerate() {
        for (form, path) in path_forms(&a, s, i) {
            for mode in ["content", "files_with_matches", "count"] {
                let out = a.call(
                    "grep",
                    json!({ "pattern": "MARKER-", "path": path, "outputMode": mode }),
                );
                out.assert_hidden(&s.marker, &format!("grep {} ({form}, {mode})", s.rel));
            }
        }
    }
    // Whole trees: HOME itself, a credential dir, and HOME through a workspace symlink.
    let link = home_link(&a);
    for path in
        [a.home.display().to_string(), a.home.join(".ssh").display().to_string(), link, "..".into()]
    {
        let out = a.call("grep", json!({ "pattern": "MARKER-", "path": path }));
        assert_none_leaked(&out, &markers, &format!("grep over {path}"));
    }
}

#[test]
fn glob_and_list_cannot_show_what_a_credential_dir_holds() {
    let a = Attack::new();
    let link = home_link(&a);
    for (dir, m) in &a.name_markers {
        let forms = [
            a.home.join(dir).display().to_string(),
            format!("../home/{dir}"),
            format!("{link}/{dir}"),
        ];
        for path in forms {
            let out = a.call("list", json!({ "path": path }));
            out.assert_hidden(m, &format!("list {path}"));
            for pattern in ["*", "**/*", "MARKER-*"] {
                let out = a.call("glob", json!({ "pattern": pattern, "path": path }));
                out.assert_hidden(m, &format!("glob {pattern} in {path}"));
            }
        }
        for pattern in [format!("{dir}/*"), format!("{dir}/**")] {
            let out =
                a.call("glob", json!({ "pattern": pattern, "path": a.home.display().to_string() }));
            out.assert_hidden(m, &format!("glob {pattern} in HOME"));
        }
    }
}

#[test]
fn bash_cannot_read_any_secret() {
    let a = Attack::new();
    if !a.sandbox_or_skip("bash_cannot_read_any_secret") {
        return;
    }
    let markers = all_markers(&a);
    let abs: Vec<String> = a.secrets.iter().map(|s| format!("'{}'", s.path.display())).collect();
    let rel: Vec<String> = a.secrets.iter().map(|s| format!("'../home/{}'", s.rel)).collect();
    let dirs: Vec<String> = SECRET_DIRS.iter().map(|d| format!("~/{d}")).collect();
    for command in [
        format!("cat {} 2>&1", abs.join(" ")),
        format!("cat {} 2>&1", rel.join(" ")),
        format!("ls -a {} 2>&1", dirs.join(" ")),
        "grep -ra MARKER- ~ 2>&1 | head -c 4000".to_string(),
        "tar cf - -C ~ . 2>/dev/null | grep -ao 'MARKER-[A-Z-]*-[0-9a-f]*' | head -50".to_string(),
    ] {
        let out = a.bash(&command);
        assert_none_leaked(&out, &markers, &format!("bash {command}"));
    }
}

#[test]
fn a_session_cannot_read_or_change_secrets_in_a_workspace_that_is_home() {
    // A user who starts toolhost in their home directory: every secret is "in the workspace".
    let mut a = Attack::new();
    a.ws = a.home.clone();
    let markers = all_markers(&a);
    let before: Vec<(PathBuf, Vec<u8>)> =
        a.secrets.iter().map(|s| (s.path.clone(), std::fs::read(&s.path).unwrap())).collect();
    let mut session = a.session(&[]);
    let mut n = 0;
    let mut id = || {
        n += 1;
        format!("c{n}")
    };
    for s in &a.secrets {
        let results = [
            session.call(&id(), "read", json!({ "path": s.rel })),
            session.call(&id(), "grep", json!({ "pattern": "MARKER-", "path": s.rel })),
            session.call(
                &id(),
                "edit",
                json!({ "filePath": s.rel, "oldString": "fake secret", "newString": "pwned" }),
            ),
            session.call(&id(), "write", json!({ "path": s.rel, "content": "pwned\n" })),
        ];
        for r in results {
            let text = r.to_string();
            for m in &markers {
                hidden(&text, m, &format!("session on {}", s.rel));
            }
        }
    }
    // New files in credential dirs (no read needed to create them).
    for rel in [".ssh/authorized_keys", ".aws/config", ".docker/daemon.json", ".kube/evil"] {
        session.call(
            &id(),
            "write",
            json!({ "path": rel, "content": "ssh-ed25519 AAAA attacker\n" }),
        );
        promise(!a.home.join(rel).exists(), || {
            format!("the write tool created {rel} in a credential dir")
        });
    }
    for (path, bytes) in before {
        promise(std::fs::read(&path).unwrap() == bytes, || {
            format!("{} was changed", path.display())
        });
    }
    for l in session.call(&id(), "list", json!({ "path": ".ssh" }))["content"].to_string().lines() {
        for m in &markers {
            hidden(l, m, "session list .ssh");
        }
    }
}

#[test]
fn bash_cannot_change_secrets_in_a_workspace_that_is_home() {
    let mut a = Attack::new();
    a.ws = a.home.clone();
    if !a.sandbox_or_skip("bash_cannot_change_secrets_in_a_workspace_that_is_home") {
        return;
    }
    let before: Vec<(PathBuf, Vec<u8>)> =
        a.secrets.iter().map(|s| (s.path.clone(), std::fs::read(&s.path).unwrap())).collect();
    let targets: Vec<String> = a.secrets.iter().map(|s| format!("'{}'", s.rel)).collect();
    let out = a.bash(&format!(
        "for f in {}; do echo pwned > \"$f\"; done 2>/dev/null; echo 'ssh-ed25519 AAAA attacker' > .ssh/authorized_keys; cat .ssh/id_rsa",
        targets.join(" ")
    ));
    for s in &a.secrets {
        out.assert_hidden(&s.marker, "bash in HOME");
    }
    promise(!a.home.join(".ssh/authorized_keys").exists(), || {
        format!("bash created ~/.ssh/authorized_keys: {}", out.all())
    });
    for (path, bytes) in before {
        promise(std::fs::read(&path).unwrap() == bytes, || {
            format!("bash changed {}", path.display())
        });
    }
}

#[test]
fn mcp_stdio_tools_cannot_read_any_secret() {
    let a = Attack::new();
    let markers = all_markers(&a);
    let mut mcp = a.mcp(&[]);
    for s in &a.secrets {
        for (tool, args) in [
            ("read", json!({ "path": s.path.display().to_string() })),
            ("grep", json!({ "pattern": "MARKER-", "path": s.path.display().to_string() })),
            ("read", json!({ "path": format!("../home/{}", s.rel) })),
        ] {
            let resp = mcp.call_tool(tool, args.clone()).to_string();
            for m in &markers {
                hidden(&resp, m, &format!("mcp {tool} {args}"));
            }
        }
    }
    let resp = mcp
        .call_tool("list", json!({ "path": a.home.join(".ssh").display().to_string() }))
        .to_string();
    for m in &markers {
        hidden(&resp, m, "mcp list ~/.ssh");
    }
}

#[test]
fn the_read_tool_cannot_read_etc_shadow_as_root() {
    let a = Attack::new();
    for file in ["/etc/shadow", "/etc/gshadow"] {
        let Ok(real) = std::fs::read_to_string(file) else { continue };
        let Some(first) = real.lines().find(|l| l.contains(':')) else { continue };
        let out = a.call("read", json!({ "path": file }));
        hidden(&out.all(), first, &format!("read {file}"));
        let out = a.call("grep", json!({ "pattern": ":", "path": file }));
        hidden(&out.all(), first, &format!("grep {file}"));
    }
}

#[test]
fn the_read_tool_cannot_read_another_users_private_file() {
    let a = Attack::new();
    let dir = a.outside_dir("other-user");
    std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o755)).unwrap();
    let m = marker("OTHER-UID");
    let file = dir.join("private.txt");
    std::fs::write(&file, format!("{m}\n")).unwrap();
    std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o600)).unwrap();
    std::os::unix::fs::chown(&file, Some(12345), Some(12345)).unwrap();
    let out = a.call("read", json!({ "path": file.display().to_string() }));
    out.assert_hidden(&m, "read of uid 12345's 0600 file");
    let out = a.call("grep", json!({ "pattern": "MARKER-", "path": dir.display().to_string() }));
    out.assert_hidden(&m, "grep of uid 12345's 0600 file");
}

#[test]
fn an_exact_read_grant_on_known_hosts_opens_that_file_only() {
    let a = Attack::new();
    if !a.sandbox_or_skip("an_exact_read_grant_on_known_hosts_opens_that_file_only") {
        return;
    }
    let known = a.secret(".ssh/known_hosts");
    let key = a.secret(".ssh/id_rsa");
    let input: Value = json!({
        "command": format!("cat '{}'; cat '{}'", known.path.display(), key.path.display()),
        "sandboxPermissions": {"paths": [{"path": known.path.display().to_string(), "access": "read", "scope": "exact"}]},
        "justification": "check the host key of the git server",
    });
    let out = a.call_with(&["--allow-escalation"], "bash", input);
    out.assert_hidden(&key.marker, "bash cat id_rsa beside an exact grant on known_hosts");
    assert!(
        out.text().contains(&known.marker),
        "the granted known_hosts is not readable by bash: {}",
        out.all()
    );
}

/// Files under HOME that run code at the user's next login, shell, git or desktop session.
const PERSISTENCE: &[&str] = &[
    ".bash_login",
    ".zshenv",
    ".zprofile",
    ".config/git/config",
    ".config/autostart/evil.desktop",
    ".config/systemd/user/evil.service",
    ".config/fish/config.fish",
    ".local/bin/ls",
];

#[test]
fn persistence_files_of_a_home_workspace_are_not_writable_without_a_grant() {
    let mut a = Attack::new();
    a.ws = a.home.clone();
    for rel in PERSISTENCE {
        let out = a.call("write", json!({ "path": rel, "content": "touch /tmp/pwned\n" }));
        promise(!a.home.join(rel).exists(), || {
            format!("the write tool created ~/{rel}: {}", out.all())
        });
    }
    if !a.sandbox_or_skip("persistence_files_of_a_home_workspace_are_not_writable (bash)") {
        return;
    }
    let script: Vec<String> = PERSISTENCE
        .iter()
        .map(|r| format!("mkdir -p \"$(dirname '{r}')\"; echo 'touch /tmp/pwned' > '{r}'"))
        .collect();
    let out = a.bash(&script.join("; "));
    for rel in PERSISTENCE {
        promise(!a.home.join(rel).exists(), || format!("bash created ~/{rel}: {}", out.all()));
    }
}

/// Git metadata inside a credential directory (`~/.ssh` or `~/.aws` kept in git: a remote URL
/// with a token in `.git/config`) is still a credential: the git-metadata tier (hard-protected
/// for writing) must not make it readable. Neither read, list, grep nor glob may show it.
#[test]
fn git_metadata_inside_a_credential_dir_is_not_readable() {
    let a = Attack::new();
    let mut markers = Vec::new();
    for dir in [".ssh", ".aws"] {
        let m = marker("GIT-IN-CREDENTIALS");
        let git = a.home.join(dir).join(".git");
        std::fs::create_dir_all(git.join("info")).unwrap();
        std::fs::write(
            git.join("config"),
            format!("[remote \"origin\"]\n\turl = https://user:{m}@example.com/dotfiles\n"),
        )
        .unwrap();
        std::fs::write(git.join("info/exclude"), format!("{m}\n")).unwrap();
        markers.push((git, m));
    }
    for (git, m) in &markers {
        for target in [git.join("config"), git.join("info/exclude")] {
            let out = a.call("read", json!({"path": target.to_str().unwrap()}));
            out.assert_hidden(m, &format!("read {}", target.display()));
            promise(out.status() != "succeeded", || {
                format!("read {} succeeded: {}", target.display(), out.all())
            });
        }
        let listed = a.call("list", json!({"path": git.to_str().unwrap()}));
        promise(listed.status() != "succeeded", || {
            format!("list {} succeeded: {}", git.display(), listed.all())
        });
        let grep = a.call("grep", json!({"pattern": m, "path": git.to_str().unwrap()}));
        grep.assert_hidden(m, &format!("grep in {}", git.display()));
    }
}

/// Fail closed, but not shut: the package caches and toolchains an agent's build reads, and
/// the shell's and git's configuration, stay readable among HOME's hidden entries.
#[test]
fn package_caches_toolchains_and_git_config_in_home_stay_readable() {
    let a = Attack::new();
    for r in &a.readable {
        let out = a.call("read", json!({ "path": r.path.display().to_string() }));
        assert!(out.text().contains(&r.marker), "read ~/{} is refused: {}", r.rel, out.all());
        let out =
            a.call("grep", json!({ "pattern": "READABLE-", "path": r.path.display().to_string() }));
        assert!(out.text().contains(&r.marker), "grep ~/{} is refused: {}", r.rel, out.all());
    }
    if !a.sandbox_or_skip("package_caches_toolchains_and_git_config_in_home_stay_readable (bash)") {
        return;
    }
    let files: Vec<String> = a.readable.iter().map(|r| format!("'{}'", r.path.display())).collect();
    let out = a.bash(&format!(
        "cat {} ~/.bashrc 2>&1; ls ~/.cargo/registry/index/crates",
        files.join(" ")
    ));
    for r in &a.readable {
        assert!(out.text().contains(&r.marker), "bash cannot read ~/{}: {}", r.rel, out.all());
    }
    assert!(out.text().contains("serde.json"), "bash cannot list ~/.cargo/registry: {}", out.all());
    assert!(
        out.text().contains(a.bashrc.lines().next().unwrap()),
        "bash cannot read ~/.bashrc: {}",
        out.all()
    );
}

/// `policy.json` `"readable_home_entries"` opens a hidden entry nobody listed, but never a
/// listed credential inside what it opens.
#[test]
fn readable_home_entries_opens_an_unlisted_entry_but_no_listed_credential() {
    let a = Attack::new();
    std::fs::write(
        a.data.join("policy.json"),
        json!({ "readable_home_entries": [".newagent", ".config"] }).to_string(),
    )
    .unwrap();
    let opened = a.secret(".newagent/token");
    let out = a.call("read", json!({ "path": opened.path.display().to_string() }));
    assert!(
        out.text().contains(&opened.marker),
        "readable_home_entries did not open ~/.newagent: {}",
        out.all()
    );
    let closed = [
        ".config/gh/hosts.yml",
        ".config/github-copilot/hosts.json",
        ".config/rclone/rclone.conf",
        ".config/op/config",
    ];
    for rel in closed {
        let s = a.secret(rel);
        a.call("read", json!({ "path": s.path.display().to_string() }))
            .assert_hidden(&s.marker, &format!("read ~/{rel} under a readable .config"));
    }
    if !a.sandbox_or_skip(
        "readable_home_entries_opens_an_unlisted_entry_but_no_listed_credential (bash)",
    ) {
        return;
    }
    let out = a.bash(&format!(
        "cat '{}'; grep -ra MARKER- ~/.config 2>&1 | head -c 4000",
        opened.path.display()
    ));
    assert!(
        out.text().contains(&opened.marker),
        "bash cannot read the opened ~/.newagent/token: {}",
        out.all()
    );
    for rel in closed {
        out.assert_hidden(
            &a.secret(rel).marker,
            &format!("bash on ~/{rel} under a readable .config"),
        );
    }
}

/// Secrets mounted into a container or pod (`/run/secrets`, the Kubernetes service-account
/// token under `/var/run/secrets`): made here only as root, and removed again.
#[test]
fn container_secrets_under_run_secrets_are_unreadable() {
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } != 0 {
        eprintln!(
            "SKIPPED container_secrets_under_run_secrets_are_unreadable: needs root to create /run/secrets"
        );
        return;
    }
    let a = Attack::new();
    let base = std::path::Path::new("/run/secrets");
    let created_base = !base.exists();
    let dir = base.join(format!("toolhost-attack-{}", rand_hex()));
    if std::fs::create_dir_all(dir.join("kubernetes.io/serviceaccount")).is_err() {
        eprintln!(
            "SKIPPED container_secrets_under_run_secrets_are_unreadable: cannot create {}",
            dir.display()
        );
        return;
    }
    let m = marker("SERVICE-ACCOUNT-TOKEN");
    let token = dir.join("kubernetes.io/serviceaccount/token");
    std::fs::write(&token, format!("{m}\n")).unwrap();
    let via_var_run = std::path::Path::new("/var/run/secrets")
        .join(dir.file_name().unwrap())
        .join("kubernetes.io/serviceaccount/token");
    let mut outs = vec![
        ("read", a.call("read", json!({ "path": token.display().to_string() }))),
        ("read via /var/run", a.call("read", json!({ "path": via_var_run.display().to_string() }))),
        (
            "grep",
            a.call("grep", json!({ "pattern": "MARKER-", "path": dir.display().to_string() })),
        ),
    ];
    if a.sandbox_or_skip("container_secrets_under_run_secrets_are_unreadable (bash)") {
        outs.push((
            "bash",
            a.bash(&format!(
                "cat '{}' '{}' 2>&1; grep -ra MARKER- /run/secrets 2>&1 | head",
                token.display(),
                via_var_run.display()
            )),
        ));
    }
    let _ = std::fs::remove_dir_all(&dir);
    if created_base {
        let _ = std::fs::remove_dir(base);
    }
    for (what, out) in outs {
        out.assert_hidden(&m, &format!("{what} of a service-account token under /run/secrets"));
    }
}

/// A workspace that is HOME: the readable caches inside a closed hidden entry are bound back
/// writable (cargo can still fetch into `~/.cargo/registry`), with the git metadata inside
/// them still protected; the closed rest stays unreadable and unwritable.
#[test]
fn a_home_workspace_keeps_caches_writable_and_hidden_entries_closed() {
    let mut a = Attack::new();
    a.ws = a.home.clone();
    if !a.sandbox_or_skip("a_home_workspace_keeps_caches_writable_and_hidden_entries_closed") {
        return;
    }
    let index_git = a.home.join(".cargo/registry/index/crates/.git");
    std::fs::create_dir_all(&index_git).unwrap();
    std::fs::write(index_git.join("config"), "[core]\n").unwrap();
    let unlisted = a.secret(".newagent/token");
    std::fs::create_dir_all(a.home.join(".config/git")).unwrap();
    std::fs::write(a.home.join(".config/git/config"), "[user]\n\tname = me\n").unwrap();
    let out = a.bash(
        "echo fetched > ~/.cargo/registry/new.crate; echo '[core] fsmonitor = evil' >> ~/.cargo/registry/index/crates/.git/config; \
         echo '[core] pager = evil' >> ~/.config/git/config; grep name ~/.config/git/config; \
         echo planted > ~/.newagent/planted; cat ~/.newagent/token; ls -a ~/.newagent ~/.cargo 2>&1; cat ~/.cargo/registry/index/crates/serde.json",
    );
    let registry = a.readable.iter().find(|r| r.rel.starts_with(".cargo/registry")).unwrap();
    assert!(
        out.text().contains(&registry.marker),
        "bash cannot read ~/.cargo/registry: {}",
        out.all()
    );
    assert_eq!(
        std::fs::read_to_string(a.home.join(".cargo/registry/new.crate")).ok().as_deref(),
        Some("fetched\n"),
        "{}",
        out.all()
    );
    promise(std::fs::read_to_string(index_git.join("config")).unwrap() == "[core]\n", || {
        format!("bash changed the git config inside ~/.cargo/registry: {}", out.all())
    });
    out.assert_hidden(&unlisted.marker, "bash cat ~/.newagent/token in a HOME workspace");
    promise(!a.home.join(".newagent/planted").exists(), || {
        format!("bash wrote into ~/.newagent: {}", out.all())
    });
    out.assert_hidden("credentials", "bash ls ~/.cargo shows what it holds");
    assert!(
        out.text().contains("name = me"),
        "bash cannot read ~/.config/git/config: {}",
        out.all()
    );
    promise(
        std::fs::read_to_string(a.home.join(".config/git/config")).unwrap()
            == "[user]\n\tname = me\n",
        || {
            format!(
                "bash changed ~/.config/git/config (sensitive) in a HOME workspace: {}",
                out.all()
            )
        },
    );
}

/// A data dir inside a hidden entry of a HOME workspace (`TOOLHOST_HOME=~/.local/state/…`):
/// bash can neither read its store nor plant a policy in it.
#[test]
fn a_data_dir_inside_a_hidden_entry_of_a_home_workspace_stays_private() {
    let mut a = Attack::new();
    if !a.sandbox_or_skip("a_data_dir_inside_a_hidden_entry_of_a_home_workspace_stays_private") {
        return;
    }
    let data = a.home.join(".local/state/toolhost");
    a.move_data_dir(&data);
    a.ws = a.home.clone();
    std::fs::create_dir_all(a.home.join(".local/bin")).unwrap();
    let m = marker("STORE-IN-HIDDEN");
    std::fs::write(a.home.join("notes.txt"), format!("{m}\n")).unwrap();
    assert!(a.call("read", json!({ "path": "notes.txt" })).text().contains(&m));
    std::fs::remove_file(a.home.join("notes.txt")).unwrap();
    let d = data.display();
    let out = a.bash(&format!("echo '{{}}' > '{d}/policy.json' 2>&1; touch '{d}/planted' 2>&1; cat '{d}'/toolhost.db* 2>&1 | grep -ao 'MARKER-[A-Z-]*-[0-9a-f]*'"));
    out.assert_hidden(&m, "bash cat the store of a data dir in ~/.local/state");
    promise(!data.join("policy.json").exists() && !data.join("planted").exists(), || {
        format!("bash wrote into the data dir: {}", out.all())
    });
}

// ---- Stores inside readable entries, system secrets, other users' homes. ----

/// Credential stores that live inside HOME entries the readable list opens: (path under HOME, marker stem). Each must be read by no tool, no bash and no approved
/// run, while the entry around it stays readable.
const STORES_IN_READABLE_ENTRIES: &[(&str, &str)] = &[
    (".config/git/credentials", "GIT-XDG-CREDENTIALS"),
    (".local/share/uv/credentials/credentials.toml", "UV-CREDENTIALS"),
    (".nvm/versions/node/v20.11.0/etc/npmrc", "NVM-NODE-NPMRC"),
    (".nvm/versions/node/v20.11.0/lib/node_modules/npm/npmrc", "NPM-BUILTIN-NPMRC"),
    (".volta/tools/image/node/20.11.0/etc/npmrc", "VOLTA-NODE-NPMRC"),
    (".pyenv/versions/3.12.1/pip.conf", "PYENV-PIP-CONF"),
    (".pyenv/versions/3.12.1/envs/tools/pip.conf", "PYENV-VIRTUALENV-PIP-CONF"),
    (".local/share/virtualenvs/proj-Ab12Cd34/pip.conf", "PIPENV-PIP-CONF"),
    (".local/share/pipx/venvs/black/pip.conf", "PIPX-PIP-CONF"),
    (".config/fish/fish_variables", "FISH-UNIVERSAL-VARIABLES"),
];

/// Their neighbours, which stay readable (the toolchains and configuration the entries are
/// opened for).
const NEIGHBOURS_IN_READABLE_ENTRIES: &[(&str, &str)] = &[
    (".config/git/config", "GIT-XDG-CONFIG"),
    (".nvm/versions/node/v20.11.0/bin/node", "NVM-NODE-BINARY"),
    (".nvm/versions/node/v20.11.0/etc/other.conf", "NVM-NODE-ETC-OTHER"),
    (".local/share/uv/tools/ruff/bin/ruff", "UV-TOOL"),
    (".pyenv/versions/3.12.1/bin/python3", "PYENV-PYTHON"),
    (".config/fish/config.fish", "FISH-CONFIG"),
];

/// Writes `stem`-marked files at `files` under `base` (creating parents); returns (path,
/// marker) pairs.
fn plant(base: &std::path::Path, files: &[(&str, &str)]) -> Vec<(PathBuf, String)> {
    files
        .iter()
        .map(|(rel, stem)| {
            let path = base.join(rel);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            let m = marker(stem);
            std::fs::write(&path, format!("token = {m}\n")).unwrap();
            (path, m)
        })
        .collect()
}

/// Every way a tool can be asked for the files `targets` and the directories `dirs` whose
/// entry names must not show: read and grep of each file (absolute, and through a symlink
/// in the workspace), grep over each dir, list and glob of each dir; then bash (cat, ls,
/// grep -r) and an approved `workspace_shell` run (cat, ls). What they printed, labelled.
fn every_tool_on(a: &Attack, targets: &[PathBuf], dirs: &[PathBuf]) -> Vec<(String, Out)> {
    let mut outs = Vec::new();
    for (i, t) in targets.iter().enumerate() {
        let t_text = t.display().to_string();
        outs.push((format!("read {t_text}"), a.call("read", json!({ "path": t_text }))));
        let link = format!("store-link-{i}");
        let _ = symlink(t, a.ws.join(&link));
        outs.push((format!("read {link} -> {t_text}"), a.call("read", json!({ "path": link }))));
        outs.push((
            format!("grep {t_text}"),
            a.call("grep", json!({ "pattern": "MARKER-", "path": t_text })),
        ));
    }
    for d in dirs {
        let d_text = d.display().to_string();
        for mode in ["content", "files_with_matches"] {
            outs.push((
                format!("grep ({mode}) over {d_text}"),
                a.call("grep", json!({ "pattern": "MARKER-", "path": d_text, "outputMode": mode })),
            ));
        }
        outs.push((format!("list {d_text}"), a.call("list", json!({ "path": d_text }))));
        for pattern in ["*", "**/*"] {
            outs.push((
                format!("glob {pattern} in {d_text}"),
                a.call("glob", json!({ "pattern": pattern, "path": d_text })),
            ));
        }
    }
    if !a.sandbox_or_skip("every_tool_on (bash and an approved run)") {
        return outs;
    }
    let quoted = |ps: &[PathBuf]| -> String {
        ps.iter().map(|p| format!("'{}'", p.display())).collect::<Vec<_>>().join(" ")
    };
    outs.push((
        "bash cat".into(),
        a.bash(&format!(
            "cat {} 2>&1; ls -laR {} 2>&1 | head -c 20000",
            quoted(targets),
            quoted(dirs)
        )),
    ));
    outs.push((
        "bash grep -r".into(),
        a.bash(&format!("grep -ra MARKER- {} 2>&1 | head -c 20000", quoted(dirs))),
    ));
    let approving = ["--tools", "workspace_shell", "--allow-escalation"];
    let args: Vec<String> = targets.iter().map(|t| t.display().to_string()).collect();
    outs.push((
        "approved workspace_shell cat".into(),
        a.call_with(&approving, "workspace_shell", json!({ "command": "cat", "args": args })),
    ));
    let args: Vec<String> = std::iter::once("-laR".to_string())
        .chain(dirs.iter().map(|d| d.display().to_string()))
        .collect();
    outs.push((
        "approved workspace_shell ls".into(),
        a.call_with(&approving, "workspace_shell", json!({ "command": "ls", "args": args })),
    ));
    outs
}

/// A readable HOME entry never opens a credential file inside it.
#[test]
fn stores_inside_readable_home_entries_are_read_by_no_tool_bash_or_approved_run() {
    let a = Attack::new();
    let stores = plant(&a.home, STORES_IN_READABLE_ENTRIES);
    let neighbours = plant(&a.home, NEIGHBOURS_IN_READABLE_ENTRIES);
    // A name inside uv's credentials dir is the store's too.
    let name_marker = marker("UV-CREDENTIALS-NAME");
    std::fs::write(a.home.join(".local/share/uv/credentials").join(&name_marker), "x\n").unwrap();
    let targets: Vec<PathBuf> = stores.iter().map(|(p, _)| p.clone()).collect();
    let dirs: Vec<PathBuf> =
        [".config", ".config/git", ".nvm", ".local/share/uv", ".pyenv", ".volta"]
            .iter()
            .map(|d| a.home.join(d))
            .chain([a.home.join(".local/share/uv/credentials"), a.home.clone()])
            .collect();
    for (what, out) in every_tool_on(&a, &targets, &dirs) {
        for (path, m) in &stores {
            out.assert_hidden(m, &format!("{what} ({})", path.display()));
        }
        out.assert_hidden(&name_marker, &format!("{what} (a name in uv's credentials dir)"));
    }
    // Failing closed, not shut: the entries around the stores stay readable.
    for (path, m) in &neighbours {
        let out = a.call("read", json!({ "path": path.display().to_string() }));
        assert!(out.text().contains(m), "read {} is refused: {}", path.display(), out.all());
    }
    if a.sandbox_or_skip("stores_inside_readable_home_entries (neighbours in bash)") {
        let files: Vec<String> =
            neighbours.iter().map(|(p, _)| format!("'{}'", p.display())).collect();
        let out = a.bash(&format!("cat {} 2>&1", files.join(" ")));
        for (path, m) in &neighbours {
            assert!(out.text().contains(m), "bash cannot read {}: {}", path.display(), out.all());
        }
    }
}

/// Files and directories a test made outside its own temp dirs (as root), removed on drop:
/// the topmost directory it created, or the file alone.
struct Made(Vec<PathBuf>);

impl Made {
    /// Creates `file` with `text` (and its missing parents, the topmost of which is removed
    /// again on drop), or None when that is not possible here.
    fn file(&mut self, file: &std::path::Path, text: &str) -> Option<()> {
        let top = file.ancestors().skip(1).filter(|d| !d.exists()).last().map(PathBuf::from);
        std::fs::create_dir_all(file.parent()?).ok()?;
        std::fs::write(file, text).ok()?;
        self.0.push(top.unwrap_or_else(|| file.to_path_buf()));
        Some(())
    }
}

impl Drop for Made {
    fn drop(&mut self) {
        for p in self.0.iter().rev() {
            if p.is_dir() {
                let _ = std::fs::remove_dir_all(p);
            } else {
                let _ = std::fs::remove_file(p);
            }
        }
    }
}

fn is_root() -> bool {
    // SAFETY: geteuid has no preconditions.
    unsafe { libc::geteuid() == 0 }
}

/// Running as root (as CI does), the system's TLS private keys are read by
/// no tool, no bash and no approved run. A key file is made in `/etc/ssl/private` for the
/// test, and one whose name is a marker (for listings), and removed again.
#[test]
fn tls_private_keys_in_etc_ssl_private_are_unreadable_as_root() {
    if !is_root() {
        eprintln!(
            "SKIPPED tls_private_keys_in_etc_ssl_private_are_unreadable_as_root: needs root to make a key in /etc/ssl/private (and only root reads it anyway)"
        );
        return;
    }
    let a = Attack::new();
    let mut made = Made(Vec::new());
    let m = marker("TLS-PRIVATE-KEY");
    let name_marker = marker("TLS-KEY-NAME");
    let key = PathBuf::from("/etc/ssl/private").join(format!("toolhost-attack-{}.key", rand_hex()));
    let named =
        PathBuf::from("/etc/ssl/private").join(format!("toolhost-attack-{name_marker}.key"));
    if made.file(&key, &format!("-----BEGIN PRIVATE KEY-----\n{m}\n")).is_none()
        || made.file(&named, "x\n").is_none()
    {
        eprintln!(
            "SKIPPED tls_private_keys_in_etc_ssl_private_are_unreadable_as_root: cannot create {}",
            key.display()
        );
        return;
    }
    let dirs = [PathBuf::from("/etc/ssl/private"), PathBuf::from("/etc/ssl")];
    for (what, out) in every_tool_on(&a, std::slice::from_ref(&key), &dirs) {
        out.assert_hidden(&m, &format!("{what} (a key in /etc/ssl/private)"));
        out.assert_hidden(&name_marker, &format!("{what} (a name in /etc/ssl/private)"));
    }
    // The public half of TLS stays readable.
    if std::path::Path::new("/etc/ssl/certs").is_dir() {
        let out = a.call("list", json!({ "path": "/etc/ssl/certs" }));
        assert_eq!(out.status(), "succeeded", "list /etc/ssl/certs: {}", out.all());
    }
}

/// Another user's home (`/home/<user>`) is closed whole, its own names
/// included, but for the toolchains in it; made here as root and removed again.
#[test]
fn another_users_home_is_closed_but_its_toolchains() {
    if !is_root() {
        eprintln!(
            "SKIPPED another_users_home_is_closed_but_its_toolchains: needs root to make a home in /home"
        );
        return;
    }
    let a = Attack::new();
    let mut made = Made(Vec::new());
    let other = PathBuf::from("/home").join(format!("toolhost-attack-{}", rand_hex()));
    let name_marker = marker("OTHER-HOME-NAME");
    let mut secrets: Vec<(PathBuf, String)> = Vec::new();
    for (rel, stem) in [
        ("secret", "OTHER-HOME-SECRET"),
        ("projects/app/.env", "OTHER-HOME-PROJECT-ENV"),
        (".ssh/id_rsa", "OTHER-HOME-SSH-KEY"),
        (".newagent/token", "OTHER-HOME-UNLISTED"),
        (".config/git/credentials", "OTHER-HOME-GIT-CREDENTIALS"),
        (".nvm/versions/node/v20.11.0/etc/npmrc", "OTHER-HOME-NPMRC"),
    ] {
        let m = marker(stem);
        if made.file(&other.join(rel), &format!("{m}\n")).is_none() {
            eprintln!(
                "SKIPPED another_users_home_is_closed_but_its_toolchains: cannot create {}",
                other.display()
            );
            return;
        }
        secrets.push((other.join(rel), m));
    }
    std::fs::write(other.join(&name_marker), "x\n").unwrap();
    let tool = other.join(".cargo/bin/tool");
    let tool_marker = format!("READABLE-OTHER-HOME-TOOL-{}", rand_hex());
    std::fs::create_dir_all(tool.parent().unwrap()).unwrap();
    std::fs::write(&tool, format!("{tool_marker}\n")).unwrap();
    let targets: Vec<PathBuf> = secrets.iter().map(|(p, _)| p.clone()).collect();
    let dirs = [other.clone(), other.join(".config"), other.join(".nvm"), PathBuf::from("/home")];
    for (what, out) in every_tool_on(&a, &targets, &dirs) {
        for (path, m) in &secrets {
            out.assert_hidden(m, &format!("{what} ({})", path.display()));
        }
        out.assert_hidden(&name_marker, &format!("{what} (a name in another user's home)"));
    }
    let out = a.call("read", json!({ "path": tool.display().to_string() }));
    assert!(
        out.text().contains(&tool_marker),
        "read of a toolchain in another home: {}",
        out.all()
    );
    if a.sandbox_or_skip("another_users_home_is_closed_but_its_toolchains (bash)") {
        let out = a.bash(&format!("cat '{}'", tool.display()));
        assert!(
            out.text().contains(&tool_marker),
            "bash on a toolchain in another home: {}",
            out.all()
        );
    }
}

/// `/root`, when it is not HOME (the suites run as root with a fake HOME),
/// is closed like another user's home — while the toolchains there keep working in bash.
#[test]
fn roots_home_is_closed_when_it_is_not_home_but_its_toolchains_run() {
    let root_home = PathBuf::from("/root");
    if !is_root() || !root_home.is_dir() {
        eprintln!(
            "SKIPPED roots_home_is_closed_when_it_is_not_home_but_its_toolchains_run: needs root and /root"
        );
        return;
    }
    let a = Attack::new();
    let mut made = Made(Vec::new());
    let dir = root_home.join(format!("toolhost-attack-{}", rand_hex()));
    let secret_m = marker("ROOT-HOME-SECRET");
    let npmrc_m = marker("ROOT-HOME-NPMRC");
    let npmrc = root_home
        .join(".nvm/versions/node")
        .join(format!("v0.0.0-toolhost-attack-{}", rand_hex()))
        .join("etc/npmrc");
    if made.file(&dir.join("secret"), &format!("{secret_m}\n")).is_none()
        || made.file(&npmrc, &format!("//registry.npmjs.org/:_authToken={npmrc_m}\n")).is_none()
    {
        eprintln!(
            "SKIPPED roots_home_is_closed_when_it_is_not_home_but_its_toolchains_run: cannot write /root"
        );
        return;
    }
    let targets = [dir.join("secret"), npmrc.clone()];
    let dirs = [dir.clone(), npmrc.parent().unwrap().to_path_buf()];
    for (what, out) in every_tool_on(&a, &targets, &dirs) {
        out.assert_hidden(&secret_m, &format!("{what} (/root/…/secret)"));
        out.assert_hidden(&npmrc_m, &format!("{what} (an npmrc of /root's nvm)"));
    }
    if !a.sandbox_or_skip("roots_home_is_closed_when_it_is_not_home_but_its_toolchains_run (bash)")
    {
        return;
    }
    // The toolchains of /root run in bash under another HOME: the Rust toolchain (found as
    // the suites find it) and whatever `python3` is on PATH (a pyenv shim, say).
    let rustc = std::process::Command::new("rustup")
        .args(["which", "rustc"])
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string());
    if let Some(rustc) = rustc {
        let out = a.bash(&format!("'{rustc}' --version"));
        assert!(out.text().contains("rustc "), "bash cannot run {rustc}: {}", out.all());
    }
    if python3().is_some() {
        let out = a.bash("python3 -c 'print(6 * 7)'");
        assert!(out.text().contains("42"), "bash cannot run python3 from PATH: {}", out.all());
    }
}

/// A toolhost built or installed under `/root` and run with another HOME (CI runs the suites
/// so when its checkout lies there): `/root` is closed, yet bash's sandbox still runs its
/// helper from there. A regression guard for the mask over another home.
#[test]
fn a_toolhost_inside_roots_home_still_runs_bash_under_another_home() {
    let root_home = PathBuf::from("/root");
    if !is_root() || !root_home.is_dir() {
        eprintln!(
            "SKIPPED a_toolhost_inside_roots_home_still_runs_bash_under_another_home: needs root and /root"
        );
        return;
    }
    let a = Attack::new();
    if a.confined == Some(toolhost_tests::confined::Confinement::User) {
        eprintln!(
            "SKIPPED a_toolhost_inside_roots_home_still_runs_bash_under_another_home: the confined user cannot reach /root"
        );
        return;
    }
    if !a.sandbox_or_skip("a_toolhost_inside_roots_home_still_runs_bash_under_another_home") {
        return;
    }
    let mut made = Made(Vec::new());
    let bin = root_home.join(format!("toolhost-attack-{}", rand_hex())).join("bin");
    let built = toolhost_tests::toolhost_bin();
    let mut copied = Vec::new();
    for name in ["toolhost", "toolhost-sandbox-exec"] {
        let from = built.with_file_name(name);
        if !from.exists() {
            continue;
        }
        if made.file(&bin.join(name), "").is_none() || std::fs::copy(&from, bin.join(name)).is_err()
        {
            eprintln!(
                "SKIPPED a_toolhost_inside_roots_home_still_runs_bash_under_another_home: cannot write /root"
            );
            return;
        }
        std::fs::set_permissions(bin.join(name), std::fs::Permissions::from_mode(0o755)).unwrap();
        copied.push(name);
    }
    let secret_m = marker("ROOT-HOME-BESIDE-THE-BINARY");
    made.file(&bin.parent().unwrap().join("secret"), &format!("{secret_m}\n")).unwrap();
    let mut cmd = std::process::Command::new(bin.join("toolhost"));
    cmd.env_clear().env("PATH", &a.path_var).env("HOME", &a.home);
    cmd.arg("--workspace").arg(&a.ws).arg("--data-dir").arg(&a.data);
    let command =
        format!("echo sandboxed-and-running; cat '{}/secret'", bin.parent().unwrap().display());
    cmd.args(["call", "bash", &json!({ "command": command }).to_string(), "--json"]);
    let mut cmd = a.confined_command(cmd);
    let out = run_limited(&mut cmd, None, HANG_GUARD).expect("toolhost hung");
    assert!(
        out.text().contains("sandboxed-and-running"),
        "bash does not run from a toolhost in /root ({copied:?}): {}",
        out.all()
    );
    out.assert_hidden(&secret_m, "bash beside a toolhost in /root");
}

/// In a HOME workspace bash may write HOME's plain files and its readable entries, but a new
/// hidden entry (`~/.vimrc`, `~/.tmux.conf`, `~/.gdbinit`, `~/.curlrc`, `~/.npmrc`, a new
/// `~/.newtool/`) is a credential like every other, which no tool may create: the user's own
/// vim, tmux, gdb, curl or npm would run what the model planted there, outside any sandbox.
#[test]
fn bash_in_a_home_workspace_cannot_plant_new_hidden_entries_in_home() {
    let mut a = Attack::new();
    a.ws = a.home.clone();
    if !a.sandbox_or_skip("bash_in_a_home_workspace_cannot_plant_new_hidden_entries_in_home") {
        return;
    }
    // `.npmrc` is one of the suite's fake secrets: here it is a name that does not exist yet.
    let _ = std::fs::remove_file(a.home.join(".npmrc"));
    let planted = [".vimrc", ".tmux.conf", ".gdbinit", ".curlrc", ".npmrc", ".newtool/init"];
    let out = a.bash(
        "echo '!touch /tmp/pwned' > ~/.vimrc; echo 'run-shell evil' > ~/.tmux.conf; \
         echo 'shell evil' > ~/.gdbinit; echo 'output = /etc/evil' > ~/.curlrc; \
         echo 'node-options=--require /tmp/evil.js' > ~/.npmrc; mkdir ~/.newtool && echo evil > ~/.newtool/init; \
         echo fine > ~/notes.txt; echo fetched > ~/.cargo/registry/new.crate; echo done",
    );
    assert!(out.text().contains("done"), "{}", out.all());
    for rel in planted {
        promise(!a.home.join(rel).exists(), || {
            format!("bash planted ~/{rel} in a HOME workspace: {}", out.all())
        });
    }
    // The Landlock tier refuses the plants outright (nothing to remove), and it cannot let bash
    // make new entries at the top of a workspace that holds hidden ones (docs/security.md#the-landlock-tier).
    if a.confined.is_none() {
        assert!(out.text().contains("removed"), "the result says what was removed: {}", out.all());
        // HOME's plain files and its readable entries stay bash's to write.
        assert_eq!(std::fs::read_to_string(a.home.join("notes.txt")).unwrap(), "fine\n");
    }
    assert_eq!(
        std::fs::read_to_string(a.home.join(".cargo/registry/new.crate")).unwrap(),
        "fetched\n"
    );
}

/// In a HOME workspace the programs on the user's PATH and what they load are not bash's to
/// change: `~/.cargo/bin/cargo`, rustup's settings, a `.pth` file in Python's user
/// site-packages would all run at the user's next command, outside any sandbox. The package
/// caches stay writable.
#[test]
fn bash_in_a_home_workspace_cannot_change_the_users_toolchains() {
    let mut a = Attack::new();
    a.ws = a.home.clone();
    if !a.sandbox_or_skip("bash_in_a_home_workspace_cannot_change_the_users_toolchains") {
        return;
    }
    let cargo = a.home.join(".cargo/bin/cargo");
    std::fs::create_dir_all(cargo.parent().unwrap()).unwrap();
    std::fs::write(&cargo, "#!/bin/sh\necho real cargo\n").unwrap();
    let settings = a.home.join(".rustup/settings.toml");
    std::fs::create_dir_all(settings.parent().unwrap()).unwrap();
    std::fs::write(&settings, "version = \"12\"\n").unwrap();
    let site = a.home.join(".local/lib/python3.12/site-packages");
    std::fs::create_dir_all(&site).unwrap();
    let out = a.bash(
        "echo 'echo pwned' >> ~/.cargo/bin/cargo; echo 'echo pwned' > ~/.cargo/bin/cargo-evil; \
         echo 'default_toolchain = \"/tmp/evil\"' >> ~/.rustup/settings.toml; \
         echo 'import os; os.system(\"touch /tmp/pwned\")' > ~/.local/lib/python3.12/site-packages/evil.pth; \
         echo fetched > ~/.cargo/registry/new.crate; echo done",
    );
    assert!(out.text().contains("done"), "{}", out.all());
    promise(std::fs::read_to_string(&cargo).unwrap() == "#!/bin/sh\necho real cargo\n", || {
        format!("bash changed ~/.cargo/bin/cargo: {}", out.all())
    });
    promise(!a.home.join(".cargo/bin/cargo-evil").exists(), || {
        format!("bash planted ~/.cargo/bin/cargo-evil: {}", out.all())
    });
    promise(std::fs::read_to_string(&settings).unwrap() == "version = \"12\"\n", || {
        format!("bash changed rustup's settings: {}", out.all())
    });
    promise(!site.join("evil.pth").exists(), || {
        format!("bash planted a .pth in Python's user site-packages: {}", out.all())
    });
    assert_eq!(
        std::fs::read_to_string(a.home.join(".cargo/registry/new.crate")).unwrap(),
        "fetched\n",
        "the package cache stays writable: {}",
        out.all()
    );
}
