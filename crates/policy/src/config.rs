//! What a deployment configures (`policy.json`: [`PolicyConfig`]) and how a policy is built
//! from it, HOME and the data dir ([`PolicyBuilder`]).

use std::path::{Path, PathBuf};

use super::home::{home_links, home_rest};
use super::paths::{dedup, real_path};
use super::{
    CREDENTIAL_HOME_ENTRIES, NetworkAccess, OTHER_HOME_DIRS, OTHER_HOME_PARENTS,
    READABLE_HOME_ENTRIES, Reach, SENSITIVE_NAMES, SYSTEM_CREDENTIAL_PATHS, SandboxMode,
    SandboxPolicy, Tier,
};

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
    /// More credential locations; relative entries are taken under HOME and under every
    /// other user's home, in the syntax of [`CREDENTIAL_HOME_ENTRIES`] (a `*` component
    /// matches one component).
    pub extra_credential: Vec<PathBuf>,
    /// More of HOME's hidden entries that stay readable (HOME-relative, in the syntax of
    /// [`READABLE_HOME_ENTRIES`], e.g. `".config/mytool"`); every other hidden entry of HOME
    /// is a credential. A [`CREDENTIAL_HOME_ENTRIES`] location stays closed.
    pub readable_home_entries: Vec<String>,
    /// More sensitive names, in the syntax of [`SENSITIVE_NAMES`].
    pub extra_sensitive: Vec<String>,
    /// More hard-protected paths (absolute).
    pub extra_hard_protected: Vec<PathBuf>,
    /// A temp dir of the operator's choosing, writable in workspace-write mode and `TMPDIR`
    /// for every program, instead of the session's private one
    /// ([`PolicyBuilder::private_temp_dir`]). It is taken to be shared with other programs:
    /// the post-call sweep leaves what appears in it alone. `None`: the private one.
    pub temp_dir: Option<PathBuf>,
    /// The session store when neither `--store` nor `TOOLHOST_STORE` names one: `"sqlite"`
    /// or `"postgres://USER@HOST:PORT/DB"` (read by the CLI, not by the policy).
    pub store: Option<String>,
    /// The name of this instance's copy of its workspaces (default: the host name): changes
    /// recorded under another instance's name are not undone or reapplied here.
    pub instance: Option<String>,
    /// Whether bash may use the network (`"deny"`, the default, or `"allow"`).
    pub network: NetworkAccess,
    /// Per-call limits of bash (`{"pids": 1024, "memory_mib": 3072}`).
    pub limits: crate::CgroupLimits,
    /// How many entries bash's protected-entry scan may visit before bash refuses to run;
    /// `None` is [`toolhost_limits::PROTECTED_SCAN_ENTRIES`] (a workspace that is a large HOME
    /// may need more).
    pub scan_entries: Option<usize>,
    /// Environment variables a process-execution component may set for a program it runs,
    /// besides the host's short allow-list: exact names, or a prefix ending in `*`
    /// (`["GOFLAGS", "MYAPP_*"]`). Never `PATH`, `HOME`, loader or start-up-hook variables.
    pub process_env_allow: Vec<String>,
    /// What `workspace_shell` may run (docs/workspace-tools.md#workspace_shell):
    /// `{"allow_shell_string": false, "command_whitelist": []}`.
    pub shell: ShellPolicy,
    /// Whether reads are confined to the workspace plus listed roots
    /// (`{"confine": true, "roots": ["/srv/shared"]}`); off by default: reads are allowed
    /// everywhere but the closed tiers.
    pub reads: ReadsConfig,
    /// Which sandbox tiers bash may run under: `"any"` (the default: bubblewrap, or the
    /// Landlock tier where bubblewrap cannot start) or `"full"` (bubblewrap only: where it
    /// cannot start, bash runs nothing).
    pub sandbox_tier: SandboxTier,
    /// What `tool add oci://…` requires of a registry's components
    /// (`{"keys": {"registry.example.com/acme": "/etc/toolhost/acme.pub"}}`).
    pub registries: RegistriesConfig,
}

/// `policy.json`'s `registries`: the public keys whose cosign signature a component pulled
/// from a registry must carry (docs/cli.md#the-data-dir-policyjson-and-the-environment).
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct RegistriesConfig {
    /// PEM public key files by `HOST[:PORT]` or `HOST[:PORT]/REPOSITORY` prefix: every key
    /// whose prefix covers a reference (whole path segments) must have signed it.
    pub keys: std::collections::BTreeMap<String, PathBuf>,
}

impl RegistriesConfig {
    /// The key files required for `repository` (`HOST[:PORT]/REPOSITORY`).
    pub fn keys_for(&self, repository: &str) -> Vec<PathBuf> {
        self.keys
            .iter()
            .filter(|(prefix, _)| {
                let prefix = prefix.trim_end_matches('/');
                repository == prefix
                    || repository.strip_prefix(prefix).is_some_and(|rest| rest.starts_with('/'))
            })
            .map(|(_, key)| key.clone())
            .collect()
    }
}

/// The sandbox tiers an operator accepts (`policy.json`'s `sandbox_tier`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SandboxTier {
    /// The full tier where it starts, else the Landlock tier.
    #[default]
    Any,
    /// The full tier only.
    Full,
}

/// The operator's confinement of reads (`policy.json`'s `reads`, `--confine-reads`,
/// `--read-root`; docs/security.md#reads-confined-to-roots). Off by default.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ReadsConfig {
    /// Confine reads (file tools and bash) to the workspace, the writable roots, `roots`
    /// and the system directories ([`super::SYSTEM_READ_DIRS`]).
    pub confine: bool,
    /// Directories readable besides the workspace (never writable); listing one confines
    /// reads as `confine` does. An MCP client's roots narrow them for its session.
    pub roots: Vec<PathBuf>,
}

impl ReadsConfig {
    /// Whether reads are confined.
    pub fn confined(&self) -> bool {
        self.confine || !self.roots.is_empty()
    }
}

/// The operator's rules for `workspace_shell` (`policy.json`'s `shell`), handed to the tool
/// with each call and never shown to the model.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Deserialize, serde::Serialize)]
#[serde(default, deny_unknown_fields)]
pub struct ShellPolicy {
    /// Raw shell syntax in `shell_string` (pipes, redirection, variables, …) runs through
    /// `sh -c`; off by default, and ignored while `command_whitelist` is not empty. It decides
    /// only how a shell string is read: a program the model names may itself start a shell
    /// (`env sh -c …`), which the approval question shows whole.
    pub allow_shell_string: bool,
    /// When not empty, the only programs a run may start (as the model names them, and found
    /// on PATH outside every place the run can write), and shell strings with shell syntax
    /// are refused. It does not limit what that program starts in turn (git's aliases, `env`,
    /// `xargs`).
    pub command_whitelist: Vec<String>,
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
    /// `None`: [`OTHER_HOME_PARENTS`] and [`OTHER_HOME_DIRS`].
    other_homes: Option<(Vec<PathBuf>, Vec<PathBuf>)>,
    private_temp_dir: Option<PathBuf>,
    config: PolicyConfig,
}

impl PolicyBuilder {
    /// Other toolhost data dirs (another instance's `--data-dir`), treated exactly like this
    /// one's: their private entries unreadable, nothing in them writable, for every tool and
    /// bash. Only these are (the host's registry lists them); a [`DATA_DIR_MARKER`] file alone
    /// makes no directory a data dir.
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

    /// Where other users' homes are (default [`OTHER_HOME_PARENTS`], whose entries are
    /// homes, and [`OTHER_HOME_DIRS`], homes themselves): a test points them at a fixture.
    pub fn other_homes(
        mut self,
        parents: impl IntoIterator<Item = PathBuf>,
        dirs: impl IntoIterator<Item = PathBuf>,
    ) -> Self {
        self.other_homes = Some((parents.into_iter().collect(), dirs.into_iter().collect()));
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

    /// The session's private temp dir (`toolhost_sandbox::temp_dir::PrivateTempDir::path`,
    /// made by the host, mode 0700): the policy's temp dir — a writable root in
    /// workspace-write mode and `TMPDIR` for every program — unless `policy.json` names one
    /// (`temp_dir`). A policy
    /// built without either has the system temp dir ([`std::env::temp_dir`]), shared with
    /// every program of the machine.
    pub fn private_temp_dir(mut self, dir: impl Into<PathBuf>) -> Self {
        self.private_temp_dir = Some(dir.into());
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
        let (temp_dir, temp_dir_shared) = self.temp_dir();
        let mut roots = vec![workspace.clone()];
        roots.extend(self.config.extra_writable_roots.iter().map(|p| real_path(p)));
        roots.push(temp_dir.clone());
        dedup(&mut roots);
        let (hard, other_data_dirs, private_files) = self.hard_protected();
        let (credential, home_credentials) = self.credentials(home.as_deref());
        let (home_parents, home_dirs) = self.other_home_places();
        let mut sensitive: Vec<String> = SENSITIVE_NAMES.iter().map(|s| s.to_string()).collect();
        sensitive.extend(self.config.extra_sensitive.iter().cloned());
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
            temp_dir_shared,
            network: self.config.network,
            limits: self.config.limits,
            scan_entries: self
                .config
                .scan_entries
                .unwrap_or(toolhost_limits::PROTECTED_SCAN_ENTRIES),
            process_env_allow: self.config.process_env_allow.clone(),
            shell: self.config.shell.clone(),
            hard_protected: hard,
            credential: super::prefixes::PathPrefixes::new(credential),
            sensitive,
            readable_home: self.readable_home(),
            home_credentials,
            home_parents,
            home_dirs,
            exempt_roots,
            home_links,
            other_data_dirs,
            private_files,
            grants: Vec::new(),
            reach: Reach::Everywhere,
            read_roots: self.config.reads.confined().then(|| {
                let mut r: Vec<PathBuf> =
                    self.config.reads.roots.iter().map(|p| real_path(p)).collect();
                dedup(&mut r);
                r
            }),
        }
    }

    /// The temp dir (`policy.json`'s, else the private one, else the system's), and whether
    /// other programs share it (all but the private one).
    fn temp_dir(&self) -> (PathBuf, bool) {
        let shared = self.config.temp_dir.is_some() || self.private_temp_dir.is_none();
        let dir = self
            .config
            .temp_dir
            .clone()
            .or_else(|| self.private_temp_dir.clone())
            .unwrap_or_else(std::env::temp_dir);
        (real_path(&dir), shared)
    }

    /// The hard-protected paths with their tiers (the data dirs and private files, then the
    /// configured ones), and, real and without duplicates, the other data dirs and the
    /// private files.
    fn hard_protected(&self) -> (Vec<(PathBuf, Tier)>, Vec<PathBuf>, Vec<PathBuf>) {
        let mut hard: Vec<(PathBuf, Tier)> = Vec::new();
        let own = self.data_dir.as_deref().map(real_path);
        hard.extend(own.iter().map(|d| (d.clone(), Tier::DataDir)));
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
        (hard, other_data_dirs, private_files)
    }

    /// The credential paths, and the HOME-relative credential entries: all are matched as
    /// patterns (under HOME and every other home); those without a `*` are listed under
    /// `home` by path as well.
    fn credentials(&self, home: Option<&Path>) -> (Vec<PathBuf>, Vec<String>) {
        let mut credential: Vec<PathBuf> =
            SYSTEM_CREDENTIAL_PATHS.iter().map(PathBuf::from).collect();
        let mut home_credentials: Vec<String> =
            CREDENTIAL_HOME_ENTRIES.iter().map(|e| e.to_string()).collect();
        for e in &self.config.extra_credential {
            match e.to_str().map(|t| t.trim_matches('/')) {
                _ if e.is_absolute() => credential.push(real_path(e)),
                Some("") => {}
                Some(text) => home_credentials.push(text.to_string()),
                // Not UTF-8: no pattern, but still closed under HOME by its path.
                None => credential.extend(home.iter().map(|h| h.join(e))),
            }
        }
        if let Some(h) = home {
            credential
                .extend(home_credentials.iter().filter(|e| !e.contains('*')).map(|e| h.join(e)));
        }
        (credential, home_credentials)
    }

    /// Where other users' homes are: the places whose entries are homes, and homes
    /// themselves, real and without duplicates.
    fn other_home_places(&self) -> (Vec<PathBuf>, Vec<PathBuf>) {
        let (parents, dirs) = self.other_homes.clone().unwrap_or_else(|| {
            let list = |l: &[&str]| l.iter().map(PathBuf::from).collect::<Vec<_>>();
            (list(OTHER_HOME_PARENTS), list(OTHER_HOME_DIRS))
        });
        let mut home_parents: Vec<PathBuf> = parents.iter().map(|p| real_path(p)).collect();
        dedup(&mut home_parents);
        let mut home_dirs: Vec<PathBuf> = dirs.iter().map(|p| real_path(p)).collect();
        dedup(&mut home_dirs);
        (home_parents, home_dirs)
    }

    /// HOME's readable entries: the default ones and `policy.json`'s (`~/` and slashes
    /// trimmed).
    fn readable_home(&self) -> Vec<String> {
        let mut readable_home: Vec<String> =
            READABLE_HOME_ENTRIES.iter().map(|s| s.to_string()).collect();
        readable_home.extend(
            self.config
                .readable_home_entries
                .iter()
                .map(|e| e.trim_start_matches("~/").trim_matches('/').to_string())
                .filter(|e| !e.is_empty()),
        );
        readable_home
    }
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
            other_homes: None,
            private_temp_dir: None,
            config: PolicyConfig::default(),
        }
    }
}
