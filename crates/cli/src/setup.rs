//! What every command works with, built once from the global options: the workspace, the
//! data dir and the one policy ([`Setup`]), bash's sandbox, and the session's finalized
//! toolset ([`Setup::toolset`]: the built-in registry over the component runtime, bound to a
//! session context with the approver the command asks for).

use std::path::PathBuf;
use std::sync::Arc;

use anyhow::{Context, Result};

use toolhost::approval::Approver;
use toolhost::runtime::{Allocation, ComponentRuntime};
use toolhost::{FinalizedToolset, SandboxPolicy, ToolSessionContext, finalize};
use toolhost_sandbox::temp_dir::{PrivateTempDir, remove_stale};

use crate::Cli;

mod store_option;

fn data_dir(cli: &Cli) -> Result<PathBuf> {
    if let Some(dir) = &cli.data_dir {
        return Ok(dir.clone());
    }
    if let Some(dir) = std::env::var_os("TOOLHOST_HOME") {
        return Ok(PathBuf::from(dir));
    }
    let home =
        std::env::var_os("HOME").context("neither --data-dir, TOOLHOST_HOME nor HOME is set")?;
    Ok(PathBuf::from(home).join(".toolhost"))
}

/// The Landlock helper bash's sandbox execs before bash: the small `toolhost-sandbox-exec`
/// next to this binary when it is there (one exec of a 0.7 MB binary instead of this one),
/// else this binary's own hidden `__sandbox-exec` mode.
fn landlock_helper() -> Option<std::path::PathBuf> {
    let exe = std::env::current_exe().ok()?;
    let small = exe.with_file_name("toolhost-sandbox-exec");
    Some(if small.is_file() { small } else { exe })
}

/// The deployment's additions to the policy's tier lists: `<data-dir>/policy.json`, if any.
fn policy_config(data_dir: &std::path::Path) -> Result<toolhost_policy::PolicyConfig> {
    let path = data_dir.join(POLICY_FILE);
    match std::fs::read(&path) {
        Ok(bytes) => serde_json::from_slice(&bytes)
            .with_context(|| format!("{} is not a valid policy config", path.display())),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Default::default()),
        Err(e) => Err(e).with_context(|| format!("cannot read {}", path.display())),
    }
}

// The policy config file inside the data dir (hard-protected: tools cannot change it).
use toolhost_policy::POLICY_FILE;

/// bash's sandbox for this platform ([`toolhost_sandbox::platform_backend`]): on Linux,
/// bubblewrap (`TOOLHOST_BWRAP` or a trusted system one) with the Landlock helper, its passed
/// self-check remembered in `check_cache` when given; Seatbelt on macOS.
fn sandbox_backend(
    check_cache: Option<PathBuf>,
    require_full: bool,
) -> Arc<dyn toolhost_sandbox::SandboxBackend> {
    toolhost_sandbox::platform_backend(toolhost_sandbox::PlatformOptions {
        bwrap: std::env::var_os("TOOLHOST_BWRAP").map(PathBuf::from),
        check_cache,
        landlock_helper: landlock_helper(),
        require_full,
    })
}

pub fn new_session_id() -> String {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or(0);
    format!("s{nanos:x}-{}", std::process::id())
}

/// What every entry point works with, built once from the options: the workspace, the data
/// dir, the session's private temp dir, and the one policy (mode, HOME, the data dir, the temp
/// dir, `policy.json`) that `call`, `session`, `mcp`, `undo`, `reapply`, `changes` and `doctor`
/// all use.
#[derive(Clone)]
pub struct Setup {
    pub workspace: PathBuf,
    pub data_dir: PathBuf,
    pub policy: SandboxPolicy,
    /// Where the session store is (`--store`, `TOOLHOST_STORE`, policy.json's `"store"`).
    pub store: toolhost::store::StoreLocation,
    /// The identity of the workspace copy this instance serves (`INSTANCE:WORKSPACE`).
    pub workspace_id: String,
    /// `policy.json` requires the full sandbox tier (`"sandbox_tier": "full"`).
    pub require_full_tier: bool,
    /// `policy.json`'s `registries`: the keys `tool add oci://…` requires.
    pub registries: toolhost_policy::RegistriesConfig,
    /// The private temp dir the policy's temp dir is (none when `policy.json` names one),
    /// removed with everything in it when the last clone of the setup is dropped: `main`
    /// drops it after the async runtime, once no task and no sandboxed program is left.
    pub _temp_dir: Option<Arc<PrivateTempDir>>,
}

/// A mistake in how toolhost was started (exit code 2, `commands::EXIT_USAGE`), as opposed to
/// a failure while running.
#[derive(Debug, thiserror::Error)]
pub enum UsageError {
    /// `--workspace` names nothing, or something that is not a directory.
    #[error("--workspace {path}: {why}")]
    Workspace { path: String, why: String },
    /// No `--workspace` and the current directory is shared by the whole machine.
    #[error(
        "no --workspace was given and the current directory, {cwd}, is a directory shared by the whole machine (/, HOME, the temp dir, …); toolhost would let the model write anywhere in it. Pass --workspace DIR (the project the agent works on), or start toolhost from that project's directory"
    )]
    SharedWorkspace { cwd: String },
    /// `--read-root` names nothing, or something that is not a directory.
    #[error("--read-root {path}: {why}")]
    ReadRoot { path: String, why: String },
    /// The session store named is not understood, or cannot be reached.
    #[error("{0}")]
    Store(String),
    /// `--tools` names an id that is no tool here.
    #[error("--tools names `{id}`, which is not a tool here; the tools are: {known}")]
    UnknownTool { id: String, known: String },
}

/// What every command works with, from the command line and policy.json (docs/cli.md).
pub fn setup(cli: &Cli) -> Result<Setup> {
    let workspace = workspace(cli)?;
    if cli.workspace.is_none() && cli.runs_tools() {
        refuse_shared_workspace(&workspace)?;
    }
    let data_dir = data_dir(cli)?;
    // The data dir must exist before the policy is built: bash's sandbox pins and hides it.
    create_private_dir(&data_dir)?;
    let home = std::env::var_os("HOME").filter(|h| !h.is_empty()).map(PathBuf::from);
    refuse_shared_data_dir(&data_dir, home.as_deref())?;
    mark_data_dir(&data_dir)?;
    // A multi-file change a dead process left half-written is put back before anything else
    // (docs/sessions.md#crashes).
    for recovered in toolhost::changeset::recover(&data_dir) {
        eprintln!("toolhost: {}", toolhost::display::terminal_text(&recovered.to_string()));
    }
    let others = match &home {
        Some(h) => register_data_dir(&h.join(".toolhost").join(DATA_DIR_REGISTRY), &data_dir),
        None => Vec::new(),
    };
    let mut config = policy_config(&data_dir)?;
    add_read_options(&mut config, cli)?;
    // The session's own temp dir, unless policy.json names one (docs/security.md#the-temp-dir);
    // those that ended processes left behind go first.
    let temp_dir = match &config.temp_dir {
        Some(_) => None,
        None => {
            remove_stale(&std::env::temp_dir());
            Some(Arc::new(PrivateTempDir::create()?))
        }
    };
    let require_full_tier = config.sandbox_tier == toolhost_policy::SandboxTier::Full;
    let registries = config.registries.clone();
    let store = store_option::location(cli.store.as_deref(), config.store.as_deref(), &data_dir)?;
    let workspace_id = store_option::workspace_id(config.instance.as_deref(), &workspace);
    let mut builder = SandboxPolicy::builder(cli.mode, &workspace)
        .data_dir(&data_dir)
        .other_data_dirs(others)
        .config(config);
    if let Some(temp) = &temp_dir {
        builder = builder.private_temp_dir(temp.path());
    }
    if let Some(home) = home {
        builder = builder.home(home);
    }
    // The bearer token that guards `mcp --listen` is private data wherever its file is.
    if let crate::Command::Mcp { token_file: Some(file), .. } = &cli.command {
        builder = builder.private_file(file);
    }
    Ok(Setup {
        workspace,
        data_dir,
        policy: builder.build(),
        store,
        workspace_id,
        require_full_tier,
        registries,
        _temp_dir: temp_dir,
    })
}

/// The workspace: `--workspace` (an existing directory), else the current directory, real.
fn workspace(cli: &Cli) -> Result<PathBuf> {
    Ok(match &cli.workspace {
        Some(w) => {
            let bad = |why: String| UsageError::Workspace { path: w.display().to_string(), why };
            let real = w.canonicalize().map_err(|e| bad(format!("not accessible ({e})")))?;
            if !real.is_dir() {
                return Err(bad("not a directory".into()).into());
            }
            real
        }
        None => std::env::current_dir()
            .context("cannot read the current directory")?
            .canonicalize()
            .context("cannot resolve the current directory")?,
    })
}

/// `--confine-reads` and `--read-root` (each an existing directory) add to policy.json's
/// `reads`.
fn add_read_options(config: &mut toolhost_policy::PolicyConfig, cli: &Cli) -> Result<()> {
    config.reads.confine |= cli.confine_reads;
    for root in &cli.read_roots {
        let bad = |why: String| UsageError::ReadRoot { path: root.display().to_string(), why };
        let real = root.canonicalize().map_err(|e| bad(format!("not accessible ({e})")))?;
        if !real.is_dir() {
            return Err(bad("not a directory".into()).into());
        }
        config.reads.roots.push(real);
    }
    Ok(())
}

/// Directories shared by every program and user on the machine. A command that runs tools
/// does not take one for its workspace just because it was started there (many MCP clients
/// start their servers from `/` or HOME): the model could then write anywhere in it. An
/// explicit `--workspace` still may name one.
const SHARED_DIRS: &[&str] = &[
    "/",
    "/home",
    "/Users",
    "/root",
    "/tmp",
    "/var/tmp",
    "/private/tmp",
    "/usr",
    "/etc",
    "/var",
    "/opt",
    "/srv",
];

/// Refuse the current directory as an implicit workspace when it is `/`, HOME, the temp dir
/// or another of the [`SHARED_DIRS`].
fn refuse_shared_workspace(cwd: &std::path::Path) -> Result<()> {
    let real = |p: &std::path::Path| p.canonicalize().unwrap_or_else(|_| p.to_path_buf());
    let home = std::env::var_os("HOME").filter(|h| !h.is_empty()).map(|h| real(h.as_ref()));
    let shared = SHARED_DIRS
        .iter()
        .map(|d| real(std::path::Path::new(d)))
        .chain(home)
        .chain(std::iter::once(real(&std::env::temp_dir())))
        .any(|d| d == cwd);
    if shared {
        return Err(UsageError::SharedWorkspace { cwd: cwd.display().to_string() }.into());
    }
    Ok(())
}

/// Every data dir this user's toolhosts opened, one absolute path a line: `~/.toolhost/data-dirs`
/// (private data of `~/.toolhost` when that is a data dir, one of HOME's hidden entries
/// otherwise). Each instance's policy treats the marked ones as data dirs, so bash cannot
/// read another session's store or token even outside its writable roots.
const DATA_DIR_REGISTRY: &str = "data-dirs";

/// A data dir is marked, and every toolhost then keeps tools and bash from writing in it: it
/// must be a directory of its own, not `/`, HOME or the system temp dir.
fn refuse_shared_data_dir(dir: &std::path::Path, home: Option<&std::path::Path>) -> Result<()> {
    let real = |p: &std::path::Path| p.canonicalize().unwrap_or_else(|_| p.to_path_buf());
    let dir = real(dir);
    let shared = [Some(PathBuf::from("/")), home.map(real), Some(real(&std::env::temp_dir()))];
    if shared.iter().flatten().any(|s| *s == dir) {
        anyhow::bail!(
            "the data dir {} is a directory other programs share (/, HOME or the temp dir); every toolhost keeps its tools and bash from writing in a data dir, so give it one of its own (--data-dir or TOOLHOST_HOME, e.g. {}/toolhost)",
            dir.display(),
            dir.display()
        );
    }
    Ok(())
}

/// Put [`toolhost_policy::DATA_DIR_MARKER`] in the data dir: every toolhost's fence
/// and sandbox then know it for one.
fn mark_data_dir(dir: &std::path::Path) -> Result<()> {
    let marker = dir.join(toolhost_policy::DATA_DIR_MARKER);
    if toolhost_policy::is_marked_data_dir(dir) {
        return Ok(());
    }
    std::fs::write(&marker, "This directory is a toolhost data dir: no toolhost tool or bash reads its private entries or writes in it.\n")
        .with_context(|| format!("cannot mark the data dir {}", marker.display()))
}

/// Add `data_dir` to the registry at `registry` (under an exclusive `flock`, dropping entries
/// no longer marked) and return the other marked data dirs it lists. Best effort: a data dir a
/// registry that cannot be read or written does not name is not known to other instances (a
/// marker alone never makes a directory a data dir: a repository could ship one).
fn register_data_dir(registry: &std::path::Path, data_dir: &std::path::Path) -> Vec<PathBuf> {
    use std::io::{Read, Seek, Write};
    use std::os::unix::fs::OpenOptionsExt;
    use std::os::unix::io::AsRawFd;
    let own = data_dir.canonicalize().unwrap_or_else(|_| data_dir.to_path_buf());
    if let Some(parent) = registry.parent()
        && create_private_dir(parent).is_err()
    {
        return Vec::new();
    }
    let Ok(mut file) = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .mode(0o600)
        .custom_flags(libc::O_NOFOLLOW)
        .open(registry)
    else {
        return Vec::new();
    };
    // SAFETY: flock on a descriptor this function owns; released when it closes.
    if unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX) } != 0 {
        return Vec::new();
    }
    let mut text = String::new();
    if (&mut file)
        .take(toolhost_limits::MAX_DATA_DIR_REGISTRY_BYTES as u64)
        .read_to_string(&mut text)
        .is_err()
    {
        return Vec::new();
    }
    let listed: Vec<PathBuf> =
        text.lines().filter(|l| l.starts_with('/')).map(PathBuf::from).collect();
    let mut alive: Vec<PathBuf> = Vec::new();
    for d in listed {
        if !alive.contains(&d) && toolhost_policy::is_marked_data_dir(&d) {
            alive.push(d);
        }
    }
    let others: Vec<PathBuf> = alive.iter().filter(|d| **d != own).cloned().collect();
    let mut kept = alive.clone();
    if !kept.contains(&own) {
        kept.push(own);
    }
    let new_text: String = kept
        .iter()
        .filter_map(|d| d.to_str())
        .filter(|d| !d.contains('\n'))
        .map(|d| format!("{d}\n"))
        .collect();
    if new_text != text && new_text.len() <= toolhost_limits::MAX_DATA_DIR_REGISTRY_BYTES {
        let _ = file
            .set_len(0)
            .and_then(|()| file.rewind())
            .and_then(|()| file.write_all(new_text.as_bytes()));
    }
    others
}

/// Create the data dir (mode 0700: it holds every call's arguments and results) if missing.
fn create_private_dir(dir: &std::path::Path) -> Result<()> {
    use std::os::unix::fs::DirBuilderExt;
    match std::fs::DirBuilder::new().recursive(true).mode(0o700).create(dir) {
        Ok(()) => Ok(()),
        Err(e) => Err(e).with_context(|| format!("cannot create the data dir {}", dir.display())),
    }
}

impl Setup {
    /// bash's sandbox for this platform ([`sandbox_backend`]); unless `check_afresh`
    /// (doctor), its passed self-check is remembered under the data dir.
    pub fn sandbox(&self, check_afresh: bool) -> Arc<dyn toolhost_sandbox::SandboxBackend> {
        sandbox_backend(
            (!check_afresh).then(|| self.data_dir.join("cache").join("sandbox-check")),
            self.require_full_tier,
        )
    }

    /// The finalized toolset of `--agent` (or `--tools`) for a session over `--workspace`: expired spill
    /// files swept, the session context with bash's sandbox, `--allow-escalation`'s approver
    /// or else `approver` (none: escalations are refused), the component runtime with
    /// `allocation` (one-call commands allocate on demand; the pooling allocator's set-up and
    /// tear-down cost more than the one call), and the built-in registry.
    pub async fn toolset(
        &self,
        cli: &Cli,
        approver: Option<Arc<dyn Approver>>,
        allocation: Allocation,
    ) -> Result<FinalizedToolset> {
        let session = self.session_context(cli, approver);
        let runtime = self.runtime(allocation)?;
        self.toolset_on(&cli.selection(), &cli.extra_tools, session, &runtime).await
    }

    /// The session context of `--session` (or a new id) over `--workspace`, with bash's
    /// sandbox and the approver (see [`Setup::toolset`]); expired spill files are swept.
    pub fn session_context(
        &self,
        cli: &Cli,
        approver: Option<Arc<dyn Approver>>,
    ) -> ToolSessionContext {
        toolhost::spill::remove_expired(&self.data_dir);
        let session_id = cli.session.clone().unwrap_or_else(new_session_id);
        let mut session = ToolSessionContext::local(
            &self.workspace,
            &self.data_dir,
            session_id,
            self.sandbox(false),
        );
        session = session.with_reads_note(self.policy.reads_note());
        if cli.allow_escalation {
            session = session.with_approver(Arc::new(toolhost::approval::AllowApprovals));
        } else if let Some(approver) = approver {
            session = session.with_approver(approver);
        }
        session
    }

    /// `selection`'s toolset for `session` over `runtime`: the built-ins (with the workspace
    /// tools it names), the installed tools as they are now, then `extra_tools` (`--tool`).
    /// Built again whenever the installed set changes under a running server.
    pub async fn toolset_on(
        &self,
        selection: &toolhost::Selection,
        extra_tools: &[PathBuf],
        session: ToolSessionContext,
        runtime: &Arc<ComponentRuntime>,
    ) -> Result<FinalizedToolset> {
        let on_demand = selection.on_demand_tools();
        if std::io::IsTerminal::is_terminal(&std::io::stderr()) {
            let pending = toolhost::builtins::uncompiled_bytes(runtime, &on_demand);
            if pending > 0 {
                eprintln!(
                    "toolhost: compiling the built-in tools for this machine, once (about {} s; later starts reuse {})…",
                    toolhost_runtime::compile_estimate(pending).as_secs(),
                    toolhost::display::terminal_text(
                        &self.components_cache().display().to_string()
                    )
                );
            }
        }
        let mut registry =
            toolhost::builtin_registry(runtime, &on_demand, selection.bash_shape()).await?;
        let extra = self.register_third_party(extra_tools, runtime, &mut registry).await?;
        let registry = registry.build();
        if let toolhost::Selection::Tools(ids) = selection {
            let mut known: Vec<String> =
                registry.ids().iter().map(|id| id.as_str().to_owned()).collect();
            let on_demand = toolhost::builtins::ON_DEMAND_FILE_TOOLS;
            for id in toolhost::builtins::WORKSPACE_TOOLSET.iter().chain(on_demand) {
                if !known.iter().any(|k| k == id) {
                    known.push((*id).to_owned());
                }
            }
            if let Some(unknown) = ids.iter().find(|id| !known.contains(id)) {
                return Err(UsageError::UnknownTool {
                    id: toolhost::display::terminal_line(unknown).to_string(),
                    known: known.join(", "),
                }
                .into());
            }
        }
        Ok(finalize(&registry, &selection.toolset_with(&extra), session)?)
    }

    /// Where compiled components are cached: inside the data dir.
    pub fn components_cache(&self) -> PathBuf {
        self.data_dir.join("cache").join("components")
    }

    /// The component runtime, caching compilations under the data dir. On a terminal, a
    /// compilation of a component other than the built-ins (told of together, in
    /// [`Setup::toolset_on`]) gets a line on stderr first: what, and about how long.
    pub fn runtime(&self, allocation: Allocation) -> Result<Arc<ComponentRuntime>> {
        let runtime = ComponentRuntime::with_allocation(Some(self.components_cache()), allocation)?;
        if std::io::IsTerminal::is_terminal(&std::io::stderr()) {
            runtime.on_compile(Box::new(|what, bytes| {
                if what.starts_with("<embedded>") {
                    return;
                }
                eprintln!("toolhost: {}…", toolhost_runtime::engine::compiling_text(what, bytes));
            }));
        }
        Ok(runtime)
    }

    /// The installed set of this data dir.
    pub fn installed_set(&self) -> toolhost_plugins::InstalledSet {
        toolhost_plugins::InstalledSet::new(&self.data_dir)
    }

    /// Register the installed tools (in install order; one whose bytes no longer match its
    /// pin is skipped, and stderr says why), then the `--tool` ones. Returns their ids with
    /// the risk each is granted, for the agent's toolset.
    async fn register_third_party(
        &self,
        extra_tools: &[PathBuf],
        runtime: &Arc<ComponentRuntime>,
        registry: &mut toolhost::registry::ToolRegistryBuilder,
    ) -> Result<Vec<(String, toolhost::ToolRisk)>> {
        let builtin = toolhost::builtins::DEFAULT_TOOLSET;
        let mut extra = Vec::new();
        for installed in
            toolhost_plugins::load_installed(runtime, &self.installed_set(), builtin).await?
        {
            match installed {
                toolhost_plugins::Installed::Loaded(record, tool) => {
                    extra.push((record.id, record.risk));
                    registry.register_dyn(Arc::new(*tool));
                }
                toolhost_plugins::Installed::Skipped(record, why) => {
                    let text = format!("toolhost: tool `{}` is not loaded: {why}", record.id);
                    tracing::warn!("{text}");
                    eprintln!("{}", toolhost::display::terminal_text(&text));
                }
            }
        }
        let taken: Vec<String> = extra.iter().map(|(id, _)| id.clone()).collect();
        for tool in
            toolhost_plugins::load_uninstalled(runtime, extra_tools, builtin, &taken).await?
        {
            extra.push((tool.grant().tool.clone(), tool.grant().risk));
            registry.register_dyn(Arc::new(tool));
        }
        Ok(extra)
    }
}
