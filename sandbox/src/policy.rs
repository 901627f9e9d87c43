//! The sandbox policy stamped on each call (seed 000 §5): which paths a call may read and
//! write. The file-tool fence judges real paths with [`SandboxPolicy::check`].

use std::path::{Path, PathBuf};

/// The session's sandbox mode.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum SandboxMode {
    /// Nothing is writable.
    ReadOnly,
    /// The workspace (and configured extra roots) are writable.
    WorkspaceWrite,
}

/// What a path is needed for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Access {
    Read,
    Write,
}

/// Who is asking (file tools are judged in-process; bash by the OS sandbox).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Actor {
    FileTool,
}

/// Why the policy refused a path; the text is the model-facing denial marker.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct Denial {
    pub message: String,
    /// True when an escalation could unlock it (outside, sensitive, credential tiers).
    pub sandbox_denied: bool,
}

/// Read/write rules for one call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SandboxPolicy {
    mode: SandboxMode,
    writable_roots: Vec<PathBuf>,
}

impl SandboxPolicy {
    /// `mode` over `workspace` (the workspace is the first writable root).
    pub fn new(mode: SandboxMode, workspace: impl Into<PathBuf>) -> Self {
        SandboxPolicy { mode, writable_roots: vec![workspace.into()] }
    }

    /// Workspace-write over `workspace`.
    pub fn workspace_write(workspace: impl Into<PathBuf>) -> Self {
        Self::new(SandboxMode::WorkspaceWrite, workspace)
    }

    /// The mode.
    pub fn mode(&self) -> SandboxMode {
        self.mode
    }

    /// Judge a real (canonical) path.
    pub fn check(&self, path: &Path, access: Access, _actor: Actor) -> Result<(), Denial> {
        match access {
            Access::Read => Ok(()),
            Access::Write => {
                if self.mode == SandboxMode::ReadOnly {
                    return Err(Denial {
                        message: format!(
                            "{} is not writable: this session is read-only",
                            path.display()
                        ),
                        sandbox_denied: true,
                    });
                }
                if self.writable_roots.iter().any(|root| path.starts_with(root)) {
                    Ok(())
                } else {
                    Err(Denial {
                        message: format!(
                            "{} is outside the writable roots of this session",
                            path.display()
                        ),
                        sandbox_denied: true,
                    })
                }
            }
        }
    }
}
