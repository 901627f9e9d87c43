//! What a policy holds, read by the fence, the OS sandboxes and `doctor`.

use std::path::{Path, PathBuf};

use super::{NetworkAccess, PathGrant, SandboxMode, SandboxPolicy};

impl SandboxPolicy {
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

    /// toolhost's data dir (real path), if this policy protects one.
    pub fn data_dir(&self) -> Option<&Path> {
        self.data_dir.as_deref()
    }

    /// The operator's `policy.json` ([`super::POLICY_FILE`] in the data dir), as `doctor` names
    /// it to a person: its path, or "the data dir's policy.json" when there is no data dir.
    pub fn policy_file_shown(&self) -> String {
        match &self.data_dir {
            Some(dir) => dir.join(super::POLICY_FILE).display().to_string(),
            None => format!("the data dir's {}", super::POLICY_FILE),
        }
    }

    /// Files outside the data dir that are private data (`--token-file`; real paths).
    pub fn private_files(&self) -> &[PathBuf] {
        &self.private_files
    }

    /// Other toolhost data dirs this policy knows of (real paths).
    pub fn other_data_dirs(&self) -> &[PathBuf] {
        &self.other_data_dirs
    }

    /// The grants this policy carries.
    pub fn grants(&self) -> &[PathGrant] {
        &self.grants
    }

    /// How many entries bash's protected-entry scan may visit (`toolhost_sandbox::protected`).
    pub fn scan_entries(&self) -> usize {
        self.scan_entries
    }

    /// bash's per-call limits.
    pub fn limits(&self) -> crate::CgroupLimits {
        self.limits
    }

    /// The temp dir (real path): writable in workspace-write mode, and `TMPDIR` for bash and
    /// every program a component runs. The session's private one
    /// ([`super::PolicyBuilder::private_temp_dir`]), else `policy.json`'s `temp_dir`, else the
    /// system temp dir.
    pub fn temp_dir(&self) -> &Path {
        &self.temp_dir
    }

    /// `policy.json`'s rules for `workspace_shell`.
    pub fn shell(&self) -> &super::config::ShellPolicy {
        &self.shell
    }

    /// Whether `policy.json`'s `process_env_allow` names the environment variable `name`
    /// (exactly, or by a prefix ending in `*`).
    pub fn process_env_allowed(&self, name: &str) -> bool {
        self.process_env_allow.iter().any(|entry| match entry.strip_suffix('*') {
            Some(prefix) => !prefix.is_empty() && name.starts_with(prefix),
            None => entry == name,
        })
    }

    /// Whether the temp dir is shared with other programs (one `policy.json` names, or the
    /// system's when no private one was made), rather than this process's private one.
    pub fn temp_dir_is_shared(&self) -> bool {
        self.temp_dir_shared
    }

    /// Whether `path` lies in the temp dir only (no other root, HOME or the workspace holds
    /// it) and that temp dir is shared with other programs ([`Self::temp_dir_is_shared`]).
    pub fn only_in_shared_temp_dir(&self, path: &Path) -> bool {
        self.temp_dir_shared
            && path.starts_with(&self.temp_dir)
            && !path.starts_with(&self.workspace)
            && !self.writable_roots.iter().any(|r| r != &self.temp_dir && path.starts_with(r))
            && !self.home.as_ref().is_some_and(|h| path.starts_with(h))
    }

    /// The HOME-relative patterns of HOME's hidden entries that stay readable (defaults plus
    /// configured).
    pub fn readable_home_entries(&self) -> &[String] {
        &self.readable_home
    }

    /// The configured writable roots (whatever the mode) and the data dir: what another
    /// user's home keeps open where they lie inside it ([`SandboxPolicy::is_other_home_closed`]).
    pub fn home_openings(&self) -> Vec<PathBuf> {
        self.writable_roots.iter().chain(&self.data_dir).cloned().collect()
    }

    /// Writable roots that lie inside one of HOME's hidden entries: readable as a whole.
    pub fn exempt_roots(&self) -> &[PathBuf] {
        &self.exempt_roots
    }

    /// Every credential location (existing or not), for profiles that match by path.
    pub fn credential_paths(&self) -> &[PathBuf] {
        self.credential.paths()
    }

    /// The sensitive name patterns (defaults plus configured).
    pub fn sensitive_names(&self) -> &[String] {
        &self.sensitive
    }

    /// Every real directory or file this policy lets a file tool write below: the mode's
    /// writable roots and the paths of its write grants (what a multi-file commit's journal
    /// records, so recovery writes nowhere else).
    pub fn write_roots(&self) -> Vec<PathBuf> {
        let grants = self.grants.iter().filter(|g| g.access == super::Access::Write);
        self.mode_roots().iter().cloned().chain(grants.map(|g| g.path.clone())).collect()
    }

    /// The writable roots of the session's mode (none in read-only mode), before any grant.
    pub fn mode_roots(&self) -> &[PathBuf] {
        match self.mode {
            SandboxMode::ReadOnly => &[],
            SandboxMode::WorkspaceWrite => &self.writable_roots,
        }
    }
}
