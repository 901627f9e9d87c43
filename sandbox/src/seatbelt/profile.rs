//! The macOS Seatbelt profile (SBPL) for a [`SandboxPolicy`].

use std::path::Path;

use crate::policy::SandboxPolicy;

/// The macOS Seatbelt profile for `policy` (a pure function: no file system access beyond
/// what the policy already holds). Reads everywhere except credential locations; writes under
/// the writable roots except hard-protected paths and sensitive names; `/dev` nodes writable.
pub fn seatbelt_profile(policy: &SandboxPolicy) -> String {
    let lit = |p: &Path| {
        format!(
            "\"{}\"",
            p.to_string_lossy()
                .replace('\\', "\\\\")
                .replace('"', "\\\"")
        )
    };
    let mut s = String::from(
        "(version 1)\n(deny default)\n(allow process-exec)\n(allow process-fork)\n(allow signal (target same-sandbox))\n(allow sysctl-read)\n(allow mach-lookup)\n(allow ipc-posix-shm)\n",
    );
    if policy.network() == crate::policy::NetworkAccess::Allow {
        s.push_str("(allow network*)\n");
    }
    let creds: Vec<String> = policy
        .credential_paths()
        .iter()
        .filter(|p| {
            !policy
                .grants()
                .iter()
                .any(|g| g.path == **p || p.starts_with(&g.path))
        })
        .map(|p| format!("(subpath {})", lit(p)))
        .collect();
    let mut creds = creds;
    creds.push("(regex #\"^/etc/ssh/[^/]+_key$\")".to_string());
    // The data dir's store, policy and cache are read by no one but the host.
    if let Some(d) = policy.data_dir() {
        creds.extend(crate::policy::DATA_DIR_PRIVATE.iter().map(|e| format!("(subpath {})", lit(&d.join(e)))));
    }
    {
        s.push_str(&format!(
            "(allow file-read* (require-not (require-any\n    {})))\n",
            creds.join("\n    ")
        ));
    }
    let roots = policy.writable_roots();
    if !roots.is_empty() {
        let allow: Vec<String> = roots
            .iter()
            .map(|r| format!("(subpath {})", lit(r)))
            .collect();
        let mut deny: Vec<String> = policy
            .hard_protected_paths()
            .iter()
            .map(|p| format!("(subpath {})", lit(p)))
            .collect();
        // Git metadata of every repository, nested ones too (the policy's GitMetadata tier).
        for name in crate::git::PROTECTED_GIT_ENTRIES {
            deny.push(format!("(regex #\"/\\.git/(.*/)?{}(/|$)\")", name.replace('.', "\\.")));
        }
        for name in policy.sensitive_names() {
            deny.push(format!("(regex #\"{}\")", sensitive_regex(name)));
        }
        deny.extend(creds.iter().cloned());
        s.push_str(&format!(
            "(allow file-write*\n  (require-all\n    (require-any\n      {})\n    (require-not (require-any\n      {}))))\n",
            allow.join("\n      "),
            deny.join("\n      ")
        ));
    }
    s.push_str("(allow file-write-data (literal \"/dev/null\") (literal \"/dev/zero\") (literal \"/dev/tty\") (regex #\"^/dev/fd/\"))\n");
    s
}

fn sensitive_regex(pattern: &str) -> String {
    let mut out = String::from("/");
    let parts: Vec<&str> = pattern.split('/').filter(|p| !p.is_empty()).collect();
    for (i, part) in parts.iter().enumerate() {
        if i > 0 {
            out.push('/');
        }
        let (lit, star) = match part.strip_suffix('*') {
            Some(p) => (p, true),
            None => (*part, false),
        };
        for ch in lit.chars() {
            if "\\.^$|?*+()[]{}".contains(ch) {
                out.push('\\');
            }
            out.push(ch);
        }
        if star {
            out.push_str("[^/]+");
        }
    }
    out.push('$');
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::policy::{Access, Grant, PolicyConfig, SandboxMode, Scope};

    fn golden_policy() -> SandboxPolicy {
        SandboxPolicy::builder(SandboxMode::WorkspaceWrite, "/golden/ws")
            .home("/golden/home")
            .data_dir("/golden/home/.toolhost")
            .config(PolicyConfig {
                extra_writable_roots: vec!["/golden/extra".into()],
                temp_dir: Some("/golden/tmp".into()),
                extra_credential: vec![".config/secret".into()],
                ..Default::default()
            })
            .build()
            .with_grants([Grant {
                path: "/golden/home/.kube".into(),
                access: Access::Read,
                scope: Scope::Subtree,
            }])
    }

    const GOLDEN: &str = r#"(version 1)
(deny default)
(allow process-exec)
(allow process-fork)
(allow signal (target same-sandbox))
(allow sysctl-read)
(allow mach-lookup)
(allow ipc-posix-shm)
(allow file-read* (require-not (require-any
    (subpath "/etc/shadow")
    (subpath "/etc/shadow-")
    (subpath "/etc/gshadow")
    (subpath "/etc/gshadow-")
    (subpath "/etc/sudoers")
    (subpath "/etc/sudoers.d")
    (subpath "/etc/security/opasswd")
    (subpath "/golden/home/.ssh")
    (subpath "/golden/home/.gnupg")
    (subpath "/golden/home/.aws")
    (subpath "/golden/home/.azure")
    (subpath "/golden/home/.config/gcloud")
    (subpath "/golden/home/.docker")
    (subpath "/golden/home/.netrc")
    (subpath "/golden/home/.git-credentials")
    (subpath "/golden/home/.config/gh")
    (subpath "/golden/home/.cargo/credentials.toml")
    (subpath "/golden/home/.npmrc")
    (subpath "/golden/home/.pypirc")
    (subpath "/golden/home/.config/secret")
    (regex #"^/etc/ssh/[^/]+_key$")
    (subpath "/golden/home/.toolhost/toolhost.db")
    (subpath "/golden/home/.toolhost/toolhost.db-wal")
    (subpath "/golden/home/.toolhost/toolhost.db-shm")
    (subpath "/golden/home/.toolhost/toolhost.db-journal")
    (subpath "/golden/home/.toolhost/policy.json")
    (subpath "/golden/home/.toolhost/cache")
    (subpath "/golden/home/.toolhost/mcp-token")
    (subpath "/golden/home/.toolhost/tools")
    (subpath "/golden/home/.toolhost/tools.json")
    (subpath "/golden/home/.toolhost/locks"))))
(allow file-write*
  (require-all
    (require-any
      (subpath "/golden/ws")
      (subpath "/golden/extra")
      (subpath "/golden/tmp"))
    (require-not (require-any
      (subpath "/golden/home/.toolhost")
      (subpath "/golden/ws/.git/hooks")
      (subpath "/golden/extra/.git/hooks")
      (subpath "/golden/tmp/.git/hooks")
      (regex #"/\.git/(.*/)?config(/|$)")
      (regex #"/\.git/(.*/)?config\.worktree(/|$)")
      (regex #"/\.git/(.*/)?hooks(/|$)")
      (regex #"/\.git/(.*/)?info(/|$)")
      (regex #"/\.git/(.*/)?commondir(/|$)")
      (regex #"/\.git/(.*/)?gitdir(/|$)")
      (regex #"/\.git/config$")
      (regex #"/\.gitmodules$")
      (regex #"/\.env$")
      (regex #"/\.env\.[^/]+$")
      (regex #"/\.bashrc$")
      (regex #"/\.zshrc$")
      (regex #"/\.profile$")
      (regex #"/\.bash_profile$")
      (regex #"/\.gitconfig$")
      (subpath "/etc/shadow")
      (subpath "/etc/shadow-")
      (subpath "/etc/gshadow")
      (subpath "/etc/gshadow-")
      (subpath "/etc/sudoers")
      (subpath "/etc/sudoers.d")
      (subpath "/etc/security/opasswd")
      (subpath "/golden/home/.ssh")
      (subpath "/golden/home/.gnupg")
      (subpath "/golden/home/.aws")
      (subpath "/golden/home/.azure")
      (subpath "/golden/home/.config/gcloud")
      (subpath "/golden/home/.docker")
      (subpath "/golden/home/.netrc")
      (subpath "/golden/home/.git-credentials")
      (subpath "/golden/home/.config/gh")
      (subpath "/golden/home/.cargo/credentials.toml")
      (subpath "/golden/home/.npmrc")
      (subpath "/golden/home/.pypirc")
      (subpath "/golden/home/.config/secret")
      (regex #"^/etc/ssh/[^/]+_key$")
      (subpath "/golden/home/.toolhost/toolhost.db")
      (subpath "/golden/home/.toolhost/toolhost.db-wal")
      (subpath "/golden/home/.toolhost/toolhost.db-shm")
      (subpath "/golden/home/.toolhost/toolhost.db-journal")
      (subpath "/golden/home/.toolhost/policy.json")
      (subpath "/golden/home/.toolhost/cache")
      (subpath "/golden/home/.toolhost/mcp-token")
      (subpath "/golden/home/.toolhost/tools")
      (subpath "/golden/home/.toolhost/tools.json")
      (subpath "/golden/home/.toolhost/locks")))))
(allow file-write-data (literal "/dev/null") (literal "/dev/zero") (literal "/dev/tty") (regex #"^/dev/fd/"))
"#;

    #[test]
    fn seatbelt_profile_matches_the_golden_text() {
        assert_eq!(seatbelt_profile(&golden_policy()), GOLDEN);
    }

    #[test]
    fn read_only_seatbelt_profile_has_no_writable_roots() {
        let p = SandboxPolicy::builder(SandboxMode::ReadOnly, "/golden/ws").build();
        let s = seatbelt_profile(&p);
        assert!(s.contains("(allow file-read* (require-not"));
        assert!(!s.contains("(allow network"));
        assert!(!s.contains("(allow file-write*\n"));
    }
}
