//! A failed call as this tool reports it: an [`ErrorKind`] from the shared `LOCAL_EXECUTOR_*`
//! vocabulary, the message the text starts with, and git's stderr when git ran.

use toolhost_sdk::ToolError;
use toolhost_sdk::error_kinds::ErrorKind;

/// Why a call failed: a kind and a message as the SDK's `Failure` has them, and git's stderr.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GitFailure {
    /// The kind, whose name goes to `error_kind`.
    pub kind: ErrorKind,
    /// What went wrong, for the model.
    pub message: String,
    /// git's stderr (bounded), when git ran.
    pub stderr: String,
}

impl GitFailure {
    /// A failure of `kind` saying `message`, with no stderr.
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> Self {
        GitFailure { kind, message: message.into(), stderr: String::new() }
    }

    /// The same failure with git's `stderr`.
    pub fn with_stderr(mut self, stderr: impl Into<String>) -> Self {
        self.stderr = stderr.into();
        self
    }

    /// The failure of a `process.run` the host refused: its error code mapped to a kind. The
    /// only path git's run hands the host is `cwd`, so a refused path names that field.
    pub fn from_tool_error(error: &ToolError) -> Self {
        match error.error_kind() {
            ErrorKind::PathDenied => GitFailure::new(
                ErrorKind::PathDenied,
                format!("`cwd`: {}; git did not run", error.message),
            ),
            kind => GitFailure::new(kind, format!("git could not run: {}", error.message)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use toolhost_sdk::ErrorCode;

    #[test]
    fn host_refusals_map_to_kinds() {
        let kind = |code, message: &str| {
            GitFailure::from_tool_error(&ToolError::new(code, message.to_owned())).kind
        };
        assert_eq!(kind(ErrorCode::PermissionDenied, "outside"), ErrorKind::PathDenied);
        assert_eq!(kind(ErrorCode::SandboxUnavailable, "no bwrap"), ErrorKind::SandboxUnavailable);
        assert_eq!(kind(ErrorCode::InvalidArguments, "bad env"), ErrorKind::InvalidInput);
        assert_eq!(kind(ErrorCode::Timeout, "slow"), ErrorKind::Timeout);
        assert_eq!(kind(ErrorCode::Cancelled, "stop"), ErrorKind::Cancelled);
        assert_eq!(
            kind(ErrorCode::InvalidArguments, "x does not exist; use list"),
            ErrorKind::NotFound
        );
        assert_eq!(kind(ErrorCode::OutcomeUnknown, "?"), ErrorKind::Internal);
        let f = GitFailure::from_tool_error(&ToolError::new(
            ErrorCode::PermissionDenied,
            "\"..\" leads outside the workspace".to_owned(),
        ));
        assert_eq!(f.message, "`cwd`: \"..\" leads outside the workspace; git did not run");
    }
}
