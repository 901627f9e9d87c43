//! A call that failed the way the workspace tools report it: a structured value with
//! `success: false`, a `LOCAL_EXECUTOR_*` kind ([`crate::error_kinds`]) and the message the
//! model reads. The tools' reports name the kind in `error_kind`, its `terminal` flag and the
//! message in `error`.

use crate::ToolError;
use crate::error_kinds::ErrorKind;

/// Why a call failed: its kind and what went wrong, for the model.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Failure {
    /// The kind, whose name goes to `error_kind`.
    pub kind: ErrorKind,
    /// What went wrong, for the model.
    pub message: String,
}

impl Failure {
    /// A failure of `kind` saying `message`.
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> Self {
        Failure { kind, message: message.into() }
    }

    /// The failure of an error a host handle (`stat`, `open-file`, `file.read`, …) returned:
    /// the kind for its code ([`ToolError::error_kind`]: a fenced path is path denied, a
    /// missing one not found, …) and its message.
    pub fn from_tool_error(error: &ToolError) -> Self {
        Failure::new(error.error_kind(), error.message.clone())
    }
}
