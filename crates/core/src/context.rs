//! The two contexts a call runs with (`docs/contract.md#layers`): [`ToolSessionContext`], bound when a
//! toolset is finalized and shared by every call of a session, and [`ToolCallContext`],
//! made fresh for each call.

use std::collections::{BTreeMap, HashMap};
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;
use toolhost_policy::SandboxPolicy;

use crate::observations::FileObservations;

/// The environment variables a session takes from the host process (`docs/contract.md#layers`).
/// `TMPDIR` is not one of them: a program gets the call's temp dir
/// ([`ToolSessionContext::process_environment`]).
pub const INHERITED_ENVIRONMENT: [&str; 5] = ["PATH", "HOME", "SHELL", "LANG", "LC_ALL"];

/// Capacity of a call's progress channel (`docs/contract.md#progress`); defined with the other limits.
pub use toolhost_limits::PROGRESS_CHANNEL_CAPACITY;

/// What a session's calls share: where they work and the state that outlives one call (`docs/contract.md#layers`).
///
/// It holds no sandbox mode, cancellation token or call id: those travel with each call.
#[derive(Clone)]
pub struct ToolSessionContext {
    /// The workspace root, canonical; relative paths are resolved against it.
    pub working_directory: PathBuf,
    /// The environment taken from the host process for the programs a call starts (only
    /// [`INHERITED_ENVIRONMENT`] plus additions); they get it through
    /// [`ToolSessionContext::process_environment`].
    pub environment: Arc<HashMap<String, String>>,
    /// The toolhost data dir (spill files, component cache, session store).
    pub data_dir: PathBuf,
    /// This session's id (used for spill paths).
    pub session_id: String,
    /// Read-before-edit table: real path → SHA-256 the model last saw (`docs/contract.md#read-before-edit`).
    pub observations: FileObservations,
    /// How long grep and glob scan before reporting "at least" (None: `SCAN_TIMEOUT_MS`, 30 s).
    /// Tests shorten it to run a real timed-out scan.
    pub scan_timeout: Option<std::time::Duration>,
    /// The OS sandbox bash runs in (it wraps argv; it never starts processes).
    pub sandbox: Arc<dyn toolhost_sandbox::SandboxBackend>,
    /// Starts processes (bash) and terminates them.
    pub process_backend: Arc<dyn toolhost_sandbox::process::ProcessBackend>,
    /// Decides escalations (`sandboxPermissions`); refuses them unless told otherwise.
    pub approver: Arc<dyn crate::approval::Approver>,
    /// One async write lock per real path, shared by write and edit (`docs/contract.md#edit`).
    pub(crate) write_locks: WriteLocks,
    /// The private cache dir of this session's approved runs, removed when the session (its
    /// last clone) ends.
    pub run_cache: crate::approval::RunCache,
    /// When the operator confined reads: what is readable, said at the end of the read,
    /// grep, glob, list and bash descriptions (`SandboxPolicy::reads_note`;
    /// [`crate::registry::READS_NOTED_TOOLS`]). `None`: the descriptions are as written.
    pub reads_note: Option<String>,
}

/// The per-real-path async write locks of a session.
#[derive(Debug, Clone, Default)]
pub struct WriteLocks {
    inner: Arc<std::sync::Mutex<HashMap<PathBuf, Arc<tokio::sync::Mutex<()>>>>>,
}

impl WriteLocks {
    /// Wait for and take the write lock of `real_path`.
    pub async fn lock(&self, real_path: &Path) -> tokio::sync::OwnedMutexGuard<()> {
        let lock = {
            let mut map = self.inner.lock().unwrap_or_else(|e| e.into_inner());
            map.entry(real_path.to_path_buf()).or_default().clone()
        };
        lock.lock_owned().await
    }
}

impl ToolSessionContext {
    /// The session's per-real-path write locks: whoever publishes a write (the runtime's
    /// drafts, undo) holds the path's lock from reading what is there to the rename.
    pub fn write_locks(&self) -> &WriteLocks {
        &self.write_locks
    }

    /// A session over `working_directory` (made canonical here, once), with the five
    /// variables of `docs/contract.md#layers` taken from this process's environment, running
    /// bash in `sandbox`: the caller's choice (`toolhost_sandbox::platform_backend` wherever
    /// tools run for a user; `toolhost_sandbox::NoSandbox` where no command ever runs).
    pub fn local(
        working_directory: impl Into<PathBuf>,
        data_dir: impl Into<PathBuf>,
        session_id: impl Into<String>,
        sandbox: Arc<dyn toolhost_sandbox::SandboxBackend>,
    ) -> Self {
        let environment = INHERITED_ENVIRONMENT
            .iter()
            .filter_map(|k| std::env::var(k).ok().map(|v| (k.to_string(), v)))
            .collect();
        let working_directory: PathBuf = working_directory.into();
        let working_directory = working_directory.canonicalize().unwrap_or(working_directory);
        ToolSessionContext {
            working_directory,
            environment: Arc::new(environment),
            data_dir: data_dir.into(),
            session_id: session_id.into(),
            observations: FileObservations::default(),
            scan_timeout: None,
            sandbox,
            process_backend: Arc::new(toolhost_sandbox::process::TokioProcessBackend::new()),
            approver: Arc::new(crate::approval::DenyApprovals),
            write_locks: WriteLocks::default(),
            run_cache: crate::approval::RunCache::default(),
            reads_note: None,
        }
    }

    /// End the read, grep, glob, list and bash descriptions with `note` (what is readable
    /// when the operator confined reads; `None` leaves them as written).
    pub fn with_reads_note(mut self, note: Option<String>) -> Self {
        self.reads_note = note;
        self
    }

    /// Run bash in `sandbox`.
    pub fn with_sandbox(mut self, sandbox: Arc<dyn toolhost_sandbox::SandboxBackend>) -> Self {
        self.sandbox = sandbox;
        self
    }

    /// Decide escalations with `approver`.
    pub fn with_approver(mut self, approver: Arc<dyn crate::approval::Approver>) -> Self {
        self.approver = approver;
        self
    }

    /// True when the OS sandbox works here (bash runs; escalation parameters are offered).
    pub fn sandbox_available(&self) -> bool {
        self.sandbox.available().is_available()
    }

    /// The workspace root.
    pub fn workspace(&self) -> &Path {
        &self.working_directory
    }

    /// The whole environment of a program a call under `policy` starts (bash, a component's
    /// `process.run`): the session's [`environment`](Self::environment), and `TMPDIR` = the
    /// policy's temp dir — the session's private one, which the file tools see at the same
    /// real path (docs/security.md#the-temp-dir) — whatever the host process had.
    pub fn process_environment(&self, policy: &SandboxPolicy) -> BTreeMap<String, String> {
        let mut env: BTreeMap<String, String> =
            self.environment.iter().map(|(k, v)| (k.clone(), v.clone())).collect();
        env.insert("TMPDIR".into(), policy.temp_dir().to_string_lossy().into_owned());
        env
    }
}

impl fmt::Debug for ToolSessionContext {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ToolSessionContext")
            .field("working_directory", &self.working_directory)
            .field("session_id", &self.session_id)
            .finish_non_exhaustive()
    }
}

/// The id of one tool call; also the change id of a file change it makes.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ToolCallId(pub String);

impl fmt::Display for ToolCallId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// Progress a running call reports (`docs/contract.md#progress`).
#[derive(Debug, Clone, PartialEq)]
pub enum ToolProgress {
    Stdout {
        chunk: String,
    },
    Stderr {
        chunk: String,
    },
    /// A tool's own message, with the fraction of the work done (0.0–1.0) when it knows it.
    Message {
        message: String,
        fraction: Option<f64>,
    },
}

/// One call's context (`docs/contract.md#layers`): id, cancellation, deadline, this call's sandbox policy, progress.
#[derive(Debug, Clone)]
pub struct ToolCallContext {
    pub call_id: ToolCallId,
    pub cancel: CancellationToken,
    pub deadline: Option<Instant>,
    pub sandbox_policy: SandboxPolicy,
    progress: Option<mpsc::Sender<ToolProgress>>,
    /// For a tool that asks before every run: the one run a person approved (taken by the
    /// run), or none approved; `None` for every other tool (docs/workspace-tools.md#approvals).
    pub run_gate: Option<Arc<crate::approval::RunGate>>,
    /// Where the changes this call writes are recorded before they are written (None: the
    /// session records nothing, so nothing is recorded first either).
    pub write_ahead: Option<crate::write_ahead::WriteAhead>,
}

impl ToolCallContext {
    /// A call with no deadline and no progress consumer.
    pub fn new(call_id: impl Into<String>, sandbox_policy: SandboxPolicy) -> Self {
        ToolCallContext {
            call_id: ToolCallId(call_id.into()),
            cancel: CancellationToken::new(),
            deadline: None,
            sandbox_policy,
            progress: None,
            run_gate: None,
            write_ahead: None,
        }
    }

    /// Send progress to `sender` (create it with [`PROGRESS_CHANNEL_CAPACITY`]).
    pub fn with_progress(mut self, sender: mpsc::Sender<ToolProgress>) -> Self {
        self.progress = Some(sender);
        self
    }

    /// Cancel this call when `token` is cancelled (a child of the turn's token).
    pub fn with_cancel(mut self, token: CancellationToken) -> Self {
        self.cancel = token;
        self
    }

    /// Record this call's file changes in `record` before they are written.
    pub fn with_write_ahead(mut self, record: crate::write_ahead::WriteAhead) -> Self {
        self.write_ahead = Some(record);
        self
    }

    /// Record `changes` as pending before they are written; the error message to refuse
    /// the write with when they cannot be (about the file `display`).
    pub fn before_write(
        &self,
        changes: &[crate::result::FileChange],
        display: &str,
    ) -> Result<(), String> {
        match &self.write_ahead {
            None => Ok(()),
            Some(w) => {
                w.0.before_write(changes)
                    .map_err(|reason| crate::write_ahead::not_recorded_message(display, &reason))
            }
        }
    }

    /// Stop the call at `deadline`.
    pub fn with_deadline(mut self, deadline: Instant) -> Self {
        self.deadline = Some(deadline);
        self
    }

    /// Report progress with `try_send`: a full or closed channel drops it and changes
    /// nothing else (`docs/contract.md#progress`).
    pub fn report_progress(&self, progress: ToolProgress) {
        if let Some(sender) = &self.progress {
            let _ = sender.try_send(progress);
        }
    }
}

/// A temp workspace with a local session (no sandbox; the data dir `.data` inside it) and a
/// workspace-write policy over it: the fixture core's unit tests of undo and of how changes
/// stand on disk share.
#[cfg(test)]
pub(crate) fn temp_workspace() -> (tempfile::TempDir, ToolSessionContext, SandboxPolicy) {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    let session = ToolSessionContext::local(
        &root,
        root.join(".data"),
        "s",
        Arc::new(toolhost_sandbox::NoSandbox),
    );
    let policy = SandboxPolicy::workspace_write(&root);
    (dir, session, policy)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn disconnected_progress_consumer_does_not_fail_the_call() {
        let (tx, rx) = mpsc::channel(1);
        drop(rx);
        let call =
            ToolCallContext::new("c1", SandboxPolicy::workspace_write("/w")).with_progress(tx);
        call.report_progress(ToolProgress::Message { message: "x".into(), fraction: None });
        // a full channel drops too
        let (tx, _rx) = mpsc::channel(1);
        let call = call.with_progress(tx);
        for _ in 0..3 {
            call.report_progress(ToolProgress::Message { message: "y".into(), fraction: None });
        }
    }

    #[test]
    fn local_takes_only_the_five_variables_and_programs_get_the_policys_temp_dir() {
        let s = ToolSessionContext::local("/w", "/d", "s", Arc::new(toolhost_sandbox::NoSandbox));
        for k in s.environment.keys() {
            assert!(INHERITED_ENVIRONMENT.contains(&k.as_str()), "{k}");
        }
        let tmp = tempfile::tempdir().unwrap();
        let policy = SandboxPolicy::builder(toolhost_policy::SandboxMode::WorkspaceWrite, "/w")
            .private_temp_dir(tmp.path())
            .build();
        let env = s.process_environment(&policy);
        assert_eq!(env.get("TMPDIR").map(String::as_str), policy.temp_dir().to_str());
        assert_eq!(policy.temp_dir(), tmp.path().canonicalize().unwrap());
    }
}
