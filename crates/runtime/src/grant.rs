//! What one component may do: the risk the user granted it, and what it was refused or ran
//! under that grant, noted for conformance.

use std::sync::Arc;

use toolhost_core::tool::ToolRisk;

/// What one component may do, from the risk the user granted it (at `tool add`, or its
/// declared risk for a built-in or a `--tool`): a read-only grant gets `open-file`, `stat`,
/// `open-dir` and `process.run` in a read-only sandbox; `open-for-write` needs
/// workspace-mutation or more, and a program that may write (under the call's policy) needs
/// process-execution.
#[derive(Debug, Clone)]
pub struct RiskGrant {
    /// The tool's id, named in refusals.
    pub tool: String,
    /// The granted risk.
    pub risk: ToolRisk,
    /// Every capability refused for lack of a grant, as `open-for-write(PATH)` or
    /// `process.run(PROGRAM)`, shared by the
    /// clones of this grant (conformance reports them).
    refusals: Noted,
    /// Every program run through `process.run`, as `program args…`, shared the same way
    /// (conformance compares them with what `inspect` said).
    runs: Noted,
    /// Every path it hands the host (and a program's working directory) must stay inside the
    /// workspace ([`toolhost_core::fence::resolve_in_workspace`]): the built-in workspace
    /// tools. Other components read what the policy allows.
    pub within_workspace: bool,
    /// It may edit a file the session did not read (read-before-edit is not asked of it): a
    /// tool of a toolset whose reads go through a shell, whose edits prove what they saw by
    /// context that must match (OpenAI's `apply_patch`). A file that changes between the
    /// draft's `current` and its commit is still refused.
    pub edits_unread: bool,
}

/// What a [`RiskGrant`] notes for whoever reads it (conformance), shared by its clones: at most
/// [`MAX_NOTED_REFUSALS`] entries until taken, so a long session of a tool that keeps trying
/// does not grow it without bound.
#[derive(Debug, Clone, Default)]
struct Noted(Arc<std::sync::Mutex<Vec<String>>>);

impl Noted {
    fn push(&self, entry: String) {
        let mut entries = self.0.lock().unwrap_or_else(|e| e.into_inner());
        if entries.len() < MAX_NOTED_REFUSALS {
            entries.push(entry);
        }
    }

    fn take(&self) -> Vec<String> {
        std::mem::take(&mut *self.0.lock().unwrap_or_else(|e| e.into_inner()))
    }
}

/// How many refused capabilities (and programs run) a [`RiskGrant`] keeps until they are taken.
const MAX_NOTED_REFUSALS: usize = 64;

impl RiskGrant {
    /// `tool` held to `risk`.
    pub fn new(tool: impl Into<String>, risk: ToolRisk) -> Self {
        RiskGrant {
            tool: tool.into(),
            risk,
            refusals: Noted::default(),
            runs: Noted::default(),
            within_workspace: false,
            edits_unread: false,
        }
    }

    /// `input` through the fence this grant is held to: the workspace tools' stricter one
    /// ([`RiskGrant::within_workspace`]), else the policy's.
    pub fn resolve(
        &self,
        session: &toolhost_core::context::ToolSessionContext,
        input: &str,
        access: toolhost_policy::Access,
        intent: toolhost_core::fence::Intent,
        policy: &toolhost_policy::SandboxPolicy,
    ) -> Result<toolhost_core::fence::CheckedPath, toolhost_core::fence::FenceError> {
        use toolhost_core::fence::{resolve_in_workspace, resolve_path};
        if self.within_workspace {
            resolve_in_workspace(session, input, access, intent, policy)
        } else {
            resolve_path(session, input, access, intent, policy)
        }
    }

    /// The capabilities refused since the last call of this, oldest first.
    pub fn take_refusals(&self) -> Vec<String> {
        self.refusals.take()
    }

    /// The programs run since the last call of this, oldest first.
    pub fn take_runs(&self) -> Vec<String> {
        self.runs.take()
    }

    /// Note a program about to run.
    pub(crate) fn note_run(&self, command: String) {
        self.runs.push(command);
    }

    /// Why this grant refuses `open-for-write` of `path`, as the model-facing text (and
    /// noted); `None` if it allows it.
    pub fn refuses_writes(&self, path: &str) -> Option<String> {
        (self.risk == ToolRisk::ReadOnly).then(|| {
            self.refusals.push(format!("open-for-write({path:?})"));
            format!(
                "the tool `{}` is granted read-only, so it cannot write files; a tool that writes must be installed as workspace-mutation",
                self.tool
            )
        })
    }

    /// Whether the programs this grant runs (`process.run`) get a read-only sandbox —
    /// nothing writable, network off — rather than the call's policy: every grant but
    /// process-execution. A program run for a read-only tool changes nothing, as the tool
    /// itself cannot.
    pub fn runs_programs_read_only(&self) -> bool {
        self.risk != ToolRisk::ProcessExecution
    }
}
