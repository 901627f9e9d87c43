//! Constructors for [`ToolError`], one per error code (docs/contract.md#results).

use crate::{ErrorCode, ToolError};

impl ToolError {
    /// A non-retryable error with `code` and the model-facing `message`.
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        Self { code, message: message.into(), retryable: false }
    }

    /// The same error, marked retryable (or not).
    pub fn with_retryable(mut self, retryable: bool) -> Self {
        self.retryable = retryable;
        self
    }

    /// The input is malformed or out of range; the model should change it.
    pub fn invalid_arguments(message: impl Into<String>) -> Self {
        Self::new(ErrorCode::InvalidArguments, message)
    }

    /// The call reached something the sandbox policy does not allow.
    pub fn permission_denied(message: impl Into<String>) -> Self {
        Self::new(ErrorCode::PermissionDenied, message)
    }

    /// The call noticed [`cancelled`](crate::cancelled) and stopped.
    pub fn cancelled(message: impl Into<String>) -> Self {
        Self::new(ErrorCode::Cancelled, message)
    }

    /// The call ran out of time.
    pub fn timeout(message: impl Into<String>) -> Self {
        Self::new(ErrorCode::Timeout, message)
    }

    /// The call ran and failed.
    pub fn execution_failed(message: impl Into<String>) -> Self {
        Self::new(ErrorCode::ExecutionFailed, message)
    }

    /// The call may or may not have taken effect.
    pub fn outcome_unknown(message: impl Into<String>) -> Self {
        Self::new(ErrorCode::OutcomeUnknown, message)
    }

    /// The sandbox this call needs is not available.
    pub fn sandbox_unavailable(message: impl Into<String>) -> Self {
        Self::new(ErrorCode::SandboxUnavailable, message)
    }
}

impl ToolError {
    /// The `LOCAL_EXECUTOR_*` kind of an error the host's capabilities returned (docs/workspace-tools.md#error-kinds):
    /// a refused path is `PathDenied`, a path that does not exist `NotFound`, another
    /// malformed input `InvalidInput`, and a host fault `Internal`; cancellation, timeouts and
    /// an unavailable sandbox keep their own kinds.
    pub fn error_kind(&self) -> crate::error_kinds::ErrorKind {
        use crate::error_kinds::ErrorKind;
        match self.code {
            ErrorCode::InvalidArguments if self.message.contains(" does not exist") => {
                ErrorKind::NotFound
            }
            ErrorCode::InvalidArguments => ErrorKind::InvalidInput,
            ErrorCode::PermissionDenied => ErrorKind::PathDenied,
            ErrorCode::Cancelled => ErrorKind::Cancelled,
            ErrorCode::Timeout => ErrorKind::Timeout,
            ErrorCode::SandboxUnavailable => ErrorKind::SandboxUnavailable,
            ErrorCode::ExecutionFailed | ErrorCode::OutcomeUnknown => ErrorKind::Internal,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn constructors_set_code_and_message() {
        let e = ToolError::execution_failed("boom");
        assert_eq!(e.code, ErrorCode::ExecutionFailed);
        assert_eq!(e.message, "boom");
        assert!(!e.retryable);
        assert!(ToolError::timeout("slow").with_retryable(true).retryable);
        assert_eq!(ToolError::cancelled("x").code, ErrorCode::Cancelled);
        assert_eq!(ToolError::invalid_arguments("x").code, ErrorCode::InvalidArguments);
    }

    #[test]
    fn host_errors_have_one_kind_each() {
        use crate::error_kinds::ErrorKind;
        let kind = |code, m: &str| ToolError::new(code, m).error_kind();
        assert_eq!(
            kind(ErrorCode::InvalidArguments, "a.md does not exist; use list"),
            ErrorKind::NotFound
        );
        assert_eq!(kind(ErrorCode::InvalidArguments, "bad"), ErrorKind::InvalidInput);
        assert_eq!(kind(ErrorCode::PermissionDenied, "outside"), ErrorKind::PathDenied);
        assert_eq!(kind(ErrorCode::SandboxUnavailable, "no"), ErrorKind::SandboxUnavailable);
        assert_eq!(kind(ErrorCode::OutcomeUnknown, "?"), ErrorKind::Internal);
    }
}
