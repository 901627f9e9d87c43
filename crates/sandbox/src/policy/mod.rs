//! The sandbox policy stamped on each call (docs/security.md: modes, tiers, grants): which paths a
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
//!   not readable either; the spill dir is. Every other toolhost data dir (listed, or marked
//!   by [`DATA_DIR_MARKER`]) and a `--token-file` are held the same way.
//! * **credential** — neither readable nor writable without a grant: every hidden entry of
//!   HOME but the readable ones ([`READABLE_HOME_ENTRIES`], `readable_home_entries`:
//!   [`SandboxPolicy::is_hidden_home`], so a store nobody listed is closed too),
//!   [`CREDENTIAL_HOME_ENTRIES`] under HOME (closed even inside a readable entry),
//!   [`SYSTEM_CREDENTIAL_PATHS`] and `/etc/ssh/*_key`, plus configured entries, plus every
//!   process's environment (`/proc/<pid>/environ`: the host's own holds the agent's API keys).
//! * **sensitive** — readable; writable only with a grant: [`SENSITIVE_NAMES`] anywhere in a
//!   writable root or under HOME, [`HOME_SENSITIVE_ENTRIES`] under HOME (files that run code
//!   at the user's next login, shell, editor or git command), plus configured names.
//! * **outside** — readable; writable only with a grant: everything not in a writable root.
//!
//! Everything else inside a writable root (including the rest of `.git/`) is writable in
//! workspace-write mode.

mod escalation;
pub mod messages;
mod paths;
#[cfg(test)]
mod tests;
mod tiers;

use std::path::{Path, PathBuf};

pub use escalation::{
    Escalation, EscalationError, EscalationRequest, PathPermission, SandboxPermissionsInput,
};
use paths::dedup;
pub use paths::{normalize_lexically, real_path};
pub use tiers::{
    CREDENTIAL_HOME_ENTRIES, DATA_DIR_MARKER, DATA_DIR_PRIVATE, HOME_SENSITIVE_ENTRIES,
    READABLE_HOME_ENTRIES, SENSITIVE_NAMES, SYSTEM_CREDENTIAL_PATHS, is_ssh_host_key,
};
use tiers::{home_pattern_covers, is_process_environment, name_matches};

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

/// One path the user approved for one call (`sandboxPermissions.paths[i]`,
/// docs/contract.md#escalation-parameters).
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

/// How much of the file system exists for whoever a policy is stamped on. Every tool call
/// reaches [`Reach::Everywhere`], judged by the tiers; the narrower reaches are made only from
/// a call's policy ([`SandboxPolicy::confined_to`]) or as nothing at all
/// ([`SandboxPolicy::no_file_system`]), so neither can be weaker than a call's.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Reach {
    /// The whole file system, judged by the tiers.
    #[default]
    Everywhere,
    /// Only the workspace: nothing outside it is readable or writable (no temp dir, no extra
    /// roots, no grants, no network). `toolhost conformance`'s box.
    WorkspaceOnly,
    /// Nothing: no path is readable or writable. `describe`, which needs no file system.
    Nothing,
}

/// The policy config file's name inside the data dir ([`PolicyConfig`]).
pub const POLICY_FILE: &str = "policy.json";

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
    /// More of HOME's hidden entries that stay readable (HOME-relative, in the syntax of
    /// [`READABLE_HOME_ENTRIES`], e.g. `".config/mytool"`); every other hidden entry of HOME
    /// is a credential. A [`CREDENTIAL_HOME_ENTRIES`] location stays closed.
    pub readable_home_entries: Vec<String>,
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
    /// Environment variables a process-execution component may set for a program it runs,
    /// besides the host's short allow-list: exact names, or a prefix ending in `*`
    /// (`["GOFLAGS", "MYAPP_*"]`). Never `PATH`, `HOME`, loader or start-up-hook variables.
    pub process_env_allow: Vec<String>,
}

/// Builds a [`SandboxPolicy`] with HOME, the data dir and a [`PolicyConfig`].
#[derive(Debug, Clone)]
pub struct PolicyBuilder {
    mode: SandboxMode,
    workspace: PathBuf,
    home: Option<PathBuf>,
    data_dir: Option<PathBuf>,
    other_data_dirs: Vec<PathBuf>,
    private_files: Vec<PathBuf>,
    config: PolicyConfig,
}

impl PolicyBuilder {
    /// Other toolhost data dirs (another instance's `--data-dir`), treated exactly like this
    /// one's: their private entries unreadable, nothing in them writable, for every tool and
    /// bash. A directory holding [`DATA_DIR_MARKER`] is one wherever it is, listed or not.
    pub fn other_data_dirs(mut self, dirs: impl IntoIterator<Item = PathBuf>) -> Self {
        self.other_data_dirs.extend(dirs);
        self
    }

    /// A file outside the data dir that is private data all the same (`mcp --listen
    /// --token-file`: the bearer token that guards the tools): never readable nor writable.
    pub fn private_file(mut self, file: impl Into<PathBuf>) -> Self {
        self.private_files.push(file.into());
        self
    }

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
        let temp_dir = real_path(&self.config.temp_dir.clone().unwrap_or_else(std::env::temp_dir));
        let mut roots = vec![workspace.clone()];
        roots.extend(self.config.extra_writable_roots.iter().map(|p| real_path(p)));
        roots.push(temp_dir.clone());
        dedup(&mut roots);
        let mut hard: Vec<(PathBuf, Tier)> = Vec::new();
        if let Some(d) = &self.data_dir {
            hard.push((real_path(d), Tier::DataDir));
        }
        let own = self.data_dir.as_deref().map(real_path);
        let mut other_data_dirs: Vec<PathBuf> = self
            .other_data_dirs
            .iter()
            .map(|d| real_path(d))
            .filter(|d| Some(d) != own.as_ref())
            .collect();
        dedup(&mut other_data_dirs);
        hard.extend(other_data_dirs.iter().map(|d| (d.clone(), Tier::DataDir)));
        let mut private_files: Vec<PathBuf> =
            self.private_files.iter().map(|f| real_path(f)).collect();
        dedup(&mut private_files);
        hard.extend(private_files.iter().map(|f| (f.clone(), Tier::DataDir)));
        hard.extend(
            self.config.extra_hard_protected.iter().map(|p| (real_path(p), Tier::HardProtected)),
        );
        let mut credential: Vec<PathBuf> =
            SYSTEM_CREDENTIAL_PATHS.iter().map(PathBuf::from).collect();
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
        let mut readable_home: Vec<String> =
            READABLE_HOME_ENTRIES.iter().map(|s| s.to_string()).collect();
        readable_home.extend(
            self.config
                .readable_home_entries
                .iter()
                .map(|e| e.trim_start_matches("~/").trim_matches('/').to_string())
                .filter(|e| !e.is_empty()),
        );
        // A root the user chose inside one of HOME's hidden entries (a workspace in
        // `~/.dotfiles`) is theirs to work in: the hidden-entry rule does not close it.
        let home_links = home.as_deref().map(home_links).unwrap_or_default();
        let exempt_roots: Vec<PathBuf> = match &home {
            Some(h) => {
                roots.iter().filter(|r| home_rest(h, &home_links, r).is_some()).cloned().collect()
            }
            None => Vec::new(),
        };
        SandboxPolicy {
            mode: self.mode,
            workspace,
            writable_roots: roots,
            home,
            data_dir: self.data_dir.as_deref().map(real_path),
            temp_dir,
            network: self.config.network,
            limits: self.config.limits,
            scan_entries: self
                .config
                .scan_entries
                .unwrap_or(toolhost_limits::PROTECTED_SCAN_ENTRIES),
            process_env_allow: self.config.process_env_allow.clone(),
            hard_protected: hard,
            credential,
            sensitive,
            readable_home,
            exempt_roots,
            home_links,
            other_data_dirs,
            private_files,
            grants: Vec::new(),
            reach: Reach::Everywhere,
        }
    }
}

/// The HOME-relative rest of `path` when it lies in one of `home`'s hidden entries (its first
/// component below HOME begins with `.`).
fn hidden_rest<'a>(home: &Path, path: &'a Path) -> Option<&'a Path> {
    use std::os::unix::ffi::OsStrExt;
    let rest = path.strip_prefix(home).ok()?;
    let first = rest.iter().next()?;
    first.as_bytes().starts_with(b".").then_some(rest)
}

/// [`hidden_rest`] of the real path `path`, also where it lies below the target of a
/// symlinked hidden entry of HOME (`~/.config -> /data/config`: `/data/config/gh` is
/// `.config/gh`).
fn home_rest(home: &Path, links: &[(PathBuf, PathBuf)], path: &Path) -> Option<PathBuf> {
    if let Some(rest) = hidden_rest(home, path) {
        return Some(rest.to_path_buf());
    }
    links.iter().find_map(|(target, rel)| Some(rel.join(path.strip_prefix(target).ok()?)))
}

/// HOME's hidden entries that are symlinks out of HOME: (real target, HOME-relative name).
/// One `readdir` of HOME when the policy is built.
fn home_links(home: &Path) -> Vec<(PathBuf, PathBuf)> {
    use std::os::unix::ffi::OsStrExt;
    let Ok(entries) = std::fs::read_dir(home) else { return Vec::new() };
    let mut out = Vec::new();
    for e in entries.flatten() {
        let name = e.file_name();
        if !name.as_bytes().starts_with(b".") || !e.file_type().is_ok_and(|t| t.is_symlink()) {
            continue;
        }
        if let Ok(target) = std::fs::canonicalize(e.path())
            && !target.starts_with(home)
            && !home.starts_with(&target)
        {
            out.push((target, PathBuf::from(name)));
        }
    }
    out
}

/// One of HOME's hidden entries that bash's sandbox hides, and the existing paths inside it
/// that stay visible ([`SandboxPolicy::hidden_home_masks`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HomeMask {
    /// The hidden entry (directly in HOME).
    pub path: PathBuf,
    /// What inside it is bound back (a symlink is made again as a symlink), shallowest
    /// first, with the access a grant gave (a readable entry, a root or the data dir:
    /// [`Access::Read`]; the mount decides by the writable roots whether it is writable).
    pub keep: Vec<(PathBuf, Access)>,
}

/// The existing paths below `dir` that `parts` (pattern components) name.
fn expand_pattern(dir: &Path, parts: &[&str], out: &mut Vec<(PathBuf, Access)>) {
    let Some((first, rest)) = parts.split_first() else {
        if dir.symlink_metadata().is_ok() {
            out.push((dir.to_path_buf(), Access::Read));
        }
        return;
    };
    if first.ends_with('*') {
        let Ok(entries) = std::fs::read_dir(dir) else { return };
        for e in entries.flatten().take(1_000) {
            if name_matches(first, &e.file_name()) {
                expand_pattern(&e.path(), rest, out);
            }
        }
    } else {
        expand_pattern(&dir.join(first), rest, out);
    }
}

/// Whether `dir` holds [`DATA_DIR_MARKER`] (one `lstat`).
pub fn is_marked_data_dir(dir: &Path) -> bool {
    dir.join(DATA_DIR_MARKER).symlink_metadata().is_ok_and(|m| m.is_file())
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
    /// `policy.json`'s `process_env_allow`.
    process_env_allow: Vec<String>,
    hard_protected: Vec<(PathBuf, Tier)>,
    credential: Vec<PathBuf>,
    sensitive: Vec<String>,
    /// HOME-relative patterns of HOME's hidden entries that stay readable.
    readable_home: Vec<String>,
    /// Writable roots inside one of HOME's hidden entries (not closed by the rule).
    exempt_roots: Vec<PathBuf>,
    /// HOME's hidden entries that are symlinks out of HOME: (real target, name).
    home_links: Vec<(PathBuf, PathBuf)>,
    /// Other toolhost data dirs known when the policy was built.
    other_data_dirs: Vec<PathBuf>,
    /// Files outside the data dir that are private data (`--token-file`).
    private_files: Vec<PathBuf>,
    grants: Vec<Grant>,
    reach: Reach,
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
            other_data_dirs: Vec::new(),
            private_files: Vec::new(),
            config: PolicyConfig::default(),
        }
    }

    /// This policy widened by `grants` (one call's approved `sandboxPermissions`). Grants never
    /// unlock hard-protected paths.
    pub fn with_grants(&self, grants: impl IntoIterator<Item = Grant>) -> Self {
        let mut p = self.clone();
        if p.reach != Reach::Everywhere {
            // A box is never widened: nothing outside it exists to grant.
            return p;
        }
        for g in grants {
            let g = Grant { path: real_path(&g.path), ..g };
            if !p.grants.contains(&g) {
                p.grants.push(g);
            }
        }
        p
    }

    /// This policy boxed into `workspace`: every tier of this policy still applies (its HOME,
    /// data dir, credentials, `policy.json` entries), and besides, nothing outside `workspace`
    /// exists for the caller — no other writable root, no temp dir, no grant, no network.
    /// How `toolhost conformance` runs a component it has never seen.
    pub fn confined_to(&self, workspace: impl Into<PathBuf>) -> Self {
        let workspace = real_path(&workspace.into());
        SandboxPolicy {
            mode: SandboxMode::WorkspaceWrite,
            writable_roots: vec![workspace.clone()],
            workspace,
            network: NetworkAccess::Deny,
            grants: Vec::new(),
            reach: Reach::WorkspaceOnly,
            ..self.clone()
        }
    }

    /// A policy under which no path is readable or writable and nothing can run: for
    /// component code that needs no file system (`describe`).
    pub fn no_file_system() -> Self {
        let mut p = Self::builder(SandboxMode::ReadOnly, "/").build();
        p.writable_roots.clear();
        p.network = NetworkAccess::Deny;
        p.reach = Reach::Nothing;
        p
    }

    /// How much of the file system exists under this policy.
    pub fn reach(&self) -> Reach {
        self.reach
    }

    /// The directories bash's sandbox replaces with an empty tmpfs before it binds the
    /// writable roots, so that nothing outside the workspace is there for a boxed call
    /// ([`Reach::WorkspaceOnly`]): HOME, every user's home, the temp dirs, the data dir and
    /// the mount points of other file systems. Empty for every other reach. Programs still
    /// find the system (`/usr`, `/etc`, …) read-only, as bash does.
    pub fn boxed_away_dirs(&self) -> Vec<PathBuf> {
        if self.reach != Reach::WorkspaceOnly {
            return Vec::new();
        }
        let mut out: Vec<PathBuf> = [
            "/home", "/root", "/tmp", "/var/tmp", "/dev/shm", "/mnt", "/media", "/srv", "/run",
            "/var/run",
        ]
        .iter()
        .filter_map(|d| std::fs::canonicalize(d).ok())
        .collect();
        out.extend(self.home.iter().cloned());
        out.push(self.temp_dir.clone());
        out.extend(self.data_dir.iter().cloned());
        // The workspace itself is bound back after these (it may lie in the temp dir).
        out.retain(|d| d.is_dir() && !d.starts_with(&self.workspace));
        out.sort_by_key(|d| d.components().count());
        dedup(&mut out);
        out
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

    /// Whether `policy.json`'s `process_env_allow` names the environment variable `name`
    /// (exactly, or by a prefix ending in `*`).
    pub fn process_env_allowed(&self, name: &str) -> bool {
        self.process_env_allow.iter().any(|entry| match entry.strip_suffix('*') {
            Some(prefix) => !prefix.is_empty() && name.starts_with(prefix),
            None => entry == name,
        })
    }

    /// This policy with bash's network access set (an approved per-call escalation).
    pub fn with_network(&self, network: NetworkAccess) -> Self {
        if self.reach != Reach::Everywhere {
            return self.clone();
        }
        SandboxPolicy { network, ..self.clone() }
    }

    /// toolhost's data dir (real path), if this policy protects one.
    pub fn data_dir(&self) -> Option<&Path> {
        self.data_dir.as_deref()
    }

    /// Whether some path at or below the real path `root` may be refused for reading, i.e.
    /// whether [`SandboxPolicy::check`] with [`Access::Read`] can fail there: a location that
    /// refuses reads (a data dir private entry, a credential location, `/proc`'s `environ`
    /// files, `/etc/ssh`'s host keys) lies at or below `root`, or `root` lies inside one. When
    /// it is `false`, every path below `root` is readable, and a walk of `root` need not ask
    /// for each entry (the read rules are all by location, none by name alone).
    pub fn reads_refusable_below(&self, root: &Path) -> bool {
        match self.reach {
            Reach::Everywhere => {}
            Reach::WorkspaceOnly if root.starts_with(&self.workspace) => {}
            _ => return true,
        }
        let system = [Path::new("/proc"), Path::new("/etc/ssh")].map(Path::to_path_buf);
        // HOME's hidden entries refuse reads: HOME and every directory above it may hold one.
        let home = self.home.as_ref().is_some_and(|h| {
            h.starts_with(root)
                || home_rest(h, &self.home_links, root).is_some()
                || self.home_links.iter().any(|(t, _)| t.starts_with(root))
        });
        home || self
            .private_data_paths()
            .into_iter()
            .chain(self.credential.iter().cloned())
            .chain(system)
            .any(|refusing| refusing.starts_with(root) || root.starts_with(&refusing))
    }

    /// Whether a walk must ask [`SandboxPolicy::check`] about `path` even where
    /// [`SandboxPolicy::reads_refusable_below`] said no: its name is one of a data dir's
    /// [`DATA_DIR_PRIVATE`] entries, and the directory holding it may be a marked data dir.
    pub fn may_be_private_data(path: &Path) -> bool {
        path.file_name().is_some_and(|n| DATA_DIR_PRIVATE.iter().any(|e| n == *e))
    }

    /// Every private location known without looking at the file system: each known data
    /// dir's [`DATA_DIR_PRIVATE`] entries and the private files (`--token-file`). A marked
    /// data dir elsewhere is found by [`SandboxPolicy::is_private_data`] and by bash's scan.
    pub fn private_data_paths(&self) -> Vec<PathBuf> {
        let mut out: Vec<PathBuf> = self
            .data_dir
            .iter()
            .chain(&self.other_data_dirs)
            .flat_map(|d| DATA_DIR_PRIVATE.iter().map(move |e| d.join(e)))
            .collect();
        out.extend(self.private_files.iter().cloned());
        out
    }

    /// Files outside the data dir that are private data (`--token-file`; real paths).
    pub fn private_files(&self) -> &[PathBuf] {
        &self.private_files
    }

    /// Other toolhost data dirs this policy knows of (real paths).
    pub fn other_data_dirs(&self) -> &[PathBuf] {
        &self.other_data_dirs
    }

    /// Whether `path` is private data, neither readable nor writable by any tool or bash
    /// whatever a grant says: one of a data dir's [`DATA_DIR_PRIVATE`] entries (or below one)
    /// — this one's, another known one's, or that of any directory holding
    /// [`DATA_DIR_MARKER`] — or a private file (`--token-file`). The marker is looked for
    /// only in a directory whose child on the path has a private entry's name (one `lstat`
    /// each), never in every ancestor.
    pub fn is_private_data(&self, path: &Path) -> bool {
        let private_in = |d: &PathBuf| {
            path.strip_prefix(d)
                .ok()
                .and_then(|rest| rest.components().next())
                .is_some_and(|first| DATA_DIR_PRIVATE.iter().any(|e| first.as_os_str() == *e))
        };
        if self.data_dir.iter().chain(&self.other_data_dirs).any(private_in) {
            return true;
        }
        if self.private_files.iter().any(|f| path.starts_with(f)) {
            return true;
        }
        let mut dir = PathBuf::new();
        for c in path.components() {
            if let std::path::Component::Normal(name) = c
                && DATA_DIR_PRIVATE.iter().any(|e| name == *e)
                && dir.parent().is_some()
                && is_marked_data_dir(&dir)
            {
                return true;
            }
            dir.push(c);
        }
        false
    }

    /// Whether `path` lies in a directory holding [`DATA_DIR_MARKER`] (it or an ancestor):
    /// one `lstat` per ancestor, so asked only of a write the other tiers would allow.
    fn in_marked_data_dir(&self, path: &Path) -> bool {
        path.ancestors().any(|a| a.parent().is_some() && is_marked_data_dir(a))
    }

    /// Whether `path` lies in one of HOME's hidden entries that is not readable: not in
    /// [`READABLE_HOME_ENTRIES`] or `readable_home_entries`, not in this policy's data dir
    /// (its spill stays readable; its private entries are judged on their own) and not in a
    /// writable root chosen inside a hidden entry. Such a path is a credential.
    pub fn is_hidden_home(&self, path: &Path) -> bool {
        let Some(rest) = self.home.as_deref().and_then(|h| home_rest(h, &self.home_links, path))
        else {
            return false;
        };
        !(self.readable_home.iter().any(|e| home_pattern_covers(e, &rest))
            || self.data_dir.as_ref().is_some_and(|d| path.starts_with(d))
            || self.exempt_roots.iter().any(|r| path.starts_with(r)))
    }

    /// The HOME-relative patterns of HOME's hidden entries that stay readable (defaults plus
    /// configured).
    pub fn readable_home_entries(&self) -> &[String] {
        &self.readable_home
    }

    /// Writable roots that lie inside one of HOME's hidden entries: readable as a whole.
    pub fn exempt_roots(&self) -> &[PathBuf] {
        &self.exempt_roots
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
        if in_root { Tier::Writable } else { Tier::Outside }
    }

    /// Judge a real (canonical) path. Reading is allowed everywhere except credential
    /// locations; writing follows the tiers of the module doc.
    pub fn check(&self, path: &Path, access: Access, _actor: Actor) -> Result<(), Denial> {
        match self.reach {
            Reach::Everywhere => {}
            Reach::WorkspaceOnly if path.starts_with(&self.workspace) => {}
            // Not `sandbox_denied`: no grant widens a box, so nothing is offered.
            Reach::WorkspaceOnly => {
                return Err(Denial {
                    message: messages::outside_box(path, &self.workspace),
                    sandbox_denied: false,
                });
            }
            Reach::Nothing => {
                return Err(Denial {
                    message: messages::no_file_system(path),
                    sandbox_denied: false,
                });
            }
        }
        match access {
            // Only the data dir's private entries and credentials are unreadable. A credential
            // location is one whatever else the path is (git metadata inside `~/.ssh` is still
            // inside `~/.ssh`), so the write tiers are not consulted.
            Access::Read => {
                if self.is_private_data(path) {
                    return Err(Denial {
                        message: messages::private_data(path),
                        sandbox_denied: false,
                    });
                }
                if self.is_credential(path) && !self.granted(path, Access::Read) {
                    return Err(Denial {
                        message: self.credential_message(path),
                        sandbox_denied: true,
                    });
                }
                Ok(())
            }
            Access::Write => {
                let verdict = self.write_verdict(path);
                // Another toolhost's data dir that no list named: found by its marker.
                if verdict.is_ok() && self.in_marked_data_dir(path) {
                    return Err(Denial {
                        message: messages::hard_protected(path, Tier::DataDir),
                        sandbox_denied: false,
                    });
                }
                verdict
            }
        }
    }

    fn write_verdict(&self, path: &Path) -> Result<(), Denial> {
        match self.tier(path) {
            tier @ (Tier::DataDir | Tier::GitMetadata | Tier::HardProtected) => {
                Err(Denial { message: messages::hard_protected(path, tier), sandbox_denied: false })
            }
            _ if self.granted(path, Access::Write) => Ok(()),
            Tier::Credential => {
                Err(Denial { message: self.credential_message(path), sandbox_denied: true })
            }
            Tier::Sensitive => {
                Err(Denial { message: messages::sensitive(path), sandbox_denied: true })
            }
            Tier::Writable => Ok(()),
            Tier::Outside => Err(Denial {
                message: if self.mode == SandboxMode::ReadOnly {
                    messages::read_only(path)
                } else {
                    messages::outside(path, &self.writable_roots)
                },
                sandbox_denied: true,
            }),
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

    /// HOME's hidden entries bash's sandbox must hide, each with what inside it stays
    /// visible (existing paths only): the readable entries below it, a writable root or the
    /// data dir chosen inside it, and grants inside it. One `readdir` of HOME, and one of
    /// each directory a `*` pattern names.
    pub fn hidden_home_masks(&self) -> Vec<HomeMask> {
        use std::os::unix::ffi::OsStrExt;
        let Some(home) = &self.home else { return Vec::new() };
        let Ok(entries) = std::fs::read_dir(home) else { return Vec::new() };
        let mut out = Vec::new();
        for e in entries.flatten() {
            let name = e.file_name();
            if !name.as_bytes().starts_with(b".") {
                continue;
            }
            let spelled = home.join(&name);
            // A symlink out of HOME: its target is hidden (as the fence judges it); one
            // within HOME is judged where it points.
            let path = if e.file_type().is_ok_and(|t| t.is_symlink()) {
                match std::fs::canonicalize(&spelled) {
                    Ok(t) if self.home_links.iter().any(|(target, _)| *target == t) => t,
                    _ => continue,
                }
            } else {
                spelled.clone()
            };
            if !self.is_hidden_home(&path) || self.granted(&path, Access::Read) {
                continue;
            }
            let mut keep: Vec<(PathBuf, Access)> = Vec::new();
            for pattern in &self.readable_home {
                let mut parts = pattern.split('/').filter(|p| !p.is_empty());
                if parts.next().is_some_and(|first| name_matches(first, &name)) {
                    expand_pattern(&path, &parts.collect::<Vec<_>>(), &mut keep);
                }
            }

            for r in self.exempt_roots.iter().chain(&self.data_dir) {
                if r.starts_with(&path) && r.exists() {
                    keep.push((r.clone(), Access::Read));
                }
            }
            for g in &self.grants {
                if g.path.starts_with(&path) && g.path != path && g.path.exists() {
                    keep.push((g.path.clone(), g.access));
                }
            }
            keep.sort_by_key(|(p, _)| p.components().count());
            keep.dedup_by(|a, b| a.0 == b.0);
            out.push(HomeMask { path, keep });
        }
        out.sort_by(|a, b| a.path.cmp(&b.path));
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
        if let Some((_, t)) = self.hard_protected.iter().find(|(p, _)| path.starts_with(p)) {
            return Some(*t);
        }
        // Git metadata runs code outside the sandbox at the user's next git command: it is
        // protected in any repository (nested ones too) and in every mode, whatever a grant says.
        if crate::git::is_git_metadata(path) {
            return Some(Tier::GitMetadata);
        }
        None
    }

    /// Why `path` is a credential, for the denial: a listed location, or the hidden-entry rule.
    fn credential_message(&self, path: &Path) -> String {
        if self.is_hidden_home(path) && !self.credential.iter().any(|c| path.starts_with(c)) {
            messages::hidden_home(path)
        } else {
            messages::credential(path)
        }
    }

    fn is_credential(&self, path: &Path) -> bool {
        // Through a symlinked hidden entry of HOME, a credential is also found by its HOME name.
        let spelled = self.home.as_deref().and_then(|h| {
            let (target, rel) = self.home_links.iter().find(|(t, _)| path.starts_with(t))?;
            Some(h.join(rel).join(path.strip_prefix(target).ok()?))
        });
        self.credential
            .iter()
            .any(|c| path.starts_with(c) || spelled.as_ref().is_some_and(|s| s.starts_with(c)))
            || is_process_environment(path)
            || is_ssh_host_key(path)
            || self.is_hidden_home(path)
    }

    /// Whether `path` is under one of HOME's [`HOME_SENSITIVE_ENTRIES`].
    fn is_home_sensitive(&self, path: &Path) -> bool {
        self.home.as_ref().is_some_and(|h| {
            path.strip_prefix(h)
                .is_ok_and(|rest| HOME_SENSITIVE_ENTRIES.iter().any(|e| rest.starts_with(e)))
        })
    }

    /// Whether bash may not create `path` without a grant: a sensitive name, a HOME entry of
    /// [`HOME_SENSITIVE_ENTRIES`], git metadata, or a [`DATA_DIR_MARKER`] (one bash planted
    /// would make the next call hide that directory). Used by [`crate::scan`].
    pub fn is_protected_name(&self, path: &Path) -> bool {
        self.is_sensitive_name(path)
            || self.is_home_sensitive(path)
            || crate::git::is_git_metadata(path)
            || path.file_name().is_some_and(|n| n == DATA_DIR_MARKER)
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
