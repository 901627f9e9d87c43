//! The tier lists: which paths are credentials, which are sensitive, which entries of the
//! data dir are private. One place for every list the fence and the OS sandboxes read.

use std::path::Path;

/// Whether `path` is a process's environment (`/proc/<pid>/environ`, also per task). Values
/// with newlines (PEM keys, say) would otherwise be readable line by line past the NULs.
pub(super) fn is_process_environment(path: &Path) -> bool {
    path.starts_with("/proc") && path.file_name().is_some_and(|n| n == "environ")
}

/// Credential locations under HOME: neither readable nor writable without a grant.
pub const CREDENTIAL_HOME_ENTRIES: &[&str] = &[
    ".ssh",
    ".gnupg",
    ".aws",
    ".azure",
    ".config/gcloud",
    ".kube",
    ".docker",
    ".netrc",
    ".git-credentials",
    ".config/gh",
    ".cargo/credentials.toml",
    ".cargo/credentials",
    ".npmrc",
    ".pypirc",
    // The logins of the agents that drive toolhost.
    ".claude/.credentials.json",
    ".claude.json",
    ".codex/auth.json",
    ".config/github-copilot",
    ".copilot",
    ".gemini",
    // Secret stores, database and tool logins.
    ".vault-token",
    ".pgpass",
    ".my.cnf",
    ".terraform.d/credentials.tfrc.json",
    ".m2/settings.xml",
    ".m2/settings-security.xml",
    ".gradle/gradle.properties",
    ".config/rclone",
    ".gem/credentials",
    ".config/hub",
    ".local/share/keyrings",
    ".password-store",
    ".config/op",
    ".yarnrc",
    ".yarnrc.yml",
    ".bundle/config",
    ".composer/auth.json",
    ".config/composer/auth.json",
    ".nuget/NuGet/NuGet.Config",
    ".config/NuGet/NuGet.Config",
    ".s3cfg",
    ".boto",
    ".oci",
    ".config/doctl",
    ".config/hcloud",
    ".pki",
    ".mozilla",
    ".config/google-chrome",
    ".config/chromium",
    ".cache/huggingface/token",
    // Histories: commands typed with a token in them.
    ".bash_history",
    ".zsh_history",
    ".python_history",
    ".psql_history",
    ".mysql_history",
    ".node_repl_history",
    ".sqlite_history",
    ".lesshst",
    ".viminfo",
];

/// What stays readable of HOME's hidden entries (HOME-relative, a trailing `*` in a component
/// names a prefix): every other path whose first component below HOME begins with `.` is a
/// credential (neither readable nor writable without a grant), so a store nobody listed is
/// closed too. These are the shell's and git's own configuration (bash, git and editors read
/// them; they are also sensitive: writable only with a grant), and the package caches and
/// toolchains an agent's builds read. `policy.json` `"readable_home_entries"` adds more; the
/// [`CREDENTIAL_HOME_ENTRIES`] stay closed whatever this list says.
pub const READABLE_HOME_ENTRIES: &[&str] = &[
    // Shells, readline, editors, git (identity, aliases; tokens belong in a credential helper).
    ".bashrc",
    ".bash_profile",
    ".bash_login",
    ".bash_logout",
    ".profile",
    ".zshrc",
    ".zshenv",
    ".zprofile",
    ".zlogin",
    ".zlogout",
    ".inputrc",
    ".vimrc",
    ".exrc",
    ".editorconfig",
    ".tmux.conf",
    ".gitconfig",
    ".gitignore_global",
    ".config/git",
    ".config/fish",
    ".config/nvim",
    // Rust.
    ".cargo/bin",
    ".cargo/registry",
    ".cargo/git",
    ".rustup",
    // JVM.
    ".m2/repository",
    ".gradle/caches",
    ".gradle/wrapper",
    ".ivy2/cache",
    ".sdkman/candidates",
    // JavaScript.
    ".npm",
    ".nvm/versions",
    ".nvm/nvm.sh",
    ".yarn/berry/cache",
    ".bun/bin",
    ".bun/install/cache",
    ".deno",
    ".volta/tools",
    // Python.
    ".pyenv/versions",
    ".pyenv/shims",
    ".local/lib/python*",
    ".local/bin",
    ".local/share/uv",
    ".local/share/pipx",
    ".local/share/virtualenvs",
    ".local/share/pnpm",
    // Other toolchains.
    ".rbenv/versions",
    ".nuget/packages",
    ".dotnet/tools",
    ".ghcup/bin",
    ".cabal/packages",
    ".elan/toolchains",
    ".julia/packages",
    // Caches of package managers and build tools.
    ".cache/pip",
    ".cache/uv",
    ".cache/pypoetry",
    ".cache/go-build",
    ".cache/yarn",
    ".cache/pnpm",
    ".cache/node-gyp",
    ".cache/ms-playwright",
    ".cache/pre-commit",
    ".cache/sccache",
    ".cache/bazel",
    ".cache/deno",
    ".cache/typescript",
    ".cache/coursier",
];

/// Whether the HOME-relative pattern `pattern` (components, a trailing `*` a prefix) covers
/// the HOME-relative path `rest` (is it or lies below it).
pub(super) fn home_pattern_covers(pattern: &str, rest: &Path) -> bool {
    let mut comps = rest.iter();
    for part in pattern.split('/').filter(|p| !p.is_empty()) {
        match comps.next() {
            Some(c) if name_matches(part, c) => {}
            _ => return false,
        }
    }
    true
}

/// The file toolhost creates in every data dir it opens. It makes nothing a data dir by itself
/// (a repository could ship one): a data dir is one because the host's own record, the
/// registry of data dirs, names it; the marker only tells that a listed directory is still
/// one (a registry entry whose directory lost it is dropped).
pub const DATA_DIR_MARKER: &str = ".toolhost-data-dir";

/// System files that hold credentials: neither readable nor writable (a host running as root
/// could otherwise read them; bash's sandbox masks them). `/etc/ssh/*_key` is matched too.
pub const SYSTEM_CREDENTIAL_PATHS: &[&str] = &[
    "/etc/shadow",
    "/etc/shadow-",
    "/etc/gshadow",
    "/etc/gshadow-",
    "/etc/sudoers",
    "/etc/sudoers.d",
    "/etc/security/opasswd",
    // Secrets mounted into containers and pods (a Kubernetes service-account token, Docker
    // and Compose secrets); `/var/run` is usually a symlink to `/run`.
    "/run/secrets",
    "/var/run/secrets",
];

/// Entries of toolhost's data dir that no tool and no bash may read or write, not even with a
/// grant: the session store (every call's arguments and text), the policy config, the
/// component cache (native code the host loads) and the MCP bearer token. The spill dir stays
/// readable (docs/contract.md#spill-files).
pub const DATA_DIR_PRIVATE: &[&str] = &[
    "toolhost.db",
    "toolhost.db-wal",
    "toolhost.db-shm",
    "toolhost.db-journal",
    "policy.json",
    "data-dirs",
    "cache",
    "mcp-token",
    "tools",
    "tools.json",
    "locks",
];

/// Entries under HOME that run code at the user's next login, shell, editor or git command:
/// sensitive (writable only with a grant), matched as HOME-relative prefixes.
pub const HOME_SENSITIVE_ENTRIES: &[&str] = &[
    ".bash_login",
    ".bash_logout",
    ".zshenv",
    ".zprofile",
    ".zlogin",
    ".zlogout",
    ".xprofile",
    ".xsession",
    ".xsessionrc",
    ".xinitrc",
    ".pam_environment",
    ".vimrc",
    ".exrc",
    ".inputrc",
    ".config/git",
    ".config/autostart",
    ".config/systemd",
    ".config/fish",
    ".config/environment.d",
    ".config/nvim",
    ".local/bin",
    ".ssh/authorized_keys",
    ".ssh/rc",
];

/// Sensitive file names (a `/` names trailing components, a trailing `*` a prefix): readable,
/// writable only with a grant, matched anywhere in a writable root or under HOME.
pub const SENSITIVE_NAMES: &[&str] = &[
    ".git/config",
    ".gitmodules",
    ".env",
    ".env.*",
    ".bashrc",
    ".zshrc",
    ".profile",
    ".bash_profile",
    ".gitconfig",
];

/// `/etc/ssh/*_key`: the SSH host private keys (a name of at least one character before
/// `_key`, as the Seatbelt profile's `^/etc/ssh/[^/]+_key$` matches).
pub fn is_ssh_host_key(path: &Path) -> bool {
    path.parent() == Some(Path::new("/etc/ssh"))
        && path
            .file_name()
            .and_then(|n| n.to_str())
            .is_some_and(|n| n.len() > "_key".len() && n.ends_with("_key"))
}

pub(super) fn name_matches(pattern: &str, name: &std::ffi::OsStr) -> bool {
    let Some(name) = name.to_str() else {
        return false;
    };
    match pattern.strip_suffix('*') {
        Some(prefix) => name.starts_with(prefix) && name.len() > prefix.len(),
        None => name == pattern,
    }
}
