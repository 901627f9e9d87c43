//! The sandbox policy stamped on each call (seed 000 §5, permissions tiers): which paths a
//! call may read and write. The file-tool fence judges real paths with
//! [`SandboxPolicy::check`]; the OS sandboxes (bubblewrap + Landlock, Seatbelt) are generated
//! from [`SandboxPolicy::writable_roots`], the protected-entry scan ([`crate::scan`]) and
//! [`SandboxPolicy::unreadable_paths`], so both read the same rules.
//!
//! Tiers, strongest first:
//!
//! * **hard-protected** — never writable, not even with a grant: toolhost's data directory
//!   (spill files, component cache, session store), and the git metadata of every repository
//!   ([`crate::git::PROTECTED_GIT_ENTRIES`] below any `.git`, and any entry named `.git`).
//!   Of the data dir, the [`DATA_DIR_PRIVATE`] entries (the store, the policy, the cache) are
//!   not readable either; the spill dir is.
//! * **credential** — neither readable nor writable without a grant: [`CREDENTIAL_HOME_ENTRIES`]
//!   under HOME, [`SYSTEM_CREDENTIAL_PATHS`] and `/etc/ssh/*_key`, plus configured entries,
//!   plus every process's environment (`/proc/<pid>/environ`: the host's own holds the agent's
//!   API keys).
//! * **sensitive** — readable; writable only with a grant: [`SENSITIVE_NAMES`] anywhere in a
//!   writable root or under HOME, [`HOME_SENSITIVE_ENTRIES`] under HOME (files that run code
//!   at the user's next login, shell, editor or git command), plus configured names.
//! * **outside** — readable; writable only with a grant: everything not in a writable root.
//!
//! Everything else inside a writable root (including the rest of `.git/`) is writable in
//! workspace-write mode.

use std::path::{Component, Path, PathBuf};

use toolhost_limits::MAX_ESCALATION_PATHS;

/// Whether `path` is a process's environment (`/proc/<pid>/environ`, also per task). Values
/// with newlines (PEM keys, say) would otherwise be readable line by line past the NULs.
fn is_process_environment(path: &Path) -> bool {
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

/// The session's sandbox mode.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "kebab-case")]
pub enum SandboxMode {
    /// Nothing is writable.
    ReadOnly,
    /// The workspace (and configured extra roots, and the system temp dir) are writable.
    WorkspaceWrite,
}

/// What a path is needed for.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Hash,
    serde::Serialize,
    serde::Deserialize,
    schemars::JsonSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum Access {
    Read,
    Write,
}

/// How much of the file system a grant covers.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Hash,
    serde::Serialize,
    serde::Deserialize,
    schemars::JsonSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum Scope {
    /// Only the named path.
    Exact,
    /// The named path and everything below it.
    Subtree,
}

/// Who is asking (file tools are judged in-process; bash by the OS sandbox, and its kernel
/// denials are attributed with the same rules).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Actor {
    FileTool,
    Bash,
}

/// Why the policy refused a path; the text is the model-facing denial marker.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct Denial {
    pub message: String,
    /// True when an escalation could unlock it (outside, sensitive, credential tiers).
    pub sandbox_denied: bool,
}

/// The tier a path falls in for writing (see the module doc).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tier {
    /// Never writable: toolhost's data directory.
    DataDir,
    /// Never writable: git metadata ([`crate::git::is_git_metadata`]).
    GitMetadata,
    /// A configured hard-protected entry.
    HardProtected,
    /// Neither readable nor writable without a grant.
    Credential,
    /// Readable; writable only with a grant.
    Sensitive,
    /// Inside a writable root.
    Writable,
    /// Readable; writable only with a grant.
    Outside,
}

/// One path the user approved for one call (`sandboxPermissions.paths[i]`, seed §7.5).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Grant {
    pub path: PathBuf,
    pub access: Access,
    pub scope: Scope,
}

impl Grant {
    fn covers(&self, path: &Path) -> bool {
        match self.scope {
            Scope::Exact => path == self.path,
            Scope::Subtree => path.starts_with(&self.path),
        }
    }
}

/// Whether bash may reach the network (its own network namespace otherwise: no interface but
/// loopback, no abstract socket of the host). The user decides, never the model: in
/// `policy.json`, or per call through an approved escalation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum NetworkAccess {
    /// No network (the default).
    #[default]
    Deny,
    /// The host's network.
    Allow,
}

/// What a deployment adds to the default tier lists. Read from `<data-dir>/policy.json` by
/// the CLI (field names as below; unknown fields refused), e.g.
/// `{"extra_writable_roots": ["/srv/cache"], "extra_credential": [".config/acme"]}`.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct PolicyConfig {
    /// Writable besides the workspace (workspace-write mode only).
    pub extra_writable_roots: Vec<PathBuf>,
    /// More credential locations; relative entries are taken under HOME.
    pub extra_credential: Vec<PathBuf>,
    /// More sensitive names, in the syntax of [`SENSITIVE_NAMES`].
    pub extra_sensitive: Vec<String>,
    /// More hard-protected paths (absolute).
    pub extra_hard_protected: Vec<PathBuf>,
    /// The system temp dir made writable in workspace-write mode; `None` is
    /// [`std::env::temp_dir`].
    pub temp_dir: Option<PathBuf>,
    /// Whether bash may use the network (`"deny"`, the default, or `"allow"`).
    pub network: NetworkAccess,
    /// Per-call limits of bash (`{"pids": 1024, "memory_mib": 3072}`).
    pub limits: crate::cgroup::CallLimits,
    /// How many entries bash's protected-entry scan may visit before bash refuses to run;
    /// `None` is [`toolhost_limits::PROTECTED_SCAN_ENTRIES`] (a workspace that is a large HOME
    /// may need more).
    pub scan_entries: Option<usize>,
}

/// Builds a [`SandboxPolicy`] with HOME, the data dir and a [`PolicyConfig`].
#[derive(Debug, Clone)]
pub struct PolicyBuilder {
    mode: SandboxMode,
    workspace: PathBuf,
    home: Option<PathBuf>,
    data_dir: Option<PathBuf>,
    config: PolicyConfig,
}

impl PolicyBuilder {
    /// HOME for the credential and sensitive tiers (default: `$HOME`; an empty `$HOME` is none).
    pub fn home(mut self, home: impl Into<PathBuf>) -> Self {
        self.home = Some(home.into());
        self
    }

    /// toolhost's data dir (spill files, component cache, session store): hard-protected.
    pub fn data_dir(mut self, dir: impl Into<PathBuf>) -> Self {
        self.data_dir = Some(dir.into());
        self
    }

    /// Extra roots and tier entries.
    pub fn config(mut self, config: PolicyConfig) -> Self {
        self.config = config;
        self
    }

    /// The policy, with every path made real (canonical nearest existing ancestor).
    pub fn build(self) -> SandboxPolicy {
        let workspace = real_path(&self.workspace);
        let home = self.home.as_deref().map(real_path);
        let temp_dir = real_path(
            &self
                .config
                .temp_dir
                .clone()
                .unwrap_or_else(std::env::temp_dir),
        );
        let mut roots = vec![workspace.clone()];
        roots.extend(
            self.config
                .extra_writable_roots
                .iter()
                .map(|p| real_path(p)),
        );
        roots.push(temp_dir.clone());
        dedup(&mut roots);
        let mut hard: Vec<(PathBuf, Tier)> = Vec::new();
        if let Some(d) = &self.data_dir {
            hard.push((real_path(d), Tier::DataDir));
        }
        hard.extend(
            self.config
                .extra_hard_protected
                .iter()
                .map(|p| (real_path(p), Tier::HardProtected)),
        );
        let mut credential: Vec<PathBuf> = SYSTEM_CREDENTIAL_PATHS.iter().map(PathBuf::from).collect();
        if let Some(h) = &home {
            credential.extend(CREDENTIAL_HOME_ENTRIES.iter().map(|e| h.join(e)));
        }
        for e in &self.config.extra_credential {
            if e.is_absolute() {
                credential.push(real_path(e));
            } else if let Some(h) = &home {
                credential.push(h.join(e));
            }
        }
        let mut sensitive: Vec<String> = SENSITIVE_NAMES.iter().map(|s| s.to_string()).collect();
        sensitive.extend(self.config.extra_sensitive.iter().cloned());
        SandboxPolicy {
            mode: self.mode,
            workspace,
            writable_roots: roots,
            home,
            data_dir: self.data_dir.as_deref().map(real_path),
            temp_dir,
            network: self.config.network,
            limits: self.config.limits,
            scan_entries: self.config.scan_entries.unwrap_or(toolhost_limits::PROTECTED_SCAN_ENTRIES),
            hard_protected: hard,
            credential,
            sensitive,
            grants: Vec::new(),
        }
    }
}

/// Read/write rules for one call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SandboxPolicy {
    mode: SandboxMode,
    workspace: PathBuf,
    /// Configured writable roots (workspace first); only in effect in workspace-write mode.
    writable_roots: Vec<PathBuf>,
    home: Option<PathBuf>,
    data_dir: Option<PathBuf>,
    /// The system temp dir (a writable root in workspace-write mode, shared with everything).
    temp_dir: PathBuf,
    network: NetworkAccess,
    limits: crate::cgroup::CallLimits,
    scan_entries: usize,
    hard_protected: Vec<(PathBuf, Tier)>,
    credential: Vec<PathBuf>,
    sensitive: Vec<String>,
    grants: Vec<Grant>,
}

impl SandboxPolicy {
    /// `mode` over `workspace` (the first writable root) with `$HOME`, no data dir and the
    /// default tiers. Use [`SandboxPolicy::builder`] to pass HOME, the data dir and a config.
    pub fn new(mode: SandboxMode, workspace: impl Into<PathBuf>) -> Self {
        Self::builder(mode, workspace).build()
    }

    /// Workspace-write over `workspace`.
    pub fn workspace_write(workspace: impl Into<PathBuf>) -> Self {
        Self::new(SandboxMode::WorkspaceWrite, workspace)
    }

    /// A builder for `mode` over `workspace`, with HOME from `$HOME` until
    /// [`PolicyBuilder::home`] says otherwise.
    pub fn builder(mode: SandboxMode, workspace: impl Into<PathBuf>) -> PolicyBuilder {
        PolicyBuilder {
            mode,
            workspace: workspace.into(),
            home: std::env::var_os("HOME").filter(|h| !h.is_empty()).map(PathBuf::from),
            data_dir: None,
            config: PolicyConfig::default(),
        }
    }

    /// This policy widened by `grants` (one call's approved `sandboxPermissions`). Grants never
    /// unlock hard-protected paths.
    pub fn with_grants(&self, grants: impl IntoIterator<Item = Grant>) -> Self {
        let mut p = self.clone();
        for g in grants {
            let g = Grant {
                path: real_path(&g.path),
                ..g
            };
            if !p.grants.contains(&g) {
                p.grants.push(g);
            }
        }
        p
    }

    /// The mode.
    pub fn mode(&self) -> SandboxMode {
        self.mode
    }

    /// The workspace (real path).
    pub fn workspace(&self) -> &Path {
        &self.workspace
    }

    /// HOME, if known.
    pub fn home(&self) -> Option<&Path> {
        self.home.as_deref()
    }

    /// Whether bash may use the network.
    pub fn network(&self) -> NetworkAccess {
        self.network
    }

    /// Whether `path` lies only in the shared system temp dir: under it, and under no other
    /// writable root and not under HOME.
    pub fn only_in_temp_dir(&self, path: &Path) -> bool {
        path.starts_with(&self.temp_dir)
            && !path.starts_with(&self.workspace)
            && !self.writable_roots.iter().any(|r| r != &self.temp_dir && path.starts_with(r))
            && !self.home.as_ref().is_some_and(|h| path.starts_with(h))
    }

    /// How many entries bash's protected-entry scan may visit ([`crate::scan`]).
    pub fn scan_entries(&self) -> usize {
        self.scan_entries
    }

    /// bash's per-call limits.
    pub fn limits(&self) -> crate::cgroup::CallLimits {
        self.limits
    }

    /// This policy with bash's network access set (an approved per-call escalation).
    pub fn with_network(&self, network: NetworkAccess) -> Self {
        SandboxPolicy { network, ..self.clone() }
    }

    /// toolhost's data dir (real path), if this policy protects one.
    pub fn data_dir(&self) -> Option<&Path> {
        self.data_dir.as_deref()
    }

    /// Whether `path` is one of the data dir's [`DATA_DIR_PRIVATE`] entries (or below one):
    /// neither readable nor writable by any tool or bash, whatever a grant says.
    pub fn is_private_data(&self, path: &Path) -> bool {
        self.data_dir.as_ref().is_some_and(|d| {
            path.strip_prefix(d)
                .ok()
                .and_then(|rest| rest.components().next())
                .is_some_and(|first| DATA_DIR_PRIVATE.iter().any(|e| first.as_os_str() == *e))
        })
    }

    /// The grants this policy carries.
    pub fn grants(&self) -> &[Grant] {
        &self.grants
    }

    /// The tier of a real path for writing, before grants.
    pub fn tier(&self, path: &Path) -> Tier {
        if let Some(t) = self.hard_tier(path) {
            return t;
        }
        if self.is_credential(path) {
            return Tier::Credential;
        }
        let in_root = self.mode_roots().iter().any(|r| path.starts_with(r));
        let under_home = self.home.as_ref().is_some_and(|h| path.starts_with(h));
        if (in_root || under_home) && self.is_sensitive_name(path) || self.is_home_sensitive(path) {
            return Tier::Sensitive;
        }
        if in_root {
            Tier::Writable
        } else {
            Tier::Outside
        }
    }

    /// Judge a real (canonical) path. Reading is allowed everywhere except credential
    /// locations; writing follows the tiers of the module doc.
    pub fn check(&self, path: &Path, access: Access, _actor: Actor) -> Result<(), Denial> {
        let tier = self.tier(path);
        match access {
            Access::Read => {
                if self.is_private_data(path) {
                    return Err(Denial {
                        message: messages::private_data(path),
                        sandbox_denied: false,
                    });
                }
                if tier == Tier::Credential && !self.granted(path, Access::Read) {
                    return Err(Denial {
                        message: messages::credential(path),
                        sandbox_denied: true,
                    });
                }
                Ok(())
            }
            Access::Write => match tier {
                Tier::DataDir | Tier::GitMetadata | Tier::HardProtected => Err(Denial {
                    message: messages::hard_protected(path, tier),
                    sandbox_denied: false,
                }),
                _ if self.granted(path, Access::Write) => Ok(()),
                Tier::Credential => Err(Denial {
                    message: messages::credential(path),
                    sandbox_denied: true,
                }),
                Tier::Sensitive => Err(Denial {
                    message: messages::sensitive(path),
                    sandbox_denied: true,
                }),
                Tier::Writable => Ok(()),
                Tier::Outside => Err(Denial {
                    message: if self.mode == SandboxMode::ReadOnly {
                        messages::read_only(path)
                    } else {
                        messages::outside(path, &self.writable_roots)
                    },
                    sandbox_denied: true,
                }),
            },
        }
    }

    /// Roots the OS sandbox mounts writable: the mode's roots plus write grants that exist
    /// (an exact grant on a missing file cannot be mounted and stays unwritable for bash).
    pub fn writable_roots(&self) -> Vec<PathBuf> {
        let mut roots = self.mode_roots().to_vec();
        for g in &self.grants {
            if g.access == Access::Write && self.hard_tier(&g.path).is_none() && g.path.exists() {
                roots.push(g.path.clone());
            }
        }
        dedup(&mut roots);
        roots
    }

    /// Existing credential locations the OS sandbox must hide (not covered by a grant).
    pub fn unreadable_paths(&self) -> Vec<PathBuf> {
        let mut out: Vec<PathBuf> = self
            .credential
            .iter()
            .filter(|p| p.symlink_metadata().is_ok() && !self.granted(p, Access::Read))
            .cloned()
            .collect();
        if let Ok(entries) = std::fs::read_dir("/etc/ssh") {
            out.extend(entries.flatten().map(|e| e.path()).filter(|p| is_ssh_host_key(p)));
        }
        dedup(&mut out);
        out
    }

    /// Every credential location (existing or not), for profiles that match by path.
    pub fn credential_paths(&self) -> &[PathBuf] {
        &self.credential
    }

    /// Every hard-protected location: configured entries and each writable root's
    /// `.git/hooks` (existing or not; git metadata elsewhere is matched by name).
    pub fn hard_protected_paths(&self) -> Vec<PathBuf> {
        let mut out: Vec<PathBuf> = self.hard_protected.iter().map(|(p, _)| p.clone()).collect();
        out.extend(self.writable_roots().iter().map(|r| r.join(".git/hooks")));
        dedup(&mut out);
        out
    }

    /// The sensitive name patterns (defaults plus configured).
    pub fn sensitive_names(&self) -> &[String] {
        &self.sensitive
    }

    /// The writable roots of the session's mode (none in read-only mode), before any grant.
    pub fn mode_roots(&self) -> &[PathBuf] {
        match self.mode {
            SandboxMode::ReadOnly => &[],
            SandboxMode::WorkspaceWrite => &self.writable_roots,
        }
    }

    fn hard_tier(&self, path: &Path) -> Option<Tier> {
        if let Some((_, t)) = self
            .hard_protected
            .iter()
            .find(|(p, _)| path.starts_with(p))
        {
            return Some(*t);
        }
        // Git metadata runs code outside the sandbox at the user's next git command: it is
        // protected in any repository (nested ones too) and in every mode, whatever a grant says.
        if crate::git::is_git_metadata(path) {
            return Some(Tier::GitMetadata);
        }
        None
    }

    fn is_credential(&self, path: &Path) -> bool {
        self.credential.iter().any(|c| path.starts_with(c))
            || is_process_environment(path)
            || is_ssh_host_key(path)
    }

    /// Whether `path` is under one of HOME's [`HOME_SENSITIVE_ENTRIES`].
    fn is_home_sensitive(&self, path: &Path) -> bool {
        self.home.as_ref().is_some_and(|h| {
            path.strip_prefix(h).is_ok_and(|rest| HOME_SENSITIVE_ENTRIES.iter().any(|e| rest.starts_with(e)))
        })
    }

    /// Whether bash may not create `path` without a grant: a sensitive name, a HOME entry of
    /// [`HOME_SENSITIVE_ENTRIES`], or git metadata. Used by [`crate::scan`].
    pub fn is_protected_name(&self, path: &Path) -> bool {
        self.is_sensitive_name(path) || self.is_home_sensitive(path) || crate::git::is_git_metadata(path)
    }

    /// Whether a write grant of this policy covers `path`.
    pub fn write_granted(&self, path: &Path) -> bool {
        self.grants.iter().any(|g| g.access == Access::Write && g.covers(path))
    }

    fn is_sensitive_name(&self, path: &Path) -> bool {
        let comps: Vec<&std::ffi::OsStr> = path.iter().collect();
        self.sensitive.iter().any(|pat| {
            let parts: Vec<&str> = pat.split('/').filter(|s| !s.is_empty()).collect();
            if parts.is_empty() || parts.len() > comps.len() {
                return false;
            }
            let tail = &comps[comps.len() - parts.len()..];
            parts.iter().zip(tail).all(|(p, c)| name_matches(p, c))
        })
    }

    fn granted(&self, path: &Path, access: Access) -> bool {
        self.grants
            .iter()
            .any(|g| (g.access == access || g.access == Access::Write) && g.covers(path))
    }
}

/// `/etc/ssh/*_key`: the SSH host private keys (a name of at least one character before
/// `_key`, as the Seatbelt profile's `^/etc/ssh/[^/]+_key$` matches).
pub fn is_ssh_host_key(path: &Path) -> bool {
    path.parent() == Some(Path::new("/etc/ssh"))
        && path.file_name().and_then(|n| n.to_str()).is_some_and(|n| n.len() > "_key".len() && n.ends_with("_key"))
}

fn name_matches(pattern: &str, name: &std::ffi::OsStr) -> bool {
    let Some(name) = name.to_str() else {
        return false;
    };
    match pattern.strip_suffix('*') {
        Some(prefix) => name.starts_with(prefix) && name.len() > prefix.len(),
        None => name == pattern,
    }
}

fn dedup(v: &mut Vec<PathBuf>) {
    let mut seen = std::collections::HashSet::new();
    v.retain(|p| seen.insert(p.clone()));
}

/// Removes `.` and `..` literally (no file system access); `..` at the root stays at the root.
pub fn normalize_lexically(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                let at_root = out.parent().is_none() && out.has_root();
                let only_dots = out
                    .components()
                    .next_back()
                    .is_none_or(|c| c == Component::ParentDir);
                if only_dots && !at_root {
                    out.push("..");
                } else if !at_root {
                    out.pop();
                }
            }
            other => out.push(other.as_os_str()),
        }
    }
    out
}

/// The real form of `path`: lexically normalized, then the nearest existing ancestor
/// canonicalized and the rest joined back.
pub fn real_path(path: &Path) -> PathBuf {
    let norm = normalize_lexically(path);
    let mut base = norm.clone();
    let mut rest: Vec<std::ffi::OsString> = Vec::new();
    loop {
        if let Ok(c) = std::fs::canonicalize(&base) {
            let mut out = c;
            for r in rest.iter().rev() {
                out.push(r);
            }
            return out;
        }
        match (base.file_name().map(|n| n.to_os_string()), base.parent()) {
            (Some(n), Some(parent)) => {
                rest.push(n);
                base = parent.to_path_buf();
            }
            _ => return norm,
        }
    }
}

/// The model-facing denial texts, one function per tier.
pub mod messages {
    use std::path::{Path, PathBuf};

    use super::Tier;

    fn grant_hint(path: &Path, access: &str) -> String {
        format!(
            "If the task needs it, retry with sandboxPermissions {{\"paths\": [{{\"path\": \"{}\", \"access\": \"{access}\", \"scope\": \"exact\"}}]}} and a justification (one sentence for the user, who decides).",
            path.display()
        )
    }

    /// A hard-protected path: never writable.
    pub fn hard_protected(path: &Path, tier: Tier) -> String {
        let what = match tier {
            Tier::DataDir => {
                "is inside toolhost's data directory (spill files, component cache, session store)"
            }
            Tier::GitMetadata => "is git metadata (config, hooks, info, commondir or gitdir of a repository: git runs what they name outside the sandbox)",
            _ => "is protected by toolhost",
        };
        format!(
            "{} {what}: it can be read but never written, not even with sandboxPermissions. Do not retry this write; change something else or ask the user.",
            path.display()
        )
    }

    /// One of the data dir's private entries: neither readable nor writable.
    pub fn private_data(path: &Path) -> String {
        format!(
            "{} is toolhost's own store, policy or cache: no tool may read or write it, not even with sandboxPermissions. Do not retry; the spill files under the data dir's spill/ are readable.",
            path.display()
        )
    }

    /// A credential location: neither readable nor writable.
    pub fn credential(path: &Path) -> String {
        format!(
            "{} is a credential location (keys, tokens, cloud or registry logins): it is neither readable nor writable in this sandbox. {}",
            path.display(),
            grant_hint(path, "read")
        )
    }

    /// A sensitive file: writable only with a grant.
    pub fn sensitive(path: &Path) -> String {
        format!(
            "{} is a sensitive file (git config, shell startup file or .env): writing it needs the user's approval. {}",
            path.display(),
            grant_hint(path, "write")
        )
    }

    /// A path outside the writable roots.
    pub fn outside(path: &Path, roots: &[PathBuf]) -> String {
        let roots: Vec<String> = roots.iter().map(|r| r.display().to_string()).collect();
        format!(
            "{} is outside the writable roots of this session ({}). {}",
            path.display(),
            roots.join(", "),
            grant_hint(path, "write")
        )
    }

    /// Any write in a read-only session.
    pub fn read_only(path: &Path) -> String {
        format!(
            "{} is not writable: this session is read-only. {}",
            path.display(),
            grant_hint(path, "write")
        )
    }
}

/// `sandboxPermissions`: only `paths`, unknown fields rejected (seed §7.5).
#[derive(
    Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SandboxPermissionsInput {
    /// Paths this one call needs beyond the sandbox (up to 16 entries; at least one unless
    /// `network` is asked for).
    #[serde(default)]
    pub paths: Vec<PathPermission>,
    /// bash only: this one call needs the network (the sandbox has none by default).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub network: bool,
}

/// One requested path.
#[derive(
    Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct PathPermission {
    /// Absolute, or relative to the working directory.
    pub path: String,
    /// `read` or `write` (write includes read).
    pub access: Access,
    /// `exact` (this path only) or `subtree` (the path and everything below it).
    pub scope: Scope,
}

/// The escalation parameters of `write`, `edit` and `bash` (seed §7.5).
#[derive(
    Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct EscalationRequest {
    /// Extra paths this one call needs; the user approves or refuses them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sandbox_permissions: Option<SandboxPermissionsInput>,
    /// One sentence for the user: why this call needs those paths. Required with
    /// `sandboxPermissions`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub justification: Option<String>,
}

/// Why an escalation request is malformed (model-facing text).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EscalationError {
    #[error("sandboxPermissions.paths must list 1 to {max} paths (or none with \"network\": true); got {0}", max = MAX_ESCALATION_PATHS)]
    PathCount(usize),
    #[error(
        "sandboxPermissions.paths[{0}].path is empty; give an absolute path or one relative to the working directory"
    )]
    EmptyPath(usize),
    #[error("justification must be a non-empty sentence when sandboxPermissions is given")]
    MissingJustification,
}

/// A validated escalation: normalized grants and the justification to show the user.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Escalation {
    pub grants: Vec<Grant>,
    /// The call asks for the network.
    pub network: bool,
    pub justification: String,
}

impl EscalationRequest {
    /// Validates the request; relative paths are resolved against `cwd` and made real.
    /// `Ok(None)` when no permissions were asked for.
    pub fn validate(&self, cwd: &Path) -> Result<Option<Escalation>, EscalationError> {
        let Some(perms) = &self.sandbox_permissions else {
            return Ok(None);
        };
        let n = perms.paths.len();
        if (n == 0 && !perms.network) || n > MAX_ESCALATION_PATHS {
            return Err(EscalationError::PathCount(n));
        }
        let justification = self.justification.as_deref().map(str::trim).unwrap_or("");
        if justification.is_empty() {
            return Err(EscalationError::MissingJustification);
        }
        let mut grants = Vec::with_capacity(n);
        for (i, p) in perms.paths.iter().enumerate() {
            if p.path.trim().is_empty() {
                return Err(EscalationError::EmptyPath(i));
            }
            let path = Path::new(&p.path);
            let abs = if path.is_absolute() {
                path.to_path_buf()
            } else {
                cwd.join(path)
            };
            grants.push(Grant {
                path: real_path(&abs),
                access: p.access,
                scope: p.scope,
            });
        }
        Ok(Some(Escalation {
            grants,
            network: perms.network,
            justification: justification.to_string(),
        }))
    }
}

#[cfg(test)]
mod tests {
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
            let granted = f.policy.with_grants([Grant {
                path: ws.clone(),
                access: Access::Write,
                scope: Scope::Subtree,
            }]);
            for p in [ws.join(".git/hooks/pre-commit"), ws.join("vendor/lib/.git/hooks/post-merge")] {
                assert_eq!(granted.tier(&p), Tier::GitMetadata, "{}", p.display());
                let denial = granted.check(&p, Access::Write, Actor::FileTool).unwrap_err();
                assert!(!denial.sandbox_denied, "hard-protected: no escalation hint");
            }
            assert!(granted.check(&ws.join(".git/HEAD"), Access::Write, Actor::FileTool).is_ok());
        }
    }

    fn fixture(mode: SandboxMode) -> Fixture {
        let dir = tempfile::tempdir().unwrap();
        let base = std::fs::canonicalize(dir.path()).unwrap();
        for d in [
            "ws/.git/hooks",
            "ws/sub",
            "home/.ssh",
            "extra",
            "tmp",
            "data/spill",
            "out",
        ] {
            std::fs::create_dir_all(base.join(d)).unwrap();
        }
        for f in [
            "ws/.env",
            "ws/sub/.env.local",
            "ws/.git/config",
            "home/.netrc",
            "home/.bashrc",
        ] {
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
        Fixture {
            _dir: dir,
            base,
            policy,
        }
    }

    /// (path under the fixture base, read allowed, write allowed, write denial escalatable)
    const WORKSPACE_WRITE: &[(&str, bool, bool, bool)] = &[
        ("ws/src/main.rs", true, true, false),
        ("ws/.git/HEAD", true, true, false),
        ("ws/.git/objects/ab", true, true, false),
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
        ("home/.cargo/config.toml", true, false, true),
        ("home/.bashrc", true, false, true),
        ("out/file", true, false, true),
    ];

    #[test]
    fn workspace_write_tiers() {
        let f = fixture(SandboxMode::WorkspaceWrite);
        for (rel, read, write, escalatable) in WORKSPACE_WRITE {
            let p = f.base.join(rel);
            assert_eq!(
                f.policy.check(&p, Access::Read, Actor::FileTool).is_ok(),
                *read,
                "read {rel}"
            );
            let w = f.policy.check(&p, Access::Write, Actor::FileTool);
            assert_eq!(w.is_ok(), *write, "write {rel}: {w:?}");
            if let Err(d) = w {
                assert_eq!(d.sandbox_denied, *escalatable, "escalatable {rel}");
            }
        }
        for abs in ["/etc/passwd", "/usr/bin/x"] {
            assert!(
                f.policy
                    .check(Path::new(abs), Access::Read, Actor::FileTool)
                    .is_ok()
            );
            assert!(
                f.policy
                    .check(Path::new(abs), Access::Write, Actor::FileTool)
                    .is_err()
            );
        }
    }

    #[test]
    fn read_only_writes_nothing() {
        let f = fixture(SandboxMode::ReadOnly);
        for rel in ["ws/a", "extra/a", "tmp/a", "out/a"] {
            let d = f
                .policy
                .check(&f.base.join(rel), Access::Write, Actor::FileTool)
                .unwrap_err();
            assert!(d.sandbox_denied);
            assert!(d.message.contains("read-only"), "{}", d.message);
        }
        assert!(
            f.policy
                .check(&f.base.join("ws/a"), Access::Read, Actor::FileTool)
                .is_ok()
        );
        assert!(f.policy.writable_roots().is_empty());
    }

    #[test]
    fn grants_unlock_what_they_name_but_never_hard_protected_paths() {
        let f = fixture(SandboxMode::WorkspaceWrite);
        let g = |rel: &str, access, scope| Grant {
            path: f.base.join(rel),
            access,
            scope,
        };
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
        assert!(
            w("home/.ssh/id").is_err(),
            "a read grant does not allow writing"
        );
        assert!(
            p.check(&f.base.join("home/.ssh/id"), Access::Read, Actor::FileTool)
                .is_ok()
        );
        assert!(!w("data/spill/x").unwrap_err().sandbox_denied);
        assert!(!w("ws/.git/hooks/pre-commit").unwrap_err().sandbox_denied);
        assert!(
            !w("out/.git/hooks/x").unwrap_err().sandbox_denied,
            "hooks of a granted root"
        );
        // Only this value is widened.
        assert!(
            f.policy
                .check(&f.base.join("out/a"), Access::Write, Actor::FileTool)
                .is_err()
        );
        assert!(p.writable_roots().contains(&f.base.join("out")));
        assert!(!p.writable_roots().contains(&f.base.join("data")));
        assert!(!p.unreadable_paths().contains(&f.base.join("home/.ssh")));
    }

    #[test]
    fn os_sandbox_lists() {
        let f = fixture(SandboxMode::WorkspaceWrite);
        let roots = f.policy.writable_roots();
        assert_eq!(
            roots,
            vec![f.base.join("ws"), f.base.join("extra"), f.base.join("tmp")]
        );
        let mut carve = crate::scan::scan(&f.policy).unwrap().entries;
        carve.sort();
        let mut want: Vec<PathBuf> = [
            "ws/.env",
            "ws/.git",
            "ws/.git/config",
            "ws/.git/hooks",
            "ws/sub/.env.local",
        ]
        .iter()
        .map(|r| f.base.join(r))
        .collect();
        want.sort();
        assert_eq!(carve, want);
        let mut unreadable = f.policy.unreadable_paths();
        unreadable.retain(|p| p.starts_with(&f.base));
        unreadable.sort();
        assert_eq!(
            unreadable,
            vec![f.base.join("home/.netrc"), f.base.join("home/.ssh")]
        );
    }

    #[test]
    fn denial_texts_say_what_to_do() {
        let f = fixture(SandboxMode::WorkspaceWrite);
        let w = |rel: &str| {
            f.policy
                .check(&f.base.join(rel), Access::Write, Actor::FileTool)
                .unwrap_err()
                .message
        };
        assert!(w("out/x").contains("retry with sandboxPermissions"));
        assert!(w("out/x").contains("justification"));
        assert!(w("ws/.env").contains("retry with sandboxPermissions"));
        assert!(w("data/spill/x").contains("never written, not even with sandboxPermissions"));
        assert!(w("ws/.git/hooks/x").contains("git metadata"));
        let r = f
            .policy
            .check(&f.base.join("home/.ssh/id"), Access::Read, Actor::FileTool)
            .unwrap_err();
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
        assert!(
            p.check(Path::new("/etc/hosts"), Access::Read, Actor::FileTool)
                .is_ok()
        );
        assert!(
            p.check(Path::new("/etc/hosts"), Access::Write, Actor::FileTool)
                .is_err()
        );
        let ws = tempfile::tempdir().unwrap();
        let p = SandboxPolicy::workspace_write(ws.path());
        assert!(
            p.check(
                &real_path(&ws.path().join("a")),
                Access::Write,
                Actor::FileTool
            )
            .is_ok()
        );
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
            vec![Grant {
                path: "/nonexistent-cwd/out/x".into(),
                access: Access::Write,
                scope: Scope::Subtree
            }]
        );
        assert_eq!(
            parse(serde_json::json!({})).unwrap().validate(cwd),
            Ok(None)
        );
        assert!(
            parse(serde_json::json!({"sandboxPermissions": {"paths": [], "extra": 1}})).is_err()
        );
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
            assert_eq!(
                parse(v.clone()).unwrap().validate(cwd),
                Err(err.clone()),
                "{v}"
            );
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
        for (input, want) in [
            ("/a/./b/../c", "/a/c"),
            ("/..", "/"),
            ("a/../../b", "../b"),
            ("/a/b/", "/a/b"),
        ] {
            assert_eq!(
                normalize_lexically(Path::new(input)),
                PathBuf::from(want),
                "{input}"
            );
        }
    }
}
