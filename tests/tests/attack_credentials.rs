//! Attacks on the credential tier through the built binary (issue 14): every file tool and
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
/// the shell's and git's configuration, stay readable among HOME's hidden entries (issue 27).
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
