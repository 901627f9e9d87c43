//! The judge of paths: which paths one call may read and write, decided once for the file
//! tools' fence and for the OS sandboxes (docs/architecture.md#the-policy-and-the-os-sandbox).
//! It starts nothing and opens nothing but what a verdict needs; `toolhost-sandbox` turns the
//! same policy into bubblewrap, Landlock and Seatbelt.
//!
//! How a verdict flows through the types:
//!
//! 1. **build** — [`SandboxPolicy::builder`] takes the session's [`SandboxMode`] and workspace;
//!    [`PolicyConfig`] (the operator's `policy.json`, [`POLICY_FILE`]) adds roots, names,
//!    [`CgroupLimits`] and the shell's settings. One call's policy adds its [`PathGrant`]s
//!    (from an approved [`Escalation`] of the model's `sandboxPermissions`).
//! 2. **judge** — the file tools' fence asks [`SandboxPolicy::check`] for each real path: the
//!    path's [`Tier`] decides, and a refusal is a [`Denial`] worded by [`messages`]. Git
//!    metadata ([`git`]) and the credential entries of every home are tiers of their own.
//! 3. **generate** — the OS sandboxes read [`SandboxPolicy::writable_roots`] and
//!    [`SandboxPolicy::unreadable_paths`]; their protected-entry scan asks
//!    [`SandboxPolicy::is_protected_name`], so both sides read the same rules.
//!
//! Beside the flow: [`danger::detect_danger`] names dangerous commands for the approval step,
//! and [`NarrowedReads`] narrows reads to a client's roots.
//!
//! Tiers, strongest first:
//!
//! * **hard-protected** — never writable, not even with a grant: toolhost's data directory
//!   (spill files, component cache, session store), and the git metadata of every repository
//!   ([`git::PROTECTED_GIT_ENTRIES`] below any `.git`, and any entry named `.git`).
//!   Of the data dir, the [`DATA_DIR_PRIVATE`] entries (the store, the policy, the cache) are
//!   not readable either; the spill dir is. Every other toolhost data dir the host's own
//!   record names (the registry of data dirs; never a [`DATA_DIR_MARKER`] file alone) and a
//!   `--token-file` are held the same way.
//! * **credential** — neither readable nor writable without a grant: every hidden entry of
//!   HOME but the readable ones ([`READABLE_HOME_ENTRIES`], `readable_home_entries`:
//!   [`SandboxPolicy::is_hidden_home`], so a store nobody listed is closed too),
//!   [`CREDENTIAL_HOME_ENTRIES`] under HOME and every other home (closed even inside a
//!   readable entry: [`SandboxPolicy::is_home_credential`]), other users' homes but their
//!   readable entries ([`OTHER_HOME_PARENTS`], [`OTHER_HOME_DIRS`]:
//!   [`SandboxPolicy::is_other_home_closed`]), [`SYSTEM_CREDENTIAL_PATHS`] and
//!   `/etc/ssh/*_key`, plus configured entries, plus every process's environment
//!   (`/proc/<pid>/environ`: the host's own holds the agent's API keys).
//! * **sensitive** — readable; writable only with a grant: [`SENSITIVE_NAMES`] anywhere in a
//!   writable root or under HOME, [`HOME_SENSITIVE_ENTRIES`] under HOME (files that run code
//!   at the user's next login, shell, editor or git command), plus configured names.
//! * **outside** — readable; writable only with a grant: everything not in a writable root.
//!
//! Everything else inside a writable root (including the rest of `.git/`) is writable in
//! workspace-write mode.
//!
//! The files: `git.rs` what git metadata is and how a config is judged (by git's own
//! parser), `danger.rs` the dangerous-command detector, `cgroup_limits.rs` what a call's
//! cgroup may hold; this one the types; [`SandboxPolicy`]'s methods by job — `config.rs` (what
//! `policy.json` adds, the builder), `per_call.rs` (one call's policy: grants, network, box),
//! `accessors.rs`, `check.rs` (the verdict on a path), `home.rs` (HOME's hidden entries),
//! `homes.rs` (credential entries in every home, other users' homes),
//! `os_sandbox.rs` (what the OS sandboxes are generated from), `reads.rs` (reads confined to
//! the workspace and listed roots, when the operator asks); `tiers.rs` the default lists,
//! `escalation.rs` the model's `sandboxPermissions`, [`messages`] the denials' texts,
//! `prefixes.rs` the credential paths parsed once for the per-path check.

mod accessors;
mod cgroup_limits;
mod check;
mod config;
pub mod danger;
mod escalation;
pub mod git;
mod home;
mod homes;
pub mod messages;
mod os_sandbox;
mod paths;
mod per_call;
mod prefixes;
mod reads;
#[cfg(test)]
mod tests;
mod tiers;

use std::path::{Path, PathBuf};

pub use cgroup_limits::CgroupLimits;
pub use config::{
    POLICY_FILE, PolicyBuilder, PolicyConfig, ReadsConfig, RegistriesConfig, SandboxTier,
    ShellPolicy,
};
pub use escalation::{
    Escalation, EscalationError, EscalationRequest, PathPermission, SandboxPermissionsInput,
};
pub use home::HomeMask;
pub use paths::{normalize_lexically, real_path};
pub use reads::NarrowedReads;
pub use tiers::{
    CREDENTIAL_HOME_ENTRIES, DATA_DIR_MARKER, DATA_DIR_PRIVATE, HOME_SENSITIVE_ENTRIES,
    OTHER_HOME_DIRS, OTHER_HOME_PARENTS, READABLE_HOME_ENTRIES, SENSITIVE_NAMES,
    SYSTEM_CREDENTIAL_PATHS, SYSTEM_READ_DIRS, USER_DATA_IN_SYSTEM, is_ssh_host_key,
};

/// The session's sandbox mode.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "kebab-case")]
pub enum SandboxMode {
    /// Nothing is writable.
    ReadOnly,
    /// The workspace (and configured extra roots, and the session's temp dir) are writable.
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
pub struct PathGrant {
    pub path: PathBuf,
    pub access: Access,
    pub scope: Scope,
}

impl PathGrant {
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
    /// The temp dir (a writable root in workspace-write mode, `TMPDIR` for every program):
    /// the session's private one, `policy.json`'s, or the system one.
    temp_dir: PathBuf,
    /// Whether other programs may write in `temp_dir` too (not the session's private one).
    temp_dir_shared: bool,
    network: NetworkAccess,
    limits: crate::CgroupLimits,
    scan_entries: usize,
    /// `policy.json`'s `process_env_allow`.
    process_env_allow: Vec<String>,
    /// `policy.json`'s `shell`.
    shell: config::ShellPolicy,
    hard_protected: Vec<(PathBuf, Tier)>,
    credential: prefixes::PathPrefixes,
    sensitive: Vec<String>,
    /// HOME-relative patterns of HOME's hidden entries that stay readable.
    readable_home: Vec<String>,
    /// HOME-relative credential entries, closed under HOME and every other home (`homes.rs`).
    home_credentials: Vec<String>,
    /// Directories whose entries are users' homes (real paths).
    home_parents: Vec<PathBuf>,
    /// Homes of their own, `/root` (real paths).
    home_dirs: Vec<PathBuf>,
    /// Writable roots inside one of HOME's hidden entries (not closed by the rule).
    exempt_roots: Vec<PathBuf>,
    /// HOME's hidden entries that are symlinks out of HOME: (real target, name).
    home_links: Vec<(PathBuf, PathBuf)>,
    /// Other toolhost data dirs known when the policy was built.
    other_data_dirs: Vec<PathBuf>,
    /// Files outside the data dir that are private data (`--token-file`).
    private_files: Vec<PathBuf>,
    grants: Vec<PathGrant>,
    reach: Reach,
    /// Where reads may go besides the workspace, the writable roots, the system and the
    /// homes' readable entries, when the operator confined them (`reads.rs`); `None`: reads
    /// are allowed everywhere but the closed tiers (the default).
    read_roots: Option<Vec<PathBuf>>,
}
