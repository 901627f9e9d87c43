//! Why a preview failed: a [`Failure`] carries the `LOCAL_EXECUTOR_*` kind and the message the
//! model reads; [`from_host`] turns an error of the host's `workspace` handles into one.

pub use toolhost_sdk::Failure;
use toolhost_sdk::{ErrorCode, ToolError};

/// What stopped a call: a failure to report as a value, or an error that ends the call as
/// the host's own (cancellation).
#[derive(Debug)]
pub enum Halt {
    /// Reported as `success: false`.
    Failed(Failure),
    /// Ends the call with this error (the SDK's cancelled error).
    Error(ToolError),
}

impl From<Failure> for Halt {
    fn from(f: Failure) -> Self {
        Halt::Failed(f)
    }
}

/// The failure for an error a `workspace` handle (`stat`, `open-file`, `file.read`) returned:
/// its kind ([`ToolError::error_kind`]), except cancellation, which stays the host's error.
pub fn from_host(error: ToolError) -> Halt {
    match error.code {
        ErrorCode::Cancelled => Halt::Error(error),
        _ => Halt::Failed(Failure::from_tool_error(&error)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use toolhost_sdk::error_kinds::ErrorKind;

    #[test]
    fn host_errors_map_to_kinds() {
        let kind = |code| match from_host(ToolError::new(code, "m")) {
            Halt::Failed(f) => Some(f.kind),
            Halt::Error(_) => None,
        };
        assert_eq!(kind(ErrorCode::PermissionDenied), Some(ErrorKind::PathDenied));
        assert_eq!(kind(ErrorCode::InvalidArguments), Some(ErrorKind::InvalidInput));
        assert_eq!(kind(ErrorCode::ExecutionFailed), Some(ErrorKind::Internal));
        assert_eq!(kind(ErrorCode::Cancelled), None);
    }
}
