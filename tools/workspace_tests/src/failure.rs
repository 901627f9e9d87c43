//! A failed call as this tool reports it: an [`ErrorKind`] from the shared
//! `LOCAL_EXECUTOR_*` vocabulary and the message the text starts with.

use toolhost_sdk::error_kinds::ErrorKind;

/// Why a call failed.
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
}
