//! A run to approve: the one program a call of a tool that asks before every run will run
//! ([`RunApproval`]: the tool's `toolhost_run_spec::RunSpec` and what the host found out about
//! it, [`RunFacts`]), the bound on its question ([`RunApproval::check_size`]), and the gate
//! that lets exactly that run through, once ([`RunGate`]).

use std::path::{Path, PathBuf};

use toolhost_policy::SandboxPolicy;
use toolhost_run_spec::RunSpec;

use super::package::PackageScripts;
use super::program::ProgramFile;
use crate::display::quoted;

/// The one program a call of a tool that asks before every run will run, as its `inspect`
/// describes it (`runs(<the spec as JSON>)`, docs/workspace-tools.md#approvals), and what the
/// host found out about that run before asking ([`RunFacts`]). The host runs nothing else for
/// that call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunApproval {
    /// The run as the tool described it: program, arguments, directory, variables, timeout,
    /// the model's purpose.
    pub spec: RunSpec,
    /// What the run will actually be: filled in by the host, never by the tool.
    pub facts: RunFacts,
}

impl From<RunSpec> for RunApproval {
    /// A run described by its tool, before the host found anything out about it.
    fn from(spec: RunSpec) -> Self {
        RunApproval { spec, facts: RunFacts::default() }
    }
}

/// What the host established about a run before asking, and holds the run to: the question
/// is built from these, and the approved run executes exactly these (its program file, its
/// directory, its policy, its cache dir).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RunFacts {
    /// The working directory the run starts in (real path).
    pub cwd: PathBuf,
    /// The file that runs; none when no program of that name was found (nothing runs).
    pub program: Option<ProgramFile>,
    /// Why no program file was found, when none was.
    pub not_found: Option<String>,
    /// The policy the run gets: what it may write (every writable root), the network. None:
    /// nothing writable, no network.
    pub policy: Option<SandboxPolicy>,
    /// The session's private cache dir, the run's `XDG_CACHE_HOME` (writable too).
    pub cache: Option<PathBuf>,
    /// The package scripts it runs, when the program is a package manager.
    pub package: Option<PackageScripts>,
}

impl RunFacts {
    /// Every place the run may write: the writable roots of its policy, then its cache dir.
    pub fn writable(&self) -> Vec<PathBuf> {
        let mut roots = self.policy.as_ref().map(SandboxPolicy::writable_roots).unwrap_or_default();
        if let Some(cache) = &self.cache
            && !roots.contains(cache)
        {
            roots.push(cache.clone());
        }
        roots
    }

    /// Whether `path` lies in a place the run may write (so the model may have written it).
    pub fn in_writable(&self, path: &Path) -> bool {
        self.writable().iter().any(|root| path.starts_with(root))
    }
}

/// Why a run is refused before anyone is asked: a part of its question would be longer than
/// an approval shows ([`toolhost_limits::APPROVAL_MAX_COMMAND_CHARS`],
/// [`toolhost_limits::APPROVAL_MAX_FIELD_CHARS`]).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "the {part} of this run is {chars} characters as the approval question would show it; a \
     question shows at most {max}, so that what the user approves fits on their screen. Nobody \
     was asked and nothing ran: make the run shorter (fewer or shorter arguments; a long script \
     goes in a file of the workspace that the run executes)"
)]
pub struct QuestionTooLong {
    /// Which part (`command line`, `working directory`, `environment`, `purpose`).
    pub part: &'static str,
    /// Its length as shown.
    pub chars: usize,
    /// The most shown.
    pub max: usize,
}

impl RunApproval {
    /// The command line as the sandbox runs it: each word as is when it holds only
    /// `[A-Za-z0-9_./=:,+@%-]`, else as a JSON string literal (no shell is involved).
    pub fn command_line(&self) -> String {
        std::iter::once(&self.spec.program)
            .chain(&self.spec.args)
            .map(|w| word(w))
            .collect::<Vec<_>>()
            .join(" ")
    }

    /// The working directory as the question shows it.
    pub(super) fn cwd_shown(&self) -> String {
        if !self.facts.cwd.as_os_str().is_empty() {
            return quoted(&self.facts.cwd.to_string_lossy());
        }
        match &self.spec.cwd {
            Some(dir) => format!("{} in the workspace", quoted(dir)),
            None => "the workspace root".to_string(),
        }
    }

    /// The environment line as the question shows it (empty: none set).
    pub(super) fn env_shown(&self) -> String {
        let vars: Vec<String> =
            self.spec.env.iter().map(|(k, v)| quoted(&format!("{k}={v}"))).collect();
        vars.join(" ")
    }

    /// The model's purpose as the question shows it, if it gave one.
    pub(super) fn purpose_shown(&self) -> Option<String> {
        self.spec.purpose.as_deref().map(str::trim).filter(|p| !p.is_empty()).map(quoted)
    }

    /// Refuses a run whose question would not fit a screen: its command line past
    /// [`toolhost_limits::APPROVAL_MAX_COMMAND_CHARS`], or its working directory,
    /// environment or purpose past [`toolhost_limits::APPROVAL_MAX_FIELD_CHARS`] (as shown).
    /// The run itself is then never made: the host runs only a run equal to the approved one.
    pub fn check_size(&self) -> Result<(), QuestionTooLong> {
        use toolhost_limits::{APPROVAL_MAX_COMMAND_CHARS, APPROVAL_MAX_FIELD_CHARS};
        let parts = [
            ("command line", self.command_line(), APPROVAL_MAX_COMMAND_CHARS),
            ("working directory", self.cwd_shown(), APPROVAL_MAX_FIELD_CHARS),
            ("environment", self.env_shown(), APPROVAL_MAX_FIELD_CHARS),
            ("purpose", self.purpose_shown().unwrap_or_default(), APPROVAL_MAX_FIELD_CHARS),
        ];
        for (part, shown, max) in parts {
            // The purpose is counted without the quotes around it (the tools take 1,000
            // characters of it).
            let quotes = if part == "purpose" { 2 } else { 0 };
            let chars = shown.chars().count().saturating_sub(quotes);
            if chars > max {
                return Err(QuestionTooLong { part, chars, max });
            }
        }
        Ok(())
    }
}

/// One word of a command line as [`RunApproval::command_line`] shows it.
fn word(w: &str) -> String {
    let plain =
        !w.is_empty() && w.chars().all(|c| c.is_ascii_alphanumeric() || "_./=:,+@%-".contains(c));
    if plain { w.to_string() } else { quoted(w) }
}

/// The run a call of a tool that asks before every run may make: the one a person approved,
/// taken by that run; every other run of the call is refused.
#[derive(Debug, Default)]
pub struct RunGate {
    run: std::sync::Mutex<Option<RunApproval>>,
    /// How long the call may last: the approved run's timeout and
    /// [`toolhost_limits::APPROVED_RUN_GRACE_MS`] (zero: the runtime's own bound).
    budget: std::time::Duration,
}

impl RunGate {
    /// A call whose one run `run` was approved.
    pub fn approved(run: RunApproval) -> Self {
        let budget = std::time::Duration::from_millis(
            run.spec.timeout_ms.saturating_add(toolhost_limits::APPROVED_RUN_GRACE_MS),
        );
        RunGate { run: std::sync::Mutex::new(Some(run)), budget }
    }

    /// A call that may run nothing (its `inspect` said it runs nothing).
    pub fn closed() -> Self {
        RunGate::default()
    }

    /// The approved run, if it was not taken yet; later calls get none.
    pub fn take(&self) -> Option<RunApproval> {
        self.run.lock().unwrap_or_else(|e| e.into_inner()).take()
    }

    /// How long the call may last with its approved run (zero when none was approved).
    pub fn budget(&self) -> std::time::Duration {
        self.budget
    }
}
