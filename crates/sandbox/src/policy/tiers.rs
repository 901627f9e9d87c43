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
    ".npmrc",
    ".pypirc",
];

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
];

/// Entries of toolhost's data dir that no tool and no bash may read or write, not even with a
/// grant: the session store (every call's arguments and text), the policy config, the
/// component cache (native code the host loads) and the MCP bearer token. The spill dir stays
/// readable (seed 000 §8.2).
pub const DATA_DIR_PRIVATE: &[&str] = &[
    "toolhost.db",
    "toolhost.db-wal",
    "toolhost.db-shm",
    "toolhost.db-journal",
    "policy.json",
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
        && path.file_name().and_then(|n| n.to_str()).is_some_and(|n| n.len() > "_key".len() && n.ends_with("_key"))
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
