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
}
