//! bash's macOS sandbox (docs/contract.md#bash), a [`SandboxBackend`]: Seatbelt, through
//! `sandbox-exec`.
//!
//! [`Seatbelt::wrap`] turns `/bin/bash -c <command>` into
//! `/usr/bin/sandbox-exec -p <profile> -D WORKSPACE=<workspace> -- /bin/bash -c <command>`:
//! the profile is [`profile::call_profile`] of the call's policy and its protected-entry scan,
//! with every path written into it as a literal (so `WORKSPACE` names the workspace for
//! whoever reads the argv; no rule depends on it). `sandbox-exec` is always the system's, at
//! [`SANDBOX_EXEC`] on the sealed system volume, never one found on PATH. The working
//! directory is inherited from the process backend, which starts bash in the workspace.
//!
//! The self-check ([`SandboxBackend::available`]) runs `sandbox-exec` twice with a timeout:
//! with `(version 1)(allow default)` (does Seatbelt work here at all: it does not nest, so
//! toolhost inside another Seatbelt sandbox fails here), and with a generated profile (does
//! macOS accept what toolhost writes). A refused access under the profile is `EPERM`, which
//! tools print as "Operation not permitted", one of [`crate::denial::DENIAL_SIGNS`]: such a
//! call is marked `sandbox_denied` like a bubblewrap one.
//!
//! `sandbox-exec` reports its own failures on stderr as `sandbox-exec: …` with exit 65 (the
//! profile was rejected) or 71 (`sandbox_apply` or the exec of bash failed): those are
//! runner failures ([`SandboxBackend::runner_failure`]), `sandbox_unavailable`. Unlike the
//! bubblewrap helper, nothing inside tells the host the command started, so a command that
//! itself prints `sandbox-exec: …` first on stderr and exits 65 or 71 (a nested
//! `sandbox-exec`) is taken for one too: it is reported as not run.
//!
//! The profile is written by `profile` in the words of `sbpl` (a path as a filter, a grant as
//! what it covers, a name pattern as a regex), with the case-insensitive twin of every
//! exclusion from `case_fold`.

mod case_fold;
pub mod profile;
mod sbpl;

use std::ffi::OsString;
use std::path::Path;
use std::sync::OnceLock;

pub use profile::{call_profile, seatbelt_profile};

use crate::backend::{Availability, SandboxBackend, SandboxError, output_within};
use crate::protected::Protected;
use toolhost_policy::{NetworkAccess, SandboxMode, SandboxPolicy};

/// The one `sandbox-exec` toolhost runs (macOS's own, on the read-only system volume).
pub const SANDBOX_EXEC: &str = "/usr/bin/sandbox-exec";

/// Prefix of `sandbox-exec`'s own error messages on stderr
/// (`sandbox-exec: sandbox_apply: Operation not permitted`).
pub const SANDBOX_EXEC_ERROR_PREFIX: &str = "sandbox-exec: ";

/// `sandbox-exec`'s exit codes for its own failures: 65 (`EX_DATAERR`: the profile was
/// rejected, e.g. `unbound variable`) and 71 (`EX_OSERR`: `sandbox_apply` failed, or the
/// exec of the command did).
pub const SANDBOX_EXEC_FAILURE_EXITS: &[i32] = &[65, 71];

/// The `-D` parameter that carries the workspace.
pub const WORKSPACE_PARAM: &str = "WORKSPACE";

/// The profile of the first self-check: Seatbelt applies at all.
const TRIVIAL_PROFILE: &str = "(version 1)(allow default)";

/// The command both self-checks run.
const CHECK_COMMAND: &str = "/usr/bin/true";

/// Model-facing reasons for an unavailable Seatbelt sandbox.
pub mod reasons {
    /// Not macOS.
    pub const NOT_MACOS: &str = "the Seatbelt sandbox (sandbox-exec) exists only on macOS, so bash cannot run sandboxed here";
    /// `/usr/bin/sandbox-exec` is missing.
    pub const MISSING: &str = "/usr/bin/sandbox-exec is missing, so bash cannot run sandboxed; it ships with macOS: ask the user to check the system installation";
    /// Seatbelt cannot be applied (usually: toolhost already runs inside a sandbox).
    pub const REFUSED: &str = "sandbox-exec cannot apply a sandbox here, so bash cannot run sandboxed; macOS does not nest Seatbelt sandboxes: ask the user to run toolhost outside any other sandbox (an app's, or another agent's)";
    /// macOS rejected or mis-ran the profile toolhost generated.
    pub const PROFILE_REJECTED: &str = "sandbox-exec does not run a trivial command under the profile toolhost generated, so bash cannot run sandboxed; this is a toolhost bug: ask the user to report it with `toolhost doctor`'s output";
}

/// The macOS Seatbelt backend.
#[derive(Debug, Default)]
pub struct Seatbelt {
    availability: OnceLock<Availability>,
}

impl Seatbelt {
    /// The backend over [`SANDBOX_EXEC`]; nothing is checked until [`SandboxBackend::available`].
    pub fn new() -> Self {
        Self::default()
    }

    /// The `sandbox-exec` argv for `profile` around `argv` (everything but the profile is
    /// fixed: the absolute binary, the workspace parameter, `--`).
    pub fn argv(profile: String, workspace: &str, argv: Vec<OsString>) -> Vec<OsString> {
        let mut out: Vec<OsString> =
            vec![SANDBOX_EXEC.into(), "-p".into(), profile.into(), "-D".into()];
        out.push(format!("{WORKSPACE_PARAM}={workspace}").into());
        out.push("--".into());
        out.extend(argv);
        out
    }

    fn self_check(&self) -> Availability {
        if !cfg!(target_os = "macos") {
            return Availability::Unavailable { reason: reasons::NOT_MACOS.into() };
        }
        if !Path::new(SANDBOX_EXEC).is_file() {
            return Availability::Unavailable { reason: reasons::MISSING.into() };
        }
        let run = |profile: &str| {
            let mut cmd = std::process::Command::new(SANDBOX_EXEC);
            cmd.args(["-p", profile, "-D", &format!("{WORKSPACE_PARAM}=/"), "--", CHECK_COMMAND]);
            cmd.stdin(std::process::Stdio::null()).env_clear();
            let limit =
                std::time::Duration::from_millis(toolhost_limits::SANDBOX_SELF_CHECK_TIMEOUT_MS);
            match output_within(&mut cmd, limit) {
                Ok(out) if out.status.success() => Ok(()),
                Ok(out) => {
                    Err(format!("{}: {}", out.status, String::from_utf8_lossy(&out.stderr).trim()))
                }
                Err(e) => Err(format!("sandbox-exec could not be run: {e}")),
            }
        };
        if let Err(e) = run(TRIVIAL_PROFILE) {
            return Availability::Unavailable { reason: format!("{} ({e})", reasons::REFUSED) };
        }
        // A read-only policy over the root: every rule kind the generator writes, no grant.
        let probe = SandboxPolicy::builder(SandboxMode::ReadOnly, "/").build();
        let profile = match call_profile(&probe, &Protected::default()) {
            Ok(p) => p,
            Err(e) => {
                return Availability::Unavailable {
                    reason: format!("{} ({e})", reasons::PROFILE_REJECTED),
                };
            }
        };
        match run(&profile) {
            Ok(()) => Availability::Available,
            Err(e) => {
                Availability::Unavailable { reason: format!("{} ({e})", reasons::PROFILE_REJECTED) }
            }
        }
    }
}

impl SandboxBackend for Seatbelt {
    fn wrap(
        &self,
        policy: &SandboxPolicy,
        argv: Vec<OsString>,
        _cwd: &Path,
        protected: &Protected,
    ) -> Result<Vec<OsString>, SandboxError> {
        crate::trust::check_outside_roots(Path::new(SANDBOX_EXEC), &policy.writable_roots())
            .map_err(|e| SandboxError::Unavailable(e.to_string()))?;
        let workspace = policy.workspace().to_str().ok_or_else(|| {
            SandboxError::UnsupportedPath(policy.workspace().display().to_string())
        })?;
        Ok(Self::argv(call_profile(policy, protected)?, workspace, argv))
    }

    fn available(&self) -> Availability {
        self.availability.get_or_init(|| self.self_check()).clone()
    }

    fn runner_failure(
        &self,
        exit_code: Option<i32>,
        stderr_start: &[u8],
        _started: bool,
    ) -> Option<String> {
        let code = exit_code?;
        if !SANDBOX_EXEC_FAILURE_EXITS.contains(&code)
            || !stderr_start.starts_with(SANDBOX_EXEC_ERROR_PREFIX.as_bytes())
        {
            return None;
        }
        Some(String::from_utf8_lossy(stderr_start).lines().next().unwrap_or("").to_string())
    }

    fn describe(&self) -> &'static str {
        "Seatbelt: /usr/bin/sandbox-exec with a deny-default profile from each call's policy"
    }

    fn report(&self, policy: &SandboxPolicy) -> Vec<String> {
        let mut out =
            vec![format!("sandbox-exec: {SANDBOX_EXEC} (macOS's own; PATH is never searched)")];
        match policy.network() {
            NetworkAccess::Deny => {
                out.push(crate::backend::network_line(policy));
                out.push("sockets: unreachable (connecting to a unix socket is a network operation, denied with the network)".into());
            }
            NetworkAccess::Allow => {
                out.push(crate::backend::network_line(policy));
                out.push("sockets: REACHABLE: with the network allowed, bash can connect to every unix socket the user can (agents, multiplexers)".into());
            }
        }
        out.push(
            "mach services: all reachable (the profile allows mach-lookup; see docs/security.md)"
                .into(),
        );
        out.push("limits: OFF — Seatbelt has no per-call process or memory limit; a fork bomb or a runaway allocation in bash is bounded only by the machine".into());
        out
    }
}

#[cfg(test)]
mod tests;
