//! The `LOCAL_EXECUTOR_*` error kinds (docs/workspace-tools.md#error-kinds): the one
//! vocabulary the workspace tools put in a failed result's `error_kind`, each with the host's
//! error code and whether retrying the same call can help.
//!
//! A component of the `toolhost:tool@0.2.0` world whose output schema has a boolean
//! `success` fails a call by returning its structured value with `success: false` and an
//! `error_kind` from [`ErrorKind::ALL`]; the host then ends the call with [`ErrorKind::code`]
//! (docs/contract.md#structured-failures). Beside them, [`INVALID_INPUT_PREFIX`], the text
//! every refusal of a call's input starts with, whoever refuses it (the host's schema check or
//! the SDK's parse). No dependencies: the host and the components both read it.

#![no_std]

/// The text every refusal of a call's input starts with, from the host or from a tool
/// (docs/contract.md#definitions-and-the-toolset: the text starts with `invalid tool input: `).
pub const INVALID_INPUT_PREFIX: &str = "invalid tool input: ";

/// Why a workspace tool's call failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ErrorKind {
    /// The input is not one the tool accepts (a field, a value's syntax, a combination).
    InvalidInput,
    /// A path or working directory is outside what the call may reach.
    PathDenied,
    /// The file or directory named does not exist.
    NotFound,
    /// The directory is not inside a git repository (`workspace_git`).
    NotARepository,
    /// The source is not something the tool can read: binary, not UTF-8, or too large.
    UnsupportedContent,
    /// The program ran and reported a failure (a non-zero exit).
    CommandFailed,
    /// The program could not be started (not installed, not executable).
    SpawnFailed,
    /// The run was killed at its timeout, or the call ran out of time.
    Timeout,
    /// The call was cancelled.
    Cancelled,
    /// No OS sandbox is available here, so nothing ran.
    SandboxUnavailable,
    /// The operator's policy does not allow this (a program, shell syntax, a variable).
    PolicyDenied,
    /// Nobody approved the run, so it did not run.
    ApprovalDenied,
    /// Something in the host or the tool went wrong that the input did not cause.
    Internal,
}

impl ErrorKind {
    /// Every kind, in the order docs/workspace-tools.md lists them.
    pub const ALL: &'static [ErrorKind] = &[
        ErrorKind::InvalidInput,
        ErrorKind::PathDenied,
        ErrorKind::NotFound,
        ErrorKind::NotARepository,
        ErrorKind::UnsupportedContent,
        ErrorKind::CommandFailed,
        ErrorKind::SpawnFailed,
        ErrorKind::Timeout,
        ErrorKind::Cancelled,
        ErrorKind::SandboxUnavailable,
        ErrorKind::PolicyDenied,
        ErrorKind::ApprovalDenied,
        ErrorKind::Internal,
    ];

    /// The name in `error_kind`, e.g. `LOCAL_EXECUTOR_INVALID_INPUT`.
    pub const fn name(self) -> &'static str {
        match self {
            ErrorKind::InvalidInput => "LOCAL_EXECUTOR_INVALID_INPUT",
            ErrorKind::PathDenied => "LOCAL_EXECUTOR_PATH_DENIED",
            ErrorKind::NotFound => "LOCAL_EXECUTOR_NOT_FOUND",
            ErrorKind::NotARepository => "LOCAL_EXECUTOR_NOT_A_REPOSITORY",
            ErrorKind::UnsupportedContent => "LOCAL_EXECUTOR_UNSUPPORTED_CONTENT",
            ErrorKind::CommandFailed => "LOCAL_EXECUTOR_COMMAND_FAILED",
            ErrorKind::SpawnFailed => "LOCAL_EXECUTOR_SPAWN_FAILED",
            ErrorKind::Timeout => "LOCAL_EXECUTOR_TIMEOUT",
            ErrorKind::Cancelled => "LOCAL_EXECUTOR_CANCELLED",
            ErrorKind::SandboxUnavailable => "LOCAL_EXECUTOR_SANDBOX_UNAVAILABLE",
            ErrorKind::PolicyDenied => "LOCAL_EXECUTOR_POLICY_DENIED",
            ErrorKind::ApprovalDenied => "LOCAL_EXECUTOR_APPROVAL_DENIED",
            ErrorKind::Internal => "LOCAL_EXECUTOR_INTERNAL",
        }
    }

    /// The kind named `name`, if it is one.
    pub fn from_name(name: &str) -> Option<ErrorKind> {
        ErrorKind::ALL.iter().copied().find(|k| k.name() == name)
    }

    /// The host's error code for a call failed with this kind (docs/contract.md#results), as
    /// its JSON name: `invalid_arguments`, `permission_denied`, `execution_failed`,
    /// `timeout`, `cancelled` or `sandbox_unavailable`.
    pub const fn code(self) -> &'static str {
        match self {
            ErrorKind::InvalidInput => "invalid_arguments",
            ErrorKind::PathDenied | ErrorKind::PolicyDenied | ErrorKind::ApprovalDenied => {
                "permission_denied"
            }
            ErrorKind::NotFound
            | ErrorKind::NotARepository
            | ErrorKind::UnsupportedContent
            | ErrorKind::CommandFailed
            | ErrorKind::SpawnFailed
            | ErrorKind::Internal => "execution_failed",
            ErrorKind::Timeout => "timeout",
            ErrorKind::Cancelled => "cancelled",
            ErrorKind::SandboxUnavailable => "sandbox_unavailable",
        }
    }

    /// Whether the same call will fail the same way again (`terminal: true`): everything but
    /// a timeout and a failed command, whose next run may differ.
    pub const fn terminal(self) -> bool {
        !matches!(self, ErrorKind::Timeout | ErrorKind::CommandFailed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kind_is_listed_once_and_named_by_its_prefix() {
        for (i, kind) in ErrorKind::ALL.iter().enumerate() {
            assert!(kind.name().starts_with("LOCAL_EXECUTOR_"), "{kind:?}");
            assert_eq!(ErrorKind::from_name(kind.name()), Some(*kind));
            assert!(!ErrorKind::ALL[i + 1..].contains(kind), "{kind:?} twice");
        }
        assert_eq!(ErrorKind::from_name("LOCAL_EXECUTOR_NOPE"), None);
    }
}
