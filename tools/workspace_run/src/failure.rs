//! A call that ends without its run finishing as the tool reports it: the SDK's [`Failure`]
//! (an [`ErrorKind`] from the shared `LOCAL_EXECUTOR_*` vocabulary and the message the model
//! reads), and [`from_run_error`], the kind of a run the host refused.

pub use toolhost_sdk::Failure;
use toolhost_sdk::error_kinds::ErrorKind;
use toolhost_sdk::{ErrorCode, ToolError};

/// The failure of a run the host refused (`process.run` returned `error`) for a run in
/// `cwd`: a refused working directory is path denied, a refused variable or any other
/// permission refusal (a run that is not the approved one) policy denied; the other
/// codes keep the SDK's kinds (a missing directory is not found, another invalid
/// argument invalid input, an unavailable sandbox its own kind).
/// A refused working directory names the field: `` `cwd`: <the host's reason> ``.
pub fn from_run_error(error: &ToolError, cwd: Option<&str>) -> Failure {
    let kind = match error.code {
        ErrorCode::PermissionDenied if names_a_variable(&error.message) => ErrorKind::PolicyDenied,
        ErrorCode::PermissionDenied
            if error.message.contains("outside")
                || cwd.is_some_and(|c| error.message.contains(c)) =>
        {
            ErrorKind::PathDenied
        }
        ErrorCode::PermissionDenied => ErrorKind::PolicyDenied,
        _ => error.error_kind(),
    };
    let message = match (kind, cwd) {
        (ErrorKind::PathDenied, Some(_)) => format!("`cwd`: {}; nothing ran", error.message),
        _ => format!("the host refused the run: {}", error.message),
    };
    Failure::new(kind, message)
}

/// Whether a host refusal is about an environment variable (the host's words for them).
fn names_a_variable(message: &str) -> bool {
    message.starts_with("a tool may") || message.contains("environment variable")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kind(code: ErrorCode, message: &str, cwd: Option<&str>) -> ErrorKind {
        from_run_error(&ToolError::new(code, message.to_owned()), cwd).kind
    }

    #[test]
    fn host_refusals_map_to_kinds() {
        use ErrorCode::*;
        let denied = PermissionDenied;
        assert_eq!(
            kind(
                denied,
                "sub is outside the workspace; a program runs in a directory inside it",
                Some("sub")
            ),
            ErrorKind::PathDenied
        );
        assert_eq!(
            kind(denied, "secrets: credentials are hidden", Some("secrets")),
            ErrorKind::PathDenied
        );
        assert_eq!(
            kind(
                denied,
                "a tool may not set GIT_DIR for a program it runs: only …",
                Some("GIT_DIR")
            ),
            ErrorKind::PolicyDenied
        );
        assert_eq!(
            kind(denied, "the environment variable name \"A-B\" is not allowed", None),
            ErrorKind::PolicyDenied
        );
        assert_eq!(kind(denied, "this run was not approved", None), ErrorKind::PolicyDenied);
        assert_eq!(kind(InvalidArguments, "bad", None), ErrorKind::InvalidInput);
        assert_eq!(kind(InvalidArguments, "x does not exist", Some("x")), ErrorKind::NotFound);
        assert_eq!(kind(SandboxUnavailable, "no bwrap", None), ErrorKind::SandboxUnavailable);
        assert_eq!(kind(Cancelled, "stop", None), ErrorKind::Cancelled);
        assert_eq!(kind(Timeout, "late", None), ErrorKind::Timeout);
        assert_eq!(kind(ExecutionFailed, "?", None), ErrorKind::Internal);
        let f = from_run_error(&ToolError::new(SandboxUnavailable, "no bwrap"), None);
        assert_eq!(f.message, "the host refused the run: no bwrap");
        let outside =
            "\"..\" leads outside the workspace (its `..` climbs above the workspace root)";
        let f = from_run_error(&ToolError::new(denied, outside), Some(".."));
        assert_eq!(f.kind, ErrorKind::PathDenied);
        assert_eq!(f.message, format!("`cwd`: {outside}; nothing ran"));
    }
}
