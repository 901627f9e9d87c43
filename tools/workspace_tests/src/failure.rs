//! A failed call as this tool reports it: the SDK's [`Failure`] (an `ErrorKind` from the
//! shared `LOCAL_EXECUTOR_*` vocabulary and the message the text starts with), as
//! `workspace_run` and `workspace_shell` report theirs.

pub use toolhost_sdk::Failure;
