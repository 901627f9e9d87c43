//! The sandbox policy and everything derived from it.
//!
//! [`policy::SandboxPolicy`] says what one call may read and write. The host's file-tool
//! fence judges real paths with [`policy::SandboxPolicy::check`]; the OS sandboxes that bash
//! runs in are generated from the same policy.

pub mod policy;
