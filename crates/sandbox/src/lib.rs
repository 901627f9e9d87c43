//! The sandbox policy and everything derived from it, plus the process backend bash runs on.
//!
//! A [`policy::SandboxPolicy`] says what one call may read and write. The host's file-tool
//! fence judges real paths with [`policy::SandboxPolicy::check`]; a [`backend::SandboxBackend`]
//! turns the same policy into an OS sandbox around an argv (on Linux [`bwrap::Bubblewrap`],
//! bubblewrap and Landlock; on macOS [`seatbelt::Seatbelt`], `sandbox-exec` with a Seatbelt
//! profile) without starting anything; a [`process::ProcessBackend`] starts the wrapped argv and bounds its output with a [`capture::Capture`];
//! [`bash::run_bash`] ties them together for one bash call: [`scan::scan`] finds the git dirs
//! and sensitive files of the writable roots, [`mounts::mount_args`] pins and hides them, and
//! [`scan::sweep`] removes what bash created that it may not; [`landlock`] is the helper that
//! applies Landlock inside bubblewrap. [`git`] says what git metadata
//! is; [`danger::detect_danger`] names dangerous commands for the approval step.

pub mod backend;
pub mod bash;
pub mod bwrap;
pub mod capture;
pub mod cgroup;
pub mod danger;
pub mod git;
pub mod landlock;
pub mod mounts;
pub mod policy;
pub mod privileges;
pub mod process;
pub mod scan;
pub mod seatbelt;
pub mod trust;

pub use backend::{Availability, SandboxBackend, SandboxError};
pub use bash::{BashOutcome, BashRequest, BashStatus, run_bash};
pub use bwrap::Bubblewrap;
pub use process::{ProcessBackend, TokioProcessBackend};
pub use seatbelt::Seatbelt;
