//! The OS sandboxes derived from toolhost's policy (`toolhost-policy`, the judge of paths),
//! plus the process backend bash and a component's `process.run` run on
//! (docs/architecture.md#the-policy-and-the-os-sandbox).
//!
//! How one sandboxed run flows through the types:
//!
//! 1. **policy** — a [`SandboxPolicy`] (from `toolhost-policy`) says what one call may read
//!    and write (modes, tiers, grants). The file tools' fence judges real paths with
//!    [`SandboxPolicy::check`]; everything below is generated from the same policy.
//! 2. **backend** — the caller chose a [`SandboxBackend`] for the session
//!    ([`platform_backend`]: [`bwrap::Bubblewrap`] on Linux, or where it cannot start the
//!    [`landlock_tier::LandlockTier`] (Landlock, seccomp and process limits without
//!    namespaces), chosen by [`landlock_tier::Tiered`]; [`seatbelt::Seatbelt`] on macOS;
//!    [`NoSandbox`] where nothing runs). [`protected::scan`] finds the git dirs and sensitive
//!    files of the writable roots, and the backend wraps the argv so the OS sandbox pins and
//!    hides them ([`mounts`] for bubblewrap, [`seatbelt::profile`] for Seatbelt); it never
//!    starts anything. Its self-check says whether it works here ([`Availability`]).
//! 3. **helper** — inside bubblewrap (or alone, for the Landlock tier), the [`helper`]
//!    (`toolhost __sandbox-exec`, or the `toolhost-sandbox-exec` binary) applies Landlock
//!    (and for the Landlock tier the process limits and the seccomp filter), drops every
//!    capability and execs the command.
//! 4. **run** — [`run::run_sandboxed`] ties them together for bash and `process.run`: scan,
//!    wrap, start on a [`process::ProcessBackend`] in a per-call [`cgroup`], then (for a
//!    tier that leaves them writable) put the protected entries back from a
//!    [`protected::Snapshot`] and [`protected::sweep`] what the command created that it may not. An unavailable sandbox
//!    or a runner that failed is [`run::NotRun`]: nothing runs unwrapped.
//! 5. **capture** — the [`process`] backend streams the output into a [`capture::Capture`]
//!    (head and tail in memory, the rest spilled); [`denial::detect_denial`] marks the kernel's
//!    refusals on paths the policy forbids, worded by [`texts`].
//!
//! Beside the flow: [`trust`] says which sandbox binaries may run,
//! [`privileges`] keeps a root host's file tools to what bash could reach, and
//! [`temp_dir::PrivateTempDir`] is the session's own temp dir the policy makes writable
//! instead of the shared system one.

#![deny(clippy::print_stdout, clippy::print_stderr)]

#[cfg(doc)]
use toolhost_policy::SandboxPolicy;

pub mod backend;
pub mod bwrap;
#[cfg(target_os = "linux")]
mod caps;
pub mod capture;
pub mod cgroup;
pub mod denial;
pub mod helper;
pub mod landlock_tier;
pub mod mounts;
pub mod platform;
pub mod privileges;
pub mod process;
pub mod protected;
pub mod run;
pub mod seatbelt;
pub mod temp_dir;
pub mod texts;
pub mod trust;

pub use backend::{Availability, SandboxBackend, SandboxError};
pub use platform::{NoSandbox, PlatformOptions, platform_backend};
