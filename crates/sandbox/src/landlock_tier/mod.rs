//! The second Linux tier, for machines where bubblewrap cannot start (user namespaces refused,
//! as in many containers): no namespaces, only what a process can do to itself. The helper
//! (`toolhost __sandbox-exec --tier landlock …`, [`crate::helper`]) sets the process limits,
//! applies a Landlock ruleset made from the policy ([`plan`]: reads granted tree by tree
//! around everything the policy hides, writes to the writable roots, a fixed set of devices,
//! no TCP unless the network is allowed), a seccomp filter
//! ([`crate::helper::seccomp`]), `no_new_privs` and no capabilities, then runs the command and,
//! when it ends, kills every process it left behind.
//!
//! What it does not isolate (doctor says so): there is no PID namespace (other processes are
//! listed in `/proc`, their command lines readable), pathname unix sockets outside the hidden
//! ones can be connected to, and git metadata in a writable root is not read-only during the
//! call: it is put back afterwards ([`crate::protected::Snapshot`]), with no process of the
//! call left alive to change it later. It refuses to run commands as root: Landlock does not
//! stop chmod, chown or the process limit for root.

pub mod plan;

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use crate::backend::{Availability, SandboxBackend, SandboxError};
pub use crate::helper::TIER_ARG;
use crate::helper::landlock::landlock_abi;
use crate::helper::{SANDBOX_EXEC_ARG, STARTED_FD};
use crate::protected::Protected;
use toolhost_policy::{NetworkAccess, SandboxPolicy};

/// Why the tier cannot run commands (model-facing).
pub mod reasons {
    /// The kernel has no Landlock.
    pub const NO_LANDLOCK: &str = "user namespaces are refused here, so bubblewrap cannot start, and this kernel has no Landlock for the fallback sandbox, so bash cannot run sandboxed; ask the user to allow unprivileged user namespaces or to use a kernel with Landlock (5.13 or later)";
    /// The host runs as root.
    pub const ROOT: &str = "user namespaces are refused here, so bubblewrap cannot start, and the fallback sandbox (Landlock and seccomp) does not run commands as root: Landlock does not stop root from changing file modes and owners or from passing the process limit; ask the user to run toolhost as a non-root user, or to allow unprivileged user namespaces";
    /// The helper is missing or untrusted.
    pub const NO_HELPER: &str = "the sandbox helper (`__sandbox-exec`) is not available, so the fallback sandbox cannot run bash";
    /// The operator requires the full tier.
    pub const FULL_REQUIRED: &str = "policy.json requires the full sandbox (\"sandbox_tier\": \"full\") and bubblewrap cannot start here, so bash does not run rather than run with less isolation";
}

/// The Landlock + seccomp tier.
#[derive(Debug)]
pub struct LandlockTier {
    helper: Option<PathBuf>,
    untrusted: Option<String>,
    availability: OnceLock<Availability>,
}

impl LandlockTier {
    /// The tier with `helper` (the host binary) as its runner, trusted like bubblewrap.
    pub fn new(helper: Option<PathBuf>) -> Self {
        let (helper, untrusted) = match helper {
            None => (None, None),
            Some(h) => match crate::trust::check_binary(&h) {
                Ok(real) => (Some(real), None),
                Err(e) => (Some(h), Some(format!("the sandbox helper {e}"))),
            },
        };
        LandlockTier { helper, untrusted, availability: OnceLock::new() }
    }

    fn check(&self) -> Availability {
        let unavailable = |reason: &str| Availability::Unavailable { reason: reason.into() };
        if !cfg!(target_os = "linux") {
            return unavailable(crate::bwrap::reasons::NOT_LINUX);
        }
        if landlock_abi() < 1 {
            return unavailable(reasons::NO_LANDLOCK);
        }
        // SAFETY: geteuid has no preconditions.
        if unsafe { libc::geteuid() } == 0 {
            return unavailable(reasons::ROOT);
        }
        let Some(helper) = &self.helper else { return unavailable(reasons::NO_HELPER) };
        if let Some(why) = &self.untrusted {
            return unavailable(why);
        }
        // The self-check: the helper applies the whole tier to `true`.
        let out = std::process::Command::new(helper)
            .args([SANDBOX_EXEC_ARG, TIER_ARG, "--read", "/", "--", "/bin/sh", "-c", "true"])
            .stdin(std::process::Stdio::null())
            .output();
        match out {
            Ok(o) if o.status.success() => Availability::Available,
            Ok(o) => unavailable(&format!(
                "the fallback sandbox (Landlock and seccomp) failed its self-check: {}",
                String::from_utf8_lossy(&o.stderr).lines().next().unwrap_or("no message")
            )),
            Err(e) => unavailable(&format!("the sandbox helper cannot start: {e}")),
        }
    }
}

impl SandboxBackend for LandlockTier {
    fn wrap(
        &self,
        policy: &SandboxPolicy,
        argv: Vec<OsString>,
        _cwd: &Path,
        protected: &Protected,
    ) -> Result<Vec<OsString>, SandboxError> {
        let Some(helper) = &self.helper else {
            return Err(SandboxError::Unavailable(reasons::NO_HELPER.into()));
        };
        crate::trust::check_outside_roots(helper, &policy.writable_roots())
            .map_err(|e| SandboxError::Unavailable(e.to_string()))?;
        let plan = plan::plan(policy, protected);
        let mut out: Vec<OsString> = vec![helper.clone().into_os_string(), SANDBOX_EXEC_ARG.into()];
        out.push(TIER_ARG.into());
        out.push("--started-fd".into());
        out.push(STARTED_FD.to_string().into());
        for p in &plan.read {
            out.push("--read".into());
            out.push(p.clone().into_os_string());
        }
        for p in &plan.write {
            out.push("--writable".into());
            out.push(p.clone().into_os_string());
        }
        if policy.network() == NetworkAccess::Allow {
            out.push("--network".into());
        }
        let limits = policy.limits();
        out.push("--max-processes".into());
        out.push(limits.pids.to_string().into());
        out.push("--max-memory-mib".into());
        out.push(limits.memory_mib.to_string().into());
        out.push("--".into());
        out.extend(argv);
        Ok(out)
    }

    fn available(&self) -> Availability {
        self.availability.get_or_init(|| self.check()).clone()
    }

    fn started_fd(&self) -> Option<i32> {
        Some(STARTED_FD)
    }

    fn describe(&self) -> &'static str {
        "Landlock and seccomp, without namespaces (user namespaces are refused here)"
    }

    fn restores_protected(&self) -> bool {
        true
    }

    fn tier(&self) -> &'static str {
        "landlock"
    }

    fn report(&self, policy: &SandboxPolicy) -> Vec<String> {
        let abi = landlock_abi();
        let mut out = Vec::new();
        if let Some(h) = &self.helper {
            out.push(format!("helper: {} (trusted: only root or you can write it)", h.display()));
        }
        out.push(crate::backend::network_line(policy));
        out.push(format!(
            "sockets: the session's pathname sockets hidden (/run/user, $XDG_RUNTIME_DIR, sockets under /tmp, /run, /dev/shm); other pathname sockets reachable; abstract sockets {}",
            if abi >= 6 { "scoped away by Landlock" } else { "REACHABLE: Landlock here is older than ABI 6" }
        ));
        out.push(format!(
            "landlock: ABI {abi}: reads granted around every hidden location, writes only to the writable roots; TCP {}; signals and abstract sockets {}",
            if abi >= 4 { "bind and connect refused unless the network is allowed" } else { "NOT covered by Landlock before ABI 4 (the seccomp filter still refuses every socket but unix ones unless the network is allowed)" },
            if abi >= 6 { "scoped to the call" } else { "NOT scoped before ABI 6" }
        ));
        out.push(format!(
            "seccomp: refused {}; no socket but unix ones unless the network is allowed",
            crate::helper::seccomp::REFUSED_SYSCALLS.join(", ")
        ));
        let limits = policy.limits();
        out.push(format!(
            "limits: process limits ({} processes for your user, {} MiB of writable memory per process), and the call's cgroup where one can be made",
            limits.pids, limits.memory_mib
        ));
        out.push("not isolated by this tier: other processes are visible in /proc (no PID namespace); pathname unix sockets outside the hidden ones can be connected to; the modes and owners of your own files can be changed anywhere (Landlock does not cover chmod and chown; the writable roots' and the private temp dir's modes are put back after the call); directories that hold a hidden location cannot be listed; git metadata in a writable root is put back after the call instead of being read-only during it".into());
        out
    }

    fn runner_failure(
        &self,
        exit_code: Option<i32>,
        stderr_start: &[u8],
        started: bool,
    ) -> Option<String> {
        crate::helper::helper_failure(exit_code, stderr_start, started)
    }
}

/// The full tier, or this one where it cannot start (unless the operator requires the full
/// tier): which one a call gets is decided once, by the full tier's self-check.
pub struct Tiered {
    full: Box<dyn SandboxBackend>,
    fallback: Option<LandlockTier>,
    chosen: OnceLock<bool>,
}

impl Tiered {
    /// `full`, falling back to `fallback` (none: the operator requires the full tier).
    pub fn new(full: Box<dyn SandboxBackend>, fallback: Option<LandlockTier>) -> Self {
        Tiered { full, fallback, chosen: OnceLock::new() }
    }

    /// The backend calls go to: the full tier when it is available.
    fn active(&self) -> &dyn SandboxBackend {
        let full = *self.chosen.get_or_init(|| self.full.available().is_available());
        match (&self.fallback, full) {
            (Some(f), false) => f,
            _ => self.full.as_ref(),
        }
    }
}

impl SandboxBackend for Tiered {
    fn wrap(
        &self,
        policy: &SandboxPolicy,
        argv: Vec<OsString>,
        cwd: &Path,
        protected: &Protected,
    ) -> Result<Vec<OsString>, SandboxError> {
        self.active().wrap(policy, argv, cwd, protected)
    }

    fn available(&self) -> Availability {
        let active = self.active();
        match active.available() {
            Availability::Available => Availability::Available,
            Availability::Unavailable { reason } if self.fallback.is_none() => {
                Availability::Unavailable {
                    reason: format!("{reason}; {}", reasons::FULL_REQUIRED),
                }
            }
            Availability::Unavailable { reason } => {
                // Both tiers failed: the full tier's reason first (it is what to fix).
                match self.full.available() {
                    Availability::Unavailable { reason: full } => Availability::Unavailable {
                        reason: format!("{full}; the fallback sandbox cannot run either: {reason}"),
                    },
                    Availability::Available => Availability::Unavailable { reason },
                }
            }
        }
    }

    fn runner_failure(
        &self,
        exit_code: Option<i32>,
        stderr_start: &[u8],
        started: bool,
    ) -> Option<String> {
        self.active().runner_failure(exit_code, stderr_start, started)
    }

    fn started_fd(&self) -> Option<i32> {
        self.active().started_fd()
    }

    fn describe(&self) -> &'static str {
        self.active().describe()
    }

    fn restores_protected(&self) -> bool {
        self.active().restores_protected()
    }

    fn report(&self, policy: &SandboxPolicy) -> Vec<String> {
        self.active().report(policy)
    }

    fn tier(&self) -> &'static str {
        self.active().tier()
    }
}
