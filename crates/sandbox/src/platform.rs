//! Which [`SandboxBackend`] a session gets: whoever makes the session chooses
//! ([`platform_backend`] for every path that runs tools for a user; [`NoSandbox`] where no
//! command is ever run, e.g. a unit test or a component's `describe`).

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::backend::{Availability, SandboxBackend, SandboxError};
use crate::protected::Protected;
use toolhost_policy::SandboxPolicy;

/// What the platform backend is built with (each used only where it applies: bubblewrap's
/// options on Linux; Seatbelt takes none).
#[derive(Debug, Clone, Default)]
pub struct PlatformOptions {
    /// bubblewrap at this absolute path (`TOOLHOST_BWRAP`), if trusted; none: the first
    /// trusted system one.
    pub bwrap: Option<PathBuf>,
    /// Where a passed self-check is remembered (see `Bubblewrap::with_check_cache`).
    pub check_cache: Option<PathBuf>,
    /// The Landlock helper bubblewrap execs before the command (see
    /// `Bubblewrap::with_landlock_helper`); none: bubblewrap alone. The Landlock tier runs it
    /// too, so without it there is no fallback.
    pub landlock_helper: Option<PathBuf>,
    /// The operator requires the full tier (`policy.json` `"sandbox_tier": "full"`): where
    /// bubblewrap cannot start, nothing runs rather than run under the Landlock tier.
    pub require_full: bool,
}

/// bash's sandbox on macOS: Seatbelt (`/usr/bin/sandbox-exec`).
#[cfg(target_os = "macos")]
pub fn platform_backend(options: PlatformOptions) -> Arc<dyn SandboxBackend> {
    let _ = options;
    Arc::new(crate::seatbelt::Seatbelt::new())
}

/// bash's sandbox elsewhere: bubblewrap (`options.bwrap` or a trusted system one), its passed
/// self-check remembered in `options.check_cache`, with `options.landlock_helper` inside;
/// where bubblewrap cannot start, the Landlock tier ([`crate::landlock_tier`]) unless
/// `options.require_full`.
#[cfg(not(target_os = "macos"))]
pub fn platform_backend(options: PlatformOptions) -> Arc<dyn SandboxBackend> {
    let mut sandbox = crate::bwrap::Bubblewrap::new();
    if let Some(bwrap) = options.bwrap {
        sandbox = sandbox.with_bwrap(bwrap);
    }
    if let Some(file) = options.check_cache {
        sandbox = sandbox.with_check_cache(file);
    }
    if let Some(helper) = &options.landlock_helper {
        sandbox = sandbox.with_landlock_helper(helper);
    }
    let fallback = (!options.require_full)
        .then(|| crate::landlock_tier::LandlockTier::new(options.landlock_helper.clone()));
    Arc::new(crate::landlock_tier::Tiered::new(Box::new(sandbox), fallback))
}

/// A backend that refuses to run anything: for a session made where no command runs.
#[derive(Debug, Clone, Copy, Default)]
pub struct NoSandbox;

impl NoSandbox {
    /// Why nothing runs (model-facing).
    pub const REASON: &'static str =
        "this session was made without an OS sandbox, so no command can run in it";
}

impl SandboxBackend for NoSandbox {
    fn wrap(
        &self,
        _policy: &SandboxPolicy,
        _argv: Vec<OsString>,
        _cwd: &Path,
        _protected: &Protected,
    ) -> Result<Vec<OsString>, SandboxError> {
        Err(SandboxError::Unavailable(Self::REASON.into()))
    }

    fn available(&self) -> Availability {
        Availability::Unavailable { reason: Self::REASON.into() }
    }

    fn describe(&self) -> &'static str {
        "no sandbox (nothing runs)"
    }

    fn tier(&self) -> &'static str {
        "none"
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_sandbox_refuses_to_run() {
        let policy = SandboxPolicy::workspace_write("/");
        assert!(!NoSandbox.available().is_available());
        assert!(
            NoSandbox
                .wrap(&policy, vec!["true".into()], Path::new("/"), &Protected::default())
                .is_err()
        );
    }
}
