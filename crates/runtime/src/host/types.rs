//! `types`: the contract's error type in the host's terms and back, [`TrappableError`], the
//! helpers every interface builds its errors with, and `open_checked`, the one open of a
//! checked file for reading that words its failures that way. The `types` interface's one
//! function is implemented beside [`CallState`](super::CallState), in `state`.

use toolhost_core::observations;
use toolhost_core::result::ErrorCode;

use crate::wit::latest::HostError;
use crate::wit::latest::toolhost::tool::types;

/// A host error as the contract's tool-error.
pub(crate) fn to_wit(e: toolhost_core::result::ToolError) -> types::ToolError {
    types::ToolError { code: code_to_wit(e.code), message: e.message, retryable: e.retryable }
}

fn code_to_wit(code: ErrorCode) -> types::ErrorCode {
    use types::ErrorCode as W;
    match code {
        ErrorCode::ToolNotFound | ErrorCode::ExecutionFailed => W::ExecutionFailed,
        ErrorCode::InvalidArguments => W::InvalidArguments,
        ErrorCode::PermissionDenied => W::PermissionDenied,
        ErrorCode::Cancelled => W::Cancelled,
        ErrorCode::Timeout => W::Timeout,
        ErrorCode::OutcomeUnknown => W::OutcomeUnknown,
        ErrorCode::SandboxUnavailable => W::SandboxUnavailable,
    }
}

/// The contract's error code in the host's terms.
pub(crate) fn code_from_wit(code: types::ErrorCode) -> ErrorCode {
    use types::ErrorCode as W;
    match code {
        W::InvalidArguments => ErrorCode::InvalidArguments,
        W::PermissionDenied => ErrorCode::PermissionDenied,
        W::Cancelled => ErrorCode::Cancelled,
        W::Timeout => ErrorCode::Timeout,
        W::ExecutionFailed => ErrorCode::ExecutionFailed,
        W::OutcomeUnknown => ErrorCode::OutcomeUnknown,
        W::SandboxUnavailable => ErrorCode::SandboxUnavailable,
    }
}

pub(super) fn err(code: types::ErrorCode, message: impl Into<String>) -> types::ToolError {
    types::ToolError { code, message: message.into(), retryable: false }
}

pub(super) fn io_err(what: &str, e: std::io::Error) -> types::ToolError {
    err(types::ErrorCode::ExecutionFailed, format!("{what}: {e}"))
}

/// What a host function whose WIT result carries a `tool-error` fails with: that error
/// (`E`, one WIT version's `tool-error`), which the component receives and handles, or a trap,
/// which ends the call. Each version's bindings take it as the trappable error type of their
/// `tool-error` (`HostError` in each `crate::wit::since_v*` module, as wasmtime-wasi's
/// `FsError` is `TrappableError<ErrorCode>`), so host functions return `Result<T, HostError>`
/// and use `?` on both a `tool-error` and a `wasmtime` error.
#[derive(Debug)]
pub enum TrappableError<E> {
    /// The contract's error, handed to the component as the function's `err` value.
    Tool(E),
    /// A trap: the call fails, the component sees nothing.
    Trap(wasmtime::Error),
}

impl<E> TrappableError<E> {
    /// The same failure with its `tool-error` converted (to another version's).
    pub fn map<F>(self, f: impl FnOnce(E) -> F) -> TrappableError<F> {
        match self {
            TrappableError::Tool(e) => TrappableError::Tool(f(e)),
            TrappableError::Trap(trap) => TrappableError::Trap(trap),
        }
    }

    /// What the bindings hand on: the `tool-error` for the component, or the trap.
    pub fn into_wit(self) -> wasmtime::Result<E> {
        match self {
            TrappableError::Tool(e) => Ok(e),
            TrappableError::Trap(trap) => Err(trap),
        }
    }
}

impl From<types::ToolError> for HostError {
    fn from(e: types::ToolError) -> Self {
        TrappableError::Tool(e)
    }
}

impl<E> From<wasmtime::Error> for TrappableError<E> {
    fn from(e: wasmtime::Error) -> Self {
        TrappableError::Trap(e)
    }
}

impl<E> From<wasmtime::component::ResourceTableError> for TrappableError<E> {
    fn from(e: wasmtime::component::ResourceTableError) -> Self {
        TrappableError::Trap(e.into())
    }
}

/// What a host function whose WIT result carries a `tool-error` returns.
pub(super) type WitResult<T> = Result<T, HostError>;

/// The model-facing error for a failed write step (`what`: the step, for I/O errors).
pub(super) fn write_error(
    what: &str,
    display: &str,
    e: toolhost_core::atomic::AtomicWriteError,
) -> types::ToolError {
    use toolhost_core::atomic::AtomicWriteError;
    match e {
        AtomicWriteError::Stale => {
            err(types::ErrorCode::ExecutionFailed, observations::STALE_WRITE_MESSAGE)
        }
        AtomicWriteError::Moved(_) => err(
            types::ErrorCode::PermissionDenied,
            format!(
                "{display} changed while it was being written (a symlink or rename raced the check); refusing it"
            ),
        ),
        e @ AtomicWriteError::HardLinked(_) => {
            err(types::ErrorCode::PermissionDenied, format!("{display}: {e}"))
        }
        AtomicWriteError::Io(e) => io_err(what, e),
    }
}

/// The model-facing error for a checked path swapped while it was opened.
pub(super) fn raced(display: &str) -> types::ToolError {
    err(
        types::ErrorCode::PermissionDenied,
        format!(
            "{display} changed while it was being opened (a symlink or rename raced the check); refusing it"
        ),
    )
}

/// Open a checked file for reading so that a symlink, rename or FIFO swapped in after the
/// check cannot redirect or hang it: [`open_regular`](toolhost_core::open::open_regular) reaches the checked (real) path with no
/// symlink followed, so the object opened is the one at that path (identity after open); a
/// symlink met on the way is the race, refused.
pub(super) fn open_checked(
    checked: &toolhost_core::fence::CheckedPath,
) -> Result<std::fs::File, types::ToolError> {
    let (file, _) = toolhost_core::open::open_regular(checked.as_path()).map_err(|e| {
        match e.raw_os_error() {
            Some(libc::ELOOP) => raced(checked.display()),
            _ => io_err(&format!("cannot open {}", checked.display()), e),
        }
    })?;
    Ok(file)
}
