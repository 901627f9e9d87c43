//! A failed call as this tool reports it: the [`Failure`] of `toolhost_workspace_run` (an
//! `ErrorKind` from the shared `LOCAL_EXECUTOR_*` vocabulary and the message the text starts
//! with), shared with `workspace_shell`; [`from_tool_error`] for a refused workspace read.

use toolhost_sdk::ToolError;

pub use toolhost_workspace_run::Failure;

/// The failure of a workspace read the host refused or could not make (the SDK's kind for
/// its error code: a fenced path is path denied, a missing one not found, …).
pub fn from_tool_error(error: &ToolError) -> Failure {
    Failure::new(error.error_kind(), error.message.clone())
}
